//! Bounded DEFLATE decoding on top of miniz_oxide, shared by the gzip and zlib codecs and Blosc's zlib blocks.
//! The output never grows past a limit, so a small hostile stream cannot claim gigabytes.

use crate::buffer::try_grow;
use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

/// Which wrapper the stream has around its DEFLATE blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    Raw,
    Zlib,
}

/// Inflates one stream from the start of `input`, appending to `out` but never letting `out` grow
/// past `limit` bytes in total. Returns how many input bytes the stream used.
pub fn inflate_append(
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
    wrapper: Wrapper,
) -> Result<usize, String> {
    let start = out.len();
    let mut state = Box::<DecompressorOxide>::default();
    let (used, end) = inflate_at(input, out, start, limit, wrapper, &mut state)?;
    out.truncate(end);
    Ok(used)
}

/// Inflates one stream from the start of `input` into `out` from `start` on, with `state` (reset
/// first: one decoder serves a gzip file's members in turn). `out` beyond `start` is room already
/// made (zeros, or what an earlier call left there): it is used before any more is made, and more
/// is made only as the output needs it, so that streams in a row do work in proportion to what
/// they decode, not to the room. `out` never grows past `limit` bytes (and one of headroom), and
/// is not shortened: returns how many input bytes the stream used and where its output ends.
pub fn inflate_at(
    input: &[u8],
    out: &mut Vec<u8>,
    start: usize,
    limit: usize,
    wrapper: Wrapper,
    state: &mut DecompressorOxide,
) -> Result<(usize, usize), String> {
    let mut flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    if wrapper == Wrapper::Zlib {
        flags |=
            inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER | inflate_flags::TINFL_FLAG_COMPUTE_ADLER32;
    }
    state.init();
    // One byte of headroom past the limit tells "exactly at the limit" from "more than allowed".
    let cap = limit.saturating_add(1);
    let first = start
        .saturating_add(input.len().saturating_mul(4).max(4096))
        .min(cap);
    try_grow(out, first)?;
    let (mut in_pos, mut out_pos) = (0usize, 0usize);
    loop {
        let (status, used_in, used_out) =
            decompress(state, &input[in_pos..], &mut out[start..], out_pos, flags);
        in_pos += used_in;
        out_pos += used_out;
        match status {
            TINFLStatus::Done => {
                if start + out_pos > limit {
                    return Err(format!("decoded data is larger than {limit} bytes"));
                }
                return Ok((in_pos, start + out_pos));
            }
            TINFLStatus::HasMoreOutput => {
                if out.len() >= cap {
                    return Err(format!("decoded data is larger than {limit} bytes"));
                }
                let next = out.len().saturating_mul(2).min(cap);
                try_grow(out, next)?;
            }
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
                return Err(format!(
                    "DEFLATE stream is truncated: its {} input bytes end before its final block",
                    input.len()
                ));
            }
            TINFLStatus::Adler32Mismatch => {
                return Err("zlib Adler-32 checksum mismatch".to_string())
            }
            _ => {
                return Err(format!("invalid DEFLATE data at input byte {in_pos}"));
            }
        }
    }
}

/// Inflates one whole stream from `input` into `out`, which it may fill but not overflow. Returns how
/// many bytes it wrote. Used where the decoded size is known exactly (Blosc blocks).
pub fn inflate_into(input: &[u8], out: &mut [u8], wrapper: Wrapper) -> Result<usize, String> {
    let mut flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    if wrapper == Wrapper::Zlib {
        flags |=
            inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER | inflate_flags::TINFL_FLAG_COMPUTE_ADLER32;
    }
    let mut state = Box::<DecompressorOxide>::default();
    let (status, used_in, used_out) = decompress(&mut state, input, out, 0, flags);
    match status {
        TINFLStatus::Done => Ok(used_out),
        TINFLStatus::HasMoreOutput => {
            Err(format!("decoded data is larger than {} bytes", out.len()))
        }
        TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => Err(format!(
            "DEFLATE stream is truncated: its {} input bytes end before its final block",
            input.len()
        )),
        TINFLStatus::Adler32Mismatch => Err("zlib Adler-32 checksum mismatch".to_string()),
        _ => Err(format!("invalid DEFLATE data at input byte {used_in}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deflate(data: &[u8]) -> Vec<u8> {
        miniz_oxide::deflate::compress_to_vec(data, 6)
    }

    #[test]
    fn round_trip_within_limit_and_refusal_beyond_it() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let stream = deflate(&data);
        let mut out = Vec::new();
        let used = inflate_append(&stream, &mut out, data.len(), Wrapper::Raw).unwrap();
        assert_eq!(used, stream.len());
        assert_eq!(out, data);

        let mut small = Vec::new();
        let err = inflate_append(&stream, &mut small, data.len() - 1, Wrapper::Raw).unwrap_err();
        assert!(err.contains("larger than"), "{err}");
        assert!(small.capacity() <= data.len() + 1);
    }

    #[test]
    fn truncated_and_garbage_streams_are_errors() {
        let data = vec![7u8; 10_000];
        let stream = deflate(&data);
        let mut out = Vec::new();
        assert!(inflate_append(
            &stream[..stream.len() / 2],
            &mut out,
            data.len(),
            Wrapper::Raw
        )
        .is_err());
        for seed in 0..200u32 {
            let junk: Vec<u8> = (0..64u32)
                .map(|i| (i.wrapping_mul(2654435761).wrapping_add(seed * 7919) >> 13) as u8)
                .collect();
            let mut out = Vec::new();
            let _ = inflate_append(&junk, &mut out, 1 << 20, Wrapper::Raw);
            assert!(out.len() <= (1 << 20) + 1);
        }
    }
}
