//! Finite State Entropy tables (RFC 8878 4.1): reading a table's description (its normalized
//! counts) and building the decoding table, whose entries carry what a symbol decodes to, so that
//! decoding a sequence's lengths and offset takes one lookup per state.

use super::bits::ForwardBits;

/// One state of a decoding table: the symbol's value (`base`, plus `extra` bits read from the
/// stream), and how to reach the next state (`next` plus `bits` bits read from the stream).
#[derive(Clone, Copy, Default, Debug)]
pub struct Entry {
    pub base: u32,
    pub next: u16,
    pub bits: u8,
    pub extra: u8,
}

/// The largest accuracy log any zstd table has (literal and match lengths: 9).
pub const MAX_LOG: u32 = 9;

/// A decoding table of `1 << log` states.
pub struct Table {
    pub log: u32,
    pub entries: Box<[Entry; 1 << MAX_LOG]>,
}

impl Default for Table {
    fn default() -> Table {
        Table {
            log: 0,
            entries: Box::new([Entry::default(); 1 << MAX_LOG]),
        }
    }
}

/// The normalized counts of a table's symbols: a count of -1 is a symbol of "less than one" state.
pub struct Counts {
    pub log: u32,
    pub counts: [i16; 64],
    pub symbols: usize,
}

/// Reads a table description from the start of `src`, for symbols up to `max_symbol` and an
/// accuracy log up to `max_log`; returns the counts and how many bytes the description took.
pub fn read_counts(src: &[u8], max_symbol: usize, max_log: u32) -> Result<(Counts, usize), String> {
    let mut bits = ForwardBits::new(src, 0);
    let log = bits.read(4) + 5;
    if log > max_log {
        return Err(format!(
            "an FSE table's accuracy log is {log}, above this table's maximum of {max_log}"
        ));
    }
    let mut counts = [0i16; 64];
    let mut remaining = (1i32 << log) + 1;
    let mut threshold = 1i32 << log;
    let mut width = log + 1;
    let mut symbol = 0usize;
    let mut after_zero = false;
    while remaining > 1 && symbol <= max_symbol {
        if after_zero {
            // A zero count is followed by 2-bit repeat flags: 3 means three more zeros and
            // another flag.
            loop {
                let repeat = bits.read(2) as usize;
                symbol += repeat;
                if repeat != 3 {
                    break;
                }
                if symbol > max_symbol {
                    break;
                }
            }
            if symbol > max_symbol {
                return Err("an FSE table's zero counts run past its last symbol".into());
            }
        }
        let low_max = (2 * threshold - 1) - remaining;
        let value = bits.peek(width) as i32;
        let count = if (value & (threshold - 1)) < low_max {
            bits.skip(width - 1);
            value & (threshold - 1)
        } else {
            bits.skip(width);
            let v = value & (2 * threshold - 1);
            if v >= threshold {
                v - low_max
            } else {
                v
            }
        } - 1;
        remaining -= count.abs();
        if remaining < 1 {
            return Err("an FSE table's counts add up to more than its states".into());
        }
        counts[symbol] = count as i16;
        symbol += 1;
        after_zero = count == 0;
        while remaining < threshold {
            width -= 1;
            threshold >>= 1;
        }
    }
    if remaining != 1 {
        return Err("an FSE table's counts do not add up to its states".into());
    }
    let used = bits.bytes_used();
    if used > src.len() {
        return Err("an FSE table description is truncated".into());
    }
    Ok((
        Counts {
            log,
            counts,
            symbols: symbol,
        },
        used,
    ))
}

/// Builds the decoding table of `counts`, each symbol `s` decoding to `base[s]` plus `extra[s]`
/// bits (RFC 8878 4.1.1: the spread of symbols over states, and each state's next-state rule).
pub fn build(counts: &Counts, base: &[u32], extra: &[u8], table: &mut Table) -> Result<(), String> {
    let log = counts.log;
    let size = 1usize << log;
    let counts = &counts.counts[..counts.symbols];
    if counts.len() > base.len() {
        return Err("an FSE table has more symbols than the alphabet".into());
    }
    let mut symbol_at = [0u8; 1 << MAX_LOG];
    let mut next_of = [0u16; 64];
    let mut high = size - 1;
    for (s, &count) in counts.iter().enumerate() {
        if count == -1 {
            symbol_at[high] = s as u8;
            high = high.wrapping_sub(1);
            next_of[s] = 1;
        } else {
            next_of[s] = count as u16;
        }
    }
    let step = (size >> 1) + (size >> 3) + 3;
    let mask = size - 1;
    let mut position = 0usize;
    for (s, &count) in counts.iter().enumerate() {
        for _ in 0..count.max(0) {
            symbol_at[position] = s as u8;
            position = (position + step) & mask;
            while position > high {
                position = (position + step) & mask;
            }
        }
    }
    if position != 0 {
        return Err("an FSE table's symbols do not spread over its states".into());
    }
    table.log = log;
    for (state, entry) in table.entries[..size].iter_mut().enumerate() {
        let s = usize::from(symbol_at[state]);
        let x = next_of[s];
        next_of[s] += 1;
        let bits = log - (15 - x.leading_zeros());
        *entry = Entry {
            base: base[s],
            next: ((u32::from(x) << bits) as usize - size) as u16,
            bits: bits as u8,
            extra: extra[s],
        };
    }
    Ok(())
}

/// A table of one state, decoding to `symbol` without reading bits (the RLE mode).
pub fn single(symbol: usize, base: &[u32], extra: &[u8], table: &mut Table) -> Result<(), String> {
    if symbol >= base.len() {
        return Err(format!(
            "an RLE table's symbol {symbol} is outside the alphabet"
        ));
    }
    table.log = 0;
    table.entries[0] = Entry {
        base: base[symbol],
        next: 0,
        bits: 0,
        extra: extra[symbol],
    };
    Ok(())
}
