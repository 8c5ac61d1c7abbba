//! Spatial arrays: a level's `variable_length_bytes` arrays whose shape is its chunk grid, one
//! cell per spatial chunk, keys shifted by `chunk_grid_origin`; and row arrays, attributes whose
//! cells hold one row per vertex or link of the cell they align with.

use crate::array::Array;
use crate::data_type::DataType;
use crate::error::{CodecError, Result, ZarrError};
use crate::indexing::selection::DimSelection;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// A per-vertex attribute of a chunk: `width` values of `dtype` per vertex row, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkAttribute {
    pub dtype: DataType,
    pub width: usize,
    pub bytes: Vec<u8>,
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
            Some(v) => crate::metadata::json::list(v, Value::as_i64)
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
                        "\"nonempty_chunks\" entry {k} is not {ndim} integers joined by dots",
                        k = crate::error::quote(k)
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

    pub(super) fn attr_str(&self, name: &str) -> Option<&str> {
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
    pub(super) fn numeric_dtype(&self) -> Result<DataType> {
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
