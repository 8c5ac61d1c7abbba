//! Small helpers for building JS values.

use js_sys::{Array as JsArray, Object, Reflect};
use wasm_bindgen::prelude::*;

pub(super) fn set(obj: &Object, key: &str, value: impl Into<JsValue>) -> Result<(), JsValue> {
    Reflect::set(obj, &key.into(), &value.into()).map(|_| ())
}

pub(super) fn numbers(values: &[u64]) -> JsValue {
    values
        .iter()
        .map(|&v| JsValue::from_f64(v as f64))
        .collect::<JsArray>()
        .into()
}

/// Serializes `value` (of the full build's Zarr Vectors metadata) with serde-wasm-bindgen.
#[cfg(feature = "vectors")]
pub(super) fn json(value: &impl serde::Serialize) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(Into::into)
}
