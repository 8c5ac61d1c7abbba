//! Test support: a store over a directory of the committed fixtures.
// Each test binary uses a different part of this module.
#![allow(dead_code)]

use async_trait::async_trait;
use std::path::PathBuf;
use zarr_wasm::store::{ByteRange, ReadableStore};
use zarr_wasm::Result;

pub struct DirStore {
    root: PathBuf,
}

impl DirStore {
    pub fn fixtures(name: &str) -> DirStore {
        DirStore {
            root: PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures")
                .join(name),
        }
    }
}

#[async_trait(?Send)]
impl ReadableStore for DirStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(std::fs::read(self.root.join(key)).ok())
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        Ok(self.get(key).await?.map(|v| range.cut(&v).to_vec()))
    }

    fn locate(&self, key: &str) -> String {
        format!("file:{}", self.root.join(key).display())
    }
}

pub fn fixture_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}
