//! numcodecs' `PackBits` filter (v3 name `numcodecs.packbits`): booleans packed eight to a byte,
//! the first in the most significant bit (NumPy's `packbits`), after one byte that says how many
//! bits pad the last byte. Decoding needs the whole chunk (its bits run across rows).

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use crate::collections::buffer::try_zeroed;
use crate::data_type::DataType;
use crate::error::CodecError;

/// numcodecs' `packbits`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.packbits"],
    kind: Kind::ArrayToArray,
    build: |_, cx| match cx.data_type {
        DataType::Bool => Ok(Codec::array_to_array(PackBitsCodec)),
        other => Err(format!("packs booleans, not {other}")),
    },
}];

pub struct PackBitsCodec;

/// Elements of a chunk of `shape`, where the count fits in memory at all.
fn element_count(shape: &[u64]) -> Option<usize> {
    shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .and_then(|n| usize::try_from(n).ok())
}

impl ArrayToArrayCodec for PackBitsCodec {
    fn name(&self) -> &'static str {
        "numcodecs.packbits"
    }

    /// One byte of padding count, then the bits: a one-dimensional uint8 array.
    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        let n = element_count(&decoded.shape).unwrap_or(usize::MAX);
        ChunkRepr {
            shape: vec![1 + n.div_ceil(8) as u64],
            data_type: DataType::UInt8,
        }
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    /// The padding count, then the booleans eight to a byte, the first in the top bit.
    #[cfg(feature = "write")]
    fn encode(&self, chunk: Vec<u8>, _decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let n = chunk.len();
        let mut out =
            try_zeroed(1 + n.div_ceil(8)).map_err(|e| CodecError::new("numcodecs.packbits", e))?;
        out[0] = ((8 - n % 8) % 8) as u8;
        for (i, &b) in chunk.iter().enumerate() {
            out[1 + i / 8] |= ((b != 0) as u8) << (7 - i % 8);
        }
        Ok(out)
    }

    fn decode(&self, encoded: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.packbits", e);
        let n = element_count(&decoded.shape)
            .ok_or_else(|| err(format!("chunk shape {:?} is too large", decoded.shape)))?;
        let (padding, bits) = encoded
            .split_first()
            .ok_or_else(|| err("empty input: no padding byte".into()))?;
        if bits.len() != n.div_ceil(8) {
            return Err(err(format!(
                "{} bytes of bits, a chunk of {n} booleans needs {}",
                bits.len(),
                n.div_ceil(8)
            )));
        }
        let expected_padding = (8 - n % 8) % 8;
        if *padding as usize != expected_padding {
            return Err(err(format!(
                "the padding byte says {padding} bits, a chunk of {n} booleans has {expected_padding}"
            )));
        }
        let mut out = try_zeroed(n).map_err(err)?;
        for (i, b) in out.iter_mut().enumerate() {
            *b = (bits[i / 8] >> (7 - i % 8)) & 1;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpacks_numpy_packbits_order_and_checks_the_padding() {
        let repr = ChunkRepr {
            shape: vec![2, 2],
            data_type: DataType::Bool,
        };
        // numcodecs: PackBits().encode([True, False, False, True]) == [4, 144].
        assert_eq!(
            PackBitsCodec.decode(vec![4, 144], &repr).unwrap(),
            [1, 0, 0, 1]
        );
        assert_eq!(PackBitsCodec.encoded_repr(&repr).shape, [2]);
        for bad in [vec![], vec![4], vec![3, 144], vec![4, 144, 0]] {
            assert!(PackBitsCodec.decode(bad.clone(), &repr).is_err(), "{bad:?}");
        }
    }
}
