//! One column's values across the file's row groups: each column chunk's pages read in turn
//! (a dictionary page, then data pages v1 or v2), decompressed, their definition levels giving
//! the nulls and their values PLAIN or dictionary indices.

use super::compression::{self, decompress};
use super::encoding::{rle_hybrid, Values};
use super::metadata::{ColumnChunk, Field, Physical};
use super::page::{self, read_header, PageHeader};
use super::thrift::Result;

/// A column's rows: for each, its value's index in `values`, or None for a null.
#[derive(Debug, Default)]
pub struct Column {
    pub rows: Vec<Option<u32>>,
    pub values: Values,
}

impl Column {
    /// Row `i`'s integer, where it has one.
    pub fn int(&self, i: usize) -> Option<i64> {
        let v = (*self.rows.get(i)?)? as usize;
        self.values.ints.get(v).copied()
    }

    /// Row `i`'s bytes, where it has some.
    pub fn bytes(&self, i: usize) -> Option<&[u8]> {
        let v = (*self.rows.get(i)?)? as usize;
        self.values.bytes(v)
    }
}

/// Bounds on what one file may decode to.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Rows in the whole file.
    pub max_rows: u64,
    /// Bytes of decompressed pages, all columns together, and so the most any page may hold.
    pub max_bytes: u64,
}

/// Reads `chunk` (of the column `field`) from `file` into `column`, with `rows` rows expected;
/// `budget` is what may still be decompressed.
pub fn read_chunk(
    file: &[u8],
    field: &Field,
    chunk: &ColumnChunk,
    rows: usize,
    budget: &mut u64,
    column: &mut Column,
) -> Result<()> {
    if chunk.file_path.is_some() {
        return Err("its pages are in another file (file_path), which is not read".into());
    }
    if chunk.physical != field.physical {
        return Err(format!(
            "the chunk's type {} is not the schema's {}",
            chunk.physical.name(),
            field.physical.name()
        ));
    }
    if !compression::supported(chunk.codec) {
        return Err(format!(
            "pages compressed with {} are not read (UNCOMPRESSED, SNAPPY, GZIP and ZSTD are)",
            compression::name(chunk.codec)
        ));
    }
    if chunk.num_values != rows as i64 {
        return Err(format!(
            "{} values in a row group of {rows} rows",
            chunk.num_values
        ));
    }
    let start = match chunk.dictionary_page_offset {
        // Some writers set the dictionary offset to 0 when there is none.
        Some(d) if d > 0 && d < chunk.data_page_offset => d,
        _ => chunk.data_page_offset,
    };
    let end = start
        .checked_add(chunk.total_compressed_size)
        .filter(|&e| start >= 4 && e >= start && e <= file.len() as i64 - 8)
        .ok_or_else(|| {
            format!(
                "its pages (bytes {start} + {}) are not within the file of {} bytes",
                chunk.total_compressed_size,
                file.len()
            )
        })?;
    let mut at = start as usize;
    let end = end as usize;
    // The chunk's dictionary: where its entries start among the column's values, and how many.
    let mut dictionary: Option<(u32, u32)> = None;
    let target = column.rows.len() + rows;
    let mut n = 0;
    while column.rows.len() < target {
        if at >= end {
            return Err(format!(
                "its pages end with {} of its {rows} values read",
                rows - (target - column.rows.len())
            ));
        }
        let (header, len) = read_header(&file[at..end]).map_err(|e| format!("page {n}: {e}"))?;
        let body_start = at + len;
        let body = file
            .get(body_start..body_start.saturating_add(header.compressed_size))
            .filter(|_| body_start + header.compressed_size <= end)
            .ok_or_else(|| {
                format!(
                    "page {n}: its {} bytes run past the column chunk's end",
                    header.compressed_size
                )
            })?;
        at = body_start + header.compressed_size;
        let page = |e: String| format!("page {n}: {e}");
        match header.kind {
            page::DICTIONARY_PAGE => {
                if dictionary.is_some() {
                    return Err(page("a second dictionary page".into()));
                }
                if !matches!(header.encoding, page::PLAIN | page::PLAIN_DICTIONARY) {
                    return Err(page(format!(
                        "a dictionary page in {}, not PLAIN",
                        page::encoding_name(header.encoding)
                    )));
                }
                let data =
                    inflate(chunk.codec, body, header.uncompressed_size, budget).map_err(page)?;
                // PLAIN decoding checks each entry against the bytes left before taking it. The
                // entries join the column's values once; rows refer to them by index.
                let base = column.values.len();
                column
                    .values
                    .plain(field.physical, data, 0, header.num_values)
                    .map_err(page)?;
                let size = column.values.len() - base;
                let fits =
                    |n: usize| u32::try_from(n).map_err(|_| page("more than 2^32 values".into()));
                dictionary = Some((fits(base)?, fits(size)?));
            }
            page::DATA_PAGE | page::DATA_PAGE_V2 => {
                let left = target - column.rows.len();
                if header.num_values > left {
                    return Err(page(format!(
                        "{} values, with {left} of the column chunk's left",
                        header.num_values
                    )));
                }
                data_page(field, chunk, &header, body, dictionary, budget, column).map_err(page)?;
            }
            // Index pages and kinds this reader does not know carry no values.
            _ => {}
        }
        n += 1;
    }
    Ok(())
}

/// A page's body decompressed into a buffer of exactly its size, counted against `budget`.
fn inflate(codec: i32, body: &[u8], size: usize, budget: &mut u64) -> Result<Vec<u8>> {
    if size as u64 > *budget {
        return Err(format!(
            "it decompresses to {size} bytes, more than the file may (the maxReferenceBytes option)"
        ));
    }
    *budget -= size as u64;
    decompress(codec, body, size)
}

fn data_page(
    field: &Field,
    chunk: &ColumnChunk,
    header: &PageHeader,
    body: &[u8],
    dictionary: Option<(u32, u32)>,
    budget: &mut u64,
    column: &mut Column,
) -> Result<()> {
    let count = header.num_values;
    // The definition levels, then the values: all compressed together in v1; in v2 the levels
    // come first, uncompressed, and the values may be compressed. The values are `values` from
    // `start` on: the page's buffer is kept whole rather than copied.
    let (levels, values, start): (Option<Vec<u32>>, Vec<u8>, usize) =
        if header.kind == page::DATA_PAGE {
            let data = inflate(chunk.codec, body, header.uncompressed_size, budget)?;
            if field.nullable {
                if header.definition_encoding != page::RLE {
                    return Err(format!(
                        "definition levels in {}, not RLE",
                        page::encoding_name(header.definition_encoding)
                    ));
                }
                let len = data
                    .get(..4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                    .filter(|&l| l <= data.len() - 4)
                    .ok_or("its definition levels run past the page")?;
                let mut levels = Vec::with_capacity(count);
                rle_hybrid(&data[4..4 + len], 1, count, &mut levels)
                    .map_err(|e| format!("its definition levels: {e}"))?;
                (Some(levels), data, 4 + len)
            } else {
                (None, data, 0)
            }
        } else {
            if header.repetition_bytes != 0 {
                return Err("repetition levels in a flat column".into());
            }
            let split = header.definition_bytes;
            if split > body.len() || split > header.uncompressed_size {
                return Err(format!(
                    "{split} bytes of definition levels in a page of {}",
                    body.len()
                ));
            }
            let levels = if field.nullable {
                let mut levels = Vec::with_capacity(count);
                rle_hybrid(&body[..split], 1, count, &mut levels)
                    .map_err(|e| format!("its definition levels: {e}"))?;
                Some(levels)
            } else {
                None
            };
            let size = header.uncompressed_size - split;
            let values = if header.compressed && chunk.codec != compression::UNCOMPRESSED {
                inflate(chunk.codec, &body[split..], size, budget)?
            } else {
                inflate(compression::UNCOMPRESSED, &body[split..], size, budget)?
            };
            (levels, values, 0)
        };
    let present = match &levels {
        Some(levels) => levels.iter().filter(|&&l| l == 1).count(),
        None => count,
    };
    // Each present value's index among the column's values.
    let mut ids = Vec::with_capacity(present);
    match header.encoding {
        page::PLAIN => {
            let first = column.values.len();
            column
                .values
                .plain(field.physical, values, start, present)?;
            if column.values.len() > u32::MAX as usize {
                return Err("more than 2^32 values".into());
            }
            ids.extend(first as u32..column.values.len() as u32);
        }
        page::PLAIN_DICTIONARY | page::RLE_DICTIONARY => {
            let (base, size) = dictionary.ok_or("dictionary indices without a dictionary page")?;
            let values = &values[start..];
            if present > 0 {
                let width = *values
                    .first()
                    .ok_or("dictionary indices without their bit width")?;
                rle_hybrid(&values[1..], u32::from(width), present, &mut ids)
                    .map_err(|e| format!("its dictionary indices: {e}"))?;
            }
            for id in &mut ids {
                if *id >= size {
                    return Err(format!(
                        "dictionary index {id} in a dictionary of {size} values"
                    ));
                }
                *id += base;
            }
        }
        e => {
            return Err(format!(
                "values in {}, which is not read (PLAIN and dictionary encodings are)",
                page::encoding_name(e)
            ))
        }
    }
    match levels {
        Some(levels) => {
            let mut ids = ids.into_iter();
            for l in levels {
                column.rows.push(match l {
                    0 => None,
                    // As many ids as levels of 1 (`present`).
                    1 => ids.next(),
                    l => return Err(format!("definition level {l} in a flat column")),
                });
            }
        }
        None => column.rows.extend(ids.into_iter().map(Some)),
    }
    Ok(())
}

/// Whether a column of this type can be read.
pub fn readable(physical: Physical) -> bool {
    matches!(
        physical,
        Physical::Int32 | Physical::Int64 | Physical::ByteArray
    )
}
