//! The `zstd` codec (and numcodecs' Zstd): one or more Zstandard frames, decoded with ruzstd.
//! Frames with or without a content size and with or without a checksum are read; skippable frames
//! are skipped; a frame's checksum, when present, is verified. Output never exceeds the chunk's size.

use super::{BytesToBytesCodec, DecodedSize};
use crate::buffer::{try_grow, try_zeroed};
use crate::error::CodecError;
use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};
use serde_json::{Map, Value};
use std::io::Read;

pub struct ZstdCodec;

impl ZstdCodec {
    pub fn from_configuration(config: &Map<String, Value>) -> Result<ZstdCodec, String> {
        if let Some(level) = config.get("level") {
            if level.as_i64().is_none() {
                return Err(format!("\"level\" must be an integer, not {level}"));
            }
        }
        if let Some(checksum) = config.get("checksum") {
            if !checksum.is_boolean() {
                return Err(format!(
                    "\"checksum\" must be true or false, not {checksum}"
                ));
            }
        }
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
                let written = decompress_into(&encoded, &mut out).map_err(err)?;
                if written != size {
                    return Err(err(format!("decoded to {written} bytes, expected {size}")));
                }
                Ok(out)
            }
            DecodedSize::AtMost(cap) => {
                let mut out = Vec::new();
                decode_frames(&encoded, &mut Output::Grow(&mut out, cap)).map_err(err)?;
                Ok(out)
            }
        }
    }
}

/// Decodes every frame of `input` into `out`, returning how many bytes it wrote; more than fits is
/// an error.
pub fn decompress_into(input: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let mut output = Output::Slice(out, 0);
    decode_frames(input, &mut output)?;
    Ok(output.len())
}

/// Where decoded bytes go: a slice sized beforehand, or a vector grown up to a limit.
enum Output<'a> {
    Slice(&'a mut [u8], usize),
    Grow(&'a mut Vec<u8>, usize),
}

impl Output<'_> {
    /// The most bytes this output takes.
    fn limit(&self) -> usize {
        match self {
            Output::Slice(out, _) => out.len(),
            Output::Grow(_, limit) => *limit,
        }
    }

    fn len(&self) -> usize {
        match self {
            Output::Slice(_, written) => *written,
            Output::Grow(v, _) => v.len(),
        }
    }

    /// Moves what the decoder has ready into the output.
    fn drain(&mut self, decoder: &mut FrameDecoder) -> Result<(), String> {
        let ready = decoder.can_collect();
        let too_large = |limit: usize| format!("decoded data is larger than {limit} bytes");
        match self {
            Output::Slice(out, written) => {
                let room = &mut out[*written..];
                if ready > room.len() {
                    return Err(too_large(out.len()));
                }
                *written += decoder.read(room).map_err(|e| e.to_string())?;
            }
            Output::Grow(v, limit) => {
                let start = v.len();
                if start + ready > *limit {
                    return Err(too_large(*limit));
                }
                try_grow(v, start + ready)?;
                let read = decoder.read(&mut v[start..]).map_err(|e| e.to_string())?;
                v.truncate(start + read);
            }
        }
        Ok(())
    }
}

/// Decodes every frame in `input` into `out`.
fn decode_frames(input: &[u8], out: &mut Output) -> Result<(), String> {
    if input.is_empty() {
        return Err("zstd data is empty".into());
    }
    DECODER.with(|cell| {
        let mut decoder = cell.borrow_mut();
        // The decoder reserves a frame's whole declared window up front. A window larger than
        // the output is never needed, but encoders that stream without a content size declare
        // one (2 MiB at level 3, 8 MiB at level 19), so up to 8 MiB is allowed whatever the
        // output size: a hostile header cannot claim the 128 MiB that zstd permits. The reused
        // decoder keeps its largest window between chunks.
        decoder.set_max_window_size(out.limit().max(MAX_SMALL_WINDOW) as u64);
        decode_frames_with(&mut decoder, input, out)
    })
}

/// The largest window accepted for an output smaller than it.
const MAX_SMALL_WINDOW: usize = 8 << 20;

thread_local! {
    /// One decoder, reused: a new one allocates its window and tables for every frame, and Blosc
    /// chunks hold a frame per block.
    static DECODER: std::cell::RefCell<FrameDecoder> = std::cell::RefCell::new(FrameDecoder::new());
}

fn decode_frames_with(
    decoder: &mut FrameDecoder,
    mut input: &[u8],
    out: &mut Output,
) -> Result<(), String> {
    let mut frame = 0usize;
    while !input.is_empty() {
        let frame_at = out.len();
        match decoder.init(&mut input) {
            Ok(()) => {}
            Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                length,
                ..
            })) => {
                input = input.get(length as usize..).ok_or_else(|| {
                    format!("skippable frame {frame} of {length} bytes is truncated")
                })?;
                frame += 1;
                continue;
            }
            Err(e) => return Err(format!("frame {frame}: {e}")),
        }
        loop {
            let before = out.len();
            if let Err(e) =
                decoder.decode_blocks(&mut input, BlockDecodingStrategy::UptoBytes(1 << 20))
            {
                return Err(if input.is_empty() {
                    format!("frame {frame} is truncated: the data ends inside a block ({e})")
                } else {
                    format!("frame {frame}: {e}")
                });
            }
            out.drain(decoder)
                .map_err(|e| format!("frame {frame}: {e}"))?;
            if decoder.is_finished() && decoder.can_collect() == 0 {
                break;
            }
            if out.len() == before && input.is_empty() {
                return Err(format!("frame {frame} is truncated"));
            }
        }
        if let (Some(stored), Some(computed)) = (
            decoder.get_checksum_from_data(),
            decoder.get_calculated_checksum(),
        ) {
            if stored != computed {
                return Err(format!("frame {frame}: content checksum {stored:#010x} does not match the data ({computed:#010x})"));
            }
        }
        let (declared, decoded) = (decoder.content_size(), (out.len() - frame_at) as u64);
        if declared != 0 && declared != decoded {
            return Err(format!(
                "frame {frame} declares {declared} bytes of content but decodes to {decoded}"
            ));
        }
        frame += 1;
    }
    Ok(())
}
