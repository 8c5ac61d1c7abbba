//! The `bytes` codec: elements laid out in C order with a declared byte order.

use super::codec::{ArrayToBytesCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::Configuration;
use crate::data_type::DataType;
use crate::error::CodecError;

/// `bytes`: elements in a given byte order.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["bytes"],
    kind: Kind::ArrayToBytes,
    build: |config, cx| {
        Ok(Codec::array_to_bytes(BytesCodec::from_configuration(
            config,
            cx.data_type,
        )?))
    },
}];

pub use crate::data_type::Endian;

pub struct BytesCodec {
    /// `None` only for one-byte types, where order does not matter.
    endian: Option<Endian>,
}

impl BytesCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<BytesCodec, String> {
        if data_type.is_variable() {
            return Err(format!(
                "cannot encode {data_type} data (its codec is vlen-utf8 or vlen-bytes)"
            ));
        }
        config.only(&["endian"])?;
        // Left out, the order is little endian for multi-byte types: zarr-python (the system's
        // order) and zarrita read it so. One-byte types have none.
        let endian = match data_type.byte_order_unit() {
            Some(_) => Some(
                config
                    .optional::<Endian>("endian")?
                    .unwrap_or(Endian::Little),
            ),
            None => config.optional::<Endian>("endian")?,
        };
        Ok(BytesCodec { endian })
    }
}

impl ArrayToBytesCodec for BytesCodec {
    fn name(&self) -> &'static str {
        "bytes"
    }

    fn encoded_size(&self, repr: &ChunkRepr) -> Option<usize> {
        repr.num_bytes()
    }

    fn keeps_bytes(&self, repr: &ChunkRepr) -> bool {
        repr.data_type.byte_order_unit().is_none()
            || !matches!(self.endian, Some(e) if e != Endian::NATIVE)
    }

    fn decode(&self, mut encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let expected = repr.num_bytes().ok_or_else(|| {
            CodecError::new(
                "bytes",
                format!("chunk shape {:?} is too large", repr.shape),
            )
        })?;
        if encoded.len() != expected {
            return Err(CodecError::new(
                "bytes",
                format!(
                    "chunk has {} bytes, expected {expected} for shape {:?} of {}",
                    encoded.len(),
                    repr.shape,
                    repr.data_type
                ),
            ));
        }
        self.swap(&mut encoded, repr);
        Ok(encoded)
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    #[cfg(feature = "write")]
    fn encode(&self, mut chunk: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        if Some(chunk.len()) != repr.num_bytes() {
            return Err(CodecError::new(
                "bytes",
                format!(
                    "{} bytes to encode, not the {:?} of shape {:?} of {}",
                    chunk.len(),
                    repr.num_bytes(),
                    repr.shape,
                    repr.data_type
                ),
            ));
        }
        self.swap(&mut chunk, repr);
        Ok(chunk)
    }
}

impl BytesCodec {
    /// Puts the elements of `data` in (or out of) the declared byte order: a swap is its own
    /// inverse.
    fn swap(&self, data: &mut [u8], repr: &ChunkRepr) {
        if let Some(unit) = repr.data_type.byte_order_unit() {
            if self.endian.is_some_and(|e| e != Endian::NATIVE) {
                for value in data.chunks_exact_mut(unit) {
                    value.reverse();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map, Value};

    fn config(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn big_endian_is_swapped_and_sizes_are_checked() {
        let codec = BytesCodec::from_configuration(
            Configuration::new(&config(json!({"endian": "big"}))),
            DataType::UInt16,
        )
        .unwrap();
        let repr = ChunkRepr {
            shape: vec![2],
            data_type: DataType::UInt16,
        };
        let out = codec.decode(vec![0x01, 0x02, 0x03, 0x04], &repr).unwrap();
        assert_eq!(
            out,
            [0x0102u16.to_ne_bytes(), 0x0304u16.to_ne_bytes()].concat()
        );
        let err = codec.decode(vec![1, 2, 3], &repr).unwrap_err();
        assert!(err.reason.contains("3 bytes, expected 4"), "{}", err.reason);
    }

    #[test]
    fn endian_is_optional_only_for_single_bytes() {
        assert!(
            BytesCodec::from_configuration(Configuration::new(&Map::new()), DataType::UInt8)
                .is_ok()
        );
        assert!(
            BytesCodec::from_configuration(Configuration::new(&Map::new()), DataType::Int32)
                .is_ok()
        );
        assert!(BytesCodec::from_configuration(
            Configuration::new(&config(json!({"endian": "middle"}))),
            DataType::Int32
        )
        .is_err());
    }
}
