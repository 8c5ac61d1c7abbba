//! numcodecs' `LZMA` codec (v3 `numcodecs.lzma`): Python's `lzma` streams in the container its
//! `format` names. Decoded in the second module (`extra.rs`), in steps.

use super::codec::{
    decode_whole, decode_whole_into, BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind,
    StepDecoder,
};
use super::configuration::{Configuration, Field};
use super::extra::Stepwise;
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

/// liblzma's id of the LZMA2 filter: the last of an XZ or raw stream's chain.
const FILTER_LZMA2: u64 = 0x21;
/// liblzma's id of the LZMA1 filter: the one filter of the alone format, whose header repeats
/// its options.
const FILTER_LZMA1: u64 = 0x4000_0000_0000_0001;
/// liblzma's id of the delta filter (Python's `lzma.FILTER_DELTA`), before LZMA2 in a chain.
const FILTER_DELTA: u64 = 0x03;

/// One entry of `filters` (Python's filter chain): its `id`, and a delta filter's `dist` (1 to
/// 256; Python's default 1).
struct Filter {
    id: u64,
    dist: Option<u64>,
}

impl Field<'_> for Filter {
    fn expected() -> String {
        "a filter (an object with an \"id\"; a delta filter's \"dist\" from 1 to 256)".into()
    }
    fn read(value: &Value) -> Option<Filter> {
        let id = value.get("id")?.as_u64()?;
        let dist = match value.get("dist") {
            None | Some(Value::Null) => None,
            Some(d) => Some(d.as_u64().filter(|d| (1..=256).contains(d))?),
        };
        Some(Filter { id, dist })
    }
}

pub struct LzmaCodec {
    /// Python's `lzma.FORMAT_*`: 0 auto, 1 XZ, 2 alone, 3 raw (`extra-codecs`' `lzma::Format`).
    format: u32,
    /// A raw stream's delta filters' distances, in the chain's order (an XZ stream names its own
    /// chain).
    deltas: Vec<u64>,
}

impl LzmaCodec {
    pub fn from_configuration(config: Configuration) -> Result<LzmaCodec, String> {
        let format = config.optional::<u64>("format")?.unwrap_or(1);
        let filters = config.optional::<Vec<Filter>>("filters")?;
        if format > 3 {
            return Err(format!(
                "\"format\" must be 0 to 3 (Python's lzma.FORMAT_*), not {format}"
            ));
        }
        let Some(filters) = filters else {
            return match format {
                3 => Err("a raw stream (format 3) needs its filter chain in \"filters\"".into()),
                _ => Ok(LzmaCodec {
                    format: format as u32,
                    deltas: Vec::new(),
                }),
            };
        };
        let ids: Vec<u64> = filters.iter().map(|f| f.id).collect();
        if format == 2 {
            if ids != [FILTER_LZMA1] {
                return Err("the alone format (2) is read with its one LZMA1 filter only".into());
            }
            return Ok(LzmaCodec {
                format: 2,
                deltas: Vec::new(),
            });
        }
        // XZ and raw chains: delta filters, then LZMA2 (liblzma: at most 4 filters). An XZ
        // stream's blocks name their chain themselves; a raw stream's is this one.
        let read = match ids.split_last() {
            Some((&FILTER_LZMA2, before)) => {
                before.len() < 4 && before.iter().all(|&id| id == FILTER_DELTA)
            }
            _ => false,
        };
        if !read {
            let names: Vec<String> = ids.iter().map(|&id| filter_name(id)).collect();
            return Err(format!(
                "the filter chain [{}] is not read: only delta filters (0x03) then LZMA2 (0x21), at most four in all",
                names.join(", ")
            ));
        }
        Ok(LzmaCodec {
            format: format as u32,
            deltas: filters
                .iter()
                .filter(|f| f.id == FILTER_DELTA)
                .map(|f| f.dist.unwrap_or(1))
                .collect(),
        })
    }
}

/// A filter id as errors name it.
fn filter_name(id: u64) -> String {
    let name = match id {
        FILTER_LZMA1 => "LZMA1",
        FILTER_LZMA2 => "LZMA2",
        FILTER_DELTA => "delta",
        0x04..=0x0b => "BCJ",
        _ => "unknown",
    };
    format!("{id:#04x} {name}")
}

impl BytesToBytesCodec for LzmaCodec {
    fn name(&self) -> &'static str {
        "numcodecs.lzma"
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        let steps = self.steps(encoded, decoded_size.limit());
        decode_whole(self.name(), steps, decoded_size)
    }

    fn decode_into(&self, encoded: Vec<u8>, out: &mut [u8]) -> Result<(), CodecError> {
        decode_whole_into(self.name(), self.steps(encoded, out.len()), out)
    }

    fn stepwise(
        &self,
        encoded: Vec<u8>,
        decoded_size: DecodedSize,
    ) -> Result<Box<dyn StepDecoder + '_>, Vec<u8>> {
        Ok(Box::new(self.steps(encoded, decoded_size.limit())))
    }
}

impl LzmaCodec {
    /// The decode of `encoded` to at most `limit` bytes, in the second module.
    fn steps(&self, encoded: Vec<u8>, limit: usize) -> Stepwise {
        // The format, then a raw chain's delta distances (`extra-codecs`' `begin`).
        let params: Vec<f64> = std::iter::once(f64::from(self.format))
            .chain(self.deltas.iter().map(|&d| d as f64))
            .collect();
        Stepwise::new(self.name(), params, limit, encoded)
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
    fn configurations_python_and_gdal_write_are_read_and_others_refused() {
        let lzma1 = json!([{"id": FILTER_LZMA1, "dict_size": 1 << 20}]);
        let lzma2 = json!([{"id": FILTER_LZMA2, "preset": 1}]);
        let delta_lzma2 = json!([{"id": 3, "dist": 4}, {"id": FILTER_LZMA2, "preset": 1}]);
        let deltas = |config: Value| build(config).map(|c| (c.format, c.deltas));
        assert_eq!(deltas(json!({})), Ok((1, vec![])));
        // GDAL's COMPRESS=LZMA: no format, its own "delta" key (the chain is in the stream).
        assert_eq!(
            deltas(json!({"id": "lzma", "preset": 6, "delta": 1})),
            Ok((1, vec![]))
        );
        assert!(build(json!({"format": 1, "check": -1, "preset": null, "filters": null})).is_ok());
        assert!(build(json!({"format": 2, "filters": lzma1})).is_ok());
        assert_eq!(
            deltas(json!({"format": 3, "filters": lzma2})),
            Ok((3, vec![]))
        );
        assert_eq!(
            deltas(json!({"format": 3, "filters": delta_lzma2})),
            Ok((3, vec![4]))
        );
        assert_eq!(
            deltas(json!({"format": 1, "filters": delta_lzma2})),
            Ok((1, vec![4]))
        );
        assert_eq!(
            deltas(
                json!({"format": 3, "filters": [{"id": 3}, {"id": 3, "dist": 256}, {"id": FILTER_LZMA2}]})
            ),
            Ok((3, vec![1, 256]))
        );
        for (config, why) in [
            (json!({"format": 3}), "needs its filter chain"),
            (
                json!({"format": 1, "filters": [{"id": 4}, {"id": FILTER_LZMA2}]}),
                "[0x04 BCJ, 0x21 LZMA2] is not read",
            ),
            (
                json!({"format": 3, "filters": [{"id": FILTER_LZMA2}, {"id": 3}]}),
                "is not read",
            ),
            (
                json!({"format": 3, "filters": [{"id": 3}, {"id": 3}, {"id": 3}, {"id": 3}, {"id": FILTER_LZMA2}]}),
                "at most four",
            ),
            (
                json!({"format": 3, "filters": [{"id": 3, "dist": 257}, {"id": FILTER_LZMA2}]}),
                "\"dist\" from 1 to 256",
            ),
            (json!({"format": 9}), "0 to 3"),
            (
                json!({"format": 1, "filters": lzma1}),
                "0x4000000000000001 LZMA1",
            ),
            (json!({"format": 2, "filters": lzma2}), "one LZMA1 filter"),
        ] {
            let err = build(config.clone()).err().unwrap_or_default();
            assert!(err.contains(why), "{config}: {err}");
        }
    }
}
