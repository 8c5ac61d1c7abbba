//! Zarr Vectors for JS: a store's metadata and levels, a level's chunks (vertices as typed arrays,
//! fragments as plain objects) and objects.

use super::convert::{json, set, values_to_js};
use crate::bindings::convert::js_error;
use crate::vectors::fragment_index::Fragment;
use crate::vectors::store::{VectorLevel, VectorStore};
use js_sys::{Array as JsArray, Object};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
pub struct WasmVectors {
    inner: Rc<VectorStore>,
}

impl WasmVectors {
    pub(super) fn new(inner: VectorStore) -> WasmVectors {
        WasmVectors {
            inner: Rc::new(inner),
        }
    }
}

#[wasm_bindgen]
impl WasmVectors {
    /// `{ version, ndim, chunkShape, bounds, geometryTypes, levels }`.
    pub fn info(&self) -> Result<JsValue, JsValue> {
        let m = self.inner.meta();
        let obj = Object::new();
        set(&obj, "version", m.version.as_str())?;
        set(&obj, "ndim", m.ndim as f64)?;
        set(&obj, "chunkShape", json(&m.chunk_shape)?)?;
        set(&obj, "bounds", json(&[&m.bounds.0, &m.bounds.1])?)?;
        set(&obj, "geometryTypes", json(&m.geometry_types)?)?;
        set(&obj, "levels", json(&m.levels)?)?;
        Ok(obj.into())
    }

    /// Opens level `index` (resolves to a WasmVectorLevel).
    pub fn level(&self, index: u32) -> js_sys::Promise {
        let inner = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let level = inner.level(index as usize).await.map_err(js_error)?;
            Ok(WasmVectorLevel {
                inner: Rc::new(level),
            }
            .into())
        })
    }
}

#[wasm_bindgen]
pub struct WasmVectorLevel {
    inner: Rc<VectorLevel>,
}

/// A list of numbers from JS, each checked by `ok`.
fn numbers_from(
    value: &JsValue,
    what: &str,
    ok: impl Fn(f64) -> bool,
) -> Result<Vec<f64>, JsValue> {
    let bad = || {
        js_error(crate::error::ZarrError::selection(format!(
            "{what} must be a list of numbers, not {value:?}"
        )))
    };
    let list = value.dyn_ref::<JsArray>().ok_or_else(bad)?;
    list.iter()
        .map(|v| v.as_f64().filter(|n| ok(*n)).ok_or_else(bad))
        .collect()
}

fn coords(value: &JsValue) -> Result<Vec<i64>, JsValue> {
    let ints = numbers_from(value, "chunk coordinates (integers)", |n| {
        n.fract() == 0.0 && n.abs() < 9.007_199_254_740_991e15
    })?;
    Ok(ints.into_iter().map(|n| n as i64).collect())
}

fn floats(value: &JsValue, what: &str) -> Result<Vec<f64>, JsValue> {
    numbers_from(value, what, |n| !n.is_nan())
}

#[wasm_bindgen]
impl WasmVectorLevel {
    /// `{ dtype, chunks }`: the vertices' type and the occupied chunks.
    pub fn info(&self) -> Result<JsValue, JsValue> {
        let obj = Object::new();
        set(&obj, "dtype", self.inner.dtype().name())?;
        set(&obj, "chunks", json(&self.inner.chunks())?)?;
        Ok(obj.into())
    }

    /// The occupied chunks that meet the box `[lo, hi]`.
    #[wasm_bindgen(js_name = chunksIn)]
    pub fn chunks_in(&self, lo: JsValue, hi: JsValue) -> Result<JsValue, JsValue> {
        let (lo, hi) = (floats(&lo, "bbox min")?, floats(&hi, "bbox max")?);
        json(&self.inner.chunks_in(&lo, &hi).map_err(js_error)?)
    }

    /// `{ positions, rows, fragments, attributes }` of a chunk, or null where it is empty;
    /// `attributes` holds `{ values, width }` for each name asked for.
    #[wasm_bindgen(js_name = readChunk)]
    pub fn read_chunk(&self, chunk: JsValue, attributes: JsValue) -> js_sys::Promise {
        let (level, chunk) = (self.inner.clone(), coords(&chunk));
        let names: Vec<String> = attributes
            .dyn_ref::<JsArray>()
            .map(|a| a.iter().filter_map(|v| v.as_string()).collect())
            .unwrap_or_default();
        wasm_bindgen_futures::future_to_promise(async move {
            let chunk = chunk?;
            let Some(read) = level.read_chunk(&chunk).await.map_err(js_error)? else {
                return Ok(JsValue::NULL);
            };
            let obj = Object::new();
            let attrs = Object::new();
            for name in &names {
                if let Some(a) = level
                    .read_attribute(name, &chunk, read.rows)
                    .await
                    .map_err(js_error)?
                {
                    let entry = Object::new();
                    set(&entry, "values", values_to_js(a.dtype, &a.bytes, None)?)?;
                    set(&entry, "width", a.width as f64)?;
                    set(&attrs, name, entry)?;
                }
            }
            set(&obj, "attributes", attrs)?;
            set(
                &obj,
                "positions",
                values_to_js(level.dtype(), &read.bytes, None)?,
            )?;
            set(&obj, "rows", read.rows as f64)?;
            let fragments: JsArray = read
                .fragments
                .iter()
                .map(|f| match f {
                    Fragment::Range { start, count } => {
                        let r = Object::new();
                        let _ = set(&r, "start", *start as f64);
                        let _ = set(&r, "count", *count as f64);
                        JsValue::from(r)
                    }
                    Fragment::List(rows) => {
                        let r = Object::new();
                        let list: JsArray =
                            rows.iter().map(|&x| JsValue::from_f64(x as f64)).collect();
                        let _ = set(&r, "rows", list);
                        JsValue::from(r)
                    }
                })
                .collect();
            set(&obj, "fragments", fragments)?;
            Ok(obj.into())
        })
    }

    /// `{ positions }`: object `id`'s vertices in its manifest's order.
    #[wasm_bindgen(js_name = readObject)]
    pub fn read_object(&self, id: f64) -> js_sys::Promise {
        let level = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            if !(id >= 0.0 && id.fract() == 0.0 && id < 9.007_199_254_740_991e15) {
                return Err(js_error(crate::error::ZarrError::selection(format!(
                    "an object id is a non-negative integer, not {id}"
                ))));
            }
            let bytes = level.read_object(id as u64).await.map_err(js_error)?;
            let obj = Object::new();
            set(
                &obj,
                "positions",
                values_to_js(level.dtype(), &bytes, None)?,
            )?;
            Ok(obj.into())
        })
    }
}
