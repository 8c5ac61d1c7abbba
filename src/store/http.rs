//! A store over HTTP(S). The HTTP rules (which statuses mean "missing", how ranges are asked for and
//! checked) live here in plain Rust; sending a request is left to an `HttpClient`, which the binding
//! layer implements with `fetch`.

use super::{ByteRange, ReadableStore};
use crate::error::{Result, ZarrError};
use async_trait::async_trait;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub range: Option<ByteRange>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: Vec<u8>,
    /// The `Content-Range` header, where the response has one (and, in browsers, exposes it).
    pub content_range: Option<String>,
}

#[async_trait(?Send)]
pub trait HttpClient {
    /// Sends one request. `Err` is a failure to get any response at all (network, CORS, abort).
    async fn send(&self, request: HttpRequest) -> std::result::Result<HttpResponse, String>;
}

pub struct HttpStore<C> {
    /// The base URL without a trailing slash and without its query.
    base: String,
    /// The query of the base URL (e.g. a signature), appended to every key's URL.
    query: Option<String>,
    client: C,
}

impl<C: HttpClient> HttpStore<C> {
    pub fn new(url: &str, client: C) -> Self {
        // A fragment is never sent to the server; keys go before it, so drop it.
        let url = url.split_once('#').map_or(url, |(u, _)| u);
        let (path, query) = match url.split_once('?') {
            Some((p, q)) => (p, Some(q.to_string())),
            None => (url, None),
        };
        HttpStore {
            base: path.trim_end_matches('/').to_string(),
            query,
            client,
        }
    }

    pub fn url(&self, key: &str) -> String {
        let mut url = self.base.clone();
        if !key.is_empty() {
            url.push('/');
            percent_encode_path(key, &mut url);
        }
        if let Some(q) = &self.query {
            url.push('?');
            url.push_str(q);
        }
        url
    }

    async fn send(&self, key: &str, range: Option<ByteRange>) -> Result<Option<HttpResponse>> {
        let url = self.url(key);
        let response = self
            .client
            .send(HttpRequest {
                method: Method::Get,
                url: url.clone(),
                range,
            })
            .await
            .map_err(|e| ZarrError::store(&url, e))?;
        match response.status {
            200..=299 => Ok(Some(response)),
            404 => Ok(None),
            status => Err(ZarrError::store(&url, format!("HTTP status {status}"))),
        }
    }
}

#[async_trait(?Send)]
impl<C: HttpClient> ReadableStore for HttpStore<C> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.send(key, None).await?.map(|r| r.body))
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        if matches!(
            range,
            ByteRange::Span { length: 0, .. } | ByteRange::Suffix(0)
        ) {
            // HTTP cannot ask for zero bytes; whether the key exists is then unknown, and unneeded.
            return Ok(Some(Vec::new()));
        }
        let Some(response) = self.send(key, Some(range)).await? else {
            return Ok(None);
        };
        let url = || self.url(key);
        if response.status == 206 {
            check_partial(&response, range).map_err(|e| ZarrError::store(&url(), e))?;
            return Ok(Some(response.body));
        }
        // A server may ignore Range and send the whole value: legal HTTP, so cut the range out.
        Ok(Some(range.cut(&response.body).to_vec()))
    }

    fn locate(&self, key: &str) -> String {
        self.url(key)
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
        async fn send(&self, request: HttpRequest) -> std::result::Result<HttpResponse, String> {
            self.seen.borrow_mut().push(request.clone());
            Ok((self.answer)(&request))
        }
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
                content_range: None,
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
            content_range: None,
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

        let partial = |_: &HttpRequest| HttpResponse {
            status: 206,
            body: vec![1, 2],
            content_range: Some("bytes 10-11/100".into()),
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
        assert!(block_on(store(partial).get_range("k", ByteRange::Suffix(2))).is_err());
        let tail = |_: &HttpRequest| HttpResponse {
            status: 206,
            body: vec![1, 2],
            content_range: Some("bytes 98-99/100".into()),
        };
        assert!(block_on(store(tail).get_range("k", ByteRange::Suffix(2))).is_ok());
        let huge = |_: &HttpRequest| HttpResponse {
            status: 206,
            body: vec![],
            content_range: Some("bytes 0-18446744073709551615/*".into()),
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
}
