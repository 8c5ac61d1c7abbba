//! The registry's `bitround` (numcodecs' `BitRound` filter, whose v3 name `numcodecs.bitround`
//! the registry keeps as an alias): float mantissas, or integers from their highest set bit,
//! rounded to fewer bits when written. The stored values are ordinary numbers of the array's
//! type, so decoding changes nothing.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::{Bounded, Configuration};
use crate::data_type::DataType;
use crate::error::CodecError;

/// `bitround`, and numcodecs' name for it.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["bitround", "numcodecs.bitround"],
    kind: Kind::ArrayToArray,
    build: |config, cx| {
        Ok(Codec::array_to_array(BitRoundCodec::from_configuration(
            config,
            cx.data_type,
        )?))
    },
}];

pub struct BitRoundCodec;

impl BitRoundCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<BitRoundCodec, String> {
        // The registry's types: numbers of every width, and the time types (int64 inside).
        let numeric = data_type.is_real() && data_type != DataType::Bool
            || matches!(
                data_type,
                DataType::Complex64
                    | DataType::Complex128
                    | DataType::Narrow(_)
                    | DataType::NarrowComplex(_)
                    | DataType::NarrowInt(_)
                    | DataType::DateTime64(_)
                    | DataType::TimeDelta64(_)
            );
        if !numeric {
            return Err(format!("applies to numbers, not {data_type}"));
        }
        // The bits kept when written: the values read are what they are.
        config.required::<Bounded<1, { i64::MAX }>>("keepbits")?;
        Ok(BitRoundCodec)
    }
}

impl ArrayToArrayCodec for BitRoundCodec {
    fn name(&self) -> &'static str {
        "bitround"
    }

    /// Element by element.
    fn box_order(&self, ndim: usize) -> Option<Vec<usize>> {
        Some((0..ndim).collect())
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        decoded.clone()
    }

    fn decode(&self, encoded: Vec<u8>, _decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        Ok(encoded)
    }
}
