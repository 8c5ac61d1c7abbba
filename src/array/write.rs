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
use super::{alloc_elements, filled_elements, Array};
use crate::codecs::codec::{PartialDecoder, PartialEncoder, Stopped};
use crate::codecs::ChunkRepr;
use crate::data_type::variable::{element_count, layout, Items};
use crate::data_type::VARIABLE_HANDLE_SIZE;
use crate::error::{CodecError, Result, ZarrError};
use crate::indexing::region::{copy_box, fill_box, Placement};
use crate::indexing::selection::{
    chunk_projections, resolve, ChunkProjection, DimRange, DimSelection,
};
use crate::store::WritableStore;
use futures_util::stream::{self, StreamExt};
use std::rc::Rc;

/// What a selection is set to.
#[derive(Debug, Clone, Copy)]
pub enum WriteValue<'a> {
    /// The selection's elements in C order and native byte order, of its shape with every
    /// dimension (those selected by an index count one).
    Elements(&'a [u8]),
    /// One element, for every position of the selection: its bytes, or for a variable-length
    /// type its item (a string's UTF-8, a byte string's bytes).
    Scalar(&'a [u8]),
    /// A variable-length type's elements, item `i` the selection's element `i` in C order.
    Items(&'a Items),
}

/// The handles of a written value's items (a variable-length type's elements) start here; below
/// are those of the chunk being written (its fill item, handle 0, and what it held).
const VALUE_HANDLES: u64 = 1 << 63;

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
    values: Values<'a>,
    /// The value's shape (the selection's, every dimension).
    shape: &'a [u64],
    esize: usize,
}

/// What a selection is set to.
enum Values<'a> {
    /// A value given: the elements, in C order of the selection's shape, or one for every
    /// position; for a variable-length type handles (`VALUE_HANDLES` + i) of the items in
    /// `items`.
    Given {
        elements: std::borrow::Cow<'a, [u8]>,
        scalar: bool,
        items: Option<std::borrow::Cow<'a, Items>>,
    },
    /// Another array's units (see `copy`).
    Units(&'a dyn UnitSource),
}

impl<'a> Source<'a> {
    /// The source of `value` for a selection of shape `shape`.
    fn new(
        value: WriteValue<'a>,
        shape: &'a [u64],
        esize: usize,
        variable: bool,
    ) -> Result<Source<'a>> {
        let handle = |i: usize| (VALUE_HANDLES + i as u64).to_ne_bytes();
        let (elements, scalar, items) = match value {
            WriteValue::Elements(bytes) => (bytes.into(), false, None),
            WriteValue::Scalar(element) if !variable => (element.into(), true, None),
            WriteValue::Scalar(item) => {
                let mut items = Items::default();
                items.push(item).map_err(ZarrError::selection)?;
                (
                    handle(0).to_vec().into(),
                    true,
                    Some(std::borrow::Cow::Owned(items)),
                )
            }
            WriteValue::Items(items) => {
                let mut handles = Vec::new();
                handles
                    .try_reserve_exact(items.len() * VARIABLE_HANDLE_SIZE)
                    .map_err(|_| ZarrError::selection("the value has too many items to write"))?;
                (0..items.len()).for_each(|i| handles.extend(handle(i)));
                (
                    handles.into(),
                    false,
                    Some(std::borrow::Cow::Borrowed(items)),
                )
            }
        };
        Ok(Source {
            values: Values::Given {
                elements,
                scalar,
                items,
            },
            shape,
            esize,
        })
    }

    /// The items a variable-length value's handles refer to.
    fn items(&self) -> Option<&Items> {
        match &self.values {
            Values::Given { items, .. } => items.as_deref(),
            Values::Units(_) => None,
        }
    }

    /// Where the source is another array's units (see `copy`): the unit (a chunk, or an inner
    /// chunk) of `unit_shape` at `origin` that `parts` (shifted by `out_shift`) cover, as it is
    /// to be written. `None` for a value given, which `put` puts into place.
    async fn take_unit(
        &self,
        unit_shape: &[u64],
        parts: &[crate::indexing::selection::DimChunkPart],
        out_shift: &[u64],
        origin: &[u64],
        array_shape: &[u64],
    ) -> Result<Option<Cells>> {
        let Values::Units(units) = &self.values else {
            return Ok(None);
        };
        let at = UnitAt {
            shape: unit_shape,
            parts,
            out_shift,
            origin,
            array_shape,
        };
        let elements = units.take(at).await?;
        Ok(Some(Cells {
            elements,
            held: None,
        }))
    }

    /// Puts the share `parts` describes (positions in a chunk of `chunk_shape`, and where they
    /// come from in the value, shifted by `out_shift`) into `chunk`.
    fn put(
        &self,
        chunk: &mut [u8],
        chunk_shape: &[u64],
        parts: &[crate::indexing::selection::DimChunkPart],
        out_shift: &[u64],
    ) {
        let (elements, scalar) = match &self.values {
            Values::Given {
                elements, scalar, ..
            } => (elements, *scalar),
            // Never here: `take_unit` hands each of them over whole.
            Values::Units(_) => return,
        };
        let counts: Vec<u64> = parts.iter().map(|p| p.count).collect();
        let start: Vec<u64> = parts.iter().map(|p| p.start_in_chunk).collect();
        let step: Vec<u64> = parts.iter().map(|p| p.step).collect();
        let to = Placement {
            shape: chunk_shape,
            start: &start,
            step: &step,
        };
        if scalar {
            return fill_box(elements, chunk, &to, &counts);
        }
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
        copy_box(elements, &from, chunk, &to, &counts, self.esize);
    }
}

/// Another array's units for a write (`copy::Units`): each unit the write makes, as it is to be
/// written. A trait here so that the writer does not depend on the copy.
pub(super) trait UnitSource {
    /// The unit `at` describes.
    fn take<'a>(
        &'a self,
        at: UnitAt<'a>,
    ) -> futures_util::future::LocalBoxFuture<'a, Result<Vec<u8>>>;
}

/// A unit a write makes: a chunk (or an inner chunk) of `shape` at `origin` in an array of
/// `array_shape`, and the share of the selection that covers it (`parts`, its values
/// `out_shift` further into the selection).
pub(super) struct UnitAt<'a> {
    pub shape: &'a [u64],
    pub parts: &'a [crate::indexing::selection::DimChunkPart],
    pub out_shift: &'a [u64],
    pub origin: &'a [u64],
    pub array_shape: &'a [u64],
}

/// A chunk (or inner chunk) being written: its elements, and for a variable-length type the items
/// its handles below `VALUE_HANDLES` refer to (the fill item, then what the chunk held).
struct Cells {
    elements: Vec<u8>,
    held: Option<Items>,
}

impl Cells {
    /// The item of a variable-length chunk's element.
    fn item<'b>(&'b self, handle: &[u8], source: &'b Source) -> &'b [u8] {
        let h = u64::from_ne_bytes(handle.try_into().unwrap_or_default());
        let found = match h.checked_sub(VALUE_HANDLES) {
            Some(i) => source.items().and_then(|items| items.get(i as usize)),
            None => self.held.as_ref().and_then(|items| items.get(h as usize)),
        };
        // Every handle was made by this module for an item it holds.
        found.unwrap_or_default()
    }

    /// Whether every element is the array's fill value (`fill`: an element, or the fill item of
    /// a variable-length type).
    fn only_fill(&self, fill: &[u8], source: &Source) -> bool {
        match &self.held {
            Some(_) => self
                .elements
                .chunks_exact(VARIABLE_HANDLE_SIZE)
                .all(|h| self.item(h, source) == fill),
            None => all_fill(&self.elements, fill),
        }
    }

    /// What the codecs encode: the elements, or a variable-length chunk's items in vlen layout.
    fn into_encoded_form(self, source: &Source) -> std::result::Result<Vec<u8>, String> {
        if self.held.is_none() {
            return Ok(self.elements);
        }
        let items: Vec<&[u8]> = self
            .elements
            .chunks_exact(VARIABLE_HANDLE_SIZE)
            .map(|h| self.item(h, source))
            .collect();
        layout(&items)
    }
}

/// Whether `parts` cover every element of a chunk of `chunk_shape` at `origin` that lies inside
/// an array of `array_shape` (the rest of an edge chunk is the fill value).
pub(super) fn covers_whole(
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
    // In zarr-wasm-kernels, built for speed: a loop here, built for size, compared element by
    // element (a third of writing a large shard of zeros).
    zarr_wasm_kernels::bytes::all_repeat(chunk, fill)
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
        let (esize, variable) = (self.data_type().size(), self.data_type().is_variable());
        let count = counts
            .iter()
            .try_fold(1u64, |acc, &n| acc.checked_mul(n))
            .unwrap_or(u64::MAX);
        let (given, wanted) = match value {
            WriteValue::Scalar(e) if !variable => (e.len() as u64, esize as u64),
            WriteValue::Scalar(_) => (1, 1),
            WriteValue::Elements(b) if !variable => {
                (b.len() as u64, count.saturating_mul(esize as u64))
            }
            WriteValue::Items(items) if variable => (items.len() as u64, count),
            _ => {
                return Err(self.in_this_array(ZarrError::argument(
                    match variable {
                        true => format!(
                            "{} data is written from items (strings or byte strings), not bytes",
                            self.data_type()
                        ),
                        false => {
                            format!("{} data is written from bytes, not items", self.data_type())
                        }
                    },
                    false,
                )))
            }
        };
        if given != wanted {
            let what = match value {
                WriteValue::Scalar(_) => "one element".to_string(),
                _ => format!("a selection of shape {counts:?}"),
            };
            let unit = if variable { "items" } else { "bytes" };
            return Err(self.in_this_array(ZarrError::selection(format!(
                "the value has {given} {unit}; {what} of {} needs {wanted}",
                self.data_type()
            ))));
        }
        let source = Source::new(value, &counts, esize, variable)?;
        self.write_source(store, &ranges, &source, options).await
    }

    /// Sets `selection` to another array's units (see `copy`).
    pub(super) async fn set_units(
        &self,
        selection: &[DimSelection],
        units: &dyn UnitSource,
        options: &WriteOptions<'_>,
    ) -> Result<()> {
        let store = self.writer()?;
        let ranges = resolve(selection, self.shape()).map_err(|e| self.in_this_array(e))?;
        let counts: Vec<u64> = ranges.iter().map(|r| r.count).collect();
        let source = Source {
            values: Values::Units(units),
            shape: &counts,
            esize: self.data_type().size(),
        };
        self.write_source(store, &ranges, &source, options).await
    }

    /// Writes `source` into the chunks `ranges` touch.
    async fn write_source(
        &self,
        store: &dyn WritableStore,
        ranges: &[DimRange],
        source: &Source<'_>,
        options: &WriteOptions<'_>,
    ) -> Result<()> {
        let projections = chunk_projections(&self.metadata.chunk_grid, ranges)
            .map_err(|e| self.in_this_array(e))?;
        let total = projections.total();
        // Set at the first failure: no write begins after it, and the ones under way are waited
        // for, so that nothing is written after the call has returned.
        let stopped = &std::cell::Cell::new(false);
        let writes = projections
            .take_while(|_| !stopped.get())
            .map(|p| async move {
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
        let mut failure = None;
        while let Some(written) = done_writes.next().await {
            if failure.is_some() {
                continue;
            }
            let failed = match written {
                Err(e) => Some(e),
                Ok(()) if self.store.cancelled() => Some(self.aborted()),
                Ok(()) => None,
            };
            if failed.is_some() {
                failure = failed;
                stopped.set(true);
                continue;
            }
            crate::host::yield_if_busy().await;
            done += 1;
            if let Some(progress) = options.progress {
                progress(done, total);
            }
        }
        failure.map_or(Ok(()), Err)
    }

    /// A chunk of `shape` holding the fill value everywhere.
    fn filled(&self, shape: &[u64]) -> Result<Cells> {
        Ok(Cells {
            elements: filled_elements(shape, self.metadata.fill_value.as_bytes())?,
            held: self.new_items(),
        })
    }

    /// A chunk of `shape` whose every element the write sets: its elements not yet given.
    fn unset(&self, shape: &[u64]) -> Result<Cells> {
        match self.data_type().is_variable() {
            true => self.filled(shape),
            false => Ok(Cells {
                elements: alloc_elements(shape, self.data_type().size())?,
                held: None,
            }),
        }
    }

    /// The fill value as `Cells::only_fill` compares it: an element, or a variable-length
    /// type's fill item.
    fn fill_to_compare(&self) -> &[u8] {
        let fill = &self.metadata.fill_value;
        match self.data_type().is_variable() {
            true => fill.item().unwrap_or_default(),
            false => fill.as_bytes(),
        }
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
        let whole = covers_whole(&p.parts, &shape, &origin, self.shape());
        let zeros = vec![0; shape.len()];
        let taken = source
            .take_unit(&shape, &p.parts, &zeros, &origin, self.shape())
            .await?;
        let cells = match taken {
            Some(cells) => cells,
            None => {
                let mut cells = match whole {
                    true if inside => self.unset(&shape)?,
                    true => self.filled(&shape)?,
                    false => match self.read_chunk(&p.coords).await? {
                        Some(decoded) => {
                            let mut held = self.new_items();
                            let elements = self
                                .as_elements(Some(decoded), &p.coords, held.as_mut())?
                                .unwrap_or_default();
                            Cells { elements, held }
                        }
                        None => self.filled(&shape)?,
                    },
                };
                source.put(&mut cells.elements, &shape, &p.parts, &zeros);
                cells
            }
        };
        if !options.write_empty_chunks && cells.only_fill(self.fill_to_compare(), source) {
            let erased = store.erase(&key).await;
            self.chunk_cache.forget(&p.coords);
            return erased;
        }
        let located = |e: CodecError| ZarrError::codec(&self.store.locate(&key), e);
        let repr = ChunkRepr {
            shape,
            data_type: self.data_type(),
        };
        // Kept for later reads where the array keeps decoded chunks (once written); else not
        // copied. A variable-length chunk is kept as it decodes (items in stored order), which
        // is not how it is given here: it is read again.
        let kept =
            (self.chunk_cache.is_on() && cells.held.is_none()).then(|| cells.elements.clone());
        let chunk = cells
            .into_encoded_form(source)
            .map_err(|e| located(CodecError::new("pipeline", e)))?;
        // A large chunk is compressed in steps, the event loop running between them.
        let cancelled = || self.store.cancelled();
        let encoded = match self.pipeline.encode_async(chunk, &repr, &cancelled).await {
            Ok(encoded) => encoded,
            Err(Stopped::Cancelled) => return Err(self.aborted()),
            Err(Stopped::Failed(e)) => return Err(located(e)),
        };
        let stored = store.set(&key, encoded).await;
        // Forgotten first in any case: a read that fetched the old value keeps nothing now (nor
        // after a failure: a store that failed part way may hold either).
        self.chunk_cache.forget(&p.coords);
        stored?;
        if let Some(kept) = kept {
            self.chunk_cache.keep(p.coords, &kept);
        }
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
        let bad = |e: String| ZarrError::codec(&location, CodecError::new("sharding_indexed", e));
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
        // The inner chunks written: what a read kept of them is forgotten once the shard is.
        let mut touched = Vec::new();
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
            // Taken in any case: an inner chunk left holding only the fill value is left out.
            let kept = stored[i].take();
            let unit_origin: Vec<u64> = origin
                .iter()
                .zip(&inner_origin)
                .map(|(o, i)| o + i)
                .collect();
            let taken = source
                .take_unit(&inner_shape, &ip.parts, &shift, &unit_origin, self.shape())
                .await?;
            let cells = match taken {
                Some(cells) => cells,
                None => {
                    let mut cells = match (whole, kept) {
                        (false, Some(encoded)) => {
                            let cancelled = || self.store.cancelled();
                            let decoded = decoder
                                .decode_inner(encoded, &ip.coords, &cancelled)
                                .await
                                .map_err(|stop| match stop {
                                    Stopped::Cancelled => self.aborted(),
                                    Stopped::Failed(e) => bad(e),
                                })?;
                            self.inner_cells(decoded, &inner_shape).map_err(bad)?
                        }
                        // Every element written: no fill value under it.
                        (true, _) => self.unset(&inner_shape)?,
                        (false, None) => self.filled(&inner_shape)?,
                    };
                    source.put(&mut cells.elements, &inner_shape, &ip.parts, &shift);
                    cells
                }
            };
            touched.push(ip.coords.clone());
            if !options.write_empty_chunks && cells.only_fill(self.fill_to_compare(), source) {
                continue; // left out of the shard
            }
            let chunk = cells.into_encoded_form(source).map_err(bad)?;
            // Placing a large inner chunk's values is work of its own, before its encoding.
            crate::host::yield_if_busy().await;
            let cancelled = || self.store.cancelled();
            stored[i] = match encoder.encode_inner_async(chunk, &cancelled).await {
                Ok(encoded) => Some(encoded),
                Err(Stopped::Cancelled) => return Err(self.aborted()),
                Err(Stopped::Failed(e)) => return Err(ZarrError::codec(&location, e)),
            };
            // A shard of 64 MiB encodes for a second or more: the event loop gets a turn between
            // its inner chunks, and an abort is seen there.
            crate::host::yield_if_busy().await;
            if self.store.cancelled() {
                return Err(self.aborted());
            }
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
                let stored = store.set(&key, shard).await;
                match stored {
                    Ok(()) => self
                        .shards
                        .replace_index(&key, Some(Rc::new(index)), &*self.store),
                    // The store may hold the old shard or the new: its index is read again.
                    Err(_) => self.shards.forget_index(&key),
                }
                self.forget_inner_chunks(&p.coords, touched);
                stored
            }
            // No inner chunk left: the shard goes.
            None => {
                let erased = store.erase(&key).await;
                match erased {
                    Ok(()) => self.shards.replace_index(&key, None, &*self.store),
                    Err(_) => self.shards.forget_index(&key),
                }
                self.forget_inner_chunks(&p.coords, touched);
                erased
            }
        }
    }

    /// Drops the decoded inner chunks a shard write touched from the chunk cache (after the
    /// shard is stored: a read meanwhile would keep the old ones again).
    fn forget_inner_chunks(&self, shard: &[u64], touched: Vec<Vec<u64>>) {
        for coords in touched {
            self.chunk_cache
                .forget(&super::chunk_cache::inner_key(shard, &coords));
        }
    }

    /// A decoded inner chunk (for a variable-length type, its items in vlen layout, C order) as
    /// cells to write into.
    fn inner_cells(&self, decoded: Vec<u8>, shape: &[u64]) -> std::result::Result<Cells, String> {
        let Some(mut held) = self.new_items() else {
            return Ok(Cells {
                elements: decoded,
                held: None,
            });
        };
        let n = element_count(shape).ok_or("the inner chunk has too many elements")?;
        let elements = held.push_chunk(&decoded, n, usize::MAX)?;
        Ok(Cells {
            elements,
            held: Some(held),
        })
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
        let bad = |e: String| ZarrError::codec(&location, CodecError::new("sharding_indexed", e));
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
