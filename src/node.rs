//! Opening a node: one metadata request, then an array or a group.

use crate::array::Array;
use crate::error::{Result, ZarrError};
use crate::group::Group;
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
    let bytes = store.get(&key).await?.ok_or_else(|| ZarrError::not_found(&location))?;
    match v3::parse(&bytes, &location)? {
        NodeMetadata::Array(meta) => Ok(Node::Array(Array::new(store, path, meta, &location)?)),
        NodeMetadata::Group(meta) => Ok(Node::Group(Group::new(store, path, meta))),
    }
}
