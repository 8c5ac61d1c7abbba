//! numcodecs' `PCodec` (v3 `numcodecs.pcodec`, an array-to-bytes codec): numbers compressed by
//! pcodec. Decoded in the second module (`extra.rs`) into exactly the chunk's element count, in
//! steps.

use super::codec::{ArrayToBytesCodec, ChunkRepr, Codec, CodecEntry, Kind, StepDecoder};
use super::configuration::Configuration;
use super::extra;
use crate::data_type::DataType;
use crate::error::CodecError;

/// numcodecs' `pcodec`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.pcodec"],
    kind: Kind::ArrayToBytes,
    build: |config, cx| {
        Ok(Codec::array_to_bytes(PcodecCodec::from_configuration(
            config,
            cx.data_type,
        )?))
    },
}];

pub struct PcodecCodec {
    /// The number type as the second module names it (`extra-codecs`' `pcodec::Number::code`).
    number: u32,
}

impl PcodecCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<PcodecCodec, String> {
        // level, mode_spec, delta_spec, paging_spec...: how it was written; the stream says it.
        let _ = config;
        let number = match data_type {
            DataType::UInt8 => 1,
            DataType::Int8 => 2,
            DataType::UInt16 => 3,
            DataType::Int16 => 4,
            DataType::UInt32 => 5,
            DataType::Int32 => 6,
            DataType::UInt64 => 7,
            DataType::Int64 => 8,
            DataType::Float16 => 9,
            DataType::Float32 => 10,
            DataType::Float64 => 11,
            _ => {
                return Err(format!(
                    "pcodec stores integers and floats, not {data_type}"
                ))
            }
        };
        Ok(PcodecCodec { number })
    }
}

impl ArrayToBytesCodec for PcodecCodec {
    fn name(&self) -> &'static str {
        "numcodecs.pcodec"
    }

    fn encoded_size(&self, _repr: &ChunkRepr) -> Option<usize> {
        None
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        extra::decode_numbers(self.name(), &[f64::from(self.number)], &encoded, repr)
    }

    fn stepwise(
        &self,
        encoded: Vec<u8>,
        repr: &ChunkRepr,
    ) -> Result<Box<dyn StepDecoder + '_>, Vec<u8>> {
        extra::numbers_stepwise(self.name(), vec![f64::from(self.number)], encoded, repr)
    }
}
