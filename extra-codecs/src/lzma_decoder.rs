//! LZMA and LZMA2 data, decoded in steps of bounded output: numcodecs' `lzma` in all three
//! containers (XZ blocks, the alone format, raw LZMA2) ends up here.
//!
//! The whole chunk is in memory, so a decode stops anywhere and goes on later from its state:
//! the range coder's two registers and its place in the input, the model's probabilities and the
//! last distances, and the window of the last bytes decoded (the dictionary matches copy from).
//! A step decodes symbols until it has made its budget of output (a match of up to 273 bytes
//! past it), then hands its output over: memory is the dictionary (at most twice its size in the
//! window), never the chunk.
//!
//! The decoder is the one of the LZMA specification (Igor Pavlov's `LzmaSpec.cpp`), with the
//! checks lzma-rs made, which read these chunks before: a distance past the dictionary or the
//! data decoded so far, a match past a size the stream declares, an end marker with bytes after
//! it or a range coder not at zero, and input that ends before the data does are errors.

/// What a step's budget is charged for resetting the model's state (filling its probabilities):
/// a stream of tiny LZMA2 chunks that each reset it costs its steps that work, not nothing.
const RESET_COST: usize = 4096;

/// What a step's budget is charged for each LZMA2 chunk besides its output (its header and
/// the start of its range coder): a stream of chunks of a byte each takes many steps.
const CHUNK_COST: usize = 64;

/// The most chunk headers one call of `Lzma2::scan` reads.
const SCAN_CHUNKS: usize = 1 << 14;

/// The window: the last bytes decoded, from which matches copy, and the output a step has made
/// and not yet handed over.
pub struct Window {
    buf: Vec<u8>,
    /// The position of `buf[0]` since the last dictionary reset.
    base: usize,
    /// Bytes of `buf` from here on are not handed over yet (`take`).
    fresh: usize,
    /// The farthest a match may reach back (the dictionary's size).
    dict: usize,
    /// The output so far, over dictionary resets, and the most there may be.
    total: usize,
    limit: usize,
}

impl Window {
    /// A window for output that comes after `before` bytes of the same chunk, which may have
    /// `limit` bytes in all.
    pub fn new(dict: usize, limit: usize, before: usize) -> Window {
        Window {
            buf: Vec::new(),
            base: 0,
            fresh: 0,
            dict: dict.max(1),
            total: before,
            limit,
        }
    }

    /// Bytes decoded since the last dictionary reset.
    fn pos(&self) -> usize {
        self.base + self.buf.len()
    }

    /// The chunk's output so far (with what came before this window), over dictionary resets.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The byte `dist` (at least 1) back, where a match may reach it.
    fn back(&self, dist: usize) -> Result<u8, String> {
        if dist > self.buf.len() || dist > self.dict {
            return Err(far(dist, self.pos(), self.dict));
        }
        Ok(self.buf[self.buf.len() - dist])
    }

    /// Room for `len` more bytes of output, or the error that the limit is passed.
    fn room(&mut self, len: usize) -> Result<(), String> {
        if len > self.limit - self.total {
            return Err(too_much(self.limit));
        }
        self.total += len;
        if self.buf.capacity() - self.buf.len() < len {
            self.buf
                .try_reserve(len.max(1 << 16))
                .map_err(|_| "out of memory for the decoded chunk".to_string())?;
        }
        Ok(())
    }

    fn literal(&mut self, byte: u8) -> Result<(), String> {
        self.room(1)?;
        self.buf.push(byte);
        Ok(())
    }

    /// Copies `len` bytes from `dist` back, as a byte-by-byte copy would (overlapping: a run).
    fn copy(&mut self, dist: usize, len: usize) -> Result<(), String> {
        if dist > self.buf.len() || dist > self.dict {
            return Err(far(dist, self.pos(), self.dict));
        }
        self.room(len)?;
        let start = self.buf.len() - dist;
        if dist == 1 {
            let byte = self.buf[start];
            self.buf.resize(start + 1 + len, byte);
            return Ok(());
        }
        // The source doubles as it is copied: whole periods of `dist` at first, the rest last.
        let mut left = len;
        while left > 0 {
            let n = left.min(self.buf.len() - start);
            self.buf.extend_from_within(start..start + n);
            left -= n;
        }
        Ok(())
    }

    /// Appends `bytes` as they are (an uncompressed LZMA2 chunk).
    fn append(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.room(bytes.len())?;
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    /// Hands the output not handed over yet to `out`, then forgets what matches can no longer
    /// reach: once the window holds twice the dictionary (and at least 1 MiB past it), it keeps
    /// only the dictionary, so that each byte is moved about once.
    pub fn take(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        let fresh = &self.buf[self.fresh..];
        out.try_reserve(fresh.len())
            .map_err(|_| "out of memory for the decoded chunk".to_string())?;
        out.extend_from_slice(fresh);
        self.fresh = self.buf.len();
        if self.buf.len() - self.dict.min(self.buf.len()) >= self.dict.max(1 << 20) {
            let drop = self.buf.len() - self.dict;
            self.buf.drain(..drop);
            self.base += drop;
            self.fresh -= drop;
        }
        Ok(())
    }

    /// A dictionary reset: the output is handed over and nothing before it may be reached.
    fn reset(&mut self, out: &mut Vec<u8>) -> Result<(), String> {
        self.take(out)?;
        self.buf.clear();
        self.base = 0;
        self.fresh = 0;
        Ok(())
    }
}

fn far(dist: usize, pos: usize, dict: usize) -> String {
    format!(
        "a match reaches {dist} bytes back, past the {} the dictionary holds there",
        pos.min(dict)
    )
}

pub fn too_much(max: usize) -> String {
    format!("decodes to more than the {max} bytes the chunk may have")
}

/// The range decoder over the bytes of one LZMA stream or LZMA2 chunk. Reading past them gives
/// zeros and marks `over`, checked where the data should end, so that the inner loop has no
/// error path; what is decoded meanwhile is bounded by the step as any output is.
struct RangeDecoder<'a> {
    input: &'a [u8],
    at: usize,
    range: u32,
    code: u32,
    over: bool,
}

/// The range decoder's registers and place, kept between steps.
#[derive(Clone, Copy)]
struct Coder {
    at: usize,
    range: u32,
    code: u32,
}

impl<'a> RangeDecoder<'a> {
    /// Starts on `input[at..]`: a byte lzma-rs ignored (encoders write 0) and the first code.
    fn start(input: &'a [u8], at: usize) -> RangeDecoder<'a> {
        let mut rc = RangeDecoder {
            input,
            at: at + 1,
            range: u32::MAX,
            code: 0,
            over: input.len() <= at,
        };
        for _ in 0..4 {
            rc.code = rc.code << 8 | u32::from(rc.byte());
        }
        rc
    }

    fn resume(input: &'a [u8], coder: Coder) -> RangeDecoder<'a> {
        RangeDecoder {
            input,
            at: coder.at,
            range: coder.range,
            code: coder.code,
            over: false,
        }
    }

    fn save(&self) -> Coder {
        Coder {
            at: self.at,
            range: self.range,
            code: self.code,
        }
    }

    #[inline(always)]
    fn byte(&mut self) -> u8 {
        match self.input.get(self.at) {
            Some(&b) => {
                self.at += 1;
                b
            }
            None => {
                self.over = true;
                0
            }
        }
    }

    #[inline(always)]
    fn normalize(&mut self) {
        if self.range < 1 << 24 {
            self.range <<= 8;
            self.code = self.code << 8 | u32::from(self.byte());
        }
    }

    #[inline(always)]
    fn bit(&mut self, prob: &mut u16) -> usize {
        let bound = (self.range >> 11) * u32::from(*prob);
        let bit = if self.code < bound {
            self.range = bound;
            *prob += (0x800 - *prob) >> 5;
            0
        } else {
            self.code -= bound;
            self.range -= bound;
            *prob -= *prob >> 5;
            1
        };
        self.normalize();
        bit
    }

    /// `count` bits of equal probability, high first.
    fn direct(&mut self, count: usize) -> usize {
        let mut result = 0;
        for _ in 0..count {
            self.range >>= 1;
            let bit = usize::from(self.code >= self.range);
            if bit == 1 {
                self.code -= self.range;
            }
            self.normalize();
            result = result << 1 | bit;
        }
        result
    }

    /// A symbol of `bits` bits, high first, by the tree `probs` (indexed from 1).
    #[inline(always)]
    fn tree(&mut self, probs: &mut [u16], bits: usize) -> usize {
        let mut m = 1;
        for _ in 0..bits {
            m = m << 1 | self.bit(&mut probs[m]);
        }
        m - (1 << bits)
    }

    /// A symbol of `bits` bits, low first, by the tree `probs` (indexed from 1).
    fn reverse(&mut self, probs: &mut [u16], bits: usize) -> usize {
        let (mut m, mut symbol) = (1, 0);
        for i in 0..bits {
            let bit = self.bit(&mut probs[m]);
            m = m << 1 | bit;
            symbol |= bit << i;
        }
        symbol
    }
}

const PROB_INIT: u16 = 0x400;

/// The lengths' model: 2-9 by a 3-bit tree per position state, 10-17 by another, 18-273 by an
/// 8-bit tree.
#[derive(Clone)]
struct Lengths {
    choice: u16,
    choice2: u16,
    low: [[u16; 8]; 16],
    mid: [[u16; 8]; 16],
    high: [u16; 256],
}

impl Lengths {
    fn new() -> Lengths {
        Lengths {
            choice: PROB_INIT,
            choice2: PROB_INIT,
            low: [[PROB_INIT; 8]; 16],
            mid: [[PROB_INIT; 8]; 16],
            high: [PROB_INIT; 256],
        }
    }

    /// A match length less 2.
    fn decode(&mut self, rc: &mut RangeDecoder, pos_state: usize) -> usize {
        if rc.bit(&mut self.choice) == 0 {
            return rc.tree(&mut self.low[pos_state], 3);
        }
        if rc.bit(&mut self.choice2) == 0 {
            return 8 + rc.tree(&mut self.mid[pos_state], 3);
        }
        16 + rc.tree(&mut self.high, 8)
    }
}

/// The literal coder's properties: `lc` bits of the previous byte and `lp` of the position
/// choose a literal's probabilities, `pb` bits of the position the others'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Properties {
    pub lc: u32,
    pub lp: u32,
    pub pb: u32,
}

impl Properties {
    /// From the byte that codes them, `(pb * 5 + lp) * 9 + lc`; LZMA2 holds `lc + lp` to 4.
    pub fn from_byte(byte: u8, lzma2: bool) -> Result<Properties, String> {
        if byte >= 225 {
            return Err(format!("the LZMA properties byte {byte} is not below 225"));
        }
        let byte = u32::from(byte);
        let props = Properties {
            lc: byte % 9,
            lp: byte / 9 % 5,
            pb: byte / 45,
        };
        if lzma2 && props.lc + props.lp > 4 {
            return Err(format!(
                "the LZMA2 properties lc {} and lp {} add up to more than 4",
                props.lc, props.lp
            ));
        }
        Ok(props)
    }
}

/// The model: every probability and the state of the last symbols.
struct Model {
    props: Properties,
    literal: Vec<u16>,
    is_match: [u16; 192],
    is_rep: [u16; 12],
    is_rep_g0: [u16; 12],
    is_rep_g1: [u16; 12],
    is_rep_g2: [u16; 12],
    is_rep0_long: [u16; 192],
    pos_slot: [[u16; 64]; 4],
    pos_special: [u16; 115],
    align: [u16; 16],
    lengths: Lengths,
    rep_lengths: Lengths,
    state: usize,
    rep: [usize; 4],
}

/// Why `Model::run` stopped.
#[derive(Debug, PartialEq, Eq)]
enum Stop {
    /// The step's share is made.
    Budget,
    /// The size the stream declares (an LZMA2 chunk's, an alone stream's) is reached.
    Size,
    /// The end marker.
    Marker,
}

impl Model {
    fn new(props: Properties) -> Result<Model, String> {
        let mut literal = Vec::new();
        let len = 0x300usize << (props.lc + props.lp);
        literal
            .try_reserve_exact(len)
            .map_err(|_| "out of memory for the LZMA model".to_string())?;
        literal.resize(len, PROB_INIT);
        Ok(Model::fresh(props, literal))
    }

    /// A model at its start, its literal probabilities `literal` (already at their start).
    fn fresh(props: Properties, literal: Vec<u16>) -> Model {
        Model {
            props,
            literal,
            is_match: [PROB_INIT; 192],
            is_rep: [PROB_INIT; 12],
            is_rep_g0: [PROB_INIT; 12],
            is_rep_g1: [PROB_INIT; 12],
            is_rep_g2: [PROB_INIT; 12],
            is_rep0_long: [PROB_INIT; 192],
            pos_slot: [[PROB_INIT; 64]; 4],
            pos_special: [PROB_INIT; 115],
            align: [PROB_INIT; 16],
            lengths: Lengths::new(),
            rep_lengths: Lengths::new(),
            state: 0,
            rep: [0; 4],
        }
    }

    /// Back to the start, with `props` (an LZMA2 state reset).
    fn reset(&mut self, props: Properties) -> Result<(), String> {
        if props.lc + props.lp != self.props.lc + self.props.lp {
            *self = Model::new(props)?;
            return Ok(());
        }
        let mut literal = std::mem::take(&mut self.literal);
        literal.fill(PROB_INIT);
        *self = Model::fresh(props, literal);
        Ok(())
    }

    fn distance(&mut self, rc: &mut RangeDecoder, len: usize) -> usize {
        let slot = rc.tree(&mut self.pos_slot[len.min(3)], 6);
        if slot < 4 {
            return slot;
        }
        let bits = (slot >> 1) - 1;
        let base = (2 | (slot & 1)) << bits;
        if slot < 14 {
            base + rc.reverse(&mut self.pos_special[base - slot..], bits)
        } else {
            base + (rc.direct(bits - 4) << 4) + rc.reverse(&mut self.align, 4)
        }
    }

    /// Decodes symbols into `win` until its position reaches `stop` (a step's share; the
    /// symbol that crosses it is finished) or `size` (which no symbol may cross), or the end
    /// marker.
    fn run(
        &mut self,
        rc: &mut RangeDecoder,
        win: &mut Window,
        stop: usize,
        size: Option<usize>,
    ) -> Result<Stop, String> {
        let pb_mask = (1 << self.props.pb) - 1;
        let lp_mask = (1 << self.props.lp) - 1;
        let lc = self.props.lc;
        loop {
            let pos = win.pos();
            if size == Some(pos) {
                return Ok(Stop::Size);
            }
            if pos >= stop {
                return Ok(Stop::Budget);
            }
            let pos_state = pos & pb_mask;
            let s = self.state;
            if rc.bit(&mut self.is_match[(s << 4) + pos_state]) == 0 {
                let prev = match pos {
                    0 => 0,
                    _ => usize::from(win.back(1)?),
                };
                let lit_state = ((pos & lp_mask) << lc) + (prev >> (8 - lc));
                let probs = &mut self.literal[0x300 * lit_state..0x300 * (lit_state + 1)];
                let mut symbol = 1usize;
                if s >= 7 {
                    let mut matched = usize::from(win.back(self.rep[0] + 1)?);
                    while symbol < 0x100 {
                        let match_bit = (matched >> 7) & 1;
                        matched <<= 1;
                        let bit = rc.bit(&mut probs[((1 + match_bit) << 8) + symbol]);
                        symbol = symbol << 1 | bit;
                        if match_bit != bit {
                            break;
                        }
                    }
                }
                while symbol < 0x100 {
                    symbol = symbol << 1 | rc.bit(&mut probs[symbol]);
                }
                win.literal(symbol as u8)?;
                self.state = match s {
                    0..=3 => 0,
                    4..=9 => s - 3,
                    _ => s - 6,
                };
                continue;
            }
            let len;
            if rc.bit(&mut self.is_rep[s]) == 1 {
                if pos == 0 {
                    return Err("a repeated match before any data".into());
                }
                if rc.bit(&mut self.is_rep_g0[s]) == 0 {
                    if rc.bit(&mut self.is_rep0_long[(s << 4) + pos_state]) == 0 {
                        self.state = if s < 7 { 9 } else { 11 };
                        let byte = win.back(self.rep[0] + 1)?;
                        win.literal(byte)?;
                        continue;
                    }
                } else {
                    let dist;
                    if rc.bit(&mut self.is_rep_g1[s]) == 0 {
                        dist = self.rep[1];
                    } else {
                        if rc.bit(&mut self.is_rep_g2[s]) == 0 {
                            dist = self.rep[2];
                        } else {
                            dist = self.rep[3];
                            self.rep[3] = self.rep[2];
                        }
                        self.rep[2] = self.rep[1];
                    }
                    self.rep[1] = self.rep[0];
                    self.rep[0] = dist;
                }
                len = self.rep_lengths.decode(rc, pos_state);
                self.state = if s < 7 { 8 } else { 11 };
            } else {
                self.rep[3] = self.rep[2];
                self.rep[2] = self.rep[1];
                self.rep[1] = self.rep[0];
                len = self.lengths.decode(rc, pos_state);
                self.state = if s < 7 { 7 } else { 10 };
                self.rep[0] = self.distance(rc, len);
                if self.rep[0] == 0xFFFF_FFFF {
                    return Ok(Stop::Marker);
                }
            }
            let len = len + 2;
            if size.is_some_and(|size| pos + len > size) {
                return Err("a match runs past the size the data declares".into());
            }
            win.copy(self.rep[0] + 1, len)?;
        }
    }
}

/// An LZMA stream of the alone format (the `.lzma` files of LZMA Utils): a 13-byte header (the
/// properties, the dictionary size, the decoded size or all ones for an end marker), then the
/// range-coded data.
pub struct Alone {
    input: Vec<u8>,
    model: Model,
    win: Window,
    coder: Coder,
    /// The decoded size the header declares.
    size: Option<usize>,
    done: bool,
}

impl Alone {
    pub fn new(input: Vec<u8>, max: usize) -> Result<Alone, String> {
        let header = input
            .get(..13)
            .ok_or("the data ends inside the 13-byte LZMA header")?;
        let props = Properties::from_byte(header[0], false)?;
        let dict = u32::from_le_bytes([header[1], header[2], header[3], header[4]]).max(4096);
        let declared = u64::from_le_bytes(header[5..13].try_into().unwrap_or_default());
        let size = match declared {
            u64::MAX => None,
            n if n > max as u64 => return Err(format!("{} (its header says {n})", too_much(max))),
            n => Some(n as usize),
        };
        let rc = RangeDecoder::start(&input, 13);
        if rc.over {
            return Err("the LZMA data ends early".into());
        }
        let coder = rc.save();
        Ok(Alone {
            model: Model::new(props)?,
            // The dictionary is allocated as it fills, so the limit bounds it, not the header.
            win: Window::new(dict as usize, max, 0),
            coder,
            size,
            done: false,
            input,
        })
    }
}

impl crate::Steps for Alone {
    fn step(&mut self, budget: usize, out: &mut Vec<u8>) -> Result<bool, String> {
        if self.done {
            return Ok(true);
        }
        let mut rc = RangeDecoder::resume(&self.input, self.coder);
        let stop = self.win.pos().saturating_add(budget);
        let stopped = self.model.run(&mut rc, &mut self.win, stop, self.size)?;
        self.coder = rc.save();
        if rc.over {
            return Err("the LZMA data ends early".into());
        }
        self.win.take(out)?;
        match stopped {
            Stop::Budget => Ok(false),
            Stop::Size => {
                self.done = true;
                Ok(true)
            }
            Stop::Marker => {
                if let Some(size) = self.size {
                    return Err(format!(
                        "the end marker comes after {} bytes, the header says {size}",
                        self.win.total()
                    ));
                }
                if rc.code != 0 || rc.at != self.input.len() {
                    return Err("the end marker is not the end of the LZMA data".into());
                }
                self.done = true;
                Ok(true)
            }
        }
    }
}

/// Where an LZMA2 decode is between steps.
enum Chunk {
    /// At a chunk header (or the end marker).
    Header,
    /// Inside an LZMA chunk: its range coder, where its data ends, and the window position at
    /// which its output is complete.
    Lzma {
        coder: Coder,
        end: usize,
        size: usize,
    },
}

/// LZMA2 data: chunks, each uncompressed or LZMA (with its sizes, and resets of the dictionary,
/// the state or the properties), up to a 0 byte. `scan` first reads the chunk headers alone
/// (the decoded size and the length), so that a stream that would decode to more than the
/// limit is refused before anything is decoded; then `step` decodes.
pub struct Lzma2 {
    model: Option<Model>,
    pub win: Window,
    chunk: Chunk,
    /// Where the next chunk header is.
    at: usize,
    /// The headers read so far by `scan`: where the next one is and what they decode to, and
    /// once the end marker is found, (decoded size, length).
    scanned: (usize, usize),
    pub scan: Option<(usize, usize)>,
}

impl Lzma2 {
    /// `dict`: the dictionary size (an XZ filter's), or `usize::MAX` where nothing says it
    /// (a raw stream: then the window keeps all the data since the last dictionary reset);
    /// `before` and `max`: see `Window::new`.
    pub fn new(dict: usize, max: usize, before: usize) -> Lzma2 {
        Lzma2 {
            model: None,
            win: Window::new(dict, max, before),
            chunk: Chunk::Header,
            at: 0,
            scanned: (0, 0),
            scan: None,
        }
    }

    /// Reads up to `SCAN_CHUNKS` more chunk headers of `input`; once the end marker is read,
    /// `scan` is (decoded size, length up to and including it). An error where the headers say
    /// more than the window's limit, or are not valid; `None` in `scan` while the headers go on.
    pub fn scan(&mut self, input: &[u8]) -> Result<Option<(usize, usize)>, String> {
        if self.scan.is_some() {
            return Ok(self.scan);
        }
        let byte = |i: usize| input.get(i).map(|&b| b as usize);
        let (mut at, mut total) = self.scanned;
        let max = self.win.limit - self.win.total;
        for _ in 0..SCAN_CHUNKS {
            let Some(control) = byte(at) else {
                return Err("the LZMA2 data ends before its end marker".into());
            };
            let (decoded, header, packed) = match control {
                0 => {
                    self.scan = Some((total, at + 1));
                    return Ok(self.scan);
                }
                // Uncompressed: a 16-bit size less one.
                1 | 2 => {
                    let (Some(hi), Some(lo)) = (byte(at + 1), byte(at + 2)) else {
                        return Err("the LZMA2 data ends inside a chunk header".into());
                    };
                    let size = (hi << 8 | lo) + 1;
                    (size, 3, size)
                }
                // LZMA: unpacked size (21 bits) and packed size (16 bits), less one each; a
                // properties byte after them where the state is reset with new properties.
                0x80..=0xff => {
                    let (Some(u1), Some(u2), Some(p1), Some(p2)) =
                        (byte(at + 1), byte(at + 2), byte(at + 3), byte(at + 4))
                    else {
                        return Err("the LZMA2 data ends inside a chunk header".into());
                    };
                    let unpacked = ((control & 0x1f) << 16 | u1 << 8 | u2) + 1;
                    let props = usize::from(control >= 0xc0);
                    (unpacked, 5 + props, (p1 << 8 | p2) + 1)
                }
                _ => return Err(format!("LZMA2 chunk header {control:#04x} is not valid")),
            };
            total = total
                .checked_add(decoded)
                .filter(|&t| t <= max)
                .ok_or_else(|| {
                    format!("{} (by its LZMA2 chunk headers)", too_much(self.win.limit))
                })?;
            at += header + packed;
        }
        self.scanned = (at, total);
        Ok(None)
    }

    /// Decodes `input` (scanned first: see `scan`) onto `out` until `spent` comes to `budget`;
    /// `true` once the end marker is read. Each byte of output is charged to `spent`, and so is
    /// work that makes none (chunk headers, resetting the model).
    pub fn step(
        &mut self,
        input: &[u8],
        budget: usize,
        spent: &mut usize,
        out: &mut Vec<u8>,
    ) -> Result<bool, String> {
        let result = self.decode(input, budget, spent, out);
        self.win.take(out)?;
        result
    }

    fn decode(
        &mut self,
        input: &[u8],
        budget: usize,
        spent: &mut usize,
        out: &mut Vec<u8>,
    ) -> Result<bool, String> {
        loop {
            if *spent >= budget {
                return Ok(false);
            }
            if let Chunk::Lzma { coder, end, size } = self.chunk {
                let model = self
                    .model
                    .as_mut()
                    .ok_or("an LZMA chunk before any properties")?;
                let mut rc = RangeDecoder::resume(&input[..end], coder);
                let before = self.win.pos();
                let stop = before.saturating_add(budget - *spent);
                let stopped = model.run(&mut rc, &mut self.win, stop, Some(size))?;
                *spent += self.win.pos() - before;
                if rc.over {
                    return Err("an LZMA2 chunk's data ends early".into());
                }
                match stopped {
                    Stop::Budget => {
                        self.chunk = Chunk::Lzma {
                            coder: rc.save(),
                            end,
                            size,
                        };
                        continue;
                    }
                    Stop::Marker => return Err("an end marker inside an LZMA2 chunk".into()),
                    Stop::Size if rc.at != end => {
                        return Err(format!(
                            "an LZMA2 chunk's data ends at byte {}, its header says {end}",
                            rc.at
                        ))
                    }
                    Stop::Size => {
                        self.at = end;
                        self.chunk = Chunk::Header;
                    }
                }
            }
            let byte = |i: usize| {
                input
                    .get(i)
                    .map(|&b| b as usize)
                    .ok_or("the LZMA2 data ends inside a chunk header")
            };
            let control = byte(self.at)?;
            *spent += CHUNK_COST;
            match control {
                0 => {
                    self.at += 1;
                    return Ok(true);
                }
                1 | 2 => {
                    let size = (byte(self.at + 1)? << 8 | byte(self.at + 2)?) + 1;
                    let data = input
                        .get(self.at + 3..self.at + 3 + size)
                        .ok_or("the LZMA2 data ends inside an uncompressed chunk")?;
                    if control == 1 {
                        self.win.reset(out)?;
                    }
                    self.win.append(data)?;
                    *spent += size;
                    self.at += 3 + size;
                }
                0x80..=0xff => {
                    let unpacked =
                        ((control & 0x1f) << 16 | byte(self.at + 1)? << 8 | byte(self.at + 2)?) + 1;
                    let packed = (byte(self.at + 3)? << 8 | byte(self.at + 4)?) + 1;
                    let mut data = self.at + 5;
                    let reset = (control >> 5) & 3;
                    if reset == 3 {
                        self.win.reset(out)?;
                    }
                    if reset >= 2 {
                        let props = Properties::from_byte(byte(data)? as u8, true)?;
                        data += 1;
                        match &mut self.model {
                            Some(model) => model.reset(props)?,
                            None => self.model = Some(Model::new(props)?),
                        }
                        *spent += RESET_COST;
                    } else if reset == 1 {
                        let model = self
                            .model
                            .as_mut()
                            .ok_or("an LZMA chunk before any properties")?;
                        model.reset(model.props)?;
                        *spent += RESET_COST;
                    }
                    let end = data + packed;
                    if end > input.len() {
                        return Err("the LZMA2 data ends inside an LZMA chunk".into());
                    }
                    let rc = RangeDecoder::start(&input[..end], data);
                    if rc.over {
                        return Err("an LZMA chunk of less than 5 bytes".into());
                    }
                    let coder = rc.save();
                    self.chunk = Chunk::Lzma {
                        coder,
                        end,
                        size: self.win.pos() + unpacked,
                    };
                }
                _ => return Err(format!("LZMA2 chunk header {control:#04x} is not valid")),
            }
        }
    }

    /// Where the LZMA2 data ended (after `step` returned `true`): the bytes it took.
    pub fn used(&self) -> usize {
        self.at
    }
}
