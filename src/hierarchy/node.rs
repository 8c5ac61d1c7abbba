//! Opening a node: its metadata documents, then an array or a group. A v3 node is one request
//! (`zarr.json`); a v2 node is found by its `.zarray` or `.zgroup` (with `.zattrs`), and a v2
//! hierarchy with consolidated metadata (`.zmetadata`) opens whole from that one document. A Zarr
//! v1 array (`meta`, then `attrs`) is looked for last.

use crate::array::Array;
#[cfg(feature = "all-codecs")]
use crate::codecs::extra;
use crate::error::{ErrorKind, Result, ZarrError};
use crate::hierarchy::group::{Consolidated, Group};
use crate::limits::Limits;
use crate::metadata::json;
use crate::metadata::node_path::NodePath;
use crate::metadata::{v1, v2, v3, Listing, NodeMetadata};
use crate::store::ReadableStore;
use futures_util::future::join;
use std::rc::Rc;

pub enum Node {
    Array(Array),
    Group(Group),
}

/// What `open` looks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenOptions {
    /// 1, 2 or 3; `None` looks for a v3 node (`zarr.json`) first, then for a v2 one, then for a
    /// v1 array.
    pub zarr_format: Option<u8>,
    /// `Some(true)`: open the node from the consolidated metadata at the root of the hierarchy
    /// (v2's `.zmetadata`, else the v3 root's `zarr.json`), which makes no further metadata
    /// requests for any node below. `Some(false)`: never read `.zmetadata`. `None`: a v2 group
    /// uses its `.zmetadata` where it has one (a v3 group always uses what its `zarr.json` holds).
    pub consolidated: Option<bool>,
    /// What reads of the node (and of nodes opened through it) may cost.
    pub limits: Limits,
}

impl Node {
    /// The node held to `limits`; a group hands them to the nodes opened through it.
    pub fn with_limits(self, limits: Limits) -> Result<Node> {
        Ok(match self {
            Node::Array(a) => Node::Array(a.with_limits(limits)?),
            Node::Group(g) => Node::Group(g.with_limits(limits)),
        })
    }
}

/// Opens the node at `path` ("" for the root) of the hierarchy in `store`, v3 or v2.
pub async fn open(store: Rc<dyn ReadableStore>, path: &str) -> Result<Node> {
    open_with(store, path, OpenOptions::default()).await
}

pub async fn open_with(
    store: Rc<dyn ReadableStore>,
    path: &str,
    options: OpenOptions,
) -> Result<Node> {
    let node = super::draft::explained(find_node(store.clone(), path, options), &store, path)
        .await?
        .with_limits(options.limits)?;
    with_decoders(node).await
}

/// `node`, with the second module's decoders ready where it is an array that needs them
/// (`codecs::extra::prepare`); a failure to load them fails the opening.
async fn with_decoders(node: Node) -> Result<Node> {
    if let Node::Array(array) = &node {
        second_module_ready(array).await?;
    }
    Ok(node)
}

/// Readies the second module where `array` needs it (`codecs::extra::prepare`: its decoders, and
/// in the write build its encoders); a failure to load it is the array's error.
pub(crate) async fn second_module_ready(array: &Array) -> Result<()> {
    // Only the full build has codecs of the second module.
    #[cfg(feature = "all-codecs")]
    if let Err(reason) = extra::prepare(array.metadata()).await {
        return Err(ZarrError::store(
            &array.store().locate(&array.path().key("")),
            reason,
        ));
    }
    #[cfg(not(feature = "all-codecs"))]
    let _ = array;
    Ok(())
}

async fn find_node(store: Rc<dyn ReadableStore>, path: &str, options: OpenOptions) -> Result<Node> {
    let path = NodePath::parse(path)?;
    if let Some(format) = options.zarr_format.filter(|f| ![1, 2, 3].contains(f)) {
        return Err(ZarrError::argument(
            format!("zarrFormat must be 1, 2 or 3, not {format}"),
            true,
        ));
    }
    if options.zarr_format == Some(1) {
        if options.consolidated == Some(true) {
            return Err(ZarrError::argument(
                "Zarr v1 has no consolidated metadata (zarrFormat 1 with consolidated true)",
                true,
            ));
        }
        return match open_v1(&store, &path).await? {
            Some(node) => Ok(node),
            None => Err(ZarrError::not_found(&store.locate(&path.key(v1::META_KEY)))),
        };
    }
    if options.consolidated == Some(true) {
        return open_consolidated(store, path, options.zarr_format).await;
    }
    if options.zarr_format != Some(2) {
        if let Some(node) = open_v3(&store, &path).await? {
            return Ok(node);
        }
        if options.zarr_format == Some(3) {
            return Err(ZarrError::not_found(&store.locate(&path.key("zarr.json"))));
        }
    }
    let use_consolidated = options.consolidated != Some(false);
    if let Some(node) = open_v2(&store, &path, use_consolidated).await? {
        return Ok(node);
    }
    // Zarr v1 last, unless v2 was asked for: the oldest format, and the rarest.
    let v1 = match options.zarr_format {
        Some(2) => None,
        _ => open_v1(&store, &path).await?,
    };
    match v1 {
        Some(node) => Ok(node),
        None => {
            let (first, others) = match options.zarr_format {
                Some(2) => (".zarray", ".zgroup"),
                _ => ("zarr.json", ".zarray, .zgroup or a Zarr v1 meta"),
            };
            let location = store.locate(&path.key(first));
            Err(ZarrError::new(
                ErrorKind::NotFound,
                format!("no Zarr node at {location} (nor {others} beside it)"),
            ))
        }
    }
}

/// The v3 node at `path`, or `None` when there is no `zarr.json`.
async fn open_v3(store: &Rc<dyn ReadableStore>, path: &NodePath) -> Result<Option<Node>> {
    let key = path.key("zarr.json");
    let location = store.locate(&key);
    let Some(bytes) = store.get(&key).await? else {
        return Ok(None);
    };
    let metadata = v3::parse_owned(json::parse_yielding(&bytes, &location).await?, &location)?;
    node_from_metadata(store.clone(), path.clone(), metadata, &location, None).map(Some)
}

/// The v2 node at `path`, or `None` when there is neither `.zarray` nor `.zgroup`. `.zattrs` is
/// asked for with `.zarray` (an array needs both: one round trip), `.zgroup` with `.zmetadata`.
async fn open_v2(
    store: &Rc<dyn ReadableStore>,
    path: &NodePath,
    use_consolidated: bool,
) -> Result<Option<Node>> {
    let json = |key: String| async move {
        let location = store.locate(&key);
        match store.get(&key).await? {
            Some(bytes) => json::parse_yielding(&bytes, &location)
                .await
                .map(|doc| Some((doc, location))),
            None => Ok(None),
        }
    };
    let (zarray, zattrs) = join(json(path.key(".zarray")), json(path.key(".zattrs"))).await;
    let zattrs = match zattrs? {
        Some((doc, location)) if !doc.is_object() => {
            return Err(ZarrError::metadata(
                &location,
                format!(
                    "attributes are not a JSON object: {doc}",
                    doc = crate::error::quote(&doc)
                ),
            ))
        }
        other => other.map(|(doc, _)| doc),
    };
    if let Some((zarray, location)) = zarray? {
        let metadata = v2::parse_array(&zarray, zattrs.as_ref(), &location)?;
        let node = node_from_metadata(
            store.clone(),
            path.clone(),
            NodeMetadata::Array(metadata),
            &location,
            None,
        )?;
        return Ok(Some(node));
    }
    let zmetadata = async {
        match use_consolidated {
            true => json(path.key(".zmetadata")).await,
            false => Ok(None),
        }
    };
    let (zgroup, zmetadata) = join(json(path.key(".zgroup")), zmetadata).await;
    if let Some((doc, location)) = zmetadata? {
        let listed = v2::parse_consolidated(&doc, &location)?;
        return from_consolidated(store, path, path, listed, &location)
            .await
            .map(Some);
    }
    let Some((zgroup, location)) = zgroup? else {
        return Ok(None);
    };
    let metadata = v2::parse_group(&zgroup, zattrs.as_ref(), &location)?;
    node_from_metadata(
        store.clone(),
        path.clone(),
        NodeMetadata::Group(metadata),
        &location,
        None,
    )
    .map(Some)
}

/// The Zarr v1 array at `path`, or `None` when there is no `meta`. `attrs` is asked for once
/// `meta` is there: a node that is not found costs one request more, not two.
async fn open_v1(store: &Rc<dyn ReadableStore>, path: &NodePath) -> Result<Option<Node>> {
    let key = path.key(v1::META_KEY);
    let location = store.locate(&key);
    let Some(bytes) = store.get(&key).await? else {
        return Ok(None);
    };
    let meta = json::parse_yielding(&bytes, &location).await?;
    let attrs_key = path.key(v1::ATTRS_KEY);
    let attrs = match store.get(&attrs_key).await? {
        Some(bytes) => Some(json::parse_yielding(&bytes, &store.locate(&attrs_key)).await?),
        None => None,
    };
    let metadata = v1::parse_array(&meta, attrs.as_ref(), &location)?;
    node_from_metadata(
        store.clone(),
        path.clone(),
        NodeMetadata::Array(metadata),
        &location,
        None,
    )
    .map(Some)
}

/// Opens `path` from the consolidated metadata at the root of the hierarchy: v2's `.zmetadata`
/// first (unless the format is 3), then the v3 root's `zarr.json`.
async fn open_consolidated(
    store: Rc<dyn ReadableStore>,
    path: NodePath,
    format: Option<u8>,
) -> Result<Node> {
    let root = NodePath::root();
    if format != Some(3) {
        let key = root.key(".zmetadata");
        let location = store.locate(&key);
        if let Some(bytes) = store.get(&key).await? {
            let doc = json::parse_yielding(&bytes, &location).await?;
            let listed = v2::parse_consolidated(&doc, &location)?;
            return from_consolidated(&store, &root, &path, listed, &location).await;
        }
        if format == Some(2) {
            return Err(ZarrError::new(
                ErrorKind::NotFound,
                format!("no consolidated metadata at {location}"),
            ));
        }
    }
    let key = root.key("zarr.json");
    let location = store.locate(&key);
    let bytes = store.get(&key).await?.ok_or_else(|| {
        ZarrError::new(
            ErrorKind::NotFound,
            format!(
                "no consolidated metadata at the root of {}: no .zmetadata or zarr.json",
                store.locate("")
            ),
        )
    })?;
    let group = match v3::parse_owned(json::parse_yielding(&bytes, &location).await?, &location)? {
        NodeMetadata::Group(g) if g.consolidated.is_some() => g,
        _ => {
            return Err(ZarrError::new(
                ErrorKind::NotFound,
                format!("{location} holds no consolidated metadata"),
            ))
        }
    };
    let root_group = Group::new(store, root, group, None);
    root_group.open(path.as_str()).await
}

/// The node at `path` from the nodes listed by consolidated metadata found at `listed_at` (no
/// request is made).
async fn from_consolidated(
    store: &Rc<dyn ReadableStore>,
    listed_at: &NodePath,
    path: &NodePath,
    mut listed: Listing,
    location: &str,
) -> Result<Node> {
    let own = listed.remove("").ok_or_else(|| {
        ZarrError::metadata(
            location,
            "the consolidated metadata does not list its own group",
        )
    })?;
    let NodeMetadata::Group(mut group) = own.parse(location)? else {
        return Err(ZarrError::metadata(
            location,
            "consolidated metadata must lie in a group, not an array",
        ));
    };
    group.consolidated = Some(listed);
    let group = Group::new(store.clone(), listed_at.clone(), group, None);
    group
        .open(path.relative_to(listed_at).ok_or_else(|| {
            ZarrError::selection(format!(
                "{} is not below the group at \"{}\" whose metadata lists it",
                path.as_str(),
                listed_at.as_str()
            ))
        })?)
        .await
}

/// The node for metadata already read; `consolidated` is what an ancestor group listed.
pub fn node_from_metadata(
    store: Rc<dyn ReadableStore>,
    path: NodePath,
    metadata: NodeMetadata,
    location: &str,
    consolidated: Option<Rc<Consolidated>>,
) -> Result<Node> {
    Ok(match metadata {
        NodeMetadata::Array(meta) => Node::Array(Array::new(store, path, meta, location)?),
        NodeMetadata::Group(meta) => Node::Group(Group::new(store, path, meta, consolidated)),
    })
}

impl Node {
    /// The node reading through another view of its store.
    pub fn with_store(&self, store: Rc<dyn ReadableStore>) -> Node {
        match self {
            Node::Array(a) => Node::Array(a.with_store(store)),
            Node::Group(g) => Node::Group(g.with_store(store)),
        }
    }
}

/// Opening below a group makes nodes, so it is here: `group.rs` knows nothing of nodes.
impl Group {
    /// Opens the node at `relative` below this group. With consolidated metadata this makes no
    /// request, and a path it does not list is not found.
    pub async fn open(&self, relative: &str) -> Result<Node> {
        let path = self.path().join(relative)?;
        if &path == self.path() {
            return Ok(Node::Group(self.clone()));
        }
        let Some(consolidated) = self.consolidated() else {
            // A hierarchy is of one format: a v2 group's children are v2 nodes.
            let options = OpenOptions {
                zarr_format: Some(self.metadata().zarr_format),
                consolidated: None,
                limits: self.limits(),
            };
            return Box::pin(open_with(self.store().clone(), path.as_str(), options)).await;
        };
        let listed = consolidated.node(&path).ok_or_else(|| {
            let location = self.store().locate(&path.key(""));
            ZarrError::not_found(&format!("{location} (consolidated metadata)"))
        })?;
        let location = format!(
            "{} (consolidated metadata)",
            self.store().locate(&path.key(listed.document()))
        );
        let metadata = listed.parse(&location)?;
        let node = node_from_metadata(
            self.store().clone(),
            path,
            metadata,
            &location,
            Some(consolidated.clone()),
        )?
        .with_limits(self.limits())?;
        with_decoders(node).await
    }
}
