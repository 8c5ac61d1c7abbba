//! The pipeline that chains a chunk's codecs. A chunk is decoded by running the bytes-to-bytes
//! codecs in reverse order, then the single array-to-bytes codec, which yields elements in native
//! byte order and C order of its (possibly permuted) shape, then the array-to-array codecs in
//! reverse. The pipeline knows codecs only by their kind; `table.rs` builds them.
//!
//! Reads decode asynchronously (`decode_async`, `decode_into_async`): the bytes-to-bytes codecs,
//! the decompressors, run in steps and the event loop gets its turns between them, so that one
//! large chunk does not hold up a page or a timer; the other codecs are quick and run at once.

use super::codec::{
    chain, copy_exact, decode_array_to_array, default_unknown_decoded_limit, output, output_buffer,
    steps, ArrayToArrayCodec, ArrayToBytesCodec, BytesToBytesCodec, ChunkDecoder, ChunkRepr, Codec,
    DecodedSize, PartialDecoder, StepDecoder, Stopped,
};
use super::shards_behind::ShardsBehindArrayCodecs;
use crate::collections::buffer::Output;
use crate::data_type::fill_value::FillValue;
use crate::data_type::DataType;
use crate::error::CodecError;
use crate::host::timing::{timed, Phase};
use futures_util::future::{FutureExt, LocalBoxFuture};

/// The output a step of a long decode makes where the event loop waits for turns: a few
/// milliseconds of inflating in wasm (16 MiB of gzip took 115 ms in Node in one go), less of zstd
/// or Blosc.
const STEP_BYTES: usize = 1 << 20;

/// The input a step of a long encode takes: compressing is slower than decompressing (gzip at
/// level 6 took 56 ms a MiB in Node, level 9 twice that), so a quarter of a decode's step.
#[cfg(feature = "write")]
const ENCODE_STEP_BYTES: usize = 256 << 10;

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

/// Takes a pipeline's codecs in metadata order, each built for what reaches it, and checks that
/// each kind comes where it may.
pub struct PipelineAssembler {
    /// The array's type and dimensions.
    data_type: DataType,
    ndim: usize,
    /// What reaches the next codec: an array-to-array codec may change the type and the number
    /// of axes.
    reaching: DataType,
    reaching_ndim: usize,
    reaching_fill: FillValue,
    /// Why `reaching_fill` is not known (see `BuildContext::fill_problem`).
    fill_problem: Option<String>,
    element_order: Vec<Box<dyn ArrayToArrayCodec>>,
    array_to_array: Vec<Box<dyn ArrayToArrayCodec>>,
    array_to_bytes: Option<Box<dyn ArrayToBytesCodec>>,
    bytes_to_bytes: Vec<Box<dyn BytesToBytesCodec>>,
}

impl PipelineAssembler {
    pub fn new(data_type: DataType, fill_value: &FillValue, ndim: usize) -> PipelineAssembler {
        PipelineAssembler {
            data_type,
            ndim,
            reaching: data_type,
            reaching_ndim: ndim,
            reaching_fill: fill_value.clone(),
            fill_problem: None,
            element_order: Vec::new(),
            array_to_array: Vec::new(),
            array_to_bytes: None,
            bytes_to_bytes: Vec::new(),
        }
    }

    /// The type the next codec is built for.
    pub fn reaching(&self) -> DataType {
        self.reaching
    }

    /// The fill value of the chunks the next codec is built for.
    pub fn reaching_fill(&self) -> &FillValue {
        &self.reaching_fill
    }

    /// Why the fill value of the chunks the next codec is built for is not known.
    pub fn fill_problem(&self) -> Option<&str> {
        self.fill_problem.as_deref()
    }

    /// The number of axes of the chunks the next codec is built for.
    pub fn reaching_ndim(&self) -> usize {
        self.reaching_ndim
    }

    /// Adds the next codec, or says why it cannot come here.
    pub fn push(&mut self, codec: Codec) -> Result<(), String> {
        match (codec, self.array_to_bytes.is_some()) {
            // Variable-length elements are reordered as handles; every other codec that
            // accepted the data type (categorize) produces them.
            (Codec::ArrayToArray(c), false)
                if self.data_type.is_variable()
                    && c.only_reorders()
                    && self.array_to_array.is_empty() =>
            {
                self.element_order.push(c)
            }
            (Codec::ArrayToArray(c), false) => {
                let repr = ChunkRepr {
                    shape: vec![1; self.reaching_ndim],
                    data_type: self.reaching,
                };
                let encoded = c.encoded_repr(&repr).data_type;
                match c.encoded_fill(&self.reaching_fill, self.reaching, encoded) {
                    Ok(fill) => self.reaching_fill = fill,
                    Err(reason) => {
                        let problem = format!("codec \"{}\": {reason}", c.name());
                        self.fill_problem.get_or_insert(problem);
                        self.reaching_fill = FillValue::from_native_bytes(vec![0; encoded.size()]);
                    }
                }
                self.reaching = encoded;
                self.reaching_ndim = c.output_ndim(self.reaching_ndim);
                self.array_to_array.push(c)
            }
            (Codec::ArrayToBytes(c), false) => self.array_to_bytes = Some(c),
            (Codec::BytesToBytes(c), true) => self.bytes_to_bytes.push(c),
            (Codec::ArrayToArray(_) | Codec::ArrayToBytes(_), true) => {
                return Err(
                    "comes after the array-to-bytes codec; array codecs must come first".into(),
                )
            }
            (Codec::BytesToBytes(_), false) => {
                return Err("a bytes-to-bytes codec comes before the array-to-bytes codec".into())
            }
        }
        Ok(())
    }

    /// The pipeline, once it has its array-to-bytes codec.
    pub fn finish(self) -> Result<CodecPipeline, String> {
        let mut array_to_bytes = self
            .array_to_bytes
            .ok_or("codecs has no array-to-bytes codec (such as \"bytes\")")?;
        let mut array_to_array = self.array_to_array;
        // Shards behind array codecs that decode box by box are still read in parts: the codecs
        // and the shards become one codec (`shards_behind.rs`).
        let shards_alone = self.bytes_to_bytes.is_empty() && self.element_order.is_empty();
        if shards_alone && !array_to_array.is_empty() && !self.data_type.is_variable() {
            match ShardsBehindArrayCodecs::new(
                array_to_array,
                array_to_bytes,
                self.data_type,
                self.ndim,
            ) {
                Ok(joined) => {
                    array_to_bytes = Box::new(joined);
                    array_to_array = Vec::new();
                }
                Err((codecs, shards)) => (array_to_array, array_to_bytes) = (codecs, shards),
            }
        }
        Ok(CodecPipeline {
            element_order: self.element_order,
            array_to_array,
            array_to_bytes,
            bytes_to_bytes: self.bytes_to_bytes,
            max_unknown_decoded: default_unknown_decoded_limit(),
        })
    }
}

impl CodecPipeline {
    /// Caps the decoded size of chunks whose size nothing fixes (variable-length data), here and
    /// in the pipelines of codecs inside this one (a shard's inner chunks).
    pub fn set_max_unknown_decoded(&mut self, cap: usize) {
        self.max_unknown_decoded = cap;
        self.array_to_bytes.set_max_unknown_decoded(cap);
        for codec in &mut self.bytes_to_bytes {
            codec.set_max_unknown_decoded(cap);
        }
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

    /// The decoder of chunks read in parts, when such a codec (sharding) is the whole pipeline:
    /// the usual form of a sharded array.
    pub fn partial_decoder(&self) -> Option<&dyn PartialDecoder> {
        if self.array_to_array.is_empty()
            && self.element_order.is_empty()
            && self.bytes_to_bytes.is_empty()
        {
            self.array_to_bytes.partial_decoder()
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
        timed(Phase::Decode, || {
            let plan = self.plan(repr)?;
            let bytes = self.decode_bytes(&self.bytes_to_bytes, &plan.sizes, encoded)?;
            self.decode_elements(bytes, plan)
        })
    }

    /// `decode`, its bytes-to-bytes codecs run in steps with the event loop's turns between them
    /// (see `run_steps`); stops with `Stopped::Cancelled` once `cancelled` says so.
    pub async fn decode_async(
        &self,
        encoded: Vec<u8>,
        repr: &ChunkRepr,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Vec<u8>, Stopped> {
        let plan = self.plan(repr)?;
        let bytes = self
            .decode_bytes_async(&self.bytes_to_bytes, &plan.sizes, encoded, cancelled)
            .await?;
        let Plan {
            reprs, array_repr, ..
        } = plan;
        let elements = self.elements_async(bytes, &array_repr, cancelled).await?;
        Ok(timed(Phase::Decode, || {
            decode_array_to_array(&self.array_to_array, elements, reprs)
        })?)
    }

    /// The array-to-bytes codec's decode of `bytes` to a chunk of `repr`, in steps where the
    /// codec has them (see `run_steps`). Into a growing output: a second-module decode moves its
    /// pieces in a budget at a time once it is complete, where a buffer of the chunk's size would
    /// be zeroed at once (64 MiB of untouched memory: 35-70 ms).
    async fn elements_async(
        &self,
        bytes: Vec<u8>,
        repr: &ChunkRepr,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Vec<u8>, Stopped> {
        let codec = &self.array_to_bytes;
        let mut decoder = match codec.stepwise(bytes, repr) {
            Ok(decoder) => decoder,
            Err(bytes) => return Ok(timed(Phase::Decode, || codec.decode(bytes, repr))?),
        };
        let size = repr.num_bytes().ok_or_else(|| {
            let reason = format!("a chunk of shape {:?} is too large", repr.shape);
            CodecError::new(codec.name(), reason)
        })?;
        let mut buffer = Vec::new();
        let len = run_steps(&mut *decoder, &mut Output::Growing(&mut buffer), cancelled).await?;
        DecodedSize::Exact(size).check_len(codec.name(), len)?;
        buffer.truncate(len);
        Ok(buffer)
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
        timed(Phase::Decode, || {
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

    /// `decode_into`, its bytes-to-bytes codecs run in steps as in `decode_async`, the first
    /// (the last to decode) stepping straight into `out`.
    pub async fn decode_into_async(
        &self,
        encoded: Vec<u8>,
        repr: &ChunkRepr,
        out: &mut [u8],
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(), Stopped> {
        let Some((first, rest)) = self.bytes_to_bytes.split_first() else {
            // Stored as is: nothing takes long.
            return Ok(self.decode_into(encoded, repr, out)?);
        };
        let (sizes, _) = self.sizes(repr);
        let bytes = self
            .decode_bytes_async(rest, &sizes[1..], encoded, cancelled)
            .await?;
        let size = DecodedSize::Exact(out.len());
        let mut decoder = steps(&**first, bytes, size);
        let len = run_steps(&mut *decoder, &mut Output::Fixed(out), cancelled).await?;
        Ok(size.check_len(first.name(), len)?)
    }

    /// What decoding a chunk of `repr` goes through (see `Plan`), checked against the
    /// array-to-array codecs.
    fn plan(&self, repr: &ChunkRepr) -> Result<Plan, CodecError> {
        let mut reprs = self.reprs(repr);
        for (codec, decoded) in self.array_to_array.iter().zip(&reprs) {
            codec
                .check(decoded)
                .map_err(|reason| CodecError::new(codec.name(), reason))?;
        }
        let array_repr = reprs.pop().unwrap_or_else(|| repr.clone());
        // Decoders are held to the sizes where they are fixed.
        let (sizes, _) = self.sizes(&array_repr);
        Ok(Plan {
            reprs,
            array_repr,
            sizes,
        })
    }

    /// The elements of a chunk from its decoded bytes: the array-to-bytes codec, then the
    /// array-to-array codecs backwards.
    fn decode_elements(&self, bytes: Vec<u8>, plan: Plan) -> Result<Vec<u8>, CodecError> {
        let elements = self.array_to_bytes.decode(bytes, &plan.array_repr)?;
        decode_array_to_array(&self.array_to_array, elements, plan.reprs)
    }

    /// The size a bytes-to-bytes decoder is held to: `size` where it is fixed, else the cap.
    fn held_to(&self, size: Option<usize>) -> DecodedSize {
        size.map_or(
            DecodedSize::AtMost(self.max_unknown_decoded),
            DecodedSize::Exact,
        )
    }

    /// Runs bytes-to-bytes `codecs` backwards over `encoded`, each held to its decoded size in
    /// `sizes` (see `held_to`).
    fn decode_bytes(
        &self,
        codecs: &[Box<dyn BytesToBytesCodec>],
        sizes: &[Option<usize>],
        encoded: Vec<u8>,
    ) -> Result<Vec<u8>, CodecError> {
        let mut bytes = encoded;
        for (codec, &size) in codecs.iter().zip(sizes).rev() {
            let size = self.held_to(size);
            bytes = codec
                .decode(bytes, size)
                .map_err(|e| at_most_note(e, size))?;
        }
        Ok(bytes)
    }

    /// `decode_bytes`, each codec run in steps (see `run_steps`).
    async fn decode_bytes_async(
        &self,
        codecs: &[Box<dyn BytesToBytesCodec>],
        sizes: &[Option<usize>],
        encoded: Vec<u8>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Vec<u8>, Stopped> {
        let mut bytes = encoded;
        for (codec, &size) in codecs.iter().zip(sizes).rev() {
            let size = self.held_to(size);
            let mut buffer = output_buffer(codec.name(), size)?;
            let mut decoder = steps(&**codec, bytes, size);
            let len = run_steps(&mut *decoder, &mut output(&mut buffer, size), cancelled)
                .await
                .map_err(|stop| stop.map(|e| at_most_note(e, size)))?;
            size.check_len(codec.name(), len)?;
            buffer.truncate(len);
            bytes = buffer;
        }
        Ok(bytes)
    }
}

/// What a chunk goes through as it decodes.
struct Plan {
    /// What each array-to-array codec decodes to.
    reprs: Vec<ChunkRepr>,
    /// What the array-to-bytes codec decodes to.
    array_repr: ChunkRepr,
    /// The decoded size of each bytes-to-bytes codec, where it is fixed.
    sizes: Vec<Option<usize>>,
}

/// Runs `decoder` to its end into `out`, letting the event loop run between steps once a slice of
/// work has passed (`yield_if_busy`), and stopping once `cancelled` says so: an abort settles
/// within a step of the decode, not at its end. Without a host there is no event loop to let run,
/// and the decode is one step (a zstd frame decodes straight into its output only whole).
async fn run_steps(
    decoder: &mut dyn StepDecoder,
    out: &mut Output<'_>,
    cancelled: &dyn Fn() -> bool,
) -> Result<usize, Stopped> {
    let budget = match crate::host::installed() {
        true => STEP_BYTES,
        false => usize::MAX,
    };
    loop {
        if let Some(len) = timed(Phase::Decode, || decoder.step(out, budget))? {
            return Ok(len);
        }
        crate::host::yield_if_busy().await;
        if cancelled() {
            return Err(Stopped::Cancelled);
        }
    }
}

/// Encoding: the codecs in metadata order, each encoding what the one before made.
#[cfg(feature = "write")]
impl CodecPipeline {
    /// The encoder of chunks written in parts (sharding), where such a codec is the whole
    /// pipeline (see `partial_decoder`).
    pub fn partial_encoder(&self) -> Option<&dyn super::codec::PartialEncoder> {
        if self.array_to_array.is_empty()
            && self.element_order.is_empty()
            && self.bytes_to_bytes.is_empty()
        {
            self.array_to_bytes.partial_encoder()
        } else {
            None
        }
    }

    /// The first codec of the pipeline (in metadata order) that cannot encode, by its name:
    /// writing is refused before anything is written.
    pub fn missing_encoder(&self) -> Option<&'static str> {
        let arrays = self.element_order.iter().chain(&self.array_to_array);
        if let Some(c) = arrays.clone().find(|c| !c.encodes()) {
            return Some(c.name());
        }
        if !self.array_to_bytes.encodes() {
            return Some(self.array_to_bytes.name());
        }
        self.bytes_to_bytes
            .iter()
            .find(|c| !c.encodes())
            .map(|c| c.name())
    }

    /// Encodes a chunk of `repr` (elements in native byte order, C order) to what is stored.
    /// Variable-length data comes as its items in vlen layout, C order.
    pub fn encode(&self, chunk: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let mut data = self.encode_to_bytes(chunk, repr)?;
        for codec in &self.bytes_to_bytes {
            data = codec.encode(data)?;
        }
        Ok(data)
    }

    /// Encodes as `encode` does, each compression of more than a step's bytes in steps
    /// (`encode_stepwise`), letting the event loop run between them once a slice of work has
    /// passed and stopping there once `cancelled` says so: a 16 MiB chunk through zstd holds the
    /// thread for a quarter of a second in one piece. Without a host, one step.
    pub async fn encode_async(
        &self,
        chunk: Vec<u8>,
        repr: &ChunkRepr,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Vec<u8>, Stopped> {
        let budget = match crate::host::installed() {
            true => ENCODE_STEP_BYTES,
            false => usize::MAX,
        };
        let mut data = self.encode_to_bytes(chunk, repr)?;
        for codec in &self.bytes_to_bytes {
            if data.len() <= budget {
                data = codec.encode(data)?;
                continue;
            }
            data = match codec.encode_stepwise(data) {
                Err(data) => codec.encode(data)?,
                Ok(mut steps) => loop {
                    if let Some(encoded) = steps.step(budget)? {
                        break encoded;
                    }
                    crate::host::yield_if_busy().await;
                    if cancelled() {
                        return Err(Stopped::Cancelled);
                    }
                },
            };
        }
        Ok(data)
    }

    /// A chunk through the array-to-array and array-to-bytes codecs: the bytes the compressors
    /// take.
    fn encode_to_bytes(&self, chunk: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let mut data = chunk;
        let mut at = repr.clone();
        if !self.element_order.is_empty() {
            use crate::data_type::variable::{element_count, item_ranges, positions, reorder};
            // Items are reordered by their positions: the reordering codecs (transpose) run on
            // each item's index, 8 bytes as a handle is, and the items are laid out in the order
            // that gives (the inverse of `restore_order`).
            let bad = |e: String| CodecError::new("pipeline", e);
            let n = element_count(&repr.shape).ok_or_else(|| bad("too many elements".into()))?;
            let ranges = item_ranges(&data, n).map_err(bad)?;
            let mut order = positions(n).map_err(bad)?;
            for codec in &self.element_order {
                order = codec.encode(order, &at)?;
                at = codec.encoded_repr(&at);
            }
            data = reorder(&data, &ranges, &order).map_err(bad)?;
        }
        for codec in &self.array_to_array {
            data = codec.encode(data, &at)?;
            at = codec.encoded_repr(&at);
        }
        self.array_to_bytes.encode(data, &at)
    }
}

impl ChunkDecoder for CodecPipeline {
    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        CodecPipeline::decode(self, encoded, repr)
    }

    fn decode_async<'a>(
        &'a self,
        encoded: Vec<u8>,
        repr: &'a ChunkRepr,
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>, Stopped>> {
        CodecPipeline::decode_async(self, encoded, repr, cancelled).boxed_local()
    }

    fn decode_into_async<'a>(
        &'a self,
        encoded: Vec<u8>,
        repr: &'a ChunkRepr,
        out: &'a mut [u8],
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<(), Stopped>> {
        async move {
            if self.decodes_in_place(repr) {
                return CodecPipeline::decode_into_async(self, encoded, repr, out, cancelled).await;
            }
            let decoded = CodecPipeline::decode_async(self, encoded, repr, cancelled).await?;
            Ok(copy_exact(&decoded, out)?)
        }
        .boxed_local()
    }

    fn fixed_encoded_size(&self, repr: &ChunkRepr) -> Option<usize> {
        let reprs = self.reprs(repr);
        self.sizes(reprs.last()?).1
    }

    fn reorders_elements(&self) -> bool {
        !self.element_order.is_empty()
    }

    fn restore_order(&self, handles: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        CodecPipeline::restore_order(self, handles, repr)
    }

    fn set_max_unknown_decoded(&mut self, cap: usize) {
        CodecPipeline::set_max_unknown_decoded(self, cap)
    }

    #[cfg(feature = "write")]
    fn missing_encoder(&self) -> Option<&'static str> {
        CodecPipeline::missing_encoder(self)
    }

    #[cfg(feature = "write")]
    fn encode(&self, chunk: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        CodecPipeline::encode(self, chunk, repr)
    }

    #[cfg(feature = "write")]
    fn encode_async<'a>(
        &'a self,
        chunk: Vec<u8>,
        repr: &'a ChunkRepr,
        cancelled: &'a dyn Fn() -> bool,
    ) -> LocalBoxFuture<'a, Result<Vec<u8>, Stopped>> {
        CodecPipeline::encode_async(self, chunk, repr, cancelled).boxed_local()
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
