//! Zarr Vectors fixtures (tests/fixtures/vectors, written by zarr-vectors 0.9.2 with
//! scripts/make_vectors.py): each spatial chunk's cells read through the core's array reader, its
//! fragment index and the objects' manifests parsed, and the result compared with what
//! zarr-vectors' own reader read back (the `.expected.json` beside each store).

mod common;

use common::DirStore;
use futures_executor::block_on;
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;
use zarr_wasm::vectors::{fragment_index, manifest};
use zarr_wasm::{open, Array, DimSelection, Node};

fn array(store: &str, path: &str) -> Array {
    match block_on(open(Rc::new(DirStore::fixtures(store)), path)).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => panic!("{path} is a group"),
    }
}

/// The bytes of the vlen-bytes cell at ZVF chunk coordinates `chunk` (shifted by the array's
/// `chunk_grid_origin`), or None where the chunk is empty.
fn cell(arr: &Array, chunk: &[i64]) -> Option<Vec<u8>> {
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
fn element(arr: &Array, i: i64) -> Vec<u8> {
    let data = block_on(arr.get(&[DimSelection::Index(i)])).unwrap();
    data.items
        .unwrap()
        .resolve(&data.bytes[..8])
        .unwrap()
        .to_vec()
}

fn nonempty(arr: &Array) -> Vec<Vec<i64>> {
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

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

fn expected(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/vectors/{name}.expected.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Rows of floats as comparable keys (the writer's values are float32, exact in JSON).
fn key(row: &[f32]) -> Vec<u32> {
    row.iter().map(|v| v.to_bits()).collect()
}

/// A JSON list of rows, each value through `cell`.
fn rows_with<T>(value: &Value, cell: impl Fn(&Value) -> T) -> Vec<Vec<T>> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().iter().map(&cell).collect())
        .collect()
}

fn rows_of(value: &Value) -> Vec<Vec<f32>> {
    rows_with(value, |v| v.as_f64().unwrap() as f32)
}

/// Each chunk's vertices, keyed by chunk, with their intensity and colour rows.
struct Chunk {
    positions: Vec<Vec<f32>>,
    intensity: Vec<f32>,
    colour: Vec<Vec<u8>>,
    fragments: Vec<fragment_index::Fragment>,
}

#[test]
fn a_point_cloud_reads_as_zarr_vectors_reads_it() {
    let store = "vectors/points.zarr";
    let vertices = array(store, "0/vertices");
    let fragments = array(store, "0/vertex_fragments");
    let intensity = array(store, "0/vertex_attributes/intensity");
    let colour = array(store, "0/vertex_attributes/colour");
    assert_eq!(vertices.metadata().attributes["dtype"], "float32");
    let mut chunks: HashMap<Vec<i64>, Chunk> = HashMap::new();
    let occupied = nonempty(&vertices);
    assert!(
        occupied.iter().any(|c| c[0] < 0),
        "chunks at negative coordinates"
    );
    for coords in occupied {
        let v = f32s(&cell(&vertices, &coords).unwrap());
        let rows = v.len() / 3;
        let blob = cell(&fragments, &coords).unwrap();
        let parsed = fragment_index::parse(&blob, rows as u64).unwrap();
        // The fragments of a point cloud tile the chunk's rows: each row in exactly one.
        let mut seen = vec![0u32; rows];
        for f in &parsed {
            for r in f.rows() {
                seen[r as usize] += 1;
            }
        }
        assert!(
            seen.iter().all(|&n| n == 1),
            "chunk {coords:?}: rows not tiled by fragments"
        );
        let colour_bytes = cell(&colour, &coords).unwrap();
        assert_eq!(colour_bytes.len(), rows * 3, "three uint8 channels a row");
        chunks.insert(
            coords.clone(),
            Chunk {
                positions: v.chunks(3).map(|r| r.to_vec()).collect(),
                intensity: f32s(&cell(&intensity, &coords).unwrap()),
                colour: colour_bytes.chunks(3).map(|r| r.to_vec()).collect(),
                fragments: parsed,
            },
        );
    }
    // Every point with its attributes, against zarr-vectors' whole read.
    let want = expected("points");
    let whole = &want["whole"];
    let mut ours: Vec<(Vec<u32>, u32, Vec<u8>)> = chunks
        .values()
        .flat_map(|c| {
            (0..c.positions.len()).map(|r| {
                (
                    key(&c.positions[r]),
                    c.intensity[r].to_bits(),
                    c.colour[r].clone(),
                )
            })
        })
        .collect();
    let positions = rows_of(&whole["positions"]);
    let wanted_intensity: Vec<f32> = whole["attributes"]["intensity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    let wanted_colour: Vec<Vec<u8>> = rows_with(&whole["attributes"]["colour"], |v| {
        v.as_u64().unwrap() as u8
    });
    let mut theirs: Vec<(Vec<u32>, u32, Vec<u8>)> = (0..positions.len())
        .map(|i| {
            (
                key(&positions[i]),
                wanted_intensity[i].to_bits(),
                wanted_colour[i].clone(),
            )
        })
        .collect();
    ours.sort();
    theirs.sort();
    assert_eq!(ours.len(), whole["vertex_count"].as_u64().unwrap() as usize);
    assert_eq!(ours, theirs);

    // Each object through its manifest: its points are those zarr-vectors reads for it.
    let manifests = array(store, "0/object_index/manifests");
    for (id, object) in want["objects"].as_object().unwrap() {
        let blob = element(&manifests, id.parse().unwrap());
        let blocks = manifest::parse(&blob, 3).unwrap();
        let mut points: Vec<Vec<u32>> = Vec::new();
        for block in &blocks {
            let chunk = &chunks[&block.chunk];
            for f in block.fragments.iter() {
                for r in chunk.fragments[f as usize].rows() {
                    points.push(key(&chunk.positions[r as usize]));
                }
            }
        }
        let mut wanted: Vec<Vec<u32>> = rows_of(&object["positions"])
            .iter()
            .map(|r| key(r))
            .collect();
        points.sort();
        wanted.sort();
        assert_eq!(points, wanted, "object {id}");
    }
}

#[test]
fn polylines_follow_their_manifests_in_order() {
    let store = "vectors/polylines.zarr";
    let vertices = array(store, "0/vertices");
    let fragments = array(store, "0/vertex_fragments");
    let manifests = array(store, "0/object_index/manifests");
    let want = expected("polylines");
    for (id, object) in want["objects"].as_object().unwrap() {
        let blocks = manifest::parse(&element(&manifests, id.parse().unwrap()), 2).unwrap();
        let mut line: Vec<Vec<f32>> = Vec::new();
        for block in &blocks {
            let v = f32s(&cell(&vertices, &block.chunk).unwrap());
            let rows = (v.len() / 2) as u64;
            let index =
                fragment_index::parse(&cell(&fragments, &block.chunk).unwrap(), rows).unwrap();
            for f in block.fragments.iter() {
                for r in index[f as usize].rows() {
                    line.push(v[2 * r as usize..2 * r as usize + 2].to_vec());
                }
            }
        }
        // The vertices concatenated in manifest order are the polyline, in order.
        let wanted = rows_of(&object["positions"]);
        assert_eq!(
            line.iter().map(|r| key(r)).collect::<Vec<_>>(),
            wanted.iter().map(|r| key(r)).collect::<Vec<_>>(),
            "polyline {id}"
        );
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
