//! The Zarr Vectors store API (`zarr_wasm::vectors::store`) on the fixtures: metadata, levels,
//! chunks, boxes and objects; stores that are not ZVF; links without a listing; sharded copies.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::vectors::*;
use common::DirStore;

use futures_executor::block_on;
use std::rc::Rc;
// ---- links, meshes, skeletons, pyramids, objects and groups (the geometry read) ----

use zarr_wasm::store::ReadableStore;
use zarr_wasm::vectors::geometry::Query;

/// The same through the store API (`zarr_wasm::vectors::store`): metadata, chunks, a box, objects.
#[test]
fn the_store_api_reads_levels_chunks_boxes_and_objects() {
    use zarr_wasm::vectors::store::open_vectors;
    let zv = block_on(open_vectors(
        Rc::new(DirStore::fixtures("vectors/points.zarr")),
        "",
    ))
    .unwrap();
    let meta = zv.meta();
    assert_eq!(
        (meta.version.as_str(), meta.ndim, meta.levels.clone()),
        ("0.9.2", 3, vec!["0".to_string()])
    );
    assert_eq!(meta.chunk_shape, vec![25.0, 25.0, 25.0]);
    assert_eq!(meta.geometry_types, vec!["point_cloud".to_string()]);
    let level = block_on(zv.level(0)).unwrap();
    let want = expected("points");
    let mut all: Vec<Vec<u32>> = Vec::new();
    for chunk in level.chunks().to_vec() {
        let read = block_on(level.read_chunk(&chunk)).unwrap().unwrap();
        let rows = f32s(&read.bytes);
        assert_eq!(rows.len() as u64, read.rows * 3);
        all.extend(rows.chunks(3).map(key));
        // Every vertex lies in its chunk's box.
        for r in rows.chunks(3) {
            for d in 0..3 {
                let k = (r[d] / 25.0).floor() as i64;
                assert_eq!(k, chunk[d], "a vertex of chunk {chunk:?} at {r:?}");
            }
        }
    }
    let mut wanted: Vec<Vec<u32>> = rows_of(&want["whole"]["positions"])
        .iter()
        .map(|r| key(r))
        .collect();
    all.sort();
    wanted.sort();
    assert_eq!(all, wanted);
    // A box: only the chunks that meet it, and they hold every point inside it.
    let (lo, hi) = ([-40.0, 10.0, 30.0], [-20.0, 40.0, 60.0]);
    let chunks = level.chunks_in(&lo, &hi).unwrap();
    // x in chunks -2..=-1, y 0..=1, z 1..=2: the writer's floor(v / 25).
    let mut exact: Vec<Vec<i64>> = Vec::new();
    for x in -2..=-1 {
        for y in 0..=1 {
            for z in 1..=2 {
                if level.chunks().contains(&vec![x, y, z]) {
                    exact.push(vec![x, y, z]);
                }
            }
        }
    }
    let mut got = chunks.clone();
    got.sort();
    exact.sort();
    assert_eq!(got, exact, "exactly the chunks of the box");
    // A box whose top is a chunk edge: a vertex at -25 is the writer's chunk -1.
    let edge = level
        .chunks_in(&[-30.0, 0.0, 0.0], &[-25.0, 1.0, 1.0])
        .unwrap();
    assert!(edge.iter().any(|c| c[0] == -1) && edge.iter().all(|c| c[0] >= -2 && c[0] <= -1));
    assert!(
        level.chunks_in(&[0.0], &[1.0]).is_err(),
        "a box of the wrong dimension"
    );
    let err = block_on(level.read_chunk(&[])).err().unwrap();
    assert!(err.to_string().contains("must have 3 values"), "{err}");
    let mut inside = 0;
    for chunk in &chunks {
        let rows = f32s(&block_on(level.read_chunk(chunk)).unwrap().unwrap().bytes);
        inside += rows
            .chunks(3)
            .filter(|r| (0..3).all(|d| r[d] as f64 >= lo[d] && r[d] as f64 <= hi[d]))
            .count();
    }
    let expected_inside = rows_of(&want["whole"]["positions"])
        .iter()
        .filter(|r| (0..3).all(|d| r[d] as f64 >= lo[d] && r[d] as f64 <= hi[d]))
        .count();
    assert!(expected_inside > 0);
    assert_eq!(inside, expected_inside, "points inside the box");
    assert_eq!(
        block_on(level.read_chunk(&[9, 9, 9])).unwrap(),
        None,
        "a chunk outside the grid is empty"
    );
    // Attributes by name: widths from their bytes, row for row with the vertices.
    let first = level.chunks()[0].clone();
    let rows = block_on(level.read_chunk(&first)).unwrap().unwrap().rows;
    let colour = block_on(level.read_attribute("colour", &first, rows))
        .unwrap()
        .unwrap();
    assert_eq!((colour.width, colour.bytes.len() as u64), (3, rows * 3));
    let intensity = block_on(level.read_attribute("intensity", &first, rows))
        .unwrap()
        .unwrap();
    assert_eq!(intensity.width, 1);
    let err = block_on(level.read_attribute("colour", &first, rows + 1))
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains(&format!("not {} rows of 3 uint8 values", rows + 1)),
        "{err}"
    );
    let err = block_on(level.read_attribute("../vertices", &first, rows))
        .err()
        .unwrap();
    assert!(err.to_string().contains("not an attribute name"), "{err}");
    // Objects.
    for (id, object) in want["objects"].as_object().unwrap() {
        let mut got: Vec<Vec<u32>> =
            f32s(&block_on(level.read_object(id.parse().unwrap())).unwrap())
                .chunks(3)
                .map(key)
                .collect();
        let mut wanted: Vec<Vec<u32>> = rows_of(&object["positions"])
            .iter()
            .map(|r| key(r))
            .collect();
        got.sort();
        wanted.sort();
        assert_eq!(got, wanted, "object {id}");
    }
    let err = block_on(level.read_object(11)).err().unwrap();
    assert!(err.to_string().contains("11 objects"), "{err}");
    assert!(block_on(zv.level(1))
        .err()
        .unwrap()
        .to_string()
        .contains("1 levels"));

    // Polylines: an object's vertices in order.
    let lines = block_on(open_vectors(
        Rc::new(DirStore::fixtures("vectors/polylines.zarr")),
        "",
    ))
    .unwrap();
    let level = block_on(lines.level(0)).unwrap();
    let want = expected("polylines");
    for (id, object) in want["objects"].as_object().unwrap() {
        let got: Vec<Vec<u32>> = f32s(&block_on(level.read_object(id.parse().unwrap())).unwrap())
            .chunks(2)
            .map(key)
            .collect();
        let wanted: Vec<Vec<u32>> = rows_of(&object["positions"])
            .iter()
            .map(|r| key(r))
            .collect();
        assert_eq!(got, wanted, "polyline {id}");
    }
}

#[test]
fn stores_that_are_not_zvf_or_of_an_unknown_version_are_refused_clearly() {
    use zarr_wasm::store::memory::MemoryStore;
    use zarr_wasm::vectors::store::open_vectors;
    let root = std::fs::read_to_string(format!(
        "{}/tests/fixtures/vectors/points.zarr/zarr.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    // Hand-made: no writer produces these.
    let mut future = MemoryStore::new();
    future.insert(
        "zarr.json",
        root.replace("\"0.9.2\"", "\"2.0.0\"").into_bytes(),
    );
    let err = block_on(open_vectors(Rc::new(future), "")).err().unwrap();
    assert!(err.to_string().contains("version 2.0.0"), "{err}");
    let mut plain = MemoryStore::new();
    plain.insert(
        "zarr.json",
        br#"{"zarr_format":3,"node_type":"group","attributes":{}}"#.to_vec(),
    );
    let err = block_on(open_vectors(Rc::new(plain), "")).err().unwrap();
    assert!(
        err.to_string().contains("not a Zarr Vectors store"),
        "{err}"
    );
}

/// A store that cannot list and counts the link arrays asked for (`links/<delta>/<name>/zarr.json`).
struct Unlisted {
    inner: DirStore,
    probes: std::cell::RefCell<Vec<String>>,
}

impl Unlisted {
    fn fixture(name: &str) -> Rc<Unlisted> {
        Rc::new(Unlisted {
            inner: DirStore::fixtures(&format!("vectors/{name}.zarr")),
            probes: Default::default(),
        })
    }

    fn probes(&self) -> usize {
        self.probes.borrow().len()
    }
}

#[async_trait::async_trait(?Send)]
impl ReadableStore for Unlisted {
    async fn get(&self, key: &str) -> zarr_wasm::error::Result<Option<Vec<u8>>> {
        let parts: Vec<&str> = key.split('/').collect();
        if parts.len() == 5 && parts[1] == "links" && parts[4] == "zarr.json" {
            self.probes.borrow_mut().push(key.to_string());
        }
        self.inner.get(key).await
    }
    async fn get_range(
        &self,
        key: &str,
        range: zarr_wasm::store::ByteRange,
    ) -> zarr_wasm::error::Result<Option<Vec<u8>>> {
        self.inner.get_range(key, range).await
    }
    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }
}

/// Links as they compare: every vertex number, and every link attribute's bytes.
fn link_values(g: &zarr_wasm::vectors::geometry::Geometry) -> (Vec<u64>, Vec<(String, Vec<u8>)>) {
    let links = g.links.as_ref().expect("links");
    let attributes = links
        .attributes
        .iter()
        .map(|(n, c)| (n.clone(), c.bytes.clone()))
        .collect();
    (links.vertices.clone(), attributes)
}

/// The offsets between chunks a canonical family of edges could store, counted the slow way:
/// every ordered pair of chunks, kept where the offset is lexicographically non-negative.
fn canonical_edge_offsets(chunks: &[Vec<i64>]) -> usize {
    let mut offsets = std::collections::BTreeSet::new();
    for a in chunks {
        for b in chunks {
            let o: Vec<i64> = b.iter().zip(a).map(|(b, a)| b - a).collect();
            if o >= vec![0; o.len()] {
                offsets.insert(o);
            }
        }
    }
    offsets.len()
}

#[test]
fn without_a_listing_links_are_found_by_asking_for_the_arrays_a_read_can_need() {
    // Every fixture with links, whole and in a box: the same links, in the same order, with the
    // same attributes, as when the arrays are listed (index pages, a directory).
    for (name, attributes) in [
        ("graph", &["weight", "kind"][..]),
        ("graph_sharded", &["weight"][..]),
        ("skeleton", &[][..]),
        ("mesh", &[][..]),
        ("polylines", &[][..]),
    ] {
        let listed = fixture_level(name, 0);
        let store = Unlisted::fixture(name);
        let unlisted = level_of(store.clone(), 0);
        let boxed = Query {
            bbox: Some((vec![0.0; 3], vec![30.0; 3])),
            ..query(&[], attributes)
        };
        for q in [query(&[], attributes), boxed] {
            let mut q = q;
            if name == "polylines" {
                q.bbox = q.bbox.map(|(lo, hi)| (lo[..2].to_vec(), hi[..2].to_vec()));
            }
            let want = block_on(listed.select(&q)).unwrap();
            let got = block_on(unlisted.select(&q)).unwrap();
            assert_eq!(got.positions, want.positions, "{name}: vertices");
            assert_eq!(
                link_values(&got),
                link_values(&want),
                "{name} {:?}: links",
                q.bbox
            );
            assert!(!link_values(&got).0.is_empty(), "{name}: links found");
        }
        // Asked once each: a second read asks for nothing new.
        let asked = store.probes();
        block_on(unlisted.select(&query(&[], attributes))).unwrap();
        assert_eq!(store.probes(), asked, "{name}: nothing asked twice");
    }
    // The count is the offsets between the chunks read, however far apart: the graph links
    // chunks three apart, where the 3^D neighbours alone would lose links.
    let store = Unlisted::fixture("graph");
    let level = level_of(store.clone(), 0);
    block_on(level.select(&query(&[], &[]))).unwrap();
    assert_eq!(store.probes(), canonical_edge_offsets(level.chunks()));
    assert_eq!(store.probes(), 67);
    assert!(store
        .probes
        .borrow()
        .iter()
        .any(|k| k == "0/links/0/+3.-1.0/zarr.json"));
    // A box of one chunk asks only for that chunk's own array.
    let store = Unlisted::fixture("graph");
    let level = level_of(store.clone(), 0);
    let one = level.chunks()[0].clone();
    let lo: Vec<f64> = one.iter().map(|&k| k as f64 * 20.0 + 1.0).collect();
    let hi: Vec<f64> = lo.iter().map(|v| v + 1.0).collect();
    block_on(level.select(&Query {
        bbox: Some((lo, hi)),
        ..query(&[], &[])
    }))
    .unwrap();
    assert_eq!(*store.probes.borrow(), ["0/links/0/0.0.0/zarr.json"]);
}

#[test]
fn a_listed_link_array_named_otherwise_is_read_by_its_offsets() {
    // The mesh with its array within chunks renamed: its name no longer says its offsets, its
    // attributes still do, and a listing names it.
    let renamed = in_memory_as("mesh", |key| {
        key.replace("0/links/0/0.0.0_0.0.0/", "0/links/0/within/")
    });
    let want = expected("mesh");
    let g = block_on(level_of(Rc::new(renamed), 0).select(&query(&[], &[]))).unwrap();
    assert_eq!(
        links_as_points(&g, 3),
        expected_links(&want["whole"], "faces")
    );
}

#[test]
fn pyramid_levels_link_to_their_neighbours_as_zarr_vectors_reads_them() {
    use zarr_wasm::vectors::store::open_vectors;
    let want = expected("pyramid");
    // A box cutting through the levels.
    let (lo, hi) = (vec![10.0, 20.0], vec![40.0, 50.0]);
    let in_box = |p: &[f32]| (0..2).all(|d| (lo[d]..=hi[d]).contains(&(p[d] as f64)));
    for listed in [true, false] {
        let store: Rc<dyn ReadableStore> = match listed {
            true => Rc::new(DirStore::fixtures("vectors/pyramid.zarr")),
            false => Unlisted::fixture("pyramid"),
        };
        let zv = block_on(open_vectors(store, "")).unwrap();
        for (index, level) in want["levels"].as_array().unwrap().iter().enumerate() {
            for (delta, records) in level["cross_links"].as_object().unwrap() {
                let delta: i64 = delta.parse().unwrap();
                let records: Vec<Vec<Vec<f32>>> =
                    records.as_array().unwrap().iter().map(rows_of).collect();
                let theirs = |keep: &dyn Fn(&[f32]) -> bool| -> Vec<String> {
                    records
                        .iter()
                        .filter(|ends| keep(&ends[0]) && keep(&ends[1]))
                        .map(|ends| format!("{} -> {}", point(&ends[0]), point(&ends[1])))
                        .collect()
                };
                let whole = theirs(&|_| true);
                assert!(!whole.is_empty());
                let got = cross_links_as_points(&zv, index, delta, None);
                assert_eq!(got, whole, "level {index} to {delta:+} (listed: {listed})");
                // In a box: the links whose both ends are inside, numbered as select numbers them.
                let inside = theirs(&in_box);
                assert!(!inside.is_empty() && inside.len() < whole.len());
                let got = cross_links_as_points(&zv, index, delta, Some((lo.clone(), hi.clone())));
                assert_eq!(got, inside, "level {index} to {delta:+} in a box");
            }
        }
        // Levels are told apart; a level's own links are select's.
        let levels: Vec<_> = (0..3).map(|i| level_at(&zv, i)).collect();
        assert!(block_on(levels[0].cross_links(&levels[2], 1, &None)).is_err());
        assert!(block_on(levels[1].cross_links(&levels[1], 0, &None)).is_err());
        assert!(block_on(levels[2].cross_links(&levels[0], -1, &None)).is_err());
    }
}

/// The links from level `index` to `index + delta` as "from -> to" positions, their numbers
/// looked up in `select`'s reads of both levels with `bbox`.
fn cross_links_as_points(
    zv: &zarr_wasm::vectors::store::VectorStore,
    index: usize,
    delta: i64,
    bbox: Option<(Vec<f64>, Vec<f64>)>,
) -> Vec<String> {
    let other = (index as i64 + delta) as usize;
    let (from, to) = (level_at(zv, index), level_at(zv, other));
    let q = Query {
        bbox: bbox.clone(),
        ..query(&[], &[])
    };
    let here = positions(&block_on(from.select(&q)).unwrap(), 2);
    let there = positions(&block_on(to.select(&q)).unwrap(), 2);
    let pairs = block_on(from.cross_links(&to, delta, &bbox))
        .unwrap()
        .expect("links between the levels");
    pairs
        .chunks(2)
        .map(|p| {
            let (a, b) = (&here[p[0] as usize], &there[p[1] as usize]);
            format!("{} -> {}", point(a), point(b))
        })
        .collect()
}

fn level_at(
    zv: &zarr_wasm::vectors::store::VectorStore,
    index: usize,
) -> zarr_wasm::vectors::level::VectorLevel {
    block_on(zv.level(index)).unwrap()
}

#[test]
fn a_sharded_copy_reads_as_zarr_vectors_reads_it() {
    let want = expected("graph_sharded");
    let level = fixture_level("graph_sharded", 0);
    let g = block_on(level.select(&query(&["radius"], &["weight"]))).unwrap();
    assert_eq!(
        sorted_points(&positions(&g, 3)),
        sorted_points(&rows_of(&want["whole"]["positions"]))
    );
    assert_eq!(
        links_as_points(&g, 3),
        expected_links(&want["whole"], "edges")
    );
    // And as the unsharded store, attributes included.
    let plain =
        block_on(fixture_level("graph", 0).select(&query(&["radius"], &["weight"]))).unwrap();
    assert_eq!(
        (
            &g.positions,
            &g.attributes[0].1.bytes,
            &g.links.as_ref().unwrap().attributes[0].1.bytes
        ),
        (
            &plain.positions,
            &plain.attributes[0].1.bytes,
            &plain.links.as_ref().unwrap().attributes[0].1.bytes
        )
    );
}
