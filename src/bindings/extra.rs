//! The second module (numcodecs' lzma, bz2, pcodec and zfpy, the registry's zfp; see
//! `codecs/extra.rs`) from the binding layer's side: the core asks for it as it opens an array
//! that needs it, and pkg/extra.js loads it (once per instance).

use crate::codecs::extra::{install_loader, ExtraDecoder, ExtraLoader, LoadingDecoder};
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
            .map_err(|err| message(&err))
    }
}

/// The core's way to load the second module: the first array that needs it (opened anywhere:
/// by the user, below a group, inside a Zarr Vectors store) waits for pkg/extra.js to load it.
struct SecondModuleLoader;

impl ExtraLoader for SecondModuleLoader {
    fn load(&self) -> LoadingDecoder {
        Box::pin(async {
            JsFuture::from(load_extra())
                .await
                .map_err(|err| message(&err))?;
            Ok(Rc::new(SecondModule) as Rc<dyn ExtraDecoder>)
        })
    }
}

/// Points the core at the second module (at start: it is loaded only when an array needs it).
pub(super) fn install() {
    install_loader(Rc::new(SecondModuleLoader));
}

/// Points the core at the second module once pkg/extra.js has loaded it outside an array's
/// opening (codecs built on their own: `bytesDecoder` in index.js).
#[wasm_bindgen(js_name = useSecondModule)]
pub fn use_second_module() {
    crate::codecs::extra::install(Rc::new(SecondModule));
}

/// A JS error's message.
fn message(err: &JsValue) -> String {
    match err.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.message()),
        None => err.as_string().unwrap_or_else(|| super::guarded::show(err)),
    }
}
