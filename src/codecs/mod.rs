//! Codecs and the pipeline that chains them. A chunk is decoded by running the bytes-to-bytes codecs
//! in reverse order, then the single array-to-bytes codec, which yields elements in native byte
//! order and C order of its (possibly permuted) shape, then the array-to-array codecs in reverse.

pub mod astype;
pub mod bitround;
pub mod blosc;
pub mod bytes;
pub mod categorize;
pub mod checksum32;
pub mod delta;
pub mod fixed_scale_offset;
pub mod gzip;
pub mod lz4;
pub mod numeric;
pub mod sharding;
pub mod shuffle;
pub mod transpose;
pub mod vlen;
pub mod zlib;
pub mod zstd;

use crate::data_type::fill_value::FillValue;
use crate::data_type::DataType;
use crate::error::{CodecError, Result, ZarrError};
use crate::limits::Limits;
use crate::metadata::extension::Extension;

/// What a chunk is in array form: its stored shape and element type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkRepr {
    pub shape: Vec<u64>,
    pub data_type: DataType,
}

impl ChunkRepr {
    /// Size in bytes of the decoded chunk, if it fits in memory at all.
    pub fn num_bytes(&self) -> Option<usize> {
        elements_size(&self.shape, self.data_type.size())
    }
}

/// Bytes taken by `shape` elements of `esize` bytes each, if that fits in a `usize`.
pub fn elements_size(shape: &[u64], esize: usize) -> Option<usize> {
    let n = shape
        .iter()
        .try_fold(esize as u64, |acc, &d| acc.checked_mul(d))?;
    usize::try_from(n).ok()
}

pub trait ArrayToArrayCodec {
    fn name(&self) -> &'static str;
    /// What a chunk of `decoded` becomes when encoded.
    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr;
    /// Decodes to a chunk of `decoded`, elements in C order.
    fn decode(&self, encoded: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError>;
    /// Whether decoding only moves elements (a transpose): then it applies as well to the
    /// handles that stand for variable-length elements.
    fn only_reorders(&self) -> bool {
        false
    }
}

pub trait ArrayToBytesCodec {
    fn name(&self) -> &'static str;
    /// The encoded size for a chunk of `repr`, where it is fixed.
    fn encoded_size(&self, repr: &ChunkRepr) -> Option<usize>;
    /// Decodes to the chunk's elements, native byte order, C order.
    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError>;
    /// Whether decoding a chunk of `repr` leaves the bytes as they are (elements stored in native
    /// byte order): then the bytes-to-bytes codecs may decode straight into the destination.
    fn keeps_bytes(&self, _repr: &ChunkRepr) -> bool {
        false
    }
    /// The sharding codec, which the array layer reads in parts (index, then inner chunks).
    fn as_sharding(&self) -> Option<&sharding::ShardingCodec> {
        None
    }
    /// Sets the cap on decoded sizes nothing fixes, for codecs with pipelines of their own.
    fn set_max_unknown_decoded(&mut self, _cap: usize) {}
}

pub trait BytesToBytesCodec {
    fn name(&self) -> &'static str;
    /// The encoded size given the decoded size, where it is fixed (e.g. a checksum adds 4 bytes).
    fn encoded_size(&self, _decoded_size: usize) -> Option<usize> {
        None
    }
    /// Decodes `encoded` to `decoded_size`: exactly, where the pipeline knows the size, else at
    /// most the cap; a decoder must not produce (or allocate for) more than that.
    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError>;
    /// Decodes `encoded` to exactly `out.len()` bytes, into `out` (the result's place, where a
    /// chunk lands there unchanged). Decoders that can write into a given buffer say so; the
    /// others decode as usual and their result is copied.
    fn decode_into(&self, encoded: Vec<u8>, out: &mut [u8]) -> Result<(), CodecError> {
        let decoded = self.decode(encoded, DecodedSize::Exact(out.len()))?;
        if decoded.len() != out.len() {
            let reason = format!("decoded to {} bytes, expected {}", decoded.len(), out.len());
            return Err(CodecError::new(self.name(), reason));
        }
        out.copy_from_slice(&decoded);
        Ok(())
    }
}

/// What a bytes-to-bytes decoder's output may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodedSize {
    /// Exactly this many bytes: the pipeline knows the chunk's size.
    Exact(usize),
    /// Nothing fixes the size (variable-length data): at most this many bytes.
    AtMost(usize),
}

impl DecodedSize {
    /// The exact size, where there is one.
    pub fn exact(self) -> Option<usize> {
        match self {
            DecodedSize::Exact(n) => Some(n),
            DecodedSize::AtMost(_) => None,
        }
    }

    /// The most bytes the output may have.
    pub fn limit(self) -> usize {
        match self {
            DecodedSize::Exact(n) | DecodedSize::AtMost(n) => n,
        }
    }

    /// Checks the decoded size a header (`what`) declares, before a decoder allocates for it.
    pub(crate) fn check_declared(self, what: &str, declared: usize) -> Result<(), String> {
        match self {
            DecodedSize::Exact(size) if size != declared => Err(format!(
                "{what} says {declared} decoded bytes, the chunk should have {size}"
            )),
            DecodedSize::AtMost(cap) if declared > cap => Err(format!(
                "{what} says {declared} decoded bytes, more than the {cap} a chunk of variable-length data may decode to (limits.maxDecodedChunkBytes)"
            )),
            _ => Ok(()),
        }
    }
}

/// `None` (no size known) is the default cap.
impl From<Option<usize>> for DecodedSize {
    fn from(size: Option<usize>) -> Self {
        size.map_or(
            DecodedSize::AtMost(Limits::default().max_decoded_chunk_bytes),
            DecodedSize::Exact,
        )
    }
}

pub struct CodecPipeline {
    /// For variable-length data, the leading codecs that only reorder elements: they apply to
    /// the elements' handles once the items are taken out (`restore_order`). In metadata
    /// (encoding) order, as are the others.
    element_order: Vec<Box<dyn ArrayToArrayCodec>>,
    array_to_array: Vec<Box<dyn ArrayToArrayCodec>>,
    array_to_bytes: Box<dyn ArrayToBytesCodec>,
    bytes_to_bytes: Vec<Box<dyn BytesToBytesCodec>>,
    /// The most bytes a bytes-to-bytes decoder may produce where nothing fixes the size.
    max_unknown_decoded: usize,
}

/// One codec of the list, built, by the kind of thing it transforms.
enum Built {
    ArrayToArray(Box<dyn ArrayToArrayCodec>),
    ArrayToBytes(Box<dyn ArrayToBytesCodec>),
    BytesToBytes(Box<dyn BytesToBytesCodec>),
}

/// Builds one codec from its metadata, or `None` when the name is not one this reader knows.
/// `numcodecs.*` are the names zarr-python gives numcodecs' codecs in v3 metadata.
fn build(
    codec: &Extension,
    data_type: DataType,
    fill_value: &FillValue,
    ndim: usize,
) -> Option<Result<Built, String>> {
    use checksum32::{Checksum, Checksum32Codec};
    let config = &codec.configuration;
    macro_rules! a2a {
        ($built:expr) => {
            $built.map(|c| Built::ArrayToArray(Box::new(c)))
        };
    }
    macro_rules! b2b {
        ($built:expr) => {
            $built.map(|c| Built::BytesToBytes(Box::new(c)))
        };
    }
    Some(match codec.registered_name() {
        "bytes" => bytes::BytesCodec::from_configuration(config, data_type)
            .map(|c| Built::ArrayToBytes(Box::new(c))),
        "sharding_indexed" => {
            sharding::ShardingCodec::from_configuration(config, data_type, fill_value, ndim)
                .map(|c| Built::ArrayToBytes(Box::new(c)))
        }
        "vlen-utf8" => vlen::VlenCodec::from_configuration(config, data_type, true)
            .map(|c| Built::ArrayToBytes(Box::new(c))),
        "vlen-bytes" => vlen::VlenCodec::from_configuration(config, data_type, false)
            .map(|c| Built::ArrayToBytes(Box::new(c))),
        "transpose" => a2a!(transpose::TransposeCodec::from_configuration(config, ndim)),
        "numcodecs.categorize" => a2a!(categorize::CategorizeCodec::from_configuration(
            config, data_type
        )),
        "gzip" | "numcodecs.gzip" => b2b!(gzip::GzipCodec::from_configuration(config)),
        "crc32c" => Ok(Built::BytesToBytes(Box::new(Checksum32Codec::crc32c()))),
        "blosc" | "numcodecs.blosc" => b2b!(blosc::BloscCodec::from_configuration(config)),
        "zstd" | "numcodecs.zstd" => b2b!(zstd::ZstdCodec::from_configuration(config)),
        "numcodecs.lz4" => b2b!(lz4::Lz4Codec::from_configuration(config)),
        "numcodecs.zlib" => b2b!(zlib::ZlibCodec::from_configuration(config)),
        "numcodecs.shuffle" => {
            b2b!(shuffle::ShuffleCodec::from_configuration(
                config,
                data_type.size()
            ))
        }
        "numcodecs.crc32" => b2b!(Checksum32Codec::from_configuration(config, Checksum::Crc32)),
        "numcodecs.crc32c" => b2b!(Checksum32Codec::from_configuration(
            config,
            Checksum::Crc32c
        )),
        "numcodecs.adler32" => {
            b2b!(Checksum32Codec::from_configuration(
                config,
                Checksum::Adler32
            ))
        }
        "numcodecs.delta" => a2a!(delta::DeltaCodec::from_configuration(config, data_type)),
        "numcodecs.fixedscaleoffset" => {
            a2a!(fixed_scale_offset::FixedScaleOffsetCodec::from_configuration(config, data_type))
        }
        "numcodecs.bitround" => a2a!(bitround::BitRoundCodec::from_configuration(
            config, data_type
        )),
        "numcodecs.quantize" => {
            a2a!(astype::AsTypeCodec::from_quantize_configuration(
                config, data_type
            ))
        }
        "numcodecs.astype" => a2a!(astype::AsTypeCodec::from_astype_configuration(
            config, data_type
        )),
        _ => return None,
    })
}

impl CodecPipeline {
    /// Builds the pipeline from the `codecs` list of an array of `data_type` with `ndim` dimensions.
    /// `location` names the metadata document in errors.
    pub fn from_v3(
        codecs: &[Extension],
        data_type: DataType,
        fill_value: &FillValue,
        ndim: usize,
        location: &str,
    ) -> Result<CodecPipeline> {
        let mut element_order = Vec::new();
        let mut array_to_array = Vec::new();
        let mut array_to_bytes: Option<Box<dyn ArrayToBytesCodec>> = None;
        let mut bytes_to_bytes = Vec::new();
        // Each codec is built for what reaches it: an array-to-array codec may change the type.
        let mut reaching = data_type;
        for codec in codecs {
            let invalid = |reason: String| {
                ZarrError::metadata(location, format!("codec \"{}\": {reason}", codec.name))
            };
            let built = match build(codec, reaching, fill_value, ndim) {
                Some(built) => built.map_err(invalid)?,
                // The spec lets readers ignore what is marked `must_understand: false`.
                None if !codec.must_understand => continue,
                None => {
                    return Err(ZarrError::unsupported(
                        location,
                        format!("codec \"{}\"", codec.name),
                    ))
                }
            };
            match (built, array_to_bytes.is_some()) {
                // Variable-length elements are reordered as handles; every other codec that
                // accepted the data type (categorize) produces them.
                (Built::ArrayToArray(c), false)
                    if data_type.is_variable()
                        && c.only_reorders()
                        && array_to_array.is_empty() =>
                {
                    element_order.push(c)
                }
                (Built::ArrayToArray(c), false) => {
                    let repr = ChunkRepr {
                        shape: vec![1; ndim],
                        data_type: reaching,
                    };
                    reaching = c.encoded_repr(&repr).data_type;
                    array_to_array.push(c)
                }
                (Built::ArrayToBytes(c), false) => array_to_bytes = Some(c),
                (Built::BytesToBytes(c), true) => bytes_to_bytes.push(c),
                (Built::ArrayToArray(_) | Built::ArrayToBytes(_), true) => {
                    return Err(invalid(
                        "comes after the array-to-bytes codec; array codecs must come first".into(),
                    ))
                }
                (Built::BytesToBytes(_), false) => {
                    return Err(invalid(
                        "a bytes-to-bytes codec comes before the array-to-bytes codec".into(),
                    ))
                }
            }
        }
        let array_to_bytes = array_to_bytes.ok_or_else(|| {
            ZarrError::metadata(
                location,
                "codecs has no array-to-bytes codec (such as \"bytes\")",
            )
        })?;
        Ok(CodecPipeline {
            element_order,
            array_to_array,
            array_to_bytes,
            bytes_to_bytes,
            max_unknown_decoded: default_unknown_decoded_limit(),
        })
    }

    /// Caps the decoded size of chunks whose size nothing fixes (variable-length data), here and
    /// in the pipelines of codecs inside this one (a shard's inner chunks).
    pub fn set_max_unknown_decoded(&mut self, cap: usize) {
        self.max_unknown_decoded = cap;
        self.array_to_bytes.set_max_unknown_decoded(cap);
    }

    /// What a chunk of `repr` is before each array-to-array codec, and (last) what reaches the
    /// array-to-bytes codec.
    fn reprs(&self, repr: &ChunkRepr) -> Vec<ChunkRepr> {
        let reordered = chain(&self.element_order, repr.clone()).pop();
        chain(
            &self.array_to_array,
            reordered.unwrap_or_else(|| repr.clone()),
        )
    }

    /// Sizes before each bytes-to-bytes codec (where fixed), and the final encoded size.
    fn sizes(&self, array_repr: &ChunkRepr) -> (Vec<Option<usize>>, Option<usize>) {
        let mut sizes = Vec::with_capacity(self.bytes_to_bytes.len());
        let mut size = self.array_to_bytes.encoded_size(array_repr);
        for codec in &self.bytes_to_bytes {
            sizes.push(size);
            size = size.and_then(|s| codec.encoded_size(s));
        }
        (sizes, size)
    }

    /// The encoded size of a chunk of `repr`, where every codec makes it fixed.
    pub fn fixed_encoded_size(&self, repr: &ChunkRepr) -> Option<usize> {
        let reprs = self.reprs(repr);
        self.sizes(reprs.last()?).1
    }

    /// Whether variable-length elements are reordered after decoding (see `restore_order`).
    pub fn reorders_elements(&self) -> bool {
        !self.element_order.is_empty()
    }

    /// The sharding codec, when it is the whole pipeline (the usual form of a sharded array).
    pub fn sharding(&self) -> Option<&sharding::ShardingCodec> {
        if self.array_to_array.is_empty()
            && self.element_order.is_empty()
            && self.bytes_to_bytes.is_empty()
        {
            self.array_to_bytes.as_sharding()
        } else {
            None
        }
    }

    /// Puts the handles of a variable-length chunk of `repr`, taken out in stored order, into
    /// C order (see `element_order`).
    pub fn restore_order(&self, handles: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let reprs = chain(&self.element_order, repr.clone());
        decode_array_to_array(&self.element_order, handles, reprs)
    }

    /// Decodes one stored chunk of `repr` to its elements (native byte order, C order); for
    /// variable-length data, to the items in stored order (see `restore_order`).
    pub fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        crate::host::timing::timed(crate::host::timing::Phase::Decode, || {
            self.decode_now(encoded, repr)
        })
    }

    /// Whether a chunk of `repr` decodes to its stored bytes' final form without any array codec
    /// or reordering, so that `decode_into` may write it straight into the result.
    pub fn decodes_in_place(&self, repr: &ChunkRepr) -> bool {
        self.element_order.is_empty()
            && self.array_to_array.is_empty()
            && !repr.data_type.is_variable()
            && self.array_to_bytes.keeps_bytes(repr)
    }

    /// Whether a chunk of `repr` is stored as its elements, uncompressed: decoding it hands back
    /// the stored bytes themselves, without a copy.
    pub fn stores_elements(&self, repr: &ChunkRepr) -> bool {
        self.bytes_to_bytes.is_empty() && self.decodes_in_place(repr)
    }

    /// Decodes one stored chunk of `repr` into `out`, which must be its exact size, for a pipeline
    /// that `decodes_in_place`: the first bytes-to-bytes codec (the last to decode) writes
    /// straight into `out`, saving the copy from a chunk buffer into the result.
    pub fn decode_into(
        &self,
        encoded: Vec<u8>,
        repr: &ChunkRepr,
        out: &mut [u8],
    ) -> Result<(), CodecError> {
        crate::host::timing::timed(crate::host::timing::Phase::Decode, || {
            let Some((first, rest)) = self.bytes_to_bytes.split_first() else {
                // Stored as is: the bytes codec checks the length.
                let elements = self.array_to_bytes.decode(encoded, repr)?;
                if elements.len() != out.len() {
                    let reason =
                        format!("chunk has {} bytes, expected {}", elements.len(), out.len());
                    return Err(CodecError::new(self.array_to_bytes.name(), reason));
                }
                out.copy_from_slice(&elements);
                return Ok(());
            };
            let (sizes, _) = self.sizes(repr);
            let bytes = self.decode_bytes(rest, &sizes[1..], encoded)?;
            first.decode_into(bytes, out)
        })
    }

    fn decode_now(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let mut reprs = self.reprs(repr);
        let array_repr = reprs.pop().unwrap_or_else(|| repr.clone());
        // Decoders are held to the sizes where they are fixed.
        let (sizes, _) = self.sizes(&array_repr);
        let bytes = self.decode_bytes(&self.bytes_to_bytes, &sizes, encoded)?;
        let elements = self.array_to_bytes.decode(bytes, &array_repr)?;
        decode_array_to_array(&self.array_to_array, elements, reprs)
    }

    /// Runs bytes-to-bytes `codecs` backwards over `encoded`, each held to its decoded size in
    /// `sizes` where that is fixed, else to the cap.
    fn decode_bytes(
        &self,
        codecs: &[Box<dyn BytesToBytesCodec>],
        sizes: &[Option<usize>],
        encoded: Vec<u8>,
    ) -> Result<Vec<u8>, CodecError> {
        let mut bytes = encoded;
        for (codec, decoded_size) in codecs.iter().zip(sizes).rev() {
            let size = decoded_size.map_or(
                DecodedSize::AtMost(self.max_unknown_decoded),
                DecodedSize::Exact,
            );
            bytes = codec
                .decode(bytes, size)
                .map_err(|e| at_most_note(e, size))?;
        }
        Ok(bytes)
    }
}

/// A decoder's failure at the cap on sizes nothing fixes says which limit that is and how to
/// raise it (the decoder itself only knows a number).
fn at_most_note(mut err: CodecError, size: DecodedSize) -> CodecError {
    if let DecodedSize::AtMost(cap) = size {
        if err.reason.contains(&cap.to_string()) && !err.reason.contains("maxDecodedChunkBytes") {
            err.reason.push_str(" (the cap on chunks whose decoded size nothing fixes: raise limits.maxDecodedChunkBytes in open() to read more)");
        }
    }
    err
}

/// What a chunk of `repr` is before each of `codecs`, and (last) after them all.
fn chain(codecs: &[Box<dyn ArrayToArrayCodec>], repr: ChunkRepr) -> Vec<ChunkRepr> {
    let mut reprs = vec![repr];
    for codec in codecs {
        let next = reprs.last().map(|r| codec.encoded_repr(r));
        reprs.extend(next);
    }
    reprs
}

/// Runs `codecs` backwards over `elements`; `reprs` is what each codec decodes to (`chain`'s
/// list; a last entry beyond the codecs is not used).
fn decode_array_to_array(
    codecs: &[Box<dyn ArrayToArrayCodec>],
    mut elements: Vec<u8>,
    reprs: Vec<ChunkRepr>,
) -> Result<Vec<u8>, CodecError> {
    for (codec, decoded) in codecs.iter().zip(reprs).rev() {
        elements = codec.decode(elements, &decoded)?;
    }
    Ok(elements)
}

/// The cap on decoded sizes nothing fixes where no pipeline says otherwise (the limits' default).
pub(crate) fn default_unknown_decoded_limit() -> usize {
    Limits::default().max_decoded_chunk_bytes
}
