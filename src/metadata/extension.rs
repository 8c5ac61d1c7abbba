//! The spec's extension definition: a short-hand name or `{name, configuration, must_understand}`.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct Extension {
    pub name: String,
    pub configuration: Map<String, Value>,
    /// Implicitly true; an extension a reader does not know may only be ignored when this is false.
    pub must_understand: bool,
}

/// Extension names of the spec's drafts, e.g. `https://purl.org/zarr/spec/codec/gzip/1.0` or
/// `https://purl.org/zarr/spec/codecs/gzip`: the registered name is the segment after the kind.
const URI_PREFIX: &str = "https://purl.org/zarr/spec/";

impl Extension {
    /// The registered short name, also for an extension named by its older URI.
    pub fn registered_name(&self) -> &str {
        self.name
            .strip_prefix(URI_PREFIX)
            .and_then(|rest| rest.split('/').nth(1))
            .filter(|n| !n.is_empty())
            .unwrap_or(&self.name)
    }

    pub fn parse(value: &Value) -> Result<Extension, String> {
        match value {
            Value::String(name) => Ok(Extension {
                name: name.clone(),
                configuration: Map::new(),
                must_understand: true,
            }),
            Value::Object(obj) => {
                let name = match obj.get("name") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => {
                        return Err(format!(
                            "extension name {} is not a string",
                            crate::error::quote(other)
                        ))
                    }
                    None => {
                        return Err(format!(
                            "extension object {} has no \"name\"",
                            crate::error::quote(value)
                        ))
                    }
                };
                let configuration = match obj.get("configuration") {
                    None => Map::new(),
                    Some(Value::Object(c)) => c.clone(),
                    Some(other) => {
                        return Err(format!(
                            "configuration of \"{name}\" is not an object: {other}",
                            other = crate::error::quote(other)
                        ))
                    }
                };
                let must_understand = match obj.get("must_understand") {
                    None => true,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => {
                        return Err(format!(
                            "must_understand of \"{name}\" is not a boolean: {other}",
                            other = crate::error::quote(other)
                        ))
                    }
                };
                Ok(Extension {
                    name,
                    configuration,
                    must_understand,
                })
            }
            other => Err(format!(
                "{other} is neither an extension name nor an extension object",
                other = crate::error::quote(other)
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_names_objects_and_uri_names() {
        let e = Extension::parse(&json!("gzip")).unwrap();
        assert_eq!((e.registered_name(), e.must_understand), ("gzip", true));
        let e = Extension::parse(&json!({"name": "https://purl.org/zarr/spec/codec/gzip/1.0", "configuration": {"level": 1}})).unwrap();
        assert_eq!(e.registered_name(), "gzip");
        assert_eq!(
            Extension::parse(&json!({"name": "https://purl.org/zarr/spec/codecs/crc32c"}))
                .unwrap()
                .registered_name(),
            "crc32c"
        );
        let e = Extension::parse(&json!({"name": "x", "must_understand": false})).unwrap();
        assert!(!e.must_understand);
        assert!(Extension::parse(&json!({"configuration": {}})).is_err());
        assert!(Extension::parse(&json!({"name": "x", "configuration": 3})).is_err());
        assert!(Extension::parse(&json!(7)).is_err());
    }
}
