//! Opening a Zarr Vectors store and reading its spatial chunks and objects, on top of the core's
//! array reader: every spatial array is a `variable_length_bytes` array whose shape is the level's
//! chunk grid, one cell per spatial chunk, keys shifted by `chunk_grid_origin`.

use super::fragment_index::{self, Fragment};
use super::links::{self, LinkFamily};
use super::manifest;
use crate::array::Array;
use crate::data_type::DataType;
use crate::error::{CodecError, ErrorKind, Result, ZarrError};
use crate::group::Group;
use crate::node::{open, Node};
use crate::selection::DimSelection;
use crate::store::ReadableStore;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

/// The versions of the reference writer whose layout this reader knows.
const KNOWN_VERSIONS: &[&str] = &["0.9."];

/// A store's `zarr_vectors` metadata and its levels.
#[derive(Debug, Clone)]
pub struct VectorsMeta {
    pub version: String,
    pub ndim: usize,
    /// A spatial chunk's size in world units: chunk `k` along an axis holds the vertices `v` with
    /// `floor(v / s) == k` (a level may have its own, see `VectorLevel::chunk_shape`).
    pub chunk_shape: Vec<f64>,
    pub bounds: (Vec<f64>, Vec<f64>),
    pub geometry_types: Vec<String>,
    /// Each level's path, finest first.
    pub levels: Vec<String>,
    /// How links are stored: "explicit", "implicit_sequential" (polylines: rows in order) or
    /// "implicit_sequential_with_branches" (skeletons).
    pub links_convention: Option<String>,
}

pub struct VectorStore {
    root: Group,
    meta: VectorsMeta,
}

/// Opens the ZVF store whose root group is at `path`.
pub async fn open_vectors(store: Rc<dyn ReadableStore>, path: &str) -> Result<VectorStore> {
    let root = match open(store, path).await? {
        Node::Group(g) => g,
        Node::Array(a) => {
            return Err(ZarrError::metadata(
                &a.store().locate(&a.path().key("zarr.json")),
                "a Zarr Vectors store is a group, this is an array",
            ))
        }
    };
    let location = root.store().locate(&root.path().key("zarr.json"));
    let attrs = &root.metadata().attributes;
    let zv = attrs
        .get("zarr_vectors")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            ZarrError::metadata(
                &location,
                "no \"zarr_vectors\" attributes: not a Zarr Vectors store",
            )
        })?;
    // The version first: a later layout may not parse as this one.
    let version = zv
        .get("zv_version")
        .and_then(Value::as_str)
        .ok_or_else(|| ZarrError::metadata(&location, "\"zv_version\" is missing"))?;
    if !KNOWN_VERSIONS.iter().any(|v| version.starts_with(v)) {
        return Err(ZarrError::unsupported(
            &location,
            format!(
                "zarr_vectors version {version}; this reader knows {}x",
                KNOWN_VERSIONS.join("x, ")
            ),
        ));
    }
    let meta = parse_meta(version, zv, attrs).map_err(|e| ZarrError::metadata(&location, e))?;
    Ok(VectorStore { root, meta })
}

fn numbers(v: Option<&Value>, what: &str) -> std::result::Result<Vec<f64>, String> {
    v.and_then(Value::as_array)
        .and_then(|a| a.iter().map(Value::as_f64).collect::<Option<Vec<_>>>())
        .ok_or_else(|| format!("\"{what}\" must be a list of numbers"))
}

fn chunk_sizes(v: Option<&Value>, ndim: usize) -> std::result::Result<Vec<f64>, String> {
    let sizes = numbers(v, "chunk_shape")?;
    if sizes.len() != ndim || sizes.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(format!(
            "\"chunk_shape\" must be {ndim} positive sizes, not {sizes:?}"
        ));
    }
    Ok(sizes)
}

fn parse_meta(
    version: &str,
    zv: &Map<String, Value>,
    attrs: &Map<String, Value>,
) -> std::result::Result<VectorsMeta, String> {
    let ndim = zv
        .get("chunk_shape")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if !(1..=32).contains(&ndim) {
        return Err(format!("\"chunk_shape\" has {ndim} dimensions"));
    }
    let chunk_shape = chunk_sizes(zv.get("chunk_shape"), ndim)?;
    let bounds = zv
        .get("bounds")
        .and_then(Value::as_array)
        .filter(|b| b.len() == 2)
        .ok_or("\"bounds\" must be [min, max]")?;
    let bounds = (
        numbers(bounds.first(), "bounds[0]")?,
        numbers(bounds.get(1), "bounds[1]")?,
    );
    if bounds.0.len() != ndim || bounds.1.len() != ndim {
        return Err(format!(
            "\"bounds\" do not have {ndim} dimensions like \"chunk_shape\""
        ));
    }
    let geometry_types = zv
        .get("geometry_types")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let levels: Vec<String> = match attrs
        .get("multiscales")
        .and_then(|m| m.get(0))
        .and_then(|m| m.get("datasets"))
        .and_then(Value::as_array)
    {
        None => vec!["0".to_string()],
        Some(datasets) => datasets
            .iter()
            .map(|d| d.get("path").and_then(Value::as_str).map(String::from))
            .collect::<Option<Vec<_>>>()
            .ok_or("a multiscales dataset has no \"path\"")?,
    };
    if levels.is_empty()
        || levels
            .iter()
            .any(|p| p.is_empty() || p.split('/').any(|s| s == ".." || s == "."))
    {
        return Err(format!(
            "the multiscales datasets' paths are not usable: {levels:?}"
        ));
    }
    let links_convention = zv
        .get("links_convention")
        .and_then(Value::as_str)
        .map(String::from);
    Ok(VectorsMeta {
        version: version.to_string(),
        ndim,
        chunk_shape,
        bounds,
        geometry_types,
        levels,
        links_convention,
    })
}

impl VectorStore {
    pub fn meta(&self) -> &VectorsMeta {
        &self.meta
    }

    async fn array(&self, path: &str) -> Result<Option<Array>> {
        match self.root.open(path).await {
            Ok(Node::Array(a)) => Ok(Some(a)),
            Ok(Node::Group(g)) => Err(ZarrError::metadata(
                &g.store().locate(&g.path().key("zarr.json")),
                "expected an array, found a group",
            )),
            Err(e) if e.kind == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Opens level `index` (0 is the finest).
    pub async fn level(&self, index: usize) -> Result<VectorLevel> {
        let path = self.meta.levels.get(index).ok_or_else(|| {
            ZarrError::selection(format!(
                "level {index}: the store has {} levels",
                self.meta.levels.len()
            ))
        })?;
        let ndim = self.meta.ndim;
        // A level may have chunks of its own size (`zarr_vectors_level.chunk_shape`).
        let mut chunk_shape = self.meta.chunk_shape.clone();
        let group = match self.root.open(path).await? {
            Node::Group(group) => group,
            Node::Array(a) => {
                return Err(ZarrError::metadata(
                    &a.store().locate(&a.path().key("zarr.json")),
                    "a level is a group, this is an array",
                ))
            }
        };
        let location = group.store().locate(&group.path().key("zarr.json"));
        if let Some(own) = group
            .metadata()
            .attributes
            .get("zarr_vectors_level")
            .and_then(|l| l.get("chunk_shape"))
        {
            chunk_shape =
                chunk_sizes(Some(own), ndim).map_err(|e| ZarrError::metadata(&location, e))?;
        }
        // The level's three arrays' metadata at once.
        let (vertices, fragments, manifests) = futures_util::future::try_join3(
            super::boxed(self.array(&format!("{path}/vertices"))),
            super::boxed(self.array(&format!("{path}/vertex_fragments"))),
            super::boxed(self.array(&format!("{path}/object_index/manifests"))),
        )
        .await?;
        let vertices = vertices.ok_or_else(|| {
            ZarrError::not_found(
                &self
                    .root
                    .store()
                    .locate(&self.root.path().key(&format!("{path}/vertices/zarr.json"))),
            )
        })?;
        let vertices = SpatialArray::new(vertices, ndim)?;
        let dtype = vertices.numeric_dtype()?;
        if let Some(encoding) = vertices.attr_str("encoding").filter(|e| *e != "raw") {
            return Err(ZarrError::unsupported(
                &vertices.location,
                format!("vertices encoded as \"{encoding}\"; only \"raw\" is read"),
            ));
        }
        let row = ndim
            .checked_mul(dtype.size())
            .filter(|r| *r > 0)
            .ok_or_else(|| {
                ZarrError::metadata(&vertices.location, "the vertex rows' size overflows")
            })?;
        let fragments = match fragments {
            Some(a) => Some(SpatialArray::new(a, ndim)?),
            None => None,
        };
        let manifests = match manifests {
            Some(a) => {
                let location = a.store().locate(&a.path().key("zarr.json"));
                if a.shape().len() != 1 || !a.data_type().is_variable() {
                    return Err(ZarrError::metadata(
                        &location,
                        "object manifests must be a 1-D variable_length_bytes array",
                    ));
                }
                Some(a)
            }
            None => None,
        };
        Ok(VectorLevel {
            ndim,
            chunk_shape,
            vertices,
            dtype,
            row,
            fragments,
            manifests,
            group,
            convention: links::Convention::of(
                &self.meta.geometry_types,
                self.meta.links_convention.as_deref(),
            ),
            links: RefCell::new(None),
        })
    }
}

/// A spatial array: its reader, and where its cells are.
pub(super) struct SpatialArray {
    array: Array,
    pub location: String,
    origin: Vec<i64>,
    pub nonempty: Vec<Vec<i64>>,
}

impl SpatialArray {
    pub fn new(array: Array, ndim: usize) -> Result<SpatialArray> {
        let location = array.store().locate(&array.path().key("zarr.json"));
        let bad = |e: String| ZarrError::metadata(&location, e);
        if array.shape().len() != ndim || !array.data_type().is_variable() {
            return Err(bad(format!(
                "a spatial array must be {ndim}-dimensional variable_length_bytes"
            )));
        }
        let attrs = &array.metadata().attributes;
        let origin = match attrs.get("chunk_grid_origin") {
            None => vec![0; ndim],
            Some(v) => serde_json::from_value::<Vec<i64>>(v.clone())
                .ok()
                .filter(|o| o.len() == ndim)
                .ok_or_else(|| bad(format!("\"chunk_grid_origin\" must be {ndim} integers")))?,
        };
        let keys = attrs
            .get("nonempty_chunks")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("\"nonempty_chunks\" is missing".into()))?;
        let mut seen = HashSet::new();
        let mut nonempty = Vec::with_capacity(keys.len());
        for k in keys {
            let coords = k
                .as_str()
                .and_then(|k| {
                    k.split('.')
                        .map(|n| n.parse::<i64>().ok())
                        .collect::<Option<Vec<_>>>()
                })
                .filter(|c| c.len() == ndim)
                .ok_or_else(|| {
                    bad(format!(
                        "\"nonempty_chunks\" entry {k} is not {ndim} integers joined by dots"
                    ))
                })?;
            if seen.insert(coords.clone()) {
                nonempty.push(coords);
            }
        }
        Ok(SpatialArray {
            array,
            location,
            origin,
            nonempty,
        })
    }

    pub fn attrs(&self) -> &Map<String, Value> {
        &self.array.metadata().attributes
    }

    fn attr_str(&self, name: &str) -> Option<&str> {
        self.attrs().get(name)?.as_str()
    }

    /// The values' type named by the `dtype` attribute, which must be an integer type.
    pub fn integer_dtype(&self) -> Result<DataType> {
        match self.numeric_dtype()? {
            DataType::Float32 | DataType::Float64 => Err(ZarrError::metadata(
                &self.location,
                "indices must be integers, this array's \"dtype\" is a float type",
            )),
            t => Ok(t),
        }
    }

    /// The values' type named by the array's `dtype` attribute: a number type.
    fn numeric_dtype(&self) -> Result<DataType> {
        let name = self.attr_str("dtype").ok_or_else(|| {
            ZarrError::metadata(&self.location, "the \"dtype\" attribute is missing")
        })?;
        use DataType::*;
        match DataType::from_v3_name(name) {
            Some(
                t @ (Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 | Float32
                | Float64),
            ) => Ok(t),
            _ => Err(ZarrError::unsupported(
                &self.location,
                format!("values of type \"{name}\"; integers and floats are read"),
            )),
        }
    }

    /// The cell of spatial chunk `chunk` and its key, or None where it is outside the grid or empty.
    pub async fn cell(&self, chunk: &[i64]) -> Result<Option<(Vec<u8>, String)>> {
        if chunk.len() != self.origin.len() {
            return Err(ZarrError::selection(format!(
                "chunk coordinates {chunk:?} must have {} values",
                self.origin.len()
            )));
        }
        let mut index = Vec::with_capacity(chunk.len());
        for ((c, o), n) in chunk.iter().zip(&self.origin).zip(self.array.shape()) {
            match c.checked_sub(*o) {
                Some(i) if i >= 0 && (i as u64) < *n => index.push(i as u64),
                _ => return Ok(None),
            }
        }
        let selection: Vec<DimSelection> = index
            .iter()
            .map(|&i| DimSelection::Index(i as i64))
            .collect();
        let data = self.array.get(&selection).await?;
        let location = self.array.store().locate(&self.array.chunk_key(&index));
        let bytes = data
            .items
            .as_ref()
            .and_then(|items| items.resolve(data.bytes.get(..8)?))
            .unwrap_or_default()
            .to_vec();
        Ok((!bytes.is_empty()).then_some((bytes, location)))
    }
}

/// A spatial array of rows aligned with another's (an attribute of vertices or of links).
pub(super) struct RowArray {
    pub name: String,
    pub cells: SpatialArray,
    pub dtype: DataType,
    pub width: usize,
}

impl RowArray {
    /// The rows of `chunk`'s cell, which must be `rows` of them (None where the cell is empty).
    pub async fn read(&self, chunk: &[i64], rows: u64) -> Result<Option<ChunkAttribute>> {
        self.checked(self.cells.cell(chunk).await?, rows)
    }

    /// A cell read (its bytes and key), checked to hold `rows` rows.
    pub fn checked(
        &self,
        cell: Option<(Vec<u8>, String)>,
        rows: u64,
    ) -> Result<Option<ChunkAttribute>> {
        let Some((bytes, at)) = cell else {
            return Ok(None);
        };
        let expected = (rows as usize)
            .checked_mul(self.width)
            .and_then(|n| n.checked_mul(self.dtype.size()));
        if expected != Some(bytes.len()) {
            return Err(ZarrError::codec(
                &at,
                CodecError::new(
                    "zarr_vectors",
                    format!(
                        "attribute {}: {} bytes, not {rows} rows of {} {} values",
                        self.name,
                        bytes.len(),
                        self.width,
                        self.dtype
                    ),
                ),
            ));
        }
        Ok(Some(ChunkAttribute {
            dtype: self.dtype,
            width: self.width,
            bytes,
        }))
    }
}

/// An attribute's name must name one node below its family: not a path, not hidden.
pub(super) fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.contains('/') || name.starts_with('.') {
        return Err(ZarrError::selection(format!(
            "\"{name}\" is not an attribute name"
        )));
    }
    Ok(())
}

/// How many times over an object may name its chunks' rows (see `VectorLevel::read_object`).
const REPEATS_ALLOWED: usize = 8;

/// One level of a store.
pub struct VectorLevel {
    pub(super) ndim: usize,
    chunk_shape: Vec<f64>,
    vertices: SpatialArray,
    dtype: DataType,
    /// Bytes a vertex row takes.
    pub(super) row: usize,
    fragments: Option<SpatialArray>,
    pub(super) manifests: Option<Array>,
    /// The level's group.
    pub(super) group: Group,
    /// Which links are stored, and which implied by the order of vertices (None: no links).
    pub(super) convention: Option<links::Convention>,
    /// `links/0`, once opened (None inside: the level has no links).
    pub(super) links: RefCell<Option<Option<Rc<LinkFamily>>>>,
}

/// A spatial chunk's vertices: `rows` rows of `ndim` values of `dtype`, little-endian as stored, and
/// its fragments (empty where the level has no fragment index).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkVertices {
    pub rows: u64,
    pub bytes: Vec<u8>,
    pub fragments: Vec<Fragment>,
}

/// A per-vertex attribute of a chunk: `width` values of `dtype` per vertex row, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkAttribute {
    pub dtype: DataType,
    pub width: usize,
    pub bytes: Vec<u8>,
}

impl VectorLevel {
    pub fn dtype(&self) -> DataType {
        self.dtype
    }

    /// This level's spatial chunk size (world units).
    pub fn chunk_shape(&self) -> &[f64] {
        &self.chunk_shape
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
        if let Some(family) = self.links.borrow().clone() {
            return Ok(family);
        }
        let family = links::open_family(&self.group, self.ndim)
            .await?
            .map(Rc::new);
        *self.links.borrow_mut() = Some(family.clone());
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
            Some(shape) => serde_json::from_value::<Vec<u64>>(shape.clone())
                .ok()
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
            let run = serde_json::from_value::<[i64; 2]>(run.clone())
                .ok()
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
