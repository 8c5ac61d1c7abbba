//! ZFP streams, decoded by zfp-rs (a pure-Rust ZFP, bit for bit with the C library) into exactly
//! the chunk's element count, in two framings:
//! - numcodecs' `ZFPY`: as the `zfpy` package writes them, a full header (magic, the field's type
//!   and dimensions, the compression mode) before the blocks; the header's dimensions must
//!   describe the chunk, and never size an allocation;
//! - the registry's `zfp`: no header; the number type, the dimensions and the mode come from the
//!   array's metadata (`RegistryStream`).
//!
//! Decoded in steps (`ZfpSteps`): a step decodes about its budget's worth of ZFP's blocks of 4^d
//! numbers, in the stream's order, and hands over the numbers of each row of blocks (along the
//! slowest axis) once it is complete. zfp-rs decodes a whole field at once and aligns the stream
//! after it, so the blocks are decoded one by one here (`zfp_rs::codec::block::decode_block`,
//! what its whole-field decode does per block), and a stream cut short is refused by the C
//! library's rule, which zfp-rs's whole-field decode keeps (`block`). That decode
//! (`decode_with_header`, `decode_registry`) is what the tests hold the steps to; the module
//! does not link it.

use crate::{NativeBytes, Steps};
use zfp_rs::codec::block::decode_block;
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
    let (field_dims, config) = read_header(&mut stream, number, count, dims)?;
    decode_field(&mut stream, number, &config, field_dims, count)
}

/// The stream's header: its field's dimensions and its mode, checked against the array's number
/// type, the chunk's element count and (where the metadata gives them) its dimensions.
fn read_header(
    stream: &mut ZfpBitStreamRef,
    number: Number,
    count: usize,
    dims: Option<[usize; 4]>,
) -> Result<([usize; 4], ZfpConfig), String> {
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
    Ok((field.dims, config))
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

/// Begins decoding a zfpy stream of `count` numbers of type `number` (its header is read here).
pub fn begin_with_header(
    encoded: &[u8],
    number: Number,
    count: usize,
) -> Result<Box<dyn Steps>, String> {
    steps(encoded, number, None, count, None, None)
}

/// Begins decoding a registry `zfp` stream of `count` numbers (see `RegistryStream::from_params`).
pub fn begin_registry(
    encoded: &[u8],
    params: &[f64],
    count: usize,
) -> Result<Box<dyn Steps>, String> {
    let what = RegistryStream::from_params(params)?;
    match what.with_header {
        true => steps(
            encoded,
            what.number,
            what.element,
            count,
            Some(what.dims),
            None,
        ),
        false => {
            let given = Some((what.dims, what.config));
            steps(encoded, what.number, what.element, count, None, given)
        }
    }
}

/// The decode in steps of `encoded`: with its header (its dimensions held to `dims` where the
/// metadata gives them), or headerless as `given` says.
fn steps(
    encoded: &[u8],
    number: Number,
    element: Option<Element>,
    count: usize,
    dims: Option<[usize; 4]>,
    given: Option<([usize; 4], ZfpConfig)>,
) -> Result<Box<dyn Steps>, String> {
    let words = stream_words(encoded)?;
    let (field_dims, config, start) = match given {
        Some((dims, config)) => {
            check_dims(dims, count, "the chunk's dimensions")?;
            (dims, config, 0)
        }
        None => {
            let mut stream = ZfpBitStreamRef::from_words(&words);
            let (field_dims, config) = read_header(&mut stream, number, count, dims)?;
            (field_dims, config, stream.read_pos())
        }
    };
    let new = |words| Field::new(words, start, field_dims, config, count, element);
    Ok(match number {
        Number::I32 => Box::new(ZfpSteps::<i32>::new(new(words), number)?),
        Number::I64 => Box::new(ZfpSteps::<i64>::new(new(words), number)?),
        Number::F32 => Box::new(ZfpSteps::<f32>::new(new(words), number)?),
        Number::F64 => Box::new(ZfpSteps::<f64>::new(new(words), number)?),
    })
}

/// What a ZFP decode in steps reads and where it is.
struct Field {
    /// The stream (moved to `ZfpSteps` once it begins).
    words: Vec<u64>,
    /// The bit at which the next block starts.
    pos: u64,
    /// `[nx, ny, nz, nw]` (nx the fastest; unused ones 0), and the blocks along each.
    dims: [usize; 4],
    blocks: [usize; 4],
    dimensionality: ZfpDimensionality,
    config: ZfpConfig,
    count: usize,
    element: Option<Element>,
    /// The blocks decoded so far, and the numbers handed over.
    decoded: usize,
    handed: usize,
}

impl Field {
    fn new(
        words: Vec<u64>,
        pos: u64,
        dims: [usize; 4],
        config: ZfpConfig,
        count: usize,
        element: Option<Element>,
    ) -> Field {
        let used = dims.iter().filter(|&&d| d > 0).count();
        let dimensionality = match used {
            1 => ZfpDimensionality::D1,
            2 => ZfpDimensionality::D2,
            3 => ZfpDimensionality::D3,
            _ => ZfpDimensionality::D4,
        };
        Field {
            words,
            pos,
            dims,
            blocks: dims.map(|d| d.div_ceil(4)),
            dimensionality,
            config,
            count,
            element,
            decoded: 0,
            handed: 0,
        }
    }

    /// The blocks in all (an empty field has none).
    fn total_blocks(&self) -> usize {
        match self.count {
            0 => 0,
            _ => self.blocks.iter().filter(|&&b| b > 0).product(),
        }
    }

    /// The blocks of a row (the blocks that share their place along the slowest axis), and the
    /// numbers a whole row holds: a row's numbers are complete, and in C order, once its blocks
    /// are decoded.
    fn row(&self) -> (usize, usize) {
        let used = self.dimensionality as usize;
        let blocks = self.blocks[..used - 1].iter().product();
        (blocks, self.dims[..used - 1].iter().product::<usize>() * 4)
    }
}

/// A ZFP field of `T` being decoded in steps, a row of blocks at a time into `values`.
struct ZfpSteps<T: ZfpScalar> {
    /// The stream's words (apart from `field`, which decoding borrows as the stream does them).
    words: Vec<u64>,
    field: Field,
    number: Number,
    values: Vec<T>,
}

impl<T: ZfpScalar + NativeBytes> ZfpSteps<T> {
    fn new(mut field: Field, number: Number) -> Result<ZfpSteps<T>, String> {
        let values = crate::values(field.row().1.min(field.count))?;
        Ok(ZfpSteps {
            words: std::mem::take(&mut field.words),
            field,
            number,
            values,
        })
    }
}

/// Decodes the block at `index` (in the stream's order) of `f` from `stream` (over `words`) into
/// `values` (its row's numbers), and checks that the stream does not end inside it.
fn block<T: ZfpScalar>(
    f: &Field,
    values: &mut [T],
    stream: &mut ZfpBitStreamRef,
    words: &[u64],
    index: usize,
    last: bool,
) -> Result<(), String> {
    let used = f.dimensionality as usize;
    // The block's first place, and the lengths of it inside the field (x fastest).
    let mut at = [0usize; 4];
    let mut lengths = [0usize; 4];
    let mut rest = index;
    for d in 0..used {
        at[d] = rest % f.blocks[d] * 4;
        rest /= f.blocks[d];
        lengths[d] = (f.dims[d] - at[d]).min(4);
    }
    let mut block = [T::default(); 256];
    let block = &mut block[..f.dimensionality.block_size()];
    let before = stream.read_pos();
    decode_block(stream, &f.config, block, f.dimensionality)
        .map_err(|_| "a block of the wrong size".to_string())?;
    let end = words.len() as u64 * 64;
    let cut = match last {
        // Bits read past the stream's end are zeros (and the next block reads some): cut short.
        false => stream.read_pos() > end,
        // The C library's rule (zfp-rs's): cut short if a word past the end was loaded, by the
        // block's bits or by the skip over its padding to `min_bits` (which loads the word it
        // lands in, unless it lands on a word's start). Where the bits end is found by decoding
        // the block again without the padding.
        true => {
            let padded = stream.read_pos();
            let mut again = ZfpBitStreamRef::from_words(words);
            again.seek_read(before);
            let unpadded = ZfpConfig::expert(
                0,
                f.config.max_bits(),
                f.config.max_prec(),
                f.config.min_exp(),
            )
            .map_err(|e| e.to_string())?
            .with_rounding(f.config.rounding());
            let mut scratch = [T::default(); 256];
            decode_block(
                &mut again,
                &unpadded,
                &mut scratch[..f.dimensionality.block_size()],
                f.dimensionality,
            )
            .map_err(|_| "a block of the wrong size".to_string())?;
            again.read_pos() > end || (!padded.is_multiple_of(64) && padded > end)
        }
    };
    if cut {
        return Err(format!(
            "the stream ends inside block {} of {}",
            index + 1,
            f.total_blocks()
        ));
    }
    // Places in the row: along the slowest axis, from the row's start.
    at[used - 1] %= 4;
    let [nx, ny, nz, _] = f.dims.map(|d| d.max(1));
    let stride = [1, nx, nx * ny, nx * ny * nz];
    each_place(lengths, used, |x, y, z, w| {
        let place = (at[0] + x) * stride[0]
            + (at[1] + y) * stride[1]
            + (at[2] + z) * stride[2]
            + (at[3] + w) * stride[3];
        values[place] = block[x + 4 * y + 16 * z + 64 * w];
    });
    Ok(())
}

/// Calls `f` with each place `(x, y, z, w)` of a block of `lengths` in `used` dimensions, x
/// fastest.
fn each_place(lengths: [usize; 4], used: usize, mut f: impl FnMut(usize, usize, usize, usize)) {
    let len = |d: usize| if d < used { lengths[d] } else { 1 };
    for w in 0..len(3) {
        for z in 0..len(2) {
            for y in 0..len(1) {
                for x in 0..len(0) {
                    f(x, y, z, w);
                }
            }
        }
    }
}

impl<T: ZfpScalar + NativeBytes> Steps for ZfpSteps<T> {
    fn step(&mut self, budget: usize, out: &mut Vec<u8>) -> Result<bool, String> {
        let f = &mut self.field;
        let total = f.total_blocks();
        let (row_blocks, row_values) = f.row();
        let per_block = f.dimensionality.block_size() * size_of::<T>();
        let end = f
            .decoded
            .saturating_add((budget / per_block).max(1))
            .min(total);
        let mut stream = ZfpBitStreamRef::from_words(&self.words);
        stream.seek_read(f.pos);
        while f.decoded < end {
            let index = f.decoded;
            let last = index + 1 == total;
            block(f, &mut self.values, &mut stream, &self.words, index, last)?;
            f.decoded += 1;
            if f.decoded.is_multiple_of(row_blocks) || last {
                // A row is complete: its numbers (the last row's, as many as it has).
                let len = row_values.min(f.count - f.handed);
                let stored = crate::native_bytes(&self.values[..len])?;
                out.extend(demote(f.element, self.number, stored)?);
                f.handed += len;
            }
        }
        f.pos = stream.read_pos();
        Ok(f.decoded == total)
    }
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

    /// A stream of `values` (dims `dims`) compressed by zfp-rs with `config`, its words as bytes.
    fn compressed<T: ZfpScalar>(values: &[T], dims: [usize; 4], config: &ZfpConfig) -> Vec<u8> {
        let field = zfp_rs::ZfpField::new(values, dims).unwrap();
        let mut stream = zfp_rs::ZfpBitStream::new(size_of_val(values) * 3 + 1024).unwrap();
        stream.compress(config, &field).unwrap();
        stream.flush();
        stream.as_bytes().to_vec()
    }

    /// Decodes with `steps` (a fresh one each call) in steps of `budget`.
    fn stepped(
        begin: &dyn Fn() -> Result<Box<dyn Steps>, String>,
        budget: usize,
    ) -> Result<Vec<u8>, String> {
        let mut steps = begin()?;
        let mut out = Vec::new();
        while !steps.step(budget, &mut out)? {}
        Ok(out)
    }

    #[test]
    fn blocks_decoded_in_steps_are_zfp_rs_whole_field_decode_damaged_or_not() {
        // Every mode in 1 to 4 dimensions with partial blocks, the four number types; each
        // stream whole, cut at every byte and with bits flipped: the steps' bytes are those of
        // zfp-rs's decode of the whole field, and they refuse what it refuses.
        let fields: [[usize; 4]; 4] = [[13, 0, 0, 0], [7, 10, 0, 0], [6, 9, 5, 0], [5, 4, 3, 6]];
        let modes: [&[f64]; 6] = [
            &[FIXED_RATE as f64, 8.0],
            &[FIXED_RATE as f64, 16.0],
            &[FIXED_PRECISION as f64, 14.0],
            &[FIXED_ACCURACY as f64, 0.01],
            &[REVERSIBLE as f64],
            &[EXPERT as f64, 10.0, 300.0, 20.0, -8.0],
        ];
        let mut checked = 0;
        for dims in fields {
            let count: usize = dims.iter().filter(|&&d| d > 0).product();
            for (code, number) in NUMBERS.iter().enumerate() {
                for mode in modes {
                    let params = [
                        &[(code + 1) as f64, 0.0, 0.0][..],
                        &dims.map(|d| d as f64)[..],
                        mode,
                    ]
                    .concat();
                    let config = RegistryStream::from_params(&params).unwrap().config;
                    let smooth = |i: usize| ((i as f64) * 0.37).sin() * 1000.0;
                    let encoded = match number {
                        Number::I32 => {
                            let v: Vec<i32> = (0..count).map(|i| smooth(i) as i32).collect();
                            compressed(&v, dims, &config)
                        }
                        Number::I64 => {
                            let v: Vec<i64> = (0..count).map(|i| smooth(i) as i64).collect();
                            compressed(&v, dims, &config)
                        }
                        Number::F32 => {
                            let v: Vec<f32> = (0..count).map(|i| smooth(i) as f32).collect();
                            compressed(&v, dims, &config)
                        }
                        Number::F64 => {
                            let v: Vec<f64> = (0..count).map(smooth).collect();
                            compressed(&v, dims, &config)
                        }
                    };
                    let mut cases = vec![encoded.clone()];
                    cases.extend((0..encoded.len()).map(|len| encoded[..len].to_vec()));
                    for at in (0..encoded.len()).step_by(3) {
                        let mut bad = encoded.clone();
                        bad[at] ^= 1 << (at % 8);
                        cases.push(bad);
                    }
                    for case in cases {
                        let whole = decode_registry(&case, &params, count);
                        for budget in [1, 100, usize::MAX] {
                            let begin = || begin_registry(&case, &params, count);
                            let steps = stepped(&begin, budget);
                            assert_eq!(
                                whole.is_ok(),
                                steps.is_ok(),
                                "{dims:?} {number:?} {mode:?}, {} of {} bytes: {whole:?} / {steps:?}",
                                case.len(),
                                encoded.len()
                            );
                            if let (Ok(whole), Ok(steps)) = (&whole, &steps) {
                                assert!(whole == steps, "{dims:?} {number:?} {mode:?}");
                            }
                            checked += 1;
                        }
                    }
                }
            }
        }
        println!("{checked} decodes alike");
    }

    #[test]
    fn zfpy_chunks_decoded_in_steps_are_zfp_rs_whole_field_decode_cut_or_not() {
        // numcodecs' zfpy chunks (the fixtures, by the ZFP C library's binding), whole and cut at
        // every byte: as zfp-rs decodes them whole, or refused as it refuses them.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/extra.zarr/zfpy");
        let mut checked = 0;
        for array in std::fs::read_dir(&root).unwrap() {
            let dir = array.unwrap().path();
            let Ok(meta) = std::fs::read_to_string(dir.join("zarr.json")) else {
                continue;
            };
            let number = match meta {
                m if m.contains("\"float32\"") => Number::F32,
                m if m.contains("\"float64\"") => Number::F64,
                m if m.contains("\"int32\"") => Number::I32,
                _ => Number::I64,
            };
            let mut chunks = Vec::new();
            let mut stack = vec![dir.join("c")];
            while let Some(at) = stack.pop() {
                for entry in std::fs::read_dir(at).into_iter().flatten() {
                    let path = entry.unwrap().path();
                    match path.is_dir() {
                        true => stack.push(path),
                        false => chunks.push(std::fs::read(path).unwrap()),
                    }
                }
            }
            for chunk in chunks {
                // The chunk's count as the header says it (edge chunks are whole in zfpy).
                let count = (1..1 << 20)
                    .find(|&n| decode_with_header(&chunk, number, n).is_ok())
                    .unwrap();
                for len in 0..=chunk.len() {
                    let case = &chunk[..len];
                    let whole = decode_with_header(case, number, count);
                    let begin = || begin_with_header(case, number, count);
                    let steps = stepped(&begin, 64);
                    assert_eq!(whole.is_ok(), steps.is_ok(), "{dir:?}, {len} bytes");
                    if let (Ok(whole), Ok(steps)) = (&whole, &steps) {
                        assert!(whole == steps, "{dir:?}, {len} bytes");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }
}
