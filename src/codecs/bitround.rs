//! numcodecs' `BitRound` filter (v3 name `numcodecs.bitround`): float mantissas rounded to fewer
//! bits when written. The stored values are ordinary floats, so decoding changes nothing.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use crate::data_type::DataType;
use crate::error::CodecError;
use serde_json::{Map, Value};

/// numcodecs' `bitround`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.bitround"],
    kind: Kind::ArrayToArray,
    build: |config, cx| Ok(Codec::array_to_array(BitRoundCodec::from_configuration(config, cx.data_type)?)),
}];

pub struct BitRoundCodec;

impl BitRoundCodec {
    pub fn from_configuration(
        config: &Map<String, Value>,
        data_type: DataType,
    ) -> Result<BitRoundCodec, String> {
        if !matches!(
            data_type,
            DataType::Float16 | DataType::Float32 | DataType::Float64
        ) {
            return Err(format!("applies to float data, not {data_type}"));
        }
        match config.get("keepbits") {
            Some(v) if v.as_u64().is_some() => Ok(BitRoundCodec),
            Some(v) => Err(format!(
                "\"keepbits\" must be a non-negative integer, not {v}"
            )),
            None => Err("\"keepbits\" is required".into()),
        }
    }
}

impl ArrayToArrayCodec for BitRoundCodec {
    fn name(&self) -> &'static str {
        "numcodecs.bitround"
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        decoded.clone()
    }

    fn decode(&self, encoded: Vec<u8>, _decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        Ok(encoded)
    }
}
