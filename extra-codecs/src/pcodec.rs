//! numcodecs' `PCodec`: numbers compressed by pcodec (Pco), in its standalone format. Decoded by
//! the `pco` crate, the format's reference implementation, into exactly the chunk's element
//! count: the stream's own counts never size an allocation. Decoded in steps (`PcodecSteps`):
//! pco reads a chunk of its format a batch of 256 numbers at a time, so a step reads about its
//! budget of numbers and stops.

use crate::{NativeBytes, Steps};
use better_io::BetterBufRead;
use pco::standalone::{ChunkDecompressor, DecompressorItem, FileDecompressor};

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

/// Decodes `count` numbers of type `number`, as native-endian bytes, in one go.
pub fn decode(encoded: &[u8], number: Number, count: usize) -> Result<Vec<u8>, String> {
    let mut steps = begin(encoded.to_vec(), number, count)?;
    let mut out = Vec::new();
    while !steps.step(usize::MAX, &mut out)? {}
    Ok(out)
}

/// Begins decoding `count` numbers of type `number` (the stream's header is read here).
pub fn begin(encoded: Vec<u8>, number: Number, count: usize) -> Result<Box<dyn Steps>, String> {
    Ok(match number {
        Number::U8 => Box::new(PcodecSteps::<u8>::new(encoded, count)?),
        Number::I8 => Box::new(PcodecSteps::<i8>::new(encoded, count)?),
        Number::U16 => Box::new(PcodecSteps::<u16>::new(encoded, count)?),
        Number::I16 => Box::new(PcodecSteps::<i16>::new(encoded, count)?),
        Number::U32 => Box::new(PcodecSteps::<u32>::new(encoded, count)?),
        Number::I32 => Box::new(PcodecSteps::<i32>::new(encoded, count)?),
        Number::U64 => Box::new(PcodecSteps::<u64>::new(encoded, count)?),
        Number::I64 => Box::new(PcodecSteps::<i64>::new(encoded, count)?),
        Number::F16 => Box::new(PcodecSteps::<half::f16>::new(encoded, count)?),
        Number::F32 => Box::new(PcodecSteps::<f32>::new(encoded, count)?),
        Number::F64 => Box::new(PcodecSteps::<f64>::new(encoded, count)?),
    })
}

/// pco's batches: a read of fewer numbers than a chunk has left is of whole batches.
const BATCH: usize = 256;

/// The encoded bytes as pco reads them, owned (a decode in steps keeps them between steps).
struct Source {
    bytes: Vec<u8>,
    at: usize,
}

impl BetterBufRead for Source {
    fn fill_or_eof(&mut self, _n_bytes: usize) -> std::io::Result<&[u8]> {
        Ok(&self.bytes[self.at..])
    }

    fn consume(&mut self, n_bytes: usize) {
        self.at = (self.at + n_bytes).min(self.bytes.len());
    }

    fn capacity(&self) -> Option<usize> {
        None
    }

    fn resize_capacity(&mut self, _desired: usize) {}
}

/// Where a decode in steps is: between pco's chunks (at the next one's header) or inside one.
enum At<T: pco::data_types::Number> {
    Between(Source),
    Chunk(Box<ChunkDecompressor<T, Source>>, usize),
    Done,
}

/// `count` numbers of `T` being decoded in steps.
pub(crate) struct PcodecSteps<T: pco::data_types::Number> {
    file: FileDecompressor,
    at: At<T>,
    count: usize,
    /// The numbers decoded so far.
    decoded: usize,
}

impl<T: pco::data_types::Number + Default + NativeBytes> PcodecSteps<T> {
    fn new(encoded: Vec<u8>, count: usize) -> Result<PcodecSteps<T>, String> {
        let (file, source) = FileDecompressor::new(Source {
            bytes: encoded,
            at: 0,
        })
        .map_err(|e| e.to_string())?;
        Ok(PcodecSteps {
            file,
            at: At::Between(source),
            count,
            decoded: 0,
        })
    }

    fn wrong_count(&self, more: bool) -> String {
        format!(
            "holds {}{} numbers, the chunk has {}",
            self.decoded,
            if more { " or more" } else { "" },
            self.count
        )
    }
}

impl<T: pco::data_types::Number + Default + NativeBytes> Steps for PcodecSteps<T> {
    fn step(&mut self, budget: usize, out: &mut Vec<u8>) -> Result<bool, String> {
        // Whole batches, at least one.
        let want = (budget / size_of::<T>()).max(BATCH) / BATCH * BATCH;
        let mut made = 0usize;
        loop {
            match std::mem::replace(&mut self.at, At::Done) {
                At::Done => return Ok(true),
                At::Between(source) => {
                    match self
                        .file
                        .chunk_decompressor::<T, _>(source)
                        .map_err(|e| e.to_string())?
                    {
                        DecompressorItem::EndOfData(_) if self.decoded == self.count => {
                            return Ok(true)
                        }
                        DecompressorItem::EndOfData(_) => return Err(self.wrong_count(false)),
                        DecompressorItem::Chunk(chunk) => {
                            let left = chunk.n();
                            if left > self.count - self.decoded {
                                return Err(self.wrong_count(true));
                            }
                            self.at = At::Chunk(Box::new(chunk), left);
                        }
                    }
                }
                At::Chunk(mut chunk, left) => {
                    // Fewer than the chunk has left: whole batches (pco's rule).
                    let n = match want.saturating_sub(made).max(BATCH) {
                        room if room >= left => left,
                        room => room / BATCH * BATCH,
                    };
                    let mut values: Vec<T> = crate::values(n)?;
                    let progress = chunk.read(&mut values).map_err(|e| e.to_string())?;
                    let read = progress.n_processed.min(n);
                    out.extend(crate::native_bytes(&values[..read])?);
                    self.decoded += read;
                    made += read;
                    self.at = match left - read {
                        0 => At::Between((*chunk).into_src()),
                        _ if read == 0 => return Err("the data ends inside a chunk".into()),
                        rest => At::Chunk(chunk, rest),
                    };
                    if made >= want {
                        return Ok(false);
                    }
                }
            }
        }
    }
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

    #[test]
    fn steps_of_any_budget_decode_as_one_go_a_batch_or_their_budget_at_a_time() {
        // A million numbers: pco's simple_compress writes chunks of up to 2^18 of them.
        let values: Vec<f32> = (0..1_000_003).map(|i| (i as f32 * 0.001).sin()).collect();
        let encoded = simple_compress(&values, &ChunkConfig::default()).unwrap();
        let whole = decode(&encoded, Number::F32, values.len()).unwrap();
        assert_eq!(whole.len(), values.len() * 4);
        for budget in [1, 1000, 4096, 1 << 20, usize::MAX] {
            let mut steps = begin(encoded.clone(), Number::F32, values.len()).unwrap();
            let mut out = Vec::new();
            let mut count = 0;
            loop {
                let before = out.len();
                let done = steps.step(budget, &mut out).unwrap();
                count += 1;
                // A batch (256 numbers) at least, else about the budget (a batch more where a
                // chunk of pco's ends inside the step).
                assert!(out.len() - before <= budget.max(1024).saturating_add(1024));
                if done {
                    break;
                }
            }
            assert!(out == whole, "{budget}");
            assert!(
                count >= whole.len() / budget.max(1024).saturating_add(1024),
                "{budget}: {count} steps"
            );
        }
        // Counts other than the chunk's are refused in steps too.
        for count in [values.len() - 1, values.len() + 1, 1 << 18] {
            let mut steps = begin(encoded.clone(), Number::F32, count).unwrap();
            let mut out = Vec::new();
            let err = loop {
                match steps.step(4096, &mut out) {
                    Ok(true) => panic!("{count}: decoded"),
                    Ok(false) => {}
                    Err(e) => break e,
                }
            };
            assert!(err.contains("numbers, the chunk has"), "{count}: {err}");
        }
    }
}
