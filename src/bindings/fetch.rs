//! `HttpClient` over the global `fetch` (browsers, workers and Node >= 18 all have one).

use crate::buffer::try_zeroed;
use crate::store::http::{HttpClient, HttpRequest, HttpResponse, Method};
use crate::store::ByteRange;
use async_trait::async_trait;
use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Headers, Request, RequestCache, RequestInit, Response};

#[wasm_bindgen]
extern "C" {
    // The global `fetch`, not `window.fetch`: there is no window in Node or in workers.
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(request: &Request) -> Promise;
}

pub struct FetchClient;

fn describe(err: JsValue) -> String {
    if let Some(e) = err.dyn_ref::<js_sys::Error>() {
        let cause = js_sys::Reflect::get(e, &"cause".into())
            .ok()
            .filter(|c| !c.is_undefined() && !c.is_null());
        let cause = cause
            .map(|c| format!(" ({})", describe(c)))
            .unwrap_or_default();
        format!("{}{cause}", String::from(e.message()))
    } else {
        err.as_string().unwrap_or_else(|| format!("{err:?}"))
    }
}

fn range_header(range: ByteRange) -> String {
    match range {
        // Zero-length spans never get here (the store answers them itself).
        ByteRange::Span { offset, length } => format!(
            "bytes={offset}-{}",
            offset.saturating_add(length.max(1) - 1)
        ),
        ByteRange::From(offset) => format!("bytes={offset}-"),
        ByteRange::Suffix(n) => format!("bytes=-{n}"),
    }
}

#[async_trait(?Send)]
impl HttpClient for FetchClient {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, String> {
        let init = RequestInit::new();
        init.set_method(match request.method {
            Method::Get => "GET",
            Method::Head => "HEAD",
        });
        if let Some(range) = request.range {
            let headers = Headers::new().map_err(describe)?;
            headers
                .set("Range", &range_header(range))
                .map_err(describe)?;
            init.set_headers(&headers);
            // Chromium serialises concurrent range requests to one URL through its HTTP cache.
            init.set_cache(RequestCache::NoStore);
        }
        let req = Request::new_with_str_and_init(&request.url, &init).map_err(describe)?;
        let response: Response = JsFuture::from(global_fetch(&req))
            .await
            .map_err(describe)?
            .unchecked_into();
        let content_range = response.headers().get("Content-Range").map_err(describe)?;
        let status = response.status();
        // Read the body even of an error response, so the connection is released.
        let body = match request.method {
            Method::Get => {
                let buffer = JsFuture::from(response.array_buffer().map_err(describe)?)
                    .await
                    .map_err(describe)?;
                let view = Uint8Array::new(&buffer);
                // A failed allocation must be an error, not an abort: the body's size is the server's.
                let mut body = try_zeroed(view.length() as usize)
                    .map_err(|e| format!("response body: {e}"))?;
                view.copy_to(&mut body);
                body
            }
            Method::Head => Vec::new(),
        };
        Ok(HttpResponse {
            status,
            body,
            content_range,
        })
    }
}
