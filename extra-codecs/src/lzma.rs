//! numcodecs' `LZMA` codec: Python's `lzma` module, whose `format` says the container: XZ (the
//! default; LZMA2 inside, its check verified), LZMA "alone" (the .lzma header) or a raw LZMA2
//! stream (`FORMAT_RAW` with LZMA2 last in its filter chain, delta filters before it). LZMA and
//! LZMA2 data are decoded by `lzma_decoder.rs`, the XZ container by `xz.rs`; all in steps.

use crate::lzma_decoder::{Alone, Lzma2};
use crate::{xz, Steps};

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

/// Decodes `encoded` to at most `max` bytes, in one go (see `begin`).
pub fn decode(
    encoded: &[u8],
    format: Format,
    deltas: &[usize],
    max: usize,
) -> Result<Vec<u8>, String> {
    let mut steps = begin(encoded.to_vec(), format, deltas, max)?;
    let mut out = Vec::new();
    while !steps.step(usize::MAX, &mut out)? {}
    Ok(out)
}

/// Begins decoding `encoded` to at most `max` bytes. `deltas` are the distances of the delta
/// filters before LZMA2 in a raw stream's chain (its configuration's `filters`, in order): an
/// XZ stream names its own chain, and the alone format has none.
pub fn begin(
    encoded: Vec<u8>,
    format: Format,
    deltas: &[usize],
    max: usize,
) -> Result<Box<dyn Steps>, String> {
    let format = match format {
        Format::Auto if encoded.starts_with(xz::MAGIC) => Format::Xz,
        Format::Auto => Format::Alone,
        other => other,
    };
    Ok(match format {
        // The container is read by `xz.rs` (lzma-rs read no delta filter, no SHA-256 check).
        Format::Xz => Box::new(xz::XzSteps::new(encoded, max)),
        Format::Alone => Box::new(Alone::new(encoded, max)?),
        Format::RawLzma2 | Format::Auto => Box::new(Raw {
            input: encoded,
            // Nothing says a raw stream's dictionary size: the window keeps what it decodes.
            lzma2: Lzma2::new(usize::MAX, max, 0),
            deltas: deltas.iter().map(|&d| Delta::new(d)).collect(),
            done: false,
        }),
    })
}

/// A raw LZMA2 stream, its chain's delta filters undone after it.
struct Raw {
    input: Vec<u8>,
    lzma2: Lzma2,
    deltas: Vec<Delta>,
    done: bool,
}

impl Steps for Raw {
    fn step(&mut self, budget: usize, out: &mut Vec<u8>) -> Result<bool, String> {
        if self.done {
            return Ok(true);
        }
        // The chunk headers say how much the stream decodes to: checked first.
        let Some((_, used)) = self.lzma2.scan(&self.input)? else {
            return Ok(false);
        };
        let from = out.len();
        let mut spent = 0;
        self.done = self
            .lzma2
            .step(&self.input[..used], budget, &mut spent, out)?;
        // The chain undone from its end: LZMA2 last, so the delta filters before it in turn.
        for delta in self.deltas.iter_mut().rev() {
            delta.undo(&mut out[from..]);
        }
        Ok(self.done)
    }
}

/// The delta filter undone over data that comes in pieces: each byte gets the decoded byte
/// `distance` (1 to 256) before it added, mod 256 (the bytes before the start count as 0), as
/// liblzma's decoder does it.
pub struct Delta {
    distance: usize,
    history: [u8; 256],
    pos: u8,
}

impl Delta {
    pub fn new(distance: usize) -> Delta {
        Delta {
            distance,
            history: [0; 256],
            pos: 0,
        }
    }

    pub fn undo(&mut self, data: &mut [u8]) {
        for byte in data {
            *byte = byte.wrapping_add(self.history[(self.distance + usize::from(self.pos)) & 0xff]);
            self.history[usize::from(self.pos)] = *byte;
            self.pos = self.pos.wrapping_sub(1);
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
        assert!(Lzma2::new(1 << 20, 1 << 20, 0)
            .scan(&block[header..])
            .is_err());
        assert!(
            matches!(Lzma2::new(1 << 20, 3 << 20, 0).scan(&block[header..]), Ok(Some((n, _))) if n == 3 << 20)
        );
        assert_eq!(
            decode(&big, Format::Xz, &[], 3 << 20).unwrap().len(),
            3 << 20
        );
    }
}
