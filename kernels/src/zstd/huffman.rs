//! Huffman-coded literals (RFC 8878 4.2): the tree description (weights, direct or FSE-coded),
//! the decoding table, and one or four streams decoded into the literals buffer.

use super::bits::{BackwardBits, Status};
use super::fse;

/// The longest code libzstd accepts (the RFC says 11; libzstd's decoder takes 12).
const MAX_BITS: u32 = 12;

/// A decoding table: for every `log`-bit value read from a stream, the symbol whose code it
/// starts with (low byte) and that code's length (high byte).
pub struct Table {
    pub log: u32,
    entries: Box<[u16; 1 << MAX_BITS]>,
}

impl Default for Table {
    fn default() -> Table {
        Table {
            log: 0,
            entries: Box::new([0; 1 << MAX_BITS]),
        }
    }
}

/// The weights' own FSE alphabet: a weight is 0 to 12.
const WEIGHT_BASE: [u32; 13] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
const WEIGHT_EXTRA: [u8; 13] = [0; 13];

/// Reads a tree description from the start of `src` into `table`; returns its length in bytes.
pub fn read_table(
    src: &[u8],
    table: &mut Table,
    scratch: &mut fse::Table,
) -> Result<usize, String> {
    let header = usize::from(*src.first().ok_or("a Huffman tree description is missing")?);
    let mut weights = [0u8; 256];
    let (count, used) = if header < 128 {
        let body = src
            .get(1..1 + header)
            .ok_or("a Huffman tree description is truncated")?;
        let count = fse_weights(body, &mut weights, scratch)?;
        (count, 1 + header)
    } else {
        let count = header - 127;
        let body = src
            .get(1..1 + count.div_ceil(2))
            .ok_or("a Huffman tree description is truncated")?;
        for (i, weight) in weights[..count].iter_mut().enumerate() {
            let byte = body[i / 2];
            *weight = if i % 2 == 0 { byte >> 4 } else { byte & 15 };
        }
        (count, 1 + count.div_ceil(2))
    };
    build(&mut weights, count, table)?;
    Ok(used)
}

/// Decodes FSE-coded weights: two states over one backward stream, alternating, until the stream
/// is read past its start.
fn fse_weights(
    src: &[u8],
    weights: &mut [u8; 256],
    table: &mut fse::Table,
) -> Result<usize, String> {
    let (counts, used) = fse::read_counts(src, 12, 6)?;
    fse::build(&counts, &WEIGHT_BASE, &WEIGHT_EXTRA, table)?;
    let mut bits = BackwardBits::new(&src[used..])?;
    let log = table.log;
    let mask = (1usize << fse::MAX_LOG) - 1;
    let mut states = [bits.read(log) as usize & mask, 0];
    states[1] = bits.read(log) as usize & mask;
    let mut n = 0;
    let mut which = 0;
    loop {
        if n > 253 {
            return Err("a Huffman tree has more than 255 weights".into());
        }
        let entry = table.entries[states[which]];
        weights[n] = entry.base as u8;
        n += 1;
        states[which] =
            (usize::from(entry.next) + bits.read(u32::from(entry.bits)) as usize) & mask;
        if bits.reload() == Status::Overflow {
            weights[n] = table.entries[states[1 - which]].base as u8;
            return Ok(n + 1);
        }
        which = 1 - which;
    }
}

/// Completes the weights with the last one (implied: it makes the code complete) and builds the
/// decoding table.
fn build(weights: &mut [u8; 256], count: usize, table: &mut Table) -> Result<(), String> {
    let mut per_weight = [0usize; MAX_BITS as usize + 2];
    let mut total = 0u32;
    for &w in &weights[..count] {
        if u32::from(w) > MAX_BITS {
            return Err(format!("a Huffman weight of {w}, above {MAX_BITS}"));
        }
        per_weight[usize::from(w)] += 1;
        total += (1 << w) >> 1;
    }
    if total == 0 {
        return Err("a Huffman tree whose weights are all zero".into());
    }
    let log = 32 - total.leading_zeros();
    if log > MAX_BITS {
        return Err(format!(
            "a Huffman tree with codes longer than {MAX_BITS} bits"
        ));
    }
    let rest = (1u32 << log) - total;
    if !rest.is_power_of_two() {
        return Err("a Huffman tree's weights do not make a complete code".into());
    }
    let last = rest.trailing_zeros() + 1;
    weights[count] = last as u8;
    per_weight[last as usize] += 1;
    // A complete code has an even number, at least 2, of the longest codes (libzstd checks it).
    if per_weight[1] < 2 || per_weight[1] % 2 != 0 {
        return Err("a Huffman tree's weights do not make a complete code".into());
    }
    let mut next = [0usize; MAX_BITS as usize + 2];
    let mut start = 0;
    for w in 1..=log as usize {
        next[w] = start;
        start += per_weight[w] << (w - 1);
    }
    table.log = log;
    for (symbol, &w) in weights[..=count].iter().enumerate() {
        if w == 0 {
            continue;
        }
        let w = usize::from(w);
        let len = 1 << (w - 1);
        let entry = symbol as u16 | ((log as u16 + 1 - w as u16) << 8);
        table.entries[next[w]..next[w] + len].fill(entry);
        next[w] += len;
    }
    Ok(())
}

impl Table {
    pub fn copy_from(&mut self, other: &Table) {
        self.log = other.log;
        *self.entries = *other.entries;
    }

    #[inline(always)]
    fn decode(&self, bits: &mut BackwardBits<'_>) -> u8 {
        decode(&self.entries, self.log, bits)
    }

    /// Decodes one stream filling `out` (a single stream holds at most 1023 literals: one symbol
    /// at a time is fast enough).
    pub fn decode_stream(&self, src: &[u8], out: &mut [u8]) -> Result<(), String> {
        let mut bits = BackwardBits::new(src)?;
        for byte in out {
            bits.reload();
            *byte = self.decode(&mut bits);
        }
        finish(&mut bits)
    }

    /// Decodes four streams (after their 6-byte jump table) into the four quarters of `out`,
    /// interleaved while all four are far from their starts.
    pub fn decode_four(&self, src: &[u8], out: &mut [u8]) -> Result<(), String> {
        if out.len() < 6 {
            return Err("four Huffman streams for fewer than 6 literals".into());
        }
        let jump = src.get(..6).ok_or("a Huffman jump table is truncated")?;
        let size = |i: usize| usize::from(u16::from_le_bytes([jump[2 * i], jump[2 * i + 1]]));
        let ends = [
            6 + size(0),
            6 + size(0) + size(1),
            6 + size(0) + size(1) + size(2),
        ];
        if ends[2] > src.len() {
            return Err("a Huffman jump table points past the literals".into());
        }
        let segment = out.len().div_ceil(4);
        let (q0, rest) = out.split_at_mut(segment);
        let (q1, rest) = rest.split_at_mut(segment);
        let (q2, q3) = rest.split_at_mut(segment);
        let mut streams = [
            BackwardBits::new(&src[6..ends[0]])?,
            BackwardBits::new(&src[ends[0]..ends[1]])?,
            BackwardBits::new(&src[ends[1]..ends[2]])?,
            BackwardBits::new(&src[ends[2]..])?,
        ];
        let [s0, s1, s2, s3] = &mut streams;
        // The table and its log in locals: the stores to the output would otherwise make the
        // compiler load them again from `self` for every symbol.
        let (entries, log) = (&*self.entries, self.log);
        // Four to six symbols of each stream at a time (at most 55 bits), the streams interleaved to
        // hide each lookup's latency, while all four are far from their starts. Every quarter but
        // the last has `segment` bytes, the last at most that.
        let quarters = [&mut *q0, &mut *q1, &mut *q2, &mut *q3];
        let streams4 = [&mut *s0, &mut *s1, &mut *s2, &mut *s3];
        let done = match log {
            12 => bursts::<4>(entries, log, streams4, quarters),
            10 | 11 => bursts::<5>(entries, log, streams4, quarters),
            _ => bursts::<6>(entries, log, streams4, quarters),
        };
        for (q, s) in [q0, q1, q2, q3].into_iter().zip(streams.iter_mut()) {
            for byte in &mut q[done..] {
                s.reload();
                *byte = decode(entries, log, s);
            }
            finish(s)?;
        }
        Ok(())
    }
}

/// libzstd's fast loop (`HUF_decompress4X1_usingDTable_internal_fast_c_loop`): each stream held
/// as one register (`BackwardBits::fused`), `N` symbols of each per round, `N * log <= 55`, then
/// one reload each from where the sentinel says. Returns how many symbols each stream decoded.
#[inline(always)]
fn bursts<const N: usize>(
    entries: &[u16; 1 << MAX_BITS],
    log: u32,
    streams: [&mut BackwardBits<'_>; 4],
    quarters: [&mut [u8]; 4],
) -> usize {
    let shift = 64 - log;
    let srcs = streams.each_ref().map(|s| s.src());
    let mut state = streams.each_ref().map(|s| s.fused());
    let [q0, q1, q2, q3] = quarters;
    let (c0, _) = q0.as_chunks_mut::<N>();
    let (c1, _) = q1.as_chunks_mut::<N>();
    let (c2, _) = q2.as_chunks_mut::<N>();
    let (c3, _) = q3.as_chunks_mut::<N>();
    let mut done = 0;
    #[inline(always)]
    fn symbol(entries: &[u16; 1 << MAX_BITS], shift: u32, bits: &mut u64) -> u8 {
        // SAFETY: `*bits >> shift < 1 << log <= 1 << MAX_BITS`, the table's size.
        let entry = unsafe { *entries.get_unchecked((*bits >> shift) as usize) };
        *bits <<= entry >> 8;
        entry as u8
    }
    for (((o0, o1), o2), o3) in c0.iter_mut().zip(c1).zip(c2).zip(c3) {
        if state.iter().any(|&(at, _)| at < 8) {
            break;
        }
        let [(_, b0), (_, b1), (_, b2), (_, b3)] = &mut state;
        for i in 0..N {
            o0[i] = symbol(entries, shift, b0);
            o1[i] = symbol(entries, shift, b1);
            o2[i] = symbol(entries, shift, b2);
            o3[i] = symbol(entries, shift, b3);
        }
        for ((at, bits), src) in state.iter_mut().zip(srcs) {
            let read = bits.trailing_zeros();
            // At most 63 bits are read: 7 bytes back at most, and `*at >= 8`.
            *at -= (read >> 3) as usize;
            *bits = (load(src, *at) | 1) << (read & 7);
        }
        done += N;
    }
    // (A stream shorter than 16 bytes never starts a round, and keeps its reader as it was.)
    if done > 0 {
        for (stream, (at, bits)) in streams.into_iter().zip(state) {
            stream.set_fused(at, bits);
        }
    }
    done
}

/// The 8 bytes at `at` of a stream, `at + 8 <= src.len()`.
#[inline(always)]
fn load(src: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&src[at..at + 8]);
    u64::from_le_bytes(word)
}

/// The symbol whose code starts the stream's next `log` bits; its code read.
#[inline(always)]
fn decode(entries: &[u16; 1 << MAX_BITS], log: u32, bits: &mut BackwardBits<'_>) -> u8 {
    // `log` is 1 to `MAX_BITS` (a tree has codes of at least one bit).
    let index = bits.peek_shifted(64 - log) as usize;
    // SAFETY: `index < 1 << log <= 1 << MAX_BITS`, the table's size.
    let entry = unsafe { *entries.get_unchecked(index) };
    bits.skip(u32::from(entry >> 8));
    entry as u8
}

fn finish(bits: &mut BackwardBits<'_>) -> Result<(), String> {
    bits.reload();
    if !bits.is_complete() {
        return Err("a Huffman stream does not end where its literals do".into());
    }
    Ok(())
}
