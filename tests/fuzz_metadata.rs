//! Fuzzing of metadata and shard indexes, as a property test. The real metadata documents of the
//! fixtures (`zarr.json`, `.zarray`, `.zattrs`, `.zgroup`, `.zmetadata`) are mutated at the JSON
//! level (a value's type changed, numbers set to extremes, strings made long, empty or strange,
//! keys dropped or duplicated from other documents, values nested deeply, lists blown up) and as
//! text; each is opened, and where it opens as an array, a small part of it is read. Shard indexes
//! of the sharded fixtures are mutated (offsets and lengths set to extremes, past the end,
//! overlapping), with their CRC-32C recomputed so the mutation reaches the reader, and the arrays
//! read whole and in part. Every case must give a value or an error: never a panic, never more than
//! 5 s, never a peak allocation beyond 64 MiB.
//!
//! `cargo test --test fuzz_metadata` runs a short round (FUZZ_ITERS, default 2000 of each). Long
//! runs: `FUZZ_ITERS=200000 FUZZ_SEED=7 cargo test --release --test fuzz_metadata -- --nocapture`.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::counting::{peak_since, start_peak, CountingAllocator};

use common::{fixture_path, Rng};
use futures_executor::block_on;
use serde_json::{json, Map, Value};
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::{open, DimSelection, Node};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

const PEAK_CAP: usize = 64 << 20;

fn settings() -> (usize, u64) {
    common::fuzz_settings(2000, 20261124)
}

/// Every metadata document below `dir`, with its key relative to the store root `root`.
fn documents(root: &Path, dir: &Path, out: &mut Vec<(String, Value)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            documents(root, &path, out);
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if ["zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"].contains(&name.as_str()) {
            if let Ok(doc) = serde_json::from_slice(&std::fs::read(&path).unwrap()) {
                let key = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((key, doc));
            }
        }
    }
}

fn extreme_number(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0 => json!(0),
        1 => json!(-1),
        2 => json!(1u64 << 53),
        3 => json!(u64::MAX),
        4 => json!(1e308),
        5 => json!(-1e308),
        6 => json!(0.5),
        7 => json!(1u64 << 32),
        8 => json!(i64::MIN),
        _ => json!(rng.below(100)),
    }
}

fn strange_string(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 => json!(""),
        1 => json!("x".repeat(100_000)),
        2 => json!("\u{0}\u{ffff}é漢字🙂"),
        3 => json!("../../.."),
        4 => json!("NaN"),
        5 => json!("0xffffffffffffffffffff"),
        _ => json!("bytes"),
    }
}

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 3 { 4 } else { 7 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => extreme_number(rng),
        3 => strange_string(rng),
        4 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        5 => {
            let mut m = Map::new();
            for _ in 0..rng.below(3) {
                m.insert(format!("k{}", rng.below(5)), random_value(rng, depth + 1));
            }
            Value::Object(m)
        }
        _ => {
            // Deep nesting, past what recursive parsers may go.
            let mut v = json!(1);
            for _ in 0..(100 + rng.below(200)) {
                v = json!([v]);
            }
            v
        }
    }
}

/// Every value in `doc`, by JSON pointer.
fn pointers(doc: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match doc {
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                pointers(
                    v,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        _ => {}
    }
}

fn mutate_json(rng: &mut Rng, doc: &mut Value, others: &[(String, Value)]) {
    let mut all = Vec::new();
    pointers(doc, String::new(), &mut all);
    let at = all[rng.below(all.len())].clone();
    let Some(target) = doc.pointer_mut(&at) else {
        return;
    };
    match rng.below(8) {
        0 => *target = random_value(rng, 0),
        1 => *target = extreme_number(rng),
        2 => *target = strange_string(rng),
        3 => {
            // A long list of what is there (a few MB at most: the reader's cost, not the
            // fuzzer's, is what is measured).
            let item = target.clone();
            let size = item.to_string().len().max(1);
            let count = 1 + rng.below(5000).min((4 << 20) / size);
            *target = Value::Array(vec![item; count]);
        }
        4 => {
            if let Value::Object(map) = target {
                if let Some(k) = map.keys().nth(rng.below(map.len().max(1))).cloned() {
                    map.remove(&k);
                }
            }
        }
        5 => {
            if let Value::Array(items) = target {
                if !items.is_empty() {
                    let i = rng.below(items.len());
                    items.remove(i);
                }
            }
        }
        6 => {
            // A value from another document, under one of its keys.
            let (_, other) = &others[rng.below(others.len())];
            if let (Value::Object(map), Value::Object(from)) = (target, other) {
                if let Some((k, v)) = from.iter().nth(rng.below(from.len().max(1))) {
                    map.insert(k.clone(), v.clone());
                }
            }
        }
        _ => {
            if let Value::Array(items) = target {
                for item in items.iter_mut() {
                    if rng.below(2) == 0 {
                        *item = extreme_number(rng);
                    }
                }
            }
        }
    }
}

fn mutate_text(rng: &mut Rng, text: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        if text.is_empty() {
            return;
        }
        let i = rng.below(text.len());
        match rng.below(4) {
            0 => {
                let tokens = b"{}[],:\"0-9eE.\\ ";
                text[i] = tokens[rng.below(tokens.len())];
            }
            1 => text.truncate(i),
            2 => text.insert(i, text[rng.below(text.len())]),
            _ => {
                text.remove(i);
            }
        }
    }
}

/// Opens the node at the root of `store` and, for an array, reads a small box, its first chunk
/// and, at random, everything; checks the time and allocation caps (`input`: the bytes of the
/// bad input, which are in memory anyway).
fn exercise(store: MemoryStore, (input, containers): (usize, usize), whole: bool, what: &str) {
    let base = start_peak();
    let start = Instant::now();
    if let Ok(Node::Array(arr)) = block_on(open(Rc::new(store), "")) {
        let ndim = arr.shape().len();
        let first = vec![
            DimSelection::Slice {
                start: Some(0),
                stop: Some(2),
                step: None,
            };
            ndim
        ];
        let _ = block_on(arr.get(&first));
        if whole {
            let _ = block_on(arr.get(&[]));
        }
        let _ = block_on(arr.get_chunk(&vec![0; ndim]));
    }
    let elapsed = start.elapsed();
    let peak = peak_since(base);
    assert!(elapsed < Duration::from_secs(5), "{what}: took {elapsed:?}");
    // The document itself is in memory, copied and parsed: room for four times its size, and
    // for what parsing its lists and objects takes (at most MAX_CONTAINERS of them).
    let cap = PEAK_CAP + 4 * input + 160 * containers;
    assert!(peak <= cap, "{what}: peak allocation {peak} > {cap}");
}

/// A fixture store's files, by key.
fn store_files(store: &str) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let key = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((key, std::fs::read(&path).unwrap()));
            }
        }
    }
    let root = fixture_path(store);
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out
}

#[test]
fn mutated_metadata_opens_or_fails_cleanly() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (iterations, seed) = settings();
    let mut docs = Vec::new();
    for store in [
        "v3.zarr",
        "codecs.zarr",
        "v2.zarr",
        "consolidated.zarr",
        "v2_consolidated.zarr",
        "tensorstore.zarr",
        "zarr3_v2.zarr",
    ] {
        let root = fixture_path(store);
        let mut found = Vec::new();
        documents(&root, &root, &mut found);
        docs.extend(found.into_iter().map(|(k, d)| (format!("{store}/{k}"), d)));
    }
    assert!(docs.len() > 100, "{} documents", docs.len());
    let mut rng = Rng(seed | 1);
    for i in 0..iterations {
        let (key, doc) = &docs[rng.below(docs.len())];
        let mut doc = doc.clone();
        for _ in 0..1 + rng.below(3) {
            mutate_json(&mut rng, &mut doc, &docs);
        }
        let mut text = serde_json::to_vec(&doc).unwrap();
        if rng.below(4) == 0 {
            mutate_text(&mut rng, &mut text);
        }
        // The document alone at the root: chunks are missing (fill value), which keeps every read
        // cheap unless the metadata itself asks for much.
        let (_, name) = key.rsplit_once('/').unwrap();
        if std::env::var("FUZZ_SAVE_AT")
            .ok()
            .and_then(|v| v.parse().ok())
            == Some(i)
        {
            let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/target/fuzz-failures");
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(format!("{dir}/metadata-{seed}-{i}-{name}"), &text).unwrap();
        }
        let input = (
            text.len(),
            zarr_wasm::metadata::json::count_containers(&text),
        );
        let mut store = MemoryStore::new();
        store.insert(name, text);
        let what = format!("iteration {i} (seed {seed}): {key} (FUZZ_SAVE_AT={i} saves it)");
        exercise(store, input, rng.below(8) == 0, &what);
    }
}

#[test]
fn mutated_shard_indexes_read_or_fail_cleanly() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (iterations, seed) = settings();
    let arrays = [
        ("codecs.zarr", "sharding/index_end", true),
        ("codecs.zarr", "sharding/index_start", false),
        ("codecs.zarr", "sharding/sparse", true),
        ("codecs.zarr", "sharding/nested", true),
        ("codecs.zarr", "vlen/utf8_sharded", true),
        ("tensorstore.zarr", "uint16_sharded_start", false),
    ];
    type Files = Vec<(String, Vec<u8>)>;
    let files: Vec<(&str, &str, bool, Files)> = arrays
        .iter()
        .map(|&(store, path, at_end)| {
            let all = store_files(store);
            let mine: Vec<(String, Vec<u8>)> = all
                .into_iter()
                .filter_map(|(k, v)| {
                    k.strip_prefix(&format!("{path}/"))
                        .map(|k| (k.to_string(), v))
                })
                .collect();
            (store, path, at_end, mine)
        })
        .collect();
    let mut rng = Rng(seed | 3);
    for i in 0..iterations {
        let (store_name, path, at_end, files) = &files[rng.below(files.len())];
        let mut store = MemoryStore::new();
        let shards: Vec<usize> = (0..files.len())
            .filter(|&j| files[j].0 != "zarr.json")
            .collect();
        let victim = shards[rng.below(shards.len())];
        let meta = &files.iter().find(|(k, _)| k == "zarr.json").unwrap().1;
        let layout = index_layout(meta);
        for (j, (key, bytes)) in files.iter().enumerate() {
            let mut bytes = bytes.clone();
            if j == victim {
                mutate_index(&mut rng, &mut bytes, *at_end, layout);
            }
            store.insert(key.clone(), bytes);
        }
        let what = format!("iteration {i} (seed {seed}): {store_name}/{path}");
        exercise(store, (0, 0), rng.below(2) == 0, &what);
    }
}

/// The size of a shard's index (16 bytes an inner chunk) and whether a CRC-32C follows it.
fn index_layout(meta: &[u8]) -> (usize, bool) {
    let doc: Value = serde_json::from_slice(meta).unwrap();
    let shard = &doc["chunk_grid"]["configuration"]["chunk_shape"];
    let sharding = &doc["codecs"][0]["configuration"];
    let inner = &sharding["chunk_shape"];
    let count: u64 = shard
        .as_array()
        .unwrap()
        .iter()
        .zip(inner.as_array().unwrap())
        .map(|(s, i)| s.as_u64().unwrap() / i.as_u64().unwrap())
        .product();
    let crc = sharding["index_codecs"]
        .as_array()
        .is_some_and(|c| c.iter().any(|c| c["name"] == "crc32c"));
    (count as usize * 16, crc)
}

/// Mutates entries of a shard's index (at its end or start) and, mostly, recomputes its CRC-32C so
/// that the reader meets the bad entries rather than a checksum mismatch.
fn mutate_index(rng: &mut Rng, shard: &mut [u8], at_end: bool, (size, crc): (usize, bool)) {
    let total = size + if crc { 4 } else { 0 };
    if shard.len() < total {
        return;
    }
    let start = if at_end { shard.len() - total } else { 0 };
    for _ in 0..1 + rng.below(4) {
        let at = start + 8 * rng.below(size / 8);
        let value: u64 = match rng.below(7) {
            0 => u64::MAX,
            1 => u64::MAX - 1,
            2 => shard.len() as u64,
            3 => shard.len() as u64 + 1,
            4 => 0,
            5 => 1u64 << 40,
            _ => rng.next() % (2 * shard.len() as u64 + 1),
        };
        shard[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }
    if crc && rng.below(8) != 0 {
        let sum = crc32c::crc32c(&shard[start..start + size]);
        shard[start + size..start + size + 4].copy_from_slice(&sum.to_le_bytes());
    }
}
