//! Writing variable-length strings and byte strings (`vlen-utf8`, `vlen-bytes`), in v3 arrays
//! plain, transposed and sharded (index at either end) and in v2 object arrays (order C and F):
//! whole arrays, tiles across chunks and scalars, read back by the reader; chunks and inner chunks
//! of nothing but the fill string left out; an array that keeps decoded chunks reads its own
//! writes. Fixed-size strings (`U`, `S`) are numbers to the core and written as elements.
#![cfg(all(feature = "write", not(target_arch = "wasm32")))]

mod common;

use common::{open_shared, slice};
use futures_executor::block_on;
use serde_json::{json, Value};
use std::rc::Rc;
use zarr_wasm::array::write::WriteValue;
use zarr_wasm::data_type::variable::Items;
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::ReadableStore;
use zarr_wasm::{Array, DimSelection, ErrorKind};

fn items_of(values: &[String]) -> Items {
    let mut items = Items::default();
    for v in values {
        items.push(v.as_bytes()).unwrap();
    }
    items
}

/// The selection, read back as strings.
fn read(arr: &Array, selection: &[DimSelection]) -> Vec<String> {
    let data = block_on(arr.get(selection)).unwrap();
    let items = data.items.expect("items for a variable-length type");
    data.bytes
        .chunks_exact(8)
        .map(|h| String::from_utf8(items.resolve(h).unwrap().to_vec()).unwrap())
        .collect()
}

fn v3(data_type: &str, codecs: Value) -> Vec<u8> {
    json!({
        "zarr_format": 3, "node_type": "array", "shape": [7, 9], "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "", "codecs": codecs,
    })
    .to_string()
    .into_bytes()
}

fn sharded(location: &str) -> Value {
    json!([{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2, 2],
        "codecs": [{"name": "vlen-utf8"}, {"name": "gzip", "configuration": {"level": 1}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
        "index_location": location}}])
}

/// Each layout: its name, its metadata key and document.
fn layouts() -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let v2 = |order: &str| {
        json!({
            "zarr_format": 2, "shape": [7, 9], "chunks": [4, 4], "dtype": "|O", "fill_value": "",
            "order": order, "filters": [{"id": "vlen-utf8"}],
            "compressor": {"id": "zlib", "level": 1},
        })
        .to_string()
        .into_bytes()
    };
    vec![
        (
            "v3 vlen-utf8",
            "zarr.json",
            v3("string", json!([{"name": "vlen-utf8"}])),
        ),
        (
            "v3 transposed, zstd",
            "zarr.json",
            v3(
                "string",
                json!([{"name": "transpose", "configuration": {"order": [1, 0]}},
                       {"name": "vlen-utf8"}, {"name": "zstd", "configuration": {"level": 3}}]),
            ),
        ),
        (
            "v3 sharded, index at the end",
            "zarr.json",
            v3("string", sharded("end")),
        ),
        (
            "v3 sharded, index at the start",
            "zarr.json",
            v3("string", sharded("start")),
        ),
        ("v2 object, order C", ".zarray", v2("C")),
        ("v2 object, order F", ".zarray", v2("F")),
    ]
}

fn strings(n: usize, salt: &str) -> Vec<String> {
    (0..n)
        .map(|i| match i % 5 {
            0 => String::new(),
            1 => format!("{salt}{i}"),
            2 => format!("é{salt}😀{}", "x".repeat(i % 17)),
            3 => format!("{i}"),
            _ => format!("{salt} longer text {i} {}", "y".repeat(i % 40)),
        })
        .collect()
}

#[test]
fn strings_are_written_whole_in_tiles_and_as_scalars_and_read_back() {
    for (name, key, doc) in layouts() {
        let mut store = MemoryStore::new();
        store.insert(key, doc);
        let store = Rc::new(store);
        let arr = open_shared(&store);
        arr.set_chunk_cache(1 << 20);
        let mut want = strings(63, "a");
        block_on(arr.set(&[], WriteValue::Items(&items_of(&want)))).unwrap();
        assert_eq!(read(&arr, &[]), want, "{name}");
        // A tile across four chunks, in part, read by the same array (its decoded chunks kept).
        let tile = strings(12, "tile");
        block_on(arr.set(
            &[slice(2, 5), slice(3, 7)],
            WriteValue::Items(&items_of(&tile)),
        ))
        .unwrap();
        for r in 0..3 {
            for c in 0..4 {
                want[(2 + r) * 9 + 3 + c] = tile[r * 4 + c].clone();
            }
        }
        assert_eq!(read(&arr, &[]), want, "{name}: the same array after a tile");
        assert_eq!(read(&open_shared(&store), &[]), want, "{name}: reopened");
        // One string for a whole row.
        block_on(arr.set(
            &[slice(6, 7), slice(0, 9)],
            WriteValue::Scalar("row".as_bytes()),
        ))
        .unwrap();
        want[54..63].iter_mut().for_each(|s| *s = "row".into());
        assert_eq!(
            read(&open_shared(&store), &[]),
            want,
            "{name}: a scalar row"
        );
        // The fill string everywhere: nothing but the metadata is left.
        block_on(arr.set(&[], WriteValue::Scalar(b""))).unwrap();
        assert_eq!(read(&arr, &[]), vec![String::new(); 63], "{name}: all fill");
        assert_eq!(
            store.keys(),
            vec![key.to_string()],
            "{name}: chunks of the fill string erased"
        );
    }
}

#[test]
fn byte_strings_are_written_with_vlen_bytes() {
    let mut store = MemoryStore::new();
    let doc = json!({
        "zarr_format": 3, "node_type": "array", "shape": [5], "data_type": "variable_length_bytes",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "", "codecs": [{"name": "vlen-bytes"}],
    });
    store.insert("zarr.json", doc.to_string().into_bytes());
    let store = Rc::new(store);
    let arr = open_shared(&store);
    let values: [&[u8]; 5] = [b"\x00\xff", b"", b"abc", &[7; 300], b"\x01"];
    let mut items = Items::default();
    values.iter().for_each(|v| {
        items.push(v).unwrap();
    });
    block_on(arr.set(&[], WriteValue::Items(&items))).unwrap();
    let data = block_on(open_shared(&store).get(&[])).unwrap();
    let got = data.items.unwrap();
    let read: Vec<&[u8]> = data
        .bytes
        .chunks_exact(8)
        .map(|h| got.resolve(h).unwrap())
        .collect();
    assert_eq!(read, values);
    // The stored chunk is numcodecs' layout: a count, then each length and its bytes.
    let chunk = block_on(store.get("c/0")).unwrap().unwrap();
    assert_eq!(chunk, [2, 0, 0, 0, 2, 0, 0, 0, 0, 0xff, 0, 0, 0, 0]);
}

#[test]
fn string_values_of_the_wrong_kind_or_count_are_refused_before_anything_is_written() {
    let mut store = MemoryStore::new();
    store.insert("zarr.json", v3("string", json!([{"name": "vlen-utf8"}])));
    let store = Rc::new(store);
    let arr = open_shared(&store);
    let err = block_on(arr.set(&[], WriteValue::Items(&items_of(&strings(62, "a"))))).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Selection);
    assert!(
        err.message.contains("62 items") && err.message.contains("needs 63"),
        "{err}"
    );
    let err = block_on(arr.set(&[], WriteValue::Elements(&[0; 63 * 8]))).unwrap_err();
    assert_eq!(err.kind, ErrorKind::ArgumentType);
    assert!(err.message.contains("written from items"), "{err}");
    // Bytes that are not UTF-8, in a string array: the codec says so, naming the chunk.
    let mut bad = Items::default();
    bad.push(&[0xff, 0xfe]).unwrap();
    let err = block_on(arr.set(&[slice(0, 1), slice(0, 1)], WriteValue::Items(&bad))).unwrap_err();
    assert!(
        err.message.contains("UTF-8") && err.message.contains("c/0/0"),
        "{err}"
    );
    assert_eq!(store.keys(), vec!["zarr.json".to_string()]);
}

#[test]
fn strings_are_copied_between_layouts_item_for_item() {
    // `copy_from` reads the selection whole (strings are never handed over as units): the
    // read's handles, in the order its chunks came, are written in C order.
    let all = layouts();
    let (_, key, doc) = &all[2]; // sharded, index at the end
    let mut store = MemoryStore::new();
    store.insert(*key, doc.clone());
    let from = open_shared(&Rc::new(store));
    let want = strings(63, "c");
    block_on(from.set(&[], WriteValue::Items(&items_of(&want)))).unwrap();
    for (name, key, doc) in layouts() {
        let mut store = MemoryStore::new();
        store.insert(key, doc);
        let to = open_shared(&Rc::new(store));
        let tile = [slice(1, 6), slice(2, 9)];
        block_on(to.copy_from(
            &from,
            &tile,
            &zarr_wasm::array::ReadOptions::default(),
            &zarr_wasm::array::write::WriteOptions::default(),
        ))
        .unwrap();
        assert_eq!(read(&to, &tile), read(&from, &tile), "{name}");
        // Outside the tile: the fill string.
        assert!(
            read(&to, &[slice(0, 1)]).iter().all(String::is_empty),
            "{name}"
        );
    }
}
