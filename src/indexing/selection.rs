//! Selections: what the user asked for per dimension, resolved against the array's shape, and
//! projected onto the chunk grid (which chunks, which part of each, where it goes in the output).

use crate::error::{Result, ZarrError};
use crate::metadata::chunk_grid::ChunkGrid;

/// One dimension of a selection, as the user gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DimSelection {
    /// The whole dimension.
    All,
    /// One index (negative counts from the end); the dimension is dropped from the result.
    Index(i64),
    /// Python-style slice; missing bounds mean the ends, negative ones count from the end.
    Slice {
        start: Option<i64>,
        stop: Option<i64>,
        step: Option<i64>,
    },
}

/// A resolved dimension: elements `start, start+step, ...`, `count` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DimRange {
    pub start: u64,
    pub step: u64,
    pub count: u64,
    /// False for an integer index: the dimension is not in the result's shape.
    pub keep: bool,
}

/// Resolves a selection against `shape`. Fewer entries than dimensions select the rest whole.
pub fn resolve(selection: &[DimSelection], shape: &[u64]) -> Result<Vec<DimRange>> {
    if selection.len() > shape.len() {
        return Err(ZarrError::selection(format!(
            "{} dimensions selected, the array has {} (shape {shape:?})",
            selection.len(),
            shape.len()
        )));
    }
    shape
        .iter()
        .enumerate()
        .map(|(dim, &len)| {
            resolve_dim(
                selection.get(dim).copied().unwrap_or(DimSelection::All),
                len,
                dim,
            )
        })
        .collect()
}

fn resolve_dim(sel: DimSelection, len: u64, dim: usize) -> Result<DimRange> {
    let ilen = i64::try_from(len)
        .map_err(|_| ZarrError::selection(format!("dimension {dim} is too long")))?;
    match sel {
        DimSelection::All => Ok(DimRange {
            start: 0,
            step: 1,
            count: len,
            keep: true,
        }),
        DimSelection::Index(i) => {
            let j = if i < 0 { i + ilen } else { i };
            if j < 0 || j >= ilen {
                return Err(ZarrError::selection(format!(
                    "index {i} is out of bounds for dimension {dim} of length {len}"
                )));
            }
            Ok(DimRange {
                start: j as u64,
                step: 1,
                count: 1,
                keep: false,
            })
        }
        DimSelection::Slice { start, stop, step } => {
            let step = step.unwrap_or(1);
            if step < 1 {
                return Err(ZarrError::selection(format!(
                    "slice step {step} in dimension {dim}: only positive steps are supported"
                )));
            }
            // Python's rules for positive steps: negative bounds count from the end, then clamp.
            let clamp = |b: i64| {
                if b < 0 {
                    (b + ilen).max(0)
                } else {
                    b.min(ilen)
                }
            };
            let start = start.map_or(0, clamp);
            let stop = stop.map_or(ilen, clamp);
            let count = if stop > start {
                (stop - start - 1) / step + 1
            } else {
                0
            };
            Ok(DimRange {
                start: start as u64,
                step: step as u64,
                count: count as u64,
                keep: true,
            })
        }
    }
}

impl DimRange {
    /// The selection that reads exactly this range: an index where the dimension is dropped, else
    /// a slice with explicit bounds and step.
    pub fn selection(&self) -> DimSelection {
        if !self.keep {
            return DimSelection::Index(self.start as i64);
        }
        let stop = match self.count {
            0 => self.start,
            n => self.start + (n - 1) * self.step + 1,
        };
        DimSelection::Slice {
            start: Some(self.start as i64),
            stop: Some(stop as i64),
            step: Some(self.step as i64),
        }
    }
}

/// The shape of the result: the kept dimensions' counts.
pub fn result_shape(ranges: &[DimRange]) -> Vec<u64> {
    ranges.iter().filter(|r| r.keep).map(|r| r.count).collect()
}

/// The part of one chunk, along one dimension, that a selection reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DimChunkPart {
    pub chunk: u64,
    /// First selected element, relative to the chunk's origin.
    pub start_in_chunk: u64,
    pub step: u64,
    pub count: u64,
    /// Position of that first element in the result along this dimension.
    pub out_start: u64,
}

/// Splits one resolved dimension into the chunks it touches, in order. Fails rather than aborts
/// when the list cannot be held (a selection over billions of tiny chunks).
pub fn dim_chunk_parts(
    grid: &ChunkGrid,
    dim: usize,
    range: &DimRange,
) -> Result<Vec<DimChunkPart>> {
    let mut parts: Vec<DimChunkPart> = Vec::new();
    let mut k = 0u64;
    while k < range.count {
        if parts.len() == parts.capacity() {
            parts.try_reserve(parts.len().max(16)).map_err(|_| {
                ZarrError::selection(format!(
                    "the selection touches too many chunks along dimension {dim} to list"
                ))
            })?;
        }
        let index = range.start + k * range.step;
        let chunk = grid.dim_chunk_of(dim, index);
        let (origin, len) = grid.dim_chunk_span(dim, chunk);
        let last_in_chunk = origin + len - 1;
        let count = ((last_in_chunk - index) / range.step + 1).min(range.count - k);
        parts.push(DimChunkPart {
            chunk,
            start_in_chunk: index - origin,
            step: range.step,
            count,
            out_start: k,
        });
        k += count;
    }
    Ok(parts)
}

/// How many chunks of `grid` a resolved selection touches, counted without listing them, or
/// `None` when that is more than `cap`: a selection over a billion chunks is refused before any
/// memory or time is spent on it.
pub fn count_chunks(grid: &ChunkGrid, ranges: &[DimRange], cap: u64) -> Option<u64> {
    if ranges.iter().any(|r| r.count == 0) {
        return Some(0);
    }
    let mut total = 1u64;
    for (dim, range) in ranges.iter().enumerate() {
        let along = count_dim_chunks(grid, dim, range, cap)?;
        total = total.checked_mul(along).filter(|&t| t <= cap)?;
    }
    Some(total)
}

/// Chunks along `dim` that `range` (non-empty) touches, or `None` beyond `cap`.
fn count_dim_chunks(grid: &ChunkGrid, dim: usize, range: &DimRange, cap: u64) -> Option<u64> {
    if let Some(shape) = grid.regular_chunk_shape() {
        // Regular: every chunk between the first and last index is touched when the step is
        // no longer than a chunk; with longer steps each index is in a chunk of its own.
        let size = shape[dim].max(1);
        let first = range.start / size;
        let last = (range.start + (range.count - 1) * range.step) / size;
        let n = if range.step <= size {
            last - first + 1
        } else {
            range.count
        };
        return (n <= cap).then_some(n);
    }
    // Irregular: walk the chunks, stopping at the cap.
    let (mut k, mut n) = (0u64, 0u64);
    while k < range.count {
        n += 1;
        if n > cap {
            return None;
        }
        let index = range.start + k * range.step;
        let (origin, len) = grid.dim_chunk_span(dim, grid.dim_chunk_of(dim, index));
        k += (origin + len - 1 - index) / range.step + 1;
    }
    Some(n)
}

/// One chunk's share of a selection, all dimensions at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkProjection {
    pub coords: Vec<u64>,
    pub parts: Vec<DimChunkPart>,
}

/// Every chunk a resolved selection touches, in C order of chunk coordinates. Lazy: a read may touch
/// millions of chunks, and only a window of them is in flight at once.
pub fn chunk_projections(grid: &ChunkGrid, ranges: &[DimRange]) -> Result<ChunkProjections> {
    // An empty selection touches no chunk, however many the other axes would list.
    if ranges.iter().any(|r| r.count == 0) {
        return Ok(ChunkProjections {
            per_dim: Vec::new(),
            odometer: Vec::new(),
            done: true,
        });
    }
    let per_dim = ranges
        .iter()
        .enumerate()
        .map(|(d, r)| dim_chunk_parts(grid, d, r))
        .collect::<Result<Vec<_>>>()?;
    Ok(ChunkProjections {
        odometer: vec![0; per_dim.len()],
        per_dim,
        done: false,
    })
}

pub struct ChunkProjections {
    per_dim: Vec<Vec<DimChunkPart>>,
    odometer: Vec<usize>,
    done: bool,
}

impl ChunkProjections {
    /// How many chunks the selection touches in all (saturating: it is for progress reports).
    pub fn total(&self) -> u64 {
        if self.done {
            return 0;
        }
        self.per_dim
            .iter()
            .fold(1u64, |acc, parts| acc.saturating_mul(parts.len() as u64))
    }
}

impl Iterator for ChunkProjections {
    type Item = ChunkProjection;

    fn next(&mut self) -> Option<ChunkProjection> {
        if self.done {
            return None;
        }
        let parts: Vec<DimChunkPart> = self
            .odometer
            .iter()
            .enumerate()
            .map(|(d, &i)| self.per_dim[d][i])
            .collect();
        // Advance the last dimension fastest; done once every digit has wrapped.
        self.done = true;
        for d in (0..self.per_dim.len()).rev() {
            self.odometer[d] += 1;
            if self.odometer[d] < self.per_dim[d].len() {
                self.done = false;
                break;
            }
            self.odometer[d] = 0;
        }
        Some(ChunkProjection {
            coords: parts.iter().map(|p| p.chunk).collect(),
            parts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slice(start: Option<i64>, stop: Option<i64>, step: Option<i64>) -> DimSelection {
        DimSelection::Slice { start, stop, step }
    }

    #[test]
    fn python_slice_rules() {
        let r = resolve(&[slice(Some(-3), None, None)], &[10]).unwrap()[0];
        assert_eq!((r.start, r.count), (7, 3));
        let r = resolve(&[slice(Some(2), Some(100), Some(3))], &[10]).unwrap()[0];
        assert_eq!((r.start, r.step, r.count), (2, 3, 3));
        let r = resolve(&[slice(Some(5), Some(2), None)], &[10]).unwrap()[0];
        assert_eq!(r.count, 0);
        assert!(resolve(&[slice(None, None, Some(-1))], &[10]).is_err());
        assert!(resolve(&[DimSelection::Index(10)], &[10]).is_err());
        assert_eq!(
            resolve(&[DimSelection::Index(-1)], &[10]).unwrap()[0].start,
            9
        );
        assert!(resolve(&[DimSelection::All, DimSelection::All], &[10]).is_err());
    }

    #[test]
    fn projection_covers_each_selected_element_once() {
        let grid = ChunkGrid::regular(vec![4, 3], &[10, 7]).unwrap();
        let ranges = resolve(
            &[slice(Some(1), Some(11), Some(2)), DimSelection::Index(4)],
            &[10, 7],
        )
        .unwrap();
        let projections: Vec<_> = chunk_projections(&grid, &ranges).unwrap().collect();
        let mut seen = vec![];
        for p in &projections {
            let d0 = p.parts[0];
            for k in 0..d0.count {
                seen.push((
                    d0.out_start + k,
                    p.coords[0] * 4 + d0.start_in_chunk + k * d0.step,
                ));
            }
            assert_eq!(p.coords[1], 1);
            assert_eq!(p.parts[1].start_in_chunk, 1);
        }
        assert_eq!(seen, vec![(0, 1), (1, 3), (2, 5), (3, 7), (4, 9)]);
    }

    #[test]
    fn zero_dimensional_and_empty_selections() {
        let grid = ChunkGrid::regular(vec![], &[]).unwrap();
        assert_eq!(chunk_projections(&grid, &[]).unwrap().count(), 1);
        let grid = ChunkGrid::regular(vec![2], &[5]).unwrap();
        let ranges = resolve(&[slice(Some(3), Some(3), None)], &[5]).unwrap();
        assert_eq!(chunk_projections(&grid, &ranges).unwrap().count(), 0);
        // An empty axis ends the read before the huge one is listed.
        let grid = ChunkGrid::regular(vec![1, 1], &[0, 1 << 62]).unwrap();
        let ranges = resolve(&[], &[0, 1 << 62]).unwrap();
        assert_eq!(chunk_projections(&grid, &ranges).unwrap().count(), 0);
    }
}
