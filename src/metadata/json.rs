//! Reading metadata documents as JSON. zarr-python writes Python's non-standard `NaN`, `Infinity`
//! and `-Infinity` tokens for such float attributes (and older versions for fill values), in v2
//! and v3 documents alike; strict JSON refuses them. They are read as the strings "NaN",
//! "Infinity" and "-Infinity": the form the Zarr specs give non-finite floats in JSON.

use crate::error::{Result, ZarrError};
use serde_json::Value;

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
    serde_json::from_slice(bytes)
        .or_else(|strict| match quote_non_finite(bytes) {
            Some(quoted) => serde_json::from_slice(&quoted).map_err(|_| strict),
            None => Err(strict),
        })
        .map_err(|e| ZarrError::metadata(location, format!("not valid JSON ({e})")))
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
