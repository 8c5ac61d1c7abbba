// Tests sort with the standard library: the one-sort rule (clippy.toml) is for the module.
#![allow(clippy::disallowed_methods)]
#![cfg(all(not(target_arch = "wasm32"), feature = "references"))]
//! kerchunk's references of the HDF5 and NetCDF-4 fixtures (scripts/make_reference_fixtures.py),
//! JSON files and Parquet directories, read through `ReferenceStore` over a file-serving client,
//! value by value against what h5py and netCDF4 read; and the requests a Parquet directory's reads
//! make.

mod common;

use async_trait::async_trait;
use futures_executor::block_on;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use zarr_wasm::store::http::{HttpClient, HttpFailure, HttpRequest, HttpResponse};
use zarr_wasm::store::reference::{ReferenceOptions, ReferenceStore};
use zarr_wasm::{open, Node};

const BASE: &str = "http://fixtures.test";

/// Serves tests/fixtures over "HTTP", with ranges, and records the URLs asked for.
#[derive(Clone, Default)]
struct Files {
    seen: Rc<RefCell<Vec<String>>>,
}

#[async_trait(?Send)]
impl HttpClient for Files {
    async fn send(&self, r: HttpRequest) -> Result<HttpResponse, HttpFailure> {
        self.seen.borrow_mut().push(r.url.clone());
        let rel = r.url.strip_prefix(BASE).unwrap_or("/none");
        let Ok(body) = std::fs::read(common::fixture_path(rel.trim_start_matches('/'))) else {
            return Ok(HttpResponse {
                status: 404,
                ..Default::default()
            });
        };
        Ok(common::http_answer(body, r.range))
    }
    async fn sleep(&self, _ms: u32) {}
}

fn store(name: &str, files: Files) -> Rc<ReferenceStore<Files>> {
    let options = ReferenceOptions {
        // VirtualiZarr's Parquet references have the absolute URLs as local paths.
        url_map: vec![
            (
                "file:///fixtures/references/".into(),
                format!("{BASE}/references/"),
            ),
            (
                "/fixtures/references/".into(),
                format!("{BASE}/references/"),
            ),
        ],
        ..ReferenceOptions::default()
    };
    let url = format!("{BASE}/{name}");
    Rc::new(block_on(ReferenceStore::open(&url, files, options)).unwrap())
}

#[test]
fn every_variable_of_every_reference_set_reads_as_h5py_and_netcdf4_read_it() {
    let text = std::fs::read_to_string(common::fixture_path("references.expected.json")).unwrap();
    let manifest: Value = serde_json::from_str(&text).unwrap();
    let mut stores = BTreeMap::new();
    let mut parquet = 0;
    for entry in manifest["arrays"].as_array().unwrap() {
        let name = entry["store"].as_str().unwrap();
        let path = entry["path"].as_str().unwrap();
        let s = stores
            .entry(name.to_string())
            .or_insert_with(|| store(name, Files::default()))
            .clone();
        assert_eq!(s.is_parquet(), name.ends_with(".parq"), "{name}");
        parquet += usize::from(s.is_parquet());
        let Node::Array(arr) = block_on(open(s, path)).unwrap() else {
            panic!("{name} {path} is not an array");
        };
        let got = block_on(arr.get(&[])).unwrap();
        let want = std::fs::read(common::fixture_path(entry["data"].as_str().unwrap())).unwrap();
        assert_eq!(got.bytes, want, "{name} {path}");
    }
    assert_eq!(parquet, 20, "the Parquet directories' variables");
}

#[test]
fn a_parquet_directory_is_read_a_reference_file_at_a_time() {
    let files = Files::default();
    let s = store("references/nc_arrow.parq/", files.clone());
    let seen = || files.seen.borrow().clone();
    assert_eq!(
        seen(),
        [format!("{BASE}/references/nc_arrow.parq/.zmetadata")]
    );
    let Node::Array(tas) = block_on(open(s.clone(), "tas")).unwrap() else {
        panic!()
    };
    assert_eq!(seen().len(), 1, "the metadata is in .zmetadata");
    // tas is 3 x 2 x 2 chunks, 5 a reference file: chunk (2, 1, 1), number 11, is in refs.2.parq.
    block_on(tas.get_chunk(&[2, 1, 1])).unwrap();
    let refs: Vec<String> = seen()
        .into_iter()
        .filter(|u| u.ends_with(".parq"))
        .collect();
    assert_eq!(
        refs,
        [format!("{BASE}/references/nc_arrow.parq/tas/refs.2.parq")]
    );
    block_on(tas.get(&[])).unwrap();
    let mut refs: Vec<String> = seen()
        .into_iter()
        .filter(|u| u.ends_with(".parq"))
        .collect();
    refs.sort();
    assert_eq!(
        refs,
        (0..3)
            .map(|i| format!("{BASE}/references/nc_arrow.parq/tas/refs.{i}.parq"))
            .collect::<Vec<_>>(),
        "each reference file once"
    );
}
