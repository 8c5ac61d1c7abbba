//! zarr-wasm's large decoders: numcodecs' `lzma` (XZ, LZMA "alone" and raw LZMA2 streams),
//! `bz2`, `pcodec` and `zfpy`. Together they would grow the main wasm module by about a fifth for codecs
//! few arrays use, so the npm package builds them as a second module that is loaded the first
//! time an array needs one (the main module calls it through `decode`); Rust users link them
//! into the core with zarr-wasm's `extra-codecs` feature.
//!
//! Every decoder takes arbitrary bytes and returns an error rather than panicking, and never
//! produces (or allocates for) more than the limit it is given.

pub mod bz2;
pub mod lzma;
pub mod pcodec;
pub mod zfpy;

#[cfg(target_arch = "wasm32")]
mod bindings;

/// Decodes `encoded` with the codec named `codec` (its v3 name). `param` is what the codec's
/// configuration says about the stream (`lzma::Format::code`, `pcodec::Number::code`), and
/// `limit` the most bytes the result may have (bytes codecs) or the exact element count
/// (pcodec, zfpy). The error says what is wrong with the stream, without naming the codec.
pub fn decode(codec: &str, param: u32, limit: usize, encoded: &[u8]) -> Result<Vec<u8>, String> {
    match codec {
        "numcodecs.lzma" => lzma::decode(encoded, lzma::Format::from_code(param)?, limit),
        "numcodecs.bz2" => bz2::decode(encoded, limit),
        "numcodecs.pcodec" => pcodec::decode(encoded, pcodec::Number::from_code(param)?, limit),
        "numcodecs.zfpy" => zfpy::decode(encoded, zfpy::Number::from_code(param)?, limit),
        _ => Err(format!("this module has no decoder for \"{codec}\"")),
    }
}

/// An output that refuses to grow past `max` bytes: decoders write into it, so a stream that
/// claims or produces more stops with an error at the limit.
pub(crate) struct Bounded {
    pub out: Vec<u8>,
    pub max: usize,
}

impl std::io::Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.max - self.out.len() {
            return Err(std::io::Error::other(format!(
                "decodes to more than the {} bytes the chunk may have",
                self.max
            )));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
