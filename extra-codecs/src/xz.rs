//! The XZ container (the .xz file format, version 1.2.0 of its specification), read here (lzma-rs,
//! which read LZMA2 data before `lzma_decoder.rs`, knows only the LZMA2 filter and no SHA-256
//! check): writers put the delta filter before LZMA2 (GDAL's `COMPRESS=LZMA` does by default,
//! `LZMA_DELTA=1`; numcodecs' `LZMA` with `filters=[delta, lzma2]`), which lzma-rs refuses
//! ("Unknown filter id 3").
//!
//! A stream is a 12-byte header (magic bytes, flags naming the check, their CRC32), blocks, an
//! index listing the blocks, and a 12-byte footer; streams may follow each other with null
//! padding between them (in fours), as `xz` and liblzma read them. Each block is a header (its
//! filter chain and optionally its sizes, CRC32-checked), the LZMA2 data of its last filter,
//! padding to four bytes and the check of its decoded bytes (CRC32, CRC64 or SHA-256). Every
//! field is checked as liblzma checks it: reserved bits and ids refused, integers in their shortest
//! form, sizes and the index matching what was decoded, every CRC and check verified.
//!
//! The filters before LZMA2 may be delta filters (id 0x03, one property byte: the distance less
//! one): after LZMA2, each byte gets the byte `distance` before it added (mod 256). As in liblzma,
//! a filter chain starts afresh in every block (blocks decode independently), so the history does
//! not carry from one block to the next. Other filters (the BCJ branch converters) are refused by
//! name.
//!
//! Bounded: the LZMA2 chunk headers of a block say how much it decodes to, and that is checked
//! against what is left of the limit before anything is decoded; nothing is allocated from a size
//! the stream states. Decoded in steps (`XzSteps`): each block's LZMA2 data a budget of output at
//! a time (`lzma_decoder`), the delta filters and the check taken over each step's output.

use crate::lzma::Delta;
use crate::lzma_decoder::{too_much, Lzma2};

/// The magic bytes that start an XZ stream.
pub const MAGIC: &[u8] = b"\xFD7zXZ\x00";
const FOOTER_MAGIC: &[u8] = b"YZ";
const HEADER_LEN: usize = 12;
const FILTER_DELTA: u64 = 0x03;
const FILTER_LZMA2: u64 = 0x21;

/// Decodes the XZ streams of `xz` to at most `max` bytes, in one go.
pub fn decode(xz: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let mut steps = XzSteps::new(xz.to_vec(), max);
    let mut out = Vec::new();
    while !crate::Steps::step(&mut steps, usize::MAX, &mut out)? {}
    Ok(out)
}

/// What a step's budget is charged for starting a block (its header, a model and a window),
/// reading a stream's header, or a call of the LZMA2 headers' scan: work that makes no output.
const FIXED_COST: usize = 4096;

/// XZ streams being decoded in steps.
pub struct XzSteps {
    xz: Vec<u8>,
    max: usize,
    /// Where the next header (of a stream or a block), the index, or the padding after a stream
    /// starts.
    at: usize,
    /// The output so far.
    written: usize,
    /// Streams read whole so far.
    streams: usize,
    /// The stream being read (`None` before each stream's header).
    stream: Option<Stream>,
}

/// A stream whose header has been read.
struct Stream {
    flags: [u8; 2],
    check: Check,
    /// (unpadded size, uncompressed size) of each block read, for the index. Each block takes
    /// at least 12 bytes of input, so the list is bounded by the input.
    records: Vec<(u64, u64)>,
    /// The block being decoded.
    block: Option<Block>,
}

/// A block whose header has been read, being decoded.
struct Block {
    /// Where its LZMA2 data starts, and its header's length.
    data: usize,
    header_len: usize,
    /// The sizes the header declares.
    packed: Option<u64>,
    unpacked: Option<u64>,
    /// The delta filters before LZMA2, in the chain's order.
    deltas: Vec<Delta>,
    lzma2: Lzma2,
    /// The check of the output so far.
    hasher: Hasher,
    /// The chunk's output before the block.
    before: usize,
}

impl XzSteps {
    pub fn new(xz: Vec<u8>, max: usize) -> XzSteps {
        XzSteps {
            xz,
            max,
            at: 0,
            written: 0,
            streams: 0,
            stream: None,
        }
    }

    /// Reads on until `budget` is spent; `true` once the last stream is read.
    fn advance(&mut self, budget: usize, out: &mut Vec<u8>) -> Result<bool, String> {
        let mut spent = 0usize;
        while spent < budget {
            // Errors inside a stream after the first name it (padding between streams is no
            // stream's).
            let streams = self.streams;
            let in_stream = |e: String| match streams {
                0 => e,
                n => format!("stream {}: {e}", n + 1),
            };
            let Some(stream) = &mut self.stream else {
                self.stream = Some(stream_header(&self.xz, self.at).map_err(in_stream)?);
                self.at += HEADER_LEN;
                spent += FIXED_COST;
                continue;
            };
            if stream.block.is_none() && self.at >= self.xz.len() {
                return Err(in_stream("the XZ stream ends before its index".into()));
            }
            if stream.block.is_some() || self.xz[self.at] != 0 {
                let (max, written) = (self.max, self.written);
                let made = in_block(
                    &self.xz,
                    &mut self.at,
                    stream,
                    (max, written),
                    budget,
                    &mut spent,
                    out,
                )
                .map_err(|e| in_stream(format!("block {}: {e}", stream.records.len() + 1)))?;
                self.written += made;
                continue;
            }
            // The index, the footer, then stream padding: the end, or another stream.
            let xz = &self.xz[..];
            let index_end = index(xz, self.at, &stream.records).map_err(in_stream)?;
            footer(xz, index_end, index_end - self.at, stream.flags).map_err(in_stream)?;
            spent += stream.records.len();
            let end = index_end + HEADER_LEN;
            self.stream = None;
            self.streams += 1;
            let padding = xz[end..].iter().take_while(|&&b| b == 0).count();
            if padding % 4 != 0 {
                return Err(format!(
                    "{padding} null bytes after the stream ending at byte {end}: stream padding must be a multiple of four"
                ));
            }
            self.at = end + padding;
            if self.at == xz.len() {
                return Ok(true);
            }
            if !xz[self.at..].starts_with(MAGIC) {
                return Err(format!(
                    "{} bytes after the stream ending at byte {end} are neither padding nor another XZ stream",
                    xz.len() - self.at,
                ));
            }
        }
        Ok(false)
    }
}

impl crate::Steps for XzSteps {
    fn step(&mut self, budget: usize, out: &mut Vec<u8>) -> Result<bool, String> {
        self.advance(budget, out)
    }
}

/// Goes on with the block of `stream` at `at` (its header, where none is begun), decoding until
/// `budget` is spent, and past its end where it ends (`at` then after it): the bytes it made.
/// `limit`: the most output the chunk may have, and what it has so far.
fn in_block(
    xz: &[u8],
    at: &mut usize,
    stream: &mut Stream,
    limit: (usize, usize),
    budget: usize,
    spent: &mut usize,
    out: &mut Vec<u8>,
) -> Result<usize, String> {
    let block = match &mut stream.block {
        Some(block) => block,
        None => {
            *spent += FIXED_COST;
            stream.block.insert(block(xz, *at, stream.check, limit)?)
        }
    };
    let data = &xz[block.data..];
    let Some((decoded, used)) = block.lzma2.scan(data)? else {
        *spent += FIXED_COST;
        return Ok(0);
    };
    if let Some(packed) = block.packed.filter(|&p| p != used as u64) {
        return Err(format!(
            "the block header says {packed} compressed bytes, its LZMA2 data takes {used}"
        ));
    }
    if let Some(unpacked) = block.unpacked.filter(|&u| u != decoded as u64) {
        return Err(format!(
            "the block header says {unpacked} decoded bytes, its LZMA2 chunks hold {decoded}"
        ));
    }
    let from = out.len();
    let done = block.lzma2.step(&data[..used], budget, spent, out)?;
    let piece = &mut out[from..];
    for delta in block.deltas.iter_mut().rev() {
        delta.undo(piece);
    }
    block.hasher.update(piece);
    let made = piece.len();
    if !done {
        return Ok(made);
    }
    let total = block.lzma2.win.total() - block.before;
    if total != decoded {
        return Err(format!(
            "the LZMA2 data decoded to {total} bytes, its chunk headers say {decoded}"
        ));
    }
    let unpadded_data = block.header_len + used;
    let padding = (4 - unpadded_data % 4) % 4;
    let data_end = block.data + used;
    if slice(xz, data_end, padding, "a block's padding")?
        .iter()
        .any(|&b| b != 0)
    {
        return Err("the block's padding is not null bytes".into());
    }
    let size = stream.check.size();
    let stored = slice(xz, data_end + padding, size, "a block's check")?;
    block.hasher.verify(stored)?;
    stream
        .records
        .push(((unpadded_data + size) as u64, decoded as u64));
    *at = data_end + padding + size;
    stream.block = None;
    Ok(made)
}

/// The stream header at `start`: its magic bytes and flags.
fn stream_header(xz: &[u8], start: usize) -> Result<Stream, String> {
    let header = slice(xz, start, HEADER_LEN, "the stream header")?;
    if !header.starts_with(MAGIC) {
        return Err("not an XZ stream (its magic bytes are missing)".into());
    }
    check_crc32(&header[6..8], &header[8..12], "stream flags")?;
    let flags = [header[6], header[7]];
    Ok(Stream {
        flags,
        check: Check::from_flags(flags)?,
        records: Vec::new(),
        block: None,
    })
}

/// The integrity check of a stream's blocks (stream flags, second byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    None,
    Crc32,
    Crc64,
    Sha256,
}

impl Check {
    fn from_flags(flags: [u8; 2]) -> Result<Check, String> {
        if flags[0] != 0 || flags[1] & 0xf0 != 0 {
            return Err(format!(
                "the stream flags {:02x} {:02x} set reserved bits",
                flags[0], flags[1]
            ));
        }
        match flags[1] {
            0x00 => Ok(Check::None),
            0x01 => Ok(Check::Crc32),
            0x04 => Ok(Check::Crc64),
            0x0a => Ok(Check::Sha256),
            id => Err(format!(
                "check id {id:#04x} is reserved (XZ defines none, CRC32, CRC64 and SHA-256)"
            )),
        }
    }

    fn size(self) -> usize {
        match self {
            Check::None => 0,
            Check::Crc32 => 4,
            Check::Crc64 => 8,
            Check::Sha256 => 32,
        }
    }
}

/// A block's check, taken over its output as it is made.
enum Hasher {
    None,
    Crc32(zarr_wasm_kernels::crc32::Hasher),
    Crc64(u64),
    Sha256(Box<Sha256>),
}

impl Hasher {
    fn new(check: Check) -> Hasher {
        match check {
            Check::None => Hasher::None,
            Check::Crc32 => Hasher::Crc32(zarr_wasm_kernels::crc32::Hasher::crc32()),
            Check::Crc64 => Hasher::Crc64(u64::MAX),
            Check::Sha256 => Hasher::Sha256(Box::default()),
        }
    }

    fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::None => {}
            Hasher::Crc32(hasher) => hasher.update(data),
            Hasher::Crc64(crc) => *crc = crc64_update(*crc, data),
            Hasher::Sha256(hasher) => hasher.update(data),
        }
    }

    /// Checks the output's check against `stored`, the block's.
    fn verify(&self, stored: &[u8]) -> Result<(), String> {
        let (name, computed) = match self {
            Hasher::None => return Ok(()),
            Hasher::Crc32(hasher) => ("CRC32", hasher.finish().to_le_bytes().to_vec()),
            Hasher::Crc64(crc) => ("CRC64", (!crc).to_le_bytes().to_vec()),
            Hasher::Sha256(hasher) => ("SHA-256", hasher.finish().to_vec()),
        };
        if computed != stored {
            return Err(format!(
                "the {name} of the decoded bytes is {}, the block's check says {}",
                hex(&computed),
                hex(stored)
            ));
        }
        Ok(())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `bytes[at..at + len]`, or an error saying that `what` is cut short.
fn slice<'a>(bytes: &'a [u8], at: usize, len: usize, what: &str) -> Result<&'a [u8], String> {
    at.checked_add(len)
        .and_then(|end| bytes.get(at..end))
        .ok_or_else(|| format!("the XZ data ends inside {what} (byte {at})"))
}

/// Checks a stored little-endian CRC32 of `data`.
fn check_crc32(data: &[u8], stored: &[u8], what: &str) -> Result<(), String> {
    let computed = crc32(data);
    let stored = u32::from_le_bytes(stored.try_into().map_err(|_| "a CRC32 of 4 bytes")?);
    if computed != stored {
        return Err(format!(
            "the CRC32 of the {what} is {computed:08x}, it says {stored:08x}"
        ));
    }
    Ok(())
}

/// A reader of a block header's or the index's fields.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
    what: &'static str,
}

impl Fields<'_> {
    /// A variable-length integer: 7 bits a byte, low first, at most 9 bytes, in its shortest
    /// form (liblzma refuses a last byte of 0 after the first).
    fn vli(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for i in 0..9 {
            let byte = *self
                .bytes
                .get(self.at)
                .ok_or_else(|| format!("the {} ends inside a number", self.what))?;
            self.at += 1;
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                if byte == 0 && i > 0 {
                    return Err(format!(
                        "a number in the {} is not in its shortest form",
                        self.what
                    ));
                }
                return Ok(value);
            }
        }
        Err(format!(
            "a number in the {} is longer than 9 bytes",
            self.what
        ))
    }

    fn take(&mut self, len: u64) -> Result<&[u8], String> {
        let len = usize::try_from(len)
            .map_err(|_| format!("a size in the {} is too large", self.what))?;
        let taken = slice(self.bytes, self.at, len, self.what)?;
        self.at += len;
        Ok(taken)
    }
}

/// The block whose header starts at `start`, ready to decode: `limit` is the most output the
/// chunk may have, and what it has before the block.
fn block(xz: &[u8], start: usize, check: Check, limit: (usize, usize)) -> Result<Block, String> {
    let header_len = (usize::from(xz[start]) + 1) * 4;
    let header = slice(xz, start, header_len, "a block header")?;
    let (fields, crc) = header.split_at(header_len - 4);
    check_crc32(fields, crc, "block header")?;
    let flags = fields[1];
    if flags & 0x3c != 0 {
        return Err(format!("the block flags {flags:#04x} set reserved bits"));
    }
    let mut fields = Fields {
        bytes: fields,
        at: 2,
        what: "block header",
    };
    let packed = (flags & 0x40 != 0).then(|| fields.vli()).transpose()?;
    let unpacked = (flags & 0x80 != 0).then(|| fields.vli()).transpose()?;
    if packed == Some(0) {
        return Err("the block header says it has 0 compressed bytes".into());
    }
    let count = usize::from(flags & 0x03) + 1;
    let mut deltas = Vec::with_capacity(count - 1);
    let mut dict = 0;
    for i in 0..count {
        let id = fields.vli()?;
        let props_len = fields.vli()?;
        let props = fields.take(props_len)?;
        let last = i + 1 == count;
        match (id, last) {
            (FILTER_LZMA2, true) => match props {
                [d] if *d <= 40 => dict = dict_size(*d),
                _ => {
                    return Err(format!(
                        "the LZMA2 filter's properties {} are not valid (one byte, at most 40)",
                        hex(props)
                    ))
                }
            },
            (FILTER_DELTA, false) => match props {
                [distance] => deltas.push(Delta::new(usize::from(*distance) + 1)),
                _ => {
                    return Err(format!(
                        "the delta filter's properties {} are not valid (one byte)",
                        hex(props)
                    ))
                }
            },
            (FILTER_LZMA2, false) => {
                return Err("LZMA2 must be the last filter of the chain".into())
            }
            (FILTER_DELTA, true) => {
                return Err("the filter chain ends with delta, not LZMA2".into())
            }
            (other, _) => {
                return Err(format!(
                    "filter {other:#04x} ({}) is not read: only delta (0x03) and LZMA2 (0x21)",
                    filter_name(other)
                ))
            }
        }
    }
    if fields.bytes[fields.at..].iter().any(|&b| b != 0) {
        return Err("the block header's padding is not null bytes".into());
    }
    let (max, before) = limit;
    if let Some(unpacked) = unpacked.filter(|&u| u > (max - before) as u64) {
        return Err(format!(
            "{} (its block header says {unpacked} more)",
            too_much(max)
        ));
    }
    Ok(Block {
        data: start + header_len,
        header_len,
        packed,
        unpacked,
        deltas,
        lzma2: Lzma2::new(dict, max, before),
        hasher: Hasher::new(check),
        before,
    })
}

/// The dictionary size an LZMA2 filter's property byte (at most 40) codes.
fn dict_size(byte: u8) -> usize {
    match byte {
        40 => u32::MAX as usize,
        b => (2 | usize::from(b & 1)) << (b / 2 + 11),
    }
}

/// What the branch converters are called (the filters XZ defines besides delta and LZMA2).
fn filter_name(id: u64) -> &'static str {
    match id {
        0x04 => "BCJ x86",
        0x05 => "BCJ PowerPC",
        0x06 => "BCJ IA-64",
        0x07 => "BCJ ARM",
        0x08 => "BCJ ARM-Thumb",
        0x09 => "BCJ SPARC",
        0x0a => "BCJ ARM64",
        0x0b => "BCJ RISC-V",
        0x4000_0000_0000_0001 => "LZMA1, which XZ streams do not hold",
        _ => "unknown",
    }
}

/// The index starting at `start` (its indicator, 0): it must list `records`. Where it ends.
fn index(xz: &[u8], start: usize, records: &[(u64, u64)]) -> Result<usize, String> {
    let mut fields = Fields {
        bytes: xz,
        at: start + 1,
        what: "index",
    };
    let count = fields.vli()?;
    if count != records.len() as u64 {
        return Err(format!(
            "the index lists {count} blocks, the stream has {}",
            records.len()
        ));
    }
    for (i, &(unpadded, uncompressed)) in records.iter().enumerate() {
        let (u, d) = (fields.vli()?, fields.vli()?);
        if (u, d) != (unpadded, uncompressed) {
            return Err(format!(
                "the index says block {} has {u} bytes decoding to {d}, it has {unpadded} decoding to {uncompressed}",
                i + 1
            ));
        }
    }
    let at = fields.at;
    let padding = (4 - (at - start) % 4) % 4;
    if slice(xz, at, padding, "the index's padding")?
        .iter()
        .any(|&b| b != 0)
    {
        return Err("the index's padding is not null bytes".into());
    }
    let crc = slice(xz, at + padding, 4, "the index's CRC32")?;
    check_crc32(&xz[start..at + padding], crc, "index")?;
    Ok(at + padding + 4)
}

/// The stream footer at `start`: its CRC32, the index's size and the stream's flags again.
fn footer(xz: &[u8], start: usize, index_len: usize, flags: [u8; 2]) -> Result<(), String> {
    let footer = slice(xz, start, HEADER_LEN, "the stream footer")?;
    check_crc32(&footer[4..10], &footer[..4], "stream footer")?;
    let backward = u32::from_le_bytes([footer[4], footer[5], footer[6], footer[7]]);
    if (u64::from(backward) + 1) * 4 != index_len as u64 {
        return Err(format!(
            "the stream footer says the index is {} bytes, it is {index_len}",
            (u64::from(backward) + 1) * 4
        ));
    }
    if footer[8..10] != flags {
        return Err("the stream footer's flags differ from the header's".into());
    }
    if &footer[10..] != FOOTER_MAGIC {
        return Err("the stream footer's magic bytes are missing".into());
    }
    Ok(())
}

const fn crc_table(poly: u64, bits: u32) -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u64;
        let mut k = 0;
        while k < 8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ poly
            } else {
                crc >> 1
            };
            k += 1;
        }
        table[i] = crc & (u64::MAX >> (64 - bits));
        i += 1;
    }
    table
}

static CRC64_TABLE: [u64; 256] = crc_table(0xC96C_5795_D787_0F42, 64);

/// CRC32 (IEEE 802.3, reflected), as XZ uses it for headers, the index and the CRC32 check: the
/// kernels' (zlib's `crc32`), the one CRC-32 of the project.
pub use zarr_wasm_kernels::crc32::crc32;

/// CRC64 (ECMA-182, reflected), XZ's default check.
pub fn crc64(data: &[u8]) -> u64 {
    !crc64_update(u64::MAX, data)
}

/// The CRC64 register after `data` (before the final inversion).
fn crc64_update(crc: u64, data: &[u8]) -> u64 {
    data.iter().fold(crc, |crc, &b| {
        CRC64_TABLE[((crc ^ u64::from(b)) & 0xff) as usize] ^ (crc >> 8)
    })
}

/// SHA-256 (FIPS 180-4), XZ's strongest check.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::default();
    hasher.update(data);
    hasher.finish()
}

/// SHA-256 taken over data that comes in pieces.
#[derive(Clone)]
pub struct Sha256 {
    h: [u32; 8],
    /// The bytes of a 64-byte block not yet whole.
    pending: [u8; 64],
    pending_len: usize,
    /// The bytes taken so far.
    len: u64,
}

impl Default for Sha256 {
    fn default() -> Sha256 {
        Sha256 {
            h: [
                0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
                0x5be0cd19,
            ],
            pending: [0; 64],
            pending_len: 0,
            len: 0,
        }
    }
}

const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

impl Sha256 {
    pub fn update(&mut self, mut data: &[u8]) {
        self.len = self.len.wrapping_add(data.len() as u64);
        if self.pending_len > 0 {
            let n = (64 - self.pending_len).min(data.len());
            self.pending[self.pending_len..self.pending_len + n].copy_from_slice(&data[..n]);
            self.pending_len += n;
            data = &data[n..];
            if self.pending_len < 64 {
                return;
            }
            let block = self.pending;
            self.compress(&block);
            self.pending_len = 0;
        }
        let mut blocks = data.chunks_exact(64);
        for block in &mut blocks {
            self.compress(block);
        }
        let rest = blocks.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// The digest: the data, a 0x80 byte, zeros to 56 mod 64, the length in bits.
    pub fn finish(&self) -> [u8; 32] {
        let mut last = self.clone();
        let bits = self.len.wrapping_mul(8);
        let mut tail = self.pending[..self.pending_len].to_vec();
        tail.push(0x80);
        while tail.len() % 64 != 56 {
            tail.push(0);
        }
        tail.extend(bits.to_be_bytes());
        for block in tail.chunks_exact(64) {
            last.compress(block);
        }
        let mut out = [0u8; 32];
        for (chunk, word) in out.chunks_exact_mut(4).zip(last.h) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        out
    }

    fn compress(&mut self, block: &[u8]) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = self.h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in self.h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lzma::{decode as lzma_decode, Format};

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The bytes the vectors below hold, as the Python that wrote them made them.
    fn data() -> Vec<u8> {
        (0..700u64)
            .map(|i| ((i * i * 7 + 3 * i + i / 50) % 251) as u8)
            .collect()
    }

    // `xz --format=xz --check=sha256 --block-size=256 -T1 --delta=dist=3 --lzma2=preset=1`
    // (XZ Utils 5.4.1) of `data()`: three blocks, each with the chain delta(3) + LZMA2.
    const XZ_BLOCKS: &str = "fd377a585a00000ae1fb0ca10201030102210110c74daeade000ff00f45d000002e6e16f66a0e2228d93ac446d1eba351cf1697b1fa430ac63af0c5521d50581387c4c73194913e17a04ade1ad05ef6727ee3d073af35ea0d86b0fc49dfcd9c1ffa115c4d9c793ca0fe00a24a9f0468721728a587dffa67f900dc3ce4d6eb5c1627443e8bb39e3090f013a0f7148154cf80d0123ed6be1f991ce379340eb095bb473e6f1360569330d04f504c76683d2261fd0fdb073d2d723327ad7bb166cf3dfa0af0ebaf27e9457fcf3e16902a83c56e011e811d72bffc7a0bc396ec90f32e1be52c5d31f323ff1f01e4427763a3c4b749d8c7b75e7ab1d387fcbc57aad55a8d4bef26115bbc15571b5cd0fa981efdf62c600d732cf33629b4aa722d8be3070595b4adbe1721bddeb98f4d12540b41e8aff640201030102210110c74daeade000ff00f45d0061860a4be2b9c56852f3d00c92c14bbf4019e31183fb161be2d92eae59cf39343ba84ef4bdfdb6be2b2f5a42bd633980c5f4371cf1c132fd07fc7d690ebd59ca69ebf595544dc84dc693e46d7c32909df3a387f0d2ee16e076780ae5530d114c3b2eb9085a5908aee364e6bf48081305b0b890439571b7f0c1d609aeba1428864ec5ebc72360eaad05a93fefbf8b529455049cb8aec211690cf46e52375b58752fb3dcfe6209c8fa3f5055b426e3d95d0cadc2ffcf70b21aa9d838b199de239a9aba90115b2d1cb0d66fb20463b4f557658d3cff17e4293b9d780e2c9a616ec3f4a3164260c2b3c937cac03d035f791701d8c30a00eb3287a45730bdf8bc9ea9bd1c45f9eee0ca55e2ffe2a2df9ec4ba1702e124b30201030102210110c74daeade000bb00ba5d007722424f6100e865c47709f227fad8eba5a4c037f7ef32a7fe8042f5362133afbe979217631243f98089a3c9e70643369f04bde36ae5865aa8a97ebfe2cc40c49138d723096b17066f5251f629eee5325ff861ef28d8a363e99d477b38c7abceffab442843393c91b4dad9d1761415b7e95c8b66df2c6e8a1399cc6921ac78621399ddf436fef0fc1c66692d92f644b071e6c98391884c0670bd052648014d58c4eab995b3567fed5b22560fcd495739504826a2fcd2ae607e00000000bf69a5e21b71cca3a7ccb4442f83679b1fbda915b5c41c9bf9b7c723f16716e80003a8028002a8028002ee01bc0100004df5eacfab0a86ca04000000000a595a";

    // Python's lzma (liblzma 5.4): the first 300 bytes with filters delta(4) + LZMA2 and a
    // CRC32 check, four null bytes of stream padding, the rest with no check and LZMA2 alone.
    const XZ_CONCATENATED: &str = "fd377a585a0000016922de360201030103210110a22a1215e0012b00f85d000002e6e16fc6ad8bacec0b94372ee11d3fc42833e55aea823ac92104f0ee3b1ea55ba264cf4a247c33de4f44725ef71b1fdd6dfa6c5cac42dfdd26748b72161ed52717d4eb612ff3f3b1e2c237fb11fb8020df9a3afa3e1307878f2ba355083290673068b634ea7ca04c0e07e6909f2ea266b32873e79cad3408487ed0b0b1ee010dc0212d735465b10c349ade4e14b1ce237d0cd52088773c88994d2ff3e088b7175cd47ec503734cbee8d66658d47dca91f6bc7ae60ac18989a96e64c3e35fb5a6ec320477060ee5b2ac206ef75f48624ebd5eeabdf18762c96840ba03fb04776a066b16646cd529a16a983a9b79f8a93bae44db6c0000002e04f85e00019002ac0200002de3caa03e300d8b020000000001595a00000000fd377a585a000000ff12d9410200210116000000742fe5a301018f8f562b0efaf90b264f86cb2384f375059e4a04c79d817373819dc7044a9e0575f38423cb864f260bf9fa0e2b568fd6309309891bb66420e5bda39799a9c7f3327ad039ab30be5f0ec6916a5146495a79a6e12f86eb63e4781ac5834f2911070b1d3d6ba7f24fb52eb045e3945320f6dfd6dbee144380cb29900a8d23c2743402d9c3bbc1d5f72c6ab6157df37c13b36627f1ceb9b2b9cff22867b4147df47e16b76b2df8d6c2bcc4da033575c3248e0b912acc814415efdcd7e0f7215495e446b12fb650f3a96d3f200e0a142c5286c81d7be766ee8932e4a97c5d4c49546d94c91162c133ae3cd37d35f6caac9c9aa6c0e82367b91e8c0d9734db945b30130403102b548bd02889f87a0aa34f09cca286787886a2cc094fa30a7af88928d08b542b10030413305b94db35980f8e20bb6925eac2a89c9eaeccf8377fd53eb035c36413cb966f564b4e5f7eabe6348bf068e97d1fca88542e160c10224270adf754ba33b54ae899582500e4dbe0f3194885d02e950f9228c7793907dec8c0c6da01316fbb1a82f88118b86b2cf6d3beb7000001a003900300001ee0ef22a8000afc020000000000595a";

    // Python's lzma, FORMAT_RAW with filters delta(2), delta(5), LZMA2.
    const RAW_TWO_DELTAS: &str = "e002bb00b75d000002e6e0b5481601b75cd9759ffd7772d1fc43e81712e0fa923d05d08ae058a9313f67daec87b74b9e1059171d7455682601fdb25cf30a755f6790152d40773522c6580681d3cf4c3be52db231ce4ea0708c55b5df3eab29989214bd84607dfaddc0a181a4fcef3197b6d2eb0a6e64ab97799bb725eedbeb5e8aca9ff70013bb074269efa4e0dca49b47161bc0a34757c5e4afc0d9bc1ab31c4b55b0c5abd19c9b7aab583407826eca8a34e56ef4cb1ba1adcb6904d80000";

    // Python's lzma: b"zarr" with a SHA-256 check; b"zarr zarr" through BCJ x86 + LZMA2.
    const XZ_SHA256: &str = "fd377a585a00000ae1fb0ca10200210116000000742fe5a30100037a6172720050fa8d5481f54a0aa65f9dac1f8571764994d2fe29d7676035fc0a16749ab6bd00013404c582c19c189b4b9a01000000000a595a";
    const XZ_BCJ: &str = "fd377a585a000004e6d6b44602010400210110008b216f490100087a617272207a617272000000009255738c6fadf447000121096c18c5d51fb6f37d010000000004595a";

    #[test]
    fn checks_are_the_standard_ones() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc64(b"123456789"), 0x995D_C9BB_DF19_39FA);
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        // Two blocks of padding (55 and 64 bytes: the length spills into a second block).
        assert_eq!(
            hex(&sha256(&[b'a'; 55])),
            "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"
        );
        assert_eq!(
            hex(&sha256(&[b'a'; 64])),
            "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"
        );
    }

    #[test]
    fn delta_chains_decode_as_liblzma_wrote_them() {
        // Three blocks: the delta history starts afresh in each (liblzma's block decoder
        // initialises the chain per block); carried over, the second block would differ.
        assert_eq!(decode(&unhex(XZ_BLOCKS), 700).unwrap(), data());
        assert_eq!(
            lzma_decode(&unhex(XZ_BLOCKS), Format::Auto, &[], 700).unwrap(),
            data()
        );
        // Concatenated streams with padding between them; each with its own check.
        assert_eq!(decode(&unhex(XZ_CONCATENATED), 700).unwrap(), data());
        // A raw stream: the chain comes from the configuration.
        let raw = unhex(RAW_TWO_DELTAS);
        assert_eq!(
            lzma_decode(&raw, Format::RawLzma2, &[2, 5], 700).unwrap(),
            data()
        );
        // (Delta filters commute: the order of two does not matter, their number does.)
        assert_eq!(
            lzma_decode(&raw, Format::RawLzma2, &[5, 2], 700).unwrap(),
            data()
        );
        assert_ne!(
            lzma_decode(&raw, Format::RawLzma2, &[5], 700).unwrap(),
            data()
        );
        assert_eq!(decode(&unhex(XZ_SHA256), 4).unwrap(), b"zarr");
        // Delta alone, by hand, in one piece and in two.
        let mut bytes = vec![1, 1, 1, 255, 2];
        Delta::new(2).undo(&mut bytes);
        assert_eq!(bytes, [1, 1, 2, 0, 4]);
        let mut bytes = vec![1, 1, 1, 255, 2];
        let mut delta = Delta::new(2);
        let (a, b) = bytes.split_at_mut(3);
        delta.undo(a);
        delta.undo(b);
        assert_eq!(bytes, [1, 1, 2, 0, 4]);
    }

    #[test]
    fn what_is_not_read_is_refused_by_name() {
        let err = decode(&unhex(XZ_BCJ), 100).unwrap_err();
        assert!(err.contains("filter 0x04 (BCJ x86) is not read"), "{err}");
        // Limits: the whole and each block's share.
        let err = decode(&unhex(XZ_BLOCKS), 699).unwrap_err();
        assert!(err.contains("more than the 699 bytes"), "{err}");
        let err = decode(&unhex(XZ_CONCATENATED), 400).unwrap_err();
        assert!(
            err.starts_with("stream 2: block 1:") && err.contains("more than"),
            "{err}"
        );
        // Trailing bytes that are neither padding nor a stream; padding not in fours.
        let mut xz = unhex(XZ_SHA256);
        xz.extend([0, 0, 0, 0, 1]);
        assert!(decode(&xz, 4).unwrap_err().contains("neither padding"));
        xz.truncate(xz.len() - 2);
        assert!(decode(&xz, 4).unwrap_err().contains("multiple of four"));
        // A wrong check.
        let mut xz = unhex(XZ_SHA256);
        xz[40] ^= 1;
        let err = decode(&xz, 4).unwrap_err();
        assert!(err.contains("SHA-256 of the decoded bytes"), "{err}");
    }

    #[test]
    fn damaged_streams_are_errors_never_panics() {
        let want = data();
        for vector in [XZ_BLOCKS, XZ_CONCATENATED, XZ_SHA256] {
            let xz = unhex(vector);
            // Every truncation.
            // (a whole first stream, with or without its padding, where streams are concatenated, still decodes).
            for len in 0..xz.len() {
                if let Ok(out) = decode(&xz[..len], 700) {
                    assert!([308, 312].contains(&len) && out == want[..300], "{len}");
                }
            }
            // Every byte with each bit flipped: the CRCs and checks catch it (or it still
            // decodes to the same bytes).
            for at in 0..xz.len() {
                for bit in 0..8 {
                    let mut bad = xz.clone();
                    bad[at] ^= 1 << bit;
                    match decode(&bad, 700) {
                        Err(_) => {}
                        // (The second of the concatenated streams has no check.)
                        Ok(out) => assert!(
                            out == want
                                || out == b"zarr"
                                || (vector == XZ_CONCATENATED && at >= 312),
                            "byte {at} bit {bit} of a stream decoded to other bytes"
                        ),
                    }
                }
            }
        }
        // Arbitrary bytes, alone and after the magic bytes and valid stream flags.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let len = (next() % 200) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let _ = decode(&bytes, 1 << 16);
            let mut framed = unhex(XZ_SHA256)[..12].to_vec();
            framed.append(&mut bytes);
            let _ = decode(&framed, 1 << 16);
            let _ = lzma_decode(&framed[12..], Format::RawLzma2, &[3], 1 << 16);
        }
    }
}
