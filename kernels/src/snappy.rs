//! Raw Snappy (the block format with a varint length preamble, not the framing format), one of
//! Blosc's internal compressors and Parquet's page codecs. Decodes into an output slice of the
//! exact expected size; `decompressed_len` says that size from the preamble, once the input is
//! checked to be able to hold it, so that a caller allocates nothing a short input cannot fill.

/// The most output one input byte can make: a copy with a 2-byte offset (3 bytes) makes at most
/// 64 bytes, and nothing makes more per byte (a 1-byte-offset copy makes 11 from 2, a 4-byte one
/// 64 from 5, a literal one from one).
pub const MAX_EXPANSION: (u64, u64) = (64, 3);

/// The length the preamble of `input` declares, where the rest of `input` can make that many
/// bytes (at most `MAX_EXPANSION`); an error saying the two otherwise.
pub fn decompressed_len(input: &[u8]) -> Result<usize, String> {
    let (declared, used) = read_varint(input)?;
    let (bytes, per) = MAX_EXPANSION;
    let most = (input.len() - used) as u64 * bytes / per;
    if declared > most {
        return Err(format!(
            "Snappy stream declares {declared} bytes, more than its {} bytes can make (at most {most})",
            input.len()
        ));
    }
    usize::try_from(declared).map_err(|_| format!("Snappy stream declares {declared} bytes"))
}

/// Decodes `input` into `out`, which must be exactly the preamble's length.
pub fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let out_len = out.len();
    let (declared, mut ip) = read_varint(input)?;
    if declared != out.len() as u64 {
        return Err(format!(
            "Snappy stream declares {declared} bytes, expected {}",
            out.len()
        ));
    }
    let truncated = |at: usize| format!("Snappy stream is truncated at input byte {at}");
    let mut op = 0usize;
    while ip < input.len() {
        let tag_at = ip;
        let tag = input[ip] as usize;
        ip += 1;
        if tag & 3 == 0 {
            let mut len = tag >> 2;
            if len >= 60 {
                let extra = len - 59;
                let bytes = input.get(ip..ip + extra).ok_or_else(|| truncated(ip))?;
                len = bytes
                    .iter()
                    .rev()
                    .fold(0usize, |acc, &b| acc << 8 | b as usize);
                ip += extra;
            }
            // Up to 2^32 from four bytes: checked, for wasm32's usize.
            let len = len.checked_add(1).ok_or_else(|| truncated(ip))?;
            let literal = input
                .get(ip..ip.saturating_add(len))
                .ok_or_else(|| truncated(ip))?;
            out.get_mut(op..op.saturating_add(len))
                .ok_or_else(|| {
                    format!(
                        "Snappy literal at input byte {tag_at} overflows the {out_len}-byte output"
                    )
                })?
                .copy_from_slice(literal);
            ip += len;
            op += len;
            continue;
        }
        let (len, offset) = match tag & 3 {
            1 => {
                let low = *input.get(ip).ok_or_else(|| truncated(ip))? as usize;
                ip += 1;
                (((tag >> 2) & 7) + 4, (tag >> 5) << 8 | low)
            }
            2 => {
                let b = input.get(ip..ip + 2).ok_or_else(|| truncated(ip))?;
                ip += 2;
                ((tag >> 2) + 1, u16::from_le_bytes([b[0], b[1]]) as usize)
            }
            _ => {
                let b = input.get(ip..ip + 4).ok_or_else(|| truncated(ip))?;
                ip += 4;
                (
                    (tag >> 2) + 1,
                    u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize,
                )
            }
        };
        if offset == 0 || offset > op {
            return Err(format!(
                "Snappy copy at input byte {tag_at} has offset {offset} with {op} bytes written"
            ));
        }
        if len > out.len() - op {
            return Err(format!(
                "Snappy copy at input byte {tag_at} overflows the {}-byte output",
                out.len()
            ));
        }
        let from = op - offset;
        if offset >= len {
            out.copy_within(from..from + len, op);
        } else {
            for i in 0..len {
                out[op + i] = out[from + i];
            }
        }
        op += len;
    }
    if op != out.len() {
        return Err(format!(
            "Snappy stream ends after {op} of its {} bytes",
            out.len()
        ));
    }
    Ok(op)
}

/// The little-endian base-128 length preamble (at most 32 bits, so at most 5 bytes).
fn read_varint(input: &[u8]) -> Result<(u64, usize), String> {
    let mut value = 0u64;
    for (i, &b) in input.iter().take(5).enumerate() {
        value |= ((b & 0x7f) as u64) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    Err("Snappy length preamble is truncated or longer than 5 bytes".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_what_libsnappy_wrote() {
        // libsnappy's output for b"hello hello hello hello": a 6-byte literal and a copy of 17.
        let stream = b"\x17\x14hello B\x06\x00";
        let mut out = vec![0; 23];
        assert_eq!(decompress(stream, &mut out).unwrap(), 23);
        assert_eq!(&out, b"hello hello hello hello");
    }

    #[test]
    fn bad_streams_are_errors() {
        let mut out = vec![0; 23];
        assert!(decompress(b"\x18\x14hello B\x06\x00", &mut out)
            .unwrap_err()
            .contains("declares 24"));
        assert!(decompress(b"\x17\x14hello B\x06", &mut out)
            .unwrap_err()
            .contains("truncated"));
        assert!(decompress(b"\x17\x14hello B\x60\x00", &mut out)
            .unwrap_err()
            .contains("offset 96"));
        assert!(decompress(b"\x17\x14hello ", &mut out)
            .unwrap_err()
            .contains("ends after 6"));
        assert!(decompress(b"\xff\xff\xff\xff\xff\xff", &mut out).is_err());
    }

    #[test]
    fn the_declared_length_is_checked_against_what_the_input_can_make() {
        assert_eq!(decompressed_len(b"\x17\x14hello B\x06\x00").unwrap(), 23);
        // 256 MiB declared in 5 bytes: refused before anything is allocated (issue 46: a Parquet
        // page of them zeroed 256 MiB).
        let err = decompressed_len(b"\x80\x80\x80\x80\x01").unwrap_err();
        assert!(
            err.contains("declares 268435456 bytes, more than its 5 bytes can make (at most 0)"),
            "{err}"
        );
        // At the bound: a literal, then copies of 64 from 3 bytes each, 4 + 100 * 3 bytes that
        // make 6401 (the preamble, 2 bytes, makes nothing).
        let mut stream = vec![0x81, 0x32, 0 << 2, b'a'];
        for _ in 0..100 {
            stream.extend([63 << 2 | 2, 1, 0]);
        }
        assert_eq!(decompressed_len(&stream).unwrap(), 6401);
        let mut out = vec![0; 6401];
        decompress(&stream, &mut out).unwrap();
        assert!(out.iter().all(|&b| b == b'a'));
        // 6507 declared, with 2 bytes after the preamble (they make at most 42).
        let err = decompressed_len(&[0xeb, 0x32, 0 << 2, b'a']).unwrap_err();
        assert!(err.contains("at most 42"), "{err}");
        assert!(decompressed_len(b"").is_err());
    }
}
