//! Encoding in steps (`BytesToBytesCodec::encode_stepwise`), as writes do where an event loop
//! waits: gzip, zlib, zstd (with and without its checksum) and Blosc (each compressor, shuffled
//! or not) encode a multi-MiB chunk of an image in many steps of a small budget, and what the
//! steps make decodes, through numcodecs' C libraries' Rust twins where the crate has them and
//! through our decoders, to the chunk; deflate and Blosc make the very bytes of the one-shot
//! encode, zstd a frame within 1 % of its size.
#![cfg(all(feature = "write", not(target_arch = "wasm32")))]

use serde_json::{json, Value};
use std::io::Read;
use zarr_wasm::codecs::blosc::BloscCodec;
use zarr_wasm::codecs::codec::{BytesToBytesCodec, DecodedSize};
use zarr_wasm::codecs::configuration::Configuration;
use zarr_wasm::codecs::gzip::GzipCodec;
use zarr_wasm::codecs::zlib::ZlibCodec;
use zarr_wasm::codecs::zstd::ZstdCodec;

const MIB: usize = 1 << 20;

/// 6 MiB of a smooth uint16 image with noise in its low bits (as microscopy has).
fn image() -> Vec<u8> {
    let mut x = 12_345u64;
    (0..3 * MIB)
        .flat_map(|i| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let (row, col) = ((i / 1024) as f64, (i % 1024) as f64);
            let smooth = 2000.0 + 800.0 * ((row / 90.0).sin() * (col / 70.0).cos());
            ((smooth as u16) + (x >> 60) as u16).to_le_bytes()
        })
        .collect()
}

fn codec(name: &str, config: Value) -> Box<dyn BytesToBytesCodec> {
    let config = Configuration::new(config.as_object().unwrap());
    match name {
        "gzip" => Box::new(GzipCodec::from_configuration(config).unwrap()),
        "zlib" => Box::new(ZlibCodec::from_configuration(config).unwrap()),
        "zstd" => Box::new(ZstdCodec::from_configuration(config).unwrap()),
        "blosc" => Box::new(BloscCodec::from_configuration(config, 2).unwrap()),
        _ => unreachable!(),
    }
}

/// What the steps of `budget` make, and how many steps they took.
fn in_steps(codec: &dyn BytesToBytesCodec, data: Vec<u8>, budget: usize) -> (Vec<u8>, usize) {
    let Ok(mut steps) = codec.encode_stepwise(data) else {
        panic!("{} encodes in steps", codec.name())
    };
    for n in 1.. {
        if let Some(encoded) = steps.step(budget).unwrap() {
            return (encoded, n);
        }
    }
    unreachable!()
}

#[test]
fn large_chunks_encode_in_steps_to_what_decodes_back() {
    let data = image();
    let cases = [
        ("gzip", json!({"level": 1})),
        ("gzip", json!({"level": 6})),
        ("zlib", json!({"level": 6})),
        ("zstd", json!({"level": 3})),
        ("zstd", json!({"level": 5, "checksum": true})),
        (
            "blosc",
            json!({"cname": "zstd", "clevel": 5, "shuffle": "bitshuffle"}),
        ),
        (
            "blosc",
            json!({"cname": "lz4", "clevel": 5, "shuffle": "shuffle"}),
        ),
        (
            "blosc",
            json!({"cname": "lz4hc", "clevel": 5, "shuffle": "noshuffle"}),
        ),
        (
            "blosc",
            json!({"cname": "blosclz", "clevel": 9, "shuffle": "shuffle"}),
        ),
        (
            "blosc",
            json!({"cname": "zlib", "clevel": 1, "shuffle": "shuffle"}),
        ),
    ];
    for (name, config) in cases {
        let what = format!("{name} {config}");
        let codec = codec(name, config);
        let whole = codec.encode(data.clone()).unwrap();
        let (stepped, steps) = in_steps(codec.as_ref(), data.clone(), 256 << 10);
        // Blosc goes a block at a time: up to 512 KiB for its high-ratio compressors.
        assert!(steps >= 12, "{what}: {steps} steps of 256 KiB for 6 MiB");
        if name == "zstd" {
            let (a, b) = (stepped.len() as f64, whole.len() as f64);
            assert!(
                (a / b - 1.0).abs() < 0.01,
                "{what}: {a} bytes in steps, {b} in one"
            );
            // libzstd's decoder (the Rust binding's C) reads the frame, its size in the header.
            let size = zstd::zstd_safe::get_frame_content_size(&stepped).unwrap();
            assert_eq!(size, Some(data.len() as u64), "{what}: the content size");
            assert!(
                zstd::bulk::decompress(&stepped, data.len()).unwrap() == data,
                "{what}"
            );
        } else {
            assert!(
                stepped == whole,
                "{what}: the steps make other bytes than one encode"
            );
        }
        if name == "gzip" {
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&stepped[..])
                .read_to_end(&mut back)
                .unwrap();
            assert!(back == data, "{what}: flate2 reads it back");
        }
        let back = codec
            .decode(stepped, DecodedSize::Exact(data.len()))
            .unwrap();
        assert!(back == data, "{what}: decodes back");
    }
}

#[test]
fn small_or_stored_chunks_are_not_stepped_and_budgets_of_any_size_work() {
    // A Blosc chunk stored whole (level 0) encodes in one go.
    let stored = codec(
        "blosc",
        json!({"cname": "lz4", "clevel": 0, "shuffle": "shuffle"}),
    );
    assert!(stored.encode_stepwise(vec![1; 4096]).is_err());
    // Budgets of 1 byte and of everything, and an empty chunk.
    for name in ["gzip", "zlib", "zstd", "blosc"] {
        let codec = codec(name, json!({}));
        for data in [
            Vec::new(),
            (0..5000u32).flat_map(|i| (i % 97).to_le_bytes()).collect(),
        ] {
            for budget in [1, 4096, usize::MAX] {
                let Ok(mut steps) = codec.encode_stepwise(data.clone()) else {
                    continue; // stored whole
                };
                let encoded = loop {
                    if let Some(encoded) = steps.step(budget).unwrap() {
                        break encoded;
                    }
                };
                let back = codec
                    .decode(encoded, DecodedSize::Exact(data.len()))
                    .unwrap();
                assert!(
                    back == data,
                    "{name}, {} bytes, budget {budget}",
                    data.len()
                );
            }
        }
    }
}

#[test]
fn zstd_contexts_kept_between_frames_write_what_fresh_ones_write() {
    // The thread keeps its compression contexts for the next frames (their tables carried over).
    // Frames of other sizes, levels and checksums, written whole after a frame dropped part way
    // and between the steps of another, must each be the very bytes a context of its own writes
    // (a new thread has none kept); the frame in steps, within 1 % of one written whole (as in
    // the test above), and libzstd reads every one.
    let image = image();
    let zeros = vec![0u8; 128 << 10];
    let frames: Vec<(Value, Vec<u8>)> = vec![
        (json!({"level": 3}), image[..128 << 10].to_vec()),
        (json!({"level": 3}), zeros.clone()),
        (json!({"level": 1}), image[MIB..3 * MIB].to_vec()),
        (
            json!({"level": 9, "checksum": true}),
            image[..4096].to_vec(),
        ),
        (json!({"level": 3}), image[5 * MIB..].to_vec()),
        (json!({"level": -5}), image[..200_000].to_vec()),
        (json!({"level": 3}), zeros),
        (json!({"level": 3}), Vec::new()),
    ];
    let fresh = |config: &Value, data: &[u8]| {
        let (config, data) = (config.clone(), data.to_vec());
        std::thread::spawn(move || codec("zstd", config).encode(data).unwrap())
            .join()
            .unwrap()
    };
    // A frame begun in steps and dropped: its context goes back to the thread unfinished.
    let dropped = codec("zstd", json!({"level": 3}));
    let mut steps = dropped.encode_stepwise(image.clone()).ok().unwrap();
    assert!(steps.step(64 << 10).unwrap().is_none());
    drop(steps);
    for round in 0..2 {
        // One frame in steps, the others whole between its steps.
        let held = codec("zstd", json!({"level": 5}));
        let mut stepped = held.encode_stepwise(image[..MIB].to_vec()).ok().unwrap();
        let mut stepped_out = None;
        for (config, data) in &frames {
            let what = format!("round {round}, zstd {config}, {} bytes", data.len());
            let encoded = codec("zstd", config.clone()).encode(data.clone()).unwrap();
            assert!(encoded == fresh(config, data), "{what}: other bytes");
            assert!(
                zstd::bulk::decompress(&encoded, data.len()).unwrap() == *data,
                "{what}: libzstd reads it back"
            );
            if stepped_out.is_none() {
                stepped_out = stepped.step(100_000).unwrap();
            }
        }
        let stepped_out = loop {
            if let Some(out) = stepped_out
                .take()
                .or_else(|| stepped.step(100_000).unwrap())
            {
                break out;
            }
        };
        let whole = fresh(&json!({"level": 5}), &image[..MIB]);
        let (a, b) = (stepped_out.len() as f64, whole.len() as f64);
        assert!((a / b - 1.0).abs() < 0.01, "in steps: {a} bytes, {b} fresh");
        assert!(zstd::bulk::decompress(&stepped_out, MIB).unwrap() == image[..MIB]);
    }
}
