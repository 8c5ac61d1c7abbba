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

/// A store that cannot list (a plain HTTP server without index pages, say).
struct Unlisted(DirStore);

#[async_trait::async_trait(?Send)]
impl ReadableStore for Unlisted {
    async fn get(&self, key: &str) -> zarr_wasm::error::Result<Option<Vec<u8>>> {
        self.0.get(key).await
    }
    async fn get_range(
        &self,
        key: &str,
        range: zarr_wasm::store::ByteRange,
    ) -> zarr_wasm::error::Result<Option<Vec<u8>>> {
        self.0.get_range(key, range).await
    }
    fn locate(&self, key: &str) -> String {
        self.0.locate(key)
    }
}

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

#[test]
fn links_need_a_listing_and_say_so_without_one() {
    let level = level_of(
        Rc::new(Unlisted(DirStore::fixtures("vectors/mesh.zarr"))),
        0,
    );
    let err = block_on(level.select(&query(&[], &[])))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cannot list") && err.contains("links/0"),
        "{err}"
    );
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
