//! Opening a Zarr Vectors store: its `zarr_vectors` metadata and its levels (`level.rs`), on top of
//! the core's hierarchy.

use super::level::VectorLevel;
use super::links::{self};
use super::spatial::SpatialArray;
use crate::array::Array;
use crate::error::{ErrorKind, Result, ZarrError};
use crate::hierarchy::group::Group;
use crate::hierarchy::node::{open, Node};
use crate::store::ReadableStore;
use serde_json::{Map, Value};
use std::cell::RefCell;
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
            index,
            ndim,
            store_chunk_shape: self.meta.chunk_shape.clone(),
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
            families: RefCell::default(),
        })
    }
}
