//! The bit unshuffle's first pass with wasm simd128. Eight bit planes are read 16 columns at a
//! time, a byte transpose puts each column's eight plane bytes side by side (two columns per
//! vector), and the 8x8 bit transpose of the scalar code then runs on both 64-bit halves at once.
//! Each vector that comes out is 16 finished bytes in a row.

use core::arch::wasm32::{
    i8x16_shuffle, u64x2_shl, u64x2_shr, u64x2_splat, v128, v128_and, v128_load, v128_store,
    v128_xor,
};

/// Gathers the bit planes of `src` (groups of 8 planes of `row` bytes) into `dst` (8 * `row` bytes
/// per group) for plane columns `0..columns`, and returns `columns`: `row` rounded down to a
/// multiple of 16. The scalar code does the columns after it.
pub fn gather_bit_planes(row: usize, src: &[u8], dst: &mut [u8]) -> usize {
    let columns = row & !15;
    for (planes, out) in src.chunks_exact(8 * row).zip(dst.chunks_exact_mut(8 * row)) {
        for c in (0..columns).step_by(16) {
            // Vector k: plane k, columns c..c + 16.
            let mut v: [v128; 8] = core::array::from_fn(|k| load16(planes, k * row + c));
            transpose_8x16(&mut v);
            // Vector w: the 8 plane bytes of column c + 2w, then those of column c + 2w + 1.
            for (w, &x) in v.iter().enumerate() {
                store16(out, 8 * (c + 2 * w), transpose_bits_8x8x2(x));
            }
        }
    }
    columns
}

/// 16 bytes of `src` from `at`; the slice index checks that they exist.
fn load16(src: &[u8], at: usize) -> v128 {
    let bytes = &src[at..at + 16];
    // SAFETY: `bytes` is 16 readable bytes; `v128_load` has no alignment requirement.
    unsafe { v128_load(bytes.as_ptr().cast::<v128>()) }
}

/// Writes `v` to the 16 bytes of `dst` from `at`; the slice index checks that they exist.
fn store16(dst: &mut [u8], at: usize, v: v128) {
    let bytes = &mut dst[at..at + 16];
    // SAFETY: `bytes` is 16 writable bytes; `v128_store` has no alignment requirement.
    unsafe { v128_store(bytes.as_mut_ptr().cast::<v128>(), v) }
}

/// Transposes 8 vectors of 16 bytes so that byte `l` of vector `v` moves to byte `8 * (l % 2) + v`
/// of vector `l / 2`. Each round interleaves vector `i` with vector `i + 4`; as a 7-bit index
/// `(v, l)` a round rotates the bits left by one, and three rounds give the layout above.
fn transpose_8x16(m: &mut [v128; 8]) {
    for _ in 0..3 {
        let input = *m;
        for i in 0..4 {
            let (a, b) = (input[i], input[i + 4]);
            m[2 * i] =
                i8x16_shuffle::<0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23>(a, b);
            m[2 * i + 1] =
                i8x16_shuffle::<8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31>(a, b);
        }
    }
}

/// `transpose_bits_8x8` of the scalar code on both 64-bit halves of `x`.
fn transpose_bits_8x8x2(mut x: v128) -> v128 {
    let step = |x: v128, shift: u32, mask: u64| {
        let t = v128_and(v128_xor(x, u64x2_shr(x, shift)), u64x2_splat(mask));
        v128_xor(x, v128_xor(t, u64x2_shl(t, shift)))
    };
    x = step(x, 7, 0x00AA_00AA_00AA_00AA);
    x = step(x, 14, 0x0000_CCCC_0000_CCCC);
    step(x, 28, 0x0000_0000_F0F0_F0F0)
}
