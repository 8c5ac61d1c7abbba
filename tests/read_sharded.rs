//! Partial reads of sharded arrays (tests/fixtures/codecs.zarr/sharding, written by zarr-python,
//! and tensorstore.zarr): every selection matches the whole read, and the store sees only the
//! requests a reader needs: the shard index once, then the inner chunks, nearby ones merged.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use async_trait::async_trait;
use common::DirStore;
use futures_executor::block_on;
use std::cell::RefCell;
use std::rc::Rc;
use zarr_wasm::array::ReadOptions;
use zarr_wasm::store::{ByteRange, ReadableStore};
use zarr_wasm::{open, DimSelection, Node, Result};

/// A store that records every request it is asked for.
struct Counting {
    inner: DirStore,
    log: RefCell<Vec<(String, Option<ByteRange>)>>,
}

#[async_trait(?Send)]
impl ReadableStore for Counting {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.log.borrow_mut().push((key.to_string(), None));
        self.inner.get(key).await
    }
    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.log.borrow_mut().push((key.to_string(), Some(range)));
        self.inner.get_range(key, range).await
    }
    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }
}

fn open_counting(store: &str, path: &str) -> (Rc<Counting>, zarr_wasm::Array) {
    let counting = Rc::new(Counting {
        inner: DirStore::fixtures(store),
        log: RefCell::new(Vec::new()),
    });
    let Node::Array(arr) = block_on(open(counting.clone(), path)).unwrap() else {
        panic!("{path} is a group")
    };
    counting.log.borrow_mut().clear();
    (counting, arr)
}

fn slice(start: i64, stop: i64) -> DimSelection {
    DimSelection::Slice {
        start: Some(start),
        stop: Some(stop),
        step: None,
    }
}

/// Elements of `whole` (row-major, `cols` wide, `esize` bytes each) in rows `r` and columns `c`.
fn window(
    whole: &[u8],
    cols: usize,
    esize: usize,
    r: std::ops::Range<usize>,
    c: std::ops::Range<usize>,
) -> Vec<u8> {
    let mut out = Vec::new();
    for i in r {
        out.extend_from_slice(&whole[(i * cols + c.start) * esize..(i * cols + c.end) * esize]);
    }
    out
}

#[test]
fn one_element_costs_the_index_and_one_inner_chunk() {
    for (path, suffix) in [
        ("sharding/index_end", true),
        ("sharding/index_start", false),
    ] {
        let (store, arr) = open_counting("codecs.zarr", path);
        let whole = block_on(arr.get(&[])).unwrap().bytes;
        store.log.borrow_mut().clear();
        let one = block_on(arr.get(&[DimSelection::Index(40), DimSelection::Index(45)])).unwrap();
        assert_eq!(one.bytes, window(&whole, 60, 2, 40..41, 45..46), "{path}");
        let log = store.log.borrow();
        assert_eq!(log.len(), 2, "{path}: {log:?}");
        assert!(
            log.iter().all(|(k, _)| *k == format!("{path}/c/1/1")),
            "{log:?}"
        );
        match log[0].1 {
            Some(ByteRange::Suffix(n)) => assert!(suffix && n == 4 * 4 * 16 + 4, "{path}: {log:?}"),
            Some(ByteRange::Span { offset: 0, length }) => {
                assert!(!suffix && length == 4 * 2 * 16 + 4, "{path}: {log:?}")
            }
            other => panic!("{path}: index request {other:?}"),
        }
        assert!(
            matches!(log[1].1, Some(ByteRange::Span { .. })),
            "{path}: {log:?}"
        );
    }
}

#[test]
fn adjacent_inner_chunks_are_one_request_and_the_index_is_fetched_once() {
    let (store, arr) = open_counting("codecs.zarr", "sharding/index_end");
    let whole = block_on(arr.get(&[])).unwrap().bytes;
    store.log.borrow_mut().clear();
    // Row 3 across the first shard's 4 inner chunks (columns 0..32): index + one merged range.
    let row = block_on(arr.get(&[DimSelection::Index(3), slice(0, 32)])).unwrap();
    assert_eq!(row.bytes, window(&whole, 60, 2, 3..4, 0..32));
    assert_eq!(store.log.borrow().len(), 2, "{:?}", store.log.borrow());
    // The same shard again: its index is cached, so only chunk data is requested.
    store.log.borrow_mut().clear();
    let again = block_on(arr.get(&[slice(9, 11), slice(1, 3)])).unwrap();
    assert_eq!(again.bytes, window(&whole, 60, 2, 9..11, 1..3));
    assert_eq!(store.log.borrow().len(), 1, "{:?}", store.log.borrow());
    // Two concurrent reads of a cold shard share one index request.
    let (store, arr) = open_counting("codecs.zarr", "sharding/index_end");
    let (a, b) = block_on(futures_util::future::join(
        arr.get(&[DimSelection::Index(33), DimSelection::Index(1)]),
        arr.get(&[DimSelection::Index(49), DimSelection::Index(17)]),
    ));
    assert_eq!(a.unwrap().bytes, window(&whole, 60, 2, 33..34, 1..2));
    assert_eq!(b.unwrap().bytes, window(&whole, 60, 2, 49..50, 17..18));
    let index_requests = store
        .log
        .borrow()
        .iter()
        .filter(|(_, r)| matches!(r, Some(ByteRange::Suffix(_))))
        .count();
    assert_eq!(index_requests, 1, "{:?}", store.log.borrow());
}

#[test]
fn most_of_a_shard_is_one_whole_request() {
    let (store, arr) = open_counting("codecs.zarr", "sharding/index_end");
    block_on(arr.get(&[slice(0, 32), slice(0, 32)])).unwrap();
    let log = store.log.borrow();
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0], ("sharding/index_end/c/0/0".to_string(), None));
}

#[test]
fn missing_shards_and_empty_inner_chunks_are_the_fill_value() {
    let (store, arr) = open_counting("codecs.zarr", "sharding/sparse");
    let whole = block_on(arr.get(&[])).unwrap().bytes;
    // Shard (0, 0) is missing: one index request answered "no such key", then fill.
    store.log.borrow_mut().clear();
    let missing = block_on(arr.get(&[DimSelection::Index(2), DimSelection::Index(2)])).unwrap();
    assert_eq!(u16::from_ne_bytes([missing.bytes[0], missing.bytes[1]]), 7);
    assert_eq!(store.log.borrow().len(), 1, "{:?}", store.log.borrow());
    // Shard (0, 1) holds one written region; its other inner chunks are empty.
    store.log.borrow_mut().clear();
    let empty = block_on(arr.get(&[slice(20, 22), slice(50, 52)])).unwrap();
    assert!(empty
        .bytes
        .chunks(2)
        .all(|e| u16::from_ne_bytes([e[0], e[1]]) == 7));
    assert_eq!(
        store.log.borrow().len(),
        1,
        "only the index: {:?}",
        store.log.borrow()
    );
    let written = block_on(arr.get(&[slice(3, 9), slice(40, 47)])).unwrap();
    assert_eq!(written.bytes, window(&whole, 60, 2, 3..9, 40..47));
}

#[test]
fn nested_shards_transposed_inner_chunks_and_tensorstore_read_in_parts() {
    for (store_name, path, cols, esize) in [
        ("codecs.zarr", "sharding/nested", 40usize, 4usize),
        ("codecs.zarr", "sharding/transposed_inner", 24, 8),
        ("codecs.zarr", "sharding/shards_param", 128, 2),
        ("tensorstore.zarr", "uint16_sharded_start", 20, 2),
    ] {
        let (_, arr) = open_counting(store_name, path);
        let whole = block_on(arr.get(&[])).unwrap().bytes;
        let rows = whole.len() / esize / cols;
        for (r, c) in [
            (0..1, 0..1),
            (rows - 3..rows, cols - 2..cols),
            (1..5, 3..9),
            (rows / 2..rows / 2 + 1, 0..cols),
        ] {
            let got = block_on(arr.get(&[
                slice(r.start as i64, r.end as i64),
                slice(c.start as i64, c.end as i64),
            ]))
            .unwrap();
            assert_eq!(
                got.bytes,
                window(&whole, cols, esize, r.clone(), c.clone()),
                "{path} [{r:?}, {c:?}]"
            );
        }
    }
}

/// Splitting a read for workers: whole shards where there are enough, else inner chunks; the parts
/// read separately make the whole read, and no part shares an inner chunk with another.
#[test]
fn partitions_split_shards_only_when_too_few_and_make_the_whole() {
    let (_, arr) = open_counting("codecs.zarr", "sharding/index_end"); // 50 x 60, 32 x 32 shards of 8 x 8
    let whole = block_on(arr.get(&[])).unwrap().bytes;
    let shards = arr.partition(&[], 4, 2, &ReadOptions::default()).unwrap();
    assert_eq!(shards.parts.len(), 4, "2 x 2 shards, one part each");
    let kept = arr.partition(&[], 8, 4, &ReadOptions::default()).unwrap();
    assert_eq!(
        kept.parts.len(),
        4,
        "as many shards as readers: shards stay whole"
    );
    assert!(shards.parts.iter().all(|p| p.chunks == 1));
    let inner = arr.partition(&[], 8, 8, &ReadOptions::default()).unwrap();
    assert_eq!(inner.shape, vec![50, 60]);
    assert!(
        inner.parts.len() > 4 && inner.parts.len() <= 8,
        "{}",
        inner.parts.len()
    );
    assert_eq!(
        inner.parts.iter().map(|p| p.chunks).sum::<u64>(),
        7 * 8,
        "inner chunks"
    );
    for partition in [shards, inner] {
        let mut assembled = vec![0u8; whole.len()];
        for part in &partition.parts {
            assert!(
                part.out_start[0] % 8 == 0 && part.out_start[1] % 8 == 0,
                "inner chunk edges"
            );
            let data = block_on(arr.get(&part.selection)).unwrap();
            let (rows, cols) = (part.shape[0] as usize, part.shape[1] as usize);
            for r in 0..rows {
                let to = ((part.out_start[0] as usize + r) * 60 + part.out_start[1] as usize) * 2;
                assembled[to..to + cols * 2]
                    .copy_from_slice(&data.bytes[r * cols * 2..(r + 1) * cols * 2]);
            }
        }
        assert_eq!(assembled, whole);
    }
    // A chunked (unsharded) array is split along its own chunks only.
    let (_, plain) = open_counting("v3.zarr", "layouts/many_chunks");
    let p = plain
        .partition(
            &[DimSelection::Index(5), DimSelection::All],
            64,
            2,
            &ReadOptions::default(),
        )
        .unwrap();
    assert_eq!(p.parts.len(), 16, "one row of 16 chunks");
}

/// Elements of `whole` (C order of `shape`, `esize` bytes each) in the box `ranges`.
fn sub_box(
    whole: &[u8],
    shape: &[usize],
    esize: usize,
    ranges: &[std::ops::Range<usize>],
) -> Vec<u8> {
    let mut out = Vec::new();
    let strides: Vec<usize> = (0..shape.len())
        .map(|d| shape[d + 1..].iter().product())
        .collect();
    let mut index: Vec<usize> = ranges.iter().map(|r| r.start).collect();
    if ranges.iter().any(|r| r.is_empty()) {
        return out;
    }
    loop {
        let at: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
        out.extend_from_slice(&whole[at * esize..(at + 1) * esize]);
        let mut d = shape.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < ranges[d].end {
                break;
            }
            index[d] = ranges[d].start;
        }
    }
}

/// zarr-python's `filters=[TransposeCodec]` with a sharding serializer stores shards with their
/// axes permuted (`[transpose, sharding_indexed]`): they are still read in parts, the index
/// translated to the array's axes, each inner chunk transposed on its own.
#[test]
fn shards_behind_a_transpose_are_read_in_parts() {
    // One element: the index, then one inner chunk (not the whole shard).
    let (store, arr) = open_counting("codecs.zarr", "sharding/transpose_outside");
    let whole = block_on(arr.get(&[])).unwrap().bytes;
    store.log.borrow_mut().clear();
    let one = block_on(arr.get(&[DimSelection::Index(23), DimSelection::Index(25)])).unwrap();
    assert_eq!(one.bytes, window(&whole, 44, 2, 23..24, 25..26));
    let log = store.log.borrow().clone();
    assert_eq!(log.len(), 2, "{log:?}");
    // 5 x 2 inner chunks of (4, 10) in the stored axes: 10 entries of 16 bytes and a CRC32C.
    assert_eq!(
        log[0],
        (
            "sharding/transpose_outside/c/1/1".into(),
            Some(ByteRange::Suffix(164))
        )
    );
    let shard_len = std::fs::metadata(common::fixture_path(
        "codecs.zarr/sharding/transpose_outside/c/1/1",
    ))
    .unwrap()
    .len();
    match log[1].1 {
        Some(ByteRange::Span { length, .. }) => {
            assert!(length * 5 < shard_len, "{log:?}, shard {shard_len}")
        }
        ref other => panic!("inner chunk request {other:?}"),
    }
    assert_eq!(
        arr.inner_chunk_shape(),
        Some(&[10u64, 4][..]),
        "inner chunks in the array's axes"
    );
    for (r, c) in [
        (0..1, 0..44),
        (19..41, 3..5),
        (45..50, 40..44),
        (7..33, 11..29),
    ] {
        let got = block_on(arr.get(&[
            slice(r.start as i64, r.end as i64),
            slice(c.start as i64, c.end as i64),
        ]))
        .unwrap();
        assert_eq!(
            got.bytes,
            window(&whole, 44, 2, r.clone(), c.clone()),
            "[{r:?}, {c:?}]"
        );
    }

    // Three dimensions, order [2, 0, 1], the index at the start, a missing shard (fill value).
    let (store, arr) = open_counting("codecs.zarr", "sharding/transpose_outside_3d");
    let whole = block_on(arr.get(&[])).unwrap().bytes;
    assert_eq!(arr.inner_chunk_shape(), Some(&[4u64, 4, 2][..]));
    let shape = [12usize, 10, 9];
    for ranges in [
        [0..1, 0..1, 0..1],
        [2..4, 3..9, 1..3],
        [9..12, 0..10, 8..9],
        [0..12, 5..6, 0..9],
        [6..7, 8..10, 8..9],
    ] {
        store.log.borrow_mut().clear();
        let sel: Vec<DimSelection> = ranges
            .iter()
            .map(|r| slice(r.start as i64, r.end as i64))
            .collect();
        let got = block_on(arr.get(&sel)).unwrap();
        assert_eq!(got.bytes, sub_box(&whole, &shape, 4, &ranges), "{ranges:?}");
    }
    // One element of a stored shard, cold: the index from the start, then one inner chunk.
    let (store, arr) = open_counting("codecs.zarr", "sharding/transpose_outside_3d");
    let one = [
        DimSelection::Index(10),
        DimSelection::Index(9),
        DimSelection::Index(8),
    ];
    let got = block_on(arr.get(&one)).unwrap();
    assert_eq!(
        got.bytes,
        sub_box(&whole, &shape, 4, &[10..11, 9..10, 8..9])
    );
    let log = store.log.borrow().clone();
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(
        matches!(log[0].1, Some(ByteRange::Span { offset: 0, .. })),
        "{log:?}"
    );
}

/// A shard index fetched by one reader of an array and kept by another (a pool's worker): the
/// second reads the same values and asks only for inner chunks. Shards a read fetches whole
/// need no index, and an unsharded array has none.
#[test]
fn shard_indexes_handed_to_another_reader_are_not_fetched_again() {
    let (here, arr) = open_counting("codecs.zarr", "sharding/index_end"); // 32 x 32 shards of 8 x 8
    let region = [slice(0, 16), slice(0, 16)]; // 4 of one shard's 16 inner chunks
    let indexes = block_on(arr.shard_indexes(&region)).unwrap();
    assert_eq!(indexes.len(), 1, "one shard");
    assert_eq!(indexes[0].0, "sharding/index_end/c/0/0");
    assert!(indexes[0].1.as_ref().is_some_and(|i| !i.is_empty()));
    assert!(
        matches!(
            here.log.borrow().as_slice(),
            [(_, Some(ByteRange::Suffix(_)))]
        ),
        "{:?}",
        here.log.borrow()
    );
    let expected = block_on(arr.get(&region)).unwrap().bytes;

    let (there, other) = open_counting("codecs.zarr", "sharding/index_end");
    other.keep_shard_indexes(indexes);
    assert_eq!(block_on(other.get(&region)).unwrap().bytes, expected);
    let asked = there.log.borrow();
    assert!(!asked.is_empty(), "its inner chunks are fetched");
    assert!(
        asked
            .iter()
            .all(|(_, r)| matches!(r, Some(ByteRange::Span { .. }))),
        "no index request: {asked:?}"
    );

    // Most of a shard: read whole, so no index to hand over.
    let most = [slice(0, 32), slice(0, 32)];
    assert!(block_on(arr.shard_indexes(&most)).unwrap().is_empty());
    let (_, plain) = open_counting("v3.zarr", "layouts/many_chunks");
    assert!(block_on(plain.shard_indexes(&[])).unwrap().is_empty());
}

/// Indexes handed over with a size other than every index of the array has (JS computed the
/// array's index size otherwise, or a server sent another range) are not kept: the read fetches
/// the index itself and reads right. One of the right size is kept.
#[test]
fn handed_indexes_of_the_wrong_size_are_fetched_again() {
    let (_, arr) = open_counting("codecs.zarr", "sharding/index_end");
    let region = [slice(0, 16), slice(0, 16)];
    let right = block_on(arr.shard_indexes(&region)).unwrap();
    let expected = block_on(arr.get(&region)).unwrap().bytes;
    let index = right[0].1.clone().unwrap();
    let index_requests = |log: &[(String, Option<ByteRange>)]| {
        log.iter()
            .filter(|(_, r)| matches!(r, Some(ByteRange::Suffix(_))))
            .count()
    };
    for wrong in [index[4..].to_vec(), [&index[..], &[0; 16]].concat()] {
        let (there, other) = open_counting("codecs.zarr", "sharding/index_end");
        other.keep_shard_indexes(vec![(right[0].0.clone(), Some(Rc::new(wrong)))]);
        assert_eq!(block_on(other.get(&region)).unwrap().bytes, expected);
        assert_eq!(index_requests(&there.log.borrow()), 1, "fetched again");
    }
    let (there, other) = open_counting("codecs.zarr", "sharding/index_end");
    other.keep_shard_indexes(vec![(right[0].0.clone(), Some(index))]);
    assert_eq!(block_on(other.get(&region)).unwrap().bytes, expected);
    assert_eq!(index_requests(&there.log.borrow()), 0, "kept");
}
