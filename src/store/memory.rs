//! A store held in memory: a map from keys to bytes.

use super::{ByteRange, ReadableStore};
use crate::error::Result;
use async_trait::async_trait;
use std::collections::HashMap;

#[derive(Debug, Default, Clone)]
pub struct MemoryStore {
    values: HashMap<String, Vec<u8>>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Vec<u8>>) {
        self.values.insert(key.into(), value.into());
    }
}

#[async_trait(?Send)]
impl ReadableStore for MemoryStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.values.get(key).cloned())
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        Ok(self.values.get(key).map(|v| range.cut(v).to_vec()))
    }

    fn locate(&self, key: &str) -> String {
        format!("memory:{key}")
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        Ok(Some(super::children_of(
            self.values.keys().map(String::as_str),
            prefix,
        )))
    }
}
