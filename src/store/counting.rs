//! A view of a store that counts the requests made through it and the bytes it delivers: how
//! much a read has fetched so far.

use super::{ByteRange, ReadableStore};
use crate::error::Result;
use async_trait::async_trait;
use std::cell::Cell;
use std::rc::Rc;

pub struct CountingStore {
    inner: Rc<dyn ReadableStore>,
    counts: Rc<Counts>,
}

/// Requests made (each `get` or `get_range`, answered or not) and bytes delivered.
#[derive(Debug, Default)]
pub struct Counts {
    pub requests: Cell<u64>,
    pub bytes: Cell<u64>,
}

impl CountingStore {
    pub fn new(inner: Rc<dyn ReadableStore>) -> Self {
        CountingStore {
            inner,
            counts: Rc::default(),
        }
    }

    /// The counts, shared: they go on growing as reads go through this view.
    pub fn counter(&self) -> Rc<Counts> {
        self.counts.clone()
    }

    fn asked(&self) {
        let requests = &self.counts.requests;
        requests.set(requests.get().saturating_add(1));
    }

    fn counted(&self, value: Option<Vec<u8>>) -> Option<Vec<u8>> {
        if let Some(v) = &value {
            let bytes = &self.counts.bytes;
            bytes.set(bytes.get().saturating_add(v.len() as u64));
        }
        value
    }
}

#[async_trait(?Send)]
impl ReadableStore for CountingStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.asked();
        Ok(self.counted(self.inner.get(key).await?))
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.asked();
        Ok(self.counted(self.inner.get_range(key, range).await?))
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        self.asked();
        self.inner.list_dir(prefix).await
    }

    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }

    fn wrapped(&self) -> Option<&dyn ReadableStore> {
        Some(&*self.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory::MemoryStore;
    use futures_executor::block_on;

    #[test]
    fn counts_what_it_delivers() {
        let mut memory = MemoryStore::new();
        memory.insert("a", vec![1, 2, 3, 4]);
        let store = CountingStore::new(Rc::new(memory));
        let counter = store.counter();
        block_on(store.get("a")).unwrap();
        block_on(store.get("missing")).unwrap();
        block_on(store.get_range("a", ByteRange::Suffix(1))).unwrap();
        assert_eq!((counter.requests.get(), counter.bytes.get()), (3, 5));
    }
}
