//! Writing, as the JS API sees it (the `write` feature, the npm package's write build): a
//! selection set from a typed array or a number, an array resized, attributes replaced; arrays
//! and groups created, hierarchies erased and consolidated. The core does the work
//! (`array::write`, `hierarchy::write`); this converts the values and the options.

use super::errors::js_error;
use super::guarded;
use super::options::set_options;
use super::selection::parse_selection;
use super::{WasmArray, WasmGroup, WasmStore};
use crate::array::write::{WriteOptions, WriteValue};
use crate::array::ReadOptions;
use crate::data_type::fixed_string::{string_to_bytes, string_to_utf32};
use crate::data_type::variable::Items;
use crate::data_type::DataType;
use crate::error::ZarrError;
use crate::hierarchy::write::{self as writing, ArraySpec};
use js_sys::Reflect;
use serde_json::{Map, Value};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// What a JS value written to a selection of `count` elements of `data_type` is: its elements'
/// bytes (native order), or one element for them all.
enum Written {
    Elements(Vec<u8>),
    Scalar(Vec<u8>),
    Items(Items),
}

/// The typed array a numeric type is written from (as reads return it), and the numbers per
/// element (two for complex).
fn typed_kind(data_type: DataType) -> Option<(&'static str, u64)> {
    Some(match data_type {
        DataType::Bool | DataType::UInt8 => ("Uint8Array", 1),
        DataType::Int8 => ("Int8Array", 1),
        DataType::Int16 => ("Int16Array", 1),
        DataType::UInt16 => ("Uint16Array", 1),
        DataType::Int32 => ("Int32Array", 1),
        DataType::UInt32 => ("Uint32Array", 1),
        DataType::Int64 => ("BigInt64Array", 1),
        DataType::UInt64 => ("BigUint64Array", 1),
        DataType::Float32 => ("Float32Array", 1),
        DataType::Float64 => ("Float64Array", 1),
        DataType::Complex64 => ("Float32Array", 2),
        DataType::Complex128 => ("Float64Array", 2),
        _ => return None,
    })
}

/// One element of `data_type` from a JS number, bigint or boolean: checked to be representable.
fn scalar(value: &JsValue, data_type: DataType) -> Result<Vec<u8>, ZarrError> {
    let bad = |why: String| ZarrError::argument(format!("the value {why}"), true);
    if let Some(b) = value.as_bool() {
        return match data_type {
            DataType::Bool => Ok(vec![b as u8]),
            _ => Err(ZarrError::argument(
                format!("the value is a boolean; the array's data type is {data_type}"),
                false,
            )),
        };
    }
    if value.is_bigint() {
        let text = String::from(
            js_sys::BigInt::unchecked_from_js(value.clone())
                .to_string(10)
                .unwrap_or_default(),
        );
        return match data_type {
            DataType::Int64 => text
                .parse::<i64>()
                .map(|v| v.to_ne_bytes().to_vec())
                .map_err(|_| bad(format!("{text}n is outside int64"))),
            DataType::UInt64 => text
                .parse::<u64>()
                .map(|v| v.to_ne_bytes().to_vec())
                .map_err(|_| bad(format!("{text}n is outside uint64"))),
            _ => Err(ZarrError::argument(
                format!(
                    "the value is a bigint; the array's data type is {data_type} (write a number)"
                ),
                false,
            )),
        };
    }
    let Some(v) = value.as_f64() else {
        return Err(ZarrError::argument(
            format!(
                "the value is {}, not a typed array, a number, a bigint or a boolean",
                guarded::show(value)
            ),
            false,
        ));
    };
    let integer = |min: f64, max: f64| {
        if v.fract() == 0.0 && (min..=max).contains(&v) {
            Ok(v)
        } else {
            Err(bad(format!("{v} is not an integer of {data_type}")))
        }
    };
    Ok(match data_type {
        DataType::Bool => vec![(v != 0.0) as u8],
        DataType::Int8 => (integer(-128.0, 127.0)? as i8).to_ne_bytes().to_vec(),
        DataType::UInt8 => (integer(0.0, 255.0)? as u8).to_ne_bytes().to_vec(),
        DataType::Int16 => (integer(-32768.0, 32767.0)? as i16).to_ne_bytes().to_vec(),
        DataType::UInt16 => (integer(0.0, 65535.0)? as u16).to_ne_bytes().to_vec(),
        DataType::Int32 => (integer(-2147483648.0, 2147483647.0)? as i32)
            .to_ne_bytes()
            .to_vec(),
        DataType::UInt32 => (integer(0.0, 4294967295.0)? as u32).to_ne_bytes().to_vec(),
        DataType::Int64 => (integer(-9007199254740991.0, 9007199254740991.0)? as i64)
            .to_ne_bytes()
            .to_vec(),
        DataType::UInt64 => (integer(0.0, 9007199254740991.0)? as u64)
            .to_ne_bytes()
            .to_vec(),
        DataType::Float32 => (v as f32).to_ne_bytes().to_vec(),
        DataType::Float64 => v.to_ne_bytes().to_vec(),
        DataType::Complex64 => [(v as f32).to_ne_bytes(), 0f32.to_ne_bytes()].concat(),
        DataType::Complex128 => [v.to_ne_bytes(), 0f64.to_ne_bytes()].concat(),
        _ => {
            return Err(ZarrError::unsupported(
                "the value",
                format!("writing {data_type} data is not supported yet"),
            ))
        }
    })
}

/// One string or byte string of `data_type` (`string`, `bytes`, `S<n>`, `U<n>`) as the core
/// takes it: a variable-length type's item, or a fixed one's element. A `string` or a fixed type
/// takes a JS string, `bytes` a `Uint8Array`.
fn text_element(value: &JsValue, data_type: DataType) -> Result<Vec<u8>, ZarrError> {
    let wrong = |wanted: &str| {
        ZarrError::argument(
            format!(
                "the value {} is not {wanted}, as an array of {data_type} is written from",
                guarded::show(value)
            ),
            false,
        )
    };
    let range = |e: String| ZarrError::argument(format!("the value {e}"), true);
    if data_type == DataType::Bytes {
        let parts = guarded::typed_array(value)
            .filter(|p| p.kind == "Uint8Array")
            .ok_or_else(|| wrong("a Uint8Array"))?;
        let view = js_sys::Uint8Array::new_with_byte_offset_and_length(
            parts.buffer.unchecked_ref(),
            parts.byte_offset,
            parts.byte_length,
        );
        return Ok(view.to_vec());
    }
    let text = value.as_string().ok_or_else(|| wrong("a string"))?;
    match data_type {
        DataType::FixedBytes { len } => string_to_bytes(&text, len).map_err(range),
        DataType::FixedUnicode { chars } => string_to_utf32(&text, chars).map_err(range),
        _ => Ok(text.into_bytes()),
    }
}

/// Whether `data_type` is written from strings (or byte strings): `string[]` as reads return.
fn textual(data_type: DataType) -> bool {
    matches!(
        data_type,
        DataType::String
            | DataType::Bytes
            | DataType::FixedBytes { .. }
            | DataType::FixedUnicode { .. }
    )
}

/// The value of a write to `count` elements of a string type: a JS array of exactly `count`
/// strings (`Uint8Array`s for `bytes`), or one for them all.
fn written_text(value: &JsValue, data_type: DataType, count: u64) -> Result<Written, ZarrError> {
    let length = guarded::array_length(value)
        .map_err(|e| ZarrError::argument(format!("the value: {e}"), false))?;
    let Some(length) = length else {
        return text_element(value, data_type).map(Written::Scalar);
    };
    if length != count as f64 {
        return Err(ZarrError::selection(format!(
            "the value has {length} elements; the selection holds {count}"
        )));
    }
    let at = |i: u32| {
        Reflect::get_u32(value, i)
            .map_err(|e| {
                ZarrError::argument(
                    format!("the value's element {i}: {}", guarded::show(&e)),
                    false,
                )
            })
            .and_then(|v| text_element(&v, data_type))
            .map_err(|e| ZarrError::new(e.kind, format!("element {i}: {}", e.message)))
    };
    if data_type.is_variable() {
        let mut items = Items::default();
        for i in 0..count as u32 {
            items.push(&at(i)?).map_err(ZarrError::selection)?;
        }
        return Ok(Written::Items(items));
    }
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact((count as usize).saturating_mul(data_type.size()))
        .map_err(|_| ZarrError::selection(format!("cannot allocate {count} elements")))?;
    for i in 0..count as u32 {
        bytes.extend(at(i)?);
    }
    Ok(Written::Elements(bytes))
}

/// The value of a write to `count` elements of `data_type`: a typed array of the kind reads
/// return, exactly `count` elements long, or one number (bigint, boolean) for them all; strings
/// for string types (`written_text`).
fn written(value: &JsValue, data_type: DataType, count: u64) -> Result<Written, ZarrError> {
    if textual(data_type) {
        return written_text(value, data_type, count);
    }
    let Some(parts) = guarded::typed_array(value) else {
        return scalar(value, data_type).map(Written::Scalar);
    };
    let (kind, per) = typed_kind(data_type).ok_or_else(|| {
        ZarrError::unsupported(
            "the value",
            format!("writing {data_type} data is not supported yet"),
        )
    })?;
    if parts.kind != kind {
        return Err(ZarrError::argument(
            format!(
                "the value is a {}; an array of {data_type} is written from a {kind}",
                parts.kind
            ),
            false,
        ));
    }
    let want = count.saturating_mul(per);
    if parts.length as u64 != want {
        return Err(ZarrError::selection(format!(
            "the value has {} elements; the selection holds {count}{}",
            parts.length,
            if per == 2 {
                " complex numbers (2 numbers each)"
            } else {
                ""
            }
        )));
    }
    let view = js_sys::Uint8Array::new_with_byte_offset_and_length(
        parts.buffer.unchecked_ref(),
        parts.byte_offset,
        parts.byte_length,
    );
    let mut bytes = crate::collections::buffer::try_zeroed(parts.byte_length as usize)
        .map_err(ZarrError::selection)?;
    view.copy_to(&mut bytes);
    if data_type == DataType::Bool {
        bytes.iter_mut().for_each(|b| *b = (*b != 0) as u8);
    }
    Ok(Written::Elements(bytes))
}

/// A JS object as JSON (attributes): by `JSON.stringify`, then read by the core's parser.
fn object_of(value: &JsValue, what: &str) -> Result<Map<String, Value>, ZarrError> {
    let text = js_sys::JSON::stringify(value)
        .ok()
        .and_then(|t| t.as_string())
        .ok_or_else(|| ZarrError::argument(format!("{what} must be a JSON object"), false))?;
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(ZarrError::argument(
            format!("{what} must be a JSON object"),
            false,
        )),
    }
}

#[wasm_bindgen]
impl WasmArray {
    /// Sets `selection` to `value` (see `written`); `options` are `{ signal, onProgress,
    /// writeEmptyChunks, concurrency }`.
    pub fn set(&self, selection: JsValue, value: JsValue, options: JsValue) -> js_sys::Promise {
        let parsed = set_options(&options);
        let array = parsed
            .as_ref()
            .map_err(|e| js_error(e.clone()))
            .and_then(|o| self.reading(&o.signal));
        wasm_bindgen_futures::future_to_promise(async move {
            let (options, array) = (parsed.map_err(js_error)?, array?);
            let selection = parse_selection(&selection, array.shape().len()).map_err(js_error)?;
            let ranges =
                crate::indexing::selection::resolve(&selection, array.shape()).map_err(js_error)?;
            let count = ranges.iter().fold(1u64, |n, r| n.saturating_mul(r.count));
            let value = written(&value, array.data_type(), count).map_err(js_error)?;
            let report = |done: u64, total: u64| {
                if let Some(f) = &options.on_progress {
                    let obj = js_sys::Object::new();
                    let _ = Reflect::set(&obj, &"chunksDone".into(), &(done as f64).into());
                    let _ = Reflect::set(&obj, &"chunksTotal".into(), &(total as f64).into());
                    let _ = f.call1(&JsValue::NULL, &obj);
                }
            };
            let write = WriteOptions {
                concurrency: options.concurrency,
                write_empty_chunks: options.write_empty_chunks,
                progress: Some(&report),
            };
            let value = match &value {
                Written::Elements(b) => WriteValue::Elements(b),
                Written::Scalar(e) => WriteValue::Scalar(e),
                Written::Items(items) => WriteValue::Items(items),
            };
            array
                .set_with(&selection, value, &write)
                .await
                .map_err(js_error)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Sets `selection` to what the same selection of `source` holds, an array of this
    /// instance of this one's data type and shape (`zarr-wasm convert`'s copy): the values stay
    /// in the module. `options` are `set`'s (`onProgress` aside); the signal ends the read and
    /// the write.
    #[wasm_bindgen(js_name = copyFrom)]
    pub fn copy_from(
        &self,
        source: &WasmArray,
        selection: JsValue,
        options: JsValue,
    ) -> js_sys::Promise {
        let parsed = set_options(&options);
        let arrays = parsed
            .as_ref()
            .map_err(|e| js_error(e.clone()))
            .and_then(|o| Ok((source.reading(&o.signal)?, self.reading(&o.signal)?)));
        wasm_bindgen_futures::future_to_promise(async move {
            let (options, (from, to)) = (parsed.map_err(js_error)?, arrays?);
            let selection = parse_selection(&selection, to.shape().len()).map_err(js_error)?;
            let limits = from.limits();
            let read = ReadOptions {
                max_chunks: limits.max_chunks_per_read,
                max_bytes: limits.max_bytes_per_read,
                ..ReadOptions::default()
            };
            let write = WriteOptions {
                concurrency: options.concurrency,
                write_empty_chunks: options.write_empty_chunks,
                progress: None,
            };
            to.copy_from(&from, &selection, &read, &write)
                .await
                .map_err(js_error)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Resizes the array: resolves to its handle at the new shape.
    pub fn resize(&self, shape: JsValue) -> js_sys::Promise {
        let (array, source) = (self.inner.clone(), self.source.clone());
        wasm_bindgen_futures::future_to_promise(async move {
            let shape = guarded::elements(&shape, 64)
                .ok()
                .flatten()
                .and_then(|v| {
                    v.iter()
                        .map(|n| {
                            n.as_f64()
                                .filter(|n| n.fract() == 0.0 && *n >= 0.0)
                                .map(|n| n as u64)
                        })
                        .collect::<Option<Vec<u64>>>()
                })
                .ok_or_else(|| {
                    js_error(ZarrError::argument(
                        "the shape must be a list of non-negative integers",
                        false,
                    ))
                })?;
            let resized = writing::resize(&array, &shape).await.map_err(js_error)?;
            Ok(WasmArray {
                inner: Rc::new(resized),
                source,
            }
            .into())
        })
    }

    /// Replaces the array's attributes.
    #[wasm_bindgen(js_name = setAttributes)]
    pub fn set_attributes(&self, attributes: JsValue) -> js_sys::Promise {
        attributes_set(self.source.store(), self.inner.path(), attributes)
    }
}

/// Replaces the attributes of the node at `path` of `store` (resolves to undefined).
fn attributes_set(
    store: Rc<dyn crate::store::ReadableStore>,
    path: &crate::metadata::node_path::NodePath,
    attributes: JsValue,
) -> js_sys::Promise {
    let path = path.as_str().to_string();
    wasm_bindgen_futures::future_to_promise(async move {
        let attributes = object_of(&attributes, "attributes").map_err(js_error)?;
        writing::set_attributes(&*store, &path, &attributes)
            .await
            .map_err(js_error)?;
        Ok(JsValue::UNDEFINED)
    })
}

#[wasm_bindgen]
impl WasmGroup {
    /// Replaces the group's attributes.
    #[wasm_bindgen(js_name = setAttributes)]
    pub fn set_attributes(&self, attributes: JsValue) -> js_sys::Promise {
        attributes_set(self.source.store(), self.inner.path(), attributes)
    }
}

#[wasm_bindgen]
impl WasmStore {
    /// Creates an array: `spec` is `create()`'s options as JSON text (see `ArraySpec`).
    /// Resolves to its handle.
    pub fn create(&self, spec: String) -> js_sys::Promise {
        let source = self.source.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let spec: ArraySpec = serde_json::from_str(&spec)
                .map_err(|e| js_error(ZarrError::argument(format!("create(): {e}"), false)))?;
            let path = spec.path.clone().unwrap_or_default();
            let array = writing::create_array(source.store(), &path, &spec)
                .await
                .map_err(js_error)?;
            Ok(WasmArray {
                inner: Rc::new(array),
                source,
            }
            .into())
        })
    }

    /// Creates a group at `path` with `attributes` (a JSON object or undefined).
    #[wasm_bindgen(js_name = createGroup)]
    pub fn create_group(
        &self,
        path: String,
        attributes: JsValue,
        zarr_format: Option<u8>,
        overwrite: bool,
    ) -> js_sys::Promise {
        let source = self.source.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let attributes = match attributes.is_undefined() || attributes.is_null() {
                true => None,
                false => Some(object_of(&attributes, "attributes").map_err(js_error)?),
            };
            let group = writing::create_group(
                source.store(),
                &path,
                attributes.as_ref(),
                zarr_format,
                overwrite,
            )
            .await
            .map_err(js_error)?;
            Ok(WasmGroup {
                inner: Rc::new(group),
                source,
                chunk_cache: 0,
            }
            .into())
        })
    }

    /// Erases the node at `path` and everything below it.
    pub fn erase(&self, path: String) -> js_sys::Promise {
        let store = self.source.store();
        wasm_bindgen_futures::future_to_promise(async move {
            writing::erase(&*store, &path).await.map_err(js_error)?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The nodes below the group at `path`, found by listing the store: JSON text of
    /// `[{ "path", "kind" }]`, paths relative to `path`, sorted (the converter walks them).
    #[wasm_bindgen(js_name = nodesBelow)]
    pub fn nodes_below(&self, path: String) -> js_sys::Promise {
        let store = self.source.store();
        wasm_bindgen_futures::future_to_promise(async move {
            let at = crate::metadata::node_path::NodePath::parse(&path).map_err(js_error)?;
            let nodes = writing::nodes_below(&*store, &at).await.map_err(js_error)?;
            let listed: Vec<Value> = nodes
                .into_iter()
                .map(|(path, name, doc)| {
                    let group = name == ".zgroup" || doc["node_type"] == "group";
                    serde_json::json!({ "path": path, "kind": if group { "group" } else { "array" } })
                })
                .collect();
            Ok(JsValue::from_str(&Value::Array(listed).to_string()))
        })
    }

    /// Writes consolidated metadata for the hierarchy at `path`.
    pub fn consolidate(&self, path: String) -> js_sys::Promise {
        let store = self.source.store();
        wasm_bindgen_futures::future_to_promise(async move {
            writing::consolidate(&*store, &path)
                .await
                .map_err(js_error)?;
            Ok(JsValue::UNDEFINED)
        })
    }
}
