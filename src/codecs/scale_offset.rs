//! The registry's `scale_offset` codec: values stored as `(x - offset) * scale` in the array's
//! own type, decoded as `stored / scale + offset` with that type's arithmetic (integer division
//! for integers; each operation rounded to the type for floats). A result the type cannot hold
//! is an error, as the registry says. Usually followed by `cast_value` to store a narrower type.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::Configuration;
use super::numeric::{self, Num};
use crate::data_type::fill_value::FillValue;
use crate::data_type::DataType;
use crate::error::CodecError;
use half::f16;
use serde_json::Value;

/// `scale_offset`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["scale_offset"],
    kind: Kind::ArrayToArray,
    build: |config, cx| {
        Ok(Codec::array_to_array(ScaleOffsetCodec::from_configuration(
            config,
            cx.data_type,
        )?))
    },
}];

/// How the array's type does arithmetic.
#[derive(Debug, Clone, Copy)]
enum Arithmetic {
    /// Integers of this range.
    Integer { min: i128, max: i128 },
    /// Floats: each result rounded to the type (`round`), `None` where it has no such value.
    Float {
        round: fn(DataType, f64) -> Option<f64>,
    },
}

pub struct ScaleOffsetCodec {
    data_type: DataType,
    arithmetic: Arithmetic,
    scale: Num,
    offset: Num,
}

impl ScaleOffsetCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<ScaleOffsetCodec, String> {
        config.only(&["scale", "offset"])?;
        let arithmetic = arithmetic_of(data_type)
            .ok_or_else(|| format!("applies to integers and real floats, not {data_type}"))?;
        // Both are written as fill values of the array's type; absent, the identities.
        // Absent, the identities, read the same way (so that they are of the type's kind).
        let scalar = |key: &str, identity: i64| -> Result<Num, String> {
            let identity = Value::from(identity);
            let value = config.optional::<&Value>(key)?.unwrap_or(&identity);
            let fill =
                FillValue::from_v3_json(value, data_type).map_err(|e| format!("\"{key}\": {e}"))?;
            Ok(element(data_type, fill.as_bytes(), 0))
        };
        let (scale, offset) = (scalar("scale", 1)?, scalar("offset", 0)?);
        if scale.as_f64() == 0.0 {
            return Err("\"scale\" must not be zero: decoding divides by it".into());
        }
        Ok(ScaleOffsetCodec {
            data_type,
            arithmetic,
            scale,
            offset,
        })
    }

    /// `stored / scale + offset`, or `None` where the type cannot hold a step's result.
    fn decode_value(&self, stored: Num) -> Option<Num> {
        match self.arithmetic {
            Arithmetic::Integer { min, max } => {
                let in_range = |v: i128| (min..=max).contains(&v).then_some(v);
                // Divided in 64 bits (both are of the array's type: both signed, or both not),
                // which wasm does natively; 128-bit division would be a library routine.
                let quotient: i128 = match (stored, self.scale) {
                    (Num::I(a), Num::I(b)) => a.checked_div(b)?.into(),
                    (Num::U(a), Num::U(b)) => a.checked_div(b)?.into(),
                    _ => return None,
                };
                in_range(in_range(quotient)? + self.offset.to_i128()).map(Num::from_i128)
            }
            Arithmetic::Float { round } => {
                let quotient = round(self.data_type, stored.as_f64() / self.scale.as_f64())?;
                round(self.data_type, quotient + self.offset.as_f64()).map(Num::F)
            }
        }
    }

    /// `(x - offset) * scale`: how the fill value reaches the codecs after this one.
    fn encode_value(&self, x: Num) -> Option<Num> {
        match self.arithmetic {
            Arithmetic::Integer { min, max } => {
                let in_range = |v: i128| (min..=max).contains(&v).then_some(v);
                let difference = in_range(x.to_i128() - self.offset.to_i128())?;
                in_range(difference.checked_mul(self.scale.to_i128())?).map(Num::from_i128)
            }
            Arithmetic::Float { round } => {
                let difference = round(self.data_type, x.as_f64() - self.offset.as_f64())?;
                round(self.data_type, difference * self.scale.as_f64()).map(Num::F)
            }
        }
    }
}

impl ArrayToArrayCodec for ScaleOffsetCodec {
    fn name(&self) -> &'static str {
        "scale_offset"
    }

    /// Element by element.
    fn box_order(&self, ndim: usize) -> Option<Vec<usize>> {
        Some((0..ndim).collect())
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        decoded.clone()
    }

    fn encoded_fill(
        &self,
        fill: &FillValue,
        decoded: DataType,
        _encoded: DataType,
    ) -> Result<FillValue, String> {
        if fill.as_bytes().len() != decoded.size() {
            return Err(format!(
                "the fill value has {} bytes, not one {decoded}",
                fill.as_bytes().len()
            ));
        }
        let x = element(decoded, fill.as_bytes(), 0);
        let encoded = self.encode_value(x).ok_or_else(|| {
            let why = "has no encoded value ((x - offset) * scale)";
            format!("the fill value {} {why} in {decoded}", x)
        })?;
        let mut bytes = vec![0; decoded.size()];
        put(decoded, &mut bytes, 0, encoded);
        Ok(FillValue::from_native_bytes(bytes))
    }

    fn decode(&self, mut encoded: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let size = self.data_type.size();
        if decoded.num_bytes() != Some(encoded.len()) {
            let reason = format!(
                "{} bytes do not make a chunk of shape {:?}",
                encoded.len(),
                decoded.shape
            );
            return Err(CodecError::new("scale_offset", reason));
        }
        // Narrow floats of a byte have at most 256 values: each is decoded once, to its code.
        let table: Option<Vec<Option<u8>>> = match self.data_type {
            DataType::Narrow(format) if size == 1 => Some(
                (0..=255u8)
                    .map(|code| {
                        let value = self.decode_value(Num::F(format.to_f32(code as u16) as f64))?;
                        format.from_f64(value.as_f64()).map(|c| c as u8)
                    })
                    .collect(),
            ),
            _ => None,
        };
        for i in 0..encoded.len() / size {
            let stored = element(self.data_type, &encoded, i);
            let fail = || {
                let reason = format!(
                    "element {i}: {} / {} + {} is not a value of {}",
                    stored, self.scale, self.offset, self.data_type
                );
                CodecError::new("scale_offset", reason)
            };
            match &table {
                Some(table) => encoded[i] = table[encoded[i] as usize].ok_or_else(fail)?,
                None => {
                    let value = self.decode_value(stored).ok_or_else(fail)?;
                    put(self.data_type, &mut encoded, i, value);
                }
            }
        }
        Ok(encoded)
    }
}

/// The arithmetic of `data_type`, where the registry defines the codec for it.
fn arithmetic_of(data_type: DataType) -> Option<Arithmetic> {
    if let Some((min, max)) = numeric::integer_range(data_type) {
        return Some(Arithmetic::Integer { min, max });
    }
    match data_type {
        DataType::Float16 | DataType::Float32 | DataType::Float64 | DataType::Narrow(_) => {
            Some(Arithmetic::Float { round: round_to })
        }
        _ => None,
    }
}

/// `x` rounded to the nearest value of the float type (ties to even), `None` where the type has
/// no such value (a NaN or an overflow the type cannot express).
fn round_to(data_type: DataType, x: f64) -> Option<f64> {
    match data_type {
        DataType::Float64 => Some(x),
        DataType::Float32 => Some(x as f32 as f64),
        DataType::Float16 => Some(f16::from_f64(x).to_f64()),
        DataType::Narrow(format) => format.from_f64(x).map(|code| format.to_f32(code) as f64),
        _ => None,
    }
}

/// Element `i` of a buffer of `data_type` (native byte order).
fn element(data_type: DataType, bytes: &[u8], i: usize) -> Num {
    match data_type {
        DataType::NarrowInt(int) => Num::I(int.value(bytes[i]).into()),
        DataType::Narrow(format) => {
            let size = format.size();
            let code = match size {
                1 => bytes[i] as u16,
                _ => u16::from_ne_bytes([bytes[2 * i], bytes[2 * i + 1]]),
            };
            Num::F(format.to_f32(code) as f64)
        }
        _ => numeric::read(data_type, bytes, i),
    }
}

/// Writes `v` as element `i`; `v` is a value of the type (the arithmetic made sure of it).
fn put(data_type: DataType, out: &mut [u8], i: usize, v: Num) {
    match data_type {
        // Two's complement in the low bits of the byte.
        DataType::NarrowInt(int) => out[i] = (v.to_i128() as u8) & int.mask(),
        DataType::Narrow(format) => {
            let code = format.from_f64(v.as_f64()).unwrap_or_default();
            match format.size() {
                1 => out[i] = code as u8,
                _ => out[2 * i..2 * i + 2].copy_from_slice(&code.to_ne_bytes()),
            }
        }
        _ => numeric::write(data_type, out, i, v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(config: Value, data_type: DataType) -> Result<ScaleOffsetCodec, String> {
        ScaleOffsetCodec::from_configuration(
            Configuration::new(config.as_object().unwrap()),
            data_type,
        )
    }

    fn repr(n: u64, data_type: DataType) -> ChunkRepr {
        ChunkRepr {
            shape: vec![n],
            data_type,
        }
    }

    #[test]
    fn integers_divide_and_add_in_their_own_type() {
        let c = codec(json!({"offset": 1000}), DataType::UInt16).unwrap();
        let stored: Vec<u8> = [0u16, 255, 7]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let out = c.decode(stored, &repr(3, DataType::UInt16)).unwrap();
        let values: Vec<u16> = out
            .chunks(2)
            .map(|b| u16::from_ne_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(values, [1000, 1255, 1007]);
        // 65000 + 1000 does not fit a uint16: an error, not a wrapped value.
        let err = c
            .decode(65000u16.to_ne_bytes().to_vec(), &repr(1, DataType::UInt16))
            .unwrap_err();
        assert!(
            err.to_string().contains("is not a value of uint16"),
            "{err}"
        );
        // int4 with scale -2 and offset 3: stored -3 is -3 / -2 + 3 = 4 (integer division
        // truncates), stored 2 is 2 / -2 + 3 = 2.
        let int4 = DataType::from_v3_name("int4").unwrap();
        let c = codec(json!({"scale": -2, "offset": 3}), int4).unwrap();
        let out = c.decode(vec![0b1101, 0b0010], &repr(2, int4)).unwrap();
        assert_eq!(out, [4, 2]);
        let fill = c
            .encoded_fill(&FillValue::from_native_bytes(vec![5]), int4, int4)
            .unwrap();
        assert_eq!(fill.as_bytes(), [0b1100]); // (5 - 3) * -2 = -4
    }

    #[test]
    fn floats_round_each_step_to_their_type() {
        // The registry's example: float32, offset 5, scale 0.1.
        let c = codec(json!({"offset": 5, "scale": 0.1}), DataType::Float32).unwrap();
        let stored: Vec<u8> = [10.0f32, -0.5, f32::NAN]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let out = c.decode(stored, &repr(3, DataType::Float32)).unwrap();
        let values: Vec<f32> = out
            .chunks(4)
            .map(|b| f32::from_ne_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(values[0], 10.0f32 / 0.1f32 + 5.0);
        assert_eq!(values[1], -0.5f32 / 0.1f32 + 5.0);
        assert!(values[2].is_nan());
        // float8_e4m3fn has no infinity: a result past its range is an error.
        let e4m3 = DataType::from_v3_name("float8_e4m3fn").unwrap();
        let c = codec(json!({"scale": 0.015625}), e4m3).unwrap();
        let err = c.decode(vec![0x7e], &repr(1, e4m3)).unwrap_err(); // 448 / 2^-6
        assert!(err.to_string().contains("element 0"), "{err}");
        let out = codec(json!({"scale": 2, "offset": -1}), e4m3)
            .unwrap()
            .decode(vec![0x40], &repr(1, e4m3))
            .unwrap();
        assert_eq!(out, [0x00]); // 0x40 is 2.0: 2 / 2 - 1 = 0
    }

    #[test]
    fn configurations_are_checked() {
        for (config, data_type, why) in [
            (json!({"scale": 0}), DataType::Int32, "must not be zero"),
            (
                json!({"scale": 1, "mode": "x"}),
                DataType::Int32,
                "unknown configuration key",
            ),
            (json!({"offset": "x"}), DataType::Float64, "\"offset\""),
            (json!({}), DataType::Bool, "applies to integers"),
            (json!({"offset": 1.5}), DataType::UInt8, "\"offset\""),
        ] {
            let err = codec(config.clone(), data_type).err().unwrap_or_default();
            assert!(err.contains(why), "{config}: {err}");
        }
    }
}
