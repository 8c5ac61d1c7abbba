//! A manifest file: chunk references of one or more arrays, by node id (sorted), each array's
//! sorted by chunk index. A reference is inline bytes, a native chunk (a range of
//! `chunks/<id>`) or a virtual chunk (a range of an object at a URL outside the repository,
//! whose location may be zstd-compressed with a dictionary the manifest carries).
//!
//! The payload is kept as it is and searched per lookup (two binary searches): a manifest of a
//! million chunks costs nothing to open beyond checking its root. The searches need the order:
//! the first lookup checks that the arrays are sorted by node id, and the first lookup in an
//! array that its references are sorted by chunk index (one pass each, once): a manifest out of
//! order is an error, not chunks silently missing.

use super::flatbuffer::{root, struct_u32, FbResult, Structs, Table, Tables};
use super::header::unzstd;
use super::ids::{Id12, Id8};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::HashSet;
use zarr_wasm_kernels::zstd::Dictionary;

/// The longest virtual chunk URL a compressed location may expand to.
const MAX_LOCATION: u64 = 64 * 1024;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkRef {
    Inline(Vec<u8>),
    Native {
        id: Id12,
        offset: u64,
        length: u64,
    },
    Virtual {
        location: String,
        offset: u64,
        length: u64,
        /// The ETag the object had when the reference was written, where it was recorded.
        etag: Option<String>,
        /// Its last modification (seconds since 1970), where it was recorded instead.
        last_modified: Option<u32>,
    },
}

pub struct Manifest {
    payload: Vec<u8>,
    dictionary: Option<Dictionary>,
    /// The arrays whose order was checked (by their place in the manifest); `usize::MAX` for
    /// the list of arrays itself.
    sorted: RefCell<HashSet<usize>>,
}

impl std::fmt::Debug for Manifest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Manifest({} bytes)", self.payload.len())
    }
}

fn arrays(payload: &[u8]) -> FbResult<Tables<'_>> {
    root(payload)?.required("Manifest.arrays", |t| t.tables(1))
}

/// Binary search over `len` elements ordered by `cmp(i)` (how element `i` compares to the one
/// sought).
fn search(len: usize, cmp: impl Fn(usize) -> FbResult<Ordering>) -> FbResult<Option<usize>> {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match cmp(mid)? {
            Ordering::Less => lo = mid + 1,
            Ordering::Greater => hi = mid,
            Ordering::Equal => return Ok(Some(mid)),
        }
    }
    Ok(None)
}

/// How a stored chunk index compares to `index`: element by element, then by length.
fn compare_to(stored: Structs<'_>, index: &[u32]) -> FbResult<Ordering> {
    for (d, want) in index.iter().enumerate().take(stored.len()) {
        match struct_u32(stored.get(d)?, 0)?.cmp(want) {
            Ordering::Equal => continue,
            o => return Ok(o),
        }
    }
    Ok(stored.len().cmp(&index.len()))
}

/// How two stored chunk indices compare, as `compare_to` does.
fn compare(a: Structs<'_>, b: Structs<'_>) -> FbResult<Ordering> {
    for d in 0..a.len().min(b.len()) {
        match struct_u32(a.get(d)?, 0)?.cmp(&struct_u32(b.get(d)?, 0)?) {
            Ordering::Equal => continue,
            o => return Ok(o),
        }
    }
    Ok(a.len().cmp(&b.len()))
}

/// A node id as hex, for messages.
fn hex(id: &[u8]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

impl Manifest {
    /// A decompressed manifest payload, its root and location dictionary checked.
    pub fn parse(payload: Vec<u8>) -> FbResult<Manifest> {
        let t = root(&payload)?;
        arrays(&payload)?;
        // compression_algorithm: 1 (zstd with the dictionary) unless written otherwise.
        let dictionary = match (t.u8(3, 1)?, t.bytes(2)?) {
            (1, Some(dict)) if !dict.is_empty() => {
                Some(Dictionary::parse(dict).map_err(|e| format!("its location dictionary: {e}"))?)
            }
            _ => None,
        };
        Ok(Manifest {
            payload,
            dictionary,
            sorted: RefCell::default(),
        })
    }

    /// The bytes it holds (its payload), for cache budgets.
    pub fn size(&self) -> usize {
        self.payload.len()
    }

    /// The reference of chunk `index` of node `node`; None where the manifest has none.
    pub fn get(&self, node: &Id8, index: &[u32]) -> FbResult<Option<ChunkRef>> {
        let arrays = arrays(&self.payload)?;
        let node_of = |i: usize| -> FbResult<&[u8]> {
            arrays
                .get(i)?
                .required("ArrayManifest.node_id", |t| t.inline(0, 8))
        };
        self.check_once(usize::MAX, || {
            for i in 1..arrays.len() {
                if node_of(i - 1)? >= node_of(i)? {
                    return Err(format!(
                        "the manifest is not sorted: its arrays are not in order of their node ids (array {i} of {})",
                        arrays.len()
                    ));
                }
            }
            Ok(())
        })?;
        let Some(a) = search(arrays.len(), |i| Ok(node_of(i)?.cmp(node.as_slice())))? else {
            return Ok(None);
        };
        let refs = arrays
            .get(a)?
            .required("ArrayManifest.refs", |t| t.tables(1))?;
        let index_of = |i: usize| -> FbResult<Structs<'_>> {
            refs.get(i)?.required("ChunkRef.index", |t| t.structs(0, 4))
        };
        self.check_once(a, || {
            for i in 1..refs.len() {
                if compare(index_of(i - 1)?, index_of(i)?)? != Ordering::Less {
                    return Err(format!(
                        "the manifest is not sorted: the chunk references of node {} are not in order of their chunk indices (reference {i} of {})",
                        hex(node),
                        refs.len()
                    ));
                }
            }
            Ok(())
        })?;
        let found = search(refs.len(), |i| compare_to(index_of(i)?, index))?;
        match found {
            Some(i) => self.chunk_ref(refs.get(i)?).map(Some),
            None => Ok(None),
        }
    }

    /// Runs `check` the first time `what` is looked at; its error every time.
    fn check_once(&self, what: usize, check: impl FnOnce() -> FbResult<()>) -> FbResult<()> {
        if self.sorted.borrow().contains(&what) {
            return Ok(());
        }
        check()?;
        self.sorted.borrow_mut().insert(what);
        Ok(())
    }

    fn chunk_ref(&self, r: Table<'_>) -> FbResult<ChunkRef> {
        if let Some(bytes) = r.bytes(1)? {
            return Ok(ChunkRef::Inline(bytes.to_vec()));
        }
        let (offset, length) = (r.u64(2, 0)?, r.u64(3, 0)?);
        if offset.checked_add(length).is_none() {
            return Err(format!("a chunk at offset {offset} of length {length}"));
        }
        if let Some(id) = r.inline(4, 12)? {
            let mut id12 = [0u8; 12];
            id12.copy_from_slice(id);
            return Ok(ChunkRef::Native {
                id: id12,
                offset,
                length,
            });
        }
        let location = match (r.str(5)?, r.bytes(8)?) {
            (Some(l), _) => l.to_string(),
            (None, Some(compressed)) => {
                let dict = self.dictionary.as_ref().ok_or(
                    "a compressed virtual chunk location, and the manifest has no dictionary",
                )?;
                let bytes = unzstd(compressed, MAX_LOCATION, Some(dict))
                    .map_err(|e| format!("a compressed virtual chunk location: {e}"))?;
                String::from_utf8(bytes)
                    .map_err(|_| "a virtual chunk location that is not UTF-8".to_string())?
            }
            (None, None) => {
                return Err("a chunk reference that is none of inline, native and virtual".into())
            }
        };
        let last_modified = r.u32(7, 0)?;
        Ok(ChunkRef::Virtual {
            location,
            offset,
            length,
            etag: r.str(6)?.map(str::to_string),
            last_modified: (last_modified != 0).then_some(last_modified),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testbuild::{build, F};
    use super::*;

    fn index(i: &[u32]) -> F {
        F::Structs(i.iter().map(|v| v.to_le_bytes().to_vec()).collect())
    }

    fn manifest() -> Vec<u8> {
        let u64 = |v: u64| F::Scalar(v.to_le_bytes().to_vec());
        let a1 = vec![
            F::Scalar(vec![1; 8]),
            F::Tables(vec![
                vec![index(&[0, 0]), F::Bytes(b"inline".to_vec())],
                vec![
                    index(&[0, 1]),
                    F::Absent,
                    u64(3),
                    u64(4),
                    F::Scalar(vec![7; 12]),
                ],
                vec![
                    index(&[1, 0]),
                    F::Absent,
                    u64(10),
                    u64(20),
                    F::Absent,
                    F::Bytes(b"s3://bucket/file.nc".to_vec()),
                    F::Bytes(b"\"etag\"".to_vec()),
                ],
                vec![index(&[2, 0])],
            ]),
        ];
        let a2 = vec![F::Scalar(vec![2; 8]), F::Tables(vec![vec![index(&[5])]])];
        build(vec![F::Scalar(vec![0; 12]), F::Tables(vec![a1, a2])])
    }

    #[test]
    fn looks_chunks_up_by_node_and_index() {
        let m = Manifest::parse(manifest()).unwrap();
        let n = [1u8; 8];
        assert_eq!(
            m.get(&n, &[0, 0]).unwrap(),
            Some(ChunkRef::Inline(b"inline".to_vec()))
        );
        assert_eq!(
            m.get(&n, &[0, 1]).unwrap(),
            Some(ChunkRef::Native {
                id: [7; 12],
                offset: 3,
                length: 4
            })
        );
        assert_eq!(
            m.get(&n, &[1, 0]).unwrap(),
            Some(ChunkRef::Virtual {
                location: "s3://bucket/file.nc".into(),
                offset: 10,
                length: 20,
                etag: Some("\"etag\"".into()),
                last_modified: None
            })
        );
        assert_eq!(m.get(&n, &[1, 1]).unwrap(), None);
        assert_eq!(m.get(&[3; 8], &[0, 0]).unwrap(), None);
        assert!(m.get(&n, &[2, 0]).unwrap_err().contains("none of inline"));
        assert!(m.get(&[2; 8], &[5]).is_err());
    }

    #[test]
    fn manifests_out_of_order_are_errors_not_missing_chunks() {
        let r = |i: &[u32]| vec![index(i), F::Bytes(b"x".to_vec())];
        // References: [1], [2], [0]: a binary search for [0] would miss it.
        for refs in [
            vec![r(&[1]), r(&[2]), r(&[0])],
            vec![r(&[0]), r(&[0])],
            vec![r(&[0, 1]), r(&[0])],
        ] {
            let m = Manifest::parse(build(vec![
                F::Scalar(vec![0; 12]),
                F::Tables(vec![vec![F::Scalar(vec![1; 8]), F::Tables(refs)]]),
            ]))
            .unwrap();
            let err = m.get(&[1; 8], &[0]).unwrap_err();
            assert!(
                err.contains("not sorted") && err.contains("0101010101010101"),
                "{err}"
            );
            // And every time.
            assert_eq!(m.get(&[1; 8], &[2]).unwrap_err(), err);
        }
        // Arrays: node ids 8, 9, 7.
        let a = |id: u8| vec![F::Scalar(vec![id; 8]), F::Tables(vec![r(&[0])])];
        let m = Manifest::parse(build(vec![
            F::Scalar(vec![0; 12]),
            F::Tables(vec![a(8), a(9), a(7)]),
        ]))
        .unwrap();
        let err = m.get(&[7; 8], &[0]).unwrap_err();
        assert!(
            err.contains("not sorted") && err.contains("node ids"),
            "{err}"
        );
        // In order, [0] before [0, 0] before [0, 1] before [1]: read.
        let m = Manifest::parse(build(vec![
            F::Scalar(vec![0; 12]),
            F::Tables(vec![vec![
                F::Scalar(vec![1; 8]),
                F::Tables(vec![r(&[0]), r(&[0, 0]), r(&[0, 1]), r(&[1])]),
            ]]),
        ]))
        .unwrap();
        for i in [&[0][..], &[0, 0], &[0, 1], &[1]] {
            assert_eq!(
                m.get(&[1; 8], i).unwrap(),
                Some(ChunkRef::Inline(b"x".to_vec()))
            );
        }
    }

    #[test]
    fn corrupt_manifests_are_errors_never_panics() {
        let good = manifest();
        for cut in 0..good.len() {
            if let Ok(m) = Manifest::parse(good[..cut].to_vec()) {
                let _ = m.get(&[1; 8], &[1, 0]);
            }
        }
        for i in 0..good.len() {
            let mut b = good.clone();
            b[i] ^= 0xa5;
            if let Ok(m) = Manifest::parse(b) {
                for idx in [[0, 0], [0, 1], [1, 0], [2, 0]] {
                    let _ = m.get(&[1; 8], &idx);
                }
            }
        }
        assert!(Manifest::parse(build(vec![F::Scalar(vec![0; 12])]))
            .unwrap_err()
            .contains("Manifest.arrays"));
    }
}
