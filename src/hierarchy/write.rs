//! Creating, changing and erasing nodes (the `write` feature), as the Zarr specs' storage
//! operations do: an array or a group is created by writing its metadata document (v3's
//! `zarr.json`; v2's `.zarray` or `.zgroup`, and `.zattrs`), erased with everything below it.
//!
//! A new array's document is built from the options as JSON, then read back by the reader's own
//! parser before anything is stored: what is written is what the reader (and so the writer) will
//! take, and a bad option is the reader's error, naming the field. Changes (a resize, new
//! attributes) edit the stored document as JSON, so every field they do not touch stays as it was.

use super::group::Group;
use crate::array::Array;
use crate::data_type::DataType;
use crate::error::{Result, ZarrError};
use crate::metadata::node_path::NodePath;
use crate::metadata::{v2, v3, NodeMetadata};
use crate::store::{ReadableStore, WritableStore};
use serde_json::{json, Map, Value};
use std::rc::Rc;

/// A new array, as `create` takes it (its JSON form is the JS API's options, by the same names
/// in camel case). Left out, the codecs are what zarr-python 3 writes.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArraySpec {
    /// 3 (the default) or 2.
    pub zarr_format: Option<u8>,
    pub shape: Vec<u64>,
    /// The data type: as `DataType::name` gives it (v3 names), or for v2 a NumPy typestr.
    #[serde(rename = "dtype")]
    pub data_type: String,
    pub chunks: Vec<u64>,
    /// v3: the shard shape (the array is sharded, its inner chunks of `chunks`).
    pub shards: Option<Vec<u64>>,
    /// v3: the codec list as `zarr.json` holds it (with `shards`, the inner chunks' codecs).
    pub codecs: Option<Vec<Value>>,
    /// v3, with `shards`: where each shard's index is, "end" (the default) or "start".
    pub index_location: Option<String>,
    /// v2: the compressor (`null`: none) and filters, as `.zarray` holds them.
    pub compressor: Option<Value>,
    pub filters: Option<Value>,
    /// The fill value as the metadata holds it (JSON); left out, the type's zero.
    pub fill_value: Option<Value>,
    pub attributes: Option<Map<String, Value>>,
    pub dimension_names: Option<Vec<Option<String>>>,
    /// v2: "C" (the default) or "F".
    pub order: Option<String>,
    /// v2: "." (the default) or "/".
    pub dimension_separator: Option<String>,
    /// v3: the chunk key separator, "/" (the default) or ".".
    pub chunk_key_separator: Option<String>,
    /// Replace a node already at the path (with everything below it); otherwise it is an error.
    #[serde(default)]
    pub overwrite: bool,
    /// Where the array is (the JS API's option; the core's functions take the path apart).
    #[serde(default)]
    pub path: Option<String>,
}

/// The store's writing side, or an `UnsupportedError` naming it.
fn writer<'a>(store: &'a dyn ReadableStore, path: &NodePath) -> Result<&'a dyn WritableStore> {
    store.writable().ok_or_else(|| {
        ZarrError::unsupported(
            &store.locate(&path.key("")),
            "this store cannot write (it has no set)",
        )
    })
}

/// The documents that make a node (any format), by their names.
const DOCUMENTS: [&str; 4] = ["zarr.json", ".zarray", ".zgroup", ".zattrs"];

/// Whether a node's metadata is stored at `path`.
async fn node_exists(store: &dyn ReadableStore, path: &NodePath) -> Result<bool> {
    for name in &DOCUMENTS[..3] {
        if store.get(&path.key(name)).await?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The key prefix of everything at and below `path` ("" for the root).
fn prefix_of(path: &NodePath) -> String {
    match path.as_str() {
        "" => String::new(),
        p => format!("{p}/"),
    }
}

/// Makes room for a new node at `path`: an error where a node is there (unless `overwrite`,
/// which erases it and everything below it first).
async fn make_room(
    store: &dyn ReadableStore,
    writer: &dyn WritableStore,
    path: &NodePath,
    overwrite: bool,
) -> Result<()> {
    if !node_exists(store, path).await? {
        return Ok(());
    }
    if !overwrite {
        return Err(ZarrError::argument(
            format!(
                "a node is already stored at {} (pass overwrite: true to replace it)",
                store.locate(&path.key(""))
            ),
            true,
        ));
    }
    writer.erase_prefix(&prefix_of(path)).await
}

/// Writes a group document at every ancestor of `path` that has no node, as zarr-python does, so
/// that the new node can be found from the root.
async fn make_parents(
    store: &dyn ReadableStore,
    writer: &dyn WritableStore,
    path: &NodePath,
    zarr_format: u8,
) -> Result<()> {
    let parts: Vec<&str> = path.as_str().split('/').filter(|p| !p.is_empty()).collect();
    for depth in 0..parts.len() {
        let parent = NodePath::parse(&parts[..depth].join("/"))?;
        if !node_exists(store, &parent).await? {
            for (name, doc) in group_documents(zarr_format, None) {
                writer
                    .set(&parent.key(name), doc.to_string().into_bytes())
                    .await?;
            }
        }
    }
    Ok(())
}

/// A new group's documents, by name, as JSON: the first is its metadata document.
fn group_documents(
    zarr_format: u8,
    attributes: Option<&Map<String, Value>>,
) -> Vec<(&'static str, Value)> {
    let attributes = attributes.cloned().unwrap_or_default();
    match zarr_format {
        2 => {
            let mut docs = vec![(".zgroup", json!({"zarr_format": 2}))];
            if !attributes.is_empty() {
                docs.push((".zattrs", Value::Object(attributes)));
            }
            docs
        }
        _ => vec![(
            "zarr.json",
            json!({"zarr_format": 3, "node_type": "group", "attributes": attributes}),
        )],
    }
}

/// Creates a group at `path`.
pub async fn create_group(
    store: Rc<dyn ReadableStore>,
    path: &str,
    attributes: Option<&Map<String, Value>>,
    zarr_format: Option<u8>,
    overwrite: bool,
) -> Result<Group> {
    let path = NodePath::parse(path)?;
    let format = format_of(zarr_format)?;
    let writer = writer(&*store, &path)?;
    let docs = group_documents(format, attributes);
    let location = store.locate(&path.key(docs[0].0));
    let metadata = match format {
        2 => v2::parse_group(&docs[0].1, docs.get(1).map(|d| &d.1), &location)?,
        _ => match v3::parse_document(&docs[0].1, &location)? {
            NodeMetadata::Group(g) => g,
            NodeMetadata::Array(_) => {
                return Err(ZarrError::metadata(
                    &location,
                    "a group document read back as an array",
                ))
            }
        },
    };
    make_room(&*store, writer, &path, overwrite).await?;
    make_parents(&*store, writer, &path, format).await?;
    for (name, doc) in docs {
        writer
            .set(&path.key(name), doc.to_string().into_bytes())
            .await?;
    }
    Ok(Group::new(store, path, metadata, None))
}

fn format_of(zarr_format: Option<u8>) -> Result<u8> {
    match zarr_format.unwrap_or(3) {
        f @ (2 | 3) => Ok(f),
        f => Err(ZarrError::argument(
            format!("zarrFormat is {f}; zarr-wasm writes 3 or 2"),
            true,
        )),
    }
}

/// The zero of `data_type` as a fill value in JSON.
fn zero_fill(data_type: DataType) -> Value {
    match data_type {
        DataType::Bool => json!(false),
        DataType::Complex64 | DataType::Complex128 => json!([0.0, 0.0]),
        // The empty string; for byte strings, its base64.
        DataType::String
        | DataType::Bytes
        | DataType::FixedBytes { .. }
        | DataType::FixedUnicode { .. } => json!(""),
        t if t.is_integer() => json!(0),
        _ => json!(0.0),
    }
}

/// The codecs zarr-python 3 gives an array when none are given: its elements little endian (or
/// strings and byte strings in numcodecs' vlen layout), then zstd at level 0 (libzstd's default, 3).
fn default_codecs(data_type: DataType) -> Vec<Value> {
    let serializer = match object_codec(data_type) {
        Some(name) => json!({"name": name}),
        None => json!({"name": "bytes", "configuration": {"endian": "little"}}),
    };
    vec![
        serializer,
        json!({"name": "zstd", "configuration": {"level": 0, "checksum": false}}),
    ]
}

/// The codec that turns a variable-length type's elements into bytes, as v3 names it and v2
/// lists it first among an object array's filters.
fn object_codec(data_type: DataType) -> Option<&'static str> {
    match data_type {
        DataType::String => Some("vlen-utf8"),
        DataType::Bytes => Some("vlen-bytes"),
        _ => None,
    }
}

/// A new v3 array's `zarr.json`.
fn v3_document(spec: &ArraySpec) -> Result<Value> {
    let data_type = DataType::from_v3_name(&spec.data_type).ok_or_else(|| {
        ZarrError::argument(
            format!("dtype \"{}\" is not a Zarr v3 data type", spec.data_type),
            true,
        )
    })?;
    let codecs = spec
        .codecs
        .clone()
        .unwrap_or_else(|| default_codecs(data_type));
    let (grid_shape, codecs) = match &spec.shards {
        None => (spec.chunks.clone(), codecs),
        Some(shards) => (
            shards.clone(),
            vec![json!({
                "name": "sharding_indexed",
                "configuration": {
                    "chunk_shape": spec.chunks,
                    "codecs": codecs,
                    "index_codecs": [
                        {"name": "bytes", "configuration": {"endian": "little"}},
                        {"name": "crc32c"}
                    ],
                    "index_location": spec.index_location.as_deref().unwrap_or("end")
                }
            })],
        ),
    };
    let separator = spec.chunk_key_separator.as_deref().unwrap_or("/");
    let mut doc = json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": spec.shape,
        "data_type": spec.data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": grid_shape}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": separator}},
        "fill_value": spec.fill_value.clone().unwrap_or_else(|| zero_fill(data_type)),
        "codecs": codecs,
        "attributes": Value::Object(spec.attributes.clone().unwrap_or_default()),
    });
    if let Some(names) = &spec.dimension_names {
        doc["dimension_names"] = json!(names);
    }
    Ok(doc)
}

/// The NumPy typestr of `data_type` (little endian where it has an order).
fn typestr(data_type: DataType) -> Option<String> {
    let (kind, size) = match data_type {
        DataType::Bool => ('b', 1),
        DataType::Int8 => ('i', 1),
        DataType::Int16 => ('i', 2),
        DataType::Int32 => ('i', 4),
        DataType::Int64 => ('i', 8),
        DataType::UInt8 => ('u', 1),
        DataType::UInt16 => ('u', 2),
        DataType::UInt32 => ('u', 4),
        DataType::UInt64 => ('u', 8),
        DataType::Float16 => ('f', 2),
        DataType::Float32 => ('f', 4),
        DataType::Float64 => ('f', 8),
        DataType::Complex64 => ('c', 8),
        DataType::Complex128 => ('c', 16),
        _ => return None,
    };
    let order = if size == 1 { '|' } else { '<' };
    Some(format!("{order}{kind}{size}"))
}

/// A new v2 array's `.zarray`.
fn v2_document(spec: &ArraySpec) -> Result<Value> {
    // Strings and byte strings are object arrays (`|O`) whose first filter is their codec;
    // `|O` alone is strings, as zarr-python writes them.
    let object = match spec.data_type.as_str() {
        "|O" => {
            let first = spec
                .filters
                .as_ref()
                .and_then(|f| f.get(0)?.get("id")?.as_str());
            match first {
                None | Some("vlen-utf8") => Some(DataType::String),
                Some("vlen-bytes") => Some(DataType::Bytes),
                Some(other) => {
                    return Err(ZarrError::unsupported(
                        "dtype",
                        format!("an object array whose first filter is \"{other}\" cannot be written (vlen-utf8 and vlen-bytes can)"),
                    ))
                }
            }
        }
        name => DataType::from_v3_name(name).filter(|t| object_codec(*t).is_some()),
    };
    let (dtype, data_type) = match (object, DataType::from_v3_name(&spec.data_type)) {
        (Some(t), _) => ("|O".to_string(), t),
        (None, Some(t)) => (
            typestr(t).ok_or_else(|| {
                ZarrError::argument(
                    format!("dtype \"{}\" has no Zarr v2 form here", spec.data_type),
                    true,
                )
            })?,
            t,
        ),
        (None, None) => {
            let (t, _) = v2::parse_simple(&spec.data_type)
                .map_err(|e| ZarrError::argument(format!("dtype: {e}"), true))?;
            (spec.data_type.clone(), t)
        }
    };
    if spec.shards.is_some() || spec.codecs.is_some() || spec.chunk_key_separator.is_some() {
        return Err(ZarrError::argument(
            "shards, codecs and chunkKeySeparator are Zarr v3's; a v2 array takes compressor, filters and dimensionSeparator",
            true,
        ));
    }
    let fill = spec
        .fill_value
        .clone()
        .unwrap_or_else(|| zero_fill(data_type));
    Ok(json!({
        "zarr_format": 2,
        "shape": spec.shape,
        "chunks": spec.chunks,
        "dtype": dtype,
        "compressor": spec.compressor.clone().unwrap_or_else(|| json!({"id": "zstd", "level": 0, "checksum": false})),
        "fill_value": fill,
        "order": spec.order.as_deref().unwrap_or("C"),
        "filters": spec.filters.clone().unwrap_or_else(|| match object_codec(data_type) {
            Some(id) => json!([{"id": id}]),
            None => Value::Null,
        }),
        "dimension_separator": spec.dimension_separator.as_deref().unwrap_or("."),
    }))
}

/// Creates an array at `path`: its metadata is written (after the reader has read it back), and
/// the array returned writes to `store`.
pub async fn create_array(
    store: Rc<dyn ReadableStore>,
    path: &str,
    spec: &ArraySpec,
) -> Result<Array> {
    let path = NodePath::parse(path)?;
    let format = format_of(spec.zarr_format)?;
    let writer = writer(&*store, &path)?;
    let (docs, metadata, location) = match format {
        2 => {
            let zarray = v2_document(spec)?;
            let mut attributes = spec.attributes.clone().unwrap_or_default();
            // v2 has no dimension names of its own: xarray's `_ARRAY_DIMENSIONS` attribute,
            // which the reader takes for them, holds them (a name for every dimension).
            if let Some(names) = &spec.dimension_names {
                let names: Option<Vec<&String>> = names.iter().map(Option::as_ref).collect();
                let names = names.filter(|n| n.len() == spec.shape.len()).ok_or_else(|| {
                    ZarrError::argument(format!(
                        "a Zarr v2 array's dimension names (its _ARRAY_DIMENSIONS attribute) are a name for each of its {} dimensions, not {:?}",
                        spec.shape.len(),
                        spec.dimension_names
                    ), true)
                })?;
                attributes.insert("_ARRAY_DIMENSIONS".into(), json!(names));
            }
            let zattrs = Some(attributes)
                .filter(|a| !a.is_empty())
                .map(Value::Object);
            let location = store.locate(&path.key(".zarray"));
            let metadata = v2::parse_array(&zarray, zattrs.as_ref(), &location)?;
            let mut docs = vec![(".zarray", zarray.to_string().into_bytes())];
            if let Some(a) = zattrs {
                docs.push((".zattrs", a.to_string().into_bytes()));
            }
            (docs, metadata, location)
        }
        _ => {
            let doc = v3_document(spec)?;
            let location = store.locate(&path.key("zarr.json"));
            let NodeMetadata::Array(metadata) = v3::parse_document(&doc, &location)? else {
                return Err(ZarrError::metadata(
                    &location,
                    "an array document read back as a group",
                ));
            };
            (
                vec![("zarr.json", doc.to_string().into_bytes())],
                metadata,
                location,
            )
        }
    };
    let array = Array::new(store.clone(), path.clone(), metadata, &location)?;
    // Refused before anything is stored: a codec without an encoder, a type not written yet.
    array.writer()?;
    // Its codecs of the second module (bz2, pcodec) encode there: loaded now, as an open would.
    super::node::second_module_ready(&array).await?;
    make_room(&*store, writer, &path, spec.overwrite).await?;
    make_parents(&*store, writer, &path, format).await?;
    for (name, doc) in docs {
        writer.set(&path.key(name), doc).await?;
    }
    Ok(array)
}

/// Erases the node at `path` and everything below it ("" erases the whole hierarchy).
pub async fn erase(store: &dyn ReadableStore, path: &str) -> Result<()> {
    let path = NodePath::parse(path)?;
    let writer = writer(store, &path)?;
    writer.erase_prefix(&prefix_of(&path)).await
}

/// The stored metadata document of the node at `path` (the first of zarr.json, .zarray and
/// .zgroup there), by name, parsed as JSON.
async fn stored_document(
    store: &dyn ReadableStore,
    path: &NodePath,
) -> Result<(&'static str, Value)> {
    for name in &DOCUMENTS[..3] {
        let key = path.key(name);
        if let Some(bytes) = store.get(&key).await? {
            let doc = crate::metadata::json::parse(&bytes, &store.locate(&key))?;
            return Ok((name, doc));
        }
    }
    Err(ZarrError::not_found(&store.locate(&path.key(""))))
}

/// Replaces the attributes of the node at `path`: in its `zarr.json`, or (v2) its `.zattrs`.
pub async fn set_attributes(
    store: &dyn ReadableStore,
    path: &str,
    attributes: &Map<String, Value>,
) -> Result<()> {
    let path = NodePath::parse(path)?;
    let writer = writer(store, &path)?;
    let (name, mut doc) = stored_document(store, &path).await?;
    match name {
        "zarr.json" => {
            doc["attributes"] = Value::Object(attributes.clone());
            writer
                .set(&path.key(name), doc.to_string().into_bytes())
                .await
        }
        _ => {
            writer
                .set(
                    &path.key(".zattrs"),
                    Value::Object(attributes.clone()).to_string().into_bytes(),
                )
                .await
        }
    }
}

/// The most chunks a resize enumerates to erase those wholly outside the new shape.
const MAX_RESIZE_CHUNKS: u64 = 1 << 24;

/// Resizes `array` to `shape` (the same number of dimensions): its metadata's shape is replaced,
/// and the chunks (or shards) wholly outside the new shape are erased, as zarr-python does. A
/// chunk partly outside keeps its elements there: growing the array again shows them, as it
/// does in zarr-python. Returns the array at its new shape.
pub async fn resize(array: &Array, shape: &[u64]) -> Result<Array> {
    let store = array.store().clone();
    let path = array.path().clone();
    let writer = array.writer()?;
    let old = array.shape().to_vec();
    if shape.len() != old.len() {
        return Err(ZarrError::argument(
            format!(
                "the new shape {shape:?} has {} dimensions, the array {}",
                shape.len(),
                old.len()
            ),
            true,
        ));
    }
    let (name, mut doc) = stored_document(&*store, &path).await?;
    doc["shape"] = json!(shape);
    let location = store.locate(&path.key(name));
    let metadata = match name {
        "zarr.json" => match v3::parse_document(&doc, &location)? {
            NodeMetadata::Array(m) => m,
            NodeMetadata::Group(_) => {
                return Err(ZarrError::metadata(
                    &location,
                    "the array's document is a group's",
                ))
            }
        },
        _ => {
            let zattrs = match store.get(&path.key(".zattrs")).await? {
                Some(bytes) => Some(crate::metadata::json::parse(&bytes, &location)?),
                None => None,
            };
            v2::parse_array(&doc, zattrs.as_ref(), &location)?
        }
    };
    // The chunks of the old grid wholly outside the new shape: those whose origin lies at or
    // past the new extent along some dimension.
    let grid = &array.metadata().chunk_grid;
    let old_grid = grid.grid_shape();
    let keep: Vec<u64> = (0..shape.len())
        .map(|d| {
            let mut n = 0;
            while n < old_grid[d] && grid.chunk_origin(&unit(shape.len(), d, n))[d] < shape[d] {
                n += 1;
            }
            n
        })
        .collect();
    let total = old_grid
        .iter()
        .try_fold(1u64, |acc, &n| acc.checked_mul(n))
        .unwrap_or(u64::MAX);
    let kept = keep.iter().product::<u64>();
    if total - kept > MAX_RESIZE_CHUNKS {
        return Err(ZarrError::argument(
            format!(
                "the resize would erase {} chunks, more than the {MAX_RESIZE_CHUNKS} one resize may",
                total - kept
            ),
            true,
        ));
    }
    writer
        .set(&path.key(name), doc.to_string().into_bytes())
        .await?;
    if total > kept {
        let mut coords = vec![0u64; old_grid.len()];
        let mut erased = 0u64;
        'chunks: loop {
            if coords.iter().zip(&keep).any(|(c, k)| c >= k) {
                writer.erase(&array.chunk_key(&coords)).await?;
                erased += 1;
                if erased.is_multiple_of(256) {
                    crate::host::yield_if_busy().await;
                }
            }
            // The next chunk, the last dimension fastest; past the last one, done.
            for d in (0..coords.len()).rev() {
                coords[d] += 1;
                if coords[d] < old_grid[d] {
                    continue 'chunks;
                }
                coords[d] = 0;
            }
            break;
        }
    }
    Array::new(store, path, metadata, &location)
}

/// Chunk coordinates with `n` along dimension `d` and 0 elsewhere.
fn unit(ndim: usize, d: usize, n: u64) -> Vec<u64> {
    let mut coords = vec![0; ndim];
    coords[d] = n;
    coords
}

/// The most nodes `nodes_below` gathers (and `consolidate` writes).
const MAX_CONSOLIDATED_NODES: usize = 100_000;

/// The nodes below the group at `path`, found by listing the store (which must be able to
/// list), sorted by path: each one's path relative to `path`, the name of its metadata document
/// (`zarr.json`, `.zarray` or `.zgroup`) and the document, without `consolidated_metadata`.
/// Directories without a document (chunks, anything else) are passed over.
pub async fn nodes_below(
    store: &dyn ReadableStore,
    path: &NodePath,
) -> Result<Vec<(String, &'static str, Value)>> {
    let mut found: Vec<(String, &'static str, Value)> = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(relative) = pending.pop() {
        let dir = match relative.as_str() {
            "" => path.clone(),
            r => path.join(r)?,
        };
        let Some(children) = store.list_dir(dir.as_str()).await? else {
            return Err(ZarrError::unsupported(
                &store.locate(&path.key("")),
                "this store cannot list, so the nodes below the group cannot be found",
            ));
        };
        for child in children {
            if DOCUMENTS.contains(&child.as_str()) || child == ".zmetadata" {
                continue;
            }
            let child_rel = match relative.as_str() {
                "" => child.clone(),
                r => format!("{r}/{child}"),
            };
            let child_path = path.join(&child_rel)?;
            let Ok((doc_name, mut doc)) = stored_document(store, &child_path).await else {
                continue; // a directory of chunks, or of anything else
            };
            if found.len() >= MAX_CONSOLIDATED_NODES {
                return Err(ZarrError::argument(
                    format!("more than {MAX_CONSOLIDATED_NODES} nodes below the group"),
                    true,
                ));
            }
            if let Some(d) = doc.as_object_mut() {
                d.remove("consolidated_metadata");
            }
            let is_group = doc_name == ".zgroup" || doc["node_type"] == "group";
            found.push((child_rel.clone(), doc_name, doc));
            if is_group {
                pending.push(child_rel);
            }
        }
    }
    crate::collections::sort::sort_by(&mut found, |a, b| a.0 < b.0);
    Ok(found)
}

/// Writes consolidated metadata for the hierarchy at `path` as zarr-python does, so that
/// `zarr.open_consolidated` reads it: for v3, the metadata of every node below inlined in the
/// group's `zarr.json` (`consolidated_metadata`); for v2, `.zmetadata` beside its `.zgroup`.
/// The nodes below are found by listing the store, which must be able to list.
pub async fn consolidate(store: &dyn ReadableStore, path: &str) -> Result<()> {
    let path = NodePath::parse(path)?;
    let writer = writer(store, &path)?;
    let (name, mut root) = stored_document(store, &path).await?;
    let found = nodes_below(store, &path).await?;
    match name {
        "zarr.json" => {
            let metadata: Map<String, Value> =
                found.into_iter().map(|(p, _, doc)| (p, doc)).collect();
            root["consolidated_metadata"] = json!({
                "kind": "inline",
                "must_understand": false,
                "metadata": metadata,
            });
            writer
                .set(&path.key("zarr.json"), root.to_string().into_bytes())
                .await
        }
        _ => {
            let mut metadata = Map::new();
            metadata.insert(name.to_string(), root);
            if let Some(bytes) = store.get(&path.key(".zattrs")).await? {
                let key = path.key(".zattrs");
                metadata.insert(
                    ".zattrs".into(),
                    crate::metadata::json::parse(&bytes, &store.locate(&key))?,
                );
            }
            for (relative, doc_name, doc) in found {
                let node = path.join(&relative)?;
                let attrs_key = node.key(".zattrs");
                if let Some(bytes) = store.get(&attrs_key).await? {
                    let attrs = crate::metadata::json::parse(&bytes, &store.locate(&attrs_key))?;
                    metadata.insert(format!("{relative}/.zattrs"), attrs);
                }
                metadata.insert(format!("{relative}/{doc_name}"), doc);
            }
            let doc = json!({"metadata": metadata, "zarr_consolidated_format": 1});
            writer
                .set(&path.key(".zmetadata"), doc.to_string().into_bytes())
                .await
        }
    }
}
