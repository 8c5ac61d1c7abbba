//! Read results as JS values: typed arrays for numbers, arrays of strings or bytes, objects of
//! fields for records; and results written into a typed array the caller gives.

use super::errors::js_error;
use super::js::{numbers, set};
use crate::array::ArrayData;
use crate::data_type::fixed_string::{bytes_to_strings, utf32_to_strings};
use crate::data_type::narrow::{self, NarrowFloat};
use crate::data_type::structured::{self, Field, FieldValues, Values};
use crate::data_type::variable::Items;
use crate::data_type::{DataType, VARIABLE_HANDLE_SIZE};
use crate::error::ZarrError;
use crate::indexing::region::c_strides;
use js_sys::{Array as JsArray, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A typed array from the global scope by name, if this runtime has it (Float16Array is recent).
fn global_typed_array(name: &str, buffer: &js_sys::ArrayBuffer) -> Option<JsValue> {
    let ctor = Reflect::get(&js_sys::global(), &name.into())
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()?;
    Reflect::construct(&ctor, &JsArray::of1(buffer)).ok()
}

/// Types whose values are converted on the way out, the typed array they become and the stored
/// bytes per value: float16 where the runtime has no Float16Array, and the narrow types
/// (bfloat16, 8-, 6- and 4-bit floats and integers).
fn widened(data_type: DataType) -> Option<(&'static str, usize)> {
    Some(match data_type {
        DataType::Float16 if !has_float16_array() => ("Float32Array", 2),
        DataType::Narrow(format) => ("Float32Array", format.size()),
        DataType::NarrowComplex(format) => ("Float32Array", format.map_or(2, NarrowFloat::size)),
        DataType::NarrowInt(int) if int.signed => ("Int8Array", 1),
        DataType::NarrowInt(_) => ("Uint8Array", 1),
        _ => return None,
    })
}

/// Stored floats of `format` (`None`: float16) as a Float32Array of their values.
fn float32s(format: Option<NarrowFloat>, bytes: &[u8]) -> Result<JsValue, JsValue> {
    let values = narrow::widen_floats(format, bytes).ok_or("no memory for the widened result")?;
    Ok(js_sys::Float32Array::from(values.as_slice()).into())
}

fn has_float16_array() -> bool {
    Reflect::has(&js_sys::global(), &"Float16Array".into()) == Ok(true)
}

/// The values of a `widened` type as its typed array.
fn widen(data_type: DataType, bytes: &[u8]) -> Result<JsValue, JsValue> {
    Ok(match data_type {
        DataType::NarrowInt(int) if int.signed => {
            let values: Vec<i8> = bytes.iter().map(|&b| int.value(b)).collect();
            js_sys::Int8Array::from(values.as_slice()).into()
        }
        DataType::NarrowInt(int) => {
            // Unsigned values are 0 to 15: as bytes.
            let values: Vec<u8> = bytes.iter().map(|&b| int.value(b) as u8).collect();
            Uint8Array::from(values.as_slice()).into()
        }
        // The floats: a narrow format, or float16 (`None`) alone or in complex pairs.
        DataType::Narrow(format) => float32s(Some(format), bytes)?,
        DataType::NarrowComplex(format) => float32s(format, bytes)?,
        _ => float32s(None, bytes)?,
    })
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

/// `{ data, shape, stride }` with the narrow types' stored bit patterns (read option `bits`): a
/// Uint16Array for bfloat16 (and its complex pairs), else a Uint8Array, one value per byte. Other
/// types come as usual: their values are their bits.
pub fn stored_bits_to_js(data: &ArrayData) -> Result<JsValue, JsValue> {
    let two_bytes = match data.data_type {
        DataType::Narrow(format) | DataType::NarrowComplex(Some(format)) => format.size() == 2,
        DataType::NarrowComplex(None) => true,
        DataType::NarrowInt(_) => false,
        _ => return array_data_to_js(data, None),
    };
    let copy = Uint8Array::new_with_length(data.bytes.len() as u32);
    copy.copy_from(&data.bytes);
    let values: JsValue = match two_bytes {
        true => js_sys::Uint16Array::new(&copy.buffer()).into(),
        false => copy.into(),
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
        other if widened(other).is_some() => return widen(other, bytes),
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
        | DataType::Object
        | DataType::Structured { .. }
        | DataType::FixedBytes { .. }
        | DataType::FixedUnicode { .. } => copy.into(),
        // Widened above; their stored bytes if a caller asks for values another way.
        DataType::Narrow(_) | DataType::NarrowComplex(_) | DataType::NarrowInt(_) => copy.into(),
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
            // The element's JSON text, written by the json2 codec's decoder.
            DataType::Object => js_sys::JSON::parse(&String::from_utf8_lossy(item))?,
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
        DataType::Float16 if has_float16_array() => ("Float16Array", 2),
        DataType::Float32 | DataType::Complex64 => ("Float32Array", 4),
        DataType::Float64 | DataType::Complex128 => ("Float64Array", 8),
        _ => return None,
    })
}

/// The result written into the caller's typed array `out`, which must be of the type and length
/// a new result would have: `{ data: out, shape, stride }`. The bytes go straight from wasm
/// memory into the caller's buffer.
pub fn array_data_into(data: &ArrayData, out: &JsValue) -> Result<JsValue, JsValue> {
    // The wrong kind of array is a TypeError; the right kind of the wrong length a RangeError.
    let bad = |what: String, range: bool| {
        js_error(ZarrError::argument(
            format!("read option out {what}"),
            range,
        ))
    };
    let widened = widened(data.data_type);
    let (name, size) = match (typed_array_kind(data.data_type), widened) {
        (Some(kind), _) => kind,
        (None, Some(kind)) => kind,
        (None, None) => {
            return Err(bad(
                format!("is for numeric results, not {}", data.data_type),
                false,
            ))
        }
    };
    let length = data.bytes.len() / size;
    // A typed array of the type by its internal slots (a subclass, such as Node's Buffer for
    // Uint8Array, is one too; a Proxy of one, or an object inheriting its prototype, is not), read
    // without running the caller's getters (see `guarded`).
    let expected = || format!("must be a {name} of length {length}");
    let parts = super::guarded::typed_array(out)
        .filter(|p| p.kind == name)
        .ok_or_else(|| bad(expected(), false))?;
    if parts.length as usize != length
        || (widened.is_none() && parts.byte_length as usize != data.bytes.len())
    {
        return Err(bad(format!("{}, not {}", expected(), parts.length), true));
    }
    // The bytes go through a view of the module's own over the caller's buffer.
    let target = Uint8Array::new_with_byte_offset_and_length(
        parts.buffer.unchecked_ref(),
        parts.byte_offset,
        parts.byte_length,
    );
    if widened.is_some() {
        let values = widen(data.data_type, &data.bytes)?;
        let values = super::guarded::typed_array(&values).ok_or("widened values")?;
        target.set(
            &Uint8Array::new_with_byte_offset_and_length(
                values.buffer.unchecked_ref(),
                values.byte_offset,
                values.byte_length,
            ),
            0,
        );
    } else {
        target.copy_from(&data.bytes);
    }
    with_shape(out.clone(), &data.shape)
}
