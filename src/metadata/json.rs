//! Reading metadata documents as JSON. zarr-python writes Python's non-standard `NaN`, `Infinity`
//! and `-Infinity` tokens for such float attributes (and older versions for fill values), in v2
//! and v3 documents alike; strict JSON refuses them. They are read as the strings "NaN",
//! "Infinity" and "-Infinity": the form the Zarr specs give non-finite floats in JSON.

use crate::error::{Result, ZarrError};
use serde_json::{Map, Value};

/// The most lists and objects a metadata document may hold. Parsed, each takes up to about 400
/// bytes at the peak (a one-element list: its slot in its parent, grown by doubling, and its own
/// vector; 556 KB of nested one-element lists took 80 MB), so this bounds what a document can
/// make the reader allocate (about 400 MB) whatever its size; the consolidated
/// metadata of a hierarchy of tens of thousands of arrays stays well below it.
pub const MAX_CONTAINERS: usize = 1_000_000;

/// Parses a metadata document; `location` names it in errors. At most `MAX_CONTAINERS` lists
/// and objects: a document that opens one more is refused there.
pub fn parse(bytes: &[u8], location: &str) -> Result<Value> {
    let mut parse = Parse::new(bytes, true).max_containers(MAX_CONTAINERS);
    loop {
        if let Some(value) = parse
            .advance(usize::MAX)
            .map_err(|e| parse_error(e, location))?
        {
            return Ok(value);
        }
    }
}

/// Bytes of a document read between two looks at the clock: about 1,000 lists and objects at
/// the most, well under a slice of the event loop's time.
const PART: usize = 4 << 10;

/// Parses a metadata document as `parse` does, giving the event loop a turn whenever reading it
/// has taken a slice of time (`host::yield_if_busy`): a document of a million lists, or of a
/// hundred megabytes, is read in many short turns instead of one of seconds.
pub async fn parse_yielding(bytes: &[u8], location: &str) -> Result<Value> {
    let mut parse = Parse::new(bytes, true).max_containers(MAX_CONTAINERS);
    loop {
        if let Some(value) = parse.advance(PART).map_err(|e| parse_error(e, location))? {
            return Ok(value);
        }
        crate::host::yield_if_busy().await;
    }
}

fn parse_error(e: ParseError, location: &str) -> ZarrError {
    match e {
        ParseError::Syntax(e) => ZarrError::metadata(location, format!("not valid JSON ({e})")),
        ParseError::TooManyContainers(max) => ZarrError::metadata(
            location,
            format!("the document holds more than {max} lists and objects, more than metadata may"),
        ),
    }
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
    let mut parse = Parse::new(bytes, python_tokens);
    loop {
        match parse.advance(usize::MAX) {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => {}
            Err(ParseError::Syntax(e)) => return Err(e),
            // Not given a bound, so not refused for its size.
            Err(ParseError::TooManyContainers(_)) => {
                return Err(parse.reader.error("too many lists and objects"))
            }
        }
    }
}

/// A JSON text being read, a part at a time: `advance` reads on for about a given number of
/// bytes, so that a long document can give the event loop turns while it is read
/// (`parse_yielding`). What is open (lists, objects, a string) is held here rather than in
/// calls, so that reading can stop anywhere, even inside a long string, and no text, however
/// deep, recurses.
pub struct Parse<'a> {
    reader: Reader<'a>,
    /// The lists and objects open around the place read, outermost first.
    open: Vec<Open>,
    /// A string being read (its opening quote taken), and whether it is an object's key.
    string: Option<(String, bool)>,
    /// A value read whole and not yet put in its list or object (or, with nothing open, the
    /// document).
    done: Option<Value>,
    /// Lists and objects opened so far, and the most the text may open (`None`: no bound).
    containers: usize,
    max_containers: Option<usize>,
    /// Entries an object that grows past `ROOM_AT` entries is given room for at once.
    object_room: Option<usize>,
}

/// Where a large object gets its room (`Parse::object_room`): growing a map of this many entries
/// is cheap; growing one of a million by doubling rehashed it in one piece (78 ms in Chromium).
const ROOM_AT: usize = 4096;

/// A list or object whose items are being read.
enum Open {
    List(Vec<Value>),
    /// Its entries so far, and the key of the value being read.
    Object(Map<String, Value>, String),
}

impl<'a> Parse<'a> {
    pub fn new(bytes: &'a [u8], python_tokens: bool) -> Parse<'a> {
        Parse {
            reader: Reader {
                bytes,
                at: 0,
                python_tokens,
            },
            open: Vec::new(),
            string: None,
            done: None,
            containers: 0,
            max_containers: None,
            object_room: None,
        }
    }

    /// Gives an object that reaches `ROOM_AT` entries room for `entries` at once, so that it never
    /// grows again by rehashing all it holds in one piece: for texts whose largest object is
    /// known to be large (a reference file's `refs`), `entries` an upper bound of its size.
    pub fn object_room(mut self, entries: usize) -> Parse<'a> {
        self.object_room = Some(entries);
        self
    }

    /// Refuses a text that opens more than `max` lists and objects, as soon as it opens one
    /// more: what it may make the reader allocate is bounded whatever its size.
    pub fn max_containers(mut self, max: usize) -> Parse<'a> {
        self.max_containers = Some(max);
        self
    }

    /// Reads on for about `bytes` bytes (at least one; an escape is read whole): the document
    /// once it has been read to its end, `None` while there is more to read.
    pub fn advance(&mut self, bytes: usize) -> std::result::Result<Option<Value>, ParseError> {
        let stop = self.reader.at.saturating_add(bytes.max(1));
        while self.reader.at < stop || self.done.is_some() {
            if let Some((text, key)) = &mut self.string {
                if !self.reader.string_part(text, stop)? {
                    continue;
                }
                let text = std::mem::take(text);
                let key = *key;
                self.string = None;
                let r = &mut self.reader;
                if !key {
                    self.done = Some(Value::String(text));
                    continue;
                }
                r.skip_space();
                if !r.take(b":") {
                    return Err(r
                        .error(if r.peek().is_some() {
                            "expected `:`"
                        } else {
                            "EOF while parsing an object"
                        })
                        .into());
                }
                if let Some(Open::Object(_, pending)) = self.open.last_mut() {
                    *pending = text;
                }
                continue;
            }
            let Some(value) = self.done.take() else {
                self.start_value()?;
                continue;
            };
            // `value` is whole: it goes into the list or object around it, which may end here.
            let room = self.object_room;
            let r = &mut self.reader;
            match self.open.last_mut() {
                None => {
                    r.skip_space();
                    if r.at < r.bytes.len() {
                        return Err(r.error("trailing characters").into());
                    }
                    return Ok(Some(value));
                }
                Some(Open::List(items)) => {
                    items.push(value);
                    if !r.more(b']', "expected `,` or `]`", "EOF while parsing a list")? {
                        self.close();
                    }
                }
                Some(Open::Object(entries, key)) => {
                    if let Some(room) = room.filter(|_| entries.len() == ROOM_AT) {
                        // serde_json's map has no `reserve`: its entries move into one with room.
                        let mut roomy = Map::with_capacity(room.max(ROOM_AT + 1));
                        roomy.extend(std::mem::take(entries));
                        *entries = roomy;
                    }
                    entries.insert(std::mem::take(key), value);
                    if r.more(b'}', "expected `,` or `}`", "EOF while parsing an object")? {
                        self.start_key()?;
                    } else {
                        self.close();
                    }
                }
            }
        }
        Ok(None)
    }

    /// Ends the innermost open list or object: it is the value read whole.
    fn close(&mut self) {
        self.done = self.open.pop().map(|open| match open {
            Open::List(items) => Value::Array(items),
            Open::Object(entries, _) => Value::Object(entries),
        });
    }

    /// Starts an object's key (its opening quote next, after white space).
    fn start_key(&mut self) -> std::result::Result<(), SyntaxError> {
        let r = &mut self.reader;
        r.skip_space();
        match r.peek() {
            Some(b'"') => {}
            Some(_) => return Err(r.error("key must be a string")),
            None => return Err(r.error("EOF while parsing an object")),
        }
        r.at += 1;
        self.string = Some((String::new(), true));
        Ok(())
    }

    /// Reads the start of a value: a scalar whole (then `done`), or the opening of a list, an
    /// object or a string (then open; an empty list or object is whole).
    fn start_value(&mut self) -> std::result::Result<(), ParseError> {
        let r = &mut self.reader;
        r.skip_space();
        let Some(first) = r.peek() else {
            return Err(r.error("EOF while parsing a value").into());
        };
        if matches!(first, b'{' | b'[') {
            if self.open.len() == MAX_DEPTH {
                return Err(r.error("recursion limit exceeded").into());
            }
            self.containers += 1;
            if let Some(max) = self.max_containers.filter(|&max| self.containers > max) {
                return Err(ParseError::TooManyContainers(max));
            }
        }
        let word = |s: &str| Value::String(s.into());
        self.done = Some(match first {
            b'{' => {
                r.at += 1;
                r.skip_space();
                if !r.take(b"}") {
                    self.open.push(Open::Object(Map::new(), String::new()));
                    return Ok(self.start_key()?);
                }
                Value::Object(Map::new())
            }
            b'[' => {
                r.at += 1;
                r.skip_space();
                if !r.take(b"]") {
                    self.open.push(Open::List(Vec::new()));
                    return Ok(());
                }
                Value::Array(Vec::new())
            }
            b'"' => {
                r.at += 1;
                self.string = Some((String::new(), false));
                return Ok(());
            }
            _ if r.take(b"true") => Value::Bool(true),
            _ if r.take(b"false") => Value::Bool(false),
            _ if r.take(b"null") => Value::Null,
            _ if r.python_tokens && r.take(b"NaN") => word("NaN"),
            _ if r.python_tokens && r.take(b"Infinity") => word("Infinity"),
            _ if r.python_tokens && r.take(b"-Infinity") => word("-Infinity"),
            b'-' | b'0'..=b'9' => r.number()?,
            _ => return Err(r.error("expected value").into()),
        });
        Ok(())
    }
}

/// Why `Parse` stopped: the text is not JSON, or it opens more lists and objects than allowed.
#[derive(Debug, Clone, PartialEq)]
pub enum ParseError {
    Syntax(SyntaxError),
    TooManyContainers(usize),
}

impl From<SyntaxError> for ParseError {
    fn from(e: SyntaxError) -> ParseError {
        ParseError::Syntax(e)
    }
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

    /// Reads on in a string whose opening quote was taken, into `text` (unescaped): true once
    /// its closing quote is taken, false where `stop` came first. Each part is checked as UTF-8
    /// as it is taken (a part ends on a character's boundary), so a long string is never
    /// checked, nor copied, again.
    fn string_part(
        &mut self,
        text: &mut String,
        stop: usize,
    ) -> std::result::Result<bool, SyntaxError> {
        loop {
            let mut end = stop.clamp(self.at, self.bytes.len());
            // The run up to the next quote, backslash or control character is taken as it is.
            let run = self.bytes[self.at..end]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20);
            if run.is_none() {
                // Cut at `stop`: on to the end of the character there (continuation bytes).
                while end < self.bytes.len() && self.bytes[end] & 0xc0 == 0x80 {
                    end += 1;
                }
            }
            let part_end = run.map_or(end, |run| self.at + run);
            let part = std::str::from_utf8(&self.bytes[self.at..part_end]).map_err(|e| {
                self.at += e.valid_up_to();
                self.error("invalid UTF-8 in a string")
            })?;
            text.push_str(part);
            self.at = part_end;
            let Some(_) = run else {
                if end == self.bytes.len() {
                    return Err(self.error("EOF while parsing a string"));
                }
                return Ok(false);
            };
            self.at += 1;
            match self.bytes[self.at - 1] {
                b'"' => return Ok(true),
                b'\\' => self.escape(text)?,
                _ => return Err(self.error("control character in a string")),
            }
            if self.at >= stop {
                return Ok(false);
            }
        }
    }

    /// An escape, its backslash taken, appended to `text` as UTF-8.
    fn escape(&mut self, text: &mut String) -> std::result::Result<(), SyntaxError> {
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
                text.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                return Ok(());
            }
            _ => return Err(self.error("invalid escape")),
        };
        text.push(char::from(byte));
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
    fn an_object_given_room_reads_as_any_other_in_its_order() {
        let entries: Vec<String> = (0..10_000)
            .map(|i| format!("\"k{}\":[{i}]", 9_999 - i))
            .collect();
        let text = format!("{{\"a\":{{{}}},\"b\":1}}", entries.join(","));
        let plain = read(text.as_bytes()).unwrap();
        let mut parse = Parse::new(text.as_bytes(), true).object_room(20_000);
        let roomy = loop {
            if let Some(v) = parse.advance(1000).unwrap() {
                break v;
            }
        };
        assert_eq!(roomy, plain);
        let keys: Vec<&String> = roomy["a"].as_object().unwrap().keys().take(2).collect();
        assert_eq!(keys, ["k9999", "k9998"]);
    }

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
    fn documents_of_too_many_lists_are_refused_as_they_are_read() {
        assert_eq!(
            count_containers(br#"{"a": [1, {"b": "[{"}], "c": "\"["}"#),
            3
        );
        let doc = format!("[{}0]", "[0],".repeat(MAX_CONTAINERS));
        let err = parse(doc.as_bytes(), "http://h/zarr.json").unwrap_err();
        assert!(
            err.message.contains("more than 1000000 lists and objects"),
            "{err}"
        );
        let at_most = format!("[{}0]", "[0],".repeat(MAX_CONTAINERS - 1));
        assert!(parse(at_most.as_bytes(), "m").is_ok());
        let nested = "[".repeat(600_000) + &"]".repeat(600_000);
        let err = parse(nested.as_bytes(), "m").unwrap_err();
        assert!(err.message.contains("recursion limit exceeded"), "{err}");
    }

    /// `text` read by `Parse` in parts of `part` bytes.
    fn in_parts(text: &[u8], part: usize) -> std::result::Result<Value, ParseError> {
        let mut parse = Parse::new(text, true);
        let mut calls = 0;
        loop {
            calls += 1;
            assert!(
                calls <= text.len() + 2,
                "no progress at {}",
                parse.reader.at
            );
            if let Some(value) = parse.advance(part)? {
                return Ok(value);
            }
        }
    }

    #[test]
    fn read_in_parts_of_any_size_a_text_reads_as_it_does_whole() {
        let doc = r#" {"a": [1, -0, 2.5e-3, {"ü∂é": "naïve 𝄞 \u00e9\ud834\udd1e \"q\""}],
            "empty": {}, "none": [], "n": null, "t": true, "f": false, "nan": NaN,
            "long": "αβγδεζηθικλμνξοπρστυφχψω ... ωψχφυτσρποξνμλκιθηζεδγβα", "k": [[[]]]} "#;
        let whole = read(doc.as_bytes()).unwrap();
        for part in 1..=doc.len() + 1 {
            assert_eq!(
                in_parts(doc.as_bytes(), part).unwrap(),
                whole,
                "parts of {part}"
            );
        }
        for bad in [
            &br#"{"a": [1, 2}"#[..],
            br#"{"a" 1}"#,
            br#"{"a": "x"#,
            b"[1, 2",
            b"{1: 2}",
            b"\"\xff\xfe\"",
            b"\"\xce\"",
            b"\"a\x01\"",
            b"[1] x",
            b"",
            b"  ",
        ] {
            let whole = read(bad).unwrap_err();
            for part in 1..=bad.len() + 1 {
                assert_eq!(
                    in_parts(bad, part),
                    Err(ParseError::Syntax(whole.clone())),
                    "{} in parts of {part}",
                    String::from_utf8_lossy(bad)
                );
            }
        }
    }

    #[test]
    fn a_long_document_is_read_in_short_parts() {
        // A million values, and a string of 8 MiB: each part reads about PART bytes.
        let doc = format!(
            "{{\"a\": [{}0], \"s\": \"{}\"}}",
            "[0],".repeat(250_000),
            "é".repeat(4 << 20)
        );
        let mut parse = Parse::new(doc.as_bytes(), true).max_containers(MAX_CONTAINERS);
        let mut parts = 0;
        loop {
            let before = parse.reader.at;
            let value = parse.advance(PART).unwrap();
            assert!(
                parse.reader.at - before <= PART + 8,
                "a part of {}",
                parse.reader.at - before
            );
            parts += 1;
            if let Some(value) = value {
                assert_eq!(value["s"].as_str().unwrap().len(), 8 << 20);
                assert_eq!(value["a"].as_array().unwrap().len(), 250_001);
                break;
            }
        }
        assert!(parts >= doc.len() / PART, "{parts} parts");
        let yielded = futures_executor::block_on(parse_yielding(doc.as_bytes(), "m")).unwrap();
        assert_eq!(yielded, read(doc.as_bytes()).unwrap());
    }
}
