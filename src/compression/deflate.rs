//! DEFLATE streams written by miniz_oxide at zlib's levels, for the gzip, zlib and Blosc-zlib
//! encoders (the `write` feature).
//!
//! miniz_oxide's levels give sizes within 1 % of zlib's at the same level on the benchmark image,
//! except level 1: its fast path (one probe, greedy) wrote 5.7 % more than zlib's level 1
//! (6,246,775 bytes against 5,912,523 for the image's 64 chunks). Level 1 here searches as
//! miniz_oxide's level 2 does (greedy, three probes, without the fast path): 0.6 % more than
//! zlib on that image (5,949,350 bytes, 137 ms natively against the fast path's 52). Two probes
//! were 1.2 % more there, but 6-8 % more than zlib in Blosc's blocks of the sample image
//! (tests/write_sizes.rs); three are within 5 % everywhere that test looks.

use miniz_oxide::deflate::core::{
    compress_to_output, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
};

/// miniz_oxide's greedy-parsing flag (`TDEFL_GREEDY_PARSING_FLAG`).
const GREEDY: u32 = 0x4000;
/// The bits of the flags that hold the number of probes.
const PROBES: u32 = 0xfff;

/// `data` deflated at zlib's `level` (0-9), with a zlib header and trailer where `zlib` is set,
/// else as a raw stream.
pub fn deflate(data: &[u8], level: u8, zlib: bool) -> Vec<u8> {
    let mut deflater = Deflater::new(data.len(), level, zlib);
    deflater.take(data, true);
    deflater.finish()
}

/// A deflate stream written a piece of input at a time (for an encode in steps): the same bytes
/// as `deflate` of the pieces joined.
pub struct Deflater {
    compressor: Box<CompressorOxide>,
    out: Vec<u8>,
}

impl Deflater {
    /// `new`'s stream written after `prefix` (a gzip member's header): no copy of the stream
    /// into a member once it is done.
    pub fn after(prefix: &[u8], size: usize, level: u8, zlib: bool) -> Deflater {
        let mut deflater = Deflater::new(size.saturating_add(prefix.len()), level, zlib);
        deflater.out.extend_from_slice(prefix);
        deflater
    }

    /// A stream of about `size` bytes of input, at zlib's `level`, zlib-wrapped where `zlib`.
    pub fn new(size: usize, level: u8, zlib: bool) -> Deflater {
        let window_bits = if zlib { 15 } else { -15 };
        let mut flags = create_comp_flags_from_zip_params(level.min(10).into(), window_bits, 0);
        if level == 1 {
            // miniz_oxide makes 1 + (n + 2) / 3 probes of the n these bits hold: 4 gives three.
            flags = (flags & !PROBES) | 4 | GREEDY;
        }
        Deflater {
            compressor: Box::new(CompressorOxide::new(flags)),
            out: Vec::with_capacity(size / 2 + 64),
        }
    }

    /// Deflates the next piece of input; `last` ends the stream.
    pub fn take(&mut self, piece: &[u8], last: bool) {
        let flush = if last {
            TDEFLFlush::Finish
        } else {
            TDEFLFlush::None
        };
        let out = &mut self.out;
        let (status, _) = compress_to_output(&mut self.compressor, piece, flush, |bytes| {
            out.extend_from_slice(bytes);
            true
        });
        debug_assert!(matches!(status, TDEFLStatus::Done | TDEFLStatus::Okay));
    }

    /// The stream (once `take` was given the last piece).
    pub fn finish(self) -> Vec<u8> {
        self.out
    }
}

/// `input` deflated a piece of about a budget at a time (an encode in steps).
pub struct DeflateSteps {
    input: Vec<u8>,
    at: usize,
    deflater: Option<Deflater>,
}

impl DeflateSteps {
    pub fn new(input: Vec<u8>, level: u8, zlib: bool) -> DeflateSteps {
        DeflateSteps::after(&[], input, level, zlib)
    }

    /// `new`'s steps, the stream written after `prefix` (see `Deflater::after`).
    pub fn after(prefix: &[u8], input: Vec<u8>, level: u8, zlib: bool) -> DeflateSteps {
        let deflater = Deflater::after(prefix, input.len(), level, zlib);
        DeflateSteps {
            input,
            at: 0,
            deflater: Some(deflater),
        }
    }

    /// Deflates about `budget` more bytes of the input: once it is all deflated, the stream and
    /// the input (given back).
    pub fn step(&mut self, budget: usize) -> Option<(Vec<u8>, Vec<u8>)> {
        self.step_seeing(budget, |_| {})
    }

    /// `step`, showing `seen` the piece of input it deflates (a gzip member's CRC is taken a
    /// piece at a time: over 16 MiB at the end, it held the thread for 22 ms in one go).
    pub fn step_seeing(
        &mut self,
        budget: usize,
        mut seen: impl FnMut(&[u8]),
    ) -> Option<(Vec<u8>, Vec<u8>)> {
        let end = self.at.saturating_add(budget.max(1)).min(self.input.len());
        let last = end == self.input.len();
        let deflater = self.deflater.as_mut()?;
        seen(&self.input[self.at..end]);
        deflater.take(&self.input[self.at..end], last);
        self.at = end;
        if !last {
            return None;
        }
        let stream = self.deflater.take()?.finish();
        Some((stream, std::mem::take(&mut self.input)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_inflates_back() {
        let data: Vec<u8> = (0..200_000u32)
            .map(|i| ((i * 7) ^ (i >> 5)) as u8 % 37)
            .collect();
        for level in 0..=9 {
            for zlib in [true, false] {
                let stream = deflate(&data, level, zlib);
                let back = match zlib {
                    true => miniz_oxide::inflate::decompress_to_vec_zlib(&stream),
                    false => miniz_oxide::inflate::decompress_to_vec(&stream),
                }
                .unwrap();
                assert_eq!(back, data, "level {level}, zlib {zlib}");
                let mut pieces = Deflater::new(data.len(), level, zlib);
                for (i, piece) in data.chunks(7_000).enumerate() {
                    pieces.take(piece, (i + 1) * 7_000 >= data.len());
                }
                assert_eq!(
                    pieces.finish(),
                    stream,
                    "in pieces: level {level}, zlib {zlib}"
                );
            }
        }
    }
}
