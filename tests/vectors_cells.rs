//! Zarr Vectors fixtures (tests/fixtures/vectors, written by zarr-vectors 0.9.2 with
//! scripts/make_vectors.py) read cell by cell through the core's array reader: each spatial
//! chunk's cells, fragment indexes and object manifests, compared with what zarr-vectors'
//! own reader read back (the `.expected.json` beside each store).
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::vectors::*;

use std::collections::HashMap;
use zarr_wasm::vectors::{fragment_index, manifest};
// ---- links, meshes, skeletons, pyramids, objects and groups (the geometry read) ----

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
