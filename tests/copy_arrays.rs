//! Copying a selection between arrays in the core (`Array::copy_from`, the write feature;
//! `zarr-wasm convert`'s copy): plain and sharded arrays into plain and sharded arrays, whole,
//! by aligned and unaligned regions and at the array's edge, over a destination holding other
//! values. Each copy stores the very keys and bytes that writing the source's values with `set`
//! stores, whether the units (chunks, inner chunks) go over as they are decoded or the selection
//! is read whole; units of nothing but the fill value are left out; another data type or shape
//! is refused.
#![cfg(all(feature = "write", not(target_arch = "wasm32")))]

mod common;

use common::{open_shared, slice};
use futures_executor::block_on;
use serde_json::{json, Value};
use std::rc::Rc;
use zarr_wasm::array::write::{WriteOptions, WriteValue};
use zarr_wasm::array::ReadOptions;
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::ReadableStore;
use zarr_wasm::{Array, DimSelection, ErrorKind};

const SHAPE: [u64; 2] = [20, 26];

fn array_json(data_type: &str, chunks: &[u64], codecs: Value, fill: u16) -> Vec<u8> {
    shaped_json(&SHAPE, data_type, chunks, codecs, fill)
}

fn shaped_json(
    shape: &[u64],
    data_type: &str,
    chunks: &[u64],
    codecs: Value,
    fill: u16,
) -> Vec<u8> {
    json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill, "codecs": codecs,
    })
    .to_string()
    .into_bytes()
}

fn plain() -> Value {
    json!([{"name": "bytes", "configuration": {"endian": "little"}},
           {"name": "zstd", "configuration": {"level": 3}}])
}

fn sharded(inner: &[u64]) -> Value {
    json!([{"name": "sharding_indexed", "configuration": {
        "chunk_shape": inner,
        "codecs": [{"name": "bytes", "configuration": {"endian": "big"}},
                   {"name": "gzip", "configuration": {"level": 1}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
        "index_location": "end"}}])
}

fn store_with(doc: Vec<u8>) -> Rc<MemoryStore> {
    let mut store = MemoryStore::new();
    store.insert("zarr.json", doc);
    Rc::new(store)
}

fn bytes_of(values: &[u16]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

/// Every key of `store` with its value, by key.
fn contents(store: &Rc<MemoryStore>) -> Vec<(String, Vec<u8>)> {
    let keys: std::collections::BTreeSet<String> = store.keys().into_iter().collect();
    keys.into_iter()
        .map(|k| {
            let v = block_on(store.get(&k)).unwrap().unwrap();
            (k, v)
        })
        .collect()
}

/// A source array holding values in some chunks, nothing in others (missing), and the fill value
/// written over a unit and a half in one corner (left out, or stored in part).
fn source(doc: Vec<u8>) -> (Rc<MemoryStore>, Array) {
    let store = store_with(doc);
    let arr = open_shared(&store);
    let values: Vec<u16> = (0..20 * 26).map(|i| (i * 7919 % 65_000) as u16).collect();
    block_on(arr.set(
        &[slice(0, 20), slice(0, 17)],
        WriteValue::Elements(&{
            let kept: Vec<u16> = (0..20)
                .flat_map(|r| values[r * 26..r * 26 + 17].to_vec())
                .collect();
            bytes_of(&kept)
        }),
    ))
    .unwrap();
    block_on(arr.set(
        &[slice(0, 4), slice(0, 6)],
        WriteValue::Scalar(&7u16.to_ne_bytes()),
    ))
    .unwrap();
    let arr = open_shared(&store);
    (store, arr)
}

/// A destination of `doc` holding other values everywhere.
fn destination(doc: &[u8]) -> (Rc<MemoryStore>, Array) {
    let store = store_with(doc.to_vec());
    let arr = open_shared(&store);
    let n = arr.shape().iter().product::<u64>() as u16;
    let others: Vec<u16> = (0..n).map(|i| 30_000 + i).collect();
    block_on(arr.set(&[], WriteValue::Elements(&bytes_of(&others)))).unwrap();
    let arr = open_shared(&store);
    (store, arr)
}

fn copy(to: &Array, from: &Array, selection: &[DimSelection]) -> zarr_wasm::Result<()> {
    block_on(to.copy_from(
        from,
        selection,
        &ReadOptions::default(),
        &WriteOptions::default(),
    ))
}

#[test]
fn copies_store_what_setting_the_source_values_stores() {
    // Each source, and whether its units make up the destinations' (of 4 x 4 and 8 x 8).
    let sources = [
        (
            "sharded, inner 4 x 4",
            array_json("uint16", &[8, 8], sharded(&[4, 4]), 7),
            true,
        ),
        (
            "sharded, inner 2 x 2",
            array_json("uint16", &[8, 8], sharded(&[2, 2]), 7),
            true,
        ),
        (
            "chunks 4 x 4",
            array_json("uint16", &[4, 4], plain(), 7),
            true,
        ),
        (
            "chunks 5 x 4",
            array_json("uint16", &[5, 4], plain(), 7),
            false,
        ),
        (
            "sharded, fill 3",
            array_json("uint16", &[8, 8], sharded(&[4, 4]), 3),
            false,
        ),
    ];
    // Each destination, and the units it writes.
    let destinations = [
        (
            "shards 8 x 12, inner 4 x 4",
            array_json("uint16", &[8, 12], sharded(&[4, 4]), 7),
            4,
        ),
        ("chunks 4 x 4", array_json("uint16", &[4, 4], plain(), 7), 4),
        ("chunks 8 x 8", array_json("uint16", &[8, 8], plain(), 7), 8),
    ];
    // Each selection, and the units it is aligned to.
    let selections: [(&str, Vec<DimSelection>, u64); 4] = [
        ("whole", vec![], 8),
        ("aligned", vec![slice(4, 12), slice(8, 16)], 4),
        ("unaligned", vec![slice(3, 9), slice(5, 11)], 1),
        ("edge", vec![slice(16, 20), slice(24, 26)], 8),
    ];
    let mut by_units = 0;
    for (source_name, source_doc, makes_units) in &sources {
        let (_, from) = source(source_doc.clone());
        for (dest_name, dest_doc, unit) in &destinations {
            for (sel_name, selection, aligned_to) in &selections {
                let what = format!("{source_name} -> {dest_name}, {sel_name}");
                let (copied, to) = destination(dest_doc);
                let units = to.copies_by_units(&from, selection);
                let expect_units = *makes_units && aligned_to % unit == 0;
                assert_eq!(units, expect_units, "{what}: by units");
                by_units += units as usize;
                copy(&to, &from, selection).unwrap_or_else(|e| panic!("{what}: {e}"));
                // The same values set from the source's read, into a destination like it.
                let (set, reference) = destination(dest_doc);
                let values = block_on(from.get(selection)).unwrap();
                block_on(reference.set(selection, WriteValue::Elements(&values.bytes))).unwrap();
                assert!(
                    contents(&copied) == contents(&set),
                    "{what}: other keys or bytes"
                );
                // And read back by a fresh reader, value for value.
                let back = block_on(open_shared(&copied).get(selection)).unwrap();
                assert!(back.bytes == values.bytes, "{what}: other values");
            }
        }
    }
    assert_eq!(by_units, 24);
}

#[test]
fn units_of_only_the_fill_value_are_left_out_and_other_arrays_refused() {
    // Shards of 8 x 8 in both: the source's corner unit of fill values leaves the destination's
    // shard without it, and a shard of nothing but the fill value goes.
    let doc = array_json("uint16", &[8, 8], sharded(&[4, 4]), 7);
    let (_, from) = source(doc.clone());
    let (copied, to) = destination(&doc);
    block_on(to.set(
        &[slice(16, 20), slice(24, 26)],
        WriteValue::Scalar(&1u16.to_ne_bytes()),
    ))
    .unwrap();
    copy(&to, &from, &[]).unwrap();
    // Columns 17.. of the source are missing: shard c/*/3 (columns 24..26) holds nothing.
    let keys = copied.keys();
    assert!(!keys.iter().any(|k| k.ends_with("/3")), "{keys:?}");
    let (set, reference) = destination(&doc);
    let values = block_on(from.get(&[])).unwrap();
    block_on(reference.set(&[], WriteValue::Elements(&values.bytes))).unwrap();
    assert!(contents(&copied) == contents(&set));
    // Another data type, another shape: refused, nothing written.
    for other in [
        array_json("int16", &[8, 8], sharded(&[4, 4]), 7),
        String::from_utf8(array_json("uint16", &[8, 8], sharded(&[4, 4]), 7))
            .unwrap()
            .replace("[20,26]", "[20,27]")
            .into_bytes(),
    ] {
        let (store, to) = destination(&other);
        let before = contents(&store);
        let err = copy(&to, &from, &[]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::ArgumentRange, "{}", err.message);
        assert!(
            err.message.contains("one data type and shape"),
            "{}",
            err.message
        );
        assert!(contents(&store) == before);
    }
}

#[test]
fn what_a_source_holds_past_the_arrays_end_is_not_copied() {
    // Edge chunks written while the array was 24 x 28, then the array made 20 x 26 (as a
    // resize leaves them): their elements past the end are not the fill value. The copy's
    // edge units hold the fill value there, as a write of the values makes them, and a unit
    // holding nothing else inside the array is left out.
    for (inner, dest_chunks, dest_codecs) in [
        (vec![4, 4], vec![8, 12], sharded(&[4, 4])),
        (vec![2, 2], vec![4, 4], plain()),
    ] {
        let store = store_with(shaped_json(
            &[24, 28],
            "uint16",
            &[8, 8],
            sharded(&inner),
            7,
        ));
        let wide = open_shared(&store);
        let values: Vec<u16> = (0..24 * 28)
            .map(|i| if i / 28 >= 20 || i % 28 >= 26 { 1 } else { 7 })
            .collect();
        block_on(wide.set(&[], WriteValue::Elements(&bytes_of(&values)))).unwrap();
        let mut narrowed = MemoryStore::new();
        for key in store.keys() {
            let value = block_on(store.get(&key)).unwrap().unwrap();
            narrowed.insert(key, value);
        }
        narrowed.insert(
            "zarr.json",
            shaped_json(&SHAPE, "uint16", &[8, 8], sharded(&inner), 7),
        );
        let from = open_shared(&Rc::new(narrowed));
        let dest_doc = array_json("uint16", &dest_chunks, dest_codecs, 7);
        let (copied, to) = destination(&dest_doc);
        assert!(to.copies_by_units(&from, &[]));
        copy(&to, &from, &[]).unwrap();
        let (set, reference) = destination(&dest_doc);
        let values = block_on(from.get(&[])).unwrap();
        block_on(reference.set(&[], WriteValue::Elements(&values.bytes))).unwrap();
        assert!(contents(&copied) == contents(&set), "inner {inner:?}");
        // Every element inside the array is the fill value: nothing is stored.
        assert_eq!(
            copied.keys(),
            vec!["zarr.json".to_string()],
            "inner {inner:?}"
        );
    }
}
