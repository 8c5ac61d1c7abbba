//! The `transpose` codec: chunks stored with their axes permuted. Decoding gathers the stored
//! elements back into C order of the decoded shape.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::{Configuration, Field};
use crate::collections::buffer::try_zeroed;
use crate::error::CodecError;
use crate::indexing::region::c_strides;
use serde_json::Value;

/// `transpose`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["transpose"],
    kind: Kind::ArrayToArray,
    build: |config, cx| {
        Ok(Codec::array_to_array(TransposeCodec::from_configuration(
            config, cx.ndim,
        )?))
    },
}];

/// `order`: the axes in their stored order.
enum AxisOrder {
    Axes(Vec<u32>),
    // Drafts of the spec allowed "C" and "F"; writers of that time still exist.
    C,
    F,
}

impl Field<'_> for AxisOrder {
    fn expected() -> String {
        "a permutation of the axes (a list of axis numbers)".into()
    }
    fn read(value: &Value) -> Option<AxisOrder> {
        match value.as_str() {
            Some("C") => Some(AxisOrder::C),
            Some("F") => Some(AxisOrder::F),
            _ => Vec::<u64>::read(value)?
                .into_iter()
                .map(|i| u32::try_from(i).ok())
                .collect::<Option<_>>()
                .map(AxisOrder::Axes),
        }
    }
}

pub struct TransposeCodec {
    /// Encoded axis `i` is decoded axis `order[i]`.
    order: Vec<usize>,
}

impl TransposeCodec {
    pub fn from_configuration(
        config: Configuration,
        ndim: usize,
    ) -> Result<TransposeCodec, String> {
        let order: Vec<usize> = match config.required::<AxisOrder>("order")? {
            AxisOrder::Axes(axes) => axes.into_iter().map(|i| i as usize).collect(),
            AxisOrder::C => (0..ndim).collect(),
            AxisOrder::F => (0..ndim).rev().collect(),
        };
        let mut seen = vec![false; ndim];
        let is_permutation = order.len() == ndim
            && order
                .iter()
                .all(|&i| i < ndim && !std::mem::replace(&mut seen[i], true));
        if !is_permutation {
            return Err(format!(
                "\"order\" {order:?} is not a permutation of 0..{ndim}"
            ));
        }
        Ok(TransposeCodec { order })
    }
}

impl ArrayToArrayCodec for TransposeCodec {
    fn name(&self) -> &'static str {
        "transpose"
    }

    fn only_reorders(&self) -> bool {
        true
    }

    fn box_order(&self, _ndim: usize) -> Option<Vec<usize>> {
        Some(self.order.clone())
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        ChunkRepr {
            // The order was checked against the array's axes; a chunk of other axes (none
            // reaches here) would get size 1 rather than a panic.
            shape: self
                .order
                .iter()
                .map(|&i| decoded.shape.get(i).copied().unwrap_or(1))
                .collect(),
            data_type: decoded.data_type,
        }
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    /// The decode of the inverse order: encoded axis `i` is decoded axis `order[i]`, so the
    /// chunk read as an "encoded" one of the inverse order decodes to this order's encoding.
    #[cfg(feature = "write")]
    fn encode(&self, chunk: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let mut inverse = vec![0; self.order.len()];
        for (i, &o) in self.order.iter().enumerate() {
            inverse[o] = i;
        }
        TransposeCodec { order: inverse }.decode(chunk, &self.encoded_repr(decoded))
    }

    fn decode(&self, encoded: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let ndim = self.order.len();
        if ndim < 2 || self.order.iter().enumerate().all(|(i, &o)| i == o) {
            return Ok(encoded);
        }
        let size = decoded
            .num_bytes()
            .filter(|&n| n == encoded.len())
            .ok_or_else(|| {
                CodecError::new(
                    "transpose",
                    format!(
                        "input has {} bytes, shape {:?} needs {:?}",
                        encoded.len(),
                        decoded.shape,
                        decoded.num_bytes()
                    ),
                )
            })?;
        let esize = decoded.data_type.size();
        let mut out = try_zeroed(size).map_err(|e| CodecError::new("transpose", e))?;
        if size == 0 {
            return Ok(out);
        }
        // Decoded axis j advances by the stride of the encoded axis i with order[i] == j.
        let encoded_strides = c_strides(&self.encoded_repr(decoded).shape);
        let mut stride_of = vec![0usize; ndim];
        for (i, &j) in self.order.iter().enumerate() {
            stride_of[j] = encoded_strides[i] as usize * esize;
        }
        let shape: Vec<usize> = decoded.shape.iter().map(|&n| n as usize).collect();
        let (last, inner_stride) = (shape[ndim - 1], stride_of[ndim - 1]);
        let mut index = vec![0usize; ndim - 1];
        let mut dst = 0usize;
        loop {
            let mut src: usize = index.iter().zip(&stride_of).map(|(i, s)| i * s).sum();
            for _ in 0..last {
                out[dst..dst + esize].copy_from_slice(&encoded[src..src + esize]);
                dst += esize;
                src += inner_stride;
            }
            // Next row of the decoded array, C order.
            let mut d = ndim - 1;
            loop {
                if d == 0 {
                    return Ok(out);
                }
                d -= 1;
                index[d] += 1;
                if index[d] < shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_type::DataType;
    use serde_json::json;

    fn codec(order: Value, ndim: usize) -> Result<TransposeCodec, String> {
        TransposeCodec::from_configuration(
            Configuration::new(json!({ "order": order }).as_object().unwrap()),
            ndim,
        )
    }

    #[cfg(feature = "write")]
    #[test]
    fn encoding_then_decoding_gives_the_chunk_back_for_every_order_of_three_axes() {
        let decoded = ChunkRepr {
            shape: vec![2, 3, 4],
            data_type: DataType::UInt16,
        };
        let chunk: Vec<u8> = (0..24u16).flat_map(|v| v.to_ne_bytes()).collect();
        for order in [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ] {
            let c = codec(json!(order), 3).unwrap();
            let encoded = c.encode(chunk.clone(), &decoded).unwrap();
            // Element (i, j, k) of the decoded chunk is at its place along the encoded axes.
            let shape = c.encoded_repr(&decoded).shape;
            let at = |e: [usize; 3]| (e[0] * shape[1] as usize + e[1]) * shape[2] as usize + e[2];
            for (n, v) in chunk.chunks(2).enumerate() {
                let d = [n / 12, n / 4 % 3, n % 4];
                let e = [d[order[0]], d[order[1]], d[order[2]]];
                assert_eq!(&encoded[at(e) * 2..at(e) * 2 + 2], v, "{order:?} {d:?}");
            }
            assert_eq!(c.decode(encoded, &decoded).unwrap(), chunk, "{order:?}");
        }
    }

    #[test]
    fn decodes_a_stored_transpose_back_to_c_order() {
        // Decoded A is 2x3: [[0,1,2],[3,4,5]]; with order [1,0] the stored B is its 3x2 transpose.
        let c = codec(json!([1, 0]), 2).unwrap();
        let repr = ChunkRepr {
            shape: vec![2, 3],
            data_type: DataType::UInt8,
        };
        assert_eq!(c.encoded_repr(&repr).shape, vec![3, 2]);
        assert_eq!(
            c.decode(vec![0, 3, 1, 4, 2, 5], &repr).unwrap(),
            vec![0, 1, 2, 3, 4, 5]
        );
    }

    #[test]
    fn three_axes_with_wide_elements() {
        // A has shape [2, 3, 4]; order [2, 0, 1] stores B with shape [4, 2, 3], B[k, i, j] = A[i, j, k].
        let c = codec(json!([2, 0, 1]), 3).unwrap();
        let repr = ChunkRepr {
            shape: vec![2, 3, 4],
            data_type: DataType::UInt16,
        };
        let a = |i: u16, j: u16, k: u16| i * 100 + j * 10 + k;
        let mut b = vec![];
        for k in 0..4 {
            for i in 0..2 {
                for j in 0..3 {
                    b.extend(a(i, j, k).to_ne_bytes());
                }
            }
        }
        let out = c.decode(b, &repr).unwrap();
        let mut want = vec![];
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    want.extend(a(i, j, k).to_ne_bytes());
                }
            }
        }
        assert_eq!(out, want);
    }

    #[test]
    fn orders_must_be_permutations() {
        assert!(codec(json!([0, 0]), 2).is_err());
        assert!(codec(json!([0, 2]), 2).is_err());
        assert!(codec(json!([0]), 2).is_err());
        assert!(codec(json!("F"), 3).is_ok());
        let c = codec(json!([1, 0]), 2).unwrap();
        assert!(c
            .decode(
                vec![1, 2, 3],
                &ChunkRepr {
                    shape: vec![2, 2],
                    data_type: DataType::UInt8
                }
            )
            .is_err());
    }
}
