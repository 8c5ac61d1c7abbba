//! Byte-buffer chores on the hot path: growing a buffer with zeros. In the reader's crate, built
//! for size, `Vec::resize` zeroes byte by byte (LLVM at `opt-level = "z"` does not turn the loop
//! into a fill); here it is one `memory.fill`.

/// Grows `v` to `len` bytes with zeros (nothing where it is that long already). Its capacity
/// is the caller's to reserve: this allocates only where the caller did not.
#[inline(never)]
pub fn grow_zeroed(v: &mut Vec<u8>, len: usize) {
    if len > v.len() {
        v.resize(len, 0);
    }
}
