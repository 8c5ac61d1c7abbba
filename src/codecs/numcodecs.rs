//! A Zarr v2 array's codecs (numcodecs' filters and compressor) as the v3 codec list they amount
//! to: its order a transpose codec, the value filters, its dtype's byte order a `bytes` codec (or
//! its object codec), then the byte filters and the compressor. Which filters transform values is
//! the codec table's to say.

use super::codec::Kind;
use super::entry;
use crate::data_type::Endian;
use crate::error::{Result, ZarrError};
use crate::metadata::extension::Extension;
use crate::metadata::V2Codecs;
use serde_json::{json, Value};

/// The v3 codecs of a v2 array.
pub fn v3_codecs(v2: &V2Codecs, location: &str) -> Result<Vec<Extension>> {
    // Values are laid out in Fortran order: the C order of the axes reversed.
    let transpose = v2
        .fortran_order
        .then(|| Extension::parse(&json!({"name": "transpose", "configuration": {"order": "F"}})))
        .transpose()
        .map_err(|e| ZarrError::metadata(location, e))?;
    Ok(transpose
        .into_iter()
        .chain(codec_order(v2, location)?)
        .collect())
}

/// Whether a filter is one the table knows to transform values (array to array). Others, known
/// or not, transform bytes; an unknown one is refused when the pipeline is built.
fn transforms_values(filter: &Extension) -> bool {
    entry(&filter.name).is_some_and(|e| e.kind == Kind::ArrayToArray)
}

/// The v3 codecs a v2 array's filters and compressor amount to: the value filters, then the codec
/// that turns elements into bytes (implicit in v2), then the byte filters and the compressor.
fn codec_order(v2: &V2Codecs, location: &str) -> Result<Vec<Extension>> {
    let unsupported = |reason: String| ZarrError::unsupported(location, reason);
    // A filter this build leaves out could not be told from a bytes filter below.
    let mut filters_and_compressor = v2.filters.iter().chain(&v2.compressor);
    if let Some((_, left_out)) = filters_and_compressor.find(|(_, c)| super::left_out(&c.name)) {
        return Err(ZarrError::not_in_this_build(location, &left_out.name));
    }
    let mut values = Vec::new();
    let mut bytes_filters: Vec<(String, Extension)> = Vec::new();
    let mut serializer = None;
    for (i, (id, ext)) in v2.filters.iter().cloned().enumerate() {
        if v2.object && i == 0 && (id.starts_with("vlen-") || id == "json2" || id == "msgpack2") {
            serializer = Some(ext);
        } else if transforms_values(&ext) {
            if let Some((after, _)) = bytes_filters.first() {
                return Err(unsupported(format!(
                    "filter \"{id}\" transforms values but comes after \"{after}\", which transforms bytes"
                )));
            }
            values.push(ext);
        } else {
            bytes_filters.push((id, ext));
        }
    }
    check_filter_orders(v2.endian, &values, location)?;
    // A compressor that takes the elements themselves (pcodec) is what turns them into bytes.
    let mut compressor = v2.compressor.clone();
    let takes_elements =
        |(_, c): &(String, Extension)| entry(&c.name).is_some_and(|e| e.kind == Kind::ArrayToBytes);
    if serializer.is_none()
        && bytes_filters.is_empty()
        && compressor.as_ref().is_some_and(takes_elements)
    {
        serializer = compressor.take().map(|(_, c)| c);
    }
    let serializer = match serializer {
        Some(ext) => ext,
        None => {
            let endian = stored_order(v2.endian, &values);
            // Written out whole: json! of a variable goes through serde's serializer, code that
            // the module has no other use for.
            let bytes = match endian {
                Some(Endian::Little) => {
                    json!({"name": "bytes", "configuration": {"endian": "little"}})
                }
                Some(Endian::Big) => json!({"name": "bytes", "configuration": {"endian": "big"}}),
                None => json!({"name": "bytes", "configuration": {}}),
            };
            Extension::parse(&bytes).map_err(|e| ZarrError::metadata(location, e))?
        }
    };
    Ok(values
        .into_iter()
        .chain(Some(serializer))
        .chain(
            bytes_filters
                .into_iter()
                .chain(compressor)
                .map(|(_, ext)| ext),
        )
        .collect())
}

/// numcodecs filters view the bytes they decode to as their declared `dtype`, and the array views
/// them as its own: where the two disagree on byte order the values are reinterpreted, which only
/// NumPy's memory model gives a meaning to. Such arrays are refused rather than misread.
fn check_filter_orders(
    endian: Option<Endian>,
    value_filters: &[Extension],
    location: &str,
) -> Result<()> {
    let Some(array) = endian else {
        return Ok(());
    };
    for filter in value_filters {
        let declared = ["dtype", "decode_dtype"]
            .iter()
            .find_map(|k| filter.configuration.get(*k).and_then(Value::as_str));
        let order = match declared.and_then(|d| d.as_bytes().first()) {
            Some(b'<') => Endian::Little,
            Some(b'>') => Endian::Big,
            _ => continue,
        };
        if order != array {
            return Err(ZarrError::unsupported(
                location,
                format!(
                    "filter \"{}\" decodes to {}, whose byte order is not the array's",
                    filter.name,
                    declared.unwrap_or_default()
                ),
            ));
        }
    }
    Ok(())
}

/// The byte order of the bytes the value filters leave (or of the array's elements where there
/// are none): the innermost filter that names its encoded type decides.
fn stored_order(array: Option<Endian>, value_filters: &[Extension]) -> Option<Endian> {
    for filter in value_filters.iter().rev() {
        let declared = ["astype", "encode_dtype", "dtype"]
            .iter()
            .find_map(|k| filter.configuration.get(*k).and_then(Value::as_str));
        if let Some(dtype) = declared {
            return match dtype.as_bytes().first() {
                Some(b'>') => Some(Endian::Big),
                Some(b'<') => Some(Endian::Little),
                Some(b'|') => None,
                _ => array,
            };
        }
    }
    array
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::metadata::v2::parse_array;
    use crate::metadata::{ArrayMetadata, CodecList};

    fn zarray(dtype: Value) -> Value {
        json!({"zarr_format": 2, "shape": [10, 10], "chunks": [5, 5], "dtype": dtype,
               "compressor": {"id": "zlib", "level": 1}, "fill_value": 0, "order": "C",
               "filters": null})
    }

    fn codecs(a: &ArrayMetadata) -> Result<Vec<Extension>> {
        let CodecList::V2(v2) = &a.codecs else {
            panic!("not a v2 array")
        };
        v3_codecs(v2, "m")
    }

    #[test]
    fn a_v2_array_becomes_its_v3_equivalent() {
        let mut doc = zarray(json!(">i2"));
        doc["order"] = json!("F");
        doc["filters"] = json!([{"id": "delta", "dtype": ">i2", "astype": "<i2"}]);
        let a = parse_array(&doc, None, "m").unwrap();
        let list = codecs(&a).unwrap();
        let names: Vec<&str> = list.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["transpose", "numcodecs.delta", "bytes", "numcodecs.zlib"]
        );
        // The delta filter's encoded type is little endian, whatever the array's order.
        assert_eq!(list[2].configuration["endian"], json!("little"));
        // A filter that would have NumPy reinterpret the array's bytes is refused.
        let mut reinterpreting = doc.clone();
        reinterpreting["filters"] = json!([{"id": "delta", "dtype": "<i2"}]);
        let a = parse_array(&reinterpreting, None, "m").unwrap();
        assert_eq!(codecs(&a).unwrap_err().kind, ErrorKind::Unsupported);

        let a = parse_array(&zarray(json!(">f8")), None, "m").unwrap();
        assert_eq!(codecs(&a).unwrap()[0].configuration["endian"], json!("big"));
    }

    #[test]
    fn an_object_array_is_serialized_by_its_first_filter() {
        let mut doc = zarray(json!("|O"));
        doc["filters"] = json!([{"id": "vlen-utf8"}]);
        let a = parse_array(&doc, None, "m").unwrap();
        assert_eq!(codecs(&a).unwrap()[0].name, "vlen-utf8");
    }

    #[test]
    fn value_filters_after_byte_filters_are_refused() {
        let mut doc = zarray(json!("<i4"));
        doc["filters"] = json!([{"id": "zlib"}, {"id": "delta", "dtype": "<i4"}]);
        let a = parse_array(&doc, None, "m").unwrap();
        assert!(codecs(&a).unwrap_err().message.contains("after \"zlib\""));
    }
}
