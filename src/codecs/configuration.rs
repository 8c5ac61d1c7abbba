//! Codec configurations as typed values: each codec declares its configuration as a serde struct
//! and reads it with `parse`, whose errors name the field and say what it must be
//! (`"level": invalid value: integer `12`, expected an integer from 0 to 9`). The types here are
//! the ones several codecs share. Keys a codec does not know are ignored unless it says otherwise
//! (writers add their own, such as numcodecs' `id`).

use super::numeric;
use crate::data_type::DataType;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::fmt;

/// `config` as the typed configuration `T`, or what is wrong with it and where.
pub fn parse<T: DeserializeOwned>(config: &Map<String, Value>) -> Result<T, String> {
    let value = Value::Object(config.clone());
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        if path == "." {
            inner.to_string()
        } else {
            format!("\"{path}\": {inner}")
        }
    })
}

/// An integer from `MIN` to `MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounded<const MIN: i64, const MAX: i64>(pub i64);

impl<'de, const MIN: i64, const MAX: i64> Deserialize<'de> for Bounded<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Range<const MIN: i64, const MAX: i64>;
        impl<const MIN: i64, const MAX: i64> Visitor<'_> for Range<MIN, MAX> {
            type Value = Bounded<MIN, MAX>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "an integer from {MIN} to {MAX}")
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
                if (MIN..=MAX).contains(&n) {
                    Ok(Bounded(n))
                } else {
                    Err(E::invalid_value(de::Unexpected::Signed(n), &self))
                }
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
                match i64::try_from(n) {
                    Ok(n) => self.visit_i64(n),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Unsigned(n), &self)),
                }
            }
        }
        deserializer.deserialize_i64(Range::<MIN, MAX>)
    }
}

/// A NumPy dtype string naming a number type (`"<i2"`, `"float32"`), as numcodecs' filters give
/// their input and output types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumpyDtype(pub DataType);

impl<'de> Deserialize<'de> for NumpyDtype {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        numeric::parse_numpy_dtype(&s)
            .map(NumpyDtype)
            .map_err(de::Error::custom)
    }
}

/// Where something sits in the encoded bytes: a checksum, a shard's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Location {
    Start,
    End,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    struct Example {
        level: Option<Bounded<0, 9>>,
        location: Option<Location>,
        dtype: Option<NumpyDtype>,
        keep: u32,
    }

    fn parse_json(v: Value) -> Result<Example, String> {
        parse(v.as_object().unwrap())
    }

    #[test]
    fn errors_name_the_field_and_what_it_must_be() {
        let ok = parse_json(
            json!({"level": 9, "location": "end", "dtype": "<i2", "keep": 1, "id": "x"}),
        )
        .unwrap();
        assert_eq!(ok.level, Some(Bounded(9)));
        assert_eq!(ok.location, Some(Location::End));
        assert_eq!(ok.dtype, Some(NumpyDtype(DataType::Int16)));
        assert_eq!(ok.keep, 1);
        let err = |v| parse_json(v).unwrap_err();
        assert_eq!(
            err(json!({"level": 12, "keep": 1})),
            "\"level\": invalid value: integer `12`, expected an integer from 0 to 9"
        );
        assert_eq!(
            err(json!({"level": "x", "keep": 1})),
            "\"level\": invalid type: string \"x\", expected an integer from 0 to 9"
        );
        assert!(err(json!({"location": "middle", "keep": 1}))
            .starts_with("\"location\": unknown variant `middle`"));
        assert!(err(json!({"dtype": "<q9", "keep": 1})).starts_with("\"dtype\": "));
        assert_eq!(err(json!({})), "missing field `keep`");
    }
}
