//! numcodecs' `Categorize` filter (v3 name `numcodecs.categorize`): strings stored as small
//! integers, 1 for the first label, 2 for the second...; 0 (or any number that names no label)
//! decodes to the empty string, as numcodecs does. The array holds Unicode strings: `U<n>`
//! (labels cut to `n` characters, as NumPy assigns them) or objects (variable-length strings).

use super::codec::{
    default_unknown_decoded_limit, ArrayToArrayCodec, ChunkRepr, Codec, CodecEntry, Kind,
};
use super::configuration::{Configuration, NumpyDtype};
use super::numeric::{self, Num};
use crate::collections::buffer::try_zeroed;
use crate::data_type::DataType;
use crate::error::CodecError;

/// numcodecs' `categorize`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.categorize"],
    kind: Kind::ArrayToArray,
    build: |config, cx| {
        Ok(Codec::array_to_array(CategorizeCodec::from_configuration(
            config,
            cx.data_type,
        )?))
    },
}];

pub struct CategorizeCodec {
    labels: Vec<String>,
    /// The integer type the categories are stored as.
    stored: DataType,
}

impl CategorizeCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<CategorizeCodec, String> {
        let labels: Vec<&str> = config.required("labels")?;
        let labels = labels.into_iter().map(str::to_string).collect();
        let declared: Option<&str> = config.optional("dtype")?;
        let matches = match (declared, data_type) {
            (Some("|O"), DataType::String) => true,
            (Some(d), DataType::FixedUnicode { chars }) => {
                d.get(1..).and_then(|t| t.strip_prefix('U')) == Some(&chars.to_string())
            }
            _ => false,
        };
        if !matches {
            return Err(format!(
                "\"dtype\" {} does not describe the array's {data_type} strings",
                declared.map_or("(absent)".to_string(), |d| format!("\"{d}\""))
            ));
        }
        let stored = config
            .optional::<NumpyDtype>("astype")?
            .map_or(DataType::UInt8, |NumpyDtype(dt)| dt);
        if !matches!(
            stored,
            DataType::UInt8
                | DataType::UInt16
                | DataType::UInt32
                | DataType::UInt64
                | DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
        ) {
            return Err(format!("\"astype\" must be an integer type, not {stored}"));
        }
        Ok(CategorizeCodec { labels, stored })
    }

    /// The label an encoded value stands for ("" for 0 and numbers that name none).
    fn label(&self, value: Num) -> &str {
        let index = match value {
            Num::I(i) => usize::try_from(i).ok(),
            Num::U(u) => usize::try_from(u).ok(),
            Num::F(_) => None,
        };
        index
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| self.labels.get(i))
            .map_or("", String::as_str)
    }
}

impl ArrayToArrayCodec for CategorizeCodec {
    fn name(&self) -> &'static str {
        "numcodecs.categorize"
    }

    fn encoded_repr(&self, decoded: &ChunkRepr) -> ChunkRepr {
        ChunkRepr {
            shape: decoded.shape.clone(),
            data_type: self.stored,
        }
    }

    fn decode(&self, encoded: Vec<u8>, decoded: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new("numcodecs.categorize", e);
        let n = crate::data_type::variable::element_count(&decoded.shape)
            .ok_or_else(|| err("the chunk has too many elements".into()))?;
        if Some(encoded.len()) != n.checked_mul(self.stored.size()) {
            return Err(err(format!(
                "{} bytes of {} categories, the chunk has {n} elements",
                encoded.len(),
                self.stored
            )));
        }
        let labels = (0..n).map(|i| self.label(numeric::read(self.stored, &encoded, i)));
        match decoded.data_type {
            DataType::FixedUnicode { chars } => {
                let size = n
                    .checked_mul(chars * 4)
                    .ok_or_else(|| err("the chunk is too large".into()))?;
                let mut out = try_zeroed(size).map_err(err)?;
                for (element, label) in out.chunks_exact_mut((chars * 4).max(1)).zip(labels) {
                    for (unit, c) in element.chunks_exact_mut(4).zip(label.chars()) {
                        unit.copy_from_slice(&u32::from(c).to_ne_bytes());
                    }
                }
                Ok(out)
            }
            // Variable-length strings, in the layout the vlen codecs decode to. Labels come from
            // metadata and repeat per element: the size is checked before anything is allocated.
            _ => {
                let size = labels
                    .clone()
                    .try_fold(4usize, |acc, l| acc.checked_add(4 + l.len()))
                    .filter(|&s| s <= default_unknown_decoded_limit())
                    .ok_or_else(|| err(format!("{n} labels take more memory than a chunk may")))?;
                let count = u32::try_from(n).map_err(|_| err(format!("{n} elements")))?;
                let mut out = Vec::new();
                out.try_reserve_exact(size)
                    .map_err(|_| err(format!("cannot allocate {size} bytes")))?;
                out.extend(count.to_le_bytes());
                for label in labels {
                    // Each label is shorter than the whole, which fits in memory and so in u32.
                    out.extend((label.len() as u32).to_le_bytes());
                    out.extend(label.as_bytes());
                }
                Ok(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(dtype: &str, data_type: DataType) -> Result<CategorizeCodec, String> {
        let config = json!({"labels": ["aa", "bbb"], "dtype": dtype, "astype": "|u1"});
        CategorizeCodec::from_configuration(
            Configuration::new(config.as_object().unwrap()),
            data_type,
        )
    }

    #[test]
    fn categories_decode_to_labels_and_unknowns_to_empty_strings() {
        let c = codec("<U2", DataType::FixedUnicode { chars: 2 }).unwrap();
        let repr = ChunkRepr {
            shape: vec![4],
            data_type: DataType::FixedUnicode { chars: 2 },
        };
        let out = c.decode(vec![1, 2, 0, 9], &repr).unwrap();
        assert_eq!(
            crate::data_type::fixed_string::utf32_to_strings(&out, 2),
            ["aa", "bb", "", ""]
        );
        let c = codec("|O", DataType::String).unwrap();
        let repr = ChunkRepr {
            shape: vec![2],
            data_type: DataType::String,
        };
        let out = c.decode(vec![2, 0], &repr).unwrap();
        assert_eq!(out, [2, 0, 0, 0, 3, 0, 0, 0, b'b', b'b', b'b', 0, 0, 0, 0]);
        assert!(c.decode(vec![1], &repr).is_err());
        assert!(codec("<U3", DataType::FixedUnicode { chars: 2 }).is_err());
        assert!(codec("éU2", DataType::FixedUnicode { chars: 2 }).is_err());
        assert!(codec("|O", DataType::Int32).is_err());
    }
}
