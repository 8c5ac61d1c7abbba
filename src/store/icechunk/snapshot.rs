//! A snapshot file: every node of one version of the repository, sorted by path. A node has its
//! Zarr metadata (its whole `zarr.json` document, as bytes) and, for an array, the manifests
//! that hold its chunk references, each with the extents of the chunk grid it covers.

use super::flatbuffer::{root, struct_u32, FbResult, Table};
use super::ids::{Id12, Id8};
use std::collections::BTreeMap;

/// One manifest of an array, and the chunk indices it covers: `[from, to)` per dimension (none:
/// every chunk).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestRef {
    pub id: Id12,
    pub extents: Vec<(u32, u32)>,
}

impl ManifestRef {
    pub fn covers(&self, index: &[u32]) -> bool {
        self.extents.is_empty()
            || (self.extents.len() == index.len()
                && self
                    .extents
                    .iter()
                    .zip(index)
                    .all(|(&(from, to), &i)| from <= i && i < to))
    }
}

#[derive(Clone, Debug)]
pub struct Node {
    pub id: Id8,
    /// The node's `zarr.json`.
    pub zarr_json: Vec<u8>,
    /// An array's manifests; None for a group.
    pub manifests: Option<Vec<ManifestRef>>,
}

/// The nodes of a snapshot by path ("" for the root, "a/b" for `/a/b`).
#[derive(Debug, Default)]
pub struct Snapshot {
    pub nodes: BTreeMap<String, Node>,
}

fn node(t: Table<'_>) -> FbResult<(String, Node)> {
    let path = t.required("NodeSnapshot.path", |t| t.str(1))?;
    let key = match path {
        "/" => String::new(),
        p => match p.strip_prefix('/') {
            Some(rest) if !rest.ends_with('/') && !rest.split('/').any(|s| s.is_empty()) => {
                rest.to_string()
            }
            _ => {
                return Err(format!(
                    "the node path {path:?} is not absolute and canonical"
                ))
            }
        },
    };
    let at = |e: String| format!("node {path:?}: {e}");
    let id = t
        .required("NodeSnapshot.id", |t| t.inline(0, 8))
        .map_err(at)?;
    let zarr_json = t
        .required("NodeSnapshot.user_data", |t| t.bytes(2))
        .map_err(at)?
        .to_vec();
    let manifests = match t.u8(3, 0).map_err(at)? {
        // Array
        1 => {
            let data = t
                .required("NodeSnapshot.node_data", |t| t.table(4))
                .map_err(at)?;
            Some(manifest_refs(data).map_err(at)?)
        }
        // Group
        2 => None,
        other => {
            return Err(at(format!(
                "node data of type {other}, not 1 (array) or 2 (group)"
            )))
        }
    };
    let mut node_id = [0u8; 8];
    node_id.copy_from_slice(id);
    Ok((
        key,
        Node {
            id: node_id,
            zarr_json,
            manifests,
        },
    ))
}

/// An `ArrayNodeData`'s manifest refs.
fn manifest_refs(data: Table<'_>) -> FbResult<Vec<ManifestRef>> {
    let refs = data.required("ArrayNodeData.manifests", |t| t.tables(2))?;
    let mut out = Vec::with_capacity(refs.len());
    for i in 0..refs.len() {
        let r = refs.get(i)?;
        let id = r.required("ManifestRef.object_id", |t| t.inline(0, 12))?;
        let extents = r.required("ManifestRef.extents", |t| t.structs(1, 8))?;
        let mut ext = Vec::with_capacity(extents.len());
        for d in 0..extents.len() {
            let s = extents.get(d)?;
            ext.push((struct_u32(s, 0)?, struct_u32(s, 4)?));
        }
        let mut id12 = [0u8; 12];
        id12.copy_from_slice(id);
        out.push(ManifestRef {
            id: id12,
            extents: ext,
        });
    }
    Ok(out)
}

impl Snapshot {
    /// The snapshot in a decompressed snapshot file payload.
    pub fn parse(payload: &[u8]) -> FbResult<Snapshot> {
        let t = root(payload)?;
        let nodes = t.required("Snapshot.nodes", |t| t.tables(2))?;
        let mut out = BTreeMap::new();
        for i in 0..nodes.len() {
            let (path, node) = node(nodes.get(i)?)?;
            if out.insert(path.clone(), node).is_some() {
                return Err(format!("the node path \"/{path}\" is there twice"));
            }
        }
        Ok(Snapshot { nodes: out })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testbuild::{build, F};
    use super::*;

    fn array_node(path: &str, id: u8, manifests: Vec<(u8, Vec<(u32, u32)>)>) -> Vec<F> {
        let refs = manifests
            .into_iter()
            .map(|(m, ext)| {
                vec![
                    F::Scalar(vec![m; 12]),
                    F::Structs(
                        ext.iter()
                            .map(|(a, b)| [a.to_le_bytes(), b.to_le_bytes()].concat())
                            .collect(),
                    ),
                ]
            })
            .collect();
        vec![
            F::Scalar(vec![id; 8]),
            F::Bytes(path.into()),
            F::Bytes(format!(r#"{{"node_type":"array","path":"{path}"}}"#).into()),
            F::Scalar(vec![1]),
            F::Table(vec![F::Structs(vec![]), F::Absent, F::Tables(refs)]),
        ]
    }

    fn group_node(path: &str, id: u8) -> Vec<F> {
        vec![
            F::Scalar(vec![id; 8]),
            F::Bytes(path.into()),
            F::Bytes(br#"{"node_type":"group"}"#.to_vec()),
            F::Scalar(vec![2]),
            F::Table(vec![]),
        ]
    }

    fn snapshot(nodes: Vec<Vec<F>>) -> Vec<u8> {
        build(vec![F::Scalar(vec![9; 12]), F::Absent, F::Tables(nodes)])
    }

    #[test]
    fn nodes_by_path_with_their_documents_and_manifests() {
        let buf = snapshot(vec![
            group_node("/", 1),
            array_node(
                "/a/b",
                2,
                vec![(5, vec![(0, 2), (0, 1)]), (6, vec![(2, 4), (0, 1)])],
            ),
        ]);
        let s = Snapshot::parse(&buf).unwrap();
        assert_eq!(s.nodes.len(), 2);
        assert!(s.nodes[""].manifests.is_none());
        let b = &s.nodes["a/b"];
        assert_eq!(b.id, [2; 8]);
        let m = b.manifests.as_ref().unwrap();
        assert!(m[0].covers(&[1, 0]) && !m[0].covers(&[2, 0]) && m[1].covers(&[3, 0]));
        assert!(!m[1].covers(&[3]));
        assert!(String::from_utf8_lossy(&b.zarr_json).contains("array"));
    }

    #[test]
    fn bad_snapshots_are_errors_saying_what() {
        let bad = |nodes| Snapshot::parse(&snapshot(nodes)).unwrap_err();
        assert!(bad(vec![group_node("a", 1)]).contains("not absolute"));
        assert!(bad(vec![group_node("/a/", 1)]).contains("not absolute"));
        assert!(bad(vec![group_node("/a", 1), group_node("/a", 2)]).contains("twice"));
        let mut n = group_node("/x", 1);
        n[3] = F::Scalar(vec![7]);
        assert!(bad(vec![n]).contains("type 7"));
        let buf = snapshot(vec![array_node("/a", 1, vec![(5, vec![(0, 2)])])]);
        for cut in 0..buf.len() {
            let _ = Snapshot::parse(&buf[..cut]);
        }
    }
}
