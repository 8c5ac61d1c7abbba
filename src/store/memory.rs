//! A store held in memory: a map from keys to bytes, which reads and (with the `write` feature)
//! writes.

use super::{ByteRange, ReadableStore};
use crate::error::Result;
use async_trait::async_trait;
use std::cell::RefCell;
use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct MemoryStore {
    values: RefCell<HashMap<String, Vec<u8>>>,
}

impl Clone for MemoryStore {
    /// A copy of its values: the copy and the original are written apart.
    fn clone(&self) -> Self {
        MemoryStore {
            values: RefCell::new(self.values.borrow().clone()),
        }
    }
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Vec<u8>>) {
        self.values.get_mut().insert(key.into(), value.into());
    }

    /// Its keys, in no order.
    pub fn keys(&self) -> Vec<String> {
        self.values.borrow().keys().cloned().collect()
    }
}

#[async_trait(?Send)]
impl ReadableStore for MemoryStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.values.borrow().get(key).cloned())
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        Ok(self.values.borrow().get(key).map(|v| range.cut(v).to_vec()))
    }

    fn locate(&self, key: &str) -> String {
        format!("memory:{key}")
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        let values = self.values.borrow();
        Ok(Some(super::children_of(
            values.keys().map(String::as_str),
            prefix,
        )))
    }

    #[cfg(feature = "write")]
    fn writable(&self) -> Option<&dyn super::WritableStore> {
        Some(self)
    }
}

#[cfg(feature = "write")]
#[async_trait(?Send)]
impl super::WritableStore for MemoryStore {
    async fn set(&self, key: &str, value: Vec<u8>) -> Result<()> {
        self.values.borrow_mut().insert(key.to_string(), value);
        Ok(())
    }

    async fn erase(&self, key: &str) -> Result<()> {
        self.values.borrow_mut().remove(key);
        Ok(())
    }

    async fn erase_prefix(&self, prefix: &str) -> Result<()> {
        self.values
            .borrow_mut()
            .retain(|key, _| !key.starts_with(prefix));
        Ok(())
    }
}
