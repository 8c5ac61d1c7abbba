//! Chunks no writer makes that once kept a decoder busy for seconds, or grew memory by
//! gigabytes, before failing (issue 32): object chunks (numcodecs' json2 and msgpack2) whose
//! lists are far longer than the chunk's shape allows or whose JSON form outgrows the decoded
//! size cap, and compressed chunks of thousands of gzip members or bzip2 streams that decode to
//! nothing. Each must be a prompt `CodecError` saying what is wrong, found without allocating
//! what the bad input asks for (a counting allocator measures the peak); well-formed chunks of
//! the same kinds still decode.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::counting::{peak_of, serial, CountingAllocator};
use common::open_array;

use futures_executor::block_on;
use serde_json::{json, Value};
use zarr_wasm::codecs::bz2::Bz2Codec;
use zarr_wasm::codecs::codec::{ArrayToBytesCodec, BytesToBytesCodec};
use zarr_wasm::codecs::gzip::GzipCodec;
use zarr_wasm::codecs::json2::object_chunk;
use zarr_wasm::codecs::msgpack2::MsgPack2Codec;
use zarr_wasm::codecs::{ChunkRepr, DecodedSize};
use zarr_wasm::data_type::variable::item_ranges;
use zarr_wasm::data_type::DataType;
use zarr_wasm::limits::Limits;
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::{Array, ErrorKind};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// A v2 object array of one chunk of `len` elements, stored as `chunk` with the object codec
/// `filter` (json2, msgpack2) and `compressor`.
fn object_array(
    filter: &str,
    compressor: Value,
    len: u64,
    chunk: Vec<u8>,
    limits: Limits,
) -> Array {
    let meta = json!({
        "zarr_format": 2, "shape": [len], "chunks": [len], "dtype": "|O",
        "compressor": compressor, "fill_value": null, "filters": [{"id": filter}], "order": "C"
    });
    let mut store = MemoryStore::new();
    store.insert(".zarray", serde_json::to_vec(&meta).unwrap());
    store.insert("0", chunk);
    open_array(store, limits)
}

/// The elements of a decoded object chunk (variable-length layout), as text.
fn elements(out: &[u8]) -> Vec<String> {
    let n = u32::from_le_bytes([out[0], out[1], out[2], out[3]]) as usize;
    item_ranges(out, n)
        .unwrap()
        .into_iter()
        .map(|r| String::from_utf8(out[r].to_vec()).unwrap())
        .collect()
}

/// numcodecs' JSON list of a chunk of `n` numbers claiming to be of shape `[shape]`.
fn json_numbers(n: usize, shape: u64) -> Vec<u8> {
    let mut text = b"[".to_vec();
    text.extend(b"0,".repeat(n));
    text.extend(format!("\"|O\",[{shape}]]").as_bytes());
    text
}

/// A MessagePack string (str 32) of `text`.
fn msgpack_str(text: &[u8]) -> Vec<u8> {
    let mut out = vec![0xdb];
    out.extend((text.len() as u32).to_be_bytes());
    out.extend(text);
    out
}

/// numcodecs' MessagePack list of a one-element chunk: `element`, then dtype and shape.
fn msgpack_one(element: Vec<u8>) -> Vec<u8> {
    [vec![0x93], element, vec![0xa2, b'|', b'O', 0x91, 0x01]].concat()
}

fn msgpack_decode(codec: &MsgPack2Codec, doc: Vec<u8>, shape: Vec<u64>) -> Result<Vec<u8>, String> {
    let repr = ChunkRepr {
        shape,
        data_type: DataType::Object,
    };
    codec.decode(doc, &repr).map_err(|e| e.to_string())
}

#[test]
fn a_json2_list_longer_than_the_chunk_is_refused_before_anything_is_built() {
    let _serial = serial();
    // 32M numbers where the chunk holds 1000: the list is refused at its 1003rd item. The old
    // decoder parsed the whole document first (3.1 GB in wasm, a capacity overflow at 100M).
    let text = json_numbers(32_000_000, 1000);
    let (result, peak) = peak_of(|| object_chunk(&text, &[1000]));
    let err = result.unwrap_err();
    assert!(err.contains("more than 1002 items"), "{err}");
    assert!(err.contains("[1000]"), "names the shape: {err}");
    assert!(peak < 64 << 10, "peak {peak}");

    // An inner list longer than its dimension, refused as it is read.
    let mut nested = b"[[".to_vec();
    nested.extend(b"0,".repeat(10_000_000));
    nested.extend(b"0],[1,2,3],\"|O\",[2,3]]");
    let (result, peak) = peak_of(|| object_chunk(&nested, &[2, 3]));
    let err = result.unwrap_err();
    assert!(err.contains("a list of more than 3"), "{err}");
    assert!(peak < 64 << 10, "peak {peak}");

    // The same through an array, the chunk compressed (873 KB in the issue): a CodecError that
    // names the codec, holding little more than the decoded document.
    let compressed = miniz_oxide::deflate::compress_to_vec_zlib(&text, 1);
    let arr = object_array(
        "json2",
        json!({"id": "zlib", "level": 1}),
        1000,
        compressed,
        Limits::default(),
    );
    let (result, peak) = peak_of(|| block_on(arr.get(&[])));
    let err = result.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Codec, "{err}");
    assert!(err.message.contains("numcodecs.json2"), "{err}");
    assert!(err.message.contains("more than 1002 items"), "{err}");
    assert!(
        peak < 3 * text.len(),
        "peak {peak} for {} bytes of JSON",
        text.len()
    );
}

#[test]
fn json2_chunks_of_the_right_shape_still_decode_as_before() {
    let _serial = serial();
    let text = json_numbers(100_000, 100_000);
    let out = object_chunk(&text, &[100_000]).unwrap();
    let items = elements(&out);
    assert_eq!(items.len(), 100_000);
    assert!(items.iter().all(|e| e == "0"));
    // Nested, with strings holding brackets and commas, Python's NaN, whitespace.
    let text = br#" [ [ "a,]" , {"k": [1, "]"]} ] , [ NaN , [2, 3] ] , "|O" , [ 2 , 2 ] ] "#;
    let items = elements(&object_chunk(text, &[2, 2]).unwrap());
    assert_eq!(
        items,
        ["\"a,]\"", "{\"k\": [1, \"]\"]}", "\"NaN\"", "[2, 3]"]
    );
    // Shorter than the shape, a wrong dtype or shape, trailing text, deep nesting: errors.
    let deep = format!("[{}{}, \"|O\", [1]]", "[".repeat(200), "]".repeat(200));
    for (text, shape) in [
        (r#"[1, "|O", [2]]"#, vec![2]),
        (r#"[1, 2, "<i4", [2]]"#, vec![2]),
        (r#"[1, 2, "|O", [2, 1]]"#, vec![2]),
        (r#"[1, 2, "|O", [2]] x"#, vec![2]),
        (r#"[1, 2, "|O", [2]"#, vec![2]),
        (deep.as_str(), vec![1]),
    ] {
        assert!(object_chunk(text.as_bytes(), &shape).is_err(), "{text}");
    }
}

#[test]
fn a_msgpack2_list_longer_than_the_chunk_is_refused_at_its_header() {
    let _serial = serial();
    // A list of 100M nils (100 MB; 436 KB compressed in the issue) where the chunk holds 1000:
    // its header says so, and nothing is read past it.
    let count = 100_000_000u32;
    let mut doc = vec![0xdd];
    doc.extend(count.to_be_bytes());
    doc.resize(5 + count as usize, 0xc0);
    let codec = MsgPack2Codec::default();
    let (result, peak) = peak_of(|| msgpack_decode(&codec, doc, vec![1000]));
    let err = result.unwrap_err();
    assert!(err.contains("numcodecs.msgpack2"), "{err}");
    assert!(
        err.contains("100000000 items") && err.contains("[1000]"),
        "{err}"
    );
    // The document's JSON form is reserved from its size, capped: not the 500 MB it would be.
    assert!(peak < (256 << 20) + (1 << 20), "peak {peak}");

    // An inner list of the wrong length, at its header too.
    let doc = [
        vec![0x94, 0x92, 0x01, 0x02],
        vec![0xdd, 0x10, 0, 0, 0],
        vec![0xa2, b'|', b'O', 0x92, 2, 2],
    ]
    .concat();
    let err = msgpack_decode(&codec, doc, vec![2, 2]).unwrap_err();
    assert!(err.contains("a list of 268435456"), "{err}");
}

#[test]
fn msgpack2_json_is_held_to_the_decoded_size_cap_as_it_is_written() {
    let _serial = serial();
    // 10M control characters: 60 MB of JSON escapes. Escaped in runs now (5.6 s before), and
    // read with the default cap.
    let controls = vec![0x01u8; 10_000_000];
    let doc = msgpack_one(msgpack_str(&controls));
    let out = msgpack_decode(&MsgPack2Codec::default(), doc.clone(), vec![1]).unwrap();
    let items = elements(&out);
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].len(), 2 + 6 * controls.len());
    assert!(items[0].starts_with("\"\\u0001\\u0001"));

    // Under a lower cap the JSON stops growing at the cap, escapes included.
    let mut capped = MsgPack2Codec::default();
    capped.set_max_unknown_decoded(8 << 20);
    let input = doc.clone();
    let (result, peak) = peak_of(|| msgpack_decode(&capped, input, vec![1]));
    let err = result.unwrap_err();
    assert!(
        err.contains("8388608") && err.contains("maxDecodedChunkBytes"),
        "{err}"
    );
    assert!(peak < (8 << 20) + (1 << 20), "peak {peak}");

    // The array's limits reach the codec.
    let small = Limits {
        max_decoded_chunk_bytes: 8 << 20,
        ..Limits::default()
    };
    let arr = object_array("msgpack2", Value::Null, 1, doc, small);
    let err = block_on(arr.get(&[])).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Codec, "{err}");
    assert!(err.message.contains("8388608"), "{err}");
}

/// A gzip member of `data`.
fn gzip_member(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
    out.extend(crc32fast::hash(data).to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out
}

#[test]
fn gzip_members_that_decode_to_nothing_are_refused_past_a_few() {
    let _serial = serial();
    // 8 MB of empty members (20 bytes each): 4.5 s before.
    let empty = gzip_member(b"");
    let stream = empty.repeat((8 << 20) / empty.len());
    let input = stream.clone();
    let (result, peak) =
        peak_of(|| GzipCodec::default().decode(input, DecodedSize::AtMost(256 << 20)));
    let err = result.unwrap_err();
    assert_eq!(err.codec, "gzip");
    assert!(
        err.reason
            .contains("more than 16 gzip members decode to nothing"),
        "{err}"
    );
    assert!(peak < 5 * stream.len(), "peak {peak}");
    assert!(GzipCodec::default()
        .decode(stream, DecodedSize::Exact(0))
        .is_err());
    // Members of a byte each are no better.
    let tiny = gzip_member(b"x").repeat(100_000);
    assert!(GzipCodec::default()
        .decode(tiny, DecodedSize::Exact(100_000))
        .is_err());

    // Members with data still concatenate, a few empty ones among them, and an empty stream
    // of one member is still read.
    let blocks: Vec<Vec<u8>> = (0..200u32)
        .map(|i| (0..5000 + i).map(|j| (j * 7 + i) as u8).collect())
        .collect();
    let mut stream = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        if i % 20 == 0 {
            stream.extend(&empty);
        }
        stream.extend(gzip_member(block));
    }
    stream.extend(gzip_member(b"end"));
    let expected = [blocks.concat(), b"end".to_vec()].concat();
    for size in [
        DecodedSize::Exact(expected.len()),
        DecodedSize::AtMost(256 << 20),
    ] {
        assert_eq!(
            GzipCodec::default().decode(stream.clone(), size).unwrap(),
            expected
        );
    }
    assert_eq!(
        GzipCodec::default()
            .decode(empty, DecodedSize::Exact(0))
            .unwrap(),
        b""
    );
}

/// An empty bzip2 stream, as `bz2.compress(b"")` writes it: the header, the end-of-stream
/// marker and a zero CRC.
const EMPTY_BZ2: [u8; 14] = [
    b'B', b'Z', b'h', b'9', 0x17, 0x72, 0x45, 0x38, 0x50, 0x90, 0, 0, 0, 0,
];

#[test]
fn bzip2_streams_that_decode_to_nothing_are_refused_past_a_few() {
    let _serial = serial();
    // 1 MB of 75,000 empty streams: 6.6-9 s before.
    let stream = EMPTY_BZ2.repeat(75_000);
    let input = stream.clone();
    let (result, peak) =
        peak_of(|| Bz2Codec::default().decode(input, DecodedSize::AtMost(256 << 20)));
    let err = result.unwrap_err();
    assert_eq!(err.codec, "numcodecs.bz2");
    assert!(
        err.reason
            .contains("more than 16 bzip2 streams decode to nothing"),
        "{err}"
    );
    // The decoder's state for a stream, a few times over at most.
    assert!(peak < 16 << 20, "peak {peak}");
    // A few are read (their data, none).
    let few = EMPTY_BZ2.repeat(5);
    assert_eq!(
        Bz2Codec::default()
            .decode(few, DecodedSize::AtMost(1 << 20))
            .unwrap(),
        b""
    );
}
