//! zarr-wasm's bytes-to-bytes decoders on their own, for hosts that run their own pipeline:
//! `zarr-wasm/zarrita` registers them in zarrita.js's codec registry (pkg/zarrita.js, through
//! `bytesDecoder` in pkg/index.js).

use super::errors::js_error;
use crate::codecs::codec::{default_unknown_decoded_limit, BytesToBytesCodec, DecodedSize};
use crate::codecs::table::standalone_bytes_codec;
use crate::codecs::{entry, left_out};
use crate::data_type::DataType;
use crate::error::ZarrError;
use crate::metadata::extension::Extension;
use crate::metadata::json;
use wasm_bindgen::prelude::*;

/// One bytes-to-bytes codec, built from its v3 metadata.
#[wasm_bindgen]
pub struct WasmBytesCodec {
    inner: Box<dyn BytesToBytesCodec>,
    second_module: bool,
}

#[wasm_bindgen]
impl WasmBytesCodec {
    /// Builds the codec `codec` (a v3 `{ name, configuration }` object, as JSON text: the
    /// metadata parser reads it, bounded, and no JS value deserialiser is added to the module)
    /// for chunks of `data_type` (a v3 data type name, where known: numcodecs' `shuffle` takes
    /// its element size by default). Throws a MetadataError or UnsupportedError saying what is
    /// wrong.
    #[wasm_bindgen(constructor)]
    pub fn new(codec: &str, data_type: Option<String>) -> Result<WasmBytesCodec, JsValue> {
        let value = json::parse(codec.as_bytes(), "a codec").map_err(js_error)?;
        let codec =
            Extension::parse(&value).map_err(|e| js_error(ZarrError::metadata("a codec", e)))?;
        let location = format!("codec \"{}\"", codec.name);
        if left_out(codec.registered_name()) {
            return Err(js_error(ZarrError::not_in_this_build(
                &location,
                &codec.name,
            )));
        }
        if entry(codec.registered_name()).is_none() {
            return Err(js_error(ZarrError::unsupported(
                &location,
                "zarr-wasm has no codec of this name",
            )));
        }
        let data_type = match data_type {
            None => None,
            Some(name) => Some(DataType::from_v3_name(&name).ok_or_else(|| {
                js_error(ZarrError::metadata(
                    &location,
                    format!("\"{name}\" is not a v3 data type"),
                ))
            })?),
        };
        let inner = standalone_bytes_codec(&codec, data_type)
            .map_err(|reason| js_error(ZarrError::metadata(&location, reason)))?;
        // A codec held inside (conditional's) may be the second module's too. Where the
        // decoders are linked in (the `extra-codecs` feature), there is no module to load.
        #[cfg(feature = "all-codecs")]
        let second_module = cfg!(not(feature = "extra-codecs"))
            && crate::codecs::extra::any_needs(std::slice::from_ref(&codec));
        // The Zarr build has none of the second module's codecs.
        #[cfg(not(feature = "all-codecs"))]
        let second_module = false;
        Ok(WasmBytesCodec {
            inner,
            second_module,
        })
    }

    /// Whether the codec decodes in the second module, which must be loaded first.
    #[wasm_bindgen(getter, js_name = secondModule)]
    pub fn second_module(&self) -> bool {
        self.second_module
    }

    /// The encoded size of `decoded_size` bytes, where the codec fixes it (checksums add
    /// theirs), else undefined.
    #[wasm_bindgen(js_name = encodedSize)]
    pub fn encoded_size(&self, decoded_size: usize) -> Option<usize> {
        self.inner.encoded_size(decoded_size)
    }

    /// Decodes `encoded` to at most `max_bytes` bytes (0: `limits.maxDecodedChunkBytes`'s
    /// default); `location` names the chunk in the error when it fails.
    pub fn decode(
        &self,
        encoded: Vec<u8>,
        max_bytes: f64,
        location: &str,
    ) -> Result<Vec<u8>, JsValue> {
        let cap = if max_bytes >= 1.0 {
            max_bytes.min(usize::MAX as f64) as usize
        } else {
            default_unknown_decoded_limit()
        };
        self.inner
            .decode(encoded, DecodedSize::AtMost(cap))
            .map_err(|e| js_error(ZarrError::codec(location, e)))
    }
}
