//! What a codec is: the three kinds of codec (array to array, array to bytes, bytes to bytes) as
//! traits, what a chunk is as it passes through them, decoders that work in steps, the decoder of
//! chunks that can be read in parts, and the table entry by which each codec file makes itself
//! known (see `table.rs`).

use super::configuration::Configuration;
use crate::collections::buffer::{in_one_go, try_zeroed, Output};
use crate::data_type::fill_value::FillValue;
use crate::data_type::DataType;
use crate::error::CodecError;
use crate::limits::Limits;
use crate::metadata::extension::Extension;
use futures_util::future::{FutureExt, LocalBoxFuture};
use std::ops::Range;

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
    /// Where decoding a box of the encoded chunk gives the matching box of the decoded chunk, the
    /// order of the encoded axes: encoded axis `i` is decoded axis `order[i]` (the identity for
    /// codecs that act element by element). A shard stored behind such codecs is still read
    /// inner chunk by inner chunk (`shards_behind.rs`). `None` where decoding needs the whole
    /// chunk, as delta's running sum does.
    fn box_order(&self, _ndim: usize) -> Option<Vec<usize>> {
        None
    }
    /// How many axes the encoded chunk has, for `input_ndim` decoded axes (`reshape` changes it).
    fn output_ndim(&self, input_ndim: usize) -> usize {
        input_ndim
    }
    /// The fill value of encoded chunks of `encoded` type, given the fill value `fill` of decoded
    /// chunks of `decoded` type: what the codecs after this one fill missing parts with (a shard's missing
    /// inner chunks). The registry's codecs say that it is transformed as the elements are.
    fn encoded_fill(
        &self,
        fill: &FillValue,
        decoded: DataType,
        encoded: DataType,
    ) -> Result<FillValue, String> {
        if encoded == decoded {
            return Ok(fill.clone());
        }
        // Codecs that change the type say how the fill value converts; zeros of the right
        // size otherwise, rather than elements of the wrong one.
        Ok(FillValue::from_native_bytes(vec![0; encoded.size()]))
    }
    /// Whether a chunk of `decoded` can be encoded at all (a `reshape` may fit some chunk shapes
    /// and not others); checked before a chunk decodes.
    fn check(&self, _decoded: &ChunkRepr) -> Result<(), String> {
        Ok(())
    }
    /// Whether this codec can encode (see `encode`).
    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        false
    }
    /// Encodes a chunk of `decoded` (elements in native byte order, C order) to a chunk of
    /// `encoded_repr(decoded)`. Codecs without an encoder say so, naming themselves.
    #[cfg(feature = "write")]
    fn encode(&self, _chunk: Vec<u8>, _decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        Err(no_encoder(self.name()))
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
    /// A decoder of `encoded` to the elements of a chunk of `repr` (its exact size) that works
    /// in bounded steps (see `StepDecoder`), for codecs whose decoding of a large chunk takes long
    /// (the second module's pcodec and ZFP): a read then lets the event loop run between steps.
    /// The others give `encoded` back, and decode in one go.
    fn stepwise(
        &self,
        encoded: Vec<u8>,
        _repr: &ChunkRepr,
    ) -> Result<Box<dyn StepDecoder + '_>, Vec<u8>> {
        Err(encoded)
    }
    /// Where a stored chunk can be read in parts (sharding): the decoder of those parts.
    fn partial_decoder(&self) -> Option<&dyn PartialDecoder> {
        None
    }
    /// Where a stored chunk can be written in parts (sharding): the encoder of those parts.
    #[cfg(feature = "write")]
    fn partial_encoder(&self) -> Option<&dyn PartialEncoder> {
        None
    }
    /// Sets the cap on decoded sizes nothing fixes, for codecs with pipelines of their own.
    fn set_max_unknown_decoded(&mut self, _cap: usize) {}
    /// Whether this codec can encode (see `encode`).
    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        false
    }
    /// Encodes a chunk of `repr` (elements in native byte order, C order) to bytes.
    #[cfg(feature = "write")]
    fn encode(&self, _chunk: Vec<u8>, _repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        Err(no_encoder(self.name()))
    }
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
    /// Caps the sizes nothing fixes inside this codec (codecs holding codecs: conditional).
    fn set_max_unknown_decoded(&mut self, _cap: usize) {}
    /// Whether this codec can encode (see `encode`).
    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        false
    }
    /// Encodes `decoded` bytes.
    #[cfg(feature = "write")]
    fn encode(&self, _decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        Err(no_encoder(self.name()))
    }
    /// An encoder of `decoded` that works in bounded steps (see `StepEncoder`), for codecs whose
    /// encoding of a large chunk takes long (the compressors): a write then lets the event loop
    /// run between steps. The others give `decoded` back, and encode in one go. The steps make
    /// what `encode` makes, or bytes that decode the same.
    #[cfg(feature = "write")]
    fn encode_stepwise(&self, decoded: Vec<u8>) -> Result<Box<dyn StepEncoder + '_>, Vec<u8>> {
        Err(decoded)
    }
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
    /// A decoder of `encoded` to `decoded_size` that works in bounded steps (see `StepDecoder`),
    /// for codecs whose decoding of a large chunk takes long (the decompressors): a read then lets
    /// the event loop run between steps. The others give `encoded` back, and decode in one go.
    fn stepwise(
        &self,
        encoded: Vec<u8>,
        _decoded_size: DecodedSize,
    ) -> Result<Box<dyn StepDecoder + '_>, Vec<u8>> {
        Err(encoded)
    }
}

/// The encoder of a chunk stored in parts (a shard): its inner chunks encoded one by one, and the
/// stored chunk assembled from them with its index. A write into part of a shard keeps the
/// encoded inner chunks it does not touch as they are.
#[cfg(feature = "write")]
pub trait PartialEncoder {
    /// An inner chunk encoded: elements in native byte order, C order, or for variable-length
    /// data its items in vlen layout, C order. (Whether an inner chunk of nothing but the fill
    /// value is stored at all is the writer's choice: `assemble` leaves out those it is not given.)
    fn encode_inner(&self, chunk: Vec<u8>) -> Result<Vec<u8>, CodecError>;
    /// `encode_inner`, a large inner chunk compressed in steps with turns of the event loop
    /// between them, stopped there once `cancelled` says so (see `CodecPipeline::encode_async`).
    fn encode_inner_async<'a>(
        &'a self,
        chunk: Vec<u8>,
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>, Stopped>> {
        let _ = cancelled;
        let encoded = self.encode_inner(chunk).map_err(Stopped::Failed);
        Box::pin(std::future::ready(encoded))
    }
    /// The stored shard of `cps` inner chunks per dimension: `inner` holds each inner chunk's
    /// encoded bytes in C order of the inner grid (None: absent), followed or preceded by the
    /// encoded index. None where every inner chunk is absent (the shard is not stored).
    fn assemble(
        &self,
        inner: &[Option<Vec<u8>>],
        cps: &[u64],
    ) -> Result<Option<Vec<u8>>, CodecError>;
}

/// An encode in progress that works in bounded steps, so that a long one lets the event loop run
/// between them, and is dropped there when its write is aborted.
#[cfg(feature = "write")]
pub trait StepEncoder {
    /// Encodes about `budget` more bytes of the input (formats of blocks go a block at a time):
    /// the encoded bytes once the whole input is encoded, `None` while there is more to do. A
    /// step that fails ends the encode.
    fn step(&mut self, budget: usize) -> Result<Option<Vec<u8>>, CodecError>;
}

/// The error of a codec that cannot encode.
#[cfg(feature = "write")]
pub fn no_encoder(name: &'static str) -> CodecError {
    CodecError::new(name, "zarr-wasm has no encoder for this codec")
}

/// A decode in progress that works in bounded steps, so that a long one can let the event loop
/// run between them, and be dropped there when its read is aborted.
pub trait StepDecoder {
    /// Decodes about `budget` more bytes of output into `out`, always some: the output's final
    /// length once the decode is complete, `None` while there is more to do. Formats of blocks or
    /// frames go a whole block or frame at a time, which may take a step past the budget (zstd,
    /// faster than the others, takes frames of up to four budgets whole). `out` is the same
    /// output at every step. A step that fails ends the decode.
    fn step(&mut self, out: &mut Output<'_>, budget: usize) -> Result<Option<usize>, CodecError>;
}

/// `codec`'s decoder in steps of `encoded`, or for a codec without one, a decoder that does the
/// whole decode in its one step.
pub(crate) fn steps<'a>(
    codec: &'a dyn BytesToBytesCodec,
    encoded: Vec<u8>,
    decoded_size: DecodedSize,
) -> Box<dyn StepDecoder + 'a> {
    codec
        .stepwise(encoded, decoded_size)
        .unwrap_or_else(|encoded| {
            Box::new(InOneStep {
                codec,
                encoded,
                decoded_size,
            })
        })
}

/// The decoder in steps of a codec that has none: `decode_into` where the output is the caller's
/// buffer, else `decode`.
struct InOneStep<'a> {
    codec: &'a dyn BytesToBytesCodec,
    encoded: Vec<u8>,
    decoded_size: DecodedSize,
}

impl StepDecoder for InOneStep<'_> {
    fn step(&mut self, out: &mut Output<'_>, _budget: usize) -> Result<Option<usize>, CodecError> {
        let encoded = std::mem::take(&mut self.encoded);
        match out {
            Output::Fixed(out) => {
                self.codec.decode_into(encoded, out)?;
                Ok(Some(out.len()))
            }
            Output::Growing(out) => {
                **out = self.codec.decode(encoded, self.decoded_size)?;
                Ok(Some(out.len()))
            }
        }
    }
}

/// The buffer a decode to `size` writes into: zeroed, of the exact size where that is known
/// (`Output::Fixed`), else empty, grown by the decoder (`Output::Growing`; see `output`).
pub(crate) fn output_buffer(codec: &'static str, size: DecodedSize) -> Result<Vec<u8>, CodecError> {
    try_zeroed(size.exact().unwrap_or(0)).map_err(|e| CodecError::new(codec, e))
}

/// The output over `buffer` (from `output_buffer`) for a decode to `size`.
pub(crate) fn output(buffer: &mut Vec<u8>, size: DecodedSize) -> Output<'_> {
    match size {
        DecodedSize::Exact(_) => Output::Fixed(buffer),
        DecodedSize::AtMost(_) => Output::Growing(buffer),
    }
}

/// The one-shot decode of a codec that decodes in steps: `decoder` run to its end in one go, into
/// a new buffer (see `output_buffer`).
pub fn decode_whole(
    codec: &'static str,
    mut decoder: impl StepDecoder,
    size: DecodedSize,
) -> Result<Vec<u8>, CodecError> {
    let mut buffer = output_buffer(codec, size)?;
    let len = finish(&mut decoder, &mut output(&mut buffer, size))?;
    size.check_len(codec, len)?;
    buffer.truncate(len);
    Ok(buffer)
}

/// `decode_whole` into `out`, the decode's exact size.
pub fn decode_whole_into(
    codec: &'static str,
    mut decoder: impl StepDecoder,
    out: &mut [u8],
) -> Result<(), CodecError> {
    let size = DecodedSize::Exact(out.len());
    let len = finish(&mut decoder, &mut Output::Fixed(out))?;
    size.check_len(codec, len)
}

/// Runs `decoder` to its end in one go.
fn finish(decoder: &mut dyn StepDecoder, out: &mut Output<'_>) -> Result<usize, CodecError> {
    in_one_go(|budget| decoder.step(out, budget))
}

/// Why a decode that lets the event loop run between its steps did not finish.
#[derive(Debug)]
pub enum Stopped<E = CodecError> {
    /// The caller's cancellation check said so between two steps: its read was aborted.
    Cancelled,
    Failed(E),
}

impl<E> From<E> for Stopped<E> {
    fn from(err: E) -> Self {
        Stopped::Failed(err)
    }
}

impl<E> Stopped<E> {
    /// The failure, if any, made another error.
    pub fn map<F>(self, f: impl FnOnce(E) -> F) -> Stopped<F> {
        match self {
            Stopped::Cancelled => Stopped::Cancelled,
            Stopped::Failed(err) => Stopped::Failed(f(err)),
        }
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

    /// Checks that a decoder's output of `len` bytes has the size the pipeline expects.
    pub fn check_len(self, codec: &'static str, len: usize) -> Result<(), CodecError> {
        match self {
            DecodedSize::Exact(n) if n != len => Err(CodecError::new(
                codec,
                format!("decoded to {len} bytes, expected {n}"),
            )),
            DecodedSize::AtMost(cap) if len > cap => Err(CodecError::new(
                codec,
                format!("decoded to {len} bytes, more than the {cap} allowed"),
            )),
            _ => Ok(()),
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
            DecodedSize::AtMost(default_unknown_decoded_limit()),
            DecodedSize::Exact,
        )
    }
}

/// A codec, built, by the kind of thing it transforms.
pub enum Codec {
    ArrayToArray(Box<dyn ArrayToArrayCodec>),
    ArrayToBytes(Box<dyn ArrayToBytesCodec>),
    BytesToBytes(Box<dyn BytesToBytesCodec>),
}

impl Codec {
    pub fn array_to_array(codec: impl ArrayToArrayCodec + 'static) -> Codec {
        Codec::ArrayToArray(Box::new(codec))
    }

    pub fn array_to_bytes(codec: impl ArrayToBytesCodec + 'static) -> Codec {
        Codec::ArrayToBytes(Box::new(codec))
    }

    pub fn bytes_to_bytes(codec: impl BytesToBytesCodec + 'static) -> Codec {
        Codec::BytesToBytes(Box::new(codec))
    }
}

/// A codec file's entry in the codec table: its names and how it is built.
pub struct CodecEntry {
    /// Its names in v3 metadata: the registered name, and `numcodecs.<id>` where zarr-python
    /// writes numcodecs' codec of id `<id>` (a v2 filter or compressor of that id is read as
    /// this codec too).
    pub names: &'static [&'static str],
    /// What it transforms (a v2 filter's kind says where it goes in the equivalent v3 list).
    pub kind: Kind,
    /// Builds the codec from its metadata's configuration, or says what is wrong with it.
    pub build: fn(Configuration, &BuildContext) -> Result<Codec, String>,
}

/// The kinds of codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    ArrayToArray,
    ArrayToBytes,
    BytesToBytes,
}

/// What a codec is built for: the chunk that reaches it, and a way to build the pipelines a
/// codec holds (a shard's inner chunks and its index).
pub struct BuildContext<'a> {
    /// The type reaching this codec (an array-to-array codec before it may have changed it).
    pub data_type: DataType,
    pub fill_value: &'a FillValue,
    /// Why `fill_value` is not known, where an array codec before could not encode the array's
    /// (scale_offset's result out of the type's range): a codec that needs it (a shard with
    /// missing inner chunks) fails then, and arrays that never need it read.
    pub fill_problem: Option<&'a str>,
    pub ndim: usize,
    /// Builds a pipeline from a codec list, for chunks of the given type, fill value and
    /// dimensions.
    pub pipeline: &'a PipelineBuilder<'a>,
    /// Builds one bytes-to-bytes codec (codecs that hold a list of them: conditional).
    pub bytes_codec: BytesCodecBuilder,
}

/// How a codec builds the bytes-to-bytes codecs it holds (the codec table's, given by whoever
/// builds it), in the holder's context.
pub type BytesCodecBuilder =
    fn(&Extension, &BuildContext) -> Result<Box<dyn BytesToBytesCodec>, String>;

/// How a codec builds the pipelines it holds (the codec table, given by whoever builds it).
pub type PipelineBuilder<'a> =
    dyn Fn(&[Extension], DataType, &FillValue, usize) -> Result<Box<dyn ChunkDecoder>, String> + 'a;

/// A whole pipeline as a codec holding one sees it.
pub trait ChunkDecoder {
    /// Decodes one stored chunk of `repr` (see `CodecPipeline::decode`).
    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError>;
    /// `decode`, letting the event loop run while it decompresses and stopping once `cancelled`
    /// says so (see `CodecPipeline::decode_async`).
    fn decode_async<'a>(
        &'a self,
        encoded: Vec<u8>,
        repr: &'a ChunkRepr,
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>, Stopped>>;
    /// `decode_async` into `out`, the decoded chunk's exact size (fixed-size data): straight
    /// into it where the codecs allow, saving a chunk buffer and a copy.
    fn decode_into_async<'a>(
        &'a self,
        encoded: Vec<u8>,
        repr: &'a ChunkRepr,
        out: &'a mut [u8],
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<(), Stopped>>;
    /// The encoded size of a chunk of `repr`, where every codec makes it fixed.
    fn fixed_encoded_size(&self, repr: &ChunkRepr) -> Option<usize>;
    /// Whether variable-length elements are reordered after decoding.
    fn reorders_elements(&self) -> bool;
    /// Puts the handles of a variable-length chunk, taken out in stored order, into C order.
    fn restore_order(&self, handles: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError>;
    /// The first codec that cannot encode, by name (see `CodecPipeline::missing_encoder`).
    #[cfg(feature = "write")]
    fn missing_encoder(&self) -> Option<&'static str>;
    /// Encodes a chunk of `repr` (see `CodecPipeline::encode`).
    #[cfg(feature = "write")]
    fn encode(&self, chunk: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError>;
    /// Encodes a chunk as `encode` does, a long compression in steps with turns of the event loop
    /// between them, stopped there once `cancelled` says so (see `CodecPipeline::encode_async`).
    #[cfg(feature = "write")]
    fn encode_async<'a>(
        &'a self,
        chunk: Vec<u8>,
        repr: &'a ChunkRepr,
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>, Stopped>>;
    /// Caps the decoded size of chunks whose size nothing fixes.
    fn set_max_unknown_decoded(&mut self, cap: usize);
}

/// The decoder of a chunk stored so that it can be read in parts (a shard): an index says where
/// each inner chunk lies, and each inner chunk decodes on its own. The array layer reads the
/// index and then only the inner chunks a selection needs.
pub trait PartialDecoder {
    /// The shape of an inner chunk.
    fn inner_shape(&self) -> &[u64];
    /// Whether the index is at the end of the stored chunk (else at its start).
    fn index_at_end(&self) -> bool;
    /// Inner chunks along each dimension of a chunk of `shape`.
    fn chunks_per_shard(&self, shape: &[u64]) -> Result<Vec<u64>, String>;
    /// The encoded size of the index of a chunk of `cps` inner chunks (fixed, and bounded).
    fn index_size(&self, cps: &[u64]) -> Result<usize, String>;
    /// Decodes an index (`index_size` bytes) of a stored chunk `len` bytes long, where known.
    fn decode_index(
        &self,
        encoded: Vec<u8>,
        cps: &[u64],
        len: Option<u64>,
    ) -> Result<ShardIndex, String>;
    /// Decodes the inner chunk at `coords`: its elements, or for variable-length data its items
    /// in vlen layout, in C order. It lets the event loop run while it decompresses (a read
    /// decodes inner chunks as they arrive) and stops once `cancelled` says so.
    fn decode_inner<'a>(
        &'a self,
        encoded: Vec<u8>,
        coords: &'a [u64],
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>, Stopped<String>>>;
    /// The decoded size of an inner chunk; `None` for variable-length data, whose decoded size
    /// is not its shape's, and which `decode_inner_into` therefore cannot decode.
    fn inner_chunk_bytes(&self) -> Option<u64>;
    /// `decode_inner` into `out`, the inner chunk's exact decoded size: a read places inner
    /// chunks straight into its result instead of holding each shard's decoded chunks.
    fn decode_inner_into<'a>(
        &'a self,
        encoded: Vec<u8>,
        coords: &'a [u64],
        out: &'a mut [u8],
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<(), Stopped<String>>> {
        async move {
            let decoded = self.decode_inner(encoded, coords, cancelled).await?;
            copy_exact(&decoded, out)
                .map_err(|e| Stopped::Failed(format!("inner chunk {coords:?}: {}", e.reason)))
        }
        .boxed_local()
    }
}

/// Copies a decoded chunk into `out`, which must be its size.
pub(crate) fn copy_exact(decoded: &[u8], out: &mut [u8]) -> Result<(), CodecError> {
    if decoded.len() != out.len() {
        let reason = format!(
            "decoded to {} bytes, its shape needs {}",
            decoded.len(),
            out.len()
        );
        return Err(CodecError::new("pipeline", reason));
    }
    out.copy_from_slice(decoded);
    Ok(())
}

/// The decoded index of one shard: per inner chunk (C order over the chunks per shard), where its
/// bytes are, or `None` when it is empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardIndex {
    pub(crate) entries: Vec<Option<Range<u64>>>,
}

impl ShardIndex {
    pub fn get(&self, i: usize) -> Option<Range<u64>> {
        self.entries.get(i).cloned().flatten()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// What a chunk of `repr` is before each of `codecs`, and (last) after them all.
pub(crate) fn chain(codecs: &[Box<dyn ArrayToArrayCodec>], repr: ChunkRepr) -> Vec<ChunkRepr> {
    let mut reprs = vec![repr];
    for codec in codecs {
        let next = reprs.last().map(|r| codec.encoded_repr(r));
        reprs.extend(next);
    }
    reprs
}

/// Runs `codecs` backwards over `elements`; `reprs` is what each codec decodes to (`chain`'s
/// list; a last entry beyond the codecs is not used).
pub(crate) fn decode_array_to_array(
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
pub fn default_unknown_decoded_limit() -> usize {
    Limits::default().max_decoded_chunk_bytes
}
