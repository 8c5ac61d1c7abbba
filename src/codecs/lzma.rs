//! numcodecs' `LZMA` codec (v3 `numcodecs.lzma`): Python's `lzma` streams in the container its
//! `format` names. Decoded in the second module (`extra.rs`).

use super::codec::{BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind};
use super::configuration::{Configuration, Field};
use super::extra;
use crate::error::CodecError;
use serde_json::Value;

/// numcodecs' `lzma`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.lzma"],
    kind: Kind::BytesToBytes,
    build: |config, _| {
        Ok(Codec::bytes_to_bytes(LzmaCodec::from_configuration(
            config,
        )?))
    },
}];

/// liblzma's id of the LZMA2 filter, the one filter lzma-rs decodes in XZ and raw streams.
const FILTER_LZMA2: u64 = 0x21;
/// liblzma's id of the LZMA1 filter: the one filter of the alone format, whose header repeats
/// its options.
const FILTER_LZMA1: u64 = 0x4000_0000_0000_0001;

/// One entry of `filters` (Python's filter chain): its `id`.
struct Filter(u64);

impl Field<'_> for Filter {
    fn expected() -> String {
        "a filter (an object with an \"id\")".into()
    }
    fn read(value: &Value) -> Option<Filter> {
        value.get("id")?.as_u64().map(Filter)
    }
}

pub struct LzmaCodec {
    /// Python's `lzma.FORMAT_*`: 0 auto, 1 XZ, 2 alone, 3 raw (`extra-codecs`' `lzma::Format`).
    format: u32,
}

impl LzmaCodec {
    pub fn from_configuration(config: Configuration) -> Result<LzmaCodec, String> {
        let format = config.optional::<u64>("format")?.unwrap_or(1);
        let filters = config.optional::<Vec<Filter>>("filters")?;
        let only_lzma2 = filters
            .as_ref()
            .is_none_or(|f| f.iter().all(|Filter(id)| *id == FILTER_LZMA2));
        let only_lzma1 = filters
            .as_ref()
            .is_some_and(|f| f.len() == 1 && f.iter().all(|Filter(id)| *id == FILTER_LZMA1));
        match format {
            2 if only_lzma1 => {}
            0..=2 if only_lzma2 => {}
            0..=2 => return Err("filters other than LZMA2 (delta, BCJ) are not read".into()),
            3 if filters.as_ref().is_some_and(|f| f.len() == 1) && only_lzma2 => {}
            3 => return Err("a raw stream (format 3) is read with one LZMA2 filter only".into()),
            _ => {
                return Err(format!(
                    "\"format\" must be 0 to 3 (Python's lzma.FORMAT_*), not {format}"
                ))
            }
        }
        Ok(LzmaCodec {
            format: format as u32,
        })
    }
}

impl BytesToBytesCodec for LzmaCodec {
    fn name(&self) -> &'static str {
        "numcodecs.lzma"
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let out = extra::decode(
            self.name(),
            &[f64::from(self.format)],
            decoded_size.limit(),
            &encoded,
        )
        .map_err(|e| CodecError::new(self.name(), e))?;
        decoded_size.check_output(self.name(), out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn build(config: Value) -> Result<LzmaCodec, String> {
        LzmaCodec::from_configuration(Configuration::new(config.as_object().unwrap()))
    }

    #[test]
    fn configurations_python_writes_are_read_and_others_refused() {
        let lzma1 = json!([{"id": FILTER_LZMA1, "dict_size": 1 << 20}]);
        let lzma2 = json!([{"id": FILTER_LZMA2, "preset": 1}]);
        assert!(build(json!({})).is_ok());
        assert!(build(json!({"format": 1, "check": -1, "preset": null, "filters": null})).is_ok());
        assert!(build(json!({"format": 2, "filters": lzma1})).is_ok());
        assert!(build(json!({"format": 3, "filters": lzma2})).is_ok());
        for (config, why) in [
            (json!({"format": 3}), "one LZMA2 filter"),
            (
                json!({"format": 1, "filters": [{"id": 3}, {"id": FILTER_LZMA2}]}),
                "delta, BCJ",
            ),
            (json!({"format": 9}), "0 to 3"),
            (json!({"format": 1, "filters": lzma1}), "delta, BCJ"),
        ] {
            let err = build(config.clone()).err().unwrap_or_default();
            assert!(err.contains(why), "{config}: {err}");
        }
    }
}
