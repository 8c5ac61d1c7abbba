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

/// Fills `dst` with `pattern` repeated (an element, the fill value), whole copies of it first to
/// last. One `memory.fill` for a pattern of one byte value (zeros, the usual fill); else the
/// pattern once, then doubling copies of what is written.
#[inline(never)]
pub fn fill_repeat(dst: &mut [u8], pattern: &[u8]) {
    let Some(&first) = pattern.first() else {
        return;
    };
    if pattern.iter().all(|&b| b == first) {
        dst.fill(first);
        return;
    }
    let p = pattern.len();
    let head = dst.len().min(p);
    dst[..head].copy_from_slice(&pattern[..head]);
    let mut done = head;
    while done < dst.len() {
        let n = done.min(dst.len() - done);
        dst.copy_within(..n, done);
        done += n;
    }
}

/// Whether `data` is `pattern` repeated a whole number of times (every element the fill value):
/// the first copy compared, then the rest against the data one pattern earlier, which is equal
/// exactly where every copy is.
#[inline(never)]
pub fn all_repeat(data: &[u8], pattern: &[u8]) -> bool {
    let p = pattern.len();
    if p == 0 || !data.len().is_multiple_of(p) {
        return false;
    }
    if data.is_empty() {
        return true;
    }
    if data[..p] != *pattern {
        return false;
    }
    let (rest, earlier) = (&data[p..], &data[..data.len() - p]);
    // Word by word: the compiler vectorises this loop; a slice comparison would call memcmp.
    let mut a = rest.chunks_exact(8);
    let mut b = earlier.chunks_exact(8);
    let words_equal = a.by_ref().zip(b.by_ref()).all(|(x, y)| {
        u64::from_ne_bytes(x.try_into().unwrap_or_default())
            == u64::from_ne_bytes(y.try_into().unwrap_or_default())
    });
    words_equal && a.remainder() == b.remainder()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_with_a_pattern_of_any_length() {
        for p in [
            vec![0u8],
            vec![7, 7],
            vec![1, 2],
            vec![1, 2, 3],
            vec![9, 8, 7, 6, 5, 4, 3, 2],
        ] {
            for n in [0usize, 1, 5, 64, 1000] {
                let mut v = vec![0xAAu8; n];
                fill_repeat(&mut v, &p);
                let expected: Vec<u8> = (0..n).map(|i| p[i % p.len()]).collect();
                assert_eq!(v, expected, "pattern {p:?}, {n} bytes");
            }
        }
    }

    #[test]
    fn finds_a_repeated_pattern_and_any_difference() {
        for p in [
            vec![0u8],
            vec![0, 0],
            vec![1, 2],
            vec![1, 2, 3],
            vec![0xFF; 8],
        ] {
            for copies in [0usize, 1, 3, 100, 1001] {
                let data: Vec<u8> = (0..copies * p.len()).map(|i| p[i % p.len()]).collect();
                assert!(all_repeat(&data, &p), "{copies} x {p:?}");
                for at in [0, data.len() / 2, data.len().saturating_sub(1)] {
                    if data.is_empty() {
                        continue;
                    }
                    let mut changed = data.clone();
                    changed[at] ^= 1;
                    assert!(
                        !all_repeat(&changed, &p),
                        "{copies} x {p:?}, changed at {at}"
                    );
                }
            }
        }
        assert!(
            !all_repeat(&[1, 2, 1], &[1, 2]),
            "not a whole number of copies"
        );
        assert!(
            !all_repeat(&[0, 0], &[]),
            "an empty pattern repeats nothing"
        );
    }
}
