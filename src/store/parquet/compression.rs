//! The page codecs Parquet writers use for reference files: none, Snappy (raw blocks), GZIP (one
//! gzip member) and ZSTD, each decoded into exactly the page's declared uncompressed size with
//! the decoders the crate already has (zarr-wasm-kernels' Snappy and zstd, miniz_oxide through
//! `compression::inflate`). The declared size is checked against what the page's bytes can make
//! in its codec before anything is allocated (Snappy 64 bytes of every 3, DEFLATE 1032 of each,
//! zstd 32768 of each: a 128 KiB RLE block from 4 bytes), then reserved exactly: the buffer never
//! grows past it.

use super::thrift::Result;
use crate::collections::buffer::try_zeroed;
use crate::compression::inflate::{inflate_append, Wrapper};
use zarr_wasm_kernels::crc32;

pub const UNCOMPRESSED: i32 = 0;
pub const SNAPPY: i32 = 1;
pub const GZIP: i32 = 2;
pub const ZSTD: i32 = 6;

/// DEFLATE makes at most 1032 bytes of each (a 258-byte match in about 2 bits).
const MAX_DEFLATE_RATIO: u64 = 1032;
/// zstd makes at most 32768 bytes of each: a block of at most 128 KiB takes at least 4 bytes (an
/// RLE block: a 3-byte header and its byte).
const MAX_ZSTD_RATIO: u64 = 32_768;

/// An error where `size` is more than `input` can make at `ratio` bytes a byte.
fn check_ratio(codec: &str, input: &[u8], size: usize, ratio: u64) -> Result<()> {
    let most = input.len() as u64 * ratio;
    if size as u64 > most {
        return Err(format!(
            "a {codec} page of {} bytes says it holds {size}, more than it can (at most {most})",
            input.len()
        ));
    }
    Ok(())
}

/// An empty vector with room for exactly `size` bytes, or an error naming the size.
fn exactly(size: usize) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    out.try_reserve_exact(size)
        .map_err(|_| format!("cannot allocate {size} bytes"))?;
    Ok(out)
}

/// The codec's name in messages.
pub fn name(codec: i32) -> String {
    match codec {
        0 => "UNCOMPRESSED".into(),
        1 => "SNAPPY".into(),
        2 => "GZIP".into(),
        3 => "LZO".into(),
        4 => "BROTLI".into(),
        5 => "LZ4".into(),
        6 => "ZSTD".into(),
        7 => "LZ4_RAW".into(),
        c => format!("codec {c}"),
    }
}

/// Whether pages of `codec` can be read.
pub fn supported(codec: i32) -> bool {
    matches!(codec, UNCOMPRESSED | SNAPPY | GZIP | ZSTD)
}

/// `input` decoded with `codec` into exactly `size` bytes (the caller bounds `size`).
pub fn decompress(codec: i32, input: &[u8], size: usize) -> Result<Vec<u8>> {
    match codec {
        UNCOMPRESSED => {
            if input.len() != size {
                return Err(format!(
                    "an uncompressed page of {} bytes says it holds {size}",
                    input.len()
                ));
            }
            Ok(input.to_vec())
        }
        SNAPPY => {
            let declared = zarr_wasm_kernels::snappy::decompressed_len(input)?;
            if declared != size {
                return Err(format!(
                    "a Snappy page says it holds {size} bytes and its stream {declared}"
                ));
            }
            let mut out = try_zeroed(size)?;
            zarr_wasm_kernels::snappy::decompress(input, &mut out)?;
            Ok(out)
        }
        GZIP => gunzip(input, size),
        ZSTD => unzstd(input, size),
        c => Err(format!(
            "pages compressed with {} are not read (UNCOMPRESSED, SNAPPY, GZIP and ZSTD are)",
            name(c)
        )),
    }
}

fn unzstd(input: &[u8], size: usize) -> Result<Vec<u8>> {
    check_ratio("zstd", input, size, MAX_ZSTD_RATIO)?;
    // A first frame that says it holds more than the page is refused before anything is
    // decoded (frames that follow it, if any, are bounded as they are decoded).
    let header = zarr_wasm_kernels::zstd::FrameHeader::parse(input).ok();
    if let Some(n) = header
        .and_then(|h| h.content_size)
        .filter(|&n| n > size as u64)
    {
        return Err(format!(
            "zstd: the page's frame says it holds {n} bytes, more than the page's {size}"
        ));
    }
    let out = zarr_wasm_kernels::zstd::decode_into_vec(input, exactly(size)?, size, None)
        .map_err(|e| format!("zstd: {e}"))?;
    let written = out.len();
    if written != size {
        return Err(format!(
            "zstd: the page decodes to {written} bytes, not the {size} it says"
        ));
    }
    Ok(out)
}

/// One gzip member (RFC 1952): its header, DEFLATE data, and CRC-32 and size checked.
fn gunzip(input: &[u8], size: usize) -> Result<Vec<u8>> {
    let bad = |what: &str| format!("gzip: {what}");
    let header = input
        .get(..10)
        .ok_or_else(|| bad("shorter than its header"))?;
    if header[..3] != [0x1f, 0x8b, 8] {
        return Err(bad("no gzip header (1f 8b 08)"));
    }
    let flags = header[3];
    let mut at = 10;
    let past = |at: usize| at > input.len();
    if flags & 4 != 0 {
        let len = input
            .get(at..at + 2)
            .ok_or_else(|| bad("its extra field is cut off"))?;
        at += 2 + u16::from_le_bytes([len[0], len[1]]) as usize;
    }
    for flag in [8, 16] {
        if flags & flag != 0 {
            let end = input
                .get(at.min(input.len())..)
                .and_then(|rest| rest.iter().position(|&b| b == 0))
                .ok_or_else(|| bad("its file name or comment is not terminated"))?;
            at += end + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    if past(at) {
        return Err(bad("its header runs past the data"));
    }
    check_ratio("gzip", &input[at..], size, MAX_DEFLATE_RATIO)?;
    let mut out = exactly(size)?;
    let used = inflate_append(&input[at..], &mut out, size, Wrapper::Raw).map_err(|e| bad(&e))?;
    let trailer = input
        .get(at + used..at + used + 8)
        .ok_or_else(|| bad("its CRC-32 and size are cut off"))?;
    let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let isize = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    if crc32::crc32(&out) != crc {
        return Err(bad("its CRC-32 does not match the data"));
    }
    if out.len() != size || isize != size as u32 {
        return Err(bad(&format!(
            "the page decodes to {} bytes, not the {size} it says",
            out.len()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_codec_decodes_and_refuses_corrupt_or_missized_input() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 37) as u8).collect();
        assert_eq!(decompress(UNCOMPRESSED, &data, data.len()).unwrap(), data);
        assert!(decompress(UNCOMPRESSED, &data, 10).is_err());

        // gzip, by miniz_oxide's deflate behind a header written here.
        let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
        gz.extend(miniz_oxide::deflate::compress_to_vec(&data, 6));
        gz.extend(crc32::crc32(&data).to_le_bytes());
        gz.extend((data.len() as u32).to_le_bytes());
        assert_eq!(decompress(GZIP, &gz, data.len()).unwrap(), data);
        assert!(decompress(GZIP, &gz, data.len() - 1).is_err());
        let mut bad_crc = gz.clone();
        let n = bad_crc.len();
        bad_crc[n - 8] ^= 1;
        assert!(decompress(GZIP, &bad_crc, data.len())
            .unwrap_err()
            .contains("CRC"));
        for cut in [0, 5, 12, gz.len() - 3] {
            assert!(decompress(GZIP, &gz[..cut], data.len()).is_err());
        }

        // zstd, by libzstd where the tests have it.
        #[cfg(not(target_arch = "wasm32"))]
        {
            let z = zstd::encode_all(&data[..], 3).unwrap();
            assert_eq!(decompress(ZSTD, &z, data.len()).unwrap(), data);
            assert!(decompress(ZSTD, &z, data.len() + 1).is_err());
            assert!(decompress(ZSTD, &z, data.len() - 1).is_err());
            assert!(decompress(ZSTD, &z[..z.len() / 2], data.len()).is_err());
        }

        // Snappy: a literal of 3 bytes.
        let snappy = [3, 2 << 2, b'a', b'b', b'c'];
        assert_eq!(decompress(SNAPPY, &snappy, 3).unwrap(), b"abc");
        assert!(decompress(SNAPPY, &snappy, 4).is_err());
        assert!(decompress(SNAPPY, &snappy[..4], 3).is_err());

        assert!(decompress(5, &data, data.len())
            .unwrap_err()
            .contains("LZ4"));
    }
}
