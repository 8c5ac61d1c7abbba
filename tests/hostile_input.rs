//! Bad input must give errors, never panics (a panic in wasm kills the module for every caller).
//! Real fixtures are mutated thousands of ways (bytes flipped, cut, extended; metadata numbers
//! replaced with extreme values) and read through the whole core.
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::fixture_path;
use common::Rng;
use futures_executor::block_on;
use serde_json::{json, Value};
use std::rc::Rc;
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::{open, DimSelection, Node};

/// The files of one fixture array, keyed as in the store.
fn array_files(path: &str) -> Vec<(String, Vec<u8>)> {
    let root = fixture_path("v3.zarr").join(path);
    let mut files = vec![];
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let key = p
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((key, std::fs::read(&p).unwrap()));
            }
        }
    }
    files.sort();
    files
}

fn mutate_bytes(rng: &mut Rng, bytes: &mut Vec<u8>) {
    match rng.below(4) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                if !bytes.is_empty() {
                    let i = rng.below(bytes.len());
                    bytes[i] ^= 1 << rng.below(8);
                }
            }
        }
        1 => bytes.truncate(rng.below(bytes.len() + 1)),
        2 => bytes.extend((0..rng.below(64)).map(|_| rng.next() as u8)),
        _ => {
            if !bytes.is_empty() {
                let i = rng.below(bytes.len());
                bytes[i] = rng.next() as u8;
            }
        }
    }
}

const EXTREMES: &[i128] = &[
    0,
    1,
    -1,
    255,
    65536,
    1 << 31,
    1 << 32,
    1 << 40,
    1 << 53,
    i64::MAX as i128,
    u64::MAX as i128,
    -(1 << 63),
];

/// Replaces one number somewhere in the document with an extreme value.
fn mutate_json(rng: &mut Rng, doc: &mut Value) {
    fn numbers(v: &mut Value, out: &mut Vec<*mut Value>) {
        match v {
            Value::Number(_) => out.push(v as *mut Value),
            Value::Array(a) => a.iter_mut().for_each(|x| numbers(x, out)),
            Value::Object(o) => o.values_mut().for_each(|x| numbers(x, out)),
            _ => {}
        }
    }
    let mut slots = vec![];
    numbers(doc, &mut slots);
    if slots.is_empty() {
        return;
    }
    let slot = slots[rng.below(slots.len())];
    let value = EXTREMES[rng.below(EXTREMES.len())];
    let new = if let Ok(i) = i64::try_from(value) {
        json!(i)
    } else {
        json!(value as u64)
    };
    // SAFETY: the pointers were taken from `doc`, which is not otherwise touched until here.
    unsafe { *slot = new };
}

fn read_everything(store: MemoryStore) {
    let store = Rc::new(store);
    let Ok(Node::Array(arr)) = block_on(open(store, "")) else {
        return;
    };
    let _ = block_on(arr.get(&[]));
    let _ = block_on(arr.get(&[DimSelection::Slice {
        start: Some(1),
        stop: None,
        step: Some(3),
    }]));
    let _ = block_on(arr.get_chunk(&vec![0; arr.shape().len()]));
}

#[test]
fn mutated_fixtures_give_errors_not_panics() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for path in [
        "dtypes/uint16",
        "dtypes/float64",
        "layouts/d3",
        "big_endian/int64",
        "sparse/int_fill",
        "layouts/scalar",
    ] {
        let files = array_files(path);
        let meta: Value =
            serde_json::from_slice(&files.iter().find(|(k, _)| k == "zarr.json").unwrap().1)
                .unwrap();
        for round in 0..400 {
            let mut store = MemoryStore::new();
            let victim = rng.below(files.len());
            for (i, (key, bytes)) in files.iter().enumerate() {
                let mut bytes = bytes.clone();
                if i == victim || round % 7 == 0 {
                    if key == "zarr.json" && round % 2 == 0 {
                        let mut doc = meta.clone();
                        mutate_json(&mut rng, &mut doc);
                        bytes = doc.to_string().into_bytes();
                    } else {
                        mutate_bytes(&mut rng, &mut bytes);
                    }
                }
                store.insert(key.clone(), bytes);
            }
            read_everything(store);
        }
    }
}

#[test]
fn absurd_shapes_are_refused_without_allocating() {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [1u64 << 40, 1u64 << 40], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1u64 << 35, 1]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]
    });
    let mut store = MemoryStore::new();
    store.insert("zarr.json", meta.to_string());
    store.insert("c/0/0", vec![0u8; 16]);
    let Ok(Node::Array(arr)) = block_on(open(Rc::new(store), "")) else {
        panic!("should open")
    };
    let err = block_on(arr.get(&[])).unwrap_err();
    assert!(err.message.contains("a read may have"), "{err}");
    let err = block_on(arr.get_chunk(&[0, 0])).unwrap_err();
    assert!(err.message.contains("bytes"), "{err}");
}

/// A v2 structured type of `n` one-byte fields, as a `.zarray`.
fn many_fields(n: usize) -> Vec<u8> {
    let fields: Vec<Value> = (0..n).map(|i| json!([format!("f{i}"), "|u1"])).collect();
    let zarray = json!({
        "zarr_format": 2, "shape": [4], "chunks": [4], "dtype": fields, "compressor": null,
        "fill_value": null, "order": "C", "filters": null
    });
    zarray.to_string().into_bytes()
}

fn open_seconds(zarray: Vec<u8>) -> (usize, f64) {
    let mut store = MemoryStore::new();
    store.insert(".zarray", zarray);
    let start = std::time::Instant::now();
    let Ok(Node::Array(arr)) = block_on(open(Rc::new(store), "")) else {
        panic!("should open")
    };
    let fields = arr.metadata().fields.as_ref().map_or(0, |f| f.len());
    (fields, start.elapsed().as_secs_f64())
}

#[test]
fn opening_a_record_of_many_fields_takes_time_in_proportion() {
    // 160,000 fields (a 2.8 MB .zarray) took 42 s when each name was checked against every other.
    let (n, small) = open_seconds(many_fields(40_000));
    assert_eq!(n, 40_000);
    let (n, large) = open_seconds(many_fields(160_000));
    assert_eq!(n, 160_000);
    println!("open: 40,000 fields {small:.3} s, 160,000 fields {large:.3} s");
    // Four times the fields: about four times the time, not sixteen (with room for noise).
    assert!(
        large < 0.5 || large < small * 8.0,
        "40k: {small:.3} s, 160k: {large:.3} s"
    );
    // Duplicates are still found.
    let mut dup = many_fields(3);
    let text = String::from_utf8(dup.clone())
        .unwrap()
        .replace("\"f2\"", "\"f0\"");
    dup = text.into_bytes();
    let mut store = MemoryStore::new();
    store.insert(".zarray", dup);
    let err = block_on(open(Rc::new(store), "")).err().expect("refused");
    assert!(err.message.contains("two fields are named \"f0\""), "{err}");
}
