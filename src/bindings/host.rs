//! The JS platform as the core's `Host`: a clock, and a turn of the event loop that is not a
//! clamped timer (browsers make nested `setTimeout(0)` wait 4 ms): `setImmediate` in Node, a
//! `MessageChannel` message in browsers and workers. Chromium runs posted messages ahead of due
//! timers, so there every few turns is a `setTimeout(0)`: timers (`AbortSignal.timeout` among
//! them) wait at most a few slices.

use crate::host::Host;
use futures_util::future::{FutureExt, LocalBoxFuture};
use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

pub struct JsHost {
    /// `(resolve) => ...`: calls `resolve` on the event loop's next turn.
    schedule: Function,
    channel: Option<(JsValue, JsValue)>,
    /// When the last turn that let timers run was taken.
    last_timer_turn: std::cell::Cell<f64>,
}

/// With a message channel, the most milliseconds between turns that let timers run.
const TIMER_TURN_MS: f64 = 24.0;

impl JsHost {
    pub fn new() -> JsHost {
        let global = js_sys::global();
        let get = |o: &JsValue, name: &str| Reflect::get(o, &name.into()).ok();
        if let Some(f) = get(&global, "setImmediate").and_then(|f| f.dyn_into::<Function>().ok()) {
            return JsHost {
                schedule: f,
                channel: None,
                last_timer_turn: Default::default(),
            };
        }
        // new MessageChannel(): messages posted to port2 arrive at port1 on a later turn.
        let channel = get(&global, "MessageChannel")
            .and_then(|c| c.dyn_into::<Function>().ok())
            .and_then(|c| Reflect::construct(&c, &js_sys::Array::new()).ok());
        if let Some(channel) = channel {
            if let (Some(port1), Some(port2)) = (get(&channel, "port1"), get(&channel, "port2")) {
                return JsHost {
                    schedule: get(&global, "setTimeout")
                        .and_then(|f| f.dyn_into().ok())
                        .unwrap_or_else(|| Function::new_no_args("")),
                    channel: Some((port1, port2)),
                    last_timer_turn: Default::default(),
                };
            }
        }
        JsHost {
            schedule: get(&global, "setTimeout")
                .and_then(|f| f.dyn_into().ok())
                .unwrap_or_else(|| Function::new_no_args("")),
            channel: None,
            last_timer_turn: Default::default(),
        }
    }
}

impl Host for JsHost {
    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn next_turn(&self) -> LocalBoxFuture<'static, ()> {
        let now = self.now_ms();
        let channel = self
            .channel
            .as_ref()
            .filter(|_| now - self.last_timer_turn.get() < TIMER_TURN_MS);
        if channel.is_none() {
            self.last_timer_turn.set(now);
        }
        let promise = match channel {
            Some((port1, port2)) => {
                // The port delivers to one listener at a time: each turn takes the next message.
                let (port1, port2) = (port1.clone(), port2.clone());
                Promise::new(&mut |resolve, _| {
                    let options = js_sys::Object::new();
                    let _ = Reflect::set(&options, &"once".into(), &true.into());
                    let add = Reflect::get(&port1, &"addEventListener".into())
                        .ok()
                        .and_then(|f| f.dyn_into::<Function>().ok());
                    let post = Reflect::get(&port2, &"postMessage".into())
                        .ok()
                        .and_then(|f| f.dyn_into::<Function>().ok());
                    let start = Reflect::get(&port1, &"start".into())
                        .ok()
                        .and_then(|f| f.dyn_into::<Function>().ok());
                    if let (Some(add), Some(post)) = (add, post) {
                        let _ = add.call3(&port1, &"message".into(), &resolve, &options);
                        if let Some(start) = start {
                            let _ = start.call0(&port1);
                        }
                        let _ = post.call1(&port2, &JsValue::NULL);
                    } else {
                        let _ = resolve.call0(&JsValue::UNDEFINED);
                    }
                })
            }
            None => {
                let schedule = self.schedule.clone();
                Promise::new(&mut |resolve, _| {
                    let _ = schedule.call1(&JsValue::UNDEFINED, &resolve);
                })
            }
        };
        async move {
            let _ = JsFuture::from(promise).await;
        }
        .boxed_local()
    }
}
