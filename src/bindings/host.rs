//! The JS platform as the core's `Host`: a clock, and a turn of the event loop that is not a
//! clamped timer (browsers make nested `setTimeout(0)` wait 4 ms): `setImmediate` in Node, a
//! `MessageChannel` message in browsers and workers.

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
}

impl JsHost {
    pub fn new() -> JsHost {
        let global = js_sys::global();
        let get = |o: &JsValue, name: &str| Reflect::get(o, &name.into()).ok();
        if let Some(f) = get(&global, "setImmediate").and_then(|f| f.dyn_into::<Function>().ok()) {
            return JsHost {
                schedule: f,
                channel: None,
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
                };
            }
        }
        JsHost {
            schedule: get(&global, "setTimeout")
                .and_then(|f| f.dyn_into().ok())
                .unwrap_or_else(|| Function::new_no_args("")),
            channel: None,
        }
    }
}

impl Host for JsHost {
    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn next_turn(&self) -> LocalBoxFuture<'static, ()> {
        let promise = match &self.channel {
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
