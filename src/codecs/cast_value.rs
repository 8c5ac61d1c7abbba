//! The registry's `cast_value` codec: values stored as another number type, converted by value
//! (not by bits) with a rounding mode, a rule for values out of range, and explicit scalar maps.
//! Decoding converts the stored type (`data_type`) back to the array's type by the same rules,
//! as the registry says: the decode map first, then exact values, then rounding and range.
//!
//! Read for the core number types (8- to 64-bit integers, float16/32/64), the ones
//! `cast-value` (the registry's reference writer, through zarr-python) writes.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::{Configuration, Field};
use super::numeric::{self, Num};
use crate::collections::buffer::try_zeroed;
use crate::data_type::fill_value::FillValue;
use crate::data_type::DataType;
use crate::error::CodecError;
use half::f16;
use serde_json::Value;

/// `cast_value`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["cast_value"],
    kind: Kind::ArrayToArray,
    build: |config, cx| {
        Ok(Codec::array_to_array(CastValueCodec::from_configuration(
            config,
            cx.data_type,
        )?))
    },
}];

/// The most entries a scalar map may have (writers map a handful of special values).
const MAX_MAP_ENTRIES: usize = 256;

/// `rounding`: how a value between two of the target type's is rounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rounding {
    NearestEven,
    TowardsZero,
    TowardsPositive,
    TowardsNegative,
    NearestAway,
}

impl Field<'_> for Rounding {
    fn expected() -> String {
        "\"nearest-even\", \"towards-zero\", \"towards-positive\", \"towards-negative\" or \"nearest-away\"".into()
    }
    fn read(value: &Value) -> Option<Rounding> {
        Some(match value.as_str()? {
            "nearest-even" => Rounding::NearestEven,
            "towards-zero" => Rounding::TowardsZero,
            "towards-positive" => Rounding::TowardsPositive,
            "towards-negative" => Rounding::TowardsNegative,
            "nearest-away" => Rounding::NearestAway,
            _ => return None,
        })
    }
}

/// `out_of_range`: what becomes of a value beyond the target type's range (absent: an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutOfRange {
    Clamp,
    Wrap,
}

impl Field<'_> for OutOfRange {
    fn expected() -> String {
        "\"clamp\" or \"wrap\"".into()
    }
    fn read(value: &Value) -> Option<OutOfRange> {
        match value.as_str()? {
            "clamp" => Some(OutOfRange::Clamp),
            "wrap" => Some(OutOfRange::Wrap),
            _ => None,
        }
    }
}

/// The conversion rules of one direction.
#[derive(Debug, Clone)]
struct Cast {
    to: DataType,
    rounding: Rounding,
    out_of_range: Option<OutOfRange>,
    /// `scalar_map`'s pairs for this direction: values of the source type, values of `to`.
    map: Vec<(Num, Num)>,
}

pub struct CastValueCodec {
    /// The stored type.
    stored: DataType,
    /// Stored values to the array's type.
    decode: Cast,
    /// The array's values to the stored type (only the fill value goes this way).
    encode: Cast,
}

impl CastValueCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<CastValueCodec, String> {
        config.only(&["data_type", "rounding", "out_of_range", "scalar_map"])?;
        let name: &str = config.required("data_type")?;
        let stored = DataType::from_v3_name(name)
            .ok_or_else(|| format!("\"data_type\" {name:?} is not a data type"))?;
        for (what, dt) in [("the array's type", data_type), ("\"data_type\"", stored)] {
            if !is_number(dt) {
                return Err(format!(
                    "{what} is {dt}: cast_value is read between 8- to 64-bit integers and float16/32/64"
                ));
            }
        }
        let rounding = config
            .optional("rounding")?
            .unwrap_or(Rounding::NearestEven);
        let out_of_range = config.optional::<OutOfRange>("out_of_range")?;
        if out_of_range == Some(OutOfRange::Wrap) && !stored.is_integer() {
            return Err(format!(
                "\"out_of_range\": \"wrap\" needs an integer \"data_type\", not {stored}"
            ));
        }
        let maps = config.optional::<&Value>("scalar_map")?;
        let map = |direction: &str,
                   from: DataType,
                   to: DataType|
         -> Result<Vec<(Num, Num)>, String> {
            let Some(pairs) = maps.and_then(|m| m.get(direction)) else {
                return Ok(Vec::new());
            };
            let bad = || {
                format!("\"scalar_map\".\"{direction}\" must be a list of [input, output] pairs")
            };
            let pairs = pairs.as_array().ok_or_else(bad)?;
            // Each element is looked up in the map: a bound keeps that cheap.
            if pairs.len() > MAX_MAP_ENTRIES {
                return Err(format!(
                    "\"scalar_map\".\"{direction}\" has {} entries, more than the {MAX_MAP_ENTRIES} read",
                    pairs.len()
                ));
            }
            let mut out = Vec::new();
            for pair in pairs {
                let [input, output] = pair.as_array().map(Vec::as_slice).ok_or_else(bad)? else {
                    return Err(bad());
                };
                let input = scalar(input, from)
                    .map_err(|e| format!("\"scalar_map\".\"{direction}\": {e}"))?;
                let output = scalar(output, to)
                    .map_err(|e| format!("\"scalar_map\".\"{direction}\": {e}"))?;
                // The first pair of an input wins, as the registry says.
                if !out.iter().any(|(seen, _)| same(*seen, input)) {
                    out.push((input, output));
                }
            }
            Ok(out)
        };
        if maps.is_some_and(|m| !m.is_object()) {
            return Err(
                "\"scalar_map\" must be an object with \"encode\" and \"decode\" lists".into(),
            );
        }
        Ok(CastValueCodec {
            stored,
            decode: Cast {
                to: data_type,
                rounding,
                out_of_range,
                map: map("decode", stored, data_type)?,
            },
            encode: Cast {
                to: stored,
                rounding,
                out_of_range,
                map: map("encode", data_type, stored)?,
            },
        })
    }
}

impl ArrayToArrayCodec for CastValueCodec {
    fn name(&self) -> &'static str {
        "cast_value"
    }

    /// Element by element.
    fn box_order(&self, ndim: usize) -> Option<Vec<usize>> {
        Some((0..ndim).collect())
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        ChunkRepr {
            shape: decoded.shape.clone(),
            data_type: self.stored,
        }
    }

    /// The fill value cast to the stored type by the encode rules; one that cannot be is an
    /// error when the array is opened (the registry asks writers to make sure it can).
    fn encoded_fill(
        &self,
        fill: &FillValue,
        decoded: DataType,
        encoded: DataType,
    ) -> Result<FillValue, String> {
        let mut bytes = vec![0; encoded.size()];
        if fill.as_bytes().len() == decoded.size() {
            let value = numeric::read(decoded, fill.as_bytes(), 0);
            let cast = self
                .encode
                .apply(value)
                .map_err(|e| format!("the fill value: {e}"))?;
            // The registry: a fill value that does not survive the round trip is an error.
            let back = self
                .decode
                .apply(cast)
                .map_err(|e| format!("the fill value cast back: {e}"))?;
            if !same(back, value) {
                return Err(format!(
                    "the fill value {} does not survive the cast to {encoded} and back (it becomes {})",
                    value,
                    back
                ));
            }
            numeric::write(encoded, &mut bytes, 0, cast);
        }
        Ok(FillValue::from_native_bytes(bytes))
    }

    fn decode(&self, encoded: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |reason: String| CodecError::new("cast_value", reason);
        let size = numeric::converted_size(encoded.len(), self.stored, decoded).map_err(err)?;
        let mut out = try_zeroed(size).map_err(err)?;
        for i in 0..encoded.len() / self.stored.size() {
            let value = numeric::read(self.stored, &encoded, i);
            let cast = self
                .decode
                .apply(value)
                .map_err(|e| err(format!("element {i}: {e}")))?;
            numeric::write(self.decode.to, &mut out, i, cast);
        }
        Ok(out)
    }
}

impl Cast {
    /// `value` in the target type: mapped, exact, or rounded and brought into range.
    fn apply(&self, value: Num) -> Result<Num, String> {
        let value = match self.map.iter().find(|(input, _)| same(*input, value)) {
            Some(&(_, output)) => return Ok(output),
            None => value,
        };
        if self.to.is_integer() {
            self.to_integer(value)
        } else {
            self.to_float(value)
        }
    }

    fn to_integer(&self, value: Num) -> Result<Num, String> {
        let (min, max) = numeric::integer_range(self.to).unwrap_or_default();
        let whole: f64;
        let exact: i128 = match value {
            Num::I(v) => v.into(),
            Num::U(v) => v.into(),
            Num::F(v) if !v.is_finite() => {
                return Err(format!(
                    "{v} has no {} value (no scalar_map entry for it)",
                    self.to
                ))
            }
            Num::F(v) => {
                whole = round(v, self.rounding);
                // From 2^126 on a float is a multiple of 2^74, out of every integer type's
                // range, and wraps to 0 modulo 2^64 and below. Below, it converts exactly.
                if whole.abs() >= 2f64.powi(126) {
                    return match self.out_of_range {
                        Some(OutOfRange::Clamp) => {
                            Ok(Num::from_i128(if whole < 0.0 { min } else { max }))
                        }
                        Some(OutOfRange::Wrap) => Ok(Num::I(0)),
                        None => Err(out_of_range(value, self.to)),
                    };
                }
                whole as i128
            }
        };
        if (min..=max).contains(&exact) {
            return Ok(Num::from_i128(exact));
        }
        match self.out_of_range {
            Some(OutOfRange::Clamp) => Ok(Num::from_i128(exact.clamp(min, max))),
            Some(OutOfRange::Wrap) => Ok(Num::from_i128(wrap(exact, min, max))),
            None => Err(out_of_range(value, self.to)),
        }
    }

    fn to_float(&self, value: Num) -> Result<Num, String> {
        let (nearest, other) = match value {
            Num::F(v) if v.is_nan() || v.is_infinite() => return Ok(Num::F(v)),
            Num::F(v) => candidates_of_float(v, self.to),
            Num::I(v) => candidates_of_integer(v.into(), self.to),
            Num::U(v) => candidates_of_integer(v.into(), self.to),
        };
        let chosen = match other {
            None => nearest.value,
            Some(other) => match self.rounding {
                Rounding::NearestEven => nearest.value,
                Rounding::TowardsZero => {
                    pick(other.value.abs() < nearest.value.abs(), other, nearest)
                }
                Rounding::TowardsPositive => pick(other.value > nearest.value, other, nearest),
                Rounding::TowardsNegative => pick(other.value < nearest.value, other, nearest),
                // `nearest` is the nearest: only a tie can go the other way (an infinite
                // nearest, past the range, is never a tie).
                Rounding::NearestAway => pick(
                    other.distance == nearest.distance && other.value.abs() > nearest.value.abs(),
                    other,
                    nearest,
                ),
            },
        };
        if chosen.is_infinite() {
            // Past the largest finite value: infinity only where values may be clamped.
            return match self.out_of_range {
                Some(OutOfRange::Clamp) => Ok(Num::F(chosen)),
                _ => Err(out_of_range(value, self.to)),
            };
        }
        Ok(Num::F(chosen))
    }
}

/// A value of the target float type and how far it is from the value being cast (as a
/// comparable number: exact where the two differ by little).
#[derive(Debug, Clone, Copy)]
struct Candidate {
    value: f64,
    distance: f64,
}

fn pick(other_wins: bool, other: Candidate, nearest: Candidate) -> f64 {
    if other_wins {
        other.value
    } else {
        nearest.value
    }
}

/// The nearest value of float type `to` to the finite float `v` (ties to even; infinity past
/// the largest), and, where `v` is not exact in `to`, the neighbour on `v`'s other side.
fn candidates_of_float(v: f64, to: DataType) -> (Candidate, Option<Candidate>) {
    let nearest = round_to(v, to);
    let at = |value: f64| Candidate {
        value,
        distance: (value - v).abs(),
    };
    if nearest == v {
        return (at(nearest), None);
    }
    let other = step(nearest, v > nearest, to);
    (at(nearest), Some(at(other)))
}

/// The same for an integer, exactly: the candidates' distances are computed in integers.
fn candidates_of_integer(v: i128, to: DataType) -> (Candidate, Option<Candidate>) {
    // Within 2^53 every integer is a float64, and the float path is exact.
    if v.unsigned_abs() <= 1 << 53 {
        return candidates_of_float(v as f64, to);
    }
    let nearest = round_to(v as f64, to);
    if nearest.is_infinite() {
        // Past the type's range (float16): as a float it is out of range just the same.
        return candidates_of_float(v as f64, to);
    }
    let exact = |x: f64| x.is_finite().then_some(x as i128);
    let distance = |x: f64| exact(x).map_or(f64::INFINITY, |x| (x - v).unsigned_abs() as f64);
    // `v as f64` rounds to nearest; in a narrower type the nearest may then be off by the
    // double rounding: the candidates are re-chosen from the exact distances.
    let mut low = nearest;
    let mut high = nearest;
    match exact(nearest) {
        Some(n) if n == v => {
            return (
                Candidate {
                    value: nearest,
                    distance: 0.0,
                },
                None,
            )
        }
        Some(n) if n < v => high = step(nearest, true, to),
        _ => low = step(nearest, false, to),
    }
    let (low, high) = (
        Candidate {
            value: low,
            distance: distance(low),
        },
        Candidate {
            value: high,
            distance: distance(high),
        },
    );
    // Nearest by distance, ties to the even pattern (the one whose last mantissa bit is 0).
    let low_first = low.distance < high.distance
        || low.distance == high.distance && mantissa_is_even(low.value, to);
    if low_first {
        (low, Some(high))
    } else {
        (high, Some(low))
    }
}

/// `v` rounded to the nearest value of float type `to`, ties to even (infinity past the largest).
fn round_to(v: f64, to: DataType) -> f64 {
    match to {
        DataType::Float16 => f16::from_f64(v).to_f64(),
        DataType::Float32 => v as f32 as f64,
        _ => v,
    }
}

/// The next value of float type `to` after `v` upwards (or downwards).
fn step(v: f64, up: bool, to: DataType) -> f64 {
    match to {
        DataType::Float16 => {
            let bits = f16::from_f64(v).to_bits();
            let next = if bits & 0x7fff == 0 {
                // From a zero: the smallest value of the side we go to.
                if up {
                    0x0001
                } else {
                    0x8001
                }
            } else if (bits & 0x8000 == 0) == up {
                // Sign and magnitude: away from zero is the next pattern, towards it the one before.
                bits + 1
            } else {
                bits - 1
            };
            f16::from_bits(next).to_f64()
        }
        DataType::Float32 => {
            let v = v as f32;
            (if up { v.next_up() } else { v.next_down() }) as f64
        }
        _ => {
            if up {
                v.next_up()
            } else {
                v.next_down()
            }
        }
    }
}

fn mantissa_is_even(v: f64, to: DataType) -> bool {
    match to {
        DataType::Float16 => f16::from_f64(v).to_bits() & 1 == 0,
        DataType::Float32 => (v as f32).to_bits() & 1 == 0,
        _ => v.to_bits() & 1 == 0,
    }
}

/// `v` rounded to an integer by `mode`.
fn round(v: f64, mode: Rounding) -> f64 {
    match mode {
        Rounding::NearestEven => v.round_ties_even(),
        Rounding::TowardsZero => v.trunc(),
        Rounding::TowardsPositive => v.ceil(),
        Rounding::TowardsNegative => v.floor(),
        Rounding::NearestAway => v.round(),
    }
}

/// `v` modulo the range's size, into the range (two's complement).
fn wrap(v: i128, min: i128, max: i128) -> i128 {
    (v - min).rem_euclid(max - min + 1) + min
}

fn is_number(dt: DataType) -> bool {
    dt.is_integer()
        || matches!(
            dt,
            DataType::Float16 | DataType::Float32 | DataType::Float64
        )
}

/// Whether two values are the same scalar (NaN matching NaN, as scalar maps use it).
fn same(a: Num, b: Num) -> bool {
    match (a, b) {
        (Num::F(x), Num::F(y)) => x == y || x.is_nan() && y.is_nan(),
        (Num::F(x), other) | (other, Num::F(x)) => x == other.as_f64() && x.fract() == 0.0,
        (Num::I(x), Num::U(y)) | (Num::U(y), Num::I(x)) => i128::from(x) == i128::from(y),
        (x, y) => x == y,
    }
}

/// A scalar map entry written as a fill value of `data_type`.
fn scalar(value: &Value, data_type: DataType) -> Result<Num, String> {
    let fill = FillValue::from_v3_json(value, data_type)?;
    Ok(numeric::read(data_type, fill.as_bytes(), 0))
}

fn out_of_range(value: impl std::fmt::Display, to: DataType) -> String {
    format!("{value} is out of range for {to} (no \"out_of_range\" rule for it)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(config: Value, data_type: DataType) -> Result<CastValueCodec, String> {
        CastValueCodec::from_configuration(
            Configuration::new(config.as_object().unwrap()),
            data_type,
        )
    }

    fn cast(config: Value, from: DataType, to: DataType, value: Num) -> Result<Num, String> {
        // Decoding goes from the stored type to the array's: the array is `to`.
        let mut config = config;
        config["data_type"] = json!(from.name());
        codec(config, to)?.decode.apply(value)
    }

    #[test]
    fn floats_to_integers_round_then_range() {
        let f = |v: f64| Num::F(v);
        let to_i16 = |config: Value, v: f64| cast(config, DataType::Float32, DataType::Int16, f(v));
        assert_eq!(to_i16(json!({}), 2.5), Ok(Num::I(2)));
        assert_eq!(
            to_i16(json!({"rounding": "nearest-away"}), 2.5),
            Ok(Num::I(3))
        );
        assert_eq!(
            to_i16(json!({"rounding": "towards-negative"}), -0.5),
            Ok(Num::I(-1))
        );
        assert_eq!(
            to_i16(json!({"rounding": "towards-positive"}), -0.5),
            Ok(Num::I(0))
        );
        assert!(to_i16(json!({}), 40000.0)
            .unwrap_err()
            .contains("out of range for int16"));
        assert_eq!(
            to_i16(json!({"out_of_range": "clamp"}), 40000.0),
            Ok(Num::I(32767))
        );
        assert!(to_i16(json!({}), f64::NAN)
            .unwrap_err()
            .contains("no int16 value"));
        // Wrap needs an integer stored type: here the stored type is float32.
        assert!(to_i16(json!({"out_of_range": "wrap"}), 1.0)
            .unwrap_err()
            .contains("integer \"data_type\""));
        let wrap = |v: i64| {
            cast(
                json!({"out_of_range": "wrap"}),
                DataType::Int64,
                DataType::Int16,
                Num::I(v),
            )
        };
        assert_eq!(wrap(32768), Ok(Num::I(-32768)));
        assert_eq!(wrap(-32769), Ok(Num::I(32767)));
    }

    #[test]
    fn narrowing_floats_follow_each_rounding_mode() {
        let to_f16 = |rounding: &str, v: f64| {
            let config = json!({"rounding": rounding, "out_of_range": "clamp"});
            match cast(config, DataType::Float64, DataType::Float16, Num::F(v)) {
                Ok(Num::F(x)) => x,
                other => panic!("{other:?}"),
            }
        };
        // 1 + 2^-11 lies halfway between float16's 1 and 1 + 2^-10.
        let half_ulp = 2f64.powi(-11);
        assert_eq!(to_f16("nearest-even", 1.0 + half_ulp), 1.0);
        assert_eq!(to_f16("nearest-away", 1.0 + half_ulp), 1.0 + 2.0 * half_ulp);
        assert_eq!(
            to_f16("towards-positive", 1.0 + half_ulp / 4.0),
            1.0 + 2.0 * half_ulp
        );
        assert_eq!(
            to_f16("towards-negative", -1.0 - half_ulp / 4.0),
            -1.0 - 2.0 * half_ulp
        );
        assert_eq!(to_f16("towards-zero", -1.0 - half_ulp * 1.5), -1.0);
        // Around zero: the smallest subnormal on either side.
        let tiny = 2f64.powi(-24);
        assert_eq!(to_f16("towards-positive", tiny / 8.0), tiny);
        assert_eq!(to_f16("towards-negative", tiny / 8.0), 0.0);
        assert_eq!(to_f16("towards-negative", -tiny / 8.0), -tiny);
        // Past the largest: infinity when clamped, the largest when rounding towards zero.
        assert_eq!(to_f16("nearest-even", 1e6), f64::INFINITY);
        assert_eq!(to_f16("towards-zero", 70000.0), 65504.0);
        let unclamped = cast(json!({}), DataType::Float64, DataType::Float16, Num::F(1e6));
        assert!(unclamped.unwrap_err().contains("out of range for float16"));
        assert_eq!(to_f16("nearest-away", 1e6), f64::INFINITY);
        let away = cast(
            json!({"rounding": "nearest-away"}),
            DataType::Float64,
            DataType::Float16,
            Num::F(1e6),
        );
        assert!(
            away.unwrap_err().contains("out of range"),
            "past the range is no tie"
        );
        // An integer past float16's range, beyond 2^53 too.
        let big = cast(
            json!({}),
            DataType::Int64,
            DataType::Float16,
            Num::I(1 << 60),
        );
        assert!(big.unwrap_err().contains("out of range"));
    }

    #[test]
    fn large_integers_to_floats_are_rounded_exactly() {
        // 2^24 + 1 is halfway between float32's 2^24 and 2^24 + 2.
        let to_f32 = |rounding: &str, v: i64| match cast(
            json!({"rounding": rounding}),
            DataType::Int64,
            DataType::Float32,
            Num::I(v),
        ) {
            Ok(Num::F(x)) => x,
            other => panic!("{other:?}"),
        };
        assert_eq!(to_f32("nearest-even", (1 << 24) + 1), 16777216.0);
        assert_eq!(to_f32("nearest-away", (1 << 24) + 1), 16777218.0);
        // Beyond 2^53, where float64 itself rounds: 2^60 + 2^36 + 1 rounds up to float32's next.
        let v = (1i64 << 60) + (1 << 36) + 1;
        assert_eq!(to_f32("nearest-even", v), ((1i64 << 60) + (1 << 37)) as f64);
        assert_eq!(to_f32("towards-zero", v), (1i64 << 60) as f64);
    }

    #[test]
    fn scalar_maps_come_first_and_configurations_are_checked() {
        let config = json!({"data_type": "uint8", "scalar_map": {"decode": [[0, "NaN"], [0, 1.0]], "encode": [["NaN", 0]]}});
        let c = codec(config, DataType::Float64).unwrap();
        assert!(matches!(c.decode.apply(Num::U(0)), Ok(Num::F(x)) if x.is_nan()));
        assert_eq!(c.decode.apply(Num::U(7)), Ok(Num::F(7.0)));
        let fill = FillValue::from_native_bytes(f64::NAN.to_ne_bytes().to_vec());
        let encoded = c
            .encoded_fill(&fill, DataType::Float64, DataType::UInt8)
            .unwrap();
        assert_eq!(encoded.as_bytes(), [0]);
        for (config, why) in [
            (
                json!({"data_type": "uint8", "order": 1}),
                "unknown configuration key",
            ),
            (json!({"data_type": "string"}), "cast_value is read between"),
            (json!({"data_type": "uint9"}), "not a data type"),
            (
                json!({"data_type": "uint8", "rounding": "up"}),
                "\"rounding\"",
            ),
            (
                json!({"data_type": "uint8", "scalar_map": {"decode": [[0]]}}),
                "[input, output] pairs",
            ),
        ] {
            let err = codec(config.clone(), DataType::Float64)
                .err()
                .unwrap_or_default();
            assert!(err.contains(why), "{config}: {err}");
        }
        // A fill value the encode rules cannot cast: an error when the array is opened.
        let c = codec(json!({"data_type": "uint8"}), DataType::Float64).unwrap();
        assert!(c
            .encoded_fill(&fill, DataType::Float64, DataType::UInt8)
            .is_err());
        // Nor one that does not come back as itself: 0.5 is stored as 0, which reads as 0.
        let half = FillValue::from_native_bytes(0.5f64.to_ne_bytes().to_vec());
        let err = c
            .encoded_fill(&half, DataType::Float64, DataType::UInt8)
            .unwrap_err();
        assert!(err.contains("does not survive"), "{err}");
        let many: Vec<Value> = (0..300).map(|i| json!([i, i])).collect();
        let err = codec(
            json!({"data_type": "uint16", "scalar_map": {"decode": many}}),
            DataType::Float64,
        );
        assert!(err.err().unwrap_or_default().contains("more than the 256"));
    }
}
