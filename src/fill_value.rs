//! Fill values: parsed from their JSON form into one element's bytes in native byte order, so that
//! filling a missing chunk is a byte-pattern copy whatever the data type.

use crate::data_type::DataType;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillValue {
    bytes: Vec<u8>,
}

/// A fill value as a plain scalar, for showing it to users.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
}

impl FillValue {
    pub fn from_native_bytes(bytes: Vec<u8>) -> Self {
        FillValue { bytes }
    }

    /// One element, native byte order.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Parses the v3 JSON form for `data_type`. The error text says what was expected.
    pub fn from_v3_json(value: &Value, data_type: DataType) -> Result<FillValue, String> {
        let bytes = match data_type {
            DataType::Bool => match value {
                Value::Bool(b) => vec![*b as u8],
                _ => return Err(format!("fill_value {value} is not a boolean")),
            },
            DataType::Int8 => int_fill::<i8>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::Int16 => int_fill::<i16>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::Int32 => int_fill::<i32>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::Int64 => int_fill::<i64>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::UInt8 => int_fill::<u8>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::UInt16 => int_fill::<u16>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::UInt32 => int_fill::<u32>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::UInt64 => int_fill::<u64>(value, data_type)?.to_ne_bytes().to_vec(),
            DataType::Float32 => match float_fill_bits(value, 4)? {
                FloatFill::Bits(bits) => (bits as u32).to_ne_bytes().to_vec(),
                FloatFill::Value(v) => (v as f32).to_ne_bytes().to_vec(),
            },
            DataType::Float64 => match float_fill_bits(value, 8)? {
                FloatFill::Bits(bits) => bits.to_ne_bytes().to_vec(),
                FloatFill::Value(v) => v.to_ne_bytes().to_vec(),
            },
        };
        Ok(FillValue { bytes })
    }

    pub fn to_scalar(&self, data_type: DataType) -> Scalar {
        let b = &self.bytes;
        // Sizes match the data type by construction; `get` keeps this total anyway.
        let arr = |n: usize| -> [u8; 8] {
            let mut out = [0u8; 8];
            if let Some(src) = b.get(..n) {
                out[..n].copy_from_slice(src);
            }
            out
        };
        let a = arr(data_type.size());
        match data_type {
            DataType::Bool => Scalar::Bool(a[0] != 0),
            DataType::Int8 => Scalar::Int(i8::from_ne_bytes([a[0]]) as i64),
            DataType::Int16 => Scalar::Int(i16::from_ne_bytes([a[0], a[1]]) as i64),
            DataType::Int32 => Scalar::Int(i32::from_ne_bytes([a[0], a[1], a[2], a[3]]) as i64),
            DataType::Int64 => Scalar::Int(i64::from_ne_bytes(a)),
            DataType::UInt8 => Scalar::UInt(a[0] as u64),
            DataType::UInt16 => Scalar::UInt(u16::from_ne_bytes([a[0], a[1]]) as u64),
            DataType::UInt32 => Scalar::UInt(u32::from_ne_bytes([a[0], a[1], a[2], a[3]]) as u64),
            DataType::UInt64 => Scalar::UInt(u64::from_ne_bytes(a)),
            DataType::Float32 => Scalar::Float(f32::from_ne_bytes([a[0], a[1], a[2], a[3]]) as f64),
            DataType::Float64 => Scalar::Float(f64::from_ne_bytes(a)),
        }
    }
}

fn int_fill<T: TryFrom<i64> + TryFrom<u64>>(value: &Value, data_type: DataType) -> Result<T, String> {
    let out_of_range = || format!("fill_value {value} is out of range for {data_type}");
    match value {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                T::try_from(i).map_err(|_| out_of_range())
            } else if let Some(u) = n.as_u64() {
                T::try_from(u).map_err(|_| out_of_range())
            } else {
                Err(format!("fill_value {value} is not an integer, as {data_type} requires"))
            }
        }
        _ => Err(format!("fill_value {value} is not an integer, as {data_type} requires")),
    }
}

enum FloatFill {
    /// An exact bit pattern from the "0x..." form (keeps NaN payloads).
    Bits(u64),
    Value(f64),
}

fn float_fill_bits(value: &Value, size: usize) -> Result<FloatFill, String> {
    match value {
        Value::Number(n) => n
            .as_f64()
            .map(FloatFill::Value)
            .ok_or_else(|| format!("fill_value {value} is not a number")),
        Value::String(s) => match s.as_str() {
            "NaN" => Ok(FloatFill::Value(f64::NAN)),
            "Infinity" => Ok(FloatFill::Value(f64::INFINITY)),
            "-Infinity" => Ok(FloatFill::Value(f64::NEG_INFINITY)),
            _ => {
                let hex = s
                    .strip_prefix("0x")
                    .ok_or_else(|| format!("fill_value {value} is not a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x...\""))?;
                if hex.len() != size * 2 {
                    return Err(format!("fill_value {value} must have exactly {} hex digits", size * 2));
                }
                u64::from_str_radix(hex, 16)
                    .map(FloatFill::Bits)
                    .map_err(|_| format!("fill_value {value} is not valid hexadecimal"))
            }
        },
        _ => Err(format!("fill_value {value} is not a number or a string")),
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
        assert_eq!(parse(json!(u64::MAX), DataType::UInt64), Ok(Scalar::UInt(u64::MAX)));
        assert_eq!(parse(json!(i64::MIN), DataType::Int64), Ok(Scalar::Int(i64::MIN)));
        assert!(parse(json!(1.5), DataType::Int32).is_err());
        assert!(parse(json!("1"), DataType::Int32).is_err());
    }

    #[test]
    fn floats_in_every_form() {
        assert_eq!(parse(json!(0.5), DataType::Float32), Ok(Scalar::Float(0.5)));
        assert_eq!(parse(json!("-Infinity"), DataType::Float64), Ok(Scalar::Float(f64::NEG_INFINITY)));
        match parse(json!("NaN"), DataType::Float32) {
            Ok(Scalar::Float(v)) => assert!(v.is_nan()),
            other => panic!("{other:?}"),
        }
        // A NaN payload survives the hex form byte for byte.
        let f = FillValue::from_v3_json(&json!("0x7fc00001"), DataType::Float32).unwrap();
        assert_eq!(f.as_bytes(), 0x7fc0_0001u32.to_ne_bytes());
        assert!(FillValue::from_v3_json(&json!("0x7fc0"), DataType::Float32).is_err());
        assert!(FillValue::from_v3_json(&json!("nan"), DataType::Float32).is_err());
    }

    #[test]
    fn booleans() {
        assert_eq!(parse(json!(true), DataType::Bool), Ok(Scalar::Bool(true)));
        assert!(parse(json!(1), DataType::Bool).is_err());
    }
}
