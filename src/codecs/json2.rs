//! numcodecs' `JSON` object codec (v2 id `json2`): a Zarr v2 object array's chunk as one JSON
//! list, the chunk's elements nested one list per dimension (NumPy's `tolist()`), then the dtype
//! (`"|O"`) and the chunk's shape. Decoding checks the shape and gives each element as its own
//! JSON text, in the variable-length layout the array layer reads (see `data_type::variable`):
//! users get them as JS values. Python's `NaN` and `Infinity` tokens read as the metadata reader
//! reads them (the strings "NaN", "Infinity"), and the document is bounded as metadata is.

use super::codec::{ArrayToBytesCodec, ChunkRepr, Codec, CodecEntry, Kind};
use crate::data_type::DataType;
use crate::error::CodecError;
use crate::metadata::json;
use serde_json::Value;
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

/// An object chunk of `shape` written as numcodecs' JSON list (elements nested per dimension,
/// then dtype and shape) in the variable-length layout, each element as its JSON text. Shared
/// with `msgpack2`, whose documents are turned into this JSON first.
pub fn object_chunk(encoded: &[u8], shape: &[u64]) -> Result<Vec<u8>, String> {
    // Parsed as metadata is (bounded, Python's non-finite tokens quoted) to check it; the
    // elements are then passed on as the text they are written as, because a float parsed and
    // printed again is not always the same float.
    let document = json::parse(encoded, "the chunk")
        .map_err(|e| e.message.trim_start_matches("the chunk: ").to_string())?;
    let Value::Array(list) = &document else {
        return Err("the chunk is not a JSON list".into());
    };
    let n = list.len();
    let (Some(dtype), Some(written)) = (n.checked_sub(2).map(|i| &list[i]), list.last()) else {
        return Err("the chunk's list does not end with a dtype and a shape".into());
    };
    if dtype != "|O" {
        return Err(format!("the chunk's dtype is {dtype}, not \"|O\""));
    }
    let sizes: Option<Vec<u64>> = written
        .as_array()
        .and_then(|dims| dims.iter().map(Value::as_u64).collect());
    if sizes.as_deref() != Some(shape) {
        return Err(format!(
            "the chunk says its shape is {written}, it should be {shape:?}"
        ));
    }
    let quoted = json::quote_non_finite(encoded);
    let text = quoted.as_deref().unwrap_or(encoded);
    let mut items = list_items(text);
    items.truncate(n - 2);
    let mut elements = Vec::new();
    match shape.len() {
        // A zero-dimensional chunk: its one element, alone in the list.
        0 => elements.extend(items.first().cloned()),
        _ => flatten(text, &items, shape, &mut elements)?,
    }
    let mut out = Vec::new();
    out.extend((elements.len() as u32).to_le_bytes());
    for element in elements {
        let len = u32::try_from(element.len())
            .map_err(|_| "an element's JSON text is over 4 GiB".to_string())?;
        out.extend(len.to_le_bytes());
        out.extend(&text[element]);
    }
    Ok(out)
}

/// Where the items of the JSON list `text[range]` (valid JSON, checked before) lie.
fn list_items_in(text: &[u8], range: Range<usize>) -> Vec<Range<usize>> {
    let mut items = Vec::new();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut start = None;
    for i in range {
        let b = text[i];
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth == 1 {
                    start = Some(i + 1);
                    continue;
                }
            }
            b']' | b'}' => depth -= 1,
            _ => {}
        }
        let ends_item = depth == 1 && b == b',' || depth == 0 && b == b']';
        if ends_item {
            if let Some(s) = start.take() {
                let item = trim(text, s..i);
                if !item.is_empty() {
                    items.push(item);
                }
            }
            start = Some(i + 1);
            if depth == 0 {
                break;
            }
        }
    }
    items
}

/// The items of the whole text, a JSON list.
fn list_items(text: &[u8]) -> Vec<Range<usize>> {
    list_items_in(text, 0..text.len())
}

/// `range` without the JSON whitespace around it.
fn trim(text: &[u8], mut range: Range<usize>) -> Range<usize> {
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    while range.start < range.end && space(text[range.start]) {
        range.start += 1;
    }
    while range.end > range.start && space(text[range.end - 1]) {
        range.end -= 1;
    }
    range
}

/// The elements of the lists at `items` (nested one list per dimension of `shape`), in C order.
fn flatten(
    text: &[u8],
    items: &[Range<usize>],
    shape: &[u64],
    out: &mut Vec<Range<usize>>,
) -> Result<(), String> {
    let Some((&len, inner)) = shape.split_first() else {
        return Ok(());
    };
    if items.len() as u64 != len {
        return Err(format!(
            "a list of {} where the chunk's shape has {len}",
            items.len()
        ));
    }
    for item in items {
        if inner.is_empty() {
            out.push(item.clone());
        } else if text[item.start] == b'[' {
            flatten(text, &list_items_in(text, item.clone()), inner, out)?;
        } else {
            let shown = String::from_utf8_lossy(&text[item.clone()])
                .chars()
                .take(80)
                .collect::<String>();
            return Err(format!("{shown} where a list of {} was expected", inner[0]));
        }
    }
    Ok(())
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
