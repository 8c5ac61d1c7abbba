//! A minimal FlatBuffers writer for the tests of the readers here (the files they parse come
//! from the real writer in tests/read_icechunk.rs; these make the corrupt and edge cases).

/// A minimal FlatBuffers builder for tests: tables laid out forward, each field a slot of
/// the given bytes or an offset to something placed later.
pub enum F {
    Absent,
    Scalar(Vec<u8>),
    /// A byte vector (also a string).
    Bytes(Vec<u8>),
    Table(Vec<F>),
    Tables(Vec<Vec<F>>),
    /// A vector of structs: the elements' bytes.
    Structs(Vec<Vec<u8>>),
}

/// The buffer of a root table with `fields`.
pub fn build(fields: Vec<F>) -> Vec<u8> {
    let mut buf = vec![0u8; 4];
    let root = table(&mut buf, &fields);
    buf[0..4].copy_from_slice(&(root as u32).to_le_bytes());
    buf
}

fn pad(buf: &mut Vec<u8>) {
    while !buf.len().is_multiple_of(4) {
        buf.push(0);
    }
}

/// Writes a vtable, then the table; returns the table's position. Offsets point forward to
/// children written after it.
fn table(buf: &mut Vec<u8>, fields: &[F]) -> usize {
    pad(buf);
    // Field layout: each present field gets a slot of 4 bytes, or 8 for 8-byte scalars.
    let mut slots = Vec::new();
    let mut size = 4usize;
    for f in fields {
        match f {
            F::Absent => slots.push(0),
            F::Scalar(b) => {
                slots.push(size);
                size += b.len().max(4).next_multiple_of(4);
            }
            _ => {
                slots.push(size);
                size += 4;
            }
        }
    }
    let vt = buf.len();
    buf.extend((4 + 2 * fields.len() as u16).to_le_bytes());
    buf.extend((size as u16).to_le_bytes());
    for s in &slots {
        buf.extend((*s as u16).to_le_bytes());
    }
    pad(buf);
    let pos = buf.len();
    buf.extend(((pos - vt) as i32).to_le_bytes());
    buf.resize(pos + size, 0);
    for (f, &s) in fields.iter().zip(&slots) {
        let at = pos + s;
        let target = match f {
            F::Absent => continue,
            F::Scalar(b) => {
                buf[at..at + b.len()].copy_from_slice(b);
                continue;
            }
            F::Bytes(b) => {
                pad(buf);
                let t = buf.len();
                buf.extend((b.len() as u32).to_le_bytes());
                buf.extend(b);
                buf.push(0);
                t
            }
            F::Structs(items) => {
                pad(buf);
                let t = buf.len();
                buf.extend((items.len() as u32).to_le_bytes());
                for i in items {
                    buf.extend(i);
                }
                t
            }
            F::Table(fields) => table(buf, fields),
            F::Tables(tables) => {
                pad(buf);
                let t = buf.len();
                buf.extend((tables.len() as u32).to_le_bytes());
                let slots = buf.len();
                buf.resize(slots + 4 * tables.len(), 0);
                for (i, fields) in tables.iter().enumerate() {
                    let child = table(buf, fields);
                    let slot = slots + 4 * i;
                    buf[slot..slot + 4].copy_from_slice(&((child - slot) as u32).to_le_bytes());
                }
                t
            }
        };
        buf[at..at + 4].copy_from_slice(&((target - at) as u32).to_le_bytes());
    }
    pos
}
