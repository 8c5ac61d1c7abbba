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

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
