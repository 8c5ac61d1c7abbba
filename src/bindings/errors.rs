//! Core errors as JS `Error`s, named by kind so that callers can tell failures apart.

use crate::error::{ErrorKind, ZarrError};
use js_sys::Reflect;
use wasm_bindgen::prelude::*;

/// A JS `Error` with the core's message and a name per kind, so callers can tell failures apart.
pub fn js_error(err: ZarrError) -> JsValue {
    // A bad argument is the language's own error, as a JS function's would be.
    match err.kind {
        ErrorKind::ArgumentType => return js_sys::TypeError::new(&err.message).into(),
        ErrorKind::ArgumentRange => return js_sys::RangeError::new(&err.message).into(),
        _ => {}
    }
    let e = js_sys::Error::new(&err.message);
    e.set_name(match err.kind {
        ErrorKind::NotFound => "NotFoundError",
        ErrorKind::Metadata => "MetadataError",
        ErrorKind::Unsupported | ErrorKind::NotInThisBuild => "UnsupportedError",
        ErrorKind::Codec => "CodecError",
        ErrorKind::Store => "StoreError",
        ErrorKind::Selection => "SelectionError",
        ErrorKind::Aborted => "AbortError",
        ErrorKind::ArgumentType | ErrorKind::ArgumentRange => unreachable!("returned above"),
    });
    // index.js loads the full build and tries again when it sees this.
    if err.kind == ErrorKind::NotInThisBuild {
        let _ = Reflect::set(&e, &"fullBuild".into(), &JsValue::TRUE);
    }
    if let Some(status) = err.status {
        let _ = Reflect::set(&e, &"status".into(), &JsValue::from(status));
    }
    e.into()
}
