//! The `blosc` codec: c-blosc 1.x chunks (format version 2), decoded by our own Rust code on top of
//! pure-Rust compressors. The layout is summarised in the module's comments; every rule was checked
//! against chunks written by the C library (numcodecs' bundled c-blosc).
//!
//! A chunk is a 16-byte header, a table of block offsets, then the blocks. Each block is one
//! compressed stream, or `typesize` streams (one per byte position) when the encoder split it. After
//! decompression a block is unshuffled (bytes or bits) if the header says so.

#[cfg(feature = "write")]
mod encode;
mod format;

pub use zarr_wasm_kernels::blosclz;
pub use zarr_wasm_kernels::snappy;

use super::codec::{
    decode_whole, decode_whole_into, BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind,
    StepDecoder,
};
use crate::codecs::configuration::{Bounded, Configuration, Field};
use crate::collections::buffer::{in_one_go, try_grow, Output};
use crate::compression::inflate::{inflate_into, Wrapper};
use crate::compression::shuffle;
use crate::error::CodecError;
use format::{
    CompressorName, Settings, ShuffleKind, ShuffleName, FLAG_BITSHUFFLE, FLAG_DONT_SPLIT,
    FLAG_MEMCPYED, FLAG_RESERVED, FLAG_SHUFFLE, HEADER_LEN, MAX_SPLITS, MIN_SPLIT_ELEMENTS,
};
use serde_json::Value;
use std::cell::RefCell;
use std::ops::Range;

/// `blosc`, in v3 and as numcodecs writes it.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["blosc", "numcodecs.blosc"],
    kind: Kind::BytesToBytes,
    build: |config, cx| {
        Ok(Codec::bytes_to_bytes(BloscCodec::from_configuration(
            config,
            cx.data_type.size(),
        )?))
    },
}];

/// The compressor the header names (bits 5-7 of the flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compressor {
    BloscLz,
    Lz4,
    Snappy,
    Zlib,
    Zstd,
}

impl Compressor {
    fn from_code(code: u8) -> Result<Compressor, String> {
        Ok(match code {
            0 => Compressor::BloscLz,
            1 => Compressor::Lz4,
            2 => Compressor::Snappy,
            3 => Compressor::Zlib,
            4 => Compressor::Zstd,
            other => return Err(format!("unknown Blosc compressor code {other}")),
        })
    }

    fn name(self) -> &'static str {
        match self {
            Compressor::BloscLz => "blosclz",
            Compressor::Lz4 => "lz4",
            Compressor::Snappy => "snappy",
            Compressor::Zlib => "zlib",
            Compressor::Zstd => "zstd",
        }
    }

    /// Decompresses one stream into `out`, which it must fill exactly.
    fn decompress_into(self, input: &[u8], out: &mut [u8]) -> Result<(), String> {
        let written = match self {
            Compressor::BloscLz => blosclz::decompress(input, out)?,
            Compressor::Lz4 => zarr_wasm_kernels::lz4::decompress(input, out)
                .map_err(|e| format!("LZ4 data is invalid: {e}"))?,
            Compressor::Snappy => snappy::decompress(input, out)?,
            Compressor::Zlib => inflate_into(input, out, Wrapper::Zlib)?,
            Compressor::Zstd => crate::codecs::zstd::decompress_into(input, out)?,
        };
        if written != out.len() {
            return Err(format!(
                "decoded to {written} bytes, expected {}",
                out.len()
            ));
        }
        Ok(())
    }
}

/// The 16-byte chunk header.
#[derive(Debug, Clone, Copy)]
struct Header {
    flags: u8,
    typesize: usize,
    nbytes: usize,
    blocksize: usize,
    cbytes: usize,
}

impl Header {
    fn parse(data: &[u8]) -> Result<Header, String> {
        let h = data.get(..HEADER_LEN).ok_or_else(|| {
            format!(
                "Blosc chunk is {} bytes, shorter than its 16-byte header",
                data.len()
            )
        })?;
        let u32_at = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]) as usize;
        let (version, version_lz, flags, typesize) = (h[0], h[1], h[2], h[3] as usize);
        if !(1..=2).contains(&version) {
            return Err(format!("Blosc format version {version} is not supported (Zarr uses Blosc 1 chunks, format version 2; Blosc 2 chunks are not read)"));
        }
        if version_lz != 1 {
            return Err(format!(
                "Blosc compressor format version {version_lz} is not supported (expected 1)"
            ));
        }
        if flags & FLAG_RESERVED != 0 {
            return Err(format!(
                "Blosc header flags {flags:#04x} set the reserved bit 0x08"
            ));
        }
        if typesize == 0 {
            return Err("Blosc header has typesize 0".into());
        }
        Ok(Header {
            flags,
            typesize,
            nbytes: u32_at(4),
            blocksize: u32_at(8),
            cbytes: u32_at(12),
        })
    }
}

/// The `blosc` codec: decoding needs nothing of its configuration (each chunk's header says how it
/// was written); writing uses it (`encode.rs`).
pub struct BloscCodec {
    #[cfg_attr(not(feature = "write"), allow(dead_code))]
    settings: Settings,
}

impl Default for BloscCodec {
    /// numcodecs' defaults for one-byte elements.
    fn default() -> Self {
        BloscCodec {
            settings: Settings {
                cname: CompressorName::Lz4,
                clevel: 5,
                shuffle: ShuffleKind::Byte,
                typesize: 1,
                blocksize: 0,
            },
        }
    }
}

/// `shuffle`: named in v3, numbered in numcodecs' own configuration (its constants: -1
/// `AUTOSHUFFLE`, 0 `NOSHUFFLE`, 1 `SHUFFLE`, 2 `BITSHUFFLE`). numcodecs' `Blosc` takes any value
/// and decodes by the chunk header, and writers use that: GDAL writes its creation option as
/// given (`"BIT"`, `"NONE"`, `"2"`; `BYTE`, its default, as 1). So the names of numcodecs'
/// constants, GDAL's names and the numbers as strings are read too, in any case. Only checked:
/// every chunk's header says how it was shuffled.
struct Shuffle(ShuffleKind);

/// The spellings of a shuffle besides v3's names and numcodecs' numbers (compared ignoring case).
const SHUFFLE_SPELLINGS: &[&str] = &[
    "AUTOSHUFFLE",
    "NOSHUFFLE",
    "SHUFFLE",
    "BITSHUFFLE",
    "NONE",
    "BYTE",
    "BIT",
    "-1",
    "0",
    "1",
    "2",
];

impl Field<'_> for Shuffle {
    fn expected() -> String {
        format!(
            "{}, {} or one of {} (numcodecs' constants and GDAL's names, in any case)",
            ShuffleName::expected(),
            Bounded::<-1, 2>::expected(),
            SHUFFLE_SPELLINGS
                .iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
    fn read(value: &Value) -> Option<Shuffle> {
        if let Some(name) = ShuffleName::read(value) {
            return Some(Shuffle(match name {
                ShuffleName::NoShuffle => ShuffleKind::No,
                ShuffleName::Shuffle => ShuffleKind::Byte,
                ShuffleName::BitShuffle => ShuffleKind::Bit,
            }));
        }
        let number = match value.as_str() {
            Some(s) => {
                let i = SHUFFLE_SPELLINGS
                    .iter()
                    .position(|n| n.eq_ignore_ascii_case(s))?;
                // Each name's number: numcodecs' constants, GDAL's names, the numbers as text.
                [-1, 0, 1, 2, 0, 1, 2, -1, 0, 1, 2][i]
            }
            None => Bounded::<-1, 2>::read(value)?.0,
        };
        Some(Shuffle(match number {
            -1 => ShuffleKind::Auto,
            0 => ShuffleKind::No,
            1 => ShuffleKind::Byte,
            _ => ShuffleKind::Bit,
        }))
    }
}

impl BloscCodec {
    /// The v3 `blosc` configuration. Decoding needs none of it (the chunk header says everything),
    /// but a configuration that is not what the spec allows is reported.
    /// Left out, the settings are numcodecs' defaults (lz4, level 5, byte shuffle), the type's
    /// size `typesize` and a block size chosen as c-blosc chooses it.
    pub fn from_configuration(
        config: Configuration,
        typesize: usize,
    ) -> Result<BloscCodec, String> {
        let cname = config
            .optional::<CompressorName>("cname")?
            .unwrap_or(CompressorName::Lz4);
        let shuffle = config
            .optional::<Shuffle>("shuffle")?
            .map_or(ShuffleKind::Byte, |Shuffle(kind)| kind);
        let clevel = config
            .optional::<Bounded<0, 9>>("clevel")?
            .map_or(5, |Bounded(l)| l as u8);
        let typesize = config
            .optional::<Bounded<1, 255>>("typesize")?
            .map_or(typesize.clamp(1, 255), |Bounded(t)| t as usize);
        let blocksize = config
            .optional::<Bounded<0, { i32::MAX as i64 }>>("blocksize")?
            .map_or(0, |Bounded(b)| b as usize);
        Ok(BloscCodec {
            settings: Settings {
                cname,
                clevel,
                shuffle,
                typesize,
                blocksize,
            },
        })
    }
}

impl BytesToBytesCodec for BloscCodec {
    fn name(&self) -> &'static str {
        "blosc"
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        encode::encodes(&self.settings)
    }

    #[cfg(feature = "write")]
    fn encode(&self, decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        encode::encode(&self.settings, &decoded).map_err(|e| CodecError::new("blosc", e))
    }

    /// The chunk's blocks, some per step.
    #[cfg(feature = "write")]
    fn encode_stepwise(
        &self,
        decoded: Vec<u8>,
    ) -> Result<Box<dyn super::codec::StepEncoder + '_>, Vec<u8>> {
        match encode::Encoder::new(&self.settings, &decoded) {
            Ok(Ok(encoder)) => Ok(Box::new(BloscSteps {
                data: decoded,
                encoder,
            })),
            // Stored whole, or refused: in one go.
            _ => Err(decoded),
        }
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        decode_whole(
            self.name(),
            Unblosc::new(encoded, decoded_size),
            decoded_size,
        )
    }

    fn decode_into(&self, encoded: Vec<u8>, out: &mut [u8]) -> Result<(), CodecError> {
        let size = DecodedSize::Exact(out.len());
        decode_whole_into(self.name(), Unblosc::new(encoded, size), out)
    }

    fn stepwise(
        &self,
        encoded: Vec<u8>,
        decoded_size: DecodedSize,
    ) -> Result<Box<dyn StepDecoder + '_>, Vec<u8>> {
        Ok(Box::new(Unblosc::new(encoded, decoded_size)))
    }
}

thread_local! {
    /// The buffer blocks are decoded into before they are unshuffled, kept between chunks: a
    /// read decodes many chunks of the same block size. Borrowed within a step, never across.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Decodes a whole Blosc chunk. `expected` is the exact decoded size where the caller knows it;
/// otherwise the header's size is believed up to the cap (`None`: the default cap).
pub fn decompress(data: &[u8], expected: impl Into<DecodedSize>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    Unblosc::new(data, expected.into()).finish(&mut Output::Growing(&mut out))?;
    Ok(out)
}

/// Decodes a whole Blosc chunk of exactly `out.len()` bytes into `out`.
pub fn decompress_into(data: &[u8], out: &mut [u8]) -> Result<(), String> {
    let size = DecodedSize::Exact(out.len());
    Unblosc::new(data, size).finish(&mut Output::Fixed(out))?;
    Ok(())
}

/// The chunk's header, with the chunk's length checked against it.
fn checked_header(data: &[u8]) -> Result<Header, String> {
    let header = Header::parse(data)?;
    let cbytes = header.cbytes;
    if cbytes > data.len() {
        return Err(format!(
            "Blosc chunk is truncated: the header says {cbytes} bytes, there are {}",
            data.len()
        ));
    }
    if cbytes < HEADER_LEN {
        return Err(format!(
            "Blosc header says the chunk is {cbytes} bytes, less than the header itself"
        ));
    }
    Ok(header)
}

/// How a chunk's data is laid out after its header.
#[derive(Clone, Copy)]
enum Layout {
    /// Stored as is: no block table, and no unshuffle even when shuffle bits are set.
    Copied,
    /// Blocks compressed with `compressor`, behind a table of their offsets that ends at
    /// `table_end`.
    Blocks {
        compressor: Compressor,
        table_end: usize,
    },
}

/// The chunk's header and layout, checked against the chunk and against `expected`.
fn plan(data: &[u8], expected: DecodedSize) -> Result<(Header, Layout), String> {
    let header = checked_header(data)?;
    let Header {
        flags,
        nbytes,
        blocksize,
        cbytes,
        ..
    } = header;
    expected.check_declared("Blosc header", nbytes)?;
    if nbytes == 0 {
        // Nothing to decode, whatever follows the header.
        return Ok((header, Layout::Copied));
    }
    if flags & FLAG_MEMCPYED != 0 {
        if cbytes != nbytes + HEADER_LEN {
            return Err(format!("Blosc chunk is flagged as stored uncompressed, but is {cbytes} bytes for {nbytes} decoded"));
        }
        return Ok((header, Layout::Copied));
    }
    if blocksize == 0 {
        return Err("Blosc header has blocksize 0".into());
    }
    let compressor = Compressor::from_code(flags >> 5)?;
    let nblocks = nbytes.div_ceil(blocksize);
    let table_end = nblocks
        .checked_mul(4)
        .and_then(|t| t.checked_add(HEADER_LEN))
        .filter(|&end| end <= cbytes)
        .ok_or_else(|| format!("Blosc chunk of {cbytes} bytes is too short for the offsets of its {nblocks} blocks"))?;
    let layout = Layout::Blocks {
        compressor,
        table_end,
    };
    Ok((header, layout))
}

/// A Blosc chunk being decoded, some blocks at a time.
pub struct Unblosc<D = Vec<u8>> {
    data: D,
    expected: DecodedSize,
    /// The chunk's header and layout, once the first step has read them.
    plan: Option<(Header, Layout)>,
    /// Decoded bytes so far (whole blocks, or of a copied chunk any share).
    done: usize,
    /// The block buffer, where blocks are too large to borrow the thread's (`SCRATCH`).
    scratch: Vec<u8>,
}

/// The largest block buffer kept between chunks (c-blosc's blocks are at most a few hundred KiB;
/// a hostile or unusual chunk's larger block gets a buffer of its own).
const MAX_KEPT_SCRATCH: usize = 4 << 20;

impl<D: AsRef<[u8]>> Unblosc<D> {
    pub fn new(data: D, expected: DecodedSize) -> Unblosc<D> {
        Unblosc {
            data,
            expected,
            plan: None,
            done: 0,
            scratch: Vec::new(),
        }
    }

    /// Decodes whole blocks, about `budget` bytes of them (at least one), into `out`, which the
    /// first step makes the chunk's size; the chunk's size once all are decoded.
    pub fn advance(
        &mut self,
        out: &mut Output<'_>,
        budget: usize,
    ) -> Result<Option<usize>, String> {
        let data = self.data.as_ref();
        let (header, layout) = match self.plan {
            Some(plan) => plan,
            None => *self.plan.insert(plan(data, self.expected)?),
        };
        let nbytes = header.nbytes;
        let out = out
            .room(nbytes, nbytes)?
            .get_mut(..nbytes)
            .ok_or_else(|| format!("the output is shorter than the {nbytes} decoded bytes"))?;
        let end = self.done.saturating_add(budget.max(1)).min(nbytes);
        match layout {
            Layout::Copied => {
                out[self.done..end]
                    .copy_from_slice(&data[HEADER_LEN + self.done..HEADER_LEN + end]);
                self.done = end;
            }
            Layout::Blocks {
                compressor,
                table_end,
            } => {
                let blocksize = header.blocksize;
                // Whole blocks, up to the one the budget ends in.
                let blocks = self.done / blocksize..end.div_ceil(blocksize);
                let shuffles = header.flags & (FLAG_SHUFFLE | FLAG_BITSHUFFLE) != 0;
                let scratch_len = if shuffles { blocksize.min(nbytes) } else { 0 };
                let mut decode = |scratch: &mut [u8]| {
                    let chunk = Chunk {
                        data,
                        header: &header,
                        compressor,
                        table_end,
                    };
                    decode_blocks(&chunk, out, blocks.clone(), scratch)
                };
                if scratch_len > MAX_KEPT_SCRATCH {
                    try_grow(&mut self.scratch, scratch_len)?;
                    decode(&mut self.scratch)?;
                } else {
                    SCRATCH.with(|scratch| {
                        let mut scratch = scratch.borrow_mut();
                        try_grow(&mut scratch, scratch_len)?;
                        decode(&mut scratch)
                    })?;
                }
                self.done = (blocks.end * blocksize).min(nbytes);
            }
        }
        Ok((self.done == nbytes).then_some(nbytes))
    }

    /// Decodes the rest in one go.
    fn finish(mut self, out: &mut Output<'_>) -> Result<usize, String> {
        in_one_go(|budget| self.advance(out, budget))
    }
}

impl<D: AsRef<[u8]>> StepDecoder for Unblosc<D> {
    fn step(&mut self, out: &mut Output<'_>, budget: usize) -> Result<Option<usize>, CodecError> {
        self.advance(out, budget)
            .map_err(|reason| CodecError::new("blosc", reason))
    }
}

/// A chunk whose header and block table are checked.
struct Chunk<'a> {
    data: &'a [u8],
    header: &'a Header,
    compressor: Compressor,
    table_end: usize,
}

/// Decodes `blocks` of `chunk` into their places in `out` (the whole chunk's output), unshuffling
/// through `scratch` (at least a block long where the chunk is shuffled).
fn decode_blocks(
    chunk: &Chunk,
    out: &mut [u8],
    blocks: Range<usize>,
    scratch: &mut [u8],
) -> Result<(), String> {
    let &Header {
        flags,
        typesize,
        blocksize,
        cbytes,
        ..
    } = chunk.header;
    let (data, compressor, table_end) = (chunk.data, chunk.compressor, chunk.table_end);
    let nblocks = out.len().div_ceil(blocksize);
    let wanted = out
        .chunks_mut(blocksize)
        .enumerate()
        .skip(blocks.start)
        .take(blocks.len());
    for (b, block_out) in wanted {
        let at = HEADER_LEN + 4 * b;
        let start = i32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
        let context = |e: String| {
            format!(
                "block {b} of {nblocks} ({} compressor): {e}",
                compressor.name()
            )
        };
        let start = usize::try_from(start)
            .ok()
            .filter(|&s| s >= table_end && s < cbytes)
            .ok_or_else(|| {
                context(format!(
                    "its offset {start} is outside the chunk's data ({table_end}..{cbytes})"
                ))
            })?;
        let block = &data[start..cbytes];
        let leftover = block_out.len() < blocksize;
        let unshuffle = shuffle_kind(flags, typesize, block_out.len());
        let decoded = match unshuffle {
            Unshuffle::None => decode_block(
                compressor, block, block_out, typesize, blocksize, leftover, flags,
            ),
            Unshuffle::Bytes | Unshuffle::Bits => {
                let tmp = &mut scratch[..block_out.len()];
                decode_block(compressor, block, tmp, typesize, blocksize, leftover, flags).map(
                    |()| match unshuffle {
                        Unshuffle::Bytes => shuffle::unshuffle(typesize, tmp, block_out),
                        _ => shuffle::bitunshuffle(typesize, tmp, block_out),
                    },
                )
            }
        };
        decoded.map_err(context)?;
    }
    Ok(())
}

enum Unshuffle {
    None,
    Bytes,
    Bits,
}

/// How a block of `bsize` bytes is unshuffled, as c-blosc decides it.
fn shuffle_kind(flags: u8, typesize: usize, bsize: usize) -> Unshuffle {
    if flags & FLAG_SHUFFLE != 0 && typesize > 1 {
        Unshuffle::Bytes
    } else if flags & FLAG_BITSHUFFLE != 0 && bsize >= typesize {
        Unshuffle::Bits
    } else {
        Unshuffle::None
    }
}

/// Decodes one block's streams from the start of `block` into `out` (the block's decoded bytes).
fn decode_block(
    compressor: Compressor,
    block: &[u8],
    out: &mut [u8],
    typesize: usize,
    blocksize: usize,
    leftover: bool,
    flags: u8,
) -> Result<(), String> {
    let split = flags & FLAG_DONT_SPLIT == 0
        && typesize <= MAX_SPLITS
        && blocksize / typesize >= MIN_SPLIT_ELEMENTS
        && !leftover;
    let nstreams = if split { typesize } else { 1 };
    if !out.len().is_multiple_of(nstreams) {
        return Err(format!(
            "its {} bytes do not split into {nstreams} streams",
            out.len()
        ));
    }
    let stream_len = out.len() / nstreams;
    let mut pos = 0usize;
    for (s, stream_out) in out.chunks_mut(stream_len).enumerate() {
        let size_bytes = block
            .get(pos..pos + 4)
            .ok_or_else(|| format!("stream {s} size is past the end of the chunk"))?;
        let csize =
            i32::from_le_bytes([size_bytes[0], size_bytes[1], size_bytes[2], size_bytes[3]]);
        pos += 4;
        let csize = usize::try_from(csize)
            .map_err(|_| format!("stream {s} has a negative size {csize}"))?;
        let payload = block
            .get(pos..pos.saturating_add(csize))
            .ok_or_else(|| format!("stream {s} of {csize} bytes runs past the end of the chunk"))?;
        pos += csize;
        if csize == stream_len {
            // An incompressible stream is stored as it is.
            stream_out.copy_from_slice(payload);
        } else {
            compressor
                .decompress_into(payload, stream_out)
                .map_err(|e| format!("stream {s}: {e}"))?;
        }
    }
    Ok(())
}

/// A Blosc chunk written in steps.
#[cfg(feature = "write")]
struct BloscSteps {
    data: Vec<u8>,
    encoder: encode::Encoder,
}

#[cfg(feature = "write")]
impl super::codec::StepEncoder for BloscSteps {
    fn step(&mut self, budget: usize) -> Result<Option<Vec<u8>>, CodecError> {
        self.encoder
            .step(&self.data, budget)
            .map_err(|e| CodecError::new("blosc", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(flags: u8, typesize: u8, nbytes: u32, blocksize: u32, cbytes: u32) -> Vec<u8> {
        let mut h = vec![2, 1, flags, typesize];
        for v in [nbytes, blocksize, cbytes] {
            h.extend(v.to_le_bytes());
        }
        h
    }

    #[test]
    fn shuffle_is_read_in_every_spelling_numcodecs_and_gdal_write() {
        let build = |shuffle: Value| {
            let config = serde_json::json!({"id": "blosc", "cname": "lz4", "shuffle": shuffle});
            BloscCodec::from_configuration(Configuration::new(config.as_object().unwrap()), 2)
        };
        for shuffle in [
            // v3's names, numcodecs' numbers (its constants)
            serde_json::json!("noshuffle"),
            serde_json::json!("bitshuffle"),
            serde_json::json!(-1),
            serde_json::json!(0),
            serde_json::json!(1),
            serde_json::json!(2),
            // GDAL's BLOSC_SHUFFLE as it writes it, and the names of numcodecs' constants
            serde_json::json!("BIT"),
            serde_json::json!("BYTE"),
            serde_json::json!("NONE"),
            serde_json::json!("NOSHUFFLE"),
            serde_json::json!("SHUFFLE"),
            serde_json::json!("BITSHUFFLE"),
            serde_json::json!("AUTOSHUFFLE"),
            serde_json::json!("bit"),
            serde_json::json!("2"),
            serde_json::json!("-1"),
        ] {
            assert!(build(shuffle.clone()).is_ok(), "{shuffle}");
        }
        for shuffle in [
            serde_json::json!("BITS"),
            serde_json::json!(3),
            serde_json::json!("3"),
            serde_json::json!(1.5),
            serde_json::json!(true),
        ] {
            let err = build(shuffle.clone()).err().unwrap_or_default();
            assert!(
                err.contains("\"shuffle\" must be")
                    && err.contains("\"BIT\"")
                    && err.contains(&shuffle.to_string()),
                "{shuffle}: {err}"
            );
        }
    }

    #[test]
    fn memcpyed_chunks_are_copied_without_unshuffling() {
        let mut chunk = header(FLAG_MEMCPYED | FLAG_SHUFFLE, 4, 8, 8, 24);
        chunk.extend(1..=8u8);
        assert_eq!(
            decompress(&chunk, Some(8)).unwrap(),
            (1..=8u8).collect::<Vec<_>>()
        );
        assert!(decompress(&chunk, Some(9))
            .unwrap_err()
            .contains("should have 9"));
        assert!(decompress(&chunk[..20], None)
            .unwrap_err()
            .contains("truncated"));
    }

    #[test]
    fn stored_streams_and_short_last_blocks_decode() {
        // Two blocks of 6 and 4 bytes, each one stream stored raw (csize == decoded size).
        let mut chunk = header(0, 1, 10, 6, 0);
        let table_end: i32 = 16 + 8;
        chunk.extend(table_end.to_le_bytes());
        chunk.extend((table_end + 4 + 6).to_le_bytes());
        chunk.extend(6i32.to_le_bytes());
        chunk.extend([1, 2, 3, 4, 5, 6]);
        chunk.extend(4i32.to_le_bytes());
        chunk.extend([7, 8, 9, 10]);
        let cbytes = chunk.len() as u32;
        chunk[12..16].copy_from_slice(&cbytes.to_le_bytes());
        assert_eq!(
            decompress(&chunk, Some(10)).unwrap(),
            (1..=10u8).collect::<Vec<_>>()
        );

        let mut bad = chunk.clone();
        bad[16..20].copy_from_slice(&1000i32.to_le_bytes());
        assert!(decompress(&bad, Some(10))
            .unwrap_err()
            .contains("block 0 of 2"));
    }

    #[test]
    fn unknown_versions_flags_and_compressors_are_errors() {
        let mut chunk = header(0, 1, 4, 4, 16);
        chunk[0] = 3;
        assert!(decompress(&chunk, None).unwrap_err().contains("version 3"));
        let chunk = header(FLAG_RESERVED, 1, 4, 4, 16);
        assert!(decompress(&chunk, None).unwrap_err().contains("reserved"));
        let mut chunk = header(7 << 5, 1, 4, 4, 24);
        chunk.extend([0; 8]);
        assert!(decompress(&chunk, None)
            .unwrap_err()
            .contains("compressor code 7"));
    }
}
