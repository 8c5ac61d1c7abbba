//! What zarr-wasm's encoders write is as small as the C libraries' at the same settings (within
//! 5 %): a microscopy image (the repository's sample, www/data) written as v2 arrays with each
//! compressor and level (bz2 too, the second module's), each chunk then encoded again by
//! numcodecs' C codecs (scripts/c_sizes.py, in .venv-readers) and the sizes compared.
#![cfg(all(feature = "write", not(target_arch = "wasm32")))]

mod common;

use common::DirStore;
use futures_executor::block_on;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use zarr_wasm::array::write::WriteValue;
use zarr_wasm::hierarchy::write::{create_array, ArraySpec};
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::ReadableStore;
use zarr_wasm::{open, DimSelection, Node};

/// The sample's first plane (1024 x 1024 uint16): a synthetic cell image with noise.
fn image() -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("www/data/sample.ome.zarr");
    let store: Rc<dyn ReadableStore> = Rc::new(DirStore::at(root));
    let Node::Array(arr) = block_on(open(store, "0")).unwrap() else {
        panic!("the sample's level 0 is an array")
    };
    let at = |i: i64| DimSelection::Index(i);
    let all = DimSelection::All;
    block_on(arr.get(&[at(0), at(0), all, all])).unwrap().bytes
}

/// Each compressor compared: (name, numcodecs config).
fn compressors() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for cname in ["blosclz", "lz4", "lz4hc", "zlib", "zstd"] {
        for (shuffle, s) in [("noshuffle", 0), ("shuffle", 1), ("bitshuffle", 2)] {
            for clevel in [1, 5, 9] {
                out.push((
                    format!("blosc-{cname}-{shuffle}-{clevel}"),
                    json!({"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": s, "blocksize": 0}),
                ));
            }
        }
    }
    for level in [-5, 1, 3, 5, 9] {
        out.push((
            format!("zstd-{level}"),
            json!({"id": "zstd", "level": level}),
        ));
    }
    for level in [1, 6, 9] {
        out.push((
            format!("gzip-{level}"),
            json!({"id": "gzip", "level": level}),
        ));
        out.push((
            format!("zlib-{level}"),
            json!({"id": "zlib", "level": level}),
        ));
    }
    out.push(("lz4-1".into(), json!({"id": "lz4", "acceleration": 1})));
    // The second module's (libbz2-rs-sys: libbzip2 ported to Rust, against libbzip2 itself).
    for level in [1, 9] {
        out.push((format!("bz2-{level}"), json!({"id": "bz2", "level": level})));
    }
    out
}

#[test]
fn compressed_sizes_are_within_5_percent_of_the_c_libraries() {
    let image = image();
    let store = Rc::new(MemoryStore::new());
    let names: Vec<String> = compressors().into_iter().map(|(n, _)| n).collect();
    for (name, compressor) in compressors() {
        let spec = ArraySpec {
            zarr_format: Some(2),
            shape: vec![1024, 1024],
            data_type: "<u2".into(),
            chunks: vec![256, 256],
            compressor: Some(compressor),
            ..ArraySpec::default()
        };
        let arr = block_on(create_array(store.clone(), &name, &spec)).unwrap();
        block_on(arr.set(&[], WriteValue::Elements(&image))).unwrap();
    }
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("write-sizes");
    let _ = std::fs::remove_dir_all(&root);
    for key in store.keys() {
        let path = root.join(&key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, block_on(store.get(&key)).unwrap().unwrap()).unwrap();
    }
    let sizes = c_sizes(&root, &names);
    let mut report = String::new();
    let mut over = Vec::new();
    for name in &names {
        let (ours, c) = (
            sizes[name]["ours"].as_f64().unwrap(),
            sizes[name]["c"].as_f64().unwrap(),
        );
        let ratio = ours / c;
        report += &format!("{name}: {ours} bytes against C's {c} ({ratio:.3})\n");
        if ratio > 1.05 {
            over.push(name.clone());
        }
    }
    eprintln!("{report}");
    assert!(
        over.is_empty(),
        "more than 5 % larger than C: {over:?}\n{report}"
    );
}

/// scripts/c_sizes.py's answer for the arrays `names` below `root`.
fn c_sizes(root: &Path, names: &[String]) -> Value {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(common::readers_python())
        .arg(repo.join("scripts/c_sizes.py"))
        .arg(root)
        .args(names)
        .output()
        .expect("python runs scripts/c_sizes.py");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
