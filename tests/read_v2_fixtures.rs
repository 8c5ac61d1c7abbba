//! Reads every Zarr v2 array that zarr-python 2 and tensorstore wrote into tests/fixtures and
//! compares it with the values the writers recorded beside them; checks how v2 nodes are found.
// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{check_manifest, DirStore, LoggedStore as Logged};
use futures_executor::block_on;
use std::rc::Rc;
use zarr_wasm::hierarchy::node::{open_with, OpenOptions};
use zarr_wasm::{open, ErrorKind, Node};

fn opened(node: zarr_wasm::Result<Node>) -> Node {
    node.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_v2_fixture_array_reads_whole_and_matches() {
    assert!(check_manifest("v2.expected.json") >= 80);
    assert!(check_manifest("v2_zarr3.expected.json") >= 10);
}

#[test]
fn v2_nodes_are_found_after_zarr_json_and_with_the_format_given() {
    let store = Logged::new("v2.zarr");
    let Node::Array(a) = opened(block_on(open(store.clone(), "dtypes/int16"))) else {
        panic!("not an array")
    };
    assert_eq!(a.metadata().zarr_format, 2);
    let mut keys = store.take();
    keys.sort();
    assert_eq!(
        keys,
        [
            "dtypes/int16/.zarray",
            "dtypes/int16/.zattrs",
            "dtypes/int16/zarr.json"
        ]
    );

    let v2 = OpenOptions {
        zarr_format: Some(2),
        consolidated: None,
        ..OpenOptions::default()
    };
    opened(block_on(open_with(store.clone(), "dtypes/int16", v2)));
    assert_eq!(store.take().len(), 2, "no zarr.json with zarrFormat 2");

    // A group's children are of its format: no zarr.json is asked for below it.
    let Node::Group(root) = opened(block_on(open_with(store.clone(), "", v2))) else {
        panic!("not a group")
    };
    assert_eq!(root.metadata().attributes["title"], "zarr-wasm v2 fixtures");
    assert!(
        root.children().is_none(),
        "no listing without consolidated metadata"
    );
    store.take();
    opened(block_on(root.open("nested/deeper/leaf")));
    assert!(store.take().iter().all(|k| !k.ends_with("zarr.json")));

    let missing = block_on(open(store.clone(), "no/such")).err().unwrap();
    assert_eq!(missing.kind, ErrorKind::NotFound);
    assert!(
        missing.message.contains("no/such/zarr.json") && missing.message.contains(".zgroup"),
        "{missing}"
    );
    let v3_only = OpenOptions {
        zarr_format: Some(3),
        consolidated: None,
        ..OpenOptions::default()
    };
    assert_eq!(
        block_on(open_with(store.clone(), "dtypes/int16", v3_only))
            .err()
            .unwrap()
            .kind,
        ErrorKind::NotFound
    );
}

#[test]
fn consolidated_v2_hierarchies_open_from_one_document() {
    let store = Logged::new("v2_consolidated.zarr");
    let consolidated = OpenOptions {
        zarr_format: None,
        consolidated: Some(true),
        ..OpenOptions::default()
    };
    let Node::Array(raw) = opened(block_on(open_with(
        store.clone(),
        "images/raw",
        consolidated,
    ))) else {
        panic!("not an array")
    };
    assert_eq!(raw.shape(), [16, 16]);
    assert_eq!(store.take(), [".zmetadata"]);

    // Found by itself too: the root's .zmetadata lists everything below it.
    let Node::Group(root) = opened(block_on(open(store.clone(), ""))) else {
        panic!("not a group")
    };
    let children: Vec<(String, String)> = root
        .children()
        .unwrap()
        .into_iter()
        .map(|c| (c.name, c.kind))
        .collect();
    assert_eq!(
        children,
        [
            ("images".into(), "group".into()),
            ("table".into(), "array".into())
        ]
    );
    store.take();
    let Node::Group(images) = opened(block_on(root.open("images"))) else {
        panic!("not a group")
    };
    assert_eq!(images.metadata().attributes["kind"], "images");
    let Node::Array(labels) = opened(block_on(images.open("labels"))) else {
        panic!("not an array")
    };
    assert_eq!(
        labels.metadata().dimension_names,
        Some(vec![Some("y".into()), Some("x".into())])
    );
    assert_eq!(
        block_on(images.open("nope")).err().unwrap().kind,
        ErrorKind::NotFound
    );
    assert!(store.take().is_empty(), "children open with no request");

    // Without consolidated metadata, asking for it is an error that says so.
    let plain = Logged::new("v2.zarr");
    let only_v2 = OpenOptions {
        zarr_format: Some(2),
        consolidated: Some(true),
        ..OpenOptions::default()
    };
    let err = block_on(open_with(plain.clone(), "", only_v2))
        .err()
        .unwrap();
    assert!(err.message.contains(".zmetadata"), "{err}");
}

#[test]
fn a_bz2_array_by_zarr_python_2_reads() {
    // Among the broken arrays while bz2 was refused; zarr-python 2.18.7 with numcodecs 0.15.1
    // wrote it from the values in bad_v2.expected.bin.
    let store = Rc::new(DirStore::fixtures("bad_v2.zarr"));
    let Node::Array(arr) = block_on(open(store, "bz2")).unwrap() else {
        panic!("a group")
    };
    let data = block_on(arr.get(&[])).unwrap();
    let want = std::fs::read(common::fixture_path("bad_v2.expected.bin")).unwrap();
    assert_eq!(data.bytes, want);
}

#[test]
fn broken_v2_arrays_fail_with_errors_that_say_where_and_what() {
    let store = Rc::new(DirStore::fixtures("bad_v2.zarr"));
    let open_err = |p: &str| match block_on(open(store.clone(), p)) {
        Err(e) => e,
        Ok(_) => panic!("{p} opened"),
    };
    for (path, kind, what) in [
        ("pickle", ErrorKind::Unsupported, "\"pickle\""),
        (
            "unknown_filter",
            ErrorKind::Unsupported,
            "numcodecs.frobnicate",
        ),
        ("unknown_dtype", ErrorKind::Unsupported, "<q8"),
        ("no_byte_order", ErrorKind::Metadata, "byte order"),
        ("no_object_codec", ErrorKind::Metadata, "object codec"),
        ("format3", ErrorKind::Unsupported, "zarr_format 3"),
        ("bad_order", ErrorKind::Metadata, "\"order\""),
        ("bad_fill", ErrorKind::Metadata, "out of range"),
        ("bad_zattrs", ErrorKind::Metadata, "not a JSON object"),
        ("not_json", ErrorKind::Metadata, "not valid JSON"),
    ] {
        let e = open_err(path);
        assert_eq!(e.kind, kind, "{path}: {e}");
        assert!(e.message.contains(what), "{path}: {e}");
        assert!(
            e.message.contains(&format!("bad_v2.zarr/{path}/.za")),
            "{path}: {e}"
        );
    }
    for (name, codec) in [
        ("truncated_zlib", "numcodecs.zlib"),
        ("corrupt_blosc", "blosc"),
        ("wrong_size", "bytes"),
    ] {
        let Node::Array(arr) = opened(block_on(open(store.clone(), name))) else {
            panic!()
        };
        let e = block_on(arr.get(&[])).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Codec, "{name}: {e}");
        assert!(
            e.message.contains(&format!("codec {codec}"))
                && e.message.contains(&format!("{name}/0.0")),
            "{e}"
        );
        assert!(
            block_on(arr.get_chunk(&[1, 1])).is_ok(),
            "{name}: the other chunks read"
        );
    }
}
