//! One lock per key, for writes that read a value, change it and write it back (a chunk, a
//! shard): they go one at a time per key, each seeing what the one before wrote.

use crate::store::limit::{Limiter, Permit};
use std::cell::RefCell;
use std::collections::HashMap;

/// One lock per key: a read-modify-write of a chunk or a shard holds its key's lock throughout.
#[derive(Default)]
pub struct KeyLocks {
    held: RefCell<HashMap<String, Limiter>>,
}

/// A key's lock, held; the key's entry goes once nobody holds or waits for it.
pub struct KeyLock<'a> {
    locks: &'a KeyLocks,
    key: String,
    permit: Option<Permit>,
}

impl KeyLocks {
    pub async fn lock(&self, key: &str) -> KeyLock<'_> {
        let limiter = self
            .held
            .borrow_mut()
            .entry(key.to_string())
            .or_insert_with(|| Limiter::new(1))
            .clone();
        let permit = limiter.acquire().await;
        KeyLock {
            locks: self,
            key: key.to_string(),
            permit: Some(permit),
        }
    }
}

impl Drop for KeyLock<'_> {
    fn drop(&mut self) {
        drop(self.permit.take());
        let mut held = self.locks.held.borrow_mut();
        // Nobody else holds it (in use) or waits for it (a clone of the limiter besides the map's).
        if held
            .get(&self.key)
            .is_some_and(|l| l.in_use() == 0 && l.is_alone())
        {
            held.remove(&self.key);
        }
    }
}
