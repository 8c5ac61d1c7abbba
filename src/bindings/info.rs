//! Arrays and groups described to JS: `info` objects, chunk extents, chunk regions and partitions.

use super::js::{numbers, set};
use crate::array::{Array, ChunkRegion};
use crate::data_type::fill_value::Scalar;
use crate::data_type::structured::{Field, FieldKind};
use crate::data_type::DataType;
use crate::hierarchy::group::Group;
use crate::indexing::partition::Partition;
use crate::indexing::region::c_strides;
use crate::indexing::selection::DimSelection;
use js_sys::{Array as JsArray, Object, Uint8Array};
use wasm_bindgen::prelude::*;

fn fill_value_to_js(scalar: Scalar, data_type: DataType) -> JsValue {
    match scalar {
        Scalar::Bool(b) => b.into(),
        Scalar::Int(i)
            if matches!(
                data_type,
                DataType::Int64 | DataType::DateTime64(_) | DataType::TimeDelta64(_)
            ) =>
        {
            js_sys::BigInt::from(i).into()
        }
        Scalar::UInt(u) if data_type == DataType::UInt64 => js_sys::BigInt::from(u).into(),
        Scalar::Int(i) => JsValue::from_f64(i as f64),
        Scalar::UInt(u) => JsValue::from_f64(u as f64),
        Scalar::Float(f) => JsValue::from_f64(f),
        Scalar::Complex(re, im) => [re, im]
            .iter()
            .map(|&v| JsValue::from_f64(v))
            .collect::<JsArray>()
            .into(),
        Scalar::Raw(bytes) | Scalar::Bytes(bytes) => Uint8Array::from(bytes.as_slice()).into(),
        Scalar::Str(s) => JsValue::from_str(&s),
        Scalar::Json(text) => js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL),
    }
}

pub fn array_info(array: &Array) -> Result<JsValue, JsValue> {
    let meta = array.metadata();
    let obj = Object::new();
    set(&obj, "kind", "array")?;
    set(&obj, "path", array.path().as_str())?;
    set(&obj, "zarrFormat", meta.zarr_format)?;
    set(&obj, "shape", numbers(&meta.shape))?;
    set(
        &obj,
        "chunks",
        meta.chunk_grid
            .regular_chunk_shape()
            .map_or(JsValue::NULL, numbers),
    )?;
    set(
        &obj,
        "chunkGrid",
        if meta.chunk_grid.regular_chunk_shape().is_some() {
            "regular"
        } else {
            "rectilinear"
        },
    )?;
    set(&obj, "gridShape", numbers(&meta.chunk_grid.grid_shape()))?;
    set(
        &obj,
        "innerChunks",
        array.inner_chunk_shape().map_or(JsValue::NULL, numbers),
    )?;
    set(&obj, "dtype", meta.data_type.name())?;
    if let DataType::DateTime64(unit) | DataType::TimeDelta64(unit) = meta.data_type {
        set(&obj, "timeUnit", unit.to_string())?;
    }
    if let Some(fields) = &meta.fields {
        set(&obj, "fields", fields_to_js(fields)?)?;
    }
    let fill = if meta.fill_value.is_undefined() {
        JsValue::NULL
    } else {
        fill_value_to_js(meta.fill_value.to_scalar(meta.data_type), meta.data_type)
    };
    set(&obj, "fillValue", fill)?;
    // No attributes: `attrs` asks for them when it is first read (`attrsText`, pkg/index.js), so
    // that opening a node whose attributes hold a million values does not build them.
    let names = meta
        .dimension_names
        .as_ref()
        .map_or(JsValue::NULL, |names| {
            let name = |n: &Option<String>| n.as_deref().map_or(JsValue::NULL, JsValue::from_str);
            names.iter().map(name).collect::<js_sys::Array>().into()
        });
    set(&obj, "dimensionNames", names)?;
    Ok(obj.into())
}

pub fn group_info(group: &Group) -> Result<JsValue, JsValue> {
    let obj = Object::new();
    set(&obj, "kind", "group")?;
    set(&obj, "path", group.path().as_str())?;
    set(&obj, "zarrFormat", group.metadata().zarr_format)?;
    let children = group.children().map(|list| {
        list.iter()
            .map(|c| {
                let child = Object::new();
                set(&child, "name", c.name.as_str())?;
                set(&child, "path", c.path.as_str())?;
                set(&child, "kind", c.kind.as_str())?;
                Ok(JsValue::from(child))
            })
            .collect::<Result<JsArray, JsValue>>()
    });
    set(
        &obj,
        "children",
        children.transpose()?.map_or(JsValue::NULL, JsValue::from),
    )?;
    Ok(obj.into())
}

/// `{ origin, shape }` of one chunk, in array coordinates.
pub fn chunk_extent(origin: &[u64], shape: &[u64]) -> Result<JsValue, JsValue> {
    let obj = Object::new();
    set(&obj, "origin", numbers(origin))?;
    set(&obj, "shape", numbers(shape))?;
    Ok(obj.into())
}

/// The fields of a structured type: `[{ name, dtype, shape, offset, fields? }]` (`fields` for a
/// nested record, whose `dtype` is "structured").
fn fields_to_js(fields: &[Field]) -> Result<JsValue, JsValue> {
    fields
        .iter()
        .map(|f| {
            let obj = Object::new();
            set(&obj, "name", f.name.as_str())?;
            set(&obj, "offset", f.offset as f64)?;
            set(&obj, "shape", numbers(&f.shape))?;
            match &f.kind {
                FieldKind::Value { data_type, .. } => set(&obj, "dtype", data_type.name())?,
                FieldKind::Record { fields, .. } => {
                    set(&obj, "dtype", "structured")?;
                    set(&obj, "fields", fields_to_js(fields)?)?;
                }
            }
            Ok(JsValue::from(obj))
        })
        .collect::<Result<JsArray, JsValue>>()
        .map(Into::into)
}

/// `[{ coords, selection, outStart, shape }]`: each chunk's share of a selection.
pub fn chunk_regions_to_js(regions: &[ChunkRegion]) -> Result<JsValue, JsValue> {
    regions
        .iter()
        .map(|r| {
            let obj = Object::new();
            set(&obj, "coords", numbers(&r.coords))?;
            set(&obj, "selection", selection_to_js(&r.selection))?;
            set(&obj, "outStart", numbers(&r.out_start))?;
            set(&obj, "shape", numbers(&r.shape))?;
            Ok(JsValue::from(obj))
        })
        .collect::<Result<JsArray, JsValue>>()
        .map(Into::into)
}

/// A split read: `{ selection, shape, stride, parts: [{ selection, outStart, shape, chunks }] }`
/// (`stride`: the whole result's, C order).
pub fn partition_to_js(partition: &Partition) -> Result<JsValue, JsValue> {
    let parts = partition
        .parts
        .iter()
        .map(|p| {
            let obj = Object::new();
            set(&obj, "selection", selection_to_js(&p.selection))?;
            set(&obj, "outStart", numbers(&p.out_start))?;
            set(&obj, "shape", numbers(&p.shape))?;
            set(&obj, "chunks", p.chunks as f64)?;
            Ok(JsValue::from(obj))
        })
        .collect::<Result<JsArray, JsValue>>()?;
    let obj = Object::new();
    set(&obj, "selection", selection_to_js(&partition.selection))?;
    set(&obj, "shape", numbers(&partition.shape))?;
    set(&obj, "stride", numbers(&c_strides(&partition.shape)))?;
    set(&obj, "parts", parts)?;
    Ok(obj.into())
}

/// A selection as the JS API takes it: numbers, `{ start, stop, step }` and nulls.
fn selection_to_js(selection: &[DimSelection]) -> JsArray {
    let n = |v: &Option<i64>| v.map_or(JsValue::NULL, |x| JsValue::from_f64(x as f64));
    selection
        .iter()
        .map(|s| match s {
            DimSelection::Index(i) => JsValue::from_f64(*i as f64),
            DimSelection::Slice { start, stop, step } => {
                let slice = Object::new();
                let _ = set(&slice, "start", n(start));
                let _ = set(&slice, "stop", n(stop));
                let _ = set(&slice, "step", n(step));
                slice.into()
            }
            DimSelection::All => JsValue::NULL,
        })
        .collect()
}
