//! numcodecs' `MsgPack` object codec (v2 id `msgpack2`): a Zarr v2 object array's chunk as one
//! MessagePack list laid out as `json2`'s (elements nested one list per dimension, then dtype and
//! shape). The document is written out as JSON text and read as `json2` reads its own, so each
//! element reaches users as a JS value. Byte strings (MessagePack `bin`) and extension types have
//! no JSON form and are refused, saying so; non-finite floats become the strings "NaN",
//! "Infinity" and "-Infinity", as in `json2`.

use super::codec::{
    default_unknown_decoded_limit, ArrayToBytesCodec, ChunkRepr, Codec, CodecEntry, Kind,
};
use super::json2::object_chunk;
use crate::data_type::DataType;
use crate::error::CodecError;

/// numcodecs' `msgpack2`, the object codec of v2 object arrays.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.msgpack2"],
    kind: Kind::ArrayToBytes,
    build: |_, cx| match cx.data_type {
        DataType::Object => Ok(Codec::array_to_bytes(MsgPack2Codec::default())),
        other => Err(format!("encodes object arrays, not {other}")),
    },
}];

/// The deepest nesting read: deeper documents are refused rather than recursed into.
const MAX_DEPTH: u32 = 128;

pub struct MsgPack2Codec {
    /// The most bytes the document's JSON form may take: the cap on chunks whose decoded size
    /// nothing fixes (`limits.maxDecodedChunkBytes`).
    max_json: usize,
}

/// Held to the default cap until the pipeline sets its own (`set_max_unknown_decoded`).
impl Default for MsgPack2Codec {
    fn default() -> Self {
        MsgPack2Codec {
            max_json: default_unknown_decoded_limit(),
        }
    }
}

impl ArrayToBytesCodec for MsgPack2Codec {
    fn name(&self) -> &'static str {
        "numcodecs.msgpack2"
    }

    fn encoded_size(&self, _repr: &ChunkRepr) -> Option<usize> {
        None
    }

    fn set_max_unknown_decoded(&mut self, cap: usize) {
        self.max_json = cap;
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.msgpack2", e);
        let mut reader = Reader {
            input: &encoded,
            at: 0,
        };
        let mut json = Json::new(self.max_json, encoded.len());
        reader.chunk(&mut json, &repr.shape).map_err(err)?;
        if reader.at != encoded.len() {
            let extra = encoded.len() - reader.at;
            return Err(err(format!("{extra} bytes follow the document")));
        }
        object_chunk(&json.buf, &repr.shape).map_err(err)
    }
}

/// JSON text being written, held to a cap as it grows.
struct Json {
    buf: Vec<u8>,
    cap: usize,
    /// Where numbers are printed before they are added.
    scratch: String,
}

impl Json {
    /// An empty text of at most `cap` bytes, for a document of `input` bytes (room is reserved
    /// from the document's size, never from a count it holds).
    fn new(cap: usize, input: usize) -> Json {
        Json {
            buf: Vec::with_capacity(input.saturating_mul(2).min(cap)),
            cap,
            scratch: String::new(),
        }
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        if bytes.len() > self.cap - self.buf.len() {
            return Err(format!(
                "the document's JSON form is larger than {} bytes, the cap on chunks whose decoded size nothing fixes (limits.maxDecodedChunkBytes)",
                self.cap
            ));
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    fn byte(&mut self, b: u8) -> Result<(), String> {
        self.put(&[b])
    }

    /// A value's text as `Display` or `Debug` print it (`format_args!`), without allocating.
    fn print(&mut self, args: std::fmt::Arguments) -> Result<(), String> {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        // Writing to a String cannot fail.
        let _ = std::fmt::Write::write_fmt(&mut scratch, args);
        let result = self.put(scratch.as_bytes());
        self.scratch = scratch;
        result
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

    /// The length of the list that starts here, read past its header; `None` (nothing read)
    /// where something else starts here.
    fn list_header(&mut self) -> Result<Option<u64>, String> {
        let len = match self.input.get(self.at) {
            Some(&marker @ 0x90..=0x9f) => {
                self.at += 1;
                (marker & 0x0f) as u64
            }
            Some(&marker @ (0xdc | 0xdd)) => {
                self.at += 1;
                self.uint(2 << (marker - 0xdc))?
            }
            _ => return Ok(None),
        };
        Ok(Some(len))
    }

    /// Reads the whole document as a chunk of `shape`, writing it to `out` as JSON. Its list,
    /// and the lists nested in it one per dimension, must have the lengths the shape gives (the
    /// top one its dtype and shape as well): each is checked at its header, before any of its
    /// items is read.
    fn chunk(&mut self, out: &mut Json, shape: &[u64]) -> Result<(), String> {
        // A zero-dimensional chunk's list holds its one element.
        let (len, inner) = shape.split_first().map_or((1, &[][..]), |(&l, i)| (l, i));
        let Some(items) = self.list_header()? else {
            return Err("the chunk is not a MessagePack list".into());
        };
        if items != len.saturating_add(2) {
            return Err(format!(
                "the chunk's list has {items} items, where a chunk of shape {shape:?} has {len} elements then its dtype and shape"
            ));
        }
        out.byte(b'[')?;
        for i in 0..items {
            if i > 0 {
                out.byte(b',')?;
            }
            if i < len {
                self.subtree(out, inner, 1)?;
            } else {
                self.value(out, 1)?;
            }
        }
        out.byte(b']')
    }

    /// An item of the chunk's lists: lists nested one per entry of `shape`, each as long as its
    /// entry, then the elements.
    fn subtree(&mut self, out: &mut Json, shape: &[u64], depth: u32) -> Result<(), String> {
        let Some((&len, inner)) = shape.split_first() else {
            return self.value(out, depth);
        };
        if depth > MAX_DEPTH {
            return Err(format!("lists and maps nested deeper than {MAX_DEPTH}"));
        }
        let at = self.at;
        match self.list_header()? {
            Some(n) if n == len => {}
            Some(n) => {
                return Err(format!(
                    "a list of {n} at byte {at}, where the chunk's shape has {len}"
                ))
            }
            None => {
                return Err(format!(
                    "a value that is not a list at byte {at}, where a list of {len} was expected"
                ))
            }
        }
        out.byte(b'[')?;
        for i in 0..len {
            if i > 0 {
                out.byte(b',')?;
            }
            self.subtree(out, inner, depth + 1)?;
        }
        out.byte(b']')
    }

    /// Reads one value, writing it to `out` as JSON.
    fn value(&mut self, out: &mut Json, depth: u32) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("lists and maps nested deeper than {MAX_DEPTH}"));
        }
        let marker = self.take(1)?[0];
        match marker {
            0x00..=0x7f => out.print(format_args!("{marker}"))?,
            0xe0..=0xff => out.print(format_args!("{}", marker as i8))?,
            0xc0 => out.put(b"null")?,
            0xc2 => out.put(b"false")?,
            0xc3 => out.put(b"true")?,
            0xcc..=0xcf => {
                let n = self.uint(1 << (marker - 0xcc))?;
                out.print(format_args!("{n}"))?
            }
            0xd0..=0xd3 => {
                let n = self.int(1 << (marker - 0xd0))?;
                out.print(format_args!("{n}"))?
            }
            0xca => {
                let bits = self.uint(4)? as u32;
                float(f32::from_bits(bits) as f64, out)?
            }
            0xcb => float(f64::from_bits(self.uint(8)?), out)?,
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
    fn string(&mut self, len: usize, out: &mut Json) -> Result<(), String> {
        let at = self.at;
        let text = std::str::from_utf8(self.take(len)?)
            .map_err(|_| format!("the string at byte {at} is not UTF-8"))?;
        quote(text, out)
    }

    /// A list of `len` values. Nothing is reserved from `len`: a value takes at least one byte.
    fn list(&mut self, len: usize, out: &mut Json, depth: u32) -> Result<(), String> {
        out.byte(b'[')?;
        for i in 0..len {
            if i > 0 {
                out.byte(b',')?;
            }
            self.value(out, depth + 1)?;
        }
        out.byte(b']')
    }

    /// A map of `len` pairs, as a JSON object: string keys as they are, integer keys as their
    /// text (as Python's json module writes them).
    fn map(&mut self, len: usize, out: &mut Json, depth: u32) -> Result<(), String> {
        out.byte(b'{')?;
        for i in 0..len {
            if i > 0 {
                out.byte(b',')?;
            }
            let at = self.at;
            match self.input.get(at) {
                Some(0xa0..=0xbf | 0xd9..=0xdb) => self.value(out, depth + 1)?,
                Some(0x00..=0x7f | 0xe0..=0xff | 0xcc..=0xd3) => {
                    out.byte(b'"')?;
                    self.value(out, depth + 1)?;
                    out.byte(b'"')?;
                }
                Some(_) => {
                    return Err(format!(
                        "the map key at byte {at} is not a string or integer"
                    ))
                }
                None => return Err(format!("the document ends early, at byte {at}")),
            }
            out.byte(b':')?;
            self.value(out, depth + 1)?;
        }
        out.byte(b'}')
    }
}

/// A float as JSON: its shortest exact text, or for NaN and the infinities the strings the
/// Zarr specs write them as.
fn float(value: f64, out: &mut Json) -> Result<(), String> {
    if value.is_nan() {
        out.put(b"\"NaN\"")
    } else if value.is_infinite() {
        out.put(if value > 0.0 {
            &b"\"Infinity\""[..]
        } else {
            &b"\"-Infinity\""[..]
        })
    } else {
        // Rust's `{:?}` is the shortest text that reads back as the same float (`1.0`, `1e-300`).
        out.print(format_args!("{value:?}"))
    }
}

/// `text` as a JSON string: the runs that need no escape are copied whole.
fn quote(text: &str, out: &mut Json) -> Result<(), String> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.byte(b'"')?;
    let bytes = text.as_bytes();
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        // Bytes below 0x80 never occur inside a multi-byte character.
        let escaped: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0..=0x1f => &[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 15) as usize],
            ],
            _ => continue,
        };
        out.put(&bytes[run..i])?;
        out.put(escaped)?;
        run = i + 1;
    }
    out.put(&bytes[run..])?;
    out.byte(b'"')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(bytes: &[u8]) -> Result<String, String> {
        let mut reader = Reader {
            input: bytes,
            at: 0,
        };
        let mut out = Json::new(usize::MAX, bytes.len());
        reader.value(&mut out, 0)?;
        Ok(String::from_utf8(out.buf).unwrap())
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
