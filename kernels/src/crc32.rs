//! CRC-32 (gzip's trailer, numcodecs' `crc32`, ZIP and Parquet) and CRC-32C (Zarr's `crc32c`
//! codec, shard indexes), by slicing-by-16.
//!
//! The tables are computed on first use rather than stored in the module: as data they are
//! 16 KiB per polynomial of bytes that do not compress, and the crates this replaces (crc32fast
//! and crc32c, whose tables are built at compile time) put 24 KiB of them into every page's
//! download. Building one costs about 6,000 steps (256 x 8 bit steps, 15 x 256 entries), once
//! per module instance.

use std::sync::OnceLock;

/// Sixteen tables of 256 entries: entry `k` of table `j` is the CRC of byte `k` followed by `j`
/// zero bytes, so that sixteen input bytes are folded into the CRC with sixteen lookups.
type Tables = [[u32; 256]; 16];

/// The reflected generator polynomial of CRC-32 (ISO-HDLC, as zlib and gzip use it).
const CRC32_POLY: u32 = 0xEDB8_8320;
/// The reflected generator polynomial of CRC-32C (Castagnoli, RFC 3720).
const CRC32C_POLY: u32 = 0x82F6_3B78;

static CRC32_TABLES: OnceLock<Box<Tables>> = OnceLock::new();
static CRC32C_TABLES: OnceLock<Box<Tables>> = OnceLock::new();

fn build(poly: u32) -> Box<Tables> {
    let mut tables = Box::new([[0u32; 256]; 16]);
    for (byte, entry) in tables[0].iter_mut().enumerate() {
        let mut crc = byte as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ poly
            } else {
                crc >> 1
            };
        }
        *entry = crc;
    }
    for j in 1..16 {
        for k in 0..256 {
            let previous = tables[j - 1][k];
            tables[j][k] = (previous >> 8) ^ tables[0][(previous & 0xff) as usize];
        }
    }
    tables
}

/// Continues the (unfinalised) CRC `crc` over `data`.
#[inline(never)]
fn update(tables: &Tables, mut crc: u32, data: &[u8]) -> u32 {
    let mut blocks = data.chunks_exact(16);
    for b in &mut blocks {
        let low = crc ^ u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        crc = tables[15][(low & 0xff) as usize]
            ^ tables[14][((low >> 8) & 0xff) as usize]
            ^ tables[13][((low >> 16) & 0xff) as usize]
            ^ tables[12][(low >> 24) as usize]
            ^ tables[11][b[4] as usize]
            ^ tables[10][b[5] as usize]
            ^ tables[9][b[6] as usize]
            ^ tables[8][b[7] as usize]
            ^ tables[7][b[8] as usize]
            ^ tables[6][b[9] as usize]
            ^ tables[5][b[10] as usize]
            ^ tables[4][b[11] as usize]
            ^ tables[3][b[12] as usize]
            ^ tables[2][b[13] as usize]
            ^ tables[1][b[14] as usize]
            ^ tables[0][b[15] as usize];
    }
    for &byte in blocks.remainder() {
        crc = tables[0][((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
    }
    crc
}

/// A CRC taken over data that arrives in parts.
#[derive(Clone, Copy)]
pub struct Hasher {
    tables: &'static Tables,
    /// The CRC register, inverted as the algorithm keeps it between parts.
    state: u32,
}

impl Hasher {
    /// A CRC-32 (zlib's `crc32`) of nothing so far.
    pub fn crc32() -> Hasher {
        Hasher {
            tables: CRC32_TABLES.get_or_init(|| build(CRC32_POLY)),
            state: !0,
        }
    }

    /// A CRC-32C of nothing so far.
    pub fn crc32c() -> Hasher {
        Hasher {
            tables: CRC32C_TABLES.get_or_init(|| build(CRC32C_POLY)),
            state: !0,
        }
    }

    pub fn update(&mut self, data: &[u8]) {
        self.state = update(self.tables, self.state, data);
    }

    /// The CRC of everything given so far.
    pub fn finish(&self) -> u32 {
        !self.state
    }
}

/// The CRC-32 of `data`, as zlib's `crc32(0, data)` gives it.
pub fn crc32(data: &[u8]) -> u32 {
    let mut hasher = Hasher::crc32();
    hasher.update(data);
    hasher.finish()
}

/// The CRC-32C of `data`.
pub fn crc32c(data: &[u8]) -> u32 {
    let mut hasher = Hasher::crc32c();
    hasher.update(data);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_values_of_the_catalogue() {
        // The "check" of each CRC in the catalogue of parametrised CRC algorithms.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32c(b""), 0);
    }

    /// Every length from 0 to 200, at every offset into a buffer, whole and in two parts,
    /// against the crates the tables replaced.
    #[test]
    fn agrees_with_crc32fast_and_crc32c_at_every_length_offset_and_split() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let data: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        for offset in 0..17 {
            for len in 0..200 {
                let part = &data[offset..offset + len];
                assert_eq!(crc32(part), crc32fast::hash(part), "crc32 {offset} {len}");
                assert_eq!(crc32c(part), crc32c::crc32c(part), "crc32c {offset} {len}");
                let split = len / 3;
                let mut h = Hasher::crc32();
                h.update(&part[..split]);
                h.update(&part[split..]);
                assert_eq!(h.finish(), crc32fast::hash(part));
            }
        }
        assert_eq!(crc32(&data), crc32fast::hash(&data));
        assert_eq!(crc32c(&data), crc32c::crc32c(&data));
    }
}
