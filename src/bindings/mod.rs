//! The binding layer: the only code that knows about JavaScript. It turns JS arguments into core
//! types, core results into typed arrays and plain objects, and core errors into JS `Error`s.
//! The npm package's `index.js` wraps these exports in the public API.

mod convert;
mod fetch;

use crate::array::Array;
use crate::group::Group;
use crate::node::{open, Node};
use crate::store::http::HttpStore;
use crate::store::ReadableStore;
use convert::{
    array_data_to_js, array_info, chunk_extent, group_info, js_error, parse_coords, parse_selection,
};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    // Panics are bugs (the core returns errors for bad input); if one happens, say where.
    console_error_panic_hook::set_once();
}

/// Opens the node at `path` below `url` over HTTP with `fetch`; `options` are the FetchStore's.
#[wasm_bindgen(js_name = openFetch)]
pub async fn open_fetch(url: String, path: String, options: JsValue) -> Result<JsValue, JsValue> {
    let (http, client) = convert::fetch_options(&options).map_err(js_error)?;
    let store: Rc<dyn ReadableStore> = Rc::new(HttpStore::with_options(&url, client, http));
    open(store, &path).await.map(node_to_js).map_err(js_error)
}

fn node_to_js(node: Node) -> JsValue {
    match node {
        Node::Array(a) => WasmArray { inner: Rc::new(a) }.into(),
        Node::Group(g) => WasmGroup { inner: Rc::new(g) }.into(),
    }
}

#[wasm_bindgen]
pub struct WasmArray {
    inner: Rc<Array>,
}

#[wasm_bindgen]
impl WasmArray {
    /// Everything known about the array without reading chunks, as a plain object.
    pub fn info(&self) -> Result<JsValue, JsValue> {
        array_info(&self.inner)
    }

    /// Reads a selection: `[null | number | {start, stop, step}, ...]`.
    pub fn get(&self, selection: JsValue) -> js_sys::Promise {
        let array = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let selection = parse_selection(&selection, array.shape().len()).map_err(js_error)?;
            let data = array.get(&selection).await.map_err(js_error)?;
            array_data_to_js(&data)
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
    pub fn get_chunk(&self, coords: JsValue) -> js_sys::Promise {
        let array = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let coords = parse_coords(&coords, array.shape().len()).map_err(js_error)?;
            let data = array.get_chunk(&coords).await.map_err(js_error)?;
            array_data_to_js(&data)
        })
    }
}

#[wasm_bindgen]
pub struct WasmGroup {
    inner: Rc<Group>,
}

#[wasm_bindgen]
impl WasmGroup {
    pub fn info(&self) -> Result<JsValue, JsValue> {
        group_info(&self.inner)
    }

    /// Opens a node below this group.
    pub fn open(&self, path: String) -> js_sys::Promise {
        let group = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            group.open(&path).await.map(node_to_js).map_err(js_error)
        })
    }
}
