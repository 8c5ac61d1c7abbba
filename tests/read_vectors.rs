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

// ---- links, meshes, skeletons, pyramids, objects and groups (the geometry read) ----

use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::ReadableStore;
use zarr_wasm::vectors::geometry::{Geometry, Query};
use zarr_wasm::vectors::level::VectorLevel;
use zarr_wasm::vectors::store::open_vectors;

fn level_of(store: Rc<dyn ReadableStore>, index: usize) -> VectorLevel {
    let zv = block_on(open_vectors(store, "")).unwrap();
    block_on(zv.level(index)).unwrap()
}

fn fixture_level(name: &str, index: usize) -> VectorLevel {
    level_of(
        Rc::new(DirStore::fixtures(&format!("vectors/{name}.zarr"))),
        index,
    )
}

/// A position as text, for comparing geometry by coordinates (vertex numbering may differ).
fn point(p: &[f32]) -> String {
    p.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn positions(g: &Geometry, ndim: usize) -> Vec<Vec<f32>> {
    f32s(&g.positions)
        .chunks_exact(ndim)
        .map(<[f32]>::to_vec)
        .collect()
}

/// Each link as its endpoints' positions, in the order written.
fn links_as_points(g: &Geometry, ndim: usize) -> Vec<String> {
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
fn expected_links(read: &Value, field: &str) -> Vec<String> {
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

fn sorted_points(rows: &[Vec<f32>]) -> Vec<String> {
    let mut out: Vec<String> = rows.iter().map(|r| point(r)).collect();
    out.sort();
    out
}

fn query(attributes: &[&str], link_attributes: &[&str]) -> Query {
    Query {
        bbox: None,
        attributes: attributes.iter().map(|s| s.to_string()).collect(),
        link_attributes: link_attributes.iter().map(|s| s.to_string()).collect(),
        object_ids: true,
    }
}

#[test]
fn a_graph_reads_its_edges_and_their_attributes_as_zarr_vectors_does() {
    let want = expected("graph");
    let level = fixture_level("graph", 0);
    let g = block_on(level.select(&query(&["radius"], &["weight", "kind"]))).unwrap();
    let whole = &want["whole"];
    assert_eq!(g.rows, 40);
    assert_eq!(
        sorted_points(&positions(&g, 3)),
        sorted_points(&rows_of(&whole["positions"]))
    );
    assert_eq!(links_as_points(&g, 3), expected_links(whole, "edges"));
    // Each vertex with its radius.
    let radius = f32s(&g.attributes[0].1.bytes);
    let mut mine: Vec<String> = positions(&g, 3)
        .iter()
        .zip(&radius)
        .map(|(p, r)| format!("{} {r}", point(p)))
        .collect();
    let mut theirs: Vec<String> = rows_of(&whole["positions"])
        .iter()
        .zip(whole["attributes"]["radius"].as_array().unwrap())
        .map(|(p, r)| format!("{} {}", point(p), r.as_f64().unwrap() as f32))
        .collect();
    mine.sort();
    theirs.sort();
    assert_eq!(mine, theirs);
    // Each edge with its weight (float32) and kind (uint8), from zarr-vectors' link readers.
    let p = positions(&g, 3);
    let l = g.links.as_ref().unwrap();
    let (weight, kind) = (&l.attributes[0].1, &l.attributes[1].1);
    assert_eq!(
        (weight.dtype.name(), kind.dtype.name()),
        ("float32".to_string(), "uint8".to_string())
    );
    let weights = f32s(&weight.bytes);
    let mut mine: Vec<String> = l
        .vertices
        .chunks_exact(2)
        .enumerate()
        .map(|(i, e)| {
            format!(
                "{} | {} {} {}",
                point(&p[e[0] as usize]),
                point(&p[e[1] as usize]),
                weights[i],
                kind.bytes[i]
            )
        })
        .collect();
    let mut theirs: Vec<String> = want["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let ends = rows_of(&l["ends"]);
            format!(
                "{} | {} {} {}",
                point(&ends[0]),
                point(&ends[1]),
                l["attributes"]["weight"].as_f64().unwrap() as f32,
                l["attributes"]["kind"]
            )
        })
        .collect();
    mine.sort();
    theirs.sort();
    assert_eq!(mine, theirs);
    let (dtype, shape, bytes) = block_on(level.object_attribute("label")).unwrap();
    assert_eq!((dtype.name(), shape), ("int32".to_string(), vec![4]));
    let labels: Vec<i32> = bytes
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(
        serde_json::to_value(labels).unwrap(),
        want["object_attributes"]["label"]
    );

    // A box: the chunks meeting it, the vertices inside it and the edges between those.
    let bbox = &want["bbox"];
    let corner = |i: usize| -> Vec<f64> {
        bbox["bbox"][i]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let mut q = query(&[], &["weight"]);
    q.bbox = Some((corner(0), corner(1)));
    let inside = block_on(level.select(&q)).unwrap();
    assert_eq!(
        sorted_points(&positions(&inside, 3)),
        sorted_points(&rows_of(&bbox["positions"]))
    );
    assert_eq!(links_as_points(&inside, 3), expected_links(bbox, "edges"));
    let l = inside.links.as_ref().unwrap();
    assert_eq!(l.attributes[0].1.bytes.len(), l.vertices.len() / 2 * 4);
    assert!(inside.chunks.len() < level.chunks().len());
}

#[test]
fn a_skeleton_reads_child_parent_edges_from_implicit_parents_and_branches() {
    let want = expected("skeleton");
    let g = block_on(fixture_level("skeleton", 0).select(&query(&["radius"], &[]))).unwrap();
    assert_eq!(
        sorted_points(&positions(&g, 3)),
        sorted_points(&rows_of(&want["whole"]["positions"]))
    );
    let edges = links_as_points(&g, 3);
    assert_eq!(edges.len(), 28);
    assert_eq!(edges, expected_links(&want["whole"], "edges"));
}

#[test]
fn a_mesh_reads_its_faces_with_their_winding() {
    let want = expected("mesh");
    let g = block_on(fixture_level("mesh", 0).select(&query(&["height"], &[]))).unwrap();
    assert_eq!(g.links.as_ref().unwrap().width, 3);
    let faces = links_as_points(&g, 3);
    assert_eq!(faces.len(), 128);
    assert_eq!(faces, expected_links(&want["whole"], "faces"));
    // The height attribute is each vertex's z.
    let z: Vec<f32> = positions(&g, 3).iter().map(|p| p[2]).collect();
    assert_eq!(f32s(&g.attributes[0].1.bytes), z);
}

#[test]
fn every_level_of_a_pyramid_reads_with_objects_groups_and_object_attributes() {
    let want = expected("pyramid");
    let zv = block_on(open_vectors(
        Rc::new(DirStore::fixtures("vectors/pyramid.zarr")),
        "",
    ))
    .unwrap();
    assert_eq!(zv.meta().levels, ["0", "1", "2"]);
    for (index, expected_level) in want["levels"].as_array().unwrap().iter().enumerate() {
        let level = block_on(zv.level(index)).unwrap();
        let g = block_on(level.select(&query(&[], &[]))).unwrap();
        let whole = &expected_level["whole"];
        assert_eq!(
            sorted_points(&positions(&g, 2)),
            sorted_points(&rows_of(&whole["positions"])),
            "level {index}"
        );
        assert!(
            g.links.is_none(),
            "links/+1 and /-1 join levels, not vertices of one"
        );
        if index == 0 {
            // Each vertex's object, as zarr-vectors' reads of each object give them.
            let ids = g.object_ids.as_ref().unwrap();
            let mut mine: Vec<String> = positions(&g, 2)
                .iter()
                .zip(ids)
                .map(|(p, id)| format!("{} {id}", point(p)))
                .collect();
            let mut theirs: Vec<String> = expected_level["objects"]
                .as_object()
                .unwrap()
                .iter()
                .flat_map(|(id, object)| {
                    rows_of(&object["positions"])
                        .iter()
                        .map(|p| format!("{} {id}", point(p)))
                        .collect::<Vec<_>>()
                })
                .collect();
            mine.sort();
            theirs.sort();
            assert_eq!(mine, theirs);
        }
        for (id, object) in expected_level["objects"].as_object().unwrap() {
            let bytes = block_on(level.read_object(id.parse().unwrap())).unwrap();
            let mine: Vec<Vec<f32>> = f32s(&bytes).chunks_exact(2).map(<[f32]>::to_vec).collect();
            assert_eq!(
                sorted_points(&mine),
                sorted_points(&rows_of(&object["positions"])),
                "level {index} object {id}"
            );
        }
        let (dtype, shape, bytes) = block_on(level.object_attribute("size")).unwrap();
        assert_eq!((dtype.name(), shape), ("float64".to_string(), vec![20]));
        let sizes: Vec<f64> = bytes
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(
            serde_json::to_value(sizes).unwrap(),
            expected_level["object_attributes"]["size"]
        );
    }
    let level = block_on(zv.level(0)).unwrap();
    assert_eq!(block_on(level.group_count()).unwrap(), 3);
    for (id, members) in want["groups"].as_array().unwrap().iter().enumerate() {
        let mine = block_on(level.group_members(id as u64)).unwrap();
        assert_eq!(serde_json::to_value(mine).unwrap(), *members);
    }
    let err = block_on(level.group_members(3)).unwrap_err();
    assert!(err.to_string().contains("3 groups"), "{err}");
}

/// A copy of a fixture in memory, so that cells can be replaced by hand-made ones.
fn in_memory(name: &str) -> MemoryStore {
    fn walk(dir: &std::path::Path, base: &std::path::Path, out: &mut MemoryStore) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, base, out);
            } else {
                let key = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string();
                out.insert(key, std::fs::read(&path).unwrap());
            }
        }
    }
    let base = common::fixture_path(&format!("vectors/{name}.zarr"));
    let mut store = MemoryStore::new();
    walk(&base, &base, &mut store);
    store
}

/// A one-element vlen-bytes chunk holding `blob`.
fn vlen_cell(blob: &[u8]) -> Vec<u8> {
    let mut cell = 1u32.to_le_bytes().to_vec();
    cell.extend((blob.len() as u32).to_le_bytes());
    cell.extend(blob);
    cell
}

/// Hand-made corruption (no writer produces it): a cell of the spatial array `array_path`
/// of fixture `name` becomes `blob`, at its first occupied chunk (whose key is returned). The array is rewritten as plain vlen-bytes (its compressor
/// dropped, its other cells decoded by our reader) so the bytes can be written by hand.
fn corrupt(store: &mut MemoryStore, name: &str, array_path: &str, blob: &[u8]) -> String {
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

fn select_error(store: MemoryStore) -> String {
    let level = level_of(Rc::new(store), 0);
    block_on(level.select(&query(&[], &[])))
        .unwrap_err()
        .to_string()
}

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

/// Reads object 0 of level 0 of the pyramid fixture whose manifest is `blob` (hand-made: the
/// manifests array rewritten as plain vlen-bytes) and returns the error.
fn object_error(blob: &[u8]) -> String {
    let level = level_of(Rc::new(with_manifests(blob)), 0);
    block_on(level.read_object(0)).unwrap_err().to_string()
}

/// The pyramid fixture with every object's manifest at level 0 replaced by `blob` (hand-made: the
/// manifests array rewritten as plain vlen-bytes).
fn with_manifests(blob: &[u8]) -> MemoryStore {
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
fn polylines_link_consecutive_vertices_within_and_across_chunks() {
    let want = expected("polylines");
    let g = block_on(fixture_level("polylines", 0).select(&query(&["width"], &[]))).unwrap();
    // Every step of every polyline zarr-vectors read, in its direction.
    let mut steps: Vec<String> = want["whole"]["polylines"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|line| {
            let p = rows_of(line);
            (1..p.len())
                .map(|i| format!("{} | {}", point(&p[i - 1]), point(&p[i])))
                .collect::<Vec<_>>()
        })
        .collect();
    steps.sort();
    assert_eq!(links_as_points(&g, 2), steps);
    let err = block_on(fixture_level("polylines", 0).select(&query(&[], &["width"])))
        .unwrap_err()
        .to_string();
    assert!(err.contains("implied by the order of vertices"), "{err}");
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
