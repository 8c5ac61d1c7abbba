//! Chunk grids: which chunk holds an element, and which elements a chunk covers.
//!
//! Both grid kinds are held the same way: per axis, runs of equal-length chunks. A regular grid is
//! one run per axis; a rectilinear grid has a run per explicit edge or run-length entry. Lookups are
//! a binary search over runs, so a run-length entry like `[1, 1000000000]` costs nothing to hold.

use serde_json::Value;

/// `count` chunks of length `edge`, the first being chunk `first_chunk` starting at `origin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    first_chunk: u64,
    origin: u64,
    edge: u64,
    count: u64,
}

/// One axis: its runs, and how many chunks it takes to cover the array's length.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Axis {
    runs: Vec<Run>,
    chunk_count: u64,
}

impl Axis {
    /// An axis from (edge, count) runs in order; the runs must cover `len`.
    fn from_runs(pairs: impl IntoIterator<Item = (u64, u64)>, len: u64) -> Result<Axis, String> {
        let mut runs = Vec::new();
        let (mut first_chunk, mut origin) = (0u64, 0u64);
        for (edge, count) in pairs {
            if edge == 0 {
                return Err("a chunk edge length is 0".to_string());
            }
            if count == 0 {
                continue;
            }
            runs.push(Run {
                first_chunk,
                origin,
                edge,
                count,
            });
            let extent = edge
                .checked_mul(count)
                .ok_or("chunk edges add up past 2^64")?;
            origin = origin
                .checked_add(extent)
                .ok_or("chunk edges add up past 2^64")?;
            first_chunk = first_chunk.checked_add(count).ok_or("too many chunks")?;
        }
        if origin < len {
            return Err(format!(
                "chunk edges add up to {origin}, less than the array's length {len}"
            ));
        }
        let mut axis = Axis {
            runs,
            chunk_count: 0,
        };
        axis.chunk_count = if len == 0 {
            0
        } else {
            axis.chunk_of(len - 1) + 1
        };
        Ok(axis)
    }

    fn chunk_of(&self, index: u64) -> u64 {
        let i = self
            .runs
            .partition_point(|r| r.origin <= index)
            .saturating_sub(1);
        match self.runs.get(i) {
            Some(r) => r.first_chunk + (index - r.origin.min(index)) / r.edge,
            None => 0,
        }
    }

    fn span(&self, chunk: u64) -> (u64, u64) {
        let i = self
            .runs
            .partition_point(|r| r.first_chunk <= chunk)
            .saturating_sub(1);
        match self.runs.get(i) {
            Some(r) => (
                r.origin
                    .saturating_add((chunk - r.first_chunk.min(chunk)).saturating_mul(r.edge)),
                r.edge,
            ),
            None => (0, 1),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkGrid {
    axes: Vec<Axis>,
    /// The chunk shape, for a regular grid.
    regular: Option<Vec<u64>>,
}

impl ChunkGrid {
    /// A regular grid over an array of `shape`; every chunk length must be at least 1.
    pub fn regular(chunk_shape: Vec<u64>, shape: &[u64]) -> Result<ChunkGrid, String> {
        if chunk_shape.contains(&0) {
            return Err(format!("chunk_shape {chunk_shape:?} has a zero length"));
        }
        if chunk_shape.len() != shape.len() {
            return Err(format!(
                "chunk_shape {chunk_shape:?} has {} dimensions, the array has {}",
                chunk_shape.len(),
                shape.len()
            ));
        }
        let axes = chunk_shape
            .iter()
            .zip(shape)
            .map(|(&edge, &len)| Axis::from_runs([(edge, len.div_ceil(edge))], len))
            .collect::<Result<_, _>>()?;
        Ok(ChunkGrid {
            axes,
            regular: Some(chunk_shape),
        })
    }

    /// A rectilinear grid from its `chunk_shapes` (one entry per axis: an integer, or a list of
    /// edge lengths and `[edge, count]` runs), over an array of `shape`.
    pub fn rectilinear(chunk_shapes: &Value, shape: &[u64]) -> Result<ChunkGrid, String> {
        let per_axis = chunk_shapes
            .as_array()
            .filter(|a| a.len() == shape.len())
            .ok_or_else(|| {
                format!(
                    "chunk_shapes must list one entry per dimension ({}), not {chunk_shapes}",
                    shape.len(),
                    chunk_shapes = crate::error::quote(chunk_shapes)
                )
            })?;
        let axes = per_axis
            .iter()
            .zip(shape)
            .enumerate()
            .map(|(dim, (spec, &len))| {
                let pairs =
                    axis_runs(spec, len).map_err(|e| format!("chunk_shapes[{dim}]: {e}"))?;
                Axis::from_runs(pairs, len).map_err(|e| format!("chunk_shapes[{dim}]: {e}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(ChunkGrid {
            axes,
            regular: None,
        })
    }

    pub fn ndim(&self) -> usize {
        self.axes.len()
    }

    /// The chunk shape, where the grid is regular.
    pub fn regular_chunk_shape(&self) -> Option<&[u64]> {
        self.regular.as_deref()
    }

    /// The number of chunks along each axis that cover the array.
    pub fn grid_shape(&self) -> Vec<u64> {
        self.axes.iter().map(|a| a.chunk_count).collect()
    }

    /// The chunk along `dim` holding element `index`.
    pub fn dim_chunk_of(&self, dim: usize, index: u64) -> u64 {
        self.axes[dim].chunk_of(index)
    }

    /// First element and stored length of chunk `chunk` along `dim`. The stored length may reach
    /// past the array's edge.
    pub fn dim_chunk_span(&self, dim: usize, chunk: u64) -> (u64, u64) {
        self.axes[dim].span(chunk)
    }

    /// The stored shape of the chunk at `coords`.
    pub fn chunk_shape(&self, coords: &[u64]) -> Vec<u64> {
        coords
            .iter()
            .enumerate()
            .map(|(dim, &c)| self.dim_chunk_span(dim, c).1)
            .collect()
    }

    /// Where the chunk at `coords` starts in the array.
    pub fn chunk_origin(&self, coords: &[u64]) -> Vec<u64> {
        coords
            .iter()
            .enumerate()
            .map(|(dim, &c)| self.dim_chunk_span(dim, c).0)
            .collect()
    }

    /// Whether `coords` names a chunk that covers part of the array.
    pub fn contains(&self, coords: &[u64]) -> bool {
        coords.len() == self.axes.len()
            && coords
                .iter()
                .zip(&self.axes)
                .all(|(&c, a)| c < a.chunk_count)
    }
}

/// The (edge, count) runs of one rectilinear axis entry.
fn axis_runs(spec: &Value, len: u64) -> Result<Vec<(u64, u64)>, String> {
    let int = |v: &Value| {
        v.as_u64()
            .ok_or_else(|| format!("{} is not a non-negative integer", crate::error::quote(v)))
    };
    match spec {
        // One edge, repeated until the array's length is covered.
        Value::Number(_) => {
            let edge = int(spec)?;
            if edge == 0 {
                return Err("a chunk edge length is 0".to_string());
            }
            Ok(vec![(edge, len.div_ceil(edge))])
        }
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::Array(pair) if pair.len() == 2 => Ok((int(&pair[0])?, int(&pair[1])?)),
                Value::Array(_) => Err(format!(
                    "run {item} is not [edge, count]",
                    item = crate::error::quote(item)
                )),
                other => Ok((int(other)?, 1)),
            })
            .collect(),
        other => Err(format!(
            "{other} is neither an edge length nor a list of them",
            other = crate::error::quote(other)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn regular_grid_matches_the_spec_example() {
        let grid = ChunkGrid::regular(vec![5, 20, 400], &[10, 200, 3000]).unwrap();
        assert_eq!(grid.grid_shape(), vec![2, 10, 8]);
        let coords: Vec<u64> = [7u64, 150, 900]
            .iter()
            .enumerate()
            .map(|(d, &i)| grid.dim_chunk_of(d, i))
            .collect();
        assert_eq!(coords, vec![1, 7, 2]);
        assert_eq!(grid.dim_chunk_span(2, 7), (2800, 400));
        assert!(ChunkGrid::regular(vec![3, 0], &[3, 3]).is_err());
        assert_eq!(
            ChunkGrid::regular(vec![4], &[0]).unwrap().grid_shape(),
            vec![0]
        );
    }

    #[test]
    fn rectilinear_forms_from_the_spec_example() {
        let grid = ChunkGrid::rectilinear(
            &json!([4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]]),
            &[6, 6, 6, 6, 6],
        )
        .unwrap();
        assert_eq!(grid.grid_shape(), vec![2, 3, 2, 4, 2]);
        assert_eq!(grid.regular_chunk_shape(), None);
        let edges = |dim: usize| {
            (0..grid.grid_shape()[dim])
                .map(|c| grid.dim_chunk_span(dim, c))
                .collect::<Vec<_>>()
        };
        assert_eq!(edges(1), vec![(0, 1), (1, 2), (3, 3)]);
        assert_eq!(edges(3), vec![(0, 1), (1, 1), (2, 1), (3, 3)]);
        // Overflow chunks past the shape are allowed; the third [4] is never needed.
        assert_eq!(edges(4), vec![(0, 4), (4, 4)]);
        assert_eq!(
            (0..6).map(|i| grid.dim_chunk_of(3, i)).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 3, 3]
        );
        assert_eq!(grid.chunk_shape(&[1, 2, 0, 3, 1]), vec![4, 3, 4, 3, 4]);
    }

    #[test]
    fn rectilinear_errors_and_huge_runs() {
        assert!(ChunkGrid::rectilinear(&json!([[1, 2]]), &[6])
            .unwrap_err()
            .contains("less than"));
        assert!(ChunkGrid::rectilinear(&json!([[0, 6]]), &[6]).is_err());
        assert!(ChunkGrid::rectilinear(&json!([[[2, 1, 1]]]), &[6]).is_err());
        assert!(ChunkGrid::rectilinear(&json!([3, 3]), &[6]).is_err());
        assert!(ChunkGrid::rectilinear(&json!([[[u64::MAX, 2]]]), &[6]).is_err());
        let grid = ChunkGrid::rectilinear(&json!([[[1, 1u64 << 40], 7]]), &[1u64 << 40]).unwrap();
        assert_eq!(grid.grid_shape(), vec![1u64 << 40]);
        assert_eq!(grid.dim_chunk_of(0, (1 << 40) - 1), (1 << 40) - 1);
    }
}
