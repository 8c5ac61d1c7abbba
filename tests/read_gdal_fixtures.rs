//! Reads every array of tests/fixtures/gdal/ (GDAL 3.6.2's Zarr driver: Blosc with its
//! `"shuffle": "BIT"` and friends, XZ streams with the delta filter; numcodecs' LZMA with delta
//! filters by zarr-python) and compares it with the values GDAL (or zarr-python) read back; and
//! GDAL 3.6's pre-2023 v3 draft, refused by name wherever it is opened.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{check_manifest, LoggedStore as Logged};
use futures_executor::block_on;
use serde_json::Value;
use zarr_wasm::hierarchy::node::{open_with, OpenOptions};
use zarr_wasm::{open, ErrorKind, Node};

#[test]
fn every_gdal_fixture_array_reads_whole_and_matches() {
    assert_eq!(check_manifest("gdal.expected.json"), 29);
}

#[test]
fn the_pre_2023_v3_draft_is_refused_by_name_at_the_root_and_below() {
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/gdal.expected.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let refused = manifest["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 2);
    for entry in refused {
        let (store, path) = (
            entry["store"].as_str().unwrap(),
            entry["path"].as_str().unwrap(),
        );
        let logged = Logged::new(store);
        let Err(err) = block_on(open(logged.clone(), path)) else {
            panic!("{store}/{path} opened")
        };
        assert_eq!(err.kind, ErrorKind::Unsupported, "{err}");
        for part in entry["message"].as_array().unwrap() {
            let part = part.as_str().unwrap();
            assert!(err.message.contains(part), "{part}: {err}");
        }
        // The root: its zarr.json alone. Below it: what the open looks for (Band1/zarr.json and
        // the rest of the open sequence), then the root's zarr.json once: the one request the
        // explanation costs.
        let keys = logged.take();
        if path.is_empty() {
            assert_eq!(keys, ["zarr.json"]);
        } else {
            let (root, below): (Vec<_>, Vec<_>) = keys.iter().partition(|k| *k == "zarr.json");
            assert_eq!(root.len(), 1, "{keys:?}");
            assert!(below.contains(&&"Band1/zarr.json".to_string()), "{keys:?}");
            assert!(below.iter().all(|k| k.starts_with("Band1/")), "{keys:?}");
        }
    }
    // With the format asked for, and through consolidated metadata, the same error.
    let draft = "gdal/uint16_v3_draft.zarr";
    for options in [
        OpenOptions {
            zarr_format: Some(3),
            ..OpenOptions::default()
        },
        OpenOptions {
            consolidated: Some(true),
            ..OpenOptions::default()
        },
    ] {
        for path in ["", "Band1"] {
            let Err(err) = block_on(open_with(Logged::new(draft), path, options)) else {
                panic!("{path} opened with {options:?}")
            };
            assert_eq!(err.kind, ErrorKind::Unsupported, "{options:?}: {err}");
            assert!(err.message.contains("pre-2023 Zarr v3 draft"), "{err}");
        }
    }
}

#[test]
fn a_missing_node_elsewhere_is_still_not_found() {
    // Below a v2 root (no zarr.json) and a v3 root (a zarr.json that is not the draft's): the
    // open's own error, after the one request for the root's zarr.json.
    for store in ["gdal/uint16_lzma.zarr", "v3.zarr"] {
        let logged = Logged::new(store);
        let Err(err) = block_on(open(logged.clone(), "no/such")) else {
            panic!("{store}: found")
        };
        assert_eq!(err.kind, ErrorKind::NotFound, "{err}");
        assert!(!err.message.contains("draft"), "{err}");
        assert!(logged.take().contains(&"zarr.json".to_string()), "{store}");
        // The root was looked at: further paths that are not there do not ask for it again
        // (a viewer probing many paths asked for the root once per probe).
        for path in ["no/such/either", "nor/this"] {
            let Err(err) = block_on(open(logged.clone(), path)) else {
                panic!("{store}: {path} found")
            };
            assert_eq!(err.kind, ErrorKind::NotFound, "{err}");
            assert!(
                !logged.take().contains(&"zarr.json".to_string()),
                "{store}: {path}"
            );
        }
    }
    // A root document that is not the draft's is not parsed by the check, however large (a
    // million lists took the check seconds and a gigabyte; it is scanned for the draft's URI).
    assert!(!zarr_wasm::metadata::v3::is_draft_root(
        format!("[{}0]", "[0],".repeat(3_000_000)).as_bytes()
    ));
    let draft = std::fs::read(common::fixture_path("gdal/uint16_v3_draft.zarr/zarr.json")).unwrap();
    assert!(zarr_wasm::metadata::v3::is_draft_root(&draft));
    // A node that exists asks for nothing more.
    let logged = Logged::new("gdal/uint16_lzma.zarr");
    let Ok(Node::Array(_)) = block_on(open(logged.clone(), "Band1")) else {
        panic!("Band1")
    };
    assert!(!logged.take().contains(&"zarr.json".to_string()));
}
