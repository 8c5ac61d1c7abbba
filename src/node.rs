//! Opening a node: one metadata request, then an array or a group.

use crate::array::Array;
use crate::error::{Result, ZarrError};
use crate::group::{Consolidated, Group};
use crate::metadata::{v3, NodeMetadata};
use crate::node_path::NodePath;
use crate::store::ReadableStore;
use std::rc::Rc;

pub enum Node {
    Array(Array),
    Group(Group),
}

/// Opens the node at `path` ("" for the root) of the hierarchy in `store`.
pub async fn open(store: Rc<dyn ReadableStore>, path: &str) -> Result<Node> {
    let path = NodePath::parse(path)?;
    let key = path.key("zarr.json");
    let location = store.locate(&key);
    let bytes = store
        .get(&key)
        .await?
        .ok_or_else(|| ZarrError::not_found(&location))?;
    let metadata = v3::parse(&bytes, &location)?;
    node_from_metadata(store, path, metadata, &location, None)
}

/// The node for metadata already read; `consolidated` is what an ancestor group listed.
pub fn node_from_metadata(
    store: Rc<dyn ReadableStore>,
    path: NodePath,
    metadata: NodeMetadata,
    location: &str,
    consolidated: Option<Rc<Consolidated>>,
) -> Result<Node> {
    Ok(match metadata {
        NodeMetadata::Array(meta) => Node::Array(Array::new(store, path, meta, location)?),
        NodeMetadata::Group(meta) => Node::Group(Group::new(store, path, meta, consolidated)),
    })
}

impl Node {
    /// The node reading through another view of its store.
    pub fn with_store(&self, store: Rc<dyn ReadableStore>) -> Node {
        match self {
            Node::Array(a) => Node::Array(a.with_store(store)),
            Node::Group(g) => Node::Group(g.with_store(store)),
        }
    }
}
