//! Reads of large chunks let the event loop run while they decode: with a host installed (a fake
//! one whose clock says a slice of work has passed at every look, and which counts the turns it
//! gives), one 16 MiB gzip chunk, read whole, in part, on its own, or as a shard's inner chunk,
//! decodes over many turns; and an abort that arrives during one of those turns ends the read at
//! the next step, not at the end of the chunk.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::fake_host::{Abortable, FakeHost};

use futures_executor::block_on;
use serde_json::json;
use std::rc::Rc;
use zarr_wasm::host::install;
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::{open, Array, DimSelection, ErrorKind, Node, Result};

const SIDE: usize = 4096;

/// Installs a fake host on this test's thread.
fn fake_host() -> Rc<FakeHost> {
    let host = Rc::new(FakeHost::default());
    install(host.clone());
    host
}

fn array_of(store: MemoryStore, host: &FakeHost) -> Array {
    let store = Abortable {
        inner: store,
        signal: host.signal.clone(),
    };
    match block_on(open(Rc::new(store), "")).unwrap() {
        Node::Array(array) => array,
        Node::Group(_) => panic!("a group"),
    }
}

/// A 4096 x 4096 uint8 array of one gzip chunk (16 MiB decoded).
fn one_gzip_chunk(data: &[u8]) -> MemoryStore {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [SIDE, SIDE], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [SIDE, SIDE]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 6}}]
    });
    let mut store = MemoryStore::new();
    store.insert("zarr.json", serde_json::to_vec(&meta).unwrap());
    store.insert("c/0/0", common::gzip(data));
    store
}

/// An 8192 x 4096 uint8 array of one shard of two 4096 x 4096 gzip inner chunks.
fn one_shard(data: &[u8]) -> MemoryStore {
    let meta = json!({
        "zarr_format": 3, "node_type": "array", "shape": [2 * SIDE, SIDE], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2 * SIDE, SIDE]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [SIDE, SIDE],
            "codecs": [{"name": "bytes"}, {"name": "gzip", "configuration": {"level": 6}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]
        }}]
    });
    let (top, bottom) = data.split_at(SIDE * SIDE);
    let (a, b) = (common::gzip(top), common::gzip(bottom));
    let mut index = Vec::new();
    for (offset, len) in [(0, a.len()), (a.len(), b.len())] {
        index.extend((offset as u64).to_le_bytes());
        index.extend((len as u64).to_le_bytes());
    }
    let crc = crc32c::crc32c(&index);
    let shard = [a, b, index, crc.to_le_bytes().to_vec()].concat();
    let mut store = MemoryStore::new();
    store.insert("zarr.json", serde_json::to_vec(&meta).unwrap());
    store.insert("c/0/0", shard);
    store
}

/// Turns the event loop got during `read`, and what it gave.
fn turns_during<T>(host: &FakeHost, read: impl FnOnce() -> T) -> (usize, T) {
    let before = host.turns.get();
    let result = read();
    (host.turns.get() - before, result)
}

fn rows(range: std::ops::Range<i64>) -> Vec<DimSelection> {
    vec![
        DimSelection::Slice {
            start: Some(range.start),
            stop: Some(range.end),
            step: None,
        },
        DimSelection::All,
    ]
}

#[test]
fn a_sixteen_mib_gzip_chunk_lets_the_event_loop_run_while_it_decodes() {
    let host = fake_host();
    let data = common::compressible(SIDE * SIDE, 7);
    let arr = array_of(one_gzip_chunk(&data), &host);
    // Decoded 1 MiB at a time: 16 steps, with a turn between each two (every look at the clock
    // finds a slice passed). Whole, straight into the result; in part, through a chunk buffer;
    // and on its own.
    let (turns, whole) = turns_during(&host, || block_on(arr.get(&[])).unwrap());
    assert!(whole.bytes == data);
    assert!(turns >= 15, "{turns} turns reading the chunk whole");
    let (turns, part) = turns_during(&host, || block_on(arr.get(&rows(10..20))).unwrap());
    assert!(part.bytes == data[10 * SIDE..20 * SIDE]);
    assert!(turns >= 15, "{turns} turns reading part of the chunk");
    let (turns, chunk) = turns_during(&host, || block_on(arr.get_chunk(&[0, 0])).unwrap());
    assert!(chunk.bytes == data);
    assert!(turns >= 15, "{turns} turns reading the chunk on its own");
    println!("a 16 MiB gzip chunk: {turns} turns");
}

#[test]
fn a_shards_sixteen_mib_inner_chunks_let_the_event_loop_run_while_they_decode() {
    let host = fake_host();
    let data = common::compressible(2 * SIDE * SIDE, 8);
    let arr = array_of(one_shard(&data), &host);
    // One element: the index, then one inner chunk, read in part.
    let one = [DimSelection::Index(5000), DimSelection::Index(7)];
    let (turns, value) = turns_during(&host, || block_on(arr.get(&one)).unwrap());
    assert_eq!(value.bytes, [data[5000 * SIDE + 7]]);
    assert!(turns >= 15, "{turns} turns reading one inner chunk");
    // All of it: the shard read whole, its two inner chunks decoded one after the other.
    let (turns, whole) = turns_during(&host, || block_on(arr.get(&[])).unwrap());
    assert!(whole.bytes == data);
    assert!(turns >= 30, "{turns} turns reading the shard whole");
    // The shard as a chunk of the outer grid: the same, inner chunk by inner chunk.
    let (turns, chunk) = turns_during(&host, || block_on(arr.get_chunk(&[0, 0])).unwrap());
    assert!(chunk.bytes == data);
    assert!(
        turns >= 30,
        "{turns} turns reading the shard by its coordinates"
    );
}

#[test]
fn an_abort_during_a_chunk_decode_ends_the_read_at_the_next_step() {
    let host = fake_host();
    let data = common::compressible(2 * SIDE * SIDE, 9);
    let plain = array_of(one_gzip_chunk(&data[..SIDE * SIDE]), &host);
    let sharded = array_of(one_shard(&data), &host);
    let one = [DimSelection::Index(5000), DimSelection::Index(7)];
    type Read<'a> = Box<dyn Fn() -> Result<Vec<u8>> + 'a>;
    let reads: Vec<(&str, Read)> = vec![
        (
            "whole",
            Box::new(|| block_on(plain.get(&[])).map(|d| d.bytes)),
        ),
        (
            "in part",
            Box::new(|| block_on(plain.get(&rows(10..20))).map(|d| d.bytes)),
        ),
        (
            "on its own",
            Box::new(|| block_on(plain.get_chunk(&[0, 0])).map(|d| d.bytes)),
        ),
        (
            "an inner chunk",
            Box::new(|| block_on(sharded.get(&one)).map(|d| d.bytes)),
        ),
        (
            "a shard whole",
            Box::new(|| block_on(sharded.get(&[])).map(|d| d.bytes)),
        ),
        (
            "a shard by its coordinates",
            Box::new(|| block_on(sharded.get_chunk(&[0, 0])).map(|d| d.bytes)),
        ),
    ];
    for (name, read) in reads {
        host.signal.set(false);
        // The signal fires during the third turn the read gives.
        host.abort_at.set(Some(host.turns.get() + 3));
        let (turns, result) = turns_during(&host, read);
        let err = result.expect_err(name);
        assert_eq!(err.kind, ErrorKind::Aborted, "{name}: {err}");
        assert_eq!(turns, 3, "{name}: the read went on after the abort");
    }
}
