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

/// A string as an element of `len` bytes (`S<len>`, `|S<len>`): its UTF-8, NUL-padded. Longer
/// is an error, as NumPy would otherwise cut it silently.
pub fn string_to_bytes(s: &str, len: usize) -> Result<Vec<u8>, String> {
    if s.len() > len {
        return Err(format!(
            "{:?} is {} bytes, more than the {len} of an element",
            short(s),
            s.len()
        ));
    }
    let mut element = s.as_bytes().to_vec();
    element.resize(len, 0);
    Ok(element)
}

/// A string as an element of `chars` UTF-32 code units (`U<chars>`, native byte order),
/// NUL-padded; more characters is an error.
pub fn string_to_utf32(s: &str, chars: usize) -> Result<Vec<u8>, String> {
    let n = s.chars().count();
    if n > chars {
        return Err(format!(
            "{:?} has {n} characters, more than the {chars} of an element",
            short(s)
        ));
    }
    let mut element: Vec<u8> = s.chars().flat_map(|c| (c as u32).to_ne_bytes()).collect();
    element.resize(chars * 4, 0);
    Ok(element)
}

/// The start of a string, for messages.
fn short(s: &str) -> String {
    s.chars().take(40).collect()
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

    #[test]
    fn strings_become_padded_elements_and_read_back() {
        let bytes = string_to_bytes("ab", 4).unwrap();
        assert_eq!(bytes, b"ab\0\0");
        assert_eq!(bytes_to_strings(&bytes, 4), ["ab"]);
        assert!(string_to_bytes("abcde", 4).unwrap_err().contains("5 bytes"));
        let utf32 = string_to_utf32("é😀", 3).unwrap();
        assert_eq!(utf32.len(), 12);
        assert_eq!(utf32_to_strings(&utf32, 3), ["é😀"]);
        assert!(string_to_utf32("abcd", 3)
            .unwrap_err()
            .contains("4 characters"));
    }
}
