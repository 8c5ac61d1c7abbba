//! What the Blosc codec's decoder and encoder share: the chunk header's flags and layout rules,
//! the compressors and shuffles by name, and how chunks are written (the configuration).

use crate::codecs::configuration::named;

pub const HEADER_LEN: usize = 16;
pub const FLAG_SHUFFLE: u8 = 0x01;
pub const FLAG_MEMCPYED: u8 = 0x02;
pub const FLAG_BITSHUFFLE: u8 = 0x04;
pub const FLAG_RESERVED: u8 = 0x08;
pub const FLAG_DONT_SPLIT: u8 = 0x10;
/// Encoders split blocks into per-byte streams only for types up to this size...
pub const MAX_SPLITS: usize = 16;
/// ...and only when a block holds at least this many elements.
pub const MIN_SPLIT_ELEMENTS: usize = 128;

/// How chunks are written: the configuration, with numcodecs' defaults where it leaves one out.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "write"), allow(dead_code))]
pub struct Settings {
    pub cname: CompressorName,
    pub clevel: u8,
    pub shuffle: ShuffleKind,
    pub typesize: usize,
    /// 0: chosen as c-blosc chooses it.
    pub blocksize: usize,
}

/// A shuffle as written: numcodecs' `AUTOSHUFFLE` is bit shuffle for one-byte types, byte
/// shuffle for the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(feature = "write"), allow(dead_code))]
pub enum ShuffleKind {
    No,
    Byte,
    Bit,
    Auto,
}

named! {
    /// `cname`: the compressor inside the Blosc chunks.
    CompressorName { BloscLz = "blosclz", Lz4 = "lz4", Lz4hc = "lz4hc", Snappy = "snappy", Zlib = "zlib", Zstd = "zstd" }
}

named! {
    /// `shuffle` as v3 names it.
    ShuffleName { NoShuffle = "noshuffle", Shuffle = "shuffle", BitShuffle = "bitshuffle" }
}
