//! The pre-2023 Zarr v3 draft met below its root. GDAL 3.6 and 3.7 write that draft with
//! `FORMAT=ZARR_V3`: a root `zarr.json` holding the protocol's URI, and nodes at
//! `meta/root/<path>.array.json`, so opening `<path>` finds neither `<path>/zarr.json` nor v2's
//! documents and would say only "not found". Opening the root itself is refused by the metadata
//! layer (`v3::parse`); here the open's "not found" below the root becomes that refusal where the
//! root is the draft's.

use crate::error::{ErrorKind, Result};
use crate::metadata::node_path::NodePath;
use crate::metadata::v3;
use crate::store::ReadableStore;
use std::cell::RefCell;
use std::future::Future;
use std::rc::{Rc, Weak};

/// Stores whose root was looked at lately: a viewer that probes many paths that are not there
/// would otherwise ask for the root's document once per probe. A hierarchy's root does not turn
/// into the draft's while it is read. At most this many, the oldest forgotten first.
const ROOTS_KEPT: usize = 16;

/// A store looked at, and its root's `zarr.json` where that is the draft's (small: the draft's
/// root holds four fields), `None` where it is not or there is none.
type SeenRoot = (Weak<dyn ReadableStore>, Option<Vec<u8>>);

thread_local! {
    static ROOTS: RefCell<Vec<SeenRoot>> = const { RefCell::new(Vec::new()) };
}

/// The root's `zarr.json` where it is the pre-2023 draft's, asked for once per store.
async fn draft_root(store: &Rc<dyn ReadableStore>) -> Option<Vec<u8>> {
    let weak = Rc::downgrade(store);
    let seen = ROOTS.with(|roots| {
        let mut roots = roots.borrow_mut();
        roots.retain(|(s, _)| s.strong_count() > 0);
        roots
            .iter()
            .find(|(s, _)| Weak::ptr_eq(s, &weak))
            .map(|(_, root)| root.clone())
    });
    if let Some(root) = seen {
        return root;
    }
    let key = NodePath::root().key("zarr.json");
    let root = match store.get(&key).await {
        Ok(Some(bytes)) if v3::is_draft_root(&bytes) => Some(bytes.to_vec()),
        // Another root, none, or one that cannot be read now: the open's own error stands.
        Ok(_) => None,
        Err(_) => return None,
    };
    ROOTS.with(|roots| {
        let mut roots = roots.borrow_mut();
        if roots.len() == ROOTS_KEPT {
            roots.remove(0);
        }
        roots.push((weak, root.clone()));
    });
    root
}

/// What `opening` (the open of `path` in `store`) gives, except that where nothing was found
/// below the root and the root's `zarr.json` is the pre-2023 v3 draft's, the error says so.
///
/// The cost is one request (the root's `zarr.json`) per store, made only when an open has
/// already failed as not found, below the root: a successful open, or one at the root (whose `zarr.json` the
/// open has read and refused itself), asks for nothing more. Looking at the draft's own places
/// instead (`meta/root/<path>.array.json`, then `.group.json`) would take two requests and miss
/// a path that is neither; the root's document says it for every path at once.
pub async fn explained<T>(
    opening: impl Future<Output = Result<T>>,
    store: &Rc<dyn ReadableStore>,
    path: &str,
) -> Result<T> {
    let err = match opening.await {
        Err(err) if err.kind == ErrorKind::NotFound => err,
        other => return other,
    };
    let root = NodePath::root();
    let asked = match NodePath::parse(path) {
        Ok(asked) if asked != root => asked,
        _ => return Err(err),
    };
    match draft_root(store).await {
        Some(bytes) => {
            let location = store.locate(&root.key("zarr.json"));
            let asked = store.locate(&asked.key(""));
            Err(v3::draft_below(&bytes, &location, &asked).unwrap_or(err))
        }
        None => Err(err),
    }
}
