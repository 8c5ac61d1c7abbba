//! zarr-wasm's inner loops, a crate of their own so that they are built for speed while the
//! reader around them is built for size (the release profile in the top `Cargo.toml`: at
//! `opt-level = "s"` these made Blosc reads three times slower). They know nothing of Zarr.

pub mod blosclz;
pub mod bytes;
pub mod crc32;
pub mod lz4;
pub mod shuffle;
pub mod snappy;
pub mod zstd;
