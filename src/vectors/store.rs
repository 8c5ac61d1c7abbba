//! Opening a Zarr Vectors store and reading its spatial chunks and objects, on top of the core's
//! array reader: every spatial array is a `variable_length_bytes` array whose shape is the level's
//! chunk grid, one cell per spatial chunk, keys shifted by `chunk_grid_origin`.

use super::fragment_index::{self, Fragment};
use super::manifest;
use crate::array::Array;
use crate::data_type::DataType;
use crate::error::{CodecError, Result, ZarrError};
use crate::group::Group;
use crate::node::{open, Node};
use crate::selection::DimSelection;
use crate::store::ReadableStore;
use serde_json::{Map, Value};
use std::rc::Rc;

/// The versions of the reference writer whose layout this reader knows.
const KNOWN_VERSIONS: &[&str] = &["0.9."];

/// A store's `zarr_vectors` metadata and its levels.
#[derive(Debug, Clone)]
pub struct VectorsMeta {
    pub version: String,
    pub ndim: usize,
    /// A spatial chunk's size in world units: chunk `k` along an axis covers `[k * s, (k + 1) * s)`.
    pub chunk_shape: Vec<f64>,
    pub bounds: (Vec<f64>, Vec<f64>),
    pub geometry_types: Vec<String>,
    /// Each level's path, finest first.
    pub levels: Vec<String>,
}

pub struct VectorStore {
    root: Group,
    meta: VectorsMeta,
}

/// Opens the ZVF store whose root group is at `path`.
pub async fn open_vectors(store: Rc<dyn ReadableStore>, path: &str) -> Result<VectorStore> {
    let location = store.locate(&format!(
        "{}zarr.json",
        if path.is_empty() {
            String::new()
        } else {
            format!("{}/", path.trim_matches('/'))
        }
    ));
    let root = match open(store, path).await? {
        Node::Group(g) => g,
        Node::Array(_) => {
            return Err(ZarrError::metadata(
                &location,
                "a Zarr Vectors store is a group, this is an array",
            ))
        }
    };
    let meta =
        parse_meta(&root.metadata().attributes).map_err(|e| ZarrError::metadata(&location, e))?;
    if !KNOWN_VERSIONS.iter().any(|v| meta.version.starts_with(v)) {
        return Err(ZarrError::unsupported(
            &location,
            format!(
                "zarr_vectors version {}; this reader knows {}x",
                meta.version,
                KNOWN_VERSIONS.join("x, ")
            ),
        ));
    }
    Ok(VectorStore { root, meta })
}

fn parse_meta(attrs: &Map<String, Value>) -> std::result::Result<VectorsMeta, String> {
    let zv = attrs
        .get("zarr_vectors")
        .and_then(Value::as_object)
        .ok_or("no \"zarr_vectors\" attributes: not a Zarr Vectors store")?;
    let numbers = |v: Option<&Value>, what: &str| -> std::result::Result<Vec<f64>, String> {
        v.and_then(Value::as_array)
            .and_then(|a| a.iter().map(Value::as_f64).collect::<Option<Vec<_>>>())
            .ok_or_else(|| format!("\"{what}\" must be a list of numbers"))
    };
    let version = zv
        .get("zv_version")
        .and_then(Value::as_str)
        .ok_or("\"zv_version\" is missing")?
        .to_string();
    let chunk_shape = numbers(zv.get("chunk_shape"), "chunk_shape")?;
    if chunk_shape.is_empty() || chunk_shape.iter().any(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(format!(
            "\"chunk_shape\" must be positive sizes, not {chunk_shape:?}"
        ));
    }
    let bounds = zv
        .get("bounds")
        .and_then(Value::as_array)
        .filter(|b| b.len() == 2)
        .ok_or("\"bounds\" must be [min, max]")?;
    let bounds = (
        numbers(bounds.first(), "bounds[0]")?,
        numbers(bounds.get(1), "bounds[1]")?,
    );
    let ndim = chunk_shape.len();
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
    let levels: Vec<String> = attrs
        .get("multiscales")
        .and_then(|m| m.get(0))
        .and_then(|m| m.get("datasets"))
        .and_then(Value::as_array)
        .map(|d| {
            d.iter()
                .filter_map(|d| d.get("path").and_then(Value::as_str))
                .map(String::from)
                .collect()
        })
        .unwrap_or_else(|| vec!["0".to_string()]);
    if levels.is_empty() || levels.iter().any(|p| p.is_empty() || p.contains("..")) {
        return Err(format!(
            "the multiscales datasets' paths are not usable: {levels:?}"
        ));
    }
    Ok(VectorsMeta {
        version,
        ndim,
        chunk_shape,
        bounds,
        geometry_types,
        levels,
    })
}

impl VectorStore {
    pub fn meta(&self) -> &VectorsMeta {
        &self.meta
    }

    /// Opens level `index` (0 is the finest).
    pub async fn level(&self, index: usize) -> Result<VectorLevel> {
        let path = self.meta.levels.get(index).ok_or_else(|| {
            ZarrError::selection(format!(
                "level {index}: the store has {} levels",
                self.meta.levels.len()
            ))
        })?;
        let array = |name: String| async move {
            match self.root.open(&name).await? {
                Node::Array(a) => Ok(a),
                Node::Group(_) => Err(ZarrError::metadata(
                    &name,
                    "expected an array, found a group",
                )),
            }
        };
        let optional = |name: String| async move {
            match self.root.open(&name).await {
                Ok(Node::Array(a)) => Ok(Some(a)),
                Ok(Node::Group(_)) => Ok(None),
                Err(e) if e.kind == crate::error::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            }
        };
        let vertices = array(format!("{path}/vertices")).await?;
        let location = vertices.store().locate(&format!(
            "{}/zarr.json",
            vertices.path().as_str().trim_matches('/')
        ));
        let spatial = SpatialArray::new(vertices, self.meta.ndim)
            .map_err(|e| ZarrError::metadata(&location, e))?;
        let dtype = spatial.dtype.ok_or_else(|| {
            ZarrError::metadata(
                &location,
                "the vertices array's \"dtype\" attribute is missing",
            )
        })?;
        let fragments = optional(format!("{path}/vertex_fragments")).await?;
        let fragments = fragments
            .map(|a| SpatialArray::new(a, self.meta.ndim))
            .transpose()
            .map_err(|e| ZarrError::metadata(&location, e))?;
        let manifests = optional(format!("{path}/object_index/manifests")).await?;
        Ok(VectorLevel {
            meta: self.meta.clone(),
            vertices: spatial,
            dtype,
            fragments,
            manifests,
            root: self.root.clone(),
            path: path.clone(),
        })
    }
}

/// A spatial array: its reader, and where its cells are.
struct SpatialArray {
    array: Array,
    origin: Vec<i64>,
    nonempty: Vec<Vec<i64>>,
    dtype: Option<DataType>,
}

impl SpatialArray {
    fn new(array: Array, ndim: usize) -> std::result::Result<SpatialArray, String> {
        let attrs = &array.metadata().attributes;
        if array.shape().len() != ndim || !array.data_type().is_variable() {
            return Err(format!(
                "a spatial array must be {ndim}-dimensional variable_length_bytes"
            ));
        }
        let origin = match attrs.get("chunk_grid_origin") {
            None => vec![0; ndim],
            Some(v) => serde_json::from_value::<Vec<i64>>(v.clone())
                .ok()
                .filter(|o| o.len() == ndim)
                .ok_or_else(|| format!("\"chunk_grid_origin\" must be {ndim} integers"))?,
        };
        let nonempty = attrs
            .get("nonempty_chunks")
            .and_then(Value::as_array)
            .map(|keys| {
                keys.iter()
                    .map(|k| {
                        k.as_str()
                            .and_then(|k| k.split('.').map(|n| n.parse::<i64>().ok()).collect::<Option<Vec<_>>>())
                            .filter(|c| c.len() == ndim)
                            .ok_or_else(|| format!("\"nonempty_chunks\" entry {k} is not {ndim} integers joined by dots"))
                    })
                    .collect::<std::result::Result<Vec<_>, _>>()
            })
            .transpose()?
            .unwrap_or_default();
        let dtype = attrs
            .get("dtype")
            .and_then(Value::as_str)
            .and_then(DataType::from_v3_name);
        Ok(SpatialArray {
            array,
            origin,
            nonempty,
            dtype,
        })
    }

    /// The cell of spatial chunk `chunk`, or None where the chunk is outside the grid or empty.
    async fn cell(&self, chunk: &[i64]) -> Result<Option<(Vec<u8>, String)>> {
        let mut selection = Vec::with_capacity(chunk.len());
        for ((c, o), n) in chunk.iter().zip(&self.origin).zip(self.array.shape()) {
            match c.checked_sub(*o) {
                Some(i) if i >= 0 && (i as u64) < *n => selection.push(DimSelection::Index(i)),
                _ => return Ok(None),
            }
        }
        let data = self.array.get(&selection).await?;
        let key = self.array.chunk_key(
            &selection
                .iter()
                .map(|s| match s {
                    DimSelection::Index(i) => *i as u64,
                    _ => 0,
                })
                .collect::<Vec<_>>(),
        );
        let location = self.array.store().locate(&key);
        let bytes = data
            .items
            .as_ref()
            .and_then(|items| items.resolve(data.bytes.get(..8)?))
            .unwrap_or_default()
            .to_vec();
        Ok((!bytes.is_empty()).then_some((bytes, location)))
    }
}

/// One level of a store.
pub struct VectorLevel {
    meta: VectorsMeta,
    vertices: SpatialArray,
    dtype: DataType,
    fragments: Option<SpatialArray>,
    manifests: Option<Array>,
    root: Group,
    path: String,
}

/// A per-vertex attribute of a chunk: `width` values of `dtype` per vertex row, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkAttribute {
    pub dtype: DataType,
    pub width: usize,
    pub bytes: Vec<u8>,
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

    /// The spatial chunks that hold vertices.
    pub fn chunks(&self) -> &[Vec<i64>] {
        &self.vertices.nonempty
    }

    /// The occupied chunks whose boxes meet the box `[lo, hi]` (world units).
    pub fn chunks_in(&self, lo: &[f64], hi: &[f64]) -> Vec<Vec<i64>> {
        let s = &self.meta.chunk_shape;
        self.chunks()
            .iter()
            .filter(|c| {
                c.iter().enumerate().all(|(d, &k)| {
                    let (a, b) = (k as f64 * s[d], (k + 1) as f64 * s[d]);
                    lo.get(d).is_none_or(|l| b > *l) && hi.get(d).is_none_or(|h| a <= *h)
                })
            })
            .cloned()
            .collect()
    }

    /// Reads a spatial chunk: its vertices and fragments (None where it is empty).
    pub async fn read_chunk(&self, chunk: &[i64]) -> Result<Option<ChunkVertices>> {
        let Some((bytes, location)) = self.vertices.cell(chunk).await? else {
            return Ok(None);
        };
        let row = self.meta.ndim * self.dtype.size();
        if bytes.len() % row != 0 {
            return Err(ZarrError::codec(
                &location,
                CodecError::new(
                    "zarr_vectors",
                    format!(
                        "{} bytes of vertices are not whole rows of {row} bytes",
                        bytes.len()
                    ),
                ),
            ));
        }
        let rows = (bytes.len() / row) as u64;
        let fragments = match &self.fragments {
            Some(f) => match f.cell(chunk).await? {
                Some((blob, at)) => fragment_index::parse(&blob, rows)
                    .map_err(|e| ZarrError::codec(&at, CodecError::new("fragment_index_v1", e)))?,
                None => Vec::new(),
            },
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
        if name.is_empty() || name.contains('/') || name.starts_with('.') {
            return Err(ZarrError::selection(format!(
                "\"{name}\" is not an attribute name"
            )));
        }
        let array = match self
            .root
            .open(&format!("{}/vertex_attributes/{name}", self.path))
            .await?
        {
            Node::Array(a) => a,
            Node::Group(_) => {
                return Err(ZarrError::selection(format!(
                    "vertex attribute {name} is a group"
                )))
            }
        };
        let location = array.store().locate(&format!(
            "{}/zarr.json",
            array.path().as_str().trim_matches('/')
        ));
        let spatial = SpatialArray::new(array, self.meta.ndim)
            .map_err(|e| ZarrError::metadata(&location, e))?;
        let dtype = spatial.dtype.ok_or_else(|| {
            ZarrError::metadata(&location, "the attribute's \"dtype\" attribute is missing")
        })?;
        let Some((bytes, at)) = spatial.cell(chunk).await? else {
            return Ok(None);
        };
        let per_row = (rows as usize).saturating_mul(dtype.size());
        if per_row == 0 || bytes.len() % per_row != 0 {
            return Err(ZarrError::codec(
                &at,
                CodecError::new(
                    "zarr_vectors",
                    format!(
                        "attribute {name}: {} bytes are not whole rows for {rows} vertices of {dtype}",
                        bytes.len()
                    ),
                ),
            ));
        }
        Ok(Some(ChunkAttribute {
            dtype,
            width: bytes.len() / per_row,
            bytes,
        }))
    }

    /// Object `id`'s vertices, chunk by chunk in its manifest's order: the bytes of its rows.
    pub async fn read_object(&self, id: u64) -> Result<Vec<u8>> {
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
        let location = manifests.store().locate(
            &manifests.chunk_key(&[id
                / manifests
                    .metadata()
                    .chunk_grid
                    .regular_chunk_shape()
                    .map_or(1, |c| c[0].max(1))]),
        );
        let blob = data
            .items
            .as_ref()
            .and_then(|i| i.resolve(data.bytes.get(..8)?))
            .unwrap_or_default();
        let blocks = manifest::parse(blob, self.meta.ndim).map_err(|e| {
            ZarrError::codec(
                &location,
                CodecError::new("object manifest", format!("object {id}: {e}")),
            )
        })?;
        let row = self.meta.ndim * self.dtype.size();
        let mut out = Vec::new();
        for block in blocks {
            let chunk = self.read_chunk(&block.chunk).await?.ok_or_else(|| {
                ZarrError::codec(
                    &location,
                    CodecError::new(
                        "object manifest",
                        format!("object {id} names chunk {:?}, which is empty", block.chunk),
                    ),
                )
            })?;
            for f in block.fragments.iter() {
                let fragment = chunk.fragments.get(f as usize).ok_or_else(|| {
                    ZarrError::codec(
                        &location,
                        CodecError::new(
                            "object manifest",
                            format!(
                                "object {id} names fragment {f} of chunk {:?}, which has {}",
                                block.chunk,
                                chunk.fragments.len()
                            ),
                        ),
                    )
                })?;
                for r in fragment.rows() {
                    out.extend_from_slice(&chunk.bytes[r as usize * row..(r as usize + 1) * row]);
                }
            }
        }
        Ok(out)
    }
}
