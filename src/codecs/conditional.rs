//! The zarr-extensions registry's `conditional` (a bytes-to-bytes codec): a list of bytes-to-bytes
//! codecs, each applied to a chunk or not as the chunk's own header says. The header is
//! `header_bits / 8` bytes before the data, bit `i` (least significant first) set where codec `i`
//! was applied; decoding undoes the applied ones, last first. A writer uses it to store a chunk
//! uncompressed where compressing would grow it.

use super::codec::{BuildContext, BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind};
use super::configuration::Configuration;
use crate::error::CodecError;

/// The registry's `conditional`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["conditional"],
    kind: Kind::BytesToBytes,
    build: |config, cx| {
        Ok(Codec::bytes_to_bytes(ConditionalCodec::from_configuration(
            config, cx,
        )?))
    },
}];

pub struct ConditionalCodec {
    codecs: Vec<Box<dyn BytesToBytesCodec>>,
    header_bytes: usize,
    /// The cap on sizes nothing fixes (`limits.maxDecodedChunkBytes`), for the steps between
    /// the codecs where the chunk's own size is known but theirs is not.
    max_unknown_decoded: usize,
}

impl ConditionalCodec {
    pub fn from_configuration(
        config: Configuration,
        cx: &BuildContext,
    ) -> Result<ConditionalCodec, String> {
        let codecs = config
            .codecs("codecs")?
            .iter()
            .map(|codec| (cx.bytes_codec)(codec, cx))
            .collect::<Result<Vec<_>, String>>()?;
        let header_bits = match config.optional::<u64>("header_bits")? {
            Some(bits) if bits % 8 != 0 || bits < codecs.len() as u64 => {
                return Err(format!(
                    "\"header_bits\" must be a multiple of 8 of at least the {} codecs, not {bits}",
                    codecs.len()
                ))
            }
            Some(bits) => {
                usize::try_from(bits).map_err(|_| format!("\"header_bits\" {bits} is too large"))?
            }
            None => codecs.len().div_ceil(8) * 8,
        };
        Ok(ConditionalCodec {
            codecs,
            header_bytes: header_bits / 8,
            max_unknown_decoded: DecodedSize::from(None).limit(),
        })
    }

    /// The decoded size of each codec in a chunk with `applied` codecs whose whole decoded size is
    /// `size`: where each applied codec fixes its encoded size, known all the way; past one that
    /// does not, held to the cap (the whole chunk's, or the array's limit).
    fn sizes(&self, applied: &[bool], size: DecodedSize) -> Vec<DecodedSize> {
        let cap = match size {
            DecodedSize::AtMost(cap) => DecodedSize::AtMost(cap),
            DecodedSize::Exact(_) => DecodedSize::AtMost(self.max_unknown_decoded),
        };
        let mut sizes = Vec::with_capacity(self.codecs.len());
        let mut next = size;
        for (codec, &on) in self.codecs.iter().zip(applied) {
            sizes.push(next);
            next = match (next, on) {
                (_, false) => next,
                (DecodedSize::Exact(n), true) => {
                    codec.encoded_size(n).map_or(cap, DecodedSize::Exact)
                }
                (DecodedSize::AtMost(_), true) => cap,
            };
        }
        sizes
    }
}

impl BytesToBytesCodec for ConditionalCodec {
    fn name(&self) -> &'static str {
        "conditional"
    }

    fn decode(
        &self,
        mut encoded: Vec<u8>,
        decoded_size: DecodedSize,
    ) -> Result<Vec<u8>, CodecError> {
        let err = |reason: String| CodecError::new(self.name(), reason);
        let Some(header) = encoded.get(..self.header_bytes) else {
            return Err(err(format!(
                "{} bytes are shorter than the {}-byte header",
                encoded.len(),
                self.header_bytes
            )));
        };
        let bit = |i: usize| (header[i / 8] >> (i % 8)) & 1 == 1;
        if let Some(i) = (self.codecs.len()..self.header_bytes * 8).find(|&i| bit(i)) {
            return Err(err(format!(
                "the header sets bit {i}, but only {} codecs are configured",
                self.codecs.len()
            )));
        }
        let applied: Vec<bool> = (0..self.codecs.len()).map(bit).collect();
        let sizes = self.sizes(&applied, decoded_size);
        encoded.drain(..self.header_bytes);
        let mut bytes = encoded;
        for ((codec, size), on) in self.codecs.iter().zip(sizes).zip(applied).rev() {
            if on {
                bytes = codec.decode(bytes, size)?;
            }
        }
        decoded_size.check_len(self.name(), bytes.len())?;
        Ok(bytes)
    }

    fn set_max_unknown_decoded(&mut self, cap: usize) {
        self.max_unknown_decoded = cap;
        for codec in &mut self.codecs {
            codec.set_max_unknown_decoded(cap);
        }
    }
}
