//! The binding layer: the only code that knows about JavaScript. It turns JS arguments into core
//! types, core results into typed arrays and plain objects, and core errors into JS `Error`s.
//! The npm package's `index.js` wraps these exports in the public API.

mod codec;
mod errors;
// The second module's JS side, where its decoders are not linked in (the npm package's build).
#[cfg(not(feature = "extra-codecs"))]
#[cfg(feature = "all-codecs")]
mod extra;
mod fetch;
mod guarded;
mod heap;
mod host;
mod info;
mod js;
mod options;
mod selection;
mod signal;
mod stores;
mod typed;
#[cfg(feature = "vectors")]
mod vectors;
#[cfg(feature = "write")]
mod write;

use crate::array::Array;
use crate::array::{ReadOptions, MAX_INDEX_BYTES};
use crate::hierarchy::group::Group;
use crate::hierarchy::node::{open_with, Node};
use crate::host::timing::{timed, Phase};
use crate::json_text::object_text;
use crate::store::counting::CountingStore;
use crate::store::documents::{Documents, RecordingStore, ReplayingStore};
use crate::store::http::HttpStore;
use crate::store::ReadableStore;
use errors::js_error;
use info::{array_info, chunk_extent, group_info};
use selection::{parse_coords, parse_selection};
use std::rc::Rc;
use stores::{CachedSource, HttpSource, JsSource, Source};
use typed::array_data_to_js;
use wasm_bindgen::prelude::*;

pub use codec::WasmBytesCodec;
pub use fetch::FetchClient;

#[global_allocator]
static ALLOCATOR: heap::CountingAllocator = heap::CountingAllocator;

/// Bytes of the module's heap in use now (allocated and not freed).
#[wasm_bindgen(js_name = heapBytes)]
pub fn heap_bytes() -> f64 {
    heap::in_use() as f64
}

#[wasm_bindgen(start)]
fn start() {
    install();
}

/// What the module does as it starts: a panic hook that says where, the JS host (the clock and
/// the event loop's turns, `host`), and the way to the second module. Public for the browser
/// tests (tests/browser_bindings.rs), whose runner does not call start functions.
pub fn install() {
    // Panics are bugs (the core returns errors for bad input); if one happens, say where.
    console_error_panic_hook::set_once();
    crate::host::install(Rc::new(host::JsHost::new()));
    #[cfg(not(feature = "extra-codecs"))]
    #[cfg(feature = "all-codecs")]
    extra::install();
}

/// Where the second module's decoders are linked in, there is no module to point the core at;
/// pkg/index.js calls this all the same.
#[cfg(feature = "extra-codecs")]
#[wasm_bindgen(js_name = useSecondModule)]
pub fn use_second_module() {}

/// A store of the JS API, opened: reads of every node opened from it share it (an HTTP store's
/// request limit and what it learnt of the server, a ZIP archive's directory).
#[wasm_bindgen]
pub struct WasmStore {
    source: Rc<dyn Source>,
}

#[wasm_bindgen]
impl WasmStore {
    /// An HTTP store below `url`; `options` are the FetchStore's (`cacheSize` among them).
    pub fn fetch(url: String, options: JsValue) -> Result<WasmStore, JsValue> {
        let (http, client) = options::fetch_options(&options).map_err(js_error)?;
        let cache = options::cache_size(&options).map_err(js_error)?;
        let http = Rc::new(HttpStore::with_options(&url, client, http));
        Ok(WasmStore {
            source: CachedSource::wrap(Rc::new(HttpSource(http)), cache),
        })
    }

    /// A store written in JS: `get(key, { signal })` and optionally `getRange(key, range,
    /// { signal })`, resolving to a Uint8Array or undefined; `label` names it in messages.
    pub fn js(store: JsValue, label: String, options: JsValue) -> Result<WasmStore, JsValue> {
        let source = JsSource::new(store, label).map_err(js_error)?;
        let cache = options::cache_size(&options).map_err(js_error)?;
        Ok(WasmStore {
            source: CachedSource::wrap(Rc::new(source), cache),
        })
    }

    /// The ZIP archive at `key` of this store, its directory read (resolves to a WasmStore).
    pub fn zip(&self, key: String, options: JsValue, signal: JsValue) -> js_sys::Promise {
        let inner = self.source.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            #[cfg(feature = "zip")]
            {
                let cache = options::cache_size(&options).map_err(js_error)?;
                let zip = stores::ZipSource::open(inner, &key, &signal).await?;
                Ok(WasmStore {
                    source: CachedSource::wrap(Rc::new(zip), cache),
                }
                .into())
            }
            // index.js loads the build with ZIP archives before it opens one (pkg/load.js).
            #[cfg(not(feature = "zip"))]
            {
                let _ = (inner, key, options, signal);
                Err(js_error(crate::ZarrError::unsupported(
                    "ZipStore",
                    "this build of the module has no ZIP reader (the larger build has)",
                )))
            }
        })
    }

    /// The kerchunk references at `url`, or in `text` (a reference object as JSON; its relative
    /// URLs resolve against the `baseUrl` option); given both, `text` is the document read from
    /// `url` before (a JSON file, or a Parquet directory's `.zmetadata`: the store is opened
    /// again from it, with no request). `options` are the ReferenceStore's (the FetchStore's
    /// among them). Resolves to a WasmStore.
    pub fn references(
        url: Option<String>,
        text: Option<String>,
        options: JsValue,
        signal: JsValue,
    ) -> js_sys::Promise {
        wasm_bindgen_futures::future_to_promise(async move {
            #[cfg(feature = "references")]
            {
                let (refs, client) = options::reference_options(&options).map_err(js_error)?;
                let cache = options::cache_size(&options).map_err(js_error)?;
                let source =
                    stores::ReferenceSource::open(url, text, refs, client, &signal).await?;
                Ok(WasmStore {
                    source: CachedSource::wrap(Rc::new(source), cache),
                }
                .into())
            }
            // index.js loads the build with references before it opens one (pkg/load.js).
            #[cfg(not(feature = "references"))]
            {
                let _ = (url, text, options, signal);
                Err(js_error(crate::ZarrError::unsupported(
                    "ReferenceStore",
                    "this build of the module has no kerchunk references (the larger build has)",
                )))
            }
        })
    }

    /// The Icechunk repository at `url`, at the branch, tag or snapshot its `options` name (the
    /// IcechunkStore's, the FetchStore's among them). Resolves to a WasmStore.
    pub fn icechunk(url: String, options: JsValue, signal: JsValue) -> js_sys::Promise {
        wasm_bindgen_futures::future_to_promise(async move {
            #[cfg(feature = "icechunk")]
            {
                let (ice, client) = options::icechunk_options(&options).map_err(js_error)?;
                let cache = options::cache_size(&options).map_err(js_error)?;
                let source = stores::IcechunkSource::open(url, ice, client, &signal).await?;
                Ok(WasmStore {
                    source: CachedSource::wrap(Rc::new(source), cache),
                }
                .into())
            }
            // index.js loads the build with Icechunk before it opens one (pkg/load.js).
            #[cfg(not(feature = "icechunk"))]
            {
                let _ = (url, options, signal);
                Err(js_error(crate::ZarrError::unsupported(
                    "IcechunkStore",
                    "this build of the module has no Icechunk reader (the larger build has)",
                )))
            }
        })
    }

    /// Opens the Zarr Vectors store whose root group is at `path` (resolves to a WasmVectors).
    pub fn vectors(&self, path: String) -> js_sys::Promise {
        let store = self.source.store();
        wasm_bindgen_futures::future_to_promise(async move {
            #[cfg(feature = "vectors")]
            {
                let opened = crate::vectors::store::open_vectors(store, &path)
                    .await
                    .map_err(js_error)?;
                Ok(vectors::WasmVectors::new(opened).into())
            }
            #[cfg(not(feature = "vectors"))]
            {
                let _ = (store, path);
                Err(js_error(crate::ZarrError::unsupported(
                    "this build",
                    "Zarr Vectors (the module was built without its \"vectors\" feature)",
                )))
            }
        })
    }

    /// Opens the node at `path`; `options` are open()'s (`zarrFormat`, `consolidated`). Resolves
    /// to `[node, documents]`: the documents the opening read, as `[key, bytes or null]` pairs,
    /// for a pool's workers to open the node from (`replaying`).
    pub fn open(&self, path: String, options: JsValue, signal: JsValue) -> js_sys::Promise {
        let source = self.source.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let (node, documents) = opened(source, &path, &options, &signal).await?;
            Ok(js_sys::Array::of2(&node, &stores::keyed_bytes_to_js(documents)).into())
        })
    }

    /// The id of the snapshot an `IcechunkStore`'s store reads (its branch or tag as resolved
    /// when it was opened: index.js opens it again, and has workers open it, at that snapshot);
    /// undefined for other stores.
    #[wasm_bindgen(getter, js_name = snapshotId)]
    pub fn snapshot_id(&self) -> Option<String> {
        self.source.snapshot_id()
    }

    /// This store, answering whole reads of the keys in `documents` (from `open`) from
    /// them instead of asking for them again.
    pub fn replaying(&self, documents: JsValue) -> Result<WasmStore, JsValue> {
        let known = stores::documents_from_js(&documents).map_err(js_error)?;
        Ok(WasmStore {
            source: stores::ReplayingSource::wrap(self.source.clone(), known),
        })
    }
}

/// Opens the node at `path` of `source`'s store: its JS handle, and the documents the opening
/// read (recorded always: they are a few small values, and cheaper kept than fetched again).
async fn opened(
    source: Rc<dyn Source>,
    path: &str,
    options: &JsValue,
    signal: &JsValue,
) -> Result<(JsValue, Documents), JsValue> {
    let chunk_cache = options::chunk_cache_size(options).map_err(js_error)?;
    let open_options = options::open_options(options).map_err(js_error)?;
    // The signal is the opening's only: the node keeps reading through the plain store.
    let recording = Rc::new(RecordingStore::new(stores::reading(&*source, signal)?));
    let node = open_with(recording.clone(), path, open_options)
        .await
        .map_err(js_error)?;
    let handle = node_to_js(node.with_store(source.store()), source, chunk_cache);
    Ok((handle, recording.documents()))
}

/// The JS handle of a node; `chunk_cache` is the bytes of decoded chunks an array keeps (a
/// group hands it on to the arrays opened through it).
fn node_to_js(node: Node, source: Rc<dyn Source>, chunk_cache: usize) -> JsValue {
    match node {
        Node::Array(a) => {
            a.set_chunk_cache(chunk_cache);
            WasmArray {
                inner: Rc::new(a),
                source,
            }
            .into()
        }
        Node::Group(g) => WasmGroup {
            inner: Rc::new(g),
            source,
            chunk_cache,
        }
        .into(),
    }
}

#[wasm_bindgen]
pub struct WasmArray {
    inner: Rc<Array>,
    source: Rc<dyn Source>,
}

impl WasmArray {
    /// The array, reading through `signal` where one is given.
    fn reading(&self, signal: &JsValue) -> Result<Rc<Array>, JsValue> {
        if signal.is_undefined() || signal.is_null() {
            return Ok(self.inner.clone());
        }
        let store = stores::reading(&*self.source, signal)?;
        Ok(Rc::new(self.inner.with_store(store)))
    }
}

#[wasm_bindgen]
impl WasmArray {
    /// Everything known about the array without reading chunks, as a plain object.
    pub fn info(&self) -> Result<JsValue, JsValue> {
        array_info(&self.inner)
    }

    /// The attributes as JSON text, for `attrs` when it is first read (pkg/index.js).
    #[wasm_bindgen(js_name = attrsText)]
    pub fn attrs_text(&self) -> String {
        object_text(&self.inner.metadata().attributes)
    }

    /// Reads a selection: `[null | number | {start, stop, step}, ...]`.
    /// Reads a selection; `options` are `{ signal, concurrency, onProgress, out }`.
    pub fn get(&self, selection: JsValue, options: JsValue) -> js_sys::Promise {
        let parsed = options::read_options(&options).map_err(js_error);
        let array = parsed
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|o| self.reading(&o.signal));
        wasm_bindgen_futures::future_to_promise(async move {
            let (options, array) = (parsed?, array?);
            let selection = parse_selection(&selection, array.shape().len()).map_err(js_error)?;
            // Counted through a view of this read's own: bytes for its progress reports.
            let (array, bytes) = match options.on_progress {
                Some(_) => {
                    let counting = CountingStore::new(array.store().clone());
                    let bytes = counting.counter();
                    (Rc::new(array.with_store(Rc::new(counting))), Some(bytes))
                }
                None => (array, None),
            };
            let report = |done: u64, total: u64| {
                if let (Some(f), Some(bytes)) = (&options.on_progress, &bytes) {
                    options::report_progress(f, done, total, bytes);
                }
            };
            let limits = array.limits();
            let read = ReadOptions {
                concurrency: options.concurrency,
                progress: Some(&report),
                max_chunks: options.max_chunks.unwrap_or(limits.max_chunks_per_read),
                max_bytes: options.max_bytes.unwrap_or(limits.max_bytes_per_read),
            };
            let data = array.get_with(&selection, &read).await.map_err(js_error)?;
            let fields = array.metadata().fields.as_deref();
            timed(Phase::CopyOut, || match (&options.out, options.bits) {
                (_, true) => typed::stored_bits_to_js(&data),
                (Some(out), _) => typed::array_data_into(&data, out),
                (None, _) => array_data_to_js(&data, fields),
            })
        })
    }

    /// Each chunk's share of a selection: `[{ coords, selection, outStart, shape }]`.
    #[wasm_bindgen(js_name = chunkRegions)]
    pub fn chunk_regions(&self, selection: JsValue) -> Result<JsValue, JsValue> {
        let selection = parse_selection(&selection, self.inner.shape().len()).map_err(js_error)?;
        let regions = self.inner.chunk_regions(&selection).map_err(js_error)?;
        info::chunk_regions_to_js(&regions)
    }

    /// The selection split into at most `maxParts` boxes of whole chunks for `readers` workers:
    /// `{ selection, shape, parts: [{ selection, outStart, shape, chunks }] }`.
    /// `options` are the read's (`maxChunks`, `maxBytes`): the whole read is held to them. A
    /// result smaller than `split_bytes` is one part: split, it would cost more requests (each
    /// worker asks for its own share, and inside a shard for its own index) than its decoding
    /// gains from a second worker.
    pub fn partition(
        &self,
        selection: JsValue,
        max_parts: u32,
        readers: u32,
        options: JsValue,
        split_bytes: f64,
    ) -> Result<JsValue, JsValue> {
        let selection = parse_selection(&selection, self.inner.shape().len()).map_err(js_error)?;
        let small = (self.inner.result_bytes(&selection).map_err(js_error)? as f64) < split_bytes;
        let (max_parts, readers) = if small { (1, 1) } else { (max_parts, readers) };
        let parsed = options::read_options(&options).map_err(js_error)?;
        let limits = self.inner.limits();
        let read = ReadOptions {
            max_chunks: parsed.max_chunks.unwrap_or(limits.max_chunks_per_read),
            max_bytes: parsed.max_bytes.unwrap_or(limits.max_bytes_per_read),
            ..ReadOptions::default()
        };
        let partition = self
            .inner
            .partition(&selection, max_parts as usize, readers as usize, &read)
            .map_err(js_error)?;
        info::partition_to_js(&partition)
    }

    /// The shard indexes a read of `selection` fetches, fetched now (or kept from before):
    /// `[[key, Uint8Array | null]]`, asked for through `signal`. A pool hands them with the
    /// read's part to a worker, which then asks for none of them again (`keepShardIndexes`).
    #[wasm_bindgen(js_name = shardIndexes)]
    pub fn shard_indexes(&self, selection: JsValue, signal: JsValue) -> js_sys::Promise {
        let array = self.reading(&signal);
        wasm_bindgen_futures::future_to_promise(async move {
            let array = array?;
            let selection = parse_selection(&selection, array.shape().len()).map_err(js_error)?;
            let indexes = array.shard_indexes(&selection).await.map_err(js_error)?;
            Ok(stores::keyed_bytes_to_js(indexes))
        })
    }

    /// Keeps shard indexes another reader of this array fetched (`shardIndexes`' result): each
    /// is checked as a fetched one is when a read decodes it.
    #[wasm_bindgen(js_name = keepShardIndexes)]
    pub fn keep_shard_indexes(&self, indexes: JsValue) -> Result<(), JsValue> {
        let limits = self.inner.limits();
        let entries = stores::keyed_bytes_from_js(
            &indexes,
            limits.max_chunks_per_read.min(1 << 20) as usize,
            MAX_INDEX_BYTES,
            "shard indexes",
        )
        .map_err(js_error)?;
        let entries = entries
            .into_iter()
            .map(|(key, index)| (key, index.map(Rc::new)))
            .collect();
        self.inner.keep_shard_indexes(entries);
        Ok(())
    }

    /// Where the chunk at `coords` lies in the array: `{ origin, shape }` (its stored shape).
    #[wasm_bindgen(js_name = chunkExtent)]
    pub fn chunk_extent(&self, coords: JsValue) -> Result<JsValue, JsValue> {
        let coords = parse_coords(&coords, self.inner.shape().len()).map_err(js_error)?;
        let (origin, shape) = self.inner.chunk_extent(&coords).map_err(js_error)?;
        chunk_extent(&origin, &shape)
    }

    /// Reads one whole chunk by its grid coordinates.
    #[wasm_bindgen(js_name = getChunk)]
    pub fn get_chunk(&self, coords: JsValue, signal: JsValue) -> js_sys::Promise {
        let array = self.reading(&signal);
        wasm_bindgen_futures::future_to_promise(async move {
            let array = array?;
            let coords = parse_coords(&coords, array.shape().len()).map_err(js_error)?;
            let data = array.get_chunk(&coords).await.map_err(js_error)?;
            array_data_to_js(&data, array.metadata().fields.as_deref())
        })
    }
}

#[wasm_bindgen]
pub struct WasmGroup {
    inner: Rc<Group>,
    source: Rc<dyn Source>,
    chunk_cache: usize,
}

#[wasm_bindgen]
impl WasmGroup {
    pub fn info(&self) -> Result<JsValue, JsValue> {
        group_info(&self.inner)
    }

    /// The attributes as JSON text, for `attrs` when it is first read (pkg/index.js).
    #[wasm_bindgen(js_name = attrsText)]
    pub fn attrs_text(&self) -> String {
        object_text(&self.inner.metadata().attributes)
    }

    /// Opens a node below this group. Resolves to `[node, documents]` as `WasmStore.open` does;
    /// `documents` given (from an earlier opening), its reads of them are answered from them:
    /// a node reopened in a fresh instance, or by a pool's worker, asks its store for nothing.
    pub fn open(&self, path: String, documents: JsValue) -> js_sys::Promise {
        let (group, source, chunk_cache) =
            (self.inner.clone(), self.source.clone(), self.chunk_cache);
        let known = match documents.is_null() || documents.is_undefined() {
            true => Ok(None),
            false => stores::documents_from_js(&documents)
                .map(|d| Some(Rc::new(d)))
                .map_err(js_error),
        };
        wasm_bindgen_futures::future_to_promise(async move {
            let store = group.store().clone();
            let from: Rc<dyn ReadableStore> = match known? {
                Some(known) => Rc::new(ReplayingStore::new(store.clone(), known)),
                None => store.clone(),
            };
            let recording = Rc::new(RecordingStore::new(from));
            let node = group
                .with_store(recording.clone())
                .open(&path)
                .await
                .map_err(js_error)?;
            let handle = node_to_js(node.with_store(store), source, chunk_cache);
            Ok(
                js_sys::Array::of2(&handle, &stores::keyed_bytes_to_js(recording.documents()))
                    .into(),
            )
        })
    }
}

/// Turns the core's timings on or off and returns the milliseconds spent since the last call in
/// decoding, assembling and copying out: `__timingsForBench` in index.js, for `npm run bench`.
#[wasm_bindgen(js_name = timingsForBench)]
pub fn timings_for_bench(on: bool) -> Vec<f64> {
    crate::host::timing::switch(on).to_vec()
}

/// Traps after `ms` milliseconds, inside an async poll as a failing read would: for the tests of
/// the API's recovery from a trap (`__trapForTests` in index.js). Nothing else calls it.
#[wasm_bindgen(js_name = trapForTests)]
pub fn trap_for_tests(ms: u32) -> js_sys::Promise {
    wasm_bindgen_futures::future_to_promise(async move {
        fetch::sleep(ms).await;
        core::arch::wasm32::unreachable()
    })
}
