//! LZ4 blocks written by a high-compression match finder, for Blosc's `lz4hc` (the `write`
//! feature). The output is the LZ4 block format, which any LZ4 decoder reads; only the search
//! differs from plain LZ4's: every earlier position with the same first four bytes within the
//! 64 KiB window is kept on a hash chain, and up to `attempts` of them are compared at each step,
//! as liblz4's `LZ4_compress_HC` does at levels 1-9 (2 to 256 attempts). Parsing follows liblz4's
//! hash-chain parser in its main step: before a match is written, a match is looked for two bytes
//! before its end, extended back into it; one that reaches further replaces it or cuts it short. Written here because
//! lz4_flex has no HC mode: plain LZ4 blocks came out 10-60 % larger than c-blosc's lz4hc on
//! the repository's sample image (tests/write_sizes.rs).

use zarr_wasm_kernels::lz4::{
    count_same, max_compressed_size, read_u32, Block, LAST_LITERALS, MAX_DISTANCE, MF_LIMIT,
    MIN_MATCH,
};

const HASH_LOG: u32 = 15;
/// The chain's slots: one per position of the window.
const WINDOW: usize = 1 << 16;

/// The match attempts per position at c-blosc's `clevel` (liblz4's HC levels 1-9; 10 and up
/// search as 9: they parse optimally in liblz4, which this does not).
fn attempts(clevel: u8) -> usize {
    1usize << clevel.clamp(2, 9).saturating_sub(1)
}

fn hash(sequence: u32) -> usize {
    (sequence.wrapping_mul(2_654_435_761) >> (32 - HASH_LOG)) as usize
}

/// The positions seen so far, by their first four bytes: the latest per hash (`head`), and from
/// each position the distance back to the previous one with its hash (`chain`, 0 for none).
struct Chains {
    head: Vec<u32>,
    chain: Vec<u16>,
    /// The next position to insert.
    next: usize,
}

/// `head` holds positions plus one: 0 is "none".
impl Chains {
    fn new() -> Chains {
        Chains {
            head: vec![0; 1 << HASH_LOG],
            chain: vec![0; WINDOW],
            next: 0,
        }
    }

    /// Inserts every position before `upto`.
    fn insert_until(&mut self, data: &[u8], upto: usize) {
        while self.next < upto {
            let at = self.next;
            let h = hash(read_u32(data, at));
            let previous = self.head[h] as usize;
            let delta = if previous == 0 { 0 } else { at + 1 - previous };
            self.chain[at % WINDOW] = if delta > MAX_DISTANCE {
                0
            } else {
                delta as u16
            };
            self.head[h] = (at + 1) as u32;
            self.next += 1;
        }
    }

    /// The longest match for `at` (length, distance) among up to `attempts` earlier positions,
    /// ending at `end` at the latest; length 0 if none reaches `MIN_MATCH`.
    fn longest(&self, data: &[u8], at: usize, end: usize, attempts: usize) -> (usize, usize) {
        let sequence = read_u32(data, at);
        let mut best = (0, 0);
        let head = self.head[hash(sequence)] as usize;
        if head == 0 {
            return best;
        }
        let mut candidate = head - 1;
        for _ in 0..attempts {
            let distance = at - candidate;
            if distance == 0 || distance > MAX_DISTANCE {
                break;
            }
            // The byte that would make this match longer than the best is checked first.
            if data.get(at + best.0) == data.get(candidate + best.0)
                && read_u32(data, candidate) == sequence
            {
                let length =
                    MIN_MATCH + count_same(data, at + MIN_MATCH, candidate + MIN_MATCH, end);
                if length > best.0 {
                    best = (length, distance);
                    if at + length >= end {
                        break;
                    }
                }
            }
            let step = self.chain[candidate % WINDOW] as usize;
            if step == 0 || step > candidate {
                break;
            }
            candidate -= step;
        }
        if best.0 < MIN_MATCH {
            (0, 0)
        } else {
            best
        }
    }

    /// The match covering the most bytes that starts at `at` or up to `at - low` bytes before it
    /// (a match found at `at` extended back), among up to `attempts` earlier positions, if it
    /// covers more than `than`: (start, length, distance).
    fn wider(
        &self,
        data: &[u8],
        at: usize,
        low: usize,
        end: usize,
        attempts: usize,
        than: usize,
    ) -> Option<(usize, usize, usize)> {
        let sequence = read_u32(data, at);
        let head = self.head[hash(sequence)] as usize;
        if head == 0 {
            return None;
        }
        let mut best: Option<(usize, usize, usize)> = None;
        let mut most = than;
        let mut candidate = head - 1;
        for _ in 0..attempts {
            let distance = at - candidate;
            if distance == 0 || distance > MAX_DISTANCE {
                break;
            }
            if read_u32(data, candidate) == sequence {
                let forward =
                    MIN_MATCH + count_same(data, at + MIN_MATCH, candidate + MIN_MATCH, end);
                let mut back = 0;
                while at - back > low
                    && candidate > back
                    && data[at - back - 1] == data[candidate - back - 1]
                {
                    back += 1;
                }
                if forward + back > most {
                    most = forward + back;
                    best = Some((at - back, most, distance));
                }
            }
            let step = self.chain[candidate % WINDOW] as usize;
            if step == 0 || step > candidate {
                break;
            }
            candidate -= step;
        }
        best
    }
}

/// Writes the match `(start, length, distance)` with the literals from `anchor` before it,
/// extended back over literals that match too; returns where the next literals start.
fn push_match(out: &mut Block, data: &[u8], anchor: usize, found: (usize, usize, usize)) -> usize {
    let (mut start, mut length, distance) = found;
    while start > anchor && start > distance && data[start - 1] == data[start - 1 - distance] {
        start -= 1;
        length += 1;
    }
    out.sequence(&data[anchor..start], Some((distance, length)));
    start + length
}

/// `data` as one LZ4 block, searched as liblz4's HC level `clevel` (1-12) searches.
pub fn compress(data: &[u8], clevel: u8) -> Vec<u8> {
    let n = data.len();
    let mut bytes = vec![0; max_compressed_size(n)];
    let mut out = Block::new(&mut bytes);
    if n <= MF_LIMIT {
        out.sequence(data, None);
        let len = out.len();
        bytes.truncate(len);
        return bytes;
    }
    let attempts = attempts(clevel);
    let start_limit = n - MF_LIMIT;
    let end = n - LAST_LITERALS;
    let mut chains = Chains::new();
    let mut anchor = 0;
    let mut at = 0;
    while at < start_limit {
        chains.insert_until(data, at);
        let (length, distance) = chains.longest(data, at, end, attempts);
        if length == 0 {
            at += 1;
            continue;
        }
        // The match in hand: (start, length, distance). As liblz4's hash-chain parser does, a
        // match that starts within it (found two bytes before its end, extended back) and
        // reaches further either swallows it, or cuts it short where it begins.
        let mut current = (at, length, distance);
        loop {
            let (start, length, distance) = current;
            let probe = start + length - 2;
            let next = if probe < start_limit {
                chains.insert_until(data, probe);
                chains.wider(data, probe, start, end, attempts, length)
            } else {
                None
            };
            let Some(next) = next else {
                anchor = push_match(&mut out, data, anchor, current);
                at = anchor;
                break;
            };
            let kept = next.0 - start;
            if kept >= MIN_MATCH {
                anchor = push_match(&mut out, data, anchor, (start, kept.min(length), distance));
            }
            // Otherwise what is left of the match in hand is too short: literals.
            current = next;
        }
    }
    out.sequence(&data[anchor..], None);
    let len = out.len();
    bytes.truncate(len);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(block: &[u8], size: usize) -> Vec<u8> {
        let mut out = vec![0; size];
        let n = zarr_wasm_kernels::lz4::decompress(block, &mut out).expect("an LZ4 block");
        assert_eq!(n, size);
        out
    }

    fn sample(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed;
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let word = (x >> 33) as u16 % 700 + (out.len() as u16 / 64);
            out.extend_from_slice(&word.to_le_bytes());
        }
        out.truncate(len);
        out
    }

    #[test]
    fn blocks_decode_back_at_every_level_and_size() {
        for len in [0, 1, 5, 12, 13, 17, 100, 4096, 70_000, 300_000] {
            for data in [
                sample(len, 7),
                vec![9; len],
                (0..len).map(|i| (i % 251) as u8).collect(),
            ] {
                for clevel in [1, 5, 9, 12] {
                    let block = compress(&data, clevel);
                    assert_eq!(
                        decode(&block, data.len()),
                        data,
                        "len {len}, clevel {clevel}"
                    );
                }
            }
        }
    }

    #[test]
    fn more_attempts_never_write_much_more() {
        let data = sample(256 << 10, 3);
        let sizes: Vec<usize> = [1, 5, 9]
            .iter()
            .map(|&l| compress(&data, l).len())
            .collect();
        assert!(
            sizes[1] <= sizes[0] && sizes[2] <= sizes[1] + sizes[1] / 100,
            "{sizes:?}"
        );
        let mut plain = vec![0; max_compressed_size(data.len())];
        let plain = zarr_wasm_kernels::lz4::compress_into(&data, &mut plain, 1).unwrap();
        assert!(
            sizes[2] < plain,
            "HC {} against plain LZ4 {plain}",
            sizes[2]
        );
    }
}
