//! Small helpers for building JS values.

use js_sys::{Array as JsArray, Object, Reflect};
use serde_json::{Map, Value};
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

/// A JSON value (attributes, from a metadata document) as the JS value `JSON.parse` makes of its
/// text: numbers as doubles, objects with their keys in the document's order, each key an own
/// property (`__proto__` included: `Object.fromEntries` defines, where `Reflect.set` would set
/// the prototype). Built directly rather than through serde-wasm-bindgen, whose serializer the
/// Zarr build then does not carry.
pub(super) fn from_json(value: &Value) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => items.iter().map(from_json).collect::<JsArray>().into(),
        Value::Object(entries) => object_from_json(entries),
    }
}

pub(super) fn object_from_json(entries: &Map<String, Value>) -> JsValue {
    let pairs: JsArray = entries
        .iter()
        .map(|(k, v)| JsArray::of2(&JsValue::from_str(k), &from_json(v)))
        .collect();
    Object::from_entries(&pairs).map_or(JsValue::NULL, Into::into)
}

/// Serializes `value` (of the full build's Zarr Vectors metadata) with serde-wasm-bindgen.
#[cfg(feature = "vectors")]
pub(super) fn json(value: &impl serde::Serialize) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(Into::into)
}
