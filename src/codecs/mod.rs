//! Codecs. `codec.rs` says what a codec is (the three kinds, as traits); `pipeline.rs` chains a
//! chunk's codecs; `table.rs` builds them from metadata, finding each by name in the table below;
//! `numcodecs.rs` turns a v2 array's filters and compressor into the v3 list they amount to.
//!
//! Every codec is one file, named once in `codecs!` below: the file's `CODECS` lists its names,
//! kind and constructor. Adding a codec is a file and its name on that line.

pub mod codec;
pub mod configuration;
#[cfg(feature = "all-codecs")]
pub mod extra;
pub mod numcodecs;
pub mod numeric;
pub mod pipeline;
pub mod shards_behind;
pub mod table;

pub use codec::{elements_size, ChunkRepr, DecodedSize};
pub use pipeline::CodecPipeline;

/// Declares each codec's module and lists its entries in `TABLE`: the first list in every build,
/// the second in builds with the `all-codecs` feature.
macro_rules! codecs {
    ($($codec:ident),* $(,)?; $($more:ident),* $(,)?) => {
        $(pub mod $codec;)*
        $(#[cfg(feature = "all-codecs")] pub mod $more;)*
        /// Every codec's entries, by file.
        pub(crate) const TABLE: &[&[codec::CodecEntry]] = &[
            $($codec::CODECS,)*
            $(#[cfg(feature = "all-codecs")] $more::CODECS,)*
        ];
        #[cfg(all(test, feature = "all-codecs"))]
        const SECOND_LIST: &[&[codec::CodecEntry]] = &[$($more::CODECS),*];
    };
}

codecs!(
    // What the images viewers read are written with: in every build.
    blosc,
    bytes,
    checksum32,
    gzip,
    lz4,
    sharding,
    transpose,
    vlen,
    zlib,
    zstd;
    // numcodecs' filters and object codecs, the registry's array codecs, N5: only with
    // `all-codecs`. The npm package's Zarr build leaves them out (with their numeric conversions
    // between data types, 36 KiB of the gzipped module) and loads its full build for an array
    // that uses one (pkg/index.js); `IN_FULL_BUILD` names them there.
    // The gateways to the second module's decoders (bz2, lzma, pcodec, zfp, zfpy): an array
    // with one loads the full build, then the second module.
    bz2,
    lzma,
    pcodec,
    zfp,
    zfpy,
    astype,
    base64,
    bitround,
    cast_value,
    categorize,
    conditional,
    delta,
    fixed_scale_offset,
    json2,
    msgpack2,
    n5_default,
    numcodecs_packbits,
    packbits,
    reshape,
    scale_offset,
    shuffle,
);

/// The names of the codecs of `codecs!`'s second list: a build without them says that a build
/// with them reads the array, rather than that nothing does. (A test checks the list against the
/// codecs' own entries.)
pub const IN_FULL_BUILD: &[&str] = &[
    "numcodecs.bz2",
    "numcodecs.lzma",
    "numcodecs.pcodec",
    "zfp",
    "numcodecs.zfpy",
    "numcodecs.quantize",
    "numcodecs.astype",
    "numcodecs.base64",
    "bitround",
    "numcodecs.bitround",
    "cast_value",
    "numcodecs.categorize",
    "conditional",
    "numcodecs.delta",
    "numcodecs.fixedscaleoffset",
    "numcodecs.json2",
    "numcodecs.msgpack2",
    "n5_default",
    "numcodecs.packbits",
    "packbits",
    "reshape",
    "scale_offset",
    "numcodecs.shuffle",
];

/// Whether the codec named `name` (a registered name, or `numcodecs.<id>`) is one this build
/// leaves out (`IN_FULL_BUILD`).
pub fn left_out(name: &str) -> bool {
    IN_FULL_BUILD.contains(&name) && entry(name).is_none()
}

/// The table's entry for the codec named `name` in v3 metadata (a registered name, or
/// `numcodecs.<id>`).
pub fn entry(name: &str) -> Option<&'static codec::CodecEntry> {
    TABLE
        .iter()
        .flat_map(|entries| entries.iter())
        .find(|e| e.names.contains(&name))
}

#[cfg(all(test, feature = "all-codecs"))]
mod tests {
    use super::*;

    #[test]
    fn in_full_build_names_exactly_the_second_lists_codecs() {
        let mut second: Vec<&str> = SECOND_LIST
            .iter()
            .flat_map(|entries| entries.iter().flat_map(|e| e.names.iter().copied()))
            .collect();
        let mut listed = IN_FULL_BUILD.to_vec();
        second.sort_unstable();
        listed.sort_unstable();
        assert_eq!(second, listed);
    }
}
