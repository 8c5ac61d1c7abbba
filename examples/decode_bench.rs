//! The native ceiling for `npm run bench`: decodes every chunk of each array in
//! bench/data/bench.zarr with the same codec code the wasm module runs, compiled natively, no
//! HTTP and no JavaScript. Prints one JSON object: per array, the median time to decode all of
//! its chunks and the decoded bytes.
//!
//!     cargo run --release --example decode_bench -- bench/data/bench.zarr [runs]
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::time::Instant;
use zarr_wasm::codecs::table::array_pipeline;
use zarr_wasm::codecs::ChunkRepr;
use zarr_wasm::metadata::v3::{parse, NodeMetadata};

fn chunk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.join("c")];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let root = PathBuf::from(
        args.get(1)
            .ok_or("usage: decode_bench <bench.zarr> [runs]")?,
    );
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(15);
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .map_err(|e| format!("{}: {e}", root.display()))?
        .flatten()
        .filter(|e| e.path().join("zarr.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut results = serde_json::Map::new();
    for name in names {
        let dir = root.join(&name);
        let doc = std::fs::read(dir.join("zarr.json")).map_err(|e| e.to_string())?;
        let NodeMetadata::Array(meta) = parse(&doc, &name).map_err(|e| e.to_string())? else {
            continue;
        };
        let shape = meta
            .chunk_grid
            .regular_chunk_shape()
            .ok_or("bench arrays have regular grids")?
            .to_vec();
        let pipeline = array_pipeline(&meta, &name).map_err(|e| e.to_string())?;
        let repr = ChunkRepr {
            shape,
            data_type: meta.data_type,
        };
        let chunks: Vec<Vec<u8>> = chunk_files(&dir)
            .iter()
            .map(|p| std::fs::read(p).unwrap_or_default())
            .collect();
        let mut times = Vec::with_capacity(runs);
        let mut decoded = 0usize;
        for _ in 0..runs + 2 {
            let start = Instant::now();
            decoded = 0;
            for chunk in &chunks {
                decoded += pipeline
                    .decode(chunk.clone(), &repr)
                    .map_err(|e| format!("{name}: {e}"))?
                    .len();
            }
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        let mut timed = times.split_off(2);
        timed.sort_by(f64::total_cmp);
        let median = timed[timed.len() / 2];
        results.insert(name, serde_json::json!({ "ms": median, "bytes": decoded }));
    }
    println!("{}", serde_json::Value::Object(results));
    Ok(())
}
