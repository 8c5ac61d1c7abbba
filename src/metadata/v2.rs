//! Zarr v2 documents: `.zarray`, `.zgroup`, `.zattrs` and zarr-python's consolidated `.zmetadata`.
//! A v2 array is read into the v3 array it is equivalent to: order "F" is a transpose codec, the
//! dtype's byte order is the `bytes` codec's, an object array's codec is `vlen-utf8`/`vlen-bytes`,
//! and filters and compressor are numcodecs codecs under their v3 names (`numcodecs.<id>`).

use super::document::{
    attributes, check_shape, regular_grid, required, u64_list, ArrayMetadata, CodecList,
    GroupMetadata, ListedNode, Listing, V2Codecs,
};
use super::extension::Extension;
use crate::data_type::fill_value::FillValue;
use crate::data_type::structured::{self, Field, FieldKind};
use crate::data_type::{DataType, Endian, TimeUnit, MAX_ELEMENT_SIZE};
use crate::error::{Result, ZarrError};
use crate::metadata::chunk_key_encoding::{ChunkKeyEncoding, Separator};
use crate::metadata::node_path::NodePath;
use serde_json::{Map, Value};

/// The codecs that turn the elements of an object (`|O`) array into bytes; zarr-python puts the
/// array's one as its first filter.
const OBJECT_CODECS: &[&str] = &[
    "vlen-utf8",
    "vlen-bytes",
    "categorize",
    "vlen-array",
    "json2",
    "msgpack2",
    "pickle",
];

pub use super::json::parse as parse_json;

/// Checks that a document says `"zarr_format": 2`.
fn check_format(obj: &Map<String, Value>, location: &str) -> Result<()> {
    match obj.get("zarr_format") {
        Some(Value::Number(n)) if n.as_u64() == Some(2) => Ok(()),
        Some(other) => Err(ZarrError::unsupported(
            location,
            format!("zarr_format {} (expected 2)", crate::error::quote(other)),
        )),
        None => Err(ZarrError::metadata(
            location,
            "\"zarr_format\" is missing: this is not Zarr metadata",
        )),
    }
}

fn object<'a>(doc: &'a Value, location: &str) -> Result<&'a Map<String, Value>> {
    doc.as_object()
        .ok_or_else(|| ZarrError::metadata(location, "the document is not a JSON object"))
}

/// A group from its `.zgroup` and `.zattrs` documents.
pub fn parse_group(
    zgroup: &Value,
    zattrs: Option<&Value>,
    location: &str,
) -> Result<GroupMetadata> {
    check_format(object(zgroup, location)?, location)?;
    Ok(GroupMetadata {
        zarr_format: 2,
        attributes: attributes(zattrs.cloned(), location)?,
        consolidated: None,
    })
}

/// The nodes listed by a `.zmetadata` document (`{"metadata": {".zgroup": ..., "a/.zarray": ...,
/// "a/.zattrs": ...}, "zarr_consolidated_format": 1}`), by path relative to where it lies.
pub fn parse_consolidated(doc: &Value, location: &str) -> Result<Listing> {
    let obj = object(doc, location)?;
    match obj.get("zarr_consolidated_format") {
        Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
        other => {
            return Err(ZarrError::unsupported(
                location,
                format!(
                    "zarr_consolidated_format {} (expected 1)",
                    other.map_or("missing".to_string(), crate::error::quote)
                ),
            ))
        }
    }
    let Some(Value::Object(documents)) = obj.get("metadata") else {
        return Err(ZarrError::metadata(
            location,
            "\"metadata\" is not an object",
        ));
    };
    // Keys are "<path>/<name>" (or "<name>" for the node where the document lies).
    let split = |key: &str| match key.rsplit_once('/') {
        Some((path, name)) => (path.to_string(), name.to_string()),
        None => (String::new(), key.to_string()),
    };
    let mut nodes = Vec::new();
    for key in documents.keys() {
        let (path, name) = split(key);
        let zattrs_key = match key.strip_suffix(name.as_str()) {
            Some(dir) => format!("{dir}.zattrs"),
            None => continue,
        };
        let zattrs = documents.get(&zattrs_key).cloned();
        let node = match name.as_str() {
            ".zarray" => ListedNode::V2Array {
                zarray: documents[key].clone(),
                zattrs,
            },
            ".zgroup" => ListedNode::V2Group {
                zgroup: documents[key].clone(),
                zattrs,
            },
            // Attributes belong to the array or group beside them; other keys are not nodes.
            _ => continue,
        };
        // Listed under the paths `open` takes; a path that could never be opened is no node.
        let Ok(path) = NodePath::parse(&path) else {
            continue;
        };
        nodes.push((path.as_str().to_string(), node));
    }
    Listing::new(nodes).map_err(|path| {
        ZarrError::metadata(
            location,
            format!("the consolidated metadata lists two nodes at \"{path}\""),
        )
    })
}

/// An array from its `.zarray` and `.zattrs` documents.
pub fn parse_array(
    zarray: &Value,
    zattrs: Option<&Value>,
    location: &str,
) -> Result<ArrayMetadata> {
    let obj = object(zarray, location)?;
    check_format(obj, location)?;
    let meta_err = |e: String| ZarrError::metadata(location, e);
    let shape = u64_list(required(obj, "shape", location)?, "shape", location)?;
    check_shape(&shape, location)?;
    let chunks = u64_list(required(obj, "chunks", location)?, "chunks", location)?;
    let chunk_grid = regular_grid(chunks, &shape, location)?;
    let filters = codec_list(obj.get("filters"), "filters", location)?;
    let compressor = match required(obj, "compressor", location)? {
        Value::Null => None,
        value => Some(codec(value, "compressor", location)?),
    };
    let dtype = parse_dtype(required(obj, "dtype", location)?, &filters, location)?;
    let fill_value =
        FillValue::from_v2_json(required(obj, "fill_value", location)?, dtype.data_type)
            .map_err(meta_err)?;
    let order = match required(obj, "order", location)? {
        Value::String(s) if s == "C" || s == "F" => s.as_str(),
        other => {
            return Err(meta_err(format!(
                "\"order\" must be \"C\" or \"F\", not {other}",
                other = crate::error::quote(other)
            )))
        }
    };
    let separator = match obj.get("dimension_separator") {
        None | Some(Value::Null) => Separator::Dot,
        Some(Value::String(s)) => Separator::parse(s).ok_or_else(|| {
            meta_err(format!(
                "dimension_separator \"{s}\" is neither \".\" nor \"/\""
            ))
        })?,
        Some(other) => {
            return Err(meta_err(format!(
                "dimension_separator {other} is not a string",
                other = crate::error::quote(other)
            )))
        }
    };
    let codecs = CodecList::V2(Box::new(V2Codecs {
        fortran_order: order == "F" && shape.len() > 1,
        filters,
        compressor,
        endian: dtype.endian,
        object: dtype.object,
    }));
    let attributes = attributes(zattrs.cloned(), location)?;
    let dimension_names = dimension_names(&attributes, shape.len());
    Ok(ArrayMetadata {
        zarr_format: 2,
        shape,
        data_type: dtype.data_type,
        fields: dtype.fields,
        chunk_grid,
        chunk_key_encoding: ChunkKeyEncoding::V2(separator),
        fill_value,
        codecs,
        attributes,
        dimension_names,
    })
}

/// xarray's convention: `_ARRAY_DIMENSIONS` in the attributes names the axes. Anything else
/// there is not ours to refuse: it is then ignored.
fn dimension_names(attributes: &Map<String, Value>, ndim: usize) -> Option<Vec<Option<String>>> {
    let names = attributes.get("_ARRAY_DIMENSIONS")?.as_array()?;
    if names.len() != ndim {
        return None;
    }
    names
        .iter()
        .map(|n| n.as_str().map(|s| Some(s.to_string())))
        .collect()
}

/// A numcodecs codec configuration (`{"id": ..., ...}`) as a v3 extension. `vlen-*` keep their
/// names, which are v3 names too; the others are `numcodecs.<id>`.
fn codec(value: &Value, what: &str, location: &str) -> Result<(String, Extension)> {
    let bad = |reason: String| ZarrError::metadata(location, format!("{what}: {reason}"));
    let config = value.as_object().ok_or_else(|| {
        bad(format!(
            "{} is not a codec configuration object",
            crate::error::quote(value)
        ))
    })?;
    let id = match config.get("id") {
        Some(Value::String(id)) => id.clone(),
        _ => {
            return Err(bad(format!(
                "{} has no \"id\" string",
                crate::error::quote(value)
            )))
        }
    };
    let configuration: Map<String, Value> = config
        .iter()
        .filter(|(k, _)| *k != "id")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let name = if id.starts_with("vlen-") {
        id.clone()
    } else {
        format!("numcodecs.{id}")
    };
    Ok((
        id,
        Extension {
            name,
            configuration,
            must_understand: true,
        },
    ))
}

fn codec_list(
    value: Option<&Value>,
    what: &str,
    location: &str,
) -> Result<Vec<(String, Extension)>> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(list)) => list.iter().map(|c| codec(c, what, location)).collect(),
        Some(other) => Err(ZarrError::metadata(
            location,
            format!(
                "\"{what}\" must be a list or null, not {}",
                crate::error::quote(other)
            ),
        )),
    }
}

/// A parsed v2 dtype.
#[derive(Debug, Clone, PartialEq)]
pub struct Dtype {
    pub data_type: DataType,
    /// The byte order of multi-byte values; `None` where it does not apply.
    pub endian: Option<Endian>,
    pub fields: Option<Vec<Field>>,
    /// `|O`: elements are Python objects, encoded by the first filter.
    pub object: bool,
}

/// Parses `dtype`: a NumPy type string or a structured type's field list. An object dtype takes
/// its element type from its object codec (the first filter).
pub fn parse_dtype(
    value: &Value,
    filters: &[(String, Extension)],
    location: &str,
) -> Result<Dtype> {
    let unsupported = |what: &str| {
        ZarrError::unsupported(
            location,
            format!("dtype {}: {what}", crate::error::quote(value)),
        )
    };
    match value {
        Value::String(s) if s == "|O" => {
            let first = filters.first().map(|(id, _)| id.as_str());
            let data_type = match first {
                Some("vlen-utf8") | Some("categorize") => DataType::String,
                Some("vlen-bytes") => DataType::Bytes,
                Some("json2") | Some("msgpack2") => DataType::Object,
                Some(other) if OBJECT_CODECS.contains(&other) => {
                    return Err(unsupported(&format!(
                        "objects encoded by \"{other}\" are not supported"
                    )))
                }
                _ => {
                    return Err(ZarrError::metadata(
                        location,
                        "an object (|O) array needs an object codec (such as vlen-utf8) as its first filter",
                    ))
                }
            };
            Ok(Dtype {
                data_type,
                endian: None,
                fields: None,
                object: true,
            })
        }
        Value::String(s) => {
            let (data_type, endian) = parse_simple(s).map_err(|e| {
                if e.starts_with("unknown") {
                    unsupported(&e)
                } else {
                    ZarrError::metadata(
                        location,
                        format!("dtype {}: {e}", crate::error::quote(value)),
                    )
                }
            })?;
            Ok(Dtype {
                data_type,
                endian,
                fields: None,
                object: false,
            })
        }
        Value::Array(list) => {
            let (fields, size) = parse_fields(list).map_err(|e| {
                ZarrError::metadata(
                    location,
                    format!("dtype {}: {e}", crate::error::quote(value)),
                )
            })?;
            Ok(Dtype {
                data_type: DataType::Structured { size },
                endian: None,
                fields: Some(fields),
                object: false,
            })
        }
        _ => Err(ZarrError::metadata(
            location,
            format!(
                "dtype {} is neither a type string nor a list of fields",
                crate::error::quote(value)
            ),
        )),
    }
}

/// A structured type's fields as Zarr v2 writes them: each field's type a NumPy type string
/// with its byte order, or a nested record's field list.
fn parse_fields(list: &[Value]) -> std::result::Result<(Vec<Field>, usize), String> {
    structured::parse_fields(list, &|name: &str, dtype: &Value| match dtype {
        Value::String(s) if s == "|O" || s.ends_with('O') => Err(format!(
            "field \"{name}\" holds objects, which records cannot store"
        )),
        Value::String(s) => {
            let (data_type, endian) =
                parse_simple(s).map_err(|e| format!("field \"{name}\": {e}"))?;
            Ok(FieldKind::Value { data_type, endian })
        }
        Value::Array(inner) => {
            let (fields, size) = parse_fields(inner)?;
            Ok(FieldKind::Record { fields, size })
        }
        other => Err(format!(
            "field \"{name}\" has a dtype {other} that is not a type",
            other = crate::error::quote(other)
        )),
    })
}

/// A NumPy type string with an explicit byte order: `<i4`, `>f8`, `|b1`, `<M8[ns]`, `|S12`,
/// `<U5`, `|V16`, ... Errors starting with "unknown" are types this reader does not know.
pub fn parse_simple(s: &str) -> std::result::Result<(DataType, Option<Endian>), String> {
    let mut chars = s.chars();
    let endian = match chars.next() {
        Some('<') => Some(Endian::Little),
        Some('>') => Some(Endian::Big),
        Some('|') => None,
        _ => {
            return Err(format!(
                "\"{s}\" does not start with a byte order (<, > or |)"
            ))
        }
    };
    let rest = chars.as_str();
    let kind = rest
        .chars()
        .next()
        .ok_or_else(|| format!("unknown type \"{s}\""))?;
    let size_text = &rest[kind.len_utf8()..];
    let data_type = match kind {
        'M' | 'm' => {
            // NumPy writes a datetime without a unit as plain `M8`: the generic unit.
            let unit = if size_text == "8" {
                "8[generic]"
            } else {
                size_text
            };
            let unit = unit
                .strip_prefix("8[")
                .and_then(|u| u.strip_suffix(']'))
                .ok_or_else(|| format!("\"{s}\" must be {kind}8[unit]"))?;
            let unit =
                TimeUnit::parse(unit).ok_or_else(|| format!("unknown time unit in \"{s}\""))?;
            if kind == 'M' {
                DataType::DateTime64(unit)
            } else {
                DataType::TimeDelta64(unit)
            }
        }
        _ => {
            let size: usize = match size_text {
                t if !t.is_empty()
                    && t.bytes().all(|b| b.is_ascii_digit())
                    && !t.starts_with('0') =>
                {
                    t.parse()
                        .map_err(|_| format!("the size in \"{s}\" is too large"))?
                }
                _ => return Err(format!("unknown type \"{s}\"")),
            };
            if !matches!(size.checked_mul(4), Some(b) if b <= MAX_ELEMENT_SIZE) {
                return Err(format!(
                    "\"{s}\" is larger than the {MAX_ELEMENT_SIZE} bytes an element may have here"
                ));
            }
            match (kind, size) {
                ('b', 1) => DataType::Bool,
                ('i', 1) => DataType::Int8,
                ('i', 2) => DataType::Int16,
                ('i', 4) => DataType::Int32,
                ('i', 8) => DataType::Int64,
                ('u', 1) => DataType::UInt8,
                ('u', 2) => DataType::UInt16,
                ('u', 4) => DataType::UInt32,
                ('u', 8) => DataType::UInt64,
                ('f', 2) => DataType::Float16,
                ('f', 4) => DataType::Float32,
                ('f', 8) => DataType::Float64,
                ('c', 8) => DataType::Complex64,
                ('c', 16) => DataType::Complex128,
                ('S', len) => DataType::FixedBytes { len },
                ('U', chars) => DataType::FixedUnicode { chars },
                ('V', bytes) => DataType::Raw { bytes },
                _ => return Err(format!("unknown type \"{s}\"")),
            }
        }
    };
    match (data_type.byte_order_unit(), endian) {
        (Some(_), None) => Err(format!("\"{s}\" needs a byte order (< or >), not |")),
        (None, _) => Ok((data_type, None)),
        (Some(_), endian) => Ok((data_type, endian)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use serde_json::json;

    fn zarray(dtype: Value) -> Value {
        json!({"zarr_format": 2, "shape": [10, 20], "chunks": [5, 5], "dtype": dtype,
               "compressor": {"id": "zlib", "level": 1}, "fill_value": 0, "order": "C", "filters": null})
    }

    #[test]
    fn type_strings() {
        let ok = |s: &str| parse_simple(s).unwrap();
        assert_eq!(ok("<i4"), (DataType::Int32, Some(Endian::Little)));
        assert_eq!(ok(">c16"), (DataType::Complex128, Some(Endian::Big)));
        assert_eq!(ok("|b1"), (DataType::Bool, None));
        assert_eq!(ok("<u1"), (DataType::UInt8, None));
        assert_eq!(ok("|S12"), (DataType::FixedBytes { len: 12 }, None));
        assert_eq!(
            ok(">U3"),
            (DataType::FixedUnicode { chars: 3 }, Some(Endian::Big))
        );
        assert_eq!(ok("|V16"), (DataType::Raw { bytes: 16 }, None));
        assert_eq!(ok("<M8[ns]").0.name(), "datetime64[ns]");
        assert_eq!(ok(">m8[10s]").0.name(), "timedelta64[10s]");
        assert_eq!(ok("<M8").0.name(), "datetime64[generic]");
        for bad in [
            "i4",
            "|i4",
            "<i3",
            "<f16",
            "<S0",
            "<S",
            "<M8[parsec]",
            "<U600000000",
            "<U05",
            "<x4",
            "<",
        ] {
            assert!(parse_simple(bad).is_err(), "{bad}");
        }
        assert!(parse_simple("<x4").unwrap_err().starts_with("unknown"));
        assert!(parse_simple("|S99999999999999999999").is_err());
    }

    #[test]
    fn structured_fields_are_packed_and_nested() {
        let dtype = json!([
            ["x", "<f4"],
            ["y", ">i2", [2, 2]],
            ["z", [["a", "|u1"], ["b", "<c8"]]],
            ["", "|V3"],
            ["s", "|S3"]
        ]);
        let d = parse_dtype(&dtype, &[], "m").unwrap();
        assert_eq!(
            d.data_type,
            DataType::Structured {
                size: 4 + 8 + 9 + 3 + 3
            }
        );
        let fields = d.fields.unwrap();
        let offsets: Vec<(&str, usize)> =
            fields.iter().map(|f| (f.name.as_str(), f.offset)).collect();
        assert_eq!(offsets, [("x", 0), ("y", 4), ("z", 12), ("s", 24)]);
        for bad in [
            json!([["x", "<f4"], ["x", "<i2"]]),
            json!([["x", "|O"]]),
            json!([]),
            json!([["x"]]),
            json!([[1, "<f4"]]),
            json!([["a", "<i4", [0]]]),
            json!([
                ["b", "|u1"],
                ["z", [["a", "<i4", [0]]], [4294967296u64, 4294967296u64]]
            ]),
            json!([["z", "<i4", [1099511627776u64]]]),
        ] {
            assert!(parse_dtype(&bad, &[], "m").is_err(), "{bad}");
        }
    }

    #[test]
    fn a_v2_array_keeps_its_names_attributes_and_key_encoding() {
        let mut doc = zarray(json!(">i2"));
        doc["order"] = json!("F");
        doc["dimension_separator"] = json!("/");
        let zattrs = json!({"_ARRAY_DIMENSIONS": ["y", "x"], "units": "m"});
        let a = parse_array(&doc, Some(&zattrs), "m").unwrap();
        let CodecList::V2(v2) = &a.codecs else {
            panic!("a v2 array's codecs are numcodecs'")
        };
        assert!(v2.fortran_order && v2.endian == Some(Endian::Big));
        assert_eq!(a.chunk_key_encoding, ChunkKeyEncoding::V2(Separator::Slash));
        assert_eq!(
            a.dimension_names,
            Some(vec![Some("y".into()), Some("x".into())])
        );
        assert_eq!(a.attributes["units"], json!("m"));
        assert_eq!(a.zarr_format, 2);
        let a = parse_array(&zarray(json!(">f8")), None, "m").unwrap();
        assert!(a.attributes.is_empty() && a.dimension_names.is_none());
    }

    #[test]
    fn object_arrays_take_their_type_from_the_first_filter() {
        let mut doc = zarray(json!("|O"));
        doc["filters"] = json!([{"id": "vlen-utf8"}]);
        let a = parse_array(&doc, None, "m").unwrap();
        assert_eq!(a.data_type, DataType::String);
        doc["filters"] = json!([{"id": "pickle"}]);
        assert_eq!(
            parse_array(&doc, None, "m").unwrap_err().kind,
            ErrorKind::Unsupported
        );
        doc["filters"] = Value::Null;
        assert!(parse_array(&doc, None, "m")
            .unwrap_err()
            .message
            .contains("object codec"));
    }

    #[test]
    fn bad_documents_say_what_is_wrong() {
        let err = |doc: Value| parse_array(&doc, None, "http://h/a/.zarray").unwrap_err();
        let mut doc = zarray(json!("<i4"));
        doc["zarr_format"] = json!(3);
        assert_eq!(err(doc).kind, ErrorKind::Unsupported);
        let mut doc = zarray(json!("<i4"));
        doc["order"] = json!("K");
        assert!(err(doc).message.contains("\"order\""));
        let mut doc = zarray(json!("<i4"));
        doc["chunks"] = json!([5]);
        assert!(err(doc).message.contains("http://h/a/.zarray"));
        assert!(err(zarray(json!("<q9"))).message.contains("q9"));
        let mut doc = zarray(json!("<i4"));
        doc.as_object_mut().unwrap().remove("fill_value");
        assert!(err(doc).message.contains("fill_value"));
    }

    #[test]
    fn consolidated_documents_list_every_node() {
        let doc = json!({"zarr_consolidated_format": 1, "metadata": {
            ".zgroup": {"zarr_format": 2}, ".zattrs": {"title": "t"},
            "a/.zgroup": {"zarr_format": 2},
            "a/b/.zarray": zarray(json!("<i4")), "a/b/.zattrs": {"k": 1},
            "/c\\d/.zgroup": {"zarr_format": 2}, "../e/.zgroup": {"zarr_format": 2}}});
        let nodes = parse_consolidated(&doc, "m").unwrap();
        let kinds: Vec<(&str, &str)> = nodes.iter().map(|(p, n)| (p.as_str(), n.kind())).collect();
        assert_eq!(
            kinds,
            [
                ("", "group"),
                ("a", "group"),
                ("a/b", "array"),
                ("c/d", "group")
            ]
        );
        let both = json!({"zarr_consolidated_format": 1, "metadata": {
            "x/.zgroup": {"zarr_format": 2}, "x/.zarray": zarray(json!("<i4"))}});
        assert!(parse_consolidated(&both, "m")
            .unwrap_err()
            .message
            .contains("two nodes"));
        let super::super::NodeMetadata::Array(b) = nodes.get("a/b").unwrap().parse("m").unwrap()
        else {
            panic!()
        };
        assert_eq!(b.attributes["k"], json!(1));
        assert!(parse_consolidated(&json!({"metadata": {}}), "m").is_err());
    }
}
