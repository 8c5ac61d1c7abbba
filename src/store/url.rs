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
