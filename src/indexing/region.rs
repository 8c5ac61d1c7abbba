//! Copies between n-dimensional C-order buffers: a selected part of a decoded chunk into its place
//! in the result, or the fill value into the place of a missing chunk.

/// Row-major strides, in elements, of `shape`.
pub fn c_strides(shape: &[u64]) -> Vec<u64> {
    let mut strides = vec![1u64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1].saturating_mul(shape[d + 1]);
    }
    strides
}

/// A box of elements inside a C-order buffer: per dimension a start and a step, with shared counts.
pub struct Placement<'a> {
    pub shape: &'a [u64],
    pub start: &'a [u64],
    pub step: &'a [u64],
}

impl Placement<'_> {
    fn offset(&self, strides: &[u64], index: &[u64]) -> usize {
        let mut off = 0u64;
        for d in 0..index.len() {
            off += (self.start[d] + index[d] * self.step[d]) * strides[d];
        }
        off as usize
    }
}

/// Calls `row(outer_index)` for every index of `counts` without its last dimension, in C order.
/// A zero-dimensional box has one row; a box with a zero count has none.
fn for_each_row(counts: &[u64], mut row: impl FnMut(&[u64])) {
    if counts.contains(&0) {
        return;
    }
    let outer = counts.len().saturating_sub(1);
    let mut index = vec![0u64; counts.len()];
    loop {
        row(&index);
        let mut d = outer;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < counts[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// Copies `counts` elements of `esize` bytes from `src` (at `from`) to `dst` (at `to`).
/// The caller guarantees that both boxes lie inside their buffers.
pub fn copy_box(
    src: &[u8],
    from: &Placement,
    dst: &mut [u8],
    to: &Placement,
    counts: &[u64],
    esize: usize,
) {
    let src_strides = c_strides(from.shape);
    let dst_strides = c_strides(to.shape);
    let last = counts.len().checked_sub(1);
    for_each_row(counts, |index| {
        let s = from.offset(&src_strides, index) * esize;
        let t = to.offset(&dst_strides, index) * esize;
        let Some(last) = last else {
            dst[t..t + esize].copy_from_slice(&src[s..s + esize]);
            return;
        };
        let n = counts[last] as usize;
        let (ss, ts) = (
            from.step[last] as usize * esize,
            to.step[last] as usize * esize,
        );
        if ss == esize && ts == esize {
            dst[t..t + n * esize].copy_from_slice(&src[s..s + n * esize]);
        } else {
            for i in 0..n {
                dst[t + i * ts..t + i * ts + esize]
                    .copy_from_slice(&src[s + i * ss..s + i * ss + esize]);
            }
        }
    });
}

/// Writes the element `value` into every position of the box `to` in `dst`.
pub fn fill_box(value: &[u8], dst: &mut [u8], to: &Placement, counts: &[u64]) {
    let esize = value.len();
    let dst_strides = c_strides(to.shape);
    let last = counts.len().checked_sub(1);
    for_each_row(counts, |index| {
        let t = to.offset(&dst_strides, index) * esize;
        let (n, ts) = match last {
            Some(last) => (counts[last] as usize, to.step[last] as usize * esize),
            None => (1, esize),
        };
        for i in 0..n {
            dst[t + i * ts..t + i * ts + esize].copy_from_slice(value);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_a_strided_box_into_place() {
        // 4x5 source of u8 0..20; take rows 1,3 and columns 0,2,4 into a 3x4 destination at (1,1).
        let src: Vec<u8> = (0..20).collect();
        let mut dst = vec![0u8; 12];
        let from = Placement {
            shape: &[4, 5],
            start: &[1, 0],
            step: &[2, 2],
        };
        let to = Placement {
            shape: &[3, 4],
            start: &[1, 1],
            step: &[1, 1],
        };
        copy_box(&src, &from, &mut dst, &to, &[2, 3], 1);
        assert_eq!(dst, vec![0, 0, 0, 0, 0, 5, 7, 9, 0, 15, 17, 19]);
    }

    #[test]
    fn fills_multi_byte_elements_and_zero_dimensional_boxes() {
        let mut dst = vec![0u8; 8];
        fill_box(
            &[1, 2],
            &mut dst,
            &Placement {
                shape: &[2, 2],
                start: &[1, 0],
                step: &[1, 1],
            },
            &[1, 2],
        );
        assert_eq!(dst, vec![0, 0, 0, 0, 1, 2, 1, 2]);
        let mut scalar = vec![0u8; 4];
        copy_box(
            &[9, 9, 9, 9],
            &Placement {
                shape: &[],
                start: &[],
                step: &[],
            },
            &mut scalar,
            &Placement {
                shape: &[],
                start: &[],
                step: &[],
            },
            &[],
            4,
        );
        assert_eq!(scalar, vec![9; 4]);
    }
}
