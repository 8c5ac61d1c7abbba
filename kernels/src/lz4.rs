//! LZ4 blocks, decoded by lz4_flex. The wrapper is here, not at its callers, because lz4_flex's
//! `decompress_into` is inlined into whoever calls it, and its generic decoder is then built at
//! the caller's opt-level: from the reader's crate (at "s") Blosc's many small LZ4 streams decoded
//! twice as slowly (blosc lz4 shuffle in the benchmark: 4.7 -> 9.8 ms of decoding).

/// Decodes the LZ4 block `input` into `out`, returning how many bytes it wrote.
#[inline(never)]
pub fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, String> {
    lz4_flex::block::decompress_into(input, out).map_err(|e| e.to_string())
}

// The LZ4 block format (shared with Blosc's lz4hc search in the reader's crate): matches of 4
// bytes or more, at most 64 KiB back; the last 5 bytes are literals, and the last match starts
// 12 bytes before the end at the latest.
pub const MIN_MATCH: usize = 4;
pub const LAST_LITERALS: usize = 5;
pub const MF_LIMIT: usize = 12;
pub const MAX_DISTANCE: usize = 65_535;
/// 4096 slots of 4 bytes (16 KiB, liblz4's default and lz4_flex's).
const HASH_LOG: u32 = 12;
/// The search steps 1 byte, then `acceleration` bytes, one more after each 2^6 misses in a row
/// (liblz4's skip heuristic: incompressible stretches are crossed quickly).
const SKIP_TRIGGER: u32 = 6;

/// The most bytes `compress_into` writes for `len` bytes of input.
pub const fn max_compressed_size(len: usize) -> usize {
    len + len / 255 + 16
}

/// The four bytes at `at`, little endian.
pub fn read_u32(data: &[u8], at: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&data[at..at + 4]);
    u32::from_le_bytes(word)
}

fn read_u64(data: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&data[at..at + 8]);
    u64::from_le_bytes(word)
}

/// The slot of the five bytes at `at` (liblz4's hash on 64-bit machines: five bytes tell more
/// positions apart than four; with four, numcodecs' LZ4 chunks came out 12 % larger than C's).
fn hash(data: &[u8], at: usize) -> usize {
    ((read_u64(data, at) << 24).wrapping_mul(889_523_592_379) >> (64 - HASH_LOG)) as usize
}

/// How many bytes from `a` on equal those from `b` on (`b < a`), `a` going no further than
/// `limit`. Eight bytes at a time: wasm32 loads and compares 64-bit words natively, where
/// lz4_flex compares a `usize` (4 bytes there), and this loop is where LZ4 spends most of its
/// time on images.
pub fn count_same(data: &[u8], mut a: usize, mut b: usize, limit: usize) -> usize {
    let start = a;
    while a + 8 <= limit {
        let differ = read_u64(data, a) ^ read_u64(data, b);
        if differ != 0 {
            return a - start + (differ.trailing_zeros() / 8) as usize;
        }
        a += 8;
        b += 8;
    }
    while a < limit && data[a] == data[b] {
        a += 1;
        b += 1;
    }
    a - start
}

/// An LZ4 block being written into a slice with room for the whole worst case
/// (`max_compressed_size` of the input: any parse into matches of 4 bytes or more fits).
pub struct Block<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl<'a> Block<'a> {
    pub fn new(out: &'a mut [u8]) -> Block<'a> {
        Block { out, at: 0 }
    }

    /// The bytes written so far.
    pub fn len(&self) -> usize {
        self.at
    }

    pub fn is_empty(&self) -> bool {
        self.at == 0
    }

    fn byte(&mut self, byte: u8) {
        self.out[self.at] = byte;
        self.at += 1;
    }

    /// A length's bytes past the token's 15: 255 each, then what is left.
    fn length(&mut self, mut rest: usize) {
        while rest >= 255 {
            self.byte(255);
            rest -= 255;
        }
        self.byte(rest as u8);
    }

    fn literals(&mut self, literals: &[u8]) {
        self.out[self.at..self.at + literals.len()].copy_from_slice(literals);
        self.at += literals.len();
    }

    /// A sequence: `literals`, then a match `offset` back of `len` bytes (`len` >= 4), or none
    /// (the block's last sequence).
    pub fn sequence(&mut self, literals: &[u8], matched: Option<(usize, usize)>) {
        let extra = matched.map_or(0, |(_, len)| len - MIN_MATCH);
        let token = ((literals.len().min(15) as u8) << 4) | extra.min(15) as u8;
        self.byte(token);
        if literals.len() >= 15 {
            self.length(literals.len() - 15);
        }
        self.literals(literals);
        if let Some((offset, _)) = matched {
            self.byte(offset as u8);
            self.byte((offset >> 8) as u8);
            if extra >= 15 {
                self.length(extra - 15);
            }
        }
    }
}

/// Compresses `input` into `out` as one LZ4 block (which any LZ4 decoder reads), returning its
/// length; `out` must hold `max_compressed_size(input.len())` bytes. The greedy parse of liblz4's
/// fast mode at `acceleration` (1 or more: liblz4's `LZ4_compress_fast`, which c-blosc calls
/// with 10 - clevel), written for wasm32. lz4_flex's encoder, which has no acceleration, spent
/// half of a Blosc lz4 conversion's time in its match loop.
pub fn compress_into(input: &[u8], out: &mut [u8], acceleration: u32) -> Result<usize, String> {
    let n = input.len();
    if out.len() < max_compressed_size(n) {
        return Err(format!(
            "LZ4: room for {} bytes, where {n} bytes may take {}",
            out.len(),
            max_compressed_size(n)
        ));
    }
    let mut block = Block::new(out);
    let mut anchor = 0;
    if n > MF_LIMIT {
        let mut table = [0u32; 1 << HASH_LOG];
        let last_start = n - MF_LIMIT; // the last position a match may start at
        let match_end = n - LAST_LITERALS; // where matches end at the latest
        let mut pos = 1;
        'search: loop {
            // The next match: a position whose first four bytes equal the last position's
            // with the same hash, within 64 KiB.
            let mut misses = acceleration.clamp(1, 65_537) << SKIP_TRIGGER;
            let mut step = 1; // the position after a match is looked at too, as in liblz4
            let mut candidate;
            loop {
                if pos > last_start {
                    break 'search;
                }
                let sequence = read_u32(input, pos);
                let slot = &mut table[hash(input, pos)];
                candidate = *slot as usize;
                *slot = pos as u32;
                if candidate < pos
                    && pos - candidate <= MAX_DISTANCE
                    && read_u32(input, candidate) == sequence
                {
                    break;
                }
                pos += step;
                step = (misses >> SKIP_TRIGGER) as usize;
                misses += 1;
            }
            // Extended back over the literals, then forward.
            while pos > anchor && candidate > 0 && input[pos - 1] == input[candidate - 1] {
                pos -= 1;
                candidate -= 1;
            }
            let len =
                MIN_MATCH + count_same(input, pos + MIN_MATCH, candidate + MIN_MATCH, match_end);
            block.sequence(&input[anchor..pos], Some((pos - candidate, len)));
            pos += len;
            anchor = pos;
            if pos > last_start {
                break;
            }
            // The position two back goes into the table too (as in liblz4): a match often
            // follows where the last one ended.
            table[hash(input, pos - 2)] = (pos - 2) as u32;
        }
    }
    block.sequence(&input[anchor..], None);
    Ok(block.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(input: &[u8]) -> usize {
        let mut out = vec![0; max_compressed_size(input.len())];
        let len = compress_into(input, &mut out, 1).expect("room enough");
        let mut fast = vec![0; max_compressed_size(input.len())];
        let fast_len = compress_into(input, &mut fast, 9).expect("room enough");
        let mut back = vec![0; input.len()];
        let got = lz4_flex::block::decompress_into(&fast[..fast_len], &mut back).expect("LZ4");
        assert!(
            got == input.len() && back == input,
            "acceleration 9: other bytes"
        );
        let mut back = vec![0; input.len()];
        let got = lz4_flex::block::decompress_into(&out[..len], &mut back).expect("an LZ4 block");
        assert_eq!(got, input.len());
        assert!(back == input, "{} bytes came back other", input.len());
        len
    }

    /// A xorshift stream: the same "random" bytes on every run.
    fn noise(len: usize, mut state: u64) -> Vec<u8> {
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    }

    #[test]
    fn every_small_size_and_kind_of_input_comes_back() {
        for len in 0..300 {
            roundtrip(&vec![7; len]);
            roundtrip(&noise(len, len as u64 + 1));
            roundtrip(&(0..len).map(|i| (i / 3) as u8).collect::<Vec<_>>());
            roundtrip(&(0..len).map(|i| (i % 13) as u8).collect::<Vec<_>>());
        }
    }

    #[test]
    fn long_runs_literals_and_far_matches_come_back() {
        // Lengths past 15 + 255 * k in literals and in matches, matches at the 64 KiB limit.
        let mut input = noise(70_000, 9);
        input.extend(vec![0u8; 100_000]);
        let copy = input[..66_000].to_vec();
        input.extend(noise(65_530, 3));
        input.extend(copy);
        roundtrip(&input);
        // An image's bytes, shuffled as Blosc writes them: low bytes noisy, high bytes smooth.
        let image: Vec<u16> = (0..512 * 512)
            .map(|k| {
                let (i, j) = (k / 512, k % 512);
                (i * 3 + j * 5 + (((i * 7919) ^ (j * 104_729)) % 61)) as u16
            })
            .collect();
        let low: Vec<u8> = image.iter().map(|v| *v as u8).collect();
        let high: Vec<u8> = image.iter().map(|v| (*v >> 8) as u8).collect();
        roundtrip(&low);
        let high_len = roundtrip(&high);
        assert!(
            high_len < high.len() / 4,
            "smooth bytes compress: {high_len}"
        );
    }

    #[test]
    fn mixed_inputs_at_every_acceleration_come_back() {
        // Stretches of noise, runs and repeats of earlier stretches, in sizes around the
        // end-of-block limits and past 64 KiB, at accelerations from 1 to 65537 and beyond.
        let mut seed = 1u64;
        for case in 0..200u64 {
            let mut input = Vec::new();
            let target = [13usize, 17, 1000, 70_000, 200_000][case as usize % 5] + case as usize;
            while input.len() < target {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let len = (seed >> 40) as usize % 3000 + 1;
                match (seed >> 33) % 3 {
                    0 => input.extend(noise(len, seed | 1)),
                    1 => input.extend(std::iter::repeat_n((seed >> 50) as u8, len)),
                    _ if !input.is_empty() => {
                        let from = (seed >> 20) as usize % input.len();
                        let end = (from + len).min(input.len());
                        input.extend_from_within(from..end);
                    }
                    _ => {}
                }
            }
            for acceleration in [0, 1, 2, 9, 65_537, u32::MAX] {
                let mut out = vec![0; max_compressed_size(input.len())];
                let len = compress_into(&input, &mut out, acceleration).expect("room enough");
                let mut back = vec![0; input.len()];
                let got = lz4_flex::block::decompress_into(&out[..len], &mut back).ok();
                assert_eq!(
                    got,
                    Some(input.len()),
                    "case {case}, acceleration {acceleration}"
                );
                assert!(back == input, "case {case}, acceleration {acceleration}");
            }
        }
    }

    #[test]
    fn too_little_room_is_an_error() {
        let mut out = vec![0; 10];
        assert!(compress_into(&[1; 100], &mut out, 1).is_err());
    }
}
