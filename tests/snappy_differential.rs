//! The shipped Snappy decoder (`zarr_wasm_kernels::snappy`, Blosc's snappy blocks and Parquet's
//! SNAPPY pages) against the `snap` crate (a port of the reference implementation, a
//! dev-dependency only): streams compressed by `snap` from random, repetitive, text-like, numeric
//! and real chunk data at many sizes decode to the same bytes; streams made by hand reach every tag
//! form `snap` does not write (long literals, 4-byte offsets, overlapping copies); and mutated,
//! truncated and random streams are refused alike by both, never a panic, with a declared length
//! that the input cannot make refused before anything is allocated.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{fixture_path, Rng};
use zarr_wasm_kernels::snappy;

/// Ours: the length checked first, then decoded into exactly that many bytes.
fn ours(stream: &[u8]) -> Result<Vec<u8>, String> {
    let len = snappy::decompressed_len(stream)?;
    let mut out = vec![0; len];
    snappy::decompress(stream, &mut out)?;
    Ok(out)
}

fn theirs(stream: &[u8]) -> Option<Vec<u8>> {
    // snap allocates the declared length before decoding: a length no input of this size can
    // make is not handed to it (it would zero up to 4 GiB to refuse it).
    let declared = snap::raw::decompress_len(stream).ok()?;
    if declared > stream.len() * 22 {
        return None;
    }
    snap::raw::Decoder::new().decompress_vec(stream).ok()
}

fn compress(data: &[u8]) -> Vec<u8> {
    snap::raw::Encoder::new().compress_vec(data).unwrap()
}

/// Samples of every kind, `len` bytes each.
fn samples(rng: &mut Rng, len: usize) -> Vec<Vec<u8>> {
    let random: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
    let runs: Vec<u8> = (0..len).map(|i| (i / 97 % 7) as u8).collect();
    let words = [
        "zarr ", "chunk ", "shard ", "array ", "the ", "of ", "\n", "0.5 ",
    ];
    let mut text = Vec::with_capacity(len + 8);
    while text.len() < len {
        text.extend(words[rng.below(words.len())].as_bytes());
    }
    text.truncate(len);
    // float32 of a smooth field, int16 of small steps: what chunks hold.
    let floats: Vec<u8> = (0..len.div_ceil(4))
        .flat_map(|i| ((i as f32 * 0.01).sin() * 100.0).to_le_bytes())
        .take(len)
        .collect();
    let mut level = 0i16;
    let ints: Vec<u8> = (0..len.div_ceil(2))
        .flat_map(|_| {
            level = level.wrapping_add(rng.below(5) as i16 - 2);
            level.to_le_bytes()
        })
        .take(len)
        .collect();
    let zeros = vec![0u8; len];
    vec![random, runs, text, floats, ints, zeros]
}

fn sizes() -> Vec<usize> {
    let mut sizes: Vec<usize> = (0..=130).collect();
    for p in 8..=22 {
        sizes.extend([(1 << p) - 1, 1 << p, (1 << p) + 1]);
    }
    sizes.extend([65_535 + 60, 1_000_003, 3 << 20]);
    sizes
}

#[test]
fn streams_snap_writes_decode_to_the_same_bytes() {
    let mut rng = Rng(46);
    let mut streams = 0;
    for len in sizes() {
        for data in samples(&mut rng, len) {
            let stream = compress(&data);
            assert_eq!(theirs(&stream).as_deref(), Some(&data[..]));
            assert_eq!(ours(&stream).unwrap(), data, "{len} bytes");
            streams += 1;
        }
    }
    // Real chunks: every file of the fixtures' Zarr stores up to 4 MiB.
    let mut files = Vec::new();
    common::walk(&fixture_path("v3.zarr"), &mut files);
    common::walk(&fixture_path("codecs.zarr"), &mut files);
    common::walk(&fixture_path("v2.zarr"), &mut files);
    for file in &files {
        let data = std::fs::read(file).unwrap();
        if data.len() > 4 << 20 {
            continue;
        }
        assert_eq!(ours(&compress(&data)).unwrap(), data, "{}", file.display());
        streams += 1;
    }
    assert!(streams > 1500, "{streams}");
}

/// A Snappy varint.
fn varint(mut n: u64, out: &mut Vec<u8>) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// A literal of `bytes`, with the tag form its length needs (1 to 4 length bytes past 60).
fn literal(bytes: &[u8], out: &mut Vec<u8>) {
    let n = bytes.len() - 1;
    if n < 60 {
        out.push((n as u8) << 2);
    } else {
        let width = (64 - (n as u64).leading_zeros()).div_ceil(8) as usize;
        out.push(((59 + width) as u8) << 2);
        out.extend(&(n as u32).to_le_bytes()[..width]);
    }
    out.extend(bytes);
}

/// A copy of `len` bytes from `offset` back, in the given tag form (1, 2 or 4 offset bytes).
fn copy(form: u8, len: usize, offset: usize, out: &mut Vec<u8>) {
    match form {
        1 => {
            out.push(1 | ((len - 4) as u8) << 2 | ((offset >> 8) as u8) << 5);
            out.push(offset as u8);
        }
        2 => {
            out.push(2 | ((len - 1) as u8) << 2);
            out.extend((offset as u16).to_le_bytes());
        }
        _ => {
            out.push(3 | ((len - 1) as u8) << 2);
            out.extend((offset as u32).to_le_bytes());
        }
    }
}

#[test]
fn every_tag_form_decodes_as_snap_decodes_it() {
    let mut rng = Rng(7);
    for _ in 0..300 {
        // Literals of every length form, copies of each form at any offset and length, copies
        // that overlap what they write (offset < length).
        let mut body = Vec::new();
        let mut made: Vec<u8> = Vec::new();
        while made.len() < 200_000 {
            if made.is_empty() || rng.below(4) == 0 {
                let n = match rng.below(4) {
                    0 => 1 + rng.below(60),
                    1 => 61 + rng.below(200),
                    2 => 257 + rng.below(70_000),
                    _ => 1 + rng.below(5),
                };
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                literal(&bytes, &mut body);
                made.extend(&bytes);
                continue;
            }
            let form = [1, 2, 4][rng.below(3)];
            let (len, max_offset) = match form {
                1 => (4 + rng.below(8), 2047),
                _ => (1 + rng.below(64), if form == 2 { 65_535 } else { 1 << 30 }),
            };
            let offset = 1 + rng.below(made.len().min(max_offset));
            copy(form, len, offset, &mut body);
            for _ in 0..len {
                made.push(made[made.len() - offset]);
            }
        }
        let mut stream = Vec::new();
        varint(made.len() as u64, &mut stream);
        stream.extend(&body);
        assert_eq!(theirs(&stream).as_deref(), Some(&made[..]));
        assert_eq!(ours(&stream).unwrap(), made);
    }
}

#[test]
fn mutated_truncated_and_random_streams_are_refused_alike_never_a_panic() {
    let mut rng = Rng(20261128);
    let mut bases = Vec::new();
    for len in [0, 1, 5, 64, 100, 1000, 5000, 70_000] {
        bases.extend(samples(&mut rng, len).iter().map(|d| compress(d)));
    }
    // Every prefix of a few streams: refused (the output is never all there).
    for stream in bases.iter().filter(|s| s.len() < 3000) {
        for n in 0..stream.len() {
            let cut = &stream[..n];
            assert!(theirs(cut).is_none() || cut.len() == stream.len());
            assert!(ours(cut).is_err(), "a prefix of {n} bytes decoded");
        }
    }
    let (mut decoded, mut refused) = (0, 0);
    for i in 0..60_000 {
        let base = &bases[rng.below(bases.len())];
        let mut s = base.clone();
        for _ in 0..1 + rng.below(3) {
            if s.is_empty() {
                s.push(rng.next() as u8);
            }
            let at = rng.below(s.len());
            match rng.below(6) {
                0 => s[at] ^= 1 << rng.below(8),
                1 => s[at] = [0, 0xff, 0x7f, 0x80, 0xfc, 0xfe, 0x03][rng.below(7)],
                2 => s.truncate(at),
                3 => s.insert(at, rng.next() as u8),
                4 => {
                    s.remove(at);
                }
                _ => {
                    // The preamble made long: a length the rest cannot hold.
                    let mut p = Vec::new();
                    varint(rng.next() >> rng.below(64), &mut p);
                    let end = s.iter().position(|&b| b & 0x80 == 0).map_or(0, |e| e + 1);
                    s.splice(..end.min(s.len()), p);
                }
            }
        }
        if i % 10 == 0 {
            // Random bytes of any length.
            s = (0..rng.below(200)).map(|_| rng.next() as u8).collect();
        }
        match (theirs(&s), ours(&s)) {
            (Some(a), Ok(b)) => {
                assert_eq!(a, b, "case {i}");
                decoded += 1;
            }
            (None, Err(_)) => refused += 1,
            (a, b) => panic!(
                "case {i}: snap {:?}, ours {:?}, on {:02x?}",
                a.map(|v| v.len()),
                b.map(|v| v.len()),
                &s[..s.len().min(64)]
            ),
        }
    }
    eprintln!(
        "60000 mutated and random streams: {decoded} decoded alike, {refused} refused by both"
    );
    assert!(decoded > 100 && refused > 10_000, "{decoded} {refused}");
}
