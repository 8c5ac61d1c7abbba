//! numcodecs' `Zlib` (v3 name `numcodecs.zlib`): one zlib stream (RFC 1950), Adler-32 checked.

use super::codec::{BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind};
use super::configuration::{Bounded, Configuration};
use crate::compression::inflate::{inflate_append, Wrapper};
use crate::error::CodecError;

/// numcodecs' `zlib`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.zlib"],
    kind: Kind::BytesToBytes,
    build: |config, _| {
        Ok(Codec::bytes_to_bytes(ZlibCodec::from_configuration(
            config,
        )?))
    },
}];

pub struct ZlibCodec;

impl ZlibCodec {
    /// `level` (-1: zlib's default): checked, not needed to decode.
    pub fn from_configuration(config: Configuration) -> Result<ZlibCodec, String> {
        config.optional::<Bounded<-1, 9>>("level")?;
        Ok(ZlibCodec)
    }
}

impl BytesToBytesCodec for ZlibCodec {
    fn name(&self) -> &'static str {
        "numcodecs.zlib"
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.zlib", e);
        let mut out = Vec::new();
        let used =
            inflate_append(&encoded, &mut out, decoded_size.limit(), Wrapper::Zlib).map_err(err)?;
        if used != encoded.len() {
            return Err(err(format!(
                "{} bytes follow the end of the zlib stream",
                encoded.len() - used
            )));
        }
        if let Some(size) = decoded_size.exact().filter(|&s| s != out.len()) {
            return Err(err(format!(
                "decoded to {} bytes, expected {size}",
                out.len()
            )));
        }
        Ok(out)
    }
}
