//! A level's geometry in one read (links, meshes, skeletons, polylines, pyramids, objects and
//! groups), compared with zarr-vectors' own reads of the fixtures.
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::vectors::*;
use common::DirStore;

use futures_executor::block_on;
use std::rc::Rc;
// ---- links, meshes, skeletons, pyramids, objects and groups (the geometry read) ----

use zarr_wasm::vectors::store::open_vectors;

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
