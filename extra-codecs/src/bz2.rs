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

/// Decodes `encoded` to at most `max` bytes.
pub fn decode(encoded: &[u8], max: usize) -> Result<Vec<u8>, String> {
    let mut out: Vec<u8> = Vec::new();
    let mut rest = encoded;
    let mut small = 0;
    loop {
        let before = out.len();
        let used = decode_stream(rest, max, &mut out)?;
        rest = &rest[used..];
        if rest.is_empty() {
            return Ok(out);
        }
        if out.len() - before < SMALL_STREAM {
            small += 1;
            if small > MAX_SMALL_STREAMS {
                return Err(format!(
                    "more than {MAX_SMALL_STREAMS} bzip2 streams decode to nothing or next to nothing (less than {SMALL_STREAM} bytes each; the last one read ends at byte {}): no bzip2 writer makes those, and their number would make decoding take long for no data",
                    encoded.len() - rest.len()
                ));
            }
        }
    }
}

/// Decodes the stream at the start of `input` onto `out`; the bytes of input it took.
fn decode_stream(input: &[u8], max: usize, out: &mut Vec<u8>) -> Result<usize, String> {
    let mut stream = Decompress::new(false);
    loop {
        if out.len() == out.capacity() {
            if out.len() >= max {
                return Err(format!(
                    "decodes to more than the {max} bytes the chunk may have"
                ));
            }
            out.try_reserve_exact((max - out.len()).min(STEP))
                .map_err(|_| "out of memory for the decoded chunk".to_string())?;
        }
        let taken = consumed(&stream, input.len())?;
        let (len_before, in_before) = (out.len(), stream.total_in());
        let status = stream
            .decompress_vec(&input[taken..], out)
            .map_err(|e| e.to_string())?;
        if status == Status::StreamEnd {
            return consumed(&stream, input.len());
        }
        let stalled = out.len() == len_before && stream.total_in() == in_before;
        if stalled && out.len() < out.capacity() {
            return Err("the stream ends before its end marker".into());
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
