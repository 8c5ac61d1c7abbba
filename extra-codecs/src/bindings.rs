//! The second module's exports, called by the main module through pkg/extra.js: a decode is
//! begun (`begin`, a handle), stepped (`step`, each step's output) and ended (`end`), so that the
//! main module can let its page's event loop run between steps and drop a decode whose read was
//! aborted.

use crate::Steps;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

/// A decode begun and not yet ended, and whether it is complete.
struct Decoding {
    steps: Box<dyn Steps>,
    done: bool,
}

thread_local! {
    /// The decodes in progress, by handle (their place; ended ones leave a hole for the next).
    static DECODES: RefCell<Vec<Option<Decoding>>> = const { RefCell::new(Vec::new()) };
}

/// `crate::begin`: the decode's handle. An error is thrown as its message.
#[wasm_bindgen]
pub fn begin(codec: &str, params: &[f64], limit: usize, encoded: Vec<u8>) -> Result<u32, JsValue> {
    let steps = crate::begin(codec, params, limit, encoded).map_err(|e| JsValue::from_str(&e))?;
    let decoding = Some(Decoding { steps, done: false });
    Ok(DECODES.with(|decodes| {
        let mut decodes = decodes.borrow_mut();
        match decodes.iter().position(Option::is_none) {
            Some(free) => {
                decodes[free] = decoding;
                free as u32
            }
            None => {
                decodes.push(decoding);
                decodes.len() as u32 - 1
            }
        }
    }))
}

/// The next step of the decode `handle` (`Steps::step`): its output, or `undefined` once the
/// decode is complete. An error (which ends the decode) is thrown as its message.
#[wasm_bindgen]
pub fn step(handle: u32, budget: usize) -> Result<Option<Vec<u8>>, JsValue> {
    DECODES.with(|decodes| {
        let mut decodes = decodes.borrow_mut();
        let Some(Some(decoding)) = decodes.get_mut(handle as usize) else {
            return Err(JsValue::from_str("no such decode"));
        };
        if decoding.done {
            return Ok(None);
        }
        let mut out = Vec::new();
        match decoding.steps.step(budget, &mut out) {
            Ok(done) => {
                decoding.done = done;
                Ok(Some(out))
            }
            Err(e) => {
                decodes[handle as usize] = None;
                Err(JsValue::from_str(&e))
            }
        }
    })
}

/// Ends the decode `handle`, complete or not (its read was aborted), freeing what it holds.
#[wasm_bindgen]
pub fn end(handle: u32) {
    DECODES.with(|decodes| {
        if let Some(slot) = decodes.borrow_mut().get_mut(handle as usize) {
            *slot = None;
        }
    });
}

/// `crate::encode`: the encoded bytes (the write build's variant only). An error is thrown as its
/// message.
#[cfg(feature = "encode")]
#[wasm_bindgen]
pub fn encode(codec: &str, params: &[f64], data: &[u8]) -> Result<Vec<u8>, JsValue> {
    crate::encode(codec, params, data).map_err(|e| JsValue::from_str(&e))
}
