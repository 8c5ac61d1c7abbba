//! A Zarr array opened from a store: reads selections and single chunks.

pub mod chunk_cache;
#[cfg(feature = "write")]
pub mod copy;
#[cfg(feature = "write")]
pub mod key_locks;
pub mod piece;
pub mod sharded;
#[cfg(feature = "write")]
pub mod write;

use crate::codecs::codec::Stopped;
use crate::codecs::table::array_pipeline;
use crate::codecs::{elements_size, ChunkRepr, CodecPipeline};
use crate::collections::buffer::{try_grow, try_zeroed};
use crate::data_type::variable::Items;
use crate::data_type::DataType;
use crate::error::{CodecError, Result, ZarrError};
use crate::host::timing::{timed, Phase};
use crate::indexing::partition::{partition, Partition};
use crate::indexing::region::{c_strides, copy_box, fill_box, Placement};
use crate::indexing::selection::{
    chunk_projections, count_chunks, resolve, result_shape, ChunkProjection, DimChunkPart,
    DimRange, DimSelection,
};
use crate::limits::Limits;
use crate::metadata::chunk_grid::ChunkGrid;
use crate::metadata::node_path::NodePath;
use crate::metadata::ArrayMetadata;
use crate::store::ReadableStore;
use chunk_cache::ChunkCache;
use futures_util::stream::{self, StreamExt};
use piece::{Content, Piece, StoredInner};
use sharded::ShardReader;
pub use sharded::MAX_INDEX_BYTES;

/// Shard indexes fetched at once for another reader (`Array::shard_indexes`).
const INDEX_FETCHES: usize = 16;
use std::rc::Rc;

/// How many chunk requests one read keeps in flight. Browsers queue beyond their own per-host limit,
/// and HTTP/2 servers take many streams; measured with `npm run bench`, 16 left the reader waiting
/// on round trips (66 ms vs 49 ms for 64 chunks). Results are consumed as they arrive, so the window
/// holds encoded bytes in flight, not 64 decoded chunks.
const DEFAULT_CONCURRENCY: usize = 64;

/// The most chunks `chunk_regions` lists for one selection.
const MAX_CHUNK_REGIONS: u64 = 1 << 20;

/// Elements in C order and native byte order, with their shape. For variable-length types each
/// element is a handle into `items`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayData {
    pub data_type: DataType,
    pub shape: Vec<u64>,
    pub bytes: Vec<u8>,
    pub items: Option<Items>,
}

pub struct Array {
    store: Rc<dyn ReadableStore>,
    path: NodePath,
    // Shared by every view of this array (see `with_store`).
    metadata: Rc<ArrayMetadata>,
    pipeline: Rc<CodecPipeline>,
    /// Shard indexes and range batches, for a sharded array.
    shards: Rc<ShardReader>,
    chunk_cache: Rc<ChunkCache>,
    /// What its reads may cost.
    limits: Limits,
    /// Writes of one chunk or shard go one at a time (see `write`).
    #[cfg(feature = "write")]
    write_locks: Rc<key_locks::KeyLocks>,
}

impl Array {
    /// `location` names the metadata document in errors.
    pub fn new(
        store: Rc<dyn ReadableStore>,
        path: NodePath,
        metadata: ArrayMetadata,
        location: &str,
    ) -> Result<Array> {
        let pipeline = array_pipeline(&metadata, location)?;
        Ok(Array {
            store,
            path,
            metadata: Rc::new(metadata),
            pipeline: Rc::new(pipeline),
            shards: Rc::default(),
            chunk_cache: Rc::default(),
            limits: Limits::default(),
            #[cfg(feature = "write")]
            write_locks: Rc::default(),
        })
    }

    /// This array held to `limits` (the decoders too: chunks whose decoded size nothing fixes are
    /// capped at `limits.max_decoded_chunk_bytes`).
    pub fn with_limits(mut self, limits: Limits) -> Result<Array> {
        if limits.max_decoded_chunk_bytes != self.limits.max_decoded_chunk_bytes {
            let document = match self.metadata.zarr_format {
                1 => "meta",
                2 => ".zarray",
                _ => "zarr.json",
            };
            let location = self.store.locate(&self.path.key(document));
            let mut pipeline = array_pipeline(&self.metadata, &location)?;
            pipeline.set_max_unknown_decoded(limits.max_decoded_chunk_bytes);
            self.pipeline = Rc::new(pipeline);
        }
        self.limits = limits;
        Ok(self)
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Keeps up to `bytes` of decoded chunks for later reads (0, the default: none). Every view
    /// of the array shares them.
    pub fn set_chunk_cache(&self, bytes: usize) {
        self.chunk_cache.set_capacity(bytes);
    }

    /// This array reading through another view of its store (one that carries a read's
    /// `AbortSignal`, say), sharing its decoders, shard index cache and open range batches.
    pub fn with_store(&self, store: Rc<dyn ReadableStore>) -> Array {
        Array {
            store,
            path: self.path.clone(),
            metadata: self.metadata.clone(),
            pipeline: self.pipeline.clone(),
            shards: self.shards.clone(),
            chunk_cache: self.chunk_cache.clone(),
            limits: self.limits,
            #[cfg(feature = "write")]
            write_locks: self.write_locks.clone(),
        }
    }

    /// The store it reads from.
    pub fn store(&self) -> &Rc<dyn ReadableStore> {
        &self.store
    }

    pub fn path(&self) -> &NodePath {
        &self.path
    }

    pub fn metadata(&self) -> &ArrayMetadata {
        &self.metadata
    }

    pub fn shape(&self) -> &[u64] {
        &self.metadata.shape
    }

    pub fn data_type(&self) -> DataType {
        self.metadata.data_type
    }

    /// The store key of the chunk at `coords`.
    pub fn chunk_key(&self, coords: &[u64]) -> String {
        self.path
            .key(&self.metadata.chunk_key_encoding.encode(coords))
    }

    /// Reads `selection` (see `DimSelection`); the result drops dimensions selected by an index.
    pub async fn get(&self, selection: &[DimSelection]) -> Result<ArrayData> {
        self.get_with(selection, &ReadOptions::default()).await
    }

    /// `get` with its concurrency and a progress callback given.
    pub async fn get_with(
        &self,
        selection: &[DimSelection],
        options: &ReadOptions<'_>,
    ) -> Result<ArrayData> {
        let ranges = resolve(selection, self.shape()).map_err(|e| self.in_this_array(e))?;
        self.check_read_size(&ranges, options)
            .map_err(|e| self.in_this_array(e))?;
        let counts: Vec<u64> = ranges.iter().map(|r| r.count).collect();
        let esize = self.data_type().size();
        let mut bytes = alloc_elements(&counts, esize).map_err(|e| self.in_this_array(e))?;
        let projections = chunk_projections(&self.metadata.chunk_grid, &ranges)
            .map_err(|e| self.in_this_array(e))?;
        let total = projections.total();
        let mut arrivals = stream::iter(projections.map(|p| self.read_pieces(p)))
            .buffer_unordered(options.concurrency.max(1));
        let mut items = self.new_items();
        // Chunks that do not land whole in the result are decoded here, then copied into place.
        let mut scratch = Vec::new();
        let mut done = 0u64;
        while let Some(pieces) = arrivals.next().await {
            let pieces = pieces?;
            // An aborted read stops here even where its store ignores the signal (data in memory).
            if self.store.cancelled() {
                return Err(self.aborted());
            }
            for piece in pieces {
                self.place(piece, &mut bytes, &counts, items.as_mut(), &mut scratch)
                    .await?;
            }
            crate::host::yield_if_busy().await;
            done += 1;
            if let Some(progress) = options.progress {
                progress(done, total);
            }
        }
        Ok(ArrayData {
            data_type: self.data_type(),
            shape: result_shape(&ranges),
            bytes,
            items,
        })
    }

    /// Refuses a read larger than `options` allow, before anything is fetched or allocated: its
    /// result's bytes, and the chunks it touches (for a sharded array, inner chunks: the unit
    /// that is fetched, decoded and placed).
    fn check_read_size(&self, ranges: &[DimRange], options: &ReadOptions<'_>) -> Result<()> {
        let counts: Vec<u64> = ranges.iter().map(|r| r.count).collect();
        let bytes = counts
            .iter()
            .try_fold(self.data_type().size() as u64, |acc, &n| acc.checked_mul(n));
        if !matches!(bytes, Some(b) if b <= options.max_bytes) {
            return Err(ZarrError::selection(format!(
                "a result of shape {counts:?} is {} bytes, more than the {} a read may have (raise limits.maxBytesPerRead in open(), or the read option maxBytes)",
                bytes.map_or("over 2^64".to_string(), |b| b.to_string()),
                options.max_bytes
            )));
        }
        let (grid, what) = match self.inner_grid() {
            Some(inner) => (inner, "inner chunks"),
            None => (self.metadata.chunk_grid.clone(), "chunks"),
        };
        if count_chunks(&grid, ranges, options.max_chunks).is_none() {
            return Err(ZarrError::selection(format!(
                "the selection touches more than {} {what}, the most a read may (raise limits.maxChunksPerRead in open(), or the read option maxChunks)",
                options.max_chunks
            )));
        }
        Ok(())
    }

    /// Each chunk's share of `selection`, in C order of chunk coordinates: the selection that
    /// reads just that share, and where it goes in the whole result. For reading a region chunk
    /// by chunk (streaming viewers draw each as it arrives).
    pub fn chunk_regions(&self, selection: &[DimSelection]) -> Result<Vec<ChunkRegion>> {
        let ranges = resolve(selection, self.shape()).map_err(|e| self.in_this_array(e))?;
        let grid = &self.metadata.chunk_grid;
        // The list is built whole: a selection over millions of chunks is refused, not allocated.
        // Counted first, without listing any chunk: the projections below list each axis's
        // chunks, which for an axis of 2^40 chunks would be 2^40 entries.
        if count_chunks(grid, &ranges, MAX_CHUNK_REGIONS).is_none() {
            let reason = format!(
                "the selection touches more than {MAX_CHUNK_REGIONS} chunks, too many to list one by one"
            );
            return Err(self.in_this_array(ZarrError::selection(reason)));
        }
        let projections = chunk_projections(grid, &ranges).map_err(|e| self.in_this_array(e))?;
        Ok(projections
            .map(|p| {
                let origin = grid.chunk_origin(&p.coords);
                let mut region = ChunkRegion {
                    selection: Vec::with_capacity(p.parts.len()),
                    out_start: Vec::new(),
                    shape: Vec::new(),
                    coords: p.coords,
                };
                for ((part, range), o) in p.parts.iter().zip(&ranges).zip(origin) {
                    if range.keep {
                        region.out_start.push(part.out_start);
                        region.shape.push(part.count);
                    }
                    let share = DimRange {
                        start: o + part.start_in_chunk,
                        step: part.step,
                        count: part.count,
                        keep: range.keep,
                    };
                    region.selection.push(share.selection());
                }
                region
            })
            .collect())
    }

    /// `selection` split into at most `max_parts` parts of whole chunks, for readers working side
    /// by side (see `partition`). Shards are split into their inner chunks only where there are
    /// fewer than `readers` of them: a shard read by one reader costs one index request, and its
    /// ranges can be merged.
    /// The read is held to `options`' limits as a whole, as `get_with` holds it.
    pub fn partition(
        &self,
        selection: &[DimSelection],
        max_parts: usize,
        readers: usize,
        options: &ReadOptions<'_>,
    ) -> Result<Partition> {
        let ranges = resolve(selection, self.shape()).map_err(|e| self.in_this_array(e))?;
        self.check_read_size(&ranges, options)
            .map_err(|e| self.in_this_array(e))?;
        let grid = &self.metadata.chunk_grid;
        let outer = partition(grid, &ranges, max_parts).map_err(|e| self.in_this_array(e))?;
        match self.inner_grid() {
            Some(inner) if outer.parts.len() < readers => {
                partition(&inner, &ranges, max_parts).map_err(|e| self.in_this_array(e))
            }
            _ => Ok(outer),
        }
    }

    /// For each shard `selection` touches whose read fetches its index (not the shard whole):
    /// the shard's key and its encoded index (`None`: no such shard), fetched or kept from
    /// before. Empty for an unsharded array. What a reader of the same array elsewhere (a
    /// worker) is handed so that it asks for none of them again (`keep_shard_indexes`).
    pub async fn shard_indexes(
        &self,
        selection: &[DimSelection],
    ) -> Result<Vec<(String, Option<Rc<Vec<u8>>>)>> {
        let Some(codec) = self.pipeline.partial_decoder() else {
            return Ok(Vec::new());
        };
        let ranges = resolve(selection, self.shape()).map_err(|e| self.in_this_array(e))?;
        let projections = chunk_projections(&self.metadata.chunk_grid, &ranges)
            .map_err(|e| self.in_this_array(e))?;
        let fetches = projections.map(|projection| async move {
            let shard_shape = self.metadata.chunk_grid.chunk_shape(&projection.coords);
            let key = self.chunk_key(&projection.coords);
            let index = self
                .shards
                .index_for(&self.store, &key, codec, &projection, &shard_shape)
                .await?;
            Ok::<_, ZarrError>(index.map(|index| (key, index)))
        });
        let mut indexes = Vec::new();
        let mut arrivals = stream::iter(fetches).buffer_unordered(INDEX_FETCHES);
        while let Some(index) = arrivals.next().await {
            indexes.extend(index?);
        }
        Ok(indexes)
    }

    /// Keeps shard indexes another reader of this array fetched (see `shard_indexes`), or JS
    /// fetched as the array opened (pkg/stores.js, `firstShardIndexes`). Where every index of the
    /// array has one size (regular shards), one of another size is not kept: a read fetches it.
    /// What is kept is checked as a fetched index is, when a read decodes it.
    pub fn keep_shard_indexes(&self, indexes: Vec<(String, Option<Rc<Vec<u8>>>)>) {
        let size = self.encoded_index_size();
        for (key, index) in indexes {
            if size.is_some_and(|size| index.as_ref().is_some_and(|i| i.len() != size)) {
                continue;
            }
            self.shards.keep_index(&key, index, &*self.store);
        }
    }

    /// The size of every encoded shard index of a sharded array on a regular grid.
    fn encoded_index_size(&self) -> Option<usize> {
        let codec = self.pipeline.partial_decoder()?;
        let shard_shape = self.metadata.chunk_grid.regular_chunk_shape()?;
        let cps = codec.chunks_per_shard(shard_shape).ok()?;
        codec.index_size(&cps).ok()
    }

    /// The bytes of `selection`'s result (its element count times the element size), saturating.
    pub fn result_bytes(&self, selection: &[DimSelection]) -> Result<u64> {
        let ranges = resolve(selection, self.shape()).map_err(|e| self.in_this_array(e))?;
        Ok(ranges
            .iter()
            .fold(self.data_type().size() as u64, |acc, r| {
                acc.saturating_mul(r.count)
            }))
    }

    /// A sharded array's inner chunk shape (the unit a partial read fetches and decodes), else
    /// `None`.
    pub fn inner_chunk_shape(&self) -> Option<&[u64]> {
        self.pipeline
            .partial_decoder()
            .map(|codec| codec.inner_shape())
    }

    /// The grid of a sharded array's inner chunks over the whole array, where shards are regular
    /// and made of whole inner chunks (so inner chunk edges are the same in every shard).
    fn inner_grid(&self) -> Option<ChunkGrid> {
        let inner = self.pipeline.partial_decoder()?.inner_shape();
        let outer = self.metadata.chunk_grid.regular_chunk_shape()?;
        let whole = outer.len() == inner.len() && outer.iter().zip(inner).all(|(o, i)| o % i == 0);
        whole
            .then(|| ChunkGrid::regular(inner.to_vec(), self.shape()).ok())
            .flatten()
    }

    /// An empty item list for a variable-length type (holding the fill item), else `None`.
    fn new_items(&self) -> Option<Items> {
        self.data_type()
            .is_variable()
            .then(|| Items::with_fill(self.metadata.fill_value.item().unwrap_or_default()))
    }

    /// A decoded chunk as fixed-size elements: itself, or for variable-length types its items moved
    /// into `items` and handles in their place.
    fn as_elements(
        &self,
        chunk: Option<Vec<u8>>,
        coords: &[u64],
        items: Option<&mut Items>,
    ) -> Result<Option<Vec<u8>>> {
        match (chunk, items) {
            (Some(chunk), Some(items)) => {
                let shape = self.metadata.chunk_grid.chunk_shape(coords);
                let n = crate::data_type::variable::element_count(&shape).unwrap_or(usize::MAX);
                let in_chunk = |e: CodecError| {
                    ZarrError::codec(&self.store.locate(&self.chunk_key(coords)), e)
                };
                let handles = items
                    .push_chunk(&chunk, n, self.limits.max_item_bytes)
                    .map_err(|reason| in_chunk(CodecError::new("pipeline", reason)))?;
                let repr = ChunkRepr {
                    shape,
                    data_type: self.data_type(),
                };
                self.pipeline
                    .restore_order(handles, &repr)
                    .map(Some)
                    .map_err(in_chunk)
            }
            (chunk, _) => Ok(chunk),
        }
    }

    /// Where the chunk at `coords` starts in the array, and its stored shape (which may reach past
    /// the array's edge).
    pub fn chunk_extent(&self, coords: &[u64]) -> Result<(Vec<u64>, Vec<u64>)> {
        let grid = &self.metadata.chunk_grid;
        if !grid.contains(coords) {
            let reason = format!(
                "chunk {coords:?} is outside the chunk grid of shape {:?}",
                grid.grid_shape()
            );
            return Err(self.in_this_array(ZarrError::selection(reason)));
        }
        Ok((grid.chunk_origin(coords), grid.chunk_shape(coords)))
    }

    /// Reads one whole chunk, as stored (edge chunks keep their full stored shape).
    pub async fn get_chunk(&self, coords: &[u64]) -> Result<ArrayData> {
        let (origin, shape) = self.chunk_extent(coords)?;
        if self.pipeline.partial_decoder().is_some() {
            // A shard: read as the region it covers, inner chunk by inner chunk (each decoded in
            // steps, and kept in the chunk cache), not in one synchronous decode of the whole shard.
            return self.get(&region_selection(&origin, &shape)?).await;
        }
        let mut items = self.new_items();
        let bytes =
            match self.as_elements(self.read_chunk(coords).await?, coords, items.as_mut())? {
                Some(decoded) => decoded,
                None => {
                    let fill = self.metadata.fill_value.as_bytes();
                    let mut filled = alloc_elements(&shape, fill.len())?;
                    // Every element has bytes (metadata refuses empty types); max(1) keeps it so.
                    filled
                        .chunks_exact_mut(fill.len().max(1))
                        .for_each(|element| element.copy_from_slice(fill));
                    filled
                }
            };
        Ok(ArrayData {
            data_type: self.data_type(),
            shape,
            bytes,
            items,
        })
    }

    /// The error of a read its caller aborted.
    fn aborted(&self) -> ZarrError {
        ZarrError::aborted(&self.store.locate(&self.path.key("")))
    }

    /// `err` with this array's location added, for errors that arise before any key is read.
    fn in_this_array(&self, err: ZarrError) -> ZarrError {
        let location = self.store.locate(&self.path.key("zarr.json"));
        ZarrError::new(err.kind, format!("{} (array {location})", err.message))
    }

    /// The decoded chunk at `coords`, or `None` when the store has no such chunk.
    async fn read_chunk(&self, coords: &[u64]) -> Result<Option<Vec<u8>>> {
        if let Some(kept) = self.chunk_cache.get(coords) {
            return Ok(Some(kept));
        }
        let epoch = self.chunk_cache.epoch();
        let key = self.chunk_key(coords);
        let Some(encoded) = self.store.get(&key).await? else {
            return Ok(None);
        };
        let repr = ChunkRepr {
            shape: self.metadata.chunk_grid.chunk_shape(coords),
            data_type: self.data_type(),
        };
        let cancelled = || self.store.cancelled();
        let decoded = self
            .pipeline
            .decode_async(encoded, &repr, &cancelled)
            .await
            .map_err(|stop| match stop {
                Stopped::Cancelled => self.aborted(),
                Stopped::Failed(e) => ZarrError::codec(&self.store.locate(&key), e),
            })?;
        // Region copies index by the chunk's shape; a pipeline that produced another size is an error
        // here rather than an out-of-bounds panic there. (Variable-length chunks are checked as
        // their items are taken out.)
        if !repr.data_type.is_variable() && Some(decoded.len()) != repr.num_bytes() {
            let reason = format!(
                "decoded chunk has {} bytes, its shape {:?} needs {:?}",
                decoded.len(),
                repr.shape,
                repr.num_bytes()
            );
            return Err(ZarrError::codec(
                &self.store.locate(&key),
                CodecError::new("pipeline", reason),
            ));
        }
        self.chunk_cache
            .keep_since(epoch, coords.to_vec(), &decoded);
        Ok(Some(decoded))
    }

    /// One chunk's share of a selection, read: the chunk itself, or for a sharded array the
    /// inner chunks it needs. A chunk whose decoded bytes need no array codec is only fetched
    /// here: `place` decodes it, straight into the result where it lands there whole.
    async fn read_pieces(&self, projection: ChunkProjection) -> Result<Vec<Piece>> {
        if let Some(codec) = self.pipeline.partial_decoder() {
            let shard_shape = self.metadata.chunk_grid.chunk_shape(&projection.coords);
            let key = self.chunk_key(&projection.coords);
            let read = self.shards.read(
                &self.store,
                &key,
                codec,
                projection,
                shard_shape,
                &self.chunk_cache,
            );
            return read.await;
        }
        let chunk_shape = self.metadata.chunk_grid.chunk_shape(&projection.coords);
        let repr = ChunkRepr {
            shape: chunk_shape.clone(),
            data_type: self.data_type(),
        };
        let data = if self.pipeline.decodes_in_place(&repr) && !self.keeps_chunks() {
            let key = self.chunk_key(&projection.coords);
            match self.store.get(&key).await? {
                Some(encoded) => Content::Encoded(encoded),
                None => Content::Missing,
            }
        } else {
            self.read_chunk(&projection.coords).await?.into()
        };
        Ok(vec![Piece {
            chunk_shape,
            parts: projection.parts,
            data,
            coords: Some(projection.coords),
        }])
    }

    /// Whether decoded chunks are kept for later reads (then every chunk is decoded on its own,
    /// to be kept).
    fn keeps_chunks(&self) -> bool {
        self.chunk_cache.is_on()
    }

    /// Decodes a whole chunk (`piece`, fetched, see `read_pieces`) into `dest`, its size, letting
    /// the event loop run while it decompresses (see `CodecPipeline::decode_into_async`).
    async fn decode_chunk_into(
        &self,
        encoded: Vec<u8>,
        piece: &Piece,
        dest: &mut [u8],
    ) -> Result<()> {
        let repr = ChunkRepr {
            shape: piece.chunk_shape.clone(),
            data_type: self.data_type(),
        };
        let cancelled = || self.store.cancelled();
        self.pipeline
            .decode_into_async(encoded, &repr, dest, &cancelled)
            .await
            .map_err(|stop| match stop {
                Stopped::Cancelled => self.aborted(),
                Stopped::Failed(e) => self.in_chunk(piece, e),
            })
    }

    /// `err` located at the piece's chunk.
    fn in_chunk(&self, piece: &Piece, err: CodecError) -> ZarrError {
        let coords = piece.coords.as_deref().unwrap_or_default();
        ZarrError::codec(&self.store.locate(&self.chunk_key(coords)), err)
    }

    /// Puts a piece into `out` (shape `counts`), or the fill value where its chunk is missing.
    /// A fetched chunk is decoded straight into `out` where it is one run of it, else into
    /// `scratch` (kept for the read's next chunk) and copied from there.
    async fn place(
        &self,
        mut piece: Piece,
        out: &mut [u8],
        counts: &[u64],
        items: Option<&mut Items>,
        scratch: &mut Vec<u8>,
    ) -> Result<()> {
        let data = match std::mem::replace(&mut piece.data, Content::Missing) {
            Content::Encoded(encoded) => {
                let too_large = || {
                    let reason = format!("chunk shape {:?} is too large", piece.chunk_shape);
                    self.in_chunk(&piece, CodecError::new("pipeline", reason))
                };
                let esize = self.data_type().size();
                let len = elements_size(&piece.chunk_shape, esize).ok_or_else(too_large)?;
                let repr = ChunkRepr {
                    shape: piece.chunk_shape.clone(),
                    data_type: self.data_type(),
                };
                if lands_contiguously(&piece.parts, &piece.chunk_shape, counts) {
                    let start = offset_in_result(&piece.parts, counts, esize);
                    // Within the result: the chunk is wholly inside the selection.
                    let run = out
                        .get_mut(start..start.saturating_add(len))
                        .ok_or_else(too_large)?;
                    return self.decode_chunk_into(encoded, &piece, run).await;
                }
                if self.pipeline.stores_elements(&repr) {
                    // The stored bytes are the elements: copied from where they are.
                    let elements = self
                        .pipeline
                        .decode(encoded, &repr)
                        .map_err(|e| self.in_chunk(&piece, e))?;
                    self.copy_piece(&piece, Some(&elements), out, counts);
                    return Ok(());
                }
                try_grow(scratch, len).map_err(|_| too_large())?;
                self.decode_chunk_into(encoded, &piece, &mut scratch[..len])
                    .await?;
                self.copy_piece(&piece, Some(&scratch[..len]), out, counts);
                return Ok(());
            }
            Content::Inner(stored) => {
                return self.place_inner(stored, &piece, out, counts, scratch).await
            }
            Content::Decoded(data) => Some(data),
            Content::Missing => None,
        };
        let data = match (&piece.coords, data, items) {
            (Some(coords), data, items) => self.as_elements(data, coords, items)?,
            // A shard's inner chunk (or a whole shard) of variable-length data: its items are in C
            // order already (see `ShardingCodec::decode_inner`).
            (None, Some(chunk), Some(items)) => {
                let n = crate::data_type::variable::element_count(&piece.chunk_shape)
                    .unwrap_or(usize::MAX);
                Some(
                    items
                        .push_chunk(&chunk, n, self.limits.max_item_bytes)
                        .map_err(|reason| {
                            ZarrError::codec(
                                &self.store.locate(&self.path().key("")),
                                CodecError::new("sharding_indexed", reason),
                            )
                        })?,
                )
            }
            (None, data, _) => data,
        };
        self.copy_piece(&piece, data.as_deref(), out, counts);
        Ok(())
    }

    /// Decodes an inner chunk of a shard (`stored`, see `ShardReader::read`) straight into `out`
    /// where it is one run of it, else into `scratch` and copies its share from there.
    async fn place_inner(
        &self,
        stored: StoredInner,
        piece: &Piece,
        out: &mut [u8],
        counts: &[u64],
        scratch: &mut Vec<u8>,
    ) -> Result<()> {
        let esize = self.data_type().size();
        let broken = |reason: String| {
            let location = self.store.locate(&stored.shard_key);
            ZarrError::codec(&location, CodecError::new("sharding_indexed", reason))
        };
        let len = elements_size(&piece.chunk_shape, esize).ok_or_else(|| {
            broken(format!(
                "inner chunk shape {:?} is too large",
                piece.chunk_shape
            ))
        })?;
        let contiguous = lands_contiguously(&piece.parts, &piece.chunk_shape, counts);
        let dest = if contiguous {
            let start = offset_in_result(&piece.parts, counts, esize);
            out.get_mut(start..start.saturating_add(len))
                .ok_or_else(|| broken("an inner chunk lies outside the result".into()))?
        } else {
            try_grow(scratch, len)
                .map_err(|_| broken(format!("cannot allocate {len} bytes for an inner chunk")))?;
            &mut scratch[..len]
        };
        self.decode_inner_into(stored, dest).await?;
        if !contiguous {
            self.copy_piece(piece, Some(&scratch[..len]), out, counts);
        }
        crate::host::yield_if_busy().await;
        Ok(())
    }

    /// Decodes an inner chunk of a shard (`stored`) into `dest`, its size.
    async fn decode_inner_into(&self, stored: StoredInner, dest: &mut [u8]) -> Result<()> {
        let location = || self.store.locate(&stored.shard_key);
        let Some(codec) = self.pipeline.partial_decoder() else {
            let reason = "the array's codecs cannot read shards in parts";
            return Err(ZarrError::codec(
                &location(),
                CodecError::new("sharding_indexed", reason),
            ));
        };
        let encoded = stored.block[stored.range.clone()].to_vec();
        // The block goes once its last inner chunk is decoded.
        drop(stored.block);
        let cancelled = || self.store.cancelled();
        codec
            .decode_inner_into(encoded, &stored.coords, dest, &cancelled)
            .await
            .map_err(|stop| match stop {
                Stopped::Cancelled => ZarrError::aborted(&location()),
                Stopped::Failed(reason) => {
                    ZarrError::codec(&location(), CodecError::new("sharding_indexed", reason))
                }
            })
    }

    /// Copies the piece's share of `src` (elements in C order of its chunk shape) into `out`
    /// (shape `counts`), or the fill value where there is no `src`.
    fn copy_piece(&self, piece: &Piece, src: Option<&[u8]>, out: &mut [u8], counts: &[u64]) {
        let parts = &piece.parts;
        let part_counts: Vec<u64> = parts.iter().map(|p| p.count).collect();
        let out_start: Vec<u64> = parts.iter().map(|p| p.out_start).collect();
        let ones = vec![1u64; parts.len()];
        let to = Placement {
            shape: counts,
            start: &out_start,
            step: &ones,
        };
        timed(Phase::Assemble, || match src {
            Some(src) => {
                let start: Vec<u64> = parts.iter().map(|p| p.start_in_chunk).collect();
                let step: Vec<u64> = parts.iter().map(|p| p.step).collect();
                let from = Placement {
                    shape: &piece.chunk_shape,
                    start: &start,
                    step: &step,
                };
                copy_box(src, &from, out, &to, &part_counts, self.data_type().size())
            }
            None => fill_box(self.metadata.fill_value.as_bytes(), out, &to, &part_counts),
        });
    }
}

/// How a read runs.
pub struct ReadOptions<'a> {
    /// Chunks (shards, for a sharded array) fetched and decoded at once.
    pub concurrency: usize,
    /// Called as each chunk is in place: chunks done, and how many the read touches.
    pub progress: Option<&'a dyn Fn(u64, u64)>,
    /// The most chunks (inner chunks of shards) the read may touch.
    pub max_chunks: u64,
    /// The most bytes the read's result may have.
    pub max_bytes: u64,
}

impl Default for ReadOptions<'_> {
    fn default() -> Self {
        let limits = Limits::default();
        ReadOptions {
            concurrency: DEFAULT_CONCURRENCY,
            progress: None,
            max_chunks: limits.max_chunks_per_read,
            max_bytes: limits.max_bytes_per_read,
        }
    }
}

/// One chunk's share of a selection (see `Array::chunk_regions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkRegion {
    pub coords: Vec<u64>,
    /// Reads exactly this chunk's share.
    pub selection: Vec<DimSelection>,
    /// Where the share starts in the whole result, and its shape (dimensions the selection
    /// keeps).
    pub out_start: Vec<u64>,
    pub shape: Vec<u64>,
}

/// The byte offset in a result of shape `counts` (elements of `esize` bytes) where a piece's
/// first element goes.
fn offset_in_result(parts: &[DimChunkPart], counts: &[u64], esize: usize) -> usize {
    let start: u64 = parts
        .iter()
        .zip(c_strides(counts))
        .map(|(p, stride)| p.out_start * stride)
        .sum();
    start as usize * esize
}

/// Whether a whole chunk of `chunk_shape`, its share given by `parts`, is one run of elements
/// in C order in a result of shape `counts`: the selection takes all of it, and past its first
/// dimension longer than 1 it spans the result.
fn lands_contiguously(parts: &[DimChunkPart], chunk_shape: &[u64], counts: &[u64]) -> bool {
    let whole = parts
        .iter()
        .zip(chunk_shape)
        .all(|(p, &n)| p.step == 1 && p.start_in_chunk == 0 && p.count == n);
    let first_long = chunk_shape
        .iter()
        .position(|&n| n > 1)
        .unwrap_or(chunk_shape.len());
    whole
        && parts.len() == counts.len()
        && chunk_shape[first_long..]
            .iter()
            .zip(&counts[first_long..])
            .skip(1)
            .all(|(n, c)| n == c)
}

/// A zeroed buffer for `shape` elements of `esize` bytes, refusing sizes that cannot exist here.
fn alloc_elements(shape: &[u64], esize: usize) -> Result<Vec<u8>> {
    let too_large = || {
        ZarrError::selection(format!(
            "a result of shape {shape:?} is too large for memory"
        ))
    };
    let n = elements_size(shape, esize).ok_or_else(too_large)?;
    try_zeroed(n).map_err(|_| too_large())
}

/// Elements of `shape`, each `fill` (the fill value's bytes), for writes. (`get_chunk` fills its
/// own: `fill_repeat` in the reading module made it 120 bytes larger.)
#[cfg(feature = "write")]
fn filled_elements(shape: &[u64], fill: &[u8]) -> Result<Vec<u8>> {
    let mut elements = alloc_elements(shape, fill.len())?;
    zarr_wasm_kernels::bytes::fill_repeat(&mut elements, fill);
    Ok(elements)
}

/// The selection of the box at `origin` of `shape`.
fn region_selection(origin: &[u64], shape: &[u64]) -> Result<Vec<DimSelection>> {
    let bound = |n: u64| {
        i64::try_from(n).map_err(|_| ZarrError::selection(format!("index {n} is out of range")))
    };
    origin
        .iter()
        .zip(shape)
        .map(|(&start, &count)| {
            Ok(DimSelection::Slice {
                start: Some(bound(start)?),
                stop: Some(bound(start.saturating_add(count))?),
                step: None,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The share of a chunk of `chunk_shape` at `out_start`: all of it, or (`count` given) less.
    fn parts(chunk_shape: &[u64], out_start: &[u64], count: Option<&[u64]>) -> Vec<DimChunkPart> {
        chunk_shape
            .iter()
            .enumerate()
            .map(|(d, &n)| DimChunkPart {
                chunk: 0,
                start_in_chunk: 0,
                step: 1,
                count: count.map_or(n, |c| c[d]),
                out_start: out_start[d],
            })
            .collect()
    }

    #[test]
    fn chunks_that_are_one_run_of_the_result_are_found() {
        // Rows spanning the result, a 1-D chunk, a chunk of leading ones.
        assert!(lands_contiguously(
            &parts(&[4, 256], &[4, 0], None),
            &[4, 256],
            &[10, 256]
        ));
        assert!(lands_contiguously(
            &parts(&[256], &[512], None),
            &[256],
            &[1000]
        ));
        assert!(lands_contiguously(
            &parts(&[1, 1, 64], &[2, 3, 0], None),
            &[1, 1, 64],
            &[3, 5, 64]
        ));
        // A tile of a wider result; two rows of a 3-D result; an edge chunk's part; a strided part.
        assert!(!lands_contiguously(
            &parts(&[256, 256], &[0, 0], None),
            &[256, 256],
            &[1024, 1024]
        ));
        assert!(!lands_contiguously(
            &parts(&[2, 1, 64], &[0, 0, 0], None),
            &[2, 1, 64],
            &[4, 5, 64]
        ));
        assert!(!lands_contiguously(
            &parts(&[256], &[0], Some(&[100])),
            &[256],
            &[100]
        ));
        let mut strided = parts(&[8, 16], &[0, 0], Some(&[8, 8]));
        strided[1].step = 2;
        assert!(!lands_contiguously(&strided, &[8, 16], &[8, 8]));
    }
}
