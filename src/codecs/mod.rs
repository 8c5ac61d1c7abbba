//! Codecs and the pipeline that chains them. A chunk is decoded by running the bytes-to-bytes codecs
//! in reverse order, then the single array-to-bytes codec, which yields the chunk's elements in
//! native byte order and C order.

pub mod bytes;
pub mod gzip;
mod inflate;

use crate::data_type::DataType;
use crate::error::{CodecError, Result, ZarrError};
use crate::metadata::extension::Extension;

/// What a chunk is in array form: its stored shape and element type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkRepr {
    pub shape: Vec<u64>,
    pub data_type: DataType,
}

impl ChunkRepr {
    pub fn num_elements(&self) -> Option<u64> {
        self.shape.iter().try_fold(1u64, |acc, &n| acc.checked_mul(n))
    }

    /// Size in bytes of the decoded chunk, if it fits in memory at all.
    pub fn num_bytes(&self) -> Option<usize> {
        let n = self.num_elements()?.checked_mul(self.data_type.size() as u64)?;
        usize::try_from(n).ok()
    }
}

pub trait ArrayToBytesCodec {
    fn name(&self) -> &'static str;
    /// The encoded size for a chunk of `repr`, where it is fixed.
    fn encoded_size(&self, repr: &ChunkRepr) -> Option<usize>;
    /// Decodes to the chunk's elements, native byte order, C order.
    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError>;
}

pub trait BytesToBytesCodec {
    fn name(&self) -> &'static str;
    /// The encoded size given the decoded size, where it is fixed (e.g. a checksum adds 4 bytes).
    fn encoded_size(&self, _decoded_size: usize) -> Option<usize> {
        None
    }
    /// Decodes `encoded`. `decoded_size` is the exact size the output must have, where the pipeline
    /// knows it; a decoder must not produce (or allocate for) more than that.
    fn decode(&self, encoded: Vec<u8>, decoded_size: Option<usize>) -> Result<Vec<u8>, CodecError>;
}

pub struct CodecPipeline {
    array_to_bytes: Box<dyn ArrayToBytesCodec>,
    /// In metadata (encoding) order.
    bytes_to_bytes: Vec<Box<dyn BytesToBytesCodec>>,
}

/// Largest decoded chunk when nothing says its size: beyond this a chunk is treated as hostile.
const MAX_UNKNOWN_DECODED_SIZE: usize = 1 << 30;

impl CodecPipeline {
    /// Builds the pipeline from the `codecs` list of an array whose elements are `data_type`.
    /// `location` names the metadata document in errors.
    pub fn from_v3(codecs: &[Extension], data_type: DataType, location: &str) -> Result<CodecPipeline> {
        let mut array_to_bytes: Option<Box<dyn ArrayToBytesCodec>> = None;
        let mut bytes_to_bytes: Vec<Box<dyn BytesToBytesCodec>> = Vec::new();
        for codec in codecs {
            let invalid = |reason: String| ZarrError::metadata(location, format!("codec {}: {reason}", codec.name));
            match codec.name.as_str() {
                "bytes" => {
                    if array_to_bytes.is_some() {
                        return Err(invalid("more than one array-to-bytes codec".into()));
                    }
                    array_to_bytes = Some(Box::new(bytes::BytesCodec::from_configuration(&codec.configuration, data_type).map_err(invalid)?));
                }
                "gzip" => {
                    if array_to_bytes.is_none() {
                        return Err(invalid("a bytes-to-bytes codec comes before the array-to-bytes codec".into()));
                    }
                    bytes_to_bytes.push(Box::new(gzip::GzipCodec::from_configuration(&codec.configuration).map_err(invalid)?));
                }
                other => {
                    return Err(ZarrError::unsupported(location, format!("unsupported codec \"{other}\"")));
                }
            }
        }
        let array_to_bytes = array_to_bytes
            .ok_or_else(|| ZarrError::metadata(location, "codecs has no array-to-bytes codec (such as \"bytes\")"))?;
        Ok(CodecPipeline { array_to_bytes, bytes_to_bytes })
    }

    /// Decodes one stored chunk of `repr` to its elements (native byte order, C order).
    pub fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        // Sizes before each bytes-to-bytes codec, where fixed, so that decoders can be held to them.
        let mut sizes = Vec::with_capacity(self.bytes_to_bytes.len());
        let mut size = self.array_to_bytes.encoded_size(repr);
        for codec in &self.bytes_to_bytes {
            sizes.push(size);
            size = size.and_then(|s| codec.encoded_size(s));
        }
        let mut bytes = encoded;
        for (codec, decoded_size) in self.bytes_to_bytes.iter().zip(sizes).rev() {
            bytes = codec.decode(bytes, decoded_size)?;
        }
        self.array_to_bytes.decode(bytes, repr)
    }
}

/// The output bound for a decoder: the exact size where known, else a cap.
pub(crate) fn decoded_size_limit(decoded_size: Option<usize>) -> usize {
    decoded_size.unwrap_or(MAX_UNKNOWN_DECODED_SIZE)
}
