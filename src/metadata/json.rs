//! Reading metadata documents as JSON. zarr-python writes Python's non-standard `NaN`, `Infinity`
//! and `-Infinity` tokens for such float attributes (and older versions for fill values), in v2
//! and v3 documents alike; strict JSON refuses them. They are read as the strings "NaN",
//! "Infinity" and "-Infinity": the form the Zarr specs give non-finite floats in JSON.

use crate::error::{Result, ZarrError};
use serde_json::{Map, Value};

/// The most lists and objects a metadata document may hold. Parsed, each takes up to about 150
/// bytes (a 556 KB document of nested one-element lists took 80 MB), so this bounds what a
/// document can make the reader allocate (about 150 MB) whatever its size; the consolidated
/// metadata of a hierarchy of tens of thousands of arrays stays well below it.
pub const MAX_CONTAINERS: usize = 1_000_000;

/// Parses a metadata document; `location` names it in errors.
pub fn parse(bytes: &[u8], location: &str) -> Result<Value> {
    let containers = count_containers(bytes);
    if containers > MAX_CONTAINERS {
        return Err(ZarrError::metadata(
            location,
            format!("the document holds more than {MAX_CONTAINERS} lists and objects ({containers}), more than metadata may"),
        ));
    }
    read(bytes).map_err(|e| ZarrError::metadata(location, format!("not valid JSON ({e})")))
}

/// Where a scan of a JSON text is: inside a string (and after a backslash) or not. Shared with
/// numcodecs' json2, which walks object chunks without parsing them whole.
#[derive(Default)]
pub struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Whether the bytes taken so far end inside a string (its opening quote taken, not its
    /// closing one).
    pub fn in_string(&self) -> bool {
        self.inside
    }

    /// Takes the next byte; true when it lies outside strings and is not a quote.
    pub fn outside(&mut self, b: u8) -> bool {
        if self.inside {
            match (self.escaped, b) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.inside = false,
                _ => {}
            }
            false
        } else {
            self.inside = b == b'"';
            !self.inside
        }
    }
}

/// The lists and objects of a JSON text: its `[` and `{` outside strings.
pub fn count_containers(bytes: &[u8]) -> usize {
    let mut strings = Strings::default();
    bytes
        .iter()
        .filter(|&&b| strings.outside(b) && (b == b'[' || b == b'{'))
        .count()
}

const TOKENS: [&[u8]; 3] = [b"-Infinity", b"Infinity", b"NaN"];

/// `bytes` with each bare `NaN`, `Infinity` and `-Infinity` (outside strings) put in quotes, or
/// `None` where there is none.
pub fn quote_non_finite(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(bytes.len() + 16);
    let (mut strings, mut found) = (Strings::default(), false);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !strings.outside(b) {
            // Inside a string, or its quote: copied as it is.
        } else if let Some(token) = TOKENS.iter().find(|t| bytes[i..].starts_with(t)) {
            let end = i + token.len();
            // A whole token, not the start of a longer word.
            if !bytes.get(end).is_some_and(u8::is_ascii_alphanumeric) {
                out.push(b'"');
                out.extend_from_slice(token);
                out.push(b'"');
                found = true;
                i = end;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    found.then_some(out)
}

/// The items of the list `value`, each converted by `item`; `None` where it is not a list or an
/// item does not convert.
pub fn list<T>(value: &Value, item: impl Fn(&Value) -> Option<T>) -> Option<Vec<T>> {
    value.as_array()?.iter().map(item).collect()
}

/// The deepest nesting of lists and objects read, as serde_json allows (127): deeper text is an
/// error, not a stack overflow, which in wasm would end the instance.
const MAX_DEPTH: usize = 127;

/// Why a JSON text was not read, and where (a byte offset, given as line and column).
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    what: &'static str,
    line: usize,
    column: usize,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.what, self.line, self.column
        )
    }
}

/// Reads a JSON text (RFC 8259) into a `Value`, with Python's bare `NaN`, `Infinity` and
/// `-Infinity` read as those strings. Our own reader rather than serde_json's deserializer: the
/// module then carries no serde deserialization machinery (about 47 KB of wasm code for one
/// generic `Value` deserializer and its float parser). What it reads is what serde_json reads
/// (checked by tests/json_differential.rs): integers as u64 or i64 where they fit, other numbers
/// as the nearest double (Rust's own parser rounds exactly), duplicate keys keeping their first
/// place and their last value, strings as UTF-8 with every escape and surrogate pair checked.
pub fn read(bytes: &[u8]) -> std::result::Result<Value, SyntaxError> {
    read_with(bytes, true)
}

/// Reads a JSON text as [`read`] does, but strictly: Python's bare tokens are errors (numcodecs'
/// JSON codec checks element texts it passes on as they are).
pub fn read_strict(bytes: &[u8]) -> std::result::Result<Value, SyntaxError> {
    read_with(bytes, false)
}

fn read_with(bytes: &[u8], python_tokens: bool) -> std::result::Result<Value, SyntaxError> {
    let mut reader = Reader {
        bytes,
        at: 0,
        python_tokens,
    };
    let value = reader.value(0)?;
    reader.skip_space();
    if reader.at < bytes.len() {
        return Err(reader.error("trailing characters"));
    }
    Ok(value)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Whether bare `NaN`, `Infinity` and `-Infinity` are read (as those strings).
    python_tokens: bool,
}

impl Reader<'_> {
    fn error(&self, what: &'static str) -> SyntaxError {
        let before = &self.bytes[..self.at.min(self.bytes.len())];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let column = before.len()
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
        SyntaxError { what, line, column }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Takes `word` if the text goes on with it.
    fn take(&mut self, word: &[u8]) -> bool {
        let found = self.bytes[self.at..].starts_with(word);
        if found {
            self.at += word.len();
        }
        found
    }

    fn value(&mut self, depth: usize) -> std::result::Result<Value, SyntaxError> {
        self.skip_space();
        let Some(first) = self.peek() else {
            return Err(self.error("EOF while parsing a value"));
        };
        let word = |s: &str| Value::String(s.into());
        Ok(match first {
            b'{' | b'[' if depth == MAX_DEPTH => return Err(self.error("recursion limit exceeded")),
            b'{' => self.object(depth + 1)?,
            b'[' => self.list(depth + 1)?,
            b'"' => Value::String(self.string()?),
            _ if self.take(b"true") => Value::Bool(true),
            _ if self.take(b"false") => Value::Bool(false),
            _ if self.take(b"null") => Value::Null,
            _ if self.python_tokens && self.take(b"NaN") => word("NaN"),
            _ if self.python_tokens && self.take(b"Infinity") => word("Infinity"),
            _ if self.python_tokens && self.take(b"-Infinity") => word("-Infinity"),
            b'-' | b'0'..=b'9' => self.number()?,
            _ => return Err(self.error("expected value")),
        })
    }

    fn list(&mut self, depth: usize) -> std::result::Result<Value, SyntaxError> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.take(b"]") {
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            if !self.more(b']', "expected `,` or `]`", "EOF while parsing a list")? {
                return Ok(Value::Array(items));
            }
        }
    }

    /// After an item of a list or object: true where a comma says another follows, false where
    /// `close` ends it.
    fn more(
        &mut self,
        close: u8,
        expected: &'static str,
        eof: &'static str,
    ) -> std::result::Result<bool, SyntaxError> {
        self.skip_space();
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                Ok(true)
            }
            Some(b) if b == close => {
                self.at += 1;
                Ok(false)
            }
            Some(_) => Err(self.error(expected)),
            None => Err(self.error(eof)),
        }
    }

    fn object(&mut self, depth: usize) -> std::result::Result<Value, SyntaxError> {
        self.at += 1;
        let mut entries = Map::new();
        self.skip_space();
        if self.take(b"}") {
            return Ok(Value::Object(entries));
        }
        loop {
            self.skip_space();
            match self.peek() {
                Some(b'"') => {}
                Some(_) => return Err(self.error("key must be a string")),
                None => return Err(self.error("EOF while parsing an object")),
            }
            let key = self.string()?;
            self.skip_space();
            if !self.take(b":") {
                return Err(self.error(if self.peek().is_some() {
                    "expected `:`"
                } else {
                    "EOF while parsing an object"
                }));
            }
            let value = self.value(depth)?;
            entries.insert(key, value);
            if !self.more(b'}', "expected `,` or `}`", "EOF while parsing an object")? {
                return Ok(Value::Object(entries));
            }
        }
    }

    /// A string, its opening quote next.
    fn string(&mut self) -> std::result::Result<String, SyntaxError> {
        self.at += 1;
        let mut text = Vec::new();
        loop {
            // The run up to the next quote, backslash or control character is copied as it is.
            let run = self.bytes[self.at..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            let Some(run) = run else {
                self.at = self.bytes.len();
                return Err(self.error("EOF while parsing a string"));
            };
            text.extend_from_slice(&self.bytes[self.at..self.at + run]);
            self.at += run + 1;
            match self.bytes[self.at - 1] {
                b'"' => break,
                b'\\' => self.escape(&mut text)?,
                _ => return Err(self.error("control character in a string")),
            }
        }
        String::from_utf8(text).map_err(|_| self.error("invalid UTF-8 in a string"))
    }

    /// An escape, its backslash taken, appended to `text` as UTF-8.
    fn escape(&mut self, text: &mut Vec<u8>) -> std::result::Result<(), SyntaxError> {
        let Some(kind) = self.peek() else {
            return Err(self.error("EOF while parsing a string"));
        };
        self.at += 1;
        let byte = match kind {
            b'"' | b'\\' | b'/' => kind,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let unit = self.hex4()?;
                let code = match unit {
                    0xdc00..=0xdfff => {
                        return Err(self.error("lone trailing surrogate in an escape"))
                    }
                    0xd800..=0xdbff => {
                        if !self.take(b"\\u") {
                            return Err(self.error("lone leading surrogate in an escape"));
                        }
                        let low = self.hex4()?;
                        if !(0xdc00..=0xdfff).contains(&low) {
                            return Err(self.error("lone leading surrogate in an escape"));
                        }
                        0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)
                    }
                    _ => unit,
                };
                // Every value left is a scalar value: surrogates were paired above.
                let c = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
                text.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                return Ok(());
            }
            _ => return Err(self.error("invalid escape")),
        };
        text.push(byte);
        Ok(())
    }

    fn hex4(&mut self) -> std::result::Result<u32, SyntaxError> {
        let digits = self.bytes.get(self.at..self.at + 4);
        let Some(digits) = digits else {
            self.at = self.bytes.len();
            return Err(self.error("EOF while parsing a string"));
        };
        let mut unit = 0;
        for &d in digits {
            let Some(v) = (d as char).to_digit(16) else {
                return Err(self.error("invalid escape"));
            };
            unit = unit * 16 + v;
            self.at += 1;
        }
        Ok(unit)
    }

    /// A number: integers as u64 or i64 where they fit, as serde_json reads them; other numbers
    /// as the nearest double.
    fn number(&mut self) -> std::result::Result<Value, SyntaxError> {
        let start = self.at;
        let negative = self.take(b"-");
        let digits = |r: &mut Self| {
            let n = r.bytes[r.at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            r.at += n;
            n
        };
        let int_start = self.at;
        match digits(self) {
            0 => return Err(self.error("invalid number")),
            n if n > 1 && self.bytes[int_start] == b'0' => {
                self.at = int_start + 1;
                return Err(self.error("invalid number"));
            }
            _ => {}
        }
        let mut integer = true;
        if self.take(b".") {
            integer = false;
            if digits(self) == 0 {
                return Err(self.error("invalid number"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if digits(self) == 0 {
                return Err(self.error("invalid number"));
            }
        }
        // ASCII by construction.
        let text = std::str::from_utf8(&self.bytes[start..self.at]).unwrap_or_default();
        if integer {
            if negative {
                if let Ok(i) = text.parse::<i64>() {
                    return Ok(if i == 0 {
                        Value::from(-0.0)
                    } else {
                        Value::from(i)
                    });
                }
            } else if let Ok(u) = text.parse::<u64>() {
                return Ok(Value::from(u));
            }
        }
        match super::decimal::to_f64(text.as_bytes()) {
            f if f.is_finite() => Ok(Value::from(f)),
            _ => Err(self.error("number out of range")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_non_finite_tokens_read_as_the_specs_strings() {
        let doc = br#"{"a": NaN, "b": [Infinity, -Infinity], "s": "NaN \" Infinity", "n": -1.5}"#;
        assert_eq!(
            parse(doc, "m").unwrap(),
            json!({"a": "NaN", "b": ["Infinity", "-Infinity"], "s": "NaN \" Infinity", "n": -1.5})
        );
        let err = parse(b"{\"a\": NaNa}", "http://h/.zattrs").unwrap_err();
        assert!(err.message.contains("not valid JSON") && err.message.contains("http://h/.zattrs"));
        assert!(parse(b"{ nope", "m").is_err());
    }

    #[test]
    fn documents_of_too_many_lists_are_refused_before_parsing() {
        assert_eq!(
            count_containers(br#"{"a": [1, {"b": "[{"}], "c": "\"["}"#),
            3
        );
        let nested = "[".repeat(600_000) + &"]".repeat(600_000);
        let doc = format!("[{nested},{nested}]");
        let err = parse(doc.as_bytes(), "http://h/zarr.json").unwrap_err();
        assert!(
            err.message.contains("more than 1000000 lists and objects"),
            "{err}"
        );
    }
}
