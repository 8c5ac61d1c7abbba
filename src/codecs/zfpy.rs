//! numcodecs' `ZFPY` (v3 `numcodecs.zfpy`, an array-to-bytes codec): ZFP streams with zfpy's
//! full header, for 32/64-bit integers and floats in up to four dimensions. Decoded in the second
//! module (`extra.rs`) into exactly the chunk's element count, in steps.

use super::codec::{ArrayToBytesCodec, ChunkRepr, Codec, CodecEntry, Kind, StepDecoder};
use super::configuration::Configuration;
use super::extra;
use crate::data_type::DataType;
use crate::error::CodecError;

/// numcodecs' `zfpy`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.zfpy"],
    kind: Kind::ArrayToBytes,
    build: |config, cx| {
        Ok(Codec::array_to_bytes(ZfpyCodec::from_configuration(
            config,
            cx.data_type,
            cx.ndim,
        )?))
    },
}];

pub struct ZfpyCodec {
    /// The number type as the second module names it (`extra-codecs`' `zfp::Number`, from 1).
    number: u32,
}

impl ZfpyCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
        ndim: usize,
    ) -> Result<ZfpyCodec, String> {
        // mode, tolerance, rate, precision: how it was written; the stream's header says it.
        let _ = config;
        let number = match data_type {
            DataType::Int32 => 1,
            DataType::Int64 => 2,
            DataType::Float32 => 3,
            DataType::Float64 => 4,
            _ => {
                return Err(format!(
                    "ZFP stores 32/64-bit integers and floats, not {data_type}"
                ))
            }
        };
        if !(1..=4).contains(&ndim) {
            return Err(format!(
                "ZFP stores arrays of 1 to 4 dimensions, not {ndim}"
            ));
        }
        Ok(ZfpyCodec { number })
    }
}

impl ArrayToBytesCodec for ZfpyCodec {
    fn name(&self) -> &'static str {
        "numcodecs.zfpy"
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
