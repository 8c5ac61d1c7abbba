//! numcodecs' `MsgPack` object codec (v2 id `msgpack2`): a Zarr v2 object array's chunk as one
//! MessagePack list laid out as `json2`'s (elements nested one list per dimension, then dtype and
//! shape). The document is written out as JSON text and read as `json2` reads its own, so each
//! element reaches users as a JS value. Byte strings (MessagePack `bin`) and extension types have
//! no JSON form and are refused, saying so; non-finite floats become the strings "NaN",
//! "Infinity" and "-Infinity", as in `json2`.

use super::codec::{ArrayToBytesCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::json2::object_chunk;
use crate::data_type::DataType;
use crate::error::CodecError;

/// numcodecs' `msgpack2`, the object codec of v2 object arrays.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.msgpack2"],
    kind: Kind::ArrayToBytes,
    build: |_, cx| match cx.data_type {
        DataType::Object => Ok(Codec::array_to_bytes(MsgPack2Codec)),
        other => Err(format!("encodes object arrays, not {other}")),
    },
}];

/// The deepest nesting read: deeper documents are refused rather than recursed into.
const MAX_DEPTH: u32 = 128;

pub struct MsgPack2Codec;

impl ArrayToBytesCodec for MsgPack2Codec {
    fn name(&self) -> &'static str {
        "numcodecs.msgpack2"
    }

    fn encoded_size(&self, _repr: &ChunkRepr) -> Option<usize> {
        None
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.msgpack2", e);
        let mut reader = Reader {
            input: &encoded,
            at: 0,
        };
        let mut json = Vec::with_capacity(encoded.len() * 2);
        reader.value(&mut json, 0).map_err(err)?;
        if reader.at != encoded.len() {
            let extra = encoded.len() - reader.at;
            return Err(err(format!("{extra} bytes follow the document")));
        }
        object_chunk(&json, &repr.shape).map_err(err)
    }
}

/// A MessagePack document being read.
struct Reader<'a> {
    input: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let bytes = self
            .input
            .get(self.at..self.at.saturating_add(n))
            .ok_or_else(|| format!("the document ends early, at byte {}", self.at))?;
        self.at += n;
        Ok(bytes)
    }

    /// A big-endian unsigned integer of `n` bytes.
    fn uint(&mut self, n: usize) -> Result<u64, String> {
        Ok(self
            .take(n)?
            .iter()
            .fold(0u64, |acc, &b| acc << 8 | b as u64))
    }

    /// A big-endian signed integer of `n` bytes.
    fn int(&mut self, n: usize) -> Result<i64, String> {
        let unsigned = self.uint(n)?;
        let unused = 64 - 8 * n as u32;
        Ok(((unsigned << unused) as i64) >> unused)
    }

    /// A length of `n` bytes, as a count of what follows.
    fn len(&mut self, n: usize) -> Result<usize, String> {
        usize::try_from(self.uint(n)?).map_err(|_| "a length too large to read".to_string())
    }

    /// Reads one value, writing it to `out` as JSON.
    fn value(&mut self, out: &mut Vec<u8>, depth: u32) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("lists and maps nested deeper than {MAX_DEPTH}"));
        }
        let marker = self.take(1)?[0];
        match marker {
            0x00..=0x7f => out.extend(marker.to_string().as_bytes()),
            0xe0..=0xff => out.extend((marker as i8).to_string().as_bytes()),
            0xc0 => out.extend(b"null"),
            0xc2 => out.extend(b"false"),
            0xc3 => out.extend(b"true"),
            0xcc..=0xcf => {
                let n = self.uint(1 << (marker - 0xcc))?;
                out.extend(n.to_string().as_bytes())
            }
            0xd0..=0xd3 => {
                let n = self.int(1 << (marker - 0xd0))?;
                out.extend(n.to_string().as_bytes())
            }
            0xca => {
                let bits = self.uint(4)? as u32;
                float(f32::from_bits(bits) as f64, out)
            }
            0xcb => float(f64::from_bits(self.uint(8)?), out),
            0xa0..=0xbf => self.string((marker & 0x1f) as usize, out)?,
            0xd9..=0xdb => {
                let len = self.len(1 << (marker - 0xd9))?;
                self.string(len, out)?
            }
            0x90..=0x9f => self.list((marker & 0x0f) as usize, out, depth)?,
            0xdc | 0xdd => {
                let len = self.len(2 << (marker - 0xdc))?;
                self.list(len, out, depth)?
            }
            0x80..=0x8f => self.map((marker & 0x0f) as usize, out, depth)?,
            0xde | 0xdf => {
                let len = self.len(2 << (marker - 0xde))?;
                self.map(len, out, depth)?
            }
            0xc4..=0xc6 => {
                return Err(format!(
                    "a byte string (bin) at byte {}: object elements that are bytes have no JSON form and are not read",
                    self.at - 1
                ))
            }
            0xc7..=0xc9 | 0xd4..=0xd8 => {
                return Err(format!("an extension type at byte {}", self.at - 1))
            }
            _ => return Err(format!("byte {marker:#04x} at {} is no MessagePack type", self.at - 1)),
        }
        Ok(())
    }

    /// A UTF-8 string of `len` bytes, as a JSON string.
    fn string(&mut self, len: usize, out: &mut Vec<u8>) -> Result<(), String> {
        let at = self.at;
        let text = std::str::from_utf8(self.take(len)?)
            .map_err(|_| format!("the string at byte {at} is not UTF-8"))?;
        quote(text, out);
        Ok(())
    }

    /// A list of `len` values. Nothing is reserved from `len`: a value takes at least one byte.
    fn list(&mut self, len: usize, out: &mut Vec<u8>, depth: u32) -> Result<(), String> {
        out.push(b'[');
        for i in 0..len {
            if i > 0 {
                out.push(b',');
            }
            self.value(out, depth + 1)?;
        }
        out.push(b']');
        Ok(())
    }

    /// A map of `len` pairs, as a JSON object: string keys as they are, integer keys as their
    /// text (as Python's json module writes them).
    fn map(&mut self, len: usize, out: &mut Vec<u8>, depth: u32) -> Result<(), String> {
        out.push(b'{');
        for i in 0..len {
            if i > 0 {
                out.push(b',');
            }
            let mut key = Vec::new();
            let at = self.at;
            self.value(&mut key, depth + 1)?;
            match key.first() {
                Some(b'"') => out.extend(&key),
                Some(b'-' | b'0'..=b'9') => {
                    out.push(b'"');
                    out.extend(&key);
                    out.push(b'"');
                }
                _ => {
                    return Err(format!(
                        "the map key at byte {at} is not a string or integer"
                    ))
                }
            }
            out.push(b':');
            self.value(out, depth + 1)?;
        }
        out.push(b'}');
        Ok(())
    }
}

/// A float as JSON: its shortest exact text, or for NaN and the infinities the strings the
/// Zarr specs write them as.
fn float(value: f64, out: &mut Vec<u8>) {
    if value.is_nan() {
        out.extend(b"\"NaN\"");
    } else if value.is_infinite() {
        out.extend(if value > 0.0 {
            &b"\"Infinity\""[..]
        } else {
            &b"\"-Infinity\""[..]
        });
    } else {
        // Rust's `{:?}` is the shortest text that reads back as the same float (`1.0`, `1e-300`).
        out.extend(format!("{value:?}").as_bytes());
    }
}

/// `text` as a JSON string.
fn quote(text: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in text.chars() {
        match c {
            '"' => out.extend(b"\\\""),
            '\\' => out.extend(b"\\\\"),
            c if (c as u32) < 0x20 => out.extend(format!("\\u{:04x}", c as u32).as_bytes()),
            c => {
                let mut buf = [0u8; 4];
                out.extend(c.encode_utf8(&mut buf).as_bytes())
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(bytes: &[u8]) -> Result<String, String> {
        let mut reader = Reader {
            input: bytes,
            at: 0,
        };
        let mut out = Vec::new();
        reader.value(&mut out, 0)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn every_type_becomes_its_json() {
        // [1, -1, 300, -200, 1.5, "a\"\n", nil, true, {"k": [false]}, {5: 1}]
        let doc: Vec<u8> = [
            &[0x9a, 0x01, 0xff, 0xcd, 0x01, 0x2c, 0xd1, 0xff, 0x38][..],
            &[0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0],
            &[0xa3, b'a', b'"', b'\n', 0xc0, 0xc3],
            &[0x81, 0xa1, b'k', 0x91, 0xc2, 0x81, 0x05, 0x01],
        ]
        .concat();
        assert_eq!(
            json(&doc).unwrap(),
            r#"[1,-1,300,-200,1.5,"a\"\u000a",null,true,{"k":[false]},{"5":1}]"#
        );
        // float32 NaN and a float64 infinity.
        assert_eq!(json(&[0xca, 0x7f, 0xc0, 0, 0]).unwrap(), "\"NaN\"");
        assert_eq!(
            json(&[0xcb, 0xff, 0xf0, 0, 0, 0, 0, 0, 0]).unwrap(),
            "\"-Infinity\""
        );
    }

    #[test]
    fn hostile_documents_are_errors() {
        // bin, ext, a list that claims more than there is, a string that is not UTF-8, deep
        // nesting, a stray marker, a map with a list as key.
        for doc in [
            vec![0xc4, 1, 0],
            vec![0xd4, 1, 0],
            vec![0xdd, 0xff, 0xff, 0xff, 0xff, 0x01],
            vec![0xa2, 0xff, 0xfe],
            vec![0x91; 200],
            vec![0xc1],
            vec![0x81, 0x90, 0x01],
        ] {
            assert!(json(&doc).is_err(), "{doc:?}");
        }
    }
}
