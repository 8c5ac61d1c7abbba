//! A view of a store that de-duplicates identical requests in flight (two reads that need the
//! same chunk at once fetch it once) and, where given room, keeps recent values in memory,
//! bounded in bytes. Every view of one store (a read's, with its `AbortSignal`) shares both.

use super::single_flight::SingleFlight;
use super::{ByteRange, ReadableStore};
use crate::collections::lru::ByteLru;
use crate::error::Result;
use async_trait::async_trait;
use futures_util::future::FutureExt;
use std::cell::RefCell;
use std::rc::Rc;

/// A whole value (`None`) or a range of it.
type Key = (String, Option<ByteRange>);

/// What the views of one store share.
pub struct StoreCache {
    values: RefCell<ByteLru<Key>>,
    in_flight: SingleFlight<Key, Option<Rc<Vec<u8>>>>,
}

impl StoreCache {
    /// A cache keeping up to `capacity` bytes of values (0: none, requests are still shared).
    pub fn new(capacity: usize) -> Rc<StoreCache> {
        Rc::new(StoreCache {
            values: RefCell::new(ByteLru::new(capacity)),
            in_flight: SingleFlight::default(),
        })
    }

    /// The bytes the kept values take.
    pub fn used(&self) -> usize {
        self.values.borrow().used()
    }

    /// Requests in flight that some read still waits for.
    pub fn in_flight(&self) -> usize {
        self.in_flight.open_flights()
    }
}

pub struct CachedStore {
    inner: Rc<dyn ReadableStore>,
    cache: Rc<StoreCache>,
}

impl CachedStore {
    pub fn new(inner: Rc<dyn ReadableStore>, cache: Rc<StoreCache>) -> Self {
        CachedStore { inner, cache }
    }

    async fn fetch(&self, key: &str, range: Option<ByteRange>) -> Result<Option<Vec<u8>>> {
        let k: Key = (key.to_string(), range);
        if let Some(v) = self.cache.values.borrow_mut().get(&k) {
            return Ok(Some(v.to_vec()));
        }
        let start = |_, _| {
            let (inner, key) = (self.inner.clone(), key.to_string());
            async move {
                let value = match range {
                    Some(r) => inner.get_range(&key, r).await?,
                    None => inner.get(&key).await?,
                };
                Ok(value.map(Rc::new))
            }
            .boxed_local()
        };
        let location = || self.inner.locate(key);
        let value = (self.cache.in_flight)
            .run(k.clone(), &*self.inner, location, |_| {}, start)
            .await?;
        if let Some(v) = &value {
            self.cache.values.borrow_mut().insert(k, v.clone());
        }
        // The bytes themselves where nothing else holds them (no cache, no other reader): a
        // response is not copied just to pass through.
        Ok(value.map(|v| Rc::try_unwrap(v).unwrap_or_else(|v| v.to_vec())))
    }
}

#[async_trait(?Send)]
impl ReadableStore for CachedStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.fetch(key, None).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        self.fetch(key, Some(range)).await
    }

    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }

    fn wrapped(&self) -> Option<&dyn ReadableStore> {
        Some(&*self.inner)
    }

    /// Writes go to the store, and what the cache kept of the keys written goes.
    #[cfg(feature = "write")]
    fn writable(&self) -> Option<&dyn super::WritableStore> {
        self.inner
            .writable()
            .map(|_| self as &dyn super::WritableStore)
    }
}

#[cfg(feature = "write")]
#[async_trait(?Send)]
impl super::WritableStore for CachedStore {
    async fn set(&self, key: &str, value: Vec<u8>) -> Result<()> {
        let result = self.writer()?.set(key, value).await;
        self.forget(|k| k == key);
        result
    }

    async fn erase(&self, key: &str) -> Result<()> {
        let result = self.writer()?.erase(key).await;
        self.forget(|k| k == key);
        result
    }

    async fn erase_prefix(&self, prefix: &str) -> Result<()> {
        let result = self.writer()?.erase_prefix(prefix).await;
        self.forget(|k| k.starts_with(prefix));
        result
    }
}

#[cfg(feature = "write")]
impl CachedStore {
    fn writer(&self) -> Result<&dyn super::WritableStore> {
        self.inner.writable().ok_or_else(|| {
            crate::error::ZarrError::unsupported(&self.inner.locate(""), "this store cannot write")
        })
    }

    /// Drops the kept values (whole or ranges) of the keys `gone` says.
    fn forget(&self, gone: impl Fn(&str) -> bool) {
        self.cache.values.borrow_mut().forget(|(k, _)| gone(k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory::MemoryStore;
    use futures_executor::block_on;
    use futures_util::future::join;
    use std::cell::Cell;

    /// A memory store counting the requests that reach it, each taking a turn to answer.
    struct Counted {
        inner: MemoryStore,
        requests: Cell<usize>,
    }

    #[async_trait(?Send)]
    impl ReadableStore for Counted {
        async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
            self.requests.set(self.requests.get() + 1);
            YieldOnce(false).await;
            self.inner.get(key).await
        }
        async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
            self.requests.set(self.requests.get() + 1);
            self.inner.get_range(key, range).await
        }
        fn locate(&self, key: &str) -> String {
            key.into()
        }
    }

    /// Pending once: other futures get their turn, as they would while a request is out.
    struct YieldOnce(bool);

    impl std::future::Future for YieldOnce {
        type Output = ();
        fn poll(
            mut self: std::pin::Pin<&mut Self>,
            cx: &mut std::task::Context<'_>,
        ) -> std::task::Poll<()> {
            if self.0 {
                return std::task::Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    }

    fn counted() -> Rc<Counted> {
        let mut inner = MemoryStore::new();
        inner.insert("a", vec![1; 100]);
        inner.insert("b", vec![2; 100]);
        Rc::new(Counted {
            inner,
            requests: Cell::new(0),
        })
    }

    #[test]
    fn identical_requests_in_flight_are_one() {
        let store = counted();
        let cached = CachedStore::new(store.clone(), StoreCache::new(0));
        let (x, y) = block_on(join(cached.get("a"), cached.get("a")));
        assert_eq!(
            (x.unwrap(), y.unwrap()),
            (Some(vec![1; 100]), Some(vec![1; 100]))
        );
        assert_eq!(store.requests.get(), 1);
        block_on(cached.get("a")).unwrap();
        assert_eq!(store.requests.get(), 2, "nothing kept without room");
    }

    #[test]
    fn values_are_kept_within_the_bound() {
        let store = counted();
        let cache = StoreCache::new(150);
        let cached = CachedStore::new(store.clone(), cache.clone());
        block_on(cached.get("a")).unwrap();
        block_on(cached.get("a")).unwrap();
        assert_eq!(store.requests.get(), 1);
        block_on(cached.get_range("b", ByteRange::Suffix(10))).unwrap();
        block_on(cached.get("b")).unwrap(); // evicts a
        assert!(cache.used() <= 150);
        block_on(cached.get("a")).unwrap();
        assert_eq!(store.requests.get(), 4);
        // Another view of the same store shares what is kept.
        let other = CachedStore::new(store.clone(), cache);
        block_on(other.get("a")).unwrap();
        assert_eq!(store.requests.get(), 4);
    }
}
