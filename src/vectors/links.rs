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

use super::probe;
use super::spatial::SpatialArray;
use crate::array::Array;
use crate::data_type::DataType;
use crate::error::{CodecError, ErrorKind, Result, ZarrError};
use crate::hierarchy::group::Group;
use crate::hierarchy::node::Node;
use crate::metadata::json;
use crate::store::listing::is_entry_name;
use futures_util::stream::{self, StreamExt, TryStreamExt};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

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
    /// Where the links lead: 0 within the level, +1 to the next coarser, -1 to the next finer.
    pub delta: i64,
    /// The chunk scales (whole multiples of the store's chunk shape) of this level and of the
    /// level the links lead to: a link's offsets count from its source chunk's anchor there,
    /// `floor(source * scale / target scale)`, as the writer places them.
    scales: (Vec<i64>, Vec<i64>),
    /// The family's group, which link arrays are opened from.
    group: Group,
    ndim: usize,
    /// The names of the family's arrays, where a listing gave them; None: the store cannot list,
    /// and the arrays a read could need are asked for by name (`probe`).
    listed: Option<BTreeSet<String>>,
    /// The arrays opened so far, by name (None: asked for, and not there).
    opened: RefCell<BTreeMap<String, Option<Rc<LinkSegment>>>>,
}

pub(super) struct LinkSegment {
    /// The array's name below the family: the offsets segment.
    pub name: String,
    /// Where endpoints 1.. lie, relative to the source chunk's anchor.
    pub offsets: Vec<Vec<i64>>,
    /// Whether rows lead with a permutation code.
    pub perm: bool,
    /// Links within one chunk of one level, whose cells are packed rows (the writer's
    /// `delta == 0 and is_intra(offsets)`); other cells are ragged blobs.
    intra: bool,
    pub dtype: DataType,
    pub cells: SpatialArray,
}

impl LinkSegment {
    /// Within one chunk of one level: cells are packed rows.
    pub fn intra(&self) -> bool {
        self.intra
    }

    /// Values a stored row.
    pub fn columns(&self, width: usize) -> usize {
        width + usize::from(self.perm)
    }
}

impl LinkFamily {
    /// The chunk of `source` as seen from the level the links lead to (itself within a level).
    pub fn anchor(&self, source: &[i64]) -> Option<Vec<i64>> {
        let (from, to) = &self.scales;
        source
            .iter()
            .zip(from.iter().zip(to))
            .map(|(s, (f, t))| Some(s.checked_mul(*f)?.div_euclid(*t)))
            .collect()
    }

    /// The chunks of a link of `segment` filed at `source`, endpoint by endpoint (as stored): the
    /// source, then the others at the level the links lead to.
    pub(super) fn endpoint_chunks(
        &self,
        segment: &LinkSegment,
        source: &[i64],
    ) -> Option<Vec<Vec<i64>>> {
        let anchor = self.anchor(source)?;
        let mut out = vec![source.to_vec()];
        for offset in &segment.offsets {
            out.push(
                anchor
                    .iter()
                    .zip(offset)
                    .map(|(a, o)| a.checked_add(*o))
                    .collect::<Option<Vec<_>>>()?,
            );
        }
        Some(out)
    }

    /// The link arrays that can hold links from the chunks `sources` (of this level) to the
    /// chunks `targets` (of the level the links lead to), opened: those of the names the offsets
    /// between them make (`probe`) that the listing has, or, without a listing, that are there
    /// when asked for (concurrently, each missing one costing one request). Each is opened once.
    pub(super) async fn segments_between(
        &self,
        sources: &[Vec<i64>],
        targets: &[Vec<i64>],
    ) -> Result<Vec<Rc<LinkSegment>>> {
        let anchors: Vec<Vec<i64>> = sources.iter().filter_map(|s| self.anchor(s)).collect();
        // Stored once, endpoints sorted: only non-negative offsets (not across levels, where
        // the source always leads).
        let canonical = !self.directed && !self.duplicate && self.delta == 0;
        let candidates =
            probe::candidates(self.width, canonical, &anchors, targets, probe::MAX_PROBES);
        let names: BTreeSet<String> = match (candidates, &self.listed) {
            // Listed names not in the writer's form (an array named otherwise, its offsets in its
            // attributes) cannot be told from their names: opened too (a store's listing names at
            // most `MAX_OTHER_NAMED` of them, `store_listing`).
            (Ok(names), Some(listed)) => listed
                .iter()
                .filter(|n| names.contains(*n) || parse_segment(n, self.ndim).is_none())
                .cloned()
                .collect(),
            (Ok(names), None) => names,
            // More than are worth computing: the listing names them all.
            (Err(_), Some(listed)) => listed.clone(),
            (Err(count), None) => {
                return Err(ZarrError::unsupported(
                    &self.location(""),
                    format!(
                        "this store cannot list its link arrays, and the chunks read could link \
                         through {count} or more of them, more than the {} asked for one by \
                         one: serve directory index pages or a bucket listing, consolidate the \
                         metadata, or read a smaller box",
                        probe::MAX_PROBES
                    ),
                ))
            }
        };
        let unopened: Vec<String> = {
            let opened = self.opened.borrow();
            names
                .iter()
                .filter(|n| !opened.contains_key(*n))
                .cloned()
                .collect()
        };
        let found = self.open_all(unopened).await?;
        let mut opened = self.opened.borrow_mut();
        opened.extend(found);
        // By name: the writer's reading order, which link attributes align with.
        Ok(names
            .iter()
            .filter_map(|n| opened.get(n).cloned().flatten())
            .collect())
    }

    /// The link array `name`, or None where there is none (or it is no array).
    async fn open_segment(&self, name: &str) -> Result<Option<Rc<LinkSegment>>> {
        match self.group.open(name).await {
            Ok(Node::Array(array)) => Ok(Some(Rc::new(segment(name.to_string(), array, self)?))),
            Ok(Node::Group(_)) => Ok(None),
            Err(e) if e.kind == ErrorKind::NotFound => Ok(None),
            // A bucket whose objects may not be listed answers 403 for keys that are not there
            // (S3 without s3:ListBucket, CloudFront before it): asked for by name, such an array
            // is missing. The family's own metadata was just read from beside it.
            Err(e) if self.listed.is_none() && e.status == Some(403) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Where `key` of the family's group is.
    pub fn location(&self, key: &str) -> String {
        self.group.store().locate(&self.group.path().key(key))
    }
}

/// Link arrays opened at once: enough to fill a browser's connections to a host several times
/// over, without thousands of requests started at one go.
const OPENED_AT_ONCE: usize = 32;

/// Opens `links/<delta>` of the level group `level` (0: links within the level; ±1: to the next
/// coarser or finer level, whose chunk scale is `scales.1`), or None where the level has none.
/// Its arrays' names come from a listing (the consolidated metadata's, or the store's) where
/// there is one; reads open the arrays they need as they need them.
pub async fn open_family(
    level: &Group,
    ndim: usize,
    delta: i64,
    scales: (Vec<i64>, Vec<i64>),
) -> Result<Option<LinkFamily>> {
    let path = format!("links/{}", probe::delta_name(delta));
    let group = match level.open(&path).await {
        Ok(Node::Group(g)) => g,
        Ok(Node::Array(a)) => {
            return Err(ZarrError::metadata(
                &a.store().locate(&a.path().key("zarr.json")),
                format!("{path} must be a group of link arrays"),
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
                "\"sid_ndim\" is {n}, the store has {ndim} dimensions",
                n = crate::error::quote(n)
            )));
        }
    }
    if let Some(d) = attrs.get("level_delta") {
        if d.as_i64() != Some(delta) {
            return Err(bad(format!(
                "\"level_delta\" is {d}, the group is {path}",
                d = crate::error::quote(d)
            )));
        }
    }
    if delta != 0 && width != 2 {
        return Err(bad(format!(
            "links between levels have 2 endpoints, these have {width}"
        )));
    }
    if scales.0.len() != ndim || scales.1.len() != ndim || scales.1.iter().any(|s| *s <= 0) {
        return Err(bad(format!(
            "chunk scales {scales:?} for {ndim} dimensions"
        )));
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
    let mut family = LinkFamily {
        width,
        directed,
        duplicate,
        delta,
        scales,
        group,
        ndim,
        listed: None,
        opened: RefCell::default(),
    };
    family.listed = match family.group.children() {
        // Consolidated metadata: exactly the family's nodes, opened without a request each.
        Some(children) => Some(entries(children.into_iter().map(|c| c.name))),
        None => family.store_listing().await?,
    };
    Ok(Some(family))
}

/// The most entries of a store's listing of a family that are not named as the writer names link
/// arrays. A name in the writer's form says the array's offsets, so a read opens only the arrays
/// its chunks can link through; any other name says nothing, and the array must be opened to be
/// known (its offsets are in its attributes), whatever the read. zarr-vectors names every array by
/// its offsets, so such names are the exception: an array renamed by hand, another writer's. But
/// a listing is what a server or bucket holds below the directory, not what was written: stray
/// objects, a copy's leftovers or a hostile listing of thousands of names would make a read of
/// one chunk send a request for each. Past this bound (eight rounds of `OPENED_AT_ONCE`) the
/// family is refused, with the count and the way out, rather than read with some arrays skipped:
/// a skipped array may hold links, and a read that drops them without a word looks complete.
/// Consolidated metadata is not bounded: its arrays open without requests.
pub const MAX_OTHER_NAMED: usize = 256;

/// A listing's names that can be link arrays: single entries of the directory (not "..", not a
/// way out of it: `listing::is_entry_name`), neither the family's zarr.json nor hidden files.
fn entries(names: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    names
        .into_iter()
        .filter(|n| is_entry_name(n) && n != "zarr.json" && !n.starts_with('.'))
        .collect()
}

impl LinkFamily {
    /// The family's arrays by the store's listing of its directory, or None where the store has
    /// none, or answers with something that is no listing of it: then arrays are asked for by
    /// name (`probe`), which is complete for every read.
    ///
    /// What a store answers for a directory is checked before it is trusted, for a site may answer
    /// every path with the same page (a single-page app's fallback), and a page that links to
    /// nothing of the family's would lose every link without a word. A listing of the directory
    /// names the zarr.json just read beside it. One that names an array in the writer's form for
    /// this family (offsets of its dimensions, one per further endpoint) is the directory's.
    /// Otherwise it gives no evidence: it is no listing where it names nothing else, or is the
    /// very page the parent directory gets (the same answer for every directory), or names
    /// nothing that opens as an array (a page of a site's links).
    async fn store_listing(&self) -> Result<Option<BTreeSet<String>>> {
        let store = self.group.store();
        let dir = self.group.path().as_str();
        let Some(mut names) = store.list_dir(dir).await? else {
            return Ok(None);
        };
        // One that does not name zarr.json is some other page (a bucket prefix that missed).
        if !names.iter().any(|n| n == "zarr.json") {
            return Ok(None);
        }
        let listed = entries(names.iter().cloned());
        let others: Vec<String> = listed
            .iter()
            .filter(|n| parse_segment(n, self.ndim).is_none())
            .cloned()
            .collect();
        let own_form = listed.iter().any(|n| {
            parse_segment(n, self.ndim).is_some_and(|offsets| offsets.len() + 1 == self.width)
        });
        if own_form {
            self.bound_others(others.len())?;
            return Ok(Some(listed));
        }
        if others.is_empty() {
            return Ok(None);
        }
        let parent = dir.rsplit_once('/').map_or("", |(parent, _)| parent);
        if let Some(mut theirs) = store.list_dir(parent).await? {
            crate::collections::sort::sort_dedup(&mut names);
            crate::collections::sort::sort_dedup(&mut theirs);
            if theirs == names {
                return Ok(None);
            }
        }
        self.bound_others(others.len())?;
        // Opened now rather than by the first read (which would open them all the same), and
        // remembered: the listing stands if one of them is an array.
        let found = self.open_all(others).await?;
        let any = found.iter().any(|(_, segment)| segment.is_some());
        self.opened.borrow_mut().extend(found);
        Ok(any.then_some(listed))
    }

    /// Refuses a listing that names more than `MAX_OTHER_NAMED` entries not in the writer's form.
    fn bound_others(&self, count: usize) -> Result<()> {
        if count <= MAX_OTHER_NAMED {
            return Ok(());
        }
        Err(ZarrError::unsupported(
            &self.location(""),
            format!(
                "the store's listing of this directory names {count} entries that are not \
                 named as zarr-vectors names link arrays (by their offsets, \"+1.0.-1\"); each \
                 would have to be opened to learn whether it is a link array, and this reader \
                 opens at most {MAX_OTHER_NAMED}: remove what is not a link array from the \
                 directory, name the arrays by their offsets, or consolidate the metadata"
            ),
        ))
    }

    /// Opens the link arrays `names`, a bounded number at once: each with what it is (None: not
    /// there, or no array).
    async fn open_all(&self, names: Vec<String>) -> Result<Vec<(String, Option<Rc<LinkSegment>>)>> {
        stream::iter(names.into_iter().map(|name| async move {
            let segment = self.open_segment(&name).await?;
            Ok::<_, ZarrError>((name, segment))
        }))
        .buffer_unordered(OPENED_AT_ONCE)
        .try_collect()
        .await
    }
}

/// The link array `name` of a family whose links have `width` endpoints.
fn segment(name: String, array: Array, family: &LinkFamily) -> Result<LinkSegment> {
    let LinkFamily {
        ndim,
        width,
        directed,
        duplicate,
        ..
    } = *family;
    let cells = SpatialArray::new(array, ndim)?;
    let offsets = match cells.attrs().get("offsets") {
        Some(v) => json::list(v, |row| json::list(row, Value::as_i64)),
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
    let all_zero = offsets.iter().flatten().all(|&c| c == 0);
    // Written where the writer may have reordered the endpoints (its `links_has_perm`).
    let perm = match cells.attrs().get("has_perm") {
        Some(v) => v.as_bool().ok_or_else(|| {
            ZarrError::metadata(&cells.location, "\"has_perm\" must be true or false")
        })?,
        // The writer's `links_has_perm`: never across levels or within a chunk.
        None => family.delta == 0 && !all_zero && (duplicate || !directed),
    };
    let dtype = match cells.attrs().get("dtype") {
        None => DataType::Int64,
        Some(_) => cells.integer_dtype()?,
    };
    Ok(LinkSegment {
        name,
        offsets,
        perm,
        intra: family.delta == 0 && all_zero,
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
