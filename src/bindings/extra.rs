//! The second module (numcodecs' lzma, bz2, pcodec and zfpy, the registry's zfp; see `codecs/extra.rs`) from the binding
//! layer's side: before an array that needs it is handed to JS, pkg/extra.js loads it (once per
//! instance), and the core's extra codecs are pointed at it.

use crate::codecs::extra::{install, needed_by, ExtraDecoder};
use crate::hierarchy::node::Node;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(raw_module = "./extra.js")]
extern "C" {
    /// Loads the second module; resolves once its decoder can be called.
    #[wasm_bindgen(js_name = loadExtra)]
    fn load_extra() -> js_sys::Promise;
    /// The second module's `decode` (throws its error message).
    #[wasm_bindgen(catch, js_name = extraDecode)]
    fn extra_decode(
        codec: &str,
        params: &[f64],
        limit: usize,
        encoded: &[u8],
    ) -> Result<js_sys::Uint8Array, JsValue>;
}

/// The core's way to the second module: a call into it through JS.
struct SecondModule;

impl ExtraDecoder for SecondModule {
    fn decode(
        &self,
        codec: &str,
        params: &[f64],
        limit: usize,
        encoded: &[u8],
    ) -> Result<Vec<u8>, String> {
        extra_decode(codec, params, limit, encoded)
            .map(|decoded| decoded.to_vec())
            .map_err(|err| match err.dyn_ref::<js_sys::Error>() {
                Some(error) => String::from(error.message()),
                None => err.as_string().unwrap_or_else(|| format!("{err:?}")),
            })
    }
}

/// Loads the second module where `node` is an array that needs it.
pub(super) async fn load_for(node: &Node) -> Result<(), JsValue> {
    let Node::Array(array) = node else {
        return Ok(());
    };
    if !needed_by(array.metadata()) {
        return Ok(());
    }
    JsFuture::from(load_extra()).await?;
    install(Rc::new(SecondModule));
    Ok(())
}
