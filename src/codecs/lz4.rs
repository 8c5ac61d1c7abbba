//! numcodecs' `LZ4` (v3 name `numcodecs.lz4`): a 4-byte little-endian decoded size, then one raw
//! LZ4 block, decoded with lz4_flex into a buffer of exactly that size (and encoded by the
//! kernels' own compressor).

use super::codec::{BytesToBytesCodec, Codec, CodecEntry, DecodedSize, Kind};
use super::configuration::Configuration;
use crate::collections::buffer::try_zeroed;
use crate::error::CodecError;

/// numcodecs' `lz4`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["numcodecs.lz4"],
    kind: Kind::BytesToBytes,
    build: |config, _| Ok(Codec::bytes_to_bytes(Lz4Codec::from_configuration(config)?)),
}];

pub struct Lz4Codec {
    /// How fast the encoder crosses bytes it finds no match in (liblz4's `acceleration`: 1 by
    /// default, and as numcodecs writes it; larger is faster and compresses less). Kept by the
    /// write build only: a reader does not need it.
    #[cfg(feature = "write")]
    acceleration: u32,
}

impl Lz4Codec {
    pub fn from_configuration(config: Configuration) -> Result<Lz4Codec, String> {
        let acceleration = config.optional::<i64>("acceleration")?;
        #[cfg(not(feature = "write"))]
        let _ = acceleration; // checked, not needed to decode
        Ok(Lz4Codec {
            // liblz4 takes values below 1 as 1, and above 65537 as 65537.
            #[cfg(feature = "write")]
            acceleration: acceleration.unwrap_or(1).clamp(1, 65_537) as u32,
        })
    }
}

impl BytesToBytesCodec for Lz4Codec {
    fn name(&self) -> &'static str {
        "numcodecs.lz4"
    }

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    /// The decoded size (4 bytes, little endian), then one LZ4 block, as numcodecs writes it.
    #[cfg(feature = "write")]
    fn encode(&self, decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let size = u32::try_from(decoded.len()).map_err(|_| {
            CodecError::new(
                "numcodecs.lz4",
                format!("{} bytes are more than LZ4 takes", decoded.len()),
            )
        })?;
        let bound = zarr_wasm_kernels::lz4::max_compressed_size(decoded.len());
        let mut out = try_zeroed(4 + bound).map_err(|e| CodecError::new("numcodecs.lz4", e))?;
        out[..4].copy_from_slice(&size.to_le_bytes());
        let len = zarr_wasm_kernels::lz4::compress_into(&decoded, &mut out[4..], self.acceleration)
            .map_err(|e| CodecError::new("numcodecs.lz4", e))?;
        out.truncate(4 + len);
        Ok(out)
    }

    fn decode(&self, encoded: Vec<u8>, decoded_size: DecodedSize) -> Result<Vec<u8>, CodecError> {
        decompress(&encoded, decoded_size).map_err(|e| CodecError::new("numcodecs.lz4", e))
    }

    fn decode_into(&self, encoded: Vec<u8>, out: &mut [u8]) -> Result<(), CodecError> {
        decompress_into(&encoded, out).map_err(|e| CodecError::new("numcodecs.lz4", e))
    }
}

/// Decodes a size-prefixed LZ4 block; `expected` is the exact decoded size where known (`None`:
/// at most the default cap).
pub fn decompress(data: &[u8], expected: impl Into<DecodedSize>) -> Result<Vec<u8>, String> {
    let size = declared_size(data, expected.into())?;
    let mut out = try_zeroed(size)?;
    decode_block(data, &mut out)?;
    Ok(out)
}

/// Decodes a size-prefixed LZ4 block of exactly `out.len()` bytes into `out`.
pub fn decompress_into(data: &[u8], out: &mut [u8]) -> Result<(), String> {
    declared_size(data, DecodedSize::Exact(out.len()))?;
    decode_block(data, out)
}

/// The decoded size the prefix declares, checked against `expected` and against what the block's
/// bytes can hold.
fn declared_size(data: &[u8], expected: DecodedSize) -> Result<usize, String> {
    let prefix = data.get(..4).ok_or_else(|| {
        format!(
            "LZ4 data is {} bytes, shorter than its 4-byte size prefix",
            data.len()
        )
    })?;
    let size = u32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
    expected.check_declared("LZ4 size prefix", size)?;
    // Each input byte of an LZ4 block yields at most 255 output bytes: a larger claim is corrupt,
    // and refusing it early keeps a 5-byte input from allocating gigabytes.
    let body = data.len() - 4;
    if size > body.saturating_mul(255).saturating_add(16) {
        return Err(format!(
            "LZ4 size prefix says {size} bytes, more than {body} compressed bytes can hold"
        ));
    }
    Ok(size)
}

/// Decodes the block after the prefix into `out`, which is the declared size.
fn decode_block(data: &[u8], out: &mut [u8]) -> Result<(), String> {
    let written = zarr_wasm_kernels::lz4::decompress(&data[4..], out)
        .map_err(|e| format!("LZ4 block is invalid: {e}"))?;
    if written != out.len() {
        return Err(format!(
            "LZ4 block decodes to {written} bytes, its prefix says {}",
            out.len()
        ));
    }
    Ok(())
}
