//! numcodecs' `Zlib` (v3 name `numcodecs.zlib`): one zlib stream (RFC 1950), Adler-32 checked,
//! decoded in steps (`Unzlib`).

use super::codec::{
    decode_whole, decode_whole_into, BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind,
    StepDecoder,
};
use super::configuration::{Bounded, Configuration};
use crate::collections::buffer::Output;
use crate::compression::inflate::{Inflater, Wrapper};
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

pub struct ZlibCodec {
    /// The level chunks are written at (decoding does not depend on it).
    #[cfg_attr(not(feature = "write"), allow(dead_code))]
    level: u8,
}

impl Default for ZlibCodec {
    /// What the codec's configuration gives with nothing in it.
    fn default() -> Self {
        ZlibCodec { level: 1 }
    }
}

impl ZlibCodec {
    /// `level` (-1: zlib's default, 6; left out, numcodecs' 1): checked, not needed to decode.
    pub fn from_configuration(config: Configuration) -> Result<ZlibCodec, String> {
        let level = config.optional::<Bounded<-1, 9>>("level")?;
        Ok(ZlibCodec {
            level: match level {
                None => 1,
                Some(Bounded(-1)) => 6,
                Some(Bounded(l)) => l as u8,
            },
        })
    }
}

/// A zlib stream being decoded, a share at a time.
struct Unzlib {
    data: Vec<u8>,
    limit: usize,
    inflater: Inflater,
}

impl Unzlib {
    fn new(data: Vec<u8>, limit: usize) -> Unzlib {
        Unzlib {
            data,
            limit,
            inflater: Inflater::new(Wrapper::Zlib),
        }
    }
}

impl StepDecoder for Unzlib {
    fn step(&mut self, out: &mut Output<'_>, budget: usize) -> Result<Option<usize>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.zlib", e);
        let Some(used) = self
            .inflater
            .step(&self.data, out, self.limit, budget)
            .map_err(err)?
        else {
            return Ok(None);
        };
        if used != self.data.len() {
            return Err(err(format!(
                "{} bytes follow the end of the zlib stream",
                self.data.len() - used
            )));
        }
        Ok(Some(self.inflater.end()))
    }
}

impl BytesToBytesCodec for ZlibCodec {
    fn name(&self) -> &'static str {
        "numcodecs.zlib"
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    #[cfg(feature = "write")]
    fn encode(&self, decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        Ok(crate::compression::deflate::deflate(
            &decoded, self.level, true,
        ))
    }

    #[cfg(feature = "write")]
    fn encode_stepwise(
        &self,
        decoded: Vec<u8>,
    ) -> Result<Box<dyn super::codec::StepEncoder + '_>, Vec<u8>> {
        let steps = crate::compression::deflate::DeflateSteps::new(decoded, self.level, true);
        Ok(Box::new(ZlibSteps(steps)))
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let unzlib = Unzlib::new(encoded, decoded_size.limit());
        decode_whole(self.name(), unzlib, decoded_size)
    }

    fn decode_into(&self, encoded: Vec<u8>, out: &mut [u8]) -> Result<(), CodecError> {
        decode_whole_into(self.name(), Unzlib::new(encoded, out.len()), out)
    }

    fn stepwise(
        &self,
        encoded: Vec<u8>,
        decoded_size: DecodedSize,
    ) -> Result<Box<dyn StepDecoder + '_>, Vec<u8>> {
        Ok(Box::new(Unzlib::new(encoded, decoded_size.limit())))
    }
}
/// A zlib stream written in steps.
#[cfg(feature = "write")]
struct ZlibSteps(crate::compression::deflate::DeflateSteps);

#[cfg(feature = "write")]
impl super::codec::StepEncoder for ZlibSteps {
    fn step(&mut self, budget: usize) -> Result<Option<Vec<u8>>, CodecError> {
        Ok(self.0.step(budget).map(|(stream, _)| stream))
    }
}
