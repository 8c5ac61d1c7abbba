//! numcodecs' `BZ2` codec (v3 `numcodecs.bz2`): bzip2 streams. Decoded in the second module
//! (`extra.rs`).

use super::codec::{BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind};
use super::configuration::{Bounded, Configuration};
use super::extra;
use crate::error::CodecError;

/// numcodecs' `bz2`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.bz2"],
    kind: Kind::BytesToBytes,
    build: |config, _| Ok(Codec::bytes_to_bytes(Bz2Codec::from_configuration(config)?)),
}];

pub struct Bz2Codec;

impl Bz2Codec {
    pub fn from_configuration(config: Configuration) -> Result<Bz2Codec, String> {
        // The level chose the block size when written; the stream says it again.
        config.optional::<Bounded<1, 9>>("level")?;
        Ok(Bz2Codec)
    }
}

impl BytesToBytesCodec for Bz2Codec {
    fn name(&self) -> &'static str {
        "numcodecs.bz2"
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let out = extra::decode(self.name(), &[], decoded_size.limit(), &encoded)
            .map_err(|e| CodecError::new(self.name(), e))?;
        decoded_size.check_output(self.name(), out)
    }
}
