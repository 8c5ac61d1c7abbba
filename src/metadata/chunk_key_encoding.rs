//! Chunk key encodings: grid coordinates to the store key below the array's prefix.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Separator {
    Slash,
    Dot,
}

impl Separator {
    pub fn parse(s: &str) -> Option<Separator> {
        match s {
            "/" => Some(Separator::Slash),
            "." => Some(Separator::Dot),
            _ => None,
        }
    }

    fn as_char(self) -> char {
        match self {
            Separator::Slash => '/',
            Separator::Dot => '.',
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkKeyEncoding {
    /// `c/1/2` (or `c.1.2`); a zero-dimensional chunk is `c`.
    Default(Separator),
    /// `1.2` (or `1/2`); a zero-dimensional chunk is `0`.
    V2(Separator),
}

impl ChunkKeyEncoding {
    pub fn encode(&self, coords: &[u64]) -> String {
        let (prefix, sep) = match *self {
            ChunkKeyEncoding::Default(sep) => (Some('c'), sep.as_char()),
            ChunkKeyEncoding::V2(sep) => (None, sep.as_char()),
        };
        let mut key = String::new();
        if let Some(p) = prefix {
            key.push(p);
        }
        for (i, c) in coords.iter().enumerate() {
            if i > 0 || prefix.is_some() {
                key.push(sep);
            }
            key.push_str(&c.to_string());
        }
        if key.is_empty() {
            key.push('0');
        }
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_spec_examples() {
        assert_eq!(
            ChunkKeyEncoding::Default(Separator::Slash).encode(&[1, 23, 45]),
            "c/1/23/45"
        );
        assert_eq!(
            ChunkKeyEncoding::Default(Separator::Dot).encode(&[1, 23, 45]),
            "c.1.23.45"
        );
        assert_eq!(ChunkKeyEncoding::Default(Separator::Slash).encode(&[]), "c");
        assert_eq!(
            ChunkKeyEncoding::V2(Separator::Dot).encode(&[1, 23, 45]),
            "1.23.45"
        );
        assert_eq!(
            ChunkKeyEncoding::V2(Separator::Slash).encode(&[1, 23, 45]),
            "1/23/45"
        );
        assert_eq!(ChunkKeyEncoding::V2(Separator::Dot).encode(&[]), "0");
    }
}
