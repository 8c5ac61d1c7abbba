//! The `zstd` codec (and numcodecs' Zstd): one or more Zstandard frames, decoded by
//! `zarr_wasm_kernels::zstd` (CONTRIBUTING's decoder decisions say why our own).
//! Frames with or without a content size and with or without a checksum are read; skippable frames
//! are skipped; a frame's checksum, when present, is verified; frames that need a dictionary are
//! refused. Output never exceeds the chunk's size.

use super::codec::{
    decode_whole, decode_whole_into, BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind,
    StepDecoder,
};
use super::configuration::Configuration;
use crate::collections::buffer::{in_one_go, Output};
use crate::error::CodecError;
use std::borrow::Cow;
use std::cell::RefCell;
use zarr_wasm_kernels::zstd::{Decoder, Frames, MAX_BLOCK};

/// `zstd`, in v3 and as numcodecs writes it.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["zstd", "numcodecs.zstd"],
    kind: Kind::BytesToBytes,
    build: |config, _| {
        Ok(Codec::bytes_to_bytes(ZstdCodec::from_configuration(
            config,
        )?))
    },
}];

pub struct ZstdCodec {
    /// What chunks are written with (decoding needs neither: a frame says whether it has a
    /// checksum). Level 0 is libzstd's default, 3.
    #[cfg_attr(not(feature = "write"), allow(dead_code))]
    level: i32,
    #[cfg_attr(not(feature = "write"), allow(dead_code))]
    checksum: bool,
}

impl Default for ZstdCodec {
    /// What the codec's configuration gives with nothing in it.
    fn default() -> Self {
        ZstdCodec {
            level: 0,
            checksum: false,
        }
    }
}

impl ZstdCodec {
    /// `level` (left out, 0: libzstd's default) and `checksum` (left out, false).
    pub fn from_configuration(config: Configuration) -> Result<ZstdCodec, String> {
        let level = config.optional::<i64>("level")?.unwrap_or(0);
        let level = i32::try_from(level)
            .ok()
            .filter(|l| (-131072..=22).contains(l))
            .ok_or_else(|| format!("\"level\" is {level}, not a zstd level (-131072 to 22)"))?;
        let checksum = config.optional::<bool>("checksum")?.unwrap_or(false);
        Ok(ZstdCodec { level, checksum })
    }
}

impl BytesToBytesCodec for ZstdCodec {
    fn name(&self) -> &'static str {
        "zstd"
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    /// One frame, with its content size (as libzstd writes a one-shot frame) and, where asked,
    /// its checksum.
    #[cfg(feature = "write")]
    fn encode(&self, decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        frame(&decoded, self.level, self.checksum).map_err(|e| CodecError::new("zstd", e))
    }

    /// The frame `encode` writes, compressed a piece at a time.
    #[cfg(feature = "write")]
    fn encode_stepwise(
        &self,
        decoded: Vec<u8>,
    ) -> Result<Box<dyn super::codec::StepEncoder + '_>, Vec<u8>> {
        match encoder(decoded.len(), self.level, self.checksum) {
            Ok(encoder) => Ok(Box::new(ZstdSteps {
                input: decoded,
                at: 0,
                encoder: Some(encoder),
            })),
            Err(_) => Err(decoded),
        }
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let unzstd = Unzstd::new(encoded, decoded_size.limit());
        decode_whole(self.name(), unzstd, decoded_size)
    }

    fn decode_into(&self, encoded: Vec<u8>, out: &mut [u8]) -> Result<(), CodecError> {
        decode_whole_into(self.name(), Unzstd::new(encoded, out.len()), out)
    }

    fn stepwise(
        &self,
        encoded: Vec<u8>,
        decoded_size: DecodedSize,
    ) -> Result<Box<dyn StepDecoder + '_>, Vec<u8>> {
        Ok(Box::new(Unzstd::new(encoded, decoded_size.limit())))
    }
}

/// structured-zstd's streaming encoder for one frame of `size` bytes at zstd's `level` (0: its
/// default, 3), with its content size in the header and, where asked, its checksum. The one way
/// this crate writes zstd (Blosc's blocks too): its one-shot `FrameCompressor` as well made the
/// write build 8 KiB larger gzipped for the same frames.
#[cfg(feature = "write")]
fn encoder(
    size: usize,
    level: i32,
    checksum: bool,
) -> Result<structured_zstd::encoding::StreamingEncoder<Vec<u8>>, String> {
    use structured_zstd::encoding::{CompressionLevel, StreamingEncoder};
    let level = CompressionLevel::Level(if level == 0 { 3 } else { level });
    let mut encoder = StreamingEncoder::new(Vec::with_capacity(size / 2 + 64), level);
    encoder
        .set_content_checksum(checksum)
        .and_then(|()| encoder.set_pledged_content_size(size as u64))
        .map_err(|e| e.to_string())?;
    Ok(encoder)
}

/// `data` as one zstd frame (see `encoder`).
#[cfg(feature = "write")]
pub fn frame(data: &[u8], level: i32, checksum: bool) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut encoder = encoder(data.len(), level, checksum)?;
    encoder.write_all(data).map_err(|e| e.to_string())?;
    encoder.finish().map_err(|e| e.to_string())
}

/// A zstd frame written in steps.
#[cfg(feature = "write")]
struct ZstdSteps {
    input: Vec<u8>,
    at: usize,
    encoder: Option<structured_zstd::encoding::StreamingEncoder<Vec<u8>>>,
}

#[cfg(feature = "write")]
impl super::codec::StepEncoder for ZstdSteps {
    fn step(&mut self, budget: usize) -> Result<Option<Vec<u8>>, CodecError> {
        use std::io::Write;
        let failed = |e: &dyn std::fmt::Display| CodecError::new("zstd", e.to_string());
        let end = self.at.saturating_add(budget.max(1)).min(self.input.len());
        let encoder = self
            .encoder
            .as_mut()
            .ok_or_else(|| failed(&"encoded already"))?;
        encoder
            .write_all(&self.input[self.at..end])
            .map_err(|e| failed(&e))?;
        self.at = end;
        if end < self.input.len() {
            return Ok(None);
        }
        let encoder = self
            .encoder
            .take()
            .ok_or_else(|| failed(&"encoded already"))?;
        encoder.finish().map(Some).map_err(|e| failed(&e))
    }
}

thread_local! {
    /// A decoder kept for the next chunk: a new one allocates its tables and literals buffer,
    /// and Blosc chunks hold a frame per block. Decodes in steps of several chunks may
    /// interleave: one takes it, the others meanwhile make their own.
    static SPARE: RefCell<Option<Box<Decoder>>> = const { RefCell::new(None) };
}

/// A zstd chunk (one or more frames) being decoded, a share at a time: block by block, straight
/// into the output, which is each frame's window (no window is reserved, whatever a header
/// declares), by the kernel's walk of the frames.
pub struct Unzstd<'a> {
    /// (Owned or borrowed: one decoder's code for both, where a type parameter made two.)
    data: Cow<'a, [u8]>,
    limit: usize,
    frames: Frames<'static>,
    /// The output written so far.
    written: usize,
    /// Taken when the first step starts; given back to the thread once the chunk is done (never
    /// half-way through a frame).
    decoder: Option<Box<Decoder>>,
}

impl<'a> Unzstd<'a> {
    pub fn new(data: impl Into<Cow<'a, [u8]>>, limit: usize) -> Unzstd<'a> {
        Unzstd {
            data: data.into(),
            limit,
            frames: Frames::new(limit, None),
            written: 0,
            decoder: None,
        }
    }

    /// Decodes about `budget` more bytes into `out`; the output's length once the last frame is
    /// done.
    pub fn advance(
        &mut self,
        out: &mut Output<'_>,
        budget: usize,
    ) -> Result<Option<usize>, String> {
        let (start, budget) = (self.written, budget.max(1));
        let decoder = self.decoder.get_or_insert_with(|| {
            SPARE
                .with(|spare| spare.borrow_mut().take())
                .unwrap_or_default()
        });
        let mut walk = || {
            while self.frames.more(decoder, &self.data, self.written)? {
                let room = out.room(self.written.saturating_add(MAX_BLOCK), self.limit)?;
                self.written = self
                    .frames
                    .decode_block(decoder, &self.data, room, self.written)?;
                if self.written - start >= budget {
                    return Ok(None);
                }
            }
            Ok(Some(self.written))
        };
        let walked = walk();
        // Done or failed: the decoder goes back to the thread (the next frame resets it).
        if !matches!(walked, Ok(None)) {
            if let Some(decoder) = self.decoder.take() {
                SPARE.with(|spare| *spare.borrow_mut() = Some(decoder));
            }
        }
        walked
    }

    /// Decodes the rest in one go; returns the output's length.
    fn finish(mut self, out: &mut Output<'_>) -> Result<usize, String> {
        in_one_go(|budget| self.advance(out, budget))
    }
}

impl StepDecoder for Unzstd<'_> {
    fn step(&mut self, out: &mut Output<'_>, budget: usize) -> Result<Option<usize>, CodecError> {
        self.advance(out, budget)
            .map_err(|e| CodecError::new("zstd", e))
    }
}

/// Decodes every frame of `input` into `out`, returning how many bytes it wrote; more than fits is
/// an error. Each frame is decoded straight into `out`.
pub fn decompress_into(input: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let limit = out.len();
    Unzstd::new(input, limit).finish(&mut Output::Fixed(out))
}

/// Decodes every frame of `input` into a vector grown as frames decode, up to `limit` bytes: for
/// chunks whose decoded size is not known beforehand (variable-length data).
pub fn decompress_growing(input: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let len = Unzstd::new(input, limit).finish(&mut Output::Growing(&mut out))?;
    out.truncate(len);
    Ok(out)
}
