//! Bounded DEFLATE decoding on top of miniz_oxide, shared by the gzip and zlib codecs and Blosc's zlib blocks.
//! The output never grows past a limit, so a small hostile stream cannot claim gigabytes. A stream
//! inflates a bounded share at a time (`Inflater`), so that a long one can let the event loop run
//! between shares; the one-shot functions run it to the end.

use crate::collections::buffer::{in_one_go, Output};
use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;

/// Which wrapper the stream has around its DEFLATE blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    Raw,
    Zlib,
}

/// One DEFLATE stream being inflated, a share at a time, into an `Output`. The decompressor's
/// state carries everything between shares; the output itself is the window back-references
/// reach into, so it must be the same output at every step.
pub struct Inflater {
    state: Box<DecompressorOxide>,
    flags: u32,
    /// Where the stream's output starts in the output.
    start: usize,
    /// Output bytes written and input bytes used so far.
    written: usize,
    used: usize,
}

impl Inflater {
    pub fn new(wrapper: Wrapper) -> Inflater {
        let mut flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        if wrapper == Wrapper::Zlib {
            flags |= inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER
                | inflate_flags::TINFL_FLAG_COMPUTE_ADLER32;
        }
        Inflater {
            state: Box::default(),
            flags,
            start: 0,
            written: 0,
            used: 0,
        }
    }

    /// Starts a new stream, its output from `start` of the output on (one decoder serves a gzip
    /// file's members in turn).
    pub fn restart(&mut self, start: usize) {
        self.state.init();
        (self.start, self.written, self.used) = (start, 0, 0);
    }

    /// Where the stream's output ends so far.
    pub fn end(&self) -> usize {
        self.start + self.written
    }

    /// How many bytes the stream has decoded so far.
    pub fn written(&self) -> usize {
        self.written
    }

    /// Inflates the next share of the stream in `input` (the whole stream from its start, at
    /// every call): at most `budget` bytes of output, from at most `budget` bytes of input (the
    /// input bound keeps a step short even on streams that decode to nothing). `out` grows as the
    /// output needs but never past `limit` bytes in all, earlier streams included; room beyond
    /// what is written (zeros, or what an earlier step left there) is used before more is made.
    /// Returns how many input bytes the stream used once it has ended, `None` while it goes on.
    pub fn step(
        &mut self,
        input: &[u8],
        out: &mut Output<'_>,
        limit: usize,
        budget: usize,
    ) -> Result<Option<usize>, String> {
        let budget = budget.max(1);
        let end = self.end();
        // Room is made in proportion to the input at first, then doubled as the output needs:
        // streams in a row do work in proportion to what they decode, not to the room.
        let first = self
            .start
            .saturating_add(input.len().saturating_mul(4).max(4096));
        let room = out.room(first.max(end.saturating_add(1)), limit)?;
        let room_len = room.len();
        let window_end = end.saturating_add(budget).min(room_len);
        let input_end = self.used.saturating_add(budget).min(input.len());
        let mut flags = self.flags;
        if input_end < input.len() {
            flags |= inflate_flags::TINFL_FLAG_HAS_MORE_INPUT;
        }
        let (status, used, written) = decompress(
            &mut self.state,
            &input[self.used..input_end],
            &mut room[self.start..window_end],
            self.written,
            flags,
        );
        self.used += used;
        self.written += written;
        match status {
            TINFLStatus::Done => Ok(Some(self.used)),
            // The step's share of the output is made.
            TINFLStatus::HasMoreOutput if window_end < room_len => Ok(None),
            // The output is full. It grows at the next step, unless it is at its limit; then only
            // the stream's end may follow, which input beyond this step's share may still hold
            // (miniz says it wants room when the output is full and the share's input used up).
            TINFLStatus::HasMoreOutput => {
                let grows = out.room(room_len + 1, limit)?.len() > room_len;
                if grows || (input_end < input.len() && used > 0) {
                    Ok(None)
                } else {
                    Err(format!("decoded data is larger than {limit} bytes"))
                }
            }
            TINFLStatus::NeedsMoreInput if input_end < input.len() => Ok(None),
            TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => Err(format!(
                "DEFLATE stream is truncated: its {} input bytes end before its final block",
                input.len()
            )),
            TINFLStatus::Adler32Mismatch => Err("zlib Adler-32 checksum mismatch".to_string()),
            _ => Err(format!("invalid DEFLATE data at input byte {}", self.used)),
        }
    }

    /// Inflates the rest of the stream in one go; returns how many input bytes it used.
    fn finish(
        &mut self,
        input: &[u8],
        out: &mut Output<'_>,
        limit: usize,
    ) -> Result<usize, String> {
        in_one_go(|budget| self.step(input, out, limit, budget))
    }
}

/// Inflates one stream from the start of `input`, appending to `out` but never letting `out` grow
/// past `limit` bytes in total. Returns how many input bytes the stream used.
pub fn inflate_append(
    input: &[u8],
    out: &mut Vec<u8>,
    limit: usize,
    wrapper: Wrapper,
) -> Result<usize, String> {
    let mut inflater = Inflater::new(wrapper);
    inflater.restart(out.len());
    let used = inflater.finish(input, &mut Output::Growing(out), limit)?;
    out.truncate(inflater.end());
    Ok(used)
}

/// Inflates one whole stream from `input` into `out`, which it may fill but not overflow. Returns how
/// many bytes it wrote. Used where the decoded size is known exactly (Blosc blocks).
pub fn inflate_into(input: &[u8], out: &mut [u8], wrapper: Wrapper) -> Result<usize, String> {
    let mut inflater = Inflater::new(wrapper);
    let limit = out.len();
    inflater.finish(input, &mut Output::Fixed(out), limit)?;
    Ok(inflater.end())
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
