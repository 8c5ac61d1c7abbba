//! The second module's encoders, for the write build (the `encode` feature: a variant of the
//! module loaded at the first write, so that a page that only reads downloads none of them):
//! numcodecs' `bz2` (libbz2-rs-sys, libbzip2 ported to Rust, through the bzip2 crate) and
//! `pcodec` (pco, the format's own Rust library). numcodecs' `lzma` has no encoder here: the one
//! pure-Rust LZMA encoder among this crate's dependencies, lzma-rs's, writes every byte as a
//! literal (no match search), and its streams would be several times larger than liblzma's. ZFP
//! has none yet.

use crate::pcodec::Number;
use crate::{code_param, item_of};
use pco::{ChunkConfig, DeltaSpec, ModeSpec, PagingSpec};

/// Encodes `data` with the codec named `codec` (its v3 name). `params` is what the codec's
/// configuration says (see each encoder); the data is the chunk as the main module holds it
/// (bytes, or native-endian numbers). The error says what is wrong, without naming the codec.
pub fn encode(codec: &str, params: &[f64], data: &[u8]) -> Result<Vec<u8>, String> {
    match codec {
        "numcodecs.bz2" => bz2(data, code_param(params, 0)?),
        "numcodecs.pcodec" => pcodec(data, params),
        _ => Err(format!("this module has no encoder for \"{codec}\"")),
    }
}

/// One bzip2 stream at `level` (1-9: blocks of 100-900 KB), as Python's `bz2.compress` writes.
fn bz2(data: &[u8], level: u32) -> Result<Vec<u8>, String> {
    use std::io::Write;
    if !(1..=9).contains(&level) {
        return Err(format!("level {level} (1 to 9)"));
    }
    let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level));
    encoder.write_all(data).map_err(|e| e.to_string())?;
    encoder.finish().map_err(|e| e.to_string())
}

const MODES: [&str; 2] = ["auto", "classic"];
const DELTAS: [&str; 4] = ["auto", "none", "try_consecutive", "try_lookback"];

/// A pcodec standalone file of the numbers in `data`, as numcodecs' `PCodec.encode` writes it.
/// `params`: the number type (`Number::code`), the level (0-12), the mode spec and delta spec
/// (their places in `MODES` and `DELTAS`, from 1), the delta encoding order (or -1: none), and
/// the most numbers per page.
fn pcodec(data: &[u8], params: &[f64]) -> Result<Vec<u8>, String> {
    let number = Number::from_code(code_param(params, 0)?)?;
    let level = code_param(params, 1)? as usize;
    if level > 12 {
        return Err(format!("level {level} (0 to 12)"));
    }
    let mode = match item_of(&MODES, code_param(params, 2)?, "mode spec")? {
        "classic" => ModeSpec::Classic,
        _ => ModeSpec::Auto,
    };
    let order = match params.get(4) {
        Some(&o) if o >= 0.0 => Some(code_param(params, 4)? as usize),
        _ => None,
    };
    let delta = match (
        item_of(&DELTAS, code_param(params, 3)?, "delta spec")?,
        order,
    ) {
        ("auto", Some(order)) | ("try_consecutive", Some(order)) => {
            DeltaSpec::TryConsecutive(order)
        }
        ("try_consecutive", None) => return Err("try_consecutive without an order".into()),
        (_, Some(_)) => return Err("a delta encoding order is for try_consecutive".into()),
        ("none", None) => DeltaSpec::NoOp,
        ("try_lookback", None) => DeltaSpec::TryLookback,
        _ => DeltaSpec::Auto,
    };
    let pages = code_param(params, 5)? as usize;
    if pages == 0 {
        return Err("pages of 0 numbers".into());
    }
    let config = ChunkConfig::default()
        .with_compression_level(level)
        .with_mode_spec(mode)
        .with_delta_spec(delta)
        .with_paging_spec(PagingSpec::EqualPagesUpTo(pages));
    let size = number.size();
    if !data.len().is_multiple_of(size) {
        return Err(format!(
            "{} bytes are not whole numbers of {size}",
            data.len()
        ));
    }
    macro_rules! compress {
        ($t:ty) => {{
            let numbers: Vec<$t> = data
                .chunks_exact(size)
                .map(|b| <$t>::from_ne_bytes(b.try_into().unwrap()))
                .collect();
            pco::standalone::simple_compress(&numbers, &config).map_err(|e| e.to_string())
        }};
    }
    match number {
        // numcodecs encodes 16- to 64-bit numbers (pcodec's 8-bit mode is off there).
        Number::U8 | Number::I8 => Err("pcodec encodes 16- to 64-bit numbers".into()),
        Number::U16 => compress!(u16),
        Number::I16 => compress!(i16),
        Number::U32 => compress!(u32),
        Number::I32 => compress!(i32),
        Number::U64 => compress!(u64),
        Number::I64 => compress!(i64),
        Number::F16 => compress!(half::f16),
        Number::F32 => compress!(f32),
        Number::F64 => compress!(f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bz2_and_pcodec_decode_back_with_this_crates_decoders() {
        let bytes: Vec<u8> = (0..300_000u32)
            .flat_map(|i| (i % 1000).to_ne_bytes())
            .collect();
        for level in [1, 9] {
            let stream = encode("numcodecs.bz2", &[level as f64], &bytes).unwrap();
            assert!(stream.len() < bytes.len() / 10);
            assert_eq!(
                crate::decode("numcodecs.bz2", &[], usize::MAX, &stream).unwrap(),
                bytes
            );
        }
        let u32s = Number::U32.code() as f64;
        for params in [
            vec![u32s, 8.0, 1.0, 1.0, -1.0, 262_144.0],
            vec![u32s, 3.0, 2.0, 2.0, -1.0, 1000.0],
            vec![u32s, 12.0, 1.0, 3.0, 2.0, 262_144.0],
        ] {
            let file = encode("numcodecs.pcodec", &params, &bytes).unwrap();
            assert!(file.len() < bytes.len() / 2, "{params:?}: {}", file.len());
            let back = crate::decode("numcodecs.pcodec", &[u32s], 300_000, &file).unwrap();
            assert_eq!(back, bytes, "{params:?}");
        }
    }

    #[test]
    fn bad_parameters_are_errors() {
        let u16s = Number::U16.code() as f64;
        let good = [u16s, 8.0, 1.0, 1.0, -1.0, 100.0];
        assert!(encode("numcodecs.bz2", &[0.0], b"x").is_err());
        assert!(encode("numcodecs.pcodec", &good, &[1, 2, 3]).is_err()); // not whole numbers
        let mut bad = good;
        bad[1] = 13.0;
        assert!(encode("numcodecs.pcodec", &bad, &[1, 2]).is_err());
        bad = good;
        bad[5] = 0.0;
        assert!(encode("numcodecs.pcodec", &bad, &[1, 2]).is_err());
        let u8s = Number::U8.code() as f64;
        assert!(encode(
            "numcodecs.pcodec",
            &[u8s, 8.0, 1.0, 1.0, -1.0, 9.0],
            &[1, 2]
        )
        .is_err());
        assert!(encode("numcodecs.lzma", &[], b"x").is_err());
    }
}
