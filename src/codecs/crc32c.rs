//! The `crc32c` codec: the data followed by its CRC-32C (Castagnoli), 4 bytes little endian.

use super::BytesToBytesCodec;
use crate::error::CodecError;

pub struct Crc32cCodec;

impl BytesToBytesCodec for Crc32cCodec {
    fn name(&self) -> &'static str {
        "crc32c"
    }

    fn encoded_size(&self, decoded_size: usize) -> Option<usize> {
        decoded_size.checked_add(4)
    }

    fn decode(
        &self,
        mut encoded: Vec<u8>,
        _decoded_size: Option<usize>,
    ) -> Result<Vec<u8>, CodecError> {
        let n = encoded.len().checked_sub(4).ok_or_else(|| {
            CodecError::new(
                "crc32c",
                format!("{} bytes are too few to hold a checksum", encoded.len()),
            )
        })?;
        let stored =
            u32::from_le_bytes([encoded[n], encoded[n + 1], encoded[n + 2], encoded[n + 3]]);
        let actual = crc32c::crc32c(&encoded[..n]);
        if stored != actual {
            return Err(CodecError::new(
                "crc32c",
                format!("checksum mismatch: stored {stored:08x}, data has {actual:08x}"),
            ));
        }
        encoded.truncate(n);
        Ok(encoded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_and_strips_the_checksum() {
        let data = b"123456789".to_vec();
        // The CRC-32C check value of "123456789" (RFC 3720).
        assert_eq!(crc32c::crc32c(&data), 0xe306_9283);
        let encoded = [data.clone(), 0xe306_9283u32.to_le_bytes().to_vec()].concat();
        assert_eq!(Crc32cCodec.decode(encoded.clone(), None).unwrap(), data);
        let mut bad = encoded;
        bad[0] ^= 1;
        assert!(Crc32cCodec
            .decode(bad, None)
            .unwrap_err()
            .reason
            .contains("mismatch"));
        assert!(Crc32cCodec.decode(vec![1, 2], None).is_err());
    }
}
