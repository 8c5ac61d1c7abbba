//! Metadata documents, parsed and validated into plain Rust values. Nothing here reads a store.

pub mod extension;
pub mod v3;

pub use v3::{ArrayMetadata, GroupMetadata, NodeMetadata};
