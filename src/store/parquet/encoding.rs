//! Parquet's value encodings: PLAIN (fixed-width little-endian integers, length-prefixed byte
//! arrays) and the RLE/bit-packed hybrid that carries definition levels and dictionary indices.
//! Every decoder is told how many values to produce (a count the caller has bounded) and fails
//! if the bytes run out first.

use super::metadata::Physical;
use super::thrift::Result;

/// Decodes `count` values of `bit_width` bits from the RLE/bit-packed hybrid `data` (no length
/// prefix) into `out`. Bits past the last value of a bit-packed run (its padding) are ignored.
pub fn rle_hybrid(data: &[u8], bit_width: u32, count: usize, out: &mut Vec<u32>) -> Result<()> {
    if bit_width > 32 {
        return Err(format!("a bit width of {bit_width} (at most 32)"));
    }
    let byte_width = bit_width.div_ceil(8) as usize;
    let mut at = 0usize;
    let target = out.len() + count;
    while out.len() < target {
        let (header, used) = varint(&data[at..]).ok_or_else(|| {
            format!(
                "RLE data ends at byte {at} with {} of {count} values decoded",
                count - (target - out.len())
            )
        })?;
        at += used;
        let wanted = target - out.len();
        if header & 1 == 0 {
            // A run: one value repeated.
            let run = header >> 1;
            let bytes = data
                .get(at..at + byte_width)
                .ok_or_else(|| format!("an RLE run's value is cut off at byte {at}"))?;
            at += byte_width;
            let value = bytes
                .iter()
                .rev()
                .fold(0u64, |acc, &b| acc << 8 | u64::from(b));
            if bit_width < 32 && value >> bit_width != 0 {
                return Err(format!(
                    "an RLE run's value {value} is wider than {bit_width} bits"
                ));
            }
            let n = run.min(wanted as u64) as usize;
            out.extend(std::iter::repeat_n(value as u32, n));
        } else {
            // Bit-packed groups of 8 values, least significant bits first.
            let groups = header >> 1;
            let len = groups
                .checked_mul(bit_width as u64)
                .filter(|&l| l <= (data.len() - at) as u64)
                .ok_or_else(|| {
                    format!("a bit-packed run of {groups} groups at byte {at} runs past the data")
                })? as usize;
            let packed = &data[at..at + len];
            at += len;
            let n = (groups as usize * 8).min(wanted);
            let mask = if bit_width == 32 {
                u64::from(u32::MAX)
            } else {
                (1u64 << bit_width) - 1
            };
            for i in 0..n {
                let bit = i * bit_width as usize;
                let mut word = 0u64;
                for (k, &b) in packed[bit / 8..].iter().take(5).enumerate() {
                    word |= u64::from(b) << (8 * k);
                }
                out.push(((word >> (bit % 8)) & mask) as u32);
            }
        }
    }
    Ok(())
}

/// An unsigned LEB128 varint of at most 64 bits at the start of `data`: its value and length.
fn varint(data: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &b) in data.iter().enumerate().take(10) {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// Decoded values of one column: integers, or byte strings kept where they were decoded: each
/// page's buffer is kept whole (its exact size, as decompressed) and its values are spans of it,
/// so that no value is copied and nothing grows by doubling (issue 46: a column of 250 MiB of
/// values copied into a vector grown twofold held 548 MB).
#[derive(Debug, Default)]
pub struct Values {
    pub ints: Vec<i64>,
    buffers: Vec<Vec<u8>>,
    spans: Vec<Span>,
}

/// A byte string: which buffer, and where in it (a page is at most 2 GiB: its sizes are i32).
#[derive(Debug, Clone, Copy)]
struct Span {
    buffer: u32,
    start: u32,
    len: u32,
}

impl Values {
    pub fn len(&self) -> usize {
        self.ints.len() + self.spans.len()
    }

    /// How many of the values are byte strings.
    pub fn byte_strings(&self) -> usize {
        self.spans.len()
    }

    /// Value `i`'s bytes, where it is a byte string.
    pub fn bytes(&self, i: usize) -> Option<&[u8]> {
        // A column holds one type: its values are all integers or all byte strings.
        let s = self.spans.get(i)?;
        let start = s.start as usize;
        self.buffers[s.buffer as usize].get(start..start + s.len as usize)
    }

    /// About how much memory the values hold.
    pub fn held(&self) -> usize {
        self.ints.len() * 8
            + self.spans.len() * size_of::<Span>()
            + self.buffers.iter().map(|b| b.len() + 24).sum::<usize>()
    }

    /// Appends `count` PLAIN values of type `physical` from `data[start..]`; returns the bytes
    /// used. Byte strings keep `data` (moved, never copied); integers are read out of it.
    pub fn plain(
        &mut self,
        physical: Physical,
        data: Vec<u8>,
        start: usize,
        count: usize,
    ) -> Result<usize> {
        let short = |what: &str| format!("PLAIN {what} data ends before its {count} values");
        let bytes = data.get(start..).ok_or_else(|| short(physical.name()))?;
        match physical {
            Physical::Int32 | Physical::Int64 => {
                let width = if physical == Physical::Int32 { 4 } else { 8 };
                let len = count
                    .checked_mul(width)
                    .filter(|&l| l <= bytes.len())
                    .ok_or_else(|| short(physical.name()))?;
                self.ints.extend(bytes[..len].chunks_exact(width).map(|c| {
                    if width == 4 {
                        i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    } else {
                        i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])
                    }
                }));
                Ok(len)
            }
            Physical::ByteArray => {
                let buffer = u32::try_from(self.buffers.len())
                    .map_err(|_| "more than 2^32 pages".to_string())?;
                let fits = |n: usize| u32::try_from(n).map_err(|_| short("BYTE_ARRAY"));
                let mut at = start;
                // Each value takes at least its 4-byte length: the spans are bounded by the data.
                let before = self.spans.len();
                for _ in 0..count {
                    let len = data
                        .get(at..at + 4)
                        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                        .ok_or_else(|| short("BYTE_ARRAY"))?;
                    if len > data.len() - (at + 4) {
                        self.spans.truncate(before);
                        return Err(short("BYTE_ARRAY"));
                    }
                    self.spans.push(Span {
                        buffer,
                        start: fits(at + 4)?,
                        len: fits(len)?,
                    });
                    at += 4 + len;
                }
                if count > 0 {
                    self.buffers.push(data);
                }
                Ok(at - start)
            }
            p => Err(format!("values of type {p} are not read", p = p.name())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rle_runs_and_bit_packed_groups() {
        // A run of 5 threes (width 2), then one bit-packed group: 0..8 in 3 bits.
        let mut data = vec![5 << 1, 3, 1 << 1 | 1];
        let mut bits = 0u32;
        for v in 0..8u32 {
            bits |= v << (3 * v);
        }
        data.extend(&bits.to_le_bytes()[..3]);
        let mut out = Vec::new();
        rle_hybrid(&data[..2], 2, 5, &mut out).unwrap();
        assert_eq!(out, [3; 5]);
        out.clear();
        rle_hybrid(&data[2..], 3, 6, &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 3, 4, 5]);
        // A long run is cut to the count asked for; running out is an error.
        out.clear();
        rle_hybrid(&[200, 1, 1], 1, 3, &mut out).unwrap();
        assert_eq!(out, [1; 3]);
        assert!(rle_hybrid(&[2 << 1, 1], 1, 3, &mut out)
            .unwrap_err()
            .contains("ends"));
        assert!(rle_hybrid(&[0xff, 0xff, 0xff, 0x7f], 8, 3, &mut out)
            .unwrap_err()
            .contains("runs past"));
        assert!(rle_hybrid(&[2, 4], 2, 1, &mut out)
            .unwrap_err()
            .contains("wider"));
        assert!(rle_hybrid(&[2, 4], 33, 1, &mut out).is_err());
        // 32-bit values bit-packed.
        out.clear();
        let mut packed = vec![1 << 1 | 1];
        for v in 0..8u32 {
            packed.extend((v * 0x1010_1010).to_le_bytes());
        }
        rle_hybrid(&packed, 32, 8, &mut out).unwrap();
        assert_eq!(out[7], 7 * 0x1010_1010);
    }

    #[test]
    fn plain_values() {
        let mut v = Values::default();
        let mut data = vec![9, 9];
        for s in ["ab", "", "cde"] {
            data.extend((s.len() as u32).to_le_bytes());
            data.extend(s.as_bytes());
        }
        let n = data.len();
        assert_eq!(
            v.plain(Physical::ByteArray, data.clone(), 2, 3).unwrap(),
            n - 2
        );
        assert_eq!(v.bytes(2), Some(&b"cde"[..]));
        assert_eq!(v.bytes(1), Some(&b""[..]));
        assert_eq!(v.plain(Physical::ByteArray, data.clone(), 2, 1).unwrap(), 6);
        assert_eq!((v.bytes(3), v.bytes(4)), (Some(&b"ab"[..]), None));
        assert_eq!(v.byte_strings(), 4);
        let mut short = Values::default();
        assert!(short
            .plain(Physical::ByteArray, data[..n - 1].to_vec(), 2, 3)
            .is_err());
        assert_eq!(short.byte_strings(), 0);
        let mut ints = Values::default();
        ints.plain(Physical::Int32, (-5i32).to_le_bytes().to_vec(), 0, 1)
            .unwrap();
        ints.plain(Physical::Int64, (1i64 << 40).to_le_bytes().to_vec(), 0, 1)
            .unwrap();
        assert_eq!(ints.ints, [-5, 1 << 40]);
        assert!(ints.plain(Physical::Int64, vec![0; 7], 0, 1).is_err());
        assert!(ints.plain(Physical::Double, vec![0; 8], 0, 1).is_err());
        assert!(ints.plain(Physical::Int32, vec![0; 4], 5, 1).is_err());
    }
}
