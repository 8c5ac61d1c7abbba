//! The Zarr Vectors store API (`zarr_wasm::vectors::store`) on the fixtures: metadata, levels,
//! chunks, boxes and objects; stores that are not ZVF; links without a listing; sharded copies.
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::vectors::*;
use common::DirStore;

use futures_executor::block_on;
use std::rc::Rc;
// ---- links, meshes, skeletons, pyramids, objects and groups (the geometry read) ----

use zarr_wasm::store::http::{HttpClient, HttpFailure, HttpOptions, HttpRequest, HttpResponse};
use zarr_wasm::store::http::{HttpStore, Method};
use zarr_wasm::store::listing::Listing;
use zarr_wasm::store::ReadableStore;
use zarr_wasm::vectors::geometry::Query;
use zarr_wasm::vectors::links::MAX_OTHER_NAMED;

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

// ---- hostile listings (issue 32): buckets and servers that list more, or other, than arrays ----

/// How the fake server lists directories.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Lists {
    /// An S3 bucket `b` at `http://h/b` (ListObjectsV2, 1000 entries a page).
    S3,
    /// A GCS bucket `b` at `http://h/b` (the JSON API, 1000 entries a page).
    Gcs,
    /// A static server at `http://h/` whose directory pages `page` gives.
    Index,
}

/// A page for a directory of the store ("0/links/0/"), given the names really there; None: 404.
type PageFn = Box<dyn Fn(&str, &[String]) -> Option<String>>;

/// Serves the graph fixture at `http://h/b/graph.zarr` (buckets) or `http://h/graph.zarr` (a
/// static server), listing `extra` keys (of the store, not there) beside the fixture's own, and
/// records every request with its status.
struct HostileServer {
    root: std::path::PathBuf,
    lists: Lists,
    /// Keys below the store listed but not there.
    extra: Vec<String>,
    page: PageFn,
    seen: std::cell::RefCell<Vec<(String, u16)>>,
}

impl HostileServer {
    /// The store, and the fake server behind it.
    fn store(lists: Lists, extra: Vec<String>, page: PageFn) -> Rc<HttpStore<HostileServer>> {
        let server = HostileServer {
            root: common::fixture_path("vectors/graph.zarr"),
            lists,
            extra,
            page,
            seen: Default::default(),
        };
        let (url, listing) = match lists {
            Lists::S3 => (
                "http://h/b/graph.zarr",
                Listing::S3 {
                    bucket: "http://h/b".into(),
                },
            ),
            Lists::Gcs => ("http://h/b/graph.zarr", Listing::gcs("http://h/b").unwrap()),
            Lists::Index => ("http://h/graph.zarr", Listing::IndexPages),
        };
        let options = HttpOptions {
            listing: Some(listing),
            retries: 0,
            ..HttpOptions::default()
        };
        Rc::new(HttpStore::with_options(url, server, options))
    }

    /// Every key of the store: the fixture's files and the extra ones.
    fn keys(&self) -> Vec<String> {
        let mut files = Vec::new();
        common::walk(&self.root, &mut files);
        let mut keys: Vec<String> = files
            .iter()
            .map(|f| {
                f.strip_prefix(&self.root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string()
            })
            .chain(self.extra.iter().cloned())
            .collect();
        keys.sort();
        keys
    }

    /// The names directly below `prefix` (of the store, ending in "/"): files and directories.
    fn names_below(&self, prefix: &str) -> Vec<String> {
        let mut names: Vec<String> = self
            .keys()
            .iter()
            .filter_map(|k| k.strip_prefix(prefix))
            .filter_map(|rest| rest.split('/').next())
            .map(String::from)
            .collect();
        names.dedup();
        names
    }

    /// A bucket's page of the keys below `prefix` (the bucket's), from entry `from`.
    fn bucket_page(&self, prefix: &str, from: usize) -> String {
        let store_prefix = prefix.strip_prefix("graph.zarr/").unwrap_or("\u{0}");
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        for key in self.keys() {
            let Some(rest) = key.strip_prefix(store_prefix) else {
                continue;
            };
            match rest.split_once('/') {
                Some((dir, _)) => dirs.push(format!("{prefix}{dir}/")),
                None => files.push(format!("{prefix}{rest}")),
            }
        }
        dirs.dedup();
        let all: Vec<(bool, String)> = files
            .into_iter()
            .map(|f| (false, f))
            .chain(dirs.into_iter().map(|d| (true, d)))
            .collect();
        let page: Vec<&(bool, String)> = all.iter().skip(from).take(1000).collect();
        let next = (from + 1000 < all.len()).then(|| (from + 1000).to_string());
        match self.lists {
            Lists::S3 => {
                let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;");
                let mut xml = String::from("<?xml version=\"1.0\"?><ListBucketResult>");
                for (dir, name) in &page {
                    xml.push_str(&match dir {
                        true => format!(
                            "<CommonPrefixes><Prefix>{}</Prefix></CommonPrefixes>",
                            escape(name)
                        ),
                        false => format!("<Contents><Key>{}</Key></Contents>", escape(name)),
                    });
                }
                xml.push_str(&format!("<IsTruncated>{}</IsTruncated>", next.is_some()));
                if let Some(token) = &next {
                    xml.push_str(&format!(
                        "<NextContinuationToken>{token}</NextContinuationToken>"
                    ));
                }
                xml + "</ListBucketResult>"
            }
            _ => {
                let prefixes: Vec<&str> = page
                    .iter()
                    .filter(|(d, _)| *d)
                    .map(|(_, n)| n.as_str())
                    .collect();
                let items: Vec<serde_json::Value> = page
                    .iter()
                    .filter(|(d, _)| !*d)
                    .map(|(_, n)| serde_json::json!({ "name": n }))
                    .collect();
                let mut answer = serde_json::json!({ "prefixes": prefixes, "items": items });
                if let Some(token) = next {
                    answer["nextPageToken"] = token.into();
                }
                answer.to_string()
            }
        }
    }

    /// The answer to `url`, and its status.
    fn answer(&self, request: &HttpRequest) -> HttpResponse {
        let not_found = HttpResponse {
            status: 404,
            ..HttpResponse::default()
        };
        let ok = |body: Vec<u8>| HttpResponse {
            status: 200,
            content_length: Some(body.len() as u64),
            body,
            ..HttpResponse::default()
        };
        let (path, query) = request
            .url
            .split_once('?')
            .unwrap_or((request.url.as_str(), ""));
        let param = |name: &str| {
            query
                .split('&')
                .filter_map(|p| p.split_once('='))
                .find(|(k, _)| *k == name)
                .map(|(_, v)| decode(v))
        };
        // A bucket's listing.
        if path == "http://h/b/" || path == "http://h/storage/v1/b/b/o" {
            let token = param("continuation-token").or_else(|| param("pageToken"));
            let from = token.map_or(0, |t| t.parse().unwrap());
            let page = self.bucket_page(&param("prefix").unwrap(), from);
            return ok(page.into_bytes());
        }
        let base = match self.lists {
            Lists::Index => "http://h/graph.zarr/",
            _ => "http://h/b/graph.zarr/",
        };
        let Some(key) = path.strip_prefix(base) else {
            return not_found;
        };
        let key = decode(key);
        if key.is_empty() || key.ends_with('/') {
            if self.lists != Lists::Index {
                return not_found;
            }
            let names = self.names_below(&key);
            return match (self.page)(&key, &names) {
                Some(page) => ok(page.into_bytes()),
                None => not_found,
            };
        }
        assert!(
            !key.split('/')
                .any(|s| s == ".." || s == "." || s.contains('\\')),
            "asked for {key}"
        );
        let Ok(value) = std::fs::read(self.root.join(&key)) else {
            return not_found;
        };
        let total = value.len() as u64;
        match request.range.map(|r| r.resolve(total)) {
            Some(r) if r.start < r.end => HttpResponse {
                status: 206,
                body: value[r.start as usize..r.end as usize].to_vec(),
                content_range: Some(format!("bytes {}-{}/{total}", r.start, r.end - 1)),
                content_length: Some(r.end - r.start),
                cut: false,
            },
            _ => ok(if request.method == Method::Head {
                Vec::new()
            } else {
                value
            }),
        }
    }

    /// The link arrays' metadata asked for (`0/links/0/<name>/zarr.json`), by name.
    fn arrays_asked(&self) -> Vec<String> {
        self.seen
            .borrow()
            .iter()
            .filter_map(|(url, _)| {
                let key = decode(url.split("graph.zarr/").nth(1)?);
                let name = key.strip_prefix("0/links/0/")?.strip_suffix("/zarr.json")?;
                Some(name.to_string())
            })
            .collect()
    }

    fn requests(&self) -> usize {
        self.seen.borrow().len()
    }
}

#[async_trait::async_trait(?Send)]
impl HttpClient for HostileServer {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpFailure> {
        let answer = self.answer(&request);
        self.seen
            .borrow_mut()
            .push((request.url.clone(), answer.status));
        Ok(answer)
    }
    async fn sleep(&self, _ms: u32) {}
}

/// `%xx` escapes decoded.
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 3 <= b.len() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// An index page as Python's http.server writes it: a link to each name (directories with "/").
fn index_page(names: &[String]) -> String {
    let mut page = String::from("<html><body><ul>");
    for name in names {
        let href: String = name
            .bytes()
            .map(|b| match b {
                b'+' => "%2B".to_string(),
                b => (b as char).to_string(),
            })
            .collect();
        let slash = if name.contains("zarr.json") { "" } else { "/" };
        page.push_str(&format!("<li><a href=\"{href}{slash}\">{name}</a></li>"));
    }
    page + "</ul></body></html>"
}

/// A box inside the graph's first chunk.
fn one_chunk_box(level: &zarr_wasm::vectors::level::VectorLevel) -> Query {
    let one = level.chunks()[0].clone();
    let lo: Vec<f64> = one.iter().map(|&k| k as f64 * 20.0 + 1.0).collect();
    let hi: Vec<f64> = lo.iter().map(|v| v + 1.0).collect();
    Query {
        bbox: Some((lo, hi)),
        ..query(&[], &[])
    }
}

/// The graph's links in the whole level, as read from the fixture's directory.
fn graph_links(q: &Query) -> (Vec<u64>, Vec<(String, Vec<u8>)>) {
    link_values(&block_on(fixture_level("graph", 0).select(q)).unwrap())
}

#[test]
fn a_bucket_listing_of_thousands_of_arrays_named_otherwise_is_refused_not_opened_one_by_one() {
    let strays = |n: usize| -> Vec<String> {
        (0..n)
            .map(|i| format!("0/links/0/s{i:05}/zarr.json"))
            .collect()
    };
    for lists in [Lists::S3, Lists::Gcs] {
        // 20,000: a read of one chunk would open each. Refused once the listing is read: its
        // pages (1000 names each) and the metadata, no array asked for.
        let store = HostileServer::store(lists, strays(20_000), Box::new(|_, _| None));
        let level = level_of(store.clone(), 0);
        let err = block_on(level.select(&one_chunk_box(&level)))
            .err()
            .unwrap();
        let server = store.client();
        let message = err.to_string();
        assert_eq!(
            err.kind,
            zarr_wasm::error::ErrorKind::Unsupported,
            "{message}"
        );
        for part in [
            "http://h/b/graph.zarr/0/links/0/",
            "names 20000 entries",
            &format!("at most {MAX_OTHER_NAMED}"),
        ] {
            assert!(message.contains(part), "{lists:?}: {message}");
        }
        assert!(server.arrays_asked().is_empty(), "{lists:?}");
        assert!(
            server.requests() < 40,
            "{lists:?}: {} requests",
            server.requests()
        );
        // Up to the bound, each is opened once (not there: 404), with only the writer's array
        // the chunk can link through; the links are the fixture's.
        for (count, box_read) in [(40, true), (MAX_OTHER_NAMED, false)] {
            let store = HostileServer::store(lists, strays(count), Box::new(|_, _| None));
            let level = level_of(store.clone(), 0);
            let q = match box_read {
                true => one_chunk_box(&level),
                false => query(&[], &[]),
            };
            let got = block_on(level.select(&q)).unwrap();
            assert_eq!(link_values(&got), graph_links(&q), "{lists:?} {count}");
            let asked = store.client().arrays_asked();
            assert_eq!(
                asked.iter().filter(|n| n.starts_with('s')).count(),
                count,
                "{lists:?}: each stray once"
            );
            if box_read {
                assert_eq!(asked.len(), count + 1, "{lists:?}: {asked:?}");
                assert!(asked.contains(&"0.0.0".to_string()));
            }
        }
        // One past it is refused.
        let store = HostileServer::store(lists, strays(MAX_OTHER_NAMED + 1), Box::new(|_, _| None));
        let level = level_of(store.clone(), 0);
        let err = block_on(level.select(&one_chunk_box(&level)))
            .err()
            .unwrap();
        assert!(
            err.to_string()
                .contains(&format!("names {} entries", MAX_OTHER_NAMED + 1)),
            "{err}"
        );
        assert!(store.client().arrays_asked().is_empty());
    }
}

/// A site's page (a single-page app's) that links to zarr.json among its own links.
const FALLBACK: &str = r#"<!doctype html><html><head><link rel="stylesheet" href="/app.css"></head>
<body><nav><a href="index.html">Home</a><a href="about">About</a><a href="zarr.json">Our schema</a>
<a href="https://example.org/">Elsewhere</a></nav><div id="app"></div></body></html>"#;

#[test]
fn a_fallback_page_for_the_links_directory_is_no_listing() {
    let whole = query(&[], &[]);
    let want = graph_links(&whole);
    assert_eq!(want.0.len(), 2 * 60, "the graph's 60 edges");
    // The arrays a whole read can need, asked by name without a listing.
    let probed = {
        let store = Unlisted::fixture("graph");
        block_on(level_of(store.clone(), 0).select(&whole)).unwrap();
        store.probes()
    };
    let fallback = |page: &'static str| -> PageFn { Box::new(move |_, _| Some(page.to_string())) };
    let links_dir_only = |page: &'static str| -> PageFn {
        Box::new(move |dir, _| (dir == "0/links/0/").then(|| page.to_string()))
    };
    let only_zarr_json = r#"<a href="zarr.json">zarr.json</a>"#;
    for (label, page, site_links_opened) in [
        // The same page for every directory: told by the parent's, nothing of it opened.
        ("every directory", fallback(FALLBACK), false),
        // A page for this directory only: its links are opened, none is an array.
        ("the links directory", links_dir_only(FALLBACK), true),
        // A page naming only zarr.json names no array: no evidence of a listing.
        ("only zarr.json", fallback(only_zarr_json), false),
        (
            "only zarr.json, here",
            links_dir_only(only_zarr_json),
            false,
        ),
    ] {
        let store = HostileServer::store(Lists::Index, vec![], page);
        let got = block_on(level_of(store.clone(), 0).select(&whole)).unwrap();
        assert_eq!(link_values(&got), want, "{label}: every edge");
        let asked = store.client().arrays_asked();
        let site: Vec<&String> = asked
            .iter()
            .filter(|n| *n == "about" || *n == "index.html")
            .collect();
        assert_eq!(site.len(), if site_links_opened { 2 } else { 0 }, "{label}");
        // Asked by name, each candidate once.
        assert_eq!(asked.len() - site.len(), probed, "{label}: {asked:?}");
    }
    // Real index pages are a listing: only the arrays there are opened, none missing.
    let store = HostileServer::store(
        Lists::Index,
        vec![],
        Box::new(|_, names| Some(index_page(names))),
    );
    let got = block_on(level_of(store.clone(), 0).select(&whole)).unwrap();
    assert_eq!(link_values(&got), want, "index pages");
    let server = store.client();
    let arrays = std::fs::read_dir(common::fixture_path("vectors/graph.zarr/0/links/0"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(server.arrays_asked().len(), arrays);
    assert!(server
        .seen
        .borrow()
        .iter()
        .all(|(url, status)| *status != 404 || !url.contains("/links/0/")));
    assert!(arrays < probed);
}

#[test]
fn listed_names_that_are_no_single_entry_of_the_directory_are_skipped() {
    let whole = query(&[], &[]);
    let want = graph_links(&whole);
    // An index page of the links directory with links that decode to ways out of it.
    let hostile = r#"<a href="a%2F..%2F..%2F..%2Fx/">x</a><a href="%2E%2E/">up</a>
<a href="a%5Cb/">b</a><a href="..%2F..%2Fzarr.json">z</a><a href="%00/">nul</a><a href="%2e/">dot</a>"#;
    let store = HostileServer::store(
        Lists::Index,
        vec![],
        Box::new(move |dir, names| {
            let page = index_page(names);
            Some(match dir {
                "0/links/0/" => page + hostile,
                _ => page,
            })
        }),
    );
    let got = block_on(level_of(store.clone(), 0).select(&whole)).unwrap();
    assert_eq!(link_values(&got), want, "index pages");
    assert!(store
        .client()
        .arrays_asked()
        .iter()
        .all(|n| !n.contains(['/', '\\', '\u{0}']) && n != ".." && n != "."));
    // A bucket with keys whose names below the directory are "..", "." or hold a backslash.
    for lists in [Lists::S3, Lists::Gcs] {
        let extra = [
            "0/links/0/../../../x/zarr.json",
            "0/links/0/./y/zarr.json",
            "0/links/0/a\\b/zarr.json",
        ];
        let store = HostileServer::store(
            lists,
            extra.iter().map(|k| k.to_string()).collect(),
            Box::new(|_, _| None),
        );
        let got = block_on(level_of(store.clone(), 0).select(&whole)).unwrap();
        assert_eq!(link_values(&got), want, "{lists:?}");
    }
    // Any store's listing (a JavaScript store's, say): the reader leaves such names out itself.
    let store = Rc::new(HostileLister {
        inner: DirStore::fixtures("vectors/graph.zarr"),
        asked: Default::default(),
    });
    let got = block_on(level_of(store.clone(), 0).select(&whole)).unwrap();
    assert_eq!(link_values(&got), want, "a store's own listing");
    assert!(store.asked.borrow().iter().all(|k| !k.contains("..")
        && !k.contains('\\')
        && !k.contains("//")
        && !k.contains('\u{0}')
        && !k.contains("/./")));
}

/// The fixture directory, with hostile names added to every listing, recording the keys asked.
struct HostileLister {
    inner: DirStore,
    asked: std::cell::RefCell<Vec<String>>,
}

#[async_trait::async_trait(?Send)]
impl ReadableStore for HostileLister {
    async fn get(&self, key: &str) -> zarr_wasm::error::Result<Option<Vec<u8>>> {
        self.asked.borrow_mut().push(key.to_string());
        self.inner.get(key).await
    }
    async fn get_range(
        &self,
        key: &str,
        range: zarr_wasm::store::ByteRange,
    ) -> zarr_wasm::error::Result<Option<Vec<u8>>> {
        self.asked.borrow_mut().push(key.to_string());
        self.inner.get_range(key, range).await
    }
    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }
    async fn list_dir(&self, prefix: &str) -> zarr_wasm::error::Result<Option<Vec<String>>> {
        let mut names = self.inner.list_dir(prefix).await?;
        if let Some(names) = &mut names {
            for bad in ["a/../../../x", "..", ".", "", "a\\b", "a\u{0}b", "/etc"] {
                names.push(bad.to_string());
            }
        }
        Ok(names)
    }
}
