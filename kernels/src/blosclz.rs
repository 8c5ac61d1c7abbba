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

/// The farthest a match may reach back: a far distance is a 16-bit number past `MAX_DISTANCE`.
const MAX_FAR_DISTANCE: usize = MAX_DISTANCE + 1 + 0xFFFF;

/// Bits of the match finder's hash of 4 bytes.
const HASH_BITS: u32 = 14;

/// Compresses `input` to a BloscLZ stream that `decompress` (and c-blosc) decodes: literal runs of
/// up to 32 bytes and back-references, found greedily through a hash of each position's next 4
/// bytes (the most recent position with the same hash is the candidate). The first token is a
/// literal run with bit 5 of its first byte set, as c-blosc's encoder marks it, and the last is a
/// literal run too. Empty input gives an empty stream.
pub fn compress(input: &[u8]) -> Vec<u8> {
    let n = input.len();
    let mut out = Vec::with_capacity(n / 2 + 16);
    if n == 0 {
        return out;
    }
    let mut table = vec![usize::MAX; 1 << HASH_BITS];
    let hash = |at: usize| {
        let v = u32::from_le_bytes([input[at], input[at + 1], input[at + 2], input[at + 3]]);
        (v.wrapping_mul(2_654_435_761) >> (32 - HASH_BITS)) as usize
    };
    let mut literals = 0usize; // the pending literal run starts at `ip - literals`
    let mut ip = 0usize;
    // The stream ends with a literal run: c-blosc's decoder stops at a match that ends the input
    // before copying it. The last byte is never part of a match.
    let end = n - 1;
    while ip + 4 <= end {
        let h = hash(ip);
        let candidate = table[h];
        table[h] = ip;
        let found = candidate != usize::MAX
            && ip - candidate <= MAX_FAR_DISTANCE
            && input[candidate..candidate + 4] == input[ip..ip + 4];
        if !found {
            literals += 1;
            ip += 1;
            continue;
        }
        let mut len = 4;
        while ip + len < end && input[candidate + len] == input[ip + len] {
            len += 1;
        }
        emit_literals(&mut out, &input[ip - literals..ip]);
        literals = 0;
        emit_match(&mut out, ip - candidate, len);
        // The positions inside the match are entered too, a few of them: later data often
        // repeats what follows a repeat.
        for at in (ip + 1..ip + len).step_by(4).filter(|&at| at + 4 <= end) {
            table[hash(at)] = at;
        }
        ip += len;
    }
    literals += n - ip;
    emit_literals(&mut out, &input[n - literals..]);
    if let Some(first) = out.first_mut() {
        *first |= 1 << 5;
    }
    out
}

/// Literal runs of up to 32 bytes each.
fn emit_literals(out: &mut Vec<u8>, mut literals: &[u8]) {
    while !literals.is_empty() {
        let run = literals.len().min(32);
        out.push((run - 1) as u8);
        out.extend_from_slice(&literals[..run]);
        literals = &literals[run..];
    }
}

/// A back-reference of `len` bytes (at least 4) at `distance` (1 to `MAX_FAR_DISTANCE`): the
/// length in the token's top 3 bits (7: more in the bytes after it), the distance less one in its
/// low 5 bits and the next byte, or past `MAX_DISTANCE` as a big-endian 16-bit number after the
/// far marker (low bits 31, byte 255).
fn emit_match(out: &mut Vec<u8>, distance: usize, len: usize) {
    let d = distance - 1;
    let far = d >= MAX_DISTANCE;
    let (high, code) = if far { (31, 255) } else { (d >> 8, d & 255) };
    if len <= 8 {
        out.push((((len - 2) << 5) | high) as u8);
    } else {
        out.push(((7 << 5) | high) as u8);
        let mut rest = len - 9;
        while rest >= 255 {
            out.push(255);
            rest -= 255;
        }
        out.push(rest as u8);
    }
    out.push(code as u8);
    if far {
        let f = d - MAX_DISTANCE;
        out.push((f >> 8) as u8);
        out.push(f as u8);
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

    #[test]
    fn compress_round_trips_through_decompress() {
        let mut inputs: Vec<Vec<u8>> = vec![
            vec![],
            vec![7],
            b"abcabcabcabcabcabcabcabc".to_vec(),
            vec![0; 100_000],
            (0..200_000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                .collect(),
        ];
        // Repeats 9,000 and 70,000 bytes back: near and far distances.
        let noise: Vec<u8> = (0..80_000u32)
            .map(|i| (i.wrapping_mul(40_503) >> 7) as u8)
            .collect();
        let mut far = noise.clone();
        far.extend_from_slice(&noise[..20_000]);
        inputs.push(far);
        let mut near = noise[..9_000].to_vec();
        near.extend_from_slice(&noise[..9_000]);
        inputs.push(near);
        for input in inputs {
            let compressed = compress(&input);
            let mut out = vec![0; input.len()];
            let written = decompress(&compressed, &mut out).unwrap_or(0);
            assert_eq!(
                (written, &out),
                (input.len(), &input),
                "{} bytes",
                input.len()
            );
        }
        assert!(compress(&vec![0; 100_000]).len() < 1000);
    }
}
