//! Data types of array elements. Decoded chunks hold elements in the machine's native byte order
//! (little endian on wasm32), so a data type says its size, the unit that byte order applies to,
//! and how to read a fill value.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    Float32,
    Float64,
    /// Two float32: real, then imaginary.
    Complex64,
    /// Two float64: real, then imaginary.
    Complex128,
    /// `r<bits>`: opaque bytes, `bits / 8` per element.
    Raw {
        bytes: usize,
    },
    /// Variable-length UTF-8 strings (`string`, codec `vlen-utf8`).
    String,
    /// Variable-length byte strings (`variable_length_bytes`, codec `vlen-bytes`).
    Bytes,
}

/// Bytes of one variable-length element in decoded chunks and results: a native-order u64 index
/// into the items that come with them (see `array::Items`).
pub const VARIABLE_HANDLE_SIZE: usize = 8;

impl DataType {
    /// The Zarr v3 name (`data_type` in `zarr.json`).
    pub fn from_v3_name(name: &str) -> Option<DataType> {
        Some(match name {
            "bool" => DataType::Bool,
            "int8" => DataType::Int8,
            "int16" => DataType::Int16,
            "int32" => DataType::Int32,
            "int64" => DataType::Int64,
            "uint8" => DataType::UInt8,
            "uint16" => DataType::UInt16,
            "uint32" => DataType::UInt32,
            "uint64" => DataType::UInt64,
            "float16" => DataType::Float16,
            "float32" => DataType::Float32,
            "float64" => DataType::Float64,
            "complex64" => DataType::Complex64,
            "complex128" => DataType::Complex128,
            "string" => DataType::String,
            "variable_length_bytes" => DataType::Bytes,
            _ => {
                // r8, r16, ...: a positive multiple of 8 bits, written without sign or leading zeros.
                let digits = name.strip_prefix('r')?;
                if digits.is_empty()
                    || digits.starts_with('0')
                    || !digits.bytes().all(|b| b.is_ascii_digit())
                {
                    return None;
                }
                let bits: usize = digits.parse().ok()?;
                if bits % 8 != 0 {
                    return None;
                }
                DataType::Raw { bytes: bits / 8 }
            }
        })
    }

    pub fn v3_name(self) -> String {
        match self {
            DataType::Raw { bytes } => format!("r{}", bytes * 8),
            other => other.fixed_name().to_string(),
        }
    }

    fn fixed_name(self) -> &'static str {
        match self {
            DataType::Bool => "bool",
            DataType::Int8 => "int8",
            DataType::Int16 => "int16",
            DataType::Int32 => "int32",
            DataType::Int64 => "int64",
            DataType::UInt8 => "uint8",
            DataType::UInt16 => "uint16",
            DataType::UInt32 => "uint32",
            DataType::UInt64 => "uint64",
            DataType::Float16 => "float16",
            DataType::Float32 => "float32",
            DataType::Float64 => "float64",
            DataType::Complex64 => "complex64",
            DataType::Complex128 => "complex128",
            DataType::Raw { .. } => "r*",
            DataType::String => "string",
            DataType::Bytes => "variable_length_bytes",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DataType::Bool | DataType::Int8 | DataType::UInt8 => 1,
            DataType::Int16 | DataType::UInt16 | DataType::Float16 => 2,
            DataType::Int32 | DataType::UInt32 | DataType::Float32 => 4,
            DataType::Int64 | DataType::UInt64 | DataType::Float64 | DataType::Complex64 => 8,
            DataType::Complex128 => 16,
            DataType::Raw { bytes } => bytes,
            // In memory an element of a variable-length type is a handle: the index of its item.
            DataType::String | DataType::Bytes => VARIABLE_HANDLE_SIZE,
        }
    }

    /// Whether elements have no fixed size (strings, byte strings).
    pub fn is_variable(self) -> bool {
        matches!(self, DataType::String | DataType::Bytes)
    }

    /// The unit that byte order applies to (a complex number's components are swapped one by one),
    /// or `None` where byte order does not apply (single bytes, raw bytes).
    pub fn byte_order_unit(self) -> Option<usize> {
        match self {
            DataType::Bool
            | DataType::Int8
            | DataType::UInt8
            | DataType::Raw { .. }
            | DataType::String
            | DataType::Bytes => None,
            DataType::Complex64 => Some(4),
            DataType::Complex128 => Some(8),
            other => Some(other.size()),
        }
    }
}

impl fmt::Display for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.v3_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_type_names() {
        assert_eq!(
            DataType::from_v3_name("r24"),
            Some(DataType::Raw { bytes: 3 })
        );
        for bad in ["r", "r0", "r12", "r08", "r-8", "rx"] {
            assert_eq!(DataType::from_v3_name(bad), None, "{bad}");
        }
        assert_eq!(DataType::Raw { bytes: 2 }.v3_name(), "r16");
        assert_eq!(DataType::Complex64.byte_order_unit(), Some(4));
    }
}
