//! Branches and tags. Spec version 2 keeps them in the repo info file (`$ROOT/repo`, a FlatBuffer
//! `Repo`): sorted lists of `Ref {name, snapshot_index}`, the index into its list of snapshots.
//! Spec version 1 has no repo file: each ref is a JSON file `refs/branch.<name>/ref.json` or
//! `refs/tag.<name>/ref.json`, `{"snapshot": "<id>"}`, and a deleted tag leaves
//! `refs/tag.<name>/ref.json.deleted` beside it.

use super::flatbuffer::{root, FbResult, Table};
use super::ids::{decode12, encode, Id12};

/// A branch or a tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefKind {
    Branch,
    Tag,
}

impl RefKind {
    pub fn name(self) -> &'static str {
        match self {
            RefKind::Branch => "branch",
            RefKind::Tag => "tag",
        }
    }

    /// The ref file of spec version 1.
    pub fn v1_key(self, name: &str) -> String {
        format!("refs/{}.{name}/ref.json", self.name())
    }
}

/// A name a ref may have: spec version 1 keeps it in a key, so no `/` (and none empty).
pub fn check_name(kind: RefKind, name: &str) -> Result<(), String> {
    if name.is_empty() || name.contains('/') {
        return Err(format!(
            "{} is not a {} name (one not empty and without \"/\")",
            crate::error::quote_text(name),
            kind.name()
        ));
    }
    Ok(())
}

/// The refs of a spec version 2 repo info payload.
pub struct RepoInfo<'a> {
    /// The repository's configuration, FlexBuffers.
    config: Option<&'a [u8]>,
    branches: Names<'a>,
    tags: Names<'a>,
    snapshots: super::flatbuffer::Tables<'a>,
}

/// A vector of `Ref` tables.
struct Names<'a>(super::flatbuffer::Tables<'a>);

impl<'a> Names<'a> {
    fn name(&self, i: usize) -> FbResult<(&'a str, Table<'a>)> {
        let t = self.0.get(i)?;
        Ok((t.required("Ref.name", |t| t.str(0))?, t))
    }

    fn all(&self) -> FbResult<Vec<&'a str>> {
        // At most the first 100: they are for an error message.
        (0..self.0.len().min(100))
            .map(|i| Ok(self.name(i)?.0))
            .collect()
    }
}

impl<'a> RepoInfo<'a> {
    pub fn parse(payload: &'a [u8]) -> FbResult<RepoInfo<'a>> {
        let t = root(payload)?;
        Ok(RepoInfo {
            config: t.bytes(9)?,
            tags: Names(t.required("Repo.tags", |t| t.tables(1))?),
            branches: Names(t.required("Repo.branches", |t| t.tables(2))?),
            snapshots: t.required("Repo.snapshots", |t| t.tables(4))?,
        })
    }

    /// The snapshot `kind` `name` points to; Ok(None) where there is no such ref.
    pub fn resolve(&self, kind: RefKind, name: &str) -> FbResult<Option<Id12>> {
        let names = match kind {
            RefKind::Branch => &self.branches,
            RefKind::Tag => &self.tags,
        };
        // Sorted by name (bytewise), as the spec requires; a linear scan would serve an unsorted
        // list too, but a repo may hold many tags.
        let (mut lo, mut hi) = (0, names.0.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (n, t) = names.name(mid)?;
            match n.as_bytes().cmp(name.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let index = t.u32(1, 0)? as usize;
                    if index >= self.snapshots.len() {
                        return Err(format!(
                            "{} {name:?} points to snapshot {index} of {}",
                            kind.name(),
                            self.snapshots.len()
                        ));
                    }
                    let info = self.snapshots.get(index)?;
                    let id = info.required("SnapshotInfo.id", |t| t.inline(0, 12))?;
                    let mut out = [0u8; 12];
                    out.copy_from_slice(id);
                    return Ok(Some(out));
                }
            }
        }
        Ok(None)
    }

    /// The configuration (FlexBuffers), where the file has one.
    pub fn config(&self) -> Option<&'a [u8]> {
        self.config
    }

    /// The names of the refs of `kind` (the first 100), for messages.
    pub fn names(&self, kind: RefKind) -> FbResult<Vec<&'a str>> {
        match kind {
            RefKind::Branch => self.branches.all(),
            RefKind::Tag => self.tags.all(),
        }
    }
}

/// The most bytes, and lists and objects, a spec version 1 ref file may hold: it is one object,
/// `{"snapshot": "<id>"}`, of tens of bytes.
pub const MAX_REF_BYTES: usize = 64 * 1024;
pub const MAX_REF_CONTAINERS: usize = 64;

/// The snapshot id of a spec version 1 ref file, read at `location` (named in errors), by the
/// metadata documents' bounded JSON reader with bounds of its own (`MAX_REF_BYTES`,
/// `MAX_REF_CONTAINERS`).
pub fn parse_v1_ref(bytes: &[u8], location: &str) -> crate::error::Result<Id12> {
    use crate::metadata::json::{Parse, ParseError};
    let bad = |e: &str| crate::error::ZarrError::metadata(location, e);
    let shape = "a ref file is {\"snapshot\": \"<id>\"}";
    if bytes.len() > MAX_REF_BYTES {
        return Err(bad(&format!(
            "{} bytes, more than the {MAX_REF_BYTES} a ref file may have ({shape})",
            bytes.len()
        )));
    }
    let json = Parse::new(bytes, false)
        .max_containers(MAX_REF_CONTAINERS)
        .advance(usize::MAX)
        .map_err(|e| match e {
            ParseError::Syntax(e) => bad(&format!("not valid JSON ({e})")),
            ParseError::TooManyContainers(max) => bad(&format!(
                "it holds more than {max} lists and objects, more than a ref file may ({shape})"
            )),
        })?
        .ok_or_else(|| bad("not valid JSON (it ends early)"))?;
    let id = json
        .get("snapshot")
        .and_then(|s| s.as_str())
        .ok_or_else(|| bad("not {\"snapshot\": \"<id>\"}"))?;
    decode12(id).map_err(|e| bad(&e))
}

/// `id` as Icechunk writes it in keys and messages.
pub fn id_text(id: &Id12) -> String {
    encode(id)
}

#[cfg(test)]
mod tests {
    use super::super::testbuild::{build, F};
    use super::*;

    fn r(name: &str, index: u32) -> Vec<F> {
        vec![
            F::Bytes(name.into()),
            F::Scalar(index.to_le_bytes().to_vec()),
        ]
    }

    fn info(id: u8) -> Vec<F> {
        vec![F::Scalar(vec![id; 12])]
    }

    #[test]
    fn branches_and_tags_resolve_through_the_snapshot_list() {
        let buf = build(vec![
            F::Scalar(vec![2]),
            F::Tables(vec![r("v1", 0)]),
            F::Tables(vec![r("dev", 2), r("main", 1)]),
            F::Tables(vec![]),
            F::Tables(vec![info(1), info(2), info(3)]),
        ]);
        let repo = RepoInfo::parse(&buf).unwrap();
        assert_eq!(
            repo.resolve(RefKind::Branch, "main").unwrap(),
            Some([2; 12])
        );
        assert_eq!(repo.resolve(RefKind::Branch, "dev").unwrap(), Some([3; 12]));
        assert_eq!(repo.resolve(RefKind::Tag, "v1").unwrap(), Some([1; 12]));
        assert_eq!(repo.resolve(RefKind::Tag, "main").unwrap(), None);
        assert_eq!(repo.names(RefKind::Branch).unwrap(), ["dev", "main"]);
        // An index past the snapshot list is an error, not a panic.
        let buf = build(vec![
            F::Scalar(vec![2]),
            F::Tables(vec![]),
            F::Tables(vec![r("main", 9)]),
            F::Tables(vec![]),
            F::Tables(vec![info(1)]),
        ]);
        let err = RepoInfo::parse(&buf)
            .unwrap()
            .resolve(RefKind::Branch, "main");
        assert!(err.unwrap_err().contains("snapshot 9 of 1"));
        // A repo file without its required lists.
        let buf = build(vec![F::Scalar(vec![2])]);
        assert!(RepoInfo::parse(&buf).err().unwrap().contains("Repo.tags"));
    }

    #[test]
    fn version_1_ref_files() {
        let parse = |b: &[u8]| parse_v1_ref(b, "R").map_err(|e| e.message);
        let id = parse(br#"{"snapshot":"1CECHNKREP0F1RSTCMT0"}"#).unwrap();
        assert_eq!(id_text(&id), "1CECHNKREP0F1RSTCMT0");
        for (bytes, says) in [
            (&b"{}"[..], "snapshot"),
            (b"\xff", "not valid JSON"),
            (br#"{"snapshot":"x"}"#, "not an Icechunk id"),
        ] {
            let err = parse(bytes).unwrap_err();
            assert!(err.contains("in R: ") && err.contains(says), "{err}");
        }
        // Its lists and objects are bounded, and its bytes.
        let mut many = b"[".to_vec();
        many.extend(b"[0],".repeat(1000));
        many.extend(b"[0]]");
        let err = parse(&many).unwrap_err();
        assert!(err.contains("more than 64 lists and objects"), "{err}");
        let big = format!(
            r#"{{"snapshot":"1CECHNKREP0F1RSTCMT0","x":"{}"}}"#,
            "y".repeat(70_000)
        );
        let err = parse(big.as_bytes()).unwrap_err();
        assert!(err.contains("more than the 65536"), "{err}");
        assert!(check_name(RefKind::Branch, "a/b").is_err());
        assert_eq!(RefKind::Tag.v1_key("v1"), "refs/tag.v1/ref.json");
    }
}
