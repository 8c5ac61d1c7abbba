//! The second module (numcodecs' lzma, bz2, pcodec and zfpy, the registry's zfp; see
//! `codecs/extra.rs`) from the binding layer's side: the core asks for it as it opens an array
//! that needs it, and pkg/extra.js loads it (once per instance).

use crate::codecs::extra::{
    install_loader, ExtraDecoder, ExtraLoader, ExtraSteps, LoadingDecoder, Piece,
};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(raw_module = "./extra.js")]
extern "C" {
    /// Loads the second module; resolves once its decoder can be called.
    #[wasm_bindgen(js_name = loadExtra)]
    fn load_extra() -> js_sys::Promise;
    /// The second module's `begin`: the decode's handle (throws its error message).
    #[wasm_bindgen(catch, js_namespace = extraDecode, js_name = begin)]
    fn extra_begin(
        codec: &str,
        params: &[f64],
        limit: usize,
        encoded: &[u8],
    ) -> Result<JsValue, JsValue>;
    /// The next step of the decode `handle`: its output, or `undefined` once it is complete
    /// (throws its error message).
    #[wasm_bindgen(catch, js_namespace = extraDecode, js_name = step)]
    fn extra_step(handle: &JsValue, budget: usize) -> Result<Option<js_sys::Uint8Array>, JsValue>;
    /// Ends the decode `handle`, complete or not.
    #[wasm_bindgen(js_namespace = extraDecode, js_name = end)]
    fn extra_end(handle: &JsValue);
    /// The second module's `encode` (its write build's variant): the encoded bytes (throws its
    /// error message).
    #[cfg(feature = "write")]
    #[wasm_bindgen(catch, js_namespace = extraDecode, js_name = encode)]
    fn extra_encode(codec: &str, params: &[f64], data: &[u8]) -> Result<Vec<u8>, JsValue>;
}

/// The core's way to the second module: calls into it through JS.
struct SecondModule;

impl ExtraDecoder for SecondModule {
    fn begin(
        &self,
        codec: &str,
        params: &[f64],
        limit: usize,
        encoded: Vec<u8>,
    ) -> Result<Box<dyn ExtraSteps>, String> {
        let handle = extra_begin(codec, params, limit, &encoded).map_err(|err| message(&err))?;
        Ok(Box::new(Decoding { handle }))
    }

    #[cfg(feature = "write")]
    fn encode(&self, codec: &str, params: &[f64], data: &[u8]) -> Result<Vec<u8>, String> {
        extra_encode(codec, params, data).map_err(|err| message(&err))
    }
}

/// A decode in the second module, ended there when dropped.
struct Decoding {
    handle: JsValue,
}

impl ExtraSteps for Decoding {
    fn step(&mut self, budget: usize) -> Result<Option<Box<dyn Piece>>, String> {
        let piece = extra_step(&self.handle, budget).map_err(|err| message(&err))?;
        Ok(piece.map(|piece| Box::new(JsPiece(piece)) as Box<dyn Piece>))
    }
}

/// A step's output as the second module handed it: kept in JavaScript until it is copied in.
struct JsPiece(js_sys::Uint8Array);

impl Piece for JsPiece {
    fn size(&self) -> usize {
        self.0.length() as usize
    }

    fn copy_to(&self, to: &mut [u8]) {
        self.0.copy_to(to);
    }
}

impl Drop for Decoding {
    fn drop(&mut self) {
        extra_end(&self.handle);
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
