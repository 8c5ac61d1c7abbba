//! The registry's `reshape` codec: a chunk stored under another shape with the same elements in
//! the same (C) order. Decoding moves no bytes; what it changes is the shape the codecs after it
//! see, which depends on each chunk's shape (sizes may be given as products of input axes, or
//! left to `-1`), so the shape is worked out per chunk and checked as the registry says.

use super::codec::{ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::{Configuration, Field};
use crate::error::CodecError;
use serde_json::Value;

/// `reshape`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["reshape"],
    kind: Kind::ArrayToArray,
    build: |config, cx| {
        Ok(Codec::array_to_array(ReshapeCodec::from_configuration(
            config, cx.ndim,
        )?))
    },
}];

/// More output axes than any array has: a bound on what a configuration can make us allocate.
const MAX_AXES: usize = 64;

/// One output axis's size, as `shape` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum AxisSize {
    /// A fixed size.
    Fixed(u64),
    /// The product of these input axes' sizes.
    Product(Vec<usize>),
    /// Whatever makes the element counts equal (`-1`, at most once).
    Rest,
}

impl Field<'_> for AxisSize {
    fn expected() -> String {
        "a positive size, a list of input axes, or -1".into()
    }
    fn read(value: &Value) -> Option<AxisSize> {
        match value {
            Value::Number(n) if n.as_i64() == Some(-1) => Some(AxisSize::Rest),
            Value::Number(n) => n.as_u64().filter(|&n| n > 0).map(AxisSize::Fixed),
            Value::Array(axes) if axes.len() <= MAX_AXES => axes
                .iter()
                .map(|a| a.as_u64().and_then(|a| usize::try_from(a).ok()))
                .collect::<Option<_>>()
                .map(AxisSize::Product),
            _ => None,
        }
    }
}

pub struct ReshapeCodec {
    shape: Vec<AxisSize>,
}

impl ReshapeCodec {
    /// For chunks of `ndim` input axes.
    pub fn from_configuration(config: Configuration, ndim: usize) -> Result<ReshapeCodec, String> {
        config.only(&["shape"])?;
        let shape: Vec<AxisSize> = config.required("shape")?;
        if shape.is_empty() || shape.len() > MAX_AXES {
            return Err(format!(
                "\"shape\" must list from 1 to {MAX_AXES} output axes, not {}",
                shape.len()
            ));
        }
        if shape.iter().filter(|s| **s == AxisSize::Rest).count() > 1 {
            return Err("\"shape\" may use -1 only once".into());
        }
        // Input axes must come in increasing order over the whole list: a reshape never
        // transposes, and a list that reads like one is refused.
        let axes: Vec<usize> = shape
            .iter()
            .flat_map(|s| match s {
                AxisSize::Product(axes) => axes.clone(),
                _ => Vec::new(),
            })
            .collect();
        if let Some(&bad) = axes.iter().find(|&&a| a >= ndim) {
            return Err(format!(
                "\"shape\" names input axis {bad}, but chunks have {ndim} axes"
            ));
        }
        if axes.windows(2).any(|w| w[0] >= w[1]) {
            return Err(format!(
                "the input axes in \"shape\" must be strictly increasing, not {axes:?}"
            ));
        }
        Ok(ReshapeCodec { shape })
    }

    /// The output shape for a chunk of `input` shape, or why it has none.
    fn output_shape(&self, input: &[u64]) -> Result<Vec<u64>, String> {
        let product = |dims: &[u64]| dims.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d));
        let total = product(input).ok_or("the chunk's element count overflows")?;
        let mut out: Vec<Option<u64>> = self
            .shape
            .iter()
            .map(|s| match s {
                AxisSize::Fixed(n) => Some(*n),
                // An axis the chunk lacks (checked when built, but chunks come in any shape):
                // no size, and the counts below disagree.
                AxisSize::Product(axes) => axes
                    .iter()
                    .map(|&a| input.get(a).copied())
                    .collect::<Option<Vec<_>>>()
                    .and_then(|dims| product(&dims))
                    .or(Some(0)),
                AxisSize::Rest => None,
            })
            .collect();
        let known = out
            .iter()
            .flatten()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d));
        let mismatch = || {
            format!(
                "a chunk of shape {input:?} ({total} elements) cannot take the shape {}",
                self.describe()
            )
        };
        if let Some(rest) = out.iter_mut().find(|s| s.is_none()) {
            let known = known
                .filter(|&k| k > 0 && total % k == 0)
                .ok_or_else(mismatch)?;
            *rest = Some(total / known);
        }
        let shape: Vec<u64> = out.into_iter().flatten().collect();
        if product(&shape) != Some(total) {
            return Err(mismatch());
        }
        // An axis given as input axes must line up with them: the axes before and after it
        // hold as many elements as the input axes before and after those.
        for (i, size) in self.shape.iter().enumerate() {
            let AxisSize::Product(axes) = size else {
                continue;
            };
            let (Some(&first), Some(&last)) = (axes.first(), axes.last()) else {
                continue;
            };
            let before = input.get(..first).and_then(product);
            let after = input.get(last + 1..).and_then(product);
            if product(&shape[..i]) != before || product(&shape[i + 1..]) != after {
                return Err(format!(
                    "{}: output axis {i} does not line up with input axes {axes:?}",
                    mismatch()
                ));
            }
        }
        Ok(shape)
    }

    /// `shape` as the configuration writes it.
    fn describe(&self) -> String {
        let parts: Vec<String> = self
            .shape
            .iter()
            .map(|s| match s {
                AxisSize::Fixed(n) => n.to_string(),
                AxisSize::Product(axes) => format!("{axes:?}"),
                AxisSize::Rest => "-1".into(),
            })
            .collect();
        format!("[{}]", parts.join(", "))
    }
}

impl ArrayToArrayCodec for ReshapeCodec {
    fn name(&self) -> &'static str {
        "reshape"
    }

    fn output_ndim(&self, _input_ndim: usize) -> usize {
        self.shape.len()
    }

    fn check(&self, decoded: &ChunkRepr) -> Result<(), String> {
        self.output_shape(&decoded.shape).map(|_| ())
    }

    /// Where the chunk's shape cannot be reshaped, its own shape: `check` says why before
    /// anything decodes.
    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        ChunkRepr {
            shape: self
                .output_shape(&decoded.shape)
                .unwrap_or_else(|_| decoded.shape.clone()),
            data_type: decoded.data_type,
        }
    }

    fn decode(&self, encoded: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        // Same elements in the same order: only their count is checked.
        match decoded.num_bytes() {
            Some(n) if n == encoded.len() => Ok(encoded),
            _ => Err(CodecError::new(
                "reshape",
                format!(
                    "{} bytes do not make a chunk of shape {:?}",
                    encoded.len(),
                    decoded.shape
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(shape: Value, ndim: usize) -> Result<ReshapeCodec, String> {
        let config = json!({ "shape": shape });
        ReshapeCodec::from_configuration(Configuration::new(config.as_object().unwrap()), ndim)
    }

    #[test]
    fn shapes_follow_the_registry() {
        let c = codec(json!([[0, 1], [2], 3]), 4).unwrap();
        assert_eq!(c.output_shape(&[100, 50, 64, 3]).unwrap(), [5000, 64, 3]);
        let c = codec(json!([-1]), 3).unwrap();
        assert_eq!(c.output_shape(&[4, 5, 3]).unwrap(), [60]);
        let c = codec(json!([[0], 15]), 3).unwrap();
        assert_eq!(c.output_shape(&[4, 5, 3]).unwrap(), [4, 15]);
        // Axis 1 lines up only when the axes around it hold as many elements on both sides.
        let c = codec(json!([2, [1], 6]), 3).unwrap();
        assert_eq!(c.output_shape(&[2, 5, 6]).unwrap(), [2, 5, 6]);
        let err = c.output_shape(&[4, 5, 3]).unwrap_err();
        assert!(err.contains("does not line up"), "{err}");
        let err = codec(json!([7, -1]), 2).unwrap().output_shape(&[4, 5]);
        assert!(err.unwrap_err().contains("cannot take the shape [7, -1]"));
    }

    #[test]
    fn configurations_the_registry_forbids_are_refused() {
        for (shape, ndim, why) in [
            (json!([[1], [0]]), 2, "strictly increasing"),
            (json!([[1, 0], 10]), 2, "strictly increasing"),
            (json!([-1, -1]), 2, "only once"),
            (json!([[3]]), 2, "input axis 3"),
            (json!([0]), 1, "a positive size"),
            (json!([]), 1, "from 1 to"),
            (json!("big"), 1, "a positive size"),
        ] {
            let err = codec(shape.clone(), ndim).err().unwrap_or_default();
            assert!(err.contains(why), "{shape}: {err}");
        }
        let config = json!({"shape": [-1], "order": "C"});
        let err =
            ReshapeCodec::from_configuration(Configuration::new(config.as_object().unwrap()), 1);
        assert!(err.is_err());
    }
}
