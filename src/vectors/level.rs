//! One level of a Zarr Vectors store: its vertices, fragments, links and objects, read chunk by
//! chunk or in a box.

use super::fragment_index::{self, Fragment};
use super::links::{self, LinkFamily};
use super::manifest;
use super::spatial::{check_name, ChunkAttribute, RowArray, SpatialArray};
use crate::array::Array;
use crate::data_type::DataType;
use crate::error::{CodecError, ErrorKind, Result, ZarrError};
use crate::hierarchy::group::Group;
use crate::hierarchy::node::Node;
use crate::indexing::selection::DimSelection;
use crate::metadata::json;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// How many times over an object may name its chunks' rows (see `VectorLevel::read_object`).
const REPEATS_ALLOWED: usize = 8;

/// One level of a store.
pub struct VectorLevel {
    /// Its place among the store's levels, 0 the finest.
    pub(super) index: usize,
    pub(super) ndim: usize,
    pub(super) chunk_shape: Vec<f64>,
    /// The store's chunk shape, which a level's is a whole multiple of.
    pub(super) store_chunk_shape: Vec<f64>,
    pub(super) vertices: SpatialArray,
    pub(super) dtype: DataType,
    /// Bytes a vertex row takes.
    pub(super) row: usize,
    pub(super) fragments: Option<SpatialArray>,
    pub(super) manifests: Option<Array>,
    /// The level's group.
    pub(super) group: Group,
    /// Which links are stored, and which implied by the order of vertices (None: no links).
    pub(super) convention: Option<links::Convention>,
    /// `links/<delta>` by delta, once opened (None: the level has no such links).
    pub(super) families: RefCell<HashMap<i64, Option<Rc<LinkFamily>>>>,
}

/// A spatial chunk's vertices: `rows` rows of `ndim` values of `dtype`, little-endian as stored, and
/// its fragments (empty where the level has no fragment index).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkVertices {
    pub rows: u64,
    pub bytes: Vec<u8>,
    pub fragments: Vec<Fragment>,
}

impl VectorLevel {
    pub fn dtype(&self) -> DataType {
        self.dtype
    }

    /// This level's spatial chunk size (world units).
    pub fn chunk_shape(&self) -> &[f64] {
        &self.chunk_shape
    }

    /// Its place among the store's levels, 0 the finest.
    pub fn index(&self) -> usize {
        self.index
    }

    /// How many of the store's chunks a chunk of this level spans on each axis (whole numbers:
    /// the writer coarsens chunks by whole factors).
    pub fn chunk_scale(&self) -> Result<Vec<i64>> {
        self.chunk_shape
            .iter()
            .zip(&self.store_chunk_shape)
            .map(|(own, store)| {
                let scale = own / store;
                let whole = scale.round();
                ((scale - whole).abs() <= 1e-9 * whole && (1.0..=1e9).contains(&whole))
                    .then_some(whole as i64)
            })
            .collect::<Option<Vec<i64>>>()
            .ok_or_else(|| {
                ZarrError::metadata(
                    &self
                        .group
                        .store()
                        .locate(&self.group.path().key("zarr.json")),
                    format!(
                        "the level's chunk shape {:?} is not a whole multiple of the store's {:?}",
                        self.chunk_shape, self.store_chunk_shape
                    ),
                )
            })
    }

    /// How many objects the level indexes (0 without an object index).
    pub fn object_count(&self) -> u64 {
        self.manifests
            .as_ref()
            .and_then(|m| m.shape().first().copied())
            .unwrap_or(0)
    }

    /// The spatial chunks that hold vertices.
    pub fn chunks(&self) -> &[Vec<i64>] {
        &self.vertices.nonempty
    }

    /// The occupied chunks that hold vertices of the box `[lo, hi]` (world units): the writer
    /// puts vertex `v` in chunk `floor(v / s)`, so these are the chunks from `floor(lo / s)` to
    /// `floor(hi / s)` on every axis.
    pub fn chunks_in(&self, lo: &[f64], hi: &[f64]) -> Result<Vec<Vec<i64>>> {
        if lo.len() != self.ndim || hi.len() != self.ndim {
            return Err(ZarrError::selection(format!(
                "a box needs {} values at each corner, not {} and {}",
                self.ndim,
                lo.len(),
                hi.len()
            )));
        }
        let s = &self.chunk_shape;
        Ok(self
            .chunks()
            .iter()
            .filter(|c| {
                c.iter().enumerate().all(|(d, &k)| {
                    let k = k as f64;
                    (lo[d] / s[d]).floor() <= k && k <= (hi[d] / s[d]).floor()
                })
            })
            .cloned()
            .collect())
    }

    /// The level's links (`links/0`), or None where it has none.
    pub async fn links(&self) -> Result<Option<Rc<LinkFamily>>> {
        let ones = vec![1; self.ndim];
        super::boxed(self.links_to(0, (ones.clone(), ones))).await
    }

    /// The links from this level to the level `delta` away (`links/<delta>`), whose chunk scales
    /// (this level's, the other's) are `scales`; None where there are none. Opened once.
    pub async fn links_to(
        &self,
        delta: i64,
        scales: (Vec<i64>, Vec<i64>),
    ) -> Result<Option<Rc<LinkFamily>>> {
        if let Some(family) = self.families.borrow().get(&delta) {
            return Ok(family.clone());
        }
        let family = links::open_family(&self.group, self.ndim, delta, scales)
            .await?
            .map(Rc::new);
        self.families.borrow_mut().insert(delta, family.clone());
        Ok(family)
    }

    /// Reads a spatial chunk: its vertices and fragments (None where it is empty).
    pub async fn read_chunk(&self, chunk: &[i64]) -> Result<Option<ChunkVertices>> {
        // Both cells at once: one round trip, not two.
        let fragment_cell = async {
            match &self.fragments {
                Some(f) => f.cell(chunk).await,
                None => Ok(None),
            }
        };
        let (vertex_cell, fragment_cell) = futures_util::future::try_join(
            super::boxed(self.vertices.cell(chunk)),
            super::boxed(fragment_cell),
        )
        .await?;
        let Some((bytes, location)) = vertex_cell else {
            return Ok(None);
        };
        if bytes.len() % self.row != 0 {
            return Err(ZarrError::codec(
                &location,
                CodecError::new(
                    "zarr_vectors",
                    format!(
                        "{} bytes of vertices are not whole rows of {} bytes",
                        bytes.len(),
                        self.row
                    ),
                ),
            ));
        }
        let rows = (bytes.len() / self.row) as u64;
        let fragments = match fragment_cell {
            Some((blob, at)) => fragment_index::parse(&blob, rows)
                .map_err(|e| ZarrError::codec(&at, CodecError::new("fragment_index_v1", e)))?,
            None => Vec::new(),
        };
        Ok(Some(ChunkVertices {
            rows,
            bytes,
            fragments,
        }))
    }

    /// The per-vertex attribute `name` of a chunk of `rows` vertices (None where the chunk has none).
    /// Attribute names are not listed in the store's metadata: the caller names them.
    pub async fn read_attribute(
        &self,
        name: &str,
        chunk: &[i64],
        rows: u64,
    ) -> Result<Option<ChunkAttribute>> {
        self.row_array("vertex_attributes", name)
            .await?
            .read(chunk, rows)
            .await
    }

    /// The spatial array `<family>/<name>` of this level whose cells hold rows of values aligned
    /// with other cells' rows (a vertex attribute, a link attribute).
    pub(super) async fn row_array(&self, family: &str, name: &str) -> Result<RowArray> {
        check_name(name)?;
        let array = match self.group.open(&format!("{family}/{name}")).await? {
            Node::Array(a) => a,
            Node::Group(_) => {
                return Err(ZarrError::selection(format!(
                    "{family}/{name} is a group, not an attribute"
                )))
            }
        };
        let cells = SpatialArray::new(array, self.ndim)?;
        let dtype = cells.numeric_dtype()?;
        if cells.attr_str("encoding").is_some_and(|e| e != "raw") {
            return Err(ZarrError::unsupported(
                &cells.location,
                "an attribute not stored raw (dictionary-encoded, say)",
            ));
        }
        // Values a row: the product of `row_shape` (a scalar attribute has none).
        let width = match cells.attrs().get("row_shape") {
            None => 1,
            Some(shape) => json::list(shape, serde_json::Value::as_u64)
                .and_then(|s| {
                    s.iter()
                        .try_fold(1u64, |a, &n| a.checked_mul(n))
                        .and_then(|n| usize::try_from(n).ok())
                })
                .filter(|w| *w > 0)
                .ok_or_else(|| {
                    ZarrError::metadata(&cells.location, "\"row_shape\" must be positive sizes")
                })?,
        };
        Ok(RowArray {
            name: name.to_string(),
            cells,
            dtype,
            width,
        })
    }

    /// The object attribute `name`: its type, its shape (objects first, then values an object) and
    /// its values. Objects without a value hold the array's fill value.
    pub async fn object_attribute(&self, name: &str) -> Result<(DataType, Vec<u64>, Vec<u8>)> {
        check_name(name)?;
        let array = match self
            .group
            .open(&format!("object_attributes/{name}"))
            .await?
        {
            Node::Array(a) => a,
            Node::Group(_) => {
                return Err(ZarrError::selection(format!(
                    "object_attributes/{name} is a group, not an attribute"
                )))
            }
        };
        use DataType::*;
        let dtype = array.data_type();
        if !matches!(
            dtype,
            Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 | Float32 | Float64
        ) || array.shape().is_empty()
        {
            return Err(ZarrError::unsupported(
                &array.store().locate(&array.path().key("zarr.json")),
                format!(
                    "an object attribute of {dtype} values in {} dimensions",
                    array.shape().len()
                ),
            ));
        }
        let all = vec![DimSelection::All; array.shape().len()];
        let data = array.get(&all).await?;
        Ok((dtype, array.shape().to_vec(), data.bytes))
    }

    /// How many groups of objects the level has.
    pub async fn group_count(&self) -> Result<u64> {
        Ok(self.groups().await?.map_or(0, |g| g.shape()[0]))
    }

    async fn groups(&self) -> Result<Option<Array>> {
        match self.group.open("groups").await {
            Ok(Node::Array(a)) if a.shape().len() == 1 && a.data_type().is_variable() => {
                Ok(Some(a))
            }
            Ok(_) => Err(ZarrError::metadata(
                &self
                    .group
                    .store()
                    .locate(&self.group.path().key("groups/zarr.json")),
                "groups must be a 1-D variable_length_bytes array",
            )),
            Err(e) if e.kind == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The ids of the objects in group `id`: a run written as `group_ranges`, or the i64s of its cell.
    pub async fn group_members(&self, id: u64) -> Result<Vec<i64>> {
        let groups = self
            .groups()
            .await?
            .ok_or_else(|| ZarrError::selection("the level has no groups of objects"))?;
        let count = groups.shape()[0];
        if id >= count {
            return Err(ZarrError::selection(format!(
                "group {id}: the level has {count} groups"
            )));
        }
        let location = groups.store().locate(&groups.path().key("zarr.json"));
        if let Some(run) = groups
            .metadata()
            .attributes
            .get("group_ranges")
            .and_then(|r| r.get(id.to_string()))
        {
            let run = json::list(run, serde_json::Value::as_i64)
                .and_then(|run| <[i64; 2]>::try_from(run).ok())
                .filter(|[a, b]| {
                    *a >= 0
                        && b.checked_sub(*a)
                            .is_some_and(|n| (0..=1 << 24).contains(&n))
                })
                .ok_or_else(|| {
                    ZarrError::metadata(
                        &location,
                        format!("group_ranges of group {id} is not a short [start, stop]"),
                    )
                })?;
            return Ok((run[0]..run[1]).collect());
        }
        let data = groups.get(&[DimSelection::Index(id as i64)]).await?;
        let blob = data
            .items
            .as_ref()
            .and_then(|i| i.resolve(data.bytes.get(..8)?))
            .unwrap_or_default();
        links::integers(blob, DataType::Int64).map_err(|e| {
            ZarrError::codec(
                &location,
                CodecError::new("zarr_vectors groups", format!("group {id}: {e}")),
            )
        })
    }

    /// Object `id`'s vertices, chunk by chunk in its manifest's order: the bytes of its rows. Each
    /// chunk is read once. A manifest may name a fragment again (the writer's coarser levels share
    /// metavertices, within an object too), but not so often that the object would take more than
    /// `REPEATS_ALLOWED` times the bytes of the chunks it names: a small manifest cannot ask for any
    /// amount of memory.
    pub async fn read_object(&self, id: u64) -> Result<Vec<u8>> {
        Ok(self.read_object_with(id, &[]).await?.0)
    }

    /// Object `id`'s vertices (as `read_object`) and, row for row, the per-vertex attributes
    /// `names`.
    pub async fn read_object_with(
        &self,
        id: u64,
        names: &[String],
    ) -> Result<(Vec<u8>, Vec<(String, ChunkAttribute)>)> {
        let manifests = self
            .manifests
            .as_ref()
            .ok_or_else(|| ZarrError::selection("the level has no object index"))?;
        let count = manifests.shape().first().copied().unwrap_or(0);
        if id >= count {
            return Err(ZarrError::selection(format!(
                "object {id}: the level has {count} objects"
            )));
        }
        let data = manifests.get(&[DimSelection::Index(id as i64)]).await?;
        let cell = manifests
            .metadata()
            .chunk_grid
            .regular_chunk_shape()
            .map_or(id, |c| id / c[0].max(1));
        let location = manifests.store().locate(&manifests.chunk_key(&[cell]));
        let broken = |reason: String| {
            ZarrError::codec(&location, CodecError::new("object manifest", reason))
        };
        let blob = data
            .items
            .as_ref()
            .and_then(|i| i.resolve(data.bytes.get(..8)?))
            .unwrap_or_default();
        let blocks = match blob.is_empty() {
            true => Vec::new(), // no manifest written: an object without vertices
            false => {
                manifest::parse(blob, self.ndim).map_err(|e| broken(format!("object {id}: {e}")))?
            }
        };
        // The chunks named, in order of first mention, and the (chunk, row) of each vertex.
        let mut chunks: Vec<(Vec<i64>, ChunkVertices)> = Vec::new();
        let mut picks: Vec<(usize, u64)> = Vec::new();
        let mut chunk_bytes = 0usize;
        for block in blocks {
            let at = match chunks.iter().position(|(c, _)| *c == block.chunk) {
                Some(at) => at,
                None => {
                    let read = self.read_chunk(&block.chunk).await?.ok_or_else(|| {
                        broken(format!(
                            "object {id} names chunk {:?}, which is empty",
                            block.chunk
                        ))
                    })?;
                    chunk_bytes += read.bytes.len();
                    chunks.push((block.chunk.clone(), read));
                    chunks.len() - 1
                }
            };
            let chunk = &chunks[at].1;
            for f in block.fragments.iter() {
                let fragment = usize::try_from(f)
                    .ok()
                    .and_then(|i| chunk.fragments.get(i))
                    .ok_or_else(|| {
                        broken(format!(
                            "object {id} names fragment {f} of chunk {:?}, which has {}",
                            block.chunk,
                            chunk.fragments.len()
                        ))
                    })?;
                if (picks.len() + fragment.len() as usize) * self.row
                    > REPEATS_ALLOWED * chunk_bytes
                {
                    return Err(broken(format!(
                        "object {id} names the rows of its chunks more than {REPEATS_ALLOWED} times over"
                    )));
                }
                // Rows are within the chunk: the fragment index was checked against them.
                picks.extend(fragment.rows().map(|r| (at, r)));
            }
        }
        let gather = |cells: &[&[u8]], row: usize| -> Vec<u8> {
            picks
                .iter()
                .flat_map(|&(c, r)| &cells[c][r as usize * row..(r as usize + 1) * row])
                .copied()
                .collect()
        };
        let positions = gather(
            &chunks
                .iter()
                .map(|(_, c)| c.bytes.as_slice())
                .collect::<Vec<_>>(),
            self.row,
        );
        let mut attributes = Vec::new();
        for name in names {
            let array = self.row_array("vertex_attributes", name).await?;
            let cells = futures_util::future::try_join_all(
                chunks
                    .iter()
                    .map(|(chunk, read)| super::boxed(array.read(chunk, read.rows))),
            )
            .await?;
            let cells = chunks
                .iter()
                .zip(cells)
                .map(|((chunk, _), cell)| {
                    cell.map(|c| c.bytes).ok_or_else(|| {
                        broken(format!("attribute {name} has no cell for chunk {chunk:?}"))
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let row = array.width * array.dtype.size();
            let bytes = gather(&cells.iter().map(Vec::as_slice).collect::<Vec<_>>(), row);
            attributes.push((
                name.clone(),
                ChunkAttribute {
                    dtype: array.dtype,
                    width: array.width,
                    bytes,
                },
            ));
        }
        Ok((positions, attributes))
    }
}
