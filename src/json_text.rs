//! A JSON value as compact JSON text, as serde_json writes it: for error messages that quote a
//! document's values, and the few places a value is kept as its text (an object fill value).
//!
//! Why not serde_json's `Display`: it goes through serde's serializer, whose code for `Value`
//! (compact and pretty formatters, maps and sequences) was 8 KB of the module every page downloads
//! (issue 33). Numbers are written as serde_json writes them: integers as they are, other numbers
//! shortest (`0.1`, `1e300`, `1.0`) by zmij, the formatter serde_json uses; object keys in their
//! order in the document.

use serde_json::{Map, Number, Value};
use std::fmt::{self, Write};

/// `value` written as JSON text by `{}`: `JsonText(&value).to_string()`.
pub struct JsonText<'a>(pub &'a Value);

impl fmt::Display for JsonText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_value(self.0, f)
    }
}

/// An object's entries as the JSON text of that object: attributes, which JavaScript reads
/// with `JSON.parse` when it first wants them.
pub fn object_text(entries: &Map<String, Value>) -> String {
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = write_object(entries, &mut text);
    text
}

fn write_value(value: &Value, out: &mut impl Write) -> fmt::Result {
    match value {
        Value::Null => out.write_str("null"),
        Value::Bool(b) => out.write_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write_value(item, out)?;
            }
            out.write_char(']')
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object(map: &Map<String, Value>, out: &mut impl Write) -> fmt::Result {
    out.write_char('{')?;
    for (i, (key, item)) in map.iter().enumerate() {
        if i > 0 {
            out.write_char(',')?;
        }
        write_string(key, out)?;
        out.write_char(':')?;
        write_value(item, out)?;
    }
    out.write_char('}')
}

/// A number as serde_json writes it (a `Number` holds no NaN or infinity).
fn write_number(n: &Number, out: &mut impl Write) -> fmt::Result {
    if let Some(u) = n.as_u64() {
        write!(out, "{u}")
    } else if let Some(i) = n.as_i64() {
        write!(out, "{i}")
    } else {
        match n.as_f64() {
            Some(f) if f.is_finite() => out.write_str(zmij::Buffer::new().format_finite(f)),
            _ => out.write_str("null"),
        }
    }
}

/// A string between quotes, escaped as JSON needs (quote, backslash, control characters).
fn write_string(s: &str, out: &mut impl Write) -> fmt::Result {
    out.write_char('"')?;
    let mut plain = 0; // where the run of characters written as they are starts
    for (at, c) in s.char_indices() {
        let escape = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            c if (c as u32) < 0x20 => "",
            _ => continue,
        };
        out.write_str(&s[plain..at])?;
        if escape.is_empty() {
            write!(out, "\\u{:04x}", c as u32)?;
        } else {
            out.write_str(escape)?;
        }
        plain = at + c.len_utf8();
    }
    out.write_str(&s[plain..])?;
    out.write_char('"')
}

#[cfg(test)]
mod tests {
    use super::JsonText;
    use serde_json::{json, Value};

    /// What serde_json writes, for documents of every kind of value.
    #[test]
    fn writes_what_serde_json_writes() {
        let documents = [
            json!(null),
            json!(true),
            json!([
                false,
                0,
                -1,
                18446744073709551615u64,
                -9223372036854775808i64
            ]),
            json!([
                0.1,
                1.0,
                -2.5,
                1e300,
                5e-324,
                1.7976931348623157e308,
                123456789.125,
                -0.0
            ]),
            json!({"b": 1, "a": [], "": {}, "nested": {"x": [1, {"y": null}]}}),
            json!("quote \" backslash \\ slash / newline \n tab \t cr \r bs \u{8} ff \u{c}"),
            json!("\u{0} \u{1f} \u{7f} é 字 😀 \u{2028}"),
            json!({"key \"quoted\"\n": "value"}),
        ];
        for doc in documents {
            assert_eq!(JsonText(&doc).to_string(), doc.to_string());
        }
    }

    /// Read back by the module's own JSON reader, the text is the value it was written from.
    #[test]
    fn round_trips_through_the_reader() {
        let doc = json!({"a": [1, -2, 0.5, "x\u{1}y"], "b": {"c": null, "d": true}});
        let text = JsonText(&doc).to_string();
        let back: Value = crate::metadata::json::read(text.as_bytes()).unwrap();
        assert_eq!(back, doc);
    }
}
