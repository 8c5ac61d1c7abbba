//! NumPy's fixed-length strings as text: `S<n>` byte strings and `U<n>` UTF-32 strings, each
//! element padded with NULs to its length. As NumPy does, trailing NULs are not part of the value.

/// Elements of `len` bytes each (`S<len>`) as strings: trailing NULs removed, the rest decoded as
/// UTF-8 with invalid sequences replaced by U+FFFD (the bytes are usually ASCII).
pub fn bytes_to_strings(bytes: &[u8], len: usize) -> Vec<String> {
    if len == 0 {
        return Vec::new();
    }
    bytes
        .chunks_exact(len)
        .map(|element| {
            let end = element.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            String::from_utf8_lossy(&element[..end]).into_owned()
        })
        .collect()
}

/// Elements of `chars` UTF-32 code units each (`U<chars>`, native byte order) as strings:
/// trailing NULs removed, code units that are not Unicode scalar values replaced by U+FFFD.
pub fn utf32_to_strings(bytes: &[u8], chars: usize) -> Vec<String> {
    if chars == 0 {
        return Vec::new();
    }
    bytes
        .chunks_exact(chars * 4)
        .map(|element| {
            let units: Vec<u32> = element
                .chunks_exact(4)
                .map(|u| u32::from_ne_bytes([u[0], u[1], u[2], u[3]]))
                .collect();
            let end = units.iter().rposition(|&u| u != 0).map_or(0, |i| i + 1);
            units[..end]
                .iter()
                .map(|&u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_nuls_end_a_string_and_inner_ones_stay() {
        assert_eq!(
            bytes_to_strings(b"ab\0\0c\0d\0\xff\0\0\0", 4),
            ["ab", "c\0d", "\u{fffd}"]
        );
        let utf32: Vec<u8> = ['é' as u32, 0, 'z' as u32, 0xD800]
            .iter()
            .flat_map(|u| u.to_ne_bytes())
            .collect();
        assert_eq!(utf32_to_strings(&utf32, 2), ["é", "z\u{fffd}"]);
        assert!(bytes_to_strings(b"", 0).is_empty());
    }
}
