//! numcodecs' `Base64` (v2 id `base64`, v3 name `numcodecs.base64`): the bytes as standard base64
//! text (RFC 4648, padded).

use super::codec::{BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind};
use crate::data_type::fill_value::base64_decode;
use crate::error::CodecError;

/// numcodecs' `base64`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.base64"],
    kind: Kind::BytesToBytes,
    build: |_, _| Ok(Codec::bytes_to_bytes(Base64Codec)),
}];

pub struct Base64Codec;

impl BytesToBytesCodec for Base64Codec {
    fn name(&self) -> &'static str {
        "numcodecs.base64"
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.base64", e);
        // The decoded size follows from the text's: checked before anything is decoded.
        let text = encoded
            .strip_suffix(b"==")
            .or_else(|| encoded.strip_suffix(b"="))
            .unwrap_or(&encoded);
        let size = text.len() / 4 * 3 + (text.len() % 4).saturating_sub(1);
        decoded_size
            .check_declared("the base64 text", size)
            .map_err(err)?;
        let decoded = base64_decode(&encoded)
            .ok_or_else(|| err("the input is not standard base64 text".into()))?;
        Ok(decoded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_padded_base64_and_checks_the_size_first() {
        let decode =
            |s: &str, n: usize| Base64Codec.decode(s.as_bytes().to_vec(), DecodedSize::Exact(n));
        assert_eq!(decode("emFycg==", 4).unwrap(), b"zarr");
        assert_eq!(decode("emFy", 3).unwrap(), b"zar");
        assert_eq!(decode("", 0).unwrap(), b"");
        assert!(decode("emFycg==", 5).is_err());
        assert!(decode("em!ycg==", 4).is_err());
    }
}
