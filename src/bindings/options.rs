//! The options objects of the JS API (`open()`, reads, `FetchStore`, caches), each read by one
//! parser (`Options`) that names the option and what it must be when a value is wrong. An option
//! that is `undefined` or `null` is absent; so is every option of an absent options object.

use super::fetch::FetchClient;
use super::guarded;
use super::js::set;
use crate::array::ReadOptions;
use crate::collections::buffer::MAX_BUFFER;
use crate::error::ZarrError;
use crate::hierarchy::node::OpenOptions;
use crate::limits::Limits;
use crate::store::counting::Counts;
use crate::store::http::{HttpOptions, SuffixRanges};
#[cfg(feature = "icechunk")]
use crate::store::icechunk::{IcechunkOptions, Version};
#[cfg(feature = "vectors")]
use crate::store::listing::Listing;
#[cfg(feature = "references")]
use crate::store::reference::ReferenceOptions;
use js_sys::{Function, Object, Reflect};
use std::fmt::Display;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The largest integer a JS number holds exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// One options object, read an option at a time. Errors start with `prefix` ("read option ",
/// "FetchStore option ", ...) and name the option.
struct Options<'a> {
    object: &'a JsValue,
    prefix: &'static str,
}

impl<'a> Options<'a> {
    fn new(object: &'a JsValue, prefix: &'static str) -> Self {
        Options { object, prefix }
    }

    /// The value of option `name`, unless it is absent.
    fn get(&self, name: &str) -> Option<JsValue> {
        if self.object.is_undefined() || self.object.is_null() {
            return None;
        }
        Reflect::get(self.object, &name.into())
            .ok()
            .filter(|v| !v.is_undefined() && !v.is_null())
    }

    /// An error about this object's options: `what` after the prefix (a TypeError in JS).
    fn error(&self, what: impl Display) -> ZarrError {
        ZarrError::argument(format!("{}{what}", self.prefix), false)
    }

    /// A value of the right type that the option does not take (a RangeError in JS).
    fn range_error(&self, what: impl Display) -> ZarrError {
        ZarrError::argument(format!("{}{what}", self.prefix), true)
    }

    /// A value of option `name` that `parse` takes, else the error "`name` must be `expected`".
    fn parsed<T>(
        &self,
        name: &str,
        expected: &str,
        parse: impl FnOnce(&JsValue) -> Option<T>,
    ) -> Result<Option<T>, ZarrError> {
        let Some(value) = self.get(name) else {
            return Ok(None);
        };
        self.checked(name, &value, expected, parse).map(Some)
    }

    /// `value`, given for option `name`, as `parse` takes it, else "`name` must be `expected`".
    fn checked<T>(
        &self,
        name: &str,
        value: &JsValue,
        expected: &str,
        parse: impl FnOnce(&JsValue) -> Option<T>,
    ) -> Result<T, ZarrError> {
        parse(value).ok_or_else(|| self.error(format!("{name} must be {expected}")))
    }

    fn bool(&self, name: &str) -> Result<Option<bool>, ZarrError> {
        self.parsed(name, "true or false", JsValue::as_bool)
    }

    /// An integer from `min` to `max`.
    fn integer(&self, name: &str, min: f64, max: f64) -> Result<Option<f64>, ZarrError> {
        let Some(value) = self.get(name) else {
            return Ok(None);
        };
        self.integer_value(name, &value, min, max).map(Some)
    }

    /// `value`, given for option `name`, as an integer from `min` to `max`.
    fn integer_value(
        &self,
        name: &str,
        value: &JsValue,
        min: f64,
        max: f64,
    ) -> Result<f64, ZarrError> {
        let expected = format!(
            "an integer from {} to {}",
            guarded::number(min),
            guarded::number(max)
        );
        let n = self.checked(name, value, &expected, JsValue::as_f64)?;
        if n.fract() == 0.0 && (min..=max).contains(&n) {
            Ok(n)
        } else {
            Err(self.range_error(format!(
                "{name} must be {expected}, not {}",
                guarded::number(n)
            )))
        }
    }

    fn function(&self, name: &str) -> Result<Option<Function>, ZarrError> {
        self.parsed(name, "a function", |v| {
            v.is_function().then(|| v.clone().unchecked_into())
        })
    }

    /// One of `choices` by its name (`expected` lists them for the error).
    fn choice<T: Copy>(
        &self,
        name: &str,
        choices: &[(&str, T)],
        expected: &str,
    ) -> Result<Option<T>, ZarrError> {
        self.parsed(name, expected, |v| {
            let s = v.as_string()?;
            choices.iter().find(|(n, _)| *n == s).map(|&(_, t)| t)
        })
    }

    /// An object's own properties as (name, value) pairs.
    fn entries(&self, name: &str) -> Result<Option<Vec<(String, JsValue)>>, ZarrError> {
        let Some(value) = self.get(name) else {
            return Ok(None);
        };
        if !value.is_object() {
            return Err(self.error(format!("{name} must be an object")));
        }
        entries(&value)
            .map(Some)
            .map_err(|e| self.error(format!("{name}: {e}")))
    }
}

/// An object's own enumerable properties as (name, value) pairs: at most a few hundred, since no
/// options object has more.
fn entries(object: &JsValue) -> Result<Vec<(String, JsValue)>, String> {
    guarded::entries(object, 256)
}

/// `get()`'s options.
pub struct GetOptions {
    pub signal: JsValue,
    pub concurrency: usize,
    pub on_progress: Option<Function>,
    /// A typed array to write the result into.
    pub out: Option<JsValue>,
    /// This read's own limits, where given (else the node's).
    pub max_chunks: Option<u64>,
    pub max_bytes: Option<u64>,
    /// The narrow types' stored bit patterns rather than their widened values.
    pub bits: bool,
}

/// `{ signal, concurrency, onProgress, out, maxChunks, maxBytes, bits }`, all optional.
pub fn read_options(options: &JsValue) -> Result<GetOptions, ZarrError> {
    let o = Options::new(options, "read option ");
    let count = |name: &str| {
        o.parsed(name, "a non-negative integer", |v| {
            v.as_f64()
                .filter(|n| n.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER).contains(n))
                .map(|n| n as u64)
        })
    };
    Ok(GetOptions {
        signal: o.get("signal").unwrap_or(JsValue::UNDEFINED),
        concurrency: o
            .integer("concurrency", 1.0, 1024.0)?
            .map_or(ReadOptions::default().concurrency, |n| n as usize),
        on_progress: o.function("onProgress")?,
        out: o.get("out"),
        max_chunks: count("maxChunks")?,
        max_bytes: count("maxBytes")?,
        bits: o.bool("bits")?.unwrap_or(false),
    })
}

/// `set()`'s options.
#[cfg(feature = "write")]
pub struct SetOptions {
    pub signal: JsValue,
    pub on_progress: Option<Function>,
    pub write_empty_chunks: bool,
    pub concurrency: usize,
}

/// `set()`'s options: `{ signal, onProgress, writeEmptyChunks, concurrency }`.
#[cfg(feature = "write")]
pub fn set_options(options: &JsValue) -> Result<SetOptions, ZarrError> {
    let o = Options::new(options, "write option ");
    Ok(SetOptions {
        signal: o.get("signal").unwrap_or(JsValue::UNDEFINED),
        on_progress: o.function("onProgress")?,
        write_empty_chunks: o.bool("writeEmptyChunks")?.unwrap_or(false),
        concurrency: o.integer("concurrency", 1.0, 1024.0)?.map_or(
            crate::array::write::WriteOptions::default().concurrency,
            |n| n as usize,
        ),
    })
}

/// Calls `onProgress({ chunksDone, chunksTotal, bytesFetched, requests })`. What the callback
/// throws is its own business: the read goes on.
pub fn report_progress(f: &Function, done: u64, total: u64, counts: &Counts) {
    let obj = Object::new();
    let _ = set(&obj, "chunksDone", done as f64);
    let _ = set(&obj, "chunksTotal", total as f64);
    let _ = set(&obj, "bytesFetched", counts.bytes.get() as f64);
    let _ = set(&obj, "requests", counts.requests.get() as f64);
    let _ = f.call1(&JsValue::NULL, &obj);
}

/// A store's `cacheSize` option: bytes of recent values to keep (default 0, none).
pub fn cache_size(options: &JsValue) -> Result<usize, ZarrError> {
    bytes_option(options, "cacheSize")
}

/// `open()`'s `chunkCacheSize`: bytes of decoded chunks each array keeps (default 0, none).
pub fn chunk_cache_size(options: &JsValue) -> Result<usize, ZarrError> {
    bytes_option(options, "chunkCacheSize")
}

/// A size in bytes from `options[name]`, where given (default 0).
fn bytes_option(options: &JsValue, name: &str) -> Result<usize, ZarrError> {
    let o = Options::new(options, "option ");
    let bytes = o.parsed(name, "a number of bytes", |v| {
        v.as_f64()
            .filter(|n| n.fract() == 0.0 && (0.0..=MAX_BUFFER as f64).contains(n))
    })?;
    Ok(bytes.map_or(0, |n| n as usize))
}

/// `open()`'s options beside the path and the signal: `{ zarrFormat: 1 | 2 | 3, consolidated, limits }`.
pub fn open_options(options: &JsValue) -> Result<OpenOptions, ZarrError> {
    let o = Options::new(options, "open option ");
    let mut open = OpenOptions::default();
    if let Some(v) = o.get("zarrFormat") {
        open.zarr_format = Some(match v.as_f64() {
            Some(1.0) => 1,
            Some(2.0) => 2,
            Some(3.0) => 3,
            _ => {
                return Err(o.error(format!(
                    "zarrFormat must be 1, 2 or 3, not {}",
                    guarded::show(&v)
                )))
            }
        });
    }
    open.consolidated = o.bool("consolidated")?;
    if let Some(v) = o.get("limits") {
        open.limits = limits(&v)?;
    }
    Ok(open)
}

/// `open()`'s `limits`: `{ maxChunksPerRead, maxBytesPerRead, maxDecodedChunkBytes, maxItemBytes }`,
/// each optional (the default where absent). A name it does not know is an error: a misspelt
/// limit must not be silently ignored.
fn limits(value: &JsValue) -> Result<Limits, ZarrError> {
    let o = Options::new(value, "open option limits: ");
    if !value.is_object() {
        return Err(o.error("must be an object"));
    }
    let mut limits = Limits::default();
    for (name, value) in entries(value).map_err(|e| o.error(e))? {
        // A limit given as undefined is the default; null is not a number of anything.
        if value.is_undefined() {
            continue;
        }
        let max = match name.as_str() {
            "maxChunksPerRead" | "maxBytesPerRead" => MAX_SAFE_INTEGER,
            "maxDecodedChunkBytes" | "maxItemBytes" => MAX_BUFFER as f64,
            _ => {
                return Err(o.error(format!(
                    "unknown limit {:?} (maxChunksPerRead, maxBytesPerRead, maxDecodedChunkBytes, maxItemBytes)",
                    name.chars().take(40).collect::<String>()
                )))
            }
        };
        let n = o.integer_value(&name, &value, 1.0, max)?;
        match name.as_str() {
            "maxChunksPerRead" => limits.max_chunks_per_read = n as u64,
            "maxBytesPerRead" => limits.max_bytes_per_read = n as u64,
            "maxDecodedChunkBytes" => limits.max_decoded_chunk_bytes = n as usize,
            _ => limits.max_item_bytes = n as usize,
        }
    }
    Ok(limits)
}

/// The FetchStore's options: `{ suffixRequests, treat403AsMissing, retries, maxRequests,
/// mergeGap, indexCacheSize, headers, credentials, redirect, timeout, maxObjectBytes, fetch,
/// listing }`, all optional.
pub fn fetch_options(options: &JsValue) -> Result<(HttpOptions, FetchClient), ZarrError> {
    let o = Options::new(options, "FetchStore option ");
    let mut http = HttpOptions::default();
    let mut client = FetchClient::default();
    // true or false as the caller gave it; "head" where index.js chose HEAD first for a page of
    // another origin (see suffixRangesFor in stores.js).
    if let Some(mode) = o.parsed("suffixRequests", "true or false", |v| {
        match (v.as_bool(), v.as_string().as_deref()) {
            (Some(true), _) => Some(SuffixRanges::Ask),
            (Some(false), _) => Some(SuffixRanges::Never),
            (_, Some("head")) => Some(SuffixRanges::HeadFirst),
            _ => None,
        }
    })? {
        http.suffix_ranges = mode;
    }
    if o.bool("treat403AsMissing")? == Some(true) {
        http.missing_statuses.push(403);
    }
    if let Some(n) = o.integer("retries", 0.0, 20.0)? {
        http.retries = n as u32;
    }
    if let Some(n) = o.integer("maxRequests", 1.0, 1024.0)? {
        http.max_requests = n as usize;
    }
    if let Some(n) = o.integer("mergeGap", 0.0, 1_000_000_000.0)? {
        http.hints.merge_gap = n as u64;
    }
    if let Some(n) = o.integer("indexCacheSize", 1.0, 10_000_000.0)? {
        http.hints.index_cache = n as usize;
    }
    for (name, value) in o.entries("headers")?.unwrap_or_default() {
        let value = value
            .as_string()
            .ok_or_else(|| o.error("headers must map names to strings"))?;
        client.headers.push((name, value));
    }
    use web_sys::{RequestCredentials as Credentials, RequestRedirect as Redirect};
    client.credentials = o.choice(
        "credentials",
        &[
            ("omit", Credentials::Omit),
            ("same-origin", Credentials::SameOrigin),
            ("include", Credentials::Include),
        ],
        "\"omit\", \"same-origin\" or \"include\"",
    )?;
    client.redirect = o.choice(
        "redirect",
        &[
            ("follow", Redirect::Follow),
            ("error", Redirect::Error),
            ("manual", Redirect::Manual),
        ],
        "\"follow\", \"error\" or \"manual\"",
    )?;
    if let Some(n) = o.integer("timeout", 0.0, 3_600_000.0)? {
        http.idle_timeout_ms = n as u32;
    }
    if let Some(n) = o.integer("maxObjectBytes", 1.0, MAX_BUFFER as f64)? {
        http.max_object_bytes = n as u64;
    }
    client.fetch = o.function("fetch")?;
    http.writable = o.bool("writable")? == Some(true);
    // Only Zarr Vectors' link arrays are ever listed.
    #[cfg(feature = "vectors")]
    {
        http.listing = o
            .parsed(
                "listing",
                "\"auto\", \"index\", \"none\", { s3: bucket URL } or { gcs: bucket URL } (http or https; GCS's as <endpoint>/<bucket>)",
                listing,
            )?
            .flatten();
    }
    Ok((http, client))
}

/// The ReferenceStore's options: the FetchStore's (for the reference file and its targets) and
/// `{ maxReferenceBytes, maxRefs, urlMap, baseUrl }`, all optional.
#[cfg(feature = "references")]
pub fn reference_options(options: &JsValue) -> Result<(ReferenceOptions, FetchClient), ZarrError> {
    let (http, client) = fetch_options(options)?;
    let o = Options::new(options, "ReferenceStore option ");
    let mut refs = ReferenceOptions {
        http,
        ..ReferenceOptions::default()
    };
    if let Some(n) = o.integer("maxReferenceBytes", 1.0, MAX_BUFFER as f64)? {
        refs.max_file_bytes = n as u64;
    }
    if let Some(n) = o.integer("maxRefs", 1.0, MAX_SAFE_INTEGER)? {
        refs.max_refs = n as u64;
    }
    for (from, to) in o.entries("urlMap")?.unwrap_or_default() {
        let to = to
            .as_string()
            .ok_or_else(|| o.error("urlMap must map URL prefixes to strings"))?;
        refs.url_map.push((from, to));
    }
    refs.base_url = o.parsed("baseUrl", "a string", JsValue::as_string)?;
    Ok((refs, client))
}

/// The IcechunkStore's options: the FetchStore's (for the repository's objects and the virtual
/// chunks), `branch`, `tag` or `snapshot` (at most one; the branch "main" without any),
/// `allowedContainers` (URL prefixes), `urlMap` and `maxMetadataBytes`.
#[cfg(feature = "icechunk")]
pub fn icechunk_options(options: &JsValue) -> Result<(IcechunkOptions, FetchClient), ZarrError> {
    let (http, client) = fetch_options(options)?;
    let o = Options::new(options, "IcechunkStore option ");
    let mut ice = IcechunkOptions {
        http,
        ..IcechunkOptions::default()
    };
    let mut versions = Vec::new();
    for (name, make) in [
        ("branch", Version::Branch as fn(String) -> Version),
        ("tag", Version::Tag),
        ("snapshot", Version::Snapshot),
    ] {
        if let Some(v) = o.parsed(name, "a string", JsValue::as_string)? {
            versions.push(name);
            ice.version = make(v);
        }
    }
    if versions.len() > 1 {
        return Err(o.range_error(format!(
            "{}: give at most one of branch, tag and snapshot",
            versions.join(" and ")
        )));
    }
    let strings = |v: &JsValue| -> Option<Vec<String>> {
        js_sys::Array::is_array(v).then(|| {
            js_sys::Array::from(v)
                .iter()
                .map(|s| s.as_string())
                .collect()
        })?
    };
    ice.allowed_containers = o
        .parsed(
            "allowedContainers",
            "an array of URL prefixes (strings)",
            strings,
        )?
        .unwrap_or_default();
    for (from, to) in o.entries("urlMap")?.unwrap_or_default() {
        let to = to
            .as_string()
            .ok_or_else(|| o.error("urlMap must map URL prefixes to strings"))?;
        ice.url_map.push((from, to));
    }
    if let Some(n) = o.integer("maxMetadataBytes", 1.0, MAX_BUFFER as f64)? {
        ice.max_metadata_bytes = n as u64;
    }
    Ok((ice, client))
}

/// The `listing` option as a listing; Some(None) is "auto" (told by the URL's host).
#[cfg(feature = "vectors")]
fn listing(value: &JsValue) -> Option<Option<Listing>> {
    if let Some(name) = value.as_string() {
        return match name.as_str() {
            "auto" => Some(None),
            "index" => Some(Some(Listing::IndexPages)),
            "none" => Some(Some(Listing::None)),
            _ => None,
        };
    }
    let url = |kind: &str| {
        Reflect::get(value, &kind.into())
            .ok()
            .and_then(|u| u.as_string())
            .filter(|u| u.starts_with("http://") || u.starts_with("https://"))
    };
    match (url("s3"), url("gcs")) {
        (Some(bucket), None) => Some(Some(Listing::S3 { bucket })),
        (None, Some(bucket)) => Listing::gcs(&bucket).map(Some),
        _ => None,
    }
}
