//! Decoded chunks (and inner chunks of shards) an array keeps for later reads, bounded by bytes;
//! empty unless given room. Every view of an array shares its cache.

use crate::collections::lru::ByteLru;
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Default)]
pub struct ChunkCache {
    lru: RefCell<Option<ByteLru<Vec<u64>>>>,
    /// Bumped at each write's forgetting: a read that fetched before it does not keep what it
    /// decoded (the stored value it came from may be gone), see `keep_since`.
    writes: std::cell::Cell<u64>,
}

impl ChunkCache {
    /// Keeps up to `bytes` of decoded chunks from now on (0: none), dropping what it held.
    pub fn set_capacity(&self, bytes: usize) {
        *self.lru.borrow_mut() = (bytes > 0).then(|| ByteLru::new(bytes));
    }

    /// Whether it keeps anything.
    pub fn is_on(&self) -> bool {
        self.lru.borrow().is_some()
    }

    /// The decoded chunk kept under `key` (chunk coordinates, or `inner_key` for an inner chunk
    /// of a shard).
    pub fn get(&self, key: &[u64]) -> Option<Vec<u8>> {
        let mut lru = self.lru.borrow_mut();
        lru.as_mut()?.get(&key.to_vec()).map(|v| v.to_vec())
    }

    /// What `keep_since` compares: take it before fetching what will be kept.
    pub fn epoch(&self) -> u64 {
        self.writes.get()
    }

    /// `keep`, unless a write has forgotten anything since `epoch` was taken: what was fetched
    /// before it may be what the write replaced.
    pub fn keep_since(&self, epoch: u64, key: Vec<u64>, decoded: &[u8]) {
        if self.writes.get() == epoch {
            self.keep(key, decoded);
        }
    }

    /// Keeps a copy of `decoded` under `key` if it fits at all.
    pub fn keep(&self, key: Vec<u64>, decoded: &[u8]) {
        if let Some(lru) = self.lru.borrow_mut().as_mut() {
            if decoded.len() <= lru.capacity() {
                lru.insert(key, Rc::new(decoded.to_vec()));
            }
        }
    }
}

impl ChunkCache {
    /// Drops what is kept under `key` (a chunk that was written), and what reads begun before
    /// would keep (`keep_since`).
    pub fn forget(&self, key: &[u64]) {
        self.writes.set(self.writes.get() + 1);
        if let Some(lru) = self.lru.borrow_mut().as_mut() {
            lru.remove(&key.to_vec());
        }
    }
}

/// The cache key of an inner chunk: the shard's coordinates, a marker no coordinate can be
/// (grids are far smaller), then the inner chunk's.
pub fn inner_key(shard: &[u64], inner: &[u64]) -> Vec<u64> {
    shard
        .iter()
        .chain(&[u64::MAX])
        .chain(inner)
        .copied()
        .collect()
}
