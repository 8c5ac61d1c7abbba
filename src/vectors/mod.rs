//! Zarr Vectors (ZVF): vector geometry (points, lines, meshes) chunked in space, as the reference
//! writer zarr-vectors 0.9.2 stores it. Each spatial array is a Zarr v3 `variable_length_bytes`
//! array with one cell per spatial chunk; the blobs in those cells are parsed here.
//!
//! So far: the binary blobs (fragment indexes, object manifests) with their validation, and a store's
//! metadata, levels, spatial chunks (all, or those meeting a box) and objects (`store`). Attributes,
//! links and the JS API build on these.

pub mod fragment_index;
pub mod geometry;
pub mod level;
pub mod links;
pub mod manifest;
pub mod probe;
pub mod spatial;
pub mod store;

/// A read behind a pointer, for awaiting many at once. Boxed, the joining combinators are compiled
/// once per result type rather than once per kind of read with the read inlined in them: the ZVF
/// reads' joins took 30 KB of wasm before.
pub(crate) fn boxed<'a, T>(
    read: impl std::future::Future<Output = T> + 'a,
) -> futures_util::future::LocalBoxFuture<'a, T> {
    Box::pin(read)
}

/// A little-endian reader over a blob that fails, rather than panics, past its end.
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes, at: 0 }
    }

    pub fn position(&self) -> usize {
        self.at
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        if self.remaining() < n {
            return Err(format!(
                "{what} at byte {} needs {n} bytes, {} are left",
                self.at,
                self.remaining()
            ));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, String> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn i64(&mut self, what: &str) -> Result<i64, String> {
        let b = self.take(8, what)?;
        Ok(i64::from_le_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ]))
    }

    /// Fails unless every byte was read: a blob with more in it is not what it says it is.
    pub fn finish(&self, what: &str) -> Result<(), String> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(format!("{n} bytes after the end of the {what}")),
        }
    }
}

/// Mutated copies of `good` for the parsers' no-panic tests: `count` copies, each with three bytes
/// changed and one in five cut short (a fixed xorshift sequence from `seed`).
#[cfg(test)]
pub(crate) fn mutations(good: &[u8], seed: u64, count: usize) -> Vec<Vec<u8>> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let mut b = good.to_vec();
            for _ in 0..3 {
                let r = next();
                let at = (r as usize) % b.len();
                b[at] = (r >> 32) as u8;
            }
            let r = next();
            if r % 5 == 0 {
                b.truncate((r as usize >> 8) % b.len());
            }
            b
        })
        .collect()
}
