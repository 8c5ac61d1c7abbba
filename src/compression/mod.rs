//! Compression formats below any Zarr codec: DEFLATE (gzip, zlib and Blosc's zlib, and the ZIP
//! store's entries), LZ4 blocks found by an HC search (Blosc's lz4hc), and the byte and bit
//! shuffles (Blosc and numcodecs' `shuffle`). Codecs and stores wrap these in their own framing
//! and configuration; these know nothing of Zarr.

#[cfg(feature = "write")]
pub mod deflate;
pub mod inflate;
#[cfg(feature = "write")]
pub mod lz4hc;
// The byte and bit shuffles are built for speed in a crate of their own (kernels/).
pub use zarr_wasm_kernels::shuffle;
