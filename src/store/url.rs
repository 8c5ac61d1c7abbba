//! URLs of the bytes a store reads from elsewhere: kerchunk references' targets and Icechunk's
//! virtual chunks. A target's URL is mapped (`urlMap`, `s3://`, `gs://`) to the http(s) URL it is
//! fetched from, and relative URLs are resolved against a base.

use crate::error::quote_text;

/// The http(s) URL a target `url` is read from: `url_map`'s longest matching prefix rewritten,
/// `s3://` and `gs://` mapped to the buckets' public endpoints, a relative URL resolved against
/// `base`. Other schemes are an error saying how to map them.
pub fn resolve_url(
    url: &str,
    base: Option<&str>,
    url_map: &[(String, String)],
) -> Result<String, String> {
    let mapped = url_map
        .iter()
        .filter(|(from, _)| url.starts_with(from.as_str()))
        .max_by_key(|(from, _)| from.len())
        .map(|(from, to)| format!("{to}{}", &url[from.len()..]));
    let url = mapped.as_deref().unwrap_or(url);
    match scheme_of(url) {
        Some(("http" | "https", _)) => Ok(url.to_string()),
        Some(("s3", rest)) => bucket_and_key(rest, url)
            .map(|(bucket, key)| format!("https://{bucket}.s3.amazonaws.com/{key}")),
        Some(("gs" | "gcs", rest)) => bucket_and_key(rest, url)
            .map(|(bucket, key)| format!("https://storage.googleapis.com/{bucket}/{key}")),
        Some((scheme, _)) => Err(format!(
            "{scheme}: URLs cannot be read over HTTP: map its prefix to an http(s) URL (the urlMap option)"
        )),
        None => {
            let Some(base) = base else {
                return Err(
                    "a relative URL, and the references have no URL to resolve it against (the baseUrl option)"
                        .into(),
                );
            };
            join_url(base, url)
        }
    }
}

/// `(scheme, the rest after "scheme:")`, lowercased scheme, where `url` has one.
fn scheme_of(url: &str) -> Option<(&str, &str)> {
    let colon = url.find(':')?;
    let scheme = &url[..colon];
    let valid = scheme.len() >= 2
        && scheme.as_bytes()[0].is_ascii_alphabetic()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
    if !valid {
        return None;
    }
    let known = ["http", "https", "s3", "gs", "gcs"];
    let lower = known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(scheme))
        .copied()
        .unwrap_or(scheme);
    Some((lower, &url[colon + 1..]))
}

fn bucket_and_key<'a>(rest: &'a str, url: &str) -> Result<(&'a str, &'a str), String> {
    let path = rest
        .strip_prefix("//")
        .ok_or_else(|| format!("{} is not scheme://bucket/key", quote_text(url)))?;
    let (bucket, key) = path.split_once('/').unwrap_or((path, ""));
    if bucket.is_empty() {
        return Err(format!("{} names no bucket", quote_text(url)));
    }
    // The bucket becomes (part of) a host name: `s3://h#/k` would otherwise be read from h.
    if !bucket
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
    {
        return Err(format!(
            "{} names the bucket {}: a bucket's name is letters, digits, \".\", \"-\" and \"_\"",
            quote_text(url),
            quote_text(bucket)
        ));
    }
    Ok((bucket, key))
}

/// `relative` resolved against the http(s) URL `base` (RFC 3986, section 5.2).
pub fn join_url(base: &str, relative: &str) -> Result<String, String> {
    let cannot = || {
        format!(
            "{} cannot be resolved against {}",
            quote_text(relative),
            quote_text(base)
        )
    };
    let Some(("http" | "https", rest)) = scheme_of(base) else {
        return Err(cannot());
    };
    let scheme = &base[..base.len() - rest.len() - 1];
    let rest = rest.strip_prefix("//").ok_or_else(cannot)?;
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (authority, base_path) = match rest.find('/') {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, "/"),
    };
    if let Some(net) = relative.strip_prefix("//") {
        return Ok(format!("{scheme}://{net}"));
    }
    // The relative URL's query and fragment stay as they are.
    let split = relative.find(['?', '#']).unwrap_or(relative.len());
    let (rel_path, tail) = relative.split_at(split);
    let path = if rel_path.is_empty() {
        base_path.to_string()
    } else if rel_path.starts_with('/') {
        rel_path.to_string()
    } else {
        let dir = &base_path[..base_path.rfind('/').map_or(0, |i| i + 1)];
        format!("{dir}{rel_path}")
    };
    Ok(format!(
        "{scheme}://{authority}{}{tail}",
        remove_dots(&path)
    ))
}

/// A path without its `.` and `..` segments.
fn remove_dots(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    for (i, s) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *s {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}

/// The schemes the WHATWG URL standard calls special, with their default ports: their hosts are
/// domains (lowercased), and a backslash in them is a slash.
const SPECIAL: [(&str, Option<u16>); 6] = [
    ("http", Some(80)),
    ("https", Some(443)),
    ("ws", Some(80)),
    ("wss", Some(443)),
    ("ftp", Some(21)),
    ("file", None),
];

/// A URL as the WHATWG URL parser (what `fetch` uses) reads it: scheme and host lowercased (a
/// special scheme's host, percent-decoded), the default port dropped, tabs and newlines removed,
/// backslashes as slashes in special schemes, `.` and `..` segments (`%2e` among them) resolved.
/// Other percent-encoded characters stay as they are. What a store fetches and what it checks
/// against a list of allowed prefixes are then the same URL, whatever form it was written in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    scheme: String,
    /// `userinfo@host:port`, `None` for a URL without one (`s3:/x`).
    authority: Option<String>,
    /// Path segments; `["a", ""]` is `/a/`.
    path: Vec<String>,
    /// `?query#fragment`, as given (its controls and spaces percent-encoded).
    tail: String,
}

/// The URL `input` as the WHATWG URL parser reads it; an error for what it refuses, and for
/// what this reader does not check (relative URLs, opaque paths such as `mailto:`, hosts that
/// are not ASCII).
pub fn parse_url(input: &str) -> Result<Url, String> {
    let bad = |what: &str| format!("{} {what}", quote_text(input));
    let text: String = input
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let colon = text.find(':').ok_or_else(|| bad("has no scheme"))?;
    let scheme = text[..colon].to_ascii_lowercase();
    let valid = scheme
        .as_bytes()
        .first()
        .is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
    if !valid {
        return Err(bad("has no scheme"));
    }
    let special = SPECIAL.iter().find(|(s, _)| *s == scheme);
    let is_sep = |c: char| c == '/' || (special.is_some() && c == '\\');
    let mut rest = &text[colon + 1..];
    let authority = match special {
        Some(&(s, default_port)) if s != "file" => {
            // Any number of slashes (or backslashes) before the host, none included.
            rest = rest.trim_start_matches(['/', '\\']);
            let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
            let authority = authority(&rest[..end], true, default_port).map_err(|e| bad(&e))?;
            rest = &rest[end..];
            Some(authority)
        }
        _ => {
            let mut chars = rest.chars();
            let two = [chars.next(), chars.next()];
            if two.iter().all(|c| c.is_some_and(is_sep)) {
                rest = &rest[2..];
                let end = rest
                    .find(|c: char| is_sep(c) || c == '?' || c == '#')
                    .unwrap_or(rest.len());
                let mut a =
                    authority(&rest[..end], special.is_some(), None).map_err(|e| bad(&e))?;
                if special.is_some() && a == "localhost" {
                    a.clear();
                }
                rest = &rest[end..];
                Some(a)
            } else if special.is_some() {
                // file:x, which is file:///x.
                Some(String::new())
            } else if rest.starts_with('/') {
                // s3:/x: a path without a host.
                None
            } else {
                return Err(bad("has no hierarchical path (such as scheme://host/path)"));
            }
        }
    };
    let split = rest.find(['?', '#']).unwrap_or(rest.len());
    let (path_text, tail) = rest.split_at(split);
    let file = scheme == "file";
    let mut path: Vec<String> = Vec::new();
    if !path_text.is_empty() || special.is_some() {
        // The separator that starts the path is not a segment's.
        let body = match path_text.chars().next() {
            Some(c) if is_sep(c) => &path_text[c.len_utf8()..],
            _ => path_text,
        };
        let pieces: Vec<&str> = body.split(is_sep).collect();
        for (i, piece) in pieces.iter().enumerate() {
            let last = i + 1 == pieces.len();
            let lower = piece.to_ascii_lowercase();
            if matches!(lower.as_str(), ".." | ".%2e" | "%2e." | "%2e%2e") {
                let drive = file && path.len() == 1 && is_drive_letter(&path[0]);
                if !drive {
                    path.pop();
                }
                if last {
                    path.push(String::new());
                }
            } else if matches!(lower.as_str(), "." | "%2e") {
                if last {
                    path.push(String::new());
                }
            } else {
                let mut segment = encode(piece, PATH);
                if file && path.is_empty() && is_drive_letter(&segment) {
                    segment.replace_range(1..2, ":");
                }
                path.push(segment);
            }
        }
    }
    let tail = match tail.split_once('#') {
        Some((query, fragment)) => {
            format!("{}#{}", encode(query, QUERY), encode(fragment, FRAGMENT))
        }
        None => encode(tail, QUERY),
    };
    Ok(Url {
        scheme,
        authority,
        path,
        tail,
    })
}

/// `C:` or `C|`: a Windows drive letter, which `..` does not remove from a file URL.
fn is_drive_letter(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 2 && b[0].is_ascii_alphabetic() && (b[1] == b':' || b[1] == b'|')
}

/// What each part percent-encodes besides controls, spaces and non-ASCII characters.
const PATH: &[u8] = b"\"#<>?`{}";
const QUERY: &[u8] = b"\"#<>";
const FRAGMENT: &[u8] = b"\"<>`";

/// `text` with controls, spaces, non-ASCII characters and the characters `also` percent-encoded
/// (what is already percent-encoded stays as it is).
fn encode(text: &str, also: &[u8]) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b <= b' ' || b >= 0x7f || also.contains(&b) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

/// `text` with its `%XX` sequences decoded (others kept).
fn decode(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

/// `userinfo@host:port` as the WHATWG parser writes it: a special scheme's host percent-decoded
/// and lowercased, the scheme's default port dropped.
fn authority(text: &str, special: bool, default_port: Option<u16>) -> Result<String, String> {
    let (userinfo, hostport) = match text.rfind('@') {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => ("", text),
    };
    let port_at = if hostport.starts_with('[') {
        hostport
            .find(']')
            .map(|i| i + 1)
            .filter(|&i| i < hostport.len())
    } else {
        hostport.find(':')
    };
    let (host, port) = match port_at {
        Some(at) if hostport.as_bytes()[at] == b':' => (&hostport[..at], Some(&hostport[at + 1..])),
        Some(_) => return Err("has a host with characters after its ]".into()),
        None => (hostport, None),
    };
    let host = if let Some(v6) = host.strip_prefix('[') {
        let inner = v6.strip_suffix(']').ok_or("has a [ without its ]")?;
        if inner.is_empty()
            || !inner
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
        {
            return Err(format!("has the host [{inner}], not an IPv6 address"));
        }
        format!("[{}]", inner.to_ascii_lowercase())
    } else if special {
        let decoded = decode(host);
        let forbidden = b"\0\t\n\r #%/:<>?@[\\]^|";
        if decoded
            .iter()
            .any(|b| *b >= 0x7f || *b < 0x20 || forbidden.contains(b))
        {
            return Err(format!(
                "has the host {}, which is not a plain ASCII domain name",
                quote_text(host)
            ));
        }
        String::from_utf8_lossy(&decoded).to_ascii_lowercase()
    } else {
        let forbidden = b"\0\t\n\r #/:<>?@[\\]^|";
        if host.bytes().any(|b| forbidden.contains(&b)) {
            return Err(format!(
                "has the host {}, which a URL may not have",
                quote_text(host)
            ));
        }
        encode(host, b"")
    };
    if special && host.is_empty() && default_port.is_some() {
        return Err("has no host".into());
    }
    let port = match port {
        None | Some("") => None,
        Some(p) => {
            let digits = p.trim_start_matches('0');
            let n = match p.bytes().all(|b| b.is_ascii_digit()) && digits.len() <= 5 {
                true => digits.parse::<u32>().unwrap_or(0),
                false => u32::MAX,
            };
            if n > 65535 {
                return Err(format!(
                    "has the port {}, not one from 0 to 65535",
                    quote_text(p)
                ));
            }
            (default_port != Some(n as u16)).then_some(n)
        }
    };
    let mut out = String::new();
    if !userinfo.is_empty() {
        out.push_str(userinfo);
        out.push('@');
    }
    out.push_str(&host);
    if let Some(p) = port {
        out.push_str(&format!(":{p}"));
    }
    Ok(out)
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:", self.scheme)?;
        if let Some(a) = &self.authority {
            write!(f, "//{a}")?;
        }
        for s in &self.path {
            write!(f, "/{s}")?;
        }
        write!(f, "{}", self.tail)
    }
}

/// A URL prefix that admits URLs by whole path segments: `http://h/a/c` admits `http://h/a/c`
/// and what lies below it, not `http://h/a/cx`; `http://h/a/c/` only what lies below it. A
/// scheme alone (`s3://`) admits every URL of that scheme.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlPrefix {
    Scheme(String),
    Url(Url),
}

impl UrlPrefix {
    /// `text` read as `parse_url` reads URLs.
    pub fn parse(text: &str) -> Result<UrlPrefix, String> {
        let t = text.trim_matches(|c: char| c <= ' ');
        if let Some(scheme) = t.strip_suffix("://").or_else(|| t.strip_suffix(':')) {
            if parse_url(&format!("{scheme}://h/")).is_ok() && !scheme.contains(['/', '\\']) {
                return Ok(UrlPrefix::Scheme(scheme.to_ascii_lowercase()));
            }
        }
        parse_url(text).map(UrlPrefix::Url)
    }

    /// Whether `url` lies within this prefix. A path segment below the prefix that decodes to a
    /// separator or a dot segment (`..%2F`, `%5C`), which a server may take as one, does not.
    pub fn admits(&self, url: &Url) -> bool {
        let p = match self {
            UrlPrefix::Scheme(s) => return *s == url.scheme && url.below(0).is_none(),
            UrlPrefix::Url(p) => p,
        };
        if p.scheme != url.scheme || p.authority != url.authority {
            return false;
        }
        let dir = p.path.last().is_some_and(String::is_empty);
        let own = &p.path[..p.path.len() - usize::from(dir)];
        if url.path.len() < own.len() || url.path[..own.len()] != *own {
            return false;
        }
        if dir && url.path.len() == own.len() {
            return false;
        }
        if !p.tail.is_empty() && (p.path != url.path || !url.tail.starts_with(&p.tail)) {
            return false;
        }
        url.below(own.len()).is_none()
    }
}

impl std::fmt::Display for UrlPrefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UrlPrefix::Scheme(s) => write!(f, "{s}://"),
            UrlPrefix::Url(u) => u.fmt(f),
        }
    }
}

impl Url {
    /// The first path segment from the `from`th that decodes to a separator or a dot segment.
    pub fn below(&self, from: usize) -> Option<&str> {
        self.path.iter().skip(from).map(String::as_str).find(|s| {
            let d = decode(s);
            d.contains(&b'/') || d.contains(&b'\\') || d == b"." || d == b".."
        })
    }

    /// `scheme://host/`: the root of the URL's host.
    pub fn root(&self) -> String {
        match &self.authority {
            Some(a) => format!("{}://{a}/", self.scheme),
            None => format!("{}:/", self.scheme),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn href(url: &str) -> String {
        parse_url(url)
            .map(|u| u.to_string())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn urls_read_as_the_whatwg_parser_reads_them() {
        for (url, want) in [
            ("http://h/ok/c/v.bin", "http://h/ok/c/v.bin"),
            ("HTTP://H.Example.ORG:80/a", "http://h.example.org/a"),
            ("https://h:443/a", "https://h/a"),
            ("https://h:0443/a", "https://h/a"),
            ("https://h:8443/a", "https://h:8443/a"),
            ("http://h", "http://h/"),
            ("http://h:/a", "http://h/a"),
            ("http://h/ok/c/../secret/v.bin", "http://h/ok/secret/v.bin"),
            (
                "http://h/ok/c/%2e%2e/secret/v.bin",
                "http://h/ok/secret/v.bin",
            ),
            (
                "http://h/ok/c/.%2E/secret/v.bin",
                "http://h/ok/secret/v.bin",
            ),
            ("http://h/ok/c/%2E./secret", "http://h/ok/secret"),
            ("http://h/ok/c/..\\secret/v.bin", "http://h/ok/secret/v.bin"),
            (
                "http://h/ok/c/.\t.\n/secret/v.bin",
                "http://h/ok/secret/v.bin",
            ),
            ("http://h/ok/c/./x/%2e/y", "http://h/ok/c/x/y"),
            ("http://h/a/..", "http://h/"),
            ("http://h/a/.", "http://h/a/"),
            ("http://h/../../x", "http://h/x"),
            ("  \u{1}http://h/a \u{7}", "http://h/a"),
            ("http:\\\\h\\a", "http://h/a"),
            ("http:h/a", "http://h/a"),
            ("http://%68/a", "http://h/a"),
            ("http://u:p@h/a", "http://u:p@h/a"),
            ("http://h\\@evil/a", "http://h/@evil/a"),
            (
                "http://h/a b/%20/%2F/%41?q r#f g",
                "http://h/a%20b/%20/%2F/%41?q%20r#f%20g",
            ),
            ("http://h/é", "http://h/%C3%A9"),
            ("http://[::1]:80/a", "http://[::1]/a"),
            ("s3://bucket/prefix/../v.bin", "s3://bucket/v.bin"),
            ("s3://Bucket/a\\..\\b", "s3://Bucket/a\\..\\b"),
            ("s3://bucket", "s3://bucket"),
            ("s3://b#c d/", "s3://b#c%20d/"),
            ("S3://b/%2e%2E/x", "s3://b/x"),
            ("s3:/x/../y", "s3:/y"),
            ("file:///C:/../x", "file:///C:/x"),
            ("file://localhost/a", "file:///a"),
        ] {
            assert_eq!(href(url), want, "{url:?}");
            // What it writes it reads as the same.
            assert_eq!(href(want), want, "{want:?}");
        }
        for (url, says) in [
            ("no/scheme", "no scheme"),
            ("1http://h/", "no scheme"),
            ("mailto:x@y", "hierarchical"),
            ("http:///", "no host"),
            ("http://h:99999/", "port"),
            ("http://h:8a/", "port"),
            ("http://h%2F/", "plain ASCII"),
            ("http://é/", "plain ASCII"),
            ("s3://a b/", "may not have"),
            ("http://[zz]/", "IPv6"),
        ] {
            let got = href(url);
            assert!(
                got.starts_with("error") && got.contains(says),
                "{url:?}: {got}"
            );
        }
    }

    #[test]
    fn prefixes_admit_by_whole_segments() {
        let admits = |prefix: &str, url: &str| {
            UrlPrefix::parse(prefix)
                .unwrap()
                .admits(&parse_url(url).unwrap())
        };
        for (prefix, url) in [
            ("http://h/ok/c/", "http://h/ok/c/v.bin"),
            ("http://h/ok/c/", "http://H:80/ok/c/d/v.bin"),
            ("http://h/ok/c/", "http://h/ok/c/x/../v.bin"),
            ("http://h/ok/c/", "http://h/ok/c/%20v.bin?x=1"),
            ("http://h/ok/c", "http://h/ok/c"),
            ("http://h/ok/c", "http://h/ok/c/v.bin"),
            ("HTTP://h:80/ok/./c/", "http://h/ok/c/v"),
            ("http://h", "http://h/a"),
            ("s3://", "s3://any/key"),
            ("s3://b", "s3://b/key"),
            ("s3://b/", "s3://b/key"),
        ] {
            assert!(admits(prefix, url), "{prefix} {url}");
        }
        for (prefix, url) in [
            ("http://h/ok/c/", "http://h/ok/c/../secret/v.bin"),
            ("http://h/ok/c/", "http://h/ok/c/%2e%2e/secret/v.bin"),
            ("http://h/ok/c/", "http://h/ok/c/.%2E/secret/v.bin"),
            ("http://h/ok/c/", "http://h/ok/c/..\\secret/v.bin"),
            ("http://h/ok/c/", "http://h/ok/c/.\t.\n/secret/v.bin"),
            ("http://h/ok/c/", "http://h/ok/c/..%2Fsecret/v.bin"),
            ("http://h/ok/c/", "http://h/ok/c/x%5C..%5C..%5Cy"),
            ("http://h/ok/c/", "http://h/ok/c"),
            ("http://h/ok/c", "http://h/ok/cx/v.bin"),
            ("http://h/ok/c/", "https://h/ok/c/v.bin"),
            ("http://h/ok/c/", "http://h:8080/ok/c/v.bin"),
            ("http://h/ok/c/", "http://u@h/ok/c/v.bin"),
            ("http://h/ok/c/", "http://h.evil/ok/c/v.bin"),
            ("s3://b/", "s3://bb/key"),
            ("s3://", "gs://b/key"),
        ] {
            assert!(!admits(prefix, url), "{prefix} {url}");
        }
    }

    #[test]
    fn bucket_names_cannot_name_another_host() {
        for url in [
            "s3://evil.com#/k",
            "s3://evil.com?/k",
            "gs://a@b/k",
            "s3://h\\x/k",
        ] {
            let err = resolve_url(url, None, &[]).unwrap_err();
            assert!(err.contains("a bucket's name"), "{url}: {err}");
        }
    }
}
