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
    let window_bits = if zlib { 15 } else { -15 };
    let mut flags = create_comp_flags_from_zip_params(level.min(10).into(), window_bits, 0);
    if level == 1 {
        // miniz_oxide makes 1 + (n + 2) / 3 probes of the n these bits hold: 4 gives three.
        flags = (flags & !PROBES) | 4 | GREEDY;
    }
    let mut compressor = CompressorOxide::new(flags);
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    let (status, _) = compress_to_output(&mut compressor, data, TDEFLFlush::Finish, |bytes| {
        out.extend_from_slice(bytes);
        true
    });
    debug_assert_eq!(status, TDEFLStatus::Done);
    out
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
            }
        }
    }
}
