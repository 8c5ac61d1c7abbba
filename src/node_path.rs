//! Paths of nodes in a hierarchy, validated as the spec's node-name rules say, and the store keys
//! derived from them.

use crate::error::{Result, ZarrError};

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NodePath {
    /// Segments joined by "/", no leading or trailing slash; empty for the root.
    path: String,
}

impl NodePath {
    pub fn root() -> Self {
        Self::default()
    }

    /// Parses "a/b", "/a/b" or "a/b/". Empty segments, "." and ".." and names starting with "__"
    /// are refused: they have no meaning in Zarr and would let a path escape its hierarchy.
    pub fn parse(path: &str) -> Result<NodePath> {
        let trimmed = path.trim_start_matches('/').trim_end_matches('/');
        if trimmed.is_empty() {
            return Ok(Self::root());
        }
        for segment in trimmed.split('/') {
            let problem = if segment.is_empty() {
                Some("has an empty segment")
            } else if segment.chars().all(|c| c == '.') {
                Some("has a segment made only of periods")
            } else if segment.starts_with("__") {
                Some("has a segment starting with the reserved prefix \"__\"")
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(ZarrError::selection(format!(
                    "node path \"{path}\" {problem}"
                )));
            }
        }
        Ok(NodePath {
            path: trimmed.to_string(),
        })
    }

    pub fn as_str(&self) -> &str {
        &self.path
    }

    /// The path of `child` (itself a relative path) below this one.
    pub fn join(&self, child: &str) -> Result<NodePath> {
        let child = NodePath::parse(child)?;
        Ok(match (self.path.is_empty(), child.path.is_empty()) {
            (true, _) => child,
            (false, true) => self.clone(),
            (false, false) => NodePath {
                path: format!("{}/{}", self.path, child.path),
            },
        })
    }

    /// The store key of `name` inside this node ("zarr.json", "c/0/1", ...).
    pub fn key(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}/{name}", self.path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_normalise_and_refuse_escapes() {
        assert_eq!(
            NodePath::parse("/a/b/").unwrap().key("zarr.json"),
            "a/b/zarr.json"
        );
        assert_eq!(NodePath::parse("").unwrap().key("zarr.json"), "zarr.json");
        assert_eq!(
            NodePath::parse("a").unwrap().join("b/c").unwrap().as_str(),
            "a/b/c"
        );
        for bad in ["a//b", "a/../b", ".", "a/__x"] {
            assert!(NodePath::parse(bad).is_err(), "{bad}");
        }
    }
}
