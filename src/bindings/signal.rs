//! A read's `AbortSignal` as the core's `AbortToken`: one listener on the signal, however many
//! requests and waits the read makes, removed when the read's store views are dropped.

use crate::store::abort::AbortToken;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

pub struct SignalWatch {
    pub signal: AbortSignal,
    pub token: AbortToken,
    listener: Closure<dyn FnMut()>,
}

impl SignalWatch {
    pub fn new(signal: AbortSignal) -> Rc<SignalWatch> {
        let token = AbortToken::new();
        if signal.aborted() {
            token.abort();
        }
        let on_abort = token.clone();
        let listener = Closure::<dyn FnMut()>::new(move || on_abort.abort());
        let _ = signal.add_event_listener_with_callback("abort", listener.as_ref().unchecked_ref());
        Rc::new(SignalWatch {
            signal,
            token,
            listener,
        })
    }

    pub fn cancelled(&self) -> bool {
        self.token.is_aborted() || self.signal.aborted()
    }
}

impl Drop for SignalWatch {
    fn drop(&mut self) {
        // The closure is freed with this watch: the signal must not call it afterwards.
        let _ = self
            .signal
            .remove_event_listener_with_callback("abort", self.listener.as_ref().unchecked_ref());
    }
}
