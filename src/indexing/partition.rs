//! Splitting one read into parts that separate readers (a pool of workers) can read side by side:
//! boxes of whole chunks, so that no chunk is fetched or decoded twice, and each part's place in
//! the whole result is known before any is read.

use crate::error::Result;
use crate::indexing::selection::{
    dim_chunk_parts, result_shape, DimChunkPart, DimRange, DimSelection,
};
use crate::metadata::chunk_grid::ChunkGrid;

/// One part of a split read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectionPart {
    /// Reads exactly this part (in array coordinates).
    pub selection: Vec<DimSelection>,
    /// Where the part starts in the whole result, and its shape (dimensions the selection keeps).
    pub out_start: Vec<u64>,
    pub shape: Vec<u64>,
    /// How many chunks of the grid the part covers.
    pub chunks: u64,
}

/// A read split into parts: the whole selection (resolved: explicit bounds and steps), the
/// result's shape, and the parts, in C order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    pub selection: Vec<DimSelection>,
    pub shape: Vec<u64>,
    pub parts: Vec<SelectionPart>,
}

/// Splits the resolved selection `ranges` into at most `max_parts` boxes of whole chunks of `grid`.
/// The outer dimensions are split first: in C order a band of chunk rows is what a shard (or a
/// store's listing) keeps together, so a part's requests stay adjacent.
pub fn partition(grid: &ChunkGrid, ranges: &[DimRange], max_parts: usize) -> Result<Partition> {
    let shape = result_shape(ranges);
    let selection = ranges.iter().map(DimRange::selection).collect();
    if ranges.iter().any(|r| r.count == 0) {
        return Ok(Partition {
            selection,
            shape,
            parts: Vec::new(),
        });
    }
    let per_dim = ranges
        .iter()
        .enumerate()
        .map(|(d, r)| dim_chunk_parts(grid, d, r))
        .collect::<Result<Vec<_>>>()?;
    let mut wanted = max_parts.max(1);
    let groups: Vec<Vec<DimGroup>> = per_dim
        .iter()
        .zip(ranges)
        .enumerate()
        .map(|(d, (parts, range))| {
            // What is left for the inner dimensions: whole multiples, so the parts never
            // outnumber `max_parts`.
            let splits = parts.len().min(wanted).max(1);
            wanted = (wanted / splits).max(1);
            split_dim(grid, d, range, parts, splits)
        })
        .collect();
    let mut out = Vec::new();
    let mut odometer = vec![0usize; groups.len()];
    loop {
        let chosen: Vec<&DimGroup> = odometer.iter().zip(&groups).map(|(&i, g)| &g[i]).collect();
        out.push(SelectionPart {
            selection: chosen.iter().map(|g| g.selection).collect(),
            out_start: chosen.iter().filter_map(|g| g.out.map(|o| o.0)).collect(),
            shape: chosen.iter().filter_map(|g| g.out.map(|o| o.1)).collect(),
            chunks: chosen.iter().map(|g| g.chunks).product(),
        });
        // Advance the last dimension fastest; done once every digit has wrapped.
        let mut advanced = false;
        for d in (0..groups.len()).rev() {
            odometer[d] += 1;
            if odometer[d] < groups[d].len() {
                advanced = true;
                break;
            }
            odometer[d] = 0;
        }
        if !advanced {
            break;
        }
    }
    Ok(Partition {
        selection,
        shape,
        parts: out,
    })
}

/// A run of consecutive chunks along one dimension.
struct DimGroup {
    selection: DimSelection,
    /// (start, count) in the result, for a dimension the result keeps.
    out: Option<(u64, u64)>,
    chunks: u64,
}

/// The chunks `parts` (one dimension's) in `splits` runs of nearly equal length.
fn split_dim(
    grid: &ChunkGrid,
    dim: usize,
    range: &DimRange,
    parts: &[DimChunkPart],
    splits: usize,
) -> Vec<DimGroup> {
    (0..splits)
        .map(|g| {
            let run = &parts[g * parts.len() / splits..(g + 1) * parts.len() / splits];
            let first = run[0];
            let start = grid.dim_chunk_span(dim, first.chunk).0 + first.start_in_chunk;
            let count: u64 = run.iter().map(|p| p.count).sum();
            let selection = DimRange {
                start,
                count,
                ..*range
            }
            .selection();
            DimGroup {
                selection,
                out: range.keep.then_some((first.out_start, count)),
                chunks: run.len() as u64,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexing::selection::resolve;

    fn slice(start: i64, stop: i64, step: i64) -> DimSelection {
        DimSelection::Slice {
            start: Some(start),
            stop: Some(stop),
            step: Some(step),
        }
    }

    /// Every element of the result, as (result index, array index), from the parts.
    fn covered(p: &Partition, shape: &[u64]) -> Vec<(Vec<u64>, Vec<u64>)> {
        let mut seen = Vec::new();
        for part in &p.parts {
            let ranges = resolve(&part.selection, shape).unwrap();
            let kept: Vec<&DimRange> = ranges.iter().filter(|r| r.keep).collect();
            let n: u64 = kept.iter().map(|r| r.count).product();
            for flat in 0..n {
                let (mut rest, mut out, mut at) = (flat, vec![0; kept.len()], vec![]);
                for (d, r) in kept.iter().enumerate().rev() {
                    out[d] = part.out_start[d] + rest % r.count;
                    rest /= r.count;
                }
                let mut k = 0;
                for r in &ranges {
                    if r.keep {
                        at.push(r.start + (out[k] - part.out_start[k]) * r.step);
                        k += 1;
                    } else {
                        at.push(r.start);
                    }
                }
                seen.push((out, at));
            }
        }
        seen.sort();
        seen
    }

    #[test]
    fn parts_cover_the_selection_once_along_chunk_edges() {
        let shape = [100, 37];
        let grid = ChunkGrid::regular(vec![10, 8], &shape).unwrap();
        let selection = [slice(3, 97, 2), slice(1, 37, 1)];
        let ranges = resolve(&selection, &shape).unwrap();
        for max_parts in [1, 2, 3, 7, 8, 100] {
            let p = partition(&grid, &ranges, max_parts).unwrap();
            assert_eq!(p.shape, vec![47, 36]);
            assert!(p.parts.len() <= max_parts.max(1));
            let chunks: u64 = p.parts.iter().map(|q| q.chunks).sum();
            assert_eq!(chunks, 10 * 5);
            let mut expected = Vec::new();
            for i in 0..47u64 {
                for j in 0..36u64 {
                    expected.push((vec![i, j], vec![3 + 2 * i, 1 + j]));
                }
            }
            assert_eq!(covered(&p, &shape), expected, "max_parts {max_parts}");
            // No chunk is split between parts: each part's first row starts a chunk's share.
            for part in &p.parts {
                if let DimSelection::Slice { start: Some(s), .. } = part.selection[0] {
                    assert!(s == 3 || s % 10 <= 1, "part starts inside a chunk at {s}");
                }
            }
        }
        // Outer dimensions split first: two parts are two bands of rows.
        let p = partition(&grid, &ranges, 2).unwrap();
        assert_eq!(p.parts[0].shape[1], 36);
        assert_eq!(p.parts[1].out_start, vec![p.parts[0].shape[0], 0]);
    }

    #[test]
    fn indexed_dimensions_and_empty_selections() {
        let shape = [6, 40];
        let grid = ChunkGrid::regular(vec![4, 10], &shape).unwrap();
        let ranges = resolve(&[DimSelection::Index(5), DimSelection::All], &shape).unwrap();
        let p = partition(&grid, &ranges, 4).unwrap();
        assert_eq!(p.shape, vec![40]);
        assert_eq!(p.parts.len(), 4);
        assert_eq!(p.parts[3].selection[0], DimSelection::Index(5));
        assert_eq!(p.parts[3].out_start, vec![30]);
        assert_eq!(covered(&p, &shape).len(), 40);
        let ranges = resolve(&[slice(2, 2, 1), DimSelection::All], &shape).unwrap();
        let p = partition(&grid, &ranges, 4).unwrap();
        assert_eq!((p.shape, p.parts.len()), (vec![0, 40], 0));
        assert_eq!(
            p.selection[0],
            slice(2, 2, 1),
            "the empty selection, resolved"
        );
        let grid = ChunkGrid::regular(vec![], &[]).unwrap();
        let p = partition(&grid, &[], 4).unwrap();
        assert_eq!(p.parts.len(), 1);
        assert!(p.parts[0].selection.is_empty());
    }
}
