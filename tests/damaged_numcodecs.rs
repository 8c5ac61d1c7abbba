//! numcodecs' checksums (fletcher32, jenkins_lookup3), packbits and base64, written by numcodecs
//! 0.16.5 through zarr-python 3 (v3 names and v2 ids): a chunk damaged in each codec's own layer
//! is a CodecError that names the codec, the chunk and what is wrong; the other chunks still read.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use async_trait::async_trait;
use common::DirStore;
use futures_executor::block_on;
use std::rc::Rc;
use zarr_wasm::store::{ByteRange, ReadableStore};
use zarr_wasm::{open, ErrorKind, Node, Result};

/// A fixture store with one value replaced.
struct Damaged {
    inner: DirStore,
    key: String,
    bytes: Vec<u8>,
}

#[async_trait(?Send)]
impl ReadableStore for Damaged {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        match key == self.key {
            true => Ok(Some(self.bytes.clone())),
            false => self.inner.get(key).await,
        }
    }
    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        match key == self.key {
            true => Ok(Some(range.cut(&self.bytes).to_vec())),
            false => self.inner.get_range(key, range).await,
        }
    }
    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }
}

/// Reads `path` of `store` with chunk `chunk` replaced by `damage(its bytes)`: the error, and
/// whether the chunk `other` still reads.
fn read_damaged(
    store: &str,
    path: &str,
    chunk: &str,
    other: &[u64],
    damage: impl Fn(Vec<u8>) -> Vec<u8>,
) -> zarr_wasm::ZarrError {
    let key = format!("{path}/{chunk}");
    let original = std::fs::read(common::fixture_path(&format!("{store}/{key}"))).unwrap();
    let damaged = Rc::new(Damaged {
        inner: DirStore::fixtures(store),
        key,
        bytes: damage(original),
    });
    let Node::Array(arr) = block_on(open(damaged, path)).unwrap() else {
        panic!("{path} is a group")
    };
    assert!(
        block_on(arr.get_chunk(other)).is_ok(),
        "{path}: chunk {other:?}"
    );
    block_on(arr.get(&[])).unwrap_err()
}

fn flip(at: usize) -> impl Fn(Vec<u8>) -> Vec<u8> {
    move |mut bytes| {
        bytes[at] ^= 0x10;
        bytes
    }
}

fn assert_names(e: &zarr_wasm::ZarrError, codec: &str, chunk: &str, problem: &str) {
    assert_eq!(e.kind, ErrorKind::Codec, "{e}");
    assert!(e.message.contains(&format!("codec {codec}")), "{e}");
    assert!(e.message.contains(chunk), "{e}");
    assert!(e.message.contains(problem), "{e}");
}

#[test]
fn damaged_checksums_are_mismatches() {
    for (store, path, chunk, other, codec) in [
        (
            "codecs.zarr",
            "numcodecs/fletcher32",
            "c/0/0",
            [1, 1],
            "numcodecs.fletcher32",
        ),
        (
            "codecs.zarr",
            "numcodecs/jenkins_lookup3",
            "c/0/0",
            [1, 1],
            "numcodecs.jenkins_lookup3",
        ),
        (
            "zarr3_v2.zarr",
            "fletcher32",
            "0.0",
            [1, 1],
            "numcodecs.fletcher32",
        ),
        (
            "zarr3_v2.zarr",
            "jenkins_lookup3",
            "0.0",
            [1, 1],
            "numcodecs.jenkins_lookup3",
        ),
    ] {
        // A byte of the checksummed data: the checksum, decoded first, is what complains.
        let e = read_damaged(store, path, chunk, &other, flip(3));
        assert_names(&e, codec, &format!("{path}/{chunk}"), "checksum mismatch");
        let e = read_damaged(store, path, chunk, &other, |b| b[..2].to_vec());
        assert_names(&e, codec, &format!("{path}/{chunk}"), "too short");
    }
}

#[test]
fn base64_text_that_lies_about_its_size_or_is_not_base64() {
    let (store, path, chunk) = ("zarr3_v2.zarr", "bool_packbits_base64", "0.0");
    let e = read_damaged(store, path, chunk, &[1, 1], |b| b[..b.len() - 4].to_vec());
    assert_names(
        &e,
        "numcodecs.base64",
        "bool_packbits_base64/0.0",
        "decoded bytes",
    );
    let e = read_damaged(store, path, chunk, &[1, 1], |mut b| {
        b[0] = b'!';
        b
    });
    assert_names(
        &e,
        "numcodecs.base64",
        "bool_packbits_base64/0.0",
        "not standard base64",
    );
}

#[test]
fn packbits_with_a_wrong_padding_count() {
    // Inside a valid base64 layer: numcodecs' padding byte says 4 bits for 20 booleans; 3 is a lie.
    let (store, path, chunk) = ("zarr3_v2.zarr", "bool_packbits_base64", "0.0");
    let e = read_damaged(store, path, chunk, &[1, 1], |b| {
        let text = String::from_utf8(b).unwrap();
        let mut raw = base64_decode(&text);
        assert_eq!(raw[0], 4, "5 x 4 booleans leave 4 bits of padding");
        raw[0] = 3;
        base64_encode(&raw).into_bytes()
    });
    assert_names(
        &e,
        "numcodecs.packbits",
        "bool_packbits_base64/0.0",
        "padding byte says 3 bits",
    );
}

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_decode(text: &str) -> Vec<u8> {
    let values: Vec<u32> = text
        .bytes()
        .filter(|&c| c != b'=')
        .map(|c| ALPHABET.iter().position(|&a| a == c).unwrap() as u32)
        .collect();
    let mut out = Vec::new();
    for group in values.chunks(4) {
        let n = group.iter().fold(0u32, |acc, v| acc << 6 | v) << (6 * (4 - group.len()));
        out.extend(&n.to_be_bytes()[1..group.len()]);
    }
    out
}

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let n = group.iter().fold(0u32, |acc, &b| acc << 8 | b as u32) << (8 * (3 - group.len()));
        for i in 0..=group.len() {
            out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
        out.push_str(&"=".repeat(3 - group.len()));
    }
    out
}
