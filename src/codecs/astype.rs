//! Filters whose decoding is a type conversion: numcodecs' `AsType` (v3 `numcodecs.astype`, stored
//! as `encode_dtype`) and `Quantize` (v3 `numcodecs.quantize`: values rounded to some decimal
//! digits when written, stored as `astype`). Decoding converts stored elements to the array's type.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::{Configuration, NumpyDtype};
use super::numeric;
use crate::collections::buffer::try_zeroed;
use crate::data_type::fill_value::FillValue;
use crate::data_type::DataType;
use crate::error::CodecError;

/// numcodecs' `quantize` and `astype`: both store values as another type.
pub const CODECS: &[CodecEntry] = &[
    CodecEntry {
        names: &["numcodecs.quantize"],
        kind: Kind::ArrayToArray,
        build: |config, cx| {
            Ok(Codec::array_to_array(
                AsTypeCodec::from_quantize_configuration(config, cx.data_type)?,
            ))
        },
    },
    CodecEntry {
        names: &["numcodecs.astype"],
        kind: Kind::ArrayToArray,
        build: |config, cx| {
            Ok(Codec::array_to_array(
                AsTypeCodec::from_astype_configuration(config, cx.data_type)?,
            ))
        },
    },
];

pub struct AsTypeCodec {
    name: &'static str,
    stored: DataType,
}

/// Checks that a configuration's own idea of the array's type matches the array.
fn check_decoded(config: Configuration, key: &str, data_type: DataType) -> Result<(), String> {
    if !data_type.is_real() {
        return Err(format!("cannot apply to {data_type} data"));
    }
    match config.optional::<NumpyDtype>(key)? {
        Some(NumpyDtype(dt)) if dt != data_type => Err(format!(
            "\"{key}\" is {dt}, but the array's type is {data_type}"
        )),
        _ => Ok(()),
    }
}

impl AsTypeCodec {
    pub fn from_astype_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<AsTypeCodec, String> {
        check_decoded(config, "decode_dtype", data_type)?;
        let NumpyDtype(stored) = config.required("encode_dtype")?;
        Ok(AsTypeCodec {
            name: "numcodecs.astype",
            stored,
        })
    }

    pub fn from_quantize_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<AsTypeCodec, String> {
        check_decoded(config, "dtype", data_type)?;
        // The decimal digits kept when written: the values read are what they are.
        config.required::<i64>("digits")?;
        let stored = config
            .optional::<NumpyDtype>("astype")?
            .map_or(data_type, |NumpyDtype(dt)| dt);
        Ok(AsTypeCodec {
            name: "numcodecs.quantize",
            stored,
        })
    }
}

impl ArrayToArrayCodec for AsTypeCodec {
    fn name(&self) -> &'static str {
        self.name
    }

    /// Converted as NumPy's `astype` converts the elements.
    fn encoded_fill(
        &self,
        fill: &FillValue,
        decoded: DataType,
        encoded: DataType,
    ) -> Result<FillValue, String> {
        Ok(numeric::carry_fill(fill, decoded, encoded, |x| x))
    }

    /// Element by element.
    fn box_order(&self, ndim: usize) -> Option<Vec<usize>> {
        Some((0..ndim).collect())
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        ChunkRepr {
            shape: decoded.shape.clone(),
            data_type: self.stored,
        }
    }

    fn decode(&self, encoded: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new(self.name, e);
        let dt = decoded.data_type;
        if self.stored == dt {
            return Ok(encoded);
        }
        let size = numeric::converted_size(encoded.len(), self.stored, decoded).map_err(err)?;
        let mut out = try_zeroed(size).map_err(err)?;
        numeric::convert(self.stored, dt, &encoded, &mut out);
        Ok(out)
    }
}
