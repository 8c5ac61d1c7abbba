//! numcodecs' `LZMA` codec: Python's `lzma` module, whose `format` says the container: XZ (the
//! default; LZMA2 inside, its check verified), LZMA "alone" (the .lzma header) or a raw LZMA2
//! stream (`FORMAT_RAW` with one LZMA2 filter). Decoded by lzma-rs.

use crate::Bounded;
use std::io::BufReader;

/// Python's `lzma.FORMAT_*`, as numcodecs' configuration carries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `FORMAT_AUTO` (0): XZ or alone, told apart by the XZ magic bytes.
    Auto,
    /// `FORMAT_XZ` (1).
    Xz,
    /// `FORMAT_ALONE` (2).
    Alone,
    /// `FORMAT_RAW` (3) with a single LZMA2 filter.
    RawLzma2,
}

impl Format {
    pub fn code(self) -> u32 {
        match self {
            Format::Auto => 0,
            Format::Xz => 1,
            Format::Alone => 2,
            Format::RawLzma2 => 3,
        }
    }

    pub fn from_code(code: u32) -> Result<Format, String> {
        [Format::Auto, Format::Xz, Format::Alone, Format::RawLzma2]
            .into_iter()
            .find(|f| f.code() == code)
            .ok_or_else(|| format!("unknown LZMA format {code}"))
    }
}

const XZ_MAGIC: &[u8] = b"\xFD7zXZ\x00";

/// Decodes `encoded` to at most `max` bytes.
pub fn decode(encoded: &[u8], format: Format, max: usize) -> Result<Vec<u8>, String> {
    let format = match format {
        Format::Auto if encoded.starts_with(XZ_MAGIC) => Format::Xz,
        Format::Auto => Format::Alone,
        other => other,
    };
    // lzma-rs gathers an XZ block, or a raw LZMA2 stream up to a dictionary reset, in a buffer
    // of its own before writing it out: the limit on the output would come too late. The chunk
    // headers say how much each decodes to, so the total is checked first.
    match format {
        Format::Xz => check_xz(encoded, max)?,
        Format::RawLzma2 => {
            lzma2_size(encoded, max)?;
        }
        _ => {}
    }
    let mut out = Bounded {
        out: Vec::new(),
        max,
    };
    let mut input = BufReader::new(encoded);
    let result = match format {
        Format::Xz => lzma_rs::xz_decompress(&mut input, &mut out),
        Format::Alone => {
            // The dictionary grows with what is decoded, so the limit on the output bounds it
            // too; the header's dictionary size is not allocated up front.
            let options = lzma_rs::decompress::Options {
                memlimit: Some(max.max(4096)),
                ..Default::default()
            };
            lzma_rs::lzma_decompress_with_options(&mut input, &mut out, &options)
        }
        Format::RawLzma2 | Format::Auto => lzma_rs::lzma2_decompress(&mut input, &mut out),
    };
    result.map_err(|e| format!("{e}"))?;
    Ok(out.out)
}

/// Bytes one XZ check takes, by check id (the XZ format's table).
fn check_size(id: u8) -> usize {
    match id {
        0 => 0,
        1..=3 => 4,
        4..=6 => 8,
        7..=9 => 16,
        10..=12 => 32,
        _ => 64,
    }
}

/// Checks that the blocks of the XZ stream `xz` decode to at most `max` bytes in all, from their
/// LZMA2 chunk headers. Structure it cannot follow is left to the decoder to refuse.
fn check_xz(xz: &[u8], max: usize) -> Result<(), String> {
    let Some(&flags) = xz.get(7) else {
        return Ok(());
    };
    let check = check_size(flags & 0x0f);
    let mut at = 12; // the stream header
    let mut total = 0usize;
    // Each block: its header (size in its first byte; 0 starts the index), LZMA2 chunks,
    // padding to four bytes, its check.
    while let Some(&first) = xz.get(at) {
        if first == 0 {
            break;
        }
        at += (first as usize + 1) * 4;
        let rest = xz.get(at..).unwrap_or_default();
        let (decoded, used) = lzma2_size(rest, max - total)?;
        total += decoded;
        at += used.next_multiple_of(4) + check;
    }
    Ok(())
}

/// Reads the LZMA2 chunk headers of `data`: the bytes the chunks decode to (at most `max`, or an
/// error) and the bytes they take, up to and including the end marker.
fn lzma2_size(data: &[u8], max: usize) -> Result<(usize, usize), String> {
    let too_much = || format!("decodes to more than the {max} bytes the chunk may have");
    let byte = |i: usize| data.get(i).map(|&b| b as usize);
    let (mut at, mut total) = (0usize, 0usize);
    while let Some(control) = byte(at) {
        let (decoded, header, packed) = match control {
            0 => return Ok((total, at + 1)),
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
            .filter(|&t| t <= max)
            .ok_or_else(too_much)?;
        at += header + packed;
    }
    // No end marker: the decoder says what is wrong with the stream.
    Ok((total, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_round_trip_and_limits_hold() {
        let data: Vec<u8> = (0..5000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &data[..], &mut xz).unwrap();
        assert_eq!(decode(&xz, Format::Xz, data.len()).unwrap(), data);
        assert_eq!(decode(&xz, Format::Auto, data.len()).unwrap(), data);
        let err = decode(&xz, Format::Xz, data.len() - 1).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        let mut alone = Vec::new();
        lzma_rs::lzma_compress(&mut &data[..], &mut alone).unwrap();
        assert_eq!(decode(&alone, Format::Alone, data.len()).unwrap(), data);
        assert!(decode(&alone[..alone.len() / 2], Format::Alone, data.len()).is_err());
        assert!(decode(b"garbage", Format::Xz, 100).is_err());
        // Chunk headers that claim more than the limit are refused before anything decodes:
        // an LZMA2 chunk of 2 MiB of zeros (uncompressed chunks of 64 KiB, say, 32 of them).
        let mut raw = Vec::new();
        for _ in 0..32 {
            raw.extend([1, 0xff, 0xff]);
            raw.extend(vec![0u8; 65536]);
        }
        raw.push(0);
        let err = decode(&raw, Format::RawLzma2, 1 << 20).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        assert_eq!(
            decode(&raw, Format::RawLzma2, 2 << 20).unwrap().len(),
            2 << 20
        );
        // In an XZ stream, the same chunks inside a block.
        let mut big = Vec::new();
        lzma_rs::xz_compress(&mut &vec![7u8; 3 << 20][..], &mut big).unwrap();
        let err = decode(&big, Format::Xz, 1 << 20).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        // The headers alone say so (before lzma-rs would gather the block).
        assert!(check_xz(&big, 1 << 20).is_err());
        assert!(check_xz(&big, 3 << 20).is_ok());
    }
}
