//! numcodecs' `Delta` filter (v3 name `numcodecs.delta`): stores differences between consecutive
//! elements (of the flattened chunk), optionally in a different type (`astype`). Decoding is a
//! running sum in the array's type: wrapping for integers, as NumPy's `cumsum` does.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::{Configuration, NumpyDtype};
use super::numeric;
use crate::collections::buffer::try_zeroed;
use crate::data_type::DataType;
use crate::error::CodecError;

/// numcodecs' `delta`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.delta"],
    kind: Kind::ArrayToArray,
    build: |config, cx| {
        Ok(Codec::array_to_array(DeltaCodec::from_configuration(
            config,
            cx.data_type,
        )?))
    },
}];

pub struct DeltaCodec {
    /// The type the differences are stored in.
    stored: Option<DataType>,
}

impl DeltaCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<DeltaCodec, String> {
        if !data_type.is_real() {
            return Err(format!("cannot apply to {data_type} data"));
        }
        match config.optional::<NumpyDtype>("dtype")? {
            Some(NumpyDtype(dt)) if dt != data_type => {
                return Err(format!(
                    "\"dtype\" {dt} is not the array's type {data_type}"
                ))
            }
            _ => {}
        }
        let stored = config
            .optional::<NumpyDtype>("astype")?
            .map(|NumpyDtype(dt)| dt);
        Ok(DeltaCodec { stored })
    }
}

impl ArrayToArrayCodec for DeltaCodec {
    fn name(&self) -> &'static str {
        "numcodecs.delta"
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        ChunkRepr {
            shape: decoded.shape.clone(),
            data_type: self.stored.unwrap_or(decoded.data_type),
        }
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    /// Each element less the one before it (the first kept), in the array's type (wrapping for
    /// integers, as NumPy's `diff`), then converted to the stored type.
    #[cfg(feature = "write")]
    fn encode(&self, mut chunk: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.delta", e);
        let dt = decoded.data_type;
        differences(dt, &mut chunk).map_err(err)?;
        let stored = self.stored.unwrap_or(dt);
        if stored == dt {
            return Ok(chunk);
        }
        let size =
            numeric::converted_size(chunk.len(), dt, &self.encoded_repr(decoded)).map_err(err)?;
        let mut converted = try_zeroed(size).map_err(err)?;
        numeric::convert(dt, stored, &chunk, &mut converted);
        Ok(converted)
    }

    fn decode(&self, encoded: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.delta", e);
        let dt = decoded.data_type;
        let stored = self.stored.unwrap_or(dt);
        let size = numeric::converted_size(encoded.len(), stored, decoded).map_err(err)?;
        let mut out = if stored == dt {
            encoded
        } else {
            let mut converted = try_zeroed(size).map_err(err)?;
            numeric::convert(stored, dt, &encoded, &mut converted);
            converted
        };
        running_sum(dt, &mut out);
        Ok(out)
    }
}

/// Replaces each element with the sum of it and all before it, in the type's own arithmetic.
/// The inverse of `running_sum`: each element less the one before it, from the last to the first.
#[cfg(feature = "write")]
fn differences(dt: DataType, data: &mut [u8]) -> Result<(), String> {
    macro_rules! diffs {
        ($t:ty, $sub:expr) => {{
            let size = std::mem::size_of::<$t>();
            let value = |e: &[u8]| <$t>::from_ne_bytes(e.try_into().unwrap_or_default());
            let mut previous: Option<$t> = None;
            for e in data.chunks_exact_mut(size) {
                let v = value(e);
                if let Some(p) = previous {
                    e.copy_from_slice(&$sub(v, p).to_ne_bytes());
                }
                previous = Some(v);
            }
        }};
    }
    match dt {
        DataType::Int8 => diffs!(i8, i8::wrapping_sub),
        DataType::UInt8 => diffs!(u8, u8::wrapping_sub),
        DataType::Int16 => diffs!(i16, i16::wrapping_sub),
        DataType::UInt16 => diffs!(u16, u16::wrapping_sub),
        DataType::Int32 => diffs!(i32, i32::wrapping_sub),
        DataType::UInt32 => diffs!(u32, u32::wrapping_sub),
        DataType::Int64 => diffs!(i64, i64::wrapping_sub),
        DataType::UInt64 => diffs!(u64, u64::wrapping_sub),
        DataType::Float32 => diffs!(f32, |a: f32, b: f32| a - b),
        DataType::Float64 => diffs!(f64, |a: f64, b: f64| a - b),
        // Booleans decode as a running "any", which no difference gives back in general; float16
        // is not written yet.
        other => return Err(format!("{other} data cannot be delta-encoded here")),
    }
    Ok(())
}

fn running_sum(dt: DataType, data: &mut [u8]) {
    macro_rules! ints {
        ($t:ty) => {{
            let mut acc: $t = 0;
            for e in data.chunks_exact_mut(std::mem::size_of::<$t>()) {
                acc = acc.wrapping_add(<$t>::from_ne_bytes(e.try_into().unwrap_or_default()));
                e.copy_from_slice(&acc.to_ne_bytes());
            }
        }};
    }
    macro_rules! floats {
        ($t:ty) => {{
            let mut acc: $t = 0.0;
            for e in data.chunks_exact_mut(std::mem::size_of::<$t>()) {
                acc += <$t>::from_ne_bytes(e.try_into().unwrap_or_default());
                e.copy_from_slice(&acc.to_ne_bytes());
            }
        }};
    }
    match dt {
        DataType::Int8 => ints!(i8),
        DataType::UInt8 => ints!(u8),
        DataType::Int16 => ints!(i16),
        DataType::UInt16 => ints!(u16),
        DataType::Int32 => ints!(i32),
        DataType::UInt32 => ints!(u32),
        DataType::Int64 => ints!(i64),
        DataType::UInt64 => ints!(u64),
        DataType::Float32 => floats!(f32),
        DataType::Float64 => floats!(f64),
        DataType::Bool => {
            // NumPy's cumsum of booleans into a bool output is a running "any".
            let mut any = false;
            for b in data.iter_mut() {
                any |= *b != 0;
                *b = any as u8;
            }
        }
        DataType::Float16 => {
            let mut acc = half::f16::ZERO;
            for e in data.chunks_exact_mut(2) {
                acc += half::f16::from_ne_bytes([e[0], e[1]]);
                e.copy_from_slice(&acc.to_ne_bytes());
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_sums_wrap_like_numpy() {
        let mut data: Vec<u8> = [250u8, 3, 4, 1].to_vec();
        running_sum(DataType::UInt8, &mut data);
        assert_eq!(data, [250, 253, 1, 2]);
        let codec = DeltaCodec {
            stored: Some(DataType::Int8),
        };
        let repr = ChunkRepr {
            shape: vec![3],
            data_type: DataType::Int32,
        };
        let out = codec.decode(vec![100, 100, 0x9c], &repr).unwrap(); // 100, 100, -100
        let sums: Vec<i32> = out
            .chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(sums, [100, 200, 100]);
    }
}
