//! A codec's configuration, read field by field into typed values. Each codec file declares its
//! configuration as a struct and fills it from here: `config.required::<T>("key")` and
//! `config.optional::<T>("key")`, where `T` says what the field must be. Errors name the field,
//! what it must be and what it was: `"level" must be an integer from 0 to 9, not 12`.
//!
//! Why not serde: deriving `Deserialize` for every configuration (with serde_path_to_error, so
//! that errors name the field) grew the wasm module by 99 KB (28.5 KiB gzipped), over the size
//! budget, for the same checks. Keys a codec does not know are ignored unless it calls `only`
//! (writers add their own, such as numcodecs' `id`).

use crate::data_type::{DataType, Endian};
use crate::metadata::extension::Extension;
use serde_json::{Map, Value};

/// A codec's configuration as written in metadata (`{}` where there is none).
#[derive(Clone, Copy)]
pub struct Configuration<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Configuration<'a> {
    pub fn new(map: &'a Map<String, Value>) -> Configuration<'a> {
        Configuration { map }
    }

    /// The field `key` as a `T`, or `None` where it is absent (or `null`, as some writers put
    /// unset options).
    pub fn optional<T: Field<'a>>(&self, key: &str) -> Result<Option<T>, String> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => T::read(value)
                .map(Some)
                .ok_or_else(|| not_a(key, T::expected, Some(value))),
        }
    }

    /// The field `key` as a `T`; an error where it is absent.
    pub fn required<T: Field<'a>>(&self, key: &str) -> Result<T, String> {
        self.optional(key)?
            .ok_or_else(|| not_a(key, T::expected, None))
    }

    /// The non-empty list of codecs `key` (codecs that hold codecs: sharding, conditional,
    /// n5_default).
    pub fn codecs(&self, key: &str) -> Result<Vec<Extension>, String> {
        let list: Vec<&Value> = self.required(key)?;
        if list.is_empty() {
            return Err(format!("\"{key}\" must not be empty"));
        }
        list.into_iter()
            .map(Extension::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| format!("\"{key}\": {e}"))
    }

    /// Refuses keys other than `known` (for codecs whose spec lists every key).
    pub fn only(&self, known: &[&str]) -> Result<(), String> {
        match self.map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(key) => Err(format!("unknown configuration key \"{key}\"")),
            None => Ok(()),
        }
    }
}

/// The error for field `key`, which is not what `expected` says (or is missing). Not generic, so
/// that the message is built by one function however many field types there are.
fn not_a(key: &str, expected: fn() -> String, value: Option<&Value>) -> String {
    match value {
        Some(value) => format!(
            "\"{key}\" must be {}, not {value}",
            expected(),
            value = crate::error::quote(value)
        ),
        None => format!("\"{key}\" ({}) is required", expected()),
    }
}

/// A type a configuration field can be read as.
pub trait Field<'a>: Sized {
    /// What a value must be, as errors say it ("an integer from 0 to 9").
    fn expected() -> String;
    /// The value as this type, or `None` when it is not one.
    fn read(value: &'a Value) -> Option<Self>;
}

impl Field<'_> for u64 {
    fn expected() -> String {
        "a non-negative integer".into()
    }
    fn read(value: &Value) -> Option<u64> {
        value.as_u64()
    }
}

impl Field<'_> for i64 {
    fn expected() -> String {
        "an integer".into()
    }
    fn read(value: &Value) -> Option<i64> {
        value.as_i64()
    }
}

impl Field<'_> for f64 {
    fn expected() -> String {
        "a number".into()
    }
    fn read(value: &Value) -> Option<f64> {
        value.as_f64()
    }
}

impl Field<'_> for bool {
    fn expected() -> String {
        "true or false".into()
    }
    fn read(value: &Value) -> Option<bool> {
        value.as_bool()
    }
}

impl<'a> Field<'a> for &'a str {
    fn expected() -> String {
        "a string".into()
    }
    fn read(value: &'a Value) -> Option<&'a str> {
        value.as_str()
    }
}

/// Any JSON value, read by the codec itself (a list of codecs, a fill value).
impl<'a> Field<'a> for &'a Value {
    fn expected() -> String {
        "a value".into()
    }
    fn read(value: &'a Value) -> Option<&'a Value> {
        Some(value)
    }
}

impl<'a, T: Field<'a>> Field<'a> for Vec<T> {
    fn expected() -> String {
        format!("a list of values each {}", T::expected())
    }
    fn read(value: &'a Value) -> Option<Vec<T>> {
        value.as_array()?.iter().map(T::read).collect()
    }
}

/// An integer from `MIN` to `MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounded<const MIN: i64, const MAX: i64>(pub i64);

impl<const MIN: i64, const MAX: i64> Field<'_> for Bounded<MIN, MAX> {
    fn expected() -> String {
        match MAX {
            i64::MAX => format!("an integer of at least {MIN}"),
            _ => format!("an integer from {MIN} to {MAX}"),
        }
    }
    fn read(value: &Value) -> Option<Self> {
        value
            .as_i64()
            .filter(|n| (MIN..=MAX).contains(n))
            .map(Bounded)
    }
}

/// A NumPy dtype string naming a number type (`"<i2"`, `"float32"`), as numcodecs' filters give
/// their input and output types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumpyDtype(pub DataType);

impl Field<'_> for NumpyDtype {
    fn expected() -> String {
        "a NumPy dtype string of a number type (such as \"<i2\")".into()
    }
    fn read(value: &Value) -> Option<NumpyDtype> {
        parse_numpy_dtype(value.as_str()?).map(NumpyDtype)
    }
}

/// A byte order, as `bytes` names it.
impl Field<'_> for Endian {
    fn expected() -> String {
        "\"little\" or \"big\"".into()
    }
    fn read(value: &Value) -> Option<Endian> {
        match value.as_str()? {
            "little" => Some(Endian::Little),
            "big" => Some(Endian::Big),
            _ => None,
        }
    }
}

/// A NumPy dtype string as numcodecs writes it (`"<i4"`, `"|u1"`, `"float32"`), where it names a
/// real number type. The byte order does not matter: filters work on values, and where their
/// bytes are stored the array's codecs (a v2 array's bytes codec) say the order.
fn parse_numpy_dtype(s: &str) -> Option<DataType> {
    if let Some(dt) = DataType::from_v3_name(s).filter(|d| d.is_real()) {
        return Some(dt);
    }
    let code = match s.as_bytes().first() {
        Some(b'<' | b'>' | b'|' | b'=') => &s[1..],
        _ => s,
    };
    Some(match code {
        "b1" | "?" => DataType::Bool,
        "i1" => DataType::Int8,
        "i2" => DataType::Int16,
        "i4" => DataType::Int32,
        "i8" => DataType::Int64,
        "u1" => DataType::UInt8,
        "u2" => DataType::UInt16,
        "u4" => DataType::UInt32,
        "u8" => DataType::UInt64,
        "f2" => DataType::Float16,
        "f4" => DataType::Float32,
        "f8" => DataType::Float64,
        _ => return None,
    })
}

/// Declares a configuration value that is one of a few names, and reads it as such.
macro_rules! named {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {
            $($variant),+
        }

        impl $crate::codecs::configuration::Field<'_> for $name {
            fn expected() -> String {
                let names: &[&str] = &[$(concat!("\"", $text, "\"")),+];
                format!("one of {}", names.join(", "))
            }
            fn read(value: &serde_json::Value) -> Option<Self> {
                match value.as_str()? {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
        }
    };
}
pub(crate) use named;

named! {
    /// Where something sits in the encoded bytes: a checksum, a shard's index.
    Location { Start = "start", End = "end" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn with<T>(v: Value, read: impl Fn(Configuration) -> Result<T, String>) -> Result<T, String> {
        read(Configuration::new(v.as_object().unwrap()))
    }

    #[test]
    fn fields_read_as_their_types() {
        let v = json!({"level": 9, "location": "end", "dtype": "<i2", "shape": [1, 2], "id": "x"});
        let c = Configuration::new(v.as_object().unwrap());
        assert_eq!(c.required::<Bounded<0, 9>>("level"), Ok(Bounded(9)));
        assert_eq!(c.optional::<Location>("location"), Ok(Some(Location::End)));
        assert_eq!(
            c.required::<NumpyDtype>("dtype"),
            Ok(NumpyDtype(DataType::Int16))
        );
        assert_eq!(c.required::<Vec<u64>>("shape"), Ok(vec![1, 2]));
        assert_eq!(c.optional::<u64>("absent"), Ok(None));
        assert_eq!(c.required::<&str>("id"), Ok("x"));
    }

    #[test]
    fn numpy_dtypes_name_real_types_in_any_byte_order() {
        assert_eq!(parse_numpy_dtype("<i4"), Some(DataType::Int32));
        assert_eq!(parse_numpy_dtype("|u1"), Some(DataType::UInt8));
        assert_eq!(parse_numpy_dtype("float32"), Some(DataType::Float32));
        // Byte order is the array codecs' business: a filter names only the value type.
        assert_eq!(parse_numpy_dtype(">f8"), Some(DataType::Float64));
        assert_eq!(parse_numpy_dtype("<c8"), None);
    }

    #[test]
    fn errors_name_the_field_what_it_must_be_and_what_it_was() {
        let err = |v: Value, key: &str| with(v, |c| c.required::<Bounded<0, 9>>(key)).unwrap_err();
        assert_eq!(
            err(json!({"level": 12}), "level"),
            "\"level\" must be an integer from 0 to 9, not 12"
        );
        assert_eq!(
            err(json!({"level": "x"}), "level"),
            "\"level\" must be an integer from 0 to 9, not \"x\""
        );
        assert_eq!(
            err(json!({}), "level"),
            "\"level\" (an integer from 0 to 9) is required"
        );
        assert_eq!(
            with(json!({"location": "middle"}), |c| c
                .required::<Location>("location"))
            .unwrap_err(),
            "\"location\" must be one of \"start\", \"end\", not \"middle\""
        );
        assert_eq!(
            with(json!({"shape": [1, -2]}), |c| c
                .required::<Vec<u64>>("shape"))
            .unwrap_err(),
            "\"shape\" must be a list of values each a non-negative integer, not [1,-2]"
        );
        assert_eq!(
            with(json!({"a": 1, "b": 2}), |c| c.only(&["a"])).unwrap_err(),
            "unknown configuration key \"b\""
        );
    }
}
