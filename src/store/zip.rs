//! A Zarr hierarchy inside a ZIP file (zarr-python's `ZipStore`), read through another store with
//! range requests: the end of the file (its directory's location), the central directory, then
//! per member its local header and data. Stored members are read in ranges too (a shard's inner
//! chunks); deflated ones whole. ZIP64 archives (over 4 GiB or 65535 members) read as well.

use super::{ByteRange, ReadableStore};
use crate::compression::inflate::{inflate_append, Wrapper};
use crate::error::{ErrorKind, Result, ZarrError};
use async_trait::async_trait;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use zarr_wasm_kernels::crc32;

/// The end of central directory record is 22 bytes and may be followed by a comment of up to
/// 65535 bytes: the last 65557 bytes hold it for sure.
const TAIL: u64 = 22 + 65535;
/// A central directory larger than this is refused before it is fetched.
const MAX_DIRECTORY: u64 = 1 << 30;
const EOCD: u32 = 0x0605_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;
const ZIP64_EOCD: u32 = 0x0606_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;
const STORED: u16 = 0;
const DEFLATED: u16 = 8;

/// One member, as the central directory describes it.
#[derive(Debug, Clone)]
struct Member {
    method: u16,
    crc32: u32,
    compressed: u64,
    uncompressed: u64,
    header_offset: u64,
}

/// The members of an archive by name, and where each one's data starts once that is known.
#[derive(Debug, Default)]
pub struct ZipDirectory {
    members: HashMap<String, Member>,
    data_offsets: RefCell<HashMap<String, u64>>,
    /// The member inflated last: ranges of a deflated member (a shard's index, then its inner
    /// chunks) are cut from it instead of fetching and inflating it again.
    last_inflated: RefCell<Option<(String, Rc<Vec<u8>>)>>,
}

impl ZipDirectory {
    /// The member names (keys of the store).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.members.keys().map(String::as_str)
    }
}

pub struct ZipStore {
    inner: Rc<dyn ReadableStore>,
    /// The archive's key in `inner`.
    key: String,
    directory: Rc<ZipDirectory>,
}

/// Little-endian fields of a byte slice, each `None` past the end.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn u16(&self, at: usize) -> Option<u16> {
        let b = self.0.get(at..at.checked_add(2)?)?;
        Some(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&self, at: usize) -> Option<u32> {
        let b = self.0.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64(&self, at: usize) -> Option<u64> {
        let b = self.0.get(at..at.checked_add(8)?)?;
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }
}

impl ZipStore {
    /// Reads the directory of the archive at `key` in `inner`.
    pub async fn open(inner: Rc<dyn ReadableStore>, key: &str) -> Result<ZipStore> {
        let location = inner.locate(key);
        let bad = |reason: String| {
            ZarrError::new(
                ErrorKind::Store,
                format!("{location} is not a readable ZIP file: {reason}"),
            )
        };
        let tail = inner
            .get_range(key, ByteRange::Suffix(TAIL))
            .await?
            .ok_or_else(|| {
                ZarrError::new(ErrorKind::NotFound, format!("no ZIP file at {location}"))
            })?;
        let end =
            find_end(&tail).ok_or_else(|| bad("no end of central directory record".into()))?;
        let (cd_offset, cd_size, cd_end_in_tail) = directory_location(&inner, key, &tail, end)
            .await?
            .map_err(bad)?;
        if cd_size > MAX_DIRECTORY {
            return Err(bad(format!("a central directory of {cd_size} bytes")));
        }
        // The directory usually ends where the end records start, inside the tail already read.
        let in_tail = cd_end_in_tail
            .checked_sub(cd_size as usize)
            .filter(|&start| cd_size == 0 || Fields(&tail).u32(start) == Some(CENTRAL))
            .map(|start| tail[start..cd_end_in_tail].to_vec());
        let directory = match in_tail {
            Some(bytes) => bytes,
            None => inner
                .get_range(
                    key,
                    ByteRange::Span {
                        offset: cd_offset,
                        length: cd_size,
                    },
                )
                .await?
                .ok_or_else(|| bad("it disappeared while being read".into()))?,
        };
        if directory.len() as u64 != cd_size {
            return Err(bad(format!(
                "its central directory should have {cd_size} bytes, {} were read",
                directory.len()
            )));
        }
        let members = parse_directory(&directory).map_err(bad)?;
        Ok(ZipStore {
            inner,
            key: key.to_string(),
            directory: Rc::new(ZipDirectory {
                members,
                data_offsets: RefCell::default(),
                last_inflated: RefCell::default(),
            }),
        })
    }

    /// This archive read through another view of the same store (one that carries an
    /// `AbortSignal`, say), sharing the directory.
    pub fn with_inner(&self, inner: Rc<dyn ReadableStore>) -> ZipStore {
        ZipStore {
            inner,
            key: self.key.clone(),
            directory: self.directory.clone(),
        }
    }

    pub fn directory(&self) -> &ZipDirectory {
        &self.directory
    }

    /// Where the data of `member` (named `name`) starts in the archive: after its local header,
    /// whose extra field may differ from the central directory's, so it is read once.
    async fn data_offset(&self, name: &str, member: &Member) -> Result<u64> {
        if let Some(&offset) = self.directory.data_offsets.borrow().get(name) {
            return Ok(offset);
        }
        let location = self.locate(name);
        let span = ByteRange::Span {
            offset: member.header_offset,
            length: 30,
        };
        let header = self
            .inner
            .get_range(&self.key, span)
            .await?
            .unwrap_or_default();
        let fields = Fields(&header);
        let (Some(LOCAL), Some(name_len), Some(extra_len)) =
            (fields.u32(0), fields.u16(26), fields.u16(28))
        else {
            return Err(ZarrError::store(
                &location,
                "its local header is missing or damaged",
            ));
        };
        let offset = member.header_offset + 30 + name_len as u64 + extra_len as u64;
        self.directory
            .data_offsets
            .borrow_mut()
            .insert(name.to_string(), offset);
        Ok(offset)
    }

    async fn read(&self, name: &str, member: &Member, range: Option<ByteRange>) -> Result<Vec<u8>> {
        let location = self.locate(name);
        let offset = self.data_offset(name, member).await?;
        if member.method == STORED {
            let wanted = range
                .unwrap_or(ByteRange::From(0))
                .resolve(member.uncompressed);
            let span = ByteRange::Span {
                offset: offset + wanted.start,
                length: wanted.end - wanted.start,
            };
            let data = self
                .inner
                .get_range(&self.key, span)
                .await?
                .unwrap_or_default();
            if data.len() as u64 != span_length(span) {
                return Err(ZarrError::store(
                    &location,
                    "the archive ends inside this member",
                ));
            }
            if range.is_none() {
                check_crc(&data, member.crc32, &location)?;
            }
            return Ok(data);
        }
        let last = self.directory.last_inflated.borrow().clone();
        if let Some((_, data)) = last.filter(|(n, _)| n == name) {
            return Ok(match range {
                Some(r) => r.cut(&data).to_vec(),
                None => data.to_vec(),
            });
        }
        let limit = inflated_size(member.uncompressed, member.compressed)
            .map_err(|reason| ZarrError::store(&location, reason))?;
        let span = ByteRange::Span {
            offset,
            length: member.compressed,
        };
        let compressed = self
            .inner
            .get_range(&self.key, span)
            .await?
            .unwrap_or_default();
        let mut data = Vec::new();
        inflate_append(&compressed, &mut data, limit, Wrapper::Raw)
            .map_err(|e| ZarrError::store(&location, format!("its deflated data: {e}")))?;
        if data.len() != limit {
            return Err(ZarrError::store(
                &location,
                format!(
                    "inflated to {} bytes, the directory says {limit}",
                    data.len()
                ),
            ));
        }
        check_crc(&data, member.crc32, &location)?;
        let out = match range {
            Some(r) => r.cut(&data).to_vec(),
            None => data.clone(),
        };
        // Kept for the next range of the same member (a shard's index, then its chunks), unless
        // it is large: then it is inflated again rather than held after the read.
        *self.directory.last_inflated.borrow_mut() =
            (data.len() <= MAX_KEPT_MEMBER).then(|| (name.to_string(), Rc::new(data)));
        Ok(out)
    }
}

/// The largest member inflated whole: a bomb (a small member claiming a huge size) stops here.
const MAX_INFLATED_MEMBER: u64 = 256 << 20;

/// The largest inflated member kept between reads.
const MAX_KEPT_MEMBER: usize = 64 << 20;

/// Deflate cannot do better than 1032 to 1 (a 258-byte match in about 2 bits).
const MAX_DEFLATE_RATIO: u64 = 1032;

/// The size a deflated member of `compressed` bytes may inflate to, as its directory entry
/// declares (`declared`), checked before anything is allocated: output beyond the declared size is
/// refused as it is produced.
fn inflated_size(declared: u64, compressed: u64) -> std::result::Result<usize, String> {
    if declared
        > compressed
            .saturating_mul(MAX_DEFLATE_RATIO)
            .saturating_add(1024)
    {
        return Err(format!(
            "the directory says {compressed} deflated bytes inflate to {declared}, more than deflate can"
        ));
    }
    if declared > MAX_INFLATED_MEMBER {
        return Err(format!(
            "the member inflates to {declared} bytes, more than the {MAX_INFLATED_MEMBER} a member may"
        ));
    }
    Ok(declared as usize)
}

fn span_length(range: ByteRange) -> u64 {
    match range {
        ByteRange::Span { length, .. } => length,
        _ => 0,
    }
}

fn check_crc(data: &[u8], expected: u32, location: &str) -> Result<()> {
    let actual = crc32::crc32(data);
    if actual != expected {
        return Err(ZarrError::store(
            location,
            format!("CRC-32 {actual:#010x} does not match the archive's {expected:#010x}"),
        ));
    }
    Ok(())
}

/// Where in `tail` the end of central directory record starts: the last signature whose
/// comment length reaches exactly to the end.
fn find_end(tail: &[u8]) -> Option<usize> {
    let fields = Fields(tail);
    (0..=tail.len().checked_sub(22)?).rev().find(|&at| {
        fields.u32(at) == Some(EOCD)
            && fields.u16(at + 20).map(|c| at + 22 + c as usize) == Some(tail.len())
    })
}

/// The central directory's offset and size, and where in `tail` it would end (the start of the
/// end records). The outer error is the store's, the inner one what is wrong with the archive.
async fn directory_location(
    inner: &Rc<dyn ReadableStore>,
    key: &str,
    tail: &[u8],
    end: usize,
) -> Result<std::result::Result<(u64, u64, usize), String>> {
    let fields = Fields(tail);
    let (Some(size32), Some(offset32)) = (fields.u32(end + 12), fields.u32(end + 16)) else {
        return Ok(Err("a truncated end record".into()));
    };
    let zip64 = end >= 20 && fields.u32(end - 20) == Some(ZIP64_LOCATOR);
    if !zip64 {
        return Ok(Ok((offset32 as u64, size32 as u64, end)));
    }
    let Some(record_offset) = fields.u64(end - 20 + 8) else {
        return Ok(Err("a truncated ZIP64 locator".into()));
    };
    // The ZIP64 end record usually lies just before its locator: 56 bytes without extensions.
    let before = end - 20;
    let (record, record_in_tail) = match before.checked_sub(56) {
        Some(at) if fields.u32(at) == Some(ZIP64_EOCD) => (tail[at..before].to_vec(), Some(at)),
        _ => {
            let span = ByteRange::Span {
                offset: record_offset,
                length: 56,
            };
            (inner.get_range(key, span).await?.unwrap_or_default(), None)
        }
    };
    let record = Fields(&record);
    match (record.u32(0), record.u64(40), record.u64(48)) {
        (Some(ZIP64_EOCD), Some(size), Some(offset)) => {
            Ok(Ok((offset, size, record_in_tail.unwrap_or(0))))
        }
        _ => Ok(Err("a damaged ZIP64 end record".into())),
    }
}

/// The members a central directory lists (directories, which hold no values, left out).
fn parse_directory(bytes: &[u8]) -> std::result::Result<HashMap<String, Member>, String> {
    let fields = Fields(bytes);
    let mut members = HashMap::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let entry = |what: &str| format!("central directory entry at byte {at}: {what}");
        if fields.u32(at) != Some(CENTRAL) {
            return Err(entry("no entry signature"));
        }
        let (
            Some(flags),
            Some(method),
            Some(crc32),
            Some(c32),
            Some(u32_),
            Some(n),
            Some(m),
            Some(k),
            Some(o32),
        ) = (
            fields.u16(at + 8),
            fields.u16(at + 10),
            fields.u32(at + 16),
            fields.u32(at + 20),
            fields.u32(at + 24),
            fields.u16(at + 28),
            fields.u16(at + 30),
            fields.u16(at + 32),
            fields.u32(at + 42),
        )
        else {
            return Err(entry("truncated"));
        };
        let name_start = at + 46;
        let extra_start = name_start + n as usize;
        let next = extra_start + m as usize + k as usize;
        let (Some(name), Some(extra)) = (
            bytes.get(name_start..extra_start),
            bytes.get(extra_start..extra_start + m as usize),
        ) else {
            return Err(entry("its name or extra field runs past the directory"));
        };
        let name = String::from_utf8_lossy(name).into_owned();
        let (mut compressed, mut uncompressed, mut header_offset) =
            (c32 as u64, u32_ as u64, o32 as u64);
        // ZIP64: the sizes and offset that do not fit in 32 bits are in the extra field, in
        // this order, each present only where its 32-bit field is all ones.
        let mut z = zip64_extra(extra).into_iter().flatten();
        for value in [&mut uncompressed, &mut compressed, &mut header_offset] {
            if *value == u32::MAX as u64 {
                *value = z
                    .next()
                    .ok_or_else(|| entry("a ZIP64 size or offset is missing"))?;
            }
        }
        at = next;
        if name.ends_with('/') {
            continue;
        }
        if flags & 1 != 0 {
            return Err(format!("member {name} is encrypted"));
        }
        if method != STORED && method != DEFLATED {
            return Err(format!(
                "member {name} is compressed with method {method} (only stored and deflated are read)"
            ));
        }
        members.insert(
            name,
            Member {
                method,
                crc32,
                compressed,
                uncompressed,
                header_offset,
            },
        );
    }
    Ok(members)
}

/// The 64-bit values of the ZIP64 extended information (header 0x0001) in an extra field.
fn zip64_extra(extra: &[u8]) -> Option<Vec<u64>> {
    let fields = Fields(extra);
    let mut at = 0usize;
    while at + 4 <= extra.len() {
        let (id, size) = (fields.u16(at)?, fields.u16(at + 2)? as usize);
        let data = extra.get(at + 4..at + 4 + size)?;
        if id == 1 {
            return Some(
                data.chunks_exact(8)
                    .filter_map(|c| Fields(c).u64(0))
                    .collect(),
            );
        }
        at += 4 + size;
    }
    None
}

#[async_trait(?Send)]
impl ReadableStore for ZipStore {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let Some(member) = self.directory.members.get(key) else {
            return Ok(None);
        };
        self.read(key, member, None).await.map(Some)
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        let Some(member) = self.directory.members.get(key) else {
            return Ok(None);
        };
        self.read(key, member, Some(range)).await.map(Some)
    }

    fn locate(&self, key: &str) -> String {
        format!("{}#{key}", self.inner.locate(&self.key))
    }

    /// The archive's own directory (not the store the archive is in).
    async fn list_dir(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        Ok(Some(super::children_of(
            self.directory.members.keys().map(String::as_str),
            prefix,
        )))
    }

    fn wrapped(&self) -> Option<&dyn ReadableStore> {
        Some(&*self.inner)
    }
}
