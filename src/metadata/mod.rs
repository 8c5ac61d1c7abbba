//! Metadata documents, parsed and validated into plain Rust values. Nothing here reads a store.
//! Zarr v2 documents (`.zarray`, `.zgroup`, `.zattrs`, `.zmetadata`) are read into the same
//! values as v3 ones: a v2 array becomes the v3 array it is equivalent to (its order a transpose
//! codec, its dtype's byte order a bytes codec, its filters and compressor numcodecs codecs),
//! and a Zarr v1 array (`meta`, `attrs`) is read as the v2 array it is equivalent to.

pub mod chunk_grid;
pub mod chunk_key_encoding;
pub mod decimal;
pub mod document;
pub mod extension;
pub mod json;
pub mod node_path;
pub mod v1;
pub mod v2;
pub mod v3;

pub use document::{
    ArrayMetadata, CodecList, GroupMetadata, ListedNode, Listing, NodeMetadata, V2Codecs,
};

use crate::error::Result;

/// Parsing is here, above both formats: `document.rs` knows neither.
impl ListedNode {
    /// The node's metadata; `location` names the documents in errors.
    pub fn parse(&self, location: &str) -> Result<NodeMetadata> {
        match self {
            ListedNode::V3(doc) => v3::parse_document(doc, location),
            ListedNode::V2Array { zarray, zattrs } => {
                v2::parse_array(zarray, zattrs.as_ref(), location).map(NodeMetadata::Array)
            }
            ListedNode::V2Group { zgroup, zattrs } => {
                v2::parse_group(zgroup, zattrs.as_ref(), location).map(NodeMetadata::Group)
            }
        }
    }
}
