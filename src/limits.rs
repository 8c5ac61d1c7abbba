//! Bounds on what one read may cost. Metadata, a server or a chunk can name any count or size;
//! nothing is allocated or looped over from such a number unless it is within these limits, so a
//! hostile or broken store gets a clear error instead of exhausting the module's memory (a trap in
//! wasm kills the module for every caller) or blocking the event loop.
//!
//! Every limit has a default a viewer never meets with real data, and each can be set per node
//! (`open(location, { limits })`) and, for the per-read ones, per read.

/// The limits one node's reads are held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Chunks (for a sharded array, inner chunks) one read may touch. A million-chunk read is
    /// fine; a selection over a billion one-element chunks is refused before anything is fetched.
    pub max_chunks_per_read: u64,
    /// Bytes of the result of one read (the decoded selection), refused before anything is fetched.
    pub max_bytes_per_read: u64,
    /// Bytes a chunk whose decoded size nothing fixes (variable-length data: strings, bytes) may
    /// decode to; a compressed "bomb" stops here instead of at the module's memory limit.
    pub max_decoded_chunk_bytes: usize,
    /// Bytes of one variable-length item (a string or a byte string). JavaScript strings have a
    /// length limit of their own (about 2^29 UTF-16 units in V8); an item beyond it is refused
    /// with an error rather than failing inside the JS engine.
    pub max_item_bytes: usize,
}

/// V8's longest string, in UTF-16 code units (`String.prototype.length`): 2^29 - 24.
pub const JS_MAX_STRING_LENGTH: usize = (1 << 29) - 24;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_chunks_per_read: 1 << 20,
            max_bytes_per_read: 1 << 30,
            max_decoded_chunk_bytes: 256 << 20,
            max_item_bytes: JS_MAX_STRING_LENGTH,
        }
    }
}
