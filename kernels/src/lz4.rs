//! LZ4 blocks, decoded by lz4_flex. The wrapper is here, not at its callers, because lz4_flex's
//! `decompress_into` is inlined into whoever calls it, and its generic decoder is then built at
//! the caller's opt-level: from the reader's crate (at "s") Blosc's many small LZ4 streams decoded
//! twice as slowly (blosc lz4 shuffle in the benchmark: 4.7 -> 9.8 ms of decoding).

/// Decodes the LZ4 block `input` into `out`, returning how many bytes it wrote.
#[inline(never)]
pub fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, String> {
    lz4_flex::block::decompress_into(input, out).map_err(|e| e.to_string())
}
