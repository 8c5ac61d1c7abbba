//! Parquet's footer: the file ends with its `FileMetaData` (Thrift compact), the metadata's
//! length (4 bytes, little-endian) and `PAR1`. What is kept is what reading flat columns needs:
//! the schema's leaves (name, physical type, whether nullable), and each row group's column
//! chunks (codec, value count, where the pages are).

use super::thrift::{Reader, Result, STRUCT};

const MAGIC: &[u8; 4] = b"PAR1";

/// The most columns a schema may have (kerchunk's reference files have four). Counts in the
/// footer are bounded before their elements are read, and nothing is reserved from them: an
/// element may take one byte on the wire and 50 to 150 in memory (issue 46: a schema list claiming
/// 30 million elements reserved 1 GB).
pub const MAX_COLUMNS: usize = 1024;
/// The most row groups a file may have (the writers put a reference file in one).
pub const MAX_ROW_GROUPS: usize = 65_536;
/// The most column chunks, all row groups together.
pub const MAX_COLUMN_CHUNKS: usize = 65_536;
/// The most parts of a column's path (a flat column's has one).
const MAX_PATH_PARTS: usize = 64;

/// `count` elements of a list of `what`, or an error where it is more than `max`.
fn bounded(count: usize, max: usize, what: &str) -> Result<usize> {
    if count > max {
        return Err(format!(
            "a list of {count} {what}, more than the {max} read"
        ));
    }
    Ok(count)
}

/// A leaf column's physical type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Physical {
    Boolean,
    Int32,
    Int64,
    Int96,
    Float,
    Double,
    ByteArray,
    FixedLenByteArray,
}

impl Physical {
    fn from_code(code: i32) -> Result<Physical> {
        Ok(match code {
            0 => Physical::Boolean,
            1 => Physical::Int32,
            2 => Physical::Int64,
            3 => Physical::Int96,
            4 => Physical::Float,
            5 => Physical::Double,
            6 => Physical::ByteArray,
            7 => Physical::FixedLenByteArray,
            c => return Err(format!("physical type {c} is not a Parquet type")),
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Physical::Boolean => "BOOLEAN",
            Physical::Int32 => "INT32",
            Physical::Int64 => "INT64",
            Physical::Int96 => "INT96",
            Physical::Float => "FLOAT",
            Physical::Double => "DOUBLE",
            Physical::ByteArray => "BYTE_ARRAY",
            Physical::FixedLenByteArray => "FIXED_LEN_BYTE_ARRAY",
        }
    }
}

/// A column of the schema's top level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub physical: Physical,
    /// OPTIONAL (a definition level of 1 marks a value; 0 a null) rather than REQUIRED.
    pub nullable: bool,
}

/// One column's pages in one row group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnChunk {
    /// The column's name (the last part of its schema path).
    pub name: String,
    pub physical: Physical,
    /// The codec number (`CompressionCodec`).
    pub codec: i32,
    /// Values, nulls included.
    pub num_values: i64,
    pub data_page_offset: i64,
    pub dictionary_page_offset: Option<i64>,
    pub total_compressed_size: i64,
    /// Set when the chunk is in another file (Parquet allows it; these readers never write it).
    pub file_path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowGroup {
    pub num_rows: i64,
    pub columns: Vec<ColumnChunk>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMetaData {
    pub num_rows: i64,
    pub fields: Vec<Field>,
    pub row_groups: Vec<RowGroup>,
}

/// The footer of the Parquet file `bytes`.
pub fn read_footer(bytes: &[u8]) -> Result<FileMetaData> {
    let n = bytes.len();
    if n < 12 || &bytes[..4] != MAGIC || &bytes[n - 4..] != MAGIC {
        return Err(format!(
            "not a Parquet file ({n} bytes, without PAR1 at both ends)"
        ));
    }
    let len = u32::from_le_bytes([bytes[n - 8], bytes[n - 7], bytes[n - 6], bytes[n - 5]]) as usize;
    if len > n - 12 {
        return Err(format!(
            "its footer says the metadata is {len} bytes long, in a file of {n}"
        ));
    }
    let meta = &bytes[n - 8 - len..n - 8];
    file_metadata(&mut Reader::new(meta)).map_err(|e| format!("its footer: {e}"))
}

/// A schema element, as written: the schema is a tree flattened depth first.
struct Element {
    name: String,
    physical: Option<i32>,
    repetition: Option<i32>,
    children: i32,
}

fn file_metadata(r: &mut Reader<'_>) -> Result<FileMetaData> {
    let mut num_rows = None;
    let mut elements = Vec::new();
    let mut row_groups = Vec::new();
    // Column chunks read so far, all row groups together.
    let mut chunks = 0;
    r.fields(|r, id, kind| {
        match id {
            2 => {
                let (count, elem) = r.list(kind)?;
                // The root and its columns.
                bounded(elements.len() + count, MAX_COLUMNS + 1, "schema elements")?;
                for _ in 0..count {
                    elements.push(element(r, elem)?);
                }
            }
            3 => num_rows = Some(r.int(kind)?),
            4 => {
                let (count, elem) = r.list(kind)?;
                bounded(row_groups.len() + count, MAX_ROW_GROUPS, "row groups")?;
                for i in 0..count {
                    let group = row_group(r, elem, &mut chunks)
                        .map_err(|e| format!("row group {i}: {e}"))?;
                    row_groups.push(group);
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let num_rows = num_rows.ok_or("the metadata has no num_rows")?;
    Ok(FileMetaData {
        num_rows,
        fields: fields(&elements)?,
        row_groups,
    })
}

fn element(r: &mut Reader<'_>, kind: u8) -> Result<Element> {
    struct_kind(kind)?;
    let mut e = Element {
        name: String::new(),
        physical: None,
        repetition: None,
        children: 0,
    };
    r.fields(|r, id, kind| {
        match id {
            1 => e.physical = Some(r.i32(kind)?),
            3 => e.repetition = Some(r.i32(kind)?),
            4 => e.name = r.string(kind)?,
            5 => e.children = r.i32(kind)?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(e)
}

/// The top-level leaf columns: the root's children, none of them a group or repeated.
fn fields(elements: &[Element]) -> Result<Vec<Field>> {
    let Some((root, leaves)) = elements.split_first() else {
        return Err("the schema is empty".into());
    };
    if usize::try_from(root.children).ok() != Some(leaves.len()) {
        return Err(format!(
            "the schema's root has {} children and {} elements follow it: nested columns are not read",
            root.children,
            leaves.len()
        ));
    }
    leaves
        .iter()
        .map(|e| {
            let bad = |what: &str| format!("schema column \"{}\": {what}", e.name);
            if e.children != 0 {
                return Err(bad("a group (nested columns are not read)"));
            }
            let physical = Physical::from_code(e.physical.ok_or_else(|| bad("no type"))?)
                .map_err(|m| bad(&m))?;
            let nullable = match e.repetition {
                Some(0) | None => false,
                Some(1) => true,
                Some(2) => return Err(bad("a repeated column (lists are not read)")),
                Some(r) => return Err(bad(&format!("repetition {r} is not a Parquet repetition"))),
            };
            Ok(Field {
                name: e.name.clone(),
                physical,
                nullable,
            })
        })
        .collect()
}

fn row_group(r: &mut Reader<'_>, kind: u8, chunks: &mut usize) -> Result<RowGroup> {
    struct_kind(kind)?;
    let mut columns = Vec::new();
    let mut num_rows = None;
    r.fields(|r, id, kind| {
        match id {
            1 => {
                let (count, elem) = r.list(kind)?;
                *chunks = bounded(*chunks + count, MAX_COLUMN_CHUNKS, "column chunks in all")?;
                for i in 0..count {
                    columns.push(column_chunk(r, elem).map_err(|e| format!("column {i}: {e}"))?);
                }
            }
            3 => num_rows = Some(r.int(kind)?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(RowGroup {
        num_rows: num_rows.ok_or("no num_rows")?,
        columns,
    })
}

fn column_chunk(r: &mut Reader<'_>, kind: u8) -> Result<ColumnChunk> {
    struct_kind(kind)?;
    let mut file_path = None;
    let mut meta = None;
    r.fields(|r, id, kind| {
        match id {
            1 => file_path = Some(r.string(kind)?),
            3 => meta = Some(column_metadata(r, kind)?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let mut chunk = meta.ok_or("a column chunk without its metadata")?;
    chunk.file_path = file_path.filter(|p| !p.is_empty());
    Ok(chunk)
}

fn column_metadata(r: &mut Reader<'_>, kind: u8) -> Result<ColumnChunk> {
    struct_kind(kind)?;
    let (mut physical, mut path, mut codec, mut num_values) = (None, Vec::new(), None, None);
    let (mut data, mut dictionary, mut size) = (None, None, None);
    r.fields(|r, id, kind| {
        match id {
            1 => physical = Some(Physical::from_code(r.i32(kind)?)?),
            3 => {
                let (count, elem) = r.list(kind)?;
                bounded(count, MAX_PATH_PARTS, "path parts")?;
                for _ in 0..count {
                    path.push(r.string(elem)?);
                }
            }
            4 => codec = Some(r.i32(kind)?),
            5 => num_values = Some(r.int(kind)?),
            7 => size = Some(r.int(kind)?),
            9 => data = Some(r.int(kind)?),
            11 => dictionary = Some(r.int(kind)?),
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let missing = |what: &str| format!("its metadata has no {what}");
    Ok(ColumnChunk {
        name: path.pop().ok_or_else(|| missing("path_in_schema"))?,
        physical: physical.ok_or_else(|| missing("type"))?,
        codec: codec.ok_or_else(|| missing("codec"))?,
        num_values: num_values.ok_or_else(|| missing("num_values"))?,
        data_page_offset: data.ok_or_else(|| missing("data_page_offset"))?,
        dictionary_page_offset: dictionary,
        total_compressed_size: size.ok_or_else(|| missing("total_compressed_size"))?,
        file_path: None,
    })
}

fn struct_kind(kind: u8) -> Result<()> {
    if kind != STRUCT {
        return Err(format!("a struct has Thrift type {kind}"));
    }
    Ok(())
}
