//! What a node's metadata says, whichever format it was written in, and the checks v2 and v3
//! documents share.

use super::extension::Extension;
use crate::data_type::fill_value::FillValue;
use crate::data_type::structured::Field;
use crate::data_type::{DataType, Endian};
use crate::error::{Result, ZarrError};
use crate::metadata::chunk_grid::ChunkGrid;
use crate::metadata::chunk_key_encoding::ChunkKeyEncoding;
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct ArrayMetadata {
    /// 2 or 3: the format the document was written in.
    pub zarr_format: u8,
    pub shape: Vec<u64>,
    pub data_type: DataType,
    /// The fields of a structured data type.
    pub fields: Option<Vec<Field>>,
    pub chunk_grid: ChunkGrid,
    pub chunk_key_encoding: ChunkKeyEncoding,
    pub fill_value: FillValue,
    /// The codecs, as the metadata lists them.
    pub codecs: CodecList,
    pub attributes: Map<String, Value>,
    pub dimension_names: Option<Vec<Option<String>>>,
}

/// An array's codecs as its metadata lists them.
#[derive(Debug, Clone, PartialEq)]
pub enum CodecList {
    /// v3's `codecs`.
    V3(Vec<Extension>),
    /// v2's filters and compressor: numcodecs' codecs, which the codec table turns into the v3
    /// list they amount to (see `codecs::numcodecs`).
    V2(Box<V2Codecs>),
}

/// A v2 array's filters and compressor, and what of its dtype and order they depend on.
#[derive(Debug, Clone, PartialEq)]
pub struct V2Codecs {
    /// `"order": "F"` on an array of two or more dimensions: values are stored transposed.
    pub fortran_order: bool,
    /// Each filter's numcodecs id and its configuration as a v3 codec (named `numcodecs.<id>`;
    /// `vlen-*` keep their names, which are v3 names too).
    pub filters: Vec<(String, Extension)>,
    pub compressor: Option<(String, Extension)>,
    /// The byte order of the dtype's values, where it has one.
    pub endian: Option<Endian>,
    /// `|O`: elements are Python objects, turned into bytes by the first filter.
    pub object: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GroupMetadata {
    pub zarr_format: u8,
    pub attributes: Map<String, Value>,
    /// Consolidated metadata: every descendant's documents, keyed by its path relative to this
    /// group. `None` when the group has none.
    pub consolidated: Option<Listing>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeMetadata {
    Array(ArrayMetadata),
    Group(GroupMetadata),
}

/// The nodes consolidated metadata lists, by path, in path order. A list sorted once rather than
/// a BTreeMap: the map's code for this one type was about 10 KB of the wasm module (issue 33).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Listing(Vec<(String, ListedNode)>);

impl Listing {
    /// The nodes `entries` gives, each path once; the first path given twice is returned as the
    /// error.
    pub fn new(mut entries: Vec<(String, ListedNode)>) -> std::result::Result<Listing, String> {
        crate::collections::sort::sort_by(&mut entries, |a, b| a.0 < b.0);
        match entries.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            Some(pair) => Err(pair[0].0.clone()),
            None => Ok(Listing(entries)),
        }
    }

    pub fn get(&self, path: &str) -> Option<&ListedNode> {
        let at = self
            .0
            .binary_search_by(|(p, _)| p.as_str().cmp(path))
            .ok()?;
        Some(&self.0[at].1)
    }

    pub fn remove(&mut self, path: &str) -> Option<ListedNode> {
        let at = self
            .0
            .binary_search_by(|(p, _)| p.as_str().cmp(path))
            .ok()?;
        Some(self.0.remove(at).1)
    }

    /// The nodes in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &ListedNode)> {
        self.0.iter().map(|(path, node)| (path, node))
    }
}

/// A node's documents as consolidated metadata lists them, parsed when the node is opened.
#[derive(Debug, Clone, PartialEq)]
pub enum ListedNode {
    /// A `zarr.json` document.
    V3(Value),
    /// A v2 array: its `.zarray` and `.zattrs`.
    V2Array {
        zarray: Value,
        zattrs: Option<Value>,
    },
    /// A v2 group: its `.zgroup` and `.zattrs`.
    V2Group {
        zgroup: Value,
        zattrs: Option<Value>,
    },
}

impl ListedNode {
    /// "array", "group", or "unknown" for a v3 document that says neither.
    pub fn kind(&self) -> &str {
        match self {
            ListedNode::V3(doc) => doc
                .get("node_type")
                .and_then(Value::as_str)
                .filter(|k| ["array", "group"].contains(k))
                .unwrap_or("unknown"),
            ListedNode::V2Array { .. } => "array",
            ListedNode::V2Group { .. } => "group",
        }
    }

    /// The document that describes the node (for messages).
    pub fn document(&self) -> &'static str {
        match self {
            ListedNode::V3(_) => "zarr.json",
            ListedNode::V2Array { .. } => ".zarray",
            ListedNode::V2Group { .. } => ".zgroup",
        }
    }
}

/// Indices reach JavaScript as numbers, which are exact only up to 2^53 - 1.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

pub(super) fn check_shape(shape: &[u64], location: &str) -> Result<()> {
    match shape.iter().find(|&&n| n > MAX_SAFE_INTEGER) {
        Some(len) => Err(ZarrError::unsupported(
            location,
            format!("shape has a dimension of {len}, beyond 2^53 - 1"),
        )),
        None => Ok(()),
    }
}

/// Attributes: absent (or `null`, which zarr-python reads as none) means none; otherwise they
/// must be a JSON object.
pub(super) fn attributes(value: Option<Value>, location: &str) -> Result<Map<String, Value>> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(a)) => Ok(a),
        Some(other) => Err(ZarrError::metadata(
            location,
            format!(
                "attributes are not a JSON object: {}",
                crate::error::quote(&other)
            ),
        )),
    }
}

pub(super) fn required<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
    location: &str,
) -> Result<&'a Value> {
    obj.get(key)
        .ok_or_else(|| ZarrError::metadata(location, format!("\"{key}\" is missing")))
}

pub(super) fn u64_list(value: &Value, what: &str, location: &str) -> Result<Vec<u64>> {
    let bad = || {
        ZarrError::metadata(
            location,
            format!(
                "{what} must be a list of non-negative integers, not {}",
                crate::error::quote(value)
            ),
        )
    };
    value
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|v| v.as_u64().ok_or_else(bad))
        .collect()
}

/// The regular grid of `chunk_shape` over `shape`, validated.
pub(super) fn regular_grid(
    chunk_shape: Vec<u64>,
    shape: &[u64],
    location: &str,
) -> Result<ChunkGrid> {
    ChunkGrid::regular(chunk_shape, shape)
        .map_err(|e| ZarrError::metadata(location, format!("chunk shape: {e}")))
}
