//! A snapshot file: every node of one version of the repository, sorted by path. A node has its
//! Zarr metadata (its whole `zarr.json` document, as bytes) and, for an array, the manifests
//! that hold its chunk references, each with the extents of the chunk grid it covers.
//!
//! The payload is kept as it is: a node is where its path, its document and its manifest refs lie
//! in it, and a document or a manifest ref is read from there when a read asks for it (the refs
//! of the last array looked at are kept). Nothing is copied per node, so nodes that share one
//! vector (a FlatBuffer may point many tables at the same bytes) cost what the bytes cost, and
//! opening costs one pass over the nodes, at most `MAX_NODES` of them.

use super::flatbuffer::{root, struct_u32, table_at, FbResult, Table};
use super::ids::{Id12, Id8};
use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

/// The most nodes a snapshot may have: opening one checks every node, one pass without a copy
/// (200,000 took 58 ms natively, the payload not in cache) and keeps 56 bytes for each.
pub const MAX_NODES: usize = 200_000;

/// The most manifests an array may have (icechunk writes one, or one per region where it is
/// told to split them): looking a chunk up reads them all, up to about 0.5 ms.
pub const MAX_MANIFEST_REFS: usize = 10_000;

/// The most dimensions a manifest ref may give extents for (numpy's most).
pub const MAX_DIMENSIONS: usize = 64;

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

/// A node: where its parts lie in the snapshot's payload.
#[derive(Clone, Debug)]
pub struct Node {
    pub id: Id8,
    /// Its path without the leading "/" ("" for the root).
    path: Range<usize>,
    /// Its `zarr.json`.
    doc: Range<usize>,
    /// An array's `ArrayNodeData` table; None for a group.
    array: Option<usize>,
}

impl Node {
    pub fn is_array(&self) -> bool {
        self.array.is_some()
    }
}

/// The nodes of a snapshot, by path ("" for the root, "a/b" for `/a/b`).
#[derive(Debug, Default)]
pub struct Snapshot {
    payload: Vec<u8>,
    /// Sorted by path, bytewise.
    nodes: Vec<Node>,
    /// The manifest refs of the array data table last looked at.
    last_refs: RefCell<Option<(usize, Rc<[ManifestRef]>)>>,
}

fn node(t: Table<'_>) -> FbResult<Node> {
    let path = t.required("NodeSnapshot.path", |t| t.str(1))?;
    let canonical = match path {
        "/" => true,
        p => p
            .strip_prefix('/')
            .is_some_and(|rest| !rest.ends_with('/') && !rest.split('/').any(|s| s.is_empty())),
    };
    if !canonical {
        return Err(format!(
            "the node path {path:?} is not absolute and canonical"
        ));
    }
    let mut range = t
        .bytes_range(1)?
        .ok_or("its required field NodeSnapshot.path is missing")?;
    range.start = (range.start + 1).min(range.end);
    let at = |e: String| format!("node {path:?}: {e}");
    let id = t
        .required("NodeSnapshot.id", |t| t.inline(0, 8))
        .map_err(at)?;
    let doc = t
        .required("NodeSnapshot.user_data", |t| t.bytes_range(2))
        .map_err(at)?;
    let array = match t.u8(3, 0).map_err(at)? {
        // Array: its data (the manifest refs) is read when a chunk is (`manifest_for`).
        1 => Some(
            t.required("NodeSnapshot.node_data", |t| t.table_pos(4))
                .map_err(at)?,
        ),
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
    Ok(Node {
        id: node_id,
        path: range,
        doc,
        array,
    })
}

impl Snapshot {
    /// The snapshot in a decompressed snapshot file payload. The pass over its nodes yields to the
    /// event loop whenever it has taken a slice of time (`host::yield_if_busy`).
    pub async fn parse(payload: Vec<u8>) -> FbResult<Snapshot> {
        let t = root(&payload)?;
        let list = t.required("Snapshot.nodes", |t| t.tables(2))?;
        if list.len() > MAX_NODES {
            return Err(format!(
                "{} nodes, more than the {MAX_NODES} a snapshot may have here",
                list.len()
            ));
        }
        let mut nodes = Vec::with_capacity(list.len());
        for i in 0..list.len() {
            nodes.push(node(list.get(i)?)?);
            if i % 1024 == 1023 {
                crate::host::yield_if_busy().await;
            }
        }
        // Sorted by path, bytewise: icechunk finds a node by a binary search, and so does
        // `get`. A file out of order would be read wrong by both: it is refused.
        let path = |n: &Node| &payload[n.path.clone()];
        if let Some(w) = nodes.windows(2).find(|w| path(&w[0]) >= path(&w[1])) {
            let (a, b) = (path(&w[0]), path(&w[1]));
            return Err(match a == b {
                true => format!(
                    "the node path \"/{}\" is there twice",
                    String::from_utf8_lossy(a)
                ),
                false => format!(
                    "the nodes are not sorted by path, as Icechunk requires: \"/{}\" comes before \"/{}\"",
                    String::from_utf8_lossy(a),
                    String::from_utf8_lossy(b)
                ),
            });
        }
        Ok(Snapshot {
            payload,
            nodes,
            last_refs: RefCell::default(),
        })
    }

    /// The node at `path` ("" for the root).
    pub fn get(&self, path: &str) -> Option<&Node> {
        let at = self
            .nodes
            .binary_search_by(|n| self.payload[n.path.clone()].cmp(path.as_bytes()))
            .ok()?;
        Some(&self.nodes[at])
    }

    /// Every node, by path.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// `node`'s path (checked UTF-8 when the snapshot was read).
    pub fn path(&self, node: &Node) -> &str {
        std::str::from_utf8(&self.payload[node.path.clone()]).unwrap_or_default()
    }

    /// `node`'s `zarr.json`.
    pub fn document(&self, node: &Node) -> &[u8] {
        &self.payload[node.doc.clone()]
    }

    /// The manifest refs of the array `node`, read from the payload: at most
    /// `MAX_MANIFEST_REFS`, each of at most `MAX_DIMENSIONS`.
    pub fn manifest_refs(&self, node: &Node) -> FbResult<Vec<ManifestRef>> {
        let Some(data) = node.array else {
            return Ok(Vec::new());
        };
        let at = |e: String| format!("array \"/{}\": {e}", self.path(node));
        let refs = table_at(&self.payload, data)
            .and_then(|t| t.required("ArrayNodeData.manifests", |t| t.tables(2)))
            .map_err(at)?;
        if refs.len() > MAX_MANIFEST_REFS {
            return Err(at(format!(
                "{} manifest refs, more than the {MAX_MANIFEST_REFS} an array may have here",
                refs.len()
            )));
        }
        let mut out = Vec::with_capacity(refs.len());
        for i in 0..refs.len() {
            let r = refs.get(i).map_err(at)?;
            let id = r
                .required("ManifestRef.object_id", |t| t.inline(0, 12))
                .map_err(at)?;
            let extents = r
                .required("ManifestRef.extents", |t| t.structs(1, 8))
                .map_err(at)?;
            if extents.len() > MAX_DIMENSIONS {
                return Err(at(format!(
                    "a manifest ref of {} dimensions, more than {MAX_DIMENSIONS}",
                    extents.len()
                )));
            }
            let mut m = ManifestRef {
                id: [0; 12],
                extents: Vec::with_capacity(extents.len()),
            };
            m.id.copy_from_slice(id);
            for d in 0..extents.len() {
                let s = extents.get(d).map_err(at)?;
                m.extents
                    .push((struct_u32(s, 0).map_err(at)?, struct_u32(s, 4).map_err(at)?));
            }
            out.push(m);
        }
        Ok(out)
    }

    /// The manifest of the array `node` that covers chunk `index`, if one does. The refs of the
    /// last array looked at are kept: the reads of one array read them once.
    pub fn manifest_for(&self, node: &Node, index: &[u32]) -> FbResult<Option<Id12>> {
        let Some(data) = node.array else {
            return Ok(None);
        };
        let cached = self
            .last_refs
            .borrow()
            .as_ref()
            .filter(|(at, _)| *at == data)
            .map(|(_, r)| r.clone());
        let refs = match cached {
            Some(refs) => refs,
            None => {
                let refs: Rc<[ManifestRef]> = self.manifest_refs(node)?.into();
                *self.last_refs.borrow_mut() = Some((data, refs.clone()));
                refs
            }
        };
        Ok(refs.iter().find(|r| r.covers(index)).map(|r| r.id))
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
        let s = futures_executor::block_on(Snapshot::parse(buf)).unwrap();
        assert_eq!(s.nodes().len(), 2);
        assert!(!s.get("").unwrap().is_array());
        let b = s.get("a/b").unwrap();
        assert_eq!(b.id, [2; 8]);
        assert_eq!(s.path(b), "a/b");
        let m = s.manifest_refs(b).unwrap();
        assert!(m[0].covers(&[1, 0]) && !m[0].covers(&[2, 0]) && m[1].covers(&[3, 0]));
        assert!(!m[1].covers(&[3]));
        // The lookup reads agree with the refs read whole.
        for index in [[1, 0], [2, 0], [3, 0], [4, 0], [0, 1]] {
            let want = m.iter().find(|r| r.covers(&index)).map(|r| r.id);
            assert_eq!(s.manifest_for(b, &index).unwrap(), want, "{index:?}");
        }
        assert_eq!(s.manifest_for(b, &[3]).unwrap(), None);
        assert!(String::from_utf8_lossy(s.document(b)).contains("array"));
        assert!(s.get("a").is_none() && s.get("a/b/c").is_none());
    }

    #[test]
    fn bad_snapshots_are_errors_saying_what() {
        let bad = |nodes| futures_executor::block_on(Snapshot::parse(snapshot(nodes))).unwrap_err();
        assert!(bad(vec![group_node("a", 1)]).contains("not absolute"));
        assert!(bad(vec![group_node("/a/", 1)]).contains("not absolute"));
        assert!(bad(vec![group_node("/a", 1), group_node("/a", 2)]).contains("twice"));
        // Out of order: refused, since a lookup would miss nodes (icechunk's too).
        let unsorted = vec![group_node("/", 1), group_node("/b", 2), group_node("/a", 3)];
        assert!(bad(unsorted)
            .contains("not sorted by path, as Icechunk requires: \"/b\" comes before \"/a\""));
        // Sorted bytewise, as icechunk compares them: "/a-c" before "/a/b".
        let s = futures_executor::block_on(Snapshot::parse(snapshot(vec![
            group_node("/", 1),
            group_node("/a", 2),
            group_node("/a-c", 3),
            group_node("/a/b", 4),
        ])))
        .unwrap();
        for (path, id) in [("", 1), ("a", 2), ("a-c", 3), ("a/b", 4)] {
            assert_eq!(s.get(path).unwrap().id, [id; 8], "{path}");
        }
        let mut n = group_node("/x", 1);
        n[3] = F::Scalar(vec![7]);
        assert!(bad(vec![n]).contains("type 7"));
        let buf = snapshot(vec![array_node("/a", 1, vec![(5, vec![(0, 2)])])]);
        for cut in 0..buf.len() {
            if let Ok(s) = futures_executor::block_on(Snapshot::parse(buf[..cut].to_vec())) {
                for n in s.nodes() {
                    let _ = s.manifest_for(n, &[0]);
                }
            }
        }
    }
}
