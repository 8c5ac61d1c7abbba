//! Zarr Vectors blobs no writer produces: corrupt link cells, fragment indexes and manifests,
//! hostile runs and ranges, and Draco-compressed vertices, each a clear error, never a panic
//! or a hang.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::vectors::*;

use futures_executor::block_on;
use serde_json::Value;
use std::rc::Rc;
use zarr_wasm::vectors::manifest;
// ---- links, meshes, skeletons, pyramids, objects and groups (the geometry read) ----

use zarr_wasm::store::ReadableStore;
use zarr_wasm::vectors::store::open_vectors;

#[test]
fn corrupt_link_cells_fragment_indexes_and_manifests_give_clear_errors() {
    // A link cell naming a vertex its chunk does not have.
    let mut store = in_memory("mesh");
    let bad: Vec<u8> = [0i64, 1, 999]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let key = corrupt(&mut store, "mesh", "0/links/0/0.0.0_0.0.0", &bad);
    let err = select_error(store);
    assert!(
        err.contains("vertex 999 of chunk") && err.contains(&key),
        "{err}"
    );
    // A ragged cell whose group count overruns it.
    let mut store = in_memory("mesh");
    let bad: Vec<u8> = [50i64, 0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let key = corrupt(&mut store, "mesh", "0/links/0/0.0.0_+1.0.0", &bad);
    let err = select_error(store);
    assert!(
        err.contains("50 groups do not fit 16 bytes")
            && err.contains("zarr_vectors links")
            && err.contains(&key),
        "{err}"
    );
    // A permutation code out of range (an edge across chunks: a code and two vertex indices).
    let mut store = in_memory("graph");
    let segment = std::fs::read_dir(common::fixture_path("vectors/graph.zarr/0/links/0"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .find(|n| n.starts_with('+'))
        .unwrap();
    let bad: Vec<u8> = [1i64, 0, 7, 0, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    corrupt(&mut store, "graph", &format!("0/links/0/{segment}"), &bad);
    let err = select_error(store);
    assert!(
        err.contains("permutation code 7 is not below 2! = 2"),
        "{err}"
    );
    // A fragment index with a bad magic number.
    let mut store = in_memory("mesh");
    let key = corrupt(&mut store, "mesh", "0/vertex_fragments", &[0u8; 24]);
    let err = select_error(store);
    assert!(
        err.contains("fragment_index_v1") && err.contains(&key),
        "{err}"
    );
    // An object manifest cut short.
    let err = object_error(&[1, 0, 0, 0, 9]); // one block, then its chunk cut short
    assert!(
        err.contains("object manifest")
            && err.contains("object 0")
            && err.contains("manifests/c/0"),
        "{err}"
    );
    // A manifest naming one of its fragments a thousand times: refused, not a thousand copies.
    let manifests = array("vectors/pyramid.zarr", "0/object_index/manifests");
    let real = manifest::parse(&element(&manifests, 0), 2).unwrap();
    let (chunk, fragment) = (&real[0].chunk, real[0].fragments.iter().next().unwrap());
    let mut blob = 1000u32.to_le_bytes().to_vec();
    for _ in 0..1000 {
        chunk.iter().for_each(|c| blob.extend(c.to_le_bytes()));
        blob.push(0); // mode 0: one fragment
        blob.extend((fragment as i64).to_le_bytes());
    }
    let err = object_error(&blob);
    assert!(err.contains("more than 8 times over"), "{err}");
}

#[test]
fn draco_vertices_are_refused_clearly() {
    // Hand-made: the mesh's vertices array stamped as zarr-vectors stamps Draco-encoded ones.
    let mut store = in_memory("mesh");
    let key = "0/vertices/zarr.json";
    let mut meta: Value =
        serde_json::from_slice(&block_on(store.get(key)).unwrap().unwrap()).unwrap();
    meta["attributes"]["encoding"] = "draco".into();
    store.insert(key, serde_json::to_vec(&meta).unwrap());
    let zv = block_on(open_vectors(Rc::new(store), "")).unwrap();
    let err = block_on(zv.level(0)).err().unwrap();
    assert_eq!(err.kind, zarr_wasm::error::ErrorKind::Unsupported);
    assert!(
        err.to_string().contains("\"draco\"") && err.to_string().contains("0/vertices"),
        "{err}"
    );
}

#[test]
fn hostile_runs_ranges_and_fragments_give_errors_not_hangs_or_panics() {
    // A manifest whose run of fragments claims 2^62 of them: each vertex's object is still found.
    let manifests = array("vectors/pyramid.zarr", "0/object_index/manifests");
    let real = manifest::parse(&element(&manifests, 0), 2).unwrap();
    let mut blob = 1u32.to_le_bytes().to_vec();
    real[0]
        .chunk
        .iter()
        .for_each(|c| blob.extend(c.to_le_bytes()));
    blob.push(1); // mode 1: a run
    blob.extend(0i64.to_le_bytes());
    blob.extend((1i64 << 62).to_le_bytes());
    let level = level_of(Rc::new(with_manifests(&blob)), 0);
    let g = block_on(level.select(&query(&[], &[]))).unwrap();
    let ids = g.object_ids.unwrap();
    assert!(ids.contains(&0) && ids.contains(&-1));

    // A group written as a run of all of i64.
    let mut store = in_memory("pyramid");
    let key = "0/groups/zarr.json";
    let mut meta: Value =
        serde_json::from_slice(&block_on(store.get(key)).unwrap().unwrap()).unwrap();
    meta["attributes"]["group_ranges"] = serde_json::json!({"0": [i64::MIN, i64::MAX]});
    store.insert(key, serde_json::to_vec(&meta).unwrap());
    let err = block_on(level_of(Rc::new(store), 0).group_members(0)).unwrap_err();
    assert!(
        err.to_string().contains("not a short [start, stop]"),
        "{err}"
    );

    // Fragments that name a chunk's rows twice: links cannot be numbered, and say so.
    let mesh = fixture_level("mesh", 0);
    let chunk = mesh.chunks()[0].clone();
    let rows = block_on(mesh.read_chunk(&chunk)).unwrap().unwrap().rows as i64;
    let mut index = Vec::new();
    index.extend(0x5A56_4647u32.to_le_bytes());
    index.extend(1u16.to_le_bytes());
    index.extend(0u16.to_le_bytes());
    index.extend(2u32.to_le_bytes()); // two fragments
    index.extend(2u32.to_le_bytes()); // both ranges
    index.extend([0b11, 0, 0, 0, 0, 0, 0, 0]);
    for v in [0, rows, 0, rows] {
        index.extend(v.to_le_bytes());
    }
    index.extend(0u32.to_le_bytes()); // no listed fragments
    let mut store = in_memory("mesh");
    corrupt(&mut store, "mesh", "0/vertex_fragments", &index);
    let err = select_error(store);
    assert!(
        err.contains("do not name each of its rows once") && err.contains("vertex_fragments"),
        "{err}"
    );

    // A listing that names something that is no array (a stray file) is passed over.
    let mut store = in_memory("mesh");
    store.insert("0/links/0/README", b"notes".to_vec());
    let level = level_of(Rc::new(store), 0);
    assert_eq!(
        block_on(level.select(&query(&[], &[])))
            .unwrap()
            .links
            .unwrap()
            .vertices
            .len(),
        3 * 128
    );
}
