//! Zarr v3 `zarr.json` documents (core spec 3.1).

use super::document::{
    attributes, check_shape, required, u64_list, CodecList, ListedNode, Listing,
};
use super::extension::Extension;
use crate::data_type::fill_value::FillValue;
use crate::data_type::structured;
use crate::data_type::v3_names::{self, V3DataType};
use crate::data_type::Endian;
use crate::error::{Result, ZarrError};
use crate::metadata::chunk_grid::ChunkGrid;
use crate::metadata::chunk_key_encoding::{ChunkKeyEncoding, Separator};
use serde_json::{Map, Value};

pub use super::document::{ArrayMetadata, GroupMetadata, NodeMetadata};

const ARRAY_KEYS: &[&str] = &[
    "zarr_format",
    "node_type",
    "shape",
    "data_type",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "codecs",
    "attributes",
    "storage_transformers",
    "dimension_names",
];
// zarr-python writes `consolidated_metadata` into group documents (null when absent).
const GROUP_KEYS: &[&str] = &[
    "zarr_format",
    "node_type",
    "attributes",
    "consolidated_metadata",
];

/// Parses the bytes of a `zarr.json`; `location` names it in errors.
pub fn parse(bytes: &[u8], location: &str) -> Result<NodeMetadata> {
    let doc = super::json::parse(bytes, location)?;
    parse_owned(doc, location)
}

/// Parses a `zarr.json` document already read as JSON (e.g. one held in consolidated metadata).
pub fn parse_document(doc: &Value, location: &str) -> Result<NodeMetadata> {
    parse_owned(doc.clone(), location)
}

/// Parses a `zarr.json` document read as JSON, keeping its attributes and consolidated metadata
/// as they are rather than copying them: they may hold a million values.
pub fn parse_owned(mut doc: Value, location: &str) -> Result<NodeMetadata> {
    let (attrs, listed) = match doc.as_object_mut() {
        Some(obj) => (
            obj.remove("attributes"),
            obj.remove("consolidated_metadata"),
        ),
        None => (None, None),
    };
    let mut metadata = parse_rest(&doc, location)?;
    match &mut metadata {
        NodeMetadata::Array(a) => a.attributes = attributes(attrs, location)?,
        NodeMetadata::Group(g) => {
            g.attributes = attributes(attrs, location)?;
            g.consolidated = consolidated(listed, location)?;
        }
    }
    Ok(metadata)
}

/// A document without its attributes and consolidated metadata (`parse_owned` takes them).
fn parse_rest(doc: &Value, location: &str) -> Result<NodeMetadata> {
    let obj = doc
        .as_object()
        .ok_or_else(|| ZarrError::metadata(location, "the document is not a JSON object"))?;
    match obj.get("zarr_format") {
        Some(Value::Number(n)) if n.as_u64() == Some(3) => {}
        Some(format) if is_draft_protocol(format) => {
            return Err(draft_error(location, format, None));
        }
        Some(other) => {
            return Err(ZarrError::unsupported(
                location,
                format!("zarr_format {} (expected 3)", crate::error::quote(other)),
            ))
        }
        None => {
            return Err(ZarrError::metadata(
                location,
                "\"zarr_format\" is missing: this is not Zarr metadata",
            ))
        }
    }
    match obj.get("node_type").and_then(Value::as_str) {
        Some("array") => {
            check_unknown_keys(obj, ARRAY_KEYS, location)?;
            parse_array(obj, location).map(NodeMetadata::Array)
        }
        Some("group") => {
            check_unknown_keys(obj, GROUP_KEYS, location)?;
            Ok(NodeMetadata::Group(GroupMetadata {
                zarr_format: 3,
                attributes: Map::new(),
                consolidated: None,
            }))
        }
        Some(other) => Err(ZarrError::metadata(
            location,
            format!(
                "node_type \"{}\" is neither \"array\" nor \"group\"",
                crate::error::quote_text(other)
            ),
        )),
        None => Err(ZarrError::metadata(
            location,
            "\"node_type\" is missing or not a string",
        )),
    }
}

/// What the pre-2023 v3 draft's root `zarr.json` holds as its `zarr_format`: the protocol's URI
/// (`https://purl.org/zarr/spec/protocol/core/3.0`), not the number 3. GDAL 3.6 and 3.7 write
/// that draft with `FORMAT=ZARR_V3` (a root `zarr.json` with the URI and the metadata encoding,
/// `meta/root/<name>.array.json` and `.group.json` documents, chunks under `data/root/<name>/`).
const DRAFT_PROTOCOL: &str = "https://purl.org/zarr/spec/protocol/core/3";

fn is_draft_protocol(format: &Value) -> bool {
    format
        .as_str()
        .is_some_and(|f| f.starts_with(DRAFT_PROTOCOL))
}

/// The error for a hierarchy in the pre-2023 v3 draft: `location` names its root `zarr.json`,
/// `format` is what that says, `asked` the node that was opened below the root (if one was).
fn draft_error(location: &str, format: &Value, asked: Option<&str>) -> ZarrError {
    let below = match asked {
        Some(asked) => format!("no Zarr node at {asked}: the hierarchy's root ({location}) is "),
        None => String::new(),
    };
    ZarrError::unsupported(
        location,
        format!(
            "{below}the pre-2023 Zarr v3 draft (zarr_format {format}), as GDAL 3.6 and 3.7 write \
             with FORMAT=ZARR_V3: not read (nor by zarr-python or zarrita.js; its arrays are \
             meta/root/<name>.array.json, their chunks under data/root/<name>/). Convert it with \
             GDAL: gdal_translate -of ZARR -co FORMAT=ZARR_V2, or GDAL 3.8 or later, whose \
             FORMAT=ZARR_V3 writes Zarr v3 as released",
            format = crate::error::quote(format)
        ),
    )
}

/// For the open sequence, when nothing was found at `asked` below the root of a hierarchy: the
/// error to give instead where the root's `zarr.json` (`bytes`, at `location`) is the pre-2023
/// v3 draft's, whose nodes are not where Zarr v3 (or v2) puts them.
pub fn draft_below(bytes: &[u8], location: &str, asked: &str) -> Option<ZarrError> {
    if !is_draft_root(bytes) {
        return None;
    }
    let doc = super::json::parse(bytes, location).ok()?;
    let format = doc.get("zarr_format").filter(|f| is_draft_protocol(f))?;
    Some(draft_error(location, format, Some(asked)))
}

/// The most bytes a draft's root `zarr.json` is taken to have: it holds four short fields
/// (`zarr_format`, `metadata_encoding`, `metadata_key_suffix`, `extensions`).
const DRAFT_ROOT_BYTES: usize = 64 << 10;

/// Whether `bytes` may be the pre-2023 draft's root `zarr.json`: small, and naming the draft's
/// protocol. Looked at without parsing, so that the root of any other hierarchy, however large
/// its consolidated metadata, costs a scan of its bytes and nothing more.
pub fn is_draft_root(bytes: &[u8]) -> bool {
    bytes.len() <= DRAFT_ROOT_BYTES
        && bytes
            .windows(DRAFT_PROTOCOL.len())
            .any(|w| w == DRAFT_PROTOCOL.as_bytes())
}

/// The spec: unknown keys fail the open unless they are objects that say `must_understand: false`.
fn check_unknown_keys(obj: &Map<String, Value>, known: &[&str], location: &str) -> Result<()> {
    for (key, value) in obj {
        if known.contains(&key.as_str()) {
            continue;
        }
        let ignorable = value.get("must_understand").and_then(Value::as_bool) == Some(false);
        if !ignorable {
            return Err(ZarrError::unsupported(
                location,
                format!("unknown metadata field \"{key}\" that must be understood"),
            ));
        }
    }
    Ok(())
}

/// The inline consolidated metadata of a group document (its `consolidated_metadata`). Other
/// kinds are marked `must_understand: false` by their writer, so a reader that does not know
/// them goes without.
fn consolidated(value: Option<Value>, location: &str) -> Result<Option<Listing>> {
    let Some(Value::Object(mut c)) = value else {
        return Ok(None);
    };
    if c.get("kind").and_then(Value::as_str) != Some("inline") {
        return Ok(None);
    }
    match c.remove("metadata") {
        Some(Value::Object(nodes)) => Listing::new(
            nodes
                .into_iter()
                .map(|(path, doc)| (path, ListedNode::V3(doc)))
                .collect(),
        )
        .map(Some)
        .map_err(|path| {
            ZarrError::metadata(
                location,
                format!("consolidated_metadata lists two nodes at \"{path}\""),
            )
        }),
        _ => Err(ZarrError::metadata(
            location,
            "consolidated_metadata has no \"metadata\" object",
        )),
    }
}

fn parse_array(obj: &Map<String, Value>, location: &str) -> Result<ArrayMetadata> {
    let shape = u64_list(required(obj, "shape", location)?, "shape", location)?;
    check_shape(&shape, location)?;
    let V3DataType {
        data_type,
        mut fields,
    } = parse_data_type(required(obj, "data_type", location)?, location)?;
    let chunk_grid = parse_chunk_grid(required(obj, "chunk_grid", location)?, &shape, location)?;
    let chunk_key_encoding =
        parse_chunk_key_encoding(required(obj, "chunk_key_encoding", location)?, location)?;
    let codecs = match required(obj, "codecs", location)? {
        // zarrita writes an empty list when given no codecs, and reads it as `bytes`.
        Value::Array(list) if list.is_empty() => vec![Extension::parse(
            &serde_json::json!({"name": "bytes", "configuration": {"endian": "little"}}),
        )
        .map_err(|e| ZarrError::metadata(location, e))?],
        Value::Array(list) => list
            .iter()
            .map(|c| {
                Extension::parse(c)
                    .map_err(|e| ZarrError::metadata(location, format!("codecs: {e}")))
            })
            .collect::<Result<Vec<_>>>()?,
        other => {
            return Err(ZarrError::metadata(
                location,
                format!(
                    "\"codecs\" must be a list, not {}",
                    crate::error::quote(other)
                ),
            ))
        }
    };
    // A record's multi-byte fields are in the byte order its `bytes` codec names (the `struct`
    // type's rule); zarr-python 3.1 names none for `structured`, and reads little endian.
    if let (Some(fields), Some(Endian::Big)) = (fields.as_mut(), bytes_endian(&codecs)) {
        structured::set_endian(fields, Endian::Big);
    }
    let fill = required(obj, "fill_value", location)?;
    let fill_value = match &fields {
        Some(fields) if fill.is_object() => {
            FillValue::from_v3_record_json(fill, fields, data_type.size())
        }
        _ => FillValue::from_v3_json(fill, data_type),
    }
    .map_err(|e| ZarrError::metadata(location, e))?;
    match obj.get("storage_transformers") {
        // zarr-python reads `null` as none.
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            // A transformer changes keys and bytes, so only those marked ignorable may be skipped.
            let mut required = Vec::new();
            for t in list {
                let ext = Extension::parse(t).map_err(|e| {
                    ZarrError::metadata(location, format!("storage_transformers: {e}"))
                })?;
                if ext.must_understand {
                    required.push(ext.name);
                }
            }
            if !required.is_empty() {
                return Err(ZarrError::unsupported(
                    location,
                    format!("storage transformers {required:?}"),
                ));
            }
        }
        Some(other) => {
            return Err(ZarrError::metadata(
                location,
                format!(
                    "\"storage_transformers\" is not a list: {}",
                    crate::error::quote(other)
                ),
            ))
        }
    }
    let dimension_names = match obj.get("dimension_names") {
        // zarr-python and zarrita write and accept `null` for no names.
        None | Some(Value::Null) => None,
        Some(Value::Array(names)) if names.len() == shape.len() => Some(
            names
                .iter()
                .map(|n| match n {
                    Value::Null => Ok(None),
                    Value::String(s) => Ok(Some(s.clone())),
                    other => Err(ZarrError::metadata(
                        location,
                        format!(
                            "dimension name {} is not a string or null",
                            crate::error::quote(other)
                        ),
                    )),
                })
                .collect::<Result<Vec<_>>>()?,
        ),
        Some(other) => {
            return Err(ZarrError::metadata(
                location,
                format!(
                    "\"dimension_names\" must list {} strings or nulls, not {other}",
                    shape.len(),
                    other = crate::error::quote(other)
                ),
            ))
        }
    };
    Ok(ArrayMetadata {
        zarr_format: 3,
        shape,
        data_type,
        fields,
        chunk_grid,
        chunk_key_encoding,
        fill_value,
        codecs: CodecList::V3(codecs),
        attributes: Map::new(),
        dimension_names,
    })
}

/// The byte order the array's `bytes` codec names, also as a shard's inner codec; `None` where
/// it names none.
fn bytes_endian(codecs: &[Extension]) -> Option<Endian> {
    codecs
        .iter()
        .find_map(|codec| match codec.registered_name() {
            "bytes" => match codec.configuration.get("endian")?.as_str()? {
                "big" => Some(Endian::Big),
                "little" => Some(Endian::Little),
                _ => None,
            },
            "sharding_indexed" => {
                let inner = codec.configuration.get("codecs")?.as_array()?;
                let inner: Vec<Extension> = inner
                    .iter()
                    .filter_map(|c| Extension::parse(c).ok())
                    .collect();
                bytes_endian(&inner)
            }
            _ => None,
        })
}

fn parse_data_type(value: &Value, location: &str) -> Result<V3DataType> {
    let ext = Extension::parse(value)
        .map_err(|e| ZarrError::metadata(location, format!("data_type: {e}")))?;
    v3_names::parse(ext.registered_name(), &ext.configuration)
        .map_err(|e| ZarrError::metadata(location, format!("data_type: {e}")))?
        .ok_or_else(|| {
            ZarrError::unsupported(
                location,
                format!("data type {}", crate::error::quote(value)),
            )
        })
}

fn parse_chunk_grid(value: &Value, shape: &[u64], location: &str) -> Result<ChunkGrid> {
    let ext = Extension::parse(value)
        .map_err(|e| ZarrError::metadata(location, format!("chunk_grid: {e}")))?;
    let config = &ext.configuration;
    let grid = match ext.registered_name() {
        "regular" => {
            let chunk_shape = config.get("chunk_shape").ok_or_else(|| {
                ZarrError::metadata(location, "regular chunk_grid has no \"chunk_shape\"")
            })?;
            ChunkGrid::regular(u64_list(chunk_shape, "chunk_shape", location)?, shape)
        }
        "rectilinear" => {
            match config.get("kind").and_then(Value::as_str) {
                Some("inline") => {}
                Some(other) => {
                    return Err(ZarrError::unsupported(
                        location,
                        format!(
                            "rectilinear chunk grid kind \"{}\"",
                            crate::error::quote_text(other)
                        ),
                    ))
                }
                None => {
                    return Err(ZarrError::metadata(
                        location,
                        "rectilinear chunk_grid has no \"kind\"",
                    ))
                }
            }
            let chunk_shapes = config.get("chunk_shapes").ok_or_else(|| {
                ZarrError::metadata(location, "rectilinear chunk_grid has no \"chunk_shapes\"")
            })?;
            ChunkGrid::rectilinear(chunk_shapes, shape)
        }
        _ => {
            return Err(ZarrError::unsupported(
                location,
                format!("chunk grid \"{}\"", ext.name),
            ))
        }
    };
    grid.map_err(|e| ZarrError::metadata(location, format!("chunk_grid: {e}")))
}

fn parse_chunk_key_encoding(value: &Value, location: &str) -> Result<ChunkKeyEncoding> {
    let ext = Extension::parse(value)
        .map_err(|e| ZarrError::metadata(location, format!("chunk_key_encoding: {e}")))?;
    let separator = |default: Separator| -> Result<Separator> {
        match ext.configuration.get("separator") {
            None => Ok(default),
            Some(Value::String(s)) => Separator::parse(s).ok_or_else(|| {
                ZarrError::metadata(
                    location,
                    format!("chunk key separator \"{s}\" is neither \"/\" nor \".\""),
                )
            }),
            Some(other) => Err(ZarrError::metadata(
                location,
                format!(
                    "chunk key separator {} is not a string",
                    crate::error::quote(other)
                ),
            )),
        }
    };
    match ext.registered_name() {
        "default" => Ok(ChunkKeyEncoding::Default(separator(Separator::Slash)?)),
        "v2" => Ok(ChunkKeyEncoding::V2(separator(Separator::Dot)?)),
        _ => Err(ZarrError::unsupported(
            location,
            format!("chunk key encoding \"{}\"", ext.name),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_type::structured::FieldKind;
    use crate::data_type::DataType;
    use crate::error::ErrorKind;
    use serde_json::json;

    fn array_doc() -> Value {
        json!({
            "zarr_format": 3, "node_type": "array", "shape": [10, 20], "data_type": "uint16",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [5, 5]}},
            "chunk_key_encoding": {"name": "default"},
            "fill_value": 7, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
            "attributes": {"a": 1}, "dimension_names": ["y", null]
        })
    }

    fn parse_value(v: &Value) -> Result<NodeMetadata> {
        parse(v.to_string().as_bytes(), "mem://zarr.json")
    }

    /// A `struct` array of `{"id": int16, "p": {"w": float32, "c": uint8}}` records with
    /// `codecs` and `fill_value`.
    fn struct_doc(codecs: Value, fill: Value) -> Value {
        let mut doc = array_doc();
        doc["data_type"] = json!({"name": "struct", "configuration": {"fields": [
            {"name": "id", "data_type": "int16"},
            {"name": "p", "data_type": {"name": "struct", "configuration": {"fields": [
                {"name": "w", "data_type": "float32"}, {"name": "c", "data_type": "uint8"}]}}}
        ]}});
        doc["codecs"] = codecs;
        doc["fill_value"] = fill;
        doc
    }

    #[test]
    fn struct_records_take_their_bytes_codecs_byte_order_and_an_object_fill_value() {
        let fill = json!({"id": -2, "p": {"w": 1.5, "c": 7}});
        let little = json!([{"name": "bytes", "configuration": {"endian": "little"}}]);
        let big = json!([{"name": "sharding_indexed", "configuration": {
            "chunk_shape": [5, 5], "index_codecs": [{"name": "bytes"}],
            "codecs": [{"name": "bytes", "configuration": {"endian": "big"}}]}}]);
        for (codecs, swap) in [(little, false), (big, true)] {
            let NodeMetadata::Array(a) = parse_value(&struct_doc(codecs, fill.clone())).unwrap()
            else {
                panic!("not an array")
            };
            assert_eq!(a.data_type, DataType::Structured { size: 7 });
            let (id, w) = match swap {
                false => ((-2i16).to_le_bytes(), 1.5f32.to_le_bytes()),
                true => ((-2i16).to_be_bytes(), 1.5f32.to_be_bytes()),
            };
            let want: Vec<u8> = [&id[..], &w[..], &[7]].concat();
            assert_eq!(a.fill_value.as_bytes(), &want[..]);
            let fields = a.fields.unwrap();
            let FieldKind::Record { fields: inner, .. } = &fields[1].kind else {
                panic!("p is not a record")
            };
            let order = if swap { Endian::Big } else { Endian::Little };
            assert_eq!(
                inner[0].kind,
                FieldKind::Value {
                    data_type: DataType::Float32,
                    endian: Some(order)
                }
            );
            assert_eq!(
                inner[1].kind,
                FieldKind::Value {
                    data_type: DataType::UInt8,
                    endian: None
                }
            );
        }
        let little = json!([{"name": "bytes", "configuration": {"endian": "little"}}]);
        for (fill, says) in [
            (json!({"id": 1}), "no value for the field \"p\""),
            (
                json!({"id": 1, "p": {"w": "x", "c": 0}}),
                "field \"p\": field \"w\"",
            ),
            (json!({"id": 70000, "p": {"w": 0, "c": 0}}), "field \"id\""),
            (json!([1, 2]), "is not base64 bytes"),
        ] {
            let err = parse_value(&struct_doc(little.clone(), fill))
                .unwrap_err()
                .to_string();
            assert!(err.contains(says), "{err}");
        }
        for fields in [
            json!([["id", "int16"]]),
            json!([{"name": "", "data_type": "int16"}]),
            json!([{"name": "a"}]),
            json!([{"name": "a", "data_type": "int8"}, {"name": "a", "data_type": "int8"}]),
            json!([{"name": "s", "data_type": "string"}]),
        ] {
            let mut doc = struct_doc(little.clone(), json!({}));
            doc["data_type"]["configuration"]["fields"] = fields.clone();
            let err = parse_value(&doc).unwrap_err();
            assert_eq!(err.kind, ErrorKind::Metadata, "{fields}: {err}");
        }
    }

    #[test]
    fn a_complete_array_document() {
        let NodeMetadata::Array(a) = parse_value(&array_doc()).unwrap() else {
            panic!("not an array")
        };
        assert_eq!(a.shape, vec![10, 20]);
        assert_eq!(a.data_type, DataType::UInt16);
        assert_eq!(
            a.chunk_key_encoding,
            ChunkKeyEncoding::Default(Separator::Slash)
        );
        assert_eq!(a.dimension_names, Some(vec![Some("y".into()), None]));
        assert_eq!(a.attributes["a"], json!(1));
        // zarr-python and zarrita write `null` for no names; zarrita writes `codecs: []` and
        // `fill_value: null` when given none; zarr-python reads null attributes and storage
        // transformers as none.
        let mut doc = array_doc();
        doc["dimension_names"] = Value::Null;
        doc["codecs"] = json!([]);
        doc["fill_value"] = Value::Null;
        doc["attributes"] = Value::Null;
        doc["storage_transformers"] = Value::Null;
        let NodeMetadata::Array(a) = parse_value(&doc).unwrap() else {
            panic!("not an array")
        };
        assert_eq!(a.dimension_names, None);
        assert!(a.attributes.is_empty() && a.fill_value.is_undefined());
        let CodecList::V3(codecs) = &a.codecs else {
            panic!("v3 codecs")
        };
        assert_eq!(codecs.len(), 1);
        assert_eq!(codecs[0].name, "bytes");
    }

    #[test]
    fn errors_name_the_document_and_the_problem() {
        let err = parse(b"{not json", "http://h/x/zarr.json").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Metadata);
        assert!(
            err.message.contains("http://h/x/zarr.json") && err.message.contains("not valid JSON"),
            "{err}"
        );

        let mut doc = array_doc();
        doc["data_type"] = json!("uint7");
        let err = parse_value(&doc).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unsupported);
        assert!(err.message.contains("uint7"), "{err}");

        let mut doc = array_doc();
        doc["fill_value"] = json!(70000);
        assert!(parse_value(&doc)
            .unwrap_err()
            .message
            .contains("out of range"));

        let mut doc = array_doc();
        doc["chunk_grid"]["configuration"]["chunk_shape"] = json!([5]);
        assert!(
            parse_value(&doc)
                .unwrap_err()
                .message
                .contains("dimensions"),
            "{:?}",
            parse_value(&doc)
        );

        assert!(parse_value(&json!({"node_type": "array"}))
            .unwrap_err()
            .message
            .contains("zarr_format"));
        assert!(parse_value(&json!([1, 2])).is_err());
    }

    #[test]
    fn python_nan_tokens_are_read() {
        // What zarr-python writes for a NaN attribute and (older versions) a NaN fill value.
        let mut doc = array_doc().to_string();
        doc = doc.replace("\"data_type\":\"uint16\"", "\"data_type\":\"float32\"");
        doc = doc.replace("\"fill_value\":7", "\"fill_value\":NaN");
        doc = doc.replace(
            "\"attributes\":{\"a\":1}",
            "\"attributes\":{\"a\":-Infinity}",
        );
        let NodeMetadata::Array(a) = parse(doc.as_bytes(), "m").unwrap() else {
            panic!("not an array")
        };
        assert!(f32::from_ne_bytes(a.fill_value.as_bytes().try_into().unwrap()).is_nan());
        assert_eq!(a.attributes["a"], json!("-Infinity"));
    }

    #[test]
    fn storage_transformers_fail_unless_they_may_be_ignored() {
        let mut doc = array_doc();
        doc["storage_transformers"] = json!([{"name": "sidecar", "must_understand": false}]);
        assert!(parse_value(&doc).is_ok());
        doc["storage_transformers"] =
            json!([{"name": "sidecar", "must_understand": false}, "chunk-manifest"]);
        let err = parse_value(&doc).unwrap_err();
        assert!(
            err.message.contains("chunk-manifest") && !err.message.contains("sidecar"),
            "{err}"
        );
    }

    #[test]
    fn the_pre_2023_draft_is_refused_by_name() {
        // GDAL 3.6.2's root zarr.json with FORMAT=ZARR_V3, as it writes it.
        let root = br#"{
    "zarr_format": "https://purl.org/zarr/spec/protocol/core/3.0",
    "metadata_encoding": "https://purl.org/zarr/spec/protocol/core/3.0",
    "metadata_key_suffix": ".json",
    "extensions": []
}"#;
        let err = parse(root, "http://h/g.zarr/zarr.json").unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unsupported);
        for part in [
            "http://h/g.zarr/zarr.json",
            "the pre-2023 Zarr v3 draft",
            "\"https://purl.org/zarr/spec/protocol/core/3.0\"",
            "GDAL 3.6",
            "FORMAT=ZARR_V3",
            "gdal_translate -of ZARR -co FORMAT=ZARR_V2",
        ] {
            assert!(err.message.contains(part), "{part}: {err}");
        }
        // Opened below the root: the same, naming what was asked for.
        let err = draft_below(root, "http://h/g.zarr/zarr.json", "http://h/g.zarr/Band1/").unwrap();
        assert_eq!(err.kind, ErrorKind::Unsupported);
        assert!(err.message.contains("no Zarr node at http://h/g.zarr/Band1/: the hierarchy's root (http://h/g.zarr/zarr.json) is the pre-2023 Zarr v3 draft"), "{err}");
        // Anything else at the root is no reason: the open's own error stands.
        for other in [
            &br#"{"zarr_format": 3, "node_type": "group"}"#[..],
            br#"{"zarr_format": "https://example.org/3.0"}"#,
            b"not json",
            b"",
        ] {
            assert!(draft_below(other, "r", "a").is_none());
        }
        assert!(parse(br#"{"zarr_format": "3"}"#, "r")
            .unwrap_err()
            .message
            .contains("(expected 3)"));
    }

    #[test]
    fn unknown_fields_fail_unless_they_may_be_ignored() {
        let mut doc = array_doc();
        doc["future_thing"] = json!({"must_understand": false, "x": 1});
        assert!(parse_value(&doc).is_ok());
        doc["other_thing"] = json!({"x": 1});
        let err = parse_value(&doc).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Unsupported);
        assert!(err.message.contains("other_thing"));
    }
}
