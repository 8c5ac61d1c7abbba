//! The `vlen-utf8` and `vlen-bytes` codecs (array-to-bytes) for variable-length strings and byte
//! strings, in numcodecs' layout: a little-endian u32 element count, then each element as a u32
//! byte length and its bytes. Decoding validates the layout (and UTF-8 for strings) and keeps it:
//! the array layer turns each element into an item of the result (see `variable::Items`).

use super::codec::{ArrayToBytesCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::Configuration;
use crate::data_type::variable::{element_count, item_ranges};
use crate::data_type::DataType;
use crate::error::CodecError;

/// `vlen-utf8` and `vlen-bytes` (the same names in v3 and as numcodecs ids).
pub const CODECS: &[CodecEntry] = &[
    CodecEntry {
        names: &["vlen-utf8"],
        kind: Kind::ArrayToBytes,
        build: |config, cx| {
            Ok(Codec::array_to_bytes(VlenCodec::from_configuration(
                config,
                cx.data_type,
                true,
            )?))
        },
    },
    CodecEntry {
        names: &["vlen-bytes"],
        kind: Kind::ArrayToBytes,
        build: |config, cx| {
            Ok(Codec::array_to_bytes(VlenCodec::from_configuration(
                config,
                cx.data_type,
                false,
            )?))
        },
    },
];

pub struct VlenCodec {
    name: &'static str,
    utf8: bool,
}

impl VlenCodec {
    pub fn from_configuration(
        _config: Configuration,
        data_type: DataType,
        utf8: bool,
    ) -> Result<VlenCodec, String> {
        let wanted = if utf8 {
            DataType::String
        } else {
            DataType::Bytes
        };
        if data_type != wanted {
            return Err(format!("encodes {wanted} data, not {data_type}"));
        }
        let name = if utf8 { "vlen-utf8" } else { "vlen-bytes" };
        Ok(VlenCodec { name, utf8 })
    }
}

impl ArrayToBytesCodec for VlenCodec {
    fn name(&self) -> &'static str {
        self.name
    }

    fn encoded_size(&self, _repr: &ChunkRepr) -> Option<usize> {
        None
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        self.checked(encoded, repr)
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    /// The array layer hands variable-length chunks over in this codec's layout already: what
    /// is stored is checked (the count, each length, UTF-8 for strings) and kept.
    #[cfg(feature = "write")]
    fn encode(&self, chunk: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        self.checked(chunk, repr)
    }
}

impl VlenCodec {
    /// `chunk` if it is in vlen layout with the elements of `repr`'s shape (valid UTF-8 for
    /// strings).
    fn checked(&self, chunk: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new(self.name, e);
        let n = element_count(&repr.shape)
            .ok_or_else(|| err("the chunk has too many elements".into()))?;
        let ranges = item_ranges(&chunk, n).map_err(err)?;
        if self.utf8 {
            for (i, r) in ranges.iter().enumerate() {
                if let Err(e) = std::str::from_utf8(&chunk[r.clone()]) {
                    return Err(err(format!("element {i} is not valid UTF-8 ({e})")));
                }
            }
        }
        Ok(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(items: &[&[u8]]) -> Vec<u8> {
        let mut out = (items.len() as u32).to_le_bytes().to_vec();
        for item in items {
            out.extend((item.len() as u32).to_le_bytes());
            out.extend(*item);
        }
        out
    }

    #[test]
    fn layouts_are_validated() {
        let chunk = encode(&[b"ab", b"", "é".as_bytes()]);
        assert_eq!(item_ranges(&chunk, 3).unwrap(), vec![8..10, 14..14, 18..20]);
        assert!(item_ranges(&chunk, 4)
            .unwrap_err()
            .contains("holds 3 elements"));
        assert!(item_ranges(&chunk[..chunk.len() - 1], 3)
            .unwrap_err()
            .contains("element 2"));
        let mut long = chunk.clone();
        long.push(0);
        assert!(item_ranges(&long, 3)
            .unwrap_err()
            .contains("1 bytes follow"));
        let mut huge = u32::MAX.to_le_bytes().to_vec();
        huge.extend([0; 8]);
        assert!(item_ranges(&huge, u32::MAX as usize)
            .unwrap_err()
            .contains("cannot fit"));
        let codec = VlenCodec::from_configuration(
            Configuration::new(&serde_json::Map::new()),
            DataType::String,
            true,
        )
        .unwrap();
        let repr = ChunkRepr {
            shape: vec![1],
            data_type: DataType::String,
        };
        let e = codec.decode(encode(&[&[0xff, 0xfe]]), &repr).unwrap_err();
        assert!(e.reason.contains("not valid UTF-8"), "{e}");
    }
}
