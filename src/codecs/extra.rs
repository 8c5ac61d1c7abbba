//! The codecs whose decoders are too large for the npm package's main wasm module (numcodecs'
//! `lzma`, `bz2`, `pcodec` and `zfpy`, the registry's `zfp`; measured in the README's "Download
//! size"): they live in the crate `extra-codecs/`, which the npm package builds as a second
//! module, loaded the first time an array needs one. Their codec files and this gateway are in
//! the full build (`all-codecs`): the npm package's Zarr build leaves them out, 4.5 KiB of it
//! gzipped (issue 47). The core reaches them through `begin` here:
//! an installed decoder (the binding layer installs one that calls the second module), else the
//! crate itself where it is linked in (the `extra-codecs` feature: Rust users, native tests).
//!
//! A decode there works in steps (`ExtraSteps`, driven as a `StepDecoder` by `Stepwise`), each
//! about a budget of output, so that a read lets the event loop run between them and drops the
//! decode there when it is aborted, as it does gzip's or zstd's.

use super::codec::{ChunkRepr, StepDecoder};
use crate::collections::buffer::Output;
use crate::error::CodecError;
use crate::metadata::extension::Extension;
use crate::metadata::{ArrayMetadata, CodecList};
use serde_json::Value;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

/// The codecs decoded by the second module, by their v3 names.
pub const NAMES: &[&str] = &[
    "numcodecs.lzma",
    "numcodecs.bz2",
    "numcodecs.pcodec",
    "numcodecs.zfpy",
    "zfp",
];

/// A way to reach the second module's decoders (see `extra-codecs/src/lib.rs`, `begin`, for
/// what the arguments mean).
pub trait ExtraDecoder {
    /// Begins decoding `encoded`: the decode's steps.
    fn begin(
        &self,
        codec: &str,
        params: &[f64],
        limit: usize,
        encoded: Vec<u8>,
    ) -> Result<Box<dyn ExtraSteps>, String>;
    /// Encodes `data` (see `extra-codecs/src/encode.rs` for `params`), where this way has the
    /// second module's encoders (the npm package's write build loads its variant with them).
    #[cfg(feature = "write")]
    fn encode(&self, _codec: &str, _params: &[f64], _data: &[u8]) -> Result<Vec<u8>, String> {
        Err("the second module was loaded without its encoders".into())
    }
}

/// A decode begun in the second module (dropped: ended there, complete or not).
pub trait ExtraSteps {
    /// Decodes about `budget` more bytes: their piece of output, or `None` once the decode is
    /// complete.
    fn step(&mut self, budget: usize) -> Result<Option<Box<dyn Piece>>, String>;
}

/// A step's output, where the second module handed it (a JS `Uint8Array`, or a vector where the
/// crate is linked in).
pub trait Piece {
    /// Its length in bytes.
    fn size(&self) -> usize;
    /// Copies the piece into `to`, which is its length.
    fn copy_to(&self, to: &mut [u8]);
}

impl Piece for Vec<u8> {
    fn size(&self) -> usize {
        self.len()
    }

    fn copy_to(&self, to: &mut [u8]) {
        to.copy_from_slice(self);
    }
}

/// A way to get the second module's decoders when an array first needs them (the binding layer
/// loads the module).
pub trait ExtraLoader {
    fn load(&self) -> LoadingDecoder;
}

/// A decoder being loaded (the error says why it could not be).
pub type LoadingDecoder = Pin<Box<dyn Future<Output = Result<Rc<dyn ExtraDecoder>, String>>>>;

thread_local! {
    // Per thread, as wasm modules are: each worker loads and installs its own.
    static INSTALLED: RefCell<Option<Rc<dyn ExtraDecoder>>> = const { RefCell::new(None) };
    static LOADER: RefCell<Option<Rc<dyn ExtraLoader>>> = const { RefCell::new(None) };
}

/// Makes `decoder` the one every extra codec on this thread decodes with.
pub fn install(decoder: Rc<dyn ExtraDecoder>) {
    INSTALLED.with(|installed| *installed.borrow_mut() = Some(decoder));
}

/// Makes `loader` the way this thread gets a decoder the first time an array needs one.
pub fn install_loader(loader: Rc<dyn ExtraLoader>) {
    LOADER.with(|installed| *installed.borrow_mut() = Some(loader));
}

/// Readies the decoders for an array described by `metadata`, as every node is opened (whether
/// by the user, below a group, or inside a Zarr Vectors store): where it needs one and none is
/// installed yet, the installed loader gets one. Without a loader, the linked crate (or the
/// error saying there is none) decodes.
pub async fn prepare(metadata: &ArrayMetadata) -> Result<(), String> {
    if INSTALLED.with(|installed| installed.borrow().is_some()) || !needed_by(metadata) {
        return Ok(());
    }
    let Some(loader) = LOADER.with(|loader| loader.borrow().clone()) else {
        return Ok(());
    };
    install(loader.load().await?);
    Ok(())
}

/// Begins a decode through the installed decoder, or the linked crate, or says that neither is
/// there.
fn begin(
    codec: &str,
    params: &[f64],
    limit: usize,
    encoded: Vec<u8>,
) -> Result<Box<dyn ExtraSteps>, String> {
    if let Some(decoder) = INSTALLED.with(|installed| installed.borrow().clone()) {
        return decoder.begin(codec, params, limit, encoded);
    }
    linked(codec, params, limit, encoded)
}

/// A second-module decode driven by the core as any decoder in steps: begun at its first step,
/// ended (dropped) with it. Each step's piece goes straight into an output of the chunk's size;
/// a growing output (data whose size nothing fixes: strings) gets the pieces once the decode is
/// complete, a budget of them a step, into room taken once. A vector grown as the pieces came
/// would copy itself whole each time it doubled, in one step: the 128 MiB of a 256 MiB string
/// chunk into memory never touched before held the event loop for 180 ms (Node).
pub(crate) struct Stepwise {
    codec: &'static str,
    params: Vec<f64>,
    /// The second module's limit (bytes, or for numbers their count), and the output's.
    limit: usize,
    bytes: usize,
    /// The chunk's bytes until the decode begins (they are then the second module's).
    encoded: Vec<u8>,
    steps: Option<Box<dyn ExtraSteps>>,
    /// The output so far.
    written: usize,
    /// For a growing output, the pieces not yet in it (in order; last first once the decode is
    /// complete, as they are then moved in), and whether the decode is complete.
    held: Vec<Box<dyn Piece>>,
    complete: bool,
}

impl Stepwise {
    /// A decode of `encoded` by `codec` to at most `limit` bytes (see `extra-codecs`' `begin`
    /// for `params`).
    pub(crate) fn new(
        codec: &'static str,
        params: Vec<f64>,
        limit: usize,
        encoded: Vec<u8>,
    ) -> Stepwise {
        Stepwise::of_numbers(codec, params, limit, limit, encoded)
    }

    /// A decode of `count` numbers of `bytes` bytes in all (pcodec, zfpy, zfp).
    pub(crate) fn of_numbers(
        codec: &'static str,
        params: Vec<f64>,
        count: usize,
        bytes: usize,
        encoded: Vec<u8>,
    ) -> Stepwise {
        Stepwise {
            codec,
            params,
            limit: count,
            bytes,
            encoded,
            steps: None,
            written: 0,
            held: Vec::new(),
            complete: false,
        }
    }

    fn advance(&mut self, out: &mut Output<'_>, budget: usize) -> Result<Option<usize>, String> {
        if self.complete {
            return self.move_held(out, budget);
        }
        let steps = match &mut self.steps {
            Some(steps) => steps,
            None => {
                let encoded = std::mem::take(&mut self.encoded);
                self.steps
                    .insert(begin(self.codec, &self.params, self.limit, encoded)?)
            }
        };
        let Some(piece) = steps.step(budget)? else {
            self.steps = None;
            self.complete = true;
            self.held.reverse();
            return self.move_held(out, budget);
        };
        let end = self
            .written
            .checked_add(piece.size())
            .filter(|&end| end <= self.bytes)
            .ok_or_else(|| {
                format!(
                    "decodes to more than the {} bytes the chunk may have",
                    self.bytes
                )
            })?;
        match out {
            Output::Fixed(out) => {
                let size = out.len();
                let place = out.get_mut(self.written..end).ok_or_else(|| {
                    format!("decodes to more than the {size} bytes the chunk has")
                })?;
                piece.copy_to(place);
            }
            Output::Growing(_) => self.held.push(piece),
        }
        self.written = end;
        Ok(None)
    }

    /// Moves the held pieces into a growing output, about `budget` bytes of them a call: the
    /// output's length once all are in.
    fn move_held(&mut self, out: &mut Output<'_>, budget: usize) -> Result<Option<usize>, String> {
        let Output::Growing(vec) = out else {
            return Ok(Some(self.written));
        };
        if vec.capacity() < self.written {
            vec.try_reserve_exact(self.written - vec.len())
                .map_err(|_| format!("cannot allocate {} bytes", self.written))?;
        }
        let mut moved = 0;
        while moved < budget {
            let Some(piece) = self.held.pop() else {
                return Ok(Some(self.written));
            };
            let at = vec.len();
            let len = piece.size();
            // Within the capacity taken: the vector does not move.
            vec.resize(at + len, 0);
            piece.copy_to(&mut vec[at..]);
            moved += len.max(1);
        }
        if self.held.is_empty() {
            return Ok(Some(self.written));
        }
        Ok(None)
    }
}

impl StepDecoder for Stepwise {
    fn step(&mut self, out: &mut Output<'_>, budget: usize) -> Result<Option<usize>, CodecError> {
        self.advance(out, budget)
            .map_err(|e| CodecError::new(self.codec, e))
    }
}

/// The decode in steps of a chunk of `repr` whose elements a second-module codec (`codec`, an
/// array-to-bytes codec: pcodec, zfpy, zfp) stores as numbers, described by `params` (the number
/// type first): exactly the chunk's element count. `encoded` back where the chunk is too large
/// to be (the one-shot decode says so).
pub(crate) fn numbers_stepwise(
    codec: &'static str,
    params: Vec<f64>,
    encoded: Vec<u8>,
    repr: &ChunkRepr,
) -> Result<Box<dyn StepDecoder>, Vec<u8>> {
    let Some(size) = repr.num_bytes() else {
        return Err(encoded);
    };
    let count = size / repr.data_type.size().max(1);
    Ok(Box::new(Stepwise::of_numbers(
        codec, params, count, size, encoded,
    )))
}

/// Decodes a chunk of `repr` whose elements a second-module codec (`codec`, an array-to-bytes
/// codec: pcodec, zfpy, zfp) stores as numbers, described by `params` (the number type first):
/// exactly the chunk's element count, in one go.
pub(crate) fn decode_numbers(
    codec: &'static str,
    params: &[f64],
    encoded: &[u8],
    repr: &ChunkRepr,
) -> Result<Vec<u8>, CodecError> {
    let err = |e: String| CodecError::new(codec, e);
    let size = repr
        .num_bytes()
        .ok_or_else(|| err(format!("a chunk of shape {:?} is too large", repr.shape)))?;
    let count = size / repr.data_type.size().max(1);
    let mut decode = Stepwise::of_numbers(codec, params.to_vec(), count, size, encoded.to_vec());
    let mut out = Vec::new();
    let len = crate::collections::buffer::in_one_go(|budget| {
        decode.advance(&mut Output::Growing(&mut out), budget)
    })
    .map_err(err)?;
    out.truncate(len);
    Ok(out)
}

/// The linked crate's decode in steps.
#[cfg(feature = "extra-codecs")]
struct Linked {
    steps: Box<dyn zarr_wasm_extra::Steps>,
    done: bool,
}

#[cfg(feature = "extra-codecs")]
impl ExtraSteps for Linked {
    fn step(&mut self, budget: usize) -> Result<Option<Box<dyn Piece>>, String> {
        if self.done {
            return Ok(None);
        }
        let mut piece = Vec::new();
        self.done = self.steps.step(budget, &mut piece)?;
        Ok(Some(Box::new(piece)))
    }
}

/// Encodes `data` with `codec`'s encoder in the second module: through the installed decoder's
/// way to it, or the linked crate. Writes reach it once the array is open, which readies the
/// module (`prepare`).
#[cfg(feature = "write")]
pub fn encode(codec: &'static str, params: &[f64], data: &[u8]) -> Result<Vec<u8>, CodecError> {
    let encoded = match INSTALLED.with(|installed| installed.borrow().clone()) {
        Some(decoder) => decoder.encode(codec, params, data),
        None => linked_encode(codec, params, data),
    };
    encoded.map_err(|e| CodecError::new(codec, e))
}

#[cfg(all(feature = "write", feature = "extra-codecs"))]
fn linked_encode(codec: &str, params: &[f64], data: &[u8]) -> Result<Vec<u8>, String> {
    zarr_wasm_extra::encode(codec, params, data)
}

#[cfg(all(feature = "write", not(feature = "extra-codecs")))]
fn linked_encode(_: &str, _: &[f64], _: &[u8]) -> Result<Vec<u8>, String> {
    Err("its encoder is in zarr-wasm's second module, which is not here: Rust builds link it with the `extra-codecs` feature".into())
}

#[cfg(feature = "extra-codecs")]
fn linked(
    codec: &str,
    params: &[f64],
    limit: usize,
    encoded: Vec<u8>,
) -> Result<Box<dyn ExtraSteps>, String> {
    let steps = zarr_wasm_extra::begin(codec, params, limit, encoded)?;
    Ok(Box::new(Linked { steps, done: false }))
}

#[cfg(not(feature = "extra-codecs"))]
fn linked(_: &str, _: &[f64], _: usize, _: Vec<u8>) -> Result<Box<dyn ExtraSteps>, String> {
    Err("its decoder is in zarr-wasm's second module, which is not here: the npm package loads it as an array that needs it opens; Rust builds link it with the `extra-codecs` feature, or install a loader (codecs::extra::install_loader)".into())
}

/// Whether an array's chunks need the second module: one of its codecs (or of a shard's inner
/// or index codecs, at any depth) is decoded there.
pub fn needed_by(metadata: &ArrayMetadata) -> bool {
    match &metadata.codecs {
        CodecList::V3(codecs) => any_needs(codecs),
        CodecList::V2(v2) => v2
            .filters
            .iter()
            .chain(&v2.compressor)
            .any(|(_, codec)| NAMES.contains(&codec.registered_name())),
    }
}

/// Whether any of `codecs`, or a codec they hold (at any depth), is decoded by the second module.
pub fn any_needs(codecs: &[Extension]) -> bool {
    codecs.iter().any(|codec| {
        NAMES.contains(&codec.registered_name())
            || codec.configuration.values().any(|value| match value {
                // A codec list inside a codec's configuration (sharding's `codecs`).
                Value::Array(items) => {
                    let inner: Vec<Extension> = items
                        .iter()
                        .filter_map(|item| Extension::parse(item).ok())
                        .collect();
                    any_needs(&inner)
                }
                _ => false,
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_codec_lists_are_searched() {
        let parse = |v: Value| -> Vec<Extension> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|c| Extension::parse(c).unwrap())
                .collect()
        };
        assert!(!any_needs(&parse(
            json!([{"name": "bytes"}, {"name": "zstd", "configuration": {"level": 1}}])
        )));
        assert!(any_needs(&parse(
            json!([{"name": "bytes"}, {"name": "numcodecs.bz2", "configuration": {"level": 1}}])
        )));
        let sharded = json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [2], "index_codecs": [{"name": "bytes"}],
            "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [1],
                "codecs": [{"name": "numcodecs.pcodec", "configuration": {}}], "index_codecs": []}}]}}]);
        assert!(any_needs(&parse(sharded)));
    }
}
