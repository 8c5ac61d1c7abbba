//! Zarr hierarchies inside ZIP files written by zarr-python 2 and 3 (their ZipStore) and by
//! Info-ZIP (ZIP64 records, deflated members), read through a store with range requests.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use async_trait::async_trait;
use common::{fixture_path, DirStore};
use futures_executor::block_on;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
use zarr_wasm::store::zip::ZipStore;
use zarr_wasm::store::{ByteRange, ReadableStore};
use zarr_wasm::{open, ErrorKind, Node};

/// Fixture files, with a log of the reads made of them.
struct Logged {
    inner: DirStore,
    reads: RefCell<Vec<String>>,
}

#[async_trait(?Send)]
impl ReadableStore for Logged {
    async fn get(&self, key: &str) -> zarr_wasm::Result<Option<Vec<u8>>> {
        self.reads.borrow_mut().push(format!("{key} whole"));
        self.inner.get(key).await
    }
    async fn get_range(&self, key: &str, range: ByteRange) -> zarr_wasm::Result<Option<Vec<u8>>> {
        self.reads.borrow_mut().push(format!("{key} {range:?}"));
        self.inner.get_range(key, range).await
    }
    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }
}

fn zip_store(name: &str) -> (Rc<Logged>, ZipStore) {
    let files = Rc::new(Logged {
        inner: DirStore::fixtures("zip"),
        reads: RefCell::default(),
    });
    let zip = block_on(ZipStore::open(files.clone(), name)).unwrap_or_else(|e| panic!("{e}"));
    (files, zip)
}

fn expected(manifest: &str, store: &str, path: &str) -> Vec<u8> {
    let m: Value = serde_json::from_slice(&std::fs::read(fixture_path(manifest)).unwrap()).unwrap();
    let entry = m["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["store"] == store && e["path"] == path)
        .unwrap();
    std::fs::read(fixture_path(entry["data"].as_str().unwrap())).unwrap()
}

fn read_whole(store: Rc<dyn ReadableStore>, path: &str) -> Vec<u8> {
    match block_on(open(store, path)) {
        Ok(Node::Array(a)) => block_on(a.get(&[])).unwrap().bytes,
        Ok(Node::Group(_)) => panic!("{path} is a group"),
        Err(e) => panic!("{path}: {e}"),
    }
}

#[test]
fn zipped_v2_hierarchies_read_like_their_folders() {
    for name in ["v2_zarr2.zip", "v2_zip64_deflated.zip"] {
        let (_, zip) = zip_store(name);
        let zip: Rc<dyn ReadableStore> = Rc::new(zip);
        for path in ["images/raw", "images/labels", "table"] {
            let want = expected("v2.expected.json", "v2_consolidated.zarr", path);
            assert_eq!(read_whole(zip.clone(), path), want, "{name}: {path}");
        }
        let Ok(Node::Group(root)) = block_on(open(zip.clone(), "")) else {
            panic!("{name}: no root group")
        };
        assert_eq!(
            root.children().map(|c| c.len()),
            Some(2),
            "{name}: .zmetadata read"
        );
    }
}

#[test]
fn zipped_shards_are_read_in_ranges_of_the_archive() {
    let (files, zip) = zip_store("v3_sharded_zarr3.zip");
    // The archive is smaller than the tail read for its end record: one read found everything.
    assert_eq!(files.reads.borrow().len(), 1, "{:?}", files.reads.borrow());
    let zip: Rc<dyn ReadableStore> = Rc::new(zip);
    let whole = expected("v3.expected.json", "codecs.zarr", "sharding/index_end");
    assert_eq!(read_whole(zip.clone(), "sharding/index_end"), whole);
    assert_eq!(
        read_whole(zip.clone(), "sharding/nested"),
        expected("v3.expected.json", "codecs.zarr", "sharding/nested")
    );

    let Ok(Node::Array(arr)) = block_on(open(zip.clone(), "sharding/index_start")) else {
        panic!()
    };
    files.reads.borrow_mut().clear();
    let one = block_on(arr.get(&[
        zarr_wasm::DimSelection::Index(3),
        zarr_wasm::DimSelection::Index(50),
    ]))
    .unwrap();
    let reads = files.reads.borrow().clone();
    // The shard's local header, its index, one inner chunk: all ranges, never the whole archive.
    assert!(reads.iter().all(|r| r.contains("Span")), "{reads:?}");
    assert!(reads.len() <= 3, "{reads:?}");
    let want = expected("v3.expected.json", "codecs.zarr", "sharding/index_start");
    assert_eq!(one.bytes, want[(3 * 60 + 50) * 2..(3 * 60 + 51) * 2]);

    let (_, deflated) = zip_store("v3_deflated_zarr3.zip");
    assert_eq!(read_whole(Rc::new(deflated), "sharding/index_end"), whole);
}

#[test]
fn damaged_archives_fail_with_errors_naming_them() {
    let bytes = std::fs::read(fixture_path("zip/v2_zarr2.zip")).unwrap();
    let open_damaged = |damage: &dyn Fn(&mut Vec<u8>)| {
        let mut b = bytes.clone();
        damage(&mut b);
        let mut store = zarr_wasm::store::memory::MemoryStore::new();
        store.insert("a.zip", b);
        let store: Rc<dyn ReadableStore> = Rc::new(store);
        block_on(ZipStore::open(store, "a.zip"))
    };
    let cd = bytes
        .windows(4)
        .position(|w| w == [0x50, 0x4b, 0x01, 0x02])
        .unwrap();
    let eocd = bytes
        .windows(4)
        .rposition(|w| w == [0x50, 0x4b, 0x05, 0x06])
        .unwrap();
    for (what, damage, problem) in [
        (
            "truncated",
            Box::new(|b: &mut Vec<u8>| b.truncate(b.len() - 5)) as Box<dyn Fn(&mut Vec<u8>)>,
            "no end of central directory",
        ),
        (
            "not a zip",
            Box::new(|b: &mut Vec<u8>| *b = b"hello".to_vec()),
            "no end of central directory",
        ),
        (
            "bad entry",
            Box::new(move |b: &mut Vec<u8>| b[cd] = 0),
            "no entry signature",
        ),
        (
            "huge directory",
            Box::new(move |b: &mut Vec<u8>| {
                b[eocd + 12..eocd + 16].copy_from_slice(&u32::MAX.to_le_bytes())
            }),
            "central directory",
        ),
    ] {
        let err = open_damaged(&*damage)
            .err()
            .unwrap_or_else(|| panic!("{what} opened"));
        assert!(
            err.message.contains("memory:a.zip") && err.message.contains(problem),
            "{what}: {err}"
        );
    }
    // A member whose bytes were changed fails its CRC-32 check when read whole.
    let mut store = zarr_wasm::store::memory::MemoryStore::new();
    let mut b = bytes.clone();
    let at = b.windows(9).position(|w| w == b"zarr_form").unwrap();
    b[at] = b'Z';
    store.insert("a.zip", b);
    let zip = block_on(ZipStore::open(Rc::new(store), "a.zip")).unwrap();
    let names: Vec<String> = zip.directory().names().map(str::to_string).collect();
    let err = names
        .iter()
        .find_map(|n| block_on(zip.get(n)).err())
        .expect("a member fails its check");
    assert!(
        err.message.contains("CRC-32") && err.message.contains("memory:a.zip#"),
        "{err}"
    );
    assert_eq!(
        block_on(open(Rc::new(zip), "nothing/here"))
            .err()
            .unwrap()
            .kind,
        ErrorKind::NotFound
    );
}

#[test]
fn mutated_archives_never_panic() {
    let iterations: usize = std::env::var("FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let archives: Vec<Vec<u8>> = [
        "v2_zarr2.zip",
        "v2_zip64_deflated.zip",
        "v3_deflated_zarr3.zip",
    ]
    .iter()
    .map(|n| std::fs::read(fixture_path(&format!("zip/{n}"))).unwrap())
    .collect();
    let mut rng = common::Rng(0x5eed_2161);
    let (mut opened, mut refused) = (0, 0);
    for _ in 0..iterations {
        let mut bytes = archives[rng.below(archives.len())].clone();
        for _ in 0..1 + rng.below(8) {
            let at = rng.below(bytes.len());
            match rng.below(4) {
                0 => bytes[at] ^= 1 << rng.below(8),
                1 => bytes[at] = [0, 0xff, 0x50, 0x4b][rng.below(4)],
                2 => bytes.truncate(at),
                _ => {
                    // A 32-bit field set to an extreme: sizes, offsets, counts.
                    let end = (at + 4).min(bytes.len());
                    for b in &mut bytes[at..end] {
                        *b = 0xff;
                    }
                }
            }
            if bytes.is_empty() {
                break;
            }
        }
        let mut store = zarr_wasm::store::memory::MemoryStore::new();
        store.insert("a.zip", bytes);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            match block_on(ZipStore::open(Rc::new(store), "a.zip")) {
                Ok(zip) => {
                    let names: Vec<String> = zip.directory().names().map(str::to_string).collect();
                    for n in names {
                        let _ = block_on(zip.get(&n));
                        let _ = block_on(zip.get_range(&n, ByteRange::Suffix(7)));
                    }
                    true
                }
                Err(e) => {
                    assert!(e.message.contains("a.zip"), "{e}");
                    false
                }
            }
        }));
        match result {
            Ok(true) => opened += 1,
            Ok(false) => refused += 1,
            Err(_) => panic!("a mutated archive panicked the reader"),
        }
    }
    println!("{iterations} mutated archives: {opened} opened, {refused} refused");
}
