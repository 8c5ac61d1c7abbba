//! Test support: a store over a directory of the committed fixtures.
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]
// Each test binary uses a different part of this module.
#![allow(dead_code)]

pub mod counting;
pub mod fake_host;
pub mod vectors;

use async_trait::async_trait;
use futures_executor::block_on;
use serde_json::Value;
use std::path::PathBuf;
use std::rc::Rc;
use zarr_wasm::data_type::variable::item_ranges;
use zarr_wasm::data_type::{narrow, DataType};
use zarr_wasm::hierarchy::node::{open_with, OpenOptions};
use zarr_wasm::limits::Limits;
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::{ByteRange, ReadableStore};
use zarr_wasm::{open, Array, Node, Result};

pub struct DirStore {
    root: PathBuf,
}

impl DirStore {
    /// The directory `root`, read as a store.
    pub fn at(root: PathBuf) -> DirStore {
        DirStore { root }
    }

    pub fn fixtures(name: &str) -> DirStore {
        DirStore {
            root: PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures")
                .join(name),
        }
    }
}

#[async_trait(?Send)]
impl ReadableStore for DirStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(std::fs::read(self.root.join(key)).ok())
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        Ok(self.get(key).await?.map(|v| range.cut(&v).to_vec()))
    }

    fn locate(&self, key: &str) -> String {
        format!("file:{}", self.root.join(key).display())
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        let Ok(entries) = std::fs::read_dir(self.root.join(prefix)) else {
            return Ok(None);
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        names.sort();
        Ok(Some(names))
    }
}

/// A fixture store that records the keys asked for (how nodes are found, what opening costs).
pub struct LoggedStore {
    inner: DirStore,
    keys: std::cell::RefCell<Vec<String>>,
}

impl LoggedStore {
    pub fn new(store: &str) -> Rc<LoggedStore> {
        Rc::new(LoggedStore {
            inner: DirStore::fixtures(store),
            keys: std::cell::RefCell::default(),
        })
    }

    /// The keys asked for since the last call, sorted (reads run concurrently).
    pub fn take(&self) -> Vec<String> {
        let mut keys = std::mem::take(&mut *self.keys.borrow_mut());
        keys.sort();
        keys
    }
}

#[async_trait(?Send)]
impl ReadableStore for LoggedStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.keys.borrow_mut().push(key.to_string());
        self.inner.get(key).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.keys.borrow_mut().push(key.to_string());
        self.inner.get_range(key, range).await
    }

    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }
}

pub fn fixture_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
/// Every file below `dir`, in `files`.
pub fn walk(dir: &std::path::Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, files);
        } else {
            files.push(path);
        }
    }
}

/// How many mutated inputs a fuzzing test tries: `FUZZ_ITERS`, or 3000.
/// A fuzz test's iterations and seed: `FUZZ_ITERS` and `FUZZ_SEED` where set, else the test's own.
pub fn fuzz_settings(iterations: usize, seed: u64) -> (usize, u64) {
    let var = |name| std::env::var(name).ok();
    (
        var("FUZZ_ITERS")
            .and_then(|v| v.parse().ok())
            .unwrap_or(iterations),
        var("FUZZ_SEED")
            .and_then(|v| v.parse().ok())
            .unwrap_or(seed),
    )
}

pub fn iterations() -> usize {
    std::env::var("FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000)
}

pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Compares element bytes, treating NaNs of a float type as equal to each other.
fn same_values(dtype: &str, got: &[u8], want: &[u8]) -> bool {
    let same_floats = |size: usize| {
        got.len() == want.len()
            && got.chunks(size).zip(want.chunks(size)).all(|(a, b)| {
                let nan = |x: &[u8]| match size {
                    4 => f32::from_le_bytes(x.try_into().unwrap()).is_nan(),
                    _ => f64::from_le_bytes(x.try_into().unwrap()).is_nan(),
                };
                a == b || (nan(a) && nan(b))
            })
    };
    let narrow_float = ["bfloat16", "float8_", "float6_", "float4_", "complex_"];
    // Object elements are JSON texts: the same values, whatever the spelling (Python escapes
    // differently and writes floats its own way).
    let json_items = |layout: &[u8]| -> Option<Vec<Value>> {
        let n = u32::from_le_bytes(layout.get(..4)?.try_into().ok()?) as usize;
        item_ranges(layout, n)
            .ok()?
            .into_iter()
            .map(|r| serde_json::from_slice(&layout[r]).ok())
            .collect()
    };
    match dtype {
        "object" => json_items(got).is_some() && json_items(got) == json_items(want),
        "float64" => same_floats(8),
        "float32" => same_floats(4),
        _ if narrow_float.iter().any(|p| dtype.starts_with(p)) => same_floats(4),
        _ => got == want,
    }
}

/// A result's elements as users get them: the narrow types widened (floats to float32, little
/// endian; 4- and 2-bit integers to a byte each), the others as they are.
fn widened(data_type: DataType, bytes: &[u8]) -> Vec<u8> {
    let floats = |format| {
        narrow::widen_floats(format, bytes)
            .unwrap()
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect()
    };
    match data_type {
        DataType::Narrow(format) => floats(Some(format)),
        DataType::NarrowComplex(format) => floats(format),
        DataType::NarrowInt(int) => bytes.iter().map(|&b| int.value(b) as u8).collect(),
        _ => bytes.to_vec(),
    }
}

/// Reads every array a manifest lists (tests/fixtures/<name>) through the core and compares it
/// with the values its writer recorded; returns how many arrays it checked.
pub fn check_manifest(name: &str) -> usize {
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(fixture_path(name)).unwrap()).unwrap();
    let arrays = manifest["arrays"].as_array().unwrap();
    for entry in arrays {
        let path = entry["path"].as_str().unwrap();
        let store = Rc::new(DirStore::fixtures(entry["store"].as_str().unwrap()));
        let arr = match block_on(open(store, path)) {
            Ok(Node::Array(a)) => a,
            Ok(Node::Group(_)) => panic!("{path} is a group"),
            Err(e) => panic!("{path}: {e}"),
        };
        let format = entry["zarr_format"].as_u64().unwrap_or(3);
        assert_eq!(arr.metadata().zarr_format as u64, format, "{path}");
        assert_eq!(
            arr.data_type().name(),
            entry["dtype"].as_str().unwrap(),
            "{path}"
        );
        let shape: Vec<u64> = entry["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(arr.shape(), &shape[..], "{path}");
        let data = block_on(arr.get(&[])).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(data.shape, shape, "{path}");
        let want = std::fs::read(fixture_path(entry["data"].as_str().unwrap())).unwrap();
        let got = match &data.items {
            // Variable-length results are compared in the manifest's vlen layout.
            Some(items) => {
                let mut out = ((data.bytes.len() / 8) as u32).to_le_bytes().to_vec();
                for handle in data.bytes.chunks(8) {
                    let item = items.resolve(handle).unwrap();
                    out.extend((item.len() as u32).to_le_bytes());
                    out.extend(item);
                }
                out
            }
            None => widened(data.data_type, &data.bytes),
        };
        assert!(
            same_values(entry["dtype"].as_str().unwrap(), &got, &want),
            "{}/{path}: values differ ({} bytes, {} expected; the first difference at byte {:?})",
            entry["store"],
            got.len(),
            want.len(),
            got.iter().zip(&want).position(|(a, b)| a != b)
        );
    }
    arrays.len()
}

/// The array at the root of `store`, opened with `limits`.
pub fn open_array(store: MemoryStore, limits: Limits) -> Array {
    let options = OpenOptions {
        limits,
        ..OpenOptions::default()
    };
    match block_on(open_with(Rc::new(store), "", options)).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => panic!("a group"),
    }
}

/// The array at the root of `store`, which the test keeps to look at what was written.
pub fn open_shared(store: &Rc<MemoryStore>) -> Array {
    match block_on(open(store.clone(), "")).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => panic!("a group"),
    }
}

/// The slice `start..stop` of one dimension.
pub fn slice(start: i64, stop: i64) -> zarr_wasm::DimSelection {
    zarr_wasm::DimSelection::Slice {
        start: Some(start),
        stop: Some(stop),
        step: None,
    }
}

/// `len` bytes that compress about tenfold: runs of small values, as images of counts have.
pub fn compressible(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::with_capacity(len + 64);
    while out.len() < len {
        let x = rng.next();
        let value = (x >> 8) as u8 & 0x0f;
        out.extend((0..x % 64).map(|i| value.wrapping_add((i % 3) as u8)));
    }
    out.truncate(len);
    out
}

/// `data` gzipped by zlib (C, through flate2), level 6.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// `body`, or its `range`, as an HTTP server answers a request for it (for the fake HTTP clients
/// of the store tests).
pub fn http_answer(
    body: Vec<u8>,
    range: Option<ByteRange>,
) -> zarr_wasm::store::http::HttpResponse {
    use zarr_wasm::store::http::HttpResponse;
    match range {
        None => HttpResponse {
            status: 200,
            body,
            ..Default::default()
        },
        Some(range) => {
            let at = range.resolve(body.len() as u64);
            HttpResponse {
                status: 206,
                body: range.cut(&body).to_vec(),
                content_range: Some(format!(
                    "bytes {}-{}/{}",
                    at.start,
                    at.end.max(1) - 1,
                    body.len()
                )),
                ..Default::default()
            }
        }
    }
}

/// The python of .venv-readers (zarr-python, numcodecs' C codecs, tensorstore), which
/// scripts/readers_venv.sh makes where it is missing or stale.
pub fn readers_python() -> String {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let venv = std::process::Command::new("bash")
        .arg(repo.join("scripts/readers_venv.sh"))
        .output()
        .expect("bash runs scripts/readers_venv.sh");
    assert!(
        venv.status.success(),
        "scripts/readers_venv.sh failed: {}",
        String::from_utf8_lossy(&venv.stderr)
    );
    String::from_utf8(venv.stdout).unwrap().trim().to_string()
}
