//! Stores: where keys' bytes come from. The reader only ever asks for whole values or byte ranges.

pub mod abort;
pub mod cache;
pub mod counting;
pub mod documents;
pub mod http;
#[cfg(feature = "icechunk")]
pub mod icechunk;
pub mod limit;
#[cfg(feature = "vectors")]
pub mod listing;
pub mod memory;
#[cfg(feature = "references")]
pub mod parquet;
#[cfg(feature = "references")]
pub mod reference;
pub mod single_flight;
#[cfg(any(feature = "references", feature = "icechunk"))]
pub mod span_batch;
#[cfg(feature = "references")]
pub mod template;
#[cfg(any(feature = "references", feature = "icechunk"))]
pub mod url;
pub mod window;
#[cfg(feature = "zip")]
pub mod zip;

use crate::error::Result;
use async_trait::async_trait;

/// How readers should batch their requests to a store: stores know their costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadHints {
    /// Ranges of one value closer than this many bytes are fetched in one request: a few KiB cost
    /// less than a round trip, and much larger gaps fetch data nobody asked for.
    pub merge_gap: u64,
    /// Shard indexes an array keeps (a 64-entry index with crc32c is about 1 KiB).
    pub index_cache: usize,
    /// The store can only deliver whole values (a server that ignores Range): read shards whole.
    pub whole_values: bool,
}

impl Default for ReadHints {
    fn default() -> Self {
        ReadHints {
            merge_gap: 4096,
            index_cache: 4096,
            whole_values: false,
        }
    }
}

/// A byte range of a stored value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ByteRange {
    /// `length` bytes from `offset`.
    Span { offset: u64, length: u64 },
    /// Everything from `offset` to the end.
    From(u64),
    /// The last `n` bytes.
    Suffix(u64),
}

impl ByteRange {
    /// Where this range lies in a value of `len` bytes, clamped to the value.
    pub fn resolve(self, len: u64) -> std::ops::Range<u64> {
        match self {
            ByteRange::Span { offset, length } => {
                offset.min(len)..offset.saturating_add(length).min(len)
            }
            ByteRange::From(offset) => offset.min(len)..len,
            ByteRange::Suffix(n) => len.saturating_sub(n)..len,
        }
    }

    /// This range of `value`, clamped to it.
    pub fn cut(self, value: &[u8]) -> &[u8] {
        let r = self.resolve(value.len() as u64);
        &value[r.start as usize..r.end as usize]
    }
}

/// Sorted, merged ranges: ranges that overlap or lie within `gap` bytes of each other become one.
/// Reads that batch ranges of one value (a shard's inner chunks, a reference target's
/// chunks) fetch each merged range with one request.
pub fn merge_ranges(mut ranges: Vec<std::ops::Range<u64>>, gap: u64) -> Vec<std::ops::Range<u64>> {
    crate::collections::sort::sort_by(&mut ranges, |a, b| a.start < b.start);
    let mut merged: Vec<std::ops::Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end.saturating_add(gap) => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// The names directly below the directory `prefix` among `keys` (full keys such as "a/b/zarr.json"):
/// for stores that hold every key.
pub fn children_of<'a>(keys: impl Iterator<Item = &'a str>, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = keys
        .filter_map(|k| {
            if prefix.is_empty() {
                Some(k)
            } else {
                k.strip_prefix(prefix)?.strip_prefix('/')
            }
        })
        .filter_map(|rest| rest.split('/').next().filter(|n| !n.is_empty()))
        .map(String::from)
        .collect();
    crate::collections::sort::sort_dedup(&mut names);
    names
}

#[async_trait(?Send)]
pub trait ReadableStore {
    /// The whole value at `key`, or `None` when there is none.
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>>;

    /// Part of the value at `key`, or `None` when there is no value.
    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>>;

    /// Where `key` lives, for messages: a URL for HTTP stores.
    fn locate(&self, key: &str) -> String;

    /// For a view of another store (a cache, a counter, an archive inside it): that store. The
    /// methods below then answer as it does, unless the view says otherwise.
    fn wrapped(&self) -> Option<&dyn ReadableStore> {
        None
    }

    /// Resolves once the reads started together with the caller have had their turn, so that their
    /// range requests can be sent as one batch. Remote stores wait for the platform's next task
    /// (a timer of 0 ms in JavaScript); local stores have nothing to gain and return at once.
    async fn batch_window(&self) {
        if let Some(inner) = self.wrapped() {
            inner.batch_window().await
        }
    }

    /// How to batch reads of this store.
    fn hints(&self) -> ReadHints {
        self.wrapped()
            .map_or_else(ReadHints::default, |inner| inner.hints())
    }

    /// The names of what lies directly below the directory `prefix` ("" is the root; no slashes at
    /// either end), files and directories alike, or `None` when this store cannot list. Zarr itself
    /// never needs a listing; formats that name arrays only by where they are (Zarr Vectors' link
    /// arrays) do.
    async fn list_dir(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        match self.wrapped() {
            Some(inner) => inner.list_dir(prefix).await,
            None => Ok(None),
        }
    }

    /// This store's writing side, where it can write (a capability a read-only store lacks). A
    /// view of another store writes through it.
    #[cfg(feature = "write")]
    fn writable(&self) -> Option<&dyn WritableStore> {
        self.wrapped().and_then(|inner| inner.writable())
    }

    /// Whether the reads going through this store were aborted by their caller.
    fn cancelled(&self) -> bool {
        self.wrapped().is_some_and(|inner| inner.cancelled())
    }

    /// Resolves when the reads going through this store are aborted (never, for a store without
    /// a signal): for waits that do not go through the store's own requests (another read's).
    async fn aborted(&self) {
        match self.wrapped() {
            Some(inner) => inner.aborted().await,
            None => std::future::pending::<()>().await,
        }
    }
}

/// A store that also writes, as the Zarr specs' storage operations: set a value, erase one, erase
/// every value below a prefix.
#[cfg(feature = "write")]
#[async_trait(?Send)]
pub trait WritableStore: ReadableStore {
    /// Stores `value` at `key`, replacing any value there whole: a reader sees the old value or
    /// the new one, never part of each.
    async fn set(&self, key: &str, value: Vec<u8>) -> Result<()>;
    /// Removes the value at `key`; nothing there is not an error.
    async fn erase(&self, key: &str) -> Result<()>;
    /// Removes every value whose key starts with `prefix` ("a/b/" erases the node at a/b and
    /// everything below it).
    async fn erase_prefix(&self, prefix: &str) -> Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_when_close() {
        assert_eq!(
            merge_ranges(vec![10..20, 0..5, 5000..6000, 21..30], 4),
            vec![0..5, 10..30, 5000..6000]
        );
        assert_eq!(merge_ranges(vec![0..10, 2..4], 0), vec![0..10]);
        assert_eq!(
            merge_ranges(vec![], 4096),
            Vec::<std::ops::Range<u64>>::new()
        );
    }
}
