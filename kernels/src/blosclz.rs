//! BloscLZ, c-blosc's own FastLZ-derived compressor: a stream of literal runs and back-references.
//! Decodes into an output slice of the exact expected size; any token that would read past the
//! input, write past the output or refer before its start is an error.

/// Back-references longer than 13 bits carry a 16-bit distance added to this.
const MAX_DISTANCE: usize = 8191;

/// Decodes `input` into `out`, returning how many bytes were written.
pub fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, String> {
    let out_len = out.len();
    let truncated = |at: usize| format!("BloscLZ stream is truncated at input byte {at}");
    let Some(&first) = input.first() else {
        return Err("BloscLZ stream is empty".into());
    };
    // The encoder marks the first byte with bit 5; the token itself is a literal run.
    let mut ctrl = (first & 31) as usize;
    let mut ip = 1usize;
    let mut op = 0usize;
    loop {
        if ctrl < 32 {
            let run = ctrl + 1;
            let literal = input.get(ip..ip + run).ok_or_else(|| truncated(ip))?;
            let dst = out.get_mut(op..op + run).ok_or_else(|| {
                format!(
                    "BloscLZ literal run at input byte {ip} overflows the {out_len}-byte output"
                )
            })?;
            dst.copy_from_slice(literal);
            ip += run;
            op += run;
        } else {
            let token_at = ip - 1;
            let mut len = (ctrl >> 5) - 1;
            if len == 6 {
                loop {
                    let code = *input.get(ip).ok_or_else(|| truncated(ip))?;
                    ip += 1;
                    len += code as usize;
                    if code != 255 {
                        break;
                    }
                }
            }
            let code = *input.get(ip).ok_or_else(|| truncated(ip))? as usize;
            ip += 1;
            len += 3;
            let near = (ctrl & 31) << 8;
            let distance = if code == 255 && near == 31 << 8 {
                let far = input.get(ip..ip + 2).ok_or_else(|| truncated(ip))?;
                ip += 2;
                ((far[0] as usize) << 8 | far[1] as usize) + MAX_DISTANCE + 1
            } else {
                near + code + 1
            };
            if distance > op {
                return Err(format!("BloscLZ match at input byte {token_at} refers {distance} bytes back, before the start of the output"));
            }
            if op + len > out.len() {
                return Err(format!(
                    "BloscLZ match at input byte {token_at} overflows the {}-byte output",
                    out.len()
                ));
            }
            copy_match(out, op, distance, len);
            op += len;
        }
        match input.get(ip) {
            Some(&next) => {
                ctrl = next as usize;
                ip += 1;
            }
            None => return Ok(op),
        }
    }
}

/// Copies `len` bytes from `distance` back to `op`; overlapping copies repeat the pattern, as LZ77
/// requires. The caller has checked both ranges.
fn copy_match(out: &mut [u8], op: usize, distance: usize, len: usize) {
    let from = op - distance;
    if distance >= len {
        out.copy_within(from..from + len, op);
    } else if distance == 1 {
        let byte = out[from];
        out[op..op + len].fill(byte);
    } else {
        // Doubling copies: each pass copies everything written so far of the repeated pattern.
        let mut done = 0;
        while done < len {
            let step = (distance + done).min(len - done);
            out.copy_within(from..from + step, op + done);
            done += step;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_near_and_far_matches_decode() {
        // "abc" as a literal run (marked first byte), then a match of 5 at distance 3, then literal "z".
        let mut stream = vec![0x20 | 2, b'a', b'b', b'c'];
        stream.extend([((5 - 3 + 1) << 5) as u8, 2, 0, b'z']);
        let mut out = vec![0; 9];
        assert_eq!(decompress(&stream, &mut out).unwrap(), 9);
        assert_eq!(&out, b"abcabcabz");

        // A far match: 8300 bytes back needs the 16-bit distance form.
        let mut data = vec![0u8; 8300];
        for (i, b) in data.iter_mut().enumerate() {
            *b = (i * 7 % 256) as u8;
        }
        let mut stream = Vec::new();
        for (n, piece) in data.chunks(32).enumerate() {
            stream.push(if n == 0 {
                0x20 | (piece.len() as u8 - 1)
            } else {
                piece.len() as u8 - 1
            });
            stream.extend_from_slice(piece);
        }
        let d = 8300 - MAX_DISTANCE - 1;
        stream.extend([(1 << 5) | 31, 255, (d >> 8) as u8, d as u8]); // a match of 3 at distance 8300
        let mut out = vec![0; 8303];
        assert_eq!(decompress(&stream, &mut out).unwrap(), 8303);
        assert_eq!(&out[8300..], &data[..3]);
    }

    #[test]
    fn bad_streams_are_errors() {
        let mut out = vec![0; 16];
        assert!(decompress(&[], &mut out).unwrap_err().contains("empty"));
        assert!(decompress(&[0x20 | 5, 1, 2], &mut out)
            .unwrap_err()
            .contains("truncated"));
        assert!(decompress(&[0x20, 1, 0x40, 9], &mut out)
            .unwrap_err()
            .contains("before the start"));
        assert!(decompress(&[0x20, 1, 0xE0, 200, 0], &mut out)
            .unwrap_err()
            .contains("overflows"));
    }
}
