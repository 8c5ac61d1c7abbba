//! A level's geometry in one read: the vertices of the chunks that meet a box (or of all chunks)
//! with their attributes, the links among them with theirs, and each vertex's object. Vertices are
//! numbered chunk after chunk, each chunk's in its fragments' order (what link rows index), as
//! zarr-vectors numbers them; links with an endpoint in a chunk not read are left out, as are
//! vertices outside the box and the links that touch them.

use super::boxed;
use super::level::{ChunkVertices, VectorLevel};
use super::links::{self, Convention, LinkFamily, LinkSegment};
use super::manifest;
use super::spatial::{self, ChunkAttribute, RowArray};
use crate::data_type::DataType;
use crate::error::{CodecError, Result, ZarrError};
use crate::indexing::selection::DimSelection;
use futures_util::future::try_join_all;
use std::collections::HashMap;

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// `[min, max]` in world units; None reads every chunk.
    pub bbox: Option<(Vec<f64>, Vec<f64>)>,
    /// Per-vertex attributes by name.
    pub attributes: Vec<String>,
    /// Per-link attributes by name.
    pub link_attributes: Vec<String>,
    /// Each vertex's object id, from the object manifests.
    pub object_ids: bool,
}

/// Values of one kind, `width` a row, as stored.
pub type Column = ChunkAttribute;

#[derive(Debug, Clone)]
pub struct Geometry {
    pub rows: u64,
    /// `rows` rows of `ndim` values of the level's vertex type.
    pub positions: Vec<u8>,
    /// The chunks read.
    pub chunks: Vec<Vec<i64>>,
    pub attributes: Vec<(String, Column)>,
    /// The links, where the level has them.
    pub links: Option<Links>,
    /// Each vertex's object (the first naming it), -1 for none.
    pub object_ids: Option<Vec<i64>>,
}

/// A cell as fetched: its bytes and its key's location (None where it is empty).
type Cell = Option<(Vec<u8>, String)>;

/// One link segment's cells as fetched: the source chunks, their cells, and each link attribute's
/// array and cells.
struct SegmentCells<'a> {
    segment: &'a LinkSegment,
    sources: Vec<Vec<i64>>,
    cells: Vec<Cell>,
    attributes: Vec<(RowArray, Vec<Cell>)>,
}

#[derive(Debug, Clone)]
pub struct Links {
    /// Endpoints a link: 2 for edges, 3 for triangles.
    pub width: usize,
    /// `width` vertex numbers a link, in the order written (a face's winding, an edge's direction;
    /// a skeleton's edges are (child, parent)).
    pub vertices: Vec<u64>,
    pub attributes: Vec<(String, Column)>,
}

/// The vertices of the chunks read, numbered chunk after chunk, each chunk's in its fragments'
/// order.
struct Numbered {
    parts: Vec<(Vec<i64>, ChunkVertices)>,
    numberings: Vec<Numbering>,
    /// Each chunk's first vertex number and vertex count.
    starts: HashMap<Vec<i64>, (u64, u64)>,
    /// Each fragment's first vertex number and length (a chunk without fragments is one).
    spans: Vec<(u64, u64)>,
    /// The vertices' rows, in their numbers' order.
    positions: Vec<u8>,
    rows: u64,
}

/// How a chunk's vertices are numbered: zarr-vectors numbers them in its fragments' order, which
/// link rows index.
enum Numbering {
    /// In stored order (the fragments run through the rows in order, or there is no index).
    Stored,
    /// In this order of stored rows.
    Reordered(Vec<u64>),
    /// The fragments do not name each row once (coarser levels may share rows among fragments):
    /// the stored order stands, and links cannot be numbered.
    Overlapping,
}

fn numbering(read: &ChunkVertices) -> Numbering {
    if read.fragments.is_empty() {
        return Numbering::Stored;
    }
    // The total first: overlapping fragments could name far more rows than the chunk has.
    let total = read
        .fragments
        .iter()
        .try_fold(0u64, |n, f| n.checked_add(f.len()));
    if total != Some(read.rows) {
        return Numbering::Overlapping;
    }
    let order: Vec<u64> = read.fragments.iter().flat_map(|f| f.rows()).collect();
    let mut seen = vec![false; order.len()];
    for &r in &order {
        // Rows are within the chunk: the fragment index was checked against them.
        if std::mem::replace(&mut seen[r as usize], true) {
            return Numbering::Overlapping;
        }
    }
    match order.iter().enumerate().all(|(i, &r)| i as u64 == r) {
        true => Numbering::Stored,
        false => Numbering::Reordered(order),
    }
}

impl Numbering {
    fn order(&self) -> Option<&[u64]> {
        match self {
            Numbering::Reordered(order) => Some(order),
            _ => None,
        }
    }
}

/// `bytes` as rows of `row` bytes, in `order`.
fn reorder(bytes: &[u8], row: usize, order: Option<&[u64]>) -> Vec<u8> {
    match order {
        None => bytes.to_vec(),
        Some(order) => order
            .iter()
            .flat_map(|&r| &bytes[r as usize * row..(r as usize + 1) * row])
            .copied()
            .collect(),
    }
}

/// Value `i` of little-endian numbers of `dtype`, as f64.
fn number(bytes: &[u8], dtype: DataType, i: usize) -> f64 {
    let size = dtype.size();
    let b = &bytes[i * size..(i + 1) * size];
    let mut wide = [0u8; 8];
    wide[..size].copy_from_slice(b);
    let u = u64::from_le_bytes(wide);
    match dtype {
        DataType::Int8 => b[0] as i8 as f64,
        DataType::Int16 => i16::from_le_bytes([b[0], b[1]]) as f64,
        DataType::Int32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        DataType::Int64 => u as i64 as f64,
        DataType::Float32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        DataType::Float64 => f64::from_le_bytes(wide),
        _ => u as f64,
    }
}

/// Keeps the rows of `column` (of `row` bytes) whose `keep` is set.
fn filter_rows(bytes: &[u8], row: usize, keep: &[bool]) -> Vec<u8> {
    bytes
        .chunks_exact(row)
        .zip(keep)
        .filter(|(_, k)| **k)
        .flat_map(|(r, _)| r)
        .copied()
        .collect()
}

impl VectorLevel {
    /// Reads the vertices of `chunks` (concurrently) and numbers them. `linked`: links will index
    /// them, so each chunk's fragments must name each of its rows once.
    async fn read_numbered(&self, chunks: &[Vec<i64>], linked: bool) -> Result<Numbered> {
        let reads = try_join_all(chunks.iter().map(|c| boxed(self.read_chunk(c)))).await?;
        let parts: Vec<(Vec<i64>, ChunkVertices)> = chunks
            .iter()
            .cloned()
            .zip(reads)
            .filter_map(|(c, r)| Some((c, r?)))
            .collect();
        let numberings: Vec<Numbering> = parts.iter().map(|(_, r)| numbering(r)).collect();
        if linked {
            // Links index vertices in fragment order, which must then name each row once.
            let tangled = parts
                .iter()
                .zip(&numberings)
                .find(|(_, n)| matches!(n, Numbering::Overlapping));
            if let Some(((chunk, _), _)) = tangled {
                return Err(ZarrError::codec(
                    &self
                        .group
                        .store()
                        .locate(&self.group.path().key("vertex_fragments")),
                    CodecError::new(
                        "fragment_index_v1",
                        format!(
                            "the fragments of chunk {chunk:?} do not name each of its rows once, \
                             so the links' vertex numbers have no meaning"
                        ),
                    ),
                ));
            }
        }
        // Vertex numbering: where each chunk starts, and each of its fragments' (start, length).
        let mut starts: HashMap<Vec<i64>, (u64, u64)> = HashMap::new();
        let mut spans = Vec::new();
        let mut positions = Vec::new();
        let mut rows = 0u64;
        for ((chunk, read), numbering) in parts.iter().zip(&numberings) {
            starts.insert(chunk.clone(), (rows, read.rows));
            if read.fragments.is_empty() {
                spans.push((rows, read.rows));
            }
            let mut at = rows;
            for f in &read.fragments {
                spans.push((at, f.len()));
                at += f.len();
            }
            positions.extend(reorder(&read.bytes, self.row, numbering.order()));
            rows += read.rows;
        }
        Ok(Numbered {
            parts,
            numberings,
            starts,
            spans,
            positions,
            rows,
        })
    }

    /// The chunks a read of `bbox` (all without one) covers.
    fn chunks_of(&self, bbox: &Option<(Vec<f64>, Vec<f64>)>) -> Result<Vec<Vec<i64>>> {
        match bbox {
            Some((lo, hi)) => self.chunks_in(lo, hi),
            None => Ok(self.chunks().to_vec()),
        }
    }

    /// How `select` with `bbox` numbers this level's vertices: each chunk's first number and
    /// count as read, and each vertex's number once the box has cut (None: outside it).
    async fn numbering_of(
        &self,
        bbox: &Option<(Vec<f64>, Vec<f64>)>,
    ) -> Result<(HashMap<Vec<i64>, (u64, u64)>, Vec<Option<u64>>)> {
        let read = self.read_numbered(&self.chunks_of(bbox)?, true).await?;
        let keep = match bbox {
            Some((lo, hi)) => self.inside(&read.positions, read.rows, lo, hi),
            None => vec![true; read.rows as usize],
        };
        let mut next = 0;
        let numbers = keep
            .iter()
            .map(|&k| {
                k.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        Ok((read.starts, numbers))
    }

    /// The links from this level to `other`, the level `delta` away (+1: each vertex's vertex at
    /// the next coarser level, as zarr-vectors' pyramid writes them; -1: the finer vertices each
    /// stands for), among the vertices `select` reads of each level with `bbox`: pairs of (number
    /// in this level's read, number in the other's), in the order written. None where there are
    /// none. Links with an end the box cuts away are left out, as `select` leaves them out.
    pub async fn cross_links(
        &self,
        other: &VectorLevel,
        delta: i64,
        bbox: &Option<(Vec<f64>, Vec<f64>)>,
    ) -> Result<Option<Vec<u64>>> {
        if delta == 0 || other.index as i64 - self.index as i64 != delta {
            return Err(ZarrError::selection(format!(
                "links from level {} to level {} are not {delta:+} levels away (and a level's own \
                 links are select's)",
                self.index, other.index
            )));
        }
        let scales = (self.chunk_scale()?, other.chunk_scale()?);
        let Some(family) = boxed(self.links_to(delta, scales)).await? else {
            return Ok(None);
        };
        let ((sources, source_numbers), (targets, target_numbers)) =
            futures_util::future::try_join(
                boxed(self.numbering_of(bbox)),
                boxed(other.numbering_of(bbox)),
            )
            .await?;
        let links = boxed(self.read_links(&family, &sources, &targets, &[])).await?;
        let number = |numbers: &[Option<u64>], v: u64| numbers.get(v as usize).copied().flatten();
        Ok(Some(
            links
                .vertices
                .chunks_exact(2)
                .filter_map(|p| {
                    Some([
                        number(&source_numbers, p[0])?,
                        number(&target_numbers, p[1])?,
                    ])
                })
                .flatten()
                .collect(),
        ))
    }

    /// Reads the geometry `query` asks for; the chunks' cells are fetched concurrently.
    pub async fn select(&self, query: &Query) -> Result<Geometry> {
        let chunks = self.chunks_of(&query.bbox)?;
        query
            .link_attributes
            .iter()
            .try_for_each(|n| spatial::check_name(n))?;
        let convention = self.convention;
        let links_location = self.group.store().locate(&self.group.path().key("links/0"));
        let read = self.read_numbered(&chunks, convention.is_some()).await?;
        if matches!(convention, Some(c) if c != Convention::Explicit)
            && !query.link_attributes.is_empty()
        {
            return Err(ZarrError::unsupported(
                &links_location,
                "link attributes of links implied by the order of vertices (polylines, skeletons)",
            ));
        }
        let Numbered {
            parts,
            numberings,
            starts,
            spans,
            positions,
            rows,
        } = read;
        let orders: Vec<Option<&[u64]>> = numberings.iter().map(Numbering::order).collect();

        // Attributes, links and objects need only the vertices' numbering: fetched together.
        let (attributes, stored, object_ids) = futures_util::future::try_join3(
            boxed(try_join_all(
                query
                    .attributes
                    .iter()
                    .map(|name| boxed(self.vertex_column(name, &parts, &orders))),
            )),
            boxed(self.stored_links(convention, &starts, &query.link_attributes)),
            boxed(async {
                match query.object_ids {
                    true => Ok(Some(self.vertex_objects(&parts, &orders).await?)),
                    false => Ok(None),
                }
            }),
        )
        .await?;
        let links = match convention {
            None | Some(Convention::Explicit) => stored,
            Some(Convention::Sequential) => {
                Some(sequential_edges(stored.as_ref(), &spans, &links_location)?)
            }
            Some(Convention::SequentialWithBranches) => {
                Some(tree_edges(stored.as_ref(), rows, &spans, &links_location)?)
            }
        };

        let mut geometry = Geometry {
            rows,
            positions,
            chunks,
            attributes,
            links,
            object_ids,
        };
        if let Some((lo, hi)) = &query.bbox {
            self.keep_inside(&mut geometry, lo, hi);
        }
        Ok(geometry)
    }

    /// The per-vertex attribute `name` of the chunks read, in the vertices' order.
    async fn vertex_column(
        &self,
        name: &str,
        parts: &[(Vec<i64>, ChunkVertices)],
        orders: &[Option<&[u64]>],
    ) -> Result<(String, Column)> {
        let array = self.row_array("vertex_attributes", name).await?;
        let cells = try_join_all(parts.iter().map(|(c, r)| boxed(array.read(c, r.rows)))).await?;
        let row = array.width * array.dtype.size();
        let mut bytes = Vec::new();
        for (((chunk, _), cell), order) in parts.iter().zip(cells).zip(orders.iter().copied()) {
            let cell = cell.ok_or_else(|| {
                ZarrError::codec(
                    &array.cells.location,
                    CodecError::new(
                        "zarr_vectors",
                        format!(
                            "attribute {name} has no cell for chunk {chunk:?}, which has vertices"
                        ),
                    ),
                )
            })?;
            bytes.extend(reorder(&cell.bytes, row, order));
        }
        let column = Column {
            dtype: array.dtype,
            width: array.width,
            bytes,
        };
        Ok((name.to_string(), column))
    }

    /// The stored links among the chunks of `starts` (None where the level has none; point clouds
    /// have none).
    async fn stored_links(
        &self,
        convention: Option<Convention>,
        starts: &HashMap<Vec<i64>, (u64, u64)>,
        names: &[String],
    ) -> Result<Option<Links>> {
        let family = match convention {
            Some(_) => boxed(self.links()).await?,
            None => None,
        };
        match family {
            Some(family) => Ok(Some(self.read_links(&family, starts, starts, names).await?)),
            None if names.is_empty() => Ok(None),
            None => Err(ZarrError::selection(format!(
                "link attributes {names:?}: the level has no links"
            ))),
        }
    }

    /// Every link of `family` from the chunks in `sources` to those in `targets` (the same, within
    /// a level), in the writer's order, with `names`' attributes; each chunk's (first vertex
    /// number, vertex count). Every segment's cells (and their attributes' cells) are fetched at
    /// once.
    async fn read_links(
        &self,
        family: &LinkFamily,
        sources: &HashMap<Vec<i64>, (u64, u64)>,
        targets: &HashMap<Vec<i64>, (u64, u64)>,
        names: &[String],
    ) -> Result<Links> {
        let segments = family
            .segments_between(&numbered_chunks(sources), &numbered_chunks(targets))
            .await?;
        let reads =
            try_join_all(segments.iter().map(|segment| {
                boxed(self.fetch_segment(family, segment, sources, targets, names))
            }))
            .await?;
        let mut vertices = Vec::new();
        let mut columns: Vec<Option<Column>> = vec![None; names.len()];
        for mut read in reads {
            let segment = read.segment;
            for (i, (source, cell)) in read.sources.iter().zip(read.cells).enumerate() {
                let Some((blob, at)) = cell else { continue };
                let values = links::decode_cell(
                    &blob,
                    segment.dtype,
                    segment.columns(family.width),
                    segment.intra(),
                )
                .and_then(|v| links::cell_links(&v, family.width, segment.perm))
                .map_err(|e| links::cell_error(&at, e))?;
                let ends = family.endpoint_chunks(segment, source).unwrap_or_default();
                let kept: Vec<bool> = values
                    .iter()
                    .map(|link| !family.duplicate || links::is_first_copy(link, &ends))
                    .collect();
                for link in values
                    .iter()
                    .zip(&kept)
                    .filter(|(_, k)| **k)
                    .map(|(l, _)| l)
                {
                    for &(end, vertex) in link {
                        // The source is at this level; the other endpoints at the family's.
                        let starts = if end == 0 { sources } else { targets };
                        let (start, count) = starts[&ends[end]];
                        if !(0..count as i64).contains(&vertex) {
                            return Err(links::cell_error(
                                &at,
                                format!(
                                    "a link names vertex {vertex} of chunk {:?}, which has {count}",
                                    ends[end]
                                ),
                            ));
                        }
                        vertices.push(start + vertex as u64);
                    }
                }
                for ((name, (array, cells)), column) in names
                    .iter()
                    .zip(read.attributes.iter_mut())
                    .zip(columns.iter_mut())
                {
                    let mut cell = array
                        .checked(cells[i].take(), values.len() as u64)?
                        .ok_or_else(|| {
                            links::cell_error(
                                &array.cells.location,
                                format!("link attribute {name} has no cell for chunk {source:?}, which has links"),
                            )
                        })?;
                    if family.duplicate {
                        cell.bytes =
                            filter_rows(&cell.bytes, cell.width * cell.dtype.size(), &kept);
                    }
                    match column {
                        Some(c) if c.dtype == cell.dtype && c.width == cell.width => {
                            c.bytes.extend(cell.bytes)
                        }
                        Some(_) => {
                            return Err(ZarrError::metadata(
                                &array.cells.location,
                                format!(
                                    "link attribute {name} changes type or width between arrays"
                                ),
                            ))
                        }
                        None => *column = Some(cell),
                    }
                }
            }
        }
        let attributes = names
            .iter()
            .zip(columns)
            .map(|(name, c)| {
                let empty = Column {
                    dtype: DataType::Float32,
                    width: 1,
                    bytes: Vec::new(),
                };
                (name.clone(), c.unwrap_or(empty))
            })
            .collect();
        Ok(Links {
            width: family.width,
            vertices,
            attributes,
        })
    }

    /// The cells of `segment` whose links lead from chunks of `sources` to chunks of `targets`
    /// (in the order of their keys' text, which is the writer's), and the same cells of the link
    /// attributes `names`.
    async fn fetch_segment<'a>(
        &self,
        family: &LinkFamily,
        segment: &'a LinkSegment,
        sources: &HashMap<Vec<i64>, (u64, u64)>,
        targets: &HashMap<Vec<i64>, (u64, u64)>,
        names: &[String],
    ) -> Result<SegmentCells<'a>> {
        let sources: Vec<&Vec<i64>> = segment
            .cells
            .nonempty
            .iter()
            .filter(|s| {
                family.endpoint_chunks(segment, s).is_some_and(|ends| {
                    sources.contains_key(&ends[0])
                        && ends[1..].iter().all(|c| targets.contains_key(c))
                })
            })
            .collect();
        // In the order of their keys' text ("0.10" before "0.2"), each key made once.
        let key = |c: &Vec<i64>| c.iter().map(i64::to_string).collect::<Vec<_>>().join(".");
        let mut keyed: Vec<(String, &Vec<i64>)> =
            sources.into_iter().map(|c| (key(c), c)).collect();
        crate::collections::sort::sort_by(&mut keyed, |a, b| a.0 < b.0);
        let sources: Vec<&Vec<i64>> = keyed.into_iter().map(|(_, c)| c).collect();
        if sources.is_empty() {
            // Nothing of this segment in range: no attribute arrays to open either.
            return Ok(SegmentCells {
                segment,
                sources: Vec::new(),
                cells: Vec::new(),
                attributes: Vec::new(),
            });
        }
        let families: Vec<String> = names
            .iter()
            .map(|n| format!("link_attributes/{n}/0"))
            .collect();
        let (cells, arrays) = futures_util::future::try_join(
            boxed(try_join_all(
                sources.iter().map(|s| boxed(segment.cells.cell(s))),
            )),
            boxed(try_join_all(
                families
                    .iter()
                    .map(|f| boxed(self.row_array(f, &segment.name))),
            )),
        )
        .await?;
        let attribute_cells = try_join_all(
            arrays
                .iter()
                .map(|a| boxed(try_join_all(sources.iter().map(|s| boxed(a.cells.cell(s)))))),
        )
        .await?;
        Ok(SegmentCells {
            segment,
            sources: sources.into_iter().cloned().collect(),
            cells,
            attributes: arrays.into_iter().zip(attribute_cells).collect(),
        })
    }

    /// Each vertex's object: the first object whose manifest names its fragment, -1 for none.
    async fn vertex_objects(
        &self,
        parts: &[(Vec<i64>, ChunkVertices)],
        orders: &[Option<&[u64]>],
    ) -> Result<Vec<i64>> {
        // Only the chunks read, and only their fragments: a manifest's runs are cut to them.
        let fragment_counts: HashMap<&[i64], u64> = parts
            .iter()
            .map(|(c, r)| (c.as_slice(), r.fragments.len() as u64))
            .collect();
        let mut owner: HashMap<(Vec<i64>, u64), i64> = HashMap::new();
        if let Some(manifests) = &self.manifests {
            let data = manifests.get(&[DimSelection::All]).await?;
            let location = manifests.store().locate(&manifests.path().key("zarr.json"));
            if let Some(items) = &data.items {
                for (id, handle) in data.bytes.chunks_exact(8).enumerate() {
                    let blob = items.resolve(handle).unwrap_or_default();
                    if blob.is_empty() {
                        continue;
                    }
                    let blocks = manifest::parse(blob, self.ndim).map_err(|e| {
                        ZarrError::codec(
                            &location,
                            CodecError::new("object manifest", format!("object {id}: {e}")),
                        )
                    })?;
                    for block in blocks {
                        let Some(&n) = fragment_counts.get(block.chunk.as_slice()) else {
                            continue;
                        };
                        for f in block.fragments.below(n) {
                            owner.entry((block.chunk.clone(), f)).or_insert(id as i64);
                        }
                    }
                }
            }
        }
        let mut out = Vec::new();
        for ((chunk, read), order) in parts.iter().zip(orders.iter().copied()) {
            let mut by_row = vec![-1i64; read.rows as usize];
            for (f, fragment) in read.fragments.iter().enumerate() {
                if let Some(&id) = owner.get(&(chunk.clone(), f as u64)) {
                    for r in fragment.rows() {
                        by_row[r as usize] = id;
                    }
                }
            }
            match order {
                Some(order) => out.extend(order.iter().map(|&r| by_row[r as usize])),
                None => out.extend(by_row),
            }
        }
        Ok(out)
    }

    /// Which of `rows` vertices lie within `[lo, hi]`.
    fn inside(&self, positions: &[u8], rows: u64, lo: &[f64], hi: &[f64]) -> Vec<bool> {
        let n = self.ndim;
        let dtype = self.dtype();
        (0..rows as usize)
            .map(|r| {
                (0..n).all(|d| {
                    let v = number(positions, dtype, r * n + d);
                    v >= lo[d] && v <= hi[d]
                })
            })
            .collect()
    }

    /// Drops the vertices outside `[lo, hi]`, and the links that touch them.
    fn keep_inside(&self, g: &mut Geometry, lo: &[f64], hi: &[f64]) {
        let keep = self.inside(&g.positions, g.rows, lo, hi);
        if keep.iter().all(|k| *k) {
            return;
        }
        let mut renumber = vec![u64::MAX; keep.len()];
        let mut next = 0;
        for (r, k) in keep.iter().enumerate() {
            if *k {
                renumber[r] = next;
                next += 1;
            }
        }
        g.positions = filter_rows(&g.positions, self.row, &keep);
        for (_, c) in g.attributes.iter_mut() {
            c.bytes = filter_rows(&c.bytes, c.width * c.dtype.size(), &keep);
        }
        if let Some(ids) = g.object_ids.as_mut() {
            *ids = ids
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(i, _)| *i)
                .collect();
        }
        if let Some(l) = g.links.as_mut() {
            let kept: Vec<bool> = l
                .vertices
                .chunks_exact(l.width)
                .map(|link| link.iter().all(|&v| keep.get(v as usize) == Some(&true)))
                .collect();
            l.vertices = l
                .vertices
                .chunks_exact(l.width)
                .zip(&kept)
                .filter(|(_, k)| **k)
                .flat_map(|(link, _)| link.iter().map(|&v| renumber[v as usize]))
                .collect();
            for (_, c) in l.attributes.iter_mut() {
                c.bytes = filter_rows(&c.bytes, c.width * c.dtype.size(), &kept);
            }
        }
        g.rows = next;
    }
}

/// The chunks of a numbering (what link arrays are asked for by, when probed).
fn numbered_chunks(starts: &HashMap<Vec<i64>, (u64, u64)>) -> Vec<Vec<i64>> {
    starts.keys().cloned().collect()
}

/// The stored links of an implicit convention: pairs, without attributes.
fn stored_pairs<'a>(stored: Option<&'a Links>, location: &str) -> Result<&'a [u64]> {
    match stored {
        Some(l) if l.width != 2 => Err(ZarrError::metadata(
            location,
            format!(
                "links implied by vertex order join 2 vertices, these join {}",
                l.width
            ),
        )),
        Some(l) => Ok(&l.vertices),
        None => Ok(&[]),
    }
}

/// A polyline level's edges: consecutive vertices of each fragment (`spans`), then the stored
/// links that join fragments.
fn sequential_edges(stored: Option<&Links>, spans: &[(u64, u64)], location: &str) -> Result<Links> {
    let joins = stored_pairs(stored, location)?;
    let mut vertices = Vec::new();
    for &(start, len) in spans {
        for v in start..(start + len).saturating_sub(1) {
            vertices.extend([v, v + 1]);
        }
    }
    vertices.extend_from_slice(joins);
    Ok(Links {
        width: 2,
        vertices,
        attributes: Vec::new(),
    })
}

/// A skeleton's edges (child, parent): each vertex's parent is the one before it within its
/// fragment (`spans`), unless a stored link (child, parent) names another.
fn tree_edges(
    stored: Option<&Links>,
    rows: u64,
    spans: &[(u64, u64)],
    location: &str,
) -> Result<Links> {
    let branches = stored_pairs(stored, location)?;
    let mut parent: Vec<i64> = (0..rows as i64).map(|i| i - 1).collect();
    for &(start, len) in spans {
        if let (true, Some(p)) = (len > 0, parent.get_mut(start as usize)) {
            *p = -1;
        }
    }
    for link in branches.chunks_exact(2) {
        parent[link[0] as usize] = link[1] as i64;
    }
    let vertices = parent
        .iter()
        .enumerate()
        .filter(|(_, p)| **p >= 0)
        .flat_map(|(child, p)| [child as u64, *p as u64])
        .collect();
    Ok(Links {
        width: 2,
        vertices,
        attributes: Vec::new(),
    })
}
