//! Codecs. `codec.rs` says what a codec is (the three kinds, as traits); `pipeline.rs` chains a
//! chunk's codecs; `table.rs` builds them from metadata, finding each by name in the table below;
//! `numcodecs.rs` turns a v2 array's filters and compressor into the v3 list they amount to.
//!
//! Every codec is one file, named once in `codecs!` below: the file's `CODECS` lists its names,
//! kind and constructor. Adding a codec is a file and its name on that line.

pub mod codec;
pub mod configuration;
pub mod extra;
pub mod numcodecs;
pub mod numeric;
pub mod pipeline;
pub mod shards_behind;
pub mod table;

pub use codec::{elements_size, ChunkRepr, DecodedSize};
pub use pipeline::CodecPipeline;

/// Declares each codec's module and lists its entries in `TABLE`.
macro_rules! codecs {
    ($($codec:ident),* $(,)?) => {
        $(pub mod $codec;)*
        /// Every codec's entries, by file.
        pub(crate) const TABLE: &[&[codec::CodecEntry]] = &[$($codec::CODECS),*];
    };
}

codecs!(
    astype,
    base64,
    bitround,
    blosc,
    bytes,
    bz2,
    cast_value,
    categorize,
    checksum32,
    conditional,
    delta,
    fixed_scale_offset,
    gzip,
    json2,
    lz4,
    lzma,
    msgpack2,
    n5_default,
    numcodecs_packbits,
    packbits,
    pcodec,
    reshape,
    scale_offset,
    sharding,
    shuffle,
    transpose,
    vlen,
    zfp,
    zfpy,
    zlib,
    zstd,
);

/// The table's entry for the codec named `name` in v3 metadata (a registered name, or
/// `numcodecs.<id>`).
pub fn entry(name: &str) -> Option<&'static codec::CodecEntry> {
    TABLE
        .iter()
        .flat_map(|entries| entries.iter())
        .find(|e| e.names.contains(&name))
}
