//! Links between vertices (the edges of graphs and skeletons, the faces of meshes) as zarr-vectors
//! 0.9 stores them.
//!
//! A link of `width` endpoints is filed at the chunk of its first stored endpoint (its source), in
//! the array `links/<delta>/<offsets>` whose name says where the other endpoints' chunks lie
//! relative to the source: one offset per further endpoint, components joined by "." and offsets by
//! "_" ("+1.0.-1", "0.0_+1.0"). All zeros is the array of links within one chunk. A row holds each
//! endpoint's vertex index within its chunk. An undirected family files each link crossing chunks
//! once, its endpoints sorted by (chunk, vertex); such rows lead with the Lehmer code of the
//! permutation that restores the written order, which is a mesh face's winding.
//!
//! Cells of links within a chunk are the rows packed; other cells are a ragged blob: i64 K, then K
//! i64 byte offsets of groups into the data after them (each group runs to the next or the end).

use super::spatial::SpatialArray;
use crate::array::Array;
use crate::data_type::DataType;
use crate::error::{CodecError, ErrorKind, Result, ZarrError};
use crate::hierarchy::group::Group;
use crate::hierarchy::node::Node;
use futures_util::future::try_join_all;
use serde_json::Value;

/// The widest link read: permutation codes of wider ones would not fit 64 bits (20! does).
const MAX_WIDTH: usize = 20;

/// How a level's links are stored (the store's `links_convention`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Convention {
    /// Every link is stored.
    Explicit,
    /// Polylines: consecutive vertices of a fragment are linked; stored links join fragments
    /// (across chunks).
    Sequential,
    /// Skeletons: each vertex's parent is the one before it within its fragment, unless a stored
    /// link (child, parent) names another.
    SequentialWithBranches,
}

impl Convention {
    /// The convention of a store of `geometry_types` stamped `links_convention`; None for point
    /// clouds, which have no links (the writer stamps them "implicit_sequential" all the same).
    pub fn of(geometry_types: &[String], links_convention: Option<&str>) -> Option<Convention> {
        if !geometry_types.is_empty() && geometry_types.iter().all(|t| t == "point_cloud") {
            return None;
        }
        Some(match links_convention {
            Some("implicit_sequential") => Convention::Sequential,
            Some("implicit_sequential_with_branches") => Convention::SequentialWithBranches,
            _ => Convention::Explicit,
        })
    }
}

/// A link family (`links/<delta>`): its policy and its arrays, one per offsets segment.
pub struct LinkFamily {
    /// Endpoints a link.
    pub width: usize,
    pub directed: bool,
    /// Links across chunks are stored once per chunk they touch (the writer's `store: "duplicate"`),
    /// not once.
    pub duplicate: bool,
    pub(super) segments: Vec<LinkSegment>,
}

pub(super) struct LinkSegment {
    /// The array's name below the family: the offsets segment.
    pub name: String,
    /// Where endpoints 1.. lie, relative to the source chunk.
    pub offsets: Vec<Vec<i64>>,
    /// Whether rows lead with a permutation code.
    pub perm: bool,
    pub dtype: DataType,
    pub cells: SpatialArray,
}

impl LinkSegment {
    /// Within one chunk: cells are packed rows.
    pub fn intra(&self) -> bool {
        self.offsets.iter().flatten().all(|&c| c == 0)
    }

    /// Values a stored row.
    pub fn columns(&self, width: usize) -> usize {
        width + usize::from(self.perm)
    }

    /// The chunks of a link filed at `source`, endpoint by endpoint (as stored).
    pub fn endpoint_chunks(&self, source: &[i64]) -> Option<Vec<Vec<i64>>> {
        let mut out = vec![source.to_vec()];
        for offset in &self.offsets {
            out.push(
                source
                    .iter()
                    .zip(offset)
                    .map(|(s, o)| s.checked_add(*o))
                    .collect::<Option<Vec<_>>>()?,
            );
        }
        Some(out)
    }
}

/// Opens `links/0` of the level group `level` (same-level links; other deltas link levels), or
/// None where the level has none. Its arrays are found by listing: the consolidated metadata's, or
/// the store's.
pub async fn open_family(level: &Group, ndim: usize) -> Result<Option<LinkFamily>> {
    let group = match level.open("links/0").await {
        Ok(Node::Group(g)) => g,
        Ok(Node::Array(a)) => {
            return Err(ZarrError::metadata(
                &a.store().locate(&a.path().key("zarr.json")),
                "links/0 must be a group of link arrays",
            ))
        }
        Err(e) if e.kind == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let location = group.store().locate(&group.path().key("zarr.json"));
    let bad = |e: String| ZarrError::metadata(&location, e);
    let attrs = &group.metadata().attributes;
    let width = attrs
        .get("link_width")
        .and_then(Value::as_u64)
        .filter(|w| (1..=MAX_WIDTH as u64).contains(w))
        .ok_or_else(|| bad(format!("\"link_width\" must be 1 to {MAX_WIDTH}")))?
        as usize;
    if let Some(n) = attrs.get("sid_ndim") {
        if n.as_u64() != Some(ndim as u64) {
            return Err(bad(format!(
                "\"sid_ndim\" is {n}, the store has {ndim} dimensions"
            )));
        }
    }
    let directed = attrs
        .get("directed")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let duplicate = match attrs.get("store").and_then(Value::as_str) {
        None | Some("canonical") => false,
        Some("duplicate") => true,
        Some(other) => return Err(bad(format!("link store \"{other}\" is not known"))),
    };
    let names = match group.children() {
        Some(children) => children.into_iter().map(|c| c.name).collect(),
        None => group
            .store()
            .list_dir(group.path().as_str())
            .await?
            .ok_or_else(|| {
                ZarrError::unsupported(
                    &group.store().locate(&group.path().key("")),
                    "the link arrays are named only by the store's directories, and this store \
                     cannot list them: serve directory index pages, consolidate the metadata, or \
                     give a store with list()",
                )
            })?,
    };
    // The arrays' metadata all at once: one round trip rather than one per array.
    let names: Vec<String> = names
        .into_iter()
        .filter(|n| n != "zarr.json" && !n.starts_with('.'))
        .collect();
    // A listing may name what is no node (a stray file, an index page's other links): skipped.
    let group = &group;
    let nodes = try_join_all(names.iter().map(|n| {
        super::boxed(async move {
            match group.open(n).await {
                Ok(node) => Ok(Some(node)),
                Err(e) if e.kind == ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            }
        })
    }))
    .await?;
    let mut segments = Vec::new();
    for (name, node) in names.into_iter().zip(nodes) {
        let Some(Node::Array(array)) = node else {
            continue;
        };
        segments.push(segment(name, array, ndim, width, directed, duplicate)?);
    }
    // The writer's reading order: segments by name, then cells by key (link attributes align with it).
    segments.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    Ok(Some(LinkFamily {
        width,
        directed,
        duplicate,
        segments,
    }))
}

/// The link array `name` of a family whose links have `width` endpoints.
fn segment(
    name: String,
    array: Array,
    ndim: usize,
    width: usize,
    directed: bool,
    duplicate: bool,
) -> Result<LinkSegment> {
    let cells = SpatialArray::new(array, ndim)?;
    let offsets = match cells.attrs().get("offsets") {
        Some(v) => serde_json::from_value::<Vec<Vec<i64>>>(v.clone()).ok(),
        None => parse_segment(&name, ndim),
    }
    .filter(|o| o.len() == width - 1 && o.iter().all(|c| c.len() == ndim))
    .ok_or_else(|| {
        ZarrError::metadata(
            &cells.location,
            format!(
                "the offsets of link array {name} are not {} offsets of {ndim}",
                width - 1
            ),
        )
    })?;
    let intra = offsets.iter().flatten().all(|&c| c == 0);
    // Written where the writer may have reordered the endpoints (its `links_has_perm`).
    let perm = match cells.attrs().get("has_perm") {
        Some(v) => v.as_bool().ok_or_else(|| {
            ZarrError::metadata(&cells.location, "\"has_perm\" must be true or false")
        })?,
        None => !intra && (duplicate || !directed),
    };
    let dtype = match cells.attrs().get("dtype") {
        None => DataType::Int64,
        Some(_) => cells.integer_dtype()?,
    };
    Ok(LinkSegment {
        name,
        offsets,
        perm,
        dtype,
        cells,
    })
}

/// "+1.0.-1_0.+2.0" as offsets of `ndim` components ("self": none, links of one vertex).
fn parse_segment(name: &str, ndim: usize) -> Option<Vec<Vec<i64>>> {
    if name == "self" {
        return Some(Vec::new());
    }
    name.split('_')
        .map(|offset| {
            let c = offset
                .split('.')
                .map(|c| c.strip_prefix('+').unwrap_or(c).parse::<i64>().ok())
                .collect::<Option<Vec<_>>>()?;
            (c.len() == ndim).then_some(c)
        })
        .collect()
}

/// Integers of `dtype` (little-endian) as i64.
pub fn integers(bytes: &[u8], dtype: DataType) -> std::result::Result<Vec<i64>, String> {
    let size = dtype.size();
    if size == 0 || !bytes.len().is_multiple_of(size) {
        return Err(format!(
            "{} bytes are not whole {dtype} values",
            bytes.len()
        ));
    }
    bytes
        .chunks_exact(size)
        .map(|b| {
            let mut wide = [0u8; 8];
            wide[..size].copy_from_slice(b);
            let unsigned = u64::from_le_bytes(wide);
            Ok(match dtype {
                DataType::Int8 => b[0] as i8 as i64,
                DataType::Int16 => i16::from_le_bytes([b[0], b[1]]) as i64,
                DataType::Int32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64,
                DataType::Int64 => unsigned as i64,
                DataType::UInt8 | DataType::UInt16 | DataType::UInt32 => unsigned as i64,
                DataType::UInt64 => i64::try_from(unsigned)
                    .map_err(|_| format!("{unsigned} is too large for an index"))?,
                other => return Err(format!("{other} values are not integers")),
            })
        })
        .collect()
}

/// Whether a stored copy of a link is the one to keep. A family that stores each link crossing
/// chunks once per chunk it touches files every copy at one of them, led by that chunk's first
/// endpoint; the copy kept is the one filed at the chunk of the link's first written endpoint.
/// `link` is as `cell_links` gives it, `ends` the cell's endpoint chunks as stored.
pub fn is_first_copy(link: &[(usize, i64)], ends: &[Vec<i64>]) -> bool {
    match (link.first(), ends.first()) {
        (Some(&(stored, _)), Some(source)) => ends.get(stored) == Some(source),
        _ => false,
    }
}

/// A link cell's values, `columns` a row: packed rows, or the groups of a ragged blob in order.
pub fn decode_cell(
    blob: &[u8],
    dtype: DataType,
    columns: usize,
    packed: bool,
) -> std::result::Result<Vec<i64>, String> {
    let row = columns * dtype.size();
    if row == 0 {
        return Err("rows of no bytes".into());
    }
    if packed {
        if !blob.len().is_multiple_of(row) {
            return Err(format!(
                "{} bytes are not whole rows of {row} bytes",
                blob.len()
            ));
        }
        return integers(blob, dtype);
    }
    let mut cursor = super::Cursor::new(blob);
    let groups = cursor.i64("the group count")?;
    let header = usize::try_from(groups)
        .ok()
        .and_then(|k| k.checked_add(1)?.checked_mul(8))
        .filter(|h| *h <= blob.len())
        .ok_or_else(|| format!("{groups} groups do not fit {} bytes", blob.len()))?;
    let starts = (0..groups)
        .map(|i| cursor.i64(&format!("the offset of group {i}")))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let data = &blob[header..];
    let mut out = Vec::new();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(data.len() as i64);
        if start < 0 || start > end || end > data.len() as i64 {
            return Err(format!(
                "group {i} spans bytes {start}..{end} of {} bytes of data",
                data.len()
            ));
        }
        let group = &data[start as usize..end as usize];
        if !group.len().is_multiple_of(row) {
            return Err(format!(
                "group {i} has {} bytes, not whole rows of {row} bytes",
                group.len()
            ));
        }
        out.extend(integers(group, dtype)?);
    }
    Ok(out)
}

/// The permutation whose Lehmer code is `code`: `p[i]` is the written position of stored endpoint
/// `i`.
pub fn lehmer_decode(code: i64, width: usize) -> std::result::Result<Vec<usize>, String> {
    let total = (1..=width as u64).try_fold(1u64, |f, k| f.checked_mul(k));
    let Some(total) = total.filter(|_| width <= MAX_WIDTH) else {
        return Err(format!("links of {width} endpoints are too wide"));
    };
    let mut rest = u64::try_from(code)
        .ok()
        .filter(|c| *c < total)
        .ok_or_else(|| format!("permutation code {code} is not below {width}! = {total}"))?;
    let mut available: Vec<usize> = (0..width).collect();
    let mut fact = total;
    let mut out = Vec::with_capacity(width);
    for i in 0..width {
        fact /= (width - i) as u64;
        let idx = (rest / fact) as usize;
        rest %= fact;
        out.push(available.remove(idx));
    }
    Ok(out)
}

/// One cell's links as written: per link, per endpoint, (index of its chunk among the cell's
/// endpoint chunks, vertex index).
pub fn cell_links(
    values: &[i64],
    width: usize,
    perm: bool,
) -> std::result::Result<Vec<Vec<(usize, i64)>>, String> {
    let columns = width + usize::from(perm);
    values
        .chunks_exact(columns)
        .map(|row| {
            let (order, vertices) = if perm {
                (lehmer_decode(row[0], width)?, &row[1..])
            } else {
                ((0..width).collect(), row)
            };
            let mut link = vec![(0, 0); width];
            for (stored, &written) in order.iter().enumerate() {
                link[written] = (stored, vertices[stored]);
            }
            Ok(link)
        })
        .collect()
}

/// A cell's failure, naming its key and the blob kind.
pub(super) fn cell_error(location: &str, reason: String) -> ZarrError {
    ZarrError::codec(location, CodecError::new("zarr_vectors links", reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i64s(v: &[i64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn lehmer_codes_are_the_writers() {
        // zarr-vectors' _lehmer_encode([1, 0]) == 1, ([2, 0, 1]) == 4.
        assert_eq!(lehmer_decode(0, 3).unwrap(), [0, 1, 2]);
        assert_eq!(lehmer_decode(1, 2).unwrap(), [1, 0]);
        assert_eq!(lehmer_decode(4, 3).unwrap(), [2, 0, 1]);
        assert!(lehmer_decode(6, 3)
            .unwrap_err()
            .contains("not below 3! = 6"));
        assert!(lehmer_decode(-1, 2).is_err());
        assert!(lehmer_decode(0, 21).is_err());
    }

    #[test]
    fn permuted_rows_restore_the_written_order() {
        // Stored sorted as (vertex 4 of the source, vertex 2 of the other chunk), written the other
        // way round: code 1 says stored 0 was written second.
        let links = cell_links(&[1, 4, 2], 2, true).unwrap();
        assert_eq!(links, vec![vec![(1, 2), (0, 4)]]);
        let faces = cell_links(&[0, 1, 2, 3, 4, 5], 3, false).unwrap();
        assert_eq!(faces[1], vec![(0, 3), (1, 4), (2, 5)]);
        assert!(cell_links(&[9, 0, 0], 2, true).is_err());
    }

    #[test]
    fn duplicated_links_are_kept_once() {
        // An edge between chunk A (vertex 3) and chunk B (vertex 1), written B -> A, stored twice:
        // at A (stored A, B; written order is stored 1, 0) and at B (stored B, A; identity).
        let (a, b) = (vec![0, 0], vec![1, 0]);
        let at_a = cell_links(&[1, 3, 1], 2, true).unwrap();
        let at_b = cell_links(&[0, 1, 3], 2, true).unwrap();
        assert!(!is_first_copy(&at_a[0], &[a.clone(), b.clone()]));
        assert!(is_first_copy(&at_b[0], &[b, a]));
    }

    #[test]
    fn cells_decode_packed_and_ragged() {
        assert_eq!(
            decode_cell(&i64s(&[1, 2, 3, 4]), DataType::Int64, 2, true).unwrap(),
            [1, 2, 3, 4]
        );
        assert!(decode_cell(&i64s(&[1, 2, 3]), DataType::Int64, 2, true).is_err());
        // Two groups: one row, then two.
        let mut blob = i64s(&[2, 0, 16]);
        blob.extend(i64s(&[7, 8, 9, 10, 11, 12]));
        assert_eq!(
            decode_cell(&blob, DataType::Int64, 2, false).unwrap(),
            [7, 8, 9, 10, 11, 12]
        );
        assert!(decode_cell(&i64s(&[0]), DataType::Int64, 2, false)
            .unwrap()
            .is_empty());
        assert!(decode_cell(&i64s(&[5, 0]), DataType::Int64, 2, false)
            .unwrap_err()
            .contains("do not fit"));
        assert!(
            decode_cell(&i64s(&[2, 16, 0, 1, 2]), DataType::Int64, 2, false)
                .unwrap_err()
                .contains("group 0 spans")
        );
        assert!(
            decode_cell(&i64s(&[1, 0, 1, 2, 3]), DataType::Int64, 2, false)
                .unwrap_err()
                .contains("not whole rows")
        );
        assert_eq!(
            decode_cell(
                &[1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
                DataType::Int32,
                2,
                true
            )
            .unwrap(),
            [1, -1]
        );
    }

    #[test]
    fn segments_parse_as_the_writer_formats_them() {
        assert_eq!(
            parse_segment("+1.0.-1_0.+2.0", 3).unwrap(),
            vec![vec![1, 0, -1], vec![0, 2, 0]]
        );
        assert_eq!(parse_segment("0.0", 2).unwrap(), vec![vec![0, 0]]);
        assert!(parse_segment("+1.0", 3).is_none());
        assert_eq!(parse_segment("self", 3).unwrap(), Vec::<Vec<i64>>::new());
        assert!(parse_segment("a.b", 2).is_none());
    }

    #[test]
    fn arbitrary_cells_never_panic() {
        let good = i64s(&[2, 0, 16, 1, 2, 3, 4, 5, 6]);
        for (i, blob) in super::super::mutations(&good, 0x1656_67B1_9E37_79F9, 20_000)
            .into_iter()
            .enumerate()
        {
            let packed = i % 2 == 0;
            if let Ok(values) = decode_cell(&blob, DataType::Int64, 3, packed) {
                let _ = cell_links(&values, 2, true);
            }
        }
    }
}
