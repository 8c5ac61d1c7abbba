//! From a selection to chunks: what a user asks for (`selection`), which chunks it touches and
//! which part of each (`partition`), and copying boxes between C-ordered buffers (`region`).

pub mod partition;
pub mod region;
pub mod selection;
