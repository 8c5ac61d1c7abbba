//! The second module's decoders in steps, as reads decode them where an event loop waits. Its
//! decompressors (numcodecs' `bz2` and `lzma`: XZ, alone and raw LZMA2): every chunk the writers
//! wrote (Python's libbzip2 and liblzma through zarr-python, GDAL, zarr-vectors) decodes step by
//! step to exactly what the one-shot decode gives, with budgets from a byte to a few KiB, each
//! step making about its budget of output and no more; so do chunks of zeros that inflate to 300
//! MB (Python's bz2 and lzma wrote them: `scripts/make_bombs.py`), which stop at the
//! decoded-size cap a step at a time, each step bounded; damaged chunks give in steps what they
//! give in one go; and a decode left between steps has done only those steps. Its array codecs
//! (pcodec, and zfp; zfpy goes the same way): a 16 MiB chunk, read with a host installed,
//! decodes over many turns of the event loop to what it decodes to in one go, and an abort ends
//! it at the next step.
#![cfg(not(target_arch = "wasm32"))]
#![allow(clippy::disallowed_methods)] // (tests sort with the standard library: see clippy.toml)

mod common;

use common::fake_host::{Abortable, FakeHost};

use futures_executor::block_on;
use serde_json::{Map, Value};
use std::cell::Cell;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};
use zarr_wasm::codecs::bz2::Bz2Codec;
use zarr_wasm::codecs::codec::{BytesToBytesCodec, DecodedSize, StepDecoder};
use zarr_wasm::codecs::configuration::Configuration;
use zarr_wasm::codecs::lzma::LzmaCodec;
use zarr_wasm::collections::buffer::Output;
use zarr_wasm::host::install;
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::{open, Array, ErrorKind, Node};

const MIB: usize = 1 << 20;

/// The codec a stored chunk decodes with, from its array's metadata (`codecs`' last entry in v3,
/// the compressor in v2), where that is bz2 or lzma.
fn codec_of(meta: &Value) -> Option<Box<dyn BytesToBytesCodec>> {
    let (name, config) = match (meta.get("codecs"), meta.get("compressor")) {
        (Some(Value::Array(codecs)), _) => {
            let last = codecs.last()?;
            (
                last.get("name")?.as_str()?.to_string(),
                last.get("configuration").cloned(),
            )
        }
        (_, Some(compressor)) => (
            format!("numcodecs.{}", compressor.get("id")?.as_str()?),
            Some(compressor.clone()),
        ),
        _ => return None,
    };
    let config = match config {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    let config = Configuration::new(&config);
    match name.as_str() {
        "numcodecs.bz2" => Some(Box::new(Bz2Codec::from_configuration(config).ok()?)),
        "numcodecs.lzma" => Some(Box::new(LzmaCodec::from_configuration(config).ok()?)),
        _ => None,
    }
}

/// Every stored chunk of the fixtures' bz2 and lzma arrays, with its codec (sharded arrays,
/// whose stored chunks are shards, and N5's headed blocks aside).
fn fixture_chunks() -> Vec<(String, Box<dyn BytesToBytesCodec>, Vec<u8>)> {
    let mut files = Vec::new();
    common::walk(&common::fixture_path(""), &mut files);
    files.sort();
    let mut chunks = Vec::new();
    for meta_path in files.iter().filter(|p| {
        p.file_name()
            .is_some_and(|n| n == "zarr.json" || n == ".zarray")
    }) {
        let Ok(meta) = serde_json::from_slice::<Value>(&std::fs::read(meta_path).unwrap()) else {
            continue;
        };
        if meta_path.to_string_lossy().contains("n5_default") {
            continue;
        }
        if codec_of(&meta).is_none() {
            continue;
        }
        let dir = meta_path.parent().unwrap();
        let v3 = meta_path.ends_with("zarr.json");
        for key in files.iter().filter(|p| stored_chunk(p, dir, v3)) {
            let codec = codec_of(&meta).unwrap();
            chunks.push((
                key.display().to_string(),
                codec,
                std::fs::read(key).unwrap(),
            ));
        }
    }
    chunks
}

/// Whether `path` is a stored chunk of the array in `dir` (v3: below its `c/`; v2: any file of
/// its own that is not a document).
fn stored_chunk(path: &Path, dir: &Path, v3: bool) -> bool {
    let Ok(rel) = path.strip_prefix(dir) else {
        return false;
    };
    let parts: Vec<_> = rel
        .iter()
        .map(|p| p.to_string_lossy().to_string())
        .collect();
    match v3 {
        true => parts.len() >= 2 && parts[0] == "c",
        false => {
            parts.len() == 1 && !parts[0].starts_with('.')
                || parts.len() > 1 && parts.iter().all(|p| p.chars().all(|c| c.is_ascii_digit()))
        }
    }
}

/// What stepping a decoder did.
#[derive(Debug)]
struct Stepped {
    steps: usize,
    /// The most output one step made.
    largest: usize,
    /// The longest one step took.
    slowest: Duration,
}

/// Runs `decoder` in steps of `budget` into a buffer of `expected`'s size that first holds bytes
/// unlike the expected ones at every place: after each step, the output that matches `expected`
/// from the start is what the decoder has written (the decoders write in order).
fn step_fixed(
    decoder: &mut dyn StepDecoder,
    expected: &[u8],
    budget: usize,
) -> Result<(Vec<u8>, Stepped), String> {
    let mut out: Vec<u8> = expected.iter().map(|b| b ^ 0xA5).collect();
    let mut stepped = Stepped {
        steps: 0,
        largest: 0,
        slowest: Duration::ZERO,
    };
    let mut done = 0usize;
    loop {
        let start = Instant::now();
        let finished = decoder
            .step(&mut Output::Fixed(&mut out), budget)
            .map_err(|e| e.to_string())?;
        stepped.slowest = stepped.slowest.max(start.elapsed());
        stepped.steps += 1;
        let matching = out[done..]
            .iter()
            .zip(&expected[done..])
            .position(|(a, b)| a != b)
            .unwrap_or(expected.len() - done);
        stepped.largest = stepped.largest.max(matching);
        done += matching;
        if let Some(len) = finished {
            assert_eq!(len, expected.len());
            return Ok((out, stepped));
        }
        assert!(
            stepped.steps <= 3 * expected.len() + 10,
            "the decode does not end"
        );
    }
}

/// Runs `decoder` in steps of `budget` into a vector it grows; the output and the step count.
fn step_growing(decoder: &mut dyn StepDecoder, budget: usize) -> Result<(Vec<u8>, usize), String> {
    let mut out = Vec::new();
    for steps in 1.. {
        let step = decoder.step(&mut Output::Growing(&mut out), budget);
        if let Some(len) = step.map_err(|e| e.to_string())? {
            out.truncate(len);
            return Ok((out, steps));
        }
    }
    unreachable!()
}

/// The most a step may make past its budget: a match (LZMA), or an uncompressed LZMA2 chunk (in
/// XZ and raw streams, up to 64 KiB, copied whole).
fn slack(codec: &dyn BytesToBytesCodec, encoded: &[u8]) -> usize {
    match codec.name() {
        "numcodecs.bz2" => 0,
        _ if encoded.first() == Some(&0x5d) => 273,
        _ => 1 << 16,
    }
}

#[test]
fn every_bz2_and_lzma_fixture_chunk_decodes_alike_in_tiny_steps_and_in_one_go() {
    let chunks = fixture_chunks();
    let mut counts = [0usize; 2];
    for (name, codec, encoded) in &chunks {
        let expected = codec
            .decode(encoded.clone(), DecodedSize::AtMost(64 * MIB))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        counts[usize::from(codec.name() == "numcodecs.lzma")] += 1;
        let size = DecodedSize::Exact(expected.len());
        let mut into = vec![0u8; expected.len()];
        codec.decode_into(encoded.clone(), &mut into).unwrap();
        assert!(into == expected, "{name}: decode_into differs");
        for budget in [1, 7, 100, 4096] {
            let Ok(mut decoder) = codec.stepwise(encoded.clone(), size) else {
                panic!("{name}: no stepwise decoder");
            };
            let (out, stepped) = step_fixed(&mut *decoder, &expected, budget)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(out == expected, "{name}: steps of {budget} differ");
            let slack = slack(&**codec, encoded);
            assert!(
                stepped.largest <= budget + slack,
                "{name}: a step of {budget} made {}",
                stepped.largest
            );
            assert!(
                stepped.steps >= expected.len() / (budget + slack),
                "{name}: {stepped:?}"
            );
            let cap = DecodedSize::AtMost(expected.len() + 1000);
            let mut decoder = codec.stepwise(encoded.clone(), cap).ok().unwrap();
            let (grown, _) = step_growing(&mut *decoder, budget).unwrap();
            assert!(
                grown == expected,
                "{name}: steps of {budget}, grown, differ"
            );
        }
    }
    println!("bz2, lzma chunks: {counts:?}");
    // zarr-python's, GDAL's and zarr-vectors' chunks, by the dozen.
    assert!(counts.iter().all(|&n| n >= 20), "{counts:?}");
}

/// A bomb (`tests/fixtures/bombs/`): its codec and bytes.
fn bomb(name: &str) -> (Box<dyn BytesToBytesCodec>, Vec<u8>) {
    let bytes = std::fs::read(common::fixture_path(&format!("bombs/{name}"))).unwrap();
    let lzma = |format: u64| {
        let config = serde_json::json!({ "format": format });
        let codec = LzmaCodec::from_configuration(Configuration::new(config.as_object().unwrap()));
        Box::new(codec.unwrap()) as Box<dyn BytesToBytesCodec>
    };
    match name {
        "zeros_300mb.bz2" => (Box::new(Bz2Codec::default()), bytes),
        // 300 streams of 1 MiB each in a row: 300 MiB.
        "zeros_1mib.xz" => (lzma(1), bytes.repeat(300)),
        _ => (lzma(2), bytes),
    }
}

#[test]
fn chunks_that_inflate_to_300_mb_stop_at_the_cap_a_bounded_step_at_a_time() {
    // The cap of chunks whose decoded size nothing fixes (strings): 256 MiB.
    let cap = DecodedSize::AtMost(256 * MIB);
    for name in ["zeros_300mb.bz2", "zeros_1mib.xz", "zeros_300mb.lzma"] {
        let (codec, encoded) = bomb(name);
        let mut decoder = codec.stepwise(encoded.clone(), cap).ok().unwrap();
        let mut out = Vec::new();
        let (mut steps, mut largest) = (0usize, 0usize);
        let began = Instant::now();
        let err = loop {
            let before = out.len();
            let step = decoder.step(&mut Output::Growing(&mut out), MIB);
            largest = largest.max(out.len().saturating_sub(before));
            steps += 1;
            match step {
                Ok(None) => {}
                Ok(Some(len)) => panic!("{name}: decoded {len} bytes"),
                Err(e) => break e,
            }
        };
        assert_eq!(err.codec, codec.name(), "{name}");
        assert!(
            err.reason.contains("more than the 268435456 bytes"),
            "{name}: {err}"
        );
        // A step of each MiB up to the cap, none of them making much more than its MiB (the work
        // of a step is its output: counted, not timed, so that a loaded machine cannot fail it).
        let took = began.elapsed();
        println!("{name}: {steps} steps to the cap in {took:?}, the largest {largest} bytes");
        assert!((250..=300).contains(&steps), "{name}: {steps} steps");
        assert!(largest <= 2 * MIB, "{name}: a step made {largest} bytes");
        // Every step's share is made in order and bounded: into a buffer of 64 MiB, a step of
        // 1 MiB (and a match) at a time.
        // (Room past the 64 MiB for the match that crosses it.)
        let mut fixed = vec![0xA5u8; 65 * MIB];
        let mut decoder = codec
            .stepwise(encoded.clone(), DecodedSize::Exact(65 * MIB))
            .ok()
            .unwrap();
        let mut written = 0;
        let mut largest = 0;
        for _ in 0..64 {
            assert!(decoder
                .step(&mut Output::Fixed(&mut fixed), MIB)
                .unwrap()
                .is_none());
            let now = fixed.iter().position(|&b| b != 0).unwrap_or(fixed.len());
            largest = largest.max(now - written);
            written = now;
        }
        // (XZ's steps are charged for each stream's headers, block and model too: 1 MiB
        // streams make a little less a step. A step that ends inside a match finishes it.)
        assert!(
            (63 * MIB..=64 * (MIB + 273)).contains(&written) && largest <= MIB + 273,
            "{name}: {written} bytes in 64 steps, at most {largest} a step"
        );
    }
}

#[test]
fn chunks_that_inflate_to_300_mb_decode_in_steps_as_in_one_go_under_a_raised_cap() {
    let cap = DecodedSize::AtMost(300_000_000);
    for name in ["zeros_300mb.bz2", "zeros_300mb.lzma"] {
        let (codec, encoded) = bomb(name);
        let whole = codec.decode(encoded.clone(), cap).unwrap();
        assert_eq!(whole.len(), 300_000_000, "{name}");
        assert!(whole.iter().all(|&b| b == 0), "{name}");
        let mut decoder = codec.stepwise(encoded, cap).ok().unwrap();
        let (stepped, steps) = step_growing(&mut *decoder, MIB).unwrap();
        assert!(stepped == whole, "{name}");
        // 286 steps of output, and as many more moving it into the result (see `Stepwise`).
        assert!((500..=620).contains(&steps), "{name}: {steps} steps");
    }
}

#[test]
fn a_decode_left_between_steps_has_done_only_those_steps() {
    // A read that is aborted drops its decoder between two steps: nothing runs after, and what
    // was decoded up to there is the start of the chunk.
    for name in ["zeros_300mb.bz2", "zeros_1mib.xz", "zeros_300mb.lzma"] {
        let (codec, encoded) = bomb(name);
        let size = DecodedSize::Exact(16 * MIB);
        let mut decoder = codec.stepwise(encoded, size).ok().unwrap();
        let mut out = vec![0xA5u8; 16 * MIB];
        for _ in 0..3 {
            let done = decoder.step(&mut Output::Fixed(&mut out), MIB).unwrap();
            assert_eq!(done, None, "{name}");
        }
        drop(decoder);
        let written = out.iter().position(|&b| b != 0).unwrap_or(out.len());
        assert!(
            (3 * MIB - (64 << 10)..=3 * MIB + 273).contains(&written),
            "{name}: {written} bytes written in three steps"
        );
        assert!(out[written..].iter().all(|&b| b == 0xA5), "{name}");
    }
}

#[test]
fn damaged_chunks_decode_in_steps_as_in_one_go() {
    // Fixture chunks with bytes changed, cut short or cut into, stepped with budgets from 1 byte
    // to a few KiB: never a panic, and the same bytes or the same refusal as in one go.
    let chunks: Vec<_> = fixture_chunks()
        .into_iter()
        .map(|(_, codec, bytes)| {
            let size = codec
                .decode(bytes.clone(), DecodedSize::AtMost(64 * MIB))
                .unwrap()
                .len();
            (codec, bytes, size)
        })
        .collect();
    let mut rng = common::Rng(0xb21a_5eed);
    let (mut same, mut refused) = (0, 0);
    for _ in 0..common::iterations() {
        let (codec, bytes, size) = &chunks[rng.below(chunks.len())];
        let mut bad = bytes.clone();
        match rng.below(3) {
            0 => {
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(bad.len());
                    bad[at] ^= 1 << rng.below(8);
                }
            }
            1 => bad.truncate(rng.below(bad.len())),
            _ => {
                let at = rng.below(bad.len());
                bad.drain(at..(at + 1 + rng.below(64)).min(bad.len()));
            }
        }
        let budget = 1 + rng.below(4096);
        for size in [DecodedSize::Exact(*size), DecodedSize::AtMost(size + 100)] {
            let one_go = codec.decode(bad.clone(), size);
            let mut decoder = codec.stepwise(bad.clone(), size).ok().unwrap();
            let mut out = vec![0u8; size.exact().unwrap_or(0)];
            let mut output = match size {
                DecodedSize::Exact(_) => Output::Fixed(&mut out),
                DecodedSize::AtMost(_) => Output::Growing(&mut out),
            };
            let stepped = loop {
                match decoder.step(&mut output, budget) {
                    Ok(Some(len)) => break size.check_len(codec.name(), len).map(|()| len),
                    Ok(None) => {}
                    Err(e) => break Err(e),
                }
            };
            match (one_go, stepped) {
                (Ok(whole), Ok(len)) => {
                    assert!(whole[..] == out[..len], "{}: different bytes", codec.name());
                    same += 1;
                }
                (Err(_), Err(_)) => refused += 1,
                (whole, stepped) => panic!(
                    "{}: in one go {:?}, in steps of {budget} {:?}",
                    codec.name(),
                    whole.map(|w| w.len()),
                    stepped
                ),
            }
        }
    }
    println!("{same} decoded alike, {refused} refused alike");
}

const SIDE: usize = 2048;

/// A 2048 x 2048 float32 array of one chunk (16 MiB decoded) stored as `encoded` by `codec`.
fn one_chunk(codec: Value, encoded: Vec<u8>, signal: Rc<Cell<bool>>) -> Array {
    let meta = serde_json::json!({
        "zarr_format": 3, "node_type": "array", "shape": [SIDE, SIDE], "data_type": "float32",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [SIDE, SIDE]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [codec]
    });
    let mut inner = MemoryStore::new();
    inner.insert("zarr.json", serde_json::to_vec(&meta).unwrap());
    inner.insert("c/0/0", encoded);
    let store = Abortable { inner, signal };
    match block_on(open(Rc::new(store), "")).unwrap() {
        Node::Array(array) => array,
        Node::Group(_) => panic!("a group"),
    }
}

#[test]
fn sixteen_mib_pcodec_and_zfp_chunks_let_the_event_loop_run_and_stop_at_an_abort() {
    let values: Vec<f32> = (0..SIDE * SIDE)
        .map(|i| ((i % SIDE) as f32 * 0.01).sin() * 100.0 + (i / SIDE) as f32 * 0.5)
        .collect();
    let pcodec = pco::standalone::simple_compress(&values, &pco::ChunkConfig::default()).unwrap();
    let zfp = {
        let field = zfp_rs::ZfpField::new(&values, [SIDE, SIDE, 0, 0]).unwrap();
        let mut stream = zfp_rs::ZfpBitStream::new(values.len() * 8).unwrap();
        let config = zfp_rs::ZfpConfig::fixed_accuracy(0.01);
        stream.compress(&config, &field).unwrap();
        stream.flush();
        stream.as_bytes().to_vec()
    };
    let chunks = [
        (
            serde_json::json!({"name": "numcodecs.pcodec", "configuration": {}}),
            pcodec,
        ),
        (
            serde_json::json!({"name": "zfp", "configuration": {"mode": "fixed_accuracy", "tolerance": 0.01}}),
            zfp,
        ),
    ];
    for (codec, encoded) in chunks {
        let name = codec["name"].as_str().unwrap().to_string();
        // In one go, on a thread without a host (no event loop to let run).
        let (codec_there, encoded_there) = (codec.clone(), encoded.clone());
        let whole = std::thread::spawn(move || {
            let arr = one_chunk(codec_there, encoded_there, Rc::default());
            block_on(arr.get(&[])).unwrap().bytes
        })
        .join()
        .unwrap();
        if name == "numcodecs.pcodec" {
            assert!(
                whole == zarr_wasm_extra_bytes(&values),
                "{name}: not the values"
            );
        }
        let host = Rc::new(FakeHost::default());
        install(host.clone());
        let arr = one_chunk(codec, encoded, host.signal.clone());
        // 16 MiB decoded 1 MiB at a time, with a turn between each two.
        let before = host.turns.get();
        let stepped = block_on(arr.get(&[])).unwrap().bytes;
        let turns = host.turns.get() - before;
        assert!(stepped == whole, "{name}: in steps, other values");
        assert!(turns >= 15, "{name}: {turns} turns");
        // The signal fires during the third turn the read gives: it goes no further.
        host.abort_at.set(Some(host.turns.get() + 3));
        let before = host.turns.get();
        let err = block_on(arr.get(&[])).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Aborted, "{name}: {err}");
        assert_eq!(host.turns.get() - before, 3, "{name}: the read went on");
        println!("{name}: a 16 MiB chunk in {turns} turns");
    }
}

/// Float32 values as their native bytes.
fn zarr_wasm_extra_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}
