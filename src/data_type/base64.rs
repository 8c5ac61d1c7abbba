//! Standard base64 (RFC 4648), the one decoder of the crate: Zarr v2's fill values of byte strings,
//! raw and structured types, numcodecs' `base64` codec and kerchunk's inline `base64:` references
//! are all written by Python's `base64` module. Padding is optional, ASCII whitespace is ignored
//! (line-wrapped text), and anything else is an error saying where: a character outside the
//! alphabet, text after the padding, a last group of one character (six bits make no byte), or
//! bits left over after the last byte that are not zeros (no encoder writes them).

/// The bytes of the base64 `text`, or what is wrong with it.
pub fn decode(text: &[u8]) -> Result<Vec<u8>, String> {
    // The output is at most three quarters of the text: bounded by the input, never by a claim.
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let (mut acc, mut bits) = (0u32, 0u32);
    let mut padding = 0usize;
    for (i, &c) in text.iter().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                padding += 1;
                if padding > 2 {
                    return Err(format!("more than two \"=\" of padding, at character {i}"));
                }
                continue;
            }
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => {
                // The character whole, where the text is UTF-8 there.
                let shown = std::str::from_utf8(&text[i..text.len().min(i + 4)])
                    .ok()
                    .or_else(|| std::str::from_utf8(&text[i..i + 1]).ok())
                    .and_then(|s| s.chars().next())
                    .map_or(format!("byte {c:#04x}"), |ch| format!("{ch:?}"));
                return Err(format!("{shown} at character {i} is not base64"));
            }
        };
        if padding > 0 {
            return Err(format!("characters after the padding, at character {i}"));
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("a truncated last group (one character: six bits make no byte)".into());
    }
    if acc != 0 {
        return Err("bits after the last byte that are not zeros".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_what_python_writes_and_says_what_is_wrong() {
        assert_eq!(decode(b"emFycg==").unwrap(), b"zarr");
        assert_eq!(decode(b"emFycg").unwrap(), b"zarr", "padding is optional");
        assert_eq!(decode(b"emFy").unwrap(), b"zar");
        assert_eq!(decode(b"").unwrap(), b"");
        assert_eq!(decode(b"AAEC/w==").unwrap(), [0, 1, 2, 255]);
        assert_eq!(decode(b"em Fy\ncg==\r\n").unwrap(), b"zarr", "whitespace");
        for (text, says) in [
            (&b"em!ycg=="[..], "'!' at character 2 is not base64"),
            (b"a$", "'$' at character 1"),
            (b"\xffA", "byte 0xff at character 0"),
            ("é".as_bytes(), "'é' at character 0"),
            (b"a", "truncated"),
            (b"emFycg=a", "after the padding"),
            (b"emFy===", "more than two"),
            (b"YR==", "not zeros"),
        ] {
            let err = decode(text).unwrap_err();
            assert!(err.contains(says), "{text:?}: {err}");
        }
        // Every byte value, at every length of a group.
        let all: Vec<u8> = (0..=255).collect();
        for n in 0..all.len() {
            let text = encode(&all[..n]);
            assert_eq!(decode(text.as_bytes()).unwrap(), &all[..n]);
        }
    }

    /// The test's encoder.
    fn encode(bytes: &[u8]) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for group in bytes.chunks(3) {
            let n =
                group.iter().fold(0u32, |a, &b| a << 8 | u32::from(b)) << (8 * (3 - group.len()));
            for k in 0..=group.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            }
            for _ in group.len()..3 {
                out.push('=');
            }
        }
        out
    }
}
