//! numcodecs' `BZ2` codec: Python's `bz2.compress` streams (one, or several in a row as
//! `bz2.decompress` reads them). Decoded by libbz2-rs-sys (libbzip2 ported to Rust) through the
//! bzip2 crate.

use bzip2::{Decompress, Status};

/// Output room is added in steps of at most this, so that memory follows what is decoded rather
/// than the limit.
const STEP: usize = 1 << 20;

/// The most streams, the last aside, that may decode to less than `SMALL_STREAM` bytes each.
/// No writer makes them (Python's `bz2` writes one stream, pbzip2 one per 900 KB block); each
/// costs a decoder's setup (its block-size buffer, up to 3.6 MB) whatever it holds, so that a
/// megabyte of empty ones (14 bytes each) would keep the decoder busy for seconds producing
/// nothing.
pub const MAX_SMALL_STREAMS: usize = 16;

/// A stream that decodes to less than this is small (see `MAX_SMALL_STREAMS`).
pub const SMALL_STREAM: usize = 4096;

/// Decodes `encoded` to at most `max` bytes, in one go.
pub fn decode(encoded: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let mut steps = Bz2Steps::new(encoded.to_vec(), max);
    let mut out = Vec::new();
    while !crate::Steps::step(&mut steps, usize::MAX, &mut out)? {}
    Ok(out)
}

/// A bzip2 chunk (one or more streams) being decoded in steps: each gives libbzip2 room for at
/// most `STEP` bytes of output at a time and stops once the step's budget is made, so that a step
/// costs that much output and at most one block's setup (its Huffman tables and inverse BWT, up
/// to 900 kB of symbols; a block inflates to 45 MB at most).
pub struct Bz2Steps {
    encoded: Vec<u8>,
    max: usize,
    /// Where the stream being decoded starts in `encoded`.
    at: usize,
    /// The stream being decoded (`None` between streams), and the output when it began.
    stream: Option<(Decompress, usize)>,
    /// The output so far.
    written: usize,
    /// Streams so far that decoded to little (see `MAX_SMALL_STREAMS`).
    small: usize,
}

impl Bz2Steps {
    pub fn new(encoded: Vec<u8>, max: usize) -> Bz2Steps {
        Bz2Steps {
            encoded,
            max,
            at: 0,
            stream: None,
            written: 0,
            small: 0,
        }
    }
}

impl crate::Steps for Bz2Steps {
    fn step(&mut self, budget: usize, out: &mut Vec<u8>) -> Result<bool, String> {
        let mut made = 0usize;
        loop {
            let (stream, began) = self
                .stream
                .get_or_insert_with(|| (Decompress::new(false), self.written));
            let input = &self.encoded[self.at..];
            let taken = consumed(stream, input.len())?;
            // One byte past the limit: a stream that fills it is refused there.
            let room = (budget - made)
                .min(STEP)
                .min((self.max - self.written).saturating_add(1))
                .max(1);
            let start = out.len();
            out.try_reserve_exact(room)
                .map_err(|_| "out of memory for the decoded chunk".to_string())?;
            out.resize(start + room, 0);
            let (out_before, in_before) = (stream.total_out(), stream.total_in());
            let status = stream
                .decompress(&input[taken..], &mut out[start..])
                .map_err(|e| e.to_string());
            let produced = (stream.total_out() - out_before) as usize;
            out.truncate(start + produced);
            let status = status?;
            self.written += produced;
            made += produced;
            if self.written > self.max {
                return Err(format!(
                    "decodes to more than the {} bytes the chunk may have",
                    self.max
                ));
            }
            if status == Status::StreamEnd {
                let used = consumed(stream, input.len())?;
                let small = self.written - *began < SMALL_STREAM;
                self.at += used;
                self.stream = None;
                if self.at == self.encoded.len() {
                    return Ok(true);
                }
                if small {
                    self.small += 1;
                    if self.small > MAX_SMALL_STREAMS {
                        return Err(format!(
                            "more than {MAX_SMALL_STREAMS} bzip2 streams decode to nothing or next to nothing (less than {SMALL_STREAM} bytes each; the last one read ends at byte {}): no bzip2 writer makes those, and their number would make decoding take long for no data",
                            self.at
                        ));
                    }
                }
            } else if produced == 0 && stream.total_in() == in_before {
                return Err("the stream ends before its end marker".into());
            }
            if made >= budget {
                return Ok(false);
            }
        }
    }
}

/// The input the stream has taken so far, checked against the input's length.
fn consumed(stream: &Decompress, len: usize) -> Result<usize, String> {
    usize::try_from(stream.total_in())
        .ok()
        .filter(|&n| n <= len)
        .ok_or_else(|| "the decoder took more input than there is".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bzip2::{Compress, Compression};

    fn compress(data: &[u8]) -> Vec<u8> {
        let mut c = Compress::new(Compression::new(9), 30);
        let mut out = Vec::with_capacity(data.len() + 1000);
        c.compress_vec(data, &mut out, bzip2::Action::Finish)
            .unwrap();
        out
    }

    #[test]
    fn streams_decode_alone_and_in_a_row() {
        let a: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 13) as u8).collect();
        let b = b"second stream".to_vec();
        let one = compress(&a);
        assert_eq!(decode(&one, a.len()).unwrap(), a);
        let mut two = one.clone();
        two.extend(compress(&b));
        let both = decode(&two, a.len() + b.len()).unwrap();
        assert_eq!(both.len(), a.len() + b.len());
        assert_eq!(&both[a.len()..], &b[..]);
        let err = decode(&one, a.len() - 1).unwrap_err();
        assert!(err.contains("more than"), "{err}");
        assert!(decode(&one[..one.len() - 10], a.len()).is_err());
        assert!(decode(b"BZh9garbage", 100).is_err());
        assert!(decode(b"", 100).is_err());
    }

    #[test]
    fn many_streams_of_next_to_nothing_are_refused_and_streams_of_data_read() {
        let empty = compress(b"");
        assert_eq!(empty.len(), 14);
        let err = decode(&empty.repeat(75_000), 1 << 28).unwrap_err();
        assert!(
            err.contains("more than 16 bzip2 streams decode to nothing"),
            "{err}"
        );
        // Streams of a byte each cost as much to set up: refused too.
        let tiny = compress(b"x").repeat(1000);
        assert!(decode(&tiny, 1 << 28).is_err());
        // 16 small ones among streams of data, and a small last one, are read.
        let block: Vec<u8> = (0..10_000u32).map(|i| (i * 31 % 251) as u8).collect();
        let mut stream = Vec::new();
        let mut expected = Vec::new();
        for i in 0..40 {
            if i % 5 == 0 {
                stream.extend(&empty);
                stream.extend(compress(b"small"));
                expected.extend(b"small");
            }
            stream.extend(compress(&block));
            expected.extend(&block);
        }
        stream.extend(compress(b"end"));
        expected.extend(b"end");
        assert_eq!(decode(&stream, expected.len()).unwrap(), expected);
    }
}
