//! numcodecs' `JSON` object codec (v2 id `json2`): a Zarr v2 object array's chunk as one JSON
//! list, the chunk's elements nested one list per dimension (NumPy's `tolist()`), then the dtype
//! (`"|O"`) and the chunk's shape. Decoding checks the shape and gives each element as its own
//! JSON text, in the variable-length layout the array layer reads (see `data_type::variable`):
//! users get them as JS values. Python's `NaN` and `Infinity` tokens read as the metadata reader
//! reads them (the strings "NaN", "Infinity"), and the document is bounded as metadata is.

use super::codec::{ArrayToBytesCodec, ChunkRepr, Codec, CodecEntry, Kind};
use crate::data_type::variable::element_count;
use crate::data_type::DataType;
use crate::error::CodecError;
use crate::metadata::json;
use std::ops::Range;

/// numcodecs' `json2`, the object codec of v2 object arrays.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.json2"],
    kind: Kind::ArrayToBytes,
    build: |_, cx| match cx.data_type {
        DataType::Object => Ok(Codec::array_to_bytes(Json2Codec)),
        other => Err(format!("encodes object arrays, not {other}")),
    },
}];

pub struct Json2Codec;

impl ArrayToBytesCodec for Json2Codec {
    fn name(&self) -> &'static str {
        "numcodecs.json2"
    }

    fn encoded_size(&self, _repr: &ChunkRepr) -> Option<usize> {
        None
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        object_chunk(&encoded, &repr.shape).map_err(|e| CodecError::new("numcodecs.json2", e))
    }
}

/// The deepest nesting of lists and objects read, as the metadata reader (serde_json) allows.
const MAX_DEPTH: usize = 128;

/// An object chunk of `shape` written as numcodecs' JSON list (elements nested per dimension,
/// then dtype and shape) in the variable-length layout, each element as its JSON text. Shared
/// with `msgpack2`, whose documents are turned into this JSON first.
///
/// The document is walked once, each list checked against the shape as it is read: a list
/// longer than the shape allows is refused there, before the rest is looked at, and nothing is
/// built but the result (whose size follows the document's). The elements are passed on as the
/// text they are written as (checked by serde_json, which allocates nothing for it), because a
/// float parsed and printed again is not always the same float.
pub fn object_chunk(encoded: &[u8], shape: &[u64]) -> Result<Vec<u8>, String> {
    let count = element_count(shape)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("a chunk of shape {shape:?} has more elements than a chunk may"))?;
    if shape.len() >= MAX_DEPTH {
        return Err(format!(
            "a chunk of {} dimensions nests its lists deeper than {MAX_DEPTH}",
            shape.len()
        ));
    }
    match Walk::chunk(encoded, shape, count) {
        Ok(out) => Ok(out),
        // Python's NaN and Infinity tokens are read as the metadata reader reads them (quoted),
        // and the elements are then the quoted text.
        Err(Fault::Syntax(strict)) => match json::quote_non_finite(encoded) {
            Some(quoted) => Walk::chunk(&quoted, shape, count).map_err(Fault::into_message),
            None => Err(strict),
        },
        Err(Fault::Chunk(message)) => Err(message),
    }
}

/// Why a document is not a chunk: it is not JSON (where quoting Python's non-finite tokens may
/// help), or it is but does not hold a chunk of the shape.
enum Fault {
    Syntax(String),
    Chunk(String),
}

impl Fault {
    fn into_message(self) -> String {
        match self {
            Fault::Syntax(m) | Fault::Chunk(m) => m,
        }
    }
}

/// A walk through a JSON chunk, writing its elements out in the variable-length layout.
struct Walk<'a> {
    text: &'a [u8],
    at: usize,
    out: Vec<u8>,
}

impl<'a> Walk<'a> {
    /// Reads the whole document `text` as a chunk of `shape` (`count` elements).
    fn chunk(text: &'a [u8], shape: &[u64], count: u32) -> Result<Vec<u8>, Fault> {
        let mut walk = Walk {
            text,
            at: 0,
            out: Vec::new(),
        };
        walk.out.extend(count.to_le_bytes());
        if walk.peek() != Some(b'[') {
            // Said as serde_json says it where the document is not JSON at all.
            return Err(match json::read_strict(text) {
                Err(e) => Fault::Syntax(format!("not valid JSON ({e})")),
                Ok(_) => Fault::Chunk("the chunk is not a JSON list".into()),
            });
        }
        walk.at += 1;
        // A zero-dimensional chunk's list holds its one element; the others nest one list per
        // dimension. Then come the dtype and the shape.
        let (len, inner) = shape.split_first().map_or((1, &[][..]), |(&l, i)| (l, i));
        let items = len.saturating_add(2);
        let short = |found: u64| {
            Fault::Chunk(format!(
                "the chunk's list has {found} items, where a chunk of shape {shape:?} has {len} elements then its dtype and shape"
            ))
        };
        for i in 0..len {
            if !walk.item(i == 0)? {
                return Err(short(i));
            }
            walk.subtree(inner, 1)?;
        }
        let mut last = [0..0, 0..0];
        for (i, range) in last.iter_mut().enumerate() {
            let k = len + i as u64;
            if !walk.item(k == 0)? {
                return Err(short(k));
            }
            *range = walk.value(1)?;
        }
        if walk.item(false)? {
            return Err(Fault::Chunk(format!(
                "the chunk's list has more than {items} items, where a chunk of shape {shape:?} has {len} elements then its dtype and shape"
            )));
        }
        walk.ws();
        if walk.at != text.len() {
            return Err(walk.syntax("trailing characters"));
        }
        let [dtype, written] = last;
        let dtype_text = &text[dtype];
        let is_object =
            dtype_text.len() <= 64 && json::read_strict(dtype_text).is_ok_and(|d| d == "|O");
        if !is_object {
            return Err(Fault::Chunk(format!(
                "the chunk's dtype is {}, not \"|O\"",
                shown(dtype_text)
            )));
        }
        if walk.dims(written.clone(), shape.len()).as_deref() != Some(shape) {
            return Err(Fault::Chunk(format!(
                "the chunk says its shape is {}, it should be {shape:?}",
                shown(&text[written])
            )));
        }
        Ok(walk.out)
    }

    /// Skips JSON whitespace.
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.text.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte that is not whitespace.
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.text.get(self.at).copied()
    }

    fn syntax(&self, what: &str) -> Fault {
        Fault::Syntax(format!("not valid JSON ({what} at byte {})", self.at))
    }

    /// Whether a list (its `[` read) has another item: for the `first`, that the list does not
    /// end at once; after that, a comma rather than the closing bracket.
    fn item(&mut self, first: bool) -> Result<bool, Fault> {
        match self.peek() {
            Some(b']') => {
                self.at += 1;
                Ok(false)
            }
            Some(_) if first => Ok(true),
            Some(b',') => {
                self.at += 1;
                Ok(true)
            }
            Some(_) => Err(self.syntax("expected ',' or ']'")),
            None => Err(self.syntax("EOF while parsing a list")),
        }
    }

    /// The part of the chunk an item of a list at `depth` holds: lists nested one per entry of
    /// `shape`, each as long as its entry, then the elements, written out.
    fn subtree(&mut self, shape: &[u64], depth: usize) -> Result<(), Fault> {
        let Some((&len, inner)) = shape.split_first() else {
            let range = self.value(depth)?;
            let len = u32::try_from(range.len())
                .map_err(|_| Fault::Chunk("an element's JSON text is over 4 GiB".to_string()))?;
            self.out.extend(len.to_le_bytes());
            self.out.extend(&self.text[range]);
            return Ok(());
        };
        if self.peek() != Some(b'[') {
            let range = self.value(depth)?;
            return Err(Fault::Chunk(format!(
                "{} where a list of {len} was expected",
                shown(&self.text[range])
            )));
        }
        self.at += 1;
        for i in 0..len {
            if !self.item(i == 0)? {
                return Err(Fault::Chunk(format!(
                    "a list of {i} where the chunk's shape has {len}"
                )));
            }
            self.subtree(inner, depth + 1)?;
        }
        if self.item(len == 0)? {
            return Err(Fault::Chunk(format!(
                "a list of more than {len} where the chunk's shape has {len}"
            )));
        }
        Ok(())
    }

    /// Reads one JSON value inside `depth` lists, checked by serde_json: where it lies.
    fn value(&mut self, depth: usize) -> Result<Range<usize>, Fault> {
        self.ws();
        let (text, start) = (self.text, self.at);
        let mut end = start;
        match text.get(start) {
            None => return Err(self.syntax("EOF while parsing a value")),
            Some(b'[' | b'{') => {
                let mut nested = 0usize;
                let mut strings = json::Strings::default();
                loop {
                    let Some(&b) = text.get(end) else {
                        self.at = end;
                        return Err(self.syntax("EOF while parsing a list or object"));
                    };
                    end += 1;
                    if !strings.outside(b) {
                        continue;
                    }
                    match b {
                        b'[' | b'{' => {
                            nested += 1;
                            if depth + nested > MAX_DEPTH {
                                return Err(Fault::Chunk(format!(
                                    "lists and objects nested deeper than {MAX_DEPTH}"
                                )));
                            }
                        }
                        b']' | b'}' => {
                            nested -= 1;
                            if nested == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
            }
            Some(b'"') => {
                let mut strings = json::Strings::default();
                loop {
                    let Some(&b) = text.get(end) else {
                        self.at = end;
                        return Err(self.syntax("EOF while parsing a string"));
                    };
                    end += 1;
                    strings.outside(b);
                    // The closing quote: outside again.
                    if !strings.in_string() {
                        break;
                    }
                }
            }
            Some(_) => {
                while !matches!(
                    text.get(end),
                    None | Some(b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    end += 1;
                }
                if end == start {
                    return Err(self.syntax("expected value"));
                }
            }
        }
        if let Err(e) = json::read_strict(&text[start..end]) {
            return Err(Fault::Syntax(format!(
                "not valid JSON (the value at byte {start}: {e})"
            )));
        }
        self.at = end;
        Ok(start..end)
    }

    /// The list of at most `ndim` integers at `range` (a value already read), or `None`.
    fn dims(&self, range: Range<usize>, ndim: usize) -> Option<Vec<u64>> {
        let mut walk = Walk {
            text: &self.text[..range.end],
            at: range.start,
            out: Vec::new(),
        };
        if walk.peek() != Some(b'[') {
            return None;
        }
        walk.at += 1;
        let mut dims = Vec::new();
        while walk.item(dims.is_empty()).ok()? {
            if dims.len() == ndim {
                return None;
            }
            let item = walk.value(2).ok()?;
            dims.push(json::read_strict(&walk.text[item]).ok()?.as_u64()?);
        }
        Some(dims)
    }
}

/// Up to 80 characters of a JSON text, for messages.
fn shown(text: &[u8]) -> String {
    let mut shown: String = String::from_utf8_lossy(&text[..text.len().min(320)])
        .chars()
        .take(80)
        .collect();
    if shown.len() < text.len() {
        shown.push_str("...");
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_type::variable::item_ranges;

    fn decode(text: &str, shape: Vec<u64>) -> Result<Vec<String>, CodecError> {
        let repr = ChunkRepr {
            shape,
            data_type: DataType::Object,
        };
        let out = Json2Codec.decode(text.as_bytes().to_vec(), &repr)?;
        let n = u32::from_le_bytes([out[0], out[1], out[2], out[3]]) as usize;
        let ranges = item_ranges(&out, n).unwrap();
        Ok(ranges
            .into_iter()
            .map(|r| String::from_utf8(out[r].to_vec()).unwrap())
            .collect())
    }

    #[test]
    fn elements_come_out_in_c_order_as_json_text() {
        let got = decode(
            r#"[[1, "a"], [[2, 3], {"k": null}], "|O", [2, 2]]"#,
            vec![2, 2],
        )
        .unwrap();
        // Floats keep their text (a parse and print would not always give it back).
        assert_eq!(
            decode(r#"[1.0016547499330197, "|O", [1]]"#, vec![1]).unwrap(),
            ["1.0016547499330197"]
        );
        assert_eq!(got, ["1", "\"a\"", "[2, 3]", "{\"k\": null}"]);
        assert_eq!(decode(r#"[7, "|O", []]"#, vec![]).unwrap(), ["7"]);
        // Python's NaN token, as metadata reads it.
        assert_eq!(decode(r#"[NaN, "|O", [1]]"#, vec![1]).unwrap(), ["\"NaN\""]);
    }

    #[test]
    fn shapes_that_disagree_and_broken_documents_are_errors() {
        for (text, shape) in [
            (r#"[1, 2, "|O", [3]]"#, vec![3]),
            (r#"[1, 2, "|O", [2]]"#, vec![3]),
            (r#"[[1], 2, "|O", [2, 1]]"#, vec![2, 1]),
            (r#"[1, "<i4", [1]]"#, vec![1]),
            (r#"{"a": 1}"#, vec![1]),
            (r#"[1, 2"#, vec![1]),
            (r#"[]"#, vec![]),
        ] {
            assert!(decode(text, shape.clone()).is_err(), "{text} {shape:?}");
        }
    }
}
