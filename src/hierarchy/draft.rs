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
use std::future::Future;
use std::rc::Rc;

/// What `opening` (the open of `path` in `store`) gives, except that where nothing was found
/// below the root and the root's `zarr.json` is the pre-2023 v3 draft's, the error says so.
///
/// The cost is one request (the root's `zarr.json`), made only when the open has already failed
/// as not found, below the root: a successful open, or one at the root (whose `zarr.json` the
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
    let key = root.key("zarr.json");
    match store.get(&key).await {
        Ok(Some(bytes)) => {
            let location = store.locate(&key);
            let asked = store.locate(&asked.key(""));
            Err(v3::draft_below(&bytes, &location, &asked).unwrap_or(err))
        }
        // No root document, or it cannot be read: the open's own error stands.
        _ => Err(err),
    }
}
