//! numcodecs' `PCodec`: numbers compressed by pcodec (Pco), in its standalone format. Decoded by
//! the `pco` crate, the format's reference implementation, into exactly the chunk's element
//! count: the stream's own counts never size an allocation.

use crate::NativeBytes;
use pco::standalone::simple_decompress_into;

/// The number types pcodec stores, as the main module names them (`code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Number {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    F32,
    F64,
}

const NUMBERS: [Number; 11] = [
    Number::U8,
    Number::I8,
    Number::U16,
    Number::I16,
    Number::U32,
    Number::I32,
    Number::U64,
    Number::I64,
    Number::F16,
    Number::F32,
    Number::F64,
];

impl Number {
    pub fn code(self) -> u32 {
        crate::code_of(&NUMBERS, &self)
    }

    pub fn from_code(code: u32) -> Result<Number, String> {
        crate::item_of(&NUMBERS, code, "pcodec number type")
    }

    pub fn size(self) -> usize {
        match self {
            Number::U8 | Number::I8 => 1,
            Number::U16 | Number::I16 | Number::F16 => 2,
            Number::U32 | Number::I32 | Number::F32 => 4,
            Number::U64 | Number::I64 | Number::F64 => 8,
        }
    }
}

/// Decodes `count` numbers of type `number`, as native-endian bytes.
pub fn decode(encoded: &[u8], number: Number, count: usize) -> Result<Vec<u8>, String> {
    match number {
        Number::U8 => numbers::<u8>(encoded, count),
        Number::I8 => numbers::<i8>(encoded, count),
        Number::U16 => numbers::<u16>(encoded, count),
        Number::I16 => numbers::<i16>(encoded, count),
        Number::U32 => numbers::<u32>(encoded, count),
        Number::I32 => numbers::<i32>(encoded, count),
        Number::U64 => numbers::<u64>(encoded, count),
        Number::I64 => numbers::<i64>(encoded, count),
        Number::F16 => numbers::<half::f16>(encoded, count),
        Number::F32 => numbers::<f32>(encoded, count),
        Number::F64 => numbers::<f64>(encoded, count),
    }
}

/// Decodes exactly `count` numbers of `T`.
fn numbers<T: pco::data_types::Number + Default + NativeBytes>(
    encoded: &[u8],
    count: usize,
) -> Result<Vec<u8>, String> {
    let mut values: Vec<T> = crate::values(count)?;
    let progress = simple_decompress_into(encoded, &mut values).map_err(|e| e.to_string())?;
    if progress.n_processed != count || !progress.finished {
        return Err(format!(
            "holds {}{} numbers, the chunk has {count}",
            progress.n_processed,
            if progress.finished { "" } else { " or more" }
        ));
    }
    crate::native_bytes(&values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pco::standalone::simple_compress;
    use pco::ChunkConfig;

    #[test]
    fn numbers_round_trip_and_counts_are_checked() {
        let values: Vec<i32> = (0..3000).map(|i| i * i % 1009 - 500).collect();
        let encoded = simple_compress(&values, &ChunkConfig::default()).unwrap();
        let decoded = decode(&encoded, Number::I32, values.len()).unwrap();
        let back: Vec<i32> = decoded
            .chunks(4)
            .map(|b| i32::from_ne_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(back, values);
        assert!(decode(&encoded, Number::I32, values.len() + 1).is_err());
        assert!(decode(&encoded, Number::I32, values.len() - 1).is_err());
        assert!(decode(&encoded[..encoded.len() / 2], Number::I32, values.len()).is_err());
        for code in 1..=11 {
            assert_eq!(Number::from_code(code).unwrap().code(), code);
        }
        assert!(Number::from_code(0).is_err() && Number::from_code(12).is_err());
    }
}
