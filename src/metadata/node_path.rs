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

    /// Parses a logical path, normalised as the Zarr v2 spec says (and v3 paths are then the
    /// same): backslashes become "/", leading and trailing "/" are dropped and runs of "/"
    /// collapse. A "." or ".." segment is an error: it would let a path escape its hierarchy.
    pub fn parse(path: &str) -> Result<NodePath> {
        let normalised = path.replace('\\', "/");
        let segments: Vec<&str> = normalised.split('/').filter(|s| !s.is_empty()).collect();
        if let Some(bad) = segments.iter().find(|s| **s == "." || **s == "..") {
            return Err(ZarrError::selection(format!(
                "node path \"{path}\" has a \"{bad}\" segment (made only of periods), which is not allowed"
            )));
        }
        Ok(NodePath {
            path: segments.join("/"),
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

    /// This path relative to `ancestor` ("" for the ancestor itself), if it lies below it.
    pub fn relative_to(&self, ancestor: &NodePath) -> Option<&str> {
        let (root, p) = (ancestor.as_str(), self.as_str());
        if root.is_empty() {
            Some(p)
        } else if p == root {
            Some("")
        } else {
            p.strip_prefix(root).and_then(|rest| rest.strip_prefix('/'))
        }
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
        assert_eq!(NodePath::parse("//a//b\\c/").unwrap().as_str(), "a/b/c");
        for bad in ["a/../b", ".", "a/./b", "..\\x"] {
            assert!(NodePath::parse(bad).is_err(), "{bad}");
        }
        let a = NodePath::parse("a").unwrap();
        assert_eq!(NodePath::parse("a/b").unwrap().relative_to(&a), Some("b"));
        assert_eq!(a.relative_to(&a), Some(""));
        assert_eq!(NodePath::parse("ab").unwrap().relative_to(&a), None);
    }
}
