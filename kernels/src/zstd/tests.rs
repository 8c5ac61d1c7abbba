//! The decoder against libzstd (the `zstd` crate, C): what libzstd writes, at every level and
//! kind of data, decodes to the bytes compressed; damaged frames give errors, never panics.

use super::*;

/// A test-only generator (xorshift), so that the samples are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Samples of the kinds chunks hold: noise, smooth 16-bit images, text, runs, and mixtures.
fn samples() -> Vec<Vec<u8>> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = vec![Vec::new(), vec![7], b"abc".to_vec(), vec![0; 100_000]];
    for len in [
        1usize,
        5,
        17,
        64,
        255,
        1000,
        5000,
        70_000,
        131_072,
        131_073,
        1 << 20,
    ] {
        out.push((0..len).map(|_| rng.next() as u8).collect());
        out.push(
            (0..len)
                .map(|i| ((i as f64 / 37.0).sin() * 40.0 + (rng.next() % 5) as f64) as u8)
                .collect(),
        );
    }
    let image: Vec<u8> = (0..512 * 512)
        .flat_map(|i: u32| {
            let (x, y) = (i % 512, i / 512);
            let v = (x * 3 + y * 5 + (x * y) % 97) as u16 + (i % 7) as u16;
            v.to_le_bytes()
        })
        .collect();
    out.push(image);
    let words = [
        "zarr", "chunk", "shard", "array", "codec", " ", "\n", "zstd", "blosc",
    ];
    let text: Vec<u8> = (0..200_000)
        .flat_map(|_| words[(rng.next() % words.len() as u64) as usize].bytes())
        .collect();
    out.push(text);
    let runs: Vec<u8> = (0..300_000)
        .map(|i| {
            if (i / 1000) % 3 == 0 {
                0
            } else {
                (i / 7) as u8
            }
        })
        .collect();
    out.push(runs);
    // Repeats of every short period, each run of its own length: matches at every offset below
    // 40, short and long, and overlapping their source.
    let periods: Vec<u8> = (1..40usize)
        .flat_map(|period| {
            let unit: Vec<u8> = (0..period).map(|_| rng.next() as u8).collect();
            unit.into_iter()
                .cycle()
                .take(period * 7 + 3 + (period * 13) % 50)
        })
        .collect();
    out.push(periods.repeat(3));
    out
}

/// Decodes every frame of `input` into `out` (no more than fits) through `Frames`: the input it
/// took and the output's length.
fn decode_frames(
    decoder: &mut Decoder,
    input: &[u8],
    out: &mut [u8],
    dictionary: Option<&Dictionary>,
) -> Result<(usize, usize), String> {
    let mut frames = Frames::new(out.len(), dictionary);
    let mut written = 0;
    while frames.more(decoder, input, written)? {
        written = frames.decode_block(decoder, input, out, written)?;
    }
    Ok((frames.consumed(), written))
}

fn decode_all(
    frames: &[u8],
    capacity: usize,
    dictionary: Option<&Dictionary>,
) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; capacity];
    let mut decoder = Decoder::new();
    let (used, len) = decode_frames(&mut decoder, frames, &mut out, dictionary)?;
    assert_eq!(used, frames.len(), "the whole frame was read");
    out.truncate(len);
    Ok(out)
}

#[test]
fn decodes_what_libzstd_writes_at_every_level() {
    for (n, sample) in samples().iter().enumerate() {
        for level in [-5, 1, 3, 6, 12, 19, 22] {
            for checksum in [false, true] {
                let mut c = zstd::bulk::Compressor::new(level).unwrap();
                c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(checksum))
                    .unwrap();
                let frame = c.compress(sample).unwrap();
                let got = decode_all(&frame, sample.len() + 64, None)
                    .unwrap_or_else(|e| panic!("sample {n} level {level}: {e:?}"));
                assert!(
                    got == *sample,
                    "sample {n} level {level} checksum {checksum}"
                );
            }
        }
    }
}

#[test]
fn decodes_streamed_frames_without_a_content_size() {
    for (n, sample) in samples().iter().enumerate() {
        let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
        e.include_checksum(true).unwrap();
        std::io::Write::write_all(&mut e, sample).unwrap();
        let frame = e.finish().unwrap();
        if !sample.is_empty() {
            assert_eq!(FrameHeader::parse(&frame).unwrap().content_size, None);
        }
        let got = decode_all(&frame, sample.len(), None).unwrap();
        assert!(got == *sample, "sample {n}");
    }
}

#[test]
fn decodes_with_a_trained_dictionary() {
    let mut rng = Rng(7);
    let records: Vec<Vec<u8>> = (0..400)
        .map(|i| {
            format!(
                "s3://bucket/prefix/{}/data-{:05}.nc#{}",
                ["temperature", "salinity", "pressure"][i % 3],
                rng.next() % 50_000,
                rng.next() % 1000
            )
            .into_bytes()
        })
        .collect();
    let raw = zstd::dict::from_samples(&records, 4096).unwrap();
    let dictionary = Dictionary::parse(&raw).unwrap();
    assert_ne!(dictionary.id, 0);
    for level in [1, 3, 19] {
        let mut c = zstd::bulk::Compressor::with_dictionary(level, &raw).unwrap();
        for record in &records[..50] {
            let frame = c.compress(record).unwrap();
            assert_eq!(
                decode_all(&frame, 1000, Some(&dictionary)).unwrap(),
                *record
            );
            let refused = decode_all(&frame, 1000, None).unwrap_err();
            assert!(refused.contains("dictionary"), "{refused}");
        }
    }
    // Bytes without the magic number are content alone.
    let content = b"a dictionary of content alone, s3://bucket/prefix/temperature".to_vec();
    let plain = Dictionary::parse(&content).unwrap();
    let mut c = zstd::bulk::Compressor::with_dictionary(3, &content).unwrap();
    let frame = c.compress(b"s3://bucket/prefix/temperature/x").unwrap();
    assert_eq!(
        decode_all(&frame, 100, Some(&plain)).unwrap(),
        b"s3://bucket/prefix/temperature/x"
    );
}

#[test]
fn output_too_small_is_refused() {
    let sample = &samples()[20];
    let frame = zstd::bulk::compress(sample, 3).unwrap();
    let limit = sample.len() - 1;
    assert_eq!(
        decode_all(&frame, limit, None),
        Err(format!("decoded data is larger than {limit} bytes"))
    );
    // Without a content size to refuse it by, at the block that would pass the limit.
    let mut c = zstd::bulk::Compressor::new(3).unwrap();
    c.set_parameter(zstd::zstd_safe::CParameter::ContentSizeFlag(false))
        .unwrap();
    let frame = c.compress(sample).unwrap();
    assert_eq!(
        decode_all(&frame, limit, None),
        Err(format!("decoded data is larger than {limit} bytes"))
    );
}

#[test]
fn damaged_frames_give_errors_not_panics() {
    let mut rng = Rng(99);
    let all = samples();
    for (n, sample) in all.iter().enumerate() {
        let mut c = zstd::bulk::Compressor::new(3).unwrap();
        c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
            .unwrap();
        let frame = c.compress(&sample[..sample.len().min(200_000)]).unwrap();
        for _ in 0..500 {
            let mut bad = frame.clone();
            let at = (rng.next() as usize) % bad.len();
            let what = match rng.next() % 3 {
                0 => {
                    bad[at] ^= 1 << (rng.next() % 8);
                    format!("a bit flipped at {at}")
                }
                1 => {
                    bad[at] = rng.next() as u8;
                    format!("byte {at} set to {}", bad[at])
                }
                _ => {
                    bad.truncate(at);
                    format!("cut to {at} bytes")
                }
            };
            let ours = decode_all_lenient(&bad, sample.len() + 64);
            // A damaged frame that still decodes passed its checksum: libzstd must agree.
            // (libzstd refuses windows above 128 MiB, for the memory it would reserve; this
            // decoder reserves none, and reads them.)
            if let Ok(ours) = ours {
                match zstd::bulk::decompress(&bad, sample.len() + 64) {
                    Ok(theirs) => assert_eq!(ours, theirs, "sample {n}, {what}"),
                    Err(e) if e.to_string().contains("too much memory") => {}
                    Err(e) => panic!(
                        "sample {n}, {what} of {}: libzstd refused what we decoded: {e}",
                        frame.len()
                    ),
                }
            }
        }
    }
}

fn decode_all_lenient(frame: &[u8], capacity: usize) -> Result<Vec<u8>, String> {
    let mut out = vec![0u8; capacity];
    let (used, len) = decode_frames(&mut Decoder::new(), frame, &mut out, None)?;
    if used != frame.len() {
        return Err("bytes after the frame".into());
    }
    out.truncate(len);
    Ok(out)
}

#[test]
fn xxh64_matches_the_reference() {
    let mut rng = Rng(3);
    let data: Vec<u8> = (0..5000).map(|_| rng.next() as u8).collect();
    for len in (0..200).chain([1000, 4095, 5000]) {
        assert_eq!(
            xxhash64::xxh64(&data[..len]),
            twox_hash::XxHash64::oneshot(0, &data[..len]),
            "length {len}"
        );
    }
}

#[test]
fn every_bit_flip_of_a_small_frame_is_refused_or_agrees_with_libzstd() {
    // Every bit of every small checksummed frame flipped in turn: a frame that still decodes
    // decodes as libzstd decodes it (windows above 128 MiB aside, see above).
    for (n, sample) in samples().iter().enumerate() {
        let mut c = zstd::bulk::Compressor::new(3).unwrap();
        c.set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
            .unwrap();
        let frame = c.compress(sample).unwrap();
        if frame.len() > 2000 {
            continue;
        }
        for at in 0..frame.len() {
            for bit in 0..8 {
                let mut bad = frame.clone();
                bad[at] ^= 1 << bit;
                let Ok(ours) = decode_all_lenient(&bad, sample.len() + 64) else {
                    continue;
                };
                match zstd::bulk::decompress(&bad, sample.len() + 64) {
                    Ok(theirs) => assert_eq!(ours, theirs, "sample {n}, byte {at} bit {bit}"),
                    Err(e) if e.to_string().contains("too much memory") => {}
                    Err(e) => panic!("sample {n}, byte {at} bit {bit}: libzstd: {e}"),
                }
            }
        }
    }
}

/// Decoding speed on the benchmark's zstd chunks (`bench/data`), against libzstd: run by hand,
/// `cargo test --release -p zarr-wasm-kernels zstd_speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn zstd_speed() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../bench/data/bench.zarr/zstd/c"
    );
    let mut chunks = Vec::new();
    for row in std::fs::read_dir(dir).unwrap() {
        for file in std::fs::read_dir(row.unwrap().path()).unwrap() {
            chunks.push(std::fs::read(file.unwrap().path()).unwrap());
        }
    }
    let mut out = vec![0u8; 256 * 256 * 2];
    let mut decoder = Decoder::new();
    let total = (chunks.len() * out.len()) as f64;
    for round in 0..3 {
        let t = std::time::Instant::now();
        for _ in 0..10 {
            for c in &chunks {
                decode_frames(&mut decoder, c, &mut out, None).unwrap();
            }
        }
        let ours = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let mut dctx = zstd::bulk::Decompressor::new().unwrap();
        for _ in 0..10 {
            for c in &chunks {
                dctx.decompress_to_buffer(c, &mut out).unwrap();
            }
        }
        let theirs = t.elapsed().as_secs_f64();
        println!(
            "round {round}: ours {:.0} MB/s, libzstd {:.0} MB/s",
            total * 10.0 / ours / 1e6,
            total * 10.0 / theirs / 1e6
        );
    }
}

#[test]
fn a_skippable_frame_longer_than_its_data_is_refused_whatever_its_length() {
    for length in [1u32, 0xFFFF_FFF8, u32::MAX] {
        let mut data = vec![0x50, 0x2A, 0x4D, 0x18];
        data.extend(length.to_le_bytes());
        let err = next_frame(&data).unwrap_err();
        assert!(err.contains("truncated"), "{length}: {err}");
        assert!(decode_to_vec(&data, 100, None).is_err(), "{length}");
    }
}
