//! The `gzip` codec (RFC 1952). Several members in a row decode to their concatenation, as gzip
//! tools do; each member's CRC-32 and size trailer is checked. A chunk decodes in steps
//! (`Gunzip`).

use super::codec::{
    decode_whole, decode_whole_into, BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind,
    StepDecoder,
};
use super::configuration::{Bounded, Configuration};
use crate::collections::buffer::Output;
use crate::compression::inflate::{Inflater, Wrapper};
use crate::error::CodecError;
use zarr_wasm_kernels::crc32;

/// `gzip`, in v3 and as numcodecs writes it.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["gzip", "numcodecs.gzip"],
    kind: Kind::BytesToBytes,
    build: |config, _| {
        Ok(Codec::bytes_to_bytes(GzipCodec::from_configuration(
            config,
        )?))
    },
}];

pub struct GzipCodec {
    /// The level chunks are written at (decoding does not depend on it).
    #[cfg_attr(not(feature = "write"), allow(dead_code))]
    level: u8,
}

impl Default for GzipCodec {
    /// What the codec's configuration gives with nothing in it.
    fn default() -> Self {
        GzipCodec { level: 5 }
    }
}

impl GzipCodec {
    /// `level`: checked, and optional (decoding does not depend on it, so a writer that left it
    /// out is still read); left out, 5, as zarr-python writes.
    pub fn from_configuration(config: Configuration) -> Result<GzipCodec, String> {
        let level = config.optional::<Bounded<0, 9>>("level")?;
        Ok(GzipCodec {
            level: level.map_or(5, |Bounded(l)| l as u8),
        })
    }
}

const FTEXT: u8 = 1;
const FHCRC: u8 = 2;
const FEXTRA: u8 = 4;
const FNAME: u8 = 8;
const FCOMMENT: u8 = 16;

/// Length of the member header at the start of `data`.
fn header_len(data: &[u8]) -> Result<usize, String> {
    let truncated = || "gzip header is truncated".to_string();
    let fixed = data.get(..10).ok_or_else(truncated)?;
    if fixed[0] != 0x1f || fixed[1] != 0x8b {
        return Err(format!(
            "not gzip data (starts with {:02x} {:02x}, expected 1f 8b)",
            fixed[0], fixed[1]
        ));
    }
    if fixed[2] != 8 {
        return Err(format!("unknown gzip compression method {}", fixed[2]));
    }
    let flags = fixed[3];
    if flags & !(FTEXT | FHCRC | FEXTRA | FNAME | FCOMMENT) != 0 {
        return Err(format!("reserved gzip header flags are set ({flags:#04x})"));
    }
    let mut pos = 10usize;
    if flags & FEXTRA != 0 {
        let xlen = data.get(pos..pos + 2).ok_or_else(truncated)?;
        pos += 2 + u16::from_le_bytes([xlen[0], xlen[1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let rest = data.get(pos..).ok_or_else(truncated)?;
            let nul = rest.iter().position(|&b| b == 0).ok_or_else(truncated)?;
            pos += nul + 1;
        }
    }
    if flags & FHCRC != 0 {
        pos += 2;
    }
    if pos > data.len() {
        return Err(truncated());
    }
    Ok(pos)
}

/// The most members, the last aside, that may decode to less than `SMALL_MEMBER` bytes each.
/// No writer makes more than one (the empty end marker of BGZF files, whose other members hold
/// 64 KiB); thousands of them (20 bytes each when empty) would keep the decoder busy for seconds
/// producing nothing, as each member costs a decoder's setup whatever it holds.
pub const MAX_SMALL_MEMBERS: usize = 16;

/// A member that decodes to less than this is small (see `MAX_SMALL_MEMBERS`).
pub const SMALL_MEMBER: usize = 4096;

/// Decodes a whole gzip stream (one or more members), producing at most `limit` bytes.
pub fn gunzip(data: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    let mut gunzip = Gunzip::new(data, limit);
    let mut out = Vec::new();
    let len = loop {
        if let Some(len) = gunzip.advance(&mut Output::Growing(&mut out), usize::MAX)? {
            break len;
        }
    };
    out.truncate(len);
    Ok(out)
}

/// A gzip stream being decoded, a share at a time. One decoder serves every member, and the
/// room made for the output is kept from one member to the next (see `Inflater::step`).
pub struct Gunzip<D = Vec<u8>> {
    data: D,
    limit: usize,
    inflater: Inflater,
    /// Where the next member starts in `data`.
    next: usize,
    /// Where the DEFLATE stream of the member being decoded starts in `data` (`None` between
    /// members), and the CRC-32 of its output so far, taken step by step as the output is made.
    body: Option<usize>,
    crc: crc32::Hasher,
    /// Members so far that decoded to little (see `MAX_SMALL_MEMBERS`).
    small: usize,
}

impl<D: AsRef<[u8]>> Gunzip<D> {
    pub fn new(data: D, limit: usize) -> Gunzip<D> {
        Gunzip {
            data,
            limit,
            inflater: Inflater::new(Wrapper::Raw),
            next: 0,
            body: None,
            crc: crc32::Hasher::crc32(),
            small: 0,
        }
    }

    /// Decodes about `budget` more bytes into `out`; the output's length once the last member is
    /// done.
    pub fn advance(
        &mut self,
        out: &mut Output<'_>,
        budget: usize,
    ) -> Result<Option<usize>, String> {
        let data = self.data.as_ref();
        let mut spent = 0usize;
        loop {
            let body = match self.body {
                Some(body) => body,
                None => {
                    let body = self.next + header_len(&data[self.next..])?;
                    self.inflater.restart(self.inflater.end());
                    self.crc = crc32::Hasher::crc32();
                    *self.body.insert(body)
                }
            };
            let before = self.inflater.end();
            let ended =
                self.inflater
                    .step(&data[body..], out, self.limit, budget.saturating_sub(spent))?;
            let after = self.inflater.end();
            self.crc.update(&out.contents()[before..after]);
            spent += after - before;
            let Some(used) = ended else {
                return Ok(None);
            };
            let trailer_at = body + used;
            let trailer = data
                .get(trailer_at..trailer_at + 8)
                .ok_or_else(|| "gzip trailer (CRC-32 and size) is missing".to_string())?;
            let stored_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
            let size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
            let produced = self.inflater.written();
            if produced as u32 != size {
                return Err(format!(
                    "gzip size mismatch: trailer says {size} bytes, decoded {produced}"
                ));
            }
            let actual = self.crc.finish();
            if actual != stored_crc {
                return Err(format!(
                    "gzip CRC-32 mismatch: trailer says {stored_crc:08x}, data has {actual:08x}"
                ));
            }
            self.body = None;
            self.next = trailer_at + 8;
            // Zero bytes after the last member are padding (tape-era writers); gzip tools skip them.
            if data[self.next..].iter().all(|&b| b == 0) {
                return Ok(Some(self.inflater.end()));
            }
            if produced < SMALL_MEMBER {
                self.small += 1;
                if self.small > MAX_SMALL_MEMBERS {
                    return Err(format!(
                        "more than {MAX_SMALL_MEMBERS} gzip members decode to nothing or next to nothing (less than {SMALL_MEMBER} bytes each; the last one read ends at byte {}): no gzip writer makes those, and their number would make decoding take long for no data",
                        self.next
                    ));
                }
            }
            if spent >= budget {
                return Ok(None);
            }
        }
    }
}

impl<D: AsRef<[u8]>> StepDecoder for Gunzip<D> {
    fn step(&mut self, out: &mut Output<'_>, budget: usize) -> Result<Option<usize>, CodecError> {
        self.advance(out, budget)
            .map_err(|e| CodecError::new("gzip", e))
    }
}

impl BytesToBytesCodec for GzipCodec {
    fn name(&self) -> &'static str {
        "gzip"
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    /// One gzip member (see `GZIP_HEADER`, `gzip_trailer`).
    #[cfg(feature = "write")]
    fn encode(&self, decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        use crate::compression::deflate::Deflater;
        let mut deflater = Deflater::after(&GZIP_HEADER, decoded.len(), self.level, false);
        deflater.take(&decoded, true);
        let crc = crc32::crc32(&decoded);
        Ok(gzip_trailer(deflater.finish(), crc, decoded.len()))
    }

    #[cfg(feature = "write")]
    fn encode_stepwise(
        &self,
        decoded: Vec<u8>,
    ) -> Result<Box<dyn super::codec::StepEncoder + '_>, Vec<u8>> {
        use crate::compression::deflate::DeflateSteps;
        let steps = DeflateSteps::after(&GZIP_HEADER, decoded, self.level, false);
        Ok(Box::new(GzipSteps {
            steps,
            crc: crc32::Hasher::crc32(),
        }))
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let gunzip = Gunzip::new(encoded, decoded_size.limit());
        decode_whole(self.name(), gunzip, decoded_size)
    }

    fn decode_into(&self, encoded: Vec<u8>, out: &mut [u8]) -> Result<(), CodecError> {
        decode_whole_into(self.name(), Gunzip::new(encoded, out.len()), out)
    }

    fn stepwise(
        &self,
        encoded: Vec<u8>,
        decoded_size: DecodedSize,
    ) -> Result<Box<dyn StepDecoder + '_>, Vec<u8>> {
        Ok(Box::new(Gunzip::new(encoded, decoded_size.limit())))
    }
}

/// A gzip member's header, without a name or a time (as `gzip -n` writes, so that the same chunk
/// always encodes to the same bytes).
#[cfg(feature = "write")]
const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

/// A gzip member: `member` (the header and the deflate stream) with its trailer, the CRC-32 and
/// the size of what it holds.
#[cfg(feature = "write")]
fn gzip_trailer(mut member: Vec<u8>, crc: u32, size: usize) -> Vec<u8> {
    member.extend(crc.to_le_bytes());
    member.extend((size as u32).to_le_bytes());
    member
}

/// A gzip member written in steps, its CRC taken a piece at a time.
#[cfg(feature = "write")]
struct GzipSteps {
    steps: crate::compression::deflate::DeflateSteps,
    crc: crc32::Hasher,
}

#[cfg(feature = "write")]
impl super::codec::StepEncoder for GzipSteps {
    fn step(&mut self, budget: usize) -> Result<Option<Vec<u8>>, CodecError> {
        let crc = &mut self.crc;
        let done = self.steps.step_seeing(budget, |piece| crc.update(piece));
        Ok(done.map(|(member, decoded)| gzip_trailer(member, self.crc.finish(), decoded.len())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gzip member built by hand around miniz_oxide's raw deflate, with optional header fields.
    fn member(data: &[u8], flags: u8) -> Vec<u8> {
        let mut m = vec![0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 255];
        if flags & FEXTRA != 0 {
            m.extend_from_slice(&[3, 0, b'a', b'b', b'c']);
        }
        if flags & FNAME != 0 {
            m.extend_from_slice(b"name\0");
        }
        if flags & FHCRC != 0 {
            m.extend_from_slice(&[0, 0]);
        }
        m.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
        m.extend(crc32::crc32(data).to_le_bytes());
        m.extend((data.len() as u32).to_le_bytes());
        m
    }

    #[test]
    fn members_with_optional_fields_concatenate() {
        let a = b"hello, ".repeat(100);
        let b = b"world".repeat(50);
        let stream = [member(&a, FEXTRA | FNAME), member(&b, FHCRC)].concat();
        let out = GzipCodec { level: 5 }
            .decode(stream, Some(a.len() + b.len()).into())
            .unwrap();
        assert_eq!(out, [a, b].concat());
    }

    #[test]
    fn corruption_is_named() {
        let data = b"0123456789".repeat(100);
        let good = member(&data, 0);
        let mut bad_crc = good.clone();
        let n = bad_crc.len();
        bad_crc[n - 8] ^= 1;
        assert!(GzipCodec { level: 5 }
            .decode(bad_crc, Some(data.len()).into())
            .unwrap_err()
            .reason
            .contains("CRC-32 mismatch"));
        let truncated = good[..good.len() - 3].to_vec();
        assert!(GzipCodec { level: 5 }
            .decode(truncated, Some(data.len()).into())
            .is_err());
        assert!(GzipCodec { level: 5 }
            .decode(b"not gzip at all".to_vec(), None.into())
            .unwrap_err()
            .reason
            .contains("not gzip"));
        assert!(GzipCodec { level: 5 }
            .decode(good.clone(), Some(data.len() + 1).into())
            .unwrap_err()
            .reason
            .contains("expected"));
        assert!(GzipCodec { level: 5 }.decode(vec![], None.into()).is_err());
        let padded = [good.clone(), vec![0; 5]].concat();
        assert_eq!(
            GzipCodec { level: 5 }
                .decode(padded, Some(data.len()).into())
                .unwrap(),
            data
        );
    }
}
