//! Helpers of the Zarr Vectors tests (`tests/vectors_*.rs`): reading fixture cells through the
//! core, the fixtures' expected reads, geometry as comparable text, and fixtures copied into memory
//! to be corrupted by hand.
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]

use super::DirStore;
use futures_executor::block_on;
use serde_json::Value;
use std::rc::Rc;
use zarr_wasm::{open, Array, DimSelection, Node};
// ---- links, meshes, skeletons, pyramids, objects and groups (the geometry read) ----

use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::ReadableStore;
use zarr_wasm::vectors::geometry::{Geometry, Query};
use zarr_wasm::vectors::level::VectorLevel;
use zarr_wasm::vectors::store::open_vectors;

pub fn array(store: &str, path: &str) -> Array {
    match block_on(open(Rc::new(DirStore::fixtures(store)), path)).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => panic!("{path} is a group"),
    }
}

/// The bytes of the vlen-bytes cell at ZVF chunk coordinates `chunk` (shifted by the array's
/// `chunk_grid_origin`), or None where the chunk is empty.
pub fn cell(arr: &Array, chunk: &[i64]) -> Option<Vec<u8>> {
    let attrs = &arr.metadata().attributes;
    let origin: Vec<i64> = attrs
        .get("chunk_grid_origin")
        .map(|o| serde_json::from_value(o.clone()).unwrap())
        .unwrap_or_else(|| vec![0; chunk.len()]);
    let coords: Vec<u64> = chunk
        .iter()
        .zip(&origin)
        .map(|(c, o)| (c - o) as u64)
        .collect();
    let data = block_on(arr.get_chunk(&coords)).unwrap();
    let items = data.items.expect("a vlen-bytes array");
    let bytes = items.resolve(&data.bytes[..8]).unwrap().to_vec();
    (!bytes.is_empty()).then_some(bytes)
}

/// The bytes of element `i` of a 1-D vlen-bytes array (an object's manifest is element `id`).
pub fn element(arr: &Array, i: i64) -> Vec<u8> {
    let data = block_on(arr.get(&[DimSelection::Index(i)])).unwrap();
    data.items
        .unwrap()
        .resolve(&data.bytes[..8])
        .unwrap()
        .to_vec()
}

pub fn nonempty(arr: &Array) -> Vec<Vec<i64>> {
    arr.metadata().attributes["nonempty_chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            k.as_str()
                .unwrap()
                .split('.')
                .map(|n| n.parse().unwrap())
                .collect()
        })
        .collect()
}

pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

pub fn expected(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/vectors/{name}.expected.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Rows of floats as comparable keys (the writer's values are float32, exact in JSON).
pub fn key(row: &[f32]) -> Vec<u32> {
    row.iter().map(|v| v.to_bits()).collect()
}

/// A JSON list of rows, each value through `cell`.
pub fn rows_with<T>(value: &Value, cell: impl Fn(&Value) -> T) -> Vec<Vec<T>> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().iter().map(&cell).collect())
        .collect()
}

pub fn rows_of(value: &Value) -> Vec<Vec<f32>> {
    rows_with(value, |v| v.as_f64().unwrap() as f32)
}

pub fn level_of(store: Rc<dyn ReadableStore>, index: usize) -> VectorLevel {
    let zv = block_on(open_vectors(store, "")).unwrap();
    block_on(zv.level(index)).unwrap()
}

pub fn fixture_level(name: &str, index: usize) -> VectorLevel {
    level_of(
        Rc::new(DirStore::fixtures(&format!("vectors/{name}.zarr"))),
        index,
    )
}

/// A position as text, for comparing geometry by coordinates (vertex numbering may differ).
pub fn point(p: &[f32]) -> String {
    p.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

pub fn positions(g: &Geometry, ndim: usize) -> Vec<Vec<f32>> {
    f32s(&g.positions)
        .chunks_exact(ndim)
        .map(<[f32]>::to_vec)
        .collect()
}

/// Each link as its endpoints' positions, in the order written.
pub fn links_as_points(g: &Geometry, ndim: usize) -> Vec<String> {
    let p = positions(g, ndim);
    let l = g.links.as_ref().expect("links");
    let mut out: Vec<String> = l
        .vertices
        .chunks_exact(l.width)
        .map(|link| {
            link.iter()
                .map(|&v| point(&p[v as usize]))
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect();
    out.sort();
    out
}

/// zarr-vectors' links (indices into its positions) the same way.
pub fn expected_links(read: &Value, field: &str) -> Vec<String> {
    let p = rows_of(&read["positions"]);
    let mut out: Vec<String> = read[field]
        .as_array()
        .unwrap()
        .iter()
        .map(|link| {
            link.as_array()
                .unwrap()
                .iter()
                .map(|v| point(&p[v.as_u64().unwrap() as usize]))
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect();
    out.sort();
    out
}

pub fn sorted_points(rows: &[Vec<f32>]) -> Vec<String> {
    let mut out: Vec<String> = rows.iter().map(|r| point(r)).collect();
    out.sort();
    out
}

pub fn query(attributes: &[&str], link_attributes: &[&str]) -> Query {
    Query {
        bbox: None,
        attributes: attributes.iter().map(|s| s.to_string()).collect(),
        link_attributes: link_attributes.iter().map(|s| s.to_string()).collect(),
        object_ids: true,
    }
}

/// A copy of a fixture in memory, so that cells can be replaced by hand-made ones.
pub fn in_memory(name: &str) -> MemoryStore {
    in_memory_as(name, |key| key)
}

/// The fixture store `name` in memory, each key as `rename` gives it.
pub fn in_memory_as(name: &str, rename: impl Fn(String) -> String) -> MemoryStore {
    fn walk(
        dir: &std::path::Path,
        base: &std::path::Path,
        out: &mut MemoryStore,
        rename: &dyn Fn(String) -> String,
    ) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out, rename);
            } else {
                let key = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string();
                out.insert(rename(key), std::fs::read(&path).unwrap());
            }
        }
    }
    let base = super::fixture_path(&format!("vectors/{name}.zarr"));
    let mut store = MemoryStore::new();
    walk(&base, &base, &mut store, &rename);
    store
}

/// A one-element vlen-bytes chunk holding `blob`.
pub fn vlen_cell(blob: &[u8]) -> Vec<u8> {
    let mut cell = 1u32.to_le_bytes().to_vec();
    cell.extend((blob.len() as u32).to_le_bytes());
    cell.extend(blob);
    cell
}

/// Hand-made corruption (no writer produces it): a cell of the spatial array `array_path`
/// of fixture `name` becomes `blob`, at its first occupied chunk (whose key is returned). The array is rewritten as plain vlen-bytes (its compressor
/// dropped, its other cells decoded by our reader) so the bytes can be written by hand.
pub fn corrupt(store: &mut MemoryStore, name: &str, array_path: &str, blob: &[u8]) -> String {
    let arr = array(&format!("vectors/{name}.zarr"), array_path);
    let origin: Vec<i64> = arr
        .metadata()
        .attributes
        .get("chunk_grid_origin")
        .map(|o| serde_json::from_value(o.clone()).unwrap())
        .unwrap_or_else(|| vec![0; arr.shape().len()]);
    let key = |chunk: &[i64]| {
        let index: Vec<String> = chunk
            .iter()
            .zip(&origin)
            .map(|(c, o)| (c - o).to_string())
            .collect();
        format!("{array_path}/c/{}", index.join("/"))
    };
    let chunks = nonempty(&arr);
    for chunk in &chunks {
        let bytes = cell(&arr, chunk).unwrap_or_default();
        store.insert(key(chunk), vlen_cell(&bytes));
    }
    let meta_key = format!("{array_path}/zarr.json");
    let mut meta: Value =
        serde_json::from_slice(&block_on(store.get(&meta_key)).unwrap().unwrap()).unwrap();
    meta["codecs"] = serde_json::json!([{"name": "vlen-bytes", "configuration": {}}]);
    store.insert(meta_key, serde_json::to_vec(&meta).unwrap());
    store.insert(key(&chunks[0]), vlen_cell(blob));
    key(&chunks[0])
}

pub fn select_error(store: MemoryStore) -> String {
    let level = level_of(Rc::new(store), 0);
    block_on(level.select(&query(&[], &[])))
        .unwrap_err()
        .to_string()
}

/// Reads object 0 of level 0 of the pyramid fixture whose manifest is `blob` (hand-made: the
/// manifests array rewritten as plain vlen-bytes) and returns the error.
pub fn object_error(blob: &[u8]) -> String {
    let level = level_of(Rc::new(with_manifests(blob)), 0);
    block_on(level.read_object(0)).unwrap_err().to_string()
}

/// The pyramid fixture with every object's manifest at level 0 replaced by `blob` (hand-made: the
/// manifests array rewritten as plain vlen-bytes).
pub fn with_manifests(blob: &[u8]) -> MemoryStore {
    let mut store = in_memory("pyramid");
    let manifests = "0/object_index/manifests";
    let mut meta: Value = serde_json::from_slice(
        &block_on(store.get(&format!("{manifests}/zarr.json")))
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    let per_cell = meta["chunk_grid"]["configuration"]["chunk_shape"][0]
        .as_u64()
        .unwrap() as u32;
    meta["codecs"] = serde_json::json!([{"name": "vlen-bytes", "configuration": {}}]);
    store.insert(
        format!("{manifests}/zarr.json"),
        serde_json::to_vec(&meta).unwrap(),
    );
    let mut cell = per_cell.to_le_bytes().to_vec();
    for _ in 0..per_cell {
        cell.extend((blob.len() as u32).to_le_bytes());
        cell.extend(blob);
    }
    store.insert(format!("{manifests}/c/0"), cell);
    store
}
