//! Zarr v1 (storage specification 1.0, deprecated but still on disk): an array is a `meta`
//! document beside an `attrs` one, and its chunks are keys `i.j` in the same directory. There are
//! no groups. Its metadata is v2's but for the compressor, given as a library's name
//! (`compression`: none, zlib, bz2, lzma or blosc) and its options (`compression_opts`: an
//! integer, a string or an object), so a v1 array is read as the v2 array it is equivalent to:
//! the same dtype strings and structured lists, fill values, order and `.`-separated keys, the
//! compressor as the numcodecs codec of that library.

use super::document::ArrayMetadata;
use super::v2;
use crate::error::{quote, Result, ZarrError};
use serde_json::{Map, Value};

/// The key of an array's metadata, and of its attributes (the spec makes both required; an
/// array without `attrs` is read with no attributes).
pub const META_KEY: &str = "meta";
pub const ATTRS_KEY: &str = "attrs";

/// An array from its `meta` and `attrs` documents; `location` names `meta` in errors.
pub fn parse_array(meta: &Value, attrs: Option<&Value>, location: &str) -> Result<ArrayMetadata> {
    let obj = meta
        .as_object()
        .ok_or_else(|| ZarrError::metadata(location, "the document is not a JSON object"))?;
    match obj.get("zarr_format") {
        Some(Value::Number(n)) if n.as_u64() == Some(1) => {}
        Some(other) => {
            return Err(ZarrError::unsupported(
                location,
                format!("zarr_format {} (expected 1 in a meta key)", quote(other)),
            ))
        }
        None => {
            return Err(ZarrError::metadata(
                location,
                "\"zarr_format\" is missing: this is not Zarr v1 metadata",
            ))
        }
    }
    // The v2 document it is equivalent to: the same keys (v2's parse says which are missing),
    // the compressor as numcodecs' configuration, `.`-separated keys.
    let mut zarray = obj.clone();
    let compressor = compressor(obj, location)?;
    zarray.insert("zarr_format".into(), Value::from(2));
    zarray.insert("compressor".into(), compressor);
    zarray.insert("filters".into(), Value::Null);
    zarray.insert("dimension_separator".into(), Value::from("."));
    let mut metadata = v2::parse_array(&Value::Object(zarray), attrs, location)?;
    metadata.zarr_format = 1;
    Ok(metadata)
}

/// The numcodecs configuration of `compression` with `compression_opts`, or null for none.
fn compressor(meta: &Map<String, Value>, location: &str) -> Result<Value> {
    let name = match meta.get("compression") {
        None | Some(Value::Null) => return Ok(Value::Null),
        Some(Value::String(name)) => name.as_str(),
        Some(other) => {
            return Err(ZarrError::metadata(
                location,
                format!(
                    "\"compression\" must be a library's name, not {}",
                    quote(other)
                ),
            ))
        }
    };
    let opts = meta.get("compression_opts").unwrap_or(&Value::Null);
    let bad_opts = || {
        ZarrError::metadata(
            location,
            format!(
                "compression_opts {} do not fit compression \"{name}\"",
                quote(opts)
            ),
        )
    };
    // Each library's numcodecs configuration, written as JSON text: parsed at run time, it costs
    // less code than building it value by value. A level (zlib, bz2) is an integer, a preset
    // (LZMA) too; Blosc's options may be a compressor's name or a level. Blosc records what it did
    // in each chunk's header, which is what decoding reads.
    let (defaults, scalar) = match name {
        "none" => return Ok(Value::Null),
        "zlib" => (r#"{"id":"zlib","level":1}"#, (Some("level"), None)),
        "bz2" => (r#"{"id":"bz2","level":1}"#, (Some("level"), None)),
        "lzma" => (
            r#"{"id":"lzma","format":1,"check":-1,"preset":null,"filters":null}"#,
            (Some("preset"), None),
        ),
        "blosc" => (
            r#"{"id":"blosc","cname":"blosclz","clevel":5,"shuffle":1,"blocksize":0}"#,
            (Some("clevel"), Some("cname")),
        ),
        other => {
            return Err(ZarrError::unsupported(
                location,
                format!(
                "Zarr v1 compression \"{other}\" (the spec's are none, zlib, bz2, lzma and blosc)"
            ),
            ))
        }
    };
    let defaults = super::json::read(defaults.as_bytes())
        .map_err(|e| ZarrError::metadata(location, e.to_string()))?;
    configured(defaults, opts, scalar).ok_or_else(bad_opts)
}

/// `defaults` with `opts` applied: an object's entries over them, a number or a string as the
/// option `scalar` names for it (`(for a number, for a string)`); `None` where `opts` does not fit.
fn configured(
    mut defaults: Value,
    opts: &Value,
    scalar: (Option<&str>, Option<&str>),
) -> Option<Value> {
    match opts {
        Value::Null => {}
        Value::Number(_) => defaults[scalar.0?] = opts.clone(),
        Value::String(_) => defaults[scalar.1?] = opts.clone(),
        Value::Object(given) => {
            for (key, value) in given {
                defaults[key] = value.clone();
            }
        }
        _ => return None,
    }
    Some(defaults)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::CodecList;
    use serde_json::json;

    fn meta(compression: Value, opts: Value) -> Value {
        json!({
            "zarr_format": 1, "shape": [20, 20], "chunks": [10, 10], "dtype": "<i4",
            "compression": compression, "compression_opts": opts, "fill_value": 42, "order": "C"
        })
    }

    fn compressor_id(doc: &Value) -> Option<String> {
        let metadata = parse_array(doc, None, "meta").unwrap();
        assert_eq!(metadata.zarr_format, 1);
        match metadata.codecs {
            CodecList::V2(v2) => v2.compressor.map(|(name, _)| name),
            CodecList::V3(_) => panic!("a v1 array reads as a v2 one"),
        }
    }

    #[test]
    fn each_compression_of_the_spec_is_its_numcodecs_codec() {
        assert_eq!(compressor_id(&meta(json!("none"), Value::Null)), None);
        assert_eq!(compressor_id(&meta(Value::Null, Value::Null)), None);
        for (name, opts) in [
            ("zlib", json!(1)),
            ("bz2", json!(9)),
            ("lzma", json!({"format": 1, "preset": 1})),
            ("lzma", json!(6)),
            ("blosc", json!({"cname": "lz4", "clevel": 5, "shuffle": 1})),
            ("blosc", json!("zstd")),
            ("blosc", json!(3)),
        ] {
            assert_eq!(
                compressor_id(&meta(json!(name), opts.clone())).as_deref(),
                Some(name),
                "{name} {opts}"
            );
        }
    }

    #[test]
    fn refusals_name_what_is_wrong() {
        let err = parse_array(&meta(json!("snappy"), Value::Null), None, "x/meta").unwrap_err();
        assert!(
            err.message.contains("compression \"snappy\""),
            "{}",
            err.message
        );
        let err = parse_array(&meta(json!("zlib"), json!("fast")), None, "x/meta").unwrap_err();
        assert!(
            err.message.contains("compression_opts \"fast\""),
            "{}",
            err.message
        );
        let mut doc = meta(json!("none"), Value::Null);
        doc["zarr_format"] = json!(2);
        let err = parse_array(&doc, None, "x/meta").unwrap_err();
        assert!(err.message.contains("zarr_format 2"), "{}", err.message);
        doc["zarr_format"] = json!(1);
        doc.as_object_mut().unwrap().remove("order");
        let err = parse_array(&doc, None, "x/meta").unwrap_err();
        assert!(
            err.message.contains("\"order\" is missing"),
            "{}",
            err.message
        );
    }

    #[test]
    fn structured_types_fortran_order_and_null_fill_read_as_in_v2() {
        let doc = json!({
            "zarr_format": 1, "shape": [4, 3], "chunks": [2, 2],
            "dtype": [["r", "|u1"], ["g", "<u2"]], "compression": "zlib",
            "compression_opts": 1, "fill_value": null, "order": "F"
        });
        let metadata = parse_array(&doc, Some(&json!({"foo": 42})), "meta").unwrap();
        assert_eq!(metadata.fields.as_ref().map(|f| f.len()), Some(2));
        assert_eq!(metadata.attributes.get("foo"), Some(&json!(42)));
        match metadata.codecs {
            CodecList::V2(v2) => assert!(v2.fortran_order),
            CodecList::V3(_) => unreachable!(),
        }
    }
}
