//! A store over HTTP(S). The HTTP rules (which statuses mean "missing", how ranges are asked for and
//! checked) live here in plain Rust; sending a request is left to an `HttpClient`, which the binding
//! layer implements with `fetch`.

use super::limit::{Limiter, Permit};
#[cfg(feature = "vectors")]
use super::listing::{self, Listing};
use super::{ByteRange, ReadHints, ReadableStore};
use crate::error::{ErrorKind, Result, ZarrError};
use async_trait::async_trait;
use futures_util::future::{select, Either};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    /// Stores a value whole (a writable store's `set`).
    Put,
    /// Removes a value (a writable store's `erase`).
    Delete,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub range: Option<ByteRange>,
    /// The part of the value wanted, where that is not all of it: of a whole answer (200, from a
    /// server that ignores Range), the client may keep only this part as it arrives, and stop
    /// reading once a span has come (`store::window`), and says so by `HttpResponse::cut`.
    pub keep: Option<ByteRange>,
    /// The most body bytes the client may accept; beyond it the response is refused without
    /// reading the rest (an endless body, a server that sends more than was asked for).
    pub max_body: BodyLimit,
    /// Milliseconds without any progress (headers, then each part of the body) after which the
    /// client gives up on the request; 0 waits for ever.
    pub idle_timeout_ms: u32,
    /// What a PUT sends: the value, shared by the tries of one write.
    pub body: Option<Rc<[u8]>>,
}

/// How large a response body may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyLimit {
    /// For a partial answer (206): the size of the range asked for, where it says one.
    pub partial: Option<u64>,
    /// For a whole value (200, also in answer to a range request a server ignored).
    pub whole: u64,
}

impl BodyLimit {
    /// The limit for an answer with `status`.
    pub fn for_status(self, status: u16) -> u64 {
        match (status, self.partial) {
            (206, Some(n)) => n.min(self.whole),
            _ => self.whole,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: Vec<u8>,
    /// The `Content-Range` header, where the response has one (and, in browsers, exposes it).
    pub content_range: Option<String>,
    /// The `Content-Length` header, where the response has one (read from HEAD responses).
    pub content_length: Option<u64>,
    /// The body is `HttpRequest::keep` of a whole value, cut by the client as it arrived.
    pub cut: bool,
}

/// A request that got no response at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpFailure {
    pub message: String,
    /// Network failures are worth another try; an abort by the caller is not.
    pub retryable: bool,
    /// The caller's `AbortSignal` stopped the request.
    pub aborted: bool,
    /// Refused before any answer, in a way another try cannot change: a URL fetch cannot use, a
    /// refused connection, an unknown host, a CORS failure. A request with a Range header that is
    /// refused so is sent once more without it (a CORS server may not allow the header).
    pub refused: bool,
}

#[async_trait(?Send)]
pub trait HttpClient {
    /// Sends one request. `Err` is a failure to get any response at all (network, CORS, abort).
    async fn send(&self, request: HttpRequest) -> std::result::Result<HttpResponse, HttpFailure>;
    /// Waits `ms` milliseconds (between retries).
    async fn sleep(&self, ms: u32);
    /// Whether the caller has aborted the requests this client sends.
    fn cancelled(&self) -> bool {
        false
    }
    /// Resolves when the caller aborts (never, without a signal).
    async fn aborted(&self) {
        std::future::pending::<()>().await
    }
}

/// How the store treats a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// How the end of a value (a shard index at the end) is asked for.
    pub suffix_ranges: SuffixRanges,
    /// Statuses that mean "no such key" (a missing chunk is the fill value): 404, and 403 for
    /// buckets that answer that for missing keys.
    pub missing_statuses: Vec<u16>,
    /// Extra tries after a network failure or a 408/429/5xx answer.
    pub retries: u32,
    /// The wait before the first retry; it doubles for each next one.
    pub retry_delay_ms: u32,
    /// Requests in flight at once, for this store (others wait their turn).
    pub max_requests: usize,
    /// Merge gap and shard index cache size for readers of this store.
    pub hints: ReadHints,
    /// Milliseconds a request may go without progress before it fails (and is retried like a
    /// network failure); 0: no timeout.
    pub idle_timeout_ms: u32,
    /// The largest value the store accepts whole: a larger body is refused as it arrives.
    pub max_object_bytes: u64,
    /// How directories are listed; None: a bucket's listing where the URL's host says it is S3
    /// or Google Cloud Storage, index pages otherwise (`Listing::detect`), and for a writable
    /// store on another host the S3 API of a path-style bucket (`<endpoint>/<bucket>/...`).
    #[cfg(feature = "vectors")]
    pub listing: Option<Listing>,
    /// Whether the store writes: PUT to set a value, DELETE to erase one, the bucket's listing to
    /// find what lies below a prefix.
    pub writable: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            suffix_ranges: SuffixRanges::Ask,
            missing_statuses: vec![404],
            retries: 3,
            retry_delay_ms: 100,
            max_requests: 32,
            hints: ReadHints::default(),
            idle_timeout_ms: 30_000,
            max_object_bytes: 1 << 30,
            #[cfg(feature = "vectors")]
            listing: None,
            writable: false,
        }
    }
}

/// How the store asks for the last `n` bytes of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuffixRanges {
    /// A suffix range (`bytes=-N`): one request.
    Ask,
    /// HEAD for the length, then an explicit range; suffix ranges where HEAD does not serve
    /// (refused, an error, no length), remembered per location. A browser sends a suffix range to another origin only after a preflight (it is not
    /// a CORS-safelisted Range), an explicit one without: the same round trips, no preflight, and
    /// no need for the server's CORS rules to allow the Range header.
    HeadFirst,
    /// HEAD and an explicit range only; no length from HEAD is an error.
    Never,
}

/// What the store learnt of a server, kept per store location (the base URL) for the life of the
/// page: every store opened at it (`open(url)` makes one per call) starts from it instead of
/// failing or spending a request to learn it again. Not per origin: one origin may serve paths
/// of different behaviour (a proxy in front of some, a dev server's own files beside them).
pub struct ServerFacts {
    /// The server refused or misread a suffix range: use HEAD + range from then on.
    pub suffix_refused: Cell<bool>,
    /// The server answered a suffix range with the range asked for: suffix ranges go without
    /// waiting for one another from then on.
    pub suffix_served: Cell<bool>,
    /// The server answered a range request with the whole value, or refused a request only for
    /// its Range header (a CORS server that does not allow it): ask for whole values.
    pub ignores_ranges: Cell<bool>,
    /// HEAD was refused, failed or gave no length (`SuffixRanges::HeadFirst`): use suffix ranges
    /// from then on.
    pub head_unusable: Cell<bool>,
    /// Held by the suffix range in flight while no answer has said whether the server serves
    /// them: the suffix ranges after it wait for its answer, then go as it taught, instead of
    /// each being refused (a first view of ten shards on a server without suffix ranges, such as
    /// `npx http-server`, was ten 416s).
    suffix_probe: Limiter,
}

impl Default for ServerFacts {
    fn default() -> Self {
        ServerFacts {
            suffix_refused: Cell::new(false),
            suffix_served: Cell::new(false),
            ignores_ranges: Cell::new(false),
            head_unusable: Cell::new(false),
            suffix_probe: Limiter::new(1),
        }
    }
}

/// The most locations remembered; past it the oldest facts are forgotten (they are relearnt).
const MAX_LOCATIONS: usize = 256;

thread_local! {
    static LOCATIONS: RefCell<Vec<(String, Rc<ServerFacts>)>> = const { RefCell::new(Vec::new()) };
}

impl ServerFacts {
    /// The facts of the store at `base`, shared.
    fn of_location(base: &str) -> Rc<ServerFacts> {
        LOCATIONS.with(|locations| {
            let mut locations = locations.borrow_mut();
            if let Some((_, facts)) = locations.iter().find(|(at, _)| at == base) {
                return facts.clone();
            }
            if locations.len() == MAX_LOCATIONS {
                locations.remove(0);
            }
            let facts = Rc::new(ServerFacts::default());
            locations.push((base.to_string(), facts.clone()));
            facts
        })
    }
}

/// Forgets what was learnt of every location: for tests that play several servers at one.
#[cfg(test)]
fn forget_locations() {
    LOCATIONS.with(|locations| locations.borrow_mut().clear());
}

pub struct HttpStore<C> {
    shared: Rc<Shared>,
    client: C,
}

/// What every view of one store shares: where it is, how to treat the server, what was learnt
/// about the server, and the limit on requests in flight.
struct Shared {
    /// The base URL without a trailing slash and without its query.
    base: String,
    /// The query of the base URL (e.g. a signature), appended to every key's URL.
    query: Option<String>,
    options: HttpOptions,
    /// What was learnt of the server at this location, shared with every store of it.
    facts: Rc<ServerFacts>,
    limiter: Limiter,
    /// How directories are listed.
    #[cfg(feature = "vectors")]
    listing: Listing,
}

impl<C: HttpClient> HttpStore<C> {
    pub fn new(url: &str, client: C) -> Self {
        Self::with_options(url, client, HttpOptions::default())
    }

    pub fn with_options(url: &str, client: C, options: HttpOptions) -> Self {
        // A fragment is never sent to the server; keys go before it, so drop it.
        let url = url.split_once('#').map_or(url, |(u, _)| u);
        let (path, query) = match url.split_once('?') {
            Some((p, q)) => (p, Some(q.to_string())),
            None => (url, None),
        };
        let base = path.trim_end_matches('/').to_string();
        let shared = Shared {
            #[cfg(feature = "vectors")]
            listing: options
                .listing
                .clone()
                .unwrap_or_else(|| match Listing::detect(&base) {
                    Listing::IndexPages if options.writable => {
                        Listing::path_style_s3(&base).unwrap_or(Listing::IndexPages)
                    }
                    detected => detected,
                }),
            base,
            query,
            limiter: Limiter::new(options.max_requests),
            options,
            facts: ServerFacts::of_location(path.trim_end_matches('/')),
        };
        HttpStore {
            shared: Rc::new(shared),
            client,
        }
    }

    /// The same store (state, limit and all) sending through another client: one with the
    /// `AbortSignal` of a single read, say.
    pub fn with_client<D: HttpClient>(&self, client: D) -> HttpStore<D> {
        HttpStore {
            shared: self.shared.clone(),
            client,
        }
    }

    pub fn client(&self) -> &C {
        &self.client
    }

    pub fn url(&self, key: &str) -> String {
        let mut url = self.shared.base.clone();
        if !key.is_empty() {
            url.push('/');
            percent_encode_path(key, &mut url);
        }
        if let Some(q) = &self.shared.query {
            url.push('?');
            url.push_str(q);
        }
        url
    }

    /// Sends a request, retrying network failures and 408/429/5xx answers with backoff. `Ok(None)`
    /// is a missing key; a 2xx or 416 answer is returned; anything else is an error naming the URL.
    async fn send(
        &self,
        method: Method,
        key: &str,
        range: Option<ByteRange>,
    ) -> Result<Option<HttpResponse>> {
        self.send_url(method, self.url(key), range, range).await
    }

    /// `send` to any URL (a bucket's listing, say), of which `keep` is wanted (see
    /// `HttpRequest::keep`).
    async fn send_url(
        &self,
        method: Method,
        url: String,
        range: Option<ByteRange>,
        keep: Option<ByteRange>,
    ) -> Result<Option<HttpResponse>> {
        let options = &self.shared.options;
        let partial = match range {
            Some(ByteRange::Span { length, .. }) => Some(length),
            Some(ByteRange::Suffix(n)) => Some(n),
            Some(ByteRange::From(_)) | None => None,
        };
        let request = HttpRequest {
            method,
            url: url.clone(),
            range,
            keep,
            max_body: BodyLimit {
                partial,
                whole: options.max_object_bytes,
            },
            idle_timeout_ms: options.idle_timeout_ms,
            body: None,
        };
        let mut delay = self.shared.options.retry_delay_ms;
        let mut attempt = 0;
        // A ranged request refused before any answer is tried once more as it is before it is
        // sent without its Range header: a browser's network failure on the way looks the same
        // as a CORS refusal, and whole values from then on would be a high price for a blip.
        let mut refused_once = false;
        loop {
            let last = attempt >= self.shared.options.retries;
            let tries = || tries_note(attempt);
            let response = self.send_once(&request).await?;
            match response {
                Ok(mut r)
                    if r.status == 206
                        && r.body.len() as u64 > request.max_body.for_status(206) =>
                {
                    // More than the range asked for: the server misread it (Vite's dev server
                    // answers `bytes=-N` with the first N + 1 bytes). Its body is of no use; the
                    // caller sees the headers and says what was wrong, or asks again otherwise.
                    // Clients leave such a body unread.
                    r.body = Vec::new();
                    return Ok(Some(r));
                }
                Ok(r) if matches!(r.status, 200..=299) || (r.status == 416 && range.is_some()) => {
                    // Clients refuse oversize bodies as they stream; this holds any client to it.
                    let limit = request.max_body.for_status(r.status);
                    if r.body.len() as u64 > limit {
                        let reason = format!(
                            "the response body is {} bytes, more than the {limit} asked for or allowed",
                            r.body.len()
                        );
                        return Err(ZarrError::store(&url, reason));
                    }
                    return Ok(Some(r));
                }
                Ok(r) if self.shared.options.missing_statuses.contains(&r.status) => {
                    return Ok(None)
                }
                Ok(r) if !last && matches!(r.status, 408 | 429 | 500..=599) => {}
                Ok(r) => return Err(ZarrError::http_status(&url, r.status, tries())),
                Err(f) if f.aborted => return Err(ZarrError::aborted(&url)),
                Err(f) if f.refused && range.is_some() && method == Method::Get => {
                    if refused_once {
                        return self.send_without_range(request, f).await;
                    }
                    refused_once = true;
                }
                Err(f) if !last && f.retryable => {}
                Err(f) => return Err(ZarrError::store(&url, format!("{}{}", f.message, tries()))),
            }
            self.client.sleep(delay).await;
            delay = delay.saturating_mul(2);
            attempt += 1;
        }
    }

    /// One try of `request`, in its turn among the store's requests in flight. An aborted read
    /// or write sends nothing more, and does not wait for its turn to find that out.
    async fn send_once(
        &self,
        request: &HttpRequest,
    ) -> Result<std::result::Result<HttpResponse, HttpFailure>> {
        if self.client.cancelled() {
            return Err(ZarrError::aborted(&request.url));
        }
        let _permit = self.shared.limiter.acquire().await;
        Ok(self.client.send(request.clone()).await)
    }

    /// `request` sent once more without its Range header, after `refused` said it got no answer
    /// at all: a server across origins whose CORS answer does not allow the header refuses every
    /// ranged request, and serves the whole value. If that works, whole values are asked for from
    /// then on, at every store of this location; if not, the first refusal is the error.
    async fn send_without_range(
        &self,
        request: HttpRequest,
        refused: HttpFailure,
    ) -> Result<Option<HttpResponse>> {
        let url = request.url.clone();
        let plain = HttpRequest {
            range: None,
            max_body: BodyLimit {
                partial: None,
                whole: request.max_body.whole,
            },
            ..request
        };
        let response = {
            let _permit = self.shared.limiter.acquire().await;
            self.client.send(plain.clone()).await
        };
        match response {
            Ok(r)
                if matches!(r.status, 200..=299) && r.body.len() as u64 <= plain.max_body.whole =>
            {
                self.shared.facts.ignores_ranges.set(true);
                Ok(Some(r))
            }
            Ok(r) if self.shared.options.missing_statuses.contains(&r.status) => Ok(None),
            Ok(r) => Err(ZarrError::http_status(&url, r.status, String::new())),
            Err(f) if f.aborted => Err(ZarrError::aborted(&url)),
            Err(_) => Err(ZarrError::store(&url, refused.message)),
        }
    }

    /// The last `n` bytes, located with HEAD: for servers (and browsers, to spare a preflight)
    /// without suffix ranges. No length, no guess: that is an error.
    async fn get_suffix_via_head(&self, key: &str, n: u64) -> Result<Option<Vec<u8>>> {
        let Some(head) = self.send(Method::Head, key, None).await? else {
            return Ok(None);
        };
        let Some(len) = head.content_length else {
            return Err(ZarrError::store(
                &self.url(key),
                format!("HEAD gave no Content-Length, so the last {n} bytes cannot be located"),
            ));
        };
        self.get_tail(key, n, len).await
    }

    /// The last `n` bytes by HEAD and an explicit range where HEAD serves (`SuffixRanges::HeadFirst`),
    /// else by a suffix range: where HEAD is refused (a CORS rule that allows GET alone), answered
    /// with an error (405, 501) or without a usable length, and from then on at this location,
    /// so that the default from another origin never reads less than suffix ranges did.
    async fn get_suffix_head_first(&self, key: &str, n: u64) -> Result<Option<Vec<u8>>> {
        let facts = &self.shared.facts;
        if facts.head_unusable.get() || facts.ignores_ranges.get() {
            return self.get_suffix(key, n).await;
        }
        match self.send(Method::Head, key, None).await {
            Ok(None) => Ok(None),
            Ok(Some(HttpResponse {
                content_length: Some(len),
                ..
            })) if len > 0 => self.get_tail(key, n, len).await,
            Err(e) if e.kind == ErrorKind::Aborted => Err(e),
            _ => {
                facts.head_unusable.set(true);
                self.get_suffix(key, n).await
            }
        }
    }

    /// The last `n` bytes of a value HEAD said is `len` bytes long, by an explicit range. An
    /// answer that says the value ends elsewhere (a HEAD answered from a stale cache, or of
    /// another encoding) is asked again by the length it gives, once.
    async fn get_tail(&self, key: &str, n: u64, len: u64) -> Result<Option<Vec<u8>>> {
        let tail = |len: u64| ByteRange::Span {
            offset: len.saturating_sub(n),
            length: n.min(len),
        };
        if n.min(len) == 0 {
            return Ok(Some(Vec::new()));
        }
        if self.shared.facts.ignores_ranges.get() {
            return self.get_cut(key, tail(len)).await;
        }
        let Some(response) = self.send(Method::Get, key, Some(tail(len))).await? else {
            return Ok(None);
        };
        let total = response
            .content_range
            .as_deref()
            .and_then(parse_content_range)
            .and_then(|(_, _, total)| total);
        match total {
            Some(total) if response.status == 206 && total != len => {
                self.get_span(key, tail(total)).await
            }
            _ => self.ranged_body(key, tail(len), response).map(Some),
        }
    }

    /// `range` cut from the whole value, for servers that do not honour ranges: the client keeps
    /// only the range as the value arrives.
    async fn get_cut(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        Ok(self
            .send_url(Method::Get, self.url(key), None, Some(range))
            .await?
            .map(|r| whole_cut(range, r)))
    }

    /// A range other than a suffix, checked.
    async fn get_span(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        if self.shared.facts.ignores_ranges.get() {
            return self.get_cut(key, range).await;
        }
        let Some(response) = self.send(Method::Get, key, Some(range)).await? else {
            return Ok(None);
        };
        self.ranged_body(key, range, response).map(Some)
    }

    /// The body of a response to a range request: checked when partial, cut from a whole value.
    fn ranged_body(&self, key: &str, range: ByteRange, response: HttpResponse) -> Result<Vec<u8>> {
        match response.status {
            206 => {
                check_partial(&response, range).map_err(|e| ZarrError::store(&self.url(key), e))?;
                Ok(response.body)
            }
            416 => Err(ZarrError::store(
                &self.url(key),
                format!("the server cannot satisfy {range:?} (416)"),
            )),
            // A server may ignore Range and send the whole value: legal HTTP, so cut the range
            // out, and stop asking for ranges it will not honour.
            _ => {
                self.shared.facts.ignores_ranges.set(true);
                Ok(whole_cut(range, response))
            }
        }
    }

    /// Waits for its turn to send a suffix range, while no answer has said whether this
    /// location serves them: one goes at a time (`ServerFacts::suffix_probe`; its permit is held
    /// until its answer has taught what it can). None where that is known: no waiting.
    async fn suffix_turn(&self, key: &str) -> Result<Option<Permit>> {
        let facts = &self.shared.facts;
        if facts.suffix_served.get() || facts.suffix_refused.get() || facts.ignores_ranges.get() {
            return Ok(None);
        }
        // A read aborted while it waits rejects at once.
        match select(facts.suffix_probe.acquire(), self.client.aborted()).await {
            Either::Left((permit, _)) => Ok(Some(permit)),
            Either::Right(_) => Err(ZarrError::aborted(&self.url(key))),
        }
    }

    /// The last `n` bytes by a suffix range, checked: a server that misreads or refuses it is
    /// asked by HEAD and an explicit range instead, and remembered. Until a first answer says
    /// whether the location serves them, suffix ranges go one at a time (`suffix_turn`).
    async fn get_suffix(&self, key: &str, n: u64) -> Result<Option<Vec<u8>>> {
        let range = ByteRange::Suffix(n);
        let turn = self.suffix_turn(key).await?;
        let facts = &self.shared.facts;
        if facts.ignores_ranges.get() {
            return self.get_cut(key, range).await;
        }
        if facts.suffix_refused.get() {
            // Learnt while this one waited.
            return self.get_suffix_via_head(key, n).await;
        }
        let Some(response) = self.send(Method::Get, key, Some(range)).await? else {
            return Ok(None);
        };
        if let Some(total) = misread_suffix(&response, n) {
            // The server answered with another range than the end (Vite's dev server gives the
            // first n + 1 bytes): ask for the end by its offsets, known from the total it gave,
            // and never send it a suffix range again.
            facts.suffix_refused.set(true);
            drop(turn);
            return self
                .get_tail(key, n, total)
                .await
                .map(|b| b.or(Some(Vec::new())));
        }
        if response.status == 206 && response.content_range.is_none() && response.body.is_empty() {
            // Too long an answer, without a Content-Range to say what it was (a browser hides the
            // header unless the server exposes it): locate the end with HEAD instead.
            facts.suffix_refused.set(true);
            drop(turn);
            return self.get_suffix_via_head(key, n).await;
        }
        if response.status == 416 {
            // Servers without suffix ranges refuse them (a value shorter than `n` is still 206,
            // but an empty one is 416 everywhere): use HEAD, and remember it unless it was that.
            // Remembered at once, so that the suffix ranges waiting go by HEAD meanwhile; taken
            // back if the value was empty, where this one taught it (none was known before).
            let taught = !facts.suffix_refused.replace(true);
            drop(turn);
            let tail = self.get_suffix_via_head(key, n).await;
            let refusal = matches!(&tail, Ok(Some(t)) if !t.is_empty());
            if taught && !refusal {
                facts.suffix_refused.set(false);
            }
            return tail;
        }
        let served = response.status == 206;
        let body = self.ranged_body(key, range, response)?;
        if served {
            facts.suffix_served.set(true);
        }
        Ok(Some(body))
    }
}

/// Listing a directory: only Zarr Vectors' link arrays are ever listed.
#[cfg(feature = "vectors")]
impl<C: HttpClient> HttpStore<C> {
    /// The names directly below the directory `prefix` by the store's listing, or None where it
    /// has none.
    async fn list(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        let listed = match &self.shared.listing {
            Listing::None => return Ok(None),
            Listing::IndexPages => self.index_page(prefix).await,
            bucket => self.bucket_listing(bucket, prefix).await,
        };
        match listed {
            // Servers refuse to serve a "directory" or a listing (S3 answers 403 where listing is
            // not public): no listing, not a failure.
            Err(e) if matches!(e.status, Some(400 | 401 | 403 | 405)) => Ok(None),
            other => other,
        }
    }

    /// The names an index page of the directory `prefix` links to.
    async fn index_page(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        let key = format!("{}/", prefix.trim_matches('/'));
        let page = self
            .send(Method::Get, key.trim_start_matches('/'), None)
            .await?;
        Ok(page.and_then(|r| listing::index_page_names(&String::from_utf8_lossy(&r.body))))
    }

    /// The names below the directory `prefix` in a bucket's listing, page after page. An answer
    /// that is no listing (an S3 website endpoint's page, a proxy's), or one that runs past
    /// `MAX_PAGES`, is no listing: the reader then asks for what it needs by name.
    async fn bucket_listing(&self, bucket: &Listing, prefix: &str) -> Result<Option<Vec<String>>> {
        let Some(key_prefix) = bucket.prefix_of(&self.shared.base, prefix) else {
            return Ok(None);
        };
        let mut names = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..listing::MAX_PAGES {
            let Some(url) = bucket.page_url(&key_prefix, token.as_deref()) else {
                return Ok(None);
            };
            let Some(response) = self.send_url(Method::Get, url, None, None).await? else {
                return Ok(None);
            };
            let Ok(page) = bucket.parse_page(&response.body, &key_prefix) else {
                return Ok(None);
            };
            names.extend(page.names);
            token = page.next;
            if token.is_none() {
                crate::collections::sort::sort_dedup(&mut names);
                return Ok(Some(names));
            }
        }
        Ok(None)
    }
}

#[async_trait(?Send)]
impl<C: HttpClient> ReadableStore for HttpStore<C> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.send(Method::Get, key, None).await?.map(|r| r.body))
    }

    /// The directory's entries by the store's listing (`listing`): index pages, or a bucket's.
    #[cfg(feature = "vectors")]
    async fn list_dir(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        self.list(prefix).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        if matches!(
            range,
            ByteRange::Span { length: 0, .. } | ByteRange::Suffix(0)
        ) {
            // HTTP cannot ask for zero bytes; whether the key exists is then unknown, and unneeded.
            return Ok(Some(Vec::new()));
        }
        let ByteRange::Suffix(n) = range else {
            return self.get_span(key, range).await;
        };
        let refused = self.shared.facts.suffix_refused.get();
        match self.shared.options.suffix_ranges {
            SuffixRanges::Ask if !refused => self.get_suffix(key, n).await,
            SuffixRanges::HeadFirst if !refused => self.get_suffix_head_first(key, n).await,
            _ => self.get_suffix_via_head(key, n).await,
        }
    }

    fn locate(&self, key: &str) -> String {
        self.url(key)
    }

    async fn batch_window(&self) {
        self.client.sleep(0).await;
    }

    fn cancelled(&self) -> bool {
        self.client.cancelled()
    }

    async fn aborted(&self) {
        self.client.aborted().await
    }

    fn hints(&self) -> ReadHints {
        ReadHints {
            whole_values: self.shared.facts.ignores_ranges.get(),
            ..self.shared.options.hints
        }
    }

    /// A store made `writable` writes.
    #[cfg(feature = "write")]
    fn writable(&self) -> Option<&dyn crate::store::WritableStore> {
        self.shared
            .options
            .writable
            .then_some(self as &dyn crate::store::WritableStore)
    }
}

/// Writing over HTTP, as S3 and the servers that speak its API take it: PUT stores a value whole,
/// DELETE removes one, and the bucket's listing (ListObjectsV2) finds what lies below a prefix.
#[cfg(feature = "write")]
#[async_trait(?Send)]
impl<C: HttpClient> crate::store::WritableStore for HttpStore<C> {
    async fn set(&self, key: &str, value: Vec<u8>) -> Result<()> {
        self.send_write(Method::Put, key, Some(Rc::from(value)))
            .await
    }

    async fn erase(&self, key: &str) -> Result<()> {
        self.send_write(Method::Delete, key, None).await
    }

    /// Lists a page of the keys below `prefix` (no delimiter: every key, however deep), deletes
    /// them, and lists again from the start, until nothing is left: a page at a time in memory,
    /// and no reliance on a continuation token over keys deleted meanwhile.
    async fn erase_prefix(&self, prefix: &str) -> Result<()> {
        #[cfg(feature = "vectors")]
        {
            let bucket = &self.shared.listing;
            let base = &self.shared.base;
            let (Some(within), Some(key_prefix)) =
                (bucket.prefix_of(base, ""), bucket.prefix_of(base, prefix))
            else {
                return Err(ZarrError::unsupported(
                    &self.url(prefix),
                    "erasing below a path needs the bucket's listing, which this store does not have: give FetchStore the option listing: { s3: <the bucket's URL> }",
                ));
            };
            let mut last_page: Option<Vec<String>> = None;
            for _ in 0..MAX_ERASE_PAGES {
                let Some(url) = bucket.keys_page_url(&key_prefix) else {
                    break;
                };
                let Some(response) = self.send_url(Method::Get, url.clone(), None, None).await?
                else {
                    return Ok(()); // no bucket, nothing below
                };
                let keys = bucket
                    .parse_keys_page(&response.body)
                    .map_err(|why| ZarrError::store(&url, why))?;
                if keys.is_empty() {
                    return Ok(());
                }
                if last_page.as_ref() == Some(&keys) {
                    return Err(ZarrError::store(
                        &url,
                        "the listing still holds the keys just deleted: they were not removed",
                    ));
                }
                let deletes = keys.iter().filter_map(|k| k.strip_prefix(within.as_str()));
                let results = futures_util::future::join_all(
                    deletes.map(|key| self.send_write(Method::Delete, key, None)),
                )
                .await;
                results.into_iter().collect::<Result<Vec<()>>>()?;
                last_page = Some(keys);
            }
            Err(ZarrError::store(
                &self.url(prefix),
                format!("more than {MAX_ERASE_PAGES} pages of keys to erase"),
            ))
        }
        #[cfg(not(feature = "vectors"))]
        Err(ZarrError::unsupported(
            &self.url(prefix),
            "this build cannot list a bucket to erase below a path",
        ))
    }
}

/// The most listing pages (of up to 1000 keys each, with S3) one erase goes through.
#[cfg(all(feature = "write", feature = "vectors"))]
const MAX_ERASE_PAGES: usize = 100_000;

#[cfg(feature = "write")]
impl<C: HttpClient> HttpStore<C> {
    /// Sends a PUT or DELETE of `key`, retrying network failures and 408/429/5xx answers as
    /// reads are. A 2xx answer is done, and so is a 404 to a DELETE (nothing was there); any
    /// other answer is an error naming the URL and the status.
    async fn send_write(&self, method: Method, key: &str, body: Option<Rc<[u8]>>) -> Result<()> {
        let url = self.url(key);
        let request = HttpRequest {
            method,
            url: url.clone(),
            range: None,
            keep: None,
            // The answer to a write is a status and, at most, a short error document.
            max_body: BodyLimit {
                partial: None,
                whole: 1 << 20,
            },
            idle_timeout_ms: self.shared.options.idle_timeout_ms,
            body,
        };
        let what = match method {
            Method::Put => "write",
            _ => "delete",
        };
        let mut delay = self.shared.options.retry_delay_ms;
        let mut attempt = 0;
        loop {
            let last = attempt >= self.shared.options.retries;
            let tries = tries_note(attempt);
            let response = self.send_once(&request).await?;
            match response {
                Ok(r) if matches!(r.status, 200..=299) => return Ok(()),
                Ok(r) if r.status == 404 && method == Method::Delete => return Ok(()),
                Ok(r) if !last && matches!(r.status, 408 | 429 | 500..=599) => {}
                Ok(r) => {
                    return Err(ZarrError {
                        status: Some(r.status),
                        ..ZarrError::store_to(
                            what,
                            &url,
                            format!("HTTP status {}{tries}{}", r.status, s3_error(&r.body)),
                        )
                    })
                }
                Err(f) if f.aborted => return Err(ZarrError::aborted(&url)),
                // A browser says the same of a connection reset during an upload as of a CORS
                // refusal; PUT and DELETE are idempotent, so a refusal is tried again too.
                Err(f) if !last && (f.retryable || f.refused) => {}
                Err(f) => {
                    return Err(ZarrError::store_to(
                        what,
                        &url,
                        format!("{}{tries}", f.message),
                    ))
                }
            }
            self.client.sleep(delay).await;
            delay = delay.saturating_mul(2);
            attempt += 1;
        }
    }
}

/// What an S3 error document says (`: AccessDenied: Access Denied`), or nothing.
#[cfg(feature = "write")]
fn s3_error(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(4096)]);
    let field = |tag: &str| {
        let open = format!("<{tag}>");
        let start = text.find(&open)? + open.len();
        let end = start + text[start..].find(&format!("</{tag}>"))?;
        Some(
            text[start..end]
                .trim()
                .chars()
                .take(200)
                .collect::<String>(),
        )
    };
    match (field("Code"), field("Message")) {
        (Some(code), Some(message)) => format!(": {code}: {message}"),
        (Some(code), None) => format!(": {code}"),
        _ => String::new(),
    }
}

/// What an error says of the tries made before it: nothing after the first.
fn tries_note(attempt: u32) -> String {
    match attempt {
        0 => String::new(),
        n => format!(" (after {} tries)", n + 1),
    }
}

/// The value's total length, where a 206 answer to a suffix range of `n` bytes says it is
/// another range than the last `n` bytes (a server that reads `bytes=-N` as `bytes=0-N`).
fn misread_suffix(response: &HttpResponse, n: u64) -> Option<u64> {
    if response.status != 206 {
        return None;
    }
    let (start, end, total) = parse_content_range(response.content_range.as_deref()?)?;
    let total = total?;
    let expected_start = total - n.min(total);
    (start != expected_start || end + 1 != total).then_some(total)
}

/// `range` of a whole answer: its body, where the client kept only that as it arrived.
fn whole_cut(range: ByteRange, response: HttpResponse) -> Vec<u8> {
    if response.cut {
        response.body
    } else {
        range.cut(&response.body).to_vec()
    }
}

/// Checks that a 206 response holds the range that was asked for.
fn check_partial(response: &HttpResponse, range: ByteRange) -> std::result::Result<(), String> {
    let len = response.body.len() as u64;
    let Some(header) = &response.content_range else {
        // Browsers hide Content-Range unless the server exposes it; the length is all we can check.
        return match range {
            ByteRange::Span { length, .. } if length != len => Err(format!(
                "asked for {length} bytes, got {len} without a Content-Range"
            )),
            ByteRange::Suffix(n) if len > n => {
                Err(format!("asked for the last {n} bytes, got {len}"))
            }
            _ => Ok(()),
        };
    };
    let (start, end, total) = parse_content_range(header)
        .ok_or_else(|| format!("malformed Content-Range \"{header}\""))?;
    // parse_content_range guarantees start <= end < total (or end < u64::MAX with no total).
    let end_exclusive = end + 1;
    if end_exclusive - start != len {
        return Err(format!(
            "Content-Range \"{header}\" does not match the {len} bytes received"
        ));
    }
    let expected = total.map(|t| range.resolve(t));
    let ok = match (range, expected) {
        (_, Some(r)) => r.start == start && r.end == end_exclusive,
        (ByteRange::Span { offset, length }, None) => {
            offset == start && end_exclusive - start <= length
        }
        (ByteRange::From(offset), None) => offset == start,
        (ByteRange::Suffix(_), None) => true,
    };
    if !ok {
        return Err(format!(
            "Content-Range \"{header}\" is not the range asked for ({range:?})"
        ));
    }
    Ok(())
}

/// `bytes START-END/TOTAL` (TOTAL may be `*`).
fn parse_content_range(header: &str) -> Option<(u64, u64, Option<u64>)> {
    let rest = header.trim().strip_prefix("bytes ")?;
    let (span, total) = rest.split_once('/')?;
    let (start, end) = span.split_once('-')?;
    let (start, end): (u64, u64) = (start.trim().parse().ok()?, end.trim().parse().ok()?);
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    if end < start || end == u64::MAX || total.is_some_and(|t| end >= t) {
        return None;
    }
    Some((start, end, total))
}

/// Appends `key` to `out`, escaping what is not safe in a URL path (keys keep their `/`).
fn percent_encode_path(key: &str, out: &mut String) {
    for b in key.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_executor::block_on;
    use std::cell::RefCell;

    /// Answers from a canned table and records what was asked.
    struct FakeClient {
        answer: Box<dyn Fn(&HttpRequest) -> HttpResponse>,
        seen: RefCell<Vec<HttpRequest>>,
    }

    #[async_trait(?Send)]
    impl HttpClient for FakeClient {
        async fn send(
            &self,
            request: HttpRequest,
        ) -> std::result::Result<HttpResponse, HttpFailure> {
            self.seen.borrow_mut().push(request.clone());
            let response = (self.answer)(&request);
            if response.status == 1 {
                return Err(HttpFailure {
                    message: "AbortError".into(),
                    retryable: false,
                    aborted: true,
                    refused: false,
                });
            }
            if response.status == 2 {
                return Err(HttpFailure {
                    message: "TypeError: Failed to fetch".into(),
                    retryable: false,
                    aborted: false,
                    refused: true,
                });
            }
            if response.status == 0 {
                return Err(HttpFailure {
                    message: "connection reset".into(),
                    retryable: true,
                    aborted: false,
                    refused: false,
                });
            }
            Ok(response)
        }

        async fn sleep(&self, _ms: u32) {}
    }

    fn store(answer: impl Fn(&HttpRequest) -> HttpResponse + 'static) -> HttpStore<FakeClient> {
        HttpStore::new(
            "http://h/data.zarr/?sig=1",
            FakeClient {
                answer: Box::new(answer),
                seen: RefCell::new(vec![]),
            },
        )
    }

    #[cfg(feature = "vectors")]
    fn bucket_store(
        listing: Listing,
        answer: impl Fn(&HttpRequest) -> HttpResponse + 'static,
    ) -> HttpStore<FakeClient> {
        let options = HttpOptions {
            listing: Some(listing),
            ..HttpOptions::default()
        };
        HttpStore::with_options(
            "http://h/b/v.zarr",
            FakeClient {
                answer: Box::new(answer),
                seen: RefCell::new(vec![]),
            },
            options,
        )
    }

    #[cfg(feature = "vectors")]
    #[test]
    fn bucket_listings_are_read_page_after_page_and_bounded() {
        let ok = |body: String| HttpResponse {
            status: 200,
            body: body.into_bytes(),
            ..Default::default()
        };
        // Two pages, then the end.
        let s = bucket_store(Listing::gcs("http://h/b").unwrap(), move |r| {
            match r.url.contains("pageToken=") {
                false => ok(r#"{"prefixes":["v.zarr/l/b/"],"nextPageToken":"t"}"#.into()),
                true => ok(r#"{"items":[{"name":"v.zarr/l/a"}]}"#.into()),
            }
        });
        assert_eq!(block_on(s.list_dir("l")).unwrap().unwrap(), ["a", "b"]);
        let seen = s.client().seen.borrow();
        assert!(seen[0]
            .url
            .starts_with("http://h/storage/v1/b/b/o?delimiter=%2F&prefix=v.zarr%2Fl%2F"));
        assert!(seen[1].url.ends_with("&pageToken=t"));
        drop(seen);
        // A listing that never ends is no listing (the reader asks by name), not read for ever.
        let s = bucket_store(Listing::gcs("http://h/b").unwrap(), move |_| {
            ok(r#"{"nextPageToken":"again"}"#.into())
        });
        assert_eq!(block_on(s.list_dir("l")).unwrap(), None);
        assert_eq!(s.client().seen.borrow().len(), listing::MAX_PAGES);
        // A bucket that refuses to list, or is not there, or answers with something else (a
        // website endpoint's page): no listing.
        for (status, body) in [(403, ""), (404, ""), (200, "<html>")] {
            let s = bucket_store(
                Listing::S3 {
                    bucket: "http://h/b".into(),
                },
                move |_| HttpResponse {
                    status,
                    body: body.as_bytes().to_vec(),
                    ..Default::default()
                },
            );
            assert_eq!(block_on(s.list_dir("l")).unwrap(), None);
        }
        // A server that cannot be reached is an error, naming the listing's URL.
        let s = bucket_store(
            Listing::S3 {
                bucket: "http://h/b".into(),
            },
            move |_| HttpResponse {
                status: 0,
                ..Default::default()
            },
        );
        let err = block_on(s.list_dir("l")).unwrap_err().to_string();
        assert!(err.contains("http://h/b/?list-type=2"), "{err}");
        let s = bucket_store(Listing::None, |_| unreachable!("nothing is sent"));
        assert_eq!(block_on(s.list_dir("l")).unwrap(), None);
    }

    #[test]
    fn urls_keep_the_query_and_escape_keys() {
        let s = store(|_| HttpResponse::default());
        assert_eq!(
            s.url("a b/zarr.json"),
            "http://h/data.zarr/a%20b/zarr.json?sig=1"
        );
        let s = HttpStore::new(
            "http://h/x.zarr#view",
            FakeClient {
                answer: Box::new(|_| HttpResponse::default()),
                seen: RefCell::new(vec![]),
            },
        );
        assert_eq!(s.url("zarr.json"), "http://h/x.zarr/zarr.json");
    }

    #[test]
    fn statuses_map_to_values_missing_and_errors() {
        let s = store(|r| match r.url.as_str() {
            u if u.contains("/ok") => HttpResponse {
                status: 200,
                body: b"hi".to_vec(),
                content_length: None,
                content_range: None,
                cut: false,
            },
            u if u.contains("/gone") => HttpResponse {
                status: 404,
                ..Default::default()
            },
            _ => HttpResponse {
                status: 500,
                ..Default::default()
            },
        });
        assert_eq!(block_on(s.get("ok")).unwrap(), Some(b"hi".to_vec()));
        assert_eq!(block_on(s.get("gone")).unwrap(), None);
        let err = block_on(s.get("broken")).unwrap_err();
        assert!(
            err.message.contains("http://h/data.zarr/broken?sig=1") && err.message.contains("500"),
            "{err}"
        );
    }

    #[test]
    fn ranges_are_checked_or_cut_from_a_whole_body() {
        let whole = |_: &HttpRequest| HttpResponse {
            status: 200,
            body: (0u8..100).collect(),
            content_length: None,
            content_range: None,
            cut: false,
        };
        let s = store(whole);
        assert_eq!(
            block_on(s.get_range("k", ByteRange::Suffix(3))).unwrap(),
            Some(vec![97, 98, 99])
        );
        assert_eq!(
            block_on(s.get_range(
                "k",
                ByteRange::Span {
                    offset: 10,
                    length: 2
                }
            ))
            .unwrap(),
            Some(vec![10, 11])
        );
        // Another server at the same location from here on.
        forget_locations();

        let partial = |_: &HttpRequest| HttpResponse {
            status: 206,
            body: vec![1, 2],
            content_length: None,
            content_range: Some("bytes 10-11/100".into()),
            cut: false,
        };
        assert!(block_on(store(partial).get_range(
            "k",
            ByteRange::Span {
                offset: 10,
                length: 2
            }
        ))
        .is_ok());
        let err = block_on(store(partial).get_range(
            "k",
            ByteRange::Span {
                offset: 20,
                length: 2,
            },
        ))
        .unwrap_err();
        assert!(err.message.contains("not the range asked for"), "{err}");
        // A suffix answered with another range: asked again by offsets, which this server also
        // answers wrongly.
        assert!(block_on(store(partial).get_range("k", ByteRange::Suffix(2))).is_err());
        forget_locations();
        let tail = |_: &HttpRequest| HttpResponse {
            status: 206,
            body: vec![1, 2],
            content_length: None,
            content_range: Some("bytes 98-99/100".into()),
            cut: false,
        };
        assert!(block_on(store(tail).get_range("k", ByteRange::Suffix(2))).is_ok());
        let huge = |_: &HttpRequest| HttpResponse {
            status: 206,
            body: vec![],
            content_length: None,
            content_range: Some("bytes 0-18446744073709551615/*".into()),
            cut: false,
        };
        assert!(block_on(store(huge).get_range("k", ByteRange::From(0))).is_err());
        assert_eq!(
            block_on(store(huge).get_range(
                "k",
                ByteRange::Span {
                    offset: 5,
                    length: 0
                }
            ))
            .unwrap(),
            Some(vec![])
        );
    }

    fn with(
        options: HttpOptions,
        answer: impl Fn(&HttpRequest) -> HttpResponse + 'static,
    ) -> HttpStore<FakeClient> {
        HttpStore::with_options(
            "http://h/s.zarr",
            FakeClient {
                answer: Box::new(answer),
                seen: RefCell::new(vec![]),
            },
            options,
        )
    }

    /// A server holding `value` at every key that honours plain ranges, refuses suffix ranges with
    /// 416 and answers HEAD with the length (or without it).
    fn no_suffix_server(
        value: Vec<u8>,
        head_length: bool,
    ) -> impl Fn(&HttpRequest) -> HttpResponse {
        move |r| match (r.method, r.range) {
            (Method::Head, _) => HttpResponse {
                status: 200,
                content_length: head_length.then_some(value.len() as u64),
                ..Default::default()
            },
            (_, Some(ByteRange::Suffix(_))) => HttpResponse {
                status: 416,
                ..Default::default()
            },
            (_, Some(range)) => {
                let body = range.cut(&value).to_vec();
                let at = range.resolve(value.len() as u64);
                HttpResponse {
                    status: 206,
                    content_range: Some(format!(
                        "bytes {}-{}/{}",
                        at.start,
                        at.end - 1,
                        value.len()
                    )),
                    body,
                    ..Default::default()
                }
            }
            (_, None) => HttpResponse {
                status: 200,
                body: value.clone(),
                ..Default::default()
            },
        }
    }

    /// What the store asked its server, in order: each request's method and range.
    fn asked(s: &HttpStore<FakeClient>) -> Vec<(Method, Option<ByteRange>)> {
        s.client
            .seen
            .borrow()
            .iter()
            .map(|r| (r.method, r.range))
            .collect()
    }

    #[test]
    fn a_suffix_range_read_as_a_range_from_the_start_is_asked_again_by_offsets() {
        // Vite's dev server answers `bytes=-N` with `bytes 0-N/TOTAL`, N + 1 bytes.
        let value: Vec<u8> = (0..100).collect();
        let s = with(HttpOptions::default(), move |r| match r.range {
            Some(ByteRange::Suffix(n)) => HttpResponse {
                status: 206,
                content_range: Some(format!("bytes 0-{n}/{}", value.len())),
                body: value[..=n as usize].to_vec(),
                ..Default::default()
            },
            _ => no_suffix_server(value.clone(), true)(r),
        });
        assert_eq!(
            block_on(s.get_range("k", ByteRange::Suffix(4))).unwrap(),
            Some(vec![96, 97, 98, 99])
        );
        assert_eq!(
            block_on(s.get_range("k", ByteRange::Suffix(2))).unwrap(),
            Some(vec![98, 99])
        );
        let seen = asked(&s);
        assert_eq!(
            seen,
            vec![
                (Method::Get, Some(ByteRange::Suffix(4))),
                (
                    Method::Get,
                    Some(ByteRange::Span {
                        offset: 96,
                        length: 4
                    })
                ),
                // Remembered: no second suffix range.
                (Method::Head, None),
                (
                    Method::Get,
                    Some(ByteRange::Span {
                        offset: 98,
                        length: 2
                    })
                ),
            ]
        );
    }

    /// Answers as `FakeClient` does, a turn later: requests sent together are in flight
    /// together, as over a network.
    struct SlowClient(FakeClient);

    /// Pending once, then ready.
    struct YieldOnce(bool);

    impl std::future::Future for YieldOnce {
        type Output = ();
        fn poll(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<()> {
            if self.0 {
                return std::task::Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }

    #[async_trait(?Send)]
    impl HttpClient for SlowClient {
        async fn send(
            &self,
            request: HttpRequest,
        ) -> std::result::Result<HttpResponse, HttpFailure> {
            YieldOnce(false).await;
            self.0.send(request).await
        }

        async fn sleep(&self, _ms: u32) {}
    }

    #[test]
    fn suffix_ranges_sent_together_wait_for_the_first_answer_where_it_is_unknown_whether_they_are_served(
    ) {
        // Ten shards' indexes asked for at once (a viewer's first view), from a server that
        // refuses suffix ranges (`npx http-server`), then from one that serves them.
        let value: Vec<u8> = (0..100).collect();
        for serves in [false, true] {
            forget_locations();
            let server: Box<dyn Fn(&HttpRequest) -> HttpResponse> = match serves {
                false => Box::new(no_suffix_server(value.clone(), true)),
                true => Box::new(ranges_server(value.clone(), true)),
            };
            let s = HttpStore::new(
                "http://h/s.zarr",
                SlowClient(FakeClient {
                    answer: server,
                    seen: RefCell::new(vec![]),
                }),
            );
            let keys: Vec<String> = (0..10).map(|i| format!("c/{i}")).collect();
            let reads = keys.iter().map(|k| s.get_range(k, ByteRange::Suffix(4)));
            for read in block_on(futures_util::future::join_all(reads)) {
                assert_eq!(
                    read.unwrap(),
                    Some(vec![96, 97, 98, 99]),
                    "serves: {serves}"
                );
            }
            let seen = s.client().0.seen.borrow();
            let suffixes = seen
                .iter()
                .filter(|r| matches!(r.range, Some(ByteRange::Suffix(_))))
                .count();
            let heads = seen.iter().filter(|r| r.method == Method::Head).count();
            // Refused once, then every index by HEAD and an explicit range; or ten suffix ranges.
            let expected = if serves { (10, 0, 10) } else { (1, 10, 21) };
            assert_eq!((suffixes, heads, seen.len()), expected, "serves: {serves}");
        }
        // The first one's read aborted before any answer: the next one waiting asks in its
        // place, and what it learns serves the rest.
        forget_locations();
        let refusing = no_suffix_server(value.clone(), true);
        let first = Cell::new(true);
        let s = HttpStore::new(
            "http://h/s.zarr",
            SlowClient(FakeClient {
                answer: Box::new(move |r| match first.replace(false) {
                    true => HttpResponse {
                        status: 1,
                        ..Default::default()
                    },
                    false => refusing(r),
                }),
                seen: RefCell::new(vec![]),
            }),
        );
        let keys: Vec<String> = (0..4).map(|i| format!("c/{i}")).collect();
        let reads = keys.iter().map(|k| s.get_range(k, ByteRange::Suffix(4)));
        let reads = block_on(futures_util::future::join_all(reads));
        assert_eq!(reads[0].as_ref().unwrap_err().kind, ErrorKind::Aborted);
        for read in &reads[1..] {
            assert_eq!(read.as_ref().unwrap(), &Some(vec![96, 97, 98, 99]));
        }
        let seen = s.client().0.seen.borrow();
        let suffixes = seen
            .iter()
            .filter(|r| matches!(r.range, Some(ByteRange::Suffix(_))))
            .count();
        assert_eq!((suffixes, seen.len()), (2, 8), "{seen:?}");
    }

    #[test]
    fn a_request_refused_for_its_range_header_is_sent_without_it_and_remembered_at_its_location() {
        // A CORS server that does not allow the Range header: every ranged request is refused
        // before any answer; plain ones are served.
        let value: Vec<u8> = (0..50).collect();
        let server = move |r: &HttpRequest| match r.range {
            Some(_) => HttpResponse {
                status: 2,
                ..Default::default()
            },
            None => HttpResponse {
                status: 200,
                body: value.clone(),
                ..Default::default()
            },
        };
        let s = with(HttpOptions::default(), server.clone());
        let span = ByteRange::Span {
            offset: 10,
            length: 3,
        };
        assert_eq!(
            block_on(s.get_range("k", span)).unwrap(),
            Some(vec![10, 11, 12])
        );
        // Refused twice as it was (once could be a blip on the way), then sent plain.
        assert_eq!(
            asked(&s),
            vec![
                (Method::Get, Some(span)),
                (Method::Get, Some(span)),
                (Method::Get, None)
            ]
        );
        // Another store at the same location (open(url) makes one per call) knows it already.
        let again = with(HttpOptions::default(), server);
        assert_eq!(
            block_on(again.get_range("other", span)).unwrap(),
            Some(vec![10, 11, 12])
        );
        let seen: Vec<_> = again.client.seen.borrow().iter().map(|r| r.range).collect();
        assert_eq!(seen, vec![None]);
    }

    #[test]
    fn a_ranged_request_refused_once_is_asked_again_and_ranges_are_kept() {
        // A blip on the way (a browser reports it as it reports a CORS refusal): the second try
        // is answered, and the store goes on asking for ranges.
        let value: Vec<u8> = (0..50).collect();
        let tries = Cell::new(0);
        let s = with(HttpOptions::default(), move |r| {
            tries.set(tries.get() + 1);
            match r.range {
                Some(_) if tries.get() == 1 => HttpResponse {
                    status: 2,
                    ..Default::default()
                },
                _ => no_suffix_server(value.clone(), true)(r),
            }
        });
        let span = ByteRange::Span {
            offset: 10,
            length: 3,
        };
        for _ in 0..2 {
            assert_eq!(
                block_on(s.get_range("k", span)).unwrap(),
                Some(vec![10, 11, 12])
            );
        }
        assert_eq!(asked(&s), vec![(Method::Get, Some(span)); 3]);
    }

    #[test]
    fn a_refusal_without_a_range_is_reported_at_once_not_retried() {
        let s = with(HttpOptions::default(), |_| HttpResponse {
            status: 2,
            ..Default::default()
        });
        let e = block_on(s.get("zarr.json")).unwrap_err();
        assert!(e.message.contains("Failed to fetch"), "{}", e.message);
        assert_eq!(s.client.seen.borrow().len(), 1);
    }

    #[test]
    fn a_refused_suffix_range_falls_back_to_head_and_is_remembered() {
        let s = with(
            HttpOptions::default(),
            no_suffix_server((0..100).collect(), true),
        );
        assert_eq!(
            block_on(s.get_range("k", ByteRange::Suffix(4))).unwrap(),
            Some(vec![96, 97, 98, 99])
        );
        assert_eq!(
            block_on(s.get_range("k", ByteRange::Suffix(2))).unwrap(),
            Some(vec![98, 99])
        );
        let seen = asked(&s);
        assert_eq!(
            seen,
            vec![
                (Method::Get, Some(ByteRange::Suffix(4))),
                (Method::Head, None),
                (
                    Method::Get,
                    Some(ByteRange::Span {
                        offset: 96,
                        length: 4
                    })
                ),
                // Remembered: no second suffix attempt.
                (Method::Head, None),
                (
                    Method::Get,
                    Some(ByteRange::Span {
                        offset: 98,
                        length: 2
                    })
                ),
            ]
        );
        // Configured off: HEAD + range from the start.
        let s = with(
            HttpOptions {
                suffix_ranges: SuffixRanges::Never,
                ..Default::default()
            },
            no_suffix_server(vec![1, 2, 3], true),
        );
        assert_eq!(
            block_on(s.get_range("k", ByteRange::Suffix(9))).unwrap(),
            Some(vec![1, 2, 3])
        );
        assert_eq!(s.client.seen.borrow()[0].method, Method::Head);
    }

    #[test]
    fn a_head_without_length_is_an_error_not_a_guess() {
        let s = with(
            HttpOptions {
                suffix_ranges: SuffixRanges::Never,
                ..Default::default()
            },
            no_suffix_server(vec![0; 10], false),
        );
        let e = block_on(s.get_range("k", ByteRange::Suffix(4))).unwrap_err();
        assert!(
            e.message.contains("no Content-Length") && e.message.contains("http://h/s.zarr/k"),
            "{e}"
        );
    }

    /// A server that honours every range, suffix ranges too, and answers HEAD with the length
    /// (or without it).
    fn ranges_server(value: Vec<u8>, head_length: bool) -> impl Fn(&HttpRequest) -> HttpResponse {
        let plain = no_suffix_server(value.clone(), head_length);
        move |r| match r.range {
            Some(ByteRange::Suffix(n)) => plain(&HttpRequest {
                range: Some(ByteRange::Span {
                    offset: (value.len() as u64).saturating_sub(n),
                    length: n.min(value.len() as u64),
                }),
                ..r.clone()
            }),
            _ => plain(r),
        }
    }

    #[test]
    fn head_first_asks_head_then_an_explicit_range_and_a_suffix_range_where_head_does_not_serve() {
        let head_first = HttpOptions {
            suffix_ranges: SuffixRanges::HeadFirst,
            ..Default::default()
        };
        let value: Vec<u8> = (0..10).collect();
        let span = |offset, length| Some(ByteRange::Span { offset, length });
        let head = |status: u16, length: Option<u64>| HttpResponse {
            status,
            content_length: length,
            ..Default::default()
        };
        let suffix = Some(ByteRange::Suffix(4));
        // HEAD's answer, and the requests that follow it. Status 2: refused before any answer (a
        // CORS rule that allows GET alone); a length of 12 where the value has 10: a stale HEAD.
        let cases = [
            (head(200, Some(10)), vec![span(6, 4)]),
            (head(200, Some(12)), vec![span(8, 4), span(6, 4)]),
            (head(200, None), vec![suffix]),
            (head(200, Some(0)), vec![suffix]),
            (head(2, None), vec![suffix]),
            (head(405, None), vec![suffix]),
        ];
        for (answer, then) in cases {
            forget_locations();
            let ranges = ranges_server(value.clone(), true);
            let status = answer.status;
            let s = with(head_first.clone(), move |r| match r.method {
                Method::Head => answer.clone(),
                _ => ranges(r),
            });
            let read = || block_on(s.get_range("k", ByteRange::Suffix(4))).unwrap();
            assert_eq!(read(), Some(vec![6, 7, 8, 9]), "HEAD {status}");
            let mut expected = vec![(Method::Head, None)];
            expected.extend(then.iter().map(|&range| (Method::Get, range)));
            assert_eq!(asked(&s), expected, "HEAD {status}");
            // Where HEAD did not serve, the location is read by suffix ranges from then on.
            s.client.seen.borrow_mut().clear();
            assert_eq!(read(), Some(vec![6, 7, 8, 9]), "HEAD {status}, again");
            let again = asked(&s);
            let asks = if then == [suffix] { 1 } else { then.len() + 1 };
            assert_eq!(again.len(), asks, "{again:?}");
        }
        // No such key: HEAD says so, and nothing else is asked.
        forget_locations();
        let s = with(head_first, move |_| head(404, None));
        assert_eq!(
            block_on(s.get_range("k", ByteRange::Suffix(4))).unwrap(),
            None
        );
        assert_eq!(asked(&s), vec![(Method::Head, None)]);
    }

    #[test]
    fn a_server_that_ignores_ranges_is_asked_for_whole_values_from_then_on() {
        let s = with(HttpOptions::default(), |_| HttpResponse {
            status: 200,
            body: (0..10).collect(),
            ..Default::default()
        });
        assert_eq!(
            block_on(s.get_range(
                "k",
                ByteRange::Span {
                    offset: 2,
                    length: 3
                }
            ))
            .unwrap(),
            Some(vec![2, 3, 4])
        );
        assert_eq!(
            block_on(s.get_range("k", ByteRange::Suffix(2))).unwrap(),
            Some(vec![8, 9])
        );
        let ranges: Vec<_> = s.client.seen.borrow().iter().map(|r| r.range).collect();
        assert_eq!(
            ranges,
            vec![
                Some(ByteRange::Span {
                    offset: 2,
                    length: 3
                }),
                None
            ]
        );
    }

    #[test]
    fn a_whole_answer_cut_by_the_client_is_taken_as_the_range() {
        // The client keeps only `keep` of a whole answer (FetchClient's BodyWindow): the store
        // neither cuts it again nor asks it to keep anything but the range it wants, also once
        // it has learnt to send no Range header.
        let value: Vec<u8> = (0..100).collect();
        let s = with(HttpOptions::default(), move |r| match r.keep {
            Some(keep) => HttpResponse {
                status: 200,
                body: keep.cut(&value).to_vec(),
                cut: true,
                ..Default::default()
            },
            None => HttpResponse {
                status: 200,
                body: value.clone(),
                ..Default::default()
            },
        });
        let span = ByteRange::Span {
            offset: 90,
            length: 4,
        };
        for range in [ByteRange::Suffix(16), span, ByteRange::From(97)] {
            let want: Vec<u8> = range.cut(&(0..100).collect::<Vec<u8>>()).to_vec();
            assert_eq!(block_on(s.get_range("k", range)).unwrap(), Some(want));
        }
        let seen: Vec<_> = s
            .client
            .seen
            .borrow()
            .iter()
            .map(|r| (r.range, r.keep))
            .collect();
        assert_eq!(
            seen,
            vec![
                (Some(ByteRange::Suffix(16)), Some(ByteRange::Suffix(16))),
                (None, Some(span)),
                (None, Some(ByteRange::From(97))),
            ]
        );
    }

    #[test]
    fn failures_are_retried_with_backoff_then_reported() {
        let calls = Rc::new(Cell::new(0));
        let c = calls.clone();
        let s = with(HttpOptions::default(), move |_| {
            c.set(c.get() + 1);
            match c.get() {
                1 => HttpResponse {
                    status: 503,
                    ..Default::default()
                },
                2 => HttpResponse {
                    status: 0,
                    ..Default::default()
                },
                _ => HttpResponse {
                    status: 200,
                    body: vec![7],
                    ..Default::default()
                },
            }
        });
        assert_eq!(block_on(s.get("k")).unwrap(), Some(vec![7]));
        assert_eq!(calls.get(), 3);
        let s = with(
            HttpOptions {
                retries: 2,
                ..Default::default()
            },
            |_| HttpResponse {
                status: 502,
                ..Default::default()
            },
        );
        let e = block_on(s.get("k")).unwrap_err();
        assert!(e.message.contains("HTTP status 502 (after 3 tries)"), "{e}");
        assert_eq!(s.client.seen.borrow().len(), 3);
        // Client errors are not retried.
        let s = with(HttpOptions::default(), |_| HttpResponse {
            status: 401,
            ..Default::default()
        });
        assert!(block_on(s.get("k")).is_err());
        assert_eq!(s.client.seen.borrow().len(), 1);
    }

    #[test]
    fn statuses_chosen_as_missing_read_as_missing() {
        let forbidden = |_: &HttpRequest| HttpResponse {
            status: 403,
            ..Default::default()
        };
        assert!(block_on(with(HttpOptions::default(), forbidden).get("k")).is_err());
        let s = with(
            HttpOptions {
                missing_statuses: vec![403, 404],
                ..Default::default()
            },
            forbidden,
        );
        assert_eq!(block_on(s.get("k")).unwrap(), None);
    }

    #[test]
    fn an_abort_is_reported_as_such_and_not_retried() {
        let s = with(HttpOptions::default(), |_| HttpResponse {
            status: 1,
            ..Default::default()
        });
        let e = block_on(s.get("k")).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Aborted);
        assert!(e.message.contains("http://h/s.zarr/k"), "{e}");
        assert_eq!(s.client.seen.borrow().len(), 1);
    }

    /// A fake bucket's objects, by key.
    #[cfg(all(feature = "write", feature = "vectors"))]
    type Objects = std::collections::BTreeMap<String, Vec<u8>>;

    /// A bucket in memory behind the S3 API at http://h/bucket: PUT, GET, DELETE and
    /// ListObjectsV2 (two keys a page), a 503 for the first try of each key in `flaky`, and 403 for
    /// keys that start with "locked/".
    #[cfg(all(feature = "write", feature = "vectors"))]
    fn fake_bucket(
        writable: bool,
        flaky: &[&str],
    ) -> (HttpStore<FakeClient>, Rc<RefCell<Objects>>) {
        use std::collections::BTreeSet;
        let objects: Rc<RefCell<Objects>> = Rc::default();
        let flaky: RefCell<BTreeSet<String>> =
            RefCell::new(flaky.iter().map(|k| k.to_string()).collect());
        let held = objects.clone();
        let answer = move |r: &HttpRequest| {
            let ok = |status: u16, body: Vec<u8>| HttpResponse {
                status,
                body,
                ..HttpResponse::default()
            };
            let path = r.url.strip_prefix("http://h/bucket/").unwrap_or("");
            if let Some(query) = path.strip_prefix("?list-type=2&prefix=") {
                let prefix = query.replace("%2F", "/");
                let keys: Vec<String> = held
                    .borrow()
                    .keys()
                    .filter(|k| k.starts_with(&prefix))
                    .take(2)
                    .cloned()
                    .collect();
                let mut xml = String::from("<ListBucketResult>");
                for k in &keys {
                    xml.push_str(&format!("<Contents><Key>{k}</Key></Contents>"));
                }
                xml.push_str("<IsTruncated>false</IsTruncated></ListBucketResult>");
                return ok(200, xml.into_bytes());
            }
            let key = path.to_string();
            if key.starts_with("data.zarr/locked/") {
                let error =
                    "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>";
                return ok(403, error.as_bytes().to_vec());
            }
            if flaky.borrow_mut().remove(&key) {
                return ok(503, Vec::new());
            }
            let mut objects = held.borrow_mut();
            match r.method {
                Method::Put => {
                    objects.insert(key, r.body.as_deref().unwrap_or_default().to_vec());
                    ok(200, Vec::new())
                }
                Method::Delete => match objects.remove(&key) {
                    Some(_) => ok(204, Vec::new()),
                    None => ok(404, Vec::new()),
                },
                _ => match objects.get(&key) {
                    Some(v) => ok(200, v.clone()),
                    None => ok(404, Vec::new()),
                },
            }
        };
        let options = HttpOptions {
            writable,
            ..HttpOptions::default()
        };
        let client = FakeClient {
            answer: Box::new(answer),
            seen: RefCell::new(vec![]),
        };
        let store = HttpStore::with_options("http://h/bucket/data.zarr", client, options);
        (store, objects)
    }

    #[cfg(all(feature = "write", feature = "vectors"))]
    #[test]
    fn a_writable_store_puts_deletes_and_erases_below_a_prefix_through_the_bucket_listing() {
        let (read_only, _) = fake_bucket(false, &[]);
        assert!(read_only.writable().is_none(), "not writable unless asked");
        let (store, objects) = fake_bucket(true, &["data.zarr/a/c/1"]);
        let writer = store.writable().expect("writable");
        for key in [
            "a/zarr.json",
            "a/c/0",
            "a/c/1",
            "a/c/2",
            "ab/zarr.json",
            "b/zarr.json",
        ] {
            block_on(writer.set(key, key.as_bytes().to_vec())).unwrap();
        }
        assert_eq!(
            block_on(store.get("a/c/1")).unwrap().unwrap(),
            b"a/c/1",
            "the PUT that met a 503 was sent again"
        );
        let puts_of_c1 = store
            .client()
            .seen
            .borrow()
            .iter()
            .filter(|r| r.method == Method::Put && r.url.ends_with("a/c/1"))
            .count();
        assert_eq!(puts_of_c1, 2);
        block_on(writer.erase("nothing/here")).unwrap();
        block_on(writer.erase("b/zarr.json")).unwrap();
        // Pages of two keys: the listing is read again until nothing is below a/.
        block_on(writer.erase_prefix("a/")).unwrap();
        let left: Vec<String> = objects.borrow().keys().cloned().collect();
        assert_eq!(left, ["data.zarr/ab/zarr.json"]);
        let lists = store
            .client()
            .seen
            .borrow()
            .iter()
            .filter(|r| r.url.contains("list-type=2"))
            .map(|r| r.url.clone())
            .collect::<Vec<_>>();
        assert_eq!(lists.len(), 3, "{lists:?}");
        assert!(
            lists[0].ends_with("?list-type=2&prefix=data.zarr%2Fa%2F"),
            "{}",
            lists[0]
        );

        let err = block_on(writer.set("locked/c/0", vec![1])).unwrap_err();
        let message = err.to_string();
        assert_eq!(err.status, Some(403));
        assert!(
            message.contains("http://h/bucket/data.zarr/locked/c/0")
                && message.starts_with(
                    "cannot write http://h/bucket/data.zarr/locked/c/0: HTTP status 403"
                )
                && message.contains("AccessDenied: Access Denied"),
            "{message}"
        );
    }

    #[cfg(all(feature = "write", feature = "vectors"))]
    #[test]
    fn a_write_that_fails_on_every_try_says_how_many_it_made() {
        let options = HttpOptions {
            writable: true,
            retries: 2,
            ..HttpOptions::default()
        };
        let client = FakeClient {
            answer: Box::new(|_| HttpResponse {
                status: 0, // a connection reset, every time
                ..HttpResponse::default()
            }),
            seen: RefCell::new(vec![]),
        };
        let store = HttpStore::with_options("http://h/bucket/data.zarr", client, options);
        let err = block_on(store.writable().unwrap().set("c/0", vec![7; 10])).unwrap_err();
        assert!(
            err.to_string().ends_with(
                "cannot write http://h/bucket/data.zarr/c/0: connection reset (after 3 tries)"
            ),
            "{err}"
        );
        let seen = store.client().seen.borrow();
        assert_eq!(seen.len(), 3);
        assert!(seen
            .iter()
            .all(|r| r.body.as_deref() == Some(&[7u8; 10][..])));
    }
}
