//! 32-bit checksum codecs: the core `crc32c` codec (a CRC-32C after the data) and numcodecs'
//! `numcodecs.crc32`, `numcodecs.crc32c`, `numcodecs.adler32` (a checksum at the start, or with
//! `location: "end"` the end). All little endian; decoding checks the checksum and strips it.

use super::codec::{BytesToBytesCodec, Codec, CodecEntry, Kind};
use crate::error::CodecError;
use super::configuration::{Configuration, Location};

/// `crc32c` (v3), and numcodecs' `crc32`, `crc32c` and `adler32`.
pub const CODECS: &[CodecEntry] = &[
    CodecEntry {
        names: &["crc32c"],
        kind: Kind::BytesToBytes,
        build: |_, _| Ok(Codec::bytes_to_bytes(Checksum32Codec::crc32c())),
    },
    CodecEntry {
        names: &["numcodecs.crc32"],
        kind: Kind::BytesToBytes,
        build: |config, _| numcodecs_checksum(config, Checksum::Crc32),
    },
    CodecEntry {
        names: &["numcodecs.crc32c"],
        kind: Kind::BytesToBytes,
        build: |config, _| numcodecs_checksum(config, Checksum::Crc32c),
    },
    CodecEntry {
        names: &["numcodecs.adler32"],
        kind: Kind::BytesToBytes,
        build: |config, _| numcodecs_checksum(config, Checksum::Adler32),
    },
];

fn numcodecs_checksum(config: Configuration, kind: Checksum) -> Result<Codec, String> {
    Ok(Codec::bytes_to_bytes(Checksum32Codec::from_configuration(config, kind)?))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    Crc32,
    Crc32c,
    Adler32,
}

impl Checksum {
    fn codec_name(self) -> &'static str {
        match self {
            Checksum::Crc32 => "numcodecs.crc32",
            Checksum::Crc32c => "numcodecs.crc32c",
            Checksum::Adler32 => "numcodecs.adler32",
        }
    }

    fn compute(self, data: &[u8]) -> u32 {
        match self {
            Checksum::Crc32 => crc32fast::hash(data),
            Checksum::Crc32c => crc32c::crc32c(data),
            Checksum::Adler32 => adler32(data),
        }
    }
}

/// Adler-32 (RFC 1950), summed in runs short enough that the 32-bit sums cannot overflow.
fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    let (mut a, mut b) = (1u32, 0u32);
    for run in data.chunks(5552) {
        for &byte in run {
            a += byte as u32;
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    b << 16 | a
}

pub struct Checksum32Codec {
    kind: Checksum,
    at_end: bool,
    /// The codec's name in metadata, for errors.
    name: &'static str,
}

impl Checksum32Codec {
    /// `location`: where the checksum is, by numcodecs' default at the end for CRC32C and at the
    /// start for the others.
    pub fn from_configuration(
        config: Configuration,
        kind: Checksum,
    ) -> Result<Checksum32Codec, String> {
        let at_end = match config.optional::<Location>("location")? {
            Some(location) => location == Location::End,
            None => kind == Checksum::Crc32c,
        };
        Ok(Checksum32Codec {
            kind,
            at_end,
            name: kind.codec_name(),
        })
    }

    /// The core v3 `crc32c` codec: a CRC-32C after the data.
    pub fn crc32c() -> Checksum32Codec {
        Checksum32Codec {
            kind: Checksum::Crc32c,
            at_end: true,
            name: "crc32c",
        }
    }
}

impl BytesToBytesCodec for Checksum32Codec {
    fn name(&self) -> &'static str {
        self.name
    }

    fn encoded_size(&self, decoded_size: usize) -> Option<usize> {
        decoded_size.checked_add(4)
    }

    fn decode(
        &self,
        mut encoded: Vec<u8>,
        _decoded_size: super::codec::DecodedSize,
    ) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::new(self.name, e);
        if encoded.len() < 4 {
            return Err(err(format!(
                "{} bytes is too short to hold a 4-byte checksum",
                encoded.len()
            )));
        }
        let (sum_at, data) = if self.at_end {
            (encoded.len() - 4, 0..encoded.len() - 4)
        } else {
            (0, 4..encoded.len())
        };
        let stored = u32::from_le_bytes([
            encoded[sum_at],
            encoded[sum_at + 1],
            encoded[sum_at + 2],
            encoded[sum_at + 3],
        ]);
        let computed = self.kind.compute(&encoded[data.clone()]);
        if stored != computed {
            return Err(err(format!(
                "checksum mismatch: stored {stored:#010x}, data gives {computed:#010x}"
            )));
        }
        if self.at_end {
            encoded.truncate(data.end);
        } else {
            encoded.drain(..4);
        }
        Ok(encoded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adler32_matches_known_values() {
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        assert_eq!(adler32(&[]), 1);
        let big = vec![255u8; 100_000];
        // The reference, summed with 64-bit arithmetic and reduced once.
        let (mut a, mut b) = (1u64, 0u64);
        for &x in &big {
            a = (a + x as u64) % 65521;
            b = (b + a) % 65521;
        }
        assert_eq!(adler32(&big), (b << 16 | a) as u32);
    }

    #[test]
    fn crc32c_checks_and_strips_the_checksum_after_the_data() {
        let data = b"123456789".to_vec();
        // The CRC-32C check value of "123456789" (RFC 3720).
        assert_eq!(crc32c::crc32c(&data), 0xe306_9283);
        let codec = Checksum32Codec::crc32c();
        let encoded = [data.clone(), 0xe306_9283u32.to_le_bytes().to_vec()].concat();
        assert_eq!(codec.decode(encoded.clone(), None.into()).unwrap(), data);
        let mut bad = encoded;
        bad[0] ^= 1;
        let e = codec.decode(bad, None.into()).unwrap_err();
        assert!(e.codec == "crc32c" && e.reason.contains("mismatch"), "{e}");
        assert!(codec.decode(vec![1, 2], None.into()).is_err());
    }
}
