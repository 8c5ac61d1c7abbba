//! The layout of a directory of kerchunk Parquet references: its `.zmetadata` (`{"metadata":
//! {key: document}, "record_size": n}`) holds every metadata document, and each array's chunk
//! references are in `<array>/refs.<i>.parq`, `record_size` rows a file, row `n` of them the chunk
//! whose index in C order over the array's chunk grid is `i * record_size + n` (fsspec's
//! `LazyReferenceMapper`: the grid from the `.zarray`'s shape and chunks; a scalar's is `[1]`).

use crate::json_text::JsonText;
use serde_json::Value;
use std::collections::HashMap;

/// Where a chunk's reference is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place<'a> {
    /// The array's path (the file's directory).
    pub field: &'a str,
    /// Which `refs.<i>.parq`, and its row.
    pub record: u64,
    pub row: u64,
}

type Result<T> = std::result::Result<T, String>;

#[derive(Debug)]
pub struct Layout {
    pub record_size: u64,
    /// The metadata documents by key, as JSON text.
    pub metadata: Vec<(String, Vec<u8>)>,
    /// The chunk grid of each array, by its path.
    grids: HashMap<String, Vec<u64>>,
}

impl Layout {
    /// Parses `.zmetadata`; a record size above `max_record_size` is refused.
    pub fn parse(bytes: &[u8], max_record_size: u64) -> Result<Layout> {
        // Metadata documents: bounded as a `zarr.json` is (`metadata::json::MAX_CONTAINERS`).
        let max = crate::metadata::json::MAX_CONTAINERS;
        let containers = crate::metadata::json::count_containers(bytes);
        if containers > max {
            return Err(format!(
                "it holds more than {max} lists and objects ({containers}), more than metadata may"
            ));
        }
        let json = crate::metadata::json::read(bytes).map_err(|e| format!("not JSON: {e}"))?;
        let Value::Object(top) = json else {
            return Err("a JSON object is expected".into());
        };
        let record_size = match top.get("record_size") {
            Some(v) => v.as_u64().filter(|&n| n > 0).ok_or_else(|| {
                format!(
                    "\"record_size\" must be an integer from 1, not {v}",
                    v = crate::error::quote(v)
                )
            })?,
            None => return Err("no \"record_size\": not kerchunk's Parquet references".into()),
        };
        if record_size > max_record_size {
            return Err(format!(
                "a record size of {record_size}, more than the {max_record_size} references allowed (the maxRefs option)"
            ));
        }
        let Some(Value::Object(documents)) = top.get("metadata") else {
            return Err("\"metadata\" must be an object of metadata documents".into());
        };
        let mut grids = HashMap::new();
        let mut metadata = Vec::with_capacity(documents.len() + 1);
        for (key, doc) in documents {
            if let Some(field) = key.strip_suffix("/.zarray") {
                let grid = grid(doc).map_err(|e| format!("\"{key}\": {e}"))?;
                grids.insert(field.to_string(), grid);
            }
            metadata.push((key.clone(), JsonText(doc).to_string().into_bytes()));
        }
        // The documents are what Zarr's consolidated metadata holds: served as `.zmetadata`, a
        // group opens from them with no further request.
        if !documents.contains_key(".zmetadata") {
            let consolidated = serde_json::json!({
                "metadata": documents,
                "zarr_consolidated_format": 1,
            });
            metadata.push((
                ".zmetadata".into(),
                JsonText(&consolidated).to_string().into_bytes(),
            ));
        }
        Ok(Layout {
            record_size,
            metadata,
            grids,
        })
    }

    /// Where the reference of chunk key `key` is, or None where `key` is no chunk of an array
    /// (a metadata key, another array's, an index outside the grid).
    pub fn place<'k>(&self, key: &'k str) -> Option<Place<'k>> {
        let (field, chunk) = key.rsplit_once('/')?;
        let grid = self.grids.get(field)?;
        let mut n = 0u64;
        let mut parts = chunk.split('.');
        for &size in grid {
            let part = parts.next()?;
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let i: u64 = part.parse().ok()?;
            if i >= size {
                return None;
            }
            n = n.checked_mul(size)?.checked_add(i)?;
        }
        if parts.next().is_some() {
            return None;
        }
        Some(Place {
            field,
            record: n / self.record_size,
            row: n % self.record_size,
        })
    }
}

/// Chunks along each dimension of a `.zarray`: ceil(shape / chunks); `[1]` for a scalar.
fn grid(zarray: &Value) -> Result<Vec<u64>> {
    let list = |name: &str| -> Result<Vec<u64>> {
        zarray
            .get(name)
            .and_then(Value::as_array)
            .and_then(|a| a.iter().map(Value::as_u64).collect())
            .ok_or_else(|| format!("\"{name}\" must be a list of integers"))
    };
    let (shape, chunks) = (list("shape")?, list("chunks")?);
    if shape.len() != chunks.len() {
        return Err(format!(
            "{} dimensions in \"shape\" and {} in \"chunks\"",
            shape.len(),
            chunks.len()
        ));
    }
    if shape.is_empty() {
        return Ok(vec![1]);
    }
    shape
        .iter()
        .zip(&chunks)
        .map(|(&s, &c)| match c {
            0 => Err("a chunk length of 0".to_string()),
            c => Ok(s.div_ceil(c)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(record_size: u64) -> Layout {
        let doc = serde_json::json!({
            "record_size": record_size,
            "metadata": {
                ".zgroup": {"zarr_format": 2},
                "a/.zarray": {"shape": [17, 13], "chunks": [5, 5]},
                "g/s/.zarray": {"shape": [], "chunks": []},
                "g/s/.zattrs": {"units": "K"},
            }
        });
        Layout::parse(doc.to_string().as_bytes(), 1000).unwrap()
    }

    #[test]
    fn chunk_keys_map_to_records_and_rows_in_c_order() {
        let l = layout(5);
        // The grid is 4 x 3: chunk (2, 1) is number 7, row 2 of record 1.
        let place = |k| l.place(k).map(|p| (p.field, p.record, p.row));
        assert_eq!(place("a/2.1"), Some(("a", 1, 2)));
        assert_eq!(place("a/0.0"), Some(("a", 0, 0)));
        assert_eq!(place("a/3.2"), Some(("a", 2, 1)));
        assert_eq!(place("g/s/0"), Some(("g/s", 0, 0)));
        for key in [
            "a/4.0",
            "a/0.3",
            "a/0",
            "a/0.0.0",
            "a/.zarray",
            "a/+1.0",
            "b/0.0",
            "a/0/0",
            "x",
        ] {
            assert_eq!(place(key), None, "{key}");
        }
        let keys: Vec<&str> = l.metadata.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                ".zgroup",
                "a/.zarray",
                "g/s/.zarray",
                "g/s/.zattrs",
                ".zmetadata"
            ]
        );
        let zmeta: Value = serde_json::from_slice(&l.metadata[4].1).unwrap();
        assert_eq!(zmeta["zarr_consolidated_format"], 1);
        assert_eq!(zmeta["metadata"]["g/s/.zattrs"]["units"], "K");
    }

    #[test]
    fn bad_layouts_are_errors() {
        let bad = |doc: Value| Layout::parse(doc.to_string().as_bytes(), 100).unwrap_err();
        assert!(bad(serde_json::json!({"metadata": {}})).contains("no \"record_size\""));
        assert!(bad(serde_json::json!({"record_size": 0, "metadata": {}})).contains("from 1"));
        assert!(bad(serde_json::json!({"record_size": 101, "metadata": {}})).contains("maxRefs"));
        assert!(bad(serde_json::json!({"record_size": 1, "metadata": []})).contains("\"metadata\""));
        let zarray =
            |z: Value| bad(serde_json::json!({"record_size": 1, "metadata": {"a/.zarray": z}}));
        assert!(
            zarray(serde_json::json!({"shape": [1], "chunks": [0]})).contains("chunk length of 0")
        );
        assert!(zarray(serde_json::json!({"shape": [1, 2], "chunks": [1]})).contains("dimensions"));
        assert!(zarray(serde_json::json!({"shape": [-1], "chunks": [1]})).contains("\"shape\""));
        assert!(Layout::parse(b"[1]", 10).is_err());
        assert!(Layout::parse(b"{", 10).is_err());
    }

    #[test]
    fn zmetadata_is_bounded_in_lists_and_objects_as_a_zarr_json_is() {
        // 1.2 million one-element lists in an attribute: refused from a count of the text, before
        // anything is parsed (issue 46: parsed whole, 3 million took 0.8-1.1 GB).
        let mut text = String::from(r#"{"record_size":1,"metadata":{"a/.zattrs":{"x":["#);
        text.push_str(&"[1],".repeat(1_200_000));
        text.push_str("[1]]}}}");
        let started = std::time::Instant::now();
        let err = Layout::parse(text.as_bytes(), 10).unwrap_err();
        assert!(
            err.contains("more than 1000000 lists and objects (1200005)"),
            "{err}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }
}
