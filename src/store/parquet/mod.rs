//! A reader for the Parquet files kerchunk's references are kept in (fsspec's
//! `LazyReferenceMapper`, written with fastparquet or pyarrow): flat columns of INT32, INT64 and
//! BYTE_ARRAY, required or nullable, in row groups of data pages v1 and v2, PLAIN or dictionary
//! encoded, uncompressed or compressed with Snappy, GZIP or ZSTD. Nested and repeated columns,
//! other types, the DELTA and BYTE_STREAM_SPLIT encodings and other codecs are errors saying so.
//!
//! A file is data a server controls: every length, count and offset in it is checked against the
//! bytes there are, the rows against `Bounds::max_rows` and the decompressed pages against
//! `Bounds::max_bytes`, and errors say which column, row group and page was wrong.

mod column;
mod compression;
mod encoding;
mod file;
mod layout;
mod metadata;
mod page;
mod records;
mod thrift;

pub use column::{Bounds, Column};
pub use file::ParquetFile;
pub use layout::{Layout, Place};
pub use records::{Entry, Record};
