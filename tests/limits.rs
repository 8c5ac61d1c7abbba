//! The limits reads are held to (src/limits.rs): compressed bombs in chunks of unknown decoded
//! size, items longer than a JavaScript string, reads over too many chunks or bytes, ZIP members
//! that claim more than they may. Each must be an error that names the limit, found without
//! allocating what the bad input asks for (a counting allocator measures the peak).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::counting::{peak_of, CountingAllocator};
use common::open_array;

use futures_executor::block_on;
use miniz_oxide::deflate::compress_to_vec;
use serde_json::json;
use std::rc::Rc;
use zarr_wasm::array::ReadOptions;
use zarr_wasm::hierarchy::node::{open_with, OpenOptions};
use zarr_wasm::limits::Limits;
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::zip::ZipStore;
use zarr_wasm::store::ReadableStore;
use zarr_wasm::ErrorKind;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The tests of this binary run one at a time so that the allocation peak is theirs alone.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn gzip_member(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    out.extend(compress_to_vec(data, 6));
    let mut crc = crc32fast::Hasher::new();
    crc.update(data);
    out.extend(crc.finalize().to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out
}

/// A gzip stream (members in a row, as gzip allows) of a vlen-utf8 chunk holding one string of
/// `len` bytes of 'a': a few KB that decode to `len` bytes.
fn string_bomb(len: usize) -> Vec<u8> {
    let block = vec![b'a'; 1 << 20];
    let one = gzip_member(&block);
    let mut header = 1u32.to_le_bytes().to_vec();
    header.extend((len as u32).to_le_bytes());
    let mut out = gzip_member(&header);
    for _ in 0..len / block.len() {
        out.extend(&one);
    }
    out.extend(gzip_member(&block[..len % block.len()]));
    out
}

fn string_array(chunk: Vec<u8>) -> MemoryStore {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [1], "data_type": "string",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "",
        "codecs": [{"name": "vlen-utf8"}, {"name": "gzip", "configuration": {"level": 1}}]
    });
    let mut store = MemoryStore::new();
    store.insert("zarr.json", serde_json::to_vec(&meta).unwrap());
    store.insert("c/0", chunk);
    store
}

#[test]
fn a_compressed_bomb_stops_at_the_decoded_size_cap() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // 300 MB of string from about 300 KB of gzip: more than the default cap of 256 MiB.
    let bomb = string_bomb(300 << 20);
    assert!(
        bomb.len() < 1 << 20,
        "the bomb is small: {} bytes",
        bomb.len()
    );
    let arr = open_array(string_array(bomb.clone()), Limits::default());
    let (result, peak) = peak_of(|| block_on(arr.get(&[])));
    let err = result.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Codec, "{err}");
    assert!(
        err.message.contains("gzip") && err.message.contains("c/0"),
        "{err}"
    );
    assert!(err.message.contains("268435456"), "names the cap: {err}");
    let cap = Limits::default().max_decoded_chunk_bytes;
    assert!(
        peak <= cap + (cap / 2) + (8 << 20),
        "peak {peak} for a cap of {cap}"
    );

    // A lower cap stops it sooner.
    let small = Limits {
        max_decoded_chunk_bytes: 1 << 20,
        ..Limits::default()
    };
    let arr = open_array(string_array(bomb), small);
    let (result, peak) = peak_of(|| block_on(arr.get(&[])));
    assert!(result.unwrap_err().message.contains("1048576"));
    assert!(peak < 8 << 20, "peak {peak} with a 1 MiB cap");
}

#[test]
fn items_longer_than_the_item_limit_are_refused_and_raised_limits_let_them_through() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let chunk = string_bomb(3 << 20);
    let tight = Limits {
        max_item_bytes: 1 << 20,
        ..Limits::default()
    };
    let err = block_on(open_array(string_array(chunk.clone()), tight).get(&[])).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Codec, "{err}");
    assert!(
        err.message.contains("item 0 is 3145728 bytes") && err.message.contains("maxItemBytes"),
        "{err}"
    );
    // Within the limits: the 3 MB string is read.
    let data = block_on(open_array(string_array(chunk), Limits::default()).get(&[])).unwrap();
    let items = data.items.unwrap();
    let item = items.resolve(&data.bytes[..8]).unwrap();
    assert_eq!(item.len(), 3 << 20);
    assert!(item.iter().all(|&b| b == b'a'));
}

#[test]
fn reads_beyond_the_chunk_and_byte_limits_are_refused_before_any_request() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [1_000_000_000u64], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 3,
        "codecs": [{"name": "bytes"}]
    });
    let mut store = MemoryStore::new();
    store.insert("zarr.json", serde_json::to_vec(&meta).unwrap());
    let arr = open_array(store, Limits::default());
    let (result, peak) = peak_of(|| block_on(arr.get(&[])));
    let err = result.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Selection);
    assert!(
        err.message.contains("more than 1048576 chunks")
            && err.message.contains("maxChunksPerRead"),
        "{err}"
    );
    assert!(peak < 1 << 20, "refused without allocating: {peak}");
    let options = ReadOptions {
        max_chunks: u64::MAX,
        max_bytes: 1000,
        ..ReadOptions::default()
    };
    let err = block_on(arr.get_with(&[], &options)).unwrap_err();
    assert!(
        err.message.contains("1000000000 bytes, more than the 1000"),
        "{err}"
    );
    let part = [zarr_wasm::DimSelection::Slice {
        start: Some(0),
        stop: Some(10),
        step: None,
    }];
    assert_eq!(block_on(arr.get(&part)).unwrap().bytes, vec![3; 10]);
}

/// A ZIP archive of one deflated member whose directory says it holds `declared` bytes.
fn zip_with(name: &str, deflated: &[u8], declared: u32, crc: u32) -> Vec<u8> {
    let mut local = vec![0x50, 0x4b, 3, 4, 20, 0, 0, 0, 8, 0, 0, 0, 0, 0];
    local.extend(crc.to_le_bytes());
    local.extend((deflated.len() as u32).to_le_bytes());
    local.extend(declared.to_le_bytes());
    local.extend((name.len() as u16).to_le_bytes());
    local.extend(0u16.to_le_bytes());
    local.extend(name.as_bytes());
    let data_end = local.len() + deflated.len();
    let mut central = vec![0x50, 0x4b, 1, 2, 20, 0, 20, 0, 0, 0, 8, 0, 0, 0, 0, 0];
    central.extend(crc.to_le_bytes());
    central.extend((deflated.len() as u32).to_le_bytes());
    central.extend(declared.to_le_bytes());
    central.extend((name.len() as u16).to_le_bytes());
    central.extend([0; 12]); // extra, comment, disk, attributes
    central.extend(0u32.to_le_bytes()); // local header at 0
    central.extend(name.as_bytes());
    let mut end = vec![0x50, 0x4b, 5, 6, 0, 0, 0, 0, 1, 0, 1, 0];
    end.extend((central.len() as u32).to_le_bytes());
    end.extend((data_end as u32).to_le_bytes());
    end.extend(0u16.to_le_bytes());
    let mut out = local;
    out.extend(deflated);
    out.extend(central);
    out.extend(end);
    out
}

#[test]
fn zip_members_inflate_only_to_their_declared_size() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // 100 MB of zeros in about 100 KB, declared as 4 bytes (a 4-byte chunk).
    let deflated = compress_to_vec(&vec![0u8; 100 << 20], 6);
    let archive = zip_with("c/0", &deflated, 4, 0);
    let mut outer = MemoryStore::new();
    outer.insert("a.zip", archive);
    let outer: Rc<dyn ReadableStore> = Rc::new(outer);
    let zip = block_on(ZipStore::open(outer.clone(), "a.zip")).unwrap();
    let (result, peak) = peak_of(|| block_on(zip.get("c/0")));
    let err = result.unwrap_err();
    assert!(err.message.contains("c/0"), "{err}");
    assert!(
        peak < 1 << 20,
        "inflated no further than declared: peak {peak}"
    );
    // A member that claims more than deflate can hold is refused before inflating.
    let archive = zip_with("c/0", &deflated[..1000], 2_000_000_000, 0);
    let mut lying = MemoryStore::new();
    lying.insert("b.zip", archive);
    let zip = block_on(ZipStore::open(Rc::new(lying), "b.zip")).unwrap();
    let (result, peak) = peak_of(|| block_on(zip.get("c/0")));
    let err = result.unwrap_err();
    assert!(err.message.contains("more than deflate can"), "{err}");
    assert!(peak < 1 << 20, "peak {peak}");
}

#[test]
fn a_shard_index_larger_than_the_limit_is_refused_without_fetching_it() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Shards of 16^8 one-element inner chunks: a 64 GiB index, from 300 bytes of metadata.
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": vec![16; 8], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": vec![16; 8]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": vec![1; 8], "codecs": [{"name": "bytes"}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]
        }}]
    });
    let mut store = MemoryStore::new();
    store.insert("zarr.json", serde_json::to_vec(&meta).unwrap());
    store.insert("c/0/0/0/0/0/0/0/0", vec![0u8; 64]);
    let arr = open_array(store, Limits::default());
    let one = [zarr_wasm::DimSelection::Index(0); 8];
    let (result, peak) = peak_of(|| block_on(arr.get(&one)));
    let err = result.unwrap_err();
    assert!(
        err.message
            .contains("index of 68719476736 bytes, more than the 67108864"),
        "{err}"
    );
    assert!(
        err.message.contains("c/0/0/0/0/0/0/0/0"),
        "names the shard: {err}"
    );
    assert!(peak < 1 << 20, "peak {peak}");
}

#[test]
fn messages_quote_at_most_a_little_of_a_huge_bad_value() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": "c".repeat(20 << 20)
    });
    let mut store = MemoryStore::new();
    store.insert("zarr.json", serde_json::to_vec(&meta).unwrap());
    let err = block_on(open_with(Rc::new(store), "", OpenOptions::default()))
        .err()
        .expect("refused");
    assert_eq!(err.kind, ErrorKind::Metadata);
    assert!(err.message.len() < 2100, "{} characters", err.message.len());
    assert!(
        err.message.contains("zarr.json") && err.message.contains("codecs"),
        "{err}"
    );
}
