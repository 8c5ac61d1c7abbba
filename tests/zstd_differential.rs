//! The shipped zstd decoder (pure Rust) checked against the reference one, libzstd (C, a
//! dev-dependency only): frames of every block type (raw, RLE, compressed), levels from -5 to 19,
//! windows from 1 KiB to 8 MiB and larger than the output, with and without content size and checksum,
//! skippable frames, several frames in one chunk, dictionary frames (refused, saying why), damaged
//! frames, and every zstd chunk of the committed fixture stores. Each case decodes both into a
//! buffer of the known size (the chunk path) and into a growing one (variable-length chunks).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{iterations, walk, Rng};
use std::path::PathBuf;
use zarr_wasm::codecs::zstd::{decompress_growing, decompress_into};
use zstd::zstd_safe::CParameter;

const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Data of the kinds chunks hold: incompressible (raw blocks), constant (RLE blocks), smooth 16-bit
/// images, sparse masks and text.
fn samples(rng: &mut Rng) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for &len in &[0usize, 1, 7, 1000, 131_072, 131_073, 700_000] {
        out.push((
            format!("random {len}"),
            (0..len).map(|_| rng.next() as u8).collect(),
        ));
        out.push((format!("constant {len}"), vec![0xA5; len]));
        let image: Vec<u8> = (0..len / 2)
            .flat_map(|i| {
                let x = (i % 512) as f64;
                let y = (i / 512) as f64;
                let v =
                    2000.0 + 800.0 * (x / 37.0).sin() * (y / 23.0).cos() + (rng.below(40) as f64);
                (v as u16).to_le_bytes()
            })
            .collect();
        out.push((format!("image {len}"), image));
        let mask: Vec<u8> = (0..len)
            .map(|_| if rng.below(50) == 0 { 1 } else { 0 })
            .collect();
        out.push((format!("mask {len}"), mask));
        let words = [
            "zarr", "chunk", "shard", "codec", "array", "group", "\n", " ",
        ];
        let text: Vec<u8> = (0..len)
            .flat_map(|_| words[rng.below(words.len())].bytes())
            .take(len)
            .collect();
        out.push((format!("text {len}"), text));
    }
    out
}

struct Settings {
    level: i32,
    checksum: bool,
    content_size: bool,
    window_log: Option<u32>,
}

impl Settings {
    /// A frame at `level` that declares its content size, in the level's own window.
    fn plain(level: i32, checksum: bool) -> Settings {
        Settings {
            level,
            checksum,
            content_size: true,
            window_log: None,
        }
    }
}

fn compress(data: &[u8], s: &Settings) -> Vec<u8> {
    let mut c = zstd::bulk::Compressor::new(s.level).unwrap();
    c.set_parameter(CParameter::ChecksumFlag(s.checksum))
        .unwrap();
    c.set_parameter(CParameter::ContentSizeFlag(s.content_size))
        .unwrap();
    if let Some(w) = s.window_log {
        c.set_parameter(CParameter::WindowLog(w)).unwrap();
        c.set_parameter(CParameter::EnableLongDistanceMatching(w > 20))
            .unwrap();
    }
    c.compress(data).unwrap()
}

/// A frame written as a stream: no content size in the header, as encoders that stream declare.
fn compress_streamed(data: &[u8], level: i32) -> Vec<u8> {
    let mut e = zstd::stream::Encoder::new(Vec::new(), level).unwrap();
    e.include_checksum(true).unwrap();
    std::io::Write::write_all(&mut e, data).unwrap();
    e.finish().unwrap()
}

fn reference(frames: &[u8]) -> Vec<u8> {
    zstd::stream::decode_all(frames).unwrap()
}

/// Both of the shipped decoder's entry points give exactly the reference's bytes.
fn check_same(name: &str, frames: &[u8]) {
    let expected = reference(frames);
    let mut out = vec![0u8; expected.len()];
    let into = if frames.is_empty() {
        Ok(0)
    } else {
        decompress_into(frames, &mut out)
    };
    assert_eq!(into, Ok(expected.len()), "{name}: decoding into a slice");
    assert!(out == expected, "{name}: bytes differ (slice)");
    if !frames.is_empty() {
        let grown =
            decompress_growing(frames, expected.len()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(grown == expected, "{name}: bytes differ (growing)");
    }
}

#[test]
fn every_block_type_level_window_and_flag_decodes_as_libzstd_does() {
    let mut rng = Rng(20_261_124);
    let mut cases = 0;
    let mut block_types = [0usize; 3];
    for (name, data) in samples(&mut rng) {
        for &level in &[-5, 1, 3, 9, 19] {
            for &(checksum, content_size) in &[(true, true), (false, true), (true, false)] {
                for &window_log in &[None, Some(10), Some(17), Some(23)] {
                    if level < 0 && window_log.is_some() {
                        continue;
                    }
                    let s = Settings {
                        level,
                        checksum,
                        content_size,
                        window_log,
                    };
                    let frame = compress(&data, &s);
                    count_block_types(&frame, &mut block_types);
                    check_same(
                        &format!("{name}, level {level}, checksum {checksum}, content size {content_size}, window {window_log:?}"),
                        &frame,
                    );
                    cases += 1;
                }
            }
        }
        if !data.is_empty() {
            check_same(&format!("{name}, streamed"), &compress_streamed(&data, 3));
        }
    }
    // The corpus reached every block type.
    assert!(
        block_types.iter().all(|&n| n > 0),
        "block types (raw, RLE, compressed) seen: {block_types:?}"
    );
    println!("{cases} frames; blocks raw/RLE/compressed: {block_types:?}");
}

/// Counts the frame's blocks by type, walking the block headers (RFC 8878 3.1.1.2).
fn count_block_types(frame: &[u8], counts: &mut [usize; 3]) {
    let descriptor = frame[4];
    let single_segment = descriptor & 0x20 != 0;
    let fcs_len = match descriptor >> 6 {
        0 if single_segment => 1,
        0 => 0,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let dict_len = [0, 1, 2, 4][(descriptor & 3) as usize];
    let mut at = 5 + usize::from(!single_segment) + dict_len + fcs_len;
    while let Some(h) = frame.get(at..at + 3) {
        let header = u32::from(h[0]) | u32::from(h[1]) << 8 | u32::from(h[2]) << 16;
        let (last, kind, size) = (header & 1 != 0, (header >> 1) & 3, (header >> 3) as usize);
        if kind == 3 {
            return;
        }
        counts[kind as usize] += 1;
        at += 3 + if kind == 1 { 1 } else { size };
        if last {
            return;
        }
    }
}

#[test]
fn several_frames_and_skippable_frames_in_one_chunk() {
    let mut rng = Rng(7);
    let a: Vec<u8> = (0..50_000).map(|i| (i % 251) as u8).collect();
    let b: Vec<u8> = (0..20_000).map(|_| rng.next() as u8).collect();
    let mut skippable = vec![0x5A, 0x2A, 0x4D, 0x18];
    skippable.extend(9u32.to_le_bytes());
    skippable.extend(b"user data");
    let mut chunk = skippable.clone();
    chunk.extend(compress(&a, &Settings::plain(3, true)));
    chunk.extend(&skippable);
    chunk.extend(compress_streamed(&b, 1));
    chunk.extend(compress(&a, &Settings::plain(19, false)));
    check_same("three frames and two skippable frames", &chunk);

    // A skippable frame that claims more bytes than follow is an error, not a panic.
    let mut truncated = compress(&a, &Settings::plain(3, true));
    truncated.extend([0x50, 0x2A, 0x4D, 0x18, 0xFF, 0xFF, 0, 0, 1, 2]);
    let mut out = vec![0u8; a.len()];
    let err = decompress_into(&truncated, &mut out).unwrap_err();
    assert!(err.contains("skippable"), "{err}");
}

#[test]
fn dictionary_frames_are_refused_saying_so() {
    let samples: Vec<Vec<u8>> = (0..2000)
        .map(|i| {
            format!(
                "{{\"id\": {i}, \"name\": \"cell-{}\", \"kind\": \"nucleus\", \"area\": {}}}",
                i * 7,
                i % 97
            )
            .into_bytes()
        })
        .collect();
    let dict = zstd::dict::from_samples(&samples, 4096).unwrap();
    let mut c = zstd::bulk::Compressor::with_dictionary(3, &dict).unwrap();
    let frame = c.compress(&samples[5]).unwrap();
    let mut out = vec![0u8; samples[5].len()];
    let err = decompress_into(&frame, &mut out).unwrap_err();
    assert!(err.contains("dictionary"), "{err}");
    let err = decompress_growing(&frame, 1 << 20).unwrap_err();
    assert!(err.contains("dictionary"), "{err}");
}

#[test]
fn frames_declaring_windows_larger_than_their_output_decode() {
    // A 16 MiB window with long-distance matching, for data smaller than the window. The decoder
    // reserves no window (the output is the window), so what a header declares costs nothing:
    // the frame decodes, into a buffer of its size and into a growing one.
    let data: Vec<u8> = (0..(1usize << 20)).map(|i| (i * 31 % 253) as u8).collect();
    let mut c = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    c.set_parameter(CParameter::WindowLog(24)).unwrap();
    c.set_parameter(CParameter::EnableLongDistanceMatching(true))
        .unwrap();
    std::io::Write::write_all(&mut c, &data).unwrap();
    let frame = c.finish().unwrap();
    let mut out = vec![0u8; data.len()];
    assert_eq!(decompress_into(&frame, &mut out), Ok(data.len()));
    assert!(out == data, "decoded wrongly");
    assert!(decompress_growing(&frame, data.len()).unwrap() == data);
    // The same frame's header made to declare a 2 GiB window (window descriptor 0xA8: 2^31).
    let mut huge = frame.clone();
    assert_eq!(huge[4] & 0x20, 0, "the frame has a window descriptor");
    huge[5] = 0xA8;
    assert!(decompress_growing(&huge, data.len()).unwrap() == data);
}

/// `frame` with one to four of its bits flipped at random.
fn flip_bits(frame: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut m = frame.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(m.len());
        m[at] ^= 1 << rng.below(8);
    }
    m
}

#[test]
fn damaged_frames_are_errors_and_checksums_catch_what_the_blocks_do_not() {
    let data: Vec<u8> = (0..100_000u32)
        .flat_map(|i| ((i / 3) as u16).to_le_bytes())
        .collect();
    let frame = compress(&data, &Settings::plain(3, true));
    let mut out = vec![0u8; data.len()];

    // The stored checksum changed: the data decodes but does not match it.
    let mut bad_sum = frame.clone();
    let n = bad_sum.len();
    bad_sum[n - 1] ^= 0x40;
    // Both paths say it in the same words (the Node and browser tests match them).
    let says_mismatch =
        |err: &str| err.contains("content checksum 0x") && err.contains("does not match");
    let err = decompress_into(&bad_sum, &mut out).unwrap_err();
    assert!(says_mismatch(&err), "{err}");
    let err = decompress_growing(&bad_sum, data.len()).unwrap_err();
    assert!(says_mismatch(&err), "{err}");

    // Truncated anywhere: an error.
    for cut in [0, 3, 5, 9, frame.len() / 2, frame.len() - 1] {
        assert!(
            decompress_into(&frame[..cut], &mut out).is_err(),
            "cut at {cut}"
        );
        assert!(
            decompress_growing(&frame[..cut], data.len()).is_err(),
            "cut at {cut}"
        );
    }
    // A smaller output than the frame declares: an error naming the size.
    let mut small = vec![0u8; data.len() - 1];
    let err = decompress_into(&frame, &mut small).unwrap_err();
    assert!(err.contains("larger") || err.contains("content"), "{err}");
    let err = decompress_growing(&frame, data.len() - 1).unwrap_err();
    assert!(err.contains("larger"), "{err}");

    // Mutated frames: the shipped decoder never panics, and where a checksummed frame decodes
    // without error, libzstd agrees on the bytes.
    let mut rng = Rng(99);
    let (mut agreed, mut refused) = (0, 0);
    for _ in 0..iterations() {
        let m = flip_bits(&frame, &mut rng);
        let ours = decompress_into(&m, &mut out);
        match (ours, zstd::bulk::decompress(&m, data.len())) {
            (Ok(k), Ok(theirs)) => {
                assert!(
                    out[..k] == theirs[..],
                    "a mutated frame decoded differently from libzstd"
                );
                agreed += 1;
            }
            (Err(_), _) => refused += 1,
            (Ok(_), Err(e)) => panic!("accepted a frame libzstd refuses ({e})"),
        }
    }
    println!(
        "{} mutated checksummed frames: {agreed} decoded as libzstd, {refused} refused",
        iterations()
    );

    // Without a checksum a damaged frame may decode to other bytes (libzstd too): the rule is
    // only that it is an error or a full-size result, never a panic or an overrun.
    let plain = compress(&data, &Settings::plain(3, false));
    let (mut decoded, mut errors) = (0, 0);
    for _ in 0..iterations() {
        let m = flip_bits(&plain, &mut rng);
        match decompress_into(&m, &mut out) {
            Ok(k) => {
                assert!(k <= out.len());
                decoded += 1
            }
            Err(e) => {
                assert!(!e.is_empty());
                errors += 1
            }
        }
        let _ = decompress_growing(&m, data.len());
    }
    println!(
        "{} mutated frames without checksum: {decoded} decoded, {errors} refused",
        iterations()
    );
}

/// Mutation rounds (FUZZ_ITERS, default 3000), as in tests/fuzz_codecs.rs.

#[test]
fn every_zstd_chunk_of_the_fixture_stores_decodes_as_libzstd_does() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests/fixtures", "bench/data"] {
        walk(&root.join(dir), &mut files);
    }
    let mut checked = 0;
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        if bytes.starts_with(&MAGIC) {
            // Chunks whose frames the reference itself refuses are the hand-made corrupt ones.
            if zstd::stream::decode_all(&bytes[..]).is_ok() {
                check_same(&file.display().to_string(), &bytes);
                checked += 1;
            }
        }
    }
    assert!(
        checked >= 20,
        "only {checked} zstd chunks found in the fixtures"
    );
    println!("{checked} fixture chunks");
}
