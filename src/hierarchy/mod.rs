//! Nodes of a Zarr hierarchy: opening a path as an array or a group (`node`), and a group's
//! children, listed or consolidated (`group`).

pub mod group;
pub mod node;
