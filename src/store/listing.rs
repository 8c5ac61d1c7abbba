//! How an HTTP store lists a directory: a static server's index pages, or an object-store bucket's
//! own listing (S3's ListObjectsV2, Google Cloud Storage's JSON API), for servers that have no
//! directories. Zarr never needs a listing; Zarr Vectors' link arrays are named only by where they
//! are (`vectors::links`), and a listing finds them in one request rather than many.
//!
//! The answers are parsed here in plain Rust; `http.rs` sends the requests.

use crate::metadata::json::count_containers;
use serde_json::Value;

/// The most pages of a bucket listing read for one directory (1000 names a page on S3 and GCS):
/// beyond it the listing is refused rather than read for ever.
pub const MAX_PAGES: usize = 64;

/// How a store lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing {
    /// `GET <dir>/` answered by an index page (nginx's autoindex, Apache, Python's http.server).
    IndexPages,
    /// An S3 bucket (or one that speaks its API: MinIO, R2, Ceph) whose objects are at `bucket`
    /// (`https://<name>.s3.<region>.amazonaws.com`, `https://s3.<region>.amazonaws.com/<name>`).
    S3 { bucket: String },
    /// A Google Cloud Storage bucket whose objects are at `bucket`, listed by the JSON API at
    /// `api` (`https://storage.googleapis.com/storage/v1/b/<name>/o`).
    Gcs { bucket: String, api: String },
    /// No listing at all.
    None,
}

/// One page of a bucket listing: the names directly below the directory asked for, and the token
/// of the next page.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Page {
    pub names: Vec<String>,
    pub next: Option<String>,
}

impl Listing {
    /// The bucket listing that serves `url` (a store's base URL without its query), told by its
    /// host: AWS S3 and Google Cloud Storage, either style. Others are servers with index pages,
    /// unless the store is told otherwise.
    pub fn detect(url: &str) -> Listing {
        let Some((scheme, rest)) = url.split_once("://") else {
            return Listing::IndexPages;
        };
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        let first = path.split('/').find(|s| !s.is_empty());
        let origin = format!("{scheme}://{host}");
        let host = host.to_ascii_lowercase();
        // Virtual-hosted S3: <bucket>.s3[.-]<region>.amazonaws.com; path style: s3[.-]<region>...
        if let Some(front) = host.strip_suffix(".amazonaws.com") {
            let labels: Vec<&str> = front.split('.').collect();
            // Not the website endpoints (s3-website-<region>), which serve pages, not listings.
            let is_s3 =
                |l: &str| l == "s3" || (l.starts_with("s3-") && !l.starts_with("s3-website"));
            if let Some(at) = labels.iter().rposition(|l| is_s3(l)) {
                return match (at, first) {
                    (0, Some(bucket)) => Listing::S3 {
                        bucket: format!("{origin}/{bucket}"),
                    },
                    (0, None) => Listing::IndexPages,
                    _ => Listing::S3 { bucket: origin },
                };
            }
        }
        if host == "storage.googleapis.com" {
            if let Some(listing) = first.and_then(|b| Listing::gcs(&format!("{origin}/{b}"))) {
                return listing;
            }
        }
        if let Some(bucket) = host.strip_suffix(".storage.googleapis.com") {
            return Listing::Gcs {
                bucket: origin,
                api: format!("{scheme}://storage.googleapis.com/storage/v1/b/{bucket}/o"),
            };
        }
        Listing::IndexPages
    }

    /// The GCS bucket whose objects are at `bucket` (`<endpoint>/<name>`), listed by the JSON
    /// API of the same endpoint (`<endpoint>/storage/v1/b/<name>/o`); None where `bucket` is not
    /// an http(s) URL with a path naming the bucket.
    pub fn gcs(bucket: &str) -> Option<Listing> {
        let bucket = bucket.trim_end_matches('/');
        let (_, rest) = bucket
            .split_once("://")
            .filter(|(scheme, _)| matches!(*scheme, "http" | "https"))?;
        let (endpoint, name) = bucket.rsplit_once('/')?;
        if !rest.contains('/') || name.is_empty() {
            return None;
        }
        Some(Listing::Gcs {
            bucket: bucket.to_string(),
            api: format!("{endpoint}/storage/v1/b/{name}/o"),
        })
    }

    /// The URL of a listing's page of the objects below `prefix` (a key prefix in the bucket,
    /// ending in "/"), `token` the page's. None for listings that are not a bucket's.
    pub fn page_url(&self, prefix: &str, token: Option<&str>) -> Option<String> {
        let mut url = match self {
            Listing::S3 { bucket } => format!(
                "{}/?list-type=2&delimiter=%2F&prefix={}",
                bucket.trim_end_matches('/'),
                encode_query(prefix)
            ),
            Listing::Gcs { api, .. } => format!(
                "{api}?delimiter=%2F&prefix={}&fields=prefixes%2Citems(name)%2CnextPageToken",
                encode_query(prefix)
            ),
            Listing::IndexPages | Listing::None => return None,
        };
        if let Some(token) = token {
            let name = match self {
                Listing::S3 { .. } => "continuation-token",
                _ => "pageToken",
            };
            url.push_str(&format!("&{name}={}", encode_query(token)));
        }
        Some(url)
    }

    /// The URL of the first page of every key below `prefix` (a key prefix in the bucket), at
    /// any depth: what erasing below a path deletes. None for listings that are not a bucket's.
    pub fn keys_page_url(&self, prefix: &str) -> Option<String> {
        match self {
            Listing::S3 { bucket } => Some(format!(
                "{}/?list-type=2&prefix={}",
                bucket.trim_end_matches('/'),
                encode_query(prefix)
            )),
            Listing::Gcs { api, .. } => Some(format!(
                "{api}?prefix={}&fields=items(name)",
                encode_query(prefix)
            )),
            Listing::IndexPages | Listing::None => None,
        }
    }

    /// The keys (whole, in the bucket) on a page of `keys_page_url`'s listing.
    pub fn parse_keys_page(&self, body: &[u8]) -> Result<Vec<String>, String> {
        let text = std::str::from_utf8(body).map_err(|_| "the listing is not UTF-8".to_string())?;
        let (keys, _) = match self {
            Listing::S3 { .. } => parse_s3(text)?,
            Listing::Gcs { .. } => parse_gcs(body)?,
            Listing::IndexPages | Listing::None => return Ok(Vec::new()),
        };
        Ok(keys)
    }

    /// An S3 bucket addressed path-style at `url`'s first path segment (`<endpoint>/<bucket>`),
    /// as MinIO, moto, R2 and Ceph serve them; None where the URL has no path.
    pub fn path_style_s3(url: &str) -> Option<Listing> {
        let (scheme, rest) = url.split_once("://")?;
        let (host, path) = rest.split_once('/')?;
        let bucket = path.split('/').find(|s| !s.is_empty())?;
        Some(Listing::S3 {
            bucket: format!("{scheme}://{host}/{bucket}"),
        })
    }

    /// Reads a page of this bucket's listing of `prefix`.
    pub fn parse_page(&self, body: &[u8], prefix: &str) -> Result<Page, String> {
        let text = std::str::from_utf8(body).map_err(|_| "the listing is not UTF-8".to_string())?;
        let (keys, next) = match self {
            Listing::S3 { .. } => parse_s3(text)?,
            Listing::Gcs { .. } => parse_gcs(body)?,
            Listing::IndexPages | Listing::None => return Ok(Page::default()),
        };
        // Keys below the prefix by their first component: a server that ignores the delimiter
        // lists every key deeper down. Names that are no entry of a directory ("..", a
        // backslash) are left out, not followed.
        let mut names: Vec<String> = keys
            .iter()
            .filter_map(|k| k.strip_prefix(prefix))
            .filter_map(|k| k.split('/').next())
            .filter(|n| is_entry_name(n))
            .map(String::from)
            .collect();
        crate::collections::sort::sort_dedup(&mut names);
        Ok(Page { names, next })
    }

    /// The key prefix, in the bucket, of the directory `dir` of a store whose base URL is `base`
    /// (with "/" at the end; "" for the bucket's root). None where the store is not in the bucket.
    pub fn prefix_of(&self, base: &str, dir: &str) -> Option<String> {
        let bucket = match self {
            Listing::S3 { bucket } | Listing::Gcs { bucket, .. } => bucket.trim_end_matches('/'),
            Listing::IndexPages | Listing::None => return None,
        };
        let within = base.strip_prefix(bucket)?;
        if !within.is_empty() && !within.starts_with('/') {
            return None;
        }
        let within = percent_decode(within.trim_matches('/'))?;
        let parts: Vec<&str> = [within.as_str(), dir.trim_matches('/')]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect();
        Some(match parts.is_empty() {
            true => String::new(),
            false => format!("{}/", parts.join("/")),
        })
    }
}

/// Whether `name` (percent-decoded) can be an entry of a directory: one path segment that is
/// not "." or "..", without slashes, backslashes or control characters. A listing is read from
/// a server; a name such as "a%2F..%2F..%2Fx" is no entry to open but a way out of the directory,
/// and is left out of the listing rather than followed (or failing the read).
pub fn is_entry_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_control)
}

/// The names an HTML directory index links to, or `None` where the page links to none of its own
/// entries. Only relative links to direct children count: not parents, queries, fragments, absolute
/// paths or other sites (sorting links, say), nor links whose decoded name is no single entry
/// (`is_entry_name`).
pub fn index_page_names(page: &str) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut rest = page;
    while let Some(at) = rest.find("href=") {
        rest = &rest[at + 5..];
        let Some(quote) = rest.chars().next() else {
            break;
        };
        if quote != '"' && quote != '\'' {
            continue;
        }
        let Some(end) = rest[1..].find(quote) else {
            break;
        };
        let link = &rest[1..1 + end];
        rest = &rest[1 + end..];
        let link = link.strip_prefix("./").unwrap_or(link);
        if link.is_empty() || link.starts_with(['?', '#', '/', '.']) || link.contains(':') {
            continue;
        }
        let name = link.strip_suffix('/').unwrap_or(link);
        if name.is_empty() || name.contains('/') {
            continue;
        }
        // Checked once decoded: "a%2F..%2Fx" is no entry of this directory.
        if let Some(name) = percent_decode(name).filter(|n| is_entry_name(n)) {
            names.push(name);
        }
    }
    crate::collections::sort::sort_dedup(&mut names);
    (!names.is_empty()).then_some(names)
}

/// `%xx` escapes decoded; `None` where they do not make UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// S3's ListObjectsV2 answer: the keys of `<Contents>` and the prefixes of `<CommonPrefixes>`,
/// and the next page's token where `<IsTruncated>` says there is one.
fn parse_s3(xml: &str) -> Result<(Vec<String>, Option<String>), String> {
    if !xml.contains("<ListBucketResult") {
        return Err("the answer is not an S3 ListBucketResult".into());
    }
    let mut keys = Vec::new();
    for contents in elements(xml, "Contents") {
        if let Some(key) = elements(contents, "Key").next() {
            keys.push(unescape_xml(key)?);
        }
    }
    for common in elements(xml, "CommonPrefixes") {
        if let Some(prefix) = elements(common, "Prefix").next() {
            keys.push(unescape_xml(prefix)?);
        }
    }
    let truncated = elements(xml, "IsTruncated").next() == Some("true");
    let next = match truncated {
        true => Some(unescape_xml(
            elements(xml, "NextContinuationToken")
                .next()
                .ok_or("a truncated listing without a NextContinuationToken")?,
        )?),
        false => None,
    };
    Ok((keys, next))
}

/// The JSON API's `objects.list` answer: `items[].name`, `prefixes[]` and `nextPageToken`.
fn parse_gcs(json: &[u8]) -> Result<(Vec<String>, Option<String>), String> {
    // A page lists at most 1000 objects; a body of nested lists is no listing.
    if count_containers(json) > 4 * 1024 {
        return Err("the listing holds more lists and objects than a page of names".into());
    }
    let value: Value =
        crate::metadata::json::read(json).map_err(|e| format!("the listing is not JSON: {e}"))?;
    let strings = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut keys = strings(value.get("prefixes"));
    if let Some(items) = value.get("items").and_then(Value::as_array) {
        keys.extend(
            items
                .iter()
                .filter_map(|i| i.get("name").and_then(Value::as_str))
                .map(String::from),
        );
    }
    let next = value
        .get("nextPageToken")
        .and_then(Value::as_str)
        .map(String::from);
    Ok((keys, next))
}

/// The text of each `<tag>...</tag>` in `xml`, in order (not nested in one another: S3's
/// listing has none of the same name).
fn elements<'a>(xml: &'a str, tag: &str) -> impl Iterator<Item = &'a str> + 'a {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut rest = xml;
    std::iter::from_fn(move || {
        let start = rest.find(&open)? + open.len();
        let end = start + rest[start..].find(&close)?;
        let text = &rest[start..end];
        rest = &rest[end + close.len()..];
        Some(text)
    })
}

/// XML's five entities and numeric character references.
fn unescape_xml(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let end = rest[at..]
            .find(';')
            .ok_or_else(|| format!("an unfinished XML entity in \"{text}\""))?;
        let entity = &rest[at + 1..at + end];
        let c = match entity {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = match entity.strip_prefix("#x").or(entity.strip_prefix("#X")) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => entity.strip_prefix('#').and_then(|d| d.parse().ok()),
                };
                code.and_then(char::from_u32)
                    .ok_or_else(|| format!("an unknown XML entity \"&{entity};\""))?
            }
        };
        out.push(c);
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `text` as a query parameter's value: everything but unreserved characters percent-encoded.
fn encode_query(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_told_by_their_hosts() {
        let s3 = |b: &str| Listing::S3 {
            bucket: b.to_string(),
        };
        let gcs = |b: &str, name: &str| Listing::Gcs {
            bucket: b.to_string(),
            api: format!("https://storage.googleapis.com/storage/v1/b/{name}/o"),
        };
        for (url, listing) in [
            (
                "https://my-data.s3.us-west-2.amazonaws.com/a/b.zarr",
                s3("https://my-data.s3.us-west-2.amazonaws.com"),
            ),
            (
                "https://my.data.s3.amazonaws.com/x",
                s3("https://my.data.s3.amazonaws.com"),
            ),
            (
                "https://s3.eu-central-1.amazonaws.com/bucket/x.zarr",
                s3("https://s3.eu-central-1.amazonaws.com/bucket"),
            ),
            (
                "https://s3-stuff.s3.amazonaws.com/x",
                s3("https://s3-stuff.s3.amazonaws.com"),
            ),
            (
                "https://s3-us-west-2.amazonaws.com/bucket/x",
                s3("https://s3-us-west-2.amazonaws.com/bucket"),
            ),
            (
                "https://storage.googleapis.com/bucket/a/b.zarr",
                gcs("https://storage.googleapis.com/bucket", "bucket"),
            ),
            (
                "https://bucket.storage.googleapis.com/a",
                gcs("https://bucket.storage.googleapis.com", "bucket"),
            ),
        ] {
            assert_eq!(Listing::detect(url), listing, "{url}");
        }
        for other in [
            "http://127.0.0.1:8000/data.zarr",
            "https://example.org/s3/x",
            "https://ec2.amazonaws.com/x",
            "https://b.s3-website-us-east-1.amazonaws.com/x",
            "not a url",
        ] {
            assert_eq!(Listing::detect(other), Listing::IndexPages, "{other}");
        }
    }

    #[test]
    fn pages_are_asked_for_below_the_stores_directory() {
        let s3 = Listing::S3 {
            bucket: "http://h/b".into(),
        };
        let prefix = s3
            .prefix_of("http://h/b/my%20data/v.zarr", "0/links/0")
            .unwrap();
        assert_eq!(prefix, "my data/v.zarr/0/links/0/");
        assert_eq!(
            s3.page_url(&prefix, Some("t/1=")).unwrap(),
            "http://h/b/?list-type=2&delimiter=%2F&prefix=my%20data%2Fv.zarr%2F0%2Flinks%2F0%2F&continuation-token=t%2F1%3D"
        );
        assert_eq!(s3.prefix_of("http://h/b", "").unwrap(), "");
        assert_eq!(s3.prefix_of("http://h/bc/x", "y"), None);
        let gcs = Listing::gcs("http://h/root/bucket").unwrap();
        assert_eq!(
            gcs.page_url("a/", None).unwrap(),
            "http://h/root/storage/v1/b/bucket/o?delimiter=%2F&prefix=a%2F&fields=prefixes%2Citems(name)%2CnextPageToken"
        );
        assert_eq!(Listing::IndexPages.page_url("a/", None), None);
        // A GCS bucket is named by the URL's path; no path, or not http(s), is no bucket.
        for not_one in [
            "https://storage.googleapis.com",
            "https://h/",
            "s3://b/c",
            "b/c",
        ] {
            assert_eq!(Listing::gcs(not_one), None, "{not_one}");
        }
    }

    #[test]
    fn s3_listings_give_objects_and_common_prefixes() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>s/links/0/</Prefix>
<KeyCount>3</KeyCount><MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>
<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
<Contents><Key>s/links/0/zarr.json</Key><Size>9</Size></Contents>
<Contents><Key>s/links/0/0.0.0/zarr.json</Key><Size>9</Size></Contents>
<CommonPrefixes><Prefix>s/links/0/+1.0.-1/</Prefix></CommonPrefixes>
<CommonPrefixes><Prefix>s/links/0/a&amp;b/</Prefix></CommonPrefixes></ListBucketResult>"#;
        let listing = Listing::S3 { bucket: "x".into() };
        let page = listing.parse_page(xml.as_bytes(), "s/links/0/").unwrap();
        // A key deeper down (a server that ignored the delimiter) names its directory.
        assert_eq!(page.names, ["+1.0.-1", "0.0.0", "a&b", "zarr.json"]);
        assert_eq!(
            page.next.as_deref(),
            Some("1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        );
        let last = xml.replace("<IsTruncated>true", "<IsTruncated>false");
        assert_eq!(
            listing
                .parse_page(last.as_bytes(), "s/links/0/")
                .unwrap()
                .next,
            None
        );
        assert!(listing
            .parse_page(b"<Error><Code>AccessDenied</Code></Error>", "")
            .is_err());
        let no_token = xml.replace("NextContinuationToken", "Other");
        assert!(listing.parse_page(no_token.as_bytes(), "").is_err());
        assert!(listing
            .parse_page(
                b"<ListBucketResult><Contents><Key>a&bogus;</Key></Contents></ListBucketResult>",
                ""
            )
            .is_err());
    }

    #[test]
    fn gcs_listings_give_items_and_prefixes() {
        let json = r#"{"prefixes":["s/links/0/0.0.0/","s/links/0/+1.0.0/"],"items":[{"name":"s/links/0/zarr.json"}],"nextPageToken":"CgV"}"#;
        let page = Listing::gcs("http://h/b")
            .unwrap()
            .parse_page(json.as_bytes(), "s/links/0/")
            .unwrap();
        assert_eq!(page.names, ["+1.0.0", "0.0.0", "zarr.json"]);
        assert_eq!(page.next.as_deref(), Some("CgV"));
        assert!(Listing::gcs("http://h/b")
            .unwrap()
            .parse_page(b"<html>", "")
            .is_err());
    }

    #[test]
    fn arbitrary_listings_never_panic() {
        let listing = Listing::S3 { bucket: "b".into() };
        let gcs = Listing::gcs("http://h/b").unwrap();
        let seeds: [&[u8]; 2] = [
            b"<ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>&#x41;</NextContinuationToken><Contents><Key>p/a</Key></Contents></ListBucketResult>",
            br#"{"prefixes":["p/a/"],"items":[{"name":"p/b"}],"nextPageToken":"x"}"#,
        ];
        for seed in seeds {
            for i in 0..seed.len() {
                for cut in [&seed[..i], &seed[i..]] {
                    let _ = listing.parse_page(cut, "p/");
                    let _ = gcs.parse_page(cut, "p/");
                }
                let mut flipped = seed.to_vec();
                flipped[i] ^= 0x5a;
                let _ = listing.parse_page(&flipped, "p/");
                let _ = gcs.parse_page(&flipped, "p/");
            }
        }
    }

    #[test]
    fn index_pages_list_their_entries() {
        // Python's http.server, nginx's autoindex (with its parent link) and Apache (sort links).
        let python = r#"<ul><li><a href="%2B1.0.0/">+1.0.0/</a></li><li><a href="0.0.0/">0.0.0/</a></li><li><a href="zarr.json">zarr.json</a></li></ul>"#;
        assert_eq!(
            index_page_names(python).unwrap(),
            ["+1.0.0", "0.0.0", "zarr.json"]
        );
        let nginx = r#"<h1>Index of /x/</h1><hr><pre><a href="../">../</a>
<a href='c/'>c/</a>  23-Nov-2026 08:00  -</pre>"#;
        assert_eq!(index_page_names(nginx).unwrap(), ["c"]);
        let apache = r#"<a href="?C=N;O=D">Name</a><a href="/x/">Parent</a><a href="https://e.org/">e</a><a href="a%20b">a b</a>"#;
        assert_eq!(index_page_names(apache).unwrap(), ["a b"]);
        assert_eq!(index_page_names("<html>no links</html>"), None);
        assert_eq!(
            index_page_names("<a href=\"%zz\">broken</a><a href=\"unclosed"),
            None
        );
    }

    #[test]
    fn names_that_are_no_single_entry_are_left_out() {
        for bad in [
            "", ".", "..", "a/b", "a\\b", "..\\x", "a\u{0}b", "a\nb", "\u{7f}",
        ] {
            assert!(!is_entry_name(bad), "{bad:?}");
        }
        for good in ["0.0.0", "+1.0.-1_0.+2.0", "self", "a b", "...", "a..b", "é"] {
            assert!(is_entry_name(good), "{good:?}");
        }
        // Escapes that decode to a way out of the directory, or to control characters.
        let page = r#"<a href="a%2F..%2F..%2F..%2Fx">x</a><a href="%2E%2E/">up</a><a href="a%5Cb">b</a>
<a href="%0A">nl</a><a href="%2e">dot</a><a href="0.0.0/">0.0.0/</a><a href="zarr.json">z</a>"#;
        assert_eq!(index_page_names(page).unwrap(), ["0.0.0", "zarr.json"]);
        assert_eq!(index_page_names(r#"<a href="a%2F..%2Fx">x</a>"#), None);
        // A bucket's keys: "..", "." or a backslash below the prefix are no entries either.
        let xml = "<ListBucketResult><Contents><Key>p/../x</Key></Contents>\
<Contents><Key>p/./y</Key></Contents><Contents><Key>p/a\\b</Key></Contents>\
<Contents><Key>p/a&#10;b</Key></Contents><Contents><Key>p/0.0/zarr.json</Key></Contents>\
</ListBucketResult>";
        let listing = Listing::S3 { bucket: "b".into() };
        assert_eq!(
            listing.parse_page(xml.as_bytes(), "p/").unwrap().names,
            ["0.0"]
        );
    }
}
