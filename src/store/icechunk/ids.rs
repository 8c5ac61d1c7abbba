//! Icechunk's object ids: 12 random bytes for snapshots, manifests and chunk files, 8 for nodes.
//! In keys and in the API they are Crockford base 32, uppercase, unpadded (the last character
//! carries zero bits): 20 characters for 12 bytes.

/// Crockford's alphabet: digits and letters without I, L, O and U.
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// The id of a snapshot, manifest or chunk file.
pub type Id12 = [u8; 12];
/// The id of a node (stable across snapshots).
pub type Id8 = [u8; 8];

/// `bytes` in Crockford base 32.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 8 / 5 + 1);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in bytes {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(ALPHABET[((acc >> bits) & 31) as usize] as char);
        }
        acc &= (1 << bits) - 1;
    }
    if bits > 0 {
        out.push(ALPHABET[((acc << (5 - bits)) & 31) as usize] as char);
    }
    out
}

/// The value of one base-32 character: lowercase letters too, and Crockford's aliases (I and L
/// for 1, O for 0).
fn value(c: u8) -> Option<u32> {
    let c = c.to_ascii_uppercase();
    let c = match c {
        b'I' | b'L' => b'1',
        b'O' => b'0',
        c => c,
    };
    ALPHABET.iter().position(|&a| a == c).map(|v| v as u32)
}

/// A 12-byte id from its 20 characters, or what is wrong with `text`.
pub fn decode12(text: &str) -> Result<Id12, String> {
    let bad = |why: &str| {
        format!(
            "{} is not an Icechunk id (20 Crockford base 32 characters): {why}",
            crate::error::quote_text(text)
        )
    };
    if text.len() != 20 {
        return Err(bad(&format!("{} characters", text.chars().count())));
    }
    let mut out = [0u8; 12];
    let (mut acc, mut bits, mut n) = (0u32, 0u32, 0usize);
    for &c in text.as_bytes() {
        let v = value(c).ok_or_else(|| bad(&format!("{:?} is not one of them", c as char)))?;
        acc = (acc << 5) | v;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out[n] = (acc >> bits) as u8;
            n += 1;
            acc &= (1 << bits) - 1;
        }
    }
    // 100 bits for 96: the last four must be the zero padding.
    if acc != 0 {
        return Err(bad("its last character carries bits past the 12 bytes"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_as_the_spec_gives_them() {
        // The spec's example: the initial snapshot's id and its file name.
        let id = [
            0x0b, 0x1c, 0xc8, 0xd6, 0x78, 0x75, 0x80, 0xf0, 0xe3, 0x3a, 0x65, 0x34,
        ];
        assert_eq!(encode(&id), "1CECHNKREP0F1RSTCMT0");
        assert_eq!(decode12("1CECHNKREP0F1RSTCMT0").unwrap(), id);
        assert_eq!(decode12("1cechnkrepof1rstcmt0").unwrap(), id);
        assert_eq!(encode(&[0xff; 8]).len(), 13);
    }

    #[test]
    fn bad_ids_are_errors_saying_why() {
        assert!(decode12("1CECHNKREP0F1RSTCMT")
            .unwrap_err()
            .contains("19 characters"));
        assert!(decode12("1CECHNKREP0F1RSTCMTU")
            .unwrap_err()
            .contains("'U'"));
        assert!(decode12("1CECHNKREP0F1RSTCMT1")
            .unwrap_err()
            .contains("past the 12 bytes"));
        assert!(decode12("ééééééééééé").is_err());
    }
}
