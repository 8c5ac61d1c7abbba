//! The narrow number types machine learning stores (the zarr-extensions registry; tensorstore and
//! Orbax checkpoints write them): `bfloat16`, the 8-, 6- and 4-bit floats, and 4- and 2-bit
//! integers. The `bytes` codec stores each sub-16-bit value in one byte, in its low bits (the upper
//! bits are ignored); bfloat16 is two bytes in the codec's byte order. Values widen exactly to
//! float32 (floats) and int8/uint8 (integers), which is how users get them.

use serde_json::Value;

/// A float format narrower than float16 (or bfloat16), by its ml_dtypes / registry name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NarrowFloat {
    BFloat16,
    Float8E4M3FN,
    Float8E4M3FNUZ,
    Float8E4M3B11FNUZ,
    Float8E5M2,
    Float8E5M2FNUZ,
    Float8E4M3,
    Float8E3M4,
    Float8E8M0FNU,
    Float6E2M3FN,
    Float6E3M2FN,
    Float4E2M1FN,
}

/// Which bit patterns are not finite numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Specials {
    /// As IEEE 754: the top exponent is infinity (mantissa 0) or NaN.
    Ieee,
    /// "fn": no infinity; NaN only where exponent and mantissa are all ones.
    NanAllOnes,
    /// "fnuz": no infinity, no negative zero; NaN is the sign bit alone.
    NanNegativeZero,
    /// No infinity and no NaN (the 6- and 4-bit floats).
    None,
}

/// A sign, `exponent` and `mantissa` bit format.
struct Layout {
    exponent: u32,
    mantissa: u32,
    bias: i32,
    specials: Specials,
}

const ALL: [(NarrowFloat, &str); 12] = [
    (NarrowFloat::BFloat16, "bfloat16"),
    (NarrowFloat::Float8E4M3FN, "float8_e4m3fn"),
    (NarrowFloat::Float8E4M3FNUZ, "float8_e4m3fnuz"),
    (NarrowFloat::Float8E4M3B11FNUZ, "float8_e4m3b11fnuz"),
    (NarrowFloat::Float8E5M2, "float8_e5m2"),
    (NarrowFloat::Float8E5M2FNUZ, "float8_e5m2fnuz"),
    (NarrowFloat::Float8E4M3, "float8_e4m3"),
    (NarrowFloat::Float8E3M4, "float8_e3m4"),
    (NarrowFloat::Float8E8M0FNU, "float8_e8m0fnu"),
    (NarrowFloat::Float6E2M3FN, "float6_e2m3fn"),
    (NarrowFloat::Float6E3M2FN, "float6_e3m2fn"),
    (NarrowFloat::Float4E2M1FN, "float4_e2m1fn"),
];

impl NarrowFloat {
    pub fn from_name(name: &str) -> Option<NarrowFloat> {
        ALL.iter().find(|(_, n)| *n == name).map(|(f, _)| *f)
    }

    pub fn name(self) -> &'static str {
        ALL.iter().find(|(f, _)| *f == self).map_or("", |(_, n)| n)
    }

    /// Bytes per stored value.
    pub fn size(self) -> usize {
        match self {
            NarrowFloat::BFloat16 => 2,
            _ => 1,
        }
    }

    /// The sign/exponent/mantissa layout of the formats that have one (all but bfloat16, a
    /// float32's upper half, and e8m0, an exponent alone).
    fn layout(self) -> Option<Layout> {
        let (exponent, mantissa, bias, specials) = match self {
            NarrowFloat::BFloat16 | NarrowFloat::Float8E8M0FNU => return None,
            NarrowFloat::Float8E4M3FN => (4, 3, 7, Specials::NanAllOnes),
            NarrowFloat::Float8E4M3FNUZ => (4, 3, 8, Specials::NanNegativeZero),
            NarrowFloat::Float8E4M3B11FNUZ => (4, 3, 11, Specials::NanNegativeZero),
            NarrowFloat::Float8E5M2 => (5, 2, 15, Specials::Ieee),
            NarrowFloat::Float8E5M2FNUZ => (5, 2, 16, Specials::NanNegativeZero),
            NarrowFloat::Float8E4M3 => (4, 3, 7, Specials::Ieee),
            NarrowFloat::Float8E3M4 => (3, 4, 3, Specials::Ieee),
            NarrowFloat::Float6E2M3FN => (2, 3, 1, Specials::None),
            NarrowFloat::Float6E3M2FN => (3, 2, 3, Specials::None),
            NarrowFloat::Float4E2M1FN => (2, 1, 1, Specials::None),
        };
        Some(Layout {
            exponent,
            mantissa,
            bias,
            specials,
        })
    }

    /// Bits a value has (the rest of its byte is ignored).
    pub fn bits(self) -> u32 {
        match (self, self.layout()) {
            (_, Some(l)) => 1 + l.exponent + l.mantissa,
            (NarrowFloat::BFloat16, None) => 16,
            _ => 8,
        }
    }

    /// The value of the stored pattern `stored` (upper bits beyond the format ignored), exactly.
    pub fn to_f32(self, stored: u16) -> f32 {
        let bits = stored as u32 & ((1u32 << self.bits()) - 1);
        let Some(l) = self.layout() else {
            return match self {
                NarrowFloat::BFloat16 => f32::from_bits(bits << 16),
                // e8m0: 2^(bits - 127); 0xff is NaN. 2^-127 is a float32 subnormal, still exact.
                _ if bits == 0xff => f32::NAN,
                _ => pow2(bits as i32 - 127),
            };
        };
        let sign_bit = 1u32 << (l.exponent + l.mantissa);
        let negative = bits & sign_bit != 0;
        let max_exponent = (1u32 << l.exponent) - 1;
        let max_mantissa = (1u32 << l.mantissa) - 1;
        let exponent = (bits >> l.mantissa) & max_exponent;
        let mantissa = bits & max_mantissa;
        let special = match l.specials {
            Specials::Ieee if exponent == max_exponent => Some(if mantissa == 0 {
                f32::INFINITY
            } else {
                f32::NAN
            }),
            Specials::NanAllOnes if exponent == max_exponent && mantissa == max_mantissa => {
                Some(f32::NAN)
            }
            Specials::NanNegativeZero if bits == sign_bit => return f32::NAN,
            _ => None,
        };
        let magnitude = special.unwrap_or_else(|| {
            let scale = pow2(1 - l.bias - l.mantissa as i32);
            match exponent {
                0 => mantissa as f32 * scale,
                e => {
                    (mantissa + (1 << l.mantissa)) as f32
                        * pow2(e as i32 - l.bias - l.mantissa as i32)
                }
            }
        });
        if negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// The stored pattern for `value`: exact where the format has it, else the nearest (ties to
    /// the even pattern); past the largest finite value infinity where the format has one.
    /// `None` where there is no such value (NaN or infinity the format lacks, out of range).
    pub fn from_f64(self, value: f64) -> Option<u16> {
        if self == NarrowFloat::BFloat16 {
            // Rounded to float32, then to its upper half, ties to even.
            let bits = (value as f32).to_bits();
            if value.is_nan() {
                return Some(0x7fc0);
            }
            let rounded = bits.checked_add(0x7fff + ((bits >> 16) & 1))?;
            return Some((rounded >> 16) as u16);
        }
        let mut codes = 0..(1u16 << self.bits());
        if value.is_nan() {
            return codes.find(|&c| self.to_f32(c).is_nan());
        }
        if value.is_infinite() {
            return codes.find(|&c| self.to_f32(c) as f64 == value);
        }
        let mut best: Option<(u16, f64)> = None;
        for code in codes {
            let v = self.to_f32(code) as f64;
            if !v.is_finite() {
                continue;
            }
            if v == value && v.is_sign_negative() == value.is_sign_negative() {
                return Some(code);
            }
            let distance = (v - value).abs();
            let better = match best {
                None => true,
                Some((b, d)) => distance < d || (distance == d && code & 1 == 0 && b & 1 == 1),
            };
            if better {
                best = Some((code, distance));
            }
        }
        let (code, _) = best?;
        // Past the largest finite value: infinity where there is one, else no value.
        let largest = (self.to_f32(code) as f64).abs();
        if value.abs() > largest {
            let step = largest - self.next_below(largest);
            if value.abs() - largest > step / 2.0 {
                return self.from_f64(value.signum() * f64::INFINITY);
            }
        }
        Some(code)
    }

    /// The largest finite value below `value` (a finite value of the format).
    fn next_below(self, value: f64) -> f64 {
        (0..(1u16 << self.bits()))
            .map(|c| self.to_f32(c) as f64)
            .filter(|v| v.is_finite() && *v < value)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The fill value in its JSON forms: a number, `"NaN"`, `"Infinity"`, `"-Infinity"` (where the
    /// format has them) or `"0x…"`, the stored pattern in hex.
    pub fn fill_from_json(self, value: &Value) -> Result<u16, String> {
        let bad = || {
            format!(
                "fill_value {} is not a {} value",
                crate::error::quote(value),
                self.name()
            )
        };
        let number = match value {
            Value::Number(n) => n.as_f64().ok_or_else(bad)?,
            Value::String(s) => match s.as_str() {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                hex => {
                    let digits = hex.strip_prefix("0x").ok_or_else(bad)?;
                    let width = (self.bits() as usize).div_ceil(4);
                    let bits = u16::from_str_radix(digits, 16).ok().filter(|_| {
                        digits.len() <= width.max(2)
                            && digits.bytes().all(|b| b.is_ascii_hexdigit())
                    });
                    return bits
                        .filter(|&b| self.bits() >= 16 || b < (1u16 << self.bits()))
                        .ok_or_else(bad);
                }
            },
            _ => return Err(bad()),
        };
        let code = self.from_f64(number).ok_or_else(bad)?;
        // Infinity asked for, infinity given (not a saturated finite value), and likewise NaN.
        let got = self.to_f32(code) as f64;
        if number.is_infinite() && got != number || number.is_nan() && !got.is_nan() {
            return Err(bad());
        }
        Ok(code)
    }
}

/// Stored values (native order) of `format` (`None`: float16, for complex_float16) as float32,
/// or `None` where memory for them cannot be had.
pub fn widen_floats(format: Option<NarrowFloat>, bytes: &[u8]) -> Option<Vec<f32>> {
    let size = format.map_or(2, NarrowFloat::size);
    let mut out = Vec::new();
    out.try_reserve_exact(bytes.len() / size).ok()?;
    out.extend(bytes.chunks_exact(size).map(|b| match (format, b) {
        (Some(format), [one]) => format.to_f32(*one as u16),
        (Some(format), [lo, hi]) => format.to_f32(u16::from_ne_bytes([*lo, *hi])),
        (_, [lo, hi]) => half::f16::from_ne_bytes([*lo, *hi]).to_f32(),
        _ => f32::NAN,
    }));
    Some(out)
}

/// 2^e as a float32 (exact for every exponent these formats reach).
fn pow2(e: i32) -> f32 {
    (2.0f64).powi(e) as f32
}

/// A signed or unsigned integer of 4 or 2 bits, stored in a byte's low bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NarrowInt {
    pub bits: u8,
    pub signed: bool,
}

impl NarrowInt {
    pub fn from_name(name: &str) -> Option<NarrowInt> {
        let (signed, bits) = match name {
            "int4" => (true, 4),
            "int2" => (true, 2),
            "uint4" => (false, 4),
            "uint2" => (false, 2),
            _ => return None,
        };
        Some(NarrowInt { bits, signed })
    }

    pub fn name(self) -> String {
        format!("{}int{}", if self.signed { "" } else { "u" }, self.bits)
    }

    /// The value of a stored byte (its upper bits ignored).
    pub fn value(self, stored: u8) -> i8 {
        let unused = 8 - self.bits;
        if self.signed {
            ((stored << unused) as i8) >> unused
        } else {
            ((stored << unused) >> unused) as i8
        }
    }

    /// The bits of its byte a value uses.
    pub fn mask(self) -> u8 {
        ((1u16 << self.bits) - 1) as u8
    }

    /// The range of values.
    pub fn range(self) -> (i64, i64) {
        match self.signed {
            true => (-(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1),
            false => (0, (1 << self.bits) - 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn known_values_of_each_format() {
        use NarrowFloat::*;
        // (format, pattern, value): the largest finite values, a subnormal, the specials.
        let cases: &[(NarrowFloat, u16, f32)] = &[
            (BFloat16, 0x3f80, 1.0),
            (BFloat16, 0xc040, -3.0),
            (Float8E4M3FN, 0x7e, 448.0),
            (Float8E4M3FN, 0x01, 1.0 / 512.0),
            (Float8E4M3FN, 0x38, 1.0),
            (Float8E4M3FNUZ, 0x7f, 240.0),
            (Float8E4M3B11FNUZ, 0x7f, 30.0),
            (Float8E5M2, 0x7b, 57344.0),
            (Float8E5M2, 0x7c, f32::INFINITY),
            (Float8E5M2FNUZ, 0x7f, 57344.0),
            (Float8E4M3, 0x77, 240.0),
            (Float8E4M3, 0x78, f32::INFINITY),
            (Float8E3M4, 0x6f, 15.5),
            (Float8E8M0FNU, 127, 1.0),
            (Float8E8M0FNU, 0, pow2(-127)),
            (Float6E2M3FN, 0x1f, 7.5),
            (Float6E3M2FN, 0x1f, 28.0),
            (Float4E2M1FN, 0x7, 6.0),
            (Float4E2M1FN, 0xf, -6.0),
            (Float4E2M1FN, 0x1, 0.5),
            // Upper bits beyond the format are ignored.
            (Float4E2M1FN, 0xf2, 1.0),
        ];
        for &(format, pattern, value) in cases {
            assert_eq!(format.to_f32(pattern), value, "{format:?} {pattern:#x}");
        }
        for (format, nan) in [
            (Float8E4M3FN, 0x7f),
            (Float8E4M3FNUZ, 0x80),
            (Float8E5M2, 0x7e),
            (Float8E5M2FNUZ, 0x80),
            (Float8E8M0FNU, 0xff),
        ] {
            assert!(format.to_f32(nan).is_nan(), "{format:?}");
        }
        assert_eq!(Float8E4M3FN.to_f32(0x80), -0.0);
        assert!(Float8E4M3FN.to_f32(0x80).is_sign_negative());
    }

    #[test]
    fn every_pattern_round_trips_through_its_value() {
        for (format, _) in ALL {
            if format == NarrowFloat::BFloat16 {
                continue;
            }
            for code in 0..(1u16 << format.bits()) {
                let v = format.to_f32(code);
                if v.is_nan() {
                    continue;
                }
                assert_eq!(
                    format.from_f64(v as f64),
                    Some(code),
                    "{format:?} {code:#x}"
                );
            }
        }
    }

    #[test]
    fn fill_values_in_every_json_form() {
        let fill = |f: NarrowFloat, v| f.fill_from_json(&v);
        assert_eq!(fill(NarrowFloat::Float8E4M3FN, json!(1.0)), Ok(0x38));
        assert_eq!(fill(NarrowFloat::Float8E4M3FN, json!("0x7e")), Ok(0x7e));
        assert_eq!(fill(NarrowFloat::Float8E4M3FN, json!("NaN")), Ok(0x7f));
        assert!(fill(NarrowFloat::Float8E4M3FN, json!("Infinity")).is_err());
        assert_eq!(fill(NarrowFloat::Float8E5M2, json!("-Infinity")), Ok(0xfc));
        assert!(fill(NarrowFloat::Float4E2M1FN, json!("NaN")).is_err());
        assert!(fill(NarrowFloat::Float4E2M1FN, json!("0x1f")).is_err());
        assert_eq!(fill(NarrowFloat::Float4E2M1FN, json!(-0.5)), Ok(0x9));
        assert_eq!(fill(NarrowFloat::BFloat16, json!(1.0)), Ok(0x3f80));
        assert_eq!(fill(NarrowFloat::BFloat16, json!("0x7fc1")), Ok(0x7fc1));
        assert!(fill(NarrowFloat::Float8E4M3FN, json!(1e9)).is_err());
        assert!(fill(NarrowFloat::Float8E4M3FN, json!("x")).is_err());
    }

    #[test]
    fn narrow_integers_sign_extend_their_low_bits() {
        let int4 = NarrowInt::from_name("int4").unwrap();
        assert_eq!(int4.value(0x0f), -1);
        assert_eq!(int4.value(0xf7), 7);
        assert_eq!(int4.range(), (-8, 7));
        let uint2 = NarrowInt::from_name("uint2").unwrap();
        assert_eq!(uint2.value(0xff), 3);
        assert_eq!(uint2.name(), "uint2");
        assert_eq!(NarrowInt::from_name("int2").unwrap().value(2), -2);
    }
}
