//! Zarr Vectors for JS: a store's metadata and levels, a level's chunks (vertices as typed arrays,
//! fragments as plain objects) and objects.

use super::errors::js_error;
use super::guarded;
use super::js::{json, set};
use super::typed::values_to_js;
use crate::error::ZarrError;
use crate::vectors::fragment_index::Fragment;
use crate::vectors::geometry::{Column, Query};
use crate::vectors::level::VectorLevel;
use crate::vectors::store::VectorStore;
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
        js_error(ZarrError::selection(format!(
            "{what} must be a list of numbers, not {}",
            guarded::show(value)
        )))
    };
    let list = guarded::elements(value, MAX_LIST)
        .map_err(|e| js_error(ZarrError::selection(format!("{what}: {e}"))))?
        .ok_or_else(bad)?;
    list.iter()
        .map(|v| v.as_f64().filter(|n| ok(*n)).ok_or_else(bad))
        .collect()
}

/// The most entries a list of numbers or names from JS may have (coordinates, attribute names).
const MAX_LIST: usize = 4096;

/// Vertex numbers as JS indexes them (a Uint32Array's).
fn indices(vertices: &[u64]) -> Result<Vec<u32>, JsValue> {
    vertices
        .iter()
        .map(|&v| u32::try_from(v))
        .collect::<Result<_, _>>()
        .map_err(|_| {
            js_error(ZarrError::selection(
                "more than 2^32 vertices: links cannot be indexed in JS",
            ))
        })
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

/// A list of names from JS (`undefined` is none).
fn names(value: &JsValue, what: &str) -> Result<Vec<String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    let bad = || {
        js_error(ZarrError::selection(format!(
            "{what} must be a list of names, not {}",
            guarded::show(value)
        )))
    };
    guarded::elements(value, MAX_LIST)
        .map_err(|e| js_error(ZarrError::selection(format!("{what}: {e}"))))?
        .ok_or_else(bad)?
        .iter()
        .map(JsValue::as_string)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(bad)
}

/// `{ name: { values, width } }`.
fn columns_to_js(columns: &[(String, Column)]) -> Result<Object, JsValue> {
    let obj = Object::new();
    for (name, c) in columns {
        let entry = Object::new();
        set(&entry, "values", values_to_js(c.dtype, &c.bytes, None)?)?;
        set(&entry, "width", c.width as f64)?;
        set(&obj, name, entry)?;
    }
    Ok(obj)
}

/// A non-negative integer id from JS.
fn id_from(id: f64, what: &str) -> Result<u64, JsValue> {
    if id >= 0.0 && id.fract() == 0.0 && id < 9.007_199_254_740_991e15 {
        Ok(id as u64)
    } else {
        Err(js_error(ZarrError::selection(format!(
            "{what} is a non-negative integer, not {id}"
        ))))
    }
}

#[wasm_bindgen]
impl WasmVectorLevel {
    /// `{ dtype, chunks, objects }`: the vertices' type, the occupied chunks, the object count.
    pub fn info(&self) -> Result<JsValue, JsValue> {
        let obj = Object::new();
        set(&obj, "dtype", self.inner.dtype().name())?;
        set(&obj, "chunks", json(&self.inner.chunks())?)?;
        set(&obj, "objects", self.inner.object_count() as f64)?;
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

    /// Object `id`'s vertices in its manifest's order: `{ positions, attributes }`, `attributes`
    /// holding `{ values, width }` for each per-vertex attribute named.
    #[wasm_bindgen(js_name = readObject)]
    pub fn read_object(&self, id: f64, attributes: JsValue) -> js_sys::Promise {
        let level = self.inner.clone();
        let names = names(&attributes, "attributes");
        wasm_bindgen_futures::future_to_promise(async move {
            let (id, names) = (id_from(id, "an object id")?, names?);
            let (positions, attributes) =
                level.read_object_with(id, &names).await.map_err(js_error)?;
            let obj = Object::new();
            set(
                &obj,
                "positions",
                values_to_js(level.dtype(), &positions, None)?,
            )?;
            set(&obj, "attributes", columns_to_js(&attributes)?)?;
            Ok(obj.into())
        })
    }

    /// The level's geometry in one read (see `vectors::geometry`): `{ positions, rows, chunks,
    /// attributes, objectIds?, links?, edges?, faces?, linkAttributes? }`.
    pub fn select(
        &self,
        lo: JsValue,
        hi: JsValue,
        attributes: JsValue,
        link_attributes: JsValue,
        object_ids: bool,
    ) -> js_sys::Promise {
        let level = self.inner.clone();
        let query = (|| -> Result<Query, JsValue> {
            let bbox = match lo.is_undefined() {
                true => None,
                false => Some((floats(&lo, "bbox min")?, floats(&hi, "bbox max")?)),
            };
            Ok(Query {
                bbox,
                attributes: names(&attributes, "attributes")?,
                link_attributes: names(&link_attributes, "linkAttributes")?,
                object_ids,
            })
        })();
        wasm_bindgen_futures::future_to_promise(async move {
            let query = query?;
            let g = level.select(&query).await.map_err(js_error)?;
            let obj = Object::new();
            set(
                &obj,
                "positions",
                values_to_js(level.dtype(), &g.positions, None)?,
            )?;
            set(&obj, "rows", g.rows as f64)?;
            set(&obj, "chunks", json(&g.chunks)?)?;
            set(&obj, "attributes", columns_to_js(&g.attributes)?)?;
            if let Some(ids) = &g.object_ids {
                let ids: Vec<f64> = ids.iter().map(|&i| i as f64).collect();
                set(
                    &obj,
                    "objectIds",
                    js_sys::Float64Array::from(ids.as_slice()),
                )?;
            }
            if let Some(l) = &g.links {
                let indices = js_sys::Uint32Array::from(indices(&l.vertices)?.as_slice());
                let links = Object::new();
                set(&links, "width", l.width as f64)?;
                set(&links, "indices", indices.clone())?;
                set(&obj, "links", links)?;
                match l.width {
                    2 => set(&obj, "edges", indices)?,
                    3 => set(&obj, "faces", indices)?,
                    _ => {}
                }
                set(&obj, "linkAttributes", columns_to_js(&l.attributes)?)?;
            }
            Ok(obj.into())
        })
    }

    /// The links from this level to `other`, `delta` levels away, among the vertices `select`
    /// reads of each with the box `[lo, hi]` (none: all): `{ width: 2, indices }` (pairs of
    /// vertex numbers: this level's, the other's), or null where there are none.
    #[wasm_bindgen(js_name = crossLinks)]
    pub fn cross_links(
        &self,
        other: &WasmVectorLevel,
        delta: f64,
        lo: JsValue,
        hi: JsValue,
    ) -> js_sys::Promise {
        let (level, other) = (self.inner.clone(), other.inner.clone());
        let bbox = (|| -> Result<_, JsValue> {
            Ok(match lo.is_undefined() {
                true => None,
                false => Some((floats(&lo, "bbox min")?, floats(&hi, "bbox max")?)),
            })
        })();
        wasm_bindgen_futures::future_to_promise(async move {
            let bbox = bbox?;
            let pairs = level
                .cross_links(&other, delta as i64, &bbox)
                .await
                .map_err(js_error)?;
            let Some(pairs) = pairs else {
                return Ok(JsValue::NULL);
            };
            let obj = Object::new();
            set(&obj, "width", 2.0)?;
            set(
                &obj,
                "indices",
                js_sys::Uint32Array::from(indices(&pairs)?.as_slice()),
            )?;
            Ok(obj.into())
        })
    }

    /// Object attribute `name`: `{ values, shape }` (one row per object).
    #[wasm_bindgen(js_name = objectAttribute)]
    pub fn object_attribute(&self, name: String) -> js_sys::Promise {
        let level = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let (dtype, shape, bytes) = level.object_attribute(&name).await.map_err(js_error)?;
            let obj = Object::new();
            set(&obj, "values", values_to_js(dtype, &bytes, None)?)?;
            set(&obj, "shape", json(&shape)?)?;
            Ok(obj.into())
        })
    }

    /// How many groups of objects the level has.
    #[wasm_bindgen(js_name = groupCount)]
    pub fn group_count(&self) -> js_sys::Promise {
        let level = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            Ok((level.group_count().await.map_err(js_error)? as f64).into())
        })
    }

    /// The ids of group `id`'s objects (a Float64Array).
    #[wasm_bindgen(js_name = readGroup)]
    pub fn read_group(&self, id: f64) -> js_sys::Promise {
        let level = self.inner.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let id = id_from(id, "a group id")?;
            let members = level.group_members(id).await.map_err(js_error)?;
            let members: Vec<f64> = members.iter().map(|&m| m as f64).collect();
            Ok(js_sys::Float64Array::from(members.as_slice()).into())
        })
    }
}
