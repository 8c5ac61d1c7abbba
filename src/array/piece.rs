//! A piece of a read: one chunk's (or inner chunk's) share of a selection and what its chunk
//! holds. Chunk and shard readers make pieces; the array places them in the result.

use crate::indexing::selection::DimChunkPart;

/// Decoded elements of one chunk (or inner chunk) and the share of the selection they fill.
pub struct Piece {
    /// The shape `data` has.
    pub chunk_shape: Vec<u64>,
    pub parts: Vec<DimChunkPart>,
    pub data: Content,
    /// The chunk's grid coordinates, for a piece that is a whole chunk of the array.
    pub coords: Option<Vec<u64>>,
}

/// What a piece holds.
pub enum Content {
    /// Its chunk is missing: the fill value.
    Missing,
    /// Elements, in C order of the piece's shape.
    Decoded(Vec<u8>),
    /// A whole chunk as stored, decoded where it is placed.
    Encoded(Vec<u8>),
}

impl From<Option<Vec<u8>>> for Content {
    fn from(decoded: Option<Vec<u8>>) -> Content {
        decoded.map_or(Content::Missing, Content::Decoded)
    }
}
