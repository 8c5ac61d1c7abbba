//! Data types of array elements. Decoded chunks hold elements in the machine's native byte order
//! (little endian on wasm32), so a data type says its size, the unit that byte order applies to,
//! and how to read a fill value. Structured elements are the exception: their fields may each
//! have their own byte order, so they stay as stored and are converted field by field (see
//! `structured`).

pub mod base64;
pub mod fill_value;
pub mod fixed_string;
pub mod narrow;
pub mod structured;
pub mod v3_names;
pub mod variable;

use narrow::{NarrowFloat, NarrowInt};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    Float32,
    Float64,
    /// Two float32: real, then imaginary.
    Complex64,
    /// Two float64: real, then imaginary.
    Complex128,
    /// bfloat16 and the 8-, 6- and 4-bit floats (see `narrow`): widened to float32 for users.
    Narrow(NarrowFloat),
    /// Two of a narrow float (or of float16, `Narrow` being `None`): real, then imaginary.
    NarrowComplex(Option<NarrowFloat>),
    /// 4- and 2-bit integers, one per byte: widened to int8 / uint8 for users.
    NarrowInt(NarrowInt),
    /// `r<bits>`: opaque bytes, `bits / 8` per element.
    Raw {
        bytes: usize,
    },
    /// Variable-length UTF-8 strings (`string`, codec `vlen-utf8`).
    String,
    /// Variable-length byte strings (`variable_length_bytes`, codec `vlen-bytes`).
    Bytes,
    /// Python objects of a Zarr v2 object array encoded by numcodecs' `json2`: each element held
    /// as its JSON text (numbers, strings, lists, objects, null), given to users as JS values.
    Object,
    /// NumPy's `datetime64[unit]` (Zarr v2 `M8[unit]`): a signed 64-bit count of units since
    /// 1970-01-01, with `i64::MIN` meaning NaT.
    DateTime64(TimeUnit),
    /// NumPy's `timedelta64[unit]` (Zarr v2 `m8[unit]`): a signed 64-bit count of units.
    TimeDelta64(TimeUnit),
    /// NumPy's `S<len>` (Zarr v2): byte strings of `len` bytes, shorter ones padded with NULs.
    FixedBytes {
        len: usize,
    },
    /// NumPy's `U<chars>` (Zarr v2): `chars` UTF-32 code units, shorter strings padded with NULs.
    FixedUnicode {
        chars: usize,
    },
    /// A NumPy structured (record) type of `size` bytes; its fields are described beside the
    /// array's data type (`structured::Field`).
    Structured {
        size: usize,
    },
}

/// A byte order of stored multi-byte values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    pub const NATIVE: Endian = if cfg!(target_endian = "little") {
        Endian::Little
    } else {
        Endian::Big
    };
}

/// NumPy's datetime units, from years to attoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeBase {
    Years,
    Months,
    Weeks,
    Days,
    Hours,
    Minutes,
    Seconds,
    Milliseconds,
    Microseconds,
    Nanoseconds,
    Picoseconds,
    Femtoseconds,
    Attoseconds,
    /// `generic`: no unit (only NaT and plain counts are meaningful).
    Generic,
}

/// The unit of a datetime or timedelta: `count` times a base unit (`10s`, `ns`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeUnit {
    pub base: TimeBase,
    pub count: u32,
}

const TIME_BASES: [(TimeBase, &str); 14] = [
    (TimeBase::Years, "Y"),
    (TimeBase::Months, "M"),
    (TimeBase::Weeks, "W"),
    (TimeBase::Days, "D"),
    (TimeBase::Hours, "h"),
    (TimeBase::Minutes, "m"),
    (TimeBase::Seconds, "s"),
    (TimeBase::Milliseconds, "ms"),
    (TimeBase::Microseconds, "us"),
    (TimeBase::Nanoseconds, "ns"),
    (TimeBase::Picoseconds, "ps"),
    (TimeBase::Femtoseconds, "fs"),
    (TimeBase::Attoseconds, "as"),
    (TimeBase::Generic, "generic"),
];

impl TimeUnit {
    /// Parses NumPy's unit text: an optional positive multiplier and a base (`10ms`, `D`, `us`).
    pub fn parse(text: &str) -> Option<TimeUnit> {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        let (count, base) = text.split_at(digits);
        let count = match count {
            "" => 1,
            c if c.starts_with('0') => return None,
            c => c.parse().ok()?,
        };
        // NumPy also spells microseconds with the micro sign.
        let base = if base == "\u{3bc}s" { "us" } else { base };
        let (base, _) = TIME_BASES.iter().find(|(_, name)| *name == base)?;
        Some(TimeUnit { base: *base, count })
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = TIME_BASES
            .iter()
            .find(|(b, _)| *b == self.base)
            .map_or("?", |(_, n)| n);
        if self.count == 1 {
            f.write_str(name)
        } else {
            write!(f, "{}{name}", self.count)
        }
    }
}

/// Bytes of one variable-length element in decoded chunks and results: a native-order u64 index
/// into the items that come with them (see `array::Items`).
pub const VARIABLE_HANDLE_SIZE: usize = 8;

/// The largest element this reader takes (raw, fixed-string and structured types): metadata
/// declares the size, and far larger elements are hostile (a fill value alone is one element).
pub const MAX_ELEMENT_SIZE: usize = 1 << 24;

impl DataType {
    /// The Zarr v3 name (`data_type` in `zarr.json`).
    pub fn from_v3_name(name: &str) -> Option<DataType> {
        Some(match name {
            "bool" => DataType::Bool,
            "int8" => DataType::Int8,
            "int16" => DataType::Int16,
            "int32" => DataType::Int32,
            "int64" => DataType::Int64,
            "uint8" => DataType::UInt8,
            "uint16" => DataType::UInt16,
            "uint32" => DataType::UInt32,
            "uint64" => DataType::UInt64,
            "float16" => DataType::Float16,
            "float32" => DataType::Float32,
            "float64" => DataType::Float64,
            "complex64" => DataType::Complex64,
            "complex128" => DataType::Complex128,
            "string" => DataType::String,
            "variable_length_bytes" => DataType::Bytes,
            // The registry's aliases of the core complex types.
            "complex_float32" => DataType::Complex64,
            "complex_float64" => DataType::Complex128,
            "complex_float16" => DataType::NarrowComplex(None),
            _ if name.starts_with("complex_") => {
                DataType::NarrowComplex(Some(NarrowFloat::from_name(&name[8..])?))
            }
            _ if NarrowFloat::from_name(name).is_some() => {
                DataType::Narrow(NarrowFloat::from_name(name)?)
            }
            _ if NarrowInt::from_name(name).is_some() => {
                DataType::NarrowInt(NarrowInt::from_name(name)?)
            }
            _ => {
                // r8, r16, ...: a positive multiple of 8 bits, written without sign or leading zeros.
                let digits = name.strip_prefix('r')?;
                if digits.is_empty()
                    || digits.starts_with('0')
                    || !digits.bytes().all(|b| b.is_ascii_digit())
                {
                    return None;
                }
                let bits: usize = digits.parse().ok()?;
                if !bits.is_multiple_of(8) || bits / 8 > MAX_ELEMENT_SIZE {
                    return None;
                }
                DataType::Raw { bytes: bits / 8 }
            }
        })
    }

    /// The name users see: the v3 name for v3 types, and for types that only Zarr v2 has, NumPy's
    /// (`datetime64[ms]`, `timedelta64[10s]`, `S5`, `U5`, `structured`).
    pub fn name(self) -> String {
        let fixed = match self {
            DataType::Bool => "bool",
            DataType::Int8 => "int8",
            DataType::Int16 => "int16",
            DataType::Int32 => "int32",
            DataType::Int64 => "int64",
            DataType::UInt8 => "uint8",
            DataType::UInt16 => "uint16",
            DataType::UInt32 => "uint32",
            DataType::UInt64 => "uint64",
            DataType::Float16 => "float16",
            DataType::Float32 => "float32",
            DataType::Float64 => "float64",
            DataType::Complex64 => "complex64",
            DataType::Complex128 => "complex128",
            DataType::String => "string",
            DataType::Bytes => "variable_length_bytes",
            DataType::Object => "object",
            DataType::Structured { .. } => "structured",
            DataType::Narrow(format) => format.name(),
            DataType::NarrowComplex(None) => "complex_float16",
            DataType::NarrowComplex(Some(format)) => return format!("complex_{}", format.name()),
            DataType::NarrowInt(int) => return int.name(),
            DataType::Raw { bytes } => return format!("r{}", bytes * 8),
            DataType::DateTime64(unit) => return format!("datetime64[{unit}]"),
            DataType::TimeDelta64(unit) => return format!("timedelta64[{unit}]"),
            DataType::FixedBytes { len } => return format!("S{len}"),
            DataType::FixedUnicode { chars } => return format!("U{chars}"),
        };
        fixed.to_string()
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DataType::Bool | DataType::Int8 | DataType::UInt8 => 1,
            DataType::Int16 | DataType::UInt16 | DataType::Float16 => 2,
            DataType::Int32 | DataType::UInt32 | DataType::Float32 => 4,
            DataType::Int64
            | DataType::UInt64
            | DataType::Float64
            | DataType::Complex64
            | DataType::DateTime64(_)
            | DataType::TimeDelta64(_) => 8,
            DataType::Complex128 => 16,
            DataType::Narrow(format) => format.size(),
            DataType::NarrowComplex(format) => 2 * format.map_or(2, NarrowFloat::size),
            DataType::NarrowInt(_) => 1,
            DataType::Raw { bytes } => bytes,
            DataType::FixedBytes { len } => len,
            DataType::FixedUnicode { chars } => chars * 4,
            DataType::Structured { size } => size,
            // In memory an element of a variable-length type is a handle: the index of its item.
            DataType::String | DataType::Bytes | DataType::Object => VARIABLE_HANDLE_SIZE,
        }
    }

    /// Whether elements are real numbers (booleans, integers, floats): what numcodecs' value
    /// filters convert between.
    pub fn is_real(self) -> bool {
        self.is_integer()
            || matches!(
                self,
                DataType::Bool | DataType::Float16 | DataType::Float32 | DataType::Float64
            )
    }

    /// Whether elements are the core spec's integers (8 to 64 bits, signed or not).
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
                | DataType::UInt8
                | DataType::UInt16
                | DataType::UInt32
                | DataType::UInt64
        )
    }

    /// Whether elements have no fixed size (strings, byte strings).
    pub fn is_variable(self) -> bool {
        matches!(self, DataType::String | DataType::Bytes | DataType::Object)
    }

    /// The unit that byte order applies to (a complex number's components are swapped one by one),
    /// or `None` where byte order does not apply (single bytes, raw bytes).
    pub fn byte_order_unit(self) -> Option<usize> {
        match self {
            DataType::Bool
            | DataType::Int8
            | DataType::UInt8
            | DataType::Raw { .. }
            | DataType::String
            | DataType::Bytes
            | DataType::FixedBytes { .. }
            | DataType::NarrowInt(_) => None,
            DataType::Narrow(format) => Some(format.size()).filter(|&n| n > 1),
            // Each field has its own byte order (see `structured`).
            DataType::Structured { .. } => None,
            DataType::Complex64 => Some(4),
            DataType::Complex128 => Some(8),
            DataType::NarrowComplex(_) => Some(self.size() / 2).filter(|&n| n > 1),
            DataType::FixedUnicode { .. } => Some(4),
            other => Some(other.size()),
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_type_names() {
        assert_eq!(
            DataType::from_v3_name("r24"),
            Some(DataType::Raw { bytes: 3 })
        );
        for bad in ["r", "r0", "r12", "r08", "r-8", "rx"] {
            assert_eq!(DataType::from_v3_name(bad), None, "{bad}");
        }
        assert_eq!(DataType::Raw { bytes: 2 }.name(), "r16");
        assert_eq!(DataType::Complex64.byte_order_unit(), Some(4));
    }

    #[test]
    fn narrow_type_names_round_trip() {
        for name in [
            "bfloat16",
            "float8_e4m3fn",
            "float8_e8m0fnu",
            "float4_e2m1fn",
            "int4",
            "uint2",
            "complex_bfloat16",
            "complex_float16",
            "complex_float6_e3m2fn",
        ] {
            let t = DataType::from_v3_name(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(t.name(), name);
        }
        assert_eq!(
            DataType::from_v3_name("complex_float32"),
            Some(DataType::Complex64)
        );
        assert_eq!(
            DataType::from_v3_name("complex_float64"),
            Some(DataType::Complex128)
        );
        for bad in ["float8", "int3", "complex_int4", "complex_", "bfloat"] {
            assert_eq!(DataType::from_v3_name(bad), None, "{bad}");
        }
        let bf16 = DataType::from_v3_name("bfloat16").unwrap();
        assert_eq!((bf16.size(), bf16.byte_order_unit()), (2, Some(2)));
        let c8 = DataType::from_v3_name("complex_float8_e5m2").unwrap();
        assert_eq!((c8.size(), c8.byte_order_unit()), (2, None));
        let cbf16 = DataType::from_v3_name("complex_bfloat16").unwrap();
        assert_eq!((cbf16.size(), cbf16.byte_order_unit()), (4, Some(2)));
    }

    #[test]
    fn time_units() {
        let unit = TimeUnit::parse("10ms").unwrap();
        assert_eq!((unit.base, unit.count), (TimeBase::Milliseconds, 10));
        assert_eq!(DataType::DateTime64(unit).name(), "datetime64[10ms]");
        assert_eq!(TimeUnit::parse("D").unwrap().to_string(), "D");
        assert_eq!(TimeUnit::parse("\u{3bc}s").unwrap().to_string(), "us");
        for bad in ["", "0s", "01s", "10", "sec", "-1s"] {
            assert_eq!(TimeUnit::parse(bad), None, "{bad}");
        }
        assert_eq!(DataType::FixedUnicode { chars: 3 }.size(), 12);
    }
}
