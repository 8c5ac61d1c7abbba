//! One of kerchunk's Parquet reference files (`<field>/refs.<i>.parq`) read into its rows: the
//! columns `path` (the target URL; null where the chunk is inline or missing), `offset` and
//! `size` (0 and 0: the whole target) and `raw` (the chunk's bytes inline). A row with neither a
//! path nor raw bytes is a missing chunk, as fsspec's `LazyReferenceMapper` reads it.

use super::column::{Bounds, Column};
use super::encoding::Values;
use super::file::ParquetFile;
use super::thrift::Result;
use std::collections::HashMap;

/// What one row says of its chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Missing,
    /// Value `n` of `Record::inline`'s.
    Inline(u32),
    /// The whole of `Record::paths[n]`.
    Whole(u32),
    Span {
        path: u32,
        offset: u64,
        length: u64,
    },
}

/// A reference file's rows, their target paths each kept once, and the `raw` column's values as
/// they were decoded (its pages kept, not copied).
#[derive(Debug, Default)]
pub struct Record {
    pub rows: Vec<Entry>,
    pub paths: Vec<String>,
    inline: Values,
}

impl Record {
    /// Reads the reference file `bytes`, of at most `bounds.max_rows` rows.
    pub fn read(bytes: &[u8], bounds: Bounds) -> Result<Record> {
        let file = ParquetFile::parse(bytes, bounds)?;
        let mut budget = bounds.max_bytes;
        let mut column = |name: &str| file.column(name, &mut budget);
        let path = column("path")?;
        let (offset, size) = (column("offset")?, column("size")?);
        let raw = column("raw")?.unwrap_or_default();
        let none = Column::default();
        let path = path.as_ref().unwrap_or(&none);
        for (name, c) in [("path", path), ("raw", &raw)] {
            if !c.values.ints.is_empty() {
                return Err(format!(
                    "column \"{name}\" holds numbers, not strings or bytes"
                ));
            }
        }
        for (name, c) in [("offset", &offset), ("size", &size)] {
            if c.as_ref().is_some_and(|c| c.values.byte_strings() > 0) {
                return Err(format!("column \"{name}\" holds bytes, not integers"));
            }
        }
        let int = |c: &Option<Column>, i: usize| c.as_ref().and_then(|c| c.int(i)).unwrap_or(0);
        let mut record = Record {
            rows: Vec::with_capacity(file.rows()),
            ..Record::default()
        };
        // Each path kept once: by its value (a dictionary's entries are shared by many rows, and
        // are each one value), then by its text (plain pages repeat it).
        let mut by_value = vec![u32::MAX; path.values.len()];
        let mut by_text: HashMap<&[u8], u32> = HashMap::new();
        for i in 0..file.rows() {
            let entry = if let Some(v) = raw.bytes(i).and(raw.rows[i]) {
                Entry::Inline(v)
            } else if let Some(Some(v)) = path.rows.get(i) {
                let v = *v as usize;
                let n = match by_value[v] {
                    u32::MAX => {
                        let p = path.bytes(i).unwrap_or_default();
                        let n = match by_text.get(p) {
                            Some(&n) => n,
                            None => {
                                let text = std::str::from_utf8(p)
                                    .map_err(|_| format!("row {i}: its path is not UTF-8"))?;
                                let n = record.paths.len() as u32;
                                record.paths.push(text.to_string());
                                by_text.insert(p, n);
                                n
                            }
                        };
                        by_value[v] = n;
                        n
                    }
                    n => n,
                };
                let (o, s) = (int(&offset, i), int(&size, i));
                if o < 0 || s < 0 || o.checked_add(s).is_none() {
                    return Err(format!(
                        "row {i}: offset {o} and size {s} are not a byte range"
                    ));
                }
                if (o, s) == (0, 0) {
                    Entry::Whole(n)
                } else {
                    Entry::Span {
                        path: n,
                        offset: o as u64,
                        length: s as u64,
                    }
                }
            } else {
                Entry::Missing
            };
            record.rows.push(entry);
        }
        record.inline = raw.values;
        Ok(record)
    }

    /// The inline bytes of value `n` (an `Entry::Inline`'s).
    pub fn inline(&self, n: &u32) -> &[u8] {
        self.inline.bytes(*n as usize).unwrap_or_default()
    }

    /// About how much memory the record holds.
    pub fn size(&self) -> usize {
        self.rows.len() * size_of::<Entry>()
            + self.inline.held()
            + self.paths.iter().map(|p| p.len() + 24).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/references/");
    const BOUNDS: Bounds = Bounds {
        max_rows: 100,
        max_bytes: 1 << 20,
    };

    #[test]
    fn rows_are_ranges_inline_bytes_or_missing() {
        let bytes = std::fs::read(format!("{DIR}h5.parq/contiguous/refs.0.parq")).unwrap();
        let r = Record::read(&bytes, BOUNDS).unwrap();
        assert_eq!(r.paths, ["../data.h5"]);
        assert!(matches!(
            r.rows[0],
            Entry::Span {
                path: 0,
                length: 192,
                ..
            }
        ));
        assert_eq!(r.rows[1], Entry::Missing);
        let bytes = std::fs::read(format!("{DIR}nc_snappy.parq/time/refs.0.parq")).unwrap();
        let r = Record::read(&bytes, BOUNDS).unwrap();
        let Entry::Inline(range) = &r.rows[0] else {
            panic!("{:?}", r.rows[0])
        };
        assert_eq!(r.inline(range).len(), 6 * 4);
        assert!(r.rows[1..].iter().all(|e| *e == Entry::Missing));
        assert!(r.size() > 24);
    }
}
