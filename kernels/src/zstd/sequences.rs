//! The sequences section (RFC 8878 3.1.1.3.2): its header, the three FSE tables (predefined, RLE,
//! described or repeated), and the sequences themselves, each decoded and executed at once:
//! literals copied, then a match copied from earlier output (or the dictionary's content).

use super::bits::BackwardBits;
use super::fse::{self, Counts, Table};
use super::{Error, History};

pub const LL_BASE: [u32; 36] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 20, 22, 24, 28, 32, 40, 48, 64,
    128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
];
pub const LL_EXTRA: [u8; 36] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11,
    12, 13, 14, 15, 16,
];
pub const ML_BASE: [u32; 53] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
    28, 29, 30, 31, 32, 33, 34, 35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027,
    2051, 4099, 8195, 16387, 32771, 65539,
];
pub const ML_EXTRA: [u8; 53] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
];
/// Offset codes: `1 << code` plus `code` bits.
pub const OF_BASE: [u32; 32] = {
    let mut base = [0u32; 32];
    let mut code = 0;
    while code < 32 {
        base[code] = 1 << code;
        code += 1;
    }
    base
};
pub const OF_EXTRA: [u8; 32] = {
    let mut extra = [0u8; 32];
    let mut code = 0;
    while code < 32 {
        extra[code] = code as u8;
        code += 1;
    }
    extra
};

const LL_DEFAULT: [i16; 36] = [
    4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
    -1, -1, -1, -1,
];
const ML_DEFAULT: [i16; 53] = [
    1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1,
];
const OF_DEFAULT: [i16; 29] = [
    1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1,
];

/// One of the three kinds of code a sequence carries.
pub struct Kind {
    name: &'static str,
    base: &'static [u32],
    extra: &'static [u8],
    default: &'static [i16],
    default_log: u32,
    max_log: u32,
}

pub const LITERAL_LENGTHS: Kind = Kind {
    name: "literal lengths",
    base: &LL_BASE,
    extra: &LL_EXTRA,
    default: &LL_DEFAULT,
    default_log: 6,
    max_log: 9,
};
pub const OFFSETS: Kind = Kind {
    name: "offsets",
    base: &OF_BASE,
    extra: &OF_EXTRA,
    default: &OF_DEFAULT,
    default_log: 5,
    max_log: 8,
};
pub const MATCH_LENGTHS: Kind = Kind {
    name: "match lengths",
    base: &ML_BASE,
    extra: &ML_EXTRA,
    default: &ML_DEFAULT,
    default_log: 6,
    max_log: 9,
};

/// A sequence table as a block left it, for the next block's "repeat" mode.
#[derive(Default)]
pub struct SeqTable {
    pub table: Table,
    pub ready: bool,
    /// Whether `table` is the kind's predefined one, which a block that asks for it again then
    /// need not build (Blosc chunks hold a frame per block, most of them with predefined tables).
    predefined: bool,
}

impl SeqTable {
    pub fn copy_from(&mut self, other: &SeqTable) {
        self.table.log = other.table.log;
        *self.table.entries = *other.table.entries;
        self.ready = other.ready;
        self.predefined = other.predefined;
    }
}

/// Reads one table's part of the section (`mode` from the modes byte) from the start of `src`;
/// returns the bytes it took.
pub fn read_table(
    kind: &Kind,
    mode: u8,
    src: &[u8],
    table: &mut SeqTable,
) -> Result<usize, String> {
    let in_kind = |e: String| format!("the {} table: {e}", kind.name);
    if mode != 3 && !(mode == 0 && table.predefined) {
        // Rebuilt (or refused) below: no longer the predefined table, whatever happens.
        table.predefined = false;
        table.ready = false;
    }
    let used = match mode {
        0 if table.predefined => 0,
        0 => {
            let mut counts = Counts {
                log: kind.default_log,
                counts: [0; 64],
                symbols: kind.default.len(),
            };
            counts.counts[..kind.default.len()].copy_from_slice(kind.default);
            fse::build(&counts, kind.base, kind.extra, &mut table.table).map_err(in_kind)?;
            0
        }
        1 => {
            let symbol = *src.first().ok_or_else(|| in_kind("truncated".into()))?;
            fse::single(usize::from(symbol), kind.base, kind.extra, &mut table.table)
                .map_err(in_kind)?;
            1
        }
        2 => {
            let (counts, used) =
                fse::read_counts(src, kind.base.len() - 1, kind.max_log).map_err(in_kind)?;
            fse::build(&counts, kind.base, kind.extra, &mut table.table).map_err(in_kind)?;
            used
        }
        _ => {
            if !table.ready {
                return Err(in_kind("repeats a table no earlier block had".into()));
            }
            0
        }
    };
    table.ready = true;
    table.predefined = mode == 0 || (mode == 3 && table.predefined);
    Ok(used)
}

/// Reads the section's sequence count from the start of `src`: the count and the bytes it took.
pub fn read_count(src: &[u8]) -> Result<(usize, usize), String> {
    let byte = |i: usize| {
        src.get(i)
            .map(|&b| usize::from(b))
            .ok_or("the sequences section's header is truncated")
    };
    Ok(match byte(0)? {
        0..=127 => (byte(0)?, 1),
        255 => (byte(1)? + (byte(2)? << 8) + 0x7F00, 3),
        first => (((first - 128) << 8) + byte(1)?, 2),
    })
}

/// What the sequences of a block need besides their stream.
pub struct Tables<'t> {
    pub literal_lengths: &'t Table,
    pub offsets: &'t Table,
    pub match_lengths: &'t Table,
}

/// Decodes `count` sequences from `stream` and executes them: literals from `literals` (the
/// first `literal_count` of the bytes given; those after may be read, never used), output
/// from `out[at..]` (`out` is the frame's output so far: offsets reach back into it, and past its
/// start into `history`). Then the literals left over. Returns the new end of the output.
#[allow(clippy::too_many_arguments)]
pub fn execute(
    stream: &[u8],
    count: usize,
    tables: &Tables<'_>,
    repeats: &mut [u32; 3],
    (literals, literal_count): (&[u8], usize),
    out: &mut [u8],
    mut at: usize,
    history: History<'_>,
) -> Result<usize, Error> {
    let mut bits = BackwardBits::new(stream).map_err(Error::Corrupt)?;
    // The tables in locals: the stores to the output would otherwise make the compiler load
    // them again through `tables` for every sequence.
    let (ll, of, ml) = (
        &*tables.literal_lengths.entries,
        &*tables.offsets.entries,
        &*tables.match_lengths.entries,
    );
    let state_mask = (1usize << fse::MAX_LOG) - 1;
    let mut ll_state = bits.read(tables.literal_lengths.log) as usize & state_mask;
    let mut of_state = bits.read(tables.offsets.log) as usize & state_mask;
    let mut ml_state = bits.read(tables.match_lengths.log) as usize & state_mask;
    let mut reps = *repeats;
    let mut lit = 0usize;
    for n in 0..count {
        bits.reload();
        let (l, o, m) = (ll[ll_state], of[of_state], ml[ml_state]);
        // After the reload at most 7 bits are read: the extra bits (up to 31 + 16 + 16) and the
        // state bits (up to 9 + 9 + 8) fit in the other 57 unless the extra bits are over 30.
        let offset_value = o.base.wrapping_add(bits.read(u32::from(o.extra)) as u32);
        let match_len = m.base as usize + bits.read(u32::from(m.extra)) as usize;
        if u32::from(o.extra) + u32::from(m.extra) + u32::from(l.extra) > 30 {
            bits.reload();
        }
        let lit_len = l.base as usize + bits.read(u32::from(l.extra)) as usize;
        if n + 1 < count {
            ll_state = (usize::from(l.next) + bits.read(u32::from(l.bits)) as usize) & state_mask;
            ml_state = (usize::from(m.next) + bits.read(u32::from(m.bits)) as usize) & state_mask;
            of_state = (usize::from(o.next) + bits.read(u32::from(o.bits)) as usize) & state_mask;
        }
        let offset = resolve_offset(offset_value, lit_len, &mut reps);
        let lit_end = lit + lit_len;
        if lit_end > literal_count {
            return Err(Error::Corrupt(format!(
                "sequence {n} takes literals past the block's {literal_count}"
            )));
        }
        if at + lit_len + match_len > out.len() {
            return Err(Error::OutputFull);
        }
        copy_literals(out, at, literals, lit, lit_len);
        at += lit_len;
        lit = lit_end;
        copy_match(out, at, offset as usize, match_len, history)
            .map_err(|e| Error::Corrupt(format!("sequence {n}: {e}")))?;
        at += match_len;
    }
    *repeats = reps;
    bits.reload();
    if !bits.is_complete() {
        return Err(Error::Corrupt(
            "the sequences' stream does not end where its last sequence does".into(),
        ));
    }
    let rest = literal_count - lit;
    if at + rest > out.len() {
        return Err(Error::OutputFull);
    }
    out[at..at + rest].copy_from_slice(&literals[lit..literal_count]);
    Ok(at + rest)
}

/// The offset an offset value means, the repeat offsets updated (RFC 8878 3.1.1.5). An offset of
/// 0 (a repeat of 1 less 1) is returned as 0 and refused by the match copy.
#[inline(always)]
fn resolve_offset(value: u32, lit_len: usize, repeats: &mut [u32; 3]) -> u32 {
    if value > 3 {
        let offset = value - 3;
        *repeats = [offset, repeats[0], repeats[1]];
        return offset;
    }
    match value - 1 + u32::from(lit_len == 0) {
        0 => repeats[0],
        1 => {
            repeats.swap(0, 1);
            repeats[0]
        }
        2 => {
            *repeats = [repeats[2], repeats[0], repeats[1]];
            repeats[0]
        }
        _ => {
            let offset = repeats[0].wrapping_sub(1);
            *repeats = [offset, repeats[0], repeats[1]];
            offset
        }
    }
}

/// Copies `len` literals from `literals[from..]` to `out[at..]` (both checked by the caller),
/// 16 bytes at a time where both have room past the copy's end.
#[inline(always)]
fn copy_literals(out: &mut [u8], at: usize, literals: &[u8], from: usize, len: usize) {
    if at + len + 16 <= out.len() && from + len + 16 <= literals.len() {
        let mut i = 0;
        while i < len {
            // SAFETY: `from + i + 16 <= literals.len()` and `at + i + 16 <= out.len()`, as
            // `i < len` and both have 16 bytes of room past `len`; the two are separate slices.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    literals.as_ptr().add(from + i),
                    out.as_mut_ptr().add(at + i),
                    16,
                );
            }
            i += 16;
        }
        return;
    }
    out[at..at + len].copy_from_slice(&literals[from..from + len]);
}

/// Copies a match of `len` bytes from `offset` bytes back to `out[at..]` (room checked by the
/// caller). An offset past the output's start reaches into `history` (a dictionary's content).
#[inline(always)]
fn copy_match(
    out: &mut [u8],
    at: usize,
    offset: usize,
    len: usize,
    history: History<'_>,
) -> Result<(), String> {
    if offset == 0 || offset > at {
        return copy_from_history(out, at, offset, len, history);
    }
    if at + len + 16 <= out.len() {
        copy_match_fast(out, at, offset, len);
        return Ok(());
    }
    let from = at - offset;
    if offset >= len {
        out.copy_within(from..from + len, at);
        return Ok(());
    }
    // An overlapping match repeats the `offset` bytes before it: copy them, then the doubled
    // run, and so on.
    let mut done = 0;
    while done < len {
        let n = (offset + done).min(len - done);
        out.copy_within(from..from + n, at + done);
        done += n;
    }
    Ok(())
}

/// `copy_match` where `out` has 16 bytes of room past the match: 16-byte chunks that never overlap
/// their source, the last running past the match into room the caller writes next. A match
/// closer than 16 bytes repeats a short period: its first 16 bytes are made from it, and then the
/// output repeats at a multiple of the offset of 16 or more, from where the chunks copy.
#[inline(always)]
fn copy_match_fast(out: &mut [u8], at: usize, offset: usize, len: usize) {
    let base = out.as_mut_ptr();
    let copy = |from: usize, to: usize, n: usize| {
        // SAFETY: `offset <= at`, and `at + len + 16 <= out.len()` (the caller's checks). Each
        // copy below writes within `at..at + max(len, 16) + 16`, and reads `n` bytes from
        // `at - offset` or later that end before `to` (`n` is at most the distance copied from).
        unsafe { std::ptr::copy_nonoverlapping(base.add(from), base.add(to), n) };
    };
    let distance = if offset >= 16 {
        offset
    } else {
        if offset >= 8 {
            copy(at - offset, at, 8);
            copy(at + 8 - offset, at + 8, 8);
        } else {
            for i in 0..8 {
                // SAFETY: as above: `at + i < at + 16 <= out.len()`, `at + i - offset >= 0`.
                unsafe { *base.add(at + i) = *base.add(at + i - offset) };
            }
            // The first 8 repeat at `offset * ceil(8 / offset)`, 8 to 14 bytes back.
            let back = offset * 8usize.div_ceil(offset);
            copy(at + 8 - back, at + 8, 8);
        }
        if len <= 16 {
            return;
        }
        offset * 16usize.div_ceil(offset)
    };
    let mut i = if offset >= 16 { 0 } else { 16 };
    while i < len {
        copy(at + i - distance, at + i, 16);
        i += 16;
    }
}

#[cold]
fn copy_from_history(
    out: &mut [u8],
    at: usize,
    offset: usize,
    len: usize,
    history: &[u8],
) -> Result<(), String> {
    if offset == 0 {
        return Err("an offset of 0".into());
    }
    let back = offset - at;
    if back > history.len() {
        return Err(format!(
            "an offset of {offset} reaches before the frame's start ({at} bytes decoded{})",
            match history.len() {
                0 => String::new(),
                n => format!(", and a dictionary of {n}"),
            }
        ));
    }
    let from_history = back.min(len);
    let start = history.len() - back;
    out[at..at + from_history].copy_from_slice(&history[start..start + from_history]);
    // The rest repeats the output from its start.
    for i in from_history..len {
        out[at + i] = out[i - from_history];
    }
    Ok(())
}
