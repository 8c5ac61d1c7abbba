//! Page headers: what kind of page follows (data v1, data v2, dictionary), its sizes, its value
//! count and encodings. Index pages and other kinds are skipped by the column reader.

use super::thrift::{Reader, Result, STRUCT};

pub const DATA_PAGE: i32 = 0;
pub const DICTIONARY_PAGE: i32 = 2;
pub const DATA_PAGE_V2: i32 = 3;

/// Value encodings.
pub const PLAIN: i32 = 0;
pub const PLAIN_DICTIONARY: i32 = 2;
pub const RLE: i32 = 3;
pub const RLE_DICTIONARY: i32 = 8;

pub fn encoding_name(e: i32) -> String {
    match e {
        0 => "PLAIN".into(),
        2 => "PLAIN_DICTIONARY".into(),
        3 => "RLE".into(),
        4 => "BIT_PACKED".into(),
        5 => "DELTA_BINARY_PACKED".into(),
        6 => "DELTA_LENGTH_BYTE_ARRAY".into(),
        7 => "DELTA_BYTE_ARRAY".into(),
        8 => "RLE_DICTIONARY".into(),
        9 => "BYTE_STREAM_SPLIT".into(),
        e => format!("encoding {e}"),
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageHeader {
    pub kind: i32,
    pub uncompressed_size: usize,
    pub compressed_size: usize,
    /// Values in the page, nulls included (data pages), or entries (dictionary pages).
    pub num_values: usize,
    pub encoding: i32,
    /// Data page v1: how the definition levels are encoded (RLE).
    pub definition_encoding: i32,
    /// Data page v2: the levels' byte lengths, before the values, never compressed.
    pub definition_bytes: usize,
    pub repetition_bytes: usize,
    /// Data page v2: whether the values are compressed.
    pub compressed: bool,
}

/// The page header at the start of `data`, and its length.
pub fn read_header(data: &[u8]) -> Result<(PageHeader, usize)> {
    let mut r = Reader::new(data);
    let mut h = PageHeader {
        compressed: true,
        ..PageHeader::default()
    };
    let (mut kind, mut sizes) = (None, (None, None));
    let size = |v: i32, what: &str| {
        usize::try_from(v).map_err(|_| format!("a page's {what} is negative ({v})"))
    };
    r.fields(|r, id, t| {
        match id {
            1 => kind = Some(r.i32(t)?),
            2 => sizes.0 = Some(size(r.i32(t)?, "uncompressed size")?),
            3 => sizes.1 = Some(size(r.i32(t)?, "compressed size")?),
            5 | 7 | 8 => {
                if t != STRUCT {
                    return Err(format!("page header field {id} has Thrift type {t}"));
                }
                r.fields(|r, sub, t| {
                    match (id, sub) {
                        (_, 1) => h.num_values = size(r.i32(t)?, "value count")?,
                        (5 | 7, 2) | (8, 4) => h.encoding = r.i32(t)?,
                        (5, 3) => h.definition_encoding = r.i32(t)?,
                        (8, 5) => {
                            h.definition_bytes = size(r.i32(t)?, "definition levels' length")?
                        }
                        (8, 6) => {
                            h.repetition_bytes = size(r.i32(t)?, "repetition levels' length")?
                        }
                        (8, 7) => h.compressed = r.bool(t)?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    })
    .map_err(|e| format!("a page header: {e}"))?;
    h.kind = kind.ok_or("a page header without its type")?;
    h.uncompressed_size = sizes
        .0
        .ok_or("a page header without its uncompressed size")?;
    h.compressed_size = sizes.1.ok_or("a page header without its compressed size")?;
    Ok((h, r.position()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_of_data_pages_v1_v2_and_dictionaries() {
        // type 0, sizes 20 and 10, data_page_header { 3 values, PLAIN, RLE, RLE }.
        let v1 = [
            0x15, 0x00, 0x15, 40, 0x15, 20, 0x2c, 0x15, 6, 0x15, 0, 0x15, 6, 0x15, 6, 0, 0,
        ];
        let (h, len) = read_header(&v1).unwrap();
        assert_eq!(len, v1.len());
        assert_eq!(
            (h.kind, h.uncompressed_size, h.compressed_size, h.num_values),
            (0, 20, 10, 3)
        );
        assert_eq!((h.encoding, h.definition_encoding), (PLAIN, RLE));
        // type 3, sizes, data_page_header_v2 (field 8) { 4 values, 1 null, 4 rows, RLE_DICTIONARY,
        // 2 bytes of definition levels, 0 of repetition, not compressed }.
        let v2 = [
            0x15, 6, 0x15, 40, 0x15, 20, 0x5c, 0x15, 8, 0x15, 2, 0x15, 8, 0x15, 16, 0x15, 4, 0x15,
            0, 0x12, 0, 0,
        ];
        let (h, _) = read_header(&v2).unwrap();
        assert_eq!(
            (h.kind, h.num_values, h.encoding),
            (DATA_PAGE_V2, 4, RLE_DICTIONARY)
        );
        assert_eq!(
            (h.definition_bytes, h.repetition_bytes, h.compressed),
            (2, 0, false)
        );
        // A negative size, a missing type, and every truncation are errors.
        assert!(read_header(&[0x15, 0x00, 0x15, 1, 0x15, 2, 0])
            .unwrap_err()
            .contains("negative"));
        assert!(read_header(&[0x25, 40, 0x15, 20, 0])
            .unwrap_err()
            .contains("type"));
        for n in 0..v2.len() {
            assert!(read_header(&v2[..n]).is_err());
        }
    }
}
