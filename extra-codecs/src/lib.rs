//! zarr-wasm's large decoders: numcodecs' `lzma` (XZ, LZMA "alone" and raw LZMA2 streams),
//! `bz2`, `pcodec` and `zfpy`, and the registry's `zfp`. Together they would grow the main wasm module by about a fifth for codecs
//! few arrays use, so the npm package builds them as a second module that is loaded the first
//! time an array needs one (the main module calls it through `begin`, then the decode's steps);
//! Rust users link them into the core with zarr-wasm's `extra-codecs` feature.
//!
//! Every decoder takes arbitrary bytes and returns an error rather than panicking, and never
//! produces (or allocates for) more than the limit it is given. Every decoder works in steps of
//! bounded work (`Steps`), so that a chunk that inflates to hundreds of MB (bz2, lzma), or a
//! large chunk of numbers (pcodec, ZFP), never holds a page's thread for long.

pub mod bz2;
#[cfg(feature = "encode")]
pub mod encode;
pub mod lzma;
pub mod lzma_decoder;
pub mod pcodec;
pub mod xz;
pub mod zfp;

#[cfg(target_arch = "wasm32")]
mod bindings;

#[cfg(feature = "encode")]
pub use encode::encode;

/// A decode in progress that works in steps (`begin`), so that a caller with an event loop to
/// keep going (the main module, on a page's thread) can let it run between them, and drop the
/// decode there when its read is aborted.
pub trait Steps {
    /// Decodes about `budget` more bytes onto the end of `out` (a step may go past it by a
    /// format's unit: an LZMA match, a ZFP block row, a pcodec batch); whether the decode is now
    /// complete. Each step's work is bounded by its budget, whatever the stream claims. A step
    /// that fails ends the decode.
    fn step(&mut self, budget: usize, out: &mut Vec<u8>) -> Result<bool, String>;
}

/// Begins decoding `encoded` with the codec named `codec` (its v3 name). `params` is what the
/// codec's configuration and the chunk say about the stream (`lzma::Format::code` and a raw
/// chain's delta distances, `pcodec::Number::code`, `zfp::RegistryStream::from_params`), and
/// `limit` the most bytes the result may have (bytes codecs) or the exact element count (pcodec,
/// zfpy, zfp). The error says what is wrong with the stream, without naming the codec.
pub fn begin(
    codec: &str,
    params: &[f64],
    limit: usize,
    encoded: Vec<u8>,
) -> Result<Box<dyn Steps>, String> {
    let first = || code_param(params, 0);
    Ok(match codec {
        "numcodecs.lzma" => {
            // Then the distances of a raw stream's delta filters, in the chain's order.
            let deltas = (1..params.len())
                .map(|i| match code_param(params, i)? {
                    d @ 1..=256 => Ok(d as usize),
                    d => Err(format!("a delta distance of {d} (1 to 256)")),
                })
                .collect::<Result<Vec<_>, String>>()?;
            lzma::begin(encoded, lzma::Format::from_code(first()?)?, &deltas, limit)?
        }
        "numcodecs.bz2" => Box::new(bz2::Bz2Steps::new(encoded, limit)),
        "numcodecs.pcodec" => pcodec::begin(encoded, pcodec::Number::from_code(first()?)?, limit)?,
        "numcodecs.zfpy" => {
            zfp::begin_with_header(&encoded, zfp::Number::from_code(first()?)?, limit)?
        }
        "zfp" => zfp::begin_registry(&encoded, params, limit)?,
        _ => return Err(format!("this module has no decoder for \"{codec}\"")),
    })
}

/// Decodes `encoded` in one go (see `begin`).
pub fn decode(
    codec: &str,
    params: &[f64],
    limit: usize,
    encoded: &[u8],
) -> Result<Vec<u8>, String> {
    let mut steps = begin(codec, params, limit, encoded.to_vec())?;
    let mut out = Vec::new();
    while !steps.step(usize::MAX, &mut out)? {}
    Ok(out)
}

/// `params[index]` as a code or count: the main module sends whole numbers.
pub(crate) fn code_param(params: &[f64], index: usize) -> Result<u32, String> {
    match params.get(index) {
        Some(&p) if p >= 0.0 && p <= f64::from(u32::MAX) && p.fract() == 0.0 => Ok(p as u32),
        Some(p) => Err(format!("parameter {index} ({p}) is not a code")),
        None => Err(format!("parameter {index} is missing")),
    }
}

/// The code by which the main module names `item` of `table` (its place, from 1).
pub(crate) fn code_of<T: PartialEq>(table: &[T], item: &T) -> u32 {
    table
        .iter()
        .position(|t| t == item)
        .map_or(0, |i| i as u32 + 1)
}

/// The item of `table` the main module names by `code`; an error naming `what` otherwise.
pub(crate) fn item_of<T: Copy>(table: &[T], code: u32, what: &str) -> Result<T, String> {
    table
        .get((code as usize).wrapping_sub(1))
        .copied()
        .ok_or_else(|| format!("unknown {what} {code}"))
}

/// `count` default values, allocated fallibly (the chunk's element count: bounded by the caller).
pub(crate) fn values<T: Default + Clone>(count: usize) -> Result<Vec<T>, String> {
    let mut values = Vec::new();
    values
        .try_reserve_exact(count)
        .map_err(|_| "out of memory for the decoded chunk".to_string())?;
    values.resize(count, T::default());
    Ok(values)
}

/// Numbers as their native-endian bytes, what the main module's chunks hold.
pub(crate) fn native_bytes<T: NativeBytes>(values: &[T]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    out.try_reserve_exact(size_of_val(values))
        .map_err(|_| "out of memory for the decoded chunk".to_string())?;
    values.iter().for_each(|v| v.put(&mut out));
    Ok(out)
}

/// A number's native-endian bytes.
pub(crate) trait NativeBytes {
    fn put(&self, out: &mut Vec<u8>);
}

macro_rules! native_bytes {
    ($($t:ty),*) => {$(impl NativeBytes for $t {
        fn put(&self, out: &mut Vec<u8>) { out.extend(self.to_ne_bytes()) }
    })*};
}
native_bytes!(u8, i8, u16, i16, u32, i32, u64, i64, half::f16, f32, f64);
