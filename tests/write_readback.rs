//! What zarr-wasm writes, zarr-python reads: arrays created and written by the core (v3 plain
//! and sharded with the index at either end, v2 with its compressors, big endian, order F, NaN
//! and infinite fills, partial edge chunks, attributes, strings), stored to a directory and read
//! back at test time by zarr-python with numcodecs' C codecs (scripts/read_back.py, in
//! .venv-readers, which scripts/readers_venv.sh makes where it is missing), value for value; the
//! numeric ones its drivers take by tensorstore too.
#![cfg(all(feature = "write", not(target_arch = "wasm32")))]

mod common;

use futures_executor::block_on;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use zarr_wasm::array::write::WriteValue;
use zarr_wasm::hierarchy::write::{consolidate, create_array, create_group, resize, ArraySpec};
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::ReadableStore;
use zarr_wasm::DimSelection;

/// NumPy's name of each test type, its size, and an element's little-endian bytes from a value.
fn element(dtype: &str, v: f64) -> Vec<u8> {
    match dtype {
        "bool" => vec![(v != 0.0) as u8],
        "uint8" => vec![v as u8],
        "uint16" => (v as u16).to_le_bytes().to_vec(),
        "int16" => (v as i16).to_le_bytes().to_vec(),
        "int32" => (v as i32).to_le_bytes().to_vec(),
        "uint32" => (v as u32).to_le_bytes().to_vec(),
        "float32" => (v as f32).to_le_bytes().to_vec(),
        "float64" => v.to_le_bytes().to_vec(),
        _ => panic!("{dtype}"),
    }
}

/// A test array: how it is created, and the writes made to it (rows, columns, and a value per
/// element from its position and the write's number).
struct Case {
    name: &'static str,
    /// The NumPy dtype name of its elements (the values expected are written in it).
    dtype: &'static str,
    spec: ArraySpec,
    /// The fill value as a number (NaN for NaN).
    fill: f64,
    writes: Vec<([u64; 2], [u64; 2], [u64; 2])>,
}

fn spec(format: u8, dtype: &str, shape: [u64; 2], chunks: [u64; 2]) -> ArraySpec {
    ArraySpec {
        zarr_format: Some(format),
        shape: shape.to_vec(),
        data_type: dtype.to_string(),
        chunks: chunks.to_vec(),
        ..ArraySpec::default()
    }
}

fn cases() -> Vec<Case> {
    // Whole array, then a tile across chunk edges, then a block at the far edge.
    let writes = |shape: [u64; 2]| {
        vec![
            ([0, shape[0]], [0, shape[1]], [1, 1]),
            (
                [shape[0] / 3, shape[0] / 3 + 17],
                [5, 45.min(shape[1])],
                [1, 1],
            ),
            ([shape[0] - 7, shape[0]], [shape[1] - 9, shape[1]], [1, 1]),
        ]
    };
    // Only some chunks: the rest stays the fill value (and is not stored).
    let sparse = |shape: [u64; 2]| {
        vec![
            ([3, 20.min(shape[0])], [2, 40.min(shape[1])], [1, 1]),
            ([shape[0] - 5, shape[0]], [0, shape[1]], [1, 1]),
        ]
    };
    let mut v3_default = spec(3, "uint16", [100, 130], [32, 32]);
    v3_default.attributes = Some(Map::from_iter([("title".to_string(), json!("written"))]));
    let mut v3_gzip_big = spec(3, "float32", [70, 50], [16, 16]);
    v3_gzip_big.codecs = Some(vec![
        json!({"name": "bytes", "configuration": {"endian": "big"}}),
        json!({"name": "gzip", "configuration": {"level": 6}}),
        json!({"name": "crc32c"}),
    ]);
    v3_gzip_big.fill_value = Some(json!("NaN"));
    let mut v3_infinite = spec(3, "float64", [45, 40], [16, 16]);
    v3_infinite.fill_value = Some(json!("-Infinity"));
    let mut v2_infinite = spec(2, "<f4", [45, 40], [16, 16]);
    v2_infinite.fill_value = Some(json!("Infinity"));
    v2_infinite.compressor = Some(json!({"id": "zlib", "level": 1}));
    let mut sharded_end = spec(3, "int32", [64, 96], [8, 8]);
    sharded_end.shards = Some(vec![32, 32]);
    let mut sharded_start = spec(3, "uint8", [40, 40], [5, 4]);
    sharded_start.shards = Some(vec![20, 20]);
    sharded_start.codecs = Some(vec![
        json!({"name": "transpose", "configuration": {"order": [1, 0]}}),
        json!({"name": "bytes"}),
        json!({"name": "zstd", "configuration": {"level": 5, "checksum": true}}),
    ]);
    sharded_start.fill_value = Some(json!(200));
    let mut v2_zlib = spec(2, "uint8", [50, 60], [16, 16]);
    v2_zlib.compressor = Some(json!({"id": "zlib", "level": 4}));
    v2_zlib.dimension_separator = Some("/".to_string());
    let mut v2_order_f = spec(2, "<f8", [33, 21], [10, 8]);
    v2_order_f.order = Some("F".to_string());
    v2_order_f.compressor = Some(json!({"id": "gzip", "level": 1}));
    v2_order_f.fill_value = Some(json!("NaN"));
    let mut v2_big = spec(2, ">i2", [40, 30], [16, 16]);
    v2_big.compressor = Some(json!({"id": "zstd", "level": 3, "checksum": false}));
    let mut v2_filters = spec(2, "<i4", [45, 37], [16, 10]);
    v2_filters.filters =
        Some(json!([{"id": "delta", "dtype": "<i4"}, {"id": "shuffle", "elementsize": 4}]));
    v2_filters.compressor = Some(json!({"id": "lz4", "acceleration": 1}));
    let mut v2_bool = spec(2, "|b1", [30, 20], [8, 8]);
    v2_bool.filters = Some(json!([{"id": "packbits"}]));
    v2_bool.compressor = Some(Value::Null);
    sharded_start.index_location = Some("start".to_string());
    let blosc_v2 = |dtype: &str, cname: &str, shuffle: i64| {
        let mut s = spec(2, dtype, [300, 260], [128, 100]);
        s.compressor = Some(
            json!({"id": "blosc", "cname": cname, "clevel": 5, "shuffle": shuffle, "blocksize": 0}),
        );
        s
    };
    // The second module's encoders.
    let mut v2_bz2 = spec(2, "<i2", [100, 90], [32, 32]);
    v2_bz2.compressor = Some(json!({"id": "bz2", "level": 9}));
    let mut v3_pcodec = spec(3, "float32", [100, 90], [32, 32]);
    v3_pcodec.codecs = Some(vec![
        json!({"name": "numcodecs.pcodec", "configuration": {"level": 8}}),
    ]);
    let mut v3_pcodec_classic = spec(3, "uint32", [100, 90], [32, 32]);
    v3_pcodec_classic.codecs = Some(vec![json!({"name": "numcodecs.pcodec", "configuration": {
        "level": 3, "mode_spec": "classic", "delta_spec": "try_consecutive",
        "delta_encoding_order": 1, "equal_pages_up_to": 300}})]);
    let mut blosc_v3 = spec(3, "int32", [300, 260], [128, 100]);
    blosc_v3.codecs = Some(vec![
        json!({"name": "bytes", "configuration": {"endian": "little"}}),
        json!({"name": "blosc", "configuration": {"cname": "blosclz", "clevel": 9, "shuffle": "bitshuffle", "typesize": 4, "blocksize": 0}}),
    ]);
    vec![
        Case {
            name: "v3_default_codecs",
            dtype: "uint16",
            spec: v3_default,
            fill: 0.0,
            writes: writes([100, 130]),
        },
        Case {
            name: "v3_gzip_big_endian_nan",
            dtype: "float32",
            spec: v3_gzip_big,
            fill: f64::NAN,
            writes: sparse([70, 50]),
        },
        Case {
            name: "v3_minus_infinity_fill",
            dtype: "float64",
            spec: v3_infinite,
            fill: f64::NEG_INFINITY,
            writes: sparse([45, 40]),
        },
        Case {
            name: "v2_infinity_fill",
            dtype: "float32",
            spec: v2_infinite,
            fill: f64::INFINITY,
            writes: sparse([45, 40]),
        },
        Case {
            name: "v3_sharded_index_end",
            dtype: "int32",
            spec: sharded_end,
            fill: 0.0,
            writes: writes([64, 96]),
        },
        Case {
            name: "v3_sharded_index_start_transposed",
            dtype: "uint8",
            spec: sharded_start,
            fill: 200.0,
            writes: sparse([40, 40]),
        },
        Case {
            name: "v2_zlib_slash",
            dtype: "uint8",
            spec: v2_zlib,
            fill: 0.0,
            writes: writes([50, 60]),
        },
        Case {
            name: "v2_order_f_nan",
            dtype: "float64",
            spec: v2_order_f,
            fill: f64::NAN,
            writes: sparse([33, 21]),
        },
        Case {
            name: "v2_big_endian_zstd",
            dtype: "int16",
            spec: v2_big,
            fill: 0.0,
            writes: writes([40, 30]),
        },
        Case {
            name: "v2_delta_shuffle_lz4",
            dtype: "int32",
            spec: v2_filters,
            fill: 0.0,
            writes: writes([45, 37]),
        },
        Case {
            name: "v2_blosc_lz4_shuffle",
            dtype: "uint16",
            spec: blosc_v2("<u2", "lz4", 1),
            fill: 0.0,
            writes: writes([300, 260]),
        },
        Case {
            name: "v2_blosc_zstd_bitshuffle",
            dtype: "float32",
            spec: blosc_v2("<f4", "zstd", 2),
            fill: 0.0,
            writes: writes([300, 260]),
        },
        Case {
            name: "v2_blosc_zlib_noshuffle",
            dtype: "int16",
            spec: blosc_v2("<i2", "zlib", 0),
            fill: 0.0,
            writes: writes([300, 260]),
        },
        Case {
            name: "v2_blosc_lz4hc_autoshuffle",
            dtype: "uint8",
            spec: blosc_v2("|u1", "lz4hc", -1),
            fill: 0.0,
            writes: writes([300, 260]),
        },
        Case {
            name: "v2_blosc_blosclz_shuffle",
            dtype: "float64",
            spec: blosc_v2("<f8", "blosclz", 1),
            fill: 0.0,
            writes: writes([300, 260]),
        },
        Case {
            name: "v3_blosc_blosclz_bitshuffle",
            dtype: "int32",
            spec: blosc_v3,
            fill: 0.0,
            writes: writes([300, 260]),
        },
        Case {
            name: "v2_bz2",
            dtype: "int16",
            spec: v2_bz2,
            fill: 0.0,
            writes: writes([100, 90]),
        },
        Case {
            name: "v3_pcodec",
            dtype: "float32",
            spec: v3_pcodec,
            fill: 0.0,
            writes: writes([100, 90]),
        },
        Case {
            name: "v3_pcodec_classic_consecutive",
            dtype: "uint32",
            spec: v3_pcodec_classic,
            fill: 0.0,
            writes: writes([100, 90]),
        },
        Case {
            name: "v2_packbits_bool",
            dtype: "bool",
            spec: v2_bool,
            fill: 0.0,
            writes: sparse([30, 20]),
        },
    ]
}

/// The value written at (i, j) by write number `n`.
fn value(dtype: &str, i: u64, j: u64, n: usize) -> f64 {
    let v = (i * 31 + j * 7 + n as u64 * 1000) as f64;
    match dtype {
        "bool" => (i + j + n as u64).is_multiple_of(3) as u64 as f64,
        "uint8" => (v as u64 % 199) as f64,
        "int16" => v - 3000.0,
        "float32" | "float64" => v / 8.0 - 100.0,
        _ => v,
    }
}

/// Stores every value of `store` as a file below `dir`.
fn dump(store: &MemoryStore, dir: &Path) {
    for key in store.keys() {
        let bytes = block_on(store.get(&key)).unwrap().unwrap();
        let path = dir.join(&key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

fn slice(r: [u64; 2]) -> DimSelection {
    DimSelection::Slice {
        start: Some(r[0] as i64),
        stop: Some(r[1] as i64),
        step: None,
    }
}

#[test]
fn zarr_python_reads_back_every_array_written_value_for_value() {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("write-readback");
    let _ = std::fs::remove_dir_all(&root);
    let mut manifest = Vec::new();
    for case in cases() {
        let store = Rc::new(MemoryStore::new());
        let arr = block_on(create_array(store.clone(), "data/arr", &case.spec)).unwrap();
        let [rows, cols] = [case.spec.shape[0], case.spec.shape[1]];
        let mut expected: Vec<f64> = vec![case.fill; (rows * cols) as usize];
        for (n, (r, c, _)) in case.writes.iter().enumerate() {
            let mut bytes = Vec::new();
            for i in r[0]..r[1] {
                for j in c[0]..c[1] {
                    let v = value(case.dtype, i, j, n);
                    // Little endian: native on the machines this runs on (x86, wasm).
                    bytes.extend(element(case.dtype, v));
                    expected[(i * cols + j) as usize] = v;
                }
            }
            block_on(arr.set(&[slice(*r), slice(*c)], WriteValue::Elements(&bytes)))
                .unwrap_or_else(|e| panic!("{}: write {n}: {e}", case.name));
        }
        // The reader reads it back first.
        let got = block_on(arr.get(&[])).unwrap();
        let want: Vec<u8> = expected
            .iter()
            .flat_map(|&v| element(case.dtype, v))
            .collect();
        assert!(
            got.bytes == want,
            "{}: zarr-wasm reads back other values",
            case.name
        );
        let dir = root.join(case.name);
        dump(&store, &dir);
        let expected_file = root.join(format!("{}.expected", case.name));
        std::fs::write(&expected_file, &want).unwrap();
        let mut entry = json!({
            "store": dir,
            "path": "data/arr",
            "dtype": case.dtype,
            "shape": [rows, cols],
            "expected": expected_file,
        });
        if let Some(attrs) = &case.spec.attributes {
            entry["attributes"] = Value::Object(attrs.clone());
        }
        entry["zarr_format"] = json!(case.spec.zarr_format.unwrap_or(3));
        entry["tensorstore"] = json!(tensorstore_reads(&case.spec));
        manifest.push(entry);
    }
    read_back(&root, manifest, cases().len());
}

/// Whether tensorstore reads an array of `spec`: its v2 driver takes no filters, no lz4
/// compressor (numcodecs' own) and no zstd `checksum`; its v3 driver takes every codec these
/// cases use but numcodecs' pcodec.
fn tensorstore_reads(spec: &ArraySpec) -> bool {
    if spec.zarr_format != Some(2) {
        let codecs = spec.codecs.iter().flatten();
        return !codecs
            .into_iter()
            .any(|c| c["name"] == json!("numcodecs.pcodec"));
    }
    // zarr-python's v2 default, zstd, has a `checksum` member tensorstore refuses.
    let id = spec.compressor.as_ref().map(|c| c["id"].clone());
    spec.filters.is_none() && id.is_some_and(|id| id != json!("lz4") && id != json!("zstd"))
}

/// Runs zarr-python over the cases of `manifest` (scripts/read_back.py), each of which must read
/// back exactly: `count` of them.
fn read_back(root: &Path, manifest: Vec<Value>, count: usize) {
    let manifest_file = root.join("manifest.json");
    std::fs::write(&manifest_file, Value::Array(manifest).to_string()).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(common::readers_python())
        .arg(repo.join("scripts/read_back.py"))
        .arg(&manifest_file)
        .output()
        .expect("python runs scripts/read_back.py");
    let report = String::from_utf8_lossy(&out.stdout);
    eprintln!("{report}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "zarr-python read back other values:\n{report}"
    );
    assert_eq!(
        report.lines().filter(|l| l.starts_with("ok ")).count(),
        count
    );
}

/// The values of a 2-D uint16 array of `shape` whose element (i, j) is `f(i, j)`, little endian.
fn grid(shape: [u64; 2], f: impl Fn(u64, u64) -> u16) -> Vec<u8> {
    (0..shape[0])
        .flat_map(|i| (0..shape[1]).map(move |j| (i, j)))
        .flat_map(|(i, j)| f(i, j).to_le_bytes())
        .collect()
}

fn whole(shape: [u64; 2]) -> [DimSelection; 2] {
    [slice([0, shape[0]]), slice([0, shape[1]])]
}

#[test]
fn zarr_python_reads_resized_arrays_and_consolidated_hierarchies() {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("write-readback-2");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let mut manifest = Vec::new();
    let value = |i: u64, j: u64| (i * 100 + j + 1) as u16;
    // Shrunk, grown, and shrunk in v2: values kept inside, chunks outside erased, the fill value
    // where the array grew.
    for (name, format, shards, from, to) in [
        ("shrunk_v3", 3, None, [50, 70], [30, 33]),
        (
            "grown_v3_sharded",
            3,
            Some(vec![16, 16]),
            [30, 33],
            [50, 70],
        ),
        ("shrunk_v2", 2, None, [50, 70], [9, 70]),
    ] {
        let store = Rc::new(MemoryStore::new());
        let mut s = spec(format, "uint16", from, [8, 8]);
        s.shards = shards;
        s.fill_value = Some(json!(9));
        let arr = block_on(create_array(store.clone(), "r", &s)).unwrap();
        block_on(arr.set(&whole(from), WriteValue::Elements(&grid(from, value)))).unwrap();
        let keys_before = store.keys().len();
        let arr = block_on(resize(&arr, &to)).unwrap();
        assert_eq!(arr.shape(), &to);
        let want = grid(to, |i, j| {
            if i < from[0] && j < from[1] {
                value(i, j)
            } else {
                9
            }
        });
        assert_eq!(
            block_on(arr.get(&[])).unwrap().bytes,
            want,
            "{name}: zarr-wasm"
        );
        if to[0] < from[0] {
            assert!(
                store.keys().len() < keys_before,
                "{name}: chunks outside are erased"
            );
        }
        let dir = root.join(name);
        dump(&store, &dir);
        let expected = root.join(format!("{name}.expected"));
        std::fs::write(&expected, &want).unwrap();
        manifest.push(json!({"store": dir, "path": "r", "dtype": "uint16", "shape": to, "expected": expected, "zarr_format": format, "tensorstore": tensorstore_reads(&s)}));
    }
    // Hierarchies with consolidated metadata, opened by zarr.open_consolidated.
    for format in [3u8, 2] {
        let store = Rc::new(MemoryStore::new());
        let attrs = Map::from_iter([("name".to_string(), json!("root"))]);
        block_on(create_group(
            store.clone(),
            "",
            Some(&attrs),
            Some(format),
            false,
        ))
        .unwrap();
        let mut arrays = Vec::new();
        for (path, shape) in [("a", [10, 12]), ("g/b", [7, 5]), ("g/h/c", [3, 3])] {
            let arr = block_on(create_array(
                store.clone(),
                path,
                &spec(format, "uint16", shape, [4, 4]),
            ))
            .unwrap();
            block_on(arr.set(&whole(shape), WriteValue::Elements(&grid(shape, value)))).unwrap();
            let name = format!("consolidated_v{format}_{}", path.replace('/', "_"));
            let expected = root.join(format!("{name}.expected"));
            std::fs::write(&expected, grid(shape, value)).unwrap();
            arrays.push(
                json!({"path": path, "dtype": "uint16", "shape": shape, "expected": expected}),
            );
        }
        block_on(consolidate(&*store, "")).unwrap();
        let dir = root.join(format!("consolidated_v{format}"));
        dump(&store, &dir);
        manifest.push(json!({
            "store": dir,
            "consolidated": true,
            "zarr_format": format,
            "nodes": ["a", "g", "g/b", "g/h", "g/h/c"],
            "arrays": arrays,
        }));
    }
    read_back(&root, manifest, 5);
}

/// The strings written at (i, j) of an array of `cols` columns by write number `n`: empty, ASCII,
/// and beyond the BMP, of many lengths.
fn text(i: u64, j: u64, cols: u64, n: usize) -> String {
    let k = i * cols + j;
    match (k + n as u64) % 4 {
        0 => String::new(),
        1 => format!("w{n} {k}"),
        2 => format!("é{k}😀{}", "x".repeat((k % 23) as usize)),
        _ => format!("{n}:{}", "long ".repeat((k % 9) as usize)),
    }
}

#[test]
fn zarr_python_reads_back_strings_and_byte_strings() {
    use zarr_wasm::data_type::variable::Items;
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("write-readback-strings");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let mut manifest = Vec::new();
    let mut v2_object = spec(2, "|O", [23, 17], [8, 8]);
    v2_object.filters = Some(json!([{"id": "vlen-utf8"}]));
    v2_object.compressor = Some(json!({"id": "zstd", "level": 3}));
    v2_object.fill_value = Some(json!(""));
    let mut v2_order_f = v2_object.clone();
    v2_order_f.order = Some("F".to_string());
    v2_order_f.compressor = Some(json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1}));
    let mut v3_plain = spec(3, "string", [23, 17], [8, 8]);
    v3_plain.fill_value = Some(json!(""));
    let mut v3_sharded = v3_plain.clone();
    v3_sharded.shards = Some(vec![16, 16]);
    let mut v3_sharded_start = v3_sharded.clone();
    v3_sharded_start.index_location = Some("start".to_string());
    v3_sharded_start.codecs = Some(vec![
        json!({"name": "vlen-utf8"}),
        json!({"name": "gzip", "configuration": {"level": 1}}),
    ]);
    let mut v3_bytes = spec(3, "variable_length_bytes", [23, 17], [8, 8]);
    v3_bytes.fill_value = Some(json!(""));
    for (name, s) in [
        ("v2_object_vlen_utf8_zstd", v2_object),
        ("v2_object_order_f_blosc", v2_order_f),
        ("v3_string_default_codecs", v3_plain),
        ("v3_string_sharded_index_end", v3_sharded),
        ("v3_string_sharded_index_start_gzip", v3_sharded_start),
        ("v3_bytes_default_codecs", v3_bytes),
    ] {
        let bytes = s.data_type == "variable_length_bytes";
        let store = Rc::new(MemoryStore::new());
        let arr = block_on(create_array(store.clone(), "s", &s)).unwrap();
        let [rows, cols] = [23u64, 17];
        let mut want = vec![String::new(); (rows * cols) as usize];
        // The whole array, a tile across chunk (and shard) edges, the far corner.
        for (n, (r, c)) in [([0, 23], [0, 17]), ([5, 19], [3, 16]), ([20, 23], [14, 17])]
            .into_iter()
            .enumerate()
        {
            let mut items = Items::default();
            for i in r[0]..r[1] {
                for j in c[0]..c[1] {
                    let t = text(i, j, cols, n);
                    items.push(t.as_bytes()).unwrap();
                    want[(i * cols + j) as usize] = t;
                }
            }
            block_on(arr.set(&[slice(r), slice(c)], WriteValue::Items(&items)))
                .unwrap_or_else(|e| panic!("{name}: write {n}: {e}"));
        }
        let got = block_on(arr.get(&[])).unwrap();
        let items = got.items.unwrap();
        let read: Vec<String> = got
            .bytes
            .chunks_exact(8)
            .map(|h| String::from_utf8(items.resolve(h).unwrap().to_vec()).unwrap())
            .collect();
        assert_eq!(read, want, "{name}: zarr-wasm reads back other strings");
        let dir = root.join(name);
        dump(&store, &dir);
        let expected = root.join(format!("{name}.json"));
        let values: Vec<Value> = want
            .iter()
            .map(|t| match bytes {
                true => json!(t.bytes().map(|b| format!("{b:02x}")).collect::<String>()),
                false => json!(t),
            })
            .collect();
        let kind = if bytes { "bytes" } else { "str" };
        std::fs::write(
            &expected,
            json!({"kind": kind, "values": values}).to_string(),
        )
        .unwrap();
        manifest
            .push(json!({"store": dir, "path": "s", "shape": [rows, cols], "strings": expected}));
    }
    read_back(&root, manifest, 6);
}
