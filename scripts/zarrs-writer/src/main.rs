//! Writes `tests/fixtures/zarrs.zarr`: arrays with the zarr-extensions registry's codecs that
//! zarrs (the Rust Zarr library, pinned in Cargo.toml) writes and no Python writer does
//! (`bitround` under its registry name, on integers too; `reshape`; `packbits`; `zfp`, whose feature builds
//! the ZFP C library: cmake and libclang, see make_fixtures.sh). Each array's metadata is
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

impl ToLe for bool {
    fn to_le(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self))
    }
}

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

    // zfp: each mode, the registry's number types (8/16-bit and unsigned integers promoted),
    // 1 to 4 dimensions, edge chunks, a missing chunk, and inside a shard.
    let zfp = |config: Value| json!([{"name": "zfp", "configuration": config}]);
    let field: Vec<f32> = (0..(40 * 30)).map(|i| ((i % 40) as f32 * 0.3).sin() * ((i / 40) as f32 * 0.2).cos() * 50.0).collect();
    w.array(
        "zfp/float32_rate_2d",
        metadata(&[30, 40], &[16, 16], "float32", json!(0.0), zfp(json!({"mode": "fixed_rate", "rate": 0.75}))),
        field.clone(),
        Some(vec![16..30, 32..40]),
    )?;
    w.array(
        "zfp/float32_accuracy_1d",
        metadata(&[1200], &[500], "float32", json!("NaN"), zfp(json!({"mode": "fixed_accuracy", "tolerance": 0.01}))),
        field.clone(),
        None,
    )?;
    let volume: Vec<f64> = (0..(9 * 10 * 11)).map(|i| (i as f64 * 0.01).exp().ln_1p() * 1e5 - (i % 7) as f64).collect();
    w.array(
        "zfp/float64_precision_3d",
        metadata(&[9, 10, 11], &[4, 8, 8], "float64", json!(-1.0), zfp(json!({"mode": "fixed_precision", "precision": 24}))),
        volume.clone(),
        None,
    )?;
    w.array(
        "zfp/float64_expert_3d",
        metadata(&[9, 10, 11], &[9, 10, 11], "float64", json!(0.0), zfp(json!({"mode": "expert", "minbits": 64, "maxbits": 2000, "maxprec": 30, "minexp": -20}))),
        volume,
        None,
    )?;
    let bytes_u8: Vec<u8> = (0..(24 * 20)).map(|i: u32| ((i * 7) % 256) as u8).collect();
    w.array(
        "zfp/uint8_reversible_2d",
        metadata(&[24, 20], &[8, 8], "uint8", json!(3), zfp(json!({"mode": "reversible"}))),
        bytes_u8,
        Some(vec![16..24, 16..20]),
    )?;
    let i8s: Vec<i8> = (0..200).map(|i: i32| ((i * 13) % 256 - 128) as i8).collect();
    w.array("zfp/int8_precision_1d", metadata(&[200], &[64], "int8", json!(0), zfp(json!({"mode": "fixed_precision", "precision": 6}))), i8s, None)?;
    let i16s: Vec<i16> = (0..(12 * 12)).map(|i: i32| (i * i * 11 - 9000) as i16).collect();
    w.array("zfp/int16_rate_2d", metadata(&[12, 12], &[12, 12], "int16", json!(0), zfp(json!({"mode": "fixed_rate", "rate": 0.5}))), i16s, None)?;
    let u16s: Vec<u16> = (0..(6 * 5 * 4 * 3)).map(|i: u32| (i * 541 % 65536) as u16).collect();
    w.array("zfp/uint16_reversible_4d", metadata(&[6, 5, 4, 3], &[4, 4, 4, 3], "uint16", json!(0), zfp(json!({"mode": "reversible"}))), u16s, None)?;
    let i32s: Vec<i32> = (0..100).map(|i: i32| i * i * i - 50_000).collect();
    w.array("zfp/int32_expert_1d", metadata(&[100], &[32], "int32", json!(0), zfp(json!({"mode": "expert", "minbits": 0, "maxbits": 120, "maxprec": 32, "minexp": -1074}))), i32s, None)?;
    let u32s: Vec<u32> = (0..64).map(|i: u32| i.wrapping_mul(0x9e37_79b9) >> 2).collect();
    w.array("zfp/uint32_reversible_1d", metadata(&[64], &[64], "uint32", json!(0), zfp(json!({"mode": "reversible"}))), u32s, None)?;
    let i64s: Vec<i64> = (0..(8 * 8)).map(|i: i64| (i - 32) * 1_000_000_007).collect();
    w.array("zfp/int64_precision_2d", metadata(&[8, 8], &[8, 8], "int64", json!(0), zfp(json!({"mode": "fixed_precision", "precision": 40}))), i64s, None)?;
    let u64s: Vec<u64> = (0..32).map(|i: u64| i * 0x0123_4567_89ab).collect();
    w.array("zfp/uint64_reversible_1d", metadata(&[32], &[16], "uint64", json!(0), zfp(json!({"mode": "reversible"}))), u64s, None)?;
    w.array(
        "zfp/sharded",
        metadata(&[30, 40], &[16, 40], "float32", json!(2.5), json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [8, 8],
            "codecs": [{"name": "zfp", "configuration": {"mode": "fixed_accuracy", "tolerance": 0.001}}],
            "index_codecs": [le, {"name": "crc32c"}],
            "index_location": "end"
        }}])),
        field,
        Some(vec![16..30, 0..40]),
    )?;

    // packbits: sub-byte types (bool, int4, uint2), bits cut from wider types (shifted back,
    // sign-extended), both padding counts, and inside a shard.
    let pack = |config: Value| json!([{"name": "packbits", "configuration": config}]);
    let flags: Vec<bool> = (0..50).map(|i| i % 3 == 0 || i % 7 == 1).collect();
    w.array("packbits/bool_first_byte", metadata(&[50], &[16], "bool", json!(false), pack(json!({"padding_encoding": "first_byte"}))), flags, Some(vec![32..48]))?;
    // No edge chunks: zarrs 0.23.14 reads the part of an edge chunk inside the array through its
    // partial decoder, which leaves int4's upper bits unset (13 for -3); its whole-chunk decoder
    // sign-extends as the registry says.
    let int4s: Vec<i8> = (0..(12 * 8)).map(|i: i32| ((i * 5) % 16 - 8) as i8).collect();
    w.array("packbits/int4", metadata(&[12, 8], &[4, 4], "int4", json!(-1), pack(json!({}))), int4s, None)?;
    let twos: Vec<u8> = (0..33).map(|i: u32| (i * 3 % 4) as u8).collect();
    w.array("packbits/uint2_last_byte", metadata(&[33], &[10], "uint2", json!(0), pack(json!({"padding_encoding": "last_byte"}))), twos, None)?;
    let bytes: Vec<u8> = (0..64).map(|i: u32| (i * 37 % 256) as u8).collect();
    w.array("packbits/uint8_bits_2_to_5", metadata(&[8, 8], &[8, 8], "uint8", json!(0), pack(json!({"first_bit": 2, "last_bit": 5}))), bytes, None)?;
    // No edge chunk either: there zarrs' partial decoder also leaves the bits unshifted.
    let shorts: Vec<i16> = (0..48).map(|i: i32| ((i - 24) * 97) as i16).collect();
    w.array("packbits/int16_bits_4_to_11", metadata(&[48], &[16], "int16", json!(0), pack(json!({"first_bit": 4, "last_bit": 11, "padding_encoding": "last_byte"}))), shorts, None)?;
    let halves: Vec<f32> = (0..30).map(|i| (i as f32 - 15.0) * 1.37).collect();
    w.array("packbits/float32_upper_half", metadata(&[30], &[30], "float32", json!(0.0), pack(json!({"first_bit": 16}))), halves, None)?;
    let nibbles: Vec<u8> = (0..256).map(|i: u32| (i * 7 % 16) as u8).collect();
    w.array(
        "packbits/sharded",
        metadata(&[16, 16], &[8, 16], "uint8", json!(5), json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [4, 4],
            "codecs": [{"name": "packbits", "configuration": {"last_bit": 3}}],
            "index_codecs": [le, {"name": "crc32c"}],
            "index_location": "end"
        }}])),
        nibbles,
        Some(vec![8..16, 0..16]),
    )?;

    let manifest = json!({"arrays": w.entries, "groups": []});
    std::fs::write(fixtures.join("zarrs.expected.json"), serde_json::to_string_pretty(&manifest)? + "\n")?;
    println!("wrote {} arrays to {}", w.entries.len(), root.display());
    Ok(())
}
