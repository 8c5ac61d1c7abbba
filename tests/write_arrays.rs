//! Writing arrays in the core (the `write` feature): selections set into plain and sharded v3
//! arrays and v2 arrays in a MemoryStore, read back by the reader value for value; chunks of
//! nothing but the fill value erased; partial chunks and shards read, modified and written back;
//! concurrent writes into one shard keep each other's chunks; a store that cannot write and a
//! codec that cannot encode refused before anything is written.
#![cfg(all(feature = "write", not(target_arch = "wasm32")))]

mod common;

use common::{open_shared, slice};
use futures_executor::block_on;
use futures_util::future::join_all;
use serde_json::{json, Value};
use std::rc::Rc;
use zarr_wasm::array::write::{WriteOptions, WriteValue};
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::{ReadableStore, WritableStore};
use zarr_wasm::{open, Array, DimSelection, ErrorKind, Node};

fn array_json(shape: &[u64], chunks: &[u64], codecs: Value, fill: Value) -> Vec<u8> {
    json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill,
        "codecs": codecs,
    })
    .to_string()
    .into_bytes()
}

fn u16s(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks_exact(2)
        .map(|b| u16::from_ne_bytes([b[0], b[1]]))
        .collect()
}

fn bytes_of(values: &[u16]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

/// The whole array, read back.
fn read_all(arr: &Array) -> Vec<u16> {
    u16s(&block_on(arr.get(&[])).unwrap().bytes)
}

fn store_with(doc: Vec<u8>) -> Rc<MemoryStore> {
    let mut store = MemoryStore::new();
    store.insert("zarr.json", doc);
    Rc::new(store)
}

const PLAIN: fn() -> Value = || {
    json!([
        {"name": "bytes", "configuration": {"endian": "big"}},
        {"name": "gzip", "configuration": {"level": 5}},
        {"name": "crc32c"}
    ])
};

const SHARDED: fn(&str) -> Value = |location| {
    json!([{
        "name": "sharding_indexed",
        "configuration": {
            "chunk_shape": [4, 4],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
            "index_location": location
        }
    }])
};

#[test]
fn a_whole_array_then_a_partial_tile_read_back_value_for_value() {
    for codecs in [PLAIN(), SHARDED("end"), SHARDED("start")] {
        // 10 x 13 in chunks (or shards) of 8 x 8: edge chunks on both axes.
        let store = store_with(array_json(&[10, 13], &[8, 8], codecs.clone(), json!(7)));
        let arr = open_shared(&store);
        // It keeps decoded chunks (and inner chunks): its reads after a write are of the write.
        arr.set_chunk_cache(1 << 20);
        let mut want: Vec<u16> = (0..130).map(|i| (i * 37 % 1000) as u16).collect();
        block_on(arr.set(&[], WriteValue::Elements(&bytes_of(&want)))).unwrap();
        assert_eq!(read_all(&arr), want, "{codecs}");
        // A tile across four chunks, in part.
        let tile: Vec<u16> = (0..12).map(|i| 5000 + i).collect();
        block_on(arr.set(
            &[slice(6, 9), slice(5, 9)],
            WriteValue::Elements(&bytes_of(&tile)),
        ))
        .unwrap();
        for r in 0..3 {
            for c in 0..4 {
                want[(6 + r) * 13 + 5 + c] = tile[r * 4 + c];
            }
        }
        assert_eq!(read_all(&arr), want, "{codecs}");
        // A fresh reader (no cache, no kept index) reads the same.
        assert_eq!(read_all(&open_shared(&store)), want, "{codecs}, reopened");
        // A scalar over a strided selection.
        let strided = DimSelection::Slice {
            start: Some(0),
            stop: Some(10),
            step: Some(3),
        };
        block_on(arr.set(
            &[strided, slice(0, 13)],
            WriteValue::Scalar(&9u16.to_ne_bytes()),
        ))
        .unwrap();
        for r in [0, 3, 6, 9] {
            for c in 0..13 {
                want[r * 13 + c] = 9;
            }
        }
        assert_eq!(read_all(&open_shared(&store)), want, "{codecs}, strided");
        // Then every shard back to the fill value (erased), and an edge tile read by the same
        // array (by its kept shard index, which the write replaced): the fill value.
        block_on(arr.set(&[], WriteValue::Scalar(&7u16.to_ne_bytes()))).unwrap();
        let tile = block_on(arr.get(&[slice(8, 10), slice(8, 10)])).unwrap();
        assert_eq!(u16s(&tile.bytes), vec![7; 4], "{codecs}, after the erase");
        assert_eq!(store.keys(), vec!["zarr.json".to_string()], "{codecs}");
    }
}

#[test]
fn chunks_of_nothing_but_the_fill_value_are_erased_unless_kept() {
    for codecs in [PLAIN(), SHARDED("end")] {
        let store = store_with(array_json(&[16, 16], &[8, 8], codecs.clone(), json!(7)));
        let arr = open_shared(&store);
        block_on(arr.set(&[], WriteValue::Scalar(&1u16.to_ne_bytes()))).unwrap();
        assert_eq!(store.keys().len(), 5, "{codecs}: 4 chunks and zarr.json");
        // One chunk set back to the fill value: erased.
        block_on(arr.set(
            &[slice(0, 8), slice(0, 8)],
            WriteValue::Scalar(&7u16.to_ne_bytes()),
        ))
        .unwrap();
        assert!(block_on(store.get("c/0/0")).unwrap().is_none(), "{codecs}");
        assert!(block_on(store.get("c/1/1")).unwrap().is_some(), "{codecs}");
        let values = read_all(&arr);
        assert_eq!(values.iter().filter(|&&v| v == 7).count(), 64, "{codecs}");
        // With writeEmptyChunks, kept.
        let keep = WriteOptions {
            write_empty_chunks: true,
            ..WriteOptions::default()
        };
        block_on(arr.set_with(
            &[slice(0, 8), slice(8, 16)],
            WriteValue::Scalar(&7u16.to_ne_bytes()),
            &keep,
        ))
        .unwrap();
        assert!(block_on(store.get("c/0/1")).unwrap().is_some(), "{codecs}");
        assert_eq!(
            read_all(&open_shared(&store))
                .iter()
                .filter(|&&v| v == 7)
                .count(),
            128
        );
    }
}

#[test]
fn inner_chunks_of_the_fill_value_are_left_out_of_their_shard() {
    let store = store_with(array_json(&[8, 8], &[8, 8], SHARDED("end"), json!(0)));
    let arr = open_shared(&store);
    // One inner chunk of four holds data.
    block_on(arr.set(
        &[slice(0, 4), slice(4, 8)],
        WriteValue::Scalar(&3u16.to_ne_bytes()),
    ))
    .unwrap();
    let shard = block_on(store.get("c/0/0")).unwrap().unwrap();
    // The index: 4 entries of 16 bytes and a crc32c; three of them absent (all ones).
    let index = &shard[shard.len() - 68..shard.len() - 4];
    let absent = index
        .chunks_exact(16)
        .filter(|e| e.iter().all(|&b| b == 0xff))
        .count();
    assert_eq!(absent, 3);
    assert_eq!(read_all(&arr).iter().filter(|&&v| v == 3).count(), 16);
}

/// A MemoryStore whose every read and write waits one turn first (as a real store's do), so that
/// concurrent writes interleave.
struct Yielding(MemoryStore);

/// Pending once, then ready.
struct OneTurn(bool);

impl std::future::Future for OneTurn {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

#[async_trait::async_trait(?Send)]
impl ReadableStore for Yielding {
    async fn get(&self, key: &str) -> zarr_wasm::Result<Option<Vec<u8>>> {
        OneTurn(false).await;
        self.0.get(key).await
    }
    async fn get_range(
        &self,
        key: &str,
        range: zarr_wasm::store::ByteRange,
    ) -> zarr_wasm::Result<Option<Vec<u8>>> {
        OneTurn(false).await;
        self.0.get_range(key, range).await
    }
    fn locate(&self, key: &str) -> String {
        self.0.locate(key)
    }
    fn writable(&self) -> Option<&dyn WritableStore> {
        Some(self)
    }
}

#[async_trait::async_trait(?Send)]
impl WritableStore for Yielding {
    async fn set(&self, key: &str, value: Vec<u8>) -> zarr_wasm::Result<()> {
        OneTurn(false).await;
        self.0.set(key, value).await
    }
    async fn erase(&self, key: &str) -> zarr_wasm::Result<()> {
        OneTurn(false).await;
        self.0.erase(key).await
    }
    async fn erase_prefix(&self, prefix: &str) -> zarr_wasm::Result<()> {
        self.0.erase_prefix(prefix).await
    }
}

#[test]
fn concurrent_writes_into_one_shard_keep_each_others_chunks() {
    // 64 writes of one inner chunk each into a shard of 8 x 8 inner chunks, all at once.
    let store = store_with(json!({
        "zarr_format": 3, "node_type": "array", "shape": [32, 32], "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [32, 32]}},
        "chunk_key_encoding": {"name": "default"},
        "fill_value": 0,
        "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4, 4],
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]
    }).to_string().into_bytes());
    let store = Rc::new(Yielding((*store).clone()));
    let arr = match block_on(open(store.clone(), "")).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => panic!("a group"),
    };
    let writes = (0..64i64).map(|i| {
        let (r, c) = (i / 8 * 4, i % 8 * 4);
        let value = (i + 1) as u16;
        let arr = &arr;
        async move {
            arr.set(
                &[slice(r, r + 4), slice(c, c + 4)],
                WriteValue::Scalar(&value.to_ne_bytes()),
            )
            .await
        }
    });
    for result in block_on(join_all(writes)) {
        result.unwrap();
    }
    let reopened = match block_on(open(store.clone(), "")).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => panic!("a group"),
    };
    let values = read_all(&reopened);
    for i in 0..64usize {
        let (r, c) = (i / 8 * 4, i % 8 * 4);
        assert_eq!(values[r * 32 + c], (i + 1) as u16, "inner chunk {i}");
    }
}

/// A MemoryStore whose writes go through `W` (how a failing store writes); its reads and erases
/// are the MemoryStore's.
struct Faulty<W> {
    inner: MemoryStore,
    writes: W,
}

/// How a `Faulty` store writes a value into `inner`.
#[async_trait::async_trait(?Send)]
trait Writes {
    async fn set(&self, inner: &MemoryStore, key: &str, value: Vec<u8>) -> zarr_wasm::Result<()>;
}

#[async_trait::async_trait(?Send)]
impl<W: Writes> ReadableStore for Faulty<W> {
    async fn get(&self, key: &str) -> zarr_wasm::Result<Option<Vec<u8>>> {
        self.inner.get(key).await
    }
    async fn get_range(
        &self,
        key: &str,
        range: zarr_wasm::store::ByteRange,
    ) -> zarr_wasm::Result<Option<Vec<u8>>> {
        self.inner.get_range(key, range).await
    }
    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }
    fn writable(&self) -> Option<&dyn WritableStore> {
        Some(self)
    }
}

#[async_trait::async_trait(?Send)]
impl<W: Writes> WritableStore for Faulty<W> {
    async fn set(&self, key: &str, value: Vec<u8>) -> zarr_wasm::Result<()> {
        self.writes.set(&self.inner, key, value).await
    }
    async fn erase(&self, key: &str) -> zarr_wasm::Result<()> {
        self.inner.erase(key).await
    }
    async fn erase_prefix(&self, prefix: &str) -> zarr_wasm::Result<()> {
        self.inner.erase_prefix(prefix).await
    }
}

/// Writes that take a few turns of the executor, the write of `refused` failing at once,
/// counted as begun and ended.
struct RefusingOne {
    refused: &'static str,
    begun: std::cell::Cell<u32>,
    ended: std::cell::Cell<u32>,
}

#[async_trait::async_trait(?Send)]
impl Writes for RefusingOne {
    async fn set(&self, inner: &MemoryStore, key: &str, value: Vec<u8>) -> zarr_wasm::Result<()> {
        if key == self.refused {
            return Err(zarr_wasm::ZarrError::store(key, "no room"));
        }
        self.begun.set(self.begun.get() + 1);
        for _ in 0..4 {
            OneTurn(false).await;
        }
        let written = inner.set(key, value).await;
        self.ended.set(self.ended.get() + 1);
        written
    }
}

/// Writes that, once `armed`, store the value and then fail (a store that failed after its
/// write landed: a timeout on the answer, a connection cut after the upload).
struct StoresThenFails {
    armed: std::cell::Cell<bool>,
}

#[async_trait::async_trait(?Send)]
impl Writes for StoresThenFails {
    async fn set(&self, inner: &MemoryStore, key: &str, value: Vec<u8>) -> zarr_wasm::Result<()> {
        inner.set(key, value).await?;
        match self.armed.get() {
            true => Err(zarr_wasm::ZarrError::store(key, "no answer")),
            false => Ok(()),
        }
    }
}

#[test]
fn a_failed_write_returns_after_the_writes_under_way_have_ended_and_begins_no_more() {
    // 64 chunks, 16 at a time; the store refuses the sixth.
    let mut inner = MemoryStore::new();
    inner.insert(
        "zarr.json",
        array_json(&[64, 4], &[1, 4], PLAIN(), json!(0)),
    );
    let store = Rc::new(Faulty {
        inner,
        writes: RefusingOne {
            refused: "c/5/0",
            begun: 0.into(),
            ended: 0.into(),
        },
    });
    let arr = match block_on(open(store.clone(), "")).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => panic!("a group"),
    };
    let values: Vec<u16> = (1..=256).collect();
    let err = block_on(arr.set(&[], WriteValue::Elements(&bytes_of(&values)))).unwrap_err();
    assert!(err.to_string().contains("c/5/0"), "{err}");
    let (begun, ended) = (store.writes.begun.get(), store.writes.ended.get());
    assert_eq!(
        begun, ended,
        "every write begun had ended when set returned"
    );
    assert!(begun < 63, "writes stopped at the failure ({begun} begun)");
    // What was written is whole: each chunk holds its values or none.
    let stored = read_all(&arr);
    for (row, got) in stored.chunks(4).enumerate() {
        let want = &values[row * 4..row * 4 + 4];
        assert!(got == want || got == [0; 4], "row {row}: {got:?}");
    }
}

#[test]
fn a_failed_write_leaves_no_stale_shard_index_or_chunk_behind() {
    // A shard of 4 x 4 inner chunks, compressed (each set changes where its inner chunks lie),
    // and a plain chunked array; each written, read (so that its index or chunk is kept), then
    // written again through a store that stores the value and fails. The node then reads what
    // the store holds.
    for codecs in [SHARDED("end"), PLAIN()] {
        let mut inner = MemoryStore::new();
        inner.insert(
            "zarr.json",
            array_json(&[16, 16], &[16, 16], codecs.clone(), json!(0)),
        );
        let store = Rc::new(Faulty {
            inner,
            writes: StoresThenFails {
                armed: false.into(),
            },
        });
        let arr = match block_on(open(store.clone(), "")).unwrap() {
            Node::Array(a) => a,
            Node::Group(_) => panic!("a group"),
        };
        arr.set_chunk_cache(1 << 20);
        block_on(arr.set(&[], WriteValue::Scalar(&3u16.to_ne_bytes()))).unwrap();
        assert_eq!(read_all(&arr), vec![3; 256], "{codecs}");
        store.writes.armed.set(true);
        let noisy: Vec<u16> = (0..256u32).map(|i| (i * 7919 % 65521) as u16).collect();
        let err = block_on(arr.set(&[], WriteValue::Elements(&bytes_of(&noisy)))).unwrap_err();
        assert!(err.to_string().contains("no answer"), "{err}");
        assert_eq!(
            read_all(&arr),
            noisy,
            "{codecs}: the node reads what the store holds"
        );
    }
}

#[test]
fn values_of_the_wrong_size_and_unwritable_arrays_are_refused_before_anything_is_written() {
    let store = store_with(array_json(&[4, 4], &[2, 2], PLAIN(), json!(0)));
    let arr = open_shared(&store);
    let err = block_on(arr.set(&[], WriteValue::Elements(&[0; 31]))).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Selection);
    assert!(
        err.message.contains("31 bytes") && err.message.contains("needs 32"),
        "{err}"
    );
    assert_eq!(store.keys().len(), 1);
    // A codec without an encoder: refused, naming it.
    let store = store_with(array_json(
        &[4],
        &[2],
        json!([{"name": "bytes"}, {"name": "numcodecs.lzma", "configuration": {"format": 1}}]),
        json!(0),
    ));
    let arr = open_shared(&store);
    let err = block_on(arr.set(&[], WriteValue::Scalar(&[1, 0]))).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Unsupported);
    assert!(err.message.contains("numcodecs.lzma"), "{err}");
    assert_eq!(store.keys().len(), 1);
}

#[test]
fn attributes_are_replaced_and_nodes_erased_with_everything_below() {
    use zarr_wasm::hierarchy::write::{
        create_array, create_group, erase, set_attributes, ArraySpec,
    };
    for format in [3u8, 2] {
        let store = Rc::new(MemoryStore::new());
        block_on(create_group(store.clone(), "g", None, Some(format), false)).unwrap();
        let spec = ArraySpec {
            zarr_format: Some(format),
            shape: vec![4],
            data_type: "uint8".into(),
            chunks: vec![2],
            ..ArraySpec::default()
        };
        let arr = block_on(create_array(store.clone(), "g/a", &spec)).unwrap();
        block_on(arr.set(&[], WriteValue::Scalar(&[5]))).unwrap();
        // Creating it again is refused, unless asked to overwrite.
        let err = block_on(create_array(store.clone(), "g/a", &spec))
            .err()
            .unwrap();
        assert!(err.message.contains("overwrite"), "{err}");
        let attrs = serde_json::Map::from_iter([("k".to_string(), json!([1, "two"]))]);
        block_on(set_attributes(&*store, "g/a", &attrs)).unwrap();
        block_on(set_attributes(&*store, "g", &attrs)).unwrap();
        for path in ["g/a", "g"] {
            let node = block_on(open(store.clone(), path)).unwrap();
            let got = match &node {
                Node::Array(a) => a.metadata().attributes.clone(),
                Node::Group(g) => g.metadata().attributes.clone(),
            };
            assert_eq!(got, attrs, "v{format} {path}");
        }
        // The array's values survive the attributes' change.
        let reopened = match block_on(open(store.clone(), "g/a")).unwrap() {
            Node::Array(a) => a,
            Node::Group(_) => panic!("a group"),
        };
        assert_eq!(block_on(reopened.get(&[])).unwrap().bytes, vec![5; 4]);
        // Erasing the group erases the array below it too; the root stays.
        block_on(erase(&*store, "g")).unwrap();
        let left = store.keys();
        assert!(
            left.iter().all(|k| !k.starts_with("g/")),
            "v{format}: {left:?}"
        );
        assert!(!left.is_empty(), "v{format}: the root group stays");
        assert_eq!(
            block_on(open(store.clone(), "g")).err().map(|e| e.kind),
            Some(ErrorKind::NotFound)
        );
    }
}

#[test]
fn dimension_names_are_written_in_v3_and_as_xarrays_attribute_in_v2() {
    use zarr_wasm::hierarchy::write::{create_array, ArraySpec};
    for format in [3u8, 2] {
        let store = Rc::new(MemoryStore::new());
        let spec = ArraySpec {
            zarr_format: Some(format),
            shape: vec![4, 6],
            data_type: "uint8".into(),
            chunks: vec![2, 3],
            dimension_names: Some(vec![Some("y".into()), Some("x".into())]),
            ..ArraySpec::default()
        };
        block_on(create_array(store.clone(), "a", &spec)).unwrap();
        let Node::Array(arr) = block_on(open(store.clone(), "a")).unwrap() else {
            panic!("an array")
        };
        let names = arr.metadata().dimension_names.clone();
        assert_eq!(
            names,
            Some(vec![Some("y".into()), Some("x".into())]),
            "v{format}"
        );
        if format == 2 {
            let attrs = block_on(store.get("a/.zattrs")).unwrap().unwrap();
            let attrs: Value = serde_json::from_slice(&attrs).unwrap();
            assert_eq!(attrs["_ARRAY_DIMENSIONS"], json!(["y", "x"]));
            // A dimension without a name has no place there: refused, before anything is stored.
            let spec = ArraySpec {
                dimension_names: Some(vec![Some("y".into()), None]),
                ..spec
            };
            let store = Rc::new(MemoryStore::new());
            let err = block_on(create_array(store.clone(), "b", &spec))
                .err()
                .unwrap();
            assert!(err.message.contains("_ARRAY_DIMENSIONS"), "{err}");
            assert!(store.keys().is_empty());
        }
    }
}
