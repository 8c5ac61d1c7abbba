//! The documents an opening reads (`zarr.json`, `.zarray`, `.zattrs`...), recorded where a node is
//! opened and replayed where it is opened again: a worker of a pool opens the main thread's nodes
//! from what the main thread read, without asking the store for them a second time. Missing
//! documents are recorded too (a v3 reader asks for `zarr.json` before `.zarray`), so that the
//! replay asks for nothing the recording found missing.

use super::{ByteRange, ReadableStore};
use crate::error::Result;
use async_trait::async_trait;
use std::cell::RefCell;
use std::rc::Rc;

/// Documents larger than this are not recorded: an opening's are metadata, and a recording is
/// sent to every worker.
pub const MAX_RECORDED_BYTES: usize = 1 << 20;

/// What an opening read: each key, with its bytes or `None` where there was no value.
pub type Documents = Vec<(String, Option<Vec<u8>>)>;

/// A view of a store that records the whole values read through it.
pub struct RecordingStore {
    inner: Rc<dyn ReadableStore>,
    seen: RefCell<Documents>,
}

impl RecordingStore {
    pub fn new(inner: Rc<dyn ReadableStore>) -> Self {
        RecordingStore {
            inner,
            seen: RefCell::default(),
        }
    }

    /// The documents read so far, in the order they were read (once each).
    pub fn documents(&self) -> Documents {
        self.seen.borrow().clone()
    }
}

#[async_trait(?Send)]
impl ReadableStore for RecordingStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let value = self.inner.get(key).await?;
        let small = value.as_ref().is_none_or(|v| v.len() <= MAX_RECORDED_BYTES);
        let mut seen = self.seen.borrow_mut();
        if small && !seen.iter().any(|(k, _)| k == key) {
            seen.push((key.to_string(), value.clone()));
        }
        Ok(value)
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.inner.get_range(key, range).await
    }

    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }

    fn wrapped(&self) -> Option<&dyn ReadableStore> {
        Some(&*self.inner)
    }
}

/// A view of a store that answers whole reads of the recorded keys from the recording, and every
/// other read from the store.
pub struct ReplayingStore {
    inner: Rc<dyn ReadableStore>,
    /// A few documents: looked through in order.
    known: Rc<Documents>,
}

impl ReplayingStore {
    pub fn new(inner: Rc<dyn ReadableStore>, known: Rc<Documents>) -> Self {
        ReplayingStore { inner, known }
    }
}

#[async_trait(?Send)]
impl ReadableStore for ReplayingStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        match self.known.iter().find(|(k, _)| k == key) {
            Some((_, value)) => Ok(value.clone()),
            None => self.inner.get(key).await,
        }
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.inner.get_range(key, range).await
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
    use crate::store::counting::CountingStore;
    use crate::store::memory::MemoryStore;
    use futures_executor::block_on;

    #[test]
    fn an_opening_replayed_asks_the_store_for_nothing_it_recorded() {
        let mut memory = MemoryStore::new();
        memory.insert("a/zarr.json", b"{}".to_vec());
        memory.insert("a/c/0", vec![7; 16]);
        memory.insert("big", vec![1; MAX_RECORDED_BYTES + 1]);
        let memory: Rc<dyn ReadableStore> = Rc::new(memory);
        let recording = RecordingStore::new(memory.clone());
        block_on(async {
            recording.get("a/zarr.json").await.unwrap();
            recording.get("a/.zarray").await.unwrap();
            recording.get("a/zarr.json").await.unwrap();
            recording.get("big").await.unwrap();
        });
        let documents = recording.documents();
        assert_eq!(
            documents,
            vec![
                ("a/zarr.json".to_string(), Some(b"{}".to_vec())),
                ("a/.zarray".to_string(), None),
            ],
            "each document once, missing ones too, large values not"
        );

        let counting = Rc::new(CountingStore::new(memory));
        let counts = counting.counter();
        let replay = ReplayingStore::new(counting, Rc::new(documents));
        block_on(async {
            assert_eq!(
                replay.get("a/zarr.json").await.unwrap(),
                Some(b"{}".to_vec())
            );
            assert_eq!(replay.get("a/.zarray").await.unwrap(), None);
            assert_eq!(counts.requests.get(), 0, "recorded keys are not asked for");
            assert_eq!(replay.get("a/c/0").await.unwrap(), Some(vec![7; 16]));
            let range = ByteRange::Span {
                offset: 0,
                length: 1,
            };
            let part = replay.get_range("a/zarr.json", range).await.unwrap();
            assert_eq!(part, Some(b"{".to_vec()), "ranges are read from the store");
        });
        assert_eq!(counts.requests.get(), 2, "other reads go to the store");
    }
}
