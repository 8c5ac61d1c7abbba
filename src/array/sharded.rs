//! Reading sharded arrays in parts: for each shard a selection touches, the shard's index (one
//! range request, shared by every read that needs it and kept in a bounded cache), then only the
//! inner chunks the selection needs, with nearby ranges merged into one request. A selection that
//! needs most of a shard reads the shard whole, in one request, and takes the index from it.
//! Either way the inner chunks decode one by one, letting the event loop run between them.

use super::chunk_cache::{inner_key, ChunkCache};
use super::piece::{Content, Piece, StoredInner};
use crate::codecs::codec::{PartialDecoder, ShardIndex, Stopped};
use crate::error::{CodecError, Result, ZarrError};
use crate::indexing::region::c_strides;
use crate::indexing::selection::{chunk_projections, ChunkProjection, DimChunkPart, DimRange};
use crate::metadata::chunk_grid::ChunkGrid;
use crate::store::single_flight::SingleFlight;
use crate::store::{merge_ranges, ByteRange, ReadableStore};
use futures_util::future::join_all;
use futures_util::FutureExt;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::rc::Rc;

/// Bytes of encoded indexes an array keeps at most, whatever the entry limit: an index is 16 bytes
/// per inner chunk, and metadata decides how many there are.
pub const MAX_INDEX_BYTES: usize = 64 << 20;

/// Encoded shard indexes by shard key: a fetch in flight is shared by the reads that want it,
/// finished ones are kept, the oldest dropped beyond the limits.
#[derive(Default)]
pub struct IndexCache {
    in_flight: SingleFlight<String, Option<Rc<Vec<u8>>>>,
    done: RefCell<HashMap<String, Option<Rc<Vec<u8>>>>>,
    order: RefCell<VecDeque<String>>,
    bytes: Cell<usize>,
}

impl IndexCache {
    /// The encoded index at `range` of `key` (`None` when there is no such value).
    async fn fetch(
        &self,
        store: &Rc<dyn ReadableStore>,
        key: &str,
        range: ByteRange,
    ) -> Result<Option<Rc<Vec<u8>>>> {
        if let Some(done) = self.done.borrow().get(key) {
            return Ok(done.clone());
        }
        let start = |_, _| {
            let (store, key) = (store.clone(), key.to_string());
            async move { store.get_range(&key, range).await.map(|v| v.map(Rc::new)) }.boxed_local()
        };
        let location = || store.locate(key);
        let value = (self.in_flight)
            .run(key.to_string(), &**store, location, |_| {}, start)
            .await?;
        self.remember(key, value.clone(), store.hints().index_cache.max(1));
        Ok(value)
    }

    fn remember(&self, key: &str, value: Option<Rc<Vec<u8>>>, limit: usize) {
        if self.done.borrow().contains_key(key) {
            return;
        }
        self.bytes
            .set(self.bytes.get() + value.as_ref().map_or(0, |v| v.len()));
        self.done.borrow_mut().insert(key.to_string(), value);
        self.order.borrow_mut().push_back(key.to_string());
        while self.order.borrow().len() > limit || self.bytes.get() > MAX_INDEX_BYTES {
            let Some(old) = self.order.borrow_mut().pop_front() else {
                break;
            };
            self.drop_done(&old);
        }
    }

    fn drop_done(&self, key: &str) {
        if let Some(Some(v)) = self.done.borrow_mut().remove(key) {
            self.bytes.set(self.bytes.get() - v.len());
        }
    }

    /// Forgets a kept index that turned out unusable, so that the next read fetches it again.
    fn forget(&self, key: &str) {
        self.drop_done(key);
        self.order.borrow_mut().retain(|k| k != key);
    }
}

type Blocks = Rc<Vec<(Range<u64>, Option<Rc<Vec<u8>>>)>>;

/// Range requests for one shard collected from every read that wants them in the same turn, then
/// merged and sent together: twelve tiles over one shard cost a few requests, not twelve times a
/// few. A batch is open to joiners until its store's batch window has passed.
#[derive(Default)]
pub struct RangeBatches {
    batches: SingleFlight<String, Blocks, RefCell<Vec<Range<u64>>>>,
}

impl RangeBatches {
    /// Fetches `ranges` of the value at `key` together with the ranges other reads ask for in the
    /// same turn. Returns the merged blocks that were fetched (with `None` for a vanished value).
    async fn fetch(
        &self,
        store: &Rc<dyn ReadableStore>,
        key: &str,
        ranges: Vec<Range<u64>>,
    ) -> Result<Blocks> {
        if ranges.is_empty() {
            return Ok(Rc::new(Vec::new()));
        }
        let join =
            |wanted: &RefCell<Vec<Range<u64>>>| wanted.borrow_mut().extend(ranges.iter().cloned());
        let start = |wanted: Rc<RefCell<Vec<Range<u64>>>>,
                     closer: crate::store::single_flight::Closer<_, _, _>| {
            let (store, key) = (store.clone(), key.to_string());
            async move {
                store.batch_window().await;
                // Closed: later reads start a batch of their own.
                closer.close();
                let groups = merge_ranges(wanted.take(), store.hints().merge_gap);
                fetch_blocks(&*store, &key, groups).await
            }
            .boxed_local()
        };
        let location = || store.locate(key);
        (self.batches)
            .run(key.to_string(), &**store, location, join, start)
            .await
    }
}

/// The merged ranges `groups` of the value at `key`, fetched at once.
async fn fetch_blocks(
    store: &dyn ReadableStore,
    key: &str,
    groups: Vec<Range<u64>>,
) -> Result<Blocks> {
    let requests = groups.iter().map(|g| {
        store.get_range(
            key,
            ByteRange::Span {
                offset: g.start,
                length: g.end - g.start,
            },
        )
    });
    let replies = join_all(requests).await;
    let mut blocks = Vec::with_capacity(groups.len());
    for (g, reply) in groups.into_iter().zip(replies) {
        let bytes = reply?;
        if let Some(b) = &bytes {
            if b.len() as u64 != g.end - g.start {
                let reason = format!(
                    "bytes {}..{} were asked for and {} came back: the shard is shorter than its index says",
                    g.start,
                    g.end,
                    b.len()
                );
                return Err(ZarrError::codec(
                    &store.locate(key),
                    CodecError::new("sharding_indexed", reason),
                ));
            }
        }
        blocks.push((g, bytes.map(Rc::new)));
    }
    Ok(Rc::new(blocks))
}

/// Reads shards in parts for one array (and every view of it): keeps the shard indexes it has
/// fetched and batches the range requests of concurrent reads.
#[derive(Default)]
pub struct ShardReader {
    indexes: IndexCache,
    batches: RangeBatches,
}

impl ShardReader {
    /// One shard's share of a selection: `projection` in shard coordinates, the shard stored at
    /// `key` with shape `shard_shape`. Decoded inner chunks are taken from and kept in `kept`.
    /// Its pieces: the inner chunks it needs, or the fill value where the shard is missing.
    pub async fn read(
        &self,
        store: &Rc<dyn ReadableStore>,
        key: &str,
        codec: &dyn PartialDecoder,
        projection: ChunkProjection,
        shard_shape: Vec<u64>,
        kept: &ChunkCache,
    ) -> Result<Vec<Piece>> {
        let location = store.locate(key);
        let broken = |reason: String| {
            ZarrError::codec(&location, CodecError::new("sharding_indexed", reason))
        };
        let (cps, inner) = inner_projections(codec, &projection, &shard_shape).map_err(broken)?;
        let strides = c_strides(&cps);
        let position = |p: &ChunkProjection| -> usize {
            let i: u64 = p.coords.iter().zip(&strides).map(|(c, s)| c * s).sum();
            i as usize
        };
        // Taken before the shard is fetched: a write meanwhile means not keeping what it gives.
        let epoch = kept.epoch();
        // Inner chunks kept from earlier reads are neither fetched nor decoded again.
        let earlier: Vec<Option<Vec<u8>>> = inner
            .iter()
            .map(|p| kept.get(&inner_key(&projection.coords, &p.coords)))
            .collect();
        let (index, blocks) = if earlier.iter().all(Option::is_some) {
            (None, Rc::default())
        } else if fetches_whole(codec, &cps, inner.len(), &**store) {
            // Most of the shard is wanted, or the store sends whole values anyway: one request
            // for all of it beats an index round trip, and its index is read from it.
            let Some(shard) = store.get(key).await? else {
                return Ok(fill(projection, shard_shape));
            };
            let index = index_in_shard(codec, &shard, &cps).map_err(broken)?;
            let whole = 0..shard.len() as u64;
            (Some(index), Rc::new(vec![(whole, Some(Rc::new(shard)))]))
        } else {
            let Some(index) = self.index(store, codec, key, &cps).await? else {
                return Ok(fill(projection, shard_shape));
            };
            let needed: Vec<Range<u64>> = inner
                .iter()
                .zip(&earlier)
                .filter(|(_, earlier)| earlier.is_none())
                .filter_map(|(p, _)| index.get(position(p)))
                .collect();
            let blocks = self.batches.fetch(store, key, needed).await?;
            (Some(index), blocks)
        };
        let cancelled = || store.cancelled();
        // Inner chunks decode where the read places them, unless they are to be kept.
        let decoded_later = codec.inner_chunk_bytes().is_some() && !kept.is_on();
        let shard_key: Rc<str> = Rc::from(key);
        let mut pieces = Vec::with_capacity(inner.len());
        for (inner_projection, earlier) in inner.into_iter().zip(earlier) {
            let range = index
                .as_ref()
                .and_then(|i| i.get(position(&inner_projection)));
            let data = match (earlier, range) {
                (Some(earlier), _) => Some(earlier),
                (None, None) => None,
                (None, Some(r)) => {
                    let (g, bytes) = blocks
                        .iter()
                        .find(|(g, _)| g.start <= r.start && r.end <= g.end)
                        .ok_or_else(|| broken("an inner chunk's range was not fetched".into()))?;
                    let bytes = bytes.as_ref().ok_or_else(|| {
                        broken(
                            "the shard disappeared between reading its index and its chunks".into(),
                        )
                    })?;
                    let within = (r.start - g.start) as usize..(r.end - g.start) as usize;
                    if decoded_later {
                        pieces.push(Piece {
                            chunk_shape: codec.inner_shape().to_vec(),
                            parts: in_shard(&inner_projection, &projection),
                            data: Content::Inner(StoredInner {
                                block: bytes.clone(),
                                range: within,
                                shard_key: shard_key.clone(),
                                coords: inner_projection.coords,
                            }),
                            coords: None,
                        });
                        continue;
                    }
                    let slice = bytes[within].to_vec();
                    let decoded = codec
                        .decode_inner(slice, &inner_projection.coords, &cancelled)
                        .await
                        .map_err(|stop| match stop {
                            Stopped::Cancelled => ZarrError::aborted(&location),
                            Stopped::Failed(reason) => broken(reason),
                        })?;
                    crate::host::yield_if_busy().await;
                    kept.keep_since(
                        epoch,
                        inner_key(&projection.coords, &inner_projection.coords),
                        &decoded,
                    );
                    Some(decoded)
                }
            };
            pieces.push(Piece {
                chunk_shape: codec.inner_shape().to_vec(),
                parts: in_shard(&inner_projection, &projection),
                data: data.into(),
                coords: None,
            });
        }
        Ok(pieces)
    }

    /// The decoded index of the shard at `key`, or `None` when there is no shard.
    async fn index(
        &self,
        store: &Rc<dyn ReadableStore>,
        codec: &dyn PartialDecoder,
        key: &str,
        cps: &[u64],
    ) -> Result<Option<ShardIndex>> {
        let location = store.locate(key);
        let broken = |reason: String| {
            ZarrError::codec(&location, CodecError::new("sharding_indexed", reason))
        };
        let size = codec.index_size(cps).map_err(broken)? as u64;
        let raw = self.encoded_index(store, codec, key, cps).await?;
        let Some(raw) = raw else { return Ok(None) };
        if raw.len() as u64 != size {
            self.indexes.forget(key);
            return Err(broken(format!(
                "the shard is {} bytes, shorter than its {size}-byte index",
                raw.len()
            )));
        }
        codec
            .decode_index(raw.to_vec(), cps, None)
            .map(Some)
            .map_err(|e| {
                self.indexes.forget(key);
                broken(e)
            })
    }
}

impl ShardReader {
    /// The encoded index of the shard at `key` (`None`: no shard), fetched or kept from before.
    async fn encoded_index(
        &self,
        store: &Rc<dyn ReadableStore>,
        codec: &dyn PartialDecoder,
        key: &str,
        cps: &[u64],
    ) -> Result<Option<Rc<Vec<u8>>>> {
        let broken = |reason: String| {
            ZarrError::codec(
                &store.locate(key),
                CodecError::new("sharding_indexed", reason),
            )
        };
        let size = codec.index_size(cps).map_err(broken)? as u64;
        let range = if codec.index_at_end() {
            ByteRange::Suffix(size)
        } else {
            ByteRange::Span {
                offset: 0,
                length: size,
            }
        };
        self.indexes.fetch(store, key, range).await
    }

    /// The encoded index a read of `projection` of the shard at `key` would fetch, fetched (or
    /// kept from before); `None` where that read would fetch the shard whole instead. For
    /// handing to another reader of the same array (a worker), which then need not fetch it.
    pub async fn index_for(
        &self,
        store: &Rc<dyn ReadableStore>,
        key: &str,
        codec: &dyn PartialDecoder,
        projection: &ChunkProjection,
        shard_shape: &[u64],
    ) -> Result<Option<Option<Rc<Vec<u8>>>>> {
        let broken = |reason: String| {
            ZarrError::codec(
                &store.locate(key),
                CodecError::new("sharding_indexed", reason),
            )
        };
        let (cps, inner) = inner_projections(codec, projection, shard_shape).map_err(broken)?;
        if fetches_whole(codec, &cps, inner.len(), &**store) {
            return Ok(None);
        }
        Ok(Some(self.encoded_index(store, codec, key, &cps).await?))
    }

    /// Forgets what is known of the shard at `key`'s index: the next read asks the store.
    #[cfg(feature = "write")]
    pub fn forget_index(&self, key: &str) {
        self.indexes.forget(key);
    }

    /// Replaces the kept index of the shard at `key` by `value` (None: no shard): a write
    /// stored the shard anew, or erased it.
    #[cfg(feature = "write")]
    pub fn replace_index(&self, key: &str, value: Option<Rc<Vec<u8>>>, store: &dyn ReadableStore) {
        self.indexes.forget(key);
        self.keep_index(key, value, store);
    }

    /// Keeps an encoded index another reader of the array fetched (see `index_for`). It is
    /// checked as any fetched index is, when a read decodes it.
    pub fn keep_index(&self, key: &str, value: Option<Rc<Vec<u8>>>, store: &dyn ReadableStore) {
        self.indexes
            .remember(key, value, store.hints().index_cache.max(1));
    }
}

/// A shard's chunks per dimension, and the inner chunks `projection` (a share of the shard, in
/// its coordinates) touches.
pub(crate) fn inner_projections(
    codec: &dyn PartialDecoder,
    projection: &ChunkProjection,
    shard_shape: &[u64],
) -> std::result::Result<(Vec<u64>, Vec<ChunkProjection>), String> {
    let cps = codec.chunks_per_shard(shard_shape)?;
    let inner_grid =
        ChunkGrid::regular(codec.inner_shape().to_vec(), shard_shape).map_err(|e| e.to_string())?;
    let ranges: Vec<DimRange> = projection
        .parts
        .iter()
        .map(|p| DimRange {
            start: p.start_in_chunk,
            step: p.step,
            count: p.count,
            keep: true,
        })
        .collect();
    let inner = chunk_projections(&inner_grid, &ranges)
        .map_err(|e| e.to_string())?
        .collect();
    Ok((cps, inner))
}

/// Whether a read of `wanted` of a shard's inner chunks fetches the whole shard: when most of it
/// is wanted, one request for all of it beats an index round trip, and when the store sends whole
/// values anyway. Not a shard over `MAX_WHOLE_SHARD_BYTES` decoded: beside its transfer the index
/// round trip is small, the index is kept for later reads, and a range answer is reserved at its
/// size at once (a whole body past 64 MiB is grown as it arrives, which copies it).
fn fetches_whole(
    codec: &dyn PartialDecoder,
    cps: &[u64],
    wanted: usize,
    store: &dyn ReadableStore,
) -> bool {
    let total = cps
        .iter()
        .try_fold(1u64, |acc, &n| acc.checked_mul(n))
        .unwrap_or(u64::MAX);
    let small = codec
        .inner_chunk_bytes()
        .is_none_or(|b| b.saturating_mul(total) <= MAX_WHOLE_SHARD_BYTES);
    ((wanted as u64).saturating_mul(2) > total && small) || store.hints().whole_values
}

/// The largest shard (decoded) a read fetches whole rather than by its index.
const MAX_WHOLE_SHARD_BYTES: u64 = 16 << 20;

/// An inner chunk's share (`inner`, in shard coordinates), placed where the shard's share
/// (`shard`) goes in the result.
fn in_shard(inner: &ChunkProjection, shard: &ChunkProjection) -> Vec<DimChunkPart> {
    inner
        .parts
        .iter()
        .zip(&shard.parts)
        .map(|(p, shard)| DimChunkPart {
            out_start: p.out_start + shard.out_start,
            ..*p
        })
        .collect()
}

/// A missing shard's share: the fill value.
fn fill(projection: ChunkProjection, shard_shape: Vec<u64>) -> Vec<Piece> {
    vec![Piece {
        chunk_shape: shard_shape,
        parts: projection.parts,
        data: Content::Missing,
        coords: None,
    }]
}

/// The index of a shard read whole, at its end or its start.
pub(crate) fn index_in_shard(
    codec: &dyn PartialDecoder,
    shard: &[u8],
    cps: &[u64],
) -> std::result::Result<ShardIndex, String> {
    let size = codec.index_size(cps)?;
    if shard.len() < size {
        return Err(format!(
            "the shard is {} bytes, shorter than its {size}-byte index",
            shard.len()
        ));
    }
    let at = match codec.index_at_end() {
        true => shard.len() - size,
        false => 0,
    };
    let index = shard[at..at + size].to_vec();
    codec.decode_index(index, cps, Some(shard.len() as u64))
}
