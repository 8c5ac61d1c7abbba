//! Chunk grids: which chunk holds an element, and which elements a chunk covers.
//! The rest of the reader asks only these questions, one dimension at a time, so a new grid kind
//! (the rectilinear grid) is a new variant here and nothing else changes.

/// A regular grid: every chunk has `chunk_shape`, the grid overhangs the array's far edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegularGrid {
    chunk_shape: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChunkGrid {
    Regular(RegularGrid),
}

impl ChunkGrid {
    /// A regular grid; every chunk length must be at least 1.
    pub fn regular(chunk_shape: Vec<u64>) -> Result<ChunkGrid, String> {
        if chunk_shape.contains(&0) {
            return Err(format!("chunk_shape {chunk_shape:?} has a zero length"));
        }
        Ok(ChunkGrid::Regular(RegularGrid { chunk_shape }))
    }

    pub fn ndim(&self) -> usize {
        match self {
            ChunkGrid::Regular(g) => g.chunk_shape.len(),
        }
    }

    /// The regular chunk shape, where the grid has one.
    pub fn regular_chunk_shape(&self) -> Option<&[u64]> {
        match self {
            ChunkGrid::Regular(g) => Some(&g.chunk_shape),
        }
    }

    /// Number of chunks along `dim` for an array dimension of length `len`.
    pub fn dim_chunk_count(&self, dim: usize, len: u64) -> u64 {
        match self {
            ChunkGrid::Regular(g) => len.div_ceil(g.chunk_shape[dim]),
        }
    }

    /// The chunk along `dim` holding element `index`.
    pub fn dim_chunk_of(&self, dim: usize, index: u64) -> u64 {
        match self {
            ChunkGrid::Regular(g) => index / g.chunk_shape[dim],
        }
    }

    /// First element and stored length of chunk `chunk` along `dim`. The stored length may
    /// reach past the array's edge (regular grids store edge chunks whole).
    pub fn dim_chunk_span(&self, dim: usize, chunk: u64) -> (u64, u64) {
        match self {
            ChunkGrid::Regular(g) => {
                let len = g.chunk_shape[dim];
                (chunk.saturating_mul(len), len)
            }
        }
    }

    /// The stored shape of the chunk at `coords`.
    pub fn chunk_shape(&self, coords: &[u64]) -> Vec<u64> {
        coords.iter().enumerate().map(|(dim, &c)| self.dim_chunk_span(dim, c).1).collect()
    }

    /// The number of chunks along each dimension for `array_shape`.
    pub fn grid_shape(&self, array_shape: &[u64]) -> Vec<u64> {
        array_shape.iter().enumerate().map(|(dim, &len)| self.dim_chunk_count(dim, len)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_grid_matches_the_spec_example() {
        let grid = ChunkGrid::regular(vec![5, 20, 400]).unwrap();
        assert_eq!(grid.grid_shape(&[10, 200, 3000]), vec![2, 10, 8]);
        let coords: Vec<u64> = [7u64, 150, 900].iter().enumerate().map(|(d, &i)| grid.dim_chunk_of(d, i)).collect();
        assert_eq!(coords, vec![1, 7, 2]);
        assert_eq!(grid.dim_chunk_span(2, 7), (2800, 400));
        assert!(ChunkGrid::regular(vec![3, 0]).is_err());
    }
}
