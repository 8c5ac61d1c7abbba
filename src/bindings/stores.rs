//! The stores of the JS API, as the core reads them: HTTP (`FetchStore`), any JS object with
//! `get(key, options)` and optionally `getRange(key, range, options)` (memory, files, the user's
//! own), and ZIP archives inside either. Each is a `Source`: the store itself, and the view of it
//! that a read with an `AbortSignal` goes through.

use super::errors::js_error;
use super::fetch::FetchClient;
use super::guarded;
use super::signal::SignalWatch;
use crate::error::{ErrorKind, Result, ZarrError};
use crate::store::cache::{CachedStore, StoreCache};
use crate::store::documents::{Documents, ReplayingStore, MAX_RECORDED_BYTES};
use crate::store::http::HttpStore;
#[cfg(feature = "icechunk")]
use crate::store::icechunk::{IcechunkOptions, IcechunkStore};
#[cfg(feature = "references")]
use crate::store::reference::{ReferenceOptions, ReferenceStore};
#[cfg(feature = "zip")]
use crate::store::zip::ZipStore;
use crate::store::{ByteRange, ReadHints, ReadableStore};
use async_trait::async_trait;
use js_sys::{Function, Object, Promise, Reflect};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

pub trait Source {
    /// The store, for reads without a signal.
    fn store(&self) -> Rc<dyn ReadableStore>;
    /// The store passing `signal` to everything it asks for, and stopping when it aborts.
    fn with_signal(&self, signal: &Rc<SignalWatch>) -> Rc<dyn ReadableStore>;
    /// The id of the snapshot an Icechunk repository's store reads (its branch or tag resolved
    /// when it was opened); None for other stores.
    fn snapshot_id(&self) -> Option<String> {
        None
    }
}

/// The store a read goes through: `source`'s, or with an `AbortSignal` its view for that signal.
pub fn reading(
    source: &dyn Source,
    signal: &JsValue,
) -> std::result::Result<Rc<dyn ReadableStore>, JsValue> {
    Ok(match watched(signal)? {
        Some(watch) => source.with_signal(&watch),
        None => source.store(),
    })
}

/// `signal` (an `AbortSignal`, or undefined or null for none) watched for its abort.
fn watched(signal: &JsValue) -> std::result::Result<Option<Rc<SignalWatch>>, JsValue> {
    if signal.is_undefined() || signal.is_null() {
        return Ok(None);
    }
    let signal: AbortSignal = signal
        .clone()
        .dyn_into()
        .map_err(|_| js_error(ZarrError::selection("signal must be an AbortSignal")))?;
    Ok(Some(SignalWatch::new(signal)))
}

/// `client`, or its view that passes `signal` to its requests (for a store's opening reads).
#[cfg(any(feature = "references", feature = "icechunk"))]
fn opening_client(
    client: &FetchClient,
    signal: &JsValue,
) -> std::result::Result<FetchClient, JsValue> {
    Ok(match watched(signal)? {
        Some(watch) => client.with_signal(&watch),
        None => client.clone(),
    })
}

/// A source whose every view shares one cache: identical requests in flight are one, and up to
/// its size of recent values are kept.
pub struct CachedSource {
    inner: Rc<dyn Source>,
    cache: Rc<StoreCache>,
}

impl CachedSource {
    pub fn wrap(inner: Rc<dyn Source>, bytes: usize) -> Rc<dyn Source> {
        Rc::new(CachedSource {
            inner,
            cache: StoreCache::new(bytes),
        })
    }
}

impl Source for CachedSource {
    fn store(&self) -> Rc<dyn ReadableStore> {
        Rc::new(CachedStore::new(self.inner.store(), self.cache.clone()))
    }

    fn with_signal(&self, signal: &Rc<SignalWatch>) -> Rc<dyn ReadableStore> {
        Rc::new(CachedStore::new(
            self.inner.with_signal(signal),
            self.cache.clone(),
        ))
    }

    fn snapshot_id(&self) -> Option<String> {
        self.inner.snapshot_id()
    }
}

/// A source that answers whole reads of recorded documents from them (see `store::documents`).
pub struct ReplayingSource {
    inner: Rc<dyn Source>,
    known: Rc<Documents>,
}

impl ReplayingSource {
    pub fn wrap(inner: Rc<dyn Source>, known: Documents) -> Rc<dyn Source> {
        Rc::new(ReplayingSource {
            inner,
            known: Rc::new(known),
        })
    }
}

impl Source for ReplayingSource {
    fn store(&self) -> Rc<dyn ReadableStore> {
        Rc::new(ReplayingStore::new(self.inner.store(), self.known.clone()))
    }

    fn with_signal(&self, signal: &Rc<SignalWatch>) -> Rc<dyn ReadableStore> {
        Rc::new(ReplayingStore::new(
            self.inner.with_signal(signal),
            self.known.clone(),
        ))
    }
}

/// Values by key as JS: `[[key, Uint8Array or null], ...]` (recorded documents, shard indexes).
pub fn keyed_bytes_to_js<B: AsRef<Vec<u8>>>(
    entries: impl IntoIterator<Item = (String, Option<B>)>,
) -> JsValue {
    let list = js_sys::Array::new();
    for (key, value) in entries {
        let bytes = value.map_or(JsValue::NULL, |v| {
            js_sys::Uint8Array::from(&v.as_ref()[..]).into()
        });
        list.push(&js_sys::Array::of2(&key.into(), &bytes));
    }
    list.into()
}

/// Values by key from JS (see `keyed_bytes_to_js`), read through `guarded`: at most
/// `max_entries`, each at most `max_bytes`; `what` names them in errors.
pub fn keyed_bytes_from_js(
    value: &JsValue,
    max_entries: usize,
    max_bytes: usize,
    what: &str,
) -> Result<Vec<(String, Option<Vec<u8>>)>> {
    let bad = |why: String| ZarrError::selection(format!("{what}: {why}"));
    let entries = guarded::elements(value, max_entries)
        .map_err(bad)?
        .ok_or_else(|| bad("not an array".to_string()))?;
    let mut known = Vec::with_capacity(entries.len());
    for entry in entries {
        let pair = guarded::elements(&entry, 2).map_err(bad)?;
        let (key, bytes) = match pair.as_deref() {
            Some([key, bytes]) => (key.as_string(), bytes),
            _ => return Err(bad("an entry is not a [key, bytes] pair".to_string())),
        };
        let key = key.ok_or_else(|| bad("a key is not a string".to_string()))?;
        let value = if bytes.is_null() {
            None
        } else {
            let view = guarded::bytes(bytes)
                .ok_or_else(|| bad(format!("the value of {key} is not bytes")))?;
            if view.length() as usize > max_bytes {
                return Err(bad(format!(
                    "the value of {key} is larger than {max_bytes} bytes"
                )));
            }
            Some(view.to_vec())
        };
        known.push((key, value));
    }
    Ok(known)
}

/// Recorded documents from JS: at most 256, each at most `MAX_RECORDED_BYTES`.
pub fn documents_from_js(value: &JsValue) -> Result<Documents> {
    keyed_bytes_from_js(value, 256, MAX_RECORDED_BYTES, "recorded documents")
}

pub struct HttpSource(pub Rc<HttpStore<FetchClient>>);

impl Source for HttpSource {
    fn store(&self) -> Rc<dyn ReadableStore> {
        self.0.clone()
    }

    fn with_signal(&self, signal: &Rc<SignalWatch>) -> Rc<dyn ReadableStore> {
        Rc::new(self.0.with_client(self.0.client().with_signal(signal)))
    }
}

/// A store written in JavaScript.
pub struct JsSource {
    store: JsValue,
    /// Names the store in messages (its URL or kind).
    label: String,
}

impl JsSource {
    pub fn new(store: JsValue, label: String) -> std::result::Result<JsSource, ZarrError> {
        let get = Reflect::get(&store, &"get".into()).unwrap_or(JsValue::UNDEFINED);
        if !get.is_function() {
            return Err(ZarrError::selection(
                "a store must be a URL, a FetchStore or an object with a get(key, options) method",
            ));
        }
        Ok(JsSource { store, label })
    }

    fn view(&self, signal: Option<Rc<SignalWatch>>) -> JsStore {
        JsStore {
            store: self.store.clone(),
            label: self.label.clone(),
            signal,
        }
    }
}

impl Source for JsSource {
    fn store(&self) -> Rc<dyn ReadableStore> {
        Rc::new(self.view(None))
    }

    fn with_signal(&self, signal: &Rc<SignalWatch>) -> Rc<dyn ReadableStore> {
        Rc::new(self.view(Some(signal.clone())))
    }
}

/// A ZIP archive in another store (`ZipStore`).
#[cfg(feature = "zip")]
pub struct ZipSource {
    inner: Rc<dyn Source>,
    zip: Rc<ZipStore>,
}

#[cfg(feature = "zip")]
impl ZipSource {
    /// Reads the directory of the archive at `key` of `inner`.
    pub async fn open(
        inner: Rc<dyn Source>,
        key: &str,
        signal: &JsValue,
    ) -> std::result::Result<ZipSource, JsValue> {
        let store = reading(&*inner, signal)?;
        let zip = ZipStore::open(store, key).await.map_err(js_error)?;
        // Later reads go through the plain store, or their own signal's view.
        let zip = Rc::new(zip.with_inner(inner.store()));
        Ok(ZipSource { inner, zip })
    }
}

#[cfg(feature = "zip")]
impl Source for ZipSource {
    fn store(&self) -> Rc<dyn ReadableStore> {
        self.zip.clone()
    }

    fn with_signal(&self, signal: &Rc<SignalWatch>) -> Rc<dyn ReadableStore> {
        Rc::new(self.zip.with_inner(self.inner.with_signal(signal)))
    }
}

/// kerchunk references (`ReferenceStore`): the reference file read once, its targets over HTTP.
#[cfg(feature = "references")]
pub struct ReferenceSource(Rc<ReferenceStore<FetchClient>>);

#[cfg(feature = "references")]
impl ReferenceSource {
    /// Reads the reference file at `url`, or parses `text` (a reference object's JSON), the file
    /// asked for through `signal`; given both, `text` is the document read from `url` before (a
    /// JSON file, or a Parquet directory's `.zmetadata`), opened again from it with no request.
    pub async fn open(
        url: Option<String>,
        text: Option<String>,
        options: ReferenceOptions,
        client: FetchClient,
        signal: &JsValue,
    ) -> std::result::Result<ReferenceSource, JsValue> {
        let opening = opening_client(&client, signal)?;
        let store = match (url, text) {
            (Some(url), Some(text)) => {
                ReferenceStore::from_document(&url, text.as_bytes(), opening, options).await
            }
            (None, Some(text)) => {
                ReferenceStore::from_bytes(text.as_bytes(), None, opening, options).await
            }
            (Some(url), None) => ReferenceStore::open(&url, opening, options).await,
            (None, None) => Err(ZarrError::selection(
                "a ReferenceStore needs the URL of a reference file or a reference object",
            )),
        }
        .map_err(js_error)?;
        // Later reads go through the plain client, or their own signal's.
        Ok(ReferenceSource(Rc::new(store.with_client(client))))
    }
}

#[cfg(feature = "references")]
impl Source for ReferenceSource {
    fn store(&self) -> Rc<dyn ReadableStore> {
        self.0.clone()
    }

    fn with_signal(&self, signal: &Rc<SignalWatch>) -> Rc<dyn ReadableStore> {
        Rc::new(self.0.with_client(self.0.client().with_signal(signal)))
    }
}

/// A version of an Icechunk repository (`IcechunkStore`): its ref and snapshot read once,
/// manifests and chunks over HTTP as reads need them.
#[cfg(feature = "icechunk")]
pub struct IcechunkSource(Rc<IcechunkStore<FetchClient>>);

#[cfg(feature = "icechunk")]
impl IcechunkSource {
    /// Opens the repository at `url`, its ref and snapshot asked for through `signal`.
    pub async fn open(
        url: String,
        options: IcechunkOptions,
        client: FetchClient,
        signal: &JsValue,
    ) -> std::result::Result<IcechunkSource, JsValue> {
        let opening = opening_client(&client, signal)?;
        let store = IcechunkStore::open(&url, opening, options)
            .await
            .map_err(js_error)?;
        // Later reads go through the plain client, or their own signal's.
        Ok(IcechunkSource(Rc::new(store.with_client(client))))
    }
}

#[cfg(feature = "icechunk")]
impl Source for IcechunkSource {
    fn store(&self) -> Rc<dyn ReadableStore> {
        self.0.clone()
    }

    fn with_signal(&self, signal: &Rc<SignalWatch>) -> Rc<dyn ReadableStore> {
        Rc::new(self.0.with_client(self.0.client().with_signal(signal)))
    }

    fn snapshot_id(&self) -> Option<String> {
        Some(self.0.snapshot_id())
    }
}

/// One view of a JS store: its calls carry `signal`, and stop waiting for the store when it
/// aborts (a store may ignore the signal it is given).
struct JsStore {
    store: JsValue,
    label: String,
    signal: Option<Rc<SignalWatch>>,
}

impl JsStore {
    /// `{ signal }`, the options every call gets.
    fn options(&self) -> JsValue {
        let options = Object::new();
        if let Some(watch) = &self.signal {
            let _ = Reflect::set(&options, &"signal".into(), &watch.signal);
        }
        options.into()
    }

    /// The store's method `method`, where it has one.
    fn method(&self, method: &str) -> Option<Function> {
        Reflect::get(&self.store, &method.into())
            .ok()
            .filter(JsValue::is_function)
            .map(JsCast::unchecked_into)
    }

    /// The names directly below `prefix` among the keys of `store.keys()`, where there is one.
    async fn children_among_keys(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        let Some(f) = self.method("keys") else {
            return Ok(None);
        };
        let Some(keys) = self.invoke(&f, prefix, &[]).await? else {
            return Ok(None);
        };
        let not_keys = || {
            ZarrError::store(
                &self.locate(prefix),
                format!(
                    "store.keys() gave {}, not an iterable of string keys",
                    guarded::show(&keys)
                ),
            )
        };
        let iter = js_sys::try_iter(&keys)
            .ok()
            .flatten()
            .ok_or_else(not_keys)?;
        let mut all = Vec::new();
        for key in iter {
            all.push(key.ok().and_then(|k| k.as_string()).ok_or_else(not_keys)?);
            if all.len() % 4096 == 0 {
                crate::host::yield_if_busy().await;
            }
        }
        Ok(Some(crate::store::children_of(
            all.iter().map(String::as_str),
            prefix,
        )))
    }

    /// Calls `f` with `args` and awaits what it returns (None for undefined or null); a rejection
    /// is the store's failure at `key`, or the caller's abort.
    async fn invoke(&self, f: &Function, key: &str, args: &[JsValue]) -> Result<Option<JsValue>> {
        self.invoke_to(f, key, args, "read").await
    }

    /// `invoke`, its failure said to `verb` the key ("read", "write", "delete"). An aborted
    /// write or delete settles after the store's promise does.
    async fn invoke_to(
        &self,
        f: &Function,
        key: &str,
        args: &[JsValue],
        verb: &str,
    ) -> Result<Option<JsValue>> {
        if self.cancelled() {
            return Err(ZarrError::aborted(&self.locate(key)));
        }
        let failed = |e: JsValue| self.failure(&self.locate(key), e, verb);
        let returned = f
            .apply(&self.store, &args.iter().collect())
            .map_err(failed)?;
        // A store that answers at once (a MemoryStore's get) is taken at its word: no promise,
        // no microtask, no callbacks for a value already there.
        let thenable = returned.is_object()
            && Reflect::get(&returned, &"then".into()).is_ok_and(|t| t.is_function());
        if !thenable {
            return Ok((!returned.is_undefined() && !returned.is_null()).then_some(returned));
        }
        let answer = JsFuture::from(Promise::resolve(&returned));
        let aborted = self.aborted();
        futures_util::pin_mut!(aborted);
        let value = match futures_util::future::select(answer, aborted).await {
            futures_util::future::Either::Left((answer, _)) => answer.map_err(failed)?,
            futures_util::future::Either::Right(((), answer)) => {
                if verb != "read" {
                    // The store was handed the signal too and ends its write with it; until
                    // then the key may still change (a file renamed over it, a temporary file
                    // not yet removed). The write's promise rejects once that is over, so that
                    // nothing is written after it: waited for up to WRITE_SETTLE_MS, for a
                    // store that does not watch the signal. A write the store finished all the
                    // same is said to be done, so that the node's caches follow it (the writer
                    // stops at its next check of the signal).
                    let settle = super::fetch::sleep(WRITE_SETTLE_MS);
                    futures_util::pin_mut!(settle);
                    if let futures_util::future::Either::Left((Ok(value), _)) =
                        futures_util::future::select(answer, settle).await
                    {
                        return Ok((!value.is_undefined() && !value.is_null()).then_some(value));
                    }
                }
                return Err(ZarrError::aborted(&self.locate(key)));
            }
        };
        Ok((!value.is_undefined() && !value.is_null()).then_some(value))
    }

    /// Calls `method` with `args` and awaits what it returns: bytes, or nothing.
    async fn call(&self, method: &str, key: &str, args: &[JsValue]) -> Result<Option<Vec<u8>>> {
        // Where `key` is, for messages: made only when one is needed.
        let location = || self.locate(key);
        let f = self.method(method).ok_or_else(|| {
            ZarrError::store(&location(), format!("the store has no {method} method"))
        })?;
        let Some(value) = self.invoke(&f, key, args).await? else {
            return Ok(None);
        };
        // Read through the module's own view of it: a Proxy of a Uint8Array or a subclass whose
        // `length` throws is not bytes, and cannot throw through the module (see `guarded`).
        let Some(bytes) = guarded::bytes(&value) else {
            return Err(ZarrError::store(
                &location(),
                format!(
                    "store.{method} resolved to {}, not a Uint8Array, an ArrayBuffer or undefined",
                    guarded::show(&value)
                ),
            ));
        };
        let mut out = crate::collections::buffer::try_zeroed(bytes.length() as usize)
            .map_err(|e| ZarrError::store(&location(), e))?;
        bytes.copy_to(&mut out);
        Ok(Some(out))
    }

    /// A rejection of the store's: the caller's abort, or the store's own failure.
    fn failure(&self, location: &str, err: JsValue, verb: &str) -> ZarrError {
        let name = Reflect::get(&err, &"name".into())
            .ok()
            .and_then(|n| n.as_string());
        if self.cancelled() || name.as_deref() == Some("AbortError") {
            return ZarrError::aborted(location);
        }
        let message = Reflect::get(&err, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| format!("it failed with {}", guarded::show(&err)));
        ZarrError::new(
            ErrorKind::Store,
            format!("cannot {verb} {location}: {message}"),
        )
    }
}

/// Whether `len` bytes are more than `range` can hold (a value's end may make them fewer).
fn range_overrun(range: ByteRange, len: u64) -> bool {
    match range {
        ByteRange::Span { length, .. } => len > length,
        ByteRange::Suffix(n) => len > n,
        ByteRange::From(_) => false,
    }
}

fn describe_range(range: ByteRange) -> String {
    match range {
        ByteRange::Span { offset, length } => format!("the {length} bytes from offset {offset}"),
        ByteRange::Suffix(n) => format!("the last {n} bytes"),
        ByteRange::From(offset) => format!("the bytes from offset {offset}"),
    }
}

/// The most names a store's `list` may give for one prefix.
const MAX_LISTED: usize = 1 << 20;

/// How long an aborted write waits for its store to end the write it was given (see
/// `invoke_to`).
const WRITE_SETTLE_MS: u32 = 10_000;

/// A byte range as stores of the JS API take it: `{ offset, length }` or `{ suffixLength }`.
fn range_to_js(range: ByteRange) -> JsValue {
    let obj = Object::new();
    let set = |k: &str, v: u64| {
        let _ = Reflect::set(&obj, &k.into(), &JsValue::from_f64(v as f64));
    };
    match range {
        ByteRange::Span { offset, length } => {
            set("offset", offset);
            set("length", length);
        }
        ByteRange::From(offset) => set("offset", offset),
        ByteRange::Suffix(n) => set("suffixLength", n),
    }
    obj.into()
}

#[async_trait(?Send)]
impl ReadableStore for JsStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.call("get", key, &[key.into(), self.options()]).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        let has_range = self.method("getRange").is_some();
        if has_range {
            let bytes = self
                .call(
                    "getRange",
                    key,
                    &[key.into(), range_to_js(range), self.options()],
                )
                .await?;
            return match bytes {
                Some(b) if range_overrun(range, b.len() as u64) => Err(ZarrError::store(
                    &self.locate(key),
                    format!(
                        "store.getRange gave {} bytes for {}",
                        b.len(),
                        describe_range(range)
                    ),
                )),
                other => Ok(other),
            };
        }
        // A store that only gives whole values: cut the range from them.
        Ok(self.get(key).await?.map(|v| range.cut(&v).to_vec()))
    }

    /// `store.list(prefix)`, where the store has one: the names below `prefix`. A store that
    /// holds every key (a `Map`, a MemoryStore) may give `keys()` instead: the names below
    /// `prefix` are then found among them here, as for the core's own stores.
    async fn list_dir(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        let location = self.locate(prefix);
        let Some(f) = self.method("list") else {
            return self.children_among_keys(prefix).await;
        };
        let args = [JsValue::from(prefix), self.options()];
        let Some(value) = self.invoke(&f, prefix, &args).await? else {
            return Ok(None);
        };
        let not_names = || {
            ZarrError::store(
                &location,
                format!(
                    "store.list resolved to {}, not a list of names",
                    guarded::show(&value)
                ),
            )
        };
        let names = guarded::elements(&value, MAX_LISTED)
            .map_err(|e| ZarrError::store(&location, format!("store.list's answer: {e}")))?
            .ok_or_else(not_names)?
            .iter()
            .map(JsValue::as_string)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(not_names)?;
        Ok(Some(names))
    }

    fn locate(&self, key: &str) -> String {
        if key.is_empty() {
            self.label.clone()
        } else {
            format!("{}/{key}", self.label.trim_end_matches('/'))
        }
    }

    async fn batch_window(&self) {
        // Reads started together get their turn first, so their ranges go as one batch.
        super::fetch::sleep(0).await;
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

    /// A store with `set` and `delete` writes.
    #[cfg(feature = "write")]
    fn writable(&self) -> Option<&dyn crate::store::WritableStore> {
        (self.method("set").is_some() && self.method("delete").is_some())
            .then_some(self as &dyn crate::store::WritableStore)
    }

    fn hints(&self) -> ReadHints {
        // Without getRange every range is cut from a whole value: read shards whole.
        let has_range = self.method("getRange").is_some();
        ReadHints {
            whole_values: !has_range,
            ..ReadHints::default()
        }
    }
}

/// Writing through a store of the JS API: `set(key, bytes, { signal })` and `delete(key, {
/// signal })`, each awaited; erasing below a prefix deletes the keys `keys()` or `list()` find.
#[cfg(feature = "write")]
#[async_trait(?Send)]
impl crate::store::WritableStore for JsStore {
    async fn set(&self, key: &str, value: Vec<u8>) -> Result<()> {
        let f = self
            .method("set")
            .ok_or_else(|| no_method(self, key, "set"))?;
        let bytes = js_sys::Uint8Array::from(&value[..]);
        self.invoke_to(
            &f,
            key,
            &[key.into(), bytes.into(), self.options()],
            "write",
        )
        .await
        .map(drop)
    }

    async fn erase(&self, key: &str) -> Result<()> {
        let f = self
            .method("delete")
            .ok_or_else(|| no_method(self, key, "delete"))?;
        self.invoke_to(&f, key, &[key.into(), self.options()], "delete")
            .await
            .map(drop)
    }

    async fn erase_prefix(&self, prefix: &str) -> Result<()> {
        let keys = self.keys_below(prefix).await?;
        for (n, key) in keys.iter().enumerate() {
            crate::store::WritableStore::erase(self, key).await?;
            if n % 256 == 255 {
                crate::host::yield_if_busy().await;
            }
        }
        Ok(())
    }
}

#[cfg(feature = "write")]
fn no_method(store: &JsStore, key: &str, method: &str) -> ZarrError {
    ZarrError::unsupported(
        &store.locate(key),
        format!("the store has no {method} method, so it cannot write"),
    )
}

#[cfg(feature = "write")]
impl JsStore {
    /// Every key that starts with `prefix`: among `keys()`, or found by walking `list()` down
    /// from it (each name listed is a key or a directory; both are taken, deleting a name that
    /// is no key does nothing).
    async fn keys_below(&self, prefix: &str) -> Result<Vec<String>> {
        if let Some(f) = self.method("keys") {
            if let Some(keys) = self.invoke(&f, prefix, &[]).await? {
                let iter = js_sys::try_iter(&keys).ok().flatten().ok_or_else(|| {
                    ZarrError::store(&self.locate(prefix), "store.keys() is not iterable")
                })?;
                let mut below = Vec::new();
                for key in iter {
                    if let Some(k) = key.ok().and_then(|k| k.as_string()) {
                        if k.starts_with(prefix) {
                            below.push(k);
                        }
                    }
                }
                return Ok(below);
            }
        }
        if self.method("list").is_none() {
            return Err(ZarrError::unsupported(
                &self.locate(prefix),
                "the store has neither keys() nor list(), so what lies below a path cannot be erased",
            ));
        }
        let mut found = Vec::new();
        let mut dirs = vec![prefix.trim_end_matches('/').to_string()];
        while let Some(dir) = dirs.pop() {
            // Nothing listed: a key, not a directory.
            let Some(names) = self.list_dir(&dir).await? else {
                continue;
            };
            for name in names {
                let key = if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                };
                if found.len() >= MAX_LISTED {
                    return Err(ZarrError::store(
                        &self.locate(prefix),
                        format!("more than {MAX_LISTED} keys to erase below it"),
                    ));
                }
                found.push(key.clone());
                dirs.push(key);
            }
        }
        Ok(found)
    }
}
