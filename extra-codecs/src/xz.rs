//! The XZ container (the .xz file format, version 1.2.0 of its specification), read here rather
//! than by lzma-rs, which knows only the LZMA2 filter and no SHA-256 check: writers put the delta
//! filter before LZMA2 (GDAL's `COMPRESS=LZMA` does by default, `LZMA_DELTA=1`; numcodecs' `LZMA`
//! with `filters=[delta, lzma2]`), which lzma-rs refuses ("Unknown filter id 3").
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
//! the stream states.

use crate::Bounded;
use std::io::BufReader;

/// The magic bytes that start an XZ stream.
pub const MAGIC: &[u8] = b"\xFD7zXZ\x00";
const FOOTER_MAGIC: &[u8] = b"YZ";
const HEADER_LEN: usize = 12;
const FILTER_DELTA: u64 = 0x03;
const FILTER_LZMA2: u64 = 0x21;

/// Decodes the XZ streams of `xz` to at most `max` bytes.
pub fn decode(xz: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut streams = 0usize;
    loop {
        at = stream(xz, at, &mut out, max).map_err(|e| match streams {
            0 => e,
            n => format!("stream {}: {e}", n + 1),
        })?;
        streams += 1;
        // Stream padding: null bytes, a multiple of four of them; then the end or a stream.
        let padding = xz[at..].iter().take_while(|&&b| b == 0).count();
        if padding % 4 != 0 {
            return Err(format!(
                "{padding} null bytes after the stream ending at byte {at}: stream padding must be a multiple of four"
            ));
        }
        at += padding;
        if at == xz.len() {
            return Ok(out);
        }
        if !xz[at..].starts_with(MAGIC) {
            return Err(format!(
                "{} bytes after the stream ending at byte {} are neither padding nor another XZ stream",
                xz.len() - at,
                at - padding
            ));
        }
    }
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

    fn verify(self, data: &[u8], stored: &[u8]) -> Result<(), String> {
        let (name, computed) = match self {
            Check::None => return Ok(()),
            Check::Crc32 => ("CRC32", crc32(data).to_le_bytes().to_vec()),
            Check::Crc64 => ("CRC64", crc64(data).to_le_bytes().to_vec()),
            Check::Sha256 => ("SHA-256", sha256(data).to_vec()),
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

/// Reads the stream starting at `start` into `out`; where it ends.
fn stream(xz: &[u8], start: usize, out: &mut Vec<u8>, max: usize) -> Result<usize, String> {
    let header = slice(xz, start, HEADER_LEN, "the stream header")?;
    if !header.starts_with(MAGIC) {
        return Err("not an XZ stream (its magic bytes are missing)".into());
    }
    check_crc32(&header[6..8], &header[8..12], "stream flags")?;
    let flags = [header[6], header[7]];
    let check = Check::from_flags(flags)?;
    let mut at = start + HEADER_LEN;
    // (unpadded size, uncompressed size) of each block, for the index. Each block takes at least
    // 12 bytes of input, so the list is bounded by the input.
    let mut records = Vec::new();
    loop {
        match xz.get(at) {
            None => return Err("the XZ stream ends before its index".into()),
            Some(0) => break,
            Some(_) => {
                let (next, record) = block(xz, at, check, out, max)
                    .map_err(|e| format!("block {}: {e}", records.len() + 1))?;
                records.push(record);
                at = next;
            }
        }
    }
    let index_end = index(xz, at, &records)?;
    footer(xz, index_end, index_end - at, flags)?;
    Ok(index_end + HEADER_LEN)
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

/// The block whose header starts at `start`: decoded into `out`, its check verified. Where the
/// block ends, and its index record.
fn block(
    xz: &[u8],
    start: usize,
    check: Check,
    out: &mut Vec<u8>,
    max: usize,
) -> Result<(usize, (u64, u64)), String> {
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
    for i in 0..count {
        let id = fields.vli()?;
        let props_len = fields.vli()?;
        let props = fields.take(props_len)?;
        let last = i + 1 == count;
        match (id, last) {
            (FILTER_LZMA2, true) => match props {
                [dict] if *dict <= 40 => {}
                _ => {
                    return Err(format!(
                        "the LZMA2 filter's properties {} are not valid (one byte, at most 40)",
                        hex(props)
                    ))
                }
            },
            (FILTER_DELTA, false) => match props {
                [distance] => deltas.push(usize::from(*distance) + 1),
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

    let data_start = start + header_len;
    let room = max - out.len();
    if let Some(unpacked) = unpacked.filter(|&u| u > room as u64) {
        return Err(too_much(max, unpacked));
    }
    let data = &xz[data_start..];
    let (decoded, used) =
        lzma2_size(data, out.len(), max)?.ok_or("the LZMA2 data ends before its end marker")?;
    if let Some(packed) = packed.filter(|&p| p != used as u64) {
        return Err(format!(
            "the block header says {packed} compressed bytes, its LZMA2 data takes {used}"
        ));
    }
    if let Some(unpacked) = unpacked.filter(|&u| u != decoded as u64) {
        return Err(format!(
            "the block header says {unpacked} decoded bytes, its LZMA2 chunks hold {decoded}"
        ));
    }
    let block_start = out.len();
    lzma2_decode(&data[..used], out, block_start + decoded)?;
    if out.len() - block_start != decoded {
        return Err(format!(
            "the LZMA2 data decoded to {} bytes, its chunk headers say {decoded}",
            out.len() - block_start
        ));
    }
    for &distance in deltas.iter().rev() {
        undo_delta(&mut out[block_start..], distance);
    }

    let unpadded_data = header_len + used;
    let padding = (4 - unpadded_data % 4) % 4;
    let padded_end = data_start + used + padding;
    if slice(xz, data_start + used, padding, "a block's padding")?
        .iter()
        .any(|&b| b != 0)
    {
        return Err("the block's padding is not null bytes".into());
    }
    let stored = slice(xz, padded_end, check.size(), "a block's check")?;
    check.verify(&out[block_start..], stored)?;
    let record = ((unpadded_data + check.size()) as u64, decoded as u64);
    Ok((padded_end + check.size(), record))
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

fn too_much(max: usize, size: impl std::fmt::Display) -> String {
    format!("decodes to more than the {max} bytes the chunk may have ({size})")
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

/// Undoes a delta filter of `distance` (1 to 256) over `data`: each byte gets the decoded byte
/// `distance` before it added, mod 256 (the bytes before the start count as 0).
pub fn undo_delta(data: &mut [u8], distance: usize) {
    for i in distance..data.len() {
        data[i] = data[i].wrapping_add(data[i - distance]);
    }
}

/// Decodes the LZMA2 stream `data` (up to its end marker), appending to `out`, which may grow to
/// `max` bytes in all.
pub fn lzma2_decode(data: &[u8], out: &mut Vec<u8>, max: usize) -> Result<(), String> {
    let mut bounded = Bounded {
        out: std::mem::take(out),
        max,
    };
    let result = lzma_rs::lzma2_decompress(&mut BufReader::new(data), &mut bounded);
    *out = bounded.out;
    result.map_err(|e| format!("{e}"))
}

/// Reads the LZMA2 chunk headers of `data`: the bytes the chunks decode to (an error where that
/// and the `before` bytes already decoded come to more than `max`) and the bytes they take, up
/// to and including the end marker; `None` where the data ends first.
pub fn lzma2_size(
    data: &[u8],
    before: usize,
    max: usize,
) -> Result<Option<(usize, usize)>, String> {
    let byte = |i: usize| data.get(i).map(|&b| b as usize);
    let (mut at, mut total) = (0usize, 0usize);
    while let Some(control) = byte(at) {
        let (decoded, header, packed) = match control {
            0 => return Ok(Some((total, at + 1))),
            // Uncompressed: a 16-bit size less one.
            1 | 2 => {
                let (Some(hi), Some(lo)) = (byte(at + 1), byte(at + 2)) else {
                    break;
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
                    break;
                };
                let unpacked = ((control & 0x1f) << 16 | u1 << 8 | u2) + 1;
                let props = usize::from(control >= 0xc0);
                (unpacked, 5 + props, (p1 << 8 | p2) + 1)
            }
            _ => return Err(format!("LZMA2 chunk header {control:#04x} is not valid")),
        };
        total = total
            .checked_add(decoded)
            .filter(|&t| t <= max - before)
            .ok_or_else(|| too_much(max, "by its LZMA2 chunk headers"))?;
        at += header + packed;
    }
    Ok(None)
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

static CRC32_TABLE: [u64; 256] = crc_table(0xEDB8_8320, 32);
static CRC64_TABLE: [u64; 256] = crc_table(0xC96C_5795_D787_0F42, 64);

/// CRC32 (IEEE 802.3, reflected), as XZ uses it for headers, the index and the CRC32 check.
pub fn crc32(data: &[u8]) -> u32 {
    let crc = data.iter().fold(0xFFFF_FFFFu64, |crc, &b| {
        CRC32_TABLE[((crc ^ u64::from(b)) & 0xff) as usize] ^ (crc >> 8)
    });
    (crc ^ 0xFFFF_FFFF) as u32
}

/// CRC64 (ECMA-182, reflected), XZ's default check.
pub fn crc64(data: &[u8]) -> u64 {
    let crc = data.iter().fold(u64::MAX, |crc, &b| {
        CRC64_TABLE[((crc ^ u64::from(b)) & 0xff) as usize] ^ (crc >> 8)
    });
    !crc
}

/// SHA-256 (FIPS 180-4), XZ's strongest check.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let bits = (data.len() as u64).wrapping_mul(8);
    // The message, a 0x80 byte, zeros to 56 mod 64, the length: the last one or two blocks are
    // built apart so that the data is not copied.
    let whole = data.len() / 64 * 64;
    let mut tail = data[whole..].to_vec();
    tail.push(0x80);
    while tail.len() % 64 != 56 {
        tail.push(0);
    }
    tail.extend(bits.to_be_bytes());
    for block in data[..whole].chunks_exact(64).chain(tail.chunks_exact(64)) {
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
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
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
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
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
        // Delta alone, by hand.
        let mut bytes = vec![1, 1, 1, 255, 2];
        undo_delta(&mut bytes, 2);
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
