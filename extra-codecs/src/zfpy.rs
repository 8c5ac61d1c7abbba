//! numcodecs' `ZFPY`: ZFP streams as the `zfpy` package writes them, a full header (magic, the
//! field's type and dimensions, the compression mode) before the blocks. Decoded by zfp-rs, a
//! pure-Rust ZFP bit for bit with the C library, into exactly the chunk's element count: the
//! header's dimensions must describe the chunk, and never size an allocation.

use crate::NativeBytes;
use zfp_rs::{ZfpBitStreamRef, ZfpFieldMut, ZfpHeaderMask, ZfpScalar, ZfpScalarType};

/// The number types ZFP stores, as the main module names them (`code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Number {
    I32,
    I64,
    F32,
    F64,
}

const NUMBERS: [Number; 4] = [Number::I32, Number::I64, Number::F32, Number::F64];

impl Number {
    pub fn code(self) -> u32 {
        crate::code_of(&NUMBERS, &self)
    }

    pub fn from_code(code: u32) -> Result<Number, String> {
        crate::item_of(&NUMBERS, code, "ZFP number type")
    }

    fn scalar_type(self) -> ZfpScalarType {
        match self {
            Number::I32 => ZfpScalarType::I32,
            Number::I64 => ZfpScalarType::I64,
            Number::F32 => ZfpScalarType::F32,
            Number::F64 => ZfpScalarType::F64,
        }
    }
}

/// Decodes `count` numbers of type `number`, as native-endian bytes.
pub fn decode(encoded: &[u8], number: Number, count: usize) -> Result<Vec<u8>, String> {
    // ZFP reads 64-bit words: the stream, copied into words (zfpy's streams are whole words;
    // a partial last word is zero-padded).
    let mut words = Vec::new();
    words
        .try_reserve_exact(encoded.len().div_ceil(8))
        .map_err(|_| "out of memory for the stream".to_string())?;
    words.extend(encoded.chunks(8).map(|c| {
        let mut word = [0u8; 8];
        word[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(word)
    }));
    let mut stream = ZfpBitStreamRef::from_words(&words);
    let header = stream
        .read_header(ZfpHeaderMask::FULL)
        .map_err(|e| format!("header: {e}"))?;
    let (Some(field), Some(config)) = (header.metadata, header.config) else {
        return Err("the header lacks the field or the mode".into());
    };
    if field.scalar_type != number.scalar_type() {
        return Err(format!(
            "the stream holds {:?} numbers, the array {number:?}",
            field.scalar_type
        ));
    }
    let dims = field.dims;
    let held = dims
        .iter()
        .filter(|&&d| d > 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d));
    if held != Some(count) {
        return Err(format!(
            "the header's dimensions {dims:?} do not make the chunk's {count} numbers"
        ));
    }
    match number {
        Number::I32 => numbers::<i32>(&mut stream, &config, dims, count),
        Number::I64 => numbers::<i64>(&mut stream, &config, dims, count),
        Number::F32 => numbers::<f32>(&mut stream, &config, dims, count),
        Number::F64 => numbers::<f64>(&mut stream, &config, dims, count),
    }
}

fn numbers<T: ZfpScalar + Default + Copy + NativeBytes>(
    stream: &mut ZfpBitStreamRef<'_>,
    config: &zfp_rs::ZfpConfig,
    dims: [usize; 4],
    count: usize,
) -> Result<Vec<u8>, String> {
    let mut values: Vec<T> = crate::values(count)?;
    let mut field = ZfpFieldMut::new(&mut values, dims).map_err(|e| e.to_string())?;
    stream
        .decompress(config, &mut field)
        .map_err(|e| e.to_string())?;
    crate::native_bytes(&values)
}
