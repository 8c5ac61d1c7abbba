//! Fuzzing of every decoder, as a property test: real chunks written by the C libraries
//! (tests/fixtures/codecs.zarr, v3.zarr, extra.zarr and the others listed in `targets`), mutated at random (bit flips, byte and header-field
//! overwrites, truncation, splices), and plain random bytes, are fed to each array's codec
//! pipeline and to the raw decoders. Every input must give `Ok` or `Err`: never a panic, never a
//! hang, and never an allocation beyond what the chunk's declared size justifies. A counting
//! allocator measures the peak of each decode.
//!
//! `cargo test --test fuzz_codecs` runs a short round (FUZZ_ITERS, default 3000). Long runs:
//! `FUZZ_ITERS=2000000 FUZZ_SEED=7 cargo test --release --test fuzz_codecs -- --nocapture`.
//! A failing input is written to target/fuzz-failures/ with the seed and iteration.
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::counting::{peak_since, serial, start_peak, CountingAllocator};

use common::{iterations, Rng};
use std::time::{Duration, Instant};
use zarr_wasm::codecs::blosc::{blosclz, snappy};
use zarr_wasm::codecs::table::array_pipeline;
use zarr_wasm::codecs::{ChunkRepr, CodecPipeline};
use zarr_wasm::data_type::variable::Items;
use zarr_wasm::metadata::v3::{parse, NodeMetadata};
use zarr_wasm::metadata::{v2, ArrayMetadata};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Runs `f` and returns its result with the most memory it held at once beyond what was held
/// before.
fn measured<T>(f: impl FnOnce() -> T) -> (T, usize, Duration) {
    let base = start_peak();
    let start = Instant::now();
    let out = f();
    let elapsed = start.elapsed();
    (out, peak_since(base), elapsed)
}

/// One array's decoder and a real chunk of it.
struct Target {
    name: String,
    /// Bytes the decoders may allocate beyond `allowed_peak` (pcodec: see `PCO_STATE`).
    extra_allowance: usize,
    pipeline: CodecPipeline,
    repr: ChunkRepr,
    chunk: Vec<u8>,
}

fn targets() -> Vec<Target> {
    let mut out = Vec::new();
    for store in [
        "codecs.zarr",
        "v3.zarr",
        "tensorstore.zarr",
        "v2.zarr",
        "tensorstore_v2.zarr",
        // The second module's codecs (lzma, bz2, pcodec, ZFP), linked in; the registry's codecs.
        "extra.zarr",
        "extra_v2.zarr",
        "zarrs.zarr",
        "registry.zarr",
        // GDAL's stores (XZ with the delta filter, Blosc) and numcodecs' LZMA delta chains.
        "gdal",
    ] {
        let root = common::fixture_path(store);
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                // Chunk folders: "c" in v3, digits for v2's nested keys.
                if e.path().is_dir()
                    && name != "c"
                    && !name.starts_with(|c: char| c.is_ascii_digit())
                {
                    stack.push(e.path());
                }
            }
            let Some(meta) = array_metadata(&dir) else {
                continue;
            };
            let Some(shape) = meta.chunk_grid.regular_chunk_shape() else {
                continue;
            };
            let Ok(pipeline) = array_pipeline(&meta, "fuzz") else {
                continue;
            };
            // v3 chunks are under c/, unless keyed the v2 way (n5_default's N5 blocks).
            let chunk_path = match meta.zarr_format {
                3 if dir.join("c").is_dir() => first_chunk(&dir.join("c")),
                _ => first_chunk(&dir),
            };
            let Some(chunk) = chunk_path.and_then(|p| std::fs::read(p).ok()) else {
                continue;
            };
            let name = dir.strip_prefix(&root).unwrap().display().to_string();
            // pcodec anywhere in the pipeline (a shard's inner codecs too).
            let uses_pcodec = ["zarr.json", ".zarray"].iter().any(|f| {
                std::fs::read_to_string(dir.join(f)).is_ok_and(|text| text.contains("pcodec"))
            });
            out.push(Target {
                extra_allowance: if uses_pcodec { PCO_STATE } else { 0 },
                name: format!("{store}/{name}"),
                pipeline,
                repr: ChunkRepr {
                    shape: shape.to_vec(),
                    data_type: meta.data_type,
                },
                chunk,
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The array metadata in `dir`: its `zarr.json`, or its `.zarray` and `.zattrs`.
fn array_metadata(dir: &std::path::Path) -> Option<ArrayMetadata> {
    if let Ok(bytes) = std::fs::read(dir.join("zarr.json")) {
        return match parse(&bytes, "fuzz") {
            Ok(NodeMetadata::Array(meta)) => Some(meta),
            _ => None,
        };
    }
    let zarray: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(".zarray")).ok()?).ok()?;
    let zattrs = std::fs::read(dir.join(".zattrs"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    v2::parse_array(&zarray, zattrs.as_ref(), "fuzz").ok()
}

/// The first chunk file below `dir` (names not starting with "." nor "zarr.json").
fn first_chunk(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&d)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            let name = p.file_name()?.to_string_lossy().into_owned();
            // Metadata, not chunks (attributes.json: N5's, beside n5_default arrays).
            if name.starts_with('.') || name == "zarr.json" || name == "attributes.json" {
                continue;
            }
            if p.is_file() {
                return Some(p);
            }
            stack.push(p);
        }
    }
    None
}

const EXTREMES: [u32; 8] = [
    0,
    1,
    2,
    16,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0x0001_0000,
];

/// Applies one to four random edits that real corruption and hostile servers produce.
fn mutate(rng: &mut Rng, data: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        let len = data.len();
        match rng.below(8) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = [0, 0xFF, 0x80, rng.next() as u8][rng.below(4)];
            }
            2 => data.truncate(rng.below(len + 1)),
            3 if len >= 4 => {
                // A header field or block offset: most formats keep their sizes in the first bytes.
                let at = if rng.below(2) == 0 {
                    rng.below(len.min(64) - 3)
                } else {
                    rng.below(len - 3)
                };
                let v = if rng.below(2) == 0 {
                    EXTREMES[rng.below(EXTREMES.len())]
                } else {
                    rng.next() as u32
                };
                data[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            4 if len > 0 => {
                let (a, b) = (rng.below(len), rng.below(len));
                let piece = data[a.min(b)..a.max(b)].to_vec();
                let at = rng.below(len);
                data.splice(at..at, piece);
            }
            5 if len > 0 => {
                let (a, n) = (rng.below(len), rng.below(64));
                data.drain(a..(a + n).min(len));
            }
            6 => {
                let at = rng.below(len + 1);
                let junk: Vec<u8> = (0..rng.below(32)).map(|_| rng.next() as u8).collect();
                data.splice(at..at, junk);
            }
            _ => {
                for _ in 0..rng.below(16) {
                    if !data.is_empty() {
                        let i = rng.below(data.len());
                        data[i] = rng.next() as u8;
                    }
                }
            }
        }
    }
}

fn seed() -> u64 {
    std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_261_122)
}

/// Saves an input that broke a rule and fails with where to find it.
fn fail(what: &str, name: &str, iteration: usize, input: &[u8]) -> ! {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    std::fs::create_dir_all(&dir).ok();
    let file = dir.join(format!("{}-{iteration}.bin", name.replace('/', "_")));
    std::fs::write(&file, input).ok();
    panic!(
        "{what}: {name}, seed {}, iteration {iteration}; input saved to {}",
        seed(),
        file.display()
    );
}

/// The most a decode may hold at once: the output, one scratch block or conversion copy of it,
/// copies of the input, and the decoders' fixed state (10 MiB: it was set when the zstd decoder
/// kept a window of up to 8 MiB; ours keeps none, its output is the window).
/// pco (the pcodec decoder) sizes its delta-lookback state and page buffers from the stream's
/// own metadata, up to the format's maxima (chunks of up to 2^24 numbers), before any number is
/// decoded: a hostile stream of a few bytes makes it allocate up to a few hundred MiB (181 MB was
/// seen). That is bounded, but not by the chunk's size; the README's "Limits and safety" says so.
/// pcodec chunks are held to this bound instead, which still catches growth without end; it runs
/// in the second module, where an allocation wasm memory cannot hold ends only that call.
const PCO_STATE: usize = 1 << 30;

fn allowed_peak(decoded: usize, input: usize) -> usize {
    3 * decoded + 2 * input + (10 << 20)
}

#[test]
fn mutated_real_chunks_never_panic_hang_or_overallocate() {
    let _serial = serial();
    let targets = targets();
    assert!(
        targets.len() >= 150,
        "found only {} fixture arrays",
        targets.len()
    );
    let mut rng = Rng(seed() | 1);
    let (mut ok, mut errors, mut slowest) = (0usize, 0usize, Duration::ZERO);
    for iteration in 0..iterations() {
        let t = &targets[rng.below(targets.len())];
        let mut input = t.chunk.clone();
        if iteration % 10 != 0 {
            mutate(&mut rng, &mut input);
        }
        let decoded_size = t.repr.num_bytes().unwrap();
        let copy = input.clone();
        let (result, peak, elapsed) = measured(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                t.pipeline.decode(copy, &t.repr)
            }))
        });
        let Ok(result) = result else {
            fail("panic", &t.name, iteration, &input)
        };
        let variable = t.repr.data_type.is_variable();
        match result {
            // A variable-length chunk decodes to its validated vlen layout, which the array layer
            // takes apart; that must succeed for every chunk the pipeline accepted.
            Ok(out) if variable => {
                let n = t.repr.shape.iter().product::<u64>() as usize;
                let handles = Items::default().push_chunk(&out, n, usize::MAX);
                // F-order chunks then reorder the handles.
                if handles.is_err()
                    || t.pipeline
                        .restore_order(handles.unwrap_or_default(), &t.repr)
                        .is_err()
                {
                    fail(
                        "accepted a vlen chunk it cannot take apart",
                        &t.name,
                        iteration,
                        &input,
                    )
                }
                ok += 1;
            }
            Ok(out) if out.len() != decoded_size => {
                fail("wrong decoded size", &t.name, iteration, &input)
            }
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(
                    !e.codec.is_empty() && !e.reason.is_empty(),
                    "{}: an error without codec or reason",
                    t.name
                );
                errors += 1;
            }
        }
        // Variable-length chunks have no size known in advance: their bound is the general
        // decoded-size limit, so only fixed-size chunks are held to their declared size.
        if !variable && peak > allowed_peak(decoded_size, input.len()) + t.extra_allowance {
            fail(
                &format!("allocated {peak} bytes for a {decoded_size}-byte chunk"),
                &t.name,
                iteration,
                &input,
            );
        }
        if elapsed > Duration::from_secs(5) {
            fail("took more than 5 s", &t.name, iteration, &input);
        }
        slowest = slowest.max(elapsed);
    }
    println!(
        "{} targets, {} iterations (seed {}): {ok} decoded, {errors} rejected, slowest {:?}",
        targets.len(),
        iterations(),
        seed(),
        slowest
    );
}

#[test]
fn random_bytes_into_raw_decoders_never_panic() {
    let _serial = serial();
    let mut rng = Rng(seed() ^ 0x9E37_79B9_7F4A_7C15);
    for iteration in 0..iterations() {
        let len = rng.below(300);
        let mut input: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        if iteration % 3 == 0 && input.len() >= 16 {
            // A plausible Blosc header over random blocks, to get past the first checks.
            input[0] = 2;
            input[1] = 1;
            input[2] &= 0xF7;
            let n = rng.below(4096) as u32;
            input[4..8].copy_from_slice(&n.to_le_bytes());
            input[12..16].copy_from_slice(&(len as u32).to_le_bytes());
        }
        let out_len = rng.below(5000);
        let mut out = vec![0u8; out_len];
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = blosclz::decompress(&input, &mut out);
            let _ = snappy::decompress(&input, &mut out);
            let _ = zarr_wasm::codecs::blosc::decompress(&input, None);
            let _ = zarr_wasm::codecs::blosc::decompress(&input, Some(out_len));
            let _ = zarr_wasm::codecs::lz4::decompress(&input, None);
            let _ = zarr_wasm::codecs::zstd::decompress_into(&input, &mut out);
        }));
        if run.is_err() {
            fail("panic in a raw decoder", "random", iteration, &input);
        }
    }
}

#[test]
fn hostile_headers_are_refused_before_allocating() {
    let _serial = serial();
    // A 16-byte Blosc header that claims 4 GiB, and an LZ4 prefix that claims 4 GiB.
    let mut blosc = vec![2, 1, 0x01, 2];
    blosc.extend(u32::MAX.to_le_bytes());
    blosc.extend(65536u32.to_le_bytes());
    blosc.extend(16u32.to_le_bytes());
    let (result, peak, _) = measured(|| zarr_wasm::codecs::blosc::decompress(&blosc, None));
    assert!(result.unwrap_err().contains("maxDecodedChunkBytes"));
    assert!(peak < 1 << 20, "{peak}");
    let (result, peak, _) = measured(|| zarr_wasm::codecs::blosc::decompress(&blosc, Some(1000)));
    assert!(result.unwrap_err().contains("should have 1000"));
    assert!(peak < 1 << 20, "{peak}");
    let mut lz4 = u32::MAX.to_le_bytes().to_vec();
    lz4.extend([0x10, b'a']);
    let (result, peak, _) = measured(|| zarr_wasm::codecs::lz4::decompress(&lz4, Some(64)));
    assert!(result.unwrap_err().contains("should have 64"));
    assert!(peak < 1 << 20, "{peak}");
}
