//! `HttpClient` over the global `fetch` (browsers, workers and Node >= 18 all have one).

use super::guarded::show;
use crate::store::http::{HttpClient, HttpFailure, HttpRequest, HttpResponse, Method};
use crate::store::window::BodyWindow;
use crate::store::ByteRange;
use async_trait::async_trait;
use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Headers, Request, RequestCache, RequestInit, Response};

#[wasm_bindgen]
extern "C" {
    // The global `fetch`, not `window.fetch`: there is no window in Node or in workers.
    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(request: &Request) -> Promise;
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &js_sys::Function, ms: i32) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue);
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
    /// `redirect` of every request ("error" refuses redirects), where set.
    pub redirect: Option<web_sys::RequestRedirect>,
    /// The `AbortSignal` of the read these requests belong to.
    pub signal: Option<std::rc::Rc<super::signal::SignalWatch>>,
}

impl FetchClient {
    /// This client for the requests of one call: they carry `signal`.
    pub fn with_signal(&self, signal: &std::rc::Rc<super::signal::SignalWatch>) -> FetchClient {
        FetchClient {
            signal: Some(signal.clone()),
            ..self.clone()
        }
    }

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

/// Aborts a request's controller when the request ends before its body was read whole (an error,
/// a timeout, a refused body, the caller's abort, or nobody waiting any more). A request that
/// completed is left alone: aborting it would do nothing but cost an `AbortError` object and an
/// event per request.
struct AbortOnDrop {
    controller: AbortController,
    completed: bool,
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if !self.completed {
            self.controller.abort();
        }
    }
}

impl FetchClient {
    /// `future`, unless the read is aborted first or nothing happens for `timeout_ms` (0: no
    /// limit). `what` names what was awaited, for the timeout's message.
    async fn wait(
        &self,
        future: impl std::future::Future<Output = Result<JsValue, JsValue>>,
        timeout_ms: u32,
        what: &str,
    ) -> Result<JsValue, HttpFailure> {
        use futures_util::future::{select, Either};
        let aborted = self.aborted();
        let timer = async {
            if timeout_ms == 0 {
                std::future::pending::<()>().await
            }
            self.sleep(timeout_ms).await
        };
        futures_util::pin_mut!(aborted, timer, future);
        let stop = select(aborted, timer);
        match select(future, stop).await {
            Either::Left((result, _)) => result.map_err(|err| {
                let mut f = failure(err);
                // Whatever the rejection (abort(reason), AbortSignal.timeout()), an aborted signal
                // means the caller's abort, which is neither retried nor blamed on the server.
                if self.cancelled() {
                    f.aborted = true;
                    f.retryable = false;
                }
                f
            }),
            Either::Right((Either::Left(_), _)) => Err(HttpFailure {
                message: "aborted".into(),
                retryable: false,
                aborted: true,
                refused: false,
            }),
            Either::Right((Either::Right(_), _)) => Err(HttpFailure {
                message: format!(
                    "no progress for {timeout_ms} ms waiting for {what} (the store's timeout)"
                ),
                retryable: true,
                aborted: false,
                refused: false,
            }),
        }
    }

    /// The body of `response`, read as it arrives: refused as soon as it would exceed `limit`
    /// bytes (by its Content-Length, or by what has come), and failed after `timeout_ms` without
    /// a part arriving. Up to `believed` bytes are reserved at once on its Content-Length.
    async fn read_body(
        &self,
        response: &Response,
        content_length: Option<u64>,
        limit: u64,
        believed: u64,
        timeout_ms: u32,
    ) -> Result<Vec<u8>, HttpFailure> {
        longer_than(response, content_length, limit)?;
        let mut body: Vec<u8> = Vec::new();
        if let Some(n) = content_length {
            // Bounded by `limit` above, and by what a first reservation may take on a server's
            // word: a body that really is larger grows as it arrives. A partial answer is
            // reserved whole: its limit is the range asked for, our own number, and growing a
            // 64 MiB body copies it (a read of two 64 MiB shards then peaked 60 MiB higher). A
            // failed reservation is an error, not a trap.
            let n = n.min(believed);
            body.try_reserve_exact(n as usize)
                .map_err(|_| cannot_allocate(n))?;
        }
        self.read_parts(response, limit, timeout_ms, &mut |chunk| {
            let start = body.len();
            let end = start as u64 + chunk.length() as u64;
            // Grown only when the part does not fit, never past the limit: to the Content-Length
            // once the body has outgrown the first reservation (64 MiB have come, so the length
            // is believed: a 64.1 MiB shard takes 64.1 MiB, not 128), else to twice the size
            // (amortised copies; a body without a length grows at most to twice what it holds).
            if end > body.capacity() as u64 {
                let wanted = match content_length {
                    Some(n) if end <= n => n,
                    _ => (body.capacity() as u64).saturating_mul(2),
                }
                .clamp(end, limit);
                body.try_reserve_exact(wanted as usize - start)
                    .map_err(|_| cannot_allocate(wanted))?;
            }
            zarr_wasm_kernels::bytes::grow_zeroed(&mut body, end as usize);
            chunk.copy_to(&mut body[start..]);
            Ok(false)
        })
        .await?;
        Ok(body)
    }

    /// `keep` of a whole body (a server that ignored Range), kept as it arrives: memory for the
    /// range alone, not the value (a 16 KiB shard index of a 200 MB shard took 200 MB and more).
    /// Reading stops once a span has come; the rest is left unread, and the request aborted.
    /// Otherwise as `read_body`: the value's size is still bounded by `limit`.
    async fn read_window(
        &self,
        response: &Response,
        content_length: Option<u64>,
        limit: u64,
        keep: ByteRange,
        timeout_ms: u32,
    ) -> Result<(Vec<u8>, bool), HttpFailure> {
        longer_than(response, content_length, limit)?;
        let mut window = BodyWindow::new(keep);
        let ended = self
            .read_parts(response, limit, timeout_ms, &mut |chunk| {
                let len = chunk.length();
                window
                    .take(len as usize, |part, into| {
                        chunk
                            .subarray(part.start as u32, part.end as u32)
                            .copy_to(into)
                    })
                    .map_err(|_| cannot_allocate(len as u64))?;
                Ok(window.complete())
            })
            .await?;
        Ok((window.into_body(), ended))
    }

    /// Reads `response`'s body part by part into `sink`, until it ends (true) or `sink` says it
    /// has what it needs (false: the rest is unread). More than `limit` bytes in all is refused
    /// as it comes; `timeout_ms` without a part is a failure.
    async fn read_parts(
        &self,
        response: &Response,
        limit: u64,
        timeout_ms: u32,
        sink: &mut dyn FnMut(&Uint8Array) -> Result<bool, HttpFailure>,
    ) -> Result<bool, HttpFailure> {
        let Some(stream) = response.body() else {
            return Ok(true);
        };
        let reader = js_sys::Reflect::get(&stream, &"getReader".into())
            .and_then(|f| f.unchecked_into::<js_sys::Function>().call0(&stream))
            .map_err(failure)?;
        let read = js_sys::Reflect::get(&reader, &"read".into())
            .map_err(failure)?
            .unchecked_into::<js_sys::Function>();
        let mut received: u64 = 0;
        loop {
            let next = read.call0(&reader).map_err(failure)?;
            let part = self
                .wait(
                    JsFuture::from(Promise::from(next)),
                    timeout_ms,
                    "the response body",
                )
                .await?;
            let done = js_sys::Reflect::get(&part, &"done".into()).map_err(failure)?;
            if done.as_bool() == Some(true) {
                return Ok(true);
            }
            let chunk: Uint8Array = js_sys::Reflect::get(&part, &"value".into())
                .map_err(failure)?
                .dyn_into()
                .map_err(|v| HttpFailure {
                    message: format!("the response body gave {}, not bytes", show(&v)),
                    retryable: false,
                    aborted: false,
                    refused: false,
                })?;
            let end = received + chunk.length() as u64;
            if end > limit {
                return Err(too_large(
                    response.status(),
                    limit,
                    format!("more than {}", end - 1),
                ));
            }
            received = end;
            if sink(&chunk)? {
                return Ok(false);
            }
            // A body the browser has already buffered resolves each read in a microtask: read
            // without a turn, a 30 MB reference file from a fast server held the page 100 ms.
            crate::host::yield_if_busy().await;
        }
    }
}

/// A body refused by its Content-Length, where that says more than `limit` bytes.
fn longer_than(
    response: &Response,
    content_length: Option<u64>,
    limit: u64,
) -> Result<(), HttpFailure> {
    match content_length.filter(|&n| n > limit) {
        Some(n) => Err(too_large(
            response.status(),
            limit,
            format!("{n} bytes by its Content-Length"),
        )),
        None => Ok(()),
    }
}

/// A body refused for its size (`size`, in words).
fn too_large(status: u16, limit: u64, size: String) -> HttpFailure {
    HttpFailure {
        message: if status == 206 {
            format!("the partial answer is {size}, more than the {limit} bytes asked for; refused")
        } else {
            format!("the response body is {size}, more than the {limit} bytes allowed (FetchStore option maxObjectBytes); refused")
        },
        retryable: false,
        aborted: false,
        refused: false,
    }
}

fn cannot_allocate(n: u64) -> HttpFailure {
    HttpFailure {
        message: format!("cannot allocate {n} bytes for the response body"),
        retryable: false,
        aborted: false,
        refused: false,
    }
}

/// The most a body's Content-Length reserves before any of it has arrived.
const FIRST_RESERVATION: u64 = 64 << 20;

/// A failure with no response: retried, unless it is the caller's own abort or a refusal that
/// another try cannot change (`refusal`).
fn failure(err: JsValue) -> HttpFailure {
    let aborted = js_sys::Reflect::get(&err, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .as_deref()
        == Some("AbortError");
    let refused = !aborted && refusal(&err);
    HttpFailure {
        message: describe(err),
        retryable: !aborted && !refused,
        aborted,
        refused,
    }
}

/// Whether `fetch` rejected with a refusal rather than a failure on the way: the connection
/// refused or the host unknown (Node names the cause's code), a URL fetch cannot use, or, in a
/// browser, the TypeError that stands for both a CORS refusal and an unreachable server. A
/// connection reset, a timeout or a body cut short are failures on the way, worth another try.
fn refusal(err: &JsValue) -> bool {
    let get = |v: &JsValue, k: &str| js_sys::Reflect::get(v, &k.into()).ok();
    let cause = get(err, "cause").filter(|c| c.is_object());
    let code = cause
        .as_ref()
        .and_then(|c| get(c, "code"))
        .and_then(|c| c.as_string());
    match (code.as_deref(), &cause) {
        (
            Some(
                "ECONNREFUSED"
                | "ENOTFOUND"
                | "EAI_NONAME"
                | "ERR_INVALID_URL"
                | "ERR_INVALID_PROTOCOL"
                | "UND_ERR_INVALID_ARG"
                | "EACCES",
            ),
            _,
        ) => true,
        (Some(_), _) => false,
        // Node without a code: "not implemented... yet..." (a file: URL), an invalid URL.
        (None, Some(c)) => get(c, "message")
            .and_then(|m| m.as_string())
            .is_some_and(|m| {
                ["not implemented", "Invalid URL", "bad port"]
                    .iter()
                    .any(|refusal| m.contains(refusal))
            }),
        // A browser's TypeError ("Failed to fetch", "NetworkError when attempting to fetch
        // resource", "Load failed"), or a URL the Request constructor refused.
        (None, None) => {
            get(err, "name").and_then(|n| n.as_string()).as_deref() == Some("TypeError")
        }
    }
}

/// `fetch`'s rejection without a response, given what it may be and what to check (a hint that
/// `describe` puts after its message): Node names the cause (a refused connection, an unknown
/// host, a reset); a browser gives the same TypeError for a CORS refusal and for a server it
/// could not reach, so the hint names both where the page's origin is not the URL's, with the
/// page's origin. An abort is left as it is.
fn explained(err: JsValue, url: &str) -> JsValue {
    let get = |v: &JsValue, k: &str| js_sys::Reflect::get(v, &k.into()).ok();
    let text = |v: Option<JsValue>| v.and_then(|v| v.as_string());
    let name = text(get(&err, "name"));
    if name.as_deref() == Some("AbortError") || !err.is_object() {
        return err;
    }
    let cause = get(&err, "cause").filter(|c| c.is_object());
    let code = text(cause.as_ref().and_then(|c| get(c, "code")));
    let (target, host) = origin(url).unwrap_or_else(|| (url.to_string(), url.to_string()));
    let page = text(get(&js_sys::global(), "location").and_then(|l| get(&l, "origin")))
        .filter(|o| o != "null");
    // Joined rather than formatted: every module carries these, the Zarr build within its budget.
    let hint = match code.as_deref() {
        Some("ECONNREFUSED") => [&host, " refused the connection: is the server running?"].concat(),
        Some("ENOTFOUND" | "EAI_AGAIN" | "EAI_NONAME") => ["no such host: ", &host].concat(),
        Some("ECONNRESET" | "EPIPE" | "UND_ERR_SOCKET") => {
            [&host, " closed the connection before answering"].concat()
        }
        Some("ETIMEDOUT" | "UND_ERR_CONNECT_TIMEOUT") => {
            ["could not connect to ", &host, " in time"].concat()
        }
        Some(_) => return err,
        None if cause.is_some() => return err,
        None if name.as_deref() != Some("TypeError") => return err,
        None => match page {
            Some(page) if page != target => [
                "no answer: either ",
                &target,
                " refused this page's origin ",
                &page,
                " (CORS: its answers need Access-Control-Allow-Origin and Access-Control-Expose-Headers: Content-Range, Content-Length; its preflights Access-Control-Allow-Headers: Range), or it could not be reached. The browser's console says which",
            ]
            .concat(),
            _ => ["no answer: ", &target, " could not be reached"].concat(),
        },
    };
    // Read by `describe`, after the error's message and cause.
    let _ = js_sys::Reflect::set(&err, &HINT.into(), &hint.into());
    err
}

/// The property `explained` puts on a rejection for `describe`.
const HINT: &str = "zarrWasmHint";

/// The origin of an absolute http(s) URL as a page's `location.origin` writes it (scheme and
/// host lower case, without a default port), and its host with the port.
fn origin(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, h)| h)
        .to_ascii_lowercase();
    let host = match (scheme.as_str(), host.rsplit_once(':')) {
        ("http", Some((h, "80"))) | ("https", Some((h, "443"))) => h.to_string(),
        _ => host,
    };
    Some((format!("{scheme}://{host}"), host))
}

/// Why `url` cannot be fetched at all, where that is known before trying: `fetch` reads only
/// http(s), data and blob URLs, and resolves a relative URL only against a page.
fn unusable_url(url: &str) -> Option<String> {
    let scheme = url
        .split_once(':')
        .map(|(s, _)| s.to_ascii_lowercase())
        .filter(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        });
    match scheme.as_deref() {
        Some("http" | "https" | "data" | "blob") => None,
        Some("file") => Some(format!(
            "{url}: fetch cannot read file: URLs; in Node, open a directory with FileSystemStore from \"zarr-wasm/fs\""
        )),
        Some(other) => Some(format!("{url}: fetch cannot read {other}: URLs (http and https only)")),
        None if js_sys::Reflect::get(&js_sys::global(), &"document".into())
            .is_ok_and(|d| d.is_undefined()) && !is_worker() =>
        {
            Some(format!(
                "\"{url}\" is a relative URL, and there is no page to resolve it against here: give an absolute URL (http://...), or in Node a FileSystemStore from \"zarr-wasm/fs\" for a local directory"
            ))
        }
        None => None,
    }
}

/// Whether this is a worker (it has `importScripts`), whose location resolves relative URLs.
fn is_worker() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &"importScripts".into()).is_ok_and(|f| f.is_function())
}

fn describe(err: JsValue) -> String {
    if let Some(e) = err.dyn_ref::<js_sys::Error>() {
        let cause = js_sys::Reflect::get(e, &"cause".into())
            .ok()
            .filter(|c| !c.is_undefined() && !c.is_null());
        let cause = cause
            .map(|c| format!(" ({})", describe(c)))
            .unwrap_or_default();
        let hint = js_sys::Reflect::get(e, &HINT.into())
            .ok()
            .and_then(|h| h.as_string())
            .map(|h| format!(": {h}"))
            .unwrap_or_default();
        format!("{}{cause}{hint}", String::from(e.message()))
    } else {
        err.as_string().unwrap_or_else(|| show(&err))
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
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        });
        if let Some(body) = &request.body {
            init.set_body(&Uint8Array::from(&body[..]));
        }
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
        if let Some(redirect) = self.redirect {
            init.set_redirect(redirect);
        }
        // A controller of this request's own: it is aborted when the read's signal aborts, when
        // the request times out or its body is refused, and when nobody waits for it any more
        // (this future dropped), so that no request is left running at the server.
        let mut controller = AbortOnDrop {
            controller: AbortController::new().map_err(failure)?,
            completed: false,
        };
        init.set_signal(Some(&controller.controller.signal()));
        if let Some(why) = unusable_url(&request.url) {
            return Err(HttpFailure {
                message: why,
                retryable: false,
                aborted: false,
                refused: true,
            });
        }
        let req = Request::new_with_str_and_init(&request.url, &init).map_err(failure)?;
        let promise = self.call_fetch(&req).map_err(failure)?;
        let timeout = request.idle_timeout_ms;
        // A fetch without a response says what that may be (`explained`).
        let url = request.url.as_str();
        let fetched = async move {
            JsFuture::from(promise)
                .await
                .map_err(|err| explained(err, url))
        };
        let response: Response = self
            .wait(fetched, timeout, "the response")
            .await?
            .dyn_into()
            .map_err(|v| HttpFailure {
                message: format!(
                    "the fetch function resolved to {}, not a Response",
                    show(&v)
                ),
                retryable: false,
                aborted: false,
                refused: false,
            })?;
        let header = |name: &str| response.headers().get(name).map_err(failure);
        let content_range = header("Content-Range")?;
        let content_length = header("Content-Length")?.and_then(|v| v.trim().parse().ok());
        let status = response.status();
        // Read the body even of an error response, so the connection is released; but not a
        // partial answer longer than the range asked for (a server that misread it): the store
        // decides from the headers, and the request is aborted as this returns.
        let limit = request.max_body.for_status(status);
        let misread = status == 206 && content_length.is_some_and(|n| n > limit);
        // Of a whole answer (a server that ignored Range), only the part wanted is kept.
        let window = request
            .keep
            .filter(|_| status != 206 && (200..300).contains(&status));
        let (body, ended) = match (request.method, window) {
            (Method::Head, _) => (Vec::new(), true),
            (Method::Get, _) if misread => {
                return Ok(HttpResponse {
                    status,
                    body: Vec::new(),
                    content_range,
                    content_length,
                    cut: false,
                })
            }
            (Method::Get, Some(keep)) => {
                self.read_window(&response, content_length, limit, keep, timeout)
                    .await?
            }
            // The whole body: a GET without a window, and a write's answer (a write keeps none).
            (_, _) => {
                // A partial answer's limit is the range asked for: our own number.
                let believed = match (status, request.max_body.partial) {
                    (206, Some(_)) => limit,
                    _ => FIRST_RESERVATION,
                };
                let body = self
                    .read_body(&response, content_length, limit, believed, timeout)
                    .await?;
                (body, true)
            }
        };
        // A window complete before the body's end leaves the rest unread: the request is aborted
        // as this returns, so that the server stops sending it.
        controller.completed = ended;
        Ok(HttpResponse {
            status,
            body,
            content_range,
            content_length,
            cut: window.is_some(),
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
        sleep(ms).await
    }
}

/// Resolves after `ms` milliseconds. Dropped earlier (a timeout that did not fire), it clears its
/// timer, since pending timers would keep Node running and pile up over a long read, and settles
/// the promise itself: the callbacks waiting on it hold memory in the module until it settles.
pub(super) async fn sleep(ms: u32) {
    let mut timer = Timer {
        id: JsValue::UNDEFINED,
        resolve: None,
    };
    let promise = Promise::new(&mut |resolve, _| {
        timer.id = set_timeout(&resolve, ms.min(i32::MAX as u32) as i32);
        timer.resolve = Some(resolve);
    });
    let _ = JsFuture::from(promise).await;
}

struct Timer {
    id: JsValue,
    resolve: Option<js_sys::Function>,
}

impl Drop for Timer {
    fn drop(&mut self) {
        clear_timeout(&self.id);
        if let Some(resolve) = &self.resolve {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
    }
}
