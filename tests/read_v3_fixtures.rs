//! Reads every array zarr-python wrote into tests/fixtures/v3.zarr and compares it with the values
//! the writer recorded beside it.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{check_manifest, DirStore};
use futures_executor::block_on;
use std::rc::Rc;
use zarr_wasm::{open, DimSelection, ErrorKind, Node};

fn open_array(store: &Rc<DirStore>, path: &str) -> zarr_wasm::Array {
    open_in(store.clone(), path)
}

fn open_in(store: Rc<DirStore>, path: &str) -> zarr_wasm::Array {
    match block_on(open(store, path)).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => panic!("{path} is a group"),
    }
}

#[test]
fn every_fixture_array_reads_whole_and_matches() {
    assert!(check_manifest("v3.expected.json") >= 50);
}

#[test]
fn registry_codecs_written_by_zarrs_read_as_zarrs_reads_them() {
    // bitround under its registry name (floats and integers), reshape, packbits and zfp (every mode,
    // promoted integers, 1-4 dimensions, sharded), by zarrs 0.23.14.
    assert_eq!(check_manifest("zarrs.expected.json"), 29);
}

#[test]
fn second_module_codecs_read_as_zarr_python_reads_them() {
    // numcodecs' lzma (XZ, alone, raw LZMA2, sharded), bz2 (several blocks), zfpy (each mode, 1
    // to 4 dimensions) and pcodec (every number type it writes, sharded), the last two also as v2
    // compressors, by zarr-python 3.1.6: decoded by extra-codecs/, linked in as Rust users link it.
    assert_eq!(check_manifest("extra.expected.json"), 28);
}

#[test]
fn what_other_writers_put_on_disk_reads_as_they_read_it() {
    // zarr-python 3.4's `struct` records (object fields, object fill values; plain and
    // sharded) and netCDF-C's NCZarr shuffle with `"elementsize": 0` (the type's size):
    // scripts/make_writer_fixtures.py.
    assert_eq!(check_manifest("writers.expected.json"), 5);
    let arr = open_array(
        &Rc::new(DirStore::fixtures("writers/zarr_python_34.zarr")),
        "records",
    );
    // {"id": 5, "pos": -2.5, "name": "q", "inner": {"a": 3, "b": true}}, packed as stored.
    let mut fill = 5i32.to_le_bytes().to_vec();
    fill.extend((-2.5f64).to_le_bytes());
    fill.extend(b"q\0\0");
    fill.extend(3u16.to_le_bytes());
    fill.push(1);
    assert_eq!(arr.metadata().fill_value.as_bytes(), &fill[..]);
}

#[test]
fn registry_codecs_no_writer_has_read_as_the_registry_says() {
    // scale_offset, written by hand from the registry's text; cast_value, by its reference
    // implementation (cast-value 0.2.1 through zarr-python); conditional, its headers by hand
    // over numcodecs' codecs; n5_default over N5 datasets by tensorstore (padded edge blocks, and
    // cut ones as N5's Java writer stores them): scripts/make_registry_fixtures.py.
    assert_eq!(check_manifest("registry.expected.json"), 21);
    // The shard decoded whole (not inner chunk by inner chunk): its missing inner chunk holds
    // the fill value as scale_offset encoded it ((10 + 20) * 3), which decodes to 10.
    let arr = open_array(
        &Rc::new(DirStore::fixtures("registry.zarr")),
        "scale_offset/int16_sharded",
    );
    let whole = block_on(arr.get_chunk(&[0, 0])).unwrap();
    let want = std::fs::read(common::fixture_path(
        "registry.expected/registry__scale_offset__int16_sharded.bin",
    ))
    .unwrap();
    assert_eq!(whole.bytes, want);
    assert_eq!(
        &whole.bytes[2 * 8 * 4..2 * (8 * 4 + 1)],
        &10i16.to_le_bytes()
    );
}

#[test]
fn slices_and_indices_match_the_whole_read() {
    let store = Rc::new(DirStore::fixtures("v3.zarr"));
    let arr = open_array(&store, "layouts/d3");
    let whole = block_on(arr.get(&[])).unwrap();
    let (d1, d2) = (6usize, 5usize);
    let at = |i: usize, j: usize, k: usize| {
        let off = ((i * d1 + j) * d2 + k) * 4;
        whole.bytes[off..off + 4].to_vec()
    };
    let sel = [
        DimSelection::Slice {
            start: Some(1),
            stop: Some(7),
            step: Some(2),
        },
        DimSelection::Index(-2),
        DimSelection::Slice {
            start: None,
            stop: Some(-1),
            step: None,
        },
    ];
    let part = block_on(arr.get(&sel)).unwrap();
    assert_eq!(part.shape, vec![3, 4]);
    let mut want = vec![];
    for i in [1, 3, 5] {
        for k in 0..4 {
            want.extend(at(i, d1 - 2, k));
        }
    }
    assert_eq!(part.bytes, want);
}

#[test]
fn missing_chunks_are_the_fill_value() {
    let store = Rc::new(DirStore::fixtures("v3.zarr"));
    let arr = open_array(&store, "sparse/int_fill");
    let chunk = block_on(arr.get_chunk(&[3, 0])).unwrap();
    assert_eq!(chunk.shape, vec![10, 10]);
    assert!(chunk
        .bytes
        .chunks(2)
        .all(|e| i16::from_ne_bytes([e[0], e[1]]) == 42));
    let err = block_on(arr.get_chunk(&[4, 0])).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Selection);
}

#[test]
fn broken_stores_fail_with_errors_that_say_where_and_what() {
    let store = Rc::new(DirStore::fixtures("bad.zarr"));
    let open_err = |p: &str| match block_on(open(store.clone(), p)) {
        Err(e) => e,
        Ok(_) => panic!("{p} opened"),
    };
    let e = open_err("not_json");
    assert!(
        e.message.contains("not_json/zarr.json") && e.message.contains("not valid JSON"),
        "{e}"
    );
    assert!(open_err("not_zarr").message.contains("zarr_format"));
    assert!(open_err("unknown_codec").message.contains("frobnicate"));
    assert!(open_err("unknown_dtype").message.contains("uint7"));
    assert_eq!(open_err("no_such_node").kind, ErrorKind::NotFound);
    for (name, what) in [
        ("truncated_gzip", "gzip"),
        ("corrupt_gzip", "gzip"),
        ("wrong_size", "bytes"),
    ] {
        let arr = open_array(&store, name);
        let e = block_on(arr.get(&[])).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Codec, "{name}: {e}");
        assert!(
            e.message.contains(&format!("codec {what}"))
                && e.message.contains(&format!("{name}/c/0/0")),
            "{e}"
        );
        // The other chunks are intact.
        assert!(block_on(arr.get_chunk(&[1, 1])).is_ok());
    }
}

#[test]
fn corrupt_compressed_chunks_name_the_codec_and_the_problem() {
    let store = Rc::new(DirStore::fixtures("bad.zarr"));
    for (name, codec, problem) in [
        ("truncated_blosc", "blosc", "truncated"),
        (
            "blosc_wrong_nbytes",
            "blosc",
            "header says 4096 decoded bytes, the chunk should have 2048",
        ),
        ("blosc_bad_offset", "blosc", "offset 999999 is outside"),
        ("blosc_version3", "blosc", "format version 3"),
        (
            "corrupt_blosc_stream",
            "blosc",
            "block 0 of 1 (lz4 compressor): stream 1",
        ),
        ("truncated_zstd", "zstd", "frame 0 is truncated"),
        ("zstd_checksum_mismatch", "zstd", "checksum"),
        ("truncated_lz4", "numcodecs.lz4", "LZ4"),
        ("zlib_adler_mismatch", "numcodecs.zlib", "Adler-32"),
        ("shard_index_crc", "sharding_indexed", "index: codec crc32c"),
    ] {
        let arr = open_array(&store, name);
        let e = block_on(arr.get(&[])).unwrap_err();
        println!("{name}: {e}");
        assert_eq!(e.kind, ErrorKind::Codec, "{name}: {e}");
        assert!(e.message.contains(&format!("codec {codec}")), "{name}: {e}");
        assert!(e.message.contains(&format!("{name}/c/0/0")), "{name}: {e}");
        assert!(e.message.contains(problem), "{name}: {e}");
        // The chunks that were not damaged still decode.
        assert!(block_on(arr.get_chunk(&[1, 1])).is_ok(), "{name}");
    }
}

#[test]
fn a_reshape_that_does_not_fit_the_chunks_is_an_error_naming_it() {
    // zarrs's reshape/minus_one, its metadata asking for a shape its [4, 5, 3] chunks cannot
    // take: the configuration itself is valid (it may fit other chunk shapes), so opening works
    // and reading says what is wrong.
    let dir = "reshape/minus_one";
    let mut store = zarr_wasm::store::memory::MemoryStore::new();
    let fixture =
        |key: &str| std::fs::read(common::fixture_path(&format!("zarrs.zarr/{dir}/{key}")));
    let meta = String::from_utf8(fixture("zarr.json").unwrap()).unwrap();
    let bent = meta.replacen(
        "\"shape\": [\n          -1\n        ]",
        "\"shape\": [7, -1]",
        1,
    );
    assert_ne!(bent, meta, "the fixture's reshape configuration moved");
    store.insert("zarr.json", bent);
    store.insert("c/0/0/0", fixture("c/0/0/0").unwrap());
    let Node::Array(arr) = block_on(open(Rc::new(store), "")).unwrap() else {
        panic!("a group")
    };
    let err = block_on(arr.get_chunk(&[0, 0, 0])).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Codec, "{err}");
    for part in ["reshape", "c/0/0/0", "[4, 5, 3]", "[7, -1]"] {
        assert!(err.to_string().contains(part), "{part} in {err}");
    }
}

#[test]
fn a_fill_value_scale_offset_cannot_encode_is_no_error() {
    // The registry's own example: uint16 values shifted down by 1000. A fill value of 0 has no
    // encoded value ((0 - 1000) * 1 is not a uint16), yet the array reads.
    let fixture =
        |path: &str| std::fs::read(common::fixture_path(&format!("registry.zarr/{path}"))).unwrap();
    let with_fill = |path: &str, from: &str, to: &str| {
        let meta = String::from_utf8(fixture(&format!("{path}/zarr.json"))).unwrap();
        let bent = meta.replacen(from, to, 1);
        assert_ne!(bent, meta, "{path}: the fixture's fill value moved");
        bent
    };
    let mut store = zarr_wasm::store::memory::MemoryStore::new();
    store.insert(
        "zarr.json",
        with_fill(
            "scale_offset/uint16",
            "\"fill_value\": 1000",
            "\"fill_value\": 0",
        ),
    );
    store.insert("c/0/0", fixture("scale_offset/uint16/c/0/0"));
    let arr = match block_on(open(Rc::new(store), "")).unwrap() {
        Node::Array(a) => a,
        Node::Group(_) => panic!("a group"),
    };
    assert!(block_on(arr.get_chunk(&[0, 0])).is_ok());
    let missing = block_on(arr.get_chunk(&[1, 1])).unwrap();
    assert!(
        missing.bytes.iter().all(|&b| b == 0),
        "the array's fill value"
    );

    // A shard behind scale_offset whose fill value (32767) has no encoded value: its missing
    // inner chunks read as the array's fill value, as they do in a read of part of the shard
    // (the spec leaves the encoded fill undefined there; the array's is what its metadata says).
    let path = "scale_offset/int16_sharded";
    let sharded = |meta: String| {
        let mut store = zarr_wasm::store::memory::MemoryStore::new();
        store.insert("zarr.json", meta);
        store.insert("c/0/0", fixture(&format!("{path}/c/0/0")));
        match block_on(open(Rc::new(store), "")).unwrap() {
            Node::Array(a) => a,
            Node::Group(_) => panic!("a group"),
        }
    };
    let as_written = String::from_utf8(fixture(&format!("{path}/zarr.json"))).unwrap();
    let written = block_on(sharded(as_written).get(&[])).unwrap();
    let arr = sharded(with_fill(
        path,
        "\"fill_value\": 10",
        "\"fill_value\": 32767",
    ));
    let by_coords = block_on(arr.get_chunk(&[0, 0])).unwrap();
    assert_eq!(by_coords.bytes, block_on(arr.get(&[])).unwrap().bytes);
    let values = |bytes: &[u8]| -> Vec<i16> {
        bytes
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect()
    };
    let (before, after) = (values(&written.bytes), values(&by_coords.bytes));
    let mut filled = 0;
    for (&b, &a) in before.iter().zip(&after) {
        if b != a {
            assert_eq!((b, a), (10, 32767), "only missing inner chunks differ");
            filled += 1;
        }
    }
    assert!(filled > 0, "the shard has missing inner chunks");
}

#[test]
fn zfp_with_the_header_older_zarrs_wrote_reads_like_zfpy() {
    // zarrs once let its `zfp` codec write zfpy's header before the stream ("write_header":
    // true, since dropped from the registry). zfpy's own chunks (extra.zarr) are such streams:
    // under `zfp` with that flag they read as zfpy reads them.
    let dir = "extra.zarr/zfpy/int32_precision";
    let meta = String::from_utf8(
        std::fs::read(common::fixture_path(&format!("{dir}/zarr.json"))).unwrap(),
    )
    .unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&meta).unwrap();
    value["codecs"] = serde_json::json!([{"name": "zfp", "configuration": {"mode": "fixed_precision", "precision": 20, "write_header": true}}]);
    let mut store = zarr_wasm::store::memory::MemoryStore::new();
    store.insert("zarr.json", value.to_string());
    let mut files = Vec::new();
    common::walk(&common::fixture_path(&format!("{dir}/c")), &mut files);
    for file in &files {
        let key = file
            .strip_prefix(common::fixture_path(dir))
            .unwrap()
            .to_str()
            .unwrap()
            .replace('\\', "/");
        store.insert(&key, std::fs::read(file).unwrap());
    }
    assert!(!files.is_empty());
    let Node::Array(arr) = block_on(open(Rc::new(store), "")).unwrap() else {
        panic!("a group")
    };
    let got = block_on(arr.get(&[])).unwrap();
    let want = std::fs::read(common::fixture_path(
        "extra.expected/extra__zfpy__int32_precision.bin",
    ))
    .unwrap();
    assert_eq!(got.bytes, want);
}

#[test]
fn a_conditional_header_that_does_not_fit_the_codecs_is_an_error_naming_it() {
    // float32_three: three codecs behind a 16-bit header. A chunk whose header sets a bit past
    // them (a codec this metadata does not have), or that is shorter than the header, is
    // refused with the codec, the key and the reason; the other chunks still read.
    let dir = "registry.zarr/conditional/float32_three";
    let fixture = |key: &str| std::fs::read(common::fixture_path(&format!("{dir}/{key}"))).unwrap();
    for (damage, problem) in [
        (
            &(|mut b: Vec<u8>| {
                b[0] |= 1 << 5;
                b
            }) as &dyn Fn(Vec<u8>) -> Vec<u8>,
            "sets bit 5, but only 3 codecs",
        ),
        (
            &|b: Vec<u8>| b[..1].to_vec(),
            "shorter than the 2-byte header",
        ),
        (
            &|mut b: Vec<u8>| {
                // A raw chunk claimed to be compressed: zstd, undone first, finds no frame.
                b[0] = 0b111;
                b
            },
            "zstd",
        ),
    ] {
        let mut store = zarr_wasm::store::memory::MemoryStore::new();
        store.insert("zarr.json", fixture("zarr.json"));
        store.insert("c/0", damage(fixture("c/0")));
        store.insert("c/1", fixture("c/1"));
        let Node::Array(arr) = block_on(open(Rc::new(store), "")).unwrap() else {
            panic!("a group")
        };
        let err = block_on(arr.get_chunk(&[0])).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Codec, "{err}");
        for part in ["c/0", problem] {
            assert!(err.to_string().contains(part), "{part} in {err}");
        }
        assert!(block_on(arr.get_chunk(&[1])).is_ok());
    }
}

#[test]
fn an_n5_block_header_that_does_not_fit_the_array_is_an_error_naming_it() {
    // uint16_gzip: 2-D blocks of [16, 16]. A block in another mode, of other dimensions, larger
    // than allowed, whose data does not fill its shape, or too short for its header is refused
    // with the codec, key and reason.
    let dir = "registry.zarr/n5_default/uint16_gzip";
    let fixture = |key: &str| std::fs::read(common::fixture_path(&format!("{dir}/{key}"))).unwrap();
    let with = |at: usize, bytes: &'static [u8]| {
        move |mut b: Vec<u8>| {
            b[at..at + bytes.len()].copy_from_slice(bytes);
            b
        }
    };
    type Damage = Box<dyn Fn(Vec<u8>) -> Vec<u8>>;
    let cases: [(Damage, &str); 5] = [
        (Box::new(with(0, &[0, 1])), "mode is 1"),
        (Box::new(with(2, &[0, 3])), "3 dimensions, the array 2"),
        // A block larger than its chunk is refused from its header; one whose data does not
        // fill its shape fails in its codecs.
        (
            Box::new(with(4, &[0, 0, 0, 17])),
            "larger than the chunk's [16, 16]",
        ),
        (Box::new(with(4, &[0, 0, 0, 15])), "gzip"),
        (
            Box::new(|b: Vec<u8>| b[..7].to_vec()),
            "too few for a header of 2 dimensions",
        ),
    ];
    for (damage, problem) in cases {
        let mut store = zarr_wasm::store::memory::MemoryStore::new();
        store.insert("zarr.json", fixture("zarr.json"));
        store.insert("0/0", damage(fixture("0/0")));
        store.insert("0/1", fixture("0/1"));
        let Node::Array(arr) = block_on(open(Rc::new(store), "")).unwrap() else {
            panic!("a group")
        };
        let err = block_on(arr.get_chunk(&[0, 0])).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Codec, "{err}");
        // The codec that failed: n5_default for its header, the inner codec for the data.
        let codec = if problem == "gzip" {
            "gzip"
        } else {
            "n5_default"
        };
        for part in [codec, "0/0", problem] {
            assert!(err.to_string().contains(part), "{part} in {err}");
        }
        assert!(block_on(arr.get_chunk(&[0, 1])).is_ok());
    }
}
