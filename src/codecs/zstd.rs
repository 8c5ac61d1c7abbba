//! The `zstd` codec (and numcodecs' Zstd): one or more Zstandard frames, decoded with
//! structured-zstd (see the README's decoder decisions for why this crate and not ruzstd).
//! Frames with or without a content size and with or without a checksum are read; skippable frames
//! are skipped; a frame's checksum, when present, is verified; frames that need a dictionary are
//! refused. Output never exceeds the chunk's size.

use super::codec::{
    decode_whole, decode_whole_into, BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind,
    StepDecoder,
};
use super::configuration::Configuration;
use crate::buffer::{in_one_go, Output};
use crate::error::CodecError;
use std::cell::RefCell;
use std::ops::Range;
use structured_zstd::decoding::errors::FrameDecoderError;
use structured_zstd::decoding::{ContentChecksum, FrameDecoder};

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

pub struct ZstdCodec;

impl ZstdCodec {
    /// `level` and `checksum`: checked, not needed to decode (a frame says whether it has a
    /// checksum).
    pub fn from_configuration(config: Configuration) -> Result<ZstdCodec, String> {
        config.optional::<i64>("level")?;
        config.optional::<bool>("checksum")?;
        Ok(ZstdCodec)
    }
}

impl BytesToBytesCodec for ZstdCodec {
    fn name(&self) -> &'static str {
        "zstd"
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

/// The largest window accepted for an output smaller than it. A window larger than the output is
/// never needed, but encoders that stream without a content size declare one (2 MiB at level 3,
/// 8 MiB at level 19), so up to 8 MiB is allowed whatever the output size: a hostile header cannot
/// make the decoder reserve the gigabytes that zstd permits.
const MAX_SMALL_WINDOW: usize = 8 << 20;

/// The most output a streamed frame is given room for at once, where its output grows.
const STREAM_SHARE: usize = 1 << 20;

/// A frame of up to this many steps' output decodes in one step, straight into the output:
/// streaming it through the decoder's window costs 15 to 45 % more (16 MiB natively: 18.6 ms
/// against 21.8 at level 3, 8.1 against 11.6 at level 19), and zstd decodes about four times as
/// fast as DEFLATE in wasm (16 MiB: 34 ms against 115 in Node), so that step takes about as long
/// as a DEFLATE step. Larger frames are streamed.
const WHOLE_FRAME_STEPS: u64 = 4;

thread_local! {
    /// A decoder kept for the next chunk: a new one allocates its buffers and tables for every
    /// frame, and Blosc chunks hold a frame per block. Decodes in steps of several chunks may
    /// interleave: one takes it, the others meanwhile make their own.
    static SPARE: RefCell<Option<Box<FrameDecoder>>> = const { RefCell::new(None) };
}

/// The thread's spare decoder, or a new one, its window ceiling set for an output of `limit`
/// bytes.
fn take_decoder(limit: usize) -> Result<Box<FrameDecoder>, String> {
    let spare = SPARE.with(|spare| spare.borrow_mut().take());
    let mut decoder = spare.unwrap_or_else(|| {
        let mut decoder = Box::new(FrameDecoder::new());
        decoder.set_content_checksum(ContentChecksum::Verify);
        decoder
    });
    let ceiling = (limit.max(MAX_SMALL_WINDOW) as u64)
        .min(structured_zstd::decoding::MAX_DECODER_WINDOW_SIZE);
    decoder
        .set_max_window_size(ceiling)
        .map_err(|e| e.to_string())?;
    Ok(decoder)
}

/// A zstd chunk (one or more frames) being decoded, a share at a time. A frame of a few steps'
/// output (`WHOLE_FRAME_STEPS`) decodes straight into the output; a larger one (or one of unknown
/// size where the output grows) is streamed a few blocks at a time through the decoder's window,
/// which costs a copy of its output but lets the decode stop between blocks.
pub struct Unzstd<D = Vec<u8>> {
    data: D,
    limit: usize,
    /// Where the next frame starts in `data`, and its index among all frames.
    next: usize,
    index: usize,
    /// The output written so far.
    written: usize,
    /// The frame being streamed: its index, and where its undecoded rest lies in `data`.
    streaming: Option<(usize, Range<usize>)>,
    /// Taken when the first step starts; given back to the thread once the chunk is done, unless
    /// it streamed a frame (its buffers are then a window large) or failed (it is never reused
    /// half-way through a frame).
    decoder: Option<Box<FrameDecoder>>,
    streamed: bool,
}

impl<D: AsRef<[u8]>> Unzstd<D> {
    pub fn new(data: D, limit: usize) -> Unzstd<D> {
        Unzstd {
            data,
            limit,
            next: 0,
            index: 0,
            written: 0,
            streaming: None,
            decoder: None,
            streamed: false,
        }
    }

    /// Decodes about `budget` more bytes into `out`; the output's length once the last frame is
    /// done.
    pub fn advance(
        &mut self,
        out: &mut Output<'_>,
        budget: usize,
    ) -> Result<Option<usize>, String> {
        let data = self.data.as_ref();
        if data.is_empty() {
            return Err("zstd data is empty".into());
        }
        let (start, budget) = (self.written, budget.max(1));
        let decoder = match &mut self.decoder {
            Some(decoder) => decoder,
            None => self.decoder.insert(take_decoder(self.limit)?),
        };
        loop {
            let left = budget.saturating_sub(self.written - start);
            if let Some((index, rest)) = self.streaming.take() {
                let input = &data[rest.clone()];
                let used = stream(decoder, input, out, &mut self.written, self.limit, left)
                    .map_err(|e| format!("frame {index}: {e}"))?;
                if let Some(used) = used {
                    self.streaming = Some((index, rest.start + used..rest.end));
                    return Ok(None);
                }
                continue;
            }
            if self.next == data.len() {
                if let Some(decoder) = self.decoder.take().filter(|_| !self.streamed) {
                    SPARE.with(|spare| *spare.borrow_mut() = Some(decoder));
                }
                return Ok(Some(self.written));
            }
            if left == 0 {
                return Ok(None);
            }
            let index = self.index;
            let (len, frame) =
                next_frame(&data[self.next..]).map_err(|e| format!("frame {index} {e}"))?;
            let end = self.next + len;
            (self.next, self.index) = (end, index + 1);
            let Some(frame) = frame else { continue };
            // A frame of unknown size is bounded by the output where that is the caller's.
            let room_left = match out {
                Output::Fixed(out) => Some((out.len() - self.written) as u64),
                Output::Growing(_) => None,
            };
            match frame.content_size.or(room_left) {
                Some(size) if size <= (left as u64).saturating_mul(WHOLE_FRAME_STEPS) => {
                    if size > (self.limit - self.written) as u64 {
                        return Err(format!("frame {index}: {}", too_large(self.limit)));
                    }
                    let target = out.room(self.written + size as usize, self.limit)?;
                    self.written += decoder
                        .decode_all(frame.bytes, &mut target[self.written..])
                        .map_err(|e| describe(index, e, self.limit))?;
                }
                _ => {
                    let mut input = frame.bytes;
                    decoder
                        .init(&mut input)
                        .map_err(|e| format!("frame {index}: {}", refusal(&e)))?;
                    self.streaming = Some((index, end - input.len()..end));
                    self.streamed = true;
                }
            }
        }
    }

    /// Decodes the rest in one go; returns the output's length.
    fn finish(mut self, out: &mut Output<'_>) -> Result<usize, String> {
        in_one_go(|budget| self.advance(out, budget))
    }
}

impl<D: AsRef<[u8]>> StepDecoder for Unzstd<D> {
    fn step(&mut self, out: &mut Output<'_>, budget: usize) -> Result<Option<usize>, CodecError> {
        self.advance(out, budget)
            .map_err(|e| CodecError::new("zstd", e))
    }
}

/// Streams about `budget` more bytes of the frame begun in `decoder`, whose undecoded rest is
/// `input`, into `out` from `written` on, the output held to `limit`: whole blocks, each decoded
/// into the decoder's window and handed out before the next (so the window holds one block
/// beyond its size). Returns how much of `input` it used, or `None` once the frame has ended (its
/// size and checksum checked).
fn stream(
    decoder: &mut FrameDecoder,
    input: &[u8],
    out: &mut Output<'_>,
    written: &mut usize,
    limit: usize,
    budget: usize,
) -> Result<Option<usize>, String> {
    let (mut used, start) = (0usize, *written);
    loop {
        let share = STREAM_SHARE.min(budget.saturating_sub(*written - start).max(1));
        let room = out.room(written.saturating_add(share), limit)?;
        let end = written.saturating_add(share).min(room.len()).min(limit);
        let (read, wrote) = decoder
            .decode_from_to(&input[used..], &mut room[*written..end])
            .map_err(|e| refusal(&e))?;
        (used, *written) = (used + read, *written + wrote);
        if decoder.is_finished() && decoder.can_collect() == 0 {
            return Ok(None);
        }
        if read == 0 && wrote == 0 {
            // No progress: the output is full and the frame holds more, or it has no whole
            // block left.
            return Err(match decoder.can_collect() > 0 || end == *written {
                true => too_large(limit),
                false => "the frame ends early".into(),
            });
        }
        if *written - start >= budget {
            return Ok(Some(used));
        }
    }
}

/// Decodes every frame of `input` into `out`, returning how many bytes it wrote; more than fits is
/// an error. Each frame is decoded straight into `out`.
pub fn decompress_into(input: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let limit = out.len();
    Unzstd::new(input, limit).finish(&mut Output::Fixed(out))
}

/// Decodes every frame of `input` into a vector grown as frames decode, up to `limit` bytes: for
/// chunks whose decoded size is not known beforehand (variable-length data). A frame that declares
/// its content size is decoded straight into the vector; others are streamed a block at a time.
pub fn decompress_growing(input: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let len = Unzstd::new(input, limit).finish(&mut Output::Growing(&mut out))?;
    out.truncate(len);
    Ok(out)
}

/// One zstd frame of a chunk, found by walking its header and block headers.
struct Frame<'a> {
    bytes: &'a [u8],
    content_size: Option<u64>,
}

const FRAME_MAGIC: u32 = 0xFD2F_B528;

/// The length of the frame at the start of `data`, and the frame itself unless it is a skippable
/// one (RFC 8878 3.1.1).
fn next_frame(data: &[u8]) -> Result<(usize, Option<Frame<'_>>), String> {
    let word = |at: usize, n: usize| -> Option<u64> {
        let bytes = data.get(at..at + n)?;
        Some(
            bytes
                .iter()
                .rev()
                .fold(0u64, |acc, &b| acc << 8 | u64::from(b)),
        )
    };
    let truncated = |what: &str| format!("is truncated: the data ends inside {what}");
    let magic = word(0, 4).ok_or_else(|| truncated("the magic number"))? as u32;
    if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
        let length = word(4, 4).ok_or_else(|| truncated("a skippable frame's header"))?;
        let end = 8 + length as usize;
        if end > data.len() {
            return Err(format!(
                "is a skippable frame of {length} bytes, truncated: the data ends inside it"
            ));
        }
        return Ok((end, None));
    }
    if magic != FRAME_MAGIC {
        return Err(format!(
            "does not start with the zstd magic number (found {magic:#010x})"
        ));
    }
    let descriptor = *data.get(4).ok_or_else(|| truncated("the frame header"))?;
    if descriptor & 0x08 != 0 {
        return Err("sets the frame header's reserved bit".into());
    }
    let single_segment = descriptor & 0x20 != 0;
    let fcs_len = match descriptor >> 6 {
        0 if single_segment => 1,
        0 => 0,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let dict_len = [0, 1, 2, 4][usize::from(descriptor & 3)];
    let fcs_at = 5 + usize::from(!single_segment) + dict_len;
    let mut at = fcs_at + fcs_len;
    if at > data.len() {
        return Err(truncated("the frame header"));
    }
    let content_size = match fcs_len {
        0 => None,
        2 => word(fcs_at, 2).map(|v| v + 256),
        n => word(fcs_at, n),
    };
    let mut block = 0usize;
    loop {
        let header = word(at, 3).ok_or_else(|| truncated(&format!("block {block}'s header")))?;
        let (last, kind, size) = (header & 1 != 0, (header >> 1) & 3, (header >> 3) as usize);
        let body = match kind {
            1 => 1,
            3 => return Err(format!("has a block ({block}) of the reserved type")),
            _ => size,
        };
        at += 3 + body;
        if at > data.len() {
            return Err(truncated(&format!("block {block}")));
        }
        block += 1;
        if last {
            break;
        }
    }
    if descriptor & 0x04 != 0 {
        at += 4;
        if at > data.len() {
            return Err(truncated("the content checksum"));
        }
    }
    let frame = Frame {
        bytes: &data[..at],
        content_size,
    };
    Ok((at, Some(frame)))
}

/// The decoder's error, said in terms of the chunk.
fn describe(index: usize, e: FrameDecoderError, capacity: usize) -> String {
    match e {
        FrameDecoderError::TargetTooSmall => {
            format!("frame {index}: {}", too_large(capacity))
        }
        other => format!("frame {index}: {}", refusal(&other)),
    }
}

fn too_large(limit: usize) -> String {
    format!("decoded data is larger than {limit} bytes")
}

/// The message for a frame whose decoded data does not hash to its stored checksum, in one wording
/// whichever path found it.
fn checksum_mismatch(stored: u32, computed: u32) -> String {
    format!("content checksum {stored:#010x} does not match the decoded data's ({computed:#010x})")
}

/// Names what the frame needs that a Zarr codec cannot give (a dictionary), or the decoder's own
/// description of what is wrong.
fn refusal(e: &FrameDecoderError) -> String {
    match e {
        FrameDecoderError::DictNotProvided { .. } | FrameDecoderError::DictIdMismatch { .. } => {
            format!("the frame needs a zstd dictionary, which Zarr's zstd codec has no way to name ({e})")
        }
        FrameDecoderError::ChecksumMismatch {
            expected,
            calculated,
        } => checksum_mismatch(*expected, *calculated),
        other => other.to_string(),
    }
}
