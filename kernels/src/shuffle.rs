//! Byte and bit unshuffling, as c-blosc 1.x (Blosc format version 2) does it. Shuffling groups the
//! n-th byte (or bit) of every element together so that compressors see long runs; decoding undoes
//! that. The kernels work on whole slices with no per-element bounds checks in the inner loops.
//! Built for wasm with simd128 (every runtime we support has it, see the README), the bit
//! unshuffle's first pass runs a SIMD kernel (`shuffle/simd128.rs`); the scalar code finishes the
//! edges. The byte unshuffle is left to the compiler, which vectorises it well with simd128.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

/// Byte unshuffle of `src` into `dst` (same length) for elements of `typesize` bytes:
/// `dst[i * ts + j] = src[j * n + i]` with `n = len / ts`; the `len % ts` trailing bytes were never
/// shuffled and are copied as they are.
pub fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let ts = typesize;
    if ts <= 1 || src.len() < ts {
        dst.copy_from_slice(src);
        return;
    }
    let n = src.len() / ts;
    let body = n * ts;
    match ts {
        2 => unshuffle_fixed::<2>(&src[..body], &mut dst[..body], n),
        4 => unshuffle_fixed::<4>(&src[..body], &mut dst[..body], n),
        8 => unshuffle_fixed::<8>(&src[..body], &mut dst[..body], n),
        16 => unshuffle_fixed::<16>(&src[..body], &mut dst[..body], n),
        _ => unshuffle_any(ts, &src[..body], &mut dst[..body], n),
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Unshuffle for a size known at compile time: one output element is written whole per step, so
/// the compiler keeps it in a register and vectorises the gathers.
fn unshuffle_fixed<const TS: usize>(src: &[u8], dst: &mut [u8], n: usize) {
    let planes: [&[u8]; TS] = std::array::from_fn(|j| &src[j * n..(j + 1) * n]);
    for (i, out) in dst.chunks_exact_mut(TS).enumerate() {
        let mut element = [0u8; TS];
        for j in 0..TS {
            // `i < n` = every plane's length, which the optimiser sees from the zip of lengths.
            element[j] = planes[j][i];
        }
        out.copy_from_slice(&element);
    }
}

fn unshuffle_any(ts: usize, src: &[u8], dst: &mut [u8], n: usize) {
    for (j, plane) in src.chunks_exact(n).enumerate() {
        for (i, &byte) in plane.iter().enumerate() {
            dst[i * ts + j] = byte;
        }
    }
}

/// Byte shuffle, the inverse of `unshuffle`: Blosc's encoder, and the tests' and fuzzers' inputs.
pub fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let ts = typesize;
    if ts <= 1 || src.len() < ts {
        dst.copy_from_slice(src);
        return;
    }
    let n = src.len() / ts;
    let body = n * ts;
    match ts {
        2 => shuffle_fixed::<2>(&src[..body], &mut dst[..body], n),
        4 => shuffle_fixed::<4>(&src[..body], &mut dst[..body], n),
        8 => shuffle_fixed::<8>(&src[..body], &mut dst[..body], n),
        16 => shuffle_fixed::<16>(&src[..body], &mut dst[..body], n),
        _ => shuffle_any(ts, &src[..body], &mut dst[..body], n),
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Shuffle for a size known at compile time: one input element is read whole per step and its
/// bytes go to the planes, which the compiler keeps as separate pointers (the byte-at-a-time loop
/// with index arithmetic was 29 % of a Blosc lz4 write).
fn shuffle_fixed<const TS: usize>(src: &[u8], dst: &mut [u8], n: usize) {
    let mut rest = dst;
    let planes: [&mut [u8]; TS] = std::array::from_fn(|_| {
        let (plane, after) = std::mem::take(&mut rest).split_at_mut(n);
        rest = after;
        plane
    });
    for (i, element) in src.chunks_exact(TS).enumerate() {
        for j in 0..TS {
            planes[j][i] = element[j];
        }
    }
}

fn shuffle_any(ts: usize, src: &[u8], dst: &mut [u8], n: usize) {
    for (j, plane) in dst.chunks_exact_mut(n).enumerate() {
        for (i, byte) in plane.iter_mut().enumerate() {
            *byte = src[i * ts + j];
        }
    }
}

/// Bit shuffle of one Blosc block, the inverse of `bitunshuffle`: with `n = len / ts` a multiple
/// of 8, bit `k` of byte `j` of element `i` goes to bit position `(j * 8 + k) * n + i` of the first
/// `n * ts` bytes, and the trailing bytes are copied; otherwise the block is copied as it is (as
/// c-blosc 1.x leaves it). Done as `bitunshuffle` undoes it, in reverse: bytes shuffled, then each
/// byte plane spread into its 8 bit planes, eight elements at a time.
pub fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let ts = typesize.max(1);
    let n = src.len() / ts;
    if !n.is_multiple_of(8) || n == 0 {
        dst.copy_from_slice(src);
        return;
    }
    let body = n * ts;
    let mut planes = vec![0u8; body];
    shuffle(ts, &src[..body], &mut planes);
    scatter_bit_planes(n / 8, &planes, &mut dst[..body]);
    dst[body..].copy_from_slice(&src[body..]);
}

/// The inverse of `gather_bit_planes`: each byte plane of `8 * row` bytes becomes 8 bit planes of
/// `row` bytes, bit plane `k`'s byte `g` holding bit `k` of elements `8g..8g + 8`.
fn scatter_bit_planes(row: usize, src: &[u8], dst: &mut [u8]) {
    for (bytes, out) in src.chunks_exact(8 * row).zip(dst.chunks_exact_mut(8 * row)) {
        for (g, eight) in bytes.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(std::array::from_fn(|m| eight[m]));
            let y = transpose_bits_8x8(x).to_le_bytes();
            for (k, &b) in y.iter().enumerate() {
                out[k * row + g] = b;
            }
        }
    }
}

/// Bit unshuffle of one Blosc block. `n = len / ts` elements: when `n` is a multiple of 8 the
/// first `n * ts` bytes hold `8 * ts` bit planes of `n / 8` bytes each (plane `8 * j + k` holds bit
/// `k` of byte `j` of every element) and the trailing bytes are copied. When `n` is not a multiple of
/// 8, c-blosc stored the block unshuffled (format version 2), so it is copied whole.
///
/// Done in two passes, as c-blosc does: the bits of each byte plane are put back together (byte
/// `j` of every element in a row: the byte-shuffled form), then the bytes are unshuffled. Both
/// passes read and write whole runs, which is what makes them fast (and SIMD-friendly); `src` is
/// the scratch space of the second pass and is left holding the intermediate form.
pub fn bitunshuffle(typesize: usize, src: &mut [u8], dst: &mut [u8]) {
    debug_assert_eq!(src.len(), dst.len());
    let ts = typesize.max(1);
    let n = src.len() / ts;
    if !n.is_multiple_of(8) || n == 0 {
        dst.copy_from_slice(src);
        return;
    }
    let body = n * ts;
    let (dst_body, dst_tail) = dst.split_at_mut(body);
    dst_tail.copy_from_slice(&src[body..]);
    gather_bit_planes(n / 8, &src[..body], dst_body);
    if ts > 1 {
        src[..body].copy_from_slice(dst_body);
        unshuffle(ts, &src[..body], dst_body);
    }
}

/// The first pass: `src` is groups of 8 bit planes of `row` bytes, `dst` gets `8 * row` bytes per
/// group, byte `m` made of bit `m` of each plane. The SIMD kernel does the whole 16-byte columns of
/// the planes it can; the scalar one the rest.
fn gather_bit_planes(row: usize, src: &[u8], dst: &mut [u8]) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let columns = simd128::gather_bit_planes(row, src, dst);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let columns = 0;
    for (planes, out) in src.chunks_exact(8 * row).zip(dst.chunks_exact_mut(8 * row)) {
        let planes: [&[u8]; 8] = std::array::from_fn(|k| &planes[k * row..(k + 1) * row]);
        for (g, bytes) in out.chunks_exact_mut(8).enumerate().skip(columns) {
            // Byte k of `x` holds bit k of the bytes of elements 8g..8g+8 (element m in bit m).
            let x = u64::from_le_bytes(std::array::from_fn(|k| planes[k][g]));
            // Byte m of the transpose is element 8g + m's byte.
            bytes.copy_from_slice(&transpose_bits_8x8(x).to_le_bytes());
        }
    }
}

/// Transposes an 8x8 bit matrix held as 8 bytes (bit `8 * r + c` moves to bit `8 * c + r`).
fn transpose_bits_8x8(mut x: u64) -> u64 {
    let mut t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit layout straight from the format description, one bit at a time.
    fn bitunshuffle_reference(ts: usize, src: &[u8]) -> Vec<u8> {
        let n = src.len() / ts;
        let mut out = src.to_vec();
        if !n.is_multiple_of(8) {
            return out;
        }
        out[..n * ts].fill(0);
        for i in 0..n {
            for j in 0..ts {
                for k in 0..8 {
                    let p = (j * 8 + k) * n + i;
                    let bit = (src[p >> 3] >> (p & 7)) & 1;
                    out[i * ts + j] |= bit << k;
                }
            }
        }
        out
    }

    fn pseudo_random(len: usize, seed: u32) -> Vec<u8> {
        (0..len as u32)
            .map(|i| {
                (i.wrapping_mul(2_654_435_761)
                    .wrapping_add(seed.wrapping_mul(40_503))
                    >> 11) as u8
            })
            .collect()
    }

    #[test]
    fn bitshuffle_is_undone_by_bitunshuffle() {
        for ts in [1, 2, 3, 4, 8, 16] {
            for len in [0, 7, 64, 100, 1024, 1027] {
                let src = pseudo_random(len, ts as u32);
                let mut shuffled = vec![0; len];
                bitshuffle(ts, &src, &mut shuffled);
                let mut back = vec![0; len];
                bitunshuffle(ts, &mut shuffled, &mut back);
                assert_eq!(back, src, "ts {ts}, len {len}");
            }
        }
    }

    #[test]
    fn bitunshuffle_matches_the_bit_by_bit_definition() {
        for ts in [1, 2, 3, 4, 5, 7, 8, 16, 17] {
            for len in [
                0,
                7,
                8 * ts,
                8 * ts + 3,
                64 * ts,
                64 * ts + ts - 1,
                12 * ts,
                8 * 16 * ts,
                8 * 40 * ts + 5,
                1000,
            ] {
                let src = pseudo_random(len, (ts * 1000 + len) as u32);
                let mut dst = vec![0; len];
                bitunshuffle(ts, &mut src.clone(), &mut dst);
                assert_eq!(
                    dst,
                    bitunshuffle_reference(ts, &src),
                    "typesize {ts}, {len} bytes"
                );
            }
        }
    }

    #[test]
    fn unshuffle_inverts_shuffle_for_every_size() {
        for ts in 1..=20 {
            for len in [0, 1, ts, 3 * ts + 1, 100 * ts + ts / 2] {
                let data = pseudo_random(len, ts as u32);
                let mut shuffled = vec![0; len];
                shuffle(ts, &data, &mut shuffled);
                let mut back = vec![0; len];
                unshuffle(ts, &shuffled, &mut back);
                assert_eq!(back, data, "typesize {ts}, {len} bytes");
            }
        }
    }
}
