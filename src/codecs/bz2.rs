//! numcodecs' `BZ2` codec (v3 `numcodecs.bz2`): bzip2 streams. Decoded in the second module
//! (`extra.rs`), in steps.

use super::codec::{
    decode_whole, decode_whole_into, BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind,
    StepDecoder,
};
use super::configuration::{Bounded, Configuration};
use super::extra::Stepwise;
use crate::error::CodecError;

/// numcodecs' `bz2`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.bz2"],
    kind: Kind::BytesToBytes,
    build: |config, _| Ok(Codec::bytes_to_bytes(Bz2Codec::from_configuration(config)?)),
}];

pub struct Bz2Codec {
    /// 1-9: the block size written (numcodecs' default 1); the stream says it again.
    #[cfg_attr(not(feature = "write"), allow(dead_code))]
    level: u8,
}

impl Default for Bz2Codec {
    fn default() -> Bz2Codec {
        Bz2Codec { level: 1 }
    }
}

impl Bz2Codec {
    pub fn from_configuration(config: Configuration) -> Result<Bz2Codec, String> {
        let level = config.optional::<Bounded<1, 9>>("level")?;
        Ok(Bz2Codec {
            level: level.map_or(1, |Bounded(l)| l as u8),
        })
    }
}

impl BytesToBytesCodec for Bz2Codec {
    fn name(&self) -> &'static str {
        "numcodecs.bz2"
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    /// One bzip2 stream, in the second module.
    #[cfg(feature = "write")]
    fn encode(&self, decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        super::extra::encode(self.name(), &[f64::from(self.level)], &decoded)
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let steps = Stepwise::new(self.name(), Vec::new(), decoded_size.limit(), encoded);
        decode_whole(self.name(), steps, decoded_size)
    }

    fn decode_into(&self, encoded: Vec<u8>, out: &mut [u8]) -> Result<(), CodecError> {
        let steps = Stepwise::new(self.name(), Vec::new(), out.len(), encoded);
        decode_whole_into(self.name(), steps, out)
    }

    fn stepwise(
        &self,
        encoded: Vec<u8>,
        decoded_size: DecodedSize,
    ) -> Result<Box<dyn StepDecoder + '_>, Vec<u8>> {
        let steps = Stepwise::new(self.name(), Vec::new(), decoded_size.limit(), encoded);
        Ok(Box::new(steps))
    }
}
