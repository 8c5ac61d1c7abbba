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
        match context(decoded.len(), self.level, self.checksum) {
            Ok(context) => Ok(Box::new(ZstdSteps {
                out: Vec::with_capacity(decoded.len() / 2 + 64),
                input: decoded,
                at: 0,
                context: Some(context),
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

/// structured-zstd's compression context, the one way this crate writes zstd (Blosc's blocks
/// too): a frame's header says its content size (as libzstd's one-shot frames do) and, where
/// asked, carries a checksum.
#[cfg(feature = "write")]
type Context = structured_zstd::encoding::CompressionContext;

#[cfg(feature = "write")]
thread_local! {
    /// Contexts kept for the next frames. A new context allocates its match tables zeroed for
    /// each frame: for a 128 KiB chunk at level 3 that was 92 us, nearly half of encoding a
    /// shard of mostly zeros (`zarr-wasm convert`'s profile); a kept one carries its tables
    /// over. Frames encoded in steps may interleave: each takes its own, and gives it back when
    /// done.
    // Boxed: a context is a large struct, moved in and out of the pool by its pointer.
    #[allow(clippy::vec_box)]
    static SPARE_CONTEXTS: RefCell<Vec<Box<Context>>> = const { RefCell::new(Vec::new()) };
}

/// The most contexts a thread keeps (their tables are sized for the largest frames they wrote).
#[cfg(feature = "write")]
const SPARE_CONTEXTS_KEPT: usize = 2;

/// A context for one frame of `size` bytes at zstd's `level` (0: its default, 3): a kept one where
/// the thread has one.
#[cfg(feature = "write")]
fn context(size: usize, level: i32, checksum: bool) -> Result<Box<Context>, String> {
    use structured_zstd::encoding::CompressionLevel;
    let level = CompressionLevel::Level(if level == 0 { 3 } else { level });
    // (A context kept is one that never failed: see `give_back`.)
    let mut context = SPARE_CONTEXTS
        .try_with(|spare| spare.borrow_mut().pop())
        .ok()
        .flatten()
        .unwrap_or_else(|| Box::new(Context::new(level)));
    context
        .set_compression_level(level)
        .and_then(|()| context.set_content_checksum(checksum))
        .and_then(|()| context.set_pledged_content_size(size as u64))
        .map_err(|e| e.to_string())?;
    Ok(context)
}

/// The largest context a thread keeps: a level-3 context for chunks of a few MiB. High levels
/// (Blosc's clevel 9 is zstd's 22) and large chunks make far larger tables and windows, which
/// would stay in the module's memory for as long as it lives.
#[cfg(feature = "write")]
const SPARE_CONTEXT_BYTES: usize = 8 << 20;

/// Gives a context back to the thread once its frame is finished, or dropped part way: not one
/// that failed (a failure sticks: the context refuses its next settings), nor a large one.
#[cfg(feature = "write")]
fn give_back(mut context: Box<Context>) {
    context.abandon_frame();
    let failed = context.set_content_checksum(false).is_err();
    if failed || context.heap_size() > SPARE_CONTEXT_BYTES {
        return;
    }
    // (During the thread's teardown, when its pool is gone, the context is dropped.)
    let _ = SPARE_CONTEXTS.try_with(|spare| {
        let mut spare = spare.borrow_mut();
        if spare.len() < SPARE_CONTEXTS_KEPT {
            spare.push(context);
        }
    });
}

/// `data` as one zstd frame (see `Context`).
#[cfg(feature = "write")]
pub fn frame(data: &[u8], level: i32, checksum: bool) -> Result<Vec<u8>, String> {
    let mut context = context(data.len(), level, checksum)?;
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    write_all(&mut context, &mut out, data)?;
    context.finish_frame(&mut out).map_err(|e| e.to_string())?;
    give_back(context);
    Ok(out)
}

/// Compresses all of `data` into the frame `context` has open.
#[cfg(feature = "write")]
fn write_all(context: &mut Context, out: &mut Vec<u8>, mut data: &[u8]) -> Result<(), String> {
    while !data.is_empty() {
        match context.write(out, data).map_err(|e| e.to_string())? {
            0 => return Err("the encoder took no more input".to_string()),
            n => data = &data[n..],
        }
    }
    Ok(())
}

/// A zstd frame written in steps.
#[cfg(feature = "write")]
struct ZstdSteps {
    input: Vec<u8>,
    at: usize,
    out: Vec<u8>,
    /// Given back to the thread when the frame is done (or dropped).
    context: Option<Box<Context>>,
}

#[cfg(feature = "write")]
impl super::codec::StepEncoder for ZstdSteps {
    fn step(&mut self, budget: usize) -> Result<Option<Vec<u8>>, CodecError> {
        let failed = |e: String| CodecError::new("zstd", e);
        let end = self.at.saturating_add(budget.max(1)).min(self.input.len());
        // Taken while it works: one that fails is dropped, not given back.
        let mut context = self
            .context
            .take()
            .ok_or_else(|| failed("encoded already".to_string()))?;
        write_all(&mut context, &mut self.out, &self.input[self.at..end]).map_err(failed)?;
        self.at = end;
        if end < self.input.len() {
            self.context = Some(context);
            return Ok(None);
        }
        context
            .finish_frame(&mut self.out)
            .map_err(|e| failed(e.to_string()))?;
        give_back(context);
        Ok(Some(std::mem::take(&mut self.out)))
    }
}

#[cfg(feature = "write")]
impl Drop for ZstdSteps {
    fn drop(&mut self) {
        if let Some(context) = self.context.take() {
            give_back(context);
        }
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
