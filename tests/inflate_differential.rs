//! The shipped DEFLATE decoder (miniz_oxide, pure Rust, behind `codecs::inflate`'s bounds) checked
//! against zlib's inflate (C, through flate2: a dev-dependency only): stored, fixed and dynamic
//! blocks from zlib at every level and from miniz_oxide with only static or only stored blocks, raw
//! and zlib-wrapped, with the output grown from a small guess and decoded into a buffer of the exact
//! size; gzip streams of one and several members; every gzip and zlib chunk of the committed
//! fixture stores; and mutated streams, where both decoders must agree on whether the stream is
//! valid and, if it is, on every byte and on where it ends.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{iterations, walk, Rng};
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use miniz_oxide::deflate::core::{
    compress, deflate_flags, CompressorOxide, TDEFLFlush, TDEFLStatus,
};
use std::path::PathBuf;
use zarr_wasm::codecs::gzip::gunzip;
use zarr_wasm::compression::inflate::{inflate_append, inflate_into, Wrapper};

fn samples(rng: &mut Rng) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for &len in &[0usize, 1, 9, 300, 65_535, 65_536, 70_000, 400_000] {
        out.push((
            format!("random {len}"),
            (0..len).map(|_| rng.next() as u8).collect(),
        ));
        out.push((format!("constant {len}"), vec![0x5A; len]));
        let image: Vec<u8> = (0..len / 2)
            .flat_map(|i| {
                let (x, y) = ((i % 512) as f64, (i / 512) as f64);
                let v = 2000.0 + 800.0 * (x / 37.0).sin() * (y / 23.0).cos() + rng.below(40) as f64;
                (v as u16).to_le_bytes()
            })
            .collect();
        out.push((format!("image {len}"), image));
        let mask: Vec<u8> = (0..len).map(|_| u8::from(rng.below(50) == 0)).collect();
        out.push((format!("mask {len}"), mask));
        // Short periods: matches that overlap themselves (distances 1 to 7).
        let period = 1 + rng.below(7);
        let pattern: Vec<u8> = (0..period).map(|_| rng.next() as u8).collect();
        out.push((
            format!("period {period} {len}"),
            pattern.iter().copied().cycle().take(len).collect(),
        ));
    }
    out
}

/// zlib's deflate (C) at `level`, raw or zlib-wrapped.
fn zlib_compress(data: &[u8], level: u32, wrapped: bool) -> Vec<u8> {
    let mut c = Compress::new(Compression::new(level), wrapped);
    let mut out = Vec::with_capacity(data.len() + data.len() / 100 + 64);
    loop {
        let consumed = c.total_in() as usize;
        let status = c
            .compress_vec(&data[consumed..], &mut out, FlushCompress::Finish)
            .unwrap();
        if status == Status::StreamEnd {
            return out;
        }
        out.reserve(out.capacity().max(64));
    }
}

/// miniz_oxide's deflate with `flags` added (only static blocks, or only stored ones), raw.
fn miniz_compress(data: &[u8], flags: u32) -> Vec<u8> {
    let mut c = CompressorOxide::new(flags | 64);
    let mut out = vec![0u8; data.len() * 2 + 1024];
    let (status, _, written) = compress(&mut c, data, &mut out, TDEFLFlush::Finish);
    assert_eq!(status, TDEFLStatus::Done);
    out.truncate(written);
    out
}

/// zlib's inflate (C) of `stream`: its output and the input it used, or `None` if it refuses it.
fn zlib_inflate(stream: &[u8], wrapped: bool, limit: usize) -> Option<(Vec<u8>, usize)> {
    let mut d = Decompress::new(wrapped);
    let mut out = Vec::with_capacity(limit + 1);
    match d.decompress_vec(stream, &mut out, FlushDecompress::Finish) {
        Ok(Status::StreamEnd) => Some((out, d.total_in() as usize)),
        _ => None,
    }
}

/// Both entry points against the data: a growing output from a small guess, and the exact size.
fn check(name: &str, stream: &[u8], data: &[u8], wrapper: Wrapper) {
    let mut grown = vec![1, 2, 3];
    let used = inflate_append(stream, &mut grown, data.len() + 3, wrapper)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(used, stream.len(), "{name}: input used");
    assert!(
        grown[..3] == [1, 2, 3] && grown[3..] == *data,
        "{name}: bytes (growing)"
    );
    let mut exact = vec![0u8; data.len()];
    let written =
        inflate_into(stream, &mut exact, wrapper).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        written == data.len() && exact == data,
        "{name}: bytes (exact)"
    );
    if !data.is_empty() {
        let mut small = vec![0u8; data.len() - 1];
        let err = inflate_into(stream, &mut small, wrapper).unwrap_err();
        assert!(err.contains("larger than"), "{name}: {err}");
        let err = inflate_append(stream, &mut Vec::new(), data.len() - 1, wrapper).unwrap_err();
        assert!(err.contains("larger than"), "{name}: {err}");
    }
}

#[test]
fn zlib_and_miniz_streams_of_every_level_and_block_type_decode_exactly() {
    let mut rng = Rng(17);
    let mut streams = 0;
    for (name, data) in samples(&mut rng) {
        for level in 0..=9 {
            for wrapped in [false, true] {
                let stream = zlib_compress(&data, level, wrapped);
                let wrapper = if wrapped { Wrapper::Zlib } else { Wrapper::Raw };
                check(
                    &format!("{name}, zlib level {level}, wrapped {wrapped}"),
                    &stream,
                    &data,
                    wrapper,
                );
                streams += 1;
            }
        }
        for (what, flags) in [
            (
                "static blocks",
                deflate_flags::TDEFL_FORCE_ALL_STATIC_BLOCKS,
            ),
            ("stored blocks", deflate_flags::TDEFL_FORCE_ALL_RAW_BLOCKS),
        ] {
            let stream = miniz_compress(&data, flags);
            assert_eq!(
                zlib_inflate(&stream, false, data.len())
                    .map(|(o, _)| o)
                    .as_deref(),
                Some(&data[..])
            );
            check(
                &format!("{name}, miniz {what}"),
                &stream,
                &data,
                Wrapper::Raw,
            );
            streams += 1;
        }
    }
    eprintln!("{streams} streams decoded exactly");
}

#[test]
fn gzip_members_one_or_several_and_trailing_padding() {
    use std::io::Write;
    let mut rng = Rng(5);
    let a: Vec<u8> = (0..50_000).map(|_| rng.below(4) as u8).collect();
    let b: Vec<u8> = (0..30_000).map(|i| (i % 7) as u8).collect();
    let member = |data: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), Compression::new(5));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let one = member(&a);
    assert_eq!(gunzip(&one, a.len()).unwrap(), a);
    let mut two = member(&a);
    two.extend(member(&b));
    two.extend([0u8; 5]);
    assert_eq!(
        gunzip(&two, a.len() + b.len()).unwrap(),
        [a.clone(), b].concat()
    );
    // A damaged CRC-32 is caught.
    let mut bad = one.clone();
    let n = bad.len();
    bad[n - 6] ^= 1;
    assert!(gunzip(&bad, a.len()).unwrap_err().contains("CRC-32"));
}

#[test]
fn every_gzip_and_zlib_chunk_of_the_fixture_stores_decodes_as_zlib_does() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests/fixtures", "bench/data"] {
        walk(&root.join(dir), &mut files);
    }
    let (mut gzip, mut zlib) = (0, 0);
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        let name = file.display().to_string();
        if bytes.starts_with(&[0x1F, 0x8B]) {
            let mut reference = Vec::new();
            use std::io::Read;
            // Chunks the reference refuses are the hand-made corrupt ones.
            if flate2::read::MultiGzDecoder::new(&bytes[..])
                .read_to_end(&mut reference)
                .is_ok()
            {
                assert_eq!(
                    gunzip(&bytes, reference.len()).unwrap_or_else(|e| panic!("{name}: {e}")),
                    reference,
                    "{name}"
                );
                gzip += 1;
            }
        } else if bytes.len() > 2
            && bytes[0] & 0x0F == 8
            && (u16::from(bytes[0]) << 8 | u16::from(bytes[1])) % 31 == 0
        {
            if let Some((reference, used)) = zlib_inflate(&bytes, true, 64 << 20) {
                if used == bytes.len() {
                    let mut out = Vec::new();
                    inflate_append(&bytes, &mut out, reference.len(), Wrapper::Zlib)
                        .unwrap_or_else(|e| panic!("{name}: {e}"));
                    assert_eq!(out, reference, "{name}");
                    zlib += 1;
                }
            }
        }
    }
    eprintln!("{gzip} gzip and {zlib} zlib chunks decoded as zlib decodes them");
    assert!(gzip > 50 && zlib > 10, "{gzip} gzip, {zlib} zlib chunks");
}

#[test]
fn mutated_streams_are_judged_as_zlib_judges_them() {
    let mut rng = Rng(99);
    let data = samples(&mut Rng(3))
        .into_iter()
        .find(|(n, _)| n == "image 70000")
        .unwrap()
        .1;
    let streams: Vec<Vec<u8>> = [1, 6, 9]
        .iter()
        .map(|&l| zlib_compress(&data, l, false))
        .chain([miniz_compress(
            &data,
            deflate_flags::TDEFL_FORCE_ALL_STATIC_BLOCKS,
        )])
        .collect();
    let (mut same, mut refused) = (0, 0);
    for i in 0..iterations() {
        let mut m = streams[i % streams.len()].clone();
        for _ in 0..1 + rng.below(4) {
            if m.is_empty() {
                break;
            }
            match rng.below(3) {
                0 => {
                    let at = rng.below(m.len());
                    m[at] ^= 1 << rng.below(8);
                }
                1 => {
                    let at = rng.below(m.len());
                    m[at] = rng.next() as u8;
                }
                _ => m.truncate(rng.below(m.len() + 1)),
            }
        }
        let limit = data.len() * 2;
        let reference = zlib_inflate(&m, false, limit).filter(|(o, _)| o.len() <= limit);
        let mut ours = Vec::new();
        let result = inflate_append(&m, &mut ours, limit, Wrapper::Raw);
        match (reference, result) {
            (Some((want, used)), Ok(our_used)) => {
                assert_eq!(ours, want, "mutation {i}: bytes");
                assert_eq!(our_used, used, "mutation {i}: input used");
                same += 1;
            }
            (None, Err(_)) => refused += 1,
            (Some(_), Err(e)) => panic!("mutation {i}: zlib decodes it, we refuse it: {e}"),
            (None, Ok(_)) => panic!("mutation {i}: zlib refuses it, we decode it"),
        }
    }
    eprintln!("{same} mutated streams decoded as zlib does, {refused} refused by both");
}
