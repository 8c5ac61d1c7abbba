//! Building codecs and pipelines from metadata: each codec is found by its name in the codec
//! table (`TABLE`, one entry list per codec file) and built from its configuration.

use super::codec::{BuildContext, BytesToBytesCodec, ChunkDecoder, Codec, Kind};
use super::configuration::Configuration;
use super::entry;
use super::pipeline::{CodecPipeline, PipelineAssembler};
use crate::data_type::fill_value::FillValue;
use crate::data_type::DataType;
use crate::error::{Result, ZarrError};
use crate::metadata::extension::Extension;
use crate::metadata::{ArrayMetadata, CodecList};

/// The pipeline of an array's chunks, whichever format its metadata was written in. `location`
/// names the metadata document in errors.
pub fn array_pipeline(metadata: &ArrayMetadata, location: &str) -> Result<CodecPipeline> {
    let v2_equivalent;
    let codecs = match &metadata.codecs {
        CodecList::V3(codecs) => codecs,
        CodecList::V2(v2) => {
            v2_equivalent = super::numcodecs::v3_codecs(v2, location)?;
            &v2_equivalent
        }
    };
    build_pipeline(
        codecs,
        metadata.data_type,
        &metadata.fill_value,
        metadata.shape.len(),
        location,
    )
}

/// Builds the pipeline of `codecs` (a v3 `codecs` list) for chunks of `data_type` with `ndim`
/// dimensions. `location` names the metadata document in errors.
pub fn build_pipeline(
    codecs: &[Extension],
    data_type: DataType,
    fill_value: &FillValue,
    ndim: usize,
    location: &str,
) -> Result<CodecPipeline> {
    // Codecs that hold pipelines (sharding, n5_default) build them the same way; their errors
    // are then given as the holding codec's.
    let inner = |codecs: &[Extension], data_type, fill_value: &FillValue, ndim| {
        build_pipeline(codecs, data_type, fill_value, ndim, "its codecs")
            .map(|p| Box::new(p) as Box<dyn ChunkDecoder>)
            .map_err(|e| e.message)
    };
    let mut assembler = PipelineAssembler::new(data_type, fill_value, ndim);
    for codec in codecs {
        let invalid = |reason: String| {
            ZarrError::metadata(location, format!("codec \"{}\": {reason}", codec.name))
        };
        let Some(entry) = entry(codec.registered_name()) else {
            // Before `must_understand`: the full build applies what it understands, and the two
            // builds read alike.
            if super::left_out(codec.registered_name()) {
                return Err(ZarrError::not_in_this_build(location, &codec.name));
            }
            // The spec lets readers ignore what is marked `must_understand: false`.
            if !codec.must_understand {
                continue;
            }
            return Err(ZarrError::unsupported(
                location,
                format!("codec \"{}\"", codec.name),
            ));
        };
        let context = BuildContext {
            data_type: assembler.reaching(),
            fill_value: assembler.reaching_fill(),
            fill_problem: assembler.fill_problem(),
            ndim: assembler.reaching_ndim(),
            pipeline: &inner,
            bytes_codec,
        };
        let built =
            (entry.build)(Configuration::new(&codec.configuration), &context).map_err(invalid)?;
        assembler.push(built).map_err(invalid)?;
    }
    assembler
        .finish()
        .map_err(|reason| ZarrError::metadata(location, reason))
}

/// Builds the bytes-to-bytes codec `codec` in `cx` (a codec holding a list of them).
fn bytes_codec(
    codec: &Extension,
    cx: &BuildContext,
) -> std::result::Result<Box<dyn BytesToBytesCodec>, String> {
    let entry = entry(codec.registered_name())
        .ok_or_else(|| format!("codec \"{}\" is not supported", codec.name))?;
    if entry.kind != Kind::BytesToBytes {
        return Err(format!("\"{}\" is not a bytes-to-bytes codec", codec.name));
    }
    match (entry.build)(Configuration::new(&codec.configuration), cx) {
        Ok(Codec::BytesToBytes(built)) => Ok(built),
        Ok(_) => Err(format!("\"{}\" is not a bytes-to-bytes codec", codec.name)),
        Err(reason) => Err(format!("codec \"{}\": {reason}", codec.name)),
    }
}

/// Builds the bytes-to-bytes codec `codec` on its own, outside any pipeline, for chunks of
/// `data_type` (where known; it gives numcodecs' `shuffle` its default element size). This is for
/// hosts that run their own pipelines and borrow zarr-wasm's decoders (zarrita.js's codec
/// registry, through the bindings).
pub fn standalone_bytes_codec(
    codec: &Extension,
    data_type: Option<DataType>,
) -> std::result::Result<Box<dyn BytesToBytesCodec>, String> {
    // The one bytes codec whose configuration the data type completes: without either, any
    // element size taken would unshuffle into wrong bytes.
    let shuffle_without_size = codec.registered_name() == "numcodecs.shuffle"
        && codec
            .configuration
            .get("elementsize")
            .is_none_or(|size| size.as_u64() == Some(0));
    if shuffle_without_size && data_type.is_none_or(DataType::is_variable) {
        return Err(
            "\"elementsize\" is needed where the chunks' data type is not a fixed-size one".into(),
        );
    }
    let data_type = data_type.unwrap_or(DataType::UInt8);
    let fill_value = FillValue::from_native_bytes(vec![0; data_type.size()]);
    // A bytes-to-bytes codec holds no pipelines; conditional holds bytes codecs only.
    let no_pipelines = |_: &[Extension], _, _: &FillValue, _| {
        Err("a codec built on its own holds no pipelines".to_string())
    };
    let cx = BuildContext {
        data_type,
        fill_value: &fill_value,
        fill_problem: None,
        ndim: 1,
        pipeline: &no_pipelines,
        bytes_codec,
    };
    bytes_codec(codec, &cx)
}

/// The v3 names of every bytes-to-bytes codec in the table (what a host may build on its own).
pub fn bytes_codec_names() -> Vec<&'static str> {
    super::TABLE
        .iter()
        .flat_map(|entries| entries.iter())
        .filter(|entry| entry.kind == Kind::BytesToBytes)
        .flat_map(|entry| entry.names.iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codecs::codec::{Codec, DecodedSize, Kind};
    use crate::codecs::TABLE;
    use serde_json::json;

    #[test]
    fn every_name_is_in_the_table_once() {
        let mut names: Vec<&str> = TABLE
            .iter()
            .flat_map(|e| e.iter())
            .flat_map(|e| e.names.iter().copied())
            .collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n, "a name is in two entries");
        for name in [
            "bytes",
            "gzip",
            "numcodecs.gzip",
            "sharding_indexed",
            "numcodecs.delta",
        ] {
            assert!(entry(name).is_some(), "{name}");
        }
    }

    #[test]
    fn entries_build_codecs_of_their_kind() {
        // Each entry with a configuration it accepts: what it builds is the kind it declares.
        let fill = FillValue::from_native_bytes(vec![0; 2]);
        let inner = |_: &[Extension], _, _: &FillValue, _| Err("no inner pipelines here".into());
        let cx = BuildContext {
            data_type: DataType::UInt16,
            fill_value: &fill,
            fill_problem: None,
            ndim: 2,
            pipeline: &inner,
            bytes_codec,
        };
        let configs = [
            ("bytes", json!({"endian": "little"})),
            ("transpose", json!({"order": [1, 0]})),
            ("gzip", json!({"level": 1})),
            ("crc32c", json!({})),
            ("numcodecs.zlib", json!({"level": 1})),
            ("numcodecs.delta", json!({"dtype": "<u2"})),
        ];
        for (name, config) in configs {
            let entry = entry(name).unwrap();
            let built = (entry.build)(Configuration::new(config.as_object().unwrap()), &cx)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let kind = match built {
                Codec::ArrayToArray(_) => Kind::ArrayToArray,
                Codec::ArrayToBytes(_) => Kind::ArrayToBytes,
                Codec::BytesToBytes(_) => Kind::BytesToBytes,
            };
            assert_eq!(kind, entry.kind, "{name}");
        }
    }

    #[test]
    fn codecs_built_on_their_own_decode_and_other_kinds_are_refused() {
        let names = bytes_codec_names();
        for name in [
            "blosc",
            "zstd",
            "gzip",
            "crc32c",
            "numcodecs.lz4",
            "numcodecs.bz2",
        ] {
            assert!(names.contains(&name), "{name}");
        }
        for name in ["bytes", "transpose", "sharding_indexed", "numcodecs.delta"] {
            assert!(!names.contains(&name), "{name}");
        }
        let shuffle = Extension::parse(&json!({"name": "numcodecs.shuffle"})).unwrap();
        let codec = standalone_bytes_codec(&shuffle, Some(DataType::UInt16)).unwrap();
        let decoded = codec
            .decode(vec![1, 3, 2, 4], DecodedSize::AtMost(1 << 20))
            .unwrap();
        assert_eq!(decoded, [1, 2, 3, 4], "element size 2 from the data type");
        // NCZarr's `"elementsize": 0` is the data type's size too.
        let nczarr = json!({"name": "numcodecs.shuffle", "configuration": {"elementsize": 0}});
        let nczarr = Extension::parse(&nczarr).unwrap();
        let codec = standalone_bytes_codec(&nczarr, Some(DataType::UInt16)).unwrap();
        let decoded = codec
            .decode(vec![1, 3, 2, 4], DecodedSize::AtMost(1 << 20))
            .unwrap();
        assert_eq!(decoded, [1, 2, 3, 4], "element size 0: the data type's");
        let err = standalone_bytes_codec(&nczarr, None).err().unwrap();
        assert!(err.contains("\"elementsize\" is needed"), "{err}");
        let transpose =
            Extension::parse(&json!({"name": "transpose", "configuration": {"order": [0]}}))
                .unwrap();
        let err = standalone_bytes_codec(&shuffle, None).err().unwrap();
        assert!(err.contains("\"elementsize\" is needed"), "{err}");
        let err = standalone_bytes_codec(&transpose, None).err().unwrap();
        assert!(err.contains("not a bytes-to-bytes codec"), "{err}");
        let unknown = Extension::parse(&json!({"name": "nope"})).unwrap();
        let err = standalone_bytes_codec(&unknown, None).err().unwrap();
        assert!(err.contains("\"nope\" is not supported"), "{err}");
    }

    #[test]
    fn the_zarrita_plug_in_registers_every_bytes_codec() {
        // pkg/zarrita.js lists the names for zarrita's registry, which it fills before the
        // module loads: the list must be the table's.
        let source = include_str!("../../pkg/zarrita.js");
        let start = source.find("codecNames = Object.freeze([").unwrap();
        let list = &source[start..start + source[start..].find("]);").unwrap()];
        let mut listed: Vec<&str> = list.split('"').skip(1).step_by(2).collect();
        let mut names = bytes_codec_names();
        listed.sort();
        names.sort();
        assert_eq!(listed, names);
    }
}
