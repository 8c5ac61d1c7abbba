//! Icechunk repositories (spec versions 1 and 2, as icechunk 1.x and 2.x write them), read-only:
//! a branch, a tag or a snapshot of one, as a Zarr store. See `store.rs` for the store, and the
//! other files for the parts of the format: the metadata file header (`header.rs`), FlatBuffers
//! (`flatbuffer.rs`), the configuration's FlexBuffers (`flexbuffer.rs`), object ids (`ids.rs`), refs (`refs.rs`), snapshots (`snapshot.rs`) and
//! manifests (`manifest.rs`). Every parser takes arbitrary bytes: errors, never panics, and no
//! allocation from a count the file gives that its bytes do not back.

mod flatbuffer;
mod flexbuffer;
mod header;
mod ids;
mod manifest;
mod refs;
mod snapshot;
mod store;
#[cfg(test)]
mod testbuild;

pub use store::{IcechunkOptions, IcechunkStore, Version};
