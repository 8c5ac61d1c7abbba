//! The zarr-extensions registry's `packbits` (an array-to-bytes codec): of each element's
//! components (two for complex types), the bits `first_bit..=last_bit`, packed one after another,
//! least significant first, with zero bits padding the last byte; optionally one byte before or
//! after them says how many padding bits there are. Decoding shifts the bits back to `first_bit`
//! and sign-extends signed integers (the rest are zero-extended). Writers use it for the sub-byte
//! types (int4, float4_e2m1fn, ...) and to drop low bits. numcodecs' `PackBits` filter is
//! `numcodecs_packbits.rs`.

use super::codec::{ArrayToBytesCodec, ChunkRepr, Codec, CodecEntry, Kind};
use super::configuration::{named, Configuration};
use crate::collections::buffer::try_zeroed;
use crate::data_type::DataType;
use crate::error::CodecError;

/// The registry's `packbits`.
pub const CODECS: &[CodecEntry] = &[CodecEntry {
    names: &["packbits"],
    kind: Kind::ArrayToBytes,
    build: |config, cx| {
        Ok(Codec::array_to_bytes(PackBitsCodec::from_configuration(
            config,
            cx.data_type,
        )?))
    },
}];

named! {
    /// Where the count of padding bits is written.
    Padding { None = "none", FirstByte = "first_byte", LastByte = "last_byte" }
}

/// How a type's components are held in memory.
#[derive(Debug)]
struct Layout {
    /// Bits of one component in the type (N in the registry's text).
    bits: u32,
    /// Bytes of one component in memory (sub-byte types take a byte each).
    bytes: usize,
    components: u64,
    signed: bool,
}

fn layout(data_type: DataType) -> Option<Layout> {
    let whole = |bytes: usize, signed| Layout {
        bits: 8 * bytes as u32,
        bytes,
        components: 1,
        signed,
    };
    Some(match data_type {
        DataType::Bool => Layout {
            bits: 1,
            bytes: 1,
            components: 1,
            signed: false,
        },
        DataType::NarrowInt(int) => Layout {
            bits: int.bits.into(),
            bytes: 1,
            components: 1,
            signed: int.signed,
        },
        DataType::Narrow(format) => Layout {
            bits: format.bits(),
            bytes: format.size(),
            components: 1,
            signed: false,
        },
        DataType::NarrowComplex(format) => Layout {
            bits: format.map_or(16, |f| f.bits()),
            bytes: format.map_or(2, |f| f.size()),
            components: 2,
            signed: false,
        },
        DataType::Complex64 | DataType::Complex128 => Layout {
            components: 2,
            ..whole(data_type.size() / 2, false)
        },
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::DateTime64(_)
        | DataType::TimeDelta64(_) => whole(data_type.size(), true),
        DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Float16
        | DataType::Float32
        | DataType::Float64 => whole(data_type.size(), false),
        _ => return None,
    })
}

#[derive(Debug)]
pub struct PackBitsCodec {
    layout: Layout,
    first_bit: u32,
    last_bit: u32,
    padding: Padding,
}

impl PackBitsCodec {
    pub fn from_configuration(
        config: Configuration,
        data_type: DataType,
    ) -> Result<PackBitsCodec, String> {
        let layout = layout(data_type)
            .ok_or_else(|| format!("packs number and boolean types, not {data_type}"))?;
        let padding = config
            .optional::<Padding>("padding_encoding")?
            .unwrap_or(Padding::None);
        let first_bit = config.optional::<u64>("first_bit")?.unwrap_or(0);
        let last_bit = config
            .optional::<u64>("last_bit")?
            .unwrap_or(u64::from(layout.bits) - 1);
        if first_bit > last_bit || last_bit >= u64::from(layout.bits) {
            return Err(format!(
                "bits {first_bit} to {last_bit} are not within the {} bits of {data_type}",
                layout.bits
            ));
        }
        Ok(PackBitsCodec {
            layout,
            first_bit: first_bit as u32,
            last_bit: last_bit as u32,
            padding,
        })
    }

    /// Bits stored per component.
    fn stored_bits(&self) -> u32 {
        self.last_bit - self.first_bit + 1
    }

    /// Components in a chunk of `repr`, and the bytes their bits take (padding included).
    fn packed(&self, repr: &ChunkRepr) -> Option<(u64, usize)> {
        let elements = repr.shape.iter().try_fold(1u64, |n, &d| n.checked_mul(d))?;
        let components = elements.checked_mul(self.layout.components)?;
        let bits = components.checked_mul(u64::from(self.stored_bits()))?;
        let bytes = usize::try_from(bits.div_ceil(8)).ok()?;
        Some((components, bytes))
    }

    /// The padding bits' count, as the padding byte gives it.
    fn padding_bits(&self, components: u64) -> u8 {
        let used = (components % 8) * u64::from(self.stored_bits()) % 8;
        ((8 - used) % 8) as u8
    }
}

/// `b` bits (at most 64) of `packed` from bit `at`, least significant first.
fn bits_at(packed: &[u8], at: u64, b: u32) -> u64 {
    let first = (at / 8) as usize;
    let window = packed
        .iter()
        .skip(first)
        .take(9)
        .enumerate()
        .fold(0u128, |w, (i, &byte)| w | u128::from(byte) << (8 * i));
    let value = (window >> (at % 8)) as u64;
    match b {
        64 => value,
        _ => value & ((1u64 << b) - 1),
    }
}

impl ArrayToBytesCodec for PackBitsCodec {
    fn name(&self) -> &'static str {
        "packbits"
    }

    fn encoded_size(&self, repr: &ChunkRepr) -> Option<usize> {
        let (_, bytes) = self.packed(repr)?;
        bytes.checked_add(usize::from(self.padding != Padding::None))
    }

    fn decode(&self, encoded: Vec<u8>, repr: &ChunkRepr) -> Result<Vec<u8>, CodecError> {
        let err = |reason: String| CodecError::new(self.name(), reason);
        let (Some((components, bytes)), Some(expected)) =
            (self.packed(repr), self.encoded_size(repr))
        else {
            return Err(err(format!(
                "a chunk of shape {:?} is too large",
                repr.shape
            )));
        };
        if encoded.len() != expected {
            return Err(err(format!(
                "{} bytes, where a chunk of shape {:?} packs to {expected}",
                encoded.len(),
                repr.shape
            )));
        }
        let (packed, count) = match self.padding {
            Padding::None => (&encoded[..], None),
            Padding::FirstByte => (&encoded[1..], encoded.first()),
            Padding::LastByte => (&encoded[..bytes], encoded.last()),
        };
        let padding = self.padding_bits(components);
        if let Some(&count) = count.filter(|&&c| c != padding) {
            return Err(err(format!(
                "the padding byte says {count} bits, the chunk has {padding}"
            )));
        }
        let size = repr
            .num_bytes()
            .filter(|&n| n as u64 == components * self.layout.bytes as u64)
            .ok_or_else(|| err(format!("a chunk of shape {:?} is too large", repr.shape)))?;
        let mut out = try_zeroed(size).map_err(err)?;
        let b = self.stored_bits();
        let sign = self.layout.signed.then_some(self.last_bit);
        for (i, component) in out.chunks_exact_mut(self.layout.bytes).enumerate() {
            let mut v = bits_at(packed, i as u64 * u64::from(b), b) << self.first_bit;
            if let Some(last) = sign.filter(|&last| v >> last & 1 == 1) {
                v |= !0u64 << last;
            }
            let le = v.to_le_bytes();
            component.copy_from_slice(&le[..component.len()]);
            if cfg!(target_endian = "big") {
                component.reverse();
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(config: serde_json::Value, data_type: DataType) -> Result<PackBitsCodec, String> {
        PackBitsCodec::from_configuration(
            Configuration::new(config.as_object().unwrap()),
            data_type,
        )
    }

    fn repr(n: u64, data_type: DataType) -> ChunkRepr {
        ChunkRepr {
            shape: vec![n],
            data_type,
        }
    }

    #[test]
    fn bits_are_taken_least_significant_first_and_sign_extended() {
        // int16, bits 4..=11: -3 << 4 and 5 << 4 stored as 8 bits each.
        let c = codec(json!({"first_bit": 4, "last_bit": 11}), DataType::Int16).unwrap();
        let out = c
            .decode(vec![0xfd, 0x05], &repr(2, DataType::Int16))
            .unwrap();
        let want: Vec<u8> = [-3i16 << 4, 5 << 4]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        assert_eq!(out, want);
        // Booleans: 3 bits, 5 padding bits counted in the first byte.
        let c = codec(json!({"padding_encoding": "first_byte"}), DataType::Bool).unwrap();
        assert_eq!(
            c.decode(vec![5, 0b101], &repr(3, DataType::Bool)).unwrap(),
            vec![1, 0, 1]
        );
        assert!(c
            .decode(vec![4, 0b101], &repr(3, DataType::Bool))
            .unwrap_err()
            .reason
            .contains("padding"));
        assert!(c
            .decode(vec![5], &repr(3, DataType::Bool))
            .unwrap_err()
            .reason
            .contains("packs to 2"));
    }

    #[test]
    fn configurations_are_checked() {
        assert!(codec(json!({"last_bit": 8}), DataType::UInt8)
            .unwrap_err()
            .contains("within the 8 bits"));
        assert!(codec(json!({"first_bit": 3, "last_bit": 2}), DataType::UInt8).is_err());
        assert!(codec(json!({"padding_encoding": "middle"}), DataType::UInt8).is_err());
        assert!(codec(json!({}), DataType::String).is_err());
        let c = codec(json!({"padding_encoding": "last_byte"}), DataType::UInt8).unwrap();
        assert_eq!(c.encoded_size(&repr(3, DataType::UInt8)), Some(4));
    }
}
