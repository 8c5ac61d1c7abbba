//! Selections and chunk coordinates from JS values.

use super::guarded;
use crate::error::ZarrError;
use crate::indexing::selection::DimSelection;
use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn integer(value: &JsValue, what: &str) -> Result<i64, ZarrError> {
    let n = value
        .as_f64()
        .or_else(|| {
            value
                .dyn_ref::<js_sys::BigInt>()
                .and_then(|b| i64::try_from(b.clone()).ok())
                .map(|i| i as f64)
        })
        .ok_or_else(|| {
            ZarrError::selection(format!(
                "{what} must be a number, not {}",
                guarded::show(value)
            ))
        })?;
    if n.fract() != 0.0 || !n.is_finite() || n.abs() > 9.007_199_254_740_991e15 {
        return Err(ZarrError::selection(format!(
            "{what} must be an integer, not {}",
            guarded::number(n)
        )));
    }
    Ok(n as i64)
}

fn optional_integer(obj: &JsValue, key: &str, what: &str) -> Result<Option<i64>, ZarrError> {
    let v = Reflect::get(obj, &key.into())
        .map_err(|e| ZarrError::selection(format!("{what}.{key}: {}", guarded::describe(e))))?;
    if v.is_null() || v.is_undefined() {
        Ok(None)
    } else {
        integer(&v, &format!("{what}.{key}")).map(Some)
    }
}

const SLICE_KEYS: [&str; 3] = ["start", "stop", "step"];

/// `undefined`/`null` (everything) or an array of `null | number | {start, stop, step}` with at
/// most `ndim` entries.
pub fn parse_selection(value: &JsValue, ndim: usize) -> Result<Vec<DimSelection>, ZarrError> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    let bad = |e: String| ZarrError::selection(format!("the selection: {e}"));
    let n = guarded::array_length(value).map_err(bad)?.ok_or_else(|| {
        ZarrError::selection("a selection must be an array with one entry per dimension")
    })?;
    if n > ndim as f64 {
        return Err(ZarrError::selection(format!(
            "{} dimensions selected, the array has {ndim}",
            guarded::number(n)
        )));
    }
    let list = guarded::elements(value, ndim)
        .map_err(bad)?
        .unwrap_or_default();
    // More entries than dimensions were refused above, before any was read: `new Array(2 **
    // 32 - 1)` is a valid, enormous, empty array.
    list.into_iter()
        .enumerate()
        .map(|(dim, v)| {
            let what = format!("selection[{dim}]");
            if v.is_null() || v.is_undefined() {
                Ok(DimSelection::All)
            } else if guarded::is_array(&v)
                .map_err(|e| ZarrError::selection(format!("{what}: {e}")))?
            {
                Err(ZarrError::selection(format!(
                    "{what} is a list; only integers, null and slice() are supported"
                )))
            } else if v.is_object() {
                let keys = guarded::entries(&v, SLICE_KEYS.len() + 1)
                    .map_err(|e| ZarrError::selection(format!("{what}: {e}")))?;
                if let Some((k, _)) = keys.iter().find(|(k, _)| !SLICE_KEYS.contains(&k.as_str())) {
                    return Err(ZarrError::selection(format!(
                        "{what} has the key \"{}\"; a slice has start, stop and step",
                        k.chars().take(40).collect::<String>()
                    )));
                }
                Ok(DimSelection::Slice {
                    start: optional_integer(&v, "start", &what)?,
                    stop: optional_integer(&v, "stop", &what)?,
                    step: optional_integer(&v, "step", &what)?,
                })
            } else {
                integer(&v, &what).map(DimSelection::Index)
            }
        })
        .collect()
}

/// Chunk grid coordinates: an array of non-negative integers.
pub fn parse_coords(value: &JsValue, ndim: usize) -> Result<Vec<u64>, ZarrError> {
    let bad = |e: String| ZarrError::selection(format!("chunk coordinates: {e}"));
    let n = guarded::array_length(value)
        .map_err(bad)?
        .ok_or_else(|| ZarrError::selection("chunk coordinates must be an array of integers"))?;
    if n != ndim as f64 {
        return Err(ZarrError::selection(format!(
            "{} chunk coordinates given, the array has {ndim} dimensions",
            guarded::number(n)
        )));
    }
    let list = guarded::elements(value, ndim)
        .map_err(bad)?
        .unwrap_or_default();
    list.into_iter()
        .enumerate()
        .map(|(dim, v)| {
            let i = integer(&v, &format!("chunk coordinate {dim}"))?;
            u64::try_from(i).map_err(|_| {
                ZarrError::selection(format!("chunk coordinate {dim} is negative ({i})"))
            })
        })
        .collect()
}
