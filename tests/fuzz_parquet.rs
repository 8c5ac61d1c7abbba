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
    // The peaks are this test's alone (the others measure theirs one at a time too).
    let _serial = common::counting::serial();
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

/// Parquet written by hand, for what no writer makes: Thrift's compact protocol, a field at a
/// time.
mod write {
    /// A struct being written: its fields' bytes, and the last field id (for the short headers).
    #[derive(Default)]
    pub struct Struct {
        pub bytes: Vec<u8>,
        last: i16,
    }

    pub const I32: u8 = 5;
    pub const I64: u8 = 6;
    pub const BINARY: u8 = 8;
    pub const LIST: u8 = 9;
    pub const STRUCT: u8 = 12;

    pub fn varint(mut n: u64, out: &mut Vec<u8>) {
        while n >= 0x80 {
            out.push(n as u8 | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }

    fn zigzag(n: i64) -> u64 {
        ((n << 1) ^ (n >> 63)) as u64
    }

    impl Struct {
        fn header(&mut self, id: i16, kind: u8) {
            let delta = id - self.last;
            if (1..=15).contains(&delta) {
                self.bytes.push((delta as u8) << 4 | kind);
            } else {
                self.bytes.push(kind);
                varint(zigzag(i64::from(id)), &mut self.bytes);
            }
            self.last = id;
        }
        pub fn int(mut self, id: i16, kind: u8, v: i64) -> Self {
            self.header(id, kind);
            varint(zigzag(v), &mut self.bytes);
            self
        }
        pub fn binary(mut self, id: i16, v: &[u8]) -> Self {
            self.header(id, BINARY);
            varint(v.len() as u64, &mut self.bytes);
            self.bytes.extend(v);
            self
        }
        pub fn strukt(mut self, id: i16, s: Struct) -> Self {
            self.header(id, STRUCT);
            self.bytes.extend(s.end());
            self
        }
        /// A list header claiming `count` elements of type `elem`, then `body` as they are.
        pub fn list(mut self, id: i16, elem: u8, count: u64, body: &[u8]) -> Self {
            self.header(id, LIST);
            if count < 15 {
                self.bytes.push((count as u8) << 4 | elem);
            } else {
                self.bytes.push(0xf0 | elem);
                varint(count, &mut self.bytes);
            }
            self.bytes.extend(body);
            self
        }
        pub fn end(mut self) -> Vec<u8> {
            self.bytes.push(0);
            self.bytes
        }
    }

    /// A file: `PAR1`, `pages`, the footer `meta`, its length, `PAR1`.
    pub fn file(pages: &[u8], meta: &[u8]) -> Vec<u8> {
        let mut f = b"PAR1".to_vec();
        f.extend(pages);
        f.extend(meta);
        f.extend((meta.len() as u32).to_le_bytes());
        f.extend(b"PAR1");
        f
    }

    /// A data page (v1) header: `values` PLAIN values, `size` bytes decompressed, `body` bytes.
    pub fn page_header(values: i64, size: i64, body: usize) -> Vec<u8> {
        let data = Struct::default()
            .int(1, I32, values)
            .int(2, I32, 0)
            .int(3, I32, 3)
            .int(4, I32, 3);
        Struct::default()
            .int(1, I32, 0)
            .int(2, I32, size)
            .int(3, I32, body as i64)
            .strukt(5, data)
            .end()
    }

    /// A file of one required BYTE_ARRAY column `raw`, `rows` rows in one row group, its pages
    /// `pages` (headers and bodies) compressed with `codec`.
    pub fn raw_column(rows: i64, codec: i64, pages: &[u8]) -> Vec<u8> {
        let root = Struct::default().binary(4, b"schema").int(5, I32, 1).end();
        let leaf = Struct::default()
            .int(1, I32, 6)
            .int(3, I32, 0)
            .binary(4, b"raw")
            .end();
        let meta = Struct::default()
            .int(1, I32, 6)
            .list(3, BINARY, 1, &[3, b'r', b'a', b'w'])
            .int(4, I32, codec)
            .int(5, I64, rows)
            .int(6, I64, pages.len() as i64)
            .int(7, I64, pages.len() as i64)
            .int(9, I64, 4);
        let chunk = Struct::default().int(2, I64, 4).strukt(3, meta).end();
        let group = Struct::default()
            .list(1, STRUCT, 1, &chunk)
            .int(2, I64, pages.len() as i64)
            .int(3, I64, rows)
            .end();
        let footer = Struct::default()
            .int(1, I32, 1)
            .list(2, STRUCT, 2, &[root, leaf].concat())
            .int(3, I64, rows)
            .list(4, STRUCT, 1, &group)
            .end();
        file(pages, &footer)
    }
}

/// `f`'s result, how long it took and the peak it allocated, measured alone.
fn measured<T>(f: impl FnOnce() -> T) -> (T, Duration, usize) {
    let _serial = common::counting::serial();
    let (start, base) = (Instant::now(), start_peak());
    let out = f();
    (out, start.elapsed(), peak_since(base))
}

#[test]
fn hand_written_files_read() {
    // The builder's own check: two rows of a plain page, uncompressed.
    let mut body = Vec::new();
    for v in [&b"ab"[..], b"cde"] {
        body.extend((v.len() as u32).to_le_bytes());
        body.extend(v);
    }
    let mut pages = write::page_header(2, body.len() as i64, body.len());
    pages.extend(&body);
    let file = write::raw_column(2, 0, &pages);
    let record = Record::read(&file, BOUNDS).unwrap();
    assert_eq!(record.rows.len(), 2);
    let zarr_wasm::store::parquet::Entry::Inline(r) = &record.rows[1] else {
        panic!("{:?}", record.rows[1])
    };
    assert_eq!(record.inline(r), b"cde");
}

#[test]
fn page_buffers_hold_what_the_pages_decode_to_and_no_more() {
    // 24 MiB of values in one page and in 24 pages, in each codec: the pages are decompressed into
    // buffers of exactly their size and kept as the values (issue 46: decompressed into vectors
    // grown twofold, then copied into the column's values and the record's, each grown twofold:
    // 2 to 2.7 times the bytes, 548 MB for a 250 MiB bound).
    let total = 24usize << 20;
    for codec in [0i64, 1, 2, 6] {
        for pages_n in [1usize, 24] {
            let per = total / pages_n;
            let mut pages = Vec::new();
            for p in 0..pages_n {
                let mut body = (per as u32 - 4).to_le_bytes().to_vec();
                body.extend(common::compressible(per - 4, p as u64));
                let packed = match codec {
                    1 => snap::raw::Encoder::new().compress_vec(&body).unwrap(),
                    2 => common::gzip(&body),
                    6 => zstd::encode_all(&body[..], 3).unwrap(),
                    _ => body.clone(),
                };
                pages.extend(write::page_header(1, body.len() as i64, packed.len()));
                pages.extend(&packed);
            }
            let file = write::raw_column(pages_n as i64, codec, &pages);
            let bounds = Bounds {
                max_rows: 100,
                max_bytes: total as u64,
            };
            let (rows, took, peak) =
                measured(|| Record::read(&file, bounds).map(|r| (r.rows.len(), r.size())));
            let (rows, size) = rows.unwrap();
            eprintln!("codec {codec}, {pages_n} pages: {took:?}, a peak of {peak} bytes");
            assert_eq!(rows, pages_n);
            assert!(size >= total && size < total + 4096, "{size}");
            assert!(
                peak < total + (256 << 10),
                "codec {codec}, {pages_n} pages: a peak of {peak} bytes for {total}"
            );
        }
    }
}

#[test]
fn a_page_that_says_it_holds_more_than_its_bytes_can_make_allocates_nothing() {
    // Each says 256 MiB; the file may decompress to that much. Snappy's 5 bytes of length zeroed
    // 256 MiB before decoding (issue 46).
    let size = 256i64 << 20;
    let snappy = vec![0x80, 0x80, 0x80, 0x80, 0x01];
    let gzip = common::gzip(&[0; 100]);
    let zstd = zstd::encode_all(&[0u8; 100][..], 3).unwrap();
    for (codec, body, says) in [
        (
            1,
            snappy,
            "declares 268435456 bytes, more than its 5 bytes can make",
        ),
        (2, gzip, "more than it can (at most"),
        (6, zstd, "more than it can (at most"),
    ] {
        let mut pages = write::page_header(1, size, body.len());
        pages.extend(&body);
        let file = write::raw_column(1, codec, &pages);
        let bounds = Bounds {
            max_rows: 10,
            max_bytes: size as u64,
        };
        let (result, took, peak) = measured(|| Record::read(&file, bounds).map(|_| ()));
        let err = result.unwrap_err();
        assert!(err.contains(says) && err.contains("page 0"), "{err}");
        assert!(
            peak < 64 << 10 && took < Duration::from_millis(100),
            "codec {codec}: {peak} bytes, {took:?}"
        );
    }
}

#[test]
fn footer_counts_are_bounded_before_anything_is_reserved() {
    use write::{Struct, I64, STRUCT};
    let read = |footer: Vec<u8>| {
        let file = write::file(&[], &footer);
        measured(|| Record::read(&file, BOUNDS).map(|_| ()))
    };
    // A schema list of 4 million elements, each an empty struct: one byte on the wire, 48 in
    // memory (issue 46: 30 million reserved 1 GB and took 2 s).
    let n = 4_000_000;
    let footer = Struct::default()
        .list(2, STRUCT, n, &vec![0; n as usize])
        .int(3, I64, 0)
        .end();
    let (result, took, peak) = read(footer);
    let err = result.unwrap_err();
    assert!(
        err.contains("a list of 4000000 schema elements, more than the 1025 read"),
        "{err}"
    );
    assert!(
        peak < 64 << 10 && took < Duration::from_millis(100),
        "{peak} {took:?}"
    );
    // Row groups, each an empty one (num_rows 0).
    let group = Struct::default().int(3, I64, 0).end();
    let footer = Struct::default()
        .list(4, STRUCT, 70_000, &group.repeat(70_000))
        .end();
    let err = read(footer).0.unwrap_err();
    assert!(
        err.contains("a list of 70000 row groups, more than the 65536"),
        "{err}"
    );
    // Column chunks, all row groups together: two row groups of 40,000.
    let meta = Struct::default()
        .int(1, write::I32, 6)
        .list(3, write::BINARY, 1, &[1, b'x'])
        .int(4, write::I32, 0)
        .int(5, I64, 0)
        .int(7, I64, 0)
        .int(9, I64, 4);
    let chunk = Struct::default().strukt(3, meta).end();
    let group = Struct::default()
        .list(1, STRUCT, 40_000, &chunk.repeat(40_000))
        .int(3, I64, 0)
        .end();
    let footer = Struct::default().list(4, STRUCT, 2, &group.repeat(2)).end();
    let err = read(footer).0.unwrap_err();
    assert!(
        err.contains("row group 1: a list of 80000 column chunks in all, more than the 65536"),
        "{err}"
    );
}
