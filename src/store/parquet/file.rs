//! A Parquet file: its footer read, then its columns one at a time.

use super::column::{self, Bounds, Column};
use super::metadata::{read_footer, FileMetaData};
use super::thrift::Result;

/// A Parquet file's bytes and its footer.
pub struct ParquetFile<'a> {
    bytes: &'a [u8],
    meta: FileMetaData,
}

impl<'a> ParquetFile<'a> {
    /// Reads the footer of `bytes`, and checks its rows against `bounds`.
    pub fn parse(bytes: &'a [u8], bounds: Bounds) -> Result<ParquetFile<'a>> {
        let meta = read_footer(bytes)?;
        if let Some(g) = meta.row_groups.iter().position(|g| g.num_rows < 0) {
            return Err(format!("row group {g} has a negative row count"));
        }
        let rows = meta
            .row_groups
            .iter()
            .try_fold(0i64, |n, g| n.checked_add(g.num_rows))
            .ok_or("its row groups' row counts overflow")?;
        if meta.num_rows < 0 || rows != meta.num_rows {
            return Err(format!(
                "its row groups hold {rows} rows and its metadata says {}",
                meta.num_rows
            ));
        }
        if meta.num_rows as u64 > bounds.max_rows {
            return Err(format!(
                "{} rows, more than the {} expected",
                meta.num_rows, bounds.max_rows
            ));
        }
        Ok(ParquetFile { bytes, meta })
    }

    /// How many rows there are.
    pub fn rows(&self) -> usize {
        self.meta.num_rows as usize
    }

    /// The column `name`, or None where the file has none of that name. `budget` is what the
    /// file's pages may still decompress to (start it at `Bounds::max_bytes`).
    pub fn column(&self, name: &str, budget: &mut u64) -> Result<Option<Column>> {
        let Some(field) = self.meta.fields.iter().find(|f| f.name == name) else {
            return Ok(None);
        };
        let bad = |what: String| format!("column \"{name}\": {what}");
        if !column::readable(field.physical) {
            return Err(bad(format!(
                "its type {} is not read (INT32, INT64 and BYTE_ARRAY are)",
                field.physical.name()
            )));
        }
        let mut out = Column::default();
        for (g, group) in self.meta.row_groups.iter().enumerate() {
            let chunk = group
                .columns
                .iter()
                .find(|c| c.name == name)
                .ok_or_else(|| bad(format!("row group {g} has no chunk of it")))?;
            column::read_chunk(
                self.bytes,
                field,
                chunk,
                group.num_rows as usize,
                budget,
                &mut out,
            )
            .map_err(|e| bad(format!("row group {g}: {e}")))?;
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/references/");

    fn read(path: &str) -> Vec<u8> {
        std::fs::read(format!("{DIR}{path}")).unwrap()
    }

    const BOUNDS: Bounds = Bounds {
        max_rows: 1000,
        max_bytes: 1 << 20,
    };

    /// Every column of a file, as (path, offset, size, raw) rows.
    type Row = (Option<String>, Option<i64>, Option<i64>, Option<Vec<u8>>);

    fn rows(bytes: &[u8], bounds: Bounds) -> Result<Vec<Row>> {
        let file = ParquetFile::parse(bytes, bounds)?;
        let mut budget = bounds.max_bytes;
        let mut column = |name| {
            file.column(name, &mut budget)
                .map(|c| c.unwrap_or_default())
        };
        let (path, offset, size, raw) = (
            column("path")?,
            column("offset")?,
            column("size")?,
            column("raw")?,
        );
        Ok((0..file.rows())
            .map(|i| {
                (
                    path.bytes(i)
                        .map(|b| String::from_utf8_lossy(b).into_owned()),
                    offset.int(i),
                    size.int(i),
                    raw.bytes(i).map(<[u8]>::to_vec),
                )
            })
            .collect())
    }

    #[test]
    fn reads_fastparquet_and_pyarrow_files_of_every_codec_and_page_version() {
        // fastparquet, zstd, a dictionary-encoded path column: a range ref and a null row.
        let r = rows(&read("h5.parq/contiguous/refs.0.parq"), BOUNDS).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].0.as_deref(), Some("../data.h5"));
        assert_eq!((r[0].2, r[0].3.as_ref()), (Some(8 * 6 * 4), None));
        assert_eq!((r[1].0.as_ref(), r[1].3.as_ref()), (None, None));
        // pyarrow (zstd, dictionaries, a null-typed path column) and its rewrites with
        // snappy, gzip and no compression in data pages v2 read to the same rows.
        for var in ["lat", "lon", "pr", "time", "tas"] {
            let arrow = rows(&read(&format!("nc_arrow.parq/{var}/refs.0.parq")), BOUNDS).unwrap();
            let other = rows(&read(&format!("nc_snappy.parq/{var}/refs.0.parq")), BOUNDS).unwrap();
            assert_eq!(arrow, other, "{var}");
            assert_eq!(arrow.len(), 5);
        }
        // pr's rewrite is in row groups of 2 rows.
        let pr = read("nc_snappy.parq/pr/refs.0.parq");
        let groups = ParquetFile::parse(&pr, BOUNDS)
            .unwrap()
            .meta
            .row_groups
            .len();
        assert_eq!(groups, 3);
        let lat = rows(&read("nc_arrow.parq/lat/refs.0.parq"), BOUNDS).unwrap();
        assert_eq!(lat[0].3.as_ref().map(Vec::len), Some(10 * 8));
        assert!(lat[1..]
            .iter()
            .all(|r| r == &(None, Some(0), Some(0), None)));
    }

    /// A file of one INT64 column "a" whose footer has row groups of `rows` rows each (and
    /// column chunks of as many values), its pages empty.
    fn footer_with_row_groups(rows: &[i64]) -> Vec<u8> {
        let zigzag = |v: i64| ((v << 1) ^ (v >> 63)) as u8;
        let total: i64 = rows.iter().sum();
        // version 1; schema [root with 1 child, "a" INT64 required]; num_rows.
        let mut m = vec![0x15, 2, 0x19, 0x2c];
        m.extend([0x48, 1, b'r', 0x15, 2, 0]);
        m.extend([0x15, 4, 0x25, 0, 0x18, 1, b'a', 0]);
        m.extend([0x16, zigzag(total), 0x19, (rows.len() as u8) << 4 | 0x0c]);
        for &n in rows {
            // columns [{file_offset 0, meta_data {INT64, [PLAIN], ["a"], UNCOMPRESSED, n values,
            // sizes 0, data_page_offset 4}}], total_byte_size 0, num_rows n.
            m.extend([
                0x19, 0x1c, 0x26, 0, 0x1c, 0x15, 4, 0x19, 0x15, 0, 0x19, 0x18, 1, b'a',
            ]);
            m.extend([0x15, 0, 0x16, zigzag(n), 0x16, 0, 0x16, 0, 0x26, 8, 0, 0]);
            m.extend([0x16, 0, 0x16, zigzag(n), 0]);
        }
        m.push(0);
        let mut file = b"PAR1".to_vec();
        file.extend(&m);
        file.extend((m.len() as u32).to_le_bytes());
        file.extend(b"PAR1");
        file
    }

    #[test]
    fn row_counts_that_do_not_add_up_are_errors() {
        let file = footer_with_row_groups(&[0]);
        let parsed = ParquetFile::parse(&file, BOUNDS).unwrap();
        assert_eq!(parsed.rows(), 0);
        assert_eq!(parsed.column("a", &mut 100).unwrap().unwrap().rows.len(), 0);
        // A negative group that the others make up for.
        let err = ParquetFile::parse(&footer_with_row_groups(&[-2, 2]), BOUNDS)
            .err()
            .unwrap();
        assert!(
            err.contains("row group 0 has a negative row count"),
            "{err}"
        );
        // Rows with no pages to hold them.
        let file = footer_with_row_groups(&[2]);
        let err = ParquetFile::parse(&file, BOUNDS)
            .unwrap()
            .column("a", &mut 100)
            .unwrap_err();
        assert!(err.contains("column \"a\": row group 0"), "{err}");
    }

    #[test]
    fn bounds_are_kept() {
        let bytes = read("nc_arrow.parq/tas/refs.0.parq");
        let few_rows = Bounds {
            max_rows: 4,
            ..BOUNDS
        };
        assert!(rows(&bytes, few_rows)
            .unwrap_err()
            .contains("more than the 4"));
        let few_bytes = Bounds {
            max_bytes: 30,
            ..BOUNDS
        };
        assert!(rows(&bytes, few_bytes)
            .unwrap_err()
            .contains("maxReferenceBytes"));
    }

    #[test]
    fn truncated_and_corrupt_files_are_errors_not_panics() {
        for path in [
            "h5.parq/counts/refs.0.parq",
            "nc_arrow.parq/tas/refs.1.parq",
            "nc_snappy.parq/lon/refs.0.parq",
            "nc_snappy.parq/tas/refs.0.parq",
            "nc_snappy.parq/pr/refs.0.parq",
        ] {
            let bytes = read(path);
            let whole = rows(&bytes, BOUNDS).unwrap();
            for n in 0..bytes.len() {
                assert!(rows(&bytes[..n], BOUNDS).is_err(), "{path} cut at {n}");
            }
            // Every byte changed in turn, three ways: an error or some rows, never a panic. A
            // change of the magic is always an error.
            for i in 0..bytes.len() {
                for x in [0x01, 0x80, 0xff] {
                    let mut b = bytes.clone();
                    b[i] ^= x;
                    let read = rows(&b, BOUNDS);
                    if i < 4 || i >= bytes.len() - 4 {
                        assert!(read.is_err(), "{path}: byte {i} ^ {x}");
                    }
                }
            }
            assert!(!whole.is_empty());
        }
        let err = rows(b"PAR1\x00\x00\x00PAR1", BOUNDS).unwrap_err();
        assert!(err.contains("not a Parquet file"), "{err}");
        let err = rows(b"PAR1\x00\x00\x00\x00PAR1", BOUNDS).unwrap_err();
        assert!(err.contains("ends early"), "{err}");
        let err = rows(b"PAR1\x00\x00\x00\x00\xff\x00\x00\x00PAR1", BOUNDS).unwrap_err();
        assert!(err.contains("footer says"), "{err}");
    }
}
