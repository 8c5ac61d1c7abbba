//! The second module's one export, called by the main module through pkg/extra.js.

use wasm_bindgen::prelude::*;

/// `crate::decode`; an error is thrown as its message.
#[wasm_bindgen]
pub fn decode(
    codec: &str,
    params: &[f64],
    limit: usize,
    encoded: &[u8],
) -> Result<Vec<u8>, JsValue> {
    crate::decode(codec, params, limit, encoded).map_err(|e| JsValue::from_str(&e))
}
