//! ZFP streams, decoded by zfp-rs (a pure-Rust ZFP, bit for bit with the C library) into exactly
//! the chunk's element count, in two framings:
//! - numcodecs' `ZFPY`: as the `zfpy` package writes them, a full header (magic, the field's type
//!   and dimensions, the compression mode) before the blocks; the header's dimensions must
//!   describe the chunk, and never size an allocation;
//! - the registry's `zfp`: no header; the number type, the dimensions and the mode come from the
//!   array's metadata (`RegistryStream`).

use crate::NativeBytes;
use zfp_rs::{
    ZfpBitStreamRef, ZfpConfig, ZfpDimensionality, ZfpFieldMut, ZfpHeaderMask, ZfpScalar,
    ZfpScalarType, ZfpStreamAlignment,
};

/// The number types ZFP stores, as the main module names them (`code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Number {
    I32,
    I64,
    F32,
    F64,
}

const NUMBERS: [Number; 4] = [Number::I32, Number::I64, Number::F32, Number::F64];

impl Number {
    pub fn code(self) -> u32 {
        crate::code_of(&NUMBERS, &self)
    }

    pub fn from_code(code: u32) -> Result<Number, String> {
        crate::item_of(&NUMBERS, code, "ZFP number type")
    }

    fn scalar_type(self) -> ZfpScalarType {
        match self {
            Number::I32 => ZfpScalarType::I32,
            Number::I64 => ZfpScalarType::I64,
            Number::F32 => ZfpScalarType::F32,
            Number::F64 => ZfpScalarType::F64,
        }
    }
}

/// Decodes a zfpy stream of `count` numbers of type `number`, as native-endian bytes.
pub fn decode_with_header(encoded: &[u8], number: Number, count: usize) -> Result<Vec<u8>, String> {
    decode_with_header_of(encoded, number, count, None)
}

/// `decode_with_header`, the header's dimensions held to `dims` where the metadata gives them
/// (the element count alone would let a stream of transposed dimensions through).
fn decode_with_header_of(
    encoded: &[u8],
    number: Number,
    count: usize,
    dims: Option<[usize; 4]>,
) -> Result<Vec<u8>, String> {
    let words = stream_words(encoded)?;
    let mut stream = ZfpBitStreamRef::from_words(&words);
    let header = stream
        .read_header(ZfpHeaderMask::FULL)
        .map_err(|e| format!("header: {e}"))?;
    let (Some(field), Some(config)) = (header.metadata, header.config) else {
        return Err("the header lacks the field or the mode".into());
    };
    if field.scalar_type != number.scalar_type() {
        return Err(format!(
            "the stream holds {:?} numbers, the array {number:?}",
            field.scalar_type
        ));
    }
    check_dims(field.dims, count, "the header's dimensions")?;
    if dims.is_some_and(|dims| dims != field.dims) {
        return Err(format!(
            "the header's dimensions {:?} are not the chunk's {dims:?}",
            field.dims
        ));
    }
    decode_field(&mut stream, number, &config, field.dims, count)
}

/// What the registry's `zfp` stream is, from the array's metadata and the chunk's shape.
#[derive(Debug)]
pub struct RegistryStream {
    number: Number,
    /// The array's type, where ZFP stores it as a wider one (`Element::from_code`; `None`: the
    /// stored type itself).
    element: Option<Element>,
    /// zarrs once wrote zfpy's header before the stream (`"write_header": true`, since removed
    /// from the registry): such a stream says its own dimensions and mode.
    with_header: bool,
    /// The field's dimensions, `[nx, ny, nz, nw]` (nx the fastest; unused ones 0).
    dims: [usize; 4],
    config: ZfpConfig,
}

/// Integer types ZFP stores as its int32 (8, 16 and 32 bits) or int64 (unsigned 64 bits), as the
/// main module names them (`from_code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Element {
    I8,
    U8,
    I16,
    U16,
    U32,
    U64,
}

const ELEMENTS: [Element; 6] = [
    Element::I8,
    Element::U8,
    Element::I16,
    Element::U16,
    Element::U32,
    Element::U64,
];

impl Element {
    /// The element type the main module names by `code` (from 1); 0 names none.
    fn from_code(code: u32) -> Result<Option<Element>, String> {
        match code {
            0 => Ok(None),
            _ => crate::item_of(&ELEMENTS, code, "ZFP element type").map(Some),
        }
    }

    fn size(self) -> usize {
        match self {
            Element::I8 | Element::U8 => 1,
            Element::I16 | Element::U16 => 2,
            Element::U32 => 4,
            Element::U64 => 8,
        }
    }

    /// Demotes one stored integer as the registry's `zfp_demote_*` do for 8 and 16 bits (shift
    /// back, clamp; unsigned values were centred on zero), and undoes zarrs' promotion of
    /// unsigned 32/64-bit values (clamped to the signed range) by clamping at 0.
    fn demote(self, v: i64, out: &mut Vec<u8>) {
        let narrow = |shift: u32, min: i64, max: i64| {
            ((v >> shift) + if min == 0 { (max + 1) / 2 } else { 0 }).clamp(min, max)
        };
        match self {
            Element::I8 => out.push(narrow(23, -0x80, 0x7f) as u8),
            Element::U8 => out.push(narrow(23, 0, 0xff) as u8),
            Element::I16 => out.extend((narrow(15, -0x8000, 0x7fff) as i16).to_ne_bytes()),
            Element::U16 => out.extend((narrow(15, 0, 0xffff) as u16).to_ne_bytes()),
            Element::U32 => out.extend((v.max(0) as u32).to_ne_bytes()),
            Element::U64 => out.extend((v.max(0) as u64).to_ne_bytes()),
        }
    }
}

/// The registry's modes, as the main module names them.
const FIXED_RATE: u32 = 1;
const FIXED_PRECISION: u32 = 2;
const FIXED_ACCURACY: u32 = 3;
const REVERSIBLE: u32 = 4;
const EXPERT: u32 = 5;

/// Where the mode and its parameters start in the main module's parameters.
const MODE_AT: usize = 7;

impl RegistryStream {
    /// From the parameters the main module sends: `[number, element, with_header, nx, ny, nz,
    /// nw, mode, ...]`, the mode (`FIXED_RATE`...) followed by the registry's parameters of it:
    /// rate; precision; tolerance; none; minbits, maxbits, maxprec, minexp.
    pub fn from_params(params: &[f64]) -> Result<RegistryStream, String> {
        let number = Number::from_code(crate::code_param(params, 0)?)?;
        let element = Element::from_code(crate::code_param(params, 1)?)?;
        let with_header = crate::code_param(params, 2)? == 1;
        let mut dims = [0usize; 4];
        for (i, dim) in dims.iter_mut().enumerate() {
            *dim = crate::code_param(params, 3 + i)? as usize;
        }
        let number_arg = |i: usize, name: &str| {
            params
                .get(MODE_AT + 1 + i)
                .copied()
                .ok_or_else(|| format!("\"{name}\" is missing"))
        };
        let count_arg = |i: usize, name: &str| {
            crate::code_param(params, MODE_AT + 1 + i)
                .map_err(|_| format!("\"{name}\" must be a whole number from 0 to 2^32 - 1"))
        };
        let config = match crate::code_param(params, MODE_AT)? {
            // zarrs, the writer, sets the rate for 3-D blocks whatever the chunk's dimensions
            // (`zfp_stream_set_rate(.., 3, 0)`): the bits per block it wrote follow from that.
            FIXED_RATE => {
                let rate = number_arg(0, "rate")?;
                ZfpConfig::fixed_rate(
                    rate,
                    number.scalar_type(),
                    ZfpDimensionality::D3,
                    ZfpStreamAlignment::Unaligned,
                )
                .map_err(|e| format!("\"rate\" {rate}: {e}"))?
            }
            FIXED_PRECISION => ZfpConfig::fixed_precision(count_arg(0, "precision")?),
            FIXED_ACCURACY => ZfpConfig::fixed_accuracy(number_arg(0, "tolerance")?),
            REVERSIBLE => ZfpConfig::reversible(),
            EXPERT => {
                let min_exp = number_arg(3, "minexp")?;
                if min_exp.fract() != 0.0 || min_exp.abs() > f64::from(i32::MAX) {
                    return Err(format!("\"minexp\" {min_exp} is not a 32-bit integer"));
                }
                let (min_bits, max_bits, max_prec) = (
                    count_arg(0, "minbits")?,
                    count_arg(1, "maxbits")?,
                    count_arg(2, "maxprec")?,
                );
                ZfpConfig::expert(min_bits, max_bits, max_prec, min_exp as i32)
                    .map_err(|e| format!("expert parameters: {e}"))?
            }
            mode => return Err(format!("unknown ZFP mode {mode}")),
        };
        Ok(RegistryStream {
            number,
            element,
            with_header,
            dims,
            config,
        })
    }
}

/// Decodes a registry `zfp` stream of `count` numbers, as native-endian bytes of the array's type.
pub fn decode_registry(encoded: &[u8], params: &[f64], count: usize) -> Result<Vec<u8>, String> {
    let what = RegistryStream::from_params(params)?;
    let stored = if what.with_header {
        decode_with_header_of(encoded, what.number, count, Some(what.dims))?
    } else {
        check_dims(what.dims, count, "the chunk's dimensions")?;
        let words = stream_words(encoded)?;
        let mut stream = ZfpBitStreamRef::from_words(&words);
        decode_field(&mut stream, what.number, &what.config, what.dims, count)?
    };
    demote(what.element, what.number, stored)
}

/// The array's values from the stored ones (see `Element::demote`).
fn demote(element: Option<Element>, number: Number, stored: Vec<u8>) -> Result<Vec<u8>, String> {
    let Some(element) = element else {
        return Ok(stored);
    };
    let (size, wide) = match (element, number) {
        (Element::U64, Number::I64) => (8, true),
        (Element::U64, _) => return Err("unsigned 64-bit values are stored as int64".into()),
        (_, Number::I32) => (4, false),
        _ => return Err("8- to 32-bit integers are stored as int32".into()),
    };
    let mut out = Vec::new();
    out.try_reserve_exact(stored.len() / size * element.size())
        .map_err(|_| "out of memory for the decoded chunk".to_string())?;
    for b in stored.chunks_exact(size) {
        let v = if wide {
            i64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
        } else {
            i32::from_ne_bytes([b[0], b[1], b[2], b[3]]).into()
        };
        element.demote(v, &mut out);
    }
    Ok(out)
}

/// ZFP reads 64-bit words: the stream, copied into words (the writers' streams are whole words;
/// a partial last word is zero-padded).
fn stream_words(encoded: &[u8]) -> Result<Vec<u64>, String> {
    let mut words = Vec::new();
    words
        .try_reserve_exact(encoded.len().div_ceil(8))
        .map_err(|_| "out of memory for the stream".to_string())?;
    words.extend(encoded.chunks(8).map(|c| {
        let mut word = [0u8; 8];
        word[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(word)
    }));
    Ok(words)
}

/// The field `dims` must hold exactly the chunk's `count` numbers.
fn check_dims(dims: [usize; 4], count: usize, what: &str) -> Result<(), String> {
    let held = dims
        .iter()
        .filter(|&&d| d > 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d));
    if held != Some(count) {
        return Err(format!(
            "{what} {dims:?} do not make the chunk's {count} numbers"
        ));
    }
    Ok(())
}

fn decode_field(
    stream: &mut ZfpBitStreamRef<'_>,
    number: Number,
    config: &ZfpConfig,
    dims: [usize; 4],
    count: usize,
) -> Result<Vec<u8>, String> {
    match number {
        Number::I32 => numbers::<i32>(stream, config, dims, count),
        Number::I64 => numbers::<i64>(stream, config, dims, count),
        Number::F32 => numbers::<f32>(stream, config, dims, count),
        Number::F64 => numbers::<f64>(stream, config, dims, count),
    }
}

fn numbers<T: ZfpScalar + Default + Copy + NativeBytes>(
    stream: &mut ZfpBitStreamRef<'_>,
    config: &ZfpConfig,
    dims: [usize; 4],
    count: usize,
) -> Result<Vec<u8>, String> {
    let mut values: Vec<T> = crate::values(count)?;
    let mut field = ZfpFieldMut::new(&mut values, dims).map_err(|e| e.to_string())?;
    stream
        .decompress(config, &mut field)
        .map_err(|e| e.to_string())?;
    crate::native_bytes(&values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    #[test]
    fn narrow_integers_are_demoted_as_the_registry_says() {
        let i8s = demote(
            Some(Element::I8),
            Number::I32,
            ints(&[-128 << 23, 5 << 23, i32::MAX]),
        )
        .unwrap();
        assert_eq!(i8s, vec![0x80, 5, 127]);
        let u8s = demote(
            Some(Element::U8),
            Number::I32,
            ints(&[-128 << 23, 0, (127 << 23) + 5]),
        )
        .unwrap();
        assert_eq!(u8s, vec![0, 0x80, 255]);
        let u16s = demote(Some(Element::U16), Number::I32, ints(&[i32::MIN, 3 << 15])).unwrap();
        assert_eq!(
            u16s,
            [0u16, 0x8003]
                .iter()
                .flat_map(|x| x.to_ne_bytes())
                .collect::<Vec<u8>>()
        );
        let u32s = demote(Some(Element::U32), Number::I32, ints(&[-7, 9])).unwrap();
        assert_eq!(
            u32s,
            [0u32, 9]
                .iter()
                .flat_map(|x| x.to_ne_bytes())
                .collect::<Vec<u8>>()
        );
        let wide: Vec<u8> = [-1i64, 1 << 40]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        let u64s = demote(Some(Element::U64), Number::I64, wide).unwrap();
        assert_eq!(
            u64s,
            [0u64, 1 << 40]
                .iter()
                .flat_map(|x| x.to_ne_bytes())
                .collect::<Vec<u8>>()
        );
        assert!(demote(Some(Element::I16), Number::F32, ints(&[1])).is_err());
    }

    #[test]
    fn mode_parameters_are_checked() {
        // [number, element, with_header, nx, ny, nz, nw, mode, ...]
        let params = |mode: &[f64]| [&[3.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0][..], mode].concat();
        assert!(RegistryStream::from_params(&params(&[1.0, 8.0])).is_ok());
        let err = |mode: &[f64]| RegistryStream::from_params(&params(mode)).unwrap_err();
        assert!(err(&[1.0, -2.0]).contains("rate"), "{}", err(&[1.0, -2.0]));
        assert!(err(&[1.0]).contains("\"rate\" is missing"));
        assert!(err(&[2.0, -1.0]).contains("precision"));
        assert!(err(&[5.0, 1.0, 900.0, 20.0, 0.5]).contains("minexp"));
        assert!(err(&[5.0, 900.0, 1.0, 20.0, -3.0]).contains("expert"));
        assert!(err(&[9.0]).contains("unknown ZFP mode"));
    }
}
