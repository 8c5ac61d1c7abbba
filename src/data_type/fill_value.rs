//! Fill values: parsed from their JSON form into one element's bytes in native byte order, so that
//! filling a missing chunk is a byte-pattern copy whatever the data type.

use crate::data_type::narrow::NarrowFloat;
use crate::data_type::structured::{Field, FieldKind};
use crate::data_type::{DataType, Endian};
use half::f16;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillValue {
    bytes: Vec<u8>,
    /// For variable-length types, the fill item itself (`bytes` is then its handle, item 0).
    item: Option<Vec<u8>>,
    /// Zarr v2's `null`: missing chunks have undefined content. They read as zeros (empty items).
    undefined: bool,
}

/// A fill value as a plain value, for showing it to users.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Complex(f64, f64),
    Raw(Vec<u8>),
    Str(String),
    Bytes(Vec<u8>),
    /// A JSON value, as text (an object array's fill value).
    Json(String),
}

impl FillValue {
    pub fn from_native_bytes(bytes: Vec<u8>) -> Self {
        FillValue {
            bytes,
            item: None,
            undefined: false,
        }
    }

    /// Whether the metadata gave no fill value (Zarr v2's `null`).
    pub fn is_undefined(&self) -> bool {
        self.undefined
    }

    /// For a variable-length type, the fill item's bytes (UTF-8 for strings).
    pub fn item(&self) -> Option<&[u8]> {
        self.item.as_deref()
    }

    /// One element, native byte order.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Parses the v3 JSON form for `data_type`. The error text says what was expected. Where
    /// the reference readers accept more than the spec's forms, so does this (see the README's
    /// "What it reads today"): `null` (zarrita writes it when no fill value is given) reads as
    /// zeros, as Zarr v2's `null` does; integers written as integral floats (`0.0`, in older
    /// OME-Zarr data) and booleans as 0 or 1 read as their values.
    pub fn from_v3_json(value: &Value, data_type: DataType) -> Result<FillValue, String> {
        if value.is_null() && !data_type.is_variable() {
            return FillValue::from_v2_json(value, data_type);
        }
        let integer_type = data_type.is_integer() || matches!(data_type, DataType::NarrowInt(_));
        let converted;
        let value = match integer_type && value.is_f64() {
            true => {
                converted = integral(value);
                &converted
            }
            false => value,
        };
        let bytes = match data_type {
            DataType::Bool => match value {
                Value::Bool(b) => vec![*b as u8],
                Value::Number(n) if matches!(n.as_u64(), Some(0 | 1)) => {
                    vec![u8::from(n.as_u64() == Some(1))]
                }
                _ => {
                    return Err(format!(
                        "fill_value {} is not a boolean",
                        crate::error::quote(value)
                    ))
                }
            },
            DataType::Int8 => int_fill::<i8>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::Int16 => int_fill::<i16>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::Int32 => int_fill::<i32>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::Int64 => int_fill::<i64>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::UInt8 => int_fill::<u8>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::UInt16 => int_fill::<u16>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::UInt32 => int_fill::<u32>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::UInt64 => int_fill::<u64>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::Float16 | DataType::Float32 | DataType::Float64 => {
                float_bytes(value, data_type.size())?
            }
            DataType::Complex64 | DataType::Complex128 => {
                complex_pair(value, |part| float_bytes(part, data_type.size() / 2))?
            }
            DataType::Narrow(format) => narrow_bytes(format, value)?,
            DataType::NarrowComplex(format) => complex_pair(value, |part| match format {
                Some(format) => narrow_bytes(format, part),
                None => float_bytes(part, 2),
            })?,
            DataType::NarrowInt(int) => {
                let (min, max) = int.range();
                let n = value
                    .as_i64()
                    .filter(|n| (min..=max).contains(n))
                    .ok_or_else(|| {
                        format!(
                            "fill_value {} is not an integer from {min} to {max} ({data_type})",
                            crate::error::quote(value)
                        )
                    })?;
                vec![n as u8 & ((1u16 << int.bits) - 1) as u8]
            }
            // raw_bytes (zarr-python 3): base64, as Zarr v2 writes it.
            DataType::Raw { .. } if value.is_string() => {
                return FillValue::from_v2_json(value, data_type)
            }
            DataType::Raw { bytes } => {
                let list = value
                    .as_array()
                    .filter(|a| a.len() == bytes)
                    .ok_or_else(|| {
                        format!(
                            "fill_value {} is not a list of {bytes} bytes",
                            crate::error::quote(value)
                        )
                    })?;
                list.iter()
                    .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                    .collect::<Option<Vec<u8>>>()
                    .ok_or_else(|| {
                        format!(
                            "fill_value {value} has an entry that is not an integer from 0 to 255",
                            value = crate::error::quote(value)
                        )
                    })?
            }
            DataType::String | DataType::Bytes => return variable_fill(value, data_type),
            // Only Zarr v2 has object arrays.
            DataType::Object => return FillValue::from_v2_json(value, data_type),
            // zarr-python 3's extension types write their fill values as Zarr v2 does: an
            // integer (or "NaT"), base64 bytes, a string.
            DataType::DateTime64(_)
            | DataType::TimeDelta64(_)
            | DataType::FixedBytes { .. }
            | DataType::FixedUnicode { .. }
            | DataType::Structured { .. } => {
                return FillValue::from_v2_json(value, data_type);
            }
        };
        Ok(FillValue::from_native_bytes(bytes))
    }

    /// Parses the Zarr v2 JSON form (`.zarray`'s `fill_value`) for `data_type`: `null`, numbers,
    /// "NaN"/"Infinity"/"-Infinity", `[re, im]`, datetimes as integers (or "NaT"), Unicode
    /// strings as text, and byte strings, raw and structured values as base64 (structured bytes
    /// as stored, see `structured`). Object arrays' strings are text, their bytes base64.
    pub fn from_v2_json(value: &Value, data_type: DataType) -> Result<FillValue, String> {
        // An object array's fill value is any JSON value, held as its text (`null` for none).
        if data_type == DataType::Object {
            let mut fill = FillValue::from_native_bytes(vec![0; data_type.size()]);
            fill.item = Some(crate::json_text::JsonText(value).to_string().into_bytes());
            fill.undefined = value.is_null();
            return Ok(fill);
        }
        // zarr-python 2 gives object arrays the fill value 0 by default: no string at all, so
        // their missing elements are as undefined as with `null`.
        if value.is_null() || (data_type.is_variable() && !value.is_string()) {
            let mut fill = FillValue::from_native_bytes(vec![0; data_type.size()]);
            if data_type.is_variable() {
                fill.item = Some(Vec::new());
            }
            fill.undefined = true;
            return Ok(fill);
        }
        let size = data_type.size();
        let bytes = match data_type {
            // zarr-python 2 writes `bool(v)`; other writers may write 0 or 1.
            DataType::Bool => match value {
                Value::Bool(b) => vec![*b as u8],
                Value::Number(n) if matches!(n.as_u64(), Some(0 | 1)) => {
                    vec![u8::from(n.as_u64() == Some(1))]
                }
                _ => {
                    return Err(format!(
                        "fill_value {} is not a boolean",
                        crate::error::quote(value)
                    ))
                }
            },
            DataType::DateTime64(_) | DataType::TimeDelta64(_) => match value {
                Value::String(s) if s == "NaT" => i64::MIN.to_ne_bytes().to_vec(),
                _ => int_fill::<i64>(&integral(value), data_type)?
                    .to_ne_bytes()
                    .to_vec(),
            },
            DataType::FixedBytes { len } => {
                let mut bytes = base64_fill(value, data_type)?;
                if bytes.len() > len {
                    return Err(format!(
                        "fill_value {value} has {} bytes, more than {data_type} holds",
                        bytes.len(),
                        value = crate::error::quote(value)
                    ));
                }
                bytes.resize(len, 0);
                bytes
            }
            DataType::FixedUnicode { chars } => {
                let text = value.as_str().ok_or_else(|| {
                    format!("fill_value {} is not a string", crate::error::quote(value))
                })?;
                let mut units: Vec<u32> = text.chars().map(u32::from).collect();
                if units.len() > chars {
                    return Err(format!(
                        "fill_value {value} has {} characters, more than {data_type} holds",
                        units.len(),
                        value = crate::error::quote(value)
                    ));
                }
                units.resize(chars, 0);
                units.iter().flat_map(|u| u.to_ne_bytes()).collect()
            }
            DataType::Raw { .. } | DataType::Structured { .. } => {
                let bytes = base64_fill(value, data_type)?;
                if bytes.len() != size {
                    return Err(format!(
                        "fill_value {value} has {} bytes, {data_type} has {size}",
                        bytes.len(),
                        value = crate::error::quote(value)
                    ));
                }
                bytes
            }
            // The v3 forms cover the rest (integral floats for integers included).
            _ => return FillValue::from_v3_json(value, data_type),
        };
        Ok(FillValue::from_native_bytes(bytes))
    }

    pub fn to_scalar(&self, data_type: DataType) -> Scalar {
        let b = self.bytes.as_slice();
        match data_type {
            DataType::Bool => Scalar::Bool(b.first().is_some_and(|&x| x != 0)),
            DataType::Int8 => Scalar::Int(i8::from_ne_bytes(fixed(b)) as i64),
            DataType::Int16 => Scalar::Int(i16::from_ne_bytes(fixed(b)) as i64),
            DataType::Int32 => Scalar::Int(i32::from_ne_bytes(fixed(b)) as i64),
            DataType::Int64 => Scalar::Int(i64::from_ne_bytes(fixed(b))),
            DataType::UInt8 => Scalar::UInt(u8::from_ne_bytes(fixed(b)) as u64),
            DataType::UInt16 => Scalar::UInt(u16::from_ne_bytes(fixed(b)) as u64),
            DataType::UInt32 => Scalar::UInt(u32::from_ne_bytes(fixed(b)) as u64),
            DataType::UInt64 => Scalar::UInt(u64::from_ne_bytes(fixed(b))),
            DataType::Float16 | DataType::Float32 | DataType::Float64 => {
                Scalar::Float(float_value(b))
            }
            DataType::Complex64 | DataType::Complex128 => {
                let (re, im) = b.split_at(b.len() / 2);
                Scalar::Complex(float_value(re), float_value(im))
            }
            DataType::Narrow(format) => Scalar::Float(narrow_value(format, b)),
            DataType::NarrowComplex(format) => {
                let (re, im) = b.split_at(b.len() / 2);
                match format {
                    Some(format) => {
                        Scalar::Complex(narrow_value(format, re), narrow_value(format, im))
                    }
                    None => Scalar::Complex(float_value(re), float_value(im)),
                }
            }
            DataType::NarrowInt(int) => {
                Scalar::Int(int.value(b.first().copied().unwrap_or(0)) as i64)
            }
            DataType::Raw { .. } => Scalar::Raw(b.to_vec()),
            DataType::String => {
                Scalar::Str(String::from_utf8_lossy(self.item().unwrap_or_default()).into_owned())
            }
            DataType::Bytes => Scalar::Bytes(self.item().unwrap_or_default().to_vec()),
            DataType::Object => {
                Scalar::Json(String::from_utf8_lossy(self.item().unwrap_or(b"null")).into_owned())
            }
            DataType::DateTime64(_) | DataType::TimeDelta64(_) => {
                Scalar::Int(i64::from_ne_bytes(fixed(b)))
            }
            DataType::FixedBytes { len } => Scalar::Str(first(
                crate::data_type::fixed_string::bytes_to_strings(b, len),
            )),
            DataType::FixedUnicode { chars } => Scalar::Str(first(
                crate::data_type::fixed_string::utf32_to_strings(b, chars),
            )),
            DataType::Structured { .. } => Scalar::Raw(b.to_vec()),
        }
    }
}

impl FillValue {
    /// A record's fill value in the registry `struct` type's form: an object giving each field's
    /// fill value in its own type's v3 form, a nested record's as an object. The result is the
    /// record's bytes as stored (each field in its own byte order, see `structured`), as v2's
    /// base64 form gives them.
    pub fn from_v3_record_json(
        value: &Value,
        fields: &[Field],
        size: usize,
    ) -> Result<FillValue, String> {
        let mut bytes = vec![0u8; size];
        write_record(value, fields, &mut bytes, 0)?;
        Ok(FillValue::from_native_bytes(bytes))
    }
}

/// `value`'s fields into the record at `at` of `out` (`out` holds it: field offsets lie inside
/// their record by construction).
fn write_record(value: &Value, fields: &[Field], out: &mut [u8], at: usize) -> Result<(), String> {
    let obj = value.as_object().ok_or_else(|| {
        format!(
            "fill_value {} is not an object of the record's fields",
            crate::error::quote(value)
        )
    })?;
    for field in fields {
        let name = &field.name;
        let value = obj
            .get(name)
            .ok_or_else(|| format!("fill_value has no value for the field \"{name}\""))?;
        let start = at + field.offset;
        // A subarray field (only `structured` has them) takes its one value in every item.
        for item in 0..field.count() {
            let start = start + item * field.item_size();
            match &field.kind {
                FieldKind::Record { fields, .. } => write_record(value, fields, out, start)
                    .map_err(|e| format!("field \"{name}\": {e}"))?,
                FieldKind::Value { data_type, endian } => {
                    let mut bytes = FillValue::from_v3_json(value, *data_type)
                        .map_err(|e| format!("field \"{name}\": {e}"))?
                        .bytes;
                    if let (Some(unit), Some(e)) = (data_type.byte_order_unit(), endian) {
                        if *e != Endian::NATIVE {
                            bytes.chunks_exact_mut(unit).for_each(<[u8]>::reverse);
                        }
                    }
                    let end = start + bytes.len();
                    out.get_mut(start..end)
                        .ok_or_else(|| format!("field \"{name}\" lies outside its record"))?
                        .copy_from_slice(&bytes);
                }
            }
        }
    }
    Ok(())
}

fn first(strings: Vec<String>) -> String {
    strings.into_iter().next().unwrap_or_default()
}

/// `value` with an integral float (`0.0`, as some writers put for integer types) as an integer.
fn integral(value: &Value) -> Value {
    match value.as_f64() {
        Some(f) if !value.is_i64() && !value.is_u64() && f.fract() == 0.0 && f.abs() < 9.2e18 => {
            Value::from(f as i64)
        }
        _ => value.clone(),
    }
}

/// The bytes of a base64 fill value (Zarr v2's form for byte strings, raw and structured types).
fn base64_fill(value: &Value, data_type: DataType) -> Result<Vec<u8>, String> {
    value
        .as_str()
        .and_then(|s| base64_decode(s.as_bytes()))
        .ok_or_else(|| {
            format!(
                "fill_value {} is not base64 bytes, as {data_type} requires",
                crate::error::quote(value)
            )
        })
}

/// The fill value of a variable-length type: a string, or base64 of the bytes.
fn variable_fill(value: &Value, data_type: DataType) -> Result<FillValue, String> {
    let bytes = vec![0u8; crate::data_type::VARIABLE_HANDLE_SIZE];
    let item = match (data_type, value) {
        (DataType::String, Value::String(s)) => s.as_bytes().to_vec(),
        // zarr-python reads a number as its text (zarr-python 2 wrote 0 for string arrays).
        (DataType::String, Value::Number(_)) => {
            crate::json_text::JsonText(value).to_string().into_bytes()
        }
        (DataType::String, _) => {
            return Err(format!(
                "fill_value {} is not a string",
                crate::error::quote(value)
            ))
        }
        (_, Value::String(s)) => base64_decode(s.as_bytes()).ok_or_else(|| {
            format!(
                "fill_value {} is not base64-encoded bytes",
                crate::error::quote(value)
            )
        })?,
        _ => {
            return Err(format!(
                "fill_value {value} is not a base64 string of bytes",
                value = crate::error::quote(value)
            ))
        }
    };
    Ok(FillValue {
        bytes,
        item: Some(item),
        undefined: false,
    })
}

/// Standard base64 (RFC 4648, with or without padding), or `None` if `text` is not that. Fill
/// values and numcodecs' base64 codec are written so (the decoder is `data_type::base64`'s).
pub fn base64_decode(text: &[u8]) -> Option<Vec<u8>> {
    crate::data_type::base64::decode(text).ok()
}

/// The first `N` bytes (zero-padded; sizes match the data type by construction).
fn fixed<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let n = b.len().min(N);
    out[..n].copy_from_slice(&b[..n]);
    out
}

/// A native-order float of 2, 4 or 8 bytes, widened to f64.
fn float_value(b: &[u8]) -> f64 {
    match b.len() {
        2 => f16::from_bits(u16::from_ne_bytes(fixed(b))).to_f64(),
        4 => f32::from_ne_bytes(fixed(b)) as f64,
        _ => f64::from_ne_bytes(fixed(b)),
    }
}

fn int_fill<T: TryFrom<i64> + TryFrom<u64>>(
    value: &Value,
    data_type: DataType,
) -> Result<T, String> {
    let out_of_range = || {
        format!(
            "fill_value {} is out of range for {data_type}",
            crate::error::quote(value)
        )
    };
    let not_integer = || {
        format!(
            "fill_value {} is not an integer, as {data_type} requires",
            crate::error::quote(value)
        )
    };
    match value {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                T::try_from(i).map_err(|_| out_of_range())
            } else if let Some(u) = n.as_u64() {
                T::try_from(u).map_err(|_| out_of_range())
            } else {
                Err(not_integer())
            }
        }
        _ => Err(not_integer()),
    }
}

/// One float of `size` bytes (2, 4 or 8) in native order, from a number, "NaN", "Infinity",
/// "-Infinity" or an exact "0x..." bit pattern (which keeps NaN payloads).
/// A complex fill value, `[real, imaginary]`, each part's bytes by `part`.
fn complex_pair(
    value: &Value,
    part: impl Fn(&Value) -> Result<Vec<u8>, String>,
) -> Result<Vec<u8>, String> {
    let parts = value.as_array().filter(|a| a.len() == 2).ok_or_else(|| {
        format!(
            "fill_value {} is not a [real, imaginary] pair",
            crate::error::quote(value)
        )
    })?;
    Ok([part(&parts[0])?, part(&parts[1])?].concat())
}

/// The value of a narrow float stored as `b` (native order).
fn narrow_value(format: NarrowFloat, b: &[u8]) -> f64 {
    let bits = match b {
        [one] => *one as u16,
        [a, b, ..] => u16::from_ne_bytes([*a, *b]),
        [] => 0,
    };
    format.to_f32(bits) as f64
}

/// A narrow float's fill value as stored (one byte, or bfloat16's two in native order).
fn narrow_bytes(format: NarrowFloat, value: &Value) -> Result<Vec<u8>, String> {
    let bits = format.fill_from_json(value)?;
    Ok(match format.size() {
        2 => bits.to_ne_bytes().to_vec(),
        _ => vec![bits as u8],
    })
}

fn float_bytes(value: &Value, size: usize) -> Result<Vec<u8>, String> {
    let from_f64 = |v: f64| match size {
        2 => f16::from_f64(v).to_bits().to_ne_bytes().to_vec(),
        4 => (v as f32).to_ne_bytes().to_vec(),
        _ => v.to_ne_bytes().to_vec(),
    };
    match value {
        Value::Number(n) => n
            .as_f64()
            .map(from_f64)
            .ok_or_else(|| format!("fill_value {} is not a number", crate::error::quote(value))),
        Value::String(s) => match s.as_str() {
            // The spec's NaN: sign 0, mantissa MSB 1, the rest 0, at each width (a cast may not keep it).
            "NaN" => Ok(match size {
                2 => 0x7e00u16.to_ne_bytes().to_vec(),
                4 => 0x7fc0_0000u32.to_ne_bytes().to_vec(),
                _ => 0x7ff8_0000_0000_0000u64.to_ne_bytes().to_vec(),
            }),
            "Infinity" => Ok(from_f64(f64::INFINITY)),
            "-Infinity" => Ok(from_f64(f64::NEG_INFINITY)),
            _ => {
                let hex = s.strip_prefix("0x").ok_or_else(|| {
                    format!("fill_value {} is not a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x...\"", crate::error::quote(value))
                })?;
                if hex.len() != size * 2 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(format!(
                        "fill_value {value} must be \"0x\" and exactly {} hex digits",
                        size * 2,
                        value = crate::error::quote(value)
                    ));
                }
                let bits = u64::from_str_radix(hex, 16).map_err(|_| {
                    format!(
                        "fill_value {} is not valid hexadecimal",
                        crate::error::quote(value)
                    )
                })?;
                Ok(match size {
                    2 => (bits as u16).to_ne_bytes().to_vec(),
                    4 => (bits as u32).to_ne_bytes().to_vec(),
                    _ => bits.to_ne_bytes().to_vec(),
                })
            }
        },
        _ => Err(format!(
            "fill_value {} is not a number or a string",
            crate::error::quote(value)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value, t: DataType) -> Result<Scalar, String> {
        FillValue::from_v3_json(&v, t).map(|f| f.to_scalar(t))
    }

    #[test]
    fn integers_in_and_out_of_range() {
        assert_eq!(parse(json!(-128), DataType::Int8), Ok(Scalar::Int(-128)));
        assert!(parse(json!(128), DataType::Int8).is_err());
        assert!(parse(json!(-1), DataType::UInt8).is_err());
        assert_eq!(
            parse(json!(u64::MAX), DataType::UInt64),
            Ok(Scalar::UInt(u64::MAX))
        );
        assert_eq!(
            parse(json!(i64::MIN), DataType::Int64),
            Ok(Scalar::Int(i64::MIN))
        );
        assert!(parse(json!(1.5), DataType::Int32).is_err());
        assert!(parse(json!("1"), DataType::Int32).is_err());
    }

    #[test]
    fn floats_in_every_form() {
        assert_eq!(parse(json!(0.5), DataType::Float32), Ok(Scalar::Float(0.5)));
        assert_eq!(
            parse(json!("-Infinity"), DataType::Float64),
            Ok(Scalar::Float(f64::NEG_INFINITY))
        );
        match parse(json!("NaN"), DataType::Float32) {
            Ok(Scalar::Float(v)) => assert!(v.is_nan()),
            other => panic!("{other:?}"),
        }
        // A NaN payload survives the hex form byte for byte.
        let f = FillValue::from_v3_json(&json!("0x7fc00001"), DataType::Float32).unwrap();
        assert_eq!(f.as_bytes(), 0x7fc0_0001u32.to_ne_bytes());
        assert!(FillValue::from_v3_json(&json!("0x7fc0"), DataType::Float32).is_err());
        assert!(FillValue::from_v3_json(&json!("0x+7fc0000"), DataType::Float32).is_err());
        assert!(FillValue::from_v3_json(&json!("nan"), DataType::Float32).is_err());
    }

    #[test]
    fn float16_rounds_to_nearest_and_keeps_bit_patterns() {
        let f = FillValue::from_v3_json(&json!(1.0), DataType::Float16).unwrap();
        assert_eq!(f.as_bytes(), 0x3c00u16.to_ne_bytes());
        let f = FillValue::from_v3_json(&json!(65520.0), DataType::Float16).unwrap(); // rounds up to inf
        assert_eq!(f.as_bytes(), 0x7c00u16.to_ne_bytes());
        let f = FillValue::from_v3_json(&json!("0x7e01"), DataType::Float16).unwrap();
        assert_eq!(f.as_bytes(), 0x7e01u16.to_ne_bytes());
        assert_eq!(
            parse(json!(-2.5), DataType::Float16),
            Ok(Scalar::Float(-2.5))
        );
    }

    #[test]
    fn complex_pairs_and_raw_bytes() {
        assert_eq!(
            parse(json!([1.5, "-Infinity"]), DataType::Complex64),
            Ok(Scalar::Complex(1.5, f64::NEG_INFINITY))
        );
        let f = FillValue::from_v3_json(&json!(["0x7ff8000000000001", 2]), DataType::Complex128)
            .unwrap();
        assert_eq!(&f.as_bytes()[..8], 0x7ff8_0000_0000_0001u64.to_ne_bytes());
        assert!(parse(json!([1]), DataType::Complex64).is_err());
        assert!(parse(json!(1), DataType::Complex64).is_err());
        assert_eq!(
            parse(json!([1, 255]), DataType::Raw { bytes: 2 }),
            Ok(Scalar::Raw(vec![1, 255]))
        );
        assert!(parse(json!([1, 256]), DataType::Raw { bytes: 2 }).is_err());
        assert!(parse(json!([1]), DataType::Raw { bytes: 2 }).is_err());
    }

    #[test]
    fn zarr_python_extension_types_in_their_v2_forms() {
        use crate::data_type::{TimeBase, TimeUnit};
        let ms = DataType::DateTime64(TimeUnit {
            base: TimeBase::Milliseconds,
            count: 1,
        });
        assert_eq!(
            parse(json!(-9223372036854775808i64), ms),
            Ok(Scalar::Int(i64::MIN))
        );
        assert_eq!(parse(json!("NaT"), ms), Ok(Scalar::Int(i64::MIN)));
        assert_eq!(
            parse(json!(978307200000i64), ms),
            Ok(Scalar::Int(978307200000))
        );
        let u2 = DataType::FixedUnicode { chars: 2 };
        assert_eq!(parse(json!("h\u{e9}"), u2), Ok(Scalar::Str("hé".into())));
        assert_eq!(
            parse(json!("YWI="), DataType::FixedBytes { len: 3 }),
            Ok(Scalar::Str("ab".into()))
        );
        // raw_bytes writes base64; the core r* types a list of bytes.
        let r16 = DataType::Raw { bytes: 2 };
        assert_eq!(parse(json!("AQI="), r16), Ok(Scalar::Raw(vec![1, 2])));
        assert_eq!(parse(json!([1, 2]), r16), Ok(Scalar::Raw(vec![1, 2])));
        assert!(parse(json!("AQID"), r16).is_err());
        let record = DataType::Structured { size: 2 };
        assert_eq!(parse(json!("AAc="), record), Ok(Scalar::Raw(vec![0, 7])));
    }

    #[test]
    fn what_the_reference_readers_accept_beyond_the_spec() {
        // null (zarrita's default): zeros, the fill value undefined, as Zarr v2's null.
        for t in [
            DataType::Int32,
            DataType::Float64,
            DataType::Structured { size: 3 },
        ] {
            let fill = FillValue::from_v3_json(&Value::Null, t).unwrap();
            assert!(
                fill.is_undefined() && fill.as_bytes().iter().all(|&b| b == 0),
                "{t}"
            );
        }
        // Integral floats for integers (older OME-Zarr data), 0/1 for booleans, numbers as text.
        assert_eq!(parse(json!(7.0), DataType::Int16), Ok(Scalar::Int(7)));
        assert!(parse(json!(7.5), DataType::Int16).is_err());
        assert_eq!(parse(json!(1), DataType::Bool), Ok(Scalar::Bool(true)));
        assert!(parse(json!(2), DataType::Bool).is_err());
        assert_eq!(
            parse(json!(0), DataType::String),
            Ok(Scalar::Str("0".into()))
        );
        // Still refused: null for variable-length types, strings for numbers.
        assert!(parse(Value::Null, DataType::String).is_err());
        assert!(parse(json!("7"), DataType::Int16).is_err());
    }

    #[test]
    fn booleans() {
        assert_eq!(parse(json!(true), DataType::Bool), Ok(Scalar::Bool(true)));
        assert!(parse(json!("true"), DataType::Bool).is_err());
    }

    #[test]
    fn v2_fill_values() {
        use crate::data_type::TimeUnit;
        let v2 = |v: Value, t: DataType| FillValue::from_v2_json(&v, t);
        let null = v2(Value::Null, DataType::Int32).unwrap();
        assert!(null.is_undefined() && null.as_bytes() == [0; 4]);
        assert_eq!(v2(json!(0.0), DataType::UInt8).unwrap().as_bytes(), [0]);
        assert_eq!(v2(json!(1), DataType::Bool).unwrap().as_bytes(), [1]);
        let ns = DataType::DateTime64(TimeUnit::parse("ns").unwrap());
        assert_eq!(
            v2(json!("NaT"), ns).unwrap().as_bytes(),
            i64::MIN.to_ne_bytes()
        );
        assert_eq!(v2(json!(-5), ns).unwrap().to_scalar(ns), Scalar::Int(-5));
        let s4 = DataType::FixedBytes { len: 4 };
        assert_eq!(v2(json!("YWI="), s4).unwrap().as_bytes(), b"ab\0\0");
        assert!(v2(json!("YWJjZGU="), s4).is_err());
        let u2 = DataType::FixedUnicode { chars: 2 };
        let f = v2(json!("é"), u2).unwrap();
        assert_eq!(f.to_scalar(u2), Scalar::Str("é".into()));
        assert!(v2(json!("abc"), u2).is_err());
        let record = DataType::Structured { size: 3 };
        assert_eq!(v2(json!("AQID"), record).unwrap().as_bytes(), [1, 2, 3]);
        assert!(v2(json!("AQI="), record).is_err());
        // zarr-python 2's default for object arrays, 0, is no string at all.
        assert!(v2(json!(0), DataType::String).unwrap().is_undefined());
        assert_eq!(
            v2(json!("x"), DataType::String).unwrap().item(),
            Some(&b"x"[..])
        );
        assert!(v2(json!([1, "NaN"]), DataType::Complex64).is_ok());
    }
}
