//! The spec's extension definition: a short-hand name or `{name, configuration, must_understand}`.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct Extension {
    pub name: String,
    pub configuration: Map<String, Value>,
    /// Implicitly true; an extension a reader does not know may only be ignored when this is false.
    pub must_understand: bool,
}

impl Extension {
    pub fn parse(value: &Value) -> Result<Extension, String> {
        match value {
            Value::String(name) => Ok(Extension { name: name.clone(), configuration: Map::new(), must_understand: true }),
            Value::Object(obj) => {
                let name = match obj.get("name") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => return Err(format!("extension name {other} is not a string")),
                    None => return Err(format!("extension object {value} has no \"name\"")),
                };
                let configuration = match obj.get("configuration") {
                    None => Map::new(),
                    Some(Value::Object(c)) => c.clone(),
                    Some(other) => return Err(format!("configuration of \"{name}\" is not an object: {other}")),
                };
                let must_understand = match obj.get("must_understand") {
                    None => true,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => return Err(format!("must_understand of \"{name}\" is not a boolean: {other}")),
                };
                Ok(Extension { name, configuration, must_understand })
            }
            other => Err(format!("{other} is neither an extension name nor an extension object")),
        }
    }
}
