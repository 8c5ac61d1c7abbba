//! Writing an array (the `write` feature): a selection set from a value, chunk by chunk. A chunk
//! the selection covers whole is built from the value alone; one it covers in part is read,
//! modified and written back. A chunk left holding nothing but the fill value is erased (unless
//! asked to keep it), as zarr-python and tensorstore do. A sharded array is written shard by
//! shard: the inner chunks a write does not touch are kept as they are stored, those it leaves
//! holding only the fill value are left out, and the shard and its index are written back whole.
//!
//! Writes of one chunk or shard go one at a time (`KeyLocks`): concurrent `set` calls into one
//! shard each read what the one before wrote, so none loses another's inner chunks.

use super::sharded::{index_in_shard, inner_projections};
use super::{alloc_elements, Array};
use crate::codecs::codec::{PartialDecoder, PartialEncoder, Stopped};
use crate::codecs::ChunkRepr;
use crate::error::{Result, ZarrError};
use crate::indexing::region::{copy_box, fill_box, Placement};
use crate::indexing::selection::{chunk_projections, resolve, ChunkProjection, DimSelection};
use crate::store::WritableStore;
use futures_util::stream::{self, StreamExt};
use std::rc::Rc;

/// What a selection is set to.
#[derive(Debug, Clone, Copy)]
pub enum WriteValue<'a> {
    /// The selection's elements in C order and native byte order, of its shape with every
    /// dimension (those selected by an index count one).
    Elements(&'a [u8]),
    /// One element, for every position of the selection.
    Scalar(&'a [u8]),
}

/// How a write goes.
pub struct WriteOptions<'a> {
    /// Chunks (or shards) written at once.
    pub concurrency: usize,
    /// Keep chunks that hold nothing but the fill value (zarr-python's `write_empty_chunks`).
    pub write_empty_chunks: bool,
    /// Called with (chunks written, chunks in all) after each chunk.
    pub progress: Option<&'a dyn Fn(u64, u64)>,
}

impl Default for WriteOptions<'_> {
    fn default() -> Self {
        WriteOptions {
            concurrency: 16,
            write_empty_chunks: false,
            progress: None,
        }
    }
}

/// The value's elements for one chunk's share: where the share lies in the value, and what it
/// holds.
struct Source<'a> {
    value: WriteValue<'a>,
    /// The value's shape (the selection's, every dimension).
    shape: &'a [u64],
    esize: usize,
}

impl Source<'_> {
    /// Puts the share `parts` describes (positions in a chunk of `chunk_shape`, and where they
    /// come from in the value, shifted by `out_shift`) into `chunk`.
    fn put(
        &self,
        chunk: &mut [u8],
        chunk_shape: &[u64],
        parts: &[crate::indexing::selection::DimChunkPart],
        out_shift: &[u64],
    ) {
        let counts: Vec<u64> = parts.iter().map(|p| p.count).collect();
        let start: Vec<u64> = parts.iter().map(|p| p.start_in_chunk).collect();
        let step: Vec<u64> = parts.iter().map(|p| p.step).collect();
        let to = Placement {
            shape: chunk_shape,
            start: &start,
            step: &step,
        };
        match self.value {
            WriteValue::Scalar(element) => fill_box(element, chunk, &to, &counts),
            WriteValue::Elements(bytes) => {
                let from_start: Vec<u64> = parts
                    .iter()
                    .zip(out_shift)
                    .map(|(p, s)| p.out_start + s)
                    .collect();
                let ones = vec![1; parts.len()];
                let from = Placement {
                    shape: self.shape,
                    start: &from_start,
                    step: &ones,
                };
                copy_box(bytes, &from, chunk, &to, &counts, self.esize);
            }
        }
    }
}

/// Whether `parts` cover every element of a chunk of `chunk_shape` at `origin` that lies inside
/// an array of `array_shape` (the rest of an edge chunk is the fill value).
fn covers_whole(
    parts: &[crate::indexing::selection::DimChunkPart],
    chunk_shape: &[u64],
    origin: &[u64],
    array_shape: &[u64],
) -> bool {
    parts
        .iter()
        .zip(chunk_shape)
        .zip(origin.iter().zip(array_shape))
        .all(|((p, &n), (&o, &len))| {
            let inside = n.min(len.saturating_sub(o));
            p.start_in_chunk == 0 && (p.step == 1 || p.count == 1) && p.count == inside
        })
}

/// Whether every element of `chunk` is `fill`.
fn all_fill(chunk: &[u8], fill: &[u8]) -> bool {
    !fill.is_empty() && chunk.chunks_exact(fill.len()).all(|e| e == fill)
}

impl Array {
    /// The store's writing side, or an `UnsupportedError` saying it cannot write; and an
    /// `UnsupportedError` naming the first codec that cannot encode. Checked before anything is
    /// written.
    pub fn writer(&self) -> Result<&dyn WritableStore> {
        let store = self.store.writable().ok_or_else(|| {
            ZarrError::unsupported(
                &self.store.locate(&self.path.key("")),
                "this store cannot write (it has no set)",
            )
        })?;
        if let Some(codec) = self.pipeline.missing_encoder() {
            return Err(self.in_this_array(ZarrError::unsupported(
                &self.store.locate(&self.path.key("")),
                format!("the codec \"{codec}\" cannot be encoded by zarr-wasm, so the array cannot be written"),
            )));
        }
        if self.data_type().is_variable() {
            return Err(self.in_this_array(ZarrError::unsupported(
                &self.store.locate(&self.path.key("")),
                format!("writing {} data is not supported yet", self.data_type()),
            )));
        }
        Ok(store)
    }

    /// Sets `selection` (as `get` takes it) to `value`.
    pub async fn set(&self, selection: &[DimSelection], value: WriteValue<'_>) -> Result<()> {
        self.set_with(selection, value, &WriteOptions::default())
            .await
    }

    /// `set`, with its options.
    pub async fn set_with(
        &self,
        selection: &[DimSelection],
        value: WriteValue<'_>,
        options: &WriteOptions<'_>,
    ) -> Result<()> {
        let store = self.writer()?;
        let ranges = resolve(selection, self.shape()).map_err(|e| self.in_this_array(e))?;
        let counts: Vec<u64> = ranges.iter().map(|r| r.count).collect();
        let esize = self.data_type().size();
        let (given, wanted) = match value {
            WriteValue::Scalar(e) => (e.len() as u64, esize as u64),
            WriteValue::Elements(b) => (
                b.len() as u64,
                counts
                    .iter()
                    .try_fold(esize as u64, |acc, &n| acc.checked_mul(n))
                    .unwrap_or(u64::MAX),
            ),
        };
        if given != wanted {
            let what = match value {
                WriteValue::Scalar(_) => "one element".to_string(),
                WriteValue::Elements(_) => format!("a selection of shape {counts:?}"),
            };
            return Err(self.in_this_array(ZarrError::selection(format!(
                "the value has {given} bytes; {what} of {} needs {wanted}",
                self.data_type()
            ))));
        }
        let source = Source {
            value,
            shape: &counts,
            esize,
        };
        let projections = chunk_projections(&self.metadata.chunk_grid, &ranges)
            .map_err(|e| self.in_this_array(e))?;
        let total = projections.total();
        let source = &source;
        let writes = projections.map(|p| async move {
            match self
                .pipeline
                .partial_decoder()
                .zip(self.pipeline.partial_encoder())
            {
                Some((decoder, encoder)) => {
                    self.write_shard(store, decoder, encoder, p, source, options)
                        .await
                }
                None => self.write_chunk(store, p, source, options).await,
            }
        });
        let mut done_writes = stream::iter(writes).buffer_unordered(options.concurrency.max(1));
        let mut done = 0u64;
        while let Some(written) = done_writes.next().await {
            written?;
            if self.store.cancelled() {
                return Err(self.aborted());
            }
            crate::host::yield_if_busy().await;
            done += 1;
            if let Some(progress) = options.progress {
                progress(done, total);
            }
        }
        Ok(())
    }

    /// A chunk of `shape` holding the fill value everywhere.
    fn filled(&self, shape: &[u64]) -> Result<Vec<u8>> {
        let fill = self.metadata.fill_value.as_bytes();
        let mut chunk = alloc_elements(shape, fill.len())?;
        chunk
            .chunks_exact_mut(fill.len().max(1))
            .for_each(|e| e.copy_from_slice(fill));
        Ok(chunk)
    }

    /// Writes one chunk's share of a selection.
    async fn write_chunk(
        &self,
        store: &dyn WritableStore,
        p: ChunkProjection,
        source: &Source<'_>,
        options: &WriteOptions<'_>,
    ) -> Result<()> {
        let grid = &self.metadata.chunk_grid;
        let (shape, origin) = (grid.chunk_shape(&p.coords), grid.chunk_origin(&p.coords));
        let key = self.chunk_key(&p.coords);
        let _lock = self.write_locks.lock(&key).await;
        // A chunk the value covers whole and that lies wholly inside the array needs no fill
        // value under it: every element is written.
        let inside = origin
            .iter()
            .zip(&shape)
            .zip(self.shape())
            .all(|((&o, &n), &len)| o.saturating_add(n) <= len);
        let mut chunk = match covers_whole(&p.parts, &shape, &origin, self.shape()) {
            true if inside => Some(alloc_elements(&shape, self.data_type().size())?),
            true => None,
            false => self.read_chunk(&p.coords).await?,
        }
        .map_or_else(|| self.filled(&shape), Ok)?;
        let zeros = vec![0; shape.len()];
        source.put(&mut chunk, &shape, &p.parts, &zeros);
        let fill = self.metadata.fill_value.as_bytes();
        if !options.write_empty_chunks && all_fill(&chunk, fill) {
            store.erase(&key).await?;
        } else {
            let repr = ChunkRepr {
                shape,
                data_type: self.data_type(),
            };
            // Kept for later reads where the array keeps decoded chunks (once written); else
            // not copied.
            let kept = self.chunk_cache.is_on().then(|| chunk.clone());
            let encoded = self
                .pipeline
                .encode(chunk, &repr)
                .map_err(|e| ZarrError::codec(&self.store.locate(&key), e))?;
            store.set(&key, encoded).await?;
            if let Some(kept) = kept {
                self.chunk_cache.keep(p.coords, &kept);
            }
            return Ok(());
        }
        self.chunk_cache.keep(p.coords, &chunk);
        Ok(())
    }

    /// Writes one shard's share of a selection: the inner chunks it touches replaced, the others
    /// kept as stored, the shard and its index written back whole.
    async fn write_shard(
        &self,
        store: &dyn WritableStore,
        decoder: &dyn PartialDecoder,
        encoder: &dyn PartialEncoder,
        p: ChunkProjection,
        source: &Source<'_>,
        options: &WriteOptions<'_>,
    ) -> Result<()> {
        let grid = &self.metadata.chunk_grid;
        let (shard_shape, origin) = (grid.chunk_shape(&p.coords), grid.chunk_origin(&p.coords));
        let key = self.chunk_key(&p.coords);
        let location = self.store.locate(&key);
        let bad = |e: String| {
            ZarrError::codec(
                &location,
                crate::error::CodecError::new("sharding_indexed", e),
            )
        };
        let _lock = self.write_locks.lock(&key).await;
        let (cps, inner) = inner_projections(decoder, &p, &shard_shape).map_err(bad)?;
        let count = cps.iter().product::<u64>() as usize;
        let mut stored: Vec<Option<Vec<u8>>> =
            match covers_whole(&p.parts, &shard_shape, &origin, self.shape()) {
                true => vec![None; count],
                false => self.stored_inner_chunks(decoder, &key, &cps, count).await?,
            };
        let inner_shape = decoder.inner_shape().to_vec();
        let shift: Vec<u64> = p.parts.iter().map(|part| part.out_start).collect();
        let strides = crate::indexing::region::c_strides(&cps);
        for ip in inner {
            let i: u64 = ip.coords.iter().zip(&strides).map(|(c, s)| c * s).sum();
            let i = i as usize;
            let inner_origin: Vec<u64> = ip
                .coords
                .iter()
                .zip(&inner_shape)
                .map(|(c, s)| c * s)
                .collect();
            let whole = covers_whole(&ip.parts, &inner_shape, &inner_origin, &shard_shape);
            let mut chunk = match (whole, stored[i].take()) {
                (false, Some(encoded)) => {
                    let cancelled = || self.store.cancelled();
                    decoder
                        .decode_inner(encoded, &ip.coords, &cancelled)
                        .await
                        .map_err(|stop| match stop {
                            Stopped::Cancelled => self.aborted(),
                            Stopped::Failed(e) => bad(e),
                        })?
                }
                _ => self.filled(&inner_shape)?,
            };
            source.put(&mut chunk, &inner_shape, &ip.parts, &shift);
            stored[i] = encoder
                .encode_inner(chunk, options.write_empty_chunks)
                .map_err(|e| ZarrError::codec(&location, e))?;
        }
        match encoder
            .assemble(&stored, &cps)
            .map_err(|e| ZarrError::codec(&location, e))?
        {
            Some(shard) => {
                let index_len = decoder.index_size(&cps).map_err(bad)?;
                let index = match decoder.index_at_end() {
                    true => shard[shard.len() - index_len..].to_vec(),
                    false => shard[..index_len].to_vec(),
                };
                store.set(&key, shard).await?;
                self.shards
                    .replace_index(&key, Some(Rc::new(index)), &*self.store);
            }
            // No inner chunk left: the shard goes.
            None => {
                store.erase(&key).await?;
                self.shards.replace_index(&key, None, &*self.store);
            }
        }
        Ok(())
    }

    /// The encoded inner chunks of the shard at `key` as stored (all absent where it is not).
    async fn stored_inner_chunks(
        &self,
        decoder: &dyn PartialDecoder,
        key: &str,
        cps: &[u64],
        count: usize,
    ) -> Result<Vec<Option<Vec<u8>>>> {
        let location = self.store.locate(key);
        let Some(shard) = self.store.get(key).await? else {
            return Ok(vec![None; count]);
        };
        let bad = |e: String| {
            ZarrError::codec(
                &location,
                crate::error::CodecError::new("sharding_indexed", e),
            )
        };
        let index = index_in_shard(decoder, &shard, cps).map_err(bad)?;
        Ok((0..count)
            .map(|i| {
                index
                    .get(i)
                    .map(|r| shard[r.start as usize..r.end as usize].to_vec())
            })
            .collect())
    }
}
