//! A piece of a read: one chunk's (or inner chunk's) share of a selection and what its chunk
//! holds. Chunk and shard readers make pieces; the array places them in the result.

use crate::indexing::selection::DimChunkPart;
use std::ops::Range;
use std::rc::Rc;

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
    /// An inner chunk of a shard as stored, decoded where it is placed: a read holds each
    /// shard's fetched bytes until its inner chunks are in place, never their decoded copies.
    Inner(StoredInner),
}

/// Where an inner chunk's stored bytes are.
pub struct StoredInner {
    /// A block fetched from the shard, shared by the inner chunks in it (freed with the last).
    pub block: Rc<Vec<u8>>,
    /// The inner chunk's bytes in `block`.
    pub range: Range<usize>,
    /// The shard's key, for errors.
    pub shard_key: Rc<str>,
    /// The inner chunk's coordinates in the shard.
    pub coords: Vec<u64>,
}

impl From<Option<Vec<u8>>> for Content {
    fn from(decoded: Option<Vec<u8>>) -> Content {
        decoded.map_or(Content::Missing, Content::Decoded)
    }
}
