//! The `zstd` codec (and numcodecs' Zstd): one or more Zstandard frames, decoded with
//! structured-zstd (see the README's decoder decisions for why this crate and not ruzstd).
//! Frames with or without a content size and with or without a checksum are read; skippable frames
//! are skipped; a frame's checksum, when present, is verified; frames that need a dictionary are
//! refused. Output never exceeds the chunk's size.

use super::codec::{BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind};
use super::configuration::Configuration;
use crate::buffer::{try_grow, try_zeroed};
use crate::error::CodecError;
use std::cell::RefCell;
use std::io::Read;
use structured_zstd::decoding::errors::FrameDecoderError;
use structured_zstd::decoding::{BlockDecodingStrategy, ContentChecksum, FrameDecoder};

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
        let err = |e: String| CodecError::new("zstd", e);
        match decoded_size {
            DecodedSize::Exact(size) => {
                let mut out = try_zeroed(size).map_err(err)?;
                self.decode_into(encoded, &mut out)?;
                Ok(out)
            }
            DecodedSize::AtMost(cap) => decompress_growing(&encoded, cap).map_err(err),
        }
    }

    fn decode_into(&self, encoded: Vec<u8>, out: &mut [u8]) -> Result<(), CodecError> {
        let size = out.len();
        let written = decompress_into(&encoded, out).map_err(|e| CodecError::new("zstd", e))?;
        if written != size {
            let reason = format!("decoded to {written} bytes, expected {size}");
            return Err(CodecError::new("zstd", reason));
        }
        Ok(())
    }
}

/// The largest window accepted for an output smaller than it. A window larger than the output is
/// never needed, but encoders that stream without a content size declare one (2 MiB at level 3,
/// 8 MiB at level 19), so up to 8 MiB is allowed whatever the output size: a hostile header cannot
/// make the decoder reserve the gigabytes that zstd permits.
const MAX_SMALL_WINDOW: usize = 8 << 20;

thread_local! {
    /// One decoder, reused: a new one allocates its buffers and tables for every frame, and Blosc
    /// chunks hold a frame per block.
    static DECODER: RefCell<FrameDecoder> = RefCell::new(new_decoder());
}

fn new_decoder() -> FrameDecoder {
    let mut decoder = FrameDecoder::new();
    decoder.set_content_checksum(ContentChecksum::Verify);
    decoder
}

/// Runs `f` with the thread's decoder, its window ceiling set for an output of `limit` bytes.
fn with_decoder<T>(
    limit: usize,
    f: impl FnOnce(&mut FrameDecoder) -> Result<T, String>,
) -> Result<T, String> {
    DECODER.with(|cell| {
        // A decoder left mid-frame by an error or by a trap's unwinding is replaced, never reused
        // half-way: `try_borrow_mut` fails only if a decode is already running on this thread.
        let mut decoder = cell
            .try_borrow_mut()
            .map_err(|_| "the zstd decoder is busy (re-entered)".to_string())?;
        let ceiling = (limit.max(MAX_SMALL_WINDOW) as u64)
            .min(structured_zstd::decoding::MAX_DECODER_WINDOW_SIZE);
        decoder
            .set_max_window_size(ceiling)
            .map_err(|e| e.to_string())?;
        let result = f(&mut decoder);
        if result.is_err() {
            *decoder = new_decoder();
        }
        result
    })
}

/// Decodes every frame of `input` into `out`, returning how many bytes it wrote; more than fits is
/// an error. Each frame is decoded straight into `out`.
pub fn decompress_into(input: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let capacity = out.len();
    with_decoder(capacity, |decoder| {
        let mut written = 0;
        for_each_frame(input, |index, frame| {
            let room = &mut out[written..];
            if let Some(size) = frame.content_size {
                if size > room.len() as u64 {
                    return Err(too_large(capacity));
                }
            }
            written += decoder
                .decode_all(frame.bytes, room)
                .map_err(|e| describe(index, e, capacity))?;
            Ok(())
        })?;
        Ok(written)
    })
}

/// Decodes every frame of `input` into a vector grown as frames decode, up to `limit` bytes: for
/// chunks whose decoded size is not known beforehand (variable-length data). A frame that declares
/// its content size is decoded straight into the vector; others are streamed a block at a time.
pub fn decompress_growing(input: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    with_decoder(limit, |decoder| {
        let mut out = Vec::new();
        for_each_frame(input, |index, frame| {
            let start = out.len();
            match frame.content_size {
                Some(size) => {
                    if size > (limit - start) as u64 {
                        return Err(too_large(limit));
                    }
                    try_grow(&mut out, start + size as usize)?;
                    let written = decoder
                        .decode_all(frame.bytes, &mut out[start..])
                        .map_err(|e| describe(index, e, limit))?;
                    out.truncate(start + written);
                }
                None => stream_frame(decoder, frame.bytes, &mut out, limit)
                    .map_err(|e| format!("frame {index}: {e}"))?,
            }
            Ok(())
        })?;
        Ok(out)
    })
}

/// Decodes one frame a block at a time, moving what each step produced into `out`.
fn stream_frame(
    decoder: &mut FrameDecoder,
    mut input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
) -> Result<(), String> {
    decoder.init(&mut input).map_err(|e| refusal(&e))?;
    loop {
        decoder
            .decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(1 << 20))
            .map_err(|e| refusal(&e))?;
        let (before, ready) = (out.len(), decoder.can_collect());
        if before + ready > limit {
            return Err(too_large(limit));
        }
        try_grow(out, before + ready)?;
        let read = decoder
            .read(&mut out[before..])
            .map_err(|e| e.to_string())?;
        out.truncate(before + read);
        if decoder.is_finished() && decoder.can_collect() == 0 {
            break;
        }
        if read == 0 && input.is_empty() {
            return Err("the frame ends early".into());
        }
    }
    if let (Some(stored), Some(computed)) = (
        decoder.get_checksum_from_data(),
        decoder.get_calculated_checksum(),
    ) {
        if stored != computed {
            return Err(checksum_mismatch(stored, computed));
        }
    }
    Ok(())
}

/// One zstd frame of a chunk, found by walking its header and block headers.
struct Frame<'a> {
    bytes: &'a [u8],
    content_size: Option<u64>,
}

const FRAME_MAGIC: u32 = 0xFD2F_B528;

/// Calls `f` with each frame of `input` in turn (skippable frames are passed over), with its index
/// among all frames. Finding the frames first lets a truncated or malformed chunk be described
/// precisely, before any decoding.
fn for_each_frame(
    input: &[u8],
    mut f: impl FnMut(usize, Frame) -> Result<(), String>,
) -> Result<(), String> {
    if input.is_empty() {
        return Err("zstd data is empty".into());
    }
    let mut rest = input;
    let mut index = 0;
    while !rest.is_empty() {
        let (len, frame) = next_frame(rest).map_err(|e| format!("frame {index} {e}"))?;
        if let Some(frame) = frame {
            f(index, frame)?;
        }
        rest = &rest[len..];
        index += 1;
    }
    Ok(())
}

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
