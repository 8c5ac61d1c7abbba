//! A bounded reader of FlatBuffers tables, for Icechunk's metadata files: the few shapes its
//! schemas use (tables, scalars, strings, byte vectors, vectors of tables and of structs, inline
//! structs, unions). Nothing is copied or allocated: every access checks its offsets against the
//! buffer and fails with a message instead, so a truncated or hostile file is an error, never a
//! panic, and a length in the file is only believed when its bytes are there.
//!
//! Fields are numbered as in the schema, from 0 (a union takes two numbers: its type, then its
//! value).

/// What is wrong, in words.
pub type FbResult<T> = Result<T, String>;

fn slice(buf: &[u8], at: usize, len: usize) -> FbResult<&[u8]> {
    at.checked_add(len)
        .and_then(|end| buf.get(at..end))
        .ok_or_else(|| {
            format!(
                "bytes {at}..{} lie past the end ({} bytes)",
                at.saturating_add(len),
                buf.len()
            )
        })
}

fn u16_at(buf: &[u8], at: usize) -> FbResult<u16> {
    let b = slice(buf, at, 2)?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(buf: &[u8], at: usize) -> FbResult<u32> {
    let b = slice(buf, at, 4)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The position an unsigned offset stored at `at` points to.
fn follow(buf: &[u8], at: usize) -> FbResult<usize> {
    let off = u32_at(buf, at)? as usize;
    match at.checked_add(off) {
        Some(to) if to < buf.len() => Ok(to),
        _ => Err(format!(
            "an offset at byte {at} points past the end ({} bytes)",
            buf.len()
        )),
    }
}

/// A table: its position and its vtable, checked to lie within the buffer.
#[derive(Clone, Copy, Debug)]
pub struct Table<'a> {
    buf: &'a [u8],
    pos: usize,
    vtable: usize,
    vtable_len: usize,
    table_len: usize,
}

/// The root table of a buffer.
pub fn root(buf: &[u8]) -> FbResult<Table<'_>> {
    let pos = follow(buf, 0).map_err(|e| format!("the root: {e}"))?;
    Table::at(buf, pos)
}

/// The table at byte `pos` of a buffer (where `Table::table_pos` found one).
pub fn table_at(buf: &[u8], pos: usize) -> FbResult<Table<'_>> {
    Table::at(buf, pos)
}

impl<'a> Table<'a> {
    fn at(buf: &'a [u8], pos: usize) -> FbResult<Table<'a>> {
        let soffset = u32_at(buf, pos)? as i32 as i64;
        let vtable = pos as i64 - soffset;
        if vtable < 0 || vtable as u64 >= buf.len() as u64 {
            return Err(format!(
                "the table at byte {pos} has its vtable outside the buffer"
            ));
        }
        let vtable = vtable as usize;
        let vtable_len = u16_at(buf, vtable)? as usize;
        let table_len = u16_at(buf, vtable + 2)? as usize;
        if vtable_len < 4 || !vtable_len.is_multiple_of(2) {
            return Err(format!("the vtable at byte {vtable} is {vtable_len} bytes"));
        }
        slice(buf, vtable, vtable_len)?;
        if table_len < 4 {
            return Err(format!("the table at byte {pos} is {table_len} bytes"));
        }
        slice(buf, pos, table_len)?;
        Ok(Table {
            buf,
            pos,
            vtable,
            vtable_len,
            table_len,
        })
    }

    /// The position of field `n`'s `size` bytes, None where the field is absent.
    fn field(&self, n: usize, size: usize) -> FbResult<Option<usize>> {
        let slot = 4 + 2 * n;
        if slot + 2 > self.vtable_len {
            return Ok(None);
        }
        let off = u16_at(self.buf, self.vtable + slot)? as usize;
        if off == 0 {
            return Ok(None);
        }
        if off + size > self.table_len {
            return Err(format!(
                "field {n} of the table at byte {} lies past the table's {} bytes",
                self.pos, self.table_len
            ));
        }
        Ok(Some(self.pos + off))
    }

    fn scalar<const N: usize>(&self, n: usize) -> FbResult<Option<[u8; N]>> {
        let Some(at) = self.field(n, N)? else {
            return Ok(None);
        };
        let mut out = [0u8; N];
        out.copy_from_slice(slice(self.buf, at, N)?);
        Ok(Some(out))
    }

    pub fn u8(&self, n: usize, default: u8) -> FbResult<u8> {
        Ok(self.scalar::<1>(n)?.map_or(default, |b| b[0]))
    }

    pub fn u32(&self, n: usize, default: u32) -> FbResult<u32> {
        Ok(self.scalar::<4>(n)?.map_or(default, u32::from_le_bytes))
    }

    pub fn u64(&self, n: usize, default: u64) -> FbResult<u64> {
        Ok(self.scalar::<8>(n)?.map_or(default, u64::from_le_bytes))
    }

    /// A struct of `size` bytes stored in the table.
    pub fn inline(&self, n: usize, size: usize) -> FbResult<Option<&'a [u8]>> {
        match self.field(n, size)? {
            Some(at) => slice(self.buf, at, size).map(Some),
            None => Ok(None),
        }
    }

    /// Where the offset field `n` points.
    fn target(&self, n: usize) -> FbResult<Option<usize>> {
        match self.field(n, 4)? {
            Some(at) => follow(self.buf, at).map(Some),
            None => Ok(None),
        }
    }

    /// Where the table of field `n` is, not yet read (`table_at` reads it).
    pub fn table_pos(&self, n: usize) -> FbResult<Option<usize>> {
        self.target(n)
    }

    /// A vector of `size`-byte elements: where they start and how many there are, its length
    /// checked against the bytes that follow it.
    fn vector(&self, n: usize, size: usize) -> FbResult<Option<(usize, usize)>> {
        let Some(at) = self.target(n)? else {
            return Ok(None);
        };
        let len = u32_at(self.buf, at)? as usize;
        let bytes = len
            .checked_mul(size)
            .ok_or_else(|| format!("a vector of {len} elements"))?;
        slice(self.buf, at + 4, bytes).map_err(|e| format!("a vector of {len} elements: {e}"))?;
        Ok(Some((at + 4, len)))
    }

    pub fn bytes(&self, n: usize) -> FbResult<Option<&'a [u8]>> {
        match self.vector(n, 1)? {
            Some((at, len)) => slice(self.buf, at, len).map(Some),
            None => Ok(None),
        }
    }

    /// Where the byte vector `n` lies in the buffer (checked to lie within it).
    pub fn bytes_range(&self, n: usize) -> FbResult<Option<std::ops::Range<usize>>> {
        Ok(self.vector(n, 1)?.map(|(at, len)| at..at + len))
    }

    pub fn str(&self, n: usize) -> FbResult<Option<&'a str>> {
        match self.bytes(n)? {
            Some(b) => std::str::from_utf8(b)
                .map(Some)
                .map_err(|_| format!("field {n} of the table at byte {} is not UTF-8", self.pos)),
            None => Ok(None),
        }
    }

    pub fn tables(&self, n: usize) -> FbResult<Option<Tables<'a>>> {
        Ok(self.vector(n, 4)?.map(|(at, len)| Tables {
            buf: self.buf,
            at,
            len,
        }))
    }

    pub fn structs(&self, n: usize, size: usize) -> FbResult<Option<Structs<'a>>> {
        Ok(self.vector(n, size)?.map(|(at, len)| Structs {
            buf: self.buf,
            at,
            len,
            size,
        }))
    }

    /// Field `n`, which the schema says is required.
    pub fn required<T>(
        &self,
        name: &str,
        get: impl FnOnce(&Self) -> FbResult<Option<T>>,
    ) -> FbResult<T> {
        get(self)?.ok_or_else(|| format!("its required field {name} is missing"))
    }
}

/// A vector of tables.
#[derive(Clone, Copy, Debug)]
pub struct Tables<'a> {
    buf: &'a [u8],
    at: usize,
    len: usize,
}

impl<'a> Tables<'a> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn get(&self, i: usize) -> FbResult<Table<'a>> {
        if i >= self.len {
            return Err(format!("element {i} of a vector of {}", self.len));
        }
        Table::at(self.buf, follow(self.buf, self.at + 4 * i)?)
    }
}

/// A vector of structs of one size.
#[derive(Clone, Copy, Debug)]
pub struct Structs<'a> {
    buf: &'a [u8],
    at: usize,
    len: usize,
    size: usize,
}

impl<'a> Structs<'a> {
    pub fn len(&self) -> usize {
        self.len
    }

    /// Element `i`'s bytes (within the buffer: the vector's length was checked).
    pub fn get(&self, i: usize) -> FbResult<&'a [u8]> {
        if i >= self.len {
            return Err(format!("element {i} of a vector of {}", self.len));
        }
        slice(self.buf, self.at + i * self.size, self.size)
    }
}

/// The little-endian u32 at byte `at` of a struct.
pub fn struct_u32(s: &[u8], at: usize) -> FbResult<u32> {
    u32_at(s, at)
}

#[cfg(test)]
mod tests {
    use super::super::testbuild::{build, F};
    use super::*;

    #[test]
    fn reads_what_the_builder_writes() {
        let buf = build(vec![
            F::Scalar(vec![7]),
            F::Bytes(b"hello".to_vec()),
            F::Absent,
            F::Tables(vec![vec![F::Scalar(42u64.to_le_bytes().to_vec())], vec![]]),
            F::Structs(vec![vec![1, 0, 0, 0, 2, 0, 0, 0]]),
        ]);
        let t = root(&buf).unwrap();
        assert_eq!(t.u8(0, 0).unwrap(), 7);
        assert_eq!(t.str(1).unwrap(), Some("hello"));
        assert_eq!(t.str(2).unwrap(), None);
        assert_eq!(t.u8(9, 3).unwrap(), 3);
        let ts = t.tables(3).unwrap().unwrap();
        assert_eq!(ts.len(), 2);
        assert_eq!(ts.get(0).unwrap().u64(0, 0).unwrap(), 42);
        assert_eq!(ts.get(1).unwrap().u64(0, 5).unwrap(), 5);
        assert!(ts.get(2).is_err());
        let s = t.structs(4, 8).unwrap().unwrap();
        assert_eq!(struct_u32(s.get(0).unwrap(), 4).unwrap(), 2);
    }

    #[test]
    fn truncated_and_corrupt_buffers_are_errors_never_panics() {
        let buf = build(vec![
            F::Bytes(b"abc".to_vec()),
            F::Tables(vec![vec![F::Bytes(vec![1; 40])]]),
        ]);
        // Every prefix, and every single-byte change, either reads or fails: no panic.
        for cut in 0..buf.len() {
            let b = &buf[..cut];
            if let Ok(t) = root(b) {
                let _ = t.str(0);
                if let Ok(Some(ts)) = t.tables(1) {
                    let _ = ts.get(0).and_then(|x| x.bytes(0));
                }
            }
        }
        for i in 0..buf.len() {
            for v in [0u8, 0x7f, 0x80, 0xff] {
                let mut b = buf.clone();
                b[i] = v;
                if let Ok(t) = root(&b) {
                    let _ = t.str(0);
                    if let Ok(Some(ts)) = t.tables(1) {
                        for k in 0..ts.len().min(4) {
                            let _ = ts.get(k).and_then(|x| x.bytes(0));
                        }
                    }
                }
            }
        }
        // A vector claiming more elements than there are bytes is refused before any use.
        let mut b = buf.clone();
        let t = root(&b).unwrap();
        let at = t.target(0).unwrap().unwrap();
        b[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(root(&b)
            .unwrap()
            .bytes(0)
            .unwrap_err()
            .contains("vector of 4294967295"));
        assert!(root(&[1, 2]).is_err());
    }
}
