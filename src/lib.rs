//! zarr-wasm: a Zarr reader. Everything but `bindings` is plain Rust, tested natively; `bindings`
//! (wasm32 only) is the one place that knows about JavaScript.
//!
//! The modules, top to bottom; each uses only those below it:
//!
//! - `bindings`: the JavaScript API (wasm32 only, the `bindings` feature).
//! - `vectors`: Zarr Vectors (ZVF) stores of points, lines and meshes, read through hierarchies.
//! - `hierarchy`: opening nodes; groups and their children.
//! - `array`: an opened array's reads, whole chunks and sharded ones.
//! - `indexing`, `codecs`, `store`: selections to chunks; chunk decoding; where bytes come from.
//! - `compression`: DEFLATE and the shuffles, shared by codecs and the ZIP store.
//! - `metadata`, `data_type`: documents, chunk grids and key encodings; element types and values.
//! - `host`, `limits`: the platform's clock and yield; what reads may cost.
//! - `collections`, `error`: fallible buffers, a byte-bounded cache and the one sort; errors.
//! - `json_text`: JSON values as text (messages, attributes for JavaScript).
// Unit tests may sort with the standard library; the module's own code has one sort
// (`sort`, and clippy.toml's disallowed methods).
#![cfg_attr(test, allow(clippy::disallowed_methods))]

/// The JavaScript binding layer (wasm32 only). Public so that its browser tests
/// (`tests/browser_bindings.rs`, run by `wasm-pack test`) reach it; JavaScript uses it through
/// the npm package, Rust wasm apps use the core below it.
#[cfg(all(target_arch = "wasm32", feature = "bindings"))]
pub mod bindings;
#[cfg(feature = "vectors")]
pub mod vectors;

pub mod hierarchy;

pub mod array;

pub mod codecs;
pub mod indexing;
pub mod store;

pub mod compression;

pub mod data_type;
pub mod metadata;

pub mod collections;
pub mod error;
pub mod host;
pub mod limits;

// JSON text of a value (for messages), below every other layer.
pub mod json_text;

pub use array::{Array, ArrayData};
pub use error::{ErrorKind, Result, ZarrError};
pub use hierarchy::group::Group;
pub use hierarchy::node::{open, Node};
pub use indexing::selection::DimSelection;
