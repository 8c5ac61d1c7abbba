//! Decoding in steps (`BytesToBytesCodec::stepwise`), as reads do where an event loop waits: for
//! gzip, zlib, zstd and Blosc, multi-MiB chunks written by the C libraries (zlib through flate2,
//! libzstd, and for Blosc the blocks of every fixture chunk c-blosc wrote, repeated into large
//! chunks) decode step by step to exactly what the one-shot decode gives, each step making about
//! its budget of output and no more; damage met at any step is a `CodecError` of the codec;
//! damaged chunks give in steps of any budget what they give in one go; and a decode left between
//! steps has done only those steps.
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::io::Write;
use zarr_wasm::codecs::blosc::BloscCodec;
use zarr_wasm::codecs::codec::{BytesToBytesCodec, DecodedSize, StepDecoder};
use zarr_wasm::codecs::gzip::GzipCodec;
use zarr_wasm::codecs::zlib::ZlibCodec;
use zarr_wasm::codecs::zstd::ZstdCodec;
use zarr_wasm::collections::buffer::Output;
use zarr_wasm::error::CodecError;

/// The codecs as their configurations give them with nothing in them, for as long as the test runs.
fn gzip_codec() -> &'static GzipCodec {
    Box::leak(Box::default())
}
fn zlib_codec() -> &'static ZlibCodec {
    Box::leak(Box::default())
}
fn zstd_codec() -> &'static ZstdCodec {
    Box::leak(Box::default())
}
fn blosc_codec() -> &'static BloscCodec {
    Box::leak(Box::default())
}

const MIB: usize = 1 << 20;

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A zstd frame from libzstd: with its content size in the header, or streamed (no size), with or
/// without a checksum.
fn zstd_frame(data: &[u8], level: i32, sized: bool, checksum: bool) -> Vec<u8> {
    use zstd::zstd_safe::CParameter;
    if sized {
        let mut c = zstd::bulk::Compressor::new(level).unwrap();
        c.set_parameter(CParameter::ChecksumFlag(checksum)).unwrap();
        return c.compress(data).unwrap();
    }
    let mut e = zstd::stream::Encoder::new(Vec::new(), level).unwrap();
    e.include_checksum(checksum).unwrap();
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A skippable frame of `len` bytes of payload.
fn skippable(len: usize) -> Vec<u8> {
    let mut frame = 0x184D_2A53u32.to_le_bytes().to_vec();
    frame.extend((len as u32).to_le_bytes());
    frame.extend(vec![7u8; len]);
    frame
}

/// What stepping a decoder did.
#[derive(Debug)]
struct Stepped {
    len: usize,
    steps: usize,
    /// The most output one step made.
    largest: usize,
}

/// Runs `decoder` in steps of `budget` into a buffer of `expected`'s size that first holds bytes
/// unlike the expected ones at every place: after each step, the output that matches `expected`
/// from the start is what the decoder has written (every decoder here writes in order).
fn step_fixed(
    decoder: &mut dyn StepDecoder,
    expected: &[u8],
    budget: usize,
) -> Result<(Vec<u8>, Stepped), CodecError> {
    let mut out: Vec<u8> = expected.iter().map(|b| b ^ 0xA5).collect();
    let (mut done, mut steps, mut largest) = (0usize, 0usize, 0usize);
    loop {
        let finished = decoder.step(&mut Output::Fixed(&mut out), budget)?;
        steps += 1;
        let matching = out[done..]
            .iter()
            .zip(&expected[done..])
            .position(|(a, b)| a != b)
            .unwrap_or(expected.len() - done);
        largest = largest.max(matching);
        done += matching;
        if let Some(len) = finished {
            return Ok((
                out,
                Stepped {
                    len,
                    steps,
                    largest,
                },
            ));
        }
        assert!(steps <= expected.len() + 2, "the decode does not end");
    }
}

/// Runs `decoder` in steps of `budget` into a vector it grows; the output and the step count.
fn step_growing(
    decoder: &mut dyn StepDecoder,
    budget: usize,
) -> Result<(Vec<u8>, usize), CodecError> {
    let mut out = Vec::new();
    for steps in 1.. {
        if let Some(len) = decoder.step(&mut Output::Growing(&mut out), budget)? {
            out.truncate(len);
            return Ok((out, steps));
        }
    }
    unreachable!()
}

/// `encoded` decodes with `codec` in steps of `budget` exactly to `expected`, as the one-shot
/// decode does, into the caller's buffer and into a grown one; each step makes at most `budget`
/// plus `slack` bytes (a block or a frame of the format). Returns the steps into the caller's
/// buffer.
fn check_stepwise(
    name: &str,
    codec: &dyn BytesToBytesCodec,
    encoded: &[u8],
    expected: &[u8],
    budget: usize,
    slack: usize,
) -> Stepped {
    let size = DecodedSize::Exact(expected.len());
    let one_shot = codec.decode(encoded.to_vec(), size).unwrap();
    assert!(one_shot == expected, "{name}: one-shot decode differs");
    let mut into = vec![0u8; expected.len()];
    codec.decode_into(encoded.to_vec(), &mut into).unwrap();
    assert!(into == expected, "{name}: one-shot decode_into differs");

    let Ok(mut decoder) = codec.stepwise(encoded.to_vec(), size) else {
        panic!("{name}: no stepwise decoder");
    };
    let (out, stepped) =
        step_fixed(&mut *decoder, expected, budget).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(stepped.len, expected.len(), "{name}");
    assert!(out == expected, "{name}: stepwise decode differs");
    assert!(
        stepped.largest <= budget + slack,
        "{name}: a step made {} bytes, budget {budget} + {slack}",
        stepped.largest
    );
    // Each step does its share: as many steps as the output needs, and no more than a few over.
    let fewest = expected.len().div_ceil(budget + slack);
    assert!(
        stepped.steps >= fewest && stepped.steps <= expected.len().div_ceil(budget) + 3,
        "{name}: {stepped:?}"
    );

    let cap = DecodedSize::AtMost(expected.len() + 12345);
    let Ok(mut decoder) = codec.stepwise(encoded.to_vec(), cap) else {
        panic!("{name}: no stepwise decoder");
    };
    let (grown, _) = step_growing(&mut *decoder, budget).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        grown == expected,
        "{name}: stepwise decode into a grown buffer differs"
    );
    stepped
}

#[test]
fn sixteen_mib_gzip_zlib_and_zstd_chunks_decode_in_steps_as_in_one_go() {
    let data = common::compressible(16 * MIB, 1);
    let half = data.len() / 2;
    // zstd streams whole blocks (128 KiB at most), and takes frames of up to four budgets whole.
    let zstd_block = 3 * MIB + (128 << 10);
    let cases: Vec<(&str, &dyn BytesToBytesCodec, Vec<u8>, usize)> = vec![
        ("gzip", gzip_codec(), common::gzip(&data), 0),
        (
            "gzip, two members",
            gzip_codec(),
            [common::gzip(&data[..half]), common::gzip(&data[half..])].concat(),
            0,
        ),
        ("zlib", zlib_codec(), zlib(&data), 0),
        (
            "zstd level 3, content size",
            zstd_codec(),
            zstd_frame(&data, 3, true, false),
            zstd_block,
        ),
        (
            "zstd level 19, checksum",
            zstd_codec(),
            zstd_frame(&data, 19, true, true),
            zstd_block,
        ),
        (
            "zstd streamed (no content size), checksum",
            zstd_codec(),
            zstd_frame(&data, 3, false, true),
            zstd_block,
        ),
        (
            "zstd, frames of 8 MiB, 512 KiB and the rest around a skippable frame",
            zstd_codec(),
            [
                zstd_frame(&data[..half], 3, true, true),
                skippable(100),
                zstd_frame(&data[half..half + MIB / 2], 1, true, false),
                zstd_frame(&data[half + MIB / 2..], 3, false, false),
            ]
            .concat(),
            zstd_block,
        ),
    ];
    for (name, codec, encoded, slack) in cases {
        let stepped = check_stepwise(name, codec, &encoded, &data, MIB, slack);
        // 16 MiB in steps of 1 MiB: 16 of them (17 where a frame boundary splits one).
        assert!((16..=20).contains(&stepped.steps), "{name}: {stepped:?}");
        println!("{name}: {} bytes, {stepped:?}", encoded.len());
    }
}

#[test]
fn zstd_frames_decode_a_block_at_a_time_straight_into_the_output() {
    // Every frame decodes straight into the output (its window), so a step ends at the first
    // block boundary past its budget, whatever the frames' sizes: 4 MiB frames and a 5 MiB one
    // in steps of 1 MiB (and at most one 128 KiB block more).
    let data = common::compressible(16 * MIB, 5);
    let frames: Vec<u8> = data
        .chunks(4 * MIB)
        .flat_map(|part| zstd_frame(part, 3, true, false))
        .collect();
    let stepped = check_stepwise(
        "zstd, 4 MiB frames",
        zstd_codec(),
        &frames,
        &data,
        MIB,
        128 << 10,
    );
    assert!((16..=17).contains(&stepped.steps), "{stepped:?}");
    assert!(stepped.largest <= MIB + (128 << 10), "{stepped:?}");
    let data = &data[..5 * MIB];
    let frame = zstd_frame(data, 3, true, false);
    let stepped = check_stepwise(
        "zstd, a 5 MiB frame",
        zstd_codec(),
        &frame,
        data,
        MIB,
        128 << 10,
    );
    assert!((5..=6).contains(&stepped.steps), "{stepped:?}");
    assert!(stepped.largest <= MIB + (128 << 10), "{stepped:?}");
}

/// The header fields and block table of a Blosc chunk.
struct BloscChunk<'a> {
    bytes: &'a [u8],
    nbytes: usize,
    blocksize: usize,
    offsets: Vec<u32>,
}

fn parse_blosc(bytes: &[u8]) -> Option<BloscChunk<'_>> {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let (version, version_lz, flags) = (*bytes.first()?, *bytes.get(1)?, *bytes.get(2)?);
    if bytes.len() < 16 || !(1..=2).contains(&version) || version_lz != 1 || word(12) != bytes.len()
    {
        return None;
    }
    let (nbytes, blocksize) = (word(4), word(8));
    // Chunks stored as they are have no blocks.
    if flags & 0x02 != 0 || nbytes == 0 {
        return None;
    }
    let nblocks = nbytes.div_ceil(blocksize);
    let offsets = (0..nblocks).map(|b| word(16 + 4 * b) as u32).collect();
    Some(BloscChunk {
        bytes,
        nbytes,
        blocksize,
        offsets,
    })
}

/// `chunk` made about `target` bytes long by repeating its whole blocks (the last, short one
/// stays last): a chunk of c-blosc's own blocks, which decodes to the chunk's whole-block part
/// `copies` times, then its short end.
fn repeat_blocks(chunk: &BloscChunk, target: usize) -> (Vec<u8>, usize) {
    let whole = chunk.nbytes / chunk.blocksize;
    let short = !chunk.nbytes.is_multiple_of(chunk.blocksize);
    let copies = target.div_ceil(whole * chunk.blocksize).max(1);
    let nblocks = whole * copies + usize::from(short);
    let shift = 4 * (nblocks - chunk.offsets.len()) as u32;
    let mut table: Vec<u32> = Vec::with_capacity(nblocks);
    for _ in 0..copies {
        table.extend(chunk.offsets[..whole].iter().map(|o| o + shift));
    }
    if short {
        table.push(chunk.offsets[whole] + shift);
    }
    let nbytes = whole * chunk.blocksize * copies + chunk.nbytes % chunk.blocksize;
    let old_table_end = 16 + 4 * chunk.offsets.len();
    let mut out = chunk.bytes[..16].to_vec();
    out[4..8].copy_from_slice(&(nbytes as u32).to_le_bytes());
    out.extend(table.iter().flat_map(|o| o.to_le_bytes()));
    out.extend(&chunk.bytes[old_table_end..]);
    let cbytes = out.len() as u32;
    out[12..16].copy_from_slice(&cbytes.to_le_bytes());
    (out, copies)
}

/// What `repeat_blocks` makes of `chunk`, whose own output is `small`, decodes to.
fn repeated_output(chunk: &BloscChunk, small: &[u8], copies: usize) -> Vec<u8> {
    let whole_part = chunk.nbytes / chunk.blocksize * chunk.blocksize;
    let mut out = small[..whole_part].repeat(copies);
    out.extend(&small[whole_part..]);
    out
}

/// Every Blosc chunk of the fixtures, with its path.
fn blosc_fixture_chunks() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for dir in ["codecs.zarr/blosc", "v2.zarr/compressors"] {
        common::walk(&common::fixture_path(dir), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(&path).ok()?;
            parse_blosc(&bytes)?;
            Some((path.display().to_string(), bytes))
        })
        .collect()
}

#[test]
fn blosc_chunks_of_every_compressor_and_shuffle_decode_in_steps_as_in_one_go() {
    let mut kinds = std::collections::BTreeSet::new();
    let chunks = blosc_fixture_chunks();
    for (path, bytes) in &chunks {
        let chunk = parse_blosc(bytes).unwrap();
        let small = BloscCodec::default().decode(bytes.clone(), DecodedSize::Exact(chunk.nbytes));
        let small = small.unwrap_or_else(|e| panic!("{path}: {e}"));
        let (large, copies) = repeat_blocks(&chunk, 4 * MIB);
        let expected = repeated_output(&chunk, &small, copies);
        // Steps of 256 KiB: 16 or more over 4 MiB, a block more at most each.
        let stepped = check_stepwise(
            path,
            blosc_codec(),
            &large,
            &expected,
            256 << 10,
            chunk.blocksize,
        );
        assert!(stepped.steps >= 8, "{path}: {stepped:?}");
        kinds.insert((bytes[2] >> 5, bytes[2] & 0x05));
    }
    // blosclz, lz4, snappy, zlib and zstd; each with no shuffle, shuffle and bitshuffle where the
    // fixtures have them (snappy is shuffled only).
    assert!(chunks.len() > 60, "{} chunks", chunks.len());
    assert!(kinds.len() >= 13, "{kinds:?}");
}

#[test]
fn sixteen_mib_blosc_chunks_decode_in_more_than_eight_steps() {
    // zstd blocks with bitshuffle, from the fixtures, made 16 MiB; and a chunk stored as is.
    let (path, bytes) = blosc_fixture_chunks()
        .into_iter()
        .find(|(path, _)| path.contains("zstd_bitshuffle/c/0/0"))
        .unwrap();
    let chunk = parse_blosc(&bytes).unwrap();
    let small = BloscCodec::default()
        .decode(bytes.clone(), DecodedSize::Exact(chunk.nbytes))
        .unwrap();
    let (large, copies) = repeat_blocks(&chunk, 16 * MIB);
    let expected = repeated_output(&chunk, &small, copies);
    let stepped = check_stepwise(
        &path,
        blosc_codec(),
        &large,
        &expected,
        MIB,
        chunk.blocksize,
    );
    assert!(stepped.steps >= 16, "{stepped:?}");
    println!(
        "blosc zstd bitshuffle: {} bytes, {stepped:?}",
        expected.len()
    );

    let data = common::compressible(16 * MIB, 2);
    let mut stored = vec![2, 1, 0x02 | 0x01, 4];
    for v in [data.len(), data.len(), data.len() + 16] {
        stored.extend((v as u32).to_le_bytes());
    }
    stored.extend(&data);
    let stepped = check_stepwise("stored", blosc_codec(), &stored, &data, MIB, 0);
    assert_eq!(stepped.steps, 16);
}

#[test]
fn every_compressed_fixture_chunk_decodes_alike_in_tiny_steps_and_in_one_go() {
    // The chunks the C libraries wrote (gzip, zlib, zstd, Blosc, found by their magic numbers and
    // headers), decoded in steps of 1000 bytes, into an exact buffer and a grown one: the same
    // bytes as in one go, or an error where one go fails (the damaged fixtures).
    let mut files = Vec::new();
    common::walk(&common::fixture_path(""), &mut files);
    files.sort();
    let mut counts = [0usize; 4];
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let (kind, codec): (usize, &dyn BytesToBytesCodec) = match bytes.get(..4) {
            Some([0x1f, 0x8b, ..]) => (0, gzip_codec()),
            Some([0x78, b, ..]) if (0x7800 | u16::from(*b)) % 31 == 0 => (1, zlib_codec()),
            Some([0x28, 0xb5, 0x2f, 0xfd]) => (2, zstd_codec()),
            _ if parse_blosc(&bytes).is_some() => (3, blosc_codec()),
            _ => continue,
        };
        let name = path.display().to_string();
        let cap = DecodedSize::AtMost(64 * MIB);
        let Ok(expected) = codec.decode(bytes.clone(), cap) else {
            let mut decoder = codec.stepwise(bytes.clone(), cap).ok().unwrap();
            assert!(step_growing(&mut *decoder, 1000).is_err(), "{name}");
            continue;
        };
        counts[kind] += 1;
        let slack = match kind {
            2 => 4000 + (128 << 10),
            3 => parse_blosc(&bytes).map_or(0, |c| c.blocksize),
            _ => 0,
        };
        check_stepwise(&name, codec, &bytes, &expected, 1000, slack);
    }
    println!("gzip, zlib, zstd, Blosc chunks: {counts:?}");
    // gzip, zlib, zstd and Blosc chunks, by the hundred.
    assert!(counts.iter().all(|&n| n >= 50), "{counts:?}");
}

/// The step at which stepping `encoded` with `codec` (budget 1 MiB) fails, or `None` if it
/// decodes.
fn failing_step(codec: &dyn BytesToBytesCodec, encoded: &[u8], size: usize) -> Option<usize> {
    let Ok(mut decoder) = codec.stepwise(encoded.to_vec(), DecodedSize::Exact(size)) else {
        panic!("no stepwise decoder");
    };
    let mut out = vec![0u8; size];
    for step in 0.. {
        match decoder.step(&mut Output::Fixed(&mut out), MIB) {
            Ok(Some(_)) => return None,
            Ok(None) => {}
            Err(e) => {
                assert_eq!(e.codec, codec.name(), "{e}");
                return Some(step);
            }
        }
    }
    unreachable!()
}

#[test]
fn damage_met_at_any_step_is_an_error_of_the_codec() {
    let data = common::compressible(16 * MIB, 3);
    let (path, bytes) = blosc_fixture_chunks()
        .into_iter()
        .find(|(path, _)| path.contains("lz4_shuffle/c/0/0"))
        .unwrap();
    let chunk = parse_blosc(&bytes).unwrap();
    let (blosc, copies) = repeat_blocks(&chunk, 16 * MIB);
    let blosc_size = repeated_output(&chunk, &vec![0; chunk.nbytes], copies).len();
    let cases: Vec<(&str, &dyn BytesToBytesCodec, Vec<u8>, usize)> = vec![
        ("gzip", gzip_codec(), common::gzip(&data), data.len()),
        ("zlib", zlib_codec(), zlib(&data), data.len()),
        (
            "zstd",
            zstd_codec(),
            zstd_frame(&data, 3, true, true),
            data.len(),
        ),
        (
            "zstd streamed",
            zstd_codec(),
            zstd_frame(&data, 3, false, true),
            data.len(),
        ),
    ];
    for (name, codec, encoded, size) in &cases {
        assert_eq!(failing_step(*codec, encoded, *size), None, "{name}");
        // Cut short at an eighth, a quarter, ... of its length: DEFLATE streams are refused at
        // the step that reaches the cut (later for later cuts); zstd frames are walked block
        // header by block header before they decode, and refused before any output.
        let mut last = 0;
        for eighth in 1..8 {
            let cut = &encoded[..encoded.len() * eighth / 8];
            let step = failing_step(*codec, cut, *size)
                .unwrap_or_else(|| panic!("{name} cut at {eighth}/8 decoded"));
            assert!(
                step >= last,
                "{name} cut at {eighth}/8 failed at step {step}"
            );
            last = step;
        }
        match codec.name() {
            "zstd" => assert_eq!(last, 0, "{name}"),
            _ => assert!(last >= 12, "{name}: the last cut failed at step {last}"),
        }
        // A byte changed seven eighths in: refused where the decoder meets it (invalid data), or
        // where the checksum (CRC-32, Adler-32, XXH64) is checked at the end; not before.
        let mut bad = encoded.clone();
        let at = bad.len() * 7 / 8;
        bad[at] ^= 0x40;
        let step = failing_step(*codec, &bad, *size)
            .unwrap_or_else(|| panic!("{name}: a changed byte was not noticed"));
        assert!(step >= 12, "{name}: a change 7/8 in refused at step {step}");
    }
    // Blosc: a block's offset pointing outside the chunk, a few MiB in, and the chunk cut short
    // (its header then says more than there is: refused at once).
    let table_at = |b: usize| 16 + 4 * b;
    let block = 5 * MIB / chunk.blocksize;
    let mut bad = blosc.clone();
    bad[table_at(block)..table_at(block) + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        failing_step(blosc_codec(), &blosc, blosc_size),
        None,
        "{path}"
    );
    assert_eq!(
        failing_step(blosc_codec(), &bad, blosc_size),
        Some(5),
        "{path}"
    );
    let cut = &blosc[..blosc.len() / 2];
    assert_eq!(
        failing_step(blosc_codec(), cut, blosc_size),
        Some(0),
        "{path}"
    );
}

#[test]
fn a_decode_left_between_steps_has_done_only_those_steps() {
    // A read that is aborted drops its decoder between two steps: nothing runs after, and what
    // was decoded up to there is the start of the chunk.
    let data = common::compressible(16 * MIB, 4);
    for (name, codec, encoded) in [
        (
            "gzip",
            gzip_codec() as &dyn BytesToBytesCodec,
            common::gzip(&data),
        ),
        ("zstd", zstd_codec(), zstd_frame(&data, 3, true, true)),
    ] {
        let Ok(mut decoder) = codec.stepwise(encoded, DecodedSize::Exact(data.len())) else {
            panic!("{name}: no stepwise decoder");
        };
        let untouched: Vec<u8> = data.iter().map(|b| b ^ 0xA5).collect();
        let mut out = untouched.clone();
        for _ in 0..3 {
            let done = decoder.step(&mut Output::Fixed(&mut out), MIB).unwrap();
            assert_eq!(done, None, "{name}");
        }
        drop(decoder);
        let written = out
            .iter()
            .zip(&data)
            .position(|(a, b)| a != b)
            .unwrap_or(data.len());
        // Three steps of 1 MiB (zstd streams whole blocks: up to 128 KiB more).
        assert!(
            (3 * MIB..=3 * MIB + (128 << 10)).contains(&written),
            "{name}: {written} bytes written in three steps"
        );
        assert!(out[written..] == untouched[written..], "{name}");
    }
}

#[test]
fn damaged_chunks_decode_in_steps_as_in_one_go() {
    // Fixture chunks with bytes changed, cut short or cut into, stepped with budgets from 1 byte
    // to a few KiB: never a panic, and the same bytes or the same refusal as in one go.
    let mut files = Vec::new();
    common::walk(&common::fixture_path(""), &mut files);
    files.sort();
    let chunks: Vec<(&dyn BytesToBytesCodec, Vec<u8>, usize)> = files
        .iter()
        .filter_map(|path| {
            let bytes = std::fs::read(path).ok()?;
            let codec: &dyn BytesToBytesCodec = match bytes.get(..4)? {
                [0x1f, 0x8b, ..] => gzip_codec(),
                [0x78, b, ..] if (0x7800 | u16::from(*b)) % 31 == 0 => zlib_codec(),
                [0x28, 0xb5, 0x2f, 0xfd] => zstd_codec(),
                _ if parse_blosc(&bytes).is_some() => blosc_codec(),
                _ => return None,
            };
            let size = codec
                .decode(bytes.clone(), DecodedSize::AtMost(64 * MIB))
                .ok()?
                .len();
            Some((codec, bytes, size))
        })
        .collect();
    let mut rng = common::Rng(0x5eed_5eed);
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
            let Ok(mut decoder) = codec.stepwise(bad.clone(), size) else {
                panic!("no stepwise decoder");
            };
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
