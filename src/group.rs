//! A Zarr group: attributes, and the way to its children.

use crate::error::Result;
use crate::metadata::GroupMetadata;
use crate::node::{open, Node};
use crate::node_path::NodePath;
use crate::store::ReadableStore;
use std::rc::Rc;

pub struct Group {
    store: Rc<dyn ReadableStore>,
    path: NodePath,
    metadata: GroupMetadata,
}

impl Group {
    pub fn new(store: Rc<dyn ReadableStore>, path: NodePath, metadata: GroupMetadata) -> Group {
        Group { store, path, metadata }
    }

    pub fn path(&self) -> &NodePath {
        &self.path
    }

    pub fn metadata(&self) -> &GroupMetadata {
        &self.metadata
    }

    /// Opens the node at `relative` below this group.
    pub async fn open(&self, relative: &str) -> Result<Node> {
        open(self.store.clone(), self.path.join(relative)?.as_str()).await
    }
}
