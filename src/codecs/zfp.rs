//! The zarr-extensions registry's `zfp` (an array-to-bytes codec): ZFP streams without a header;
//! the number type, the field's dimensions and the mode come from the array's metadata (zarrs
//! writes these). Integers narrower than ZFP's own (8 and 16 bits, and unsigned ones) are
//! promoted on writing and demoted on reading, as the registry says. Decoded in the second module
//! (`extra.rs`), in steps, which knows the modes and checks their parameters; numcodecs' streams
//! with their header are `zfpy.rs`.

use super::codec::{ArrayToBytesCodec, ChunkRepr, Codec, CodecEntry, Kind, StepDecoder};
use super::configuration::{named, Configuration};
use super::extra;
use crate::data_type::DataType;
use crate::error::CodecError;

/// The registry's `zfp`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["zfp"],
    kind: Kind::ArrayToBytes,
    build: |config, cx| {
        Ok(Codec::array_to_bytes(ZfpCodec::from_configuration(
            config,
            cx.data_type,
            cx.ndim,
        )?))
    },
}];

named! {
    /// ZFP's compression modes, as the registry names them.
    Mode {
        FixedRate = "fixed_rate",
        FixedPrecision = "fixed_precision",
        FixedAccuracy = "fixed_accuracy",
        Reversible = "reversible",
        Expert = "expert",
    }
}

#[derive(Debug)]
pub struct ZfpCodec {
    /// What the second module needs (`extra-codecs`' `zfp::RegistryStream::from_params`): the ZFP
    /// number type, the array's type where ZFP stores it wider, whether the stream starts with
    /// zfpy's header, then the chunk's dimensions (filled in per chunk) and the mode's parameters.
    number: f64,
    element: f64,
    with_header: f64,
    mode: Vec<f64>,
}

impl ZfpCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
        ndim: usize,
    ) -> Result<ZfpCodec, String> {
        // ZFP's int32 (1), int64 (2), float32 (3), float64 (4); the narrower and unsigned
        // integers promoted to them, as the second module's `zfp::Element` names them.
        let (number, element) = match data_type {
            DataType::Int8 => (1, 1),
            DataType::UInt8 => (1, 2),
            DataType::Int16 => (1, 3),
            DataType::UInt16 => (1, 4),
            DataType::Int32 => (1, 0),
            DataType::UInt32 => (1, 5),
            DataType::Int64 | DataType::DateTime64(_) | DataType::TimeDelta64(_) => (2, 0),
            DataType::UInt64 => (2, 6),
            DataType::Float32 => (3, 0),
            DataType::Float64 => (4, 0),
            _ => {
                return Err(format!(
                    "ZFP stores integers and 32/64-bit floats, not {data_type}"
                ))
            }
        };
        if ndim > 4 {
            return Err(format!(
                "ZFP stores chunks of up to 4 dimensions, not {ndim}"
            ));
        }
        let (mode, keys): (f64, &[&str]) = match config.required::<Mode>("mode")? {
            Mode::FixedRate => (1.0, &["rate"]),
            Mode::FixedPrecision => (2.0, &["precision"]),
            Mode::FixedAccuracy => (3.0, &["tolerance"]),
            Mode::Reversible => (4.0, &[]),
            Mode::Expert => (5.0, &["minbits", "maxbits", "maxprec", "minexp"]),
        };
        // Their ranges are checked where they are used, in the second module.
        let mut params = vec![mode];
        for key in keys {
            let value = config.required::<f64>(key)?;
            if !matches!(*key, "rate" | "tolerance") && value.fract() != 0.0 {
                // Written as JSON text (src/json_text.rs): Rust's float formatting is not in the module.
                let value = serde_json::Value::from(value);
                return Err(format!(
                    "\"{key}\" must be a whole number, not {value}",
                    value = crate::error::quote(&value)
                ));
            }
            params.push(value);
        }
        let with_header = config.optional::<bool>("write_header")?.unwrap_or(false);
        Ok(ZfpCodec {
            number: number.into(),
            element: element.into(),
            with_header: with_header.into(),
            mode: params,
        })
    }

    /// The second module's parameters for a chunk of `shape`: nx is its fastest (last) axis; a
    /// 0-d chunk is one value.
    fn params(&self, shape: &[u64]) -> Vec<f64> {
        let mut dims = [0.0; 4];
        for (dim, &n) in dims.iter_mut().zip(shape.iter().rev()) {
            *dim = n as f64;
        }
        if shape.is_empty() {
            dims[0] = 1.0;
        }
        [
            &[self.number, self.element, self.with_header][..],
            &dims,
            &self.mode,
        ]
        .concat()
    }
}

impl ArrayToBytesCodec for ZfpCodec {
    fn name(&self) -> &'static str {
        "zfp"
    }

    fn encoded_size(&self, _repr: &ChunkRepr) -> Option<usize> {
        None
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        extra::decode_numbers(self.name(), &self.params(&repr.shape), &encoded, repr)
    }

    fn stepwise(
        &self,
        encoded: Vec<u8>,
        repr: &ChunkRepr,
    ) -> Result<Box<dyn StepDecoder + '_>, Vec<u8>> {
        extra::numbers_stepwise(self.name(), self.params(&repr.shape), encoded, repr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(
        config: serde_json::Value,
        data_type: DataType,
        ndim: usize,
    ) -> Result<ZfpCodec, String> {
        ZfpCodec::from_configuration(
            Configuration::new(config.as_object().unwrap()),
            data_type,
            ndim,
        )
    }

    #[test]
    fn configurations_are_read_and_checked() {
        let rate = codec(
            json!({"mode": "fixed_rate", "rate": 8.5}),
            DataType::Float32,
            2,
        )
        .unwrap();
        assert_eq!(
            rate.params(&[3, 5]),
            vec![3.0, 0.0, 0.0, 5.0, 3.0, 0.0, 0.0, 1.0, 8.5]
        );
        let expert = json!({"mode": "expert", "minbits": 1, "maxbits": 900, "maxprec": 20, "minexp": -30, "write_header": true});
        let params = codec(expert, DataType::UInt16, 0).unwrap().params(&[]);
        assert_eq!(
            params,
            vec![1.0, 4.0, 1.0, 1.0, 0.0, 0.0, 0.0, 5.0, 1.0, 900.0, 20.0, -30.0]
        );
        assert!(codec(json!({"mode": "fixed_rate"}), DataType::Float32, 1)
            .unwrap_err()
            .contains("rate"));
        assert!(codec(json!({"mode": "lossy"}), DataType::Float32, 1)
            .unwrap_err()
            .contains("fixed_rate"));
        assert!(codec(json!({"mode": "reversible"}), DataType::Float16, 1)
            .unwrap_err()
            .contains("float16"));
        assert!(codec(json!({"mode": "reversible"}), DataType::Int8, 5)
            .unwrap_err()
            .contains("4 dimensions"));
        let fractional = json!({"mode": "fixed_precision", "precision": 2.5});
        assert!(codec(fractional, DataType::Int32, 1)
            .unwrap_err()
            .contains("whole number"));
    }
}
