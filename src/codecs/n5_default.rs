//! The zarr-extensions registry's `n5_default` (an array-to-bytes codec): N5 blocks in N5's
//! "default" mode, so that an N5 dataset with a `zarr.json` beside its `attributes.json` reads as
//! a Zarr array. Each block starts with its own header (mode, dimension count, the block's shape,
//! all big-endian); the codecs in the configuration (a full transpose, big-endian `bytes`, maybe a
//! compressor) decode the rest in that shape. Writers pad edge blocks to the chunk shape
//! (tensorstore, zarr-python 2) or cut them to the array (N5's Java writer): a smaller block is
//! padded to its chunk with the fill value, from the chunk's origin.

use super::codec::{ArrayToBytesCodec, ChunkDecoder, ChunkRepr, Codec, CodecEntry, Kind};
use crate::collections::buffer::try_zeroed;
use crate::error::CodecError;
use crate::indexing::region::{copy_box, fill_box, Placement};

/// The registry's `n5_default`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["n5_default"],
    kind: Kind::ArrayToBytes,
    build: |config, cx| {
        let inner = (cx.pipeline)(
            &config.codecs("codecs")?,
            cx.data_type,
            cx.fill_value,
            cx.ndim,
        )?;
        let fill = cx.fill_value.item().unwrap_or_default().to_vec();
        Ok(Codec::array_to_bytes(N5DefaultCodec { inner, fill }))
    },
}];

pub struct N5DefaultCodec {
    /// The configuration's codecs, decoding a block of the shape its header gives.
    inner: Box<dyn ChunkDecoder>,
    /// One element of the fill value (native bytes), for the part of a chunk a cut block leaves.
    fill: Vec<u8>,
}

/// N5's block modes: only "default" blocks hold an array of the chunk's type.
const MODE_DEFAULT: u16 = 0;

impl N5DefaultCodec {
    /// The block's shape from its header, and where its data starts.
    fn header(encoded: &[u8], chunk: &[u64]) -> Result<(Vec<u64>, usize), String> {
        let u16_at = |at: usize| {
            encoded
                .get(at..at + 2)
                .map(|b| u16::from_be_bytes([b[0], b[1]]))
        };
        let (Some(mode), Some(ndim)) = (u16_at(0), u16_at(2)) else {
            return Err(format!(
                "{} bytes are too few for an N5 block header",
                encoded.len()
            ));
        };
        if mode != MODE_DEFAULT {
            return Err(format!(
                "the block's mode is {mode} (1: varlength, 2: object), not N5's default mode (0)"
            ));
        }
        if usize::from(ndim) != chunk.len() {
            return Err(format!(
                "the block has {ndim} dimensions, the array {}",
                chunk.len()
            ));
        }
        let start = 4 + 4 * chunk.len();
        let Some(dims) = encoded.get(4..start) else {
            return Err(format!(
                "{} bytes are too few for a header of {ndim} dimensions",
                encoded.len()
            ));
        };
        let shape = dims
            .chunks_exact(4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]).into())
            .collect();
        Ok((shape, start))
    }
}

impl ArrayToBytesCodec for N5DefaultCodec {
    fn name(&self) -> &'static str {
        "n5_default"
    }

    fn encoded_size(&self, _repr: &ChunkRepr) -> Option<usize> {
        None
    }

    fn decode(&self, mut encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |reason: String| CodecError::new(self.name(), reason);
        let (shape, start) = Self::header(&encoded, &repr.shape).map_err(err)?;
        let block_repr = ChunkRepr {
            shape,
            data_type: repr.data_type,
        };
        let (Some(block_size), Some(size)) = (block_repr.num_bytes(), repr.num_bytes()) else {
            return Err(err(format!(
                "the block's shape {:?} is too large",
                block_repr.shape
            )));
        };
        // A block larger than its chunk (a Zarr grid finer than the N5 blocks, which the
        // registry's mapping never makes) is refused: its size would come from the header alone.
        if block_repr.shape.iter().zip(&repr.shape).any(|(b, c)| b > c) {
            return Err(err(format!(
                "the block's shape {:?} is larger than the chunk's {:?}",
                block_repr.shape, repr.shape
            )));
        }
        encoded.drain(..start);
        let block = self.inner.decode(encoded, &block_repr)?;
        if block_repr.shape == repr.shape {
            return Ok(block);
        }
        if block.len() != block_size {
            return Err(err(format!(
                "the block decoded to {} bytes, not its shape's {block_size}",
                block.len()
            )));
        }
        // A block cut at the array's edge: at the chunk's origin, the fill value around it.
        let mut out = try_zeroed(size).map_err(err)?;
        let zeros = vec![0; repr.shape.len()];
        let ones = vec![1; repr.shape.len()];
        let whole = Placement {
            shape: &repr.shape,
            start: &zeros,
            step: &ones,
        };
        let esize = repr.data_type.size();
        if self.fill.len() == esize {
            fill_box(&self.fill, &mut out, &whole, &repr.shape);
        }
        let from = Placement {
            shape: &block_repr.shape,
            start: &zeros,
            step: &ones,
        };
        copy_box(&block, &from, &mut out, &whole, &block_repr.shape, esize);
        Ok(out)
    }

    fn set_max_unknown_decoded(&mut self, cap: usize) {
        self.inner.set_max_unknown_decoded(cap);
    }
}
