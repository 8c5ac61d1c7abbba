//! Element-wise numeric conversion between real data types with NumPy's `astype` rules (wrapping
//! between integers, truncation toward zero from floats), and parsing of the NumPy dtype strings
//! that numcodecs filters carry in their configuration. Shared by the numcodecs filters.

use super::codec::ChunkRepr;
use crate::data_type::fill_value::FillValue;
use crate::data_type::DataType;
use half::f16;

/// One element's value, wide enough for every real type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    I(i64),
    U(u64),
    F(f64),
}

impl Num {
    pub fn as_f64(self) -> f64 {
        match self {
            Num::I(v) => v as f64,
            Num::U(v) => v as f64,
            Num::F(v) => v,
        }
    }
}

impl Num {
    /// An exact integer; floats truncated towards zero (saturating).
    pub fn to_i128(self) -> i128 {
        match self {
            Num::I(v) => v.into(),
            Num::U(v) => v.into(),
            Num::F(v) => v as i128,
        }
    }

    /// An integer of some type's range (at most 64 bits, signed or not) as a `Num`.
    pub fn from_i128(v: i128) -> Num {
        match i64::try_from(v) {
            Ok(v) => Num::I(v),
            Err(_) => Num::U(v as u64),
        }
    }
}

/// The value as errors write it.
impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::I(v) => v.fmt(f),
            Num::U(v) => v.fmt(f),
            Num::F(v) => v.fmt(f),
        }
    }
}

/// The range of an integer type (the core's and the narrow ones), `None` for other types.
pub fn integer_range(dt: DataType) -> Option<(i128, i128)> {
    if let DataType::NarrowInt(int) = dt {
        let (min, max) = int.range();
        return Some((min.into(), max.into()));
    }
    let bits = 8 * dt.size() as u32;
    match dt {
        DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
        }
        DataType::UInt8 | DataType::UInt16 | DataType::UInt32 | DataType::UInt64 => {
            Some((0, (1i128 << bits) - 1))
        }
        _ => None,
    }
}

/// Reads element `i` (native byte order) of a buffer of `dt`.
pub fn read(dt: DataType, bytes: &[u8], i: usize) -> Num {
    let at = |n: usize| &bytes[i * n..(i + 1) * n];
    match dt {
        DataType::Bool => Num::U((at(1)[0] != 0) as u64),
        DataType::Int8 => Num::I(at(1)[0] as i8 as i64),
        DataType::UInt8 => Num::U(at(1)[0] as u64),
        DataType::Int16 => Num::I(i16::from_ne_bytes(at(2).try_into().unwrap_or_default()) as i64),
        DataType::UInt16 => Num::U(u16::from_ne_bytes(at(2).try_into().unwrap_or_default()) as u64),
        DataType::Int32 => Num::I(i32::from_ne_bytes(at(4).try_into().unwrap_or_default()) as i64),
        DataType::UInt32 => Num::U(u32::from_ne_bytes(at(4).try_into().unwrap_or_default()) as u64),
        DataType::Int64 => Num::I(i64::from_ne_bytes(at(8).try_into().unwrap_or_default())),
        DataType::UInt64 => Num::U(u64::from_ne_bytes(at(8).try_into().unwrap_or_default())),
        DataType::Float16 => {
            Num::F(f16::from_ne_bytes(at(2).try_into().unwrap_or_default()).to_f64())
        }
        DataType::Float32 => {
            Num::F(f32::from_ne_bytes(at(4).try_into().unwrap_or_default()) as f64)
        }
        DataType::Float64 => Num::F(f64::from_ne_bytes(at(8).try_into().unwrap_or_default())),
        DataType::Complex64
        | DataType::Complex128
        | DataType::Narrow(_)
        | DataType::NarrowComplex(_)
        | DataType::NarrowInt(_)
        | DataType::Raw { .. }
        | DataType::String
        | DataType::Object
        | DataType::Bytes
        | DataType::DateTime64(_)
        | DataType::TimeDelta64(_)
        | DataType::FixedBytes { .. }
        | DataType::FixedUnicode { .. }
        | DataType::Structured { .. } => Num::U(0),
    }
}

/// Writes `v` as element `i` of a buffer of `dt`, converting as NumPy's `astype` does.
pub fn write(dt: DataType, out: &mut [u8], i: usize, v: Num) {
    let as_i64 = |v: Num| match v {
        Num::I(x) => x,
        Num::U(x) => x as i64,
        // Truncation toward zero; Rust saturates where C (and so NumPy) is undefined.
        Num::F(x) => x as i64,
    };
    let as_u64 = |v: Num| match v {
        Num::I(x) => x as u64,
        Num::U(x) => x,
        Num::F(x) if x < 0.0 => (x as i64) as u64,
        Num::F(x) => x as u64,
    };
    let mut put = |n: usize, bytes: &[u8]| out[i * n..(i + 1) * n].copy_from_slice(bytes);
    match dt {
        DataType::Bool => put(1, &[(v.as_f64() != 0.0) as u8]),
        DataType::Int8 => put(1, &(as_i64(v) as i8).to_ne_bytes()),
        DataType::UInt8 => put(1, &(as_u64(v) as u8).to_ne_bytes()),
        DataType::Int16 => put(2, &(as_i64(v) as i16).to_ne_bytes()),
        DataType::UInt16 => put(2, &(as_u64(v) as u16).to_ne_bytes()),
        DataType::Int32 => put(4, &(as_i64(v) as i32).to_ne_bytes()),
        DataType::UInt32 => put(4, &(as_u64(v) as u32).to_ne_bytes()),
        DataType::Int64 => put(8, &as_i64(v).to_ne_bytes()),
        DataType::UInt64 => put(8, &as_u64(v).to_ne_bytes()),
        DataType::Float16 => put(2, &f16::from_f64(v.as_f64()).to_ne_bytes()),
        DataType::Float32 => put(4, &(v.as_f64() as f32).to_ne_bytes()),
        DataType::Float64 => put(8, &v.as_f64().to_ne_bytes()),
        DataType::Complex64
        | DataType::Complex128
        | DataType::Narrow(_)
        | DataType::NarrowComplex(_)
        | DataType::NarrowInt(_)
        | DataType::Raw { .. }
        | DataType::String
        | DataType::Object
        | DataType::Bytes
        | DataType::DateTime64(_)
        | DataType::TimeDelta64(_)
        | DataType::FixedBytes { .. }
        | DataType::FixedUnicode { .. }
        | DataType::Structured { .. } => {}
    }
}

/// Converts a whole buffer of `from` elements to `to` elements.
pub fn convert(from: DataType, to: DataType, bytes: &[u8], out: &mut [u8]) {
    if from == to {
        out.copy_from_slice(bytes);
        return;
    }
    let n = bytes.len() / from.size();
    for i in 0..n {
        write(to, out, i, read(from, bytes, i));
    }
}

/// The fill value of `decoded` elements carried to `encoded` ones by `f` (a filter's encoding of
/// one value); zeros where the fill value is not one `decoded` element.
pub fn carry_fill(
    fill: &FillValue,
    decoded: DataType,
    encoded: DataType,
    f: impl Fn(Num) -> Num,
) -> FillValue {
    let mut bytes = vec![0; encoded.size()];
    if fill.as_bytes().len() == decoded.size() {
        write(encoded, &mut bytes, 0, f(read(decoded, fill.as_bytes(), 0)));
    }
    FillValue::from_native_bytes(bytes)
}

/// The decoded size of a chunk of `decoded` whose elements arrive as `encoded_len` bytes of
/// `stored` elements; an error when the two do not describe the same number of elements.
pub fn converted_size(
    encoded_len: usize,
    stored: DataType,
    decoded: &ChunkRepr,
) -> Result<usize, String> {
    let n = encoded_len / stored.size();
    decoded
        .num_bytes()
        .filter(|&s| s == n * decoded.data_type.size() && encoded_len.is_multiple_of(stored.size()))
        .ok_or_else(|| {
            format!(
                "input has {encoded_len} bytes, not {:?} elements of {stored}",
                decoded.shape
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_numpy_astype() {
        let mut out = [0u8; 2];
        write(DataType::Int16, &mut out, 0, Num::F(-3.9));
        assert_eq!(i16::from_ne_bytes(out), -3);
        write(DataType::UInt8, &mut out[..1], 0, Num::I(300));
        assert_eq!(out[0], 44);
        write(DataType::Int8, &mut out[..1], 0, Num::U(255));
        assert_eq!(out[0] as i8, -1);
        let f = 1.5f32.to_ne_bytes();
        assert_eq!(read(DataType::Float32, &f, 0), Num::F(1.5));
    }
}
