//! 32-bit checksum codecs: the core `crc32c` codec (a CRC-32C after the data) and numcodecs'
//! `numcodecs.crc32`, `numcodecs.crc32c`, `numcodecs.adler32` (a checksum at the start, or with
//! `location: "end"` the end), `numcodecs.fletcher32` and `numcodecs.jenkins_lookup3` (HDF5's
//! checksums, after the data). All stored little endian; decoding checks the checksum and strips it.

use super::codec::{BytesToBytesCodec, Codec, CodecEntry, Kind};
use super::configuration::{Bounded, Configuration, Location};
use crate::error::CodecError;
use zarr_wasm_kernels::crc32;

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
    CodecEntry {
        names: &["numcodecs.fletcher32"],
        kind: Kind::BytesToBytes,
        build: |config, _| numcodecs_checksum(config, Checksum::Fletcher32),
    },
    CodecEntry {
        names: &["numcodecs.jenkins_lookup3"],
        kind: Kind::BytesToBytes,
        build: |config, _| {
            // `initval` seeds the hash; `prefix` (bytes) is hashed before the data.
            let initval = config.optional::<Bounded<0, { u32::MAX as i64 }>>("initval")?;
            let prefix: Option<Vec<Bounded<0, 255>>> = config.optional("prefix")?;
            let kind = Checksum::JenkinsLookup3 {
                initval: initval.map_or(0, |Bounded(n)| n as u32),
            };
            let mut codec = Checksum32Codec::from_configuration(config, kind)?;
            codec.prefix = prefix
                .unwrap_or_default()
                .into_iter()
                .map(|Bounded(b)| b as u8)
                .collect();
            Ok(Codec::bytes_to_bytes(codec))
        },
    },
];

fn numcodecs_checksum(config: Configuration, kind: Checksum) -> Result<Codec, String> {
    Ok(Codec::bytes_to_bytes(Checksum32Codec::from_configuration(
        config, kind,
    )?))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    Crc32,
    Crc32c,
    Adler32,
    Fletcher32,
    JenkinsLookup3 { initval: u32 },
}

impl Checksum {
    fn codec_name(self) -> &'static str {
        match self {
            Checksum::Crc32 => "numcodecs.crc32",
            Checksum::Crc32c => "numcodecs.crc32c",
            Checksum::Adler32 => "numcodecs.adler32",
            Checksum::Fletcher32 => "numcodecs.fletcher32",
            Checksum::JenkinsLookup3 { .. } => "numcodecs.jenkins_lookup3",
        }
    }

    /// The checksum of `prefix` then `data` (only lookup3 has a prefix).
    fn compute(self, prefix: &[u8], data: &[u8]) -> u32 {
        match self {
            Checksum::Crc32 => crc32::crc32(data),
            Checksum::Crc32c => crc32::crc32c(data),
            Checksum::Adler32 => adler32(data),
            Checksum::Fletcher32 => fletcher32(data),
            Checksum::JenkinsLookup3 { initval } if prefix.is_empty() => lookup3(data, initval),
            // Rare (numcodecs cannot even write a prefix into JSON metadata): one copy.
            Checksum::JenkinsLookup3 { initval } => lookup3(&[prefix, data].concat(), initval),
        }
    }
}

/// HDF5's Fletcher-32 (as numcodecs has it): sums of big-endian 16-bit words, a last odd byte as
/// a word's high byte, folded every 360 words so that the 32-bit sums cannot overflow.
fn fletcher32(data: &[u8]) -> u32 {
    let (mut sum1, mut sum2) = (0u32, 0u32);
    let fold = |s: u32| (s & 0xffff) + (s >> 16);
    let odd = (data.len() % 2 == 1).then(|| data[data.len() - 1]);
    for run in data[..data.len() & !1].chunks(720) {
        for w in run.chunks_exact(2) {
            // Wrapping as the C original's uint32_t does (the runs are short enough that it
            // never needs to).
            sum1 = sum1.wrapping_add((w[0] as u32) << 8 | w[1] as u32);
            sum2 = sum2.wrapping_add(sum1);
        }
        sum1 = fold(sum1);
        sum2 = fold(sum2);
    }
    if let Some(last) = odd {
        sum1 = sum1.wrapping_add((last as u32) << 8);
        sum2 = sum2.wrapping_add(sum1);
        sum1 = fold(sum1);
        sum2 = fold(sum2);
    }
    fold(sum2) << 16 | fold(sum1)
}

/// Bob Jenkins' lookup3 `hashlittle` (HDF5's checksum) of `data`.
fn lookup3(data: &[u8], initval: u32) -> u32 {
    let mut abc = [0xdead_beefu32
        .wrapping_add(data.len() as u32)
        .wrapping_add(initval); 3];
    if data.is_empty() {
        return abc[2];
    }
    // Little-endian words of up to four bytes (the last block's may be short).
    let word = |bytes: &[u8]| {
        bytes
            .iter()
            .enumerate()
            .fold(0u32, |w, (j, &b)| w | (b as u32) << (8 * j))
    };
    // Every block of 12 but the last (which may be a full 12).
    let mut rest = data;
    while rest.len() > 12 {
        let (block, tail) = rest.split_at(12);
        for (v, w) in abc.iter_mut().zip(block.chunks(4)) {
            *v = v.wrapping_add(word(w));
        }
        mix(&mut abc);
        rest = tail;
    }
    for (v, w) in abc.iter_mut().zip(rest.chunks(4)) {
        *v = v.wrapping_add(word(w));
    }
    finish(abc)
}

fn mix(abc: &mut [u32; 3]) {
    let [mut a, mut b, mut c] = *abc;
    a = a.wrapping_sub(c) ^ c.rotate_left(4);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a) ^ a.rotate_left(6);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b) ^ b.rotate_left(8);
    b = b.wrapping_add(a);
    a = a.wrapping_sub(c) ^ c.rotate_left(16);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a) ^ a.rotate_left(19);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b) ^ b.rotate_left(4);
    b = b.wrapping_add(a);
    *abc = [a, b, c];
}

fn finish([mut a, mut b, mut c]: [u32; 3]) -> u32 {
    c = (c ^ b).wrapping_sub(b.rotate_left(14));
    a = (a ^ c).wrapping_sub(c.rotate_left(11));
    b = (b ^ a).wrapping_sub(a.rotate_left(25));
    c = (c ^ b).wrapping_sub(b.rotate_left(16));
    a = (a ^ c).wrapping_sub(c.rotate_left(4));
    b = (b ^ a).wrapping_sub(a.rotate_left(14));
    (c ^ b).wrapping_sub(b.rotate_left(24))
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
    /// Bytes hashed before the data (lookup3's `prefix`).
    prefix: Vec<u8>,
}

impl Checksum32Codec {
    /// `location`: where the checksum is, by numcodecs' default at the end for CRC32C and at the
    /// start for the others.
    pub fn from_configuration(
        config: Configuration,
        kind: Checksum,
    ) -> Result<Checksum32Codec, String> {
        // Fletcher-32 and lookup3 are always after the data.
        let after_always = matches!(kind, Checksum::Fletcher32 | Checksum::JenkinsLookup3 { .. });
        let at_end = match config.optional::<Location>("location")? {
            _ if after_always => true,
            Some(location) => location == Location::End,
            None => kind == Checksum::Crc32c,
        };
        Ok(Checksum32Codec {
            kind,
            at_end,
            name: kind.codec_name(),
            prefix: Vec::new(),
        })
    }

    /// The core v3 `crc32c` codec: a CRC-32C after the data.
    pub fn crc32c() -> Checksum32Codec {
        Checksum32Codec {
            kind: Checksum::Crc32c,
            at_end: true,
            name: "crc32c",
            prefix: Vec::new(),
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
        let computed = self.kind.compute(&self.prefix, &encoded[data.clone()]);
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

    #[cfg(feature = "write")]
    fn encodes(&self) -> bool {
        true
    }

    #[cfg(feature = "write")]
    fn encode(&self, mut decoded: Vec<u8>) -> Result<Vec<u8>, CodecError> {
        let sum = self.kind.compute(&self.prefix, &decoded).to_le_bytes();
        if self.at_end {
            decoded.extend_from_slice(&sum);
        } else {
            decoded.splice(..0, sum);
        }
        Ok(decoded)
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

    /// numcodecs 0.16.5's values over the first `n` bytes of 0, 1, ..., 255, 0, 1, ...:
    /// (n, Fletcher-32, lookup3 with initval 0, lookup3 with initval 7).
    const NUMCODECS: &[(usize, u32, u32, u32)] = &[
        (1, 0, 2343125323, 1489077439),
        (2, 65537, 3742185929, 3752139981),
        (3, 33686017, 1796403831, 4240180691),
        (11, 1179655705, 749109626, 2240605626),
        (12, 1180376612, 1581950355, 1929097168),
        (13, 1887382052, 3164432406, 1648600050),
        (24, 1049396368, 2617957715, 1807842406),
        (25, 3676085392, 982000196, 3215300856),
        (720, 1513194217, 148873583, 643823098),
        (721, 2904249066, 2127429371, 3767896403),
        (2560, 4042949245, 1789730504, 4115615430),
    ];

    #[test]
    fn fletcher32_and_lookup3_match_numcodecs() {
        let data: Vec<u8> = (0..2560).map(|i| i as u8).collect();
        for &(n, fletcher, hash0, hash7) in NUMCODECS {
            let d = &data[..n];
            assert_eq!(fletcher32(d), fletcher, "fletcher32 of {n} bytes");
            assert_eq!(lookup3(d, 0), hash0, "lookup3 of {n} bytes");
            assert_eq!(lookup3(d, 7), hash7, "lookup3 of {n} bytes, initval 7");
        }
        assert_eq!(lookup3(&[], 0), 0xdead_beef);
        assert_eq!(fletcher32(&[255; 100_000]), u32::MAX);
        // JenkinsLookup3(initval=5, prefix=b"ab") over b"zarr".
        let kind = Checksum::JenkinsLookup3 { initval: 5 };
        assert_eq!(kind.compute(b"ab", b"zarr"), 3346074344);
        let codec = Checksum32Codec {
            kind,
            at_end: true,
            name: kind.codec_name(),
            prefix: b"ab".to_vec(),
        };
        let encoded = [b"zarr".to_vec(), 3346074344u32.to_le_bytes().to_vec()].concat();
        assert_eq!(codec.decode(encoded, None.into()).unwrap(), b"zarr");
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
