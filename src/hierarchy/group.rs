//! A Zarr group: attributes and its children where the hierarchy lists them. Opening a node
//! below a group (`Group::open`) makes nodes, so it lives with them in `node.rs`.

use crate::limits::Limits;
use crate::metadata::node_path::NodePath;
use crate::metadata::{GroupMetadata, ListedNode, Listing};
use crate::store::ReadableStore;
use std::rc::Rc;

/// Consolidated metadata found in the group at `root`: every node below it, by path relative to it.
pub struct Consolidated {
    root: NodePath,
    nodes: Listing,
}

impl Consolidated {
    /// The listing of the node at `path`, if `path` is below the root and listed.
    pub fn node(&self, path: &NodePath) -> Option<&ListedNode> {
        path.relative_to(&self.root)
            .and_then(|rel| self.nodes.get(rel))
    }
}

/// A direct child of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Child {
    pub name: String,
    pub path: String,
    /// "array" or "group".
    pub kind: String,
}

#[derive(Clone)]
pub struct Group {
    store: Rc<dyn ReadableStore>,
    path: NodePath,
    // Shared by every view of this group (`with_store`): its attributes may hold a million
    // values. Its consolidated listing is moved into `consolidated`.
    metadata: Rc<GroupMetadata>,
    /// Consolidated metadata of this group or of an ancestor, where there is some.
    consolidated: Option<Rc<Consolidated>>,
    /// Given to the nodes opened through it.
    limits: Limits,
}

impl Group {
    /// This group reading through another view of its store.
    pub fn with_store(&self, store: Rc<dyn ReadableStore>) -> Group {
        Group {
            store,
            path: self.path.clone(),
            metadata: self.metadata.clone(),
            consolidated: self.consolidated.clone(),
            limits: self.limits,
        }
    }

    /// This group handing `limits` to the nodes opened through it.
    pub fn with_limits(self, limits: Limits) -> Group {
        Group { limits, ..self }
    }

    pub fn new(
        store: Rc<dyn ReadableStore>,
        path: NodePath,
        mut metadata: GroupMetadata,
        inherited: Option<Rc<Consolidated>>,
    ) -> Group {
        // An ancestor's listing wins: zarr-python stores child groups' own listings empty.
        let own = metadata.consolidated.take();
        let consolidated = inherited.or_else(|| {
            Some(Rc::new(Consolidated {
                root: path.clone(),
                nodes: own?,
            }))
        });
        Group {
            store,
            path,
            metadata: Rc::new(metadata),
            consolidated,
            limits: Limits::default(),
        }
    }

    pub fn store(&self) -> &Rc<dyn ReadableStore> {
        &self.store
    }

    pub fn path(&self) -> &NodePath {
        &self.path
    }

    pub fn metadata(&self) -> &GroupMetadata {
        &self.metadata
    }

    /// Consolidated metadata of this group or of an ancestor, where there is some.
    pub fn consolidated(&self) -> Option<&Rc<Consolidated>> {
        self.consolidated.as_ref()
    }

    /// What nodes opened through it are held to.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The direct children, where the hierarchy lists them (consolidated metadata); else `None`.
    pub fn children(&self) -> Option<Vec<Child>> {
        let consolidated = self.consolidated.as_ref()?;
        let own = self.path.relative_to(&consolidated.root)?;
        let mut children: Vec<Child> = consolidated
            .nodes
            .iter()
            .filter_map(|(key, doc)| {
                let rest = if own.is_empty() {
                    key.as_str()
                } else {
                    key.strip_prefix(own)?.strip_prefix('/')?
                };
                if rest.is_empty() || rest.contains('/') {
                    return None;
                }
                let kind = doc.kind().to_string();
                Some(Child {
                    name: rest.to_string(),
                    path: self.path.join(rest).ok()?.as_str().to_string(),
                    kind,
                })
            })
            .collect();
        crate::collections::sort::sort_by(&mut children, |a, b| a.name < b.name);
        Some(children)
    }
}
