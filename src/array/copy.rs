//! Copying a selection from one array into another of its data type and shape (the `write`
//! feature; `zarr-wasm convert`'s copy), the values staying in the module.
//!
//! Where each unit the destination writes (a chunk, or a shard's inner chunk) is made of whole
//! units of the source (the same shape, or a multiple of it: both on regular grids from the
//! origin) and the fill values are the same, the destination's units are made from the source's
//! one at a time, each source unit decoded as its destination unit is made and that one encoded
//! at once: no result of the selection's size is assembled and cut up again. A unit of the same
//! shape goes over as it decodes. For a 768 MiB array of 128 KiB inner chunks, the two copies of
//! the whole were a quarter of the conversion, and decoding every unit of a 32 MiB selection
//! before encoding any moved each through memory three times. Otherwise the selection is read
//! whole, then written.

use super::piece::{Content, Piece};
use super::write::{UnitAt, UnitSource, WriteOptions, WriteValue};
use super::{Array, ReadOptions};
use crate::codecs::elements_size;
use crate::collections::buffer::try_zeroed;
use crate::data_type::variable::Items;
use crate::data_type::VARIABLE_HANDLE_SIZE;
use crate::error::{CodecError, Result, ZarrError};
use crate::indexing::region::{copy_box, fill_box, Placement};
use crate::indexing::selection::{
    chunk_projections, resolve, ChunkProjection, DimRange, DimSelection,
};
use futures_util::future::LocalBoxFuture;
use futures_util::stream::{self, StreamExt};
use std::cell::RefCell;
use std::collections::HashMap;

/// A source array's units for a write (see the module's comment), fetched, by their origin in
/// the array; each is decoded as the write takes it, and encoded at once (while it is in the
/// processor's cache: decoding the selection's units first, then encoding them, moved each
/// three times through memory). A unit the source does not store is the fill value.
pub(super) struct Units<'a> {
    source: &'a Array,
    fetched: RefCell<HashMap<Vec<u64>, Piece>>,
    /// The selection's first element, along every dimension.
    start: Vec<u64>,
    /// The destination's units, and the source's (the same, or dividing them).
    shape: Vec<u64>,
    source_shape: Vec<u64>,
    fill: Vec<u8>,
}

impl UnitSource for Units<'_> {
    fn take<'a>(&'a self, at: UnitAt<'a>) -> LocalBoxFuture<'a, Result<Vec<u8>>> {
        Box::pin(self.unit(at))
    }
}

impl Units<'_> {
    /// The unit a write's share covers whole (see `UnitAt`), taken out and decoded; the fill
    /// value's elements where the source has none. A share of a unit of another shape, or of
    /// part of one, is an error (`units_from` lets no such selection through).
    async fn unit(&self, at: UnitAt<'_>) -> Result<Vec<u8>> {
        let UnitAt {
            shape: unit_shape,
            parts,
            out_shift,
            origin,
            array_shape,
        } = at;
        let source_origin: Vec<u64> = parts
            .iter()
            .zip(out_shift)
            .zip(&self.start)
            .map(|((p, shift), start)| start + p.out_start + shift)
            .collect();
        let whole = super::write::covers_whole(parts, unit_shape, origin, array_shape);
        if unit_shape != self.shape.as_slice() || !whole || source_origin != origin {
            return Err(ZarrError::selection(format!(
                "a copy's units do not line up: the {unit_shape:?} at {origin:?} is not the source's unit at {source_origin:?}"
            )));
        }
        let mut elements = self.elements_at(origin).await?;
        self.fill_past_end(&mut elements, origin, array_shape);
        Ok(elements)
    }

    /// The elements of the unit at `origin`: the source's unit, or its units inside it.
    async fn elements_at(&self, origin: &[u64]) -> Result<Vec<u8>> {
        if self.source_shape == self.shape {
            let fetched = self.fetched.borrow_mut().remove(origin);
            if let Some(piece) = fetched {
                if let Some(decoded) = self.source.decoded_unit(piece).await? {
                    return Ok(decoded);
                }
            }
            return self.filled();
        }
        // The source's units inside this one, each decoded and copied into place.
        let mut elements = self.filled()?;
        let per_dim: Vec<u64> = self
            .shape
            .iter()
            .zip(&self.source_shape)
            .map(|(d, s)| d / s)
            .collect();
        let esize = self.source.data_type().size();
        let (zeros, ones) = (vec![0; per_dim.len()], vec![1; per_dim.len()]);
        for k in 0..per_dim.iter().product::<u64>() {
            let at = unravel(k, &per_dim);
            let offset: Vec<u64> = at
                .iter()
                .zip(&self.source_shape)
                .map(|(i, s)| i * s)
                .collect();
            let source_origin: Vec<u64> = origin.iter().zip(&offset).map(|(o, d)| o + d).collect();
            let fetched = self.fetched.borrow_mut().remove(&source_origin);
            let Some(piece) = fetched else { continue };
            let Some(decoded) = self.source.decoded_unit(piece).await? else {
                continue;
            };
            let from = Placement {
                shape: &self.source_shape,
                start: &zeros,
                step: &ones,
            };
            let to = Placement {
                shape: &self.shape,
                start: &offset,
                step: &ones,
            };
            copy_box(
                &decoded,
                &from,
                &mut elements,
                &to,
                &self.source_shape,
                esize,
            );
        }
        Ok(elements)
    }

    /// Sets what lies past the end of the array (of `array_shape`) in the unit at `origin` to the
    /// fill value, as a write of values does: a source may hold anything there.
    fn fill_past_end(&self, elements: &mut [u8], origin: &[u64], array_shape: &[u64]) {
        let ones = vec![1; self.shape.len()];
        for (d, (&o, &len)) in origin.iter().zip(array_shape).enumerate() {
            let inside = len.saturating_sub(o).min(self.shape[d]);
            if inside == self.shape[d] {
                continue;
            }
            let mut start = vec![0; self.shape.len()];
            start[d] = inside;
            let mut counts = self.shape.clone();
            counts[d] -= inside;
            let past = Placement {
                shape: &self.shape,
                start: &start,
                step: &ones,
            };
            fill_box(&self.fill, elements, &past, &counts);
        }
    }

    /// A unit of the fill value.
    fn filled(&self) -> Result<Vec<u8>> {
        super::filled_elements(&self.shape, &self.fill)
    }
}

/// The coordinates of flat index `k` (C order) in a grid of `shape`.
fn unravel(mut k: u64, shape: &[u64]) -> Vec<u64> {
    let mut at = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        at[d] = k % shape[d];
        k /= shape[d];
    }
    at
}

impl Array {
    /// Sets `selection` to what the same selection of `source` holds (an array of this one's
    /// data type and shape).
    pub async fn copy_from(
        &self,
        source: &Array,
        selection: &[DimSelection],
        read: &ReadOptions<'_>,
        write: &WriteOptions<'_>,
    ) -> Result<()> {
        if !self.holds_like(source) {
            return Err(self.in_this_array(ZarrError::argument(
                format!(
                    "values are copied between arrays of one data type and shape, not from {} {:?} to {} {:?}",
                    source.data_type(),
                    source.shape(),
                    self.data_type(),
                    self.shape()
                ),
                true,
            )));
        }
        // A store that cannot write, or a codec that cannot encode, is refused before the read.
        self.writer()?;
        let ranges = resolve(selection, self.shape()).map_err(|e| self.in_this_array(e))?;
        if let Some((unit_shape, source_shape)) = self.units_from(source, &ranges) {
            source
                .check_read_size(&ranges, read)
                .map_err(|e| source.in_this_array(e))?;
            let units = Units {
                source,
                fetched: RefCell::new(source.fetch_units(&ranges, read.concurrency).await?),
                start: ranges.iter().map(|r| r.start).collect(),
                shape: unit_shape,
                source_shape,
                fill: self.metadata.fill_value.as_bytes().to_vec(),
            };
            return self.set_units(selection, &units, write).await;
        }
        let data = source.get_with(selection, read).await?;
        match &data.items {
            None => {
                self.set_with(selection, WriteValue::Elements(&data.bytes), write)
                    .await
            }
            // A read's handles refer to its items in any order; a write takes them in C order.
            Some(items) => {
                let mut ordered = Items::default();
                for handle in data.bytes.chunks_exact(VARIABLE_HANDLE_SIZE) {
                    let item = items.resolve(handle).ok_or_else(|| {
                        self.in_this_array(ZarrError::selection("a read item is missing"))
                    })?;
                    ordered.push(item).map_err(ZarrError::selection)?;
                }
                self.set_with(selection, WriteValue::Items(&ordered), write)
                    .await
            }
        }
    }

    /// Whether `copy_from(source, selection)` hands `source`'s decoded units over as they are
    /// (see the module's comment), rather than reading the selection whole.
    pub fn copies_by_units(&self, source: &Array, selection: &[DimSelection]) -> bool {
        self.holds_like(source)
            && resolve(selection, self.shape())
                .is_ok_and(|ranges| self.units_from(source, &ranges).is_some())
    }

    /// Whether `source` has this array's data type and shape (what `copy_from` copies between).
    fn holds_like(&self, source: &Array) -> bool {
        source.data_type() == self.data_type() && source.shape() == self.shape()
    }

    /// The shapes of the units this array writes and `source` reads, where each of this array's
    /// is made of whole units of the source's (see the module's comment), the fill values are
    /// the same, and `ranges` (steps of one) begin at a unit's origin and end at the next unit's,
    /// or at the array's end.
    fn units_from(&self, source: &Array, ranges: &[DimRange]) -> Option<(Vec<u64>, Vec<u64>)> {
        let (unit, source_unit) = (self.unit_shape()?, source.unit_shape()?);
        let aligned = ranges
            .iter()
            .zip(&unit)
            .zip(self.shape())
            .all(|((r, &u), &len)| {
                let end = r.start + r.count;
                (r.step == 1 || r.count == 1) && r.start % u == 0 && (end % u == 0 || end == len)
            });
        let made_of = unit.len() == source_unit.len()
            && unit
                .iter()
                .zip(&source_unit)
                .all(|(&u, &s)| s > 0 && u % s == 0);
        let same = !self.data_type().is_variable()
            && self.metadata.fields.is_none()
            && source.metadata.fill_value.as_bytes() == self.metadata.fill_value.as_bytes();
        (aligned && made_of && same).then_some((unit, source_unit))
    }

    /// The shape of the units a read decodes and a write encodes: the inner chunks of a sharded
    /// array (on a regular grid of shards that hold whole inner chunks), else its chunks on a
    /// regular grid.
    fn unit_shape(&self) -> Option<Vec<u64>> {
        match self.pipeline.partial_decoder() {
            Some(_) => self
                .inner_grid()?
                .regular_chunk_shape()
                .map(<[u64]>::to_vec),
            None => self
                .metadata
                .chunk_grid
                .regular_chunk_shape()
                .map(<[u64]>::to_vec),
        }
    }

    /// The units `ranges` cover (whole units: see `units_from`), fetched (not decoded), by their
    /// origin in the array.
    async fn fetch_units(
        &self,
        ranges: &[DimRange],
        concurrency: usize,
    ) -> Result<HashMap<Vec<u64>, Piece>> {
        let projections = chunk_projections(&self.metadata.chunk_grid, ranges)
            .map_err(|e| self.in_this_array(e))?;
        let mut arrivals = stream::iter(projections.map(|p: ChunkProjection| self.read_pieces(p)))
            .buffer_unordered(concurrency.max(1));
        let mut units = HashMap::new();
        while let Some(pieces) = arrivals.next().await {
            if self.store.cancelled() {
                return Err(self.aborted());
            }
            for piece in pieces? {
                let origin: Vec<u64> = piece
                    .parts
                    .iter()
                    .zip(ranges)
                    .map(|(p, r)| r.start + p.out_start - p.start_in_chunk)
                    .collect();
                units.insert(origin, piece);
            }
        }
        Ok(units)
    }

    /// A piece's whole chunk (or inner chunk), decoded; `None` where it is missing.
    async fn decoded_unit(&self, mut piece: Piece) -> Result<Option<Vec<u8>>> {
        let esize = self.data_type().size();
        let len = elements_size(&piece.chunk_shape, esize).ok_or_else(|| {
            let reason = format!("chunk shape {:?} is too large", piece.chunk_shape);
            self.in_chunk(&piece, CodecError::new("pipeline", reason))
        })?;
        let too_large = |piece: &Piece| {
            let reason = format!("cannot allocate {len} bytes for a chunk");
            self.in_chunk(piece, CodecError::new("pipeline", reason))
        };
        match std::mem::replace(&mut piece.data, Content::Missing) {
            Content::Missing => Ok(None),
            Content::Decoded(decoded) => match &piece.coords {
                Some(coords) => self.as_elements(Some(decoded), coords, None),
                None => Ok(Some(decoded)),
            },
            Content::Encoded(encoded) => {
                let mut out = try_zeroed(len).map_err(|_| too_large(&piece))?;
                self.decode_chunk_into(encoded, &piece, &mut out).await?;
                Ok(Some(out))
            }
            Content::Inner(stored) => {
                let mut out = try_zeroed(len).map_err(|_| too_large(&piece))?;
                self.decode_inner_into(stored, &mut out).await?;
                Ok(Some(out))
            }
        }
    }
}
