//! Conversions between JS values and core types.

use super::fetch::FetchClient;
use crate::array::{Array, ArrayData, ChunkRegion, ReadOptions};
use crate::data_type::fill_value::Scalar;
use crate::data_type::fixed_string::{bytes_to_strings, utf32_to_strings};
use crate::data_type::structured::{self, Field, FieldKind, FieldValues, Values};
use crate::data_type::variable::Items;
use crate::data_type::{DataType, VARIABLE_HANDLE_SIZE};
use crate::error::{ErrorKind, ZarrError};
use crate::hierarchy::group::Group;
use crate::hierarchy::node::OpenOptions;
use crate::indexing::partition::Partition;
use crate::indexing::region::c_strides;
use crate::indexing::selection::DimSelection;
use crate::limits::Limits;
use crate::store::counting::Counts;
use crate::store::http::HttpOptions;
use js_sys::{Array as JsArray, Object, Reflect, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A JS `Error` with the core's message and a name per kind, so callers can tell failures apart.
pub fn js_error(err: ZarrError) -> JsValue {
    let e = js_sys::Error::new(&err.message);
    e.set_name(match err.kind {
        ErrorKind::NotFound => "NotFoundError",
        ErrorKind::Metadata => "MetadataError",
        ErrorKind::Unsupported => "UnsupportedError",
        ErrorKind::Codec => "CodecError",
        ErrorKind::Store => "StoreError",
        ErrorKind::Selection => "SelectionError",
        ErrorKind::Aborted => "AbortError",
    });
    if let Some(status) = err.status {
        let _ = Reflect::set(&e, &"status".into(), &JsValue::from(status));
    }
    e.into()
}

pub(super) fn set(obj: &Object, key: &str, value: impl Into<JsValue>) -> Result<(), JsValue> {
    Reflect::set(obj, &key.into(), &value.into()).map(|_| ())
}

fn numbers(values: &[u64]) -> JsValue {
    values
        .iter()
        .map(|&v| JsValue::from_f64(v as f64))
        .collect::<JsArray>()
        .into()
}

pub(super) fn json(value: &impl Serialize) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(Into::into)
}

fn fill_value_to_js(scalar: Scalar, data_type: DataType) -> JsValue {
    match scalar {
        Scalar::Bool(b) => b.into(),
        Scalar::Int(i)
            if matches!(
                data_type,
                DataType::Int64 | DataType::DateTime64(_) | DataType::TimeDelta64(_)
            ) =>
        {
            js_sys::BigInt::from(i).into()
        }
        Scalar::UInt(u) if data_type == DataType::UInt64 => js_sys::BigInt::from(u).into(),
        Scalar::Int(i) => JsValue::from_f64(i as f64),
        Scalar::UInt(u) => JsValue::from_f64(u as f64),
        Scalar::Float(f) => JsValue::from_f64(f),
        Scalar::Complex(re, im) => [re, im]
            .iter()
            .map(|&v| JsValue::from_f64(v))
            .collect::<JsArray>()
            .into(),
        Scalar::Raw(bytes) | Scalar::Bytes(bytes) => Uint8Array::from(bytes.as_slice()).into(),
        Scalar::Str(s) => JsValue::from_str(&s),
    }
}

pub fn array_info(array: &Array) -> Result<JsValue, JsValue> {
    let meta = array.metadata();
    let obj = Object::new();
    set(&obj, "kind", "array")?;
    set(&obj, "path", array.path().as_str())?;
    set(&obj, "zarrFormat", meta.zarr_format)?;
    set(&obj, "shape", numbers(&meta.shape))?;
    set(
        &obj,
        "chunks",
        meta.chunk_grid
            .regular_chunk_shape()
            .map_or(JsValue::NULL, numbers),
    )?;
    set(
        &obj,
        "chunkGrid",
        if meta.chunk_grid.regular_chunk_shape().is_some() {
            "regular"
        } else {
            "rectilinear"
        },
    )?;
    set(&obj, "gridShape", numbers(&meta.chunk_grid.grid_shape()))?;
    set(
        &obj,
        "innerChunks",
        array.inner_chunk_shape().map_or(JsValue::NULL, numbers),
    )?;
    set(&obj, "dtype", meta.data_type.name())?;
    if let DataType::DateTime64(unit) | DataType::TimeDelta64(unit) = meta.data_type {
        set(&obj, "timeUnit", unit.to_string())?;
    }
    if let Some(fields) = &meta.fields {
        set(&obj, "fields", fields_to_js(fields)?)?;
    }
    let fill = if meta.fill_value.is_undefined() {
        JsValue::NULL
    } else {
        fill_value_to_js(meta.fill_value.to_scalar(meta.data_type), meta.data_type)
    };
    set(&obj, "fillValue", fill)?;
    set(&obj, "attrs", json(&meta.attributes)?)?;
    set(&obj, "dimensionNames", json(&meta.dimension_names)?)?;
    Ok(obj.into())
}

pub fn group_info(group: &Group) -> Result<JsValue, JsValue> {
    let obj = Object::new();
    set(&obj, "kind", "group")?;
    set(&obj, "path", group.path().as_str())?;
    set(&obj, "zarrFormat", group.metadata().zarr_format)?;
    set(&obj, "attrs", json(&group.metadata().attributes)?)?;
    let children = group.children().map(|list| {
        list.iter()
            .map(|c| {
                let child = Object::new();
                set(&child, "name", c.name.as_str())?;
                set(&child, "path", c.path.as_str())?;
                set(&child, "kind", c.kind.as_str())?;
                Ok(JsValue::from(child))
            })
            .collect::<Result<JsArray, JsValue>>()
    });
    set(
        &obj,
        "children",
        children.transpose()?.map_or(JsValue::NULL, JsValue::from),
    )?;
    Ok(obj.into())
}

/// `{ origin, shape }` of one chunk, in array coordinates.
pub fn chunk_extent(origin: &[u64], shape: &[u64]) -> Result<JsValue, JsValue> {
    let obj = Object::new();
    set(&obj, "origin", numbers(origin))?;
    set(&obj, "shape", numbers(shape))?;
    Ok(obj.into())
}

/// A typed array from the global scope by name, if this runtime has it (Float16Array is recent).
fn global_typed_array(name: &str, buffer: &js_sys::ArrayBuffer) -> Option<JsValue> {
    let ctor = Reflect::get(&js_sys::global(), &name.into())
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()?;
    Reflect::construct(&ctor, &JsArray::of1(buffer)).ok()
}

/// float16 elements (native order) as a Float32Array of the same values, for runtimes without Float16Array.
fn float16_as_float32(bytes: &[u8]) -> JsValue {
    let values: Vec<f32> = bytes
        .chunks_exact(2)
        .map(|b| half::f16::from_ne_bytes([b[0], b[1]]).to_f32())
        .collect();
    js_sys::Float32Array::from(values.as_slice()).into()
}

/// The fields of a structured type: `[{ name, dtype, shape, offset, fields? }]` (`fields` for a
/// nested record, whose `dtype` is "structured").
fn fields_to_js(fields: &[Field]) -> Result<JsValue, JsValue> {
    fields
        .iter()
        .map(|f| {
            let obj = Object::new();
            set(&obj, "name", f.name.as_str())?;
            set(&obj, "offset", f.offset as f64)?;
            set(&obj, "shape", numbers(&f.shape))?;
            match &f.kind {
                FieldKind::Value { data_type, .. } => set(&obj, "dtype", data_type.name())?,
                FieldKind::Record { fields, .. } => {
                    set(&obj, "dtype", "structured")?;
                    set(&obj, "fields", fields_to_js(fields)?)?;
                }
            }
            Ok(JsValue::from(obj))
        })
        .collect::<Result<JsArray, JsValue>>()
        .map(Into::into)
}

/// `{ data, shape, stride }` with `data` the typed array for the data type: complex numbers as
/// interleaved (re, im) floats, raw types as bytes, float16 as Float16Array where the runtime has
/// one and otherwise as a Float32Array of the same values, datetimes as BigInt64Array, strings
/// (fixed or variable length) as a JS `Array`, and structured values as an object of fields.
pub fn array_data_to_js(data: &ArrayData, fields: Option<&[Field]>) -> Result<JsValue, JsValue> {
    let values = match (data.data_type, fields) {
        (DataType::Structured { size }, Some(fields)) => {
            record_to_js(&structured::split(&data.bytes, size, fields))?
        }
        _ => values_to_js(data.data_type, &data.bytes, data.items.as_ref())?,
    };
    with_shape(values, &data.shape)
}

/// A structured result's fields as an object: each field's values, or a nested record's object.
fn record_to_js(fields: &[FieldValues]) -> Result<JsValue, JsValue> {
    let obj = Object::new();
    for field in fields {
        let values = match &field.values {
            Values::Elements { data_type, bytes } => values_to_js(*data_type, bytes, None)?,
            Values::Record(inner) => record_to_js(inner)?,
        };
        // An own property, so that any name (`__proto__` too) is just a field.
        let descriptor = Object::new();
        for flag in ["enumerable", "writable", "configurable"] {
            set(&descriptor, flag, true)?;
        }
        set(&descriptor, "value", values)?;
        Object::define_property(&obj, &field.name.as_str().into(), &descriptor);
    }
    Ok(obj.into())
}

/// Elements of `data_type` (native order) as the JS value users get for them.
pub(super) fn values_to_js(
    data_type: DataType,
    bytes: &[u8],
    items: Option<&Items>,
) -> Result<JsValue, JsValue> {
    if let Some(items) = items {
        return variable_to_js(data_type, bytes, items);
    }
    match data_type {
        DataType::FixedBytes { len } => return Ok(strings_to_js(bytes_to_strings(bytes, len))),
        DataType::FixedUnicode { chars } => {
            return Ok(strings_to_js(utf32_to_strings(bytes, chars)))
        }
        DataType::Float16
            if Reflect::has(&js_sys::global(), &"Float16Array".into()) != Ok(true) =>
        {
            return Ok(float16_as_float32(bytes))
        }
        _ => {}
    }
    // One copy out of wasm memory into a fresh (so aligned) buffer, viewed with the element type.
    let copy = Uint8Array::new_with_length(bytes.len() as u32);
    copy.copy_from(bytes);
    let buffer = copy.buffer();
    Ok(match data_type {
        DataType::Bool | DataType::UInt8 | DataType::Raw { .. } => copy.into(),
        // Returned as arrays of items or records above; bytes if a caller has neither.
        DataType::String
        | DataType::Bytes
        | DataType::Structured { .. }
        | DataType::FixedBytes { .. }
        | DataType::FixedUnicode { .. } => copy.into(),
        DataType::Float16 => global_typed_array("Float16Array", &buffer)
            .ok_or("Float16Array could not be constructed")?,
        DataType::Complex64 => js_sys::Float32Array::new(&buffer).into(),
        DataType::Complex128 => js_sys::Float64Array::new(&buffer).into(),
        DataType::Int8 => js_sys::Int8Array::new(&buffer).into(),
        DataType::Int16 => js_sys::Int16Array::new(&buffer).into(),
        DataType::Int32 => js_sys::Int32Array::new(&buffer).into(),
        DataType::Int64 | DataType::DateTime64(_) | DataType::TimeDelta64(_) => {
            js_sys::BigInt64Array::new(&buffer).into()
        }
        DataType::UInt16 => js_sys::Uint16Array::new(&buffer).into(),
        DataType::UInt32 => js_sys::Uint32Array::new(&buffer).into(),
        DataType::UInt64 => js_sys::BigUint64Array::new(&buffer).into(),
        DataType::Float32 => js_sys::Float32Array::new(&buffer).into(),
        DataType::Float64 => js_sys::Float64Array::new(&buffer).into(),
    })
}

fn strings_to_js(strings: Vec<String>) -> JsValue {
    strings
        .iter()
        .map(|s| JsValue::from_str(s))
        .collect::<JsArray>()
        .into()
}

/// Variable-length elements as a JS `Array`: strings for `string`, `Uint8Array`s for bytes.
fn variable_to_js(data_type: DataType, handles: &[u8], items: &Items) -> Result<JsValue, JsValue> {
    let out = JsArray::new_with_length((handles.len() / VARIABLE_HANDLE_SIZE) as u32);
    for (i, handle) in handles.chunks_exact(VARIABLE_HANDLE_SIZE).enumerate() {
        let item = items
            .resolve(handle)
            .ok_or("a result element refers to no item")?;
        let value: JsValue = match data_type {
            // Items of a string array were checked as UTF-8 when their chunk was decoded.
            DataType::String => JsValue::from_str(&String::from_utf8_lossy(item)),
            _ => Uint8Array::from(item).into(),
        };
        out.set(i as u32, value);
    }
    Ok(out.into())
}

fn with_shape(typed: JsValue, shape: &[u64]) -> Result<JsValue, JsValue> {
    let obj = Object::new();
    set(&obj, "data", typed)?;
    set(&obj, "shape", numbers(shape))?;
    set(&obj, "stride", numbers(&c_strides(shape)))?;
    Ok(obj.into())
}

fn integer(value: &JsValue, what: &str) -> Result<i64, ZarrError> {
    let n = value
        .as_f64()
        .or_else(|| {
            value
                .dyn_ref::<js_sys::BigInt>()
                .and_then(|b| i64::try_from(b.clone()).ok())
                .map(|i| i as f64)
        })
        .ok_or_else(|| ZarrError::selection(format!("{what} must be a number, not {value:?}")))?;
    if n.fract() != 0.0 || !n.is_finite() || n.abs() > 9.007_199_254_740_991e15 {
        return Err(ZarrError::selection(format!(
            "{what} must be an integer, not {n}"
        )));
    }
    Ok(n as i64)
}

fn optional_integer(obj: &JsValue, key: &str, what: &str) -> Result<Option<i64>, ZarrError> {
    let v = Reflect::get(obj, &key.into()).unwrap_or(JsValue::UNDEFINED);
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
    let list = value.dyn_ref::<JsArray>().ok_or_else(|| {
        ZarrError::selection("a selection must be an array with one entry per dimension")
    })?;
    // Checked before walking it: `new Array(2 ** 32 - 1)` is a valid, enormous, empty array.
    if list.length() as usize > ndim {
        return Err(ZarrError::selection(format!(
            "{} dimensions selected, the array has {ndim}",
            list.length()
        )));
    }
    list.iter()
        .enumerate()
        .map(|(dim, v)| {
            let what = format!("selection[{dim}]");
            if v.is_null() || v.is_undefined() {
                Ok(DimSelection::All)
            } else if JsArray::is_array(&v) {
                Err(ZarrError::selection(format!(
                    "{what} is a list; only integers, null and slice() are supported"
                )))
            } else if v.is_object() && !v.is_bigint() {
                let keys = Object::keys(v.unchecked_ref::<Object>());
                if let Some(k) = keys
                    .iter()
                    .filter_map(|k| k.as_string())
                    .find(|k| !SLICE_KEYS.contains(&k.as_str()))
                {
                    return Err(ZarrError::selection(format!(
                        "{what} has the key \"{k}\"; a slice has start, stop and step"
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
    let list = value
        .dyn_ref::<JsArray>()
        .ok_or_else(|| ZarrError::selection("chunk coordinates must be an array of integers"))?;
    if list.length() as usize != ndim {
        return Err(ZarrError::selection(format!(
            "{} chunk coordinates given, the array has {ndim} dimensions",
            list.length()
        )));
    }
    list.iter()
        .enumerate()
        .map(|(dim, v)| {
            let i = integer(&v, &format!("chunk coordinate {dim}"))?;
            u64::try_from(i).map_err(|_| {
                ZarrError::selection(format!("chunk coordinate {dim} is negative ({i})"))
            })
        })
        .collect()
}

/// `get()`'s options.
pub struct GetOptions {
    pub signal: JsValue,
    pub concurrency: usize,
    pub on_progress: Option<js_sys::Function>,
    /// A typed array to write the result into.
    pub out: Option<JsValue>,
    /// This read's own limits, where given (else the node's).
    pub max_chunks: Option<u64>,
    pub max_bytes: Option<u64>,
}

/// `{ signal, concurrency, onProgress, out }`, all optional.
pub fn read_options(options: &JsValue) -> Result<GetOptions, ZarrError> {
    let mut parsed = GetOptions {
        signal: JsValue::UNDEFINED,
        concurrency: ReadOptions::default().concurrency,
        on_progress: None,
        out: None,
        max_chunks: None,
        max_bytes: None,
    };
    if options.is_undefined() || options.is_null() {
        return Ok(parsed);
    }
    let get = |name: &str| {
        Reflect::get(options, &name.into())
            .ok()
            .filter(|v| !v.is_undefined() && !v.is_null())
    };
    let bad = |what: &str| ZarrError::selection(format!("read option {what}"));
    if let Some(v) = get("signal") {
        parsed.signal = v;
    }
    if let Some(v) = get("concurrency") {
        parsed.concurrency = v
            .as_f64()
            .filter(|n| n.fract() == 0.0 && (1.0..=1024.0).contains(n))
            .ok_or_else(|| bad("concurrency must be an integer from 1 to 1024"))?
            as usize;
    }
    if let Some(v) = get("onProgress") {
        parsed.on_progress = Some(
            v.dyn_into()
                .map_err(|_| bad("onProgress must be a function"))?,
        );
    }
    parsed.out = get("out");
    let count = |name: &str| -> Result<Option<u64>, ZarrError> {
        let Some(v) = get(name) else { return Ok(None) };
        v.as_f64()
            .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= 9_007_199_254_740_991.0)
            .map(|n| Some(n as u64))
            .ok_or_else(|| bad(&format!("{name} must be a non-negative integer")))
    };
    parsed.max_chunks = count("maxChunks")?;
    parsed.max_bytes = count("maxBytes")?;
    Ok(parsed)
}

/// Calls `onProgress({ chunksDone, chunksTotal, bytesFetched, requests })`. What the callback
/// throws is its own business: the read goes on.
pub fn report_progress(f: &js_sys::Function, done: u64, total: u64, counts: &Counts) {
    let obj = Object::new();
    let _ = set(&obj, "chunksDone", done as f64);
    let _ = set(&obj, "chunksTotal", total as f64);
    let _ = set(&obj, "bytesFetched", counts.bytes.get() as f64);
    let _ = set(&obj, "requests", counts.requests.get() as f64);
    let _ = f.call1(&JsValue::NULL, &obj);
}

/// The typed array a numeric type is returned as, by name, and its bytes per element; `None`
/// for types returned otherwise (strings, records) and float16 where it is widened to float32.
fn typed_array_kind(data_type: DataType) -> Option<(&'static str, usize)> {
    Some(match data_type {
        DataType::Bool | DataType::UInt8 | DataType::Raw { .. } => ("Uint8Array", 1),
        DataType::Int8 => ("Int8Array", 1),
        DataType::Int16 => ("Int16Array", 2),
        DataType::UInt16 => ("Uint16Array", 2),
        DataType::Int32 => ("Int32Array", 4),
        DataType::UInt32 => ("Uint32Array", 4),
        DataType::Int64 | DataType::DateTime64(_) | DataType::TimeDelta64(_) => {
            ("BigInt64Array", 8)
        }
        DataType::UInt64 => ("BigUint64Array", 8),
        DataType::Float16
            if Reflect::has(&js_sys::global(), &"Float16Array".into()) == Ok(true) =>
        {
            ("Float16Array", 2)
        }
        DataType::Float32 | DataType::Complex64 => ("Float32Array", 4),
        DataType::Float64 | DataType::Complex128 => ("Float64Array", 8),
        _ => return None,
    })
}

/// The result written into the caller's typed array `out`, which must be of the type and length
/// a new result would have: `{ data: out, shape, stride }`. The bytes go straight from wasm
/// memory into the caller's buffer.
pub fn array_data_into(data: &ArrayData, out: &JsValue) -> Result<JsValue, JsValue> {
    let bad = |what: String| js_error(ZarrError::selection(format!("read option out {what}")));
    let widened = data.data_type == DataType::Float16 && typed_array_kind(data.data_type).is_none();
    let (name, size) = match (typed_array_kind(data.data_type), widened) {
        (Some(kind), _) => kind,
        (None, true) => ("Float32Array", 2),
        (None, false) => {
            return Err(bad(format!(
                "is for numeric results, not {}",
                data.data_type
            )))
        }
    };
    let length = data.bytes.len() / size;
    // An instance of the type by its prototype chain (a subclass, such as Node's Buffer for
    // Uint8Array, is one too).
    let prototype = Reflect::get(&js_sys::global(), &name.into())
        .and_then(|c| Reflect::get(&c, &"prototype".into()))
        .unwrap_or(JsValue::NULL);
    let mut is_type = false;
    let mut current = out
        .dyn_ref::<Object>()
        .map_or(JsValue::NULL, |o| Object::get_prototype_of(o).into());
    while let Some(o) = current.dyn_ref::<Object>().filter(|_| !current.is_null()) {
        if current == prototype {
            is_type = true;
            break;
        }
        current = Object::get_prototype_of(o).into();
    }
    let out_length = Reflect::get(out, &"length".into())
        .ok()
        .and_then(|l| l.as_f64());
    if !is_type || out_length != Some(length as f64) {
        return Err(bad(format!("must be a {name} of length {length}")));
    }
    if widened {
        let set_fn: js_sys::Function = Reflect::get(out, &"set".into())?.dyn_into()?;
        set_fn.call1(out, &float16_as_float32(&data.bytes))?;
    } else {
        let buffer: js_sys::ArrayBuffer = Reflect::get(out, &"buffer".into())?.dyn_into()?;
        let offset = Reflect::get(out, &"byteOffset".into())?
            .as_f64()
            .unwrap_or(0.0) as u32;
        Uint8Array::new_with_byte_offset_and_length(&buffer, offset, data.bytes.len() as u32)
            .copy_from(&data.bytes);
    }
    with_shape(out.clone(), &data.shape)
}

/// `[{ coords, selection, outStart, shape }]`: each chunk's share of a selection.
pub fn chunk_regions_to_js(regions: &[ChunkRegion]) -> Result<JsValue, JsValue> {
    regions
        .iter()
        .map(|r| {
            let obj = Object::new();
            set(&obj, "coords", numbers(&r.coords))?;
            set(&obj, "selection", selection_to_js(&r.selection))?;
            set(&obj, "outStart", numbers(&r.out_start))?;
            set(&obj, "shape", numbers(&r.shape))?;
            Ok(JsValue::from(obj))
        })
        .collect::<Result<JsArray, JsValue>>()
        .map(Into::into)
}

/// A split read: `{ selection, shape, parts: [{ selection, outStart, shape, chunks }] }`.
pub fn partition_to_js(partition: &Partition) -> Result<JsValue, JsValue> {
    let parts = partition
        .parts
        .iter()
        .map(|p| {
            let obj = Object::new();
            set(&obj, "selection", selection_to_js(&p.selection))?;
            set(&obj, "outStart", numbers(&p.out_start))?;
            set(&obj, "shape", numbers(&p.shape))?;
            set(&obj, "chunks", p.chunks as f64)?;
            Ok(JsValue::from(obj))
        })
        .collect::<Result<JsArray, JsValue>>()?;
    let obj = Object::new();
    set(&obj, "selection", selection_to_js(&partition.selection))?;
    set(&obj, "shape", numbers(&partition.shape))?;
    set(&obj, "parts", parts)?;
    Ok(obj.into())
}

/// A selection as the JS API takes it: numbers, `{ start, stop, step }` and nulls.
fn selection_to_js(selection: &[DimSelection]) -> JsArray {
    let n = |v: &Option<i64>| v.map_or(JsValue::NULL, |x| JsValue::from_f64(x as f64));
    selection
        .iter()
        .map(|s| match s {
            DimSelection::Index(i) => JsValue::from_f64(*i as f64),
            DimSelection::Slice { start, stop, step } => {
                let slice = Object::new();
                let _ = set(&slice, "start", n(start));
                let _ = set(&slice, "stop", n(stop));
                let _ = set(&slice, "step", n(step));
                slice.into()
            }
            DimSelection::All => JsValue::NULL,
        })
        .collect()
}

/// A store's `cacheSize` option: bytes of recent values to keep (default 0, none).
pub fn cache_size(options: &JsValue) -> Result<usize, ZarrError> {
    bytes_option(options, "cacheSize")
}

/// A size in bytes from `options[name]`, where given (default 0).
fn bytes_option(options: &JsValue, name: &str) -> Result<usize, ZarrError> {
    if options.is_undefined() || options.is_null() {
        return Ok(0);
    }
    let v = Reflect::get(options, &name.into()).unwrap_or(JsValue::UNDEFINED);
    if v.is_undefined() || v.is_null() {
        return Ok(0);
    }
    v.as_f64()
        .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= crate::buffer::MAX_BUFFER as f64)
        .map(|n| n as usize)
        .ok_or_else(|| ZarrError::selection(format!("option {name} must be a number of bytes")))
}

/// `open()`'s `chunkCacheSize`: bytes of decoded chunks each array keeps (default 0, none).
pub fn chunk_cache_size(options: &JsValue) -> Result<usize, ZarrError> {
    bytes_option(options, "chunkCacheSize")
}

/// `open()`'s options beside the path and the signal: `{ zarrFormat: 2 | 3, consolidated }`.
pub fn open_options(options: &JsValue) -> Result<OpenOptions, ZarrError> {
    let mut open = OpenOptions::default();
    if options.is_undefined() || options.is_null() {
        return Ok(open);
    }
    let get = |name: &str| {
        Reflect::get(options, &name.into())
            .ok()
            .filter(|v| !v.is_undefined() && !v.is_null())
    };
    if let Some(v) = get("zarrFormat") {
        open.zarr_format = Some(match v.as_f64() {
            Some(2.0) => 2,
            Some(3.0) => 3,
            _ => {
                return Err(ZarrError::selection(format!(
                    "open option zarrFormat must be 2 or 3, not {v:?}"
                )))
            }
        });
    }
    if let Some(v) = get("consolidated") {
        open.consolidated = Some(v.as_bool().ok_or_else(|| {
            ZarrError::selection("open option consolidated must be true or false")
        })?);
    }
    if let Some(v) = get("limits") {
        open.limits = limits(&v)?;
    }
    Ok(open)
}

/// `open()`'s `limits`: `{ maxChunksPerRead, maxBytesPerRead, maxDecodedChunkBytes, maxItemBytes }`,
/// each optional (the default where absent). A name it does not know is an error: a misspelt
/// limit must not be silently ignored.
fn limits(options: &JsValue) -> Result<Limits, ZarrError> {
    let mut limits = Limits::default();
    let bad = |what: String| ZarrError::selection(format!("open option limits: {what}"));
    let entries = Object::entries(
        options
            .dyn_ref::<Object>()
            .ok_or_else(|| bad("must be an object".into()))?,
    );
    for entry in entries.iter() {
        let pair: JsArray = entry.unchecked_into();
        let name = pair.get(0).as_string().unwrap_or_default();
        let value = pair.get(1);
        if value.is_undefined() {
            continue;
        }
        let max = match name.as_str() {
            "maxChunksPerRead" | "maxBytesPerRead" => 9_007_199_254_740_991.0,
            "maxDecodedChunkBytes" | "maxItemBytes" => crate::buffer::MAX_BUFFER as f64,
            _ => {
                return Err(bad(format!(
                    "unknown limit {:?} (maxChunksPerRead, maxBytesPerRead, maxDecodedChunkBytes, maxItemBytes)",
                    name.chars().take(40).collect::<String>()
                )))
            }
        };
        let n = value
            .as_f64()
            .filter(|n| n.fract() == 0.0 && *n >= 1.0 && *n <= max)
            .ok_or_else(|| bad(format!("{name} must be an integer from 1 to {max}")))?;
        match name.as_str() {
            "maxChunksPerRead" => limits.max_chunks_per_read = n as u64,
            "maxBytesPerRead" => limits.max_bytes_per_read = n as u64,
            "maxDecodedChunkBytes" => limits.max_decoded_chunk_bytes = n as usize,
            _ => limits.max_item_bytes = n as usize,
        }
    }
    Ok(limits)
}

/// The FetchStore's options: `{ suffixRequests, treat403AsMissing, retries, maxRequests, mergeGap,
/// indexCacheSize, headers, credentials, fetch }`, all optional. Anything of the wrong type is an error, not silently ignored.
pub fn fetch_options(options: &JsValue) -> Result<(HttpOptions, FetchClient), ZarrError> {
    let mut http = HttpOptions::default();
    let mut client = FetchClient::default();
    if options.is_undefined() || options.is_null() {
        return Ok((http, client));
    }
    let bad = |what: &str| ZarrError::selection(format!("FetchStore option {what}"));
    let get = |name: &str| {
        Reflect::get(options, &name.into())
            .ok()
            .filter(|v| !v.is_undefined() && !v.is_null())
    };
    if let Some(v) = get("suffixRequests") {
        http.suffix_requests = v
            .as_bool()
            .ok_or_else(|| bad("suffixRequests must be true or false"))?;
    }
    if let Some(v) = get("treat403AsMissing") {
        if v.as_bool()
            .ok_or_else(|| bad("treat403AsMissing must be true or false"))?
        {
            http.missing_statuses.push(403);
        }
    }
    // A whole number option within `min..=max`, where given.
    let whole = |name: &str, min: u32, max: u32| -> Result<Option<u32>, ZarrError> {
        let Some(v) = get(name) else { return Ok(None) };
        v.as_f64()
            .filter(|n| n.fract() == 0.0 && (min as f64..=max as f64).contains(n))
            .map(|n| Some(n as u32))
            .ok_or_else(|| bad(&format!("{name} must be an integer from {min} to {max}")))
    };
    if let Some(n) = whole("retries", 0, 20)? {
        http.retries = n;
    }
    if let Some(n) = whole("maxRequests", 1, 1024)? {
        http.max_requests = n as usize;
    }
    if let Some(n) = whole("mergeGap", 0, 1_000_000_000)? {
        http.hints.merge_gap = n as u64;
    }
    if let Some(n) = whole("indexCacheSize", 1, 10_000_000)? {
        http.hints.index_cache = n as usize;
    }
    if let Some(v) = get("headers") {
        let entries = Object::entries(
            v.dyn_ref::<Object>()
                .ok_or_else(|| bad("headers must be an object"))?,
        );
        for entry in entries.iter() {
            let pair: JsArray = entry.unchecked_into();
            let (name, value) = (pair.get(0).as_string(), pair.get(1).as_string());
            match (name, value) {
                (Some(n), Some(v)) => client.headers.push((n, v)),
                _ => return Err(bad("headers must map names to strings")),
            }
        }
    }
    if let Some(v) = get("credentials") {
        client.credentials = Some(match v.as_string().as_deref() {
            Some("omit") => web_sys::RequestCredentials::Omit,
            Some("same-origin") => web_sys::RequestCredentials::SameOrigin,
            Some("include") => web_sys::RequestCredentials::Include,
            _ => {
                return Err(bad(
                    "credentials must be \"omit\", \"same-origin\" or \"include\"",
                ))
            }
        });
    }
    if let Some(v) = get("redirect") {
        client.redirect = Some(match v.as_string().as_deref() {
            Some("follow") => web_sys::RequestRedirect::Follow,
            Some("error") => web_sys::RequestRedirect::Error,
            Some("manual") => web_sys::RequestRedirect::Manual,
            _ => return Err(bad("redirect must be \"follow\", \"error\" or \"manual\"")),
        });
    }
    if let Some(n) = whole("timeout", 0, 3_600_000)? {
        http.idle_timeout_ms = n;
    }
    if let Some(v) = get("maxObjectBytes") {
        http.max_object_bytes = v
            .as_f64()
            .filter(|n| n.fract() == 0.0 && *n >= 1.0 && *n <= crate::buffer::MAX_BUFFER as f64)
            .ok_or_else(|| {
                bad(&format!(
                    "maxObjectBytes must be an integer from 1 to {}",
                    crate::buffer::MAX_BUFFER
                ))
            })? as u64;
    }
    if let Some(v) = get("fetch") {
        client.fetch = Some(
            v.dyn_into::<js_sys::Function>()
                .map_err(|_| bad("fetch must be a function"))?,
        );
    }
    Ok((http, client))
}
