//! Writes `tests/fixtures/zarrs.zarr`: arrays with the zarr-extensions registry's codecs that
//! zarrs (the Rust Zarr library, pinned in Cargo.toml) writes and no Python writer does
//! (`bitround` under its registry name, on integers too; `reshape`). Each array's metadata is
//! given as the registry spells it; zarrs builds the array from it, encodes the data, writes its
//! own `zarr.json`, and reads everything back for the expected values
//! (`tests/fixtures/zarrs.expected.json` and `zarrs.expected/`, in the manifests' format).
//!
//! Run by `bash scripts/make_fixtures.sh zarrs`.

use serde_json::{json, Value};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use zarrs::array::{Array, ArrayMetadata, Element, ElementOwned};
use zarrs::filesystem::FilesystemStore;

type Error = Box<dyn std::error::Error>;

struct Writer {
    store: Arc<FilesystemStore>,
    fixtures: PathBuf,
    entries: Vec<Value>,
}

impl Writer {
    /// Writes `data` (C order, the whole array) into a new array at `path` described by
    /// `metadata`, leaving the chunks in `missing` unwritten (fill value), and records what zarrs
    /// reads back.
    fn array<T: Element + ElementOwned + ToLe>(
        &mut self,
        path: &str,
        metadata: Value,
        data: Vec<T>,
        skip: Option<Vec<Range<u64>>>,
    ) -> Result<(), Error> {
        let shape: Vec<u64> = serde_json::from_value(metadata["shape"].clone())?;
        let metadata: ArrayMetadata = serde_json::from_value(metadata)?;
        let array = Array::new_with_metadata(self.store.clone(), &format!("/{path}"), metadata)?;
        array.store_metadata()?;
        let whole: Vec<Range<u64>> = shape.iter().map(|&n| 0..n).collect();
        array.store_array_subset(&whole, &data)?;
        if let Some(region) = skip {
            // Chunks erased after writing: read back as the fill value.
            let chunks = array.chunks_in_array_subset(&region)?.expect("a regular grid");
            for chunk in chunks.indices().iter() {
                array.erase_chunk(&chunk)?;
            }
        }
        let back: Vec<T> = array.retrieve_array_subset(&whole)?;
        let bin = format!("zarrs.expected/zarrs__{}.bin", path.replace('/', "__"));
        let mut bytes = Vec::new();
        back.iter().for_each(|v| v.to_le(&mut bytes));
        std::fs::write(self.fixtures.join(&bin), bytes)?;
        let written: Value =
            serde_json::from_slice(&std::fs::read(self.fixtures.join("zarrs.zarr").join(path).join("zarr.json"))?)?;
        self.entries.push(json!({
            "store": "zarrs.zarr",
            "path": path,
            "writer": "zarrs 0.23.14",
            "dtype": written["data_type"],
            "shape": shape,
            "chunks": written["chunk_grid"]["configuration"]["chunk_shape"],
            "fill_value": written["fill_value"],
            "data": bin,
            "attrs": written.get("attributes").cloned().unwrap_or(json!({})),
            "dimension_names": null,
        }));
        Ok(())
    }
}

/// Little-endian bytes of an element, as the manifests' `.bin` files hold them.
trait ToLe {
    fn to_le(&self, out: &mut Vec<u8>);
}

macro_rules! to_le {
    ($($t:ty),*) => {$(impl ToLe for $t {
        fn to_le(&self, out: &mut Vec<u8>) { out.extend(self.to_le_bytes()) }
    })*};
}
to_le!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

/// A v3 array's metadata with a regular grid and the default key encoding.
fn metadata(shape: &[u64], chunks: &[u64], data_type: &str, fill: Value, codecs: Value) -> Value {
    json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill,
        "codecs": codecs,
    })
}

fn main() -> Result<(), Error> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let root = fixtures.join("zarrs.zarr");
    if root.exists() {
        std::fs::remove_dir_all(&root)?;
    }
    std::fs::create_dir_all(fixtures.join("zarrs.expected"))?;
    std::fs::create_dir_all(&root)?;
    std::fs::write(root.join("zarr.json"), r#"{"zarr_format": 3, "node_type": "group", "attributes": {}}"#)?;
    let mut w = Writer {
        store: Arc::new(FilesystemStore::new(&root)?),
        fixtures: fixtures.clone(),
        entries: Vec::new(),
    };
    let le = json!({"name": "bytes", "configuration": {"endian": "little"}});
    let be = json!({"name": "bytes", "configuration": {"endian": "big"}});

    // bitround under its registry name: floats (mantissa bits) and integers (bits from the
    // highest set bit), the registry's sample values among others.
    let floats: Vec<f32> = [0.0, 0.1, 1.2, 12.3, 123.4, 1234.5, f32::NAN, f32::INFINITY, f32::NEG_INFINITY]
        .into_iter()
        .chain((0..91).map(|i| (i as f32 * 0.37).sin() * 1000.0))
        .collect();
    let bitround = |keepbits: u32, then: &Value| json!([{"name": "bitround", "configuration": {"keepbits": keepbits}}, then]);
    w.array("bitround/float32", metadata(&[100], &[30], "float32", json!(0.0), bitround(3, &le)), floats, None)?;
    let ints: Vec<u8> = [0u8, 1, 10, 11, 100, 123, 200, 208, 209, 255].into_iter().chain((0..90).map(|i| (i * 37 % 256) as u8)).collect();
    w.array("bitround/uint8", metadata(&[100], &[32], "uint8", json!(7), bitround(3, &le)), ints, None)?;
    let wide: Vec<i64> = (0..60).map(|i: i64| (i - 30) * 123_456_789_013 + i * i * 7).collect();
    w.array("bitround/int64", metadata(&[6, 10], &[4, 4], "int64", json!(1024), bitround(9, &be)), wide, Some(vec![4..6, 8..10]))?;
    let doubles: Vec<f64> = (0..64).map(|i| (i as f64).sqrt() * 1e-3 - 0.004).collect();
    w.array(
        "bitround/float64_gzip",
        metadata(&[8, 8], &[8, 8], "float64", json!("NaN"), json!([{"name": "bitround", "configuration": {"keepbits": 7}}, le, {"name": "gzip", "configuration": {"level": 5}}])),
        doubles,
        None,
    )?;

    // reshape: sizes given as numbers, as input dimensions, and -1; followed by compressors
    // and by sharding (which then works in the reshaped chunk's dimensions).
    let volume: Vec<u16> = (0..(12 * 10 * 6)).map(|i: u32| (i * 7 % 65521) as u16).collect();
    let reshape = |shape: Value| json!({"name": "reshape", "configuration": {"shape": shape}});
    w.array(
        "reshape/dims",
        metadata(&[12, 10, 6], &[4, 5, 3], "uint16", json!(9), json!([reshape(json!([[0, 1], [2]])), le, {"name": "zstd", "configuration": {"level": 3, "checksum": false}}])),
        volume.clone(),
        Some(vec![8..12, 5..10, 3..6]),
    )?;
    w.array(
        "reshape/minus_one",
        metadata(&[12, 10, 6], &[4, 5, 3], "uint16", json!(9), json!([reshape(json!([-1])), be])),
        volume.clone(),
        None,
    )?;
    w.array(
        "reshape/sizes_then_transpose",
        metadata(&[12, 10, 6], &[4, 5, 3], "uint16", json!(0), json!([reshape(json!([[0], 15])), {"name": "transpose", "configuration": {"order": [1, 0]}}, le])),
        volume.clone(),
        None,
    )?;
    w.array(
        "reshape/sharded",
        metadata(&[12, 10, 6], &[4, 10, 6], "uint16", json!(1), json!([reshape(json!([[0, 1], [2]])), {"name": "sharding_indexed", "configuration": {
            "chunk_shape": [10, 3],
            "codecs": [le, {"name": "crc32c"}],
            "index_codecs": [le, {"name": "crc32c"}],
            "index_location": "end"
        }}])),
        volume,
        Some(vec![8..12, 0..10, 0..6]),
    )?;
    let points: Vec<f32> = (0..(20 * 3)).map(|i| i as f32 * 0.25 - 3.0).collect();
    w.array(
        "reshape/points",
        metadata(&[20, 3], &[8, 3], "float32", json!(-1.5), json!([reshape(json!([-1])), le, {"name": "gzip", "configuration": {"level": 1}}])),
        points,
        None,
    )?;

    let manifest = json!({"arrays": w.entries, "groups": []});
    std::fs::write(fixtures.join("zarrs.expected.json"), serde_json::to_string_pretty(&manifest)? + "\n")?;
    println!("wrote {} arrays to {}", w.entries.len(), root.display());
    Ok(())
}
