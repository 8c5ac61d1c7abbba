//! Nodes of a Zarr hierarchy: opening a path as an array or a group (`node`), and a group's
//! children, listed or consolidated (`group`); the pre-2023 v3 draft met below its root
//! (`draft`); creating, changing and erasing nodes (`write`, with the `write` feature).

pub mod draft;
pub mod group;
pub mod node;
#[cfg(feature = "write")]
pub mod write;
