//! Fuzzing of the Parquet reader of kerchunk's Parquet references, as a property test: the
//! reference files of the fixtures (fastparquet's and pyarrow's, every codec and page version) are
//! mutated at random (bit flips, bytes set to extremes, runs overwritten, truncation, splices of
//! two files, insertions) and read; their directories' `.zmetadata` is mutated as text and parsed.
//! Every case must give rows or an error: never a panic, never more than 5 s, never a peak
//! allocation beyond 64 MiB (the files are read with pages bounded to 16 MiB).
//!
//! `cargo test --test fuzz_parquet` runs a short round (FUZZ_ITERS, default 2000). Long runs:
//! `FUZZ_ITERS=1000000 FUZZ_SEED=7 cargo test --release --test fuzz_parquet -- --nocapture`.
#![cfg(all(not(target_arch = "wasm32"), feature = "references"))]

mod common;

use common::counting::{peak_since, start_peak, CountingAllocator};
use common::{fixture_path, Rng};
use std::time::{Duration, Instant};
use zarr_wasm::store::parquet::{Bounds, Layout, Record};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const PEAK_CAP: usize = 64 << 20;
const BOUNDS: Bounds = Bounds {
    max_rows: 100_000,
    max_bytes: 16 << 20,
};

fn settings() -> (usize, u64) {
    common::fuzz_settings(2000, 20261127)
}

/// Every file below the fixtures' Parquet reference directories, by kind.
fn fixtures() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let (mut parquet, mut zmetadata) = (Vec::new(), Vec::new());
    let root = fixture_path("references");
    for dir in std::fs::read_dir(&root).unwrap().flatten() {
        let dir = dir.path();
        if !dir.is_dir() {
            continue;
        }
        zmetadata.push(std::fs::read(dir.join(".zmetadata")).unwrap());
        for field in std::fs::read_dir(&dir).unwrap().flatten() {
            if field.path().is_dir() {
                for file in std::fs::read_dir(field.path()).unwrap().flatten() {
                    parquet.push(std::fs::read(file.path()).unwrap());
                }
            }
        }
    }
    (parquet, zmetadata)
}

/// `bytes` changed in one to four random ways.
fn mutate(rng: &mut Rng, bytes: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    for _ in 0..1 + rng.below(4) {
        if b.is_empty() {
            break;
        }
        let at = rng.below(b.len());
        match rng.below(7) {
            0 => b[at] ^= 1 << rng.below(8),
            1 => b[at] = [0, 0xff, 0x7f, 0x80, 0x15, 0x0c][rng.below(6)],
            2 => {
                let n = (1 + rng.below(8)).min(b.len() - at);
                let v = rng.next() as u8;
                b[at..at + n].fill(v);
            }
            3 => b.truncate(at),
            4 => {
                let other = &others[rng.below(others.len())];
                let from = rng.below(other.len());
                let n = rng.below(64).min(other.len() - from).min(b.len() - at);
                b[at..at + n].copy_from_slice(&other[from..from + n]);
            }
            5 => {
                let n = 1 + rng.below(16);
                let fill: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                b.splice(at..at, fill);
            }
            _ => {
                // A varint's continuation bits set: lengths and counts made huge.
                let n = (1 + rng.below(5)).min(b.len() - at);
                for x in &mut b[at..at + n] {
                    *x |= 0x80;
                }
            }
        }
    }
    b
}

#[test]
fn mutated_reference_files_and_zmetadata_give_rows_or_errors_within_bounds() {
    let (iterations, seed) = settings();
    let (files, zmetadata) = fixtures();
    assert!(
        files.len() >= 25 && zmetadata.len() >= 3,
        "{} files",
        files.len()
    );
    for f in &files {
        Record::read(f, BOUNDS).expect("every fixture reads");
    }
    let mut rng = Rng(seed);
    let (mut read, mut refused) = (0, 0);
    for i in 0..iterations {
        let (pool, is_parquet) = if i % 5 == 4 {
            (&zmetadata, false)
        } else {
            (&files, true)
        };
        let pick = rng.below(pool.len());
        let input = mutate(&mut rng, &pool[pick], pool);
        let (start, base) = (Instant::now(), start_peak());
        let ok = if is_parquet {
            Record::read(&input, BOUNDS).is_ok()
        } else {
            Layout::parse(&input, 1_000_000).is_ok()
        };
        let (took, peak) = (start.elapsed(), peak_since(base));
        if took > Duration::from_secs(5) || peak > PEAK_CAP {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("parquet-{seed}-{i}.bin"));
            std::fs::write(&path, &input).unwrap();
            panic!(
                "case {i} took {took:?} and a peak of {peak} bytes (saved to {})",
                path.display()
            );
        }
        if ok {
            read += 1;
        } else {
            refused += 1;
        }
    }
    eprintln!("{iterations} cases (seed {seed}): {read} read, {refused} refused");
    assert!(refused > 0 && (iterations < 100 || read > 0));
}
