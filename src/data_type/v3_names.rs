//! Data types as Zarr v3 metadata names them: the core spec's names (`uint16`, `r24`), and the
//! registered extension types zarr-python 3 writes for NumPy types that have no core name
//! (`numpy.datetime64`, `numpy.timedelta64`, `fixed_length_utf32`, `null_terminated_bytes`,
//! `raw_bytes`, `struct`, and `struct`'s older spelling `structured`). Each is read as the type
//! Zarr v2 stores the same NumPy type as, so its values reach users in the same form (see the
//! README's data type table).

use super::structured::{self, Field, FieldKind};
use super::{DataType, Endian, TimeUnit, MAX_ELEMENT_SIZE};
use serde_json::{Map, Value};

/// A data type from v3 metadata, and for a structured type its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct V3DataType {
    pub data_type: DataType,
    pub fields: Option<Vec<Field>>,
}

impl V3DataType {
    fn plain(data_type: DataType) -> Option<V3DataType> {
        Some(V3DataType {
            data_type,
            fields: None,
        })
    }
}

/// The data type `name` with `configuration` (empty where the metadata gives none): `Ok(None)`
/// for a name this reader does not know, an error for a known one configured wrongly.
pub fn parse(name: &str, configuration: &Map<String, Value>) -> Result<Option<V3DataType>, String> {
    if let Some(core) = DataType::from_v3_name(name) {
        return match configuration.is_empty() {
            true => Ok(V3DataType::plain(core)),
            false => Err(format!("{name} takes no configuration")),
        };
    }
    let config = |key: &str| configuration.get(key);
    Ok(match name {
        "numpy.datetime64" => V3DataType::plain(DataType::DateTime64(time_unit(configuration)?)),
        "numpy.timedelta64" => V3DataType::plain(DataType::TimeDelta64(time_unit(configuration)?)),
        "fixed_length_utf32" => {
            let bytes = length_bytes(configuration)?;
            if bytes % 4 != 0 {
                return Err(format!(
                    "\"length_bytes\" of fixed_length_utf32 must be a multiple of 4, not {bytes}"
                ));
            }
            V3DataType::plain(DataType::FixedUnicode { chars: bytes / 4 })
        }
        "null_terminated_bytes" => V3DataType::plain(DataType::FixedBytes {
            len: length_bytes(configuration)?,
        }),
        "raw_bytes" => V3DataType::plain(DataType::Raw {
            bytes: length_bytes(configuration)?,
        }),
        "structured" => {
            let list = config("fields")
                .and_then(Value::as_array)
                .ok_or("structured needs \"fields\": a list of [name, data type] pairs")?;
            let (fields, size) = parse_fields(list)?;
            Some(V3DataType {
                data_type: DataType::Structured { size },
                fields: Some(fields),
            })
        }
        // The registry's `struct` (zarr-python >= 3.4 writes it): fields as objects
        // `{"name", "data_type"}`; the legacy tuple form is `structured`'s.
        "struct" => {
            let list = config("fields").and_then(Value::as_array).ok_or(
                "struct needs \"fields\": a list of {\"name\": ..., \"data_type\": ...} objects",
            )?;
            let pairs = list
                .iter()
                .map(struct_field)
                .collect::<Result<Vec<_>, _>>()?;
            let (fields, size) = parse_fields(&pairs)?;
            Some(V3DataType {
                data_type: DataType::Structured { size },
                fields: Some(fields),
            })
        }
        _ => None,
    })
}

/// `unit` and `scale_factor` of numpy.datetime64 and numpy.timedelta64: `scale_factor` units of
/// `unit` (NumPy's `10s` is unit `s`, scale factor 10).
fn time_unit(configuration: &Map<String, Value>) -> Result<TimeUnit, String> {
    let unit = configuration.get("unit").and_then(Value::as_str);
    let base = unit
        .and_then(TimeUnit::parse)
        .filter(|u| u.count == 1)
        .ok_or_else(|| {
            format!("\"unit\" must be a NumPy time unit (such as \"ns\" or \"D\"), not {unit:?}")
        })?;
    let scale = match configuration.get("scale_factor") {
        None => 1,
        Some(v) => v
            .as_u64()
            .filter(|&n| n >= 1)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| {
                format!(
                    "\"scale_factor\" must be an integer from 1 to {}, not {v}",
                    u32::MAX,
                    v = crate::error::quote(v)
                )
            })?,
    };
    Ok(TimeUnit {
        base: base.base,
        count: scale,
    })
}

/// `length_bytes`: the size of each element.
fn length_bytes(configuration: &Map<String, Value>) -> Result<usize, String> {
    let value = configuration.get("length_bytes");
    value
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|n| (1..=MAX_ELEMENT_SIZE).contains(n))
        .ok_or_else(|| {
            format!(
                "\"length_bytes\" must be an integer from 1 to {MAX_ELEMENT_SIZE}, not {}",
                value.map_or("nothing".to_string(), crate::error::quote)
            )
        })
}

/// A `struct` field, `{"name": ..., "data_type": ...}`, as the `[name, data type]` pair
/// `structured` lists. Its name may not be empty (NumPy's unnamed padding has no place here).
fn struct_field(field: &Value) -> Result<Value, String> {
    let obj = field.as_object().ok_or_else(|| {
        format!(
            "struct field {} is not an object with \"name\" and \"data_type\"",
            crate::error::quote(field)
        )
    })?;
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| {
            format!(
                "struct field {} has no \"name\" (a non-empty string)",
                crate::error::quote(field)
            )
        })?;
    let data_type = obj
        .get("data_type")
        .ok_or_else(|| format!("struct field \"{name}\" has no \"data_type\""))?;
    Ok(Value::Array(vec![Value::from(name), data_type.clone()]))
}

/// A structured type's fields: `[name, data type]` pairs (optionally with a subarray shape), each
/// data type a v3 name or `{name, configuration}`, nested structured types as records. Multi-byte
/// fields are little-endian: zarr-python 3.1 stores records with no byte order in the metadata
/// and reads them so.
fn parse_fields(list: &[Value]) -> Result<(Vec<Field>, usize), String> {
    structured::parse_fields(list, &|field: &str, data_type: &Value| {
        let (name, configuration) = match data_type {
            Value::String(name) => (name.as_str(), None),
            Value::Object(obj) => (
                obj.get("name").and_then(Value::as_str).unwrap_or_default(),
                obj.get("configuration").and_then(Value::as_object),
            ),
            _ => ("", None),
        };
        let empty = Map::new();
        let parsed = parse(name, configuration.unwrap_or(&empty))
            .map_err(|e| format!("field \"{field}\": {e}"))?
            .ok_or_else(|| {
                format!(
                    "field \"{field}\" has an unknown data type {data_type}",
                    data_type = crate::error::quote(data_type)
                )
            })?;
        match parsed.fields {
            Some(fields) => Ok(FieldKind::Record {
                size: parsed.data_type.size(),
                fields,
            }),
            None if parsed.data_type.is_variable() => Err(format!(
                "field \"{field}\" has a variable-length type, which records cannot store"
            )),
            None => Ok(FieldKind::Value {
                data_type: parsed.data_type,
                endian: parsed.data_type.byte_order_unit().map(|_| Endian::Little),
            }),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data_type::TimeBase;
    use serde_json::json;

    fn read(name: &str, config: Value) -> Result<Option<V3DataType>, String> {
        parse(name, config.as_object().unwrap())
    }

    #[test]
    fn zarr_python_extension_types_read_as_their_numpy_equivalents() {
        let t = |name, config| read(name, config).unwrap().unwrap().data_type;
        assert_eq!(
            t(
                "numpy.timedelta64",
                json!({"unit": "s", "scale_factor": 10})
            ),
            DataType::TimeDelta64(TimeUnit {
                base: TimeBase::Seconds,
                count: 10
            })
        );
        assert_eq!(
            t("numpy.datetime64", json!({"unit": "ns", "scale_factor": 1})).name(),
            "datetime64[ns]"
        );
        assert_eq!(
            t("fixed_length_utf32", json!({"length_bytes": 12})),
            DataType::FixedUnicode { chars: 3 }
        );
        assert_eq!(
            t("null_terminated_bytes", json!({"length_bytes": 3})),
            DataType::FixedBytes { len: 3 }
        );
        assert_eq!(
            t("raw_bytes", json!({"length_bytes": 4})),
            DataType::Raw { bytes: 4 }
        );
        let rec = read(
            "structured",
            json!({"fields": [["a", "int16"], ["b", "float64"], ["c", {"name": "null_terminated_bytes", "configuration": {"length_bytes": 2}}]]}),
        )
        .unwrap()
        .unwrap();
        assert_eq!(rec.data_type, DataType::Structured { size: 12 });
        let fields = rec.fields.unwrap();
        assert_eq!(fields[1].offset, 2);
        assert_eq!(
            fields[1].kind,
            FieldKind::Value {
                data_type: DataType::Float64,
                endian: Some(Endian::Little)
            }
        );
        assert_eq!(fields[2].offset, 10);
    }

    #[test]
    fn bad_configurations_are_errors_and_unknown_names_are_none() {
        assert_eq!(read("bfloat99", json!({})), Ok(None));
        for (name, config) in [
            ("numpy.datetime64", json!({"unit": "parsec"})),
            ("numpy.datetime64", json!({"unit": "10s"})),
            ("numpy.timedelta64", json!({"unit": "s", "scale_factor": 0})),
            ("fixed_length_utf32", json!({"length_bytes": 6})),
            ("raw_bytes", json!({"length_bytes": 0})),
            ("raw_bytes", json!({"length_bytes": 1u64 << 40})),
            ("structured", json!({"fields": [["a", "string"]]})),
            (
                "structured",
                json!({"fields": [["a", "int8"], ["a", "int8"]]}),
            ),
            ("structured", json!({})),
            ("uint8", json!({"x": 1})),
        ] {
            assert!(read(name, config.clone()).is_err(), "{name} {config}");
        }
    }
}
