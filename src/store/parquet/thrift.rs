//! Thrift's compact protocol, the encoding of Parquet's footer and page headers: varints, zigzag
//! integers, field headers with id deltas, lists and nested structs. Only reading, and every
//! read checks the bytes left: a count or length in the input is never trusted to allocate.

/// The compact protocol's type codes.
pub const BOOL_TRUE: u8 = 1;
pub const BOOL_FALSE: u8 = 2;
pub const BYTE: u8 = 3;
pub const I16: u8 = 4;
pub const I32: u8 = 5;
pub const I64: u8 = 6;
pub const DOUBLE: u8 = 7;
pub const BINARY: u8 = 8;
pub const LIST: u8 = 9;
pub const SET: u8 = 10;
pub const MAP: u8 = 11;
pub const STRUCT: u8 = 12;

/// How deep structs and lists may nest when skipped (Parquet's own are 4 deep at most).
const MAX_DEPTH: usize = 32;

pub type Result<T> = std::result::Result<T, String>;

/// A cursor over compact-protocol bytes.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, pos: 0 }
    }

    /// How many bytes have been read.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or_else(|| format!("the Thrift data ends early, at byte {}", self.pos))?;
        self.pos += 1;
        Ok(b)
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.left() {
            return Err(format!(
                "a Thrift value of {n} bytes at byte {} runs past the end ({} bytes left)",
                self.pos,
                self.left()
            ));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err(format!("a varint longer than 64 bits at byte {}", self.pos));
            }
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(format!("a varint longer than 64 bits at byte {}", self.pos))
    }

    fn zigzag(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// The next field's id and type, or None at the struct's end. `last` is the previous
    /// field's id (0 at the start), which a short header's delta adds to.
    pub fn field(&mut self, last: i16) -> Result<Option<(i16, u8)>> {
        let b = self.byte()?;
        if b == 0 {
            return Ok(None);
        }
        let (delta, kind) = (b >> 4, b & 0x0f);
        let id = if delta == 0 {
            let id = self.zigzag()?;
            i16::try_from(id).map_err(|_| format!("field id {id} is not a 16-bit integer"))?
        } else {
            last.checked_add(i16::from(delta))
                .ok_or_else(|| "a field id past 32767".to_string())?
        };
        Ok(Some((id, kind)))
    }

    /// An integer field of type `kind` (any of the integer types).
    pub fn int(&mut self, kind: u8) -> Result<i64> {
        match kind {
            BYTE => Ok(i64::from(self.byte()? as i8)),
            I16 | I32 | I64 => self.zigzag(),
            k => Err(format!(
                "an integer field has type {k}, not an integer type"
            )),
        }
    }

    /// An i32 field.
    pub fn i32(&mut self, kind: u8) -> Result<i32> {
        let v = self.int(kind)?;
        i32::try_from(v).map_err(|_| format!("{v} does not fit a 32-bit field"))
    }

    /// A boolean field (its value is in the field header's type).
    pub fn bool(&mut self, kind: u8) -> Result<bool> {
        match kind {
            BOOL_TRUE => Ok(true),
            BOOL_FALSE => Ok(false),
            k => Err(format!("a boolean field has type {k}")),
        }
    }

    /// A binary or string field's bytes.
    pub fn binary(&mut self, kind: u8) -> Result<&'a [u8]> {
        if kind != BINARY {
            return Err(format!("a string field has type {kind}, not binary"));
        }
        let n = self.varint()?;
        self.bytes(usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// A string field, as UTF-8.
    pub fn string(&mut self, kind: u8) -> Result<String> {
        let b = self.binary(kind)?;
        String::from_utf8(b.to_vec()).map_err(|_| "a string field is not UTF-8".to_string())
    }

    /// A list's (or set's) element count and type. The count is checked against the bytes
    /// left (every element takes at least one byte; booleans in lists take one too), so a loop
    /// over it ends within the input. A caller reserves nothing from it: an element of one byte
    /// may take fifty in memory, so it bounds the count itself and grows as elements are read.
    pub fn list(&mut self, kind: u8) -> Result<(usize, u8)> {
        if kind != LIST && kind != SET {
            return Err(format!("a list field has type {kind}"));
        }
        let b = self.byte()?;
        let count = match b >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        let elem = b & 0x0f;
        if count > self.left() as u64 {
            return Err(format!(
                "a list of {count} elements in {} bytes",
                self.left()
            ));
        }
        Ok((count as usize, elem))
    }

    /// Reads a struct's fields, handing each id and type to `field`, which reads the value or
    /// returns false to have it skipped.
    pub fn fields(
        &mut self,
        mut field: impl FnMut(&mut Self, i16, u8) -> Result<bool>,
    ) -> Result<()> {
        let mut last = 0;
        while let Some((id, kind)) = self.field(last)? {
            if !field(self, id, kind)? {
                self.skip(kind, 0)?;
            }
            last = id;
        }
        Ok(())
    }

    /// Skips a value of type `kind`.
    pub fn skip(&mut self, kind: u8, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(format!("Thrift values nested deeper than {MAX_DEPTH}"));
        }
        match kind {
            BOOL_TRUE | BOOL_FALSE => Ok(()),
            BYTE => self.byte().map(drop),
            I16 | I32 | I64 => self.varint().map(drop),
            DOUBLE => self.bytes(8).map(drop),
            BINARY => self.binary(kind).map(drop),
            LIST | SET => {
                let (n, elem) = self.list(kind)?;
                for _ in 0..n {
                    // A boolean in a list is a byte of its own.
                    if elem == BOOL_TRUE || elem == BOOL_FALSE {
                        self.byte()?;
                    } else {
                        self.skip(elem, depth + 1)?;
                    }
                }
                Ok(())
            }
            MAP => {
                let n = self.varint()?;
                if n == 0 {
                    return Ok(());
                }
                if n > self.left() as u64 {
                    return Err(format!("a map of {n} entries in {} bytes", self.left()));
                }
                let types = self.byte()?;
                for _ in 0..n {
                    for k in [types >> 4, types & 0x0f] {
                        if k == BOOL_TRUE || k == BOOL_FALSE {
                            self.byte()?;
                        } else {
                            self.skip(k, depth + 1)?;
                        }
                    }
                }
                Ok(())
            }
            STRUCT => {
                let mut last = 0;
                while let Some((id, k)) = self.field(last)? {
                    self.skip(k, depth + 1)?;
                    last = id;
                }
                Ok(())
            }
            k => Err(format!("Thrift type {k} is not a compact-protocol type")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_with_short_and_long_headers_and_skips_the_rest() {
        // Field 1 i32 = -3 (zigzag 5); field 3 (delta 2) binary "ab"; field 20 (long header) list
        // of 2 i64; field 21 struct { field 1 true }; stop.
        let bytes = [
            0x15, 0x05, 0x28, 0x02, b'a', b'b', 0x09, 0x28, 0x26, 0x02, 0x04, 0x1c, 0x11, 0x00,
            0x00,
        ];
        let mut r = Reader::new(&bytes);
        let mut seen = Vec::new();
        r.fields(|r, id, kind| {
            seen.push(id);
            match id {
                1 => assert_eq!(r.i32(kind)?, -3),
                3 => assert_eq!(r.binary(kind)?, b"ab"),
                _ => return Ok(false),
            }
            Ok(true)
        })
        .unwrap();
        assert_eq!(seen, [1, 3, 20, 21]);
        assert_eq!(r.position(), bytes.len());
    }

    #[test]
    fn truncated_and_hostile_input_is_an_error() {
        let mut r = Reader::new(&[0x15]);
        assert!(r
            .fields(|_, _, _| Ok(false))
            .unwrap_err()
            .contains("ends early"));
        // A list claiming 2^20 elements in 3 bytes.
        let mut r = Reader::new(&[0xf5, 0x80, 0x80, 0x40]);
        assert!(r.list(LIST).unwrap_err().contains("elements in"));
        // A string longer than the data.
        let mut r = Reader::new(&[0x7f, b'a']);
        assert!(r.binary(BINARY).unwrap_err().contains("runs past the end"));
        // An 11-byte varint.
        let mut r = Reader::new(&[0xff; 11]);
        assert!(r.varint().unwrap_err().contains("64 bits"));
        // Structs nested past the bound.
        let deep = [0x0c; 100];
        let mut r = Reader::new(&deep);
        assert!(r.skip(STRUCT, 0).unwrap_err().contains("nested deeper"));
        // Every prefix of a valid struct is an error, not a panic.
        let bytes = [
            0x15, 0x05, 0x28, 0x02, b'a', b'b', 0x19, 0x26, 0x02, 0x04, 0x00,
        ];
        for n in 0..bytes.len() {
            assert!(Reader::new(&bytes[..n]).skip(STRUCT, 0).is_err());
        }
        assert!(Reader::new(&bytes).skip(STRUCT, 0).is_ok());
    }
}
