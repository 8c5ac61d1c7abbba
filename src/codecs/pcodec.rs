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
    /// How chunks are written, as the second module's encoder takes it (`extra-codecs`'
    /// `encode.rs`); None where the configuration asks for what it does not write.
    #[cfg(feature = "write")]
    writing: Option<Vec<f64>>,
}

/// numcodecs' `mode_spec` and `delta_spec` values, in the order the second module codes them.
#[cfg(feature = "write")]
const MODES: [&str; 2] = ["auto", "classic"];
#[cfg(feature = "write")]
const DELTAS: [&str; 4] = ["auto", "none", "try_consecutive", "try_lookback"];

/// The encoder's parameters for a configuration (numcodecs' defaults where it leaves one out):
/// the number type, the level, the mode and delta specs, the delta encoding order (-1: none),
/// the most numbers per page. None for what numcodecs itself would refuse to write.
#[cfg(feature = "write")]
fn writing(config: &Configuration, number: u32) -> Option<Vec<f64>> {
    let text = |key: &str, default: &'static str| match config.optional::<&str>(key) {
        Ok(value) => Some(value.unwrap_or(default).to_string()),
        Err(_) => None,
    };
    let place = |table: &[&str], value: String| {
        table
            .iter()
            .position(|t| *t == value)
            .map(|i| i as f64 + 1.0)
    };
    let level = config.optional::<u64>("level").ok()?.unwrap_or(8);
    let mode = place(&MODES, text("mode_spec", "auto")?)?;
    let delta = place(&DELTAS, text("delta_spec", "auto")?)?;
    if text("paging_spec", "equal_pages_up_to")? != "equal_pages_up_to" {
        return None;
    }
    let order = config.optional::<u64>("delta_encoding_order").ok()?;
    let pages = config
        .optional::<u64>("equal_pages_up_to")
        .ok()?
        .unwrap_or(262_144);
    // Not 8-bit numbers: numcodecs leaves pcodec's 8-bit mode off.
    if level > 12 || order.is_some_and(|o| o > 7) || pages == 0 || number <= 2 {
        return None;
    }
    Some(vec![
        f64::from(number),
        level as f64,
        mode,
        delta,
        order.map_or(-1.0, |o| o as f64),
        pages as f64,
    ])
}

impl PcodecCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<PcodecCodec, String> {
        // level, mode_spec, delta_spec, paging_spec...: how it was written; the stream says it,
        // so that only the writer reads them.
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
        #[cfg(not(feature = "write"))]
        let _ = config;
        Ok(PcodecCodec {
            number,
            #[cfg(feature = "write")]
            writing: writing(&config, number),
        })
    }
}

impl ArrayToBytesCodec for PcodecCodec {
    fn name(&self) -> &'static str {
        "numcodecs.pcodec"
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        self.writing.is_some()
    }

    /// A pcodec standalone file of the chunk's numbers, in the second module.
    #[cfg(feature = "write")]
    fn encode(&self, chunk: Vec<u8>, _repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let Some(params) = &self.writing else {
            return Err(super::codec::no_encoder(self.name()));
        };
        extra::encode(self.name(), params, &chunk)
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
