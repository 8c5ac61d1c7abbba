//! numcodecs' `FixedScaleOffset` filter (v3 name `numcodecs.fixedscaleoffset`): values stored as
//! `round((x - offset) * scale)` in a smaller type. Decoding computes `stored / scale + offset` in
//! floating point (float32 when the stored type is float32, as NumPy would) and converts to the
//! array's type.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::{Configuration, NumpyDtype};
use super::numeric::{self, Num};
use crate::collections::buffer::try_zeroed;
use crate::data_type::fill_value::FillValue;
use crate::data_type::DataType;
use crate::error::CodecError;

/// numcodecs' `fixedscaleoffset`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.fixedscaleoffset"],
    kind: Kind::ArrayToArray,
    build: |config, cx| {
        Ok(Codec::array_to_array(
            FixedScaleOffsetCodec::from_configuration(config, cx.data_type)?,
        ))
    },
}];

pub struct FixedScaleOffsetCodec {
    scale: f64,
    offset: f64,
    stored: Option<DataType>,
}

impl FixedScaleOffsetCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<FixedScaleOffsetCodec, String> {
        if !data_type.is_real() {
            return Err(format!("cannot apply to {data_type} data"));
        }
        let (scale, offset): (f64, f64) = (config.required("scale")?, config.required("offset")?);
        if scale == 0.0 || !scale.is_finite() {
            return Err(format!(
                "\"scale\" must be a finite non-zero number, not {scale}"
            ));
        }
        let stored = config
            .optional::<NumpyDtype>("astype")?
            .map(|NumpyDtype(dt)| dt);
        Ok(FixedScaleOffsetCodec {
            scale,
            offset,
            stored,
        })
    }
}

impl ArrayToArrayCodec for FixedScaleOffsetCodec {
    fn name(&self) -> &'static str {
        "numcodecs.fixedscaleoffset"
    }

    /// Element by element.
    fn box_order(&self, ndim: usize) -> Option<Vec<usize>> {
        Some((0..ndim).collect())
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        ChunkRepr {
            shape: decoded.shape.clone(),
            data_type: self.stored.unwrap_or(decoded.data_type),
        }
    }

    /// As numcodecs encodes: `round((x - offset) * scale)`, converted to the stored type.
    fn encoded_fill(
        &self,
        fill: &FillValue,
        decoded: DataType,
        encoded: DataType,
    ) -> Result<FillValue, String> {
        Ok(numeric::carry_fill(fill, decoded, encoded, |x| {
            Num::F(((x.as_f64() - self.offset) * self.scale).round_ties_even())
        }))
    }

    fn decode(&self, encoded: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.fixedscaleoffset", e);
        let dt = decoded.data_type;
        let stored = self.stored.unwrap_or(dt);
        let n = encoded.len() / stored.size();
        let size = numeric::converted_size(encoded.len(), stored, decoded).map_err(err)?;
        let mut out = try_zeroed(size).map_err(err)?;
        let single = stored == DataType::Float32;
        for i in 0..n {
            let x = numeric::read(stored, &encoded, i).as_f64();
            let value = if single {
                (x as f32 / self.scale as f32 + self.offset as f32) as f64
            } else {
                x / self.scale + self.offset
            };
            numeric::write(dt, &mut out, i, Num::F(value));
        }
        Ok(out)
    }
}
