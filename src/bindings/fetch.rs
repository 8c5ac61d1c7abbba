//! `HttpClient` over the global `fetch` (browsers, workers and Node >= 18 all have one).

use crate::buffer::try_zeroed;
use crate::store::http::{HttpClient, HttpFailure, HttpRequest, HttpResponse, Method};
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
    #[wasm_bindgen(js_name = setTimeout)]
    pub(super) fn set_timeout(callback: &js_sys::Function, ms: i32) -> JsValue;
}

/// Sends requests with the global `fetch` or the user's own function, adding the user's headers.
#[derive(Default, Clone)]
pub struct FetchClient {
    /// Headers for every request (authorisation, for example).
    pub headers: Vec<(String, String)>,
    /// `credentials` of every request ("include" for cookies across origins), where set.
    pub credentials: Option<web_sys::RequestCredentials>,
    /// A function `(Request) => Promise<Response>` used instead of `fetch` (presigned URLs).
    pub fetch: Option<js_sys::Function>,
    /// The `AbortSignal` of the read these requests belong to.
    pub signal: Option<std::rc::Rc<super::signal::SignalWatch>>,
}

impl FetchClient {
    fn call_fetch(&self, request: &Request) -> Result<Promise, JsValue> {
        match &self.fetch {
            Some(f) => f
                .call1(&JsValue::NULL, request)?
                .dyn_into::<Promise>()
                .or_else(|v| Ok(Promise::resolve(&v))),
            None => Ok(global_fetch(request)),
        }
    }
}

/// A failure with no response: retried, unless it is the caller's own abort.
fn failure(err: JsValue) -> HttpFailure {
    let aborted = js_sys::Reflect::get(&err, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .as_deref()
        == Some("AbortError");
    HttpFailure {
        message: describe(err),
        retryable: !aborted,
        aborted,
    }
}
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
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpFailure> {
        let init = RequestInit::new();
        init.set_method(match request.method {
            Method::Get => "GET",
            Method::Head => "HEAD",
        });
        let headers = Headers::new().map_err(failure)?;
        for (name, value) in &self.headers {
            headers.set(name, value).map_err(failure)?;
        }
        if let Some(range) = request.range {
            headers
                .set("Range", &range_header(range))
                .map_err(failure)?;
            // Chromium serialises concurrent range requests to one URL through its HTTP cache.
            init.set_cache(RequestCache::NoStore);
        }
        init.set_headers(&headers);
        if let Some(credentials) = self.credentials {
            init.set_credentials(credentials);
        }
        if let Some(watch) = &self.signal {
            init.set_signal(Some(&watch.signal));
        }
        let req = Request::new_with_str_and_init(&request.url, &init).map_err(failure)?;
        // Whatever the rejection (abort(reason), AbortSignal.timeout()), an aborted signal means
        // the caller's abort, which is neither retried nor blamed on the server.
        let own_abort = |err: JsValue| {
            let mut f = failure(err);
            if self.cancelled() {
                f.aborted = true;
                f.retryable = false;
            }
            f
        };
        let promise = self.call_fetch(&req).map_err(own_abort)?;
        let response: Response = JsFuture::from(promise)
            .await
            .map_err(own_abort)?
            .dyn_into()
            .map_err(|v| HttpFailure {
                message: format!("the fetch function resolved to {v:?}, not a Response"),
                retryable: false,
                aborted: false,
            })?;
        let header = |name: &str| response.headers().get(name).map_err(failure);
        let content_range = header("Content-Range")?;
        let content_length = header("Content-Length")?.and_then(|v| v.trim().parse().ok());
        let status = response.status();
        // Read the body even of an error response, so the connection is released.
        let body = match request.method {
            Method::Get => {
                let buffer = JsFuture::from(response.array_buffer().map_err(failure)?)
                    .await
                    .map_err(failure)?;
                let view = Uint8Array::new(&buffer);
                // A failed allocation must be an error, not an abort: the body's size is the server's.
                let mut body = try_zeroed(view.length() as usize).map_err(|e| HttpFailure {
                    message: format!("response body: {e}"),
                    retryable: false,
                    aborted: false,
                })?;
                view.copy_to(&mut body);
                body
            }
            Method::Head => Vec::new(),
        };
        Ok(HttpResponse {
            status,
            body,
            content_range,
            content_length,
        })
    }

    fn cancelled(&self) -> bool {
        self.signal.as_ref().is_some_and(|s| s.cancelled())
    }

    async fn aborted(&self) {
        match &self.signal {
            Some(watch) => watch.token.aborted().await,
            None => std::future::pending::<()>().await,
        }
    }

    async fn sleep(&self, ms: u32) {
        let promise = Promise::new(&mut |resolve, _| {
            set_timeout(&resolve, ms.min(i32::MAX as u32) as i32);
        });
        let _ = JsFuture::from(promise).await;
    }
}
