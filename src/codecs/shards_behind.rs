//! A shard stored behind array-to-array codecs (`[transpose, sharding_indexed]`, as zarr-python
//! writes with `filters=` and a sharding serializer), read in parts all the same. Where each of
//! those codecs decodes a box of its input to the matching box of its output (`box_order`), an
//! inner chunk decodes on its own: through the sharding codec, then through them. This file
//! makes the codecs and the shard one array-to-bytes codec whose partial decoder speaks in the
//! array's axes: inner chunk shapes, chunks per shard, the index and the coordinates of an inner
//! chunk are translated to the shard's stored axes and back.

use super::codec::{
    chain, decode_array_to_array, ArrayToArrayCodec, ArrayToBytesCodec, ChunkRepr, PartialDecoder,
    ShardIndex, Stopped,
};
use crate::data_type::DataType;
use crate::error::CodecError;
use crate::indexing::region::c_strides;
use futures_util::future::{FutureExt, LocalBoxFuture};

/// The codecs, handed back where they cannot be joined.
pub type Unjoined = (Vec<Box<dyn ArrayToArrayCodec>>, Box<dyn ArrayToBytesCodec>);

pub struct ShardsBehindArrayCodecs {
    /// The array-to-array codecs, in metadata (encoding) order.
    array_to_array: Vec<Box<dyn ArrayToArrayCodec>>,
    /// The array-to-bytes codec that stores shards (it has a partial decoder).
    shards: Box<dyn ArrayToBytesCodec>,
    /// Stored axis `i` of a shard is the array's axis `order[i]`.
    order: Vec<usize>,
    /// An inner chunk's shape in the array's axes.
    inner_shape: Vec<u64>,
    /// The array's type (what the array-to-array codecs decode to).
    data_type: DataType,
}

impl ShardsBehindArrayCodecs {
    /// `array_to_array` and `shards` as one codec, where `shards` is read in parts and each of
    /// `array_to_array` decodes box by box; else the codecs back, unchanged.
    pub fn new(
        array_to_array: Vec<Box<dyn ArrayToArrayCodec>>,
        shards: Box<dyn ArrayToBytesCodec>,
        data_type: DataType,
        ndim: usize,
    ) -> Result<ShardsBehindArrayCodecs, Unjoined> {
        let Some(stored_inner) = shards.partial_decoder().map(|p| p.inner_shape().to_vec()) else {
            return Err((array_to_array, shards));
        };
        // Composed in encoding order: after codecs with orders o1 then o2, stored axis j is the
        // array's axis o1[o2[j]].
        let mut order: Vec<usize> = (0..ndim).collect();
        for codec in &array_to_array {
            match codec.box_order(ndim) {
                Some(o) if o.len() == ndim && stored_inner.len() == ndim => {
                    order = o.iter().map(|&j| order[j]).collect()
                }
                _ => return Err((array_to_array, shards)),
            }
        }
        let mut inner_shape = vec![0; ndim];
        for (i, &axis) in order.iter().enumerate() {
            inner_shape[axis] = stored_inner[i];
        }
        Ok(ShardsBehindArrayCodecs {
            array_to_array,
            shards,
            order,
            inner_shape,
            data_type,
        })
    }

    /// `values` (one per array axis) in the shard's stored axes.
    fn stored<T: Copy>(&self, values: &[T]) -> Result<Vec<T>, String> {
        if values.len() != self.order.len() {
            return Err(format!(
                "{} dimensions given, the array has {}",
                values.len(),
                self.order.len()
            ));
        }
        Ok(self.order.iter().map(|&axis| values[axis]).collect())
    }

    fn partial(&self) -> Result<&dyn PartialDecoder, String> {
        self.shards
            .partial_decoder()
            .ok_or_else(|| format!("{} cannot be read in parts", self.shards.name()))
    }
}

impl ArrayToBytesCodec for ShardsBehindArrayCodecs {
    fn name(&self) -> &'static str {
        self.shards.name()
    }

    fn encoded_size(&self, repr: &ChunkRepr) -> Option<usize> {
        self.shards
            .encoded_size(chain(&self.array_to_array, repr.clone()).last()?)
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let mut reprs = chain(&self.array_to_array, repr.clone());
        let stored = reprs.pop().unwrap_or_else(|| repr.clone());
        let elements = self.shards.decode(encoded, &stored)?;
        decode_array_to_array(&self.array_to_array, elements, reprs)
    }

    fn partial_decoder(&self) -> Option<&dyn PartialDecoder> {
        Some(self)
    }

    fn set_max_unknown_decoded(&mut self, cap: usize) {
        self.shards.set_max_unknown_decoded(cap)
    }
}

impl PartialDecoder for ShardsBehindArrayCodecs {
    fn inner_shape(&self) -> &[u64] {
        &self.inner_shape
    }

    fn index_at_end(&self) -> bool {
        self.partial().map_or(true, |p| p.index_at_end())
    }

    fn chunks_per_shard(&self, shape: &[u64]) -> Result<Vec<u64>, String> {
        let stored = self.partial()?.chunks_per_shard(&self.stored(shape)?)?;
        let mut cps = vec![0; stored.len()];
        for (i, &axis) in self.order.iter().enumerate() {
            cps[axis] = stored[i];
        }
        Ok(cps)
    }

    fn index_size(&self, cps: &[u64]) -> Result<usize, String> {
        self.partial()?.index_size(&self.stored(cps)?)
    }

    /// The index, its entries put in C order of the inner chunks in the array's axes.
    fn decode_index(
        &self,
        encoded: Vec<u8>,
        cps: &[u64],
        len: Option<u64>,
    ) -> Result<ShardIndex, String> {
        let stored_cps = self.stored(cps)?;
        let index = self.partial()?.decode_index(encoded, &stored_cps, len)?;
        // Moving along the array's axis `order[i]` moves along the index's axis `i`.
        let stored_strides = c_strides(&stored_cps);
        let mut stride_of = vec![0u64; cps.len()];
        for (i, &axis) in self.order.iter().enumerate() {
            stride_of[axis] = stored_strides[i];
        }
        let mut entries = Vec::with_capacity(index.len());
        let mut coords = vec![0u64; cps.len()];
        for _ in 0..index.len() {
            let at: u64 = coords.iter().zip(&stride_of).map(|(c, s)| c * s).sum();
            entries.push(index.get(at as usize));
            // The next inner chunk, C order of the array's axes.
            for d in (0..coords.len()).rev() {
                coords[d] += 1;
                if coords[d] < cps[d] {
                    break;
                }
                coords[d] = 0;
            }
        }
        Ok(ShardIndex { entries })
    }

    fn inner_chunk_bytes(&self) -> Option<u64> {
        if self.data_type.is_variable() {
            return None;
        }
        self.partial().ok()?.inner_chunk_bytes()
    }

    fn decode_inner<'a>(
        &'a self,
        encoded: Vec<u8>,
        coords: &'a [u64],
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>, Stopped<String>>> {
        async move {
            let stored_coords = self.stored(coords)?;
            let stored = self
                .partial()?
                .decode_inner(encoded, &stored_coords, cancelled)
                .await?;
            let repr = ChunkRepr {
                shape: self.inner_shape.clone(),
                data_type: self.data_type,
            };
            let reprs = chain(&self.array_to_array, repr);
            decode_array_to_array(&self.array_to_array, stored, reprs)
                .map_err(|e| Stopped::Failed(e.to_string()))
        }
        .boxed_local()
    }
}
