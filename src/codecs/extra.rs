//! The codecs whose decoders are too large for the npm package's main wasm module (numcodecs'
//! `lzma`, `bz2`, `pcodec` and `zfpy`, the registry's `zfp`; measured in the README's "Download
//! size"): they live in the crate `extra-codecs/`, which the npm package builds as a second
//! module, loaded the first time an array needs one. The core reaches them through `decode`
//! here: an installed decoder (the binding layer installs one that calls the second module),
//! else the crate itself where it is linked in (the `extra-codecs` feature: Rust users, native
//! tests).

use super::codec::ChunkRepr;
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

/// A way to reach the second module's decoders (see `extra-codecs/src/lib.rs`, `decode`, for
/// what the arguments mean).
pub trait ExtraDecoder {
    fn decode(
        &self,
        codec: &str,
        params: &[f64],
        limit: usize,
        encoded: &[u8],
    ) -> Result<Vec<u8>, String>;
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

/// Decodes through the installed decoder, or the linked crate, or says that neither is there.
pub(crate) fn decode(
    codec: &str,
    params: &[f64],
    limit: usize,
    encoded: &[u8],
) -> Result<Vec<u8>, String> {
    if let Some(decoder) = INSTALLED.with(|installed| installed.borrow().clone()) {
        return decoder.decode(codec, params, limit, encoded);
    }
    linked(codec, params, limit, encoded)
}

/// Decodes a chunk of `repr` whose elements a second-module codec (`codec`, an array-to-bytes
/// codec: pcodec, zfpy, zfp) stores as numbers, described by `params` (the number type first):
/// exactly the chunk's element count.
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
    decode(codec, params, count, encoded).map_err(err)
}

#[cfg(feature = "extra-codecs")]
fn linked(codec: &str, params: &[f64], limit: usize, encoded: &[u8]) -> Result<Vec<u8>, String> {
    zarr_wasm_extra::decode(codec, params, limit, encoded)
}

#[cfg(not(feature = "extra-codecs"))]
fn linked(_: &str, _: &[f64], _: usize, _: &[u8]) -> Result<Vec<u8>, String> {
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
