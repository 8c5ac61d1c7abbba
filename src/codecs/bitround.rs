//! numcodecs' `BitRound` filter (v3 name `numcodecs.bitround`): float mantissas rounded to fewer
//! bits when written. The stored values are ordinary floats, so decoding changes nothing.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use crate::data_type::DataType;
use crate::error::CodecError;
use super::configuration::Configuration;

/// numcodecs' `bitround`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.bitround"],
    kind: Kind::ArrayToArray,
    build: |config, cx| Ok(Codec::array_to_array(BitRoundCodec::from_configuration(config, cx.data_type)?)),
}];

pub struct BitRoundCodec;

impl BitRoundCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<BitRoundCodec, String> {
        if !matches!(
            data_type,
            DataType::Float16 | DataType::Float32 | DataType::Float64
        ) {
            return Err(format!("applies to float data, not {data_type}"));
        }
        // The mantissa bits kept when written: the values read are what they are.
        config.required::<u64>("keepbits")?;
        Ok(BitRoundCodec)
    }
}

impl ArrayToArrayCodec for BitRoundCodec {
    fn name(&self) -> &'static str {
        "numcodecs.bitround"
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
