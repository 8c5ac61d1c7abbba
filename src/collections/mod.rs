//! The containers the rest of the crate is built with: byte buffers allocated fallibly
//! (`buffer`: a size read from untrusted bytes never aborts the module), a cache bounded by bytes
//! (`lru`), and the module's one sort (`sort`: the standard library's are generic, and each
//! element type sorted would link its own copy). They use nothing else of the crate.

pub mod buffer;
pub mod lru;
pub mod sort;
