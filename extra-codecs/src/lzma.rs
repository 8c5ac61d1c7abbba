//! numcodecs' `LZMA` codec: Python's `lzma` module, whose `format` says the container: XZ (the
//! default; LZMA2 inside, its check verified), LZMA "alone" (the .lzma header) or a raw LZMA2
//! stream (`FORMAT_RAW` with LZMA2 last in its filter chain, delta filters before it). LZMA and
//! LZMA2 data are decoded by lzma-rs; the XZ container and the delta filter by `xz.rs`.

use crate::xz;
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
    /// `FORMAT_RAW` (3): LZMA2, after delta filters where the configuration's chain has them.
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

/// Decodes `encoded` to at most `max` bytes. `deltas` are the distances of the delta filters
/// before LZMA2 in a raw stream's chain (its configuration's `filters`, in order): an XZ stream
/// names its own chain, and the alone format has none.
pub fn decode(
    encoded: &[u8],
    format: Format,
    deltas: &[usize],
    max: usize,
) -> Result<Vec<u8>, String> {
    let format = match format {
        Format::Auto if encoded.starts_with(xz::MAGIC) => Format::Xz,
        Format::Auto => Format::Alone,
        other => other,
    };
    match format {
        // The container is read here (lzma-rs reads no delta filter, no SHA-256 check).
        Format::Xz => xz::decode(encoded, max),
        Format::Alone => {
            let mut out = Bounded {
                out: Vec::new(),
                max,
            };
            // The dictionary grows with what is decoded, so the limit on the output bounds it
            // too; the header's dictionary size is not allocated up front.
            let options = lzma_rs::decompress::Options {
                memlimit: Some(max.max(4096)),
                ..Default::default()
            };
            lzma_rs::lzma_decompress_with_options(&mut BufReader::new(encoded), &mut out, &options)
                .map_err(|e| format!("{e}"))?;
            Ok(out.out)
        }
        Format::RawLzma2 | Format::Auto => {
            // lzma-rs gathers a raw LZMA2 stream up to a dictionary reset in a buffer of its own
            // before writing it out: the limit on the output would come too late. The chunk
            // headers say how much each decodes to, so the total is checked first.
            xz::lzma2_size(encoded, 0, max)?;
            let mut out = Vec::new();
            xz::lzma2_decode(encoded, &mut out, max)?;
            // The chain undone from its end: LZMA2 last, so the delta filters before it in turn.
            for &distance in deltas.iter().rev() {
                xz::undo_delta(&mut out, distance);
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_round_trip_and_limits_hold() {
        let data: Vec<u8> = (0..5000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &data[..], &mut xz).unwrap();
        assert_eq!(decode(&xz, Format::Xz, &[], data.len()).unwrap(), data);
        assert_eq!(decode(&xz, Format::Auto, &[], data.len()).unwrap(), data);
        let err = decode(&xz, Format::Xz, &[], data.len() - 1).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        let mut alone = Vec::new();
        lzma_rs::lzma_compress(&mut &data[..], &mut alone).unwrap();
        assert_eq!(
            decode(&alone, Format::Alone, &[], data.len()).unwrap(),
            data
        );
        assert!(decode(&alone[..alone.len() / 2], Format::Alone, &[], data.len()).is_err());
        assert!(decode(b"garbage", Format::Xz, &[], 100).is_err());
        // Chunk headers that claim more than the limit are refused before anything decodes:
        // an LZMA2 chunk of 2 MiB of zeros (uncompressed chunks of 64 KiB, say, 32 of them).
        let mut raw = Vec::new();
        for _ in 0..32 {
            raw.extend([1, 0xff, 0xff]);
            raw.extend(vec![0u8; 65536]);
        }
        raw.push(0);
        let err = decode(&raw, Format::RawLzma2, &[], 1 << 20).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        assert_eq!(
            decode(&raw, Format::RawLzma2, &[], 2 << 20).unwrap().len(),
            2 << 20
        );
        // In an XZ stream, the same chunks inside a block.
        let mut big = Vec::new();
        lzma_rs::xz_compress(&mut &vec![7u8; 3 << 20][..], &mut big).unwrap();
        let err = decode(&big, Format::Xz, &[], 1 << 20).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        // The headers alone say so (before lzma-rs would gather the block).
        let block = &big[12..];
        let header = (usize::from(block[0]) + 1) * 4;
        assert!(xz::lzma2_size(&block[header..], 0, 1 << 20).is_err());
        assert!(
            matches!(xz::lzma2_size(&block[header..], 0, 3 << 20), Ok(Some((n, _))) if n == 3 << 20)
        );
        assert_eq!(
            decode(&big, Format::Xz, &[], 3 << 20).unwrap().len(),
            3 << 20
        );
    }
}
