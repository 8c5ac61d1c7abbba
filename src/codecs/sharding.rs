//! The `sharding_indexed` codec: a shard (one stored object) holds a grid of inner chunks, each
//! encoded with the inner codecs, and an index of `(offset, nbytes)` per inner chunk at the start
//! or end, encoded with the index codecs (fixed size; usually `bytes` + `crc32c`). Empty inner
//! chunks (both fields all ones) are the fill value; inner codecs may shard again (nested shards).
//!
//! As a codec it decodes a whole shard. The array layer uses the same parts (`index_size`,
//! `decode_index`, `decode_inner`) to read only the index and the inner chunks a selection needs.

#[cfg(feature = "write")]
use super::codec::PartialEncoder;
use super::codec::{
    ArrayToBytesCodec, BuildContext, ChunkDecoder, ChunkRepr, Codec, CodecEntry, Kind,
    PartialDecoder, ShardIndex, Stopped,
};
use super::configuration::{Bounded, Configuration, Location};
use crate::collections::buffer::try_zeroed;
use crate::data_type::fill_value::FillValue;
use crate::data_type::variable::{element_count, item_ranges, layout, positions, reorder};
use crate::data_type::DataType;
use crate::error::CodecError;
use crate::indexing::region::{c_strides, copy_box, Placement};
use futures_util::future::{FutureExt, LocalBoxFuture};
use std::ops::Range;

/// `sharding_indexed`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["sharding_indexed"],
    kind: Kind::ArrayToBytes,
    build: |config, cx| {
        Ok(Codec::array_to_bytes(ShardingCodec::from_configuration(
            config, cx,
        )?))
    },
}];

/// The largest shard index read (16 bytes per inner chunk: 4 million inner chunks per shard).
pub const MAX_INDEX_BYTES: u64 = 64 << 20;

pub struct ShardingCodec {
    inner_shape: Vec<u64>,
    inner: Box<dyn ChunkDecoder>,
    index: Box<dyn ChunkDecoder>,
    index_at_end: bool,
    data_type: DataType,
    fill_value: FillValue,
    /// Why `fill_value` is not known (`BuildContext::fill_problem`): missing inner chunks fail.
    fill_problem: Option<String>,
}

impl ShardingCodec {
    pub fn from_configuration(
        config: Configuration,
        cx: &BuildContext,
    ) -> Result<ShardingCodec, String> {
        let (data_type, fill_value, ndim) = (cx.data_type, cx.fill_value, cx.ndim);
        let inner_shape: Vec<Bounded<1, { i64::MAX }>> = config.required("chunk_shape")?;
        let inner_shape: Vec<u64> = inner_shape.into_iter().map(|Bounded(n)| n as u64).collect();
        if inner_shape.len() != ndim {
            return Err(format!(
                "\"chunk_shape\" has {} dimensions, the array has {ndim}",
                inner_shape.len()
            ));
        }
        let index_at_end = config.optional::<Location>("index_location")? != Some(Location::Start);
        let inner = (cx.pipeline)(&config.codecs("codecs")?, data_type, fill_value, ndim)
            .map_err(|e| format!("inner codecs: {e}"))?;
        // The index is a uint64 array of the chunks-per-shard shape plus a trailing 2.
        let no_fill = FillValue::from_native_bytes(vec![0; 8]);
        let index = (cx.pipeline)(
            &config.codecs("index_codecs")?,
            DataType::UInt64,
            &no_fill,
            ndim + 1,
        )
        .map_err(|e| format!("index codecs: {e}"))?;
        Ok(ShardingCodec {
            inner_shape,
            inner,
            index,
            index_at_end,
            data_type,
            fill_value: fill_value.clone(),
            fill_problem: cx.fill_problem.map(str::to_string),
        })
    }

    fn index_repr(cps: &[u64]) -> ChunkRepr {
        let mut shape = cps.to_vec();
        shape.push(2);
        ChunkRepr {
            shape,
            data_type: DataType::UInt64,
        }
    }
}

impl PartialDecoder for ShardingCodec {
    fn inner_shape(&self) -> &[u64] {
        &self.inner_shape
    }

    fn index_at_end(&self) -> bool {
        self.index_at_end
    }

    /// Inner chunks along each dimension of a shard of `shard_shape`.
    fn chunks_per_shard(&self, shard_shape: &[u64]) -> Result<Vec<u64>, String> {
        shard_shape
            .iter()
            .zip(&self.inner_shape)
            .map(|(&s, &c)| {
                (s % c == 0).then_some(s / c).ok_or_else(|| {
                    format!(
                        "inner chunk shape {:?} does not divide the shard shape {shard_shape:?}",
                        self.inner_shape
                    )
                })
            })
            .collect()
    }

    /// The encoded size of a shard's index, which the spec requires to be fixed, and which is
    /// bounded: metadata alone could otherwise ask for an index of billions of entries.
    fn index_size(&self, cps: &[u64]) -> Result<usize, String> {
        let entries = cps.iter().try_fold(1u64, |acc, &n| acc.checked_mul(n));
        let decoded = entries.and_then(|n| n.checked_mul(16));
        if !matches!(decoded, Some(b) if b <= MAX_INDEX_BYTES) {
            return Err(format!(
                "a shard of {cps:?} inner chunks would have an index of {} bytes, more than the {MAX_INDEX_BYTES} a shard index may have",
                decoded.map_or("over 2^64".to_string(), |b| b.to_string())
            ));
        }
        self.index
            .fixed_encoded_size(&ShardingCodec::index_repr(cps))
            .ok_or_else(|| "the index codecs do not give the index a fixed size".to_string())
    }

    /// Decodes an encoded index (exactly `index_size` bytes) of a shard `shard_len` bytes long
    /// (where known), checking that every entry lies inside the shard.
    fn decode_index(
        &self,
        encoded: Vec<u8>,
        cps: &[u64],
        shard_len: Option<u64>,
    ) -> Result<ShardIndex, String> {
        let raw = self
            .index
            .decode(encoded, &ShardingCodec::index_repr(cps))
            .map_err(|e| format!("index: codec {}: {}", e.codec, e.reason))?;
        let words: Vec<u64> = raw
            .chunks_exact(8)
            .map(|w| u64::from_ne_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
            .collect();
        let entries = words
            .chunks_exact(2)
            .enumerate()
            .map(|(i, pair)| match (pair[0], pair[1]) {
                (u64::MAX, u64::MAX) => Ok(None),
                (offset, nbytes) => {
                    let end = offset.checked_add(nbytes).filter(|&e| shard_len.is_none_or(|len| e <= len));
                    end.map(|end| Some(offset..end)).ok_or_else(|| match shard_len {
                        Some(len) => format!("index entry {i} ({nbytes} bytes at offset {offset}) lies outside the {len}-byte shard"),
                        None => format!("index entry {i} ({nbytes} bytes at offset {offset}) ends past the largest possible offset"),
                    })
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(ShardIndex { entries })
    }

    fn decode_inner<'a>(
        &'a self,
        encoded: Vec<u8>,
        coords: &'a [u64],
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>, Stopped<String>>> {
        async move {
            let repr = self.inner_repr();
            let decoded = self
                .inner
                .decode_async(encoded, &repr, cancelled)
                .await
                .map_err(|stop| stop.map(|e| inner_failed(coords, e)))?;
            Ok(self.inner_elements(decoded, &repr, coords)?)
        }
        .boxed_local()
    }

    fn inner_chunk_bytes(&self) -> Option<u64> {
        if self.data_type.is_variable() {
            return None;
        }
        let elements = self
            .inner_shape
            .iter()
            .try_fold(1u64, |acc, &n| acc.checked_mul(n))?;
        elements.checked_mul(self.data_type.size() as u64)
    }

    fn decode_inner_into<'a>(
        &'a self,
        encoded: Vec<u8>,
        coords: &'a [u64],
        out: &'a mut [u8],
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<(), Stopped<String>>> {
        async move {
            let repr = self.inner_repr();
            self.inner
                .decode_into_async(encoded, &repr, out, cancelled)
                .await
                .map_err(|stop| stop.map(|e| inner_failed(coords, e)))
        }
        .boxed_local()
    }
}

impl ShardingCodec {
    /// What an inner chunk is.
    fn inner_repr(&self) -> ChunkRepr {
        ChunkRepr {
            shape: self.inner_shape.clone(),
            data_type: self.data_type,
        }
    }

    /// Decodes the inner chunk at `coords` in one go, for a whole shard (`decode_inner` lets the
    /// event loop run while it decodes; a codec's `decode` cannot).
    fn decode_inner_now(&self, encoded: Vec<u8>, coords: &[u64]) -> Result<Vec<u8>, String> {
        let repr = self.inner_repr();
        let decoded = self
            .inner
            .decode(encoded, &repr)
            .map_err(|e| inner_failed(coords, e))?;
        self.inner_elements(decoded, &repr, coords)
    }

    /// An inner chunk's elements from what the inner codecs decoded it to: for variable-length
    /// data its items in C order (inner reordering codecs undone); errors say which chunk.
    fn inner_elements(
        &self,
        decoded: Vec<u8>,
        repr: &ChunkRepr,
        coords: &[u64],
    ) -> Result<Vec<u8>, String> {
        if self.data_type.is_variable() {
            return self
                .items_in_c_order(decoded, repr)
                .map_err(|e| format!("inner chunk {coords:?}: {e}"));
        }
        // Region copies index by the inner chunk's shape: any other size is an error here.
        if Some(decoded.len()) != repr.num_bytes() {
            return Err(format!(
                "inner chunk {coords:?}: decoded to {} bytes, its shape {:?} needs {:?}",
                decoded.len(),
                repr.shape,
                repr.num_bytes()
            ));
        }
        Ok(decoded)
    }
}

#[cfg(feature = "write")]
impl PartialEncoder for ShardingCodec {
    fn encode_inner(&self, chunk: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        self.inner
            .encode(chunk, &self.inner_repr())
            .map_err(|e| fail(format!("inner chunk: codec {}: {}", e.codec, e.reason)))
    }

    fn encode_inner_async<'a>(
        &'a self,
        chunk: Vec<u8>,
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>, Stopped>> {
        Box::pin(async move {
            let repr = self.inner_repr();
            match self.inner.encode_async(chunk, &repr, cancelled).await {
                Err(Stopped::Failed(e)) => Err(Stopped::Failed(fail(format!(
                    "inner chunk: codec {}: {}",
                    e.codec, e.reason
                )))),
                other => other,
            }
        })
    }

    fn assemble(
        &self,
        inner: &[Option<Vec<u8>>],
        cps: &[u64],
    ) -> Result<Option<Vec<u8>>, CodecError> {
        if inner.iter().all(Option::is_none) {
            return Ok(None);
        }
        let index_len = self.index_size(cps).map_err(fail)?;
        let data_len: usize = inner.iter().flatten().map(Vec::len).sum();
        let mut shard = Vec::new();
        shard.try_reserve_exact(data_len + index_len).map_err(|_| {
            fail(format!(
                "cannot allocate a shard of {} bytes",
                data_len + index_len
            ))
        })?;
        // Inner chunks in C order of the inner grid, after the index where it comes first.
        let mut offset = if self.index_at_end {
            0
        } else {
            index_len as u64
        };
        let mut words = Vec::with_capacity(inner.len() * 16);
        for chunk in inner {
            let (at, len) = match chunk {
                Some(c) => (offset, c.len() as u64),
                None => (u64::MAX, u64::MAX),
            };
            words.extend(at.to_ne_bytes());
            words.extend(len.to_ne_bytes());
            offset += chunk.as_ref().map_or(0, |c| c.len() as u64);
        }
        let index = self
            .index
            .encode(words, &ShardingCodec::index_repr(cps))
            .map_err(|e| fail(format!("index: codec {}: {}", e.codec, e.reason)))?;
        if index.len() != index_len {
            return Err(fail(format!(
                "the index encoded to {} bytes, not its fixed {index_len}",
                index.len()
            )));
        }
        if !self.index_at_end {
            shard.extend_from_slice(&index);
        }
        for chunk in inner.iter().flatten() {
            shard.extend_from_slice(chunk);
        }
        if self.index_at_end {
            shard.extend_from_slice(&index);
        }
        Ok(Some(shard))
    }
}

#[cfg(feature = "write")]
impl ShardingCodec {
    /// A shard whose every inner chunk is absent: its index alone.
    fn empty_shard(&self, cps: &[u64]) -> Result<Vec<u8>, CodecError> {
        let count = cps.iter().product::<u64>() as usize;
        let words: Vec<u8> = std::iter::repeat_n(u64::MAX.to_ne_bytes(), count * 2)
            .flatten()
            .collect();
        self.index
            .encode(words, &ShardingCodec::index_repr(cps))
            .map_err(|e| fail(format!("index: codec {}: {}", e.codec, e.reason)))
    }
}

/// An inner codec's failure, said of the inner chunk at `coords`.
fn inner_failed(coords: &[u64], e: CodecError) -> String {
    format!("inner chunk {coords:?}: codec {}: {}", e.codec, e.reason)
}

impl ShardingCodec {
    /// A variable-length inner chunk (vlen layout, items in stored order) with its items in C
    /// order: the inner pipeline's reordering codecs (transpose) applied to their positions.
    fn items_in_c_order(&self, chunk: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, String> {
        let n = element_count(&repr.shape).ok_or("too many elements")?;
        if !self.inner.reorders_elements() {
            return Ok(chunk); // its items are checked when taken out
        }
        let ranges = item_ranges(&chunk, n)?;
        let order = self
            .inner
            .restore_order(positions(n)?, repr)
            .map_err(|e| format!("codec {}: {}", e.codec, e.reason))?;
        reorder(&chunk, &ranges, &order)
    }

    /// A whole shard of variable-length data in vlen layout, C order; missing inner chunks hold
    /// the fill item.
    fn decode_variable_shard(
        &self,
        encoded: &[u8],
        index: &ShardIndex,
        cps: &[u64],
        repr: &ChunkRepr,
    ) -> Result<Vec<u8>, String> {
        let n = element_count(&repr.shape).ok_or("the shard has too many elements")?;
        let inner_n = element_count(&self.inner_shape).ok_or("too many elements")?;
        // Each element's item: (inner chunk, range in its decoded bytes); None is the fill.
        let mut slots: Vec<Option<(usize, Range<usize>)>> = Vec::new();
        slots
            .try_reserve_exact(n)
            .map_err(|_| format!("cannot allocate a shard of {n} elements"))?;
        slots.resize(n, None);
        let mut chunks = Vec::new();
        let cps_strides = c_strides(cps);
        let shard_strides = c_strides(&repr.shape);
        let inner_strides = c_strides(&self.inner_shape);
        for i in 0..index.len() {
            let Some(range) = index.get(i) else { continue };
            let coords: Vec<u64> = cps_strides
                .iter()
                .zip(cps)
                .map(|(&s, &c)| (i as u64 / s) % c)
                .collect();
            let chunk = self.decode_inner_now(
                encoded[range.start as usize..range.end as usize].to_vec(),
                &coords,
            )?;
            let ranges = item_ranges(&chunk, inner_n)?;
            for (j, r) in ranges.into_iter().enumerate() {
                // Element j of the inner chunk (C order) in the shard.
                let at: u64 = (0..coords.len())
                    .map(|d| {
                        let local = (j as u64 / inner_strides[d]) % self.inner_shape[d];
                        (coords[d] * self.inner_shape[d] + local) * shard_strides[d]
                    })
                    .sum();
                if let Some(slot) = slots.get_mut(at as usize) {
                    *slot = Some((chunks.len(), r));
                }
            }
            chunks.push(chunk);
        }
        let fill = self.fill_value.item().unwrap_or_default();
        let items: Vec<&[u8]> = slots
            .iter()
            .map(|slot| match slot {
                Some((c, r)) => &chunks[*c][r.clone()],
                None => fill,
            })
            .collect();
        layout(&items)
    }
}

fn fail(reason: String) -> CodecError {
    CodecError::new("sharding_indexed", reason)
}

impl ArrayToBytesCodec for ShardingCodec {
    fn name(&self) -> &'static str {
        "sharding_indexed"
    }

    fn encoded_size(&self, _repr: &ChunkRepr) -> Option<usize> {
        None
    }

    fn set_max_unknown_decoded(&mut self, cap: usize) {
        self.inner.set_max_unknown_decoded(cap);
    }

    fn partial_decoder(&self) -> Option<&dyn PartialDecoder> {
        Some(self)
    }

    #[cfg(feature = "write")]
    fn partial_encoder(&self) -> Option<&dyn PartialEncoder> {
        Some(self)
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        self.inner.missing_encoder().is_none() && self.index.missing_encoder().is_none()
    }

    /// A whole shard: each inner chunk cut out and encoded, those of nothing but the fill value
    /// left out. Variable-length data (vlen layout, C order) is cut by its items' positions.
    #[cfg(feature = "write")]
    fn encode(&self, chunk: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let cps = self.chunks_per_shard(&repr.shape).map_err(fail)?;
        let n = element_count(&repr.shape).ok_or_else(|| fail("too many elements".into()))?;
        // What is cut: the elements, or for variable-length data each item's position.
        let (elements, items) = match self.data_type.is_variable() {
            true => {
                let ranges = item_ranges(&chunk, n).map_err(fail)?;
                (positions(n).map_err(fail)?, Some((chunk, ranges)))
            }
            false => (chunk, None),
        };
        let inner_n = element_count(&self.inner_shape).unwrap_or(0);
        if Some(elements.len()) != repr.num_bytes() {
            return Err(fail(format!(
                "{} bytes to encode, not the {:?} of a shard of shape {:?}",
                elements.len(),
                repr.num_bytes(),
                repr.shape
            )));
        }
        let esize = self.data_type.size();
        let inner_size = self.inner_repr().num_bytes().ok_or_else(|| {
            fail(format!(
                "an inner chunk of shape {:?} is too large",
                self.inner_shape
            ))
        })?;
        let (ones, zeros) = (vec![1u64; cps.len()], vec![0u64; cps.len()]);
        let cps_strides = c_strides(&cps);
        let count = cps.iter().product::<u64>() as usize;
        let fill = self.fill_value.as_bytes();
        let fill_item = self.fill_value.item().unwrap_or_default();
        let mut inner = Vec::with_capacity(count);
        for i in 0..count {
            let start: Vec<u64> = cps_strides
                .iter()
                .zip(&cps)
                .zip(&self.inner_shape)
                .map(|((&st, &n), &size)| (i as u64 / st) % n * size)
                .collect();
            let mut part = try_zeroed(inner_size).map_err(fail)?;
            let from = Placement {
                shape: &repr.shape,
                start: &start,
                step: &ones,
            };
            let to = Placement {
                shape: &self.inner_shape,
                start: &zeros,
                step: &ones,
            };
            copy_box(&elements, &from, &mut part, &to, &self.inner_shape, esize);
            let (part, only_fill) = match &items {
                Some((chunk, ranges)) => {
                    let part = reorder(chunk, ranges, &part).map_err(fail)?;
                    let only_fill = item_ranges(&part, inner_n)
                        .map_err(fail)?
                        .iter()
                        .all(|r| &part[r.clone()] == fill_item);
                    (part, only_fill)
                }
                None => {
                    let only_fill = part.chunks_exact(fill.len().max(1)).all(|e| e == fill);
                    (part, only_fill)
                }
            };
            inner.push(match only_fill {
                true => None,
                false => Some(self.encode_inner(part)?),
            });
        }
        // A shard of nothing but the fill value, encoded whole, still has its index: the
        // array layer decides whether to store it.
        match self.assemble(&inner, &cps)? {
            Some(shard) => Ok(shard),
            None => self.empty_shard(&cps),
        }
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let cps = self.chunks_per_shard(&repr.shape).map_err(fail)?;
        let index_len = self.index_size(&cps).map_err(fail)?;
        if encoded.len() < index_len {
            return Err(fail(format!(
                "the shard is {} bytes, shorter than its {index_len}-byte index",
                encoded.len()
            )));
        }
        let at = if self.index_at_end {
            encoded.len() - index_len
        } else {
            0
        };
        let index = self
            .decode_index(
                encoded[at..at + index_len].to_vec(),
                &cps,
                Some(encoded.len() as u64),
            )
            .map_err(fail)?;
        if self.data_type.is_variable() {
            return self
                .decode_variable_shard(&encoded, &index, &cps, repr)
                .map_err(fail);
        }
        let esize = self.data_type.size();
        let size = repr
            .num_bytes()
            .ok_or_else(|| fail(format!("a shard of shape {:?} is too large", repr.shape)))?;
        let mut out = try_zeroed(size).map_err(fail)?;
        let missing = (0..index.len()).any(|i| index.get(i).is_none());
        if let (true, Some(problem)) = (missing, &self.fill_problem) {
            return Err(fail(format!(
                "an inner chunk is missing and its fill value is unknown: {problem}"
            )));
        }
        let fill = self.fill_value.as_bytes();
        if fill.len() != esize {
            let reason = format!("the fill value has {} bytes, elements {esize}", fill.len());
            return Err(fail(reason));
        }
        out.chunks_exact_mut(esize)
            .for_each(|e| e.copy_from_slice(fill));
        let ones = vec![1u64; cps.len()];
        let zeros = vec![0u64; cps.len()];
        let cps_strides = c_strides(&cps);
        for i in 0..index.len() {
            let Some(range) = index.get(i) else { continue };
            // Inner chunk coordinates of entry i, in C order over the chunks per shard.
            let coords: Vec<u64> = cps_strides
                .iter()
                .zip(&cps)
                .map(|(&s, &n)| (i as u64 / s) % n)
                .collect();
            let bytes = encoded[range.start as usize..range.end as usize].to_vec();
            let chunk = self.decode_inner_now(bytes, &coords).map_err(fail)?;
            let start: Vec<u64> = coords
                .iter()
                .zip(&self.inner_shape)
                .map(|(&c, &s)| c * s)
                .collect();
            let from = Placement {
                shape: &self.inner_shape,
                start: &zeros,
                step: &ones,
            };
            let to = Placement {
                shape: &repr.shape,
                start: &start,
                step: &ones,
            };
            copy_box(&chunk, &from, &mut out, &to, &self.inner_shape, esize);
        }
        Ok(out)
    }
}
