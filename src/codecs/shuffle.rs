//! numcodecs' `Shuffle` (v3 name `numcodecs.shuffle`): the bytes of `elementsize`-byte elements
//! regrouped by position, the same byte shuffle Blosc uses. Decoding unshuffles the whole buffer.

use super::codec::{BytesToBytesCodec, Codec, CodecEntry, Kind};
use super::configuration::{Bounded, Configuration};
use crate::codecs::codec::DecodedSize;
use crate::collections::buffer::try_zeroed;
use crate::compression::shuffle::unshuffle;
use crate::error::CodecError;

/// numcodecs' `shuffle`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.shuffle"],
    kind: Kind::BytesToBytes,
    build: |config, cx| {
        Ok(Codec::bytes_to_bytes(ShuffleCodec::from_configuration(
            config,
            cx.data_type.size(),
        )?))
    },
}];

pub struct ShuffleCodec {
    element_size: usize,
}

impl ShuffleCodec {
    /// `elementsize`: the size of the elements shuffled, by default the array's. 0 means the
    /// array's too: netCDF-C's NCZarr writes it so, and netCDF and zarrita.js read it so.
    pub fn from_configuration(
        config: Configuration,
        default_size: usize,
    ) -> Result<ShuffleCodec, String> {
        let element_size =
            match config.optional::<Bounded<0, { u32::MAX as i64 }>>("elementsize")? {
                Some(Bounded(n)) if n > 0 => n as usize,
                _ => default_size,
            };
        Ok(ShuffleCodec { element_size })
    }
}

impl BytesToBytesCodec for ShuffleCodec {
    fn name(&self) -> &'static str {
        "numcodecs.shuffle"
    }

    fn encoded_size(&self, decoded_size: usize) -> Option<usize> {
        Some(decoded_size)
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    #[cfg(feature = "write")]
    fn encode(&self, decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let mut out =
            try_zeroed(decoded.len()).map_err(|e| CodecError::new("numcodecs.shuffle", e))?;
        zarr_wasm_kernels::shuffle::shuffle(self.element_size, &decoded, &mut out);
        Ok(out)
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.shuffle", e);
        if let Some(size) = decoded_size.exact().filter(|&s| s != encoded.len()) {
            return Err(err(format!(
                "input has {} bytes, expected {size}",
                encoded.len()
            )));
        }
        let mut out = try_zeroed(encoded.len()).map_err(err)?;
        unshuffle(self.element_size, &encoded, &mut out);
        Ok(out)
    }
}
