//! Reading the values a caller hands in (selections, coordinates, options, `out`, what a store
//! resolves to) without letting JavaScript throw through the module.
//!
//! A JS exception that unwinds through Rust frames leaves the instance unusable, for every
//! caller: a getter that throws, a revoked Proxy (a stale Immer draft), a Proxy whose traps throw
//! or a subclass whose `length` throws would each reset the module if touched by a plain import
//! (`instanceof`, `Array.isArray`, `.length`, `Object.keys`). Here every access goes through
//! `Reflect` (whose bindings catch) or through the intrinsic getters of the built-in types,
//! which read internal slots that no subclass or Proxy can override: a value that misbehaves is
//! an error of its own call only.

use js_sys::{Array as JsArray, ArrayBuffer, Function, Object, Reflect, Uint8Array};
use std::cell::OnceCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The built-in functions used to inspect values, taken once from objects of the module's own.
struct Intrinsics {
    is_array: Function,
    /// `%TypedArray%.prototype`'s getters: `[Symbol.toStringTag]`, `buffer`, `byteOffset`,
    /// `byteLength`, `length`.
    typed_tag: Function,
    typed_buffer: Function,
    typed_byte_offset: Function,
    typed_byte_length: Function,
    typed_length: Function,
    /// `ArrayBuffer.prototype.byteLength`'s getter, which throws for anything but an ArrayBuffer.
    buffer_byte_length: Function,
}

thread_local! {
    static INTRINSICS: OnceCell<Intrinsics> = const { OnceCell::new() };
}

fn getter(prototype: &JsValue, key: &JsValue) -> Function {
    Reflect::get_own_property_descriptor(prototype.unchecked_ref::<Object>(), key)
        .and_then(|d| Reflect::get(&d, &"get".into()))
        .map(JsCast::unchecked_into)
        .expect("a getter of a built-in prototype")
}

fn with_intrinsics<T>(f: impl FnOnce(&Intrinsics) -> T) -> T {
    INTRINSICS.with(|cell| {
        f(cell.get_or_init(|| {
            let uint8 = Uint8Array::new_with_length(0);
            let uint8_prototype: JsValue = Object::get_prototype_of(&uint8).into();
            let typed: JsValue = Object::get_prototype_of(&uint8_prototype).into();
            let buffer_prototype: JsValue = Object::get_prototype_of(&uint8.buffer()).into();
            Intrinsics {
                is_array: Reflect::get(&JsArray::new(), &"constructor".into())
                    .and_then(|c| Reflect::get(&c, &"isArray".into()))
                    .map(JsCast::unchecked_into)
                    .expect("Array.isArray"),
                typed_tag: getter(&typed, &js_sys::Symbol::to_string_tag().into()),
                typed_buffer: getter(&typed, &"buffer".into()),
                typed_byte_offset: getter(&typed, &"byteOffset".into()),
                typed_byte_length: getter(&typed, &"byteLength".into()),
                typed_length: getter(&typed, &"length".into()),
                buffer_byte_length: getter(&buffer_prototype, &"byteLength".into()),
            }
        }))
    })
}

/// `f` called with `this` = `value` and no arguments, its exception caught.
fn apply(f: &Function, value: &JsValue) -> Result<JsValue, JsValue> {
    Reflect::apply(f, value, &JsArray::new())
}

/// Whether `value` is an array (`Array.isArray`, which throws for a revoked Proxy: then an error).
pub fn is_array(value: &JsValue) -> Result<bool, String> {
    with_intrinsics(|i| Reflect::apply(&i.is_array, &JsValue::UNDEFINED, &JsArray::of1(value)))
        .map(|b| b.is_truthy())
        .map_err(describe)
}

/// The length of an array `value`, or None if it is no array.
pub fn array_length(value: &JsValue) -> Result<Option<f64>, String> {
    if !is_array(value)? {
        return Ok(None);
    }
    let length = Reflect::get(value, &"length".into()).map_err(describe)?;
    length
        .as_f64()
        .filter(|n| n.fract() == 0.0 && *n >= 0.0)
        .map(Some)
        .ok_or_else(|| format!("its length is {}", show(&length)))
}

/// The elements of an array `value` (None if it is no array), at most `max` of them: more is an
/// error that names the length, before any is read. Each element is read as a property, so a
/// getter that throws is an error too.
pub fn elements(value: &JsValue, max: usize) -> Result<Option<Vec<JsValue>>, String> {
    let Some(n) = array_length(value)? else {
        return Ok(None);
    };
    if n > max as f64 {
        return Err(format!(
            "it has {} entries, more than the {max} allowed",
            number(n)
        ));
    }
    (0..n as u32)
        .map(|i| Reflect::get_u32(value, i).map_err(|e| format!("entry {i}: {}", describe(e))))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The own enumerable string-keyed properties of object `value`, as (name, value) pairs, at most
/// `max` of them.
pub fn entries(value: &JsValue, max: usize) -> Result<Vec<(String, JsValue)>, String> {
    let keys = Reflect::own_keys(value).map_err(describe)?;
    let keys = elements(&keys, usize::MAX)?.unwrap_or_default();
    let mut out = Vec::new();
    for key in keys {
        // Symbols, and properties that are not enumerable, are not options.
        let Some(name) = key.as_string() else {
            continue;
        };
        let enumerable =
            Reflect::get_own_property_descriptor(value.unchecked_ref::<Object>(), &key)
                .map_err(describe)?;
        let enumerable = !enumerable.is_undefined()
            && Reflect::get(&enumerable, &"enumerable".into())
                .map_err(describe)?
                .is_truthy();
        if !enumerable {
            continue;
        }
        if out.len() == max {
            return Err(format!("it has more than {max} properties"));
        }
        let v = Reflect::get(value, &key).map_err(|e| format!("{name}: {}", describe(e)))?;
        out.push((name, v));
    }
    Ok(out)
}

/// A typed array as its internal slots have it, whatever its prototype and getters say.
pub struct TypedArrayParts {
    /// "Uint8Array", "Float64Array", …
    pub kind: String,
    pub buffer: JsValue,
    pub byte_offset: u32,
    pub byte_length: u32,
    pub length: u32,
}

/// `value`'s parts if it really is a typed array (a subclass's, such as Node's Buffer, too), else
/// None: a Proxy of one, or an object inheriting a typed array's prototype, is not one.
pub fn typed_array(value: &JsValue) -> Option<TypedArrayParts> {
    with_intrinsics(|i| {
        // The tag getter answers undefined, without throwing, for anything that is not one.
        let kind = apply(&i.typed_tag, value).ok()?.as_string()?;
        let number = |f: &Function| apply(f, value).ok()?.as_f64().map(|n| n as u32);
        Some(TypedArrayParts {
            kind,
            buffer: apply(&i.typed_buffer, value).ok()?,
            byte_offset: number(&i.typed_byte_offset)?,
            byte_length: number(&i.typed_byte_length)?,
            length: number(&i.typed_length)?,
        })
    })
}

/// The bytes of a Uint8Array or an ArrayBuffer `value` (None for anything else), as a view of
/// the module's own making: later reads of it cannot run the caller's code.
pub fn bytes(value: &JsValue) -> Option<Uint8Array> {
    if let Some(parts) = typed_array(value) {
        if parts.kind != "Uint8Array" && parts.kind != "Uint8ClampedArray" {
            return None;
        }
        let buffer: ArrayBuffer = parts.buffer.unchecked_into();
        return Some(Uint8Array::new_with_byte_offset_and_length(
            &buffer,
            parts.byte_offset,
            parts.byte_length,
        ));
    }
    // Throws for anything but an ArrayBuffer (a SharedArrayBuffer has a getter of its own).
    with_intrinsics(|i| apply(&i.buffer_byte_length, value))
        .ok()
        .map(|_| Uint8Array::new(value))
}

/// What a caught exception said, for messages.
pub fn describe(err: JsValue) -> String {
    let name = Reflect::get(&err, &"name".into())
        .ok()
        .and_then(|n| n.as_string());
    let message = Reflect::get(&err, &"message".into())
        .ok()
        .and_then(|m| m.as_string());
    match (name, message) {
        (Some(n), Some(m)) => format!("reading it threw {n}: {m}"),
        (None, Some(m)) => format!("reading it threw: {m}"),
        _ => format!("reading it threw {}", show(&err)),
    }
}

/// A JS number as JS writes it (`String(n)`: `1.5`, `NaN`, `1e+21`). Written by JS, not by Rust's
/// float formatting, which would bring 9 KB of code and tables to the module for error messages.
pub fn number(n: f64) -> String {
    js_sys::Number::from(n)
        .to_string_with_radix(10)
        .map(String::from)
        .unwrap_or_default()
}

/// A short description of a value for messages, which runs none of its code (`{:?}` of a JsValue
/// would call its toString).
pub fn show(value: &JsValue) -> String {
    if let Some(s) = value.as_string() {
        let cut: String = s.chars().take(60).collect();
        return format!("{cut:?}");
    }
    if let Some(n) = value.as_f64() {
        return number(n);
    }
    if value.is_bigint() {
        return "a BigInt".into();
    }
    if value.is_null() {
        return "null".into();
    }
    if value.is_undefined() {
        return "undefined".into();
    }
    if let Some(b) = value.as_bool() {
        return b.to_string();
    }
    if value.is_function() {
        return "a function".into();
    }
    if value.is_symbol() {
        return "a symbol".into();
    }
    if let Some(parts) = typed_array(value) {
        return format!("a {} of length {}", parts.kind, parts.length);
    }
    if is_array(value).unwrap_or(false) {
        return "an array".into();
    }
    "an object".into()
}
