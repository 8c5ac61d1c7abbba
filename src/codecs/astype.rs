//! Filters whose decoding is a type conversion: numcodecs' `AsType` (v3 `numcodecs.astype`, stored
//! as `encode_dtype`) and `Quantize` (v3 `numcodecs.quantize`: values rounded to some decimal
//! digits when written, stored as `astype`). Decoding converts stored elements to the array's type.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::numeric;
use crate::buffer::try_zeroed;
use crate::data_type::DataType;
use crate::error::CodecError;
use serde_json::{Map, Value};
use super::configuration::{self, NumpyDtype};
use serde::Deserialize;

/// numcodecs' `quantize` and `astype`: both store values as another type.
pub const CODECS: &[CodecEntry] = &[
    CodecEntry {
        names: &["numcodecs.quantize"],
        kind: Kind::ArrayToArray,
        build: |config, cx| Ok(Codec::array_to_array(AsTypeCodec::from_quantize_configuration(config, cx.data_type)?)),
    },
    CodecEntry {
        names: &["numcodecs.astype"],
        kind: Kind::ArrayToArray,
        build: |config, cx| Ok(Codec::array_to_array(AsTypeCodec::from_astype_configuration(config, cx.data_type)?)),
    },
];

pub struct AsTypeCodec {
    name: &'static str,
    stored: DataType,
}

/// numcodecs' `astype` configuration: the values' type and the type they are stored as.
#[derive(Deserialize)]
struct AsTypeConfiguration {
    decode_dtype: Option<NumpyDtype>,
    encode_dtype: NumpyDtype,
}

/// numcodecs' `quantize` configuration: the values' type, the digits kept (rounding is done when
/// writing) and the type they are stored as (the values' own by default).
#[derive(Deserialize)]
struct QuantizeConfiguration {
    dtype: Option<NumpyDtype>,
    #[allow(dead_code)]
    digits: i64,
    astype: Option<NumpyDtype>,
}

/// Checks that a filter can apply to `data_type`, and that the values' type it names (`key`),
/// where it names one, is the array's.
fn check_decoded(declared: Option<NumpyDtype>, key: &str, data_type: DataType) -> Result<(), String> {
    if !numeric::is_real(data_type) {
        return Err(format!("cannot apply to {data_type} data"));
    }
    match declared {
        Some(NumpyDtype(dt)) if dt != data_type => Err(format!(
            "\"{key}\" is {dt}, but the array's type is {data_type}"
        )),
        _ => Ok(()),
    }
}

impl AsTypeCodec {
    pub fn from_astype_configuration(
        config: &Map<String, Value>,
        data_type: DataType,
    ) -> Result<AsTypeCodec, String> {
        let config: AsTypeConfiguration = configuration::parse(config)?;
        check_decoded(config.decode_dtype, "decode_dtype", data_type)?;
        Ok(AsTypeCodec {
            name: "numcodecs.astype",
            stored: config.encode_dtype.0,
        })
    }

    pub fn from_quantize_configuration(
        config: &Map<String, Value>,
        data_type: DataType,
    ) -> Result<AsTypeCodec, String> {
        let config: QuantizeConfiguration = configuration::parse(config)?;
        check_decoded(config.dtype, "dtype", data_type)?;
        Ok(AsTypeCodec {
            name: "numcodecs.quantize",
            stored: config.astype.map_or(data_type, |NumpyDtype(t)| t),
        })
    }
}

impl ArrayToArrayCodec for AsTypeCodec {
    fn name(&self) -> &'static str {
        self.name
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
