//! The binding layer: the only code that knows about JavaScript. It turns JS arguments into core
//! types, core results into typed arrays and plain objects, and core errors into JS `Error`s.
//! The npm package's `index.js` wraps these exports in the public API.

mod convert;
mod fetch;

use crate::array::Array;
use crate::group::Group;
use crate::node::{open_with, Node};
use crate::store::http::HttpStore;
use crate::store::ReadableStore;
use convert::{
    array_data_to_js, array_info, chunk_extent, group_info, js_error, parse_coords, parse_selection,
};
use fetch::FetchClient;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(start)]
fn start() {
    // Panics are bugs (the core returns errors for bad input); if one happens, say where.
    console_error_panic_hook::set_once();
}

/// Opens the node at `path` below `url` over HTTP with `fetch`; `options` are the FetchStore's,
/// `open_options` open()'s (`zarrFormat`, `consolidated`).
#[wasm_bindgen(js_name = openFetch)]
pub async fn open_fetch(
    url: String,
    path: String,
    options: JsValue,
    open_options: JsValue,
    signal: JsValue,
) -> Result<JsValue, JsValue> {
    let (http, client) = convert::fetch_options(&options).map_err(js_error)?;
    let open_options = convert::open_options(&open_options).map_err(js_error)?;
    let http = Rc::new(HttpStore::with_options(&url, client, http));
    let base: Rc<dyn ReadableStore> = http.clone();
    // The signal is the opening's only: the node keeps reading through the plain store.
    let node = open_with(through_signal(&http, &signal, &base)?, &path, open_options)
        .await
        .map_err(js_error)?;
    Ok(node_to_js(node.with_store(base), http))
}

/// The store a read goes through: `base`, or with an `AbortSignal` a view of it that passes the
/// signal to every request.
fn through_signal(
    http: &Rc<HttpStore<FetchClient>>,
    signal: &JsValue,
    base: &Rc<dyn ReadableStore>,
) -> Result<Rc<dyn ReadableStore>, JsValue> {
    if signal.is_undefined() || signal.is_null() {
        return Ok(base.clone());
    }
    let signal: web_sys::AbortSignal = signal.clone().dyn_into().map_err(|_| {
        js_error(crate::error::ZarrError::selection(
            "signal must be an AbortSignal",
        ))
    })?;
    let client = FetchClient {
        signal: Some(signal),
        ..http.client().clone()
    };
    Ok(Rc::new(http.with_client(client)))
}

fn node_to_js(node: Node, http: Rc<HttpStore<FetchClient>>) -> JsValue {
    match node {
        Node::Array(a) => WasmArray {
            inner: Rc::new(a),
            http,
        }
        .into(),
        Node::Group(g) => WasmGroup {
            inner: Rc::new(g),
            http,
        }
        .into(),
    }
}

#[wasm_bindgen]
pub struct WasmArray {
    inner: Rc<Array>,
    http: Rc<HttpStore<FetchClient>>,
}

impl WasmArray {
    /// The array, reading through `signal` where one is given.
    fn reading(&self, signal: &JsValue) -> Result<Rc<Array>, JsValue> {
        if signal.is_undefined() || signal.is_null() {
            return Ok(self.inner.clone());
        }
        let base: Rc<dyn ReadableStore> = self.http.clone();
        Ok(Rc::new(
            self.inner
                .with_store(through_signal(&self.http, signal, &base)?),
        ))
    }
}

#[wasm_bindgen]
impl WasmArray {
    /// Everything known about the array without reading chunks, as a plain object.
    pub fn info(&self) -> Result<JsValue, JsValue> {
        array_info(&self.inner)
    }

    /// Reads a selection: `[null | number | {start, stop, step}, ...]`.
    pub fn get(&self, selection: JsValue, signal: JsValue) -> js_sys::Promise {
        let array = self.reading(&signal);
        wasm_bindgen_futures::future_to_promise(async move {
            let array = array?;
            let selection = parse_selection(&selection, array.shape().len()).map_err(js_error)?;
            let data = array.get(&selection).await.map_err(js_error)?;
            array_data_to_js(&data, array.metadata().fields.as_deref())
        })
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
    http: Rc<HttpStore<FetchClient>>,
}

#[wasm_bindgen]
impl WasmGroup {
    pub fn info(&self) -> Result<JsValue, JsValue> {
        group_info(&self.inner)
    }

    /// Opens a node below this group.
    pub fn open(&self, path: String) -> js_sys::Promise {
        let (group, http) = (self.inner.clone(), self.http.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            group
                .open(&path)
                .await
                .map(|node| node_to_js(node, http))
                .map_err(js_error)
        })
    }
}
