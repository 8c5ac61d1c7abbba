//! kerchunk's references: a JSON file that maps each Zarr key to its bytes inside other files
//! (HDF5, NetCDF-4, TIFF, GRIB archives read as Zarr without copying them), as fsspec's
//! `ReferenceFileSystem` reads it. Version 0 is a flat `{key: ref}` object; version 1 is
//! `{"version": 1, "templates": {...}, "gen": [...], "refs": {...}}`. A ref is inline text, inline
//! `base64:` bytes, a JSON object (its text), a whole file `[url]` or a byte range
//! `[url, offset, length]`. Target URLs are resolved against the reference file's URL; `s3://` and
//! `gs://` map to the buckets' public HTTPS endpoints, and a prefix map rewrites URLs first
//! (mirrors, tests). Byte ranges of one target file that reads ask for together are fetched in
//! one request where they lie within the merge gap of each other.
//!
//! The file is data a server controls: its size, its number of keys (generated ones counted before
//! they are made), its templates' nesting and every expression are bounded, and every error names
//! the reference file, the key and what was wrong.
//!
//! kerchunk's Parquet references are a directory instead (`store::parquet`): its `.zmetadata`
//! holds the metadata documents and is read on opening; each `<array>/refs.<i>.parq` holds the
//! references of `record_size` chunks and is fetched the first time a read needs one of them
//! (once, however many reads wait for it), then kept in a cache bounded by the reference file
//! size bound. Their targets resolve, and their ranges merge, as a JSON file's do.

use super::http::{HttpClient, HttpOptions, HttpStore};
use super::limit::Limiter;
use super::parquet::{Bounds, Entry, Layout, Record};
use super::single_flight::SingleFlight;
use super::span_batch::{fetch_batched, SpanBatches, SpanSource};
use super::template::{Template, Value};
use super::url::resolve_url;
use super::{ByteRange, ReadHints, ReadableStore};
use crate::error::{quote, quote_text, ErrorKind, Result, ZarrError};
use crate::json_text::JsonText;
use crate::metadata::json::ParseError;
use async_trait::async_trait;
use futures_util::future::FutureExt;
use serde_json::Value as Json;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

/// How a reference file is read and bounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceOptions {
    /// The largest reference file read (its body is refused as it arrives past this).
    pub max_file_bytes: u64,
    /// The most keys, written and generated together (a generator's are counted before any is
    /// made).
    pub max_refs: u64,
    /// How deep templates may use other templates.
    pub max_template_depth: usize,
    /// URL prefixes rewritten before anything else: `(from, to)`; the longest match wins.
    pub url_map: Vec<(String, String)>,
    /// The URL relative targets resolve against when the references were not read from one.
    pub base_url: Option<String>,
    /// How the target files (and the reference file) are requested.
    pub http: HttpOptions,
}

/// The largest text a template may render to, and so the longest URL, key, offset or length that
/// templates render (each is refused before it grows past this).
const MAX_TEMPLATE_TEXT: usize = 64 * 1024;

/// The most text templates may render in all while a file is read: templates, templated URLs
/// (each distinct URL text rendered once) and generators' keys, URLs, offsets and lengths. It
/// bounds the work templates make (a rendered URL is read about ten times as it is resolved and
/// kept: 8 MiB of URLs take about 100 ms natively) and what they add to memory (each rendered
/// URL is kept at most three times: 24 MiB), whatever the file's size.
const MAX_RENDERED_TEXT: usize = 8 << 20;

/// The most keys generators (`gen`) may make in all: they are made when the file is read, about
/// a microsecond each natively, so this keeps a file's generators within about 100 ms.
const MAX_GENERATED_KEYS: u64 = 100_000;

/// A reference file holds at most the million lists and objects a metadata document may
/// (`metadata::json::MAX_CONTAINERS`), and one more for every this many bytes of it: a reference
/// as kerchunk writes it (`"key": ["{{u}}", offset, length]`) is a list of more than 32 bytes, so
/// files of millions of references read, while a text of small lists (`[1],`, up to about 400
/// bytes each once parsed) cannot make the parser allocate more than about twelve times its size.
const BYTES_PER_CONTAINER: usize = 32;

/// Bytes of a reference file parsed between two looks at the clock (see
/// `metadata::json::parse_yielding`).
const JSON_PART: usize = 4 << 10;

/// Bytes of a reference file scanned for lists and objects between two looks at the clock.
const COUNT_PART: usize = 1 << 20;

/// Gives the event loop a turn, where the work has taken a slice of time, every so many keys
/// (a look at the clock costs more than a key).
async fn turn(n: usize) {
    if n % 256 == 255 {
        crate::host::yield_if_busy().await;
    }
}

/// The lists and objects a reference file of `len` bytes may hold.
fn max_containers(len: usize) -> usize {
    crate::metadata::json::MAX_CONTAINERS + len / BYTES_PER_CONTAINER
}

impl Default for ReferenceOptions {
    fn default() -> Self {
        ReferenceOptions {
            max_file_bytes: 256 << 20,
            max_refs: 10_000_000,
            max_template_depth: 8,
            url_map: Vec::new(),
            base_url: None,
            http: HttpOptions::default(),
        }
    }
}

/// What one key refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ref {
    Inline(Box<[u8]>),
    /// The whole target file `targets[n]`.
    Whole(u32),
    Span {
        target: u32,
        offset: u64,
        length: u64,
    },
}

/// A target file: the URL the references give, and the http(s) URL it is read from (or why it
/// cannot be read).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    given: String,
    url: std::result::Result<String, String>,
}

/// A parsed reference file.
#[derive(Debug)]
pub struct References {
    /// The reference file's URL, or what stands for it in messages.
    label: String,
    refs: HashMap<Box<str>, Ref>,
    targets: Vec<Target>,
}

impl References {
    /// Parses the reference file `bytes`, read from `url` (None: given as an object, named
    /// by `options.base_url` in messages where there is one).
    ///
    /// The work yields to the event loop whenever it has taken a slice of time
    /// (`host::yield_if_busy`): reading a file of a million references, or making a generator's
    /// hundred thousand keys, takes many short turns rather than one long one.
    pub async fn parse(
        bytes: &[u8],
        url: Option<&str>,
        options: &ReferenceOptions,
    ) -> Result<References> {
        let base = url.or(options.base_url.as_deref());
        let label = base.unwrap_or("the reference object").to_string();
        let bad = |what: String| ZarrError::metadata(&format!("the references {label}"), what);
        if bytes.len() as u64 > options.max_file_bytes {
            return Err(bad(format!(
                "{} bytes, more than the {} allowed (the maxReferenceBytes option)",
                bytes.len(),
                options.max_file_bytes
            )));
        }
        // Lists and objects bounded before anything is parsed (see `BYTES_PER_CONTAINER`),
        // counted in parts.
        let allowed = max_containers(bytes.len());
        let mut strings = crate::metadata::json::Strings::default();
        let mut containers = 0usize;
        for part in bytes.chunks(COUNT_PART) {
            containers += part
                .iter()
                .filter(|&&b| strings.outside(b) && (b == b'[' || b == b'{'))
                .count();
            crate::host::yield_if_busy().await;
        }
        if containers > allowed {
            return Err(bad(format!(
                "{containers} lists and objects, more than the {allowed} a reference file of {} bytes may hold (a million, and one for every {BYTES_PER_CONTAINER} bytes)",
                bytes.len()
            )));
        }
        // The `refs` object holds a list per reference: it has fewer entries than the text has
        // lists and objects, and gets room for that many once it is large.
        let mut parse = crate::metadata::json::Parse::new(bytes, true)
            .max_containers(allowed)
            .object_room(containers);
        let json: Json = loop {
            match parse.advance(JSON_PART) {
                Ok(Some(json)) => break json,
                Ok(None) => crate::host::yield_if_busy().await,
                Err(ParseError::Syntax(e)) => return Err(bad(format!("not JSON: {e}"))),
                Err(ParseError::TooManyContainers(_)) => {
                    return Err(bad(format!(
                        "more than the {allowed} lists and objects a reference file of {} bytes may hold (a million, and one for every {BYTES_PER_CONTAINER} bytes)",
                        bytes.len()
                    )))
                }
            }
        };
        let Json::Object(top) = json else {
            return Err(bad(format!(
                "a reference file is a JSON object, not {}",
                kind_of(&json)
            )));
        };
        let mut parser = Parser {
            label: label.clone(),
            base: base.map(str::to_string),
            options,
            templates: HashMap::new(),
            interned: HashMap::new(),
            rendered_urls: HashMap::new(),
            rendered: std::cell::Cell::new(0),
            targets: Vec::new(),
        };
        let refs = match top.get("version") {
            None => parser.version0(top).await?,
            Some(v) if v.as_u64() == Some(1) => parser.version1(top).await?,
            Some(v) => {
                return Err(bad(format!(
                    "version {} is not a reference version this reader knows (0, without \"version\", or 1)",
                    quote(v)
                )))
            }
        };
        Ok(References {
            label,
            refs,
            targets: parser.targets,
        })
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.refs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.refs.is_empty()
    }

    /// The reference file's URL, or what stands for it.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// Where the bytes of `key` are: its target's URL (or why it has none) and range, or None
    /// for an inline value or a missing key. For tests and messages.
    pub fn target_of(&self, key: &str) -> Option<(TargetUrl<'_>, Option<Range<u64>>)> {
        let (t, range) = match self.refs.get(key)? {
            Ref::Inline(_) => return None,
            Ref::Whole(t) => (t, None),
            Ref::Span {
                target,
                offset,
                length,
            } => (target, Some(*offset..offset + length)),
        };
        let url = self.targets[*t as usize]
            .url
            .as_deref()
            .map_err(|e| e.as_str());
        Some((url, range))
    }
}

/// A target's URL, or why it has none.
pub type TargetUrl<'a> = std::result::Result<&'a str, &'a str>;

fn kind_of(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

type JsonMap = serde_json::Map<String, Json>;

struct Parser<'a> {
    label: String,
    base: Option<String>,
    options: &'a ReferenceOptions,
    /// The file's templates, rendered (a template may use others).
    templates: HashMap<String, String>,
    /// Target index by the URL as written (after templates).
    interned: HashMap<String, u32>,
    /// Target index by a templated URL's text before rendering: each is rendered once.
    rendered_urls: HashMap<String, u32>,
    /// The text templates have rendered so far (`MAX_RENDERED_TEXT`).
    rendered: std::cell::Cell<usize>,
    targets: Vec<Target>,
}

impl Parser<'_> {
    fn bad(&self, what: impl std::fmt::Display) -> ZarrError {
        ZarrError::metadata(&format!("the references {}", self.label), what)
    }

    fn bad_key(&self, key: &str, what: impl std::fmt::Display) -> ZarrError {
        self.bad(format!("key \"{}\": {what}", quote_text(key)))
    }

    /// `text`, rendered, counted against `MAX_RENDERED_TEXT`.
    fn spend(&self, text: String) -> std::result::Result<String, String> {
        let total = self.rendered.get() + text.len();
        if total > MAX_RENDERED_TEXT {
            return Err(format!(
                "templates render more than {MAX_RENDERED_TEXT} bytes in all in one reference file"
            ));
        }
        self.rendered.set(total);
        Ok(text)
    }

    fn check_count(&self, count: u64) -> Result<()> {
        if count > self.options.max_refs {
            return Err(self.bad(format!(
                "{count} keys, more than the {} allowed (the maxRefs option)",
                self.options.max_refs
            )));
        }
        Ok(())
    }

    /// The references of a version 0 file, `top` taken apart as they are made: each parsed
    /// reference is freed in the turn that made it (a million freed at the end took 100 ms and
    /// more in one piece).
    async fn version0(&mut self, top: JsonMap) -> Result<HashMap<Box<str>, Ref>> {
        self.check_count(top.len() as u64)?;
        let mut refs = HashMap::with_capacity(top.len());
        for (n, (key, value)) in top.into_iter().enumerate() {
            let r = self.reference(&key, &value, false)?;
            refs.insert(key.into_boxed_str(), r);
            turn(n).await;
        }
        Ok(refs)
    }

    /// The references of a version 1 file, its `refs` taken apart as in `version0`.
    async fn version1(&mut self, mut top: JsonMap) -> Result<HashMap<Box<str>, Ref>> {
        let refs_json = match top.remove("refs") {
            None | Some(Json::Null) => JsonMap::new(),
            Some(Json::Object(r)) => r,
            Some(v) => {
                return Err(self.bad(format!("\"refs\" must be an object, not {}", kind_of(&v))))
            }
        };
        let empty = JsonMap::new();
        let section = |name: &str| match top.get(name) {
            None | Some(Json::Null) => Ok(None),
            Some(v) => Ok(Some(v)),
        };
        let templates = match section("templates")? {
            None => &empty,
            Some(Json::Object(t)) => t,
            Some(v) => {
                return Err(self.bad(format!(
                    "\"templates\" must be an object, not {}",
                    kind_of(v)
                )))
            }
        };
        self.templates(templates)?;
        let gens: &[Json] = match section("gen")? {
            None => &[],
            Some(Json::Array(g)) => g,
            Some(v) => {
                return Err(self.bad(format!("\"gen\" must be an array, not {}", kind_of(v))))
            }
        };
        // Every generator's keys counted before any is made.
        let mut generators = Vec::with_capacity(gens.len());
        let mut total = refs_json.len() as u64;
        self.check_count(total)?;
        let mut generated = 0u64;
        for (n, g) in gens.iter().enumerate() {
            let generator = self.generator(n, g)?;
            total = total.saturating_add(generator.count);
            self.check_count(total)?;
            generated = generated.saturating_add(generator.count);
            if generated > MAX_GENERATED_KEYS {
                return Err(self.bad(format!(
                    "gen[{n}]: the generators would make {generated} keys, more than the {MAX_GENERATED_KEYS} a reference file's generators may make (they are made when it is read)"
                )));
            }
            generators.push(generator);
        }
        let mut refs = HashMap::with_capacity(total.min(1 << 20) as usize);
        for (n, (key, value)) in refs_json.into_iter().enumerate() {
            let r = self.reference(&key, &value, true)?;
            refs.insert(key.into_boxed_str(), r);
            turn(n).await;
        }
        for g in &generators {
            self.expand(g, &mut refs).await?;
        }
        Ok(refs)
    }

    /// Renders every template, each once (templates may use other templates, as deep as
    /// `max_template_depth`).
    fn templates(&mut self, templates: &JsonMap) -> Result<()> {
        let mut raw = HashMap::with_capacity(templates.len());
        for (name, value) in templates {
            let Json::String(text) = value else {
                return Err(self.bad(format!(
                    "template \"{}\" must be a string, not {}",
                    quote_text(name),
                    kind_of(value)
                )));
            };
            raw.insert(name.clone(), text.clone());
        }
        let mut done = HashMap::with_capacity(raw.len());
        for name in raw.keys() {
            self.render_template(name, &raw, &mut done, 0)?;
        }
        self.templates = done.into_iter().map(|(k, (text, _))| (k, text)).collect();
        Ok(())
    }

    /// Template `name` rendered, and how deep it uses other templates (0: it uses none).
    /// `depth` is how deep the rendering that asks for it is (it stops a cycle).
    fn render_template(
        &self,
        name: &str,
        raw: &HashMap<String, String>,
        done: &mut HashMap<String, (String, usize)>,
        depth: usize,
    ) -> Result<(String, usize)> {
        if let Some(rendered) = done.get(name) {
            return Ok(rendered.clone());
        }
        let max = self.options.max_template_depth;
        let bad = |what: String| self.bad(format!("template \"{}\": {what}", quote_text(name)));
        let too_deep = || {
            bad(format!(
                "templates use each other deeper than {max} (a template that uses itself?)"
            ))
        };
        if depth > max {
            return Err(too_deep());
        }
        let text = &raw[name];
        let template = Template::parse(text).map_err(bad)?;
        let mut values = HashMap::new();
        let mut height = 0;
        for used in template.names() {
            if raw.contains_key(used) && !values.contains_key(used) {
                let (v, h) = self.render_template(used, raw, done, depth + 1)?;
                height = height.max(h + 1);
                values.insert(used.to_string(), v);
            }
        }
        if height > max {
            return Err(too_deep());
        }
        let rendered = template
            .render(
                &|n| Ok(values.get(n).map(|t: &String| Value::Text(t))),
                MAX_TEMPLATE_TEXT,
            )
            .and_then(|t| self.spend(t))
            .map_err(bad)?;
        done.insert(name.to_string(), (rendered.clone(), height));
        Ok((rendered, height))
    }

    /// One ref of `key`; `templated`: URLs may use the file's templates (version 1).
    fn reference(&mut self, key: &str, value: &Json, templated: bool) -> Result<Ref> {
        match value {
            Json::String(s) => match s.strip_prefix("base64:") {
                Some(b64) => crate::data_type::base64::decode(b64.as_bytes())
                    .map(|b| Ref::Inline(b.into()))
                    .map_err(|e| self.bad_key(key, format!("its base64 value: {e}"))),
                None => Ok(Ref::Inline(s.as_bytes().into())),
            },
            // An object is its JSON text (fsspec's json.dumps of it).
            Json::Object(_) => Ok(Ref::Inline(JsonText(value).to_string().into_bytes().into())),
            Json::Array(parts) => {
                let url = match parts.first() {
                    Some(Json::String(u)) => u,
                    Some(Json::Null) => {
                        return Err(self.bad_key(
                            key,
                            "a null target URL (fsspec's \"target\" option) is not supported",
                        ))
                    }
                    Some(v) => {
                        return Err(self.bad_key(
                            key,
                            format!("its target URL must be a string, not {}", kind_of(v)),
                        ))
                    }
                    None => return Err(self.bad_key(key, "an empty reference []")),
                };
                let target = if templated && url.contains("{{") {
                    match self.rendered_urls.get(url) {
                        Some(&target) => target,
                        None => {
                            let templates = &self.templates;
                            let rendered = Template::parse(url)
                                .and_then(|t| {
                                    t.render(
                                        &|n| Ok(templates.get(n).map(|t| Value::Text(t))),
                                        MAX_TEMPLATE_TEXT,
                                    )
                                })
                                .and_then(|t| self.spend(t))
                                .map_err(|e| {
                                    self.bad_key(key, format!("its URL {}: {e}", quote_text(url)))
                                })?;
                            let target = self.intern(rendered);
                            self.rendered_urls.insert(url.clone(), target);
                            target
                        }
                    }
                } else {
                    self.intern(url.clone())
                };
                match &parts[1..] {
                    [] => Ok(Ref::Whole(target)),
                    [offset, length] => {
                        let number = |v: &Json, what: &str| {
                            v.as_u64().ok_or_else(|| {
                                self.bad_key(
                                    key,
                                    format!(
                                        "its {what} must be an integer from 0, not {}",
                                        quote(v)
                                    ),
                                )
                            })
                        };
                        let (offset, length) = (number(offset, "offset")?, number(length, "length")?);
                        span(offset, length).map_err(|e| self.bad_key(key, e))?;
                        Ok(Ref::Span {
                            target,
                            offset,
                            length,
                        })
                    }
                    _ => Err(self.bad_key(
                        key,
                        format!(
                            "a reference is [url] or [url, offset, length], not an array of {}",
                            parts.len()
                        ),
                    )),
                }
            }
            v => Err(self.bad_key(
                key,
                format!(
                    "a reference is a string, \"base64:...\", an object, [url] or [url, offset, length], not {}",
                    kind_of(v)
                ),
            )),
        }
    }

    /// The target index of `url` (as written, templates rendered).
    fn intern(&mut self, url: String) -> u32 {
        if let Some(&n) = self.interned.get(&url) {
            return n;
        }
        let n = self.targets.len() as u32;
        let resolved = resolve_url(&url, self.base.as_deref(), &self.options.url_map);
        self.targets.push(Target {
            given: url.clone(),
            url: resolved,
        });
        self.interned.insert(url, n);
        n
    }

    fn generator(&self, n: usize, g: &Json) -> Result<Generator> {
        let bad = |what: String| self.bad(format!("gen[{n}]: {what}"));
        let Json::Object(g) = g else {
            return Err(bad(format!("a generator is an object, not {}", kind_of(g))));
        };
        let text = |name: &str, required: bool| -> Result<Option<Template>> {
            match g.get(name) {
                None if !required => Ok(None),
                None => Err(bad(format!("\"{name}\" is missing"))),
                // kerchunk writes offsets and lengths as templates; a number is its own text.
                Some(Json::Number(v)) if name == "offset" || name == "length" => {
                    Template::parse(&v.to_string()).map(Some).map_err(&bad)
                }
                Some(Json::String(s)) => Template::parse(s)
                    .map(Some)
                    .map_err(|e| bad(format!("\"{name}\" {}: {e}", quote_text(s)))),
                Some(v) => Err(bad(format!(
                    "\"{name}\" must be a string, not {}",
                    kind_of(v)
                ))),
            }
        };
        let key = text("key", true)?.unwrap_or(Template::parse("").map_err(&bad)?);
        let url = text("url", true)?.unwrap_or(Template::parse("").map_err(&bad)?);
        let (offset, length) = (text("offset", false)?, text("length", false)?);
        if offset.is_some() != length.is_some() {
            return Err(bad(
                "\"offset\" and \"length\" go together: give both or neither".into(),
            ));
        }
        let Some(Json::Object(dims)) = g.get("dimensions") else {
            return Err(bad(
                "\"dimensions\" must be an object of names to ranges or lists".into(),
            ));
        };
        let mut dimensions = Vec::with_capacity(dims.len());
        let mut count: u64 = 1;
        for (name, d) in dims {
            let dim = dimension(d)
                .map_err(|e| bad(format!("dimension \"{}\": {e}", quote_text(name))))?;
            count = count.saturating_mul(dim.len());
            self.check_count(count).map_err(|_| {
                bad(format!(
                    "it would make more than {} keys (the maxRefs option)",
                    self.options.max_refs
                ))
            })?;
            dimensions.push((name.clone(), dim));
        }
        Ok(Generator {
            index: n,
            key,
            url,
            offset,
            length,
            dimensions,
            count,
        })
    }

    /// Makes a generator's keys (counted already).
    async fn expand(&mut self, g: &Generator, refs: &mut HashMap<Box<str>, Ref>) -> Result<()> {
        if g.count == 0 {
            return Ok(());
        }
        let mut at = vec![0u64; g.dimensions.len()];
        let mut values = vec![0i64; g.dimensions.len()];
        for n in 0.. {
            turn(n).await;
            for (v, ((_, d), &i)) in values.iter_mut().zip(g.dimensions.iter().zip(&at)) {
                *v = d.value(i);
            }
            let templates = &self.templates;
            let lookup = |name: &str| -> std::result::Result<Option<Value>, String> {
                if let Some(i) = g.dimensions.iter().position(|(n, _)| n == name) {
                    return Ok(Some(Value::Int(values[i])));
                }
                Ok(templates.get(name).map(|t| Value::Text(t)))
            };
            let bad = |what: &str, e: String| {
                let point: Vec<String> = g
                    .dimensions
                    .iter()
                    .zip(&values)
                    .map(|((n, _), v)| format!("{n}={v}"))
                    .collect();
                self.bad(format!(
                    "gen[{}] at {}: its {what}: {e}",
                    g.index,
                    point.join(", ")
                ))
            };
            let render = |t: &Template, what: &str| {
                t.render(&lookup, MAX_TEMPLATE_TEXT)
                    .and_then(|t| self.spend(t))
                    .map_err(|e| bad(what, e))
            };
            let key = render(&g.key, "key")?;
            let url = render(&g.url, "url")?;
            let integer = |t: &Template, what: &str| -> Result<u64> {
                let text = render(t, what)?;
                text.trim().parse::<u64>().map_err(|_| {
                    bad(
                        what,
                        format!("{} is not an integer from 0", quote_text(&text)),
                    )
                })
            };
            let r = match (&g.offset, &g.length) {
                (Some(o), Some(l)) => {
                    let (offset, length) = (integer(o, "offset")?, integer(l, "length")?);
                    span(offset, length).map_err(|e| bad("range", e))?;
                    Ref::Span {
                        target: self.intern(url),
                        offset,
                        length,
                    }
                }
                _ => Ref::Whole(self.intern(url)),
            };
            refs.insert(key.into(), r);
            // The next point, the last dimension fastest (itertools.product's order).
            let mut d = g.dimensions.len();
            loop {
                if d == 0 {
                    return Ok(());
                }
                d -= 1;
                at[d] += 1;
                if at[d] < g.dimensions[d].1.len() {
                    break;
                }
                at[d] = 0;
            }
        }
        Ok(())
    }
}

fn span(offset: u64, length: u64) -> std::result::Result<(), String> {
    offset
        .checked_add(length)
        .map(|_| ())
        .ok_or_else(|| format!("offset {offset} + length {length} overflows"))
}

/// A generator's dimension: a range or a list of integers.
enum Dimension {
    Range { start: i64, step: i64, len: u64 },
    List(Vec<i64>),
}

impl Dimension {
    fn len(&self) -> u64 {
        match self {
            Dimension::Range { len, .. } => *len,
            Dimension::List(v) => v.len() as u64,
        }
    }

    fn value(&self, i: u64) -> i64 {
        match self {
            // In range: start + i * step stays between start and stop.
            Dimension::Range { start, step, .. } => start + i as i64 * step,
            Dimension::List(v) => v[i as usize],
        }
    }
}

fn dimension(d: &Json) -> std::result::Result<Dimension, String> {
    match d {
        Json::Array(items) => items
            .iter()
            .map(|v| {
                v.as_i64()
                    .ok_or_else(|| format!("a list of integers, with {}", quote(v)))
            })
            .collect::<std::result::Result<Vec<i64>, String>>()
            .map(Dimension::List),
        Json::Object(o) => {
            for k in o.keys() {
                if !matches!(k.as_str(), "start" | "stop" | "step") {
                    return Err(format!(
                        "\"{}\" is not one of a range's \"start\", \"stop\", \"step\"",
                        quote_text(k)
                    ));
                }
            }
            let int = |name: &str, default: Option<i64>| match (o.get(name), default) {
                (None, Some(d)) => Ok(d),
                (None, None) => Err(format!("a range needs \"{name}\"")),
                (Some(v), _) => v
                    .as_i64()
                    .ok_or_else(|| format!("\"{name}\" must be an integer, not {}", quote(v))),
            };
            let (start, stop, step) = (
                int("start", Some(0))?,
                int("stop", None)?,
                int("step", Some(1))?,
            );
            if step == 0 {
                return Err("\"step\" must not be 0".into());
            }
            let (start_, stop_, step_) = (start as i128, stop as i128, step as i128);
            let len = if step > 0 {
                (stop_ - start_ + step_ - 1).div_euclid(step_)
            } else {
                (start_ - stop_ - step_ - 1).div_euclid(-step_)
            };
            Ok(Dimension::Range {
                start,
                step,
                len: len.max(0) as u64,
            })
        }
        v => Err(format!(
            "a dimension is {{\"stop\": n}}, {{\"start\", \"stop\", \"step\"}} or a list, not {}",
            kind_of(v)
        )),
    }
}

struct Generator {
    index: usize,
    key: Template,
    url: Template,
    offset: Option<Template>,
    length: Option<Template>,
    dimensions: Vec<(String, Dimension)>,
    count: u64,
}

/// A reference file's records once read: its rows, and their target paths resolved.
struct LoadedRecord {
    record: Record,
    targets: Vec<Target>,
}

/// A record as fetched: None where its file is missing (every chunk in it is).
type Loaded = Option<Rc<LoadedRecord>>;

/// A directory of kerchunk Parquet references: its layout (from `.zmetadata`) and the reference
/// files read so far.
struct Lazy {
    /// The directory's URL (as `HttpStore` takes it) and the base its relative targets resolve
    /// against (the directory, with its slash).
    dir: String,
    base: String,
    layout: Layout,
    bounds: Bounds,
    url_map: Vec<(String, String)>,
    records: SingleFlight<(String, u64), Loaded>,
    cache: RefCell<RecordCache>,
}

/// The records read, kept while their size fits the cache's capacity (the least recently used
/// dropped first).
struct RecordCache {
    entries: HashMap<(String, u64), (Loaded, usize, u64)>,
    used: usize,
    capacity: usize,
    tick: u64,
}

impl RecordCache {
    fn get(&mut self, key: &(String, u64)) -> Option<Loaded> {
        self.tick += 1;
        let tick = self.tick;
        self.entries.get_mut(key).map(|entry| {
            entry.2 = tick;
            entry.0.clone()
        })
    }

    fn insert(&mut self, key: (String, u64), value: Loaded) {
        let size = value.as_ref().map_or(0, |r| r.record.size()) + 64;
        if let Some((_, old, _)) = self.entries.remove(&key) {
            self.used -= old;
        }
        if size > self.capacity {
            return;
        }
        while self.used + size > self.capacity {
            let Some(oldest) = self
                .entries
                .iter()
                .min_by_key(|(_, e)| e.2)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some((_, s, _)) = self.entries.remove(&oldest) {
                self.used -= s;
            }
        }
        self.tick += 1;
        self.entries.insert(key, (value, size, self.tick));
        self.used += size;
    }
}

/// What a key's reference says, its target (if any) cloned out of the table it is in.
enum Found {
    Inline(Vec<u8>),
    Whole(Target),
    Span(Target, Range<u64>),
}

/// What every view of one reference store shares.
struct Shared {
    refs: References,
    /// Set for Parquet references: their chunk references, read lazily.
    lazy: Option<Lazy>,
    http: HttpOptions,
    limiter: Limiter,
    /// Range requests per target URL collected from the reads of one turn.
    batches: SpanBatches,
}

/// A store of a reference file's keys, reading target bytes over HTTP through `C`.
pub struct ReferenceStore<C> {
    shared: Rc<Shared>,
    client: C,
}

/// Where the references at a URL are: a JSON file, or a directory of Parquet references.
enum Source {
    Json,
    /// The directory's URL.
    Parquet(String),
}

impl Source {
    /// As fsspec tells them apart: a URL that ends in `/`, `.parq` or `.parquet` is a Parquet
    /// directory, and so is the URL of its `.zmetadata`; anything else is a JSON file.
    fn of(url: &str) -> Source {
        let end = url.find(['?', '#']).unwrap_or(url.len());
        let (path, tail) = url.split_at(end);
        if let Some(dir) = path.strip_suffix("/.zmetadata") {
            return Source::Parquet(format!("{dir}{tail}"));
        }
        let trimmed = path.trim_end_matches('/');
        if path.ends_with('/') || trimmed.ends_with(".parq") || trimmed.ends_with(".parquet") {
            return Source::Parquet(url.to_string());
        }
        Source::Json
    }
}

impl<C: HttpClient + Clone + 'static> ReferenceStore<C> {
    /// Reads and parses the references at `url`: a JSON reference file, or a directory of
    /// Parquet references (`Source::of`; a JSON file's URL that answers 404 is tried as a
    /// directory too, its `.zmetadata` read).
    pub async fn open(url: &str, client: C, options: ReferenceOptions) -> Result<Self> {
        if let Source::Parquet(dir) = Source::of(url) {
            return Self::open_parquet(&dir, client, options).await;
        }
        let Some((bytes, url)) = Self::read_file(url, "", &client, &options).await? else {
            let dir = url.trim_end_matches('/');
            if let Some(store) = Self::try_parquet(dir, &client, &options).await? {
                return Ok(store);
            }
            return Err(ZarrError::new(
                ErrorKind::NotFound,
                format!("no reference file at {url}"),
            ));
        };
        Self::from_bytes(&bytes, Some(&url), client, options).await
    }

    /// The file `key` below `url` (or at it: key ""), bounded by `max_file_bytes`, and its URL;
    /// None where it is missing.
    async fn read_file(
        url: &str,
        key: &str,
        client: &C,
        options: &ReferenceOptions,
    ) -> Result<Option<(Vec<u8>, String)>> {
        let http = HttpOptions {
            max_object_bytes: options.max_file_bytes,
            ..options.http.clone()
        };
        let file = HttpStore::with_options(url, client.clone(), http);
        let bytes = file.get(key).await.map_err(|e| match e.kind {
            ErrorKind::Aborted => e,
            _ => ZarrError {
                message: format!("{} (the reference file)", e.message),
                ..e
            },
        })?;
        Ok(bytes.map(|b| (b, file.url(key))))
    }

    async fn open_parquet(dir: &str, client: C, options: ReferenceOptions) -> Result<Self> {
        match Self::try_parquet(dir, &client, &options).await? {
            Some(store) => Ok(store),
            None => Err(ZarrError::new(
                ErrorKind::NotFound,
                format!(
                    "no Parquet references at {}: it has no .zmetadata",
                    HttpStore::with_options(dir, client, options.http).url(".zmetadata")
                ),
            )),
        }
    }

    /// The Parquet references in directory `dir`, or None where it has no `.zmetadata`.
    async fn try_parquet(
        dir: &str,
        client: &C,
        options: &ReferenceOptions,
    ) -> Result<Option<Self>> {
        let Some((bytes, url)) = Self::read_file(dir, ".zmetadata", client, options).await? else {
            return Ok(None);
        };
        Self::parquet_from(dir, &bytes, &url, client, options).map(Some)
    }

    /// The Parquet references in directory `dir` whose `.zmetadata` is `bytes`, read from `url`.
    fn parquet_from(
        dir: &str,
        bytes: &[u8],
        url: &str,
        client: &C,
        options: &ReferenceOptions,
    ) -> Result<Self> {
        let layout = Layout::parse(bytes, options.max_refs)
            .map_err(|e| ZarrError::metadata(&format!("the references {url}"), e))?;
        let dir_url = HttpStore::with_options(dir, client.clone(), HttpOptions::default()).url("");
        let base = match dir_url.find('?') {
            Some(q) => format!("{}/{}", &dir_url[..q], &dir_url[q..]),
            None => format!("{dir_url}/"),
        };
        let refs = References {
            label: dir_url.clone(),
            refs: layout
                .metadata
                .iter()
                .map(|(k, v)| (k.as_str().into(), Ref::Inline(v.as_slice().into())))
                .collect(),
            targets: Vec::new(),
        };
        let lazy = Lazy {
            dir: dir.to_string(),
            base,
            bounds: Bounds {
                max_rows: layout.record_size,
                max_bytes: options.max_file_bytes,
            },
            layout,
            url_map: options.url_map.clone(),
            records: SingleFlight::default(),
            cache: RefCell::new(RecordCache {
                entries: HashMap::new(),
                used: 0,
                capacity: usize::try_from(options.max_file_bytes).unwrap_or(usize::MAX),
                tick: 0,
            }),
        };
        Ok(Self::new(refs, Some(lazy), client.clone(), options.clone()))
    }

    /// The references whose document, read from `url` before, is `bytes`: a JSON reference file,
    /// or the `.zmetadata` of a directory of Parquet references (its URL, or the directory's: as
    /// `open` tells them apart). The store is the one `open` made from that document, and
    /// opening it asks for nothing: a store opened again (a fresh instance of the module after
    /// `releaseMemory()` or a trap, a pool's worker) is opened from what was read the first time.
    pub async fn from_document(
        url: &str,
        bytes: &[u8],
        client: C,
        options: ReferenceOptions,
    ) -> Result<Self> {
        match Source::of(url) {
            Source::Parquet(dir) => {
                let at = HttpStore::with_options(&dir, client.clone(), HttpOptions::default())
                    .url(".zmetadata");
                Self::parquet_from(&dir, bytes, &at, &client, &options)
            }
            Source::Json => Self::from_bytes(bytes, Some(url), client, options).await,
        }
    }

    /// A store of the reference file `bytes` read from `url` (None: not from a URL).
    pub async fn from_bytes(
        bytes: &[u8],
        url: Option<&str>,
        client: C,
        options: ReferenceOptions,
    ) -> Result<Self> {
        let refs = References::parse(bytes, url, &options).await?;
        Ok(Self::new(refs, None, client, options))
    }

    fn new(refs: References, lazy: Option<Lazy>, client: C, options: ReferenceOptions) -> Self {
        ReferenceStore {
            shared: Rc::new(Shared {
                refs,
                lazy,
                limiter: Limiter::new(options.http.max_requests),
                http: options.http,
                batches: SingleFlight::default(),
            }),
            client,
        }
    }

    /// The same store sending through another client (one with a read's `AbortSignal`).
    pub fn with_client(&self, client: C) -> Self {
        ReferenceStore {
            shared: self.shared.clone(),
            client,
        }
    }

    pub fn client(&self) -> &C {
        &self.client
    }

    pub fn references(&self) -> &References {
        &self.shared.refs
    }

    /// Whether the references are a directory of Parquet files.
    pub fn is_parquet(&self) -> bool {
        self.shared.lazy.is_some()
    }

    /// What `key`'s reference says, or None where there is none.
    async fn find(&self, key: &str) -> Result<Option<Found>> {
        let refs = &self.shared.refs;
        let target = |t: &u32| refs.targets[*t as usize].clone();
        if let Some(r) = refs.refs.get(key) {
            return Ok(Some(match r {
                Ref::Inline(bytes) => Found::Inline(bytes.to_vec()),
                Ref::Whole(t) => Found::Whole(target(t)),
                Ref::Span {
                    target: t,
                    offset,
                    length,
                } => Found::Span(target(t), *offset..offset + length),
            }));
        }
        let Some(lazy) = &self.shared.lazy else {
            return Ok(None);
        };
        let Some(place) = lazy.layout.place(key) else {
            return Ok(None);
        };
        let Some(loaded) = self.record(lazy, place.field, place.record).await? else {
            return Ok(None);
        };
        let target = |n: &u32| loaded.targets[*n as usize].clone();
        Ok(match loaded.record.rows.get(place.row as usize) {
            None | Some(Entry::Missing) => None,
            Some(Entry::Inline(range)) => Some(Found::Inline(loaded.record.inline(range).to_vec())),
            Some(Entry::Whole(n)) => Some(Found::Whole(target(n))),
            Some(Entry::Span {
                path,
                offset,
                length,
            }) => Some(Found::Span(target(path), *offset..offset + length)),
        })
    }

    /// Reference file `record` of the array `field`: read once (every read that wants it while
    /// it is fetched waits for that fetch), then kept in the cache.
    async fn record(&self, lazy: &Lazy, field: &str, record: u64) -> Result<Loaded> {
        let key = (field.to_string(), record);
        if let Some(hit) = lazy.cache.borrow_mut().get(&key) {
            return Ok(hit);
        }
        let name = format!("{field}/refs.{record}.parq");
        let location = || {
            HttpStore::with_options(&lazy.dir, self.client.clone(), HttpOptions::default())
                .url(&name)
        };
        let start = |_: Rc<()>, _: super::single_flight::Closer<_, _, _>| {
            let view = self.with_client(self.client.clone());
            let (key, name) = (key.clone(), name.clone());
            async move {
                let Some(lazy) = &view.shared.lazy else {
                    return Ok(None);
                };
                let loaded = view.read_record(lazy, &name).await?;
                lazy.cache.borrow_mut().insert(key, loaded.clone());
                Ok(loaded)
            }
            .boxed_local()
        };
        lazy.records
            .run(key.clone(), self, location, |_| {}, start)
            .await
    }

    /// Fetches and reads the reference file `name` of the directory.
    async fn read_record(&self, lazy: &Lazy, name: &str) -> Result<Loaded> {
        let http = HttpOptions {
            max_object_bytes: lazy.bounds.max_bytes,
            ..self.shared.http.clone()
        };
        let store = HttpStore::with_options(&lazy.dir, self.client.clone(), http);
        let url = store.url(name);
        let bytes = {
            let _permit = self.shared.limiter.acquire().await;
            store.get(name).await
        }
        .map_err(|e| match e.kind {
            ErrorKind::Aborted => e,
            _ => ZarrError {
                message: format!("{} (a Parquet reference file)", e.message),
                ..e
            },
        })?;
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        let record = Record::read(&bytes, lazy.bounds)
            .map_err(|e| ZarrError::metadata(&format!("the references {url}"), e))?;
        let targets = record
            .paths
            .iter()
            .map(|p| Target {
                given: p.clone(),
                url: resolve_url(p, Some(&lazy.base), &lazy.url_map),
            })
            .collect();
        Ok(Some(Rc::new(LoadedRecord { record, targets })))
    }

    /// The URL of `target`, or the error saying why it has none.
    fn target_url(&self, key: &str, target: &Target) -> Result<String> {
        target.url.clone().map_err(|why| {
            ZarrError::store(
                &self.locate(key),
                format!("its target {}: {why}", quote_text(&target.given)),
            )
        })
    }

    /// The target's error, said as this key's.
    fn target_error(&self, key: &str, url: &str, e: ZarrError) -> ZarrError {
        if e.kind == ErrorKind::Aborted {
            return e;
        }
        ZarrError {
            kind: ErrorKind::Store,
            message: ZarrError::store(
                &self.locate(key),
                format!("its target {url}: {}", e.message),
            )
            .message,
            status: e.status,
        }
    }

    fn missing(&self, key: &str, url: &str) -> ZarrError {
        ZarrError::store(
            &self.locate(key),
            format!(
                "its target {url} is missing (HTTP 404): the references say the bytes are there"
            ),
        )
    }

    /// `range` of the target at `url`, through the store's request limit.
    async fn fetch(&self, key: &str, url: &str, range: Option<ByteRange>) -> Result<Vec<u8>> {
        let store = HttpStore::with_options(url, self.client.clone(), self.shared.http.clone());
        let _permit = self.shared.limiter.acquire().await;
        let got = match range {
            Some(r) => store.get_range("", r).await,
            None => store.get("").await,
        };
        got.map_err(|e| self.target_error(key, url, e))?
            .ok_or_else(|| self.missing(key, url))
    }

    /// Bytes `range` of target `t`, fetched with the ranges of that target other reads ask for
    /// in the same turn.
    async fn span(&self, key: &str, url: String, range: Range<u64>) -> Result<Vec<u8>> {
        if range.is_empty() {
            return Ok(Vec::new());
        }
        let block = fetch_batched(self, key, &url, range.clone()).await?;
        if block.end() < range.end {
            return Err(ZarrError::store(
                &self.locate(key),
                format!(
                    "its target {url} ends at byte {}, before the end of bytes {}..{} the references give",
                    block.end(),
                    range.start,
                    range.end
                ),
            ));
        }
        Ok(block.slice(range).to_vec())
    }
}

/// Target spans fetched in batches (`span_batch`).
#[async_trait(?Send)]
impl<C: HttpClient + Clone + 'static> SpanSource for ReferenceStore<C> {
    fn span_batches(&self) -> &SpanBatches {
        &self.shared.batches
    }

    fn batch_view(&self) -> Self {
        self.with_client(self.client.clone())
    }

    async fn fetch_block(&self, key: &str, url: &str, range: Range<u64>) -> Result<Vec<u8>> {
        let r = ByteRange::Span {
            offset: range.start,
            length: range.end - range.start,
        };
        self.fetch(key, url, Some(r)).await
    }
}

#[async_trait(?Send)]
impl<C: HttpClient + Clone + 'static> ReadableStore for ReferenceStore<C> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        match self.find(key).await? {
            None => Ok(None),
            Some(Found::Inline(bytes)) => Ok(Some(bytes)),
            Some(Found::Whole(target)) => {
                let url = self.target_url(key, &target)?;
                self.fetch(key, &url, None).await.map(Some)
            }
            Some(Found::Span(target, range)) => {
                let url = self.target_url(key, &target)?;
                self.span(key, url, range).await.map(Some)
            }
        }
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        match self.find(key).await? {
            None => Ok(None),
            Some(Found::Inline(bytes)) => Ok(Some(range.cut(&bytes).to_vec())),
            Some(Found::Whole(target)) => {
                let url = self.target_url(key, &target)?;
                self.fetch(key, &url, Some(range)).await.map(Some)
            }
            Some(Found::Span(target, span)) => {
                let r = range.resolve(span.end - span.start);
                let url = self.target_url(key, &target)?;
                self.span(key, url, span.start + r.start..span.start + r.end)
                    .await
                    .map(Some)
            }
        }
    }

    fn locate(&self, key: &str) -> String {
        format!("{}#{key}", self.shared.refs.label)
    }

    async fn batch_window(&self) {
        self.client.sleep(0).await;
    }

    fn hints(&self) -> ReadHints {
        self.shared.http.hints
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        Ok(Some(super::children_of(
            self.shared.refs.refs.keys().map(|k| &**k),
            prefix,
        )))
    }

    fn cancelled(&self) -> bool {
        self.client.cancelled()
    }

    async fn aborted(&self) {
        self.client.aborted().await
    }
}

#[cfg(test)]
mod tests {
    use super::super::http::{HttpFailure, HttpRequest, HttpResponse};
    use super::*;
    use futures_util::future::join_all;
    use std::cell::Cell;
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll, Waker};

    thread_local! {
        /// The fake clock's turn: a sleep ends once a later turn has come.
        static TURN: Cell<u64> = const { Cell::new(0) };
    }

    /// Runs `f` to the end as JavaScript's event loop would: everything that can go on goes on,
    /// then the timers of that turn fire.
    fn block_on<F: Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
            TURN.with(|t| t.set(t.get() + 1));
        }
    }

    /// Serves `files` (URL -> bytes) with ranges, records what was asked, and yields once in
    /// `sleep` (so reads started together share a batch window).
    #[derive(Clone)]
    struct Fake {
        files: Rc<HashMap<String, Vec<u8>>>,
        seen: Rc<RefCell<Vec<HttpRequest>>>,
    }

    /// A timer of 0 ms: done at the next turn.
    struct NextTurn(u64);
    impl Future for NextTurn {
        type Output = ();
        fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
            match TURN.with(Cell::get) > self.0 {
                true => Poll::Ready(()),
                false => Poll::Pending,
            }
        }
    }

    #[async_trait(?Send)]
    impl HttpClient for Fake {
        async fn send(&self, r: HttpRequest) -> std::result::Result<HttpResponse, HttpFailure> {
            self.seen.borrow_mut().push(r.clone());
            let Some(body) = self.files.get(&r.url) else {
                return Ok(HttpResponse {
                    status: 404,
                    ..Default::default()
                });
            };
            Ok(match r.range {
                None => HttpResponse {
                    status: 200,
                    body: body.clone(),
                    ..Default::default()
                },
                Some(range) => {
                    let at = range.resolve(body.len() as u64);
                    HttpResponse {
                        status: 206,
                        body: range.cut(body).to_vec(),
                        content_range: Some(format!(
                            "bytes {}-{}/{}",
                            at.start,
                            at.end.max(1) - 1,
                            body.len()
                        )),
                        ..Default::default()
                    }
                }
            })
        }
        async fn sleep(&self, _ms: u32) {
            NextTurn(TURN.with(Cell::get)).await
        }
    }

    fn fake(files: &[(&str, Vec<u8>)]) -> Fake {
        Fake {
            files: Rc::new(
                files
                    .iter()
                    .map(|(u, b)| (u.to_string(), b.clone()))
                    .collect(),
            ),
            seen: Rc::default(),
        }
    }

    const REF: &str = "http://h/refs/data.json";

    fn store(json: &str, client: Fake) -> Result<ReferenceStore<Fake>> {
        block_on(ReferenceStore::from_bytes(
            json.as_bytes(),
            Some(REF),
            client,
            ReferenceOptions::default(),
        ))
    }

    fn parse(json: &str, options: &ReferenceOptions) -> Result<References> {
        block_on(References::parse(json.as_bytes(), Some(REF), options))
    }

    fn data() -> Vec<u8> {
        (0..=255u8).cycle().take(100_000).collect()
    }

    #[test]
    fn version_0_reads_inline_base64_objects_whole_files_and_ranges() {
        let client = fake(&[
            ("http://h/refs/f.bin", data()),
            ("http://h/other/g.bin", b"whole".to_vec()),
        ]);
        let s = store(
            r#"{".zgroup": "{\"zarr_format\": 2}", "b": "base64:AAEC/w==", "o": {"a": [1, 2]},
                "x/0": ["f.bin", 10, 5], "x/1": ["../other/g.bin"], "x/2": ["f.bin", 99990, 20]}"#,
            client.clone(),
        )
        .unwrap();
        assert_eq!(
            block_on(s.get(".zgroup")).unwrap().unwrap(),
            br#"{"zarr_format": 2}"#
        );
        assert_eq!(block_on(s.get("b")).unwrap().unwrap(), [0, 1, 2, 255]);
        assert_eq!(block_on(s.get("o")).unwrap().unwrap(), br#"{"a":[1,2]}"#);
        assert_eq!(
            block_on(s.get("x/0")).unwrap().unwrap(),
            [10, 11, 12, 13, 14]
        );
        assert_eq!(block_on(s.get("x/1")).unwrap().unwrap(), b"whole");
        assert_eq!(block_on(s.get("nope")).unwrap(), None);
        // Ranges of a ref are ranges inside its range.
        assert_eq!(
            block_on(s.get_range("x/0", ByteRange::Suffix(2)))
                .unwrap()
                .unwrap(),
            [13, 14]
        );
        assert_eq!(
            block_on(s.get_range(
                "x/0",
                ByteRange::Span {
                    offset: 1,
                    length: 2
                }
            ))
            .unwrap()
            .unwrap(),
            [11, 12]
        );
        assert_eq!(
            block_on(s.get_range("b", ByteRange::From(3)))
                .unwrap()
                .unwrap(),
            [255]
        );
        let seen = client.seen.borrow();
        assert_eq!(seen[0].url, "http://h/refs/f.bin");
        assert_eq!(
            seen[0].range,
            Some(ByteRange::Span {
                offset: 10,
                length: 5
            })
        );
        assert_eq!(seen[1].url, "http://h/other/g.bin");
        assert_eq!(seen[1].range, None);
        drop(seen);
        // A range past the target's end says so, naming the key and the target.
        let err = block_on(s.get("x/2")).unwrap_err().to_string();
        assert!(
            err.contains("http://h/refs/data.json#x/2")
                && err.contains("http://h/refs/f.bin")
                && err.contains("ends at byte 100000"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_target_is_an_error_naming_the_key_and_the_target() {
        let s = store(
            r#"{"x/0": ["gone.bin", 0, 4], "x/1": ["gone.bin"]}"#,
            fake(&[]),
        )
        .unwrap();
        for key in ["x/0", "x/1"] {
            let err = block_on(s.get(key)).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Store);
            assert!(
                err.message.contains(&format!("{REF}#{key}"))
                    && err
                        .message
                        .contains("http://h/refs/gone.bin is missing (HTTP 404)"),
                "{err}"
            );
        }
    }

    #[test]
    fn reads_of_one_turn_are_merged_into_one_request_per_target_within_the_gap() {
        let client = fake(&[
            ("http://h/refs/f.bin", data()),
            ("http://h/refs/g.bin", data()),
        ]);
        let s = store(
            r#"{"a": ["f.bin", 0, 100], "b": ["f.bin", 100, 100], "c": ["f.bin", 3000, 10],
                "far": ["f.bin", 50000, 10], "g": ["g.bin", 0, 10]}"#,
            client.clone(),
        )
        .unwrap();
        let keys = ["a", "b", "c", "far", "g"];
        let got = block_on(join_all(keys.iter().map(|k| s.get(k))));
        let d = data();
        for (k, bytes) in keys.iter().zip(got) {
            let (_, range) = s.references().target_of(k).unwrap();
            let range = range.unwrap();
            assert_eq!(
                bytes.unwrap().unwrap(),
                d[range.start as usize..range.end as usize],
                "{k}"
            );
        }
        let mut asked: Vec<(String, Option<ByteRange>)> = client
            .seen
            .borrow()
            .iter()
            .map(|r| (r.url.clone(), r.range))
            .collect();
        asked.sort_by_key(|(u, r)| (u.clone(), format!("{r:?}")));
        assert_eq!(
            asked,
            [
                (
                    "http://h/refs/f.bin".to_string(),
                    Some(ByteRange::Span {
                        offset: 0,
                        length: 3010
                    })
                ),
                (
                    "http://h/refs/f.bin".to_string(),
                    Some(ByteRange::Span {
                        offset: 50000,
                        length: 10
                    })
                ),
                (
                    "http://h/refs/g.bin".to_string(),
                    Some(ByteRange::Span {
                        offset: 0,
                        length: 10
                    })
                ),
            ]
        );
        // Read one at a time, each is its own request.
        client.seen.borrow_mut().clear();
        for k in ["a", "b"] {
            block_on(s.get(k)).unwrap();
        }
        assert_eq!(client.seen.borrow().len(), 2);
    }

    #[test]
    fn version_1_renders_templates_and_generators() {
        let client = fake(&[
            ("http://h/refs/f.bin", data()),
            ("https://b.s3.amazonaws.com/k/f.nc", data()),
        ]);
        let s = store(
            r#"{"version": 1,
                "templates": {"u": "f.bin", "s": "s3://b/k", "n": "{{s}}/f.nc"},
                "refs": {".zgroup": "{}", "x/0": ["{{u}}", 1, 2], "y/0": ["{{n}}", 0, 1]},
                "gen": [{"key": "g/{{i}}.{{j}}", "url": "{{u}}", "offset": "{{ 1000 + (i * 2 + j) * 10 }}",
                         "length": "10", "dimensions": {"i": {"stop": 3}, "j": [0, 1]}},
                        {"key": "w/{{k}}", "url": "{{n}}", "dimensions": {"k": {"start": 10, "stop": 0, "step": -5}}}]}"#,
            client,
        )
        .unwrap();
        let refs = s.references();
        assert_eq!(refs.len(), 3 + 6 + 2);
        assert_eq!(
            refs.target_of("x/0").unwrap(),
            (Ok("http://h/refs/f.bin"), Some(1..3))
        );
        assert_eq!(
            refs.target_of("y/0").unwrap(),
            (Ok("https://b.s3.amazonaws.com/k/f.nc"), Some(0..1))
        );
        for i in 0..3u64 {
            for j in 0..2u64 {
                let at = 1000 + (i * 2 + j) * 10;
                assert_eq!(
                    refs.target_of(&format!("g/{i}.{j}")).unwrap(),
                    (Ok("http://h/refs/f.bin"), Some(at..at + 10))
                );
            }
        }
        assert_eq!(
            refs.target_of("w/10").unwrap(),
            (Ok("https://b.s3.amazonaws.com/k/f.nc"), None)
        );
        assert!(refs.target_of("w/5").is_some() && refs.target_of("w/0").is_none());
        let d = data();
        assert_eq!(block_on(s.get("g/2.1")).unwrap().unwrap(), d[1050..1060]);
    }

    #[test]
    fn target_urls_resolve_against_the_file_and_map_buckets_and_prefixes() {
        let map = vec![
            ("file:///data/".to_string(), "http://mirror/d/".to_string()),
            ("file:///data/deep/".to_string(), "http://deep/".to_string()),
            ("s3://private/".to_string(), "https://proxy/p/".to_string()),
        ];
        let base = Some("http://h/a/b/refs.json?sig=1#f");
        for (url, want) in [
            ("f.nc", "http://h/a/b/f.nc"),
            ("./f.nc", "http://h/a/b/f.nc"),
            ("../f.nc", "http://h/a/f.nc"),
            ("../../../../f.nc", "http://h/f.nc"),
            ("sub/./x/../f.nc?q=1", "http://h/a/b/sub/f.nc?q=1"),
            ("/root/f.nc", "http://h/root/f.nc"),
            ("//cdn/f.nc", "http://cdn/f.nc"),
            ("https://x/y.nc", "https://x/y.nc"),
            ("HTTP://x/y.nc", "HTTP://x/y.nc"),
            (
                "s3://bucket/path/to/f.nc",
                "https://bucket.s3.amazonaws.com/path/to/f.nc",
            ),
            (
                "gs://bucket/f.nc",
                "https://storage.googleapis.com/bucket/f.nc",
            ),
            (
                "gcs://bucket/f.nc",
                "https://storage.googleapis.com/bucket/f.nc",
            ),
            ("file:///data/f.nc", "http://mirror/d/f.nc"),
            ("file:///data/deep/f.nc", "http://deep/f.nc"),
            ("s3://private/k", "https://proxy/p/k"),
        ] {
            assert_eq!(resolve_url(url, base, &map).as_deref(), Ok(want), "{url}");
        }
        for (url, says) in [
            ("file:///elsewhere/f.nc", "the urlMap option"),
            ("az://c/f.nc", "az: URLs cannot be read"),
            ("s3:///k", "names no bucket"),
            ("s3:bucket", "not scheme://bucket/key"),
        ] {
            let err = resolve_url(url, base, &map).unwrap_err();
            assert!(err.contains(says), "{url}: {err}");
        }
        let err = resolve_url("f.nc", None, &[]).unwrap_err();
        assert!(err.contains("baseUrl"), "{err}");
        // Unreadable targets fail only their keys, naming the key and the target.
        let s = store(r#"{"a": ["file:///x/f.nc", 0, 4], "b": "ok"}"#, fake(&[])).unwrap();
        assert_eq!(block_on(s.get("b")).unwrap().unwrap(), b"ok");
        let err = block_on(s.get("a")).unwrap_err().to_string();
        assert!(
            err.contains("#a") && err.contains("file:///x/f.nc") && err.contains("urlMap"),
            "{err}"
        );
    }

    #[test]
    fn bad_reference_files_are_errors_naming_the_file_the_key_and_the_fault() {
        let o = ReferenceOptions::default();
        for (json, says) in [
            ("not json", "not JSON"),
            ("[1]", "a JSON object, not an array"),
            (r#"{"version": 2}"#, "version 2"),
            (r#"{"k": 5}"#, "key \"k\": a reference is a string"),
            (r#"{"k": []}"#, "key \"k\": an empty reference"),
            (r#"{"k": [null, 0, 1]}"#, "null target"),
            (r#"{"k": [1]}"#, "must be a string"),
            (r#"{"k": ["u", 0]}"#, "not an array of 2"),
            (r#"{"k": ["u", -1, 4]}"#, "offset must be an integer from 0"),
            (
                r#"{"k": ["u", 0, 1.5]}"#,
                "length must be an integer from 0",
            ),
            (r#"{"k": ["u", 18446744073709551615, 1]}"#, "overflows"),
            (r#"{"k": "base64:a$"}"#, "is not base64"),
            (r#"{"k": "base64:a"}"#, "truncated"),
            // The crate's one base64 decoder: the fill values' (bits left over must be zeros).
            (r#"{"k": "base64:YR=="}"#, "not zeros"),
            (
                r#"{"version": 1, "refs": []}"#,
                "\"refs\" must be an object",
            ),
            (
                r#"{"version": 1, "templates": {"u": 1}}"#,
                "template \"u\" must be a string",
            ),
            (
                r#"{"version": 1, "templates": {"u": "{{u}}"}}"#,
                "deeper than 8",
            ),
            (
                r#"{"version": 1, "templates": {"a": "{{b}}", "b": "{{a}}"}}"#,
                "deeper than 8",
            ),
            (
                r#"{"version": 1, "templates": {"a": "{% if x %}"}}"#,
                "statements",
            ),
            (
                r#"{"version": 1, "refs": {"k": ["{{nope}}"]}}"#,
                "key \"k\": its URL {{nope}}: unknown variable",
            ),
            (
                r#"{"version": 1, "gen": [{"key": "k", "url": "u", "dimensions": {"i": {"stop": 2}}, "offset": "1"}]}"#,
                "go together",
            ),
            (
                r#"{"version": 1, "gen": [{"url": "u", "dimensions": {}}]}"#,
                "\"key\" is missing",
            ),
            (
                r#"{"version": 1, "gen": [{"key": "k", "url": "u"}]}"#,
                "\"dimensions\" must be",
            ),
            (
                r#"{"version": 1, "gen": [{"key": "k", "url": "u", "dimensions": {"i": {"stop": 2, "step": 0}}}]}"#,
                "must not be 0",
            ),
            (
                r#"{"version": 1, "gen": [{"key": "k", "url": "u", "dimensions": {"i": {"start": 1}}}]}"#,
                "needs \"stop\"",
            ),
            (
                r#"{"version": 1, "gen": [{"key": "k", "url": "u", "dimensions": {"i": ["a"]}}]}"#,
                "a list of integers",
            ),
            (
                r#"{"version": 1, "gen": [{"key": "k", "url": "u", "dimensions": {"i": {"stop": 2, "by": 1}}}]}"#,
                "\"by\" is not one of",
            ),
            (
                r#"{"version": 1, "gen": [{"key": "k/{{i}}", "url": "u", "offset": "{{ i // (i - 1) }}", "length": "1", "dimensions": {"i": {"stop": 3}}}]}"#,
                "gen[0] at i=1: its offset: division by zero",
            ),
            (
                r#"{"version": 1, "gen": [{"key": "k/{{i}}", "url": "u", "offset": "{{ i - 5 }}", "length": "1", "dimensions": {"i": {"stop": 3}}}]}"#,
                "gen[0] at i=0: its offset: -5 is not an integer from 0",
            ),
        ] {
            let err = parse(json, &o).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Metadata, "{json}");
            assert!(
                err.message.contains(REF) && err.message.contains(says),
                "{json}: {err}"
            );
        }
    }

    #[test]
    fn sizes_counts_generators_and_nesting_are_bounded() {
        let small = ReferenceOptions {
            max_file_bytes: 100,
            max_refs: 5,
            ..ReferenceOptions::default()
        };
        let err = parse(&format!("{{\"k\": \"{}\"}}", "x".repeat(200)), &small).unwrap_err();
        assert!(err.message.contains("maxReferenceBytes"), "{err}");
        let err = parse(r#"{"a":"","b":"","c":"","d":"","e":"","f":""}"#, &small).unwrap_err();
        assert!(err.message.contains("6 keys, more than the 5"), "{err}");
        parse(r#"{"a":"","b":"","c":"","d":"","e":""}"#, &small).unwrap();
        let err = parse(
            r#"{"version":1,"refs":{"a":"","b":"","c":"","d":"","e":"","f":""}}"#,
            &small,
        )
        .unwrap_err();
        assert!(err.message.contains("6 keys, more than the 5"), "{err}");
        // Generated keys count with written ones, before any is made.
        let err = parse(
            r#"{"version":1,"refs":{"a":""},"gen":[{"key":"{{i}}","url":"u","dimensions":{"i":{"stop":5}}}]}"#,
            &small,
        )
        .unwrap_err();
        assert!(err.message.contains("6 keys"), "{err}");
        // A generator of 10^18 keys is refused at once (no key is made).
        let o = ReferenceOptions::default();
        let huge = r#"{"version":1,"gen":[{"key":"{{i}}.{{j}}","url":"u","dimensions":
            {"i":{"stop":1000000000},"j":{"stop":1000000000}}}]}"#;
        let err = parse(huge, &o).unwrap_err();
        assert!(
            err.message.contains("gen[0]") && err.message.contains("maxRefs"),
            "{err}"
        );
        let err = parse(
            r#"{"version":1,"gen":[{"key":"{{i}}","url":"u","dimensions":{"i":{"start":-9223372036854775808,"stop":9223372036854775807}}}]}"#,
            &o,
        )
        .unwrap_err();
        assert!(err.message.contains("maxRefs"), "{err}");
        // Templates may use templates 8 deep, not 9.
        let chain = |n: usize| {
            let mut t = String::from(r#"{"version":1,"templates":{"t0":"x""#);
            for i in 1..=n {
                t.push_str(&format!(r#","t{i}":"{{{{t{}}}}}""#, i - 1));
            }
            t + "}}"
        };
        parse(&chain(8), &o).unwrap();
        let err = parse(&chain(9), &o).unwrap_err();
        assert!(err.message.contains("deeper than 8"), "{err}");
        // Deep JSON is an error, not a stack overflow.
        let deep = format!("{{\"k\": {}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse(&deep, &o).unwrap_err().message.contains("not JSON"));
        // Templates that grow as they nest are cut off.
        let mut t = String::from(
            r#"{"version":1,"templates":{"t0":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx""#,
        );
        for i in 1..9 {
            t.push_str(&format!(
                r#","t{i}":"{{{{t{p}}}}}{{{{t{p}}}}}{{{{t{p}}}}}{{{{t{p}}}}}""#,
                p = i - 1
            ));
        }
        t.push_str("}}");
        let err = parse(&t, &o).unwrap_err();
        assert!(err.message.contains("renders to more than"), "{err}");
    }

    #[test]
    fn reference_json_is_bounded_in_lists_and_objects_as_metadata_is() {
        // 1.5 million one-element lists in 6 MB: parsed, about 300 MB (issue 46: 3 million took
        // 0.8-1.1 GB and 6-19 s); refused before parsing, from a count of the text.
        let mut text = String::from(r#"{"version":1,"refs":{"k":["#);
        text.push_str(&"[1],".repeat(1_500_000));
        text.push_str("[1]]}}");
        let started = std::time::Instant::now();
        let err = parse(&text, &ReferenceOptions::default()).unwrap_err();
        assert!(
            err.message
                .contains("1500004 lists and objects, more than the 1187501")
                && err.message.contains(REF),
            "{err}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        // A file of references written as kerchunk writes them, more than a million of them:
        // read (each is a list of more than 32 bytes).
        let mut text = String::from(r#"{"version":1,"templates":{"u":"f.nc"},"refs":{"#);
        for i in 0..1_100_000 {
            text.push_str(&format!(r#""v/{i}":["{{{{u}}}}",{},1000],"#, i * 1000));
        }
        text.push_str(r#"".zgroup":"{}"}}"#);
        let refs = parse(&text, &ReferenceOptions::default()).unwrap();
        assert_eq!(refs.len(), 1_100_001);
    }

    #[test]
    fn templates_render_within_their_bounds_each_and_in_all() {
        let o = ReferenceOptions::default();
        let time = |text: &str| {
            let started = std::time::Instant::now();
            let result = parse(text, &o);
            (result, started.elapsed())
        };
        let big = "x".repeat(60_000);
        // One URL using a 60 KB template 36,000 times, from a 240 KB file (issue 46: rendered
        // whole before any check, 8.5 s and then out of memory): refused at 64 KiB.
        let text = format!(
            r#"{{"version":1,"templates":{{"a":"{big}"}},"refs":{{"k":["{}"]}}}}"#,
            "{{a}}".repeat(36_000)
        );
        let (result, took) = time(&text);
        let err = result.unwrap_err();
        assert!(
            err.message.contains("key \"k\": its URL")
                && err
                    .message
                    .contains("renders to more than 65536 characters"),
            "{err}"
        );
        assert!(took < std::time::Duration::from_millis(100), "{took:?}");
        // 300 distinct URLs of 60 KB each: 18 MB of rendered text, more than the 8 MiB in all.
        let refs: Vec<String> = (0..300)
            .map(|i| format!(r#""k{i}":["{{{{a}}}}{i}"]"#))
            .collect();
        let text = format!(
            r#"{{"version":1,"templates":{{"a":"{big}"}},"refs":{{{}}}}}"#,
            refs.join(",")
        );
        let err = time(&text).0.unwrap_err();
        assert!(
            err.message.contains("more than 8388608 bytes in all"),
            "{err}"
        );
        // 100,000 references to one 60 KB URL: rendered once (6 GB of text rendered and hashed
        // before).
        let refs: Vec<String> = (0..100_000)
            .map(|i| format!(r#""k{i}":["{{{{a}}}}",{i},1]"#))
            .collect();
        let text = format!(
            r#"{{"version":1,"templates":{{"a":"{big}"}},"refs":{{{}}}}}"#,
            refs.join(",")
        );
        let (result, took) = time(&text);
        let refs = result.unwrap();
        assert_eq!(refs.len(), 100_000);
        assert_eq!(refs.targets.len(), 1);
        assert!(took < std::time::Duration::from_secs(1), "{took:?}");
        // Templates are counted too: 300 of 60 KB each.
        let templates: Vec<String> = (0..300).map(|i| format!(r#""t{i}":"{{{{a}}}}""#)).collect();
        let text = format!(
            r#"{{"version":1,"templates":{{"a":"{big}",{}}}}}"#,
            templates.join(",")
        );
        let err = time(&text).0.unwrap_err();
        assert!(err.message.contains("in all"), "{err}");
    }

    #[test]
    fn generators_are_bounded_in_keys_and_in_what_they_render() {
        let o = ReferenceOptions::default();
        let time = |text: &str| {
            let started = std::time::Instant::now();
            let result = parse(text, &o);
            (result, started.elapsed())
        };
        // 2000 distinct URLs of 64 KiB from a small file (issue 46: 706 bytes, 6.3 s and 486 MB).
        let text = format!(
            r#"{{"version":1,"templates":{{"a":"{}"}},"gen":[{{"key":"k/{{{{i}}}}","url":"{{{{a}}}}{{{{i}}}}","dimensions":{{"i":{{"stop":2000}}}}}}]}}"#,
            "x".repeat(65_000)
        );
        let (result, took) = time(&text);
        let err = result.unwrap_err();
        assert!(
            err.message.contains("gen[0] at i=")
                && err.message.contains("its url")
                && err.message.contains("more than 8388608 bytes in all"),
            "{err}"
        );
        eprintln!("2000 URLs of 64 KiB: refused in {took:?}");
        assert!(took < std::time::Duration::from_millis(500), "{took:?}");
        // A million keys from a few bytes (issue 46: 4.1 s): refused before any is made.
        let million = r#"{"version":1,"gen":[{"key":"k/{{i}}.{{j}}","url":"u","offset":"{{i * 1000 + j}}","length":"1","dimensions":{"i":{"stop":1000},"j":{"stop":1000}}}]}"#;
        let (result, took) = time(million);
        let err = result.unwrap_err();
        assert!(
            err.message
                .contains("gen[0]: the generators would make 1000000 keys, more than the 100000"),
            "{err}"
        );
        assert!(took < std::time::Duration::from_millis(10), "{took:?}");
        // Several generators count together.
        let two = r#"{"version":1,"gen":[{"key":"a/{{i}}","url":"u","dimensions":{"i":{"stop":60000}}},{"key":"b/{{i}}","url":"u","dimensions":{"i":{"stop":60000}}}]}"#;
        let err = parse(two, &o).unwrap_err();
        assert!(
            err.message
                .contains("gen[1]: the generators would make 120000"),
            "{err}"
        );
        // 100,000 keys are made.
        let most = million.replace(r#""stop":1000}}"#, r#""stop":100}}"#);
        let (result, took) = time(&most);
        assert_eq!(result.unwrap().len(), 100_000);
        eprintln!("100,000 generated keys: {took:?}");
        assert!(took < std::time::Duration::from_secs(1), "{took:?}");
    }

    #[test]
    fn numbers_in_reference_files_parse_to_the_nearest_double() {
        // netCDF's default float fill value, as VirtualiZarr writes it in a .zarray (Python and
        // JS read the same double).
        let v = crate::metadata::json::read(b"[9.969209968386869e+36]").unwrap();
        assert_eq!(v[0].as_f64(), Some(9.969209968386869e36));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let seeds = [
            r#"{"version":1,"templates":{"u":"f"},"refs":{"a":["{{u}}",1,2],"b":"base64:AAE="},"gen":[{"key":"g/{{i}}","url":"{{u}}","offset":"{{i*3}}","length":"3","dimensions":{"i":{"stop":4}}}]}"#,
            r#"{"a":["f",0,1],"b":{"c":[1]},"d":"text"}"#,
        ];
        let o = ReferenceOptions {
            max_refs: 1000,
            ..ReferenceOptions::default()
        };
        let seed = Cell::new(0x2545F4914F6CDD1Du64);
        let next = || {
            let mut x = seed.get();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            seed.set(x);
            x
        };
        for s in seeds {
            for _ in 0..5000 {
                let mut bytes = s.as_bytes().to_vec();
                for _ in 0..1 + next() % 4 {
                    let at = (next() % bytes.len() as u64) as usize;
                    bytes[at] = b"{}[]\",:0123456789-+*/%()ux .".as_slice()[(next() % 28) as usize];
                }
                let _ = block_on(References::parse(&bytes, Some(REF), &o));
            }
        }
    }

    #[test]
    fn opening_reads_the_file_bounded_and_names_it_when_missing() {
        let json = br#"{"a": "x"}"#.to_vec();
        let client = fake(&[(REF, json)]);
        let s = block_on(ReferenceStore::open(
            REF,
            client.clone(),
            ReferenceOptions::default(),
        ))
        .unwrap();
        assert_eq!(block_on(s.get("a")).unwrap().unwrap(), b"x");
        assert_eq!(client.seen.borrow()[0].max_body.whole, 256 << 20);
        let err = block_on(ReferenceStore::open(
            "http://h/none.json",
            client,
            ReferenceOptions::default(),
        ))
        .err()
        .unwrap();
        assert_eq!(err.kind, ErrorKind::NotFound);
        assert!(
            err.message
                .contains("no reference file at http://h/none.json"),
            "{err}"
        );
    }

    #[test]
    fn a_store_opened_again_from_its_document_asks_for_nothing() {
        // Parquet references, from their .zmetadata (issue 46: a node's reopening after
        // releaseMemory() asked for it again), by its URL or the directory's.
        let client = parquet_fake("nc_arrow.parq", "n.parq", &[]);
        let options = ReferenceOptions::default;
        let first = block_on(ReferenceStore::open(
            "http://h/refs/n.parq",
            client.clone(),
            options(),
        ))
        .unwrap();
        let zmetadata = client.files["http://h/refs/n.parq/.zmetadata"].clone();
        let keys = [
            ".zgroup",
            "tas/.zarray",
            "tas/0.0.0",
            "tas/1.0.1",
            "lat/0",
            "none/0",
        ];
        assert!(block_on(first.get("tas/1.0.1")).unwrap().is_some());
        for url in ["http://h/refs/n.parq/.zmetadata", "http://h/refs/n.parq"] {
            let again_client = parquet_fake("nc_arrow.parq", "n.parq", &[]);
            let again = block_on(ReferenceStore::from_document(
                url,
                &zmetadata,
                again_client.clone(),
                options(),
            ))
            .unwrap();
            assert!(urls(&again_client).is_empty(), "opening asks for nothing");
            assert!(again.is_parquet());
            assert_eq!(again.references().label(), first.references().label());
            for key in keys {
                assert_eq!(
                    block_on(again.get(key)).unwrap(),
                    block_on(first.get(key)).unwrap(),
                    "{key}"
                );
            }
            assert!(!urls(&again_client).contains(&"http://h/refs/n.parq/.zmetadata".into()));
        }
        // A JSON file: its relative targets resolve against its URL, as when it was read there.
        let json = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/references/nc.json"
        ))
        .unwrap();
        let url = "http://h/refs/nc.json";
        let client = parquet_fake("nc_arrow.parq", "n.parq", &[(url, json.clone())]);
        let first = block_on(ReferenceStore::open(url, client.clone(), options())).unwrap();
        let again_client = parquet_fake("nc_arrow.parq", "n.parq", &[]);
        let again = block_on(ReferenceStore::from_document(
            url,
            &json,
            again_client.clone(),
            options(),
        ))
        .unwrap();
        assert!(urls(&again_client).is_empty());
        for key in [".zgroup", "tas/.zarray", "tas/0.0.0", "tas/1.0.1"] {
            assert_eq!(
                block_on(again.get(key)).unwrap(),
                block_on(first.get(key)).unwrap(),
                "{key}"
            );
        }
        assert_eq!(again.references().label(), url);
        // A damaged document is an error naming where it was read from.
        let err = block_on(ReferenceStore::from_document(
            "http://h/refs/n.parq",
            b"{",
            again_client,
            options(),
        ))
        .err()
        .unwrap();
        assert!(
            err.message.contains("http://h/refs/n.parq/.zmetadata"),
            "{err}"
        );
    }

    /// The fixture directory `name` (below tests/fixtures/references/) served at
    /// http://h/refs/<served>/, with data.h5 and data.nc beside it, and `extra` files.
    fn parquet_fake(name: &str, served: &str, extra: &[(&str, Vec<u8>)]) -> Fake {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/references/");
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        let dir = std::path::Path::new(root).join(name);
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = |p: &std::path::Path| p.strip_prefix(&dir).unwrap().display().to_string();
            if path.is_dir() {
                for file in std::fs::read_dir(&path).unwrap() {
                    let file = file.unwrap().path();
                    files.push((rel(&file), std::fs::read(&file).unwrap()));
                }
            } else {
                files.push((rel(&path), std::fs::read(&path).unwrap()));
            }
        }
        let mut all: Vec<(String, Vec<u8>)> = files
            .into_iter()
            .map(|(rel, b)| (format!("http://h/refs/{served}/{rel}"), b))
            .collect();
        for target in ["data.h5", "data.nc"] {
            all.push((
                format!("http://h/refs/{target}"),
                std::fs::read(format!("{root}{target}")).unwrap(),
            ));
        }
        all.extend(extra.iter().map(|(u, b)| (u.to_string(), b.clone())));
        let refs: Vec<(&str, Vec<u8>)> = all.iter().map(|(u, b)| (u.as_str(), b.clone())).collect();
        fake(&refs)
    }

    fn urls(client: &Fake) -> Vec<String> {
        client.seen.borrow().iter().map(|r| r.url.clone()).collect()
    }

    #[test]
    fn parquet_references_are_recognised_by_their_url_and_read_lazily() {
        let client = parquet_fake("h5.parq", "h5.parq", &[]);
        let options = ReferenceOptions::default;
        // The directory's URL, with or without its slash, or its .zmetadata's.
        for url in [
            "http://h/refs/h5.parq",
            "http://h/refs/h5.parq/",
            "http://h/refs/h5.parq/.zmetadata",
        ] {
            let store = block_on(ReferenceStore::open(url, client.clone(), options())).unwrap();
            assert!(store.is_parquet(), "{url}");
            assert_eq!(store.references().label(), "http://h/refs/h5.parq");
        }
        client.seen.borrow_mut().clear();
        let store = block_on(ReferenceStore::open(
            "http://h/refs/h5.parq",
            client.clone(),
            options(),
        ))
        .unwrap();
        assert_eq!(urls(&client), ["http://h/refs/h5.parq/.zmetadata"]);
        // Metadata from .zmetadata, with no request; and a consolidated .zmetadata of it.
        let zarray = block_on(store.get("counts/.zarray")).unwrap().unwrap();
        let zarray: Json = serde_json::from_slice(&zarray).unwrap();
        assert_eq!(zarray["chunks"], serde_json::json!([5, 5]));
        let zmeta = block_on(store.get(".zmetadata")).unwrap().unwrap();
        let zmeta: Json = serde_json::from_slice(&zmeta).unwrap();
        assert_eq!(zmeta["zarr_consolidated_format"], 1);
        assert!(zmeta["metadata"]["temperature/.zattrs"].is_object());
        assert_eq!(urls(&client).len(), 1);
        // counts is 4 x 3 chunks, two a file: chunk (0, 2) is row 0 of refs.1.parq, which is
        // missing (none of its chunks was written); (0, 1) is row 1 of refs.0.parq, inline.
        assert_eq!(block_on(store.get("counts/0.2")).unwrap(), None);
        assert_eq!(block_on(store.get("counts/1.0")).unwrap(), None);
        let inline = block_on(store.get("counts/0.1")).unwrap().unwrap();
        assert!(!inline.is_empty());
        assert_eq!(
            &urls(&client)[1..],
            [
                "http://h/refs/h5.parq/counts/refs.1.parq",
                "http://h/refs/h5.parq/counts/refs.0.parq"
            ],
            "each reference file once, only those asked for"
        );
        // A chunk outside the grid, of no array, or a bad key: missing, with no request.
        for key in ["counts/4.0", "nothing/0.0", "counts/x", "counts/0.0.0"] {
            assert_eq!(block_on(store.get(key)).unwrap(), None, "{key}");
        }
        assert_eq!(urls(&client).len(), 3);
        // A range reference: the bytes of data.h5 (relative to the directory: "../data.h5").
        let bytes = block_on(store.get("contiguous/0.0")).unwrap().unwrap();
        let h5 = &client.files["http://h/refs/data.h5"];
        let record = Record::read(
            &client.files["http://h/refs/h5.parq/contiguous/refs.0.parq"],
            Bounds {
                max_rows: 2,
                max_bytes: 1 << 20,
            },
        )
        .unwrap();
        let Entry::Span { offset, length, .. } = record.rows[0] else {
            panic!("{:?}", record.rows[0])
        };
        assert_eq!(bytes, h5[offset as usize..(offset + length) as usize]);
        let range = block_on(store.get_range(
            "contiguous/0.0",
            ByteRange::Span {
                offset: 4,
                length: 8,
            },
        ))
        .unwrap()
        .unwrap();
        assert_eq!(range, bytes[4..12]);
    }

    #[test]
    fn parquet_reads_of_one_turn_share_a_reference_file_and_merge_their_ranges() {
        let client = parquet_fake("nc_snappy.parq", "nc.parq", &[]);
        let store = block_on(ReferenceStore::open(
            "http://h/refs/nc.parq/",
            client.clone(),
            ReferenceOptions::default(),
        ))
        .unwrap();
        // tas: 3 x 2 x 2 chunks, 5 a file: chunks 0..4 in refs.0.parq, in data.nc close together.
        let keys = [
            "tas/0.0.0",
            "tas/0.0.1",
            "tas/0.1.0",
            "tas/0.1.1",
            "tas/1.0.0",
        ];
        let got = block_on(join_all(keys.iter().map(|k| store.get(k))));
        assert!(got
            .iter()
            .all(|g| matches!(g, Ok(Some(b)) if !b.is_empty())));
        let seen = client.seen.borrow();
        let refs: Vec<&str> = seen
            .iter()
            .filter(|r| r.url.ends_with(".parq"))
            .map(|r| r.url.as_str())
            .collect();
        assert_eq!(refs, ["http://h/refs/nc.parq/tas/refs.0.parq"]);
        let targets: Vec<_> = seen.iter().filter(|r| r.url.ends_with("data.nc")).collect();
        assert_eq!(
            targets.len(),
            1,
            "five chunks' ranges in one request: {targets:?}"
        );
        drop(seen);
        // Read again: from the cache.
        client.seen.borrow_mut().clear();
        block_on(store.get("tas/0.0.0")).unwrap().unwrap();
        assert!(urls(&client).iter().all(|u| u.ends_with("data.nc")));
    }

    #[test]
    fn a_directory_url_without_suffix_is_tried_when_no_json_file_is_there() {
        let client = parquet_fake("nc_arrow.parq", "plain", &[]);
        let store = block_on(ReferenceStore::open(
            "http://h/refs/plain",
            client.clone(),
            ReferenceOptions::default(),
        ))
        .unwrap();
        assert!(store.is_parquet());
        assert_eq!(
            urls(&client),
            ["http://h/refs/plain", "http://h/refs/plain/.zmetadata"]
        );
        let err = block_on(ReferenceStore::open(
            "http://h/refs/none",
            client.clone(),
            ReferenceOptions::default(),
        ))
        .err()
        .unwrap();
        assert_eq!(err.kind, ErrorKind::NotFound);
        assert!(
            err.message
                .contains("no reference file at http://h/refs/none"),
            "{}",
            err.message
        );
        let err = block_on(ReferenceStore::open(
            "http://h/refs/none.parq",
            client,
            ReferenceOptions::default(),
        ))
        .err()
        .unwrap();
        assert!(
            err.message
                .contains("no Parquet references at http://h/refs/none.parq/.zmetadata"),
            "{}",
            err.message
        );
    }

    #[test]
    fn the_record_cache_drops_the_least_recently_used_past_its_capacity() {
        let record = || {
            Some(Rc::new(LoadedRecord {
                record: Record::default(),
                targets: Vec::new(),
            }))
        };
        // Each empty record counts 64 bytes: three fit in 200.
        let mut cache = RecordCache {
            entries: HashMap::new(),
            used: 0,
            capacity: 200,
            tick: 0,
        };
        let key = |n: u64| ("a".to_string(), n);
        for n in 0..3 {
            cache.insert(key(n), record());
        }
        assert!(cache.get(&key(0)).is_some());
        cache.insert(key(3), record());
        assert!(
            cache.get(&key(1)).is_none(),
            "the least recently used is dropped"
        );
        for n in [0, 2, 3] {
            assert!(cache.get(&key(n)).is_some(), "{n}");
        }
        assert_eq!(cache.used, 192);
        // A missing file is kept too (as None), and the same key replaces its entry.
        cache.insert(key(3), None);
        assert!(matches!(cache.get(&key(3)), Some(None)));
        assert_eq!(cache.used, 192);
        // Larger than the whole cache: not kept.
        cache.capacity = 10;
        cache.insert(key(9), record());
        assert!(cache.get(&key(9)).is_none());
    }

    #[test]
    fn bad_parquet_references_are_errors_naming_the_file_and_the_column() {
        let bad_meta = br#"{"metadata": {}, "record_size": -1}"#.to_vec();
        let client = parquet_fake(
            "nc_arrow.parq",
            "n.parq",
            &[("http://h/refs/bad.parq/.zmetadata", bad_meta)],
        );
        let err = block_on(ReferenceStore::open(
            "http://h/refs/bad.parq",
            client.clone(),
            ReferenceOptions::default(),
        ))
        .err()
        .unwrap();
        assert!(
            err.message.contains("http://h/refs/bad.parq/.zmetadata")
                && err.message.contains("record_size"),
            "{}",
            err.message
        );
        // A reference file cut short, and one whose path column is damaged.
        let file = client.files["http://h/refs/n.parq/tas/refs.0.parq"].clone();
        let mut damaged = file.clone();
        let at = damaged.windows(4).position(|w| w == b"data").unwrap();
        damaged[at - 6] ^= 0x40;
        let files = [
            (
                "http://h/refs/n.parq/tas/refs.0.parq",
                file[..file.len() - 1].to_vec(),
            ),
            ("http://h/refs/n.parq/tas/refs.1.parq", damaged),
        ];
        let client = parquet_fake("nc_arrow.parq", "n.parq", &files);
        let store = block_on(ReferenceStore::open(
            "http://h/refs/n.parq",
            client,
            ReferenceOptions::default(),
        ))
        .unwrap();
        let err = block_on(store.get("tas/0.0.0")).unwrap_err();
        assert!(
            err.message.contains("http://h/refs/n.parq/tas/refs.0.parq")
                && err.message.contains("not a Parquet file"),
            "{}",
            err.message
        );
        let err = block_on(store.get("tas/1.0.1")).unwrap_err();
        assert!(
            err.message.contains("http://h/refs/n.parq/tas/refs.1.parq")
                && err.message.contains("column \"path\""),
            "{}",
            err.message
        );
        // A record size above maxRefs.
        let client = parquet_fake("nc_arrow.parq", "n.parq", &[]);
        let options = ReferenceOptions {
            max_refs: 4,
            ..ReferenceOptions::default()
        };
        let err = block_on(ReferenceStore::open(
            "http://h/refs/n.parq",
            client,
            options,
        ))
        .err()
        .unwrap();
        assert!(err.message.contains("maxRefs"), "{}", err.message);
    }
}
