//! zarr-wasm: a Zarr reader. Everything but `bindings` is plain Rust, tested natively; `bindings`
//! (wasm32 only) is the one place that knows about JavaScript.

pub mod array;
pub mod buffer;
pub mod chunk_grid;
pub mod chunk_key_encoding;
pub mod codecs;
pub mod data_type;
pub mod error;
pub mod fill_value;
pub mod fixed_string;
pub mod group;
pub mod host;
pub mod limits;
pub mod lru;
pub mod metadata;
pub mod node;
pub mod node_path;
pub mod partition;
pub mod region;
pub mod selection;
pub mod sharded;
pub mod store;
pub mod structured;
pub mod timing;
pub mod variable;
#[cfg(feature = "vectors")]
pub mod vectors;

#[cfg(target_arch = "wasm32")]
mod bindings;

pub use array::{Array, ArrayData};
pub use error::{ErrorKind, Result, ZarrError};
pub use group::Group;
pub use node::{open, Node};
pub use selection::DimSelection;
