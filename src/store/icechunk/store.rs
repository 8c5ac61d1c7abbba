//! `IcechunkStore`: one version (a branch, a tag or a snapshot id) of an Icechunk repository
//! read as a Zarr store. Opening reads the ref (the repo file, or a spec version 1 ref file) and
//! the snapshot; `zarr.json` keys come from the snapshot's nodes; chunk keys (`<array>/c/i/j`)
//! are looked up in the manifests that cover them, each fetched once when a read first needs it
//! (reads that want it meanwhile wait for the same request) and then kept.

use super::flexbuffer::named_containers;
use super::header::{self, FileType};
use super::ids::{decode12, Id12};
use super::manifest::{ChunkRef, Manifest};
use super::refs::{check_name, id_text, parse_v1_ref, RefKind, RepoInfo};
use super::snapshot::{Node, Snapshot};
use crate::error::{quote_text, ErrorKind, Result, ZarrError};
use crate::store::http::{HttpClient, HttpOptions, HttpStore};
use crate::store::limit::Limiter;
use crate::store::single_flight::SingleFlight;
use crate::store::span_batch::{fetch_batched, SpanBatches, SpanSource};
use crate::store::url::{parse_url, resolve_url, UrlPrefix};
use crate::store::{ByteRange, ReadHints, ReadableStore};
use async_trait::async_trait;
use futures_util::future::{join, FutureExt};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::ops::Range;
use std::rc::Rc;

/// Which version of the repository is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Version {
    Branch(String),
    Tag(String),
    /// A snapshot id (20 base 32 characters).
    Snapshot(String),
}

impl Version {
    fn describe(&self) -> String {
        match self {
            Version::Branch(b) => format!("branch {b:?}"),
            Version::Tag(t) => format!("tag {t:?}"),
            Version::Snapshot(s) => format!("snapshot {s}"),
        }
    }
}

/// How a repository is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcechunkOptions {
    pub version: Version,
    /// URL prefixes of the virtual chunk containers whose chunks may be read (a virtual chunk
    /// elsewhere is an error): the repository decides where the reader sends requests, so the
    /// caller says which places it trusts.
    pub allowed_containers: Vec<String>,
    /// URL prefixes rewritten before virtual chunks are fetched: `(from, to)`; the longest match
    /// wins (mirrors, tests). Containers are matched before the rewrite.
    pub url_map: Vec<(String, String)>,
    /// The largest metadata file (repo info, snapshot, manifest), decompressed.
    pub max_metadata_bytes: u64,
    /// The manifests kept for later reads, in decompressed bytes: past it, the first kept are
    /// dropped (and fetched again if a read needs them).
    pub manifest_cache_bytes: usize,
    /// How the repository's objects and virtual chunks are requested.
    pub http: HttpOptions,
}

impl Default for IcechunkOptions {
    fn default() -> Self {
        IcechunkOptions {
            version: Version::Branch("main".into()),
            allowed_containers: Vec::new(),
            url_map: Vec::new(),
            max_metadata_bytes: 256 << 20,
            manifest_cache_bytes: 256 << 20,
            http: HttpOptions::default(),
        }
    }
}

/// What every view of one store shares.
struct Shared {
    /// The repository's http(s) URL, without a trailing slash.
    root: String,
    /// "the Icechunk repository <url> at branch "main"", for messages.
    label: String,
    snapshot_id: Id12,
    /// The named virtual chunk containers of the repository's configuration: `(name,
    /// url_prefix)`, what `vcc://<name>/...` locations are resolved with (spec 2 only).
    containers: Vec<(String, String)>,
    spec_version: u8,
    /// The writer the snapshot file names ("ic-2.3.0").
    writer: String,
    snapshot: Snapshot,
    options: IcechunkOptions,
    limiter: Limiter,
    manifests: RefCell<ManifestCache>,
    flights: SingleFlight<Id12, Rc<Manifest>>,
    /// Range requests per virtual chunk file, collected from the reads of one turn.
    batches: SpanBatches,
    /// The allowed containers, read as URLs.
    allowed: Vec<Allowed>,
    /// `options.url_map`, and its prefixes as `parse_url` writes them (virtual chunk URLs are
    /// mapped in that form).
    url_map: Vec<(String, String)>,
}

/// An allowed container: the prefix as `parse_url` writes it, and what it admits.
struct Allowed {
    text: String,
    prefix: UrlPrefix,
}

/// The manifests fetched, kept within a byte budget: the first kept go first.
#[derive(Default)]
struct ManifestCache {
    kept: HashMap<Id12, Rc<Manifest>>,
    order: VecDeque<Id12>,
    bytes: usize,
}

impl ManifestCache {
    fn insert(&mut self, id: Id12, manifest: Rc<Manifest>, budget: usize) {
        if manifest.size() > budget || self.kept.contains_key(&id) {
            return;
        }
        while self.bytes + manifest.size() > budget {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(m) = self.kept.remove(&old) {
                self.bytes -= m.size();
            }
        }
        self.bytes += manifest.size();
        self.order.push_back(id);
        self.kept.insert(id, manifest);
    }
}

/// A version of an Icechunk repository, read over HTTP through `C`.
pub struct IcechunkStore<C> {
    shared: Rc<Shared>,
    client: C,
}

/// The object at `key` of the repository, None if it is missing.
async fn fetch_object<C: HttpClient + Clone>(
    root: &str,
    key: &str,
    client: &C,
    http: &HttpOptions,
    range: Option<ByteRange>,
) -> Result<Option<Vec<u8>>> {
    let store = HttpStore::with_options(root, client.clone(), http.clone());
    match range {
        Some(r) => store.get_range(key, r).await,
        None => store.get(key).await,
    }
}

/// `e` said as an error of `what` (aborts stay aborts).
fn while_reading(e: ZarrError, what: &str) -> ZarrError {
    if e.kind == ErrorKind::Aborted {
        return e;
    }
    ZarrError {
        message: format!("{} ({what})", e.message),
        ..e
    }
}

impl<C: HttpClient + Clone + 'static> IcechunkStore<C> {
    /// Opens `options.version` of the repository at `url` (http(s), or s3:// and gs:// buckets,
    /// read through their public endpoints).
    pub async fn open(url: &str, client: C, options: IcechunkOptions) -> Result<Self> {
        let allowed = options
            .allowed_containers
            .iter()
            .map(|text| {
                let prefix = UrlPrefix::parse(text).map_err(|e| {
                    ZarrError::argument(
                        format!("IcechunkStore: the allowedContainers entry {e}"),
                        true,
                    )
                })?;
                Ok(Allowed {
                    text: prefix.to_string(),
                    prefix,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut url_map = options.url_map.clone();
        for (from, to) in &options.url_map {
            if let Ok(p) = UrlPrefix::parse(from) {
                let from = p.to_string();
                if !url_map.iter().any(|(f, _)| *f == from) {
                    url_map.push((from, to.clone()));
                }
            }
        }
        let root = resolve_url(url.trim_end_matches('/'), None, &options.url_map).map_err(|e| {
            ZarrError::argument(
                format!("IcechunkStore: the URL {}: {e}", quote_text(url)),
                true,
            )
        })?;
        let label = format!(
            "the Icechunk repository {root} at {}",
            options.version.describe()
        );
        let meta_http = HttpOptions {
            max_object_bytes: options.max_metadata_bytes,
            ..options.http.clone()
        };
        let (snapshot_id, containers) =
            resolve(&root, &options.version, &client, &meta_http, &options).await?;
        let key = format!("snapshots/{}", id_text(&snapshot_id));
        let bytes = fetch_object(&root, &key, &client, &meta_http, None)
            .await
            .map_err(|e| while_reading(e, &format!("the snapshot of {label}")))?
            .ok_or_else(|| {
                ZarrError::new(
                    ErrorKind::NotFound,
                    format!(
                        "no snapshot {} in {label} ({root}/{key} is missing)",
                        id_text(&snapshot_id)
                    ),
                )
            })?;
        let bad = |e: String| ZarrError::metadata(&format!("{root}/{key}"), e);
        let file = header::read(&bytes, FileType::Snapshot, options.max_metadata_bytes)
            .await
            .map_err(bad)?;
        let snapshot = Snapshot::parse(file.payload).await.map_err(bad)?;
        Ok(IcechunkStore {
            shared: Rc::new(Shared {
                root,
                label,
                snapshot_id,
                containers,
                spec_version: file.spec_version,
                writer: file.implementation,
                snapshot,
                limiter: Limiter::new(options.http.max_requests),
                options,
                manifests: RefCell::default(),
                flights: SingleFlight::default(),
                batches: SingleFlight::default(),
                allowed,
                url_map,
            }),
            client,
        })
    }

    /// The same store sending through another client (one with a read's `AbortSignal`).
    pub fn with_client(&self, client: C) -> Self {
        IcechunkStore {
            shared: self.shared.clone(),
            client,
        }
    }

    pub fn client(&self) -> &C {
        &self.client
    }

    /// The id of the snapshot read.
    pub fn snapshot_id(&self) -> String {
        id_text(&self.shared.snapshot_id)
    }

    /// The spec version of the snapshot file (1 or 2).
    pub fn spec_version(&self) -> u8 {
        self.shared.spec_version
    }

    /// The implementation that wrote the snapshot, as its header names it.
    pub fn writer(&self) -> &str {
        &self.shared.writer
    }

    /// Manifests fetched and kept so far.
    pub fn manifests_loaded(&self) -> usize {
        self.shared.manifests.borrow().kept.len()
    }

    /// The array node and chunk index a chunk key names: `<path>/c/i/j` (or `c.i.j` where the
    /// array's chunk key separator is "."); None for keys that are not chunks of an array.
    fn chunk_of<'a>(&'a self, key: &str) -> Option<(&'a str, &'a Node, Vec<u32>)> {
        let segments: Vec<&str> = key.split('/').collect();
        for at in (0..segments.len()).rev() {
            let seg = segments[at];
            let coords: Vec<&str> = if seg == "c" {
                segments[at + 1..].to_vec()
            } else if let Some(rest) = seg.strip_prefix("c.").filter(|_| at + 1 == segments.len()) {
                rest.split('.').collect()
            } else {
                continue;
            };
            let path = segments[..at].join("/");
            let Some(node) = self.shared.snapshot.get(&path) else {
                continue;
            };
            if !node.is_array() {
                return None;
            }
            let index: Option<Vec<u32>> = coords.iter().map(|c| c.parse().ok()).collect();
            return Some((self.shared.snapshot.path(node), node, index?));
        }
        None
    }

    fn bad_metadata(&self, key: &str, e: String) -> ZarrError {
        ZarrError::metadata(&format!("{}/{key}", self.shared.root), e)
    }

    /// Manifest `id`, fetched once and kept.
    async fn manifest(&self, key: &str, id: Id12) -> Result<Rc<Manifest>> {
        if let Some(m) = self.shared.manifests.borrow().kept.get(&id) {
            return Ok(m.clone());
        }
        let start = |_: Rc<()>, _closer| {
            let view = self.with_client(self.client.clone());
            async move {
                let key = format!("manifests/{}", id_text(&id));
                let http = HttpOptions {
                    max_object_bytes: view.shared.options.max_metadata_bytes,
                    ..view.shared.options.http.clone()
                };
                let _permit = view.shared.limiter.acquire().await;
                let bytes = fetch_object(&view.shared.root, &key, &view.client, &http, None)
                    .await?
                    .ok_or_else(|| {
                        ZarrError::store(
                            &format!("{}/{key}", view.shared.root),
                            format!(
                                "the manifest is missing (HTTP 404): {} refers to it",
                                view.shared.label
                            ),
                        )
                    })?;
                let max = view.shared.options.max_metadata_bytes;
                let file = header::read(&bytes, FileType::Manifest, max)
                    .await
                    .map_err(|e| view.bad_metadata(&key, e))?;
                let manifest =
                    Rc::new(Manifest::parse(file.payload).map_err(|e| view.bad_metadata(&key, e))?);
                view.shared.manifests.borrow_mut().insert(
                    id,
                    manifest.clone(),
                    view.shared.options.manifest_cache_bytes,
                );
                Ok(manifest)
            }
            .boxed_local()
        };
        let location = || self.locate(key);
        self.shared
            .flights
            .run(id, self, location, |_| (), start)
            .await
    }

    /// The reference of the chunk at `key`, None where the array has none (the fill value).
    async fn chunk_ref(&self, key: &str) -> Result<Option<ChunkRef>> {
        let Some((_, node, index)) = self.chunk_of(key) else {
            return Ok(None);
        };
        let found = self
            .shared
            .snapshot
            .manifest_for(node, &index)
            .map_err(|e| {
                let skey = format!("snapshots/{}", id_text(&self.shared.snapshot_id));
                self.bad_metadata(&skey, format!("the manifests of {key}: {e}"))
            })?;
        let Some(id) = found else {
            return Ok(None);
        };
        let manifest = self.manifest(key, id).await?;
        let mkey = format!("manifests/{}", id_text(&id));
        manifest
            .get(&node.id, &index)
            .map_err(|e| self.bad_metadata(&mkey, format!("the reference of {key}: {e}")))
    }

    /// The http(s) URL of a virtual chunk at `location`, if its container is allowed.
    fn virtual_url(&self, key: &str, location: &str) -> Result<String> {
        // vcc://<name>/<path>: the path in the named container of the repository's configuration.
        let named;
        let location = match location.strip_prefix("vcc://") {
            None => location,
            Some(rest) => {
                let (name, path) = rest.split_once('/').unwrap_or((rest, ""));
                let Some((_, prefix)) = self.shared.containers.iter().find(|(n, _)| n == name)
                else {
                    let known: Vec<&str> = self
                        .shared
                        .containers
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect();
                    return Err(ZarrError::store(
                        &self.locate(key),
                        format!(
                            "the virtual chunk location {location} names the container {name:?}, which the repository's configuration does not name (its named containers: {}; a spec version 1 repository's configuration is not read)",
                            if known.is_empty() { "none".to_string() } else { known.join(", ") }
                        ),
                    ));
                };
                named = match prefix.ends_with('/') {
                    true => format!("{prefix}{path}"),
                    false => format!("{prefix}/{path}"),
                };
                named.as_str()
            }
        };
        let fail = |what: String| ZarrError::store(&self.locate(key), what);
        // What is checked is the URL as fetch reads it: `c/%2e%2e/x`, `c/..\\x` and
        // `c/.<tab>./x` are all `x`, beside `c`.
        let url = match parse_url(location) {
            Ok(url) => url,
            Err(e) => {
                return Err(fail(format!(
                    "the chunk is virtual, at {location}, which is not a URL this reader can check against the allowedContainers option: {e}"
                )))
            }
        };
        let Some(allowed) = self.shared.allowed.iter().find(|a| a.prefix.admits(&url)) else {
            let text = url.to_string();
            let dir = &text[..text.rfind('/').map_or(text.len(), |i| i + 1)];
            let read_as = match text == location {
                true => String::new(),
                false => format!(" (read as {text})"),
            };
            return Err(fail(format!(
                "the chunk is virtual, at {location}{read_as}, and no allowed container holds it: to read it, add its URL prefix (such as {}) to the allowedContainers option",
                quote_text(dir)
            )));
        };
        let text = url.to_string();
        let mapped = resolve_url(&text, None, &self.shared.url_map)
            .and_then(|m| parse_url(&m))
            .map_err(|e| fail(format!("its virtual chunk at {location}: {e}")))?;
        // And so is the URL fetched: it must lie where its container (or the urlMap entry that
        // maps it, where that is narrower) leads.
        let region = self
            .shared
            .url_map
            .iter()
            .map(|(from, _)| from.as_str())
            .filter(|from| text.starts_with(from))
            .max_by_key(|from| from.len())
            .filter(|from| from.len() > allowed.text.len())
            .unwrap_or(&allowed.text);
        let region = resolve_url(region, None, &self.shared.url_map)
            .or_else(|_| resolve_url(&url.root(), None, &self.shared.url_map))
            .and_then(|r| UrlPrefix::parse(&r))
            .map_err(|e| fail(format!("its virtual chunk at {location}: {e}")))?;
        if !region.admits(&mapped) {
            return Err(fail(format!(
                "the chunk is virtual, at {location}, which would be fetched from {mapped}, outside {region}, where the allowed container {} leads (the allowedContainers and urlMap options)",
                quote_text(&allowed.text)
            )));
        }
        Ok(mapped.to_string())
    }

    /// `range` of the chunk `r` of `key`.
    async fn read(&self, key: &str, r: ChunkRef, range: Option<ByteRange>) -> Result<Vec<u8>> {
        let (url, object_key, offset, length, batched) = match r {
            ChunkRef::Inline(bytes) => {
                return Ok(match range {
                    Some(range) => range.cut(&bytes).to_vec(),
                    None => bytes,
                })
            }
            ChunkRef::Native { id, offset, length } => (
                self.shared.root.clone(),
                format!("chunks/{}", id_text(&id)),
                offset,
                length,
                false,
            ),
            // Virtual chunks are ranges of large files (NetCDF, HDF5): the ranges reads ask for
            // together are fetched together.
            ChunkRef::Virtual {
                location,
                offset,
                length,
                ..
            } => (
                self.virtual_url(key, &location)?,
                String::new(),
                offset,
                length,
                true,
            ),
        };
        let within = range.map_or(0..length, |r| r.resolve(length));
        if within.is_empty() {
            return Ok(Vec::new());
        }
        let span = offset + within.start..offset + within.end;
        if batched {
            self.batched(key, &url, span).await
        } else {
            self.fetch_span(key, &url, &object_key, span).await
        }
    }

    /// Bytes `span` of the object `object_key` below `url` (or of `url` itself).
    async fn fetch_span(
        &self,
        key: &str,
        url: &str,
        object_key: &str,
        span: Range<u64>,
    ) -> Result<Vec<u8>> {
        let _permit = self.shared.limiter.acquire().await;
        let where_ = if object_key.is_empty() {
            url.to_string()
        } else {
            format!("{url}/{object_key}")
        };
        let range = ByteRange::Span {
            offset: span.start,
            length: span.end - span.start,
        };
        let http = &self.shared.options.http;
        let bytes = fetch_object(url, object_key, &self.client, http, Some(range))
            .await
            .map_err(|e| {
                if e.kind == ErrorKind::Aborted {
                    return e;
                }
                ZarrError {
                    message: ZarrError::store(
                        &self.locate(key),
                        format!("its chunk at {where_}: {}", e.message),
                    )
                    .message,
                    ..e
                }
            })?
            .ok_or_else(|| {
                ZarrError::store(
                    &self.locate(key),
                    format!(
                        "its chunk {where_} is missing (HTTP 404): the manifest says it is there"
                    ),
                )
            })?;
        if (bytes.len() as u64) < span.end - span.start {
            return Err(ZarrError::store(
                &self.locate(key),
                format!(
                    "its chunk {where_} ends before bytes {}..{} the manifest gives",
                    span.start, span.end
                ),
            ));
        }
        Ok(bytes)
    }

    /// Bytes `span` of the file at `url`, fetched with the ranges of that file other reads ask
    /// for in the same turn: one request per run of ranges within the merge gap.
    async fn batched(&self, key: &str, url: &str, span: Range<u64>) -> Result<Vec<u8>> {
        let block = fetch_batched(self, key, url, span.clone()).await?;
        // fetch_span checked that each block is whole.
        Ok(block.slice(span).to_vec())
    }

    /// The `zarr.json` of the node at `key`, if `key` is one.
    fn document(&self, key: &str) -> Option<Option<Vec<u8>>> {
        let path = if key == "zarr.json" {
            ""
        } else {
            key.strip_suffix("/zarr.json")?
        };
        Some(
            self.shared
                .snapshot
                .get(path)
                .map(|n| self.shared.snapshot.document(n).to_vec()),
        )
    }
}

/// The snapshot `version` is, and the named virtual chunk containers of the repository's
/// configuration (spec 2: the repo file; spec 1 has none to read).
async fn resolve<C: HttpClient + Clone>(
    root: &str,
    version: &Version,
    client: &C,
    http: &HttpOptions,
    options: &IcechunkOptions,
) -> Result<(Id12, Vec<(String, String)>)> {
    let (kind, name) = match version {
        Version::Branch(name) => (RefKind::Branch, name.as_str()),
        Version::Tag(name) => (RefKind::Tag, name.as_str()),
        Version::Snapshot(id) => {
            let id = decode12(id).map_err(|e| {
                ZarrError::argument(format!("IcechunkStore: the snapshot {e}"), true)
            })?;
            let repo = fetch_object(root, "repo", client, http, None)
                .await
                .map_err(|e| while_reading(e, "the repo file of an Icechunk repository"))?;
            let containers = match repo {
                Some(bytes) => repo_info(root, &bytes, options, |_| Ok(id)).await?.1,
                None => Vec::new(),
            };
            return Ok((id, containers));
        }
    };
    check_name(kind, name).map_err(|e| ZarrError::argument(format!("IcechunkStore: {e}"), true))?;
    let repo = fetch_object(root, "repo", client, http, None)
        .await
        .map_err(|e| while_reading(e, "the repo file of an Icechunk repository"))?;
    let not_found = |more: String| {
        ZarrError::new(
            ErrorKind::NotFound,
            format!(
                "no {} {name:?} in the Icechunk repository {root}{more}",
                kind.name()
            ),
        )
    };
    if let Some(bytes) = repo {
        return repo_info(root, &bytes, options, |info| {
            let bad = |e: String| ZarrError::metadata(&format!("{root}/repo"), e);
            match info.resolve(kind, name).map_err(bad)? {
                Some(id) => Ok(id),
                None => {
                    let names = info.names(kind).map_err(bad)?;
                    let list = if names.is_empty() {
                        "none".to_string()
                    } else {
                        names
                            .iter()
                            .map(|n| format!("{n:?}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    let plural = match kind {
                        RefKind::Branch => "branches",
                        RefKind::Tag => "tags",
                    };
                    Err(not_found(format!(" (its {plural}: {list})")))
                }
            }
        })
        .await;
    }
    // Spec version 1: a ref file per branch and tag; a deleted tag has a tombstone beside it.
    let key = kind.v1_key(name);
    let tombstone = format!("{key}.deleted");
    let (found, deleted) = match kind {
        RefKind::Branch => (fetch_object(root, &key, client, http, None).await, Ok(None)),
        RefKind::Tag => {
            join(
                fetch_object(root, &key, client, http, None),
                fetch_object(root, &tombstone, client, http, None),
            )
            .await
        }
    };
    let found = found.map_err(|e| while_reading(e, "a ref file of an Icechunk repository"))?;
    if deleted
        .map_err(|e| while_reading(e, "a tag tombstone of an Icechunk repository"))?
        .is_some()
    {
        return Err(not_found(format!(" (it was deleted: {root}/{tombstone})")));
    }
    let Some(bytes) = found else {
        return Err(not_found(format!(
            " (neither {root}/repo, of spec version 2, nor {root}/{key}, of spec version 1, is there)"
        )));
    };
    let id = parse_v1_ref(&bytes, &format!("{root}/{key}"))?;
    Ok((id, Vec::new()))
}

/// The repo file `bytes`: the snapshot `pick` chooses in it, and its named virtual chunk
/// containers.
async fn repo_info(
    root: &str,
    bytes: &[u8],
    options: &IcechunkOptions,
    pick: impl FnOnce(&RepoInfo<'_>) -> Result<Id12>,
) -> Result<(Id12, Vec<(String, String)>)> {
    let bad = |e: String| ZarrError::metadata(&format!("{root}/repo"), e);
    let file = header::read(bytes, FileType::RepoInfo, options.max_metadata_bytes)
        .await
        .map_err(bad)?;
    let info = RepoInfo::parse(&file.payload).map_err(bad)?;
    let id = pick(&info)?;
    let containers = match info.config() {
        Some(config) => {
            named_containers(config).map_err(|e| bad(format!("its configuration: {e}")))?
        }
        None => Vec::new(),
    };
    Ok((id, containers))
}

/// Virtual chunk spans fetched in batches (`span_batch`).
#[async_trait(?Send)]
impl<C: HttpClient + Clone + 'static> SpanSource for IcechunkStore<C> {
    fn span_batches(&self) -> &SpanBatches {
        &self.shared.batches
    }

    fn batch_view(&self) -> Self {
        self.with_client(self.client.clone())
    }

    async fn fetch_block(&self, key: &str, url: &str, range: Range<u64>) -> Result<Vec<u8>> {
        self.fetch_span(key, url, "", range).await
    }
}

#[async_trait(?Send)]
impl<C: HttpClient + Clone + 'static> ReadableStore for IcechunkStore<C> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        if let Some(doc) = self.document(key) {
            return Ok(doc);
        }
        match self.chunk_ref(key).await? {
            Some(r) => self.read(key, r, None).await.map(Some),
            None => Ok(None),
        }
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> Result<Option<Vec<u8>>> {
        if let Some(doc) = self.document(key) {
            return Ok(doc.map(|d| range.cut(&d).to_vec()));
        }
        match self.chunk_ref(key).await? {
            Some(r) => self.read(key, r, Some(range)).await.map(Some),
            None => Ok(None),
        }
    }

    fn locate(&self, key: &str) -> String {
        format!("{}#{key}", self.shared.label)
    }

    async fn batch_window(&self) {
        self.client.sleep(0).await;
    }

    fn hints(&self) -> ReadHints {
        self.shared.options.http.hints
    }

    async fn list_dir(&self, prefix: &str) -> Result<Option<Vec<String>>> {
        let docs: Vec<String> = self
            .shared
            .snapshot
            .nodes()
            .iter()
            .map(|n| self.shared.snapshot.path(n))
            .map(|p| {
                if p.is_empty() {
                    "zarr.json".to_string()
                } else {
                    format!("{p}/zarr.json")
                }
            })
            .collect();
        Ok(Some(crate::store::children_of(
            docs.iter().map(String::as_str),
            prefix,
        )))
    }

    fn cancelled(&self) -> bool {
        self.client.cancelled()
    }

    async fn aborted(&self) {
        self.client.aborted().await
    }
}

#[cfg(test)]
mod tests {
    use super::super::header::{self, FileType};
    use super::super::manifest::Manifest;
    use super::super::refs::{RefKind, RepoInfo};
    use super::super::snapshot::Snapshot;
    use futures_executor::block_on;
    use std::path::PathBuf;

    /// The files icechunk wrote in a fixture repository's folder `dir` (v1 or v2).
    fn files(repo: &str, dir: &str) -> Vec<Vec<u8>> {
        let path: PathBuf = [
            env!("CARGO_MANIFEST_DIR"),
            "tests/fixtures/icechunk",
            repo,
            dir,
        ]
        .iter()
        .collect();
        let mut out: Vec<_> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| std::fs::read(e.unwrap().path()).unwrap())
            .collect();
        out.sort();
        out
    }

    /// Every byte of `payload` set to a few values, one at a time, through `parse`.
    fn mutate(payload: &[u8], parse: impl Fn(Vec<u8>)) {
        for i in 0..payload.len() {
            for v in [0u8, 1, 0x7f, 0xff] {
                let mut p = payload.to_vec();
                p[i] = v;
                parse(p);
            }
        }
        for cut in (0..payload.len()).step_by(7) {
            parse(payload[..cut].to_vec());
        }
    }

    #[test]
    fn the_manifest_cache_keeps_within_its_budget_dropping_the_first_kept() {
        use super::super::testbuild::{build, F};
        let manifest = |n: usize| {
            // Its size in `extra`, the field kept for extensions.
            let payload = build(vec![
                F::Scalar(vec![0; 12]),
                F::Tables(vec![]),
                F::Absent,
                F::Absent,
                F::Bytes(vec![0; n]),
            ]);
            std::rc::Rc::new(Manifest::parse(payload).unwrap())
        };
        let (a, b, c) = (manifest(100), manifest(100), manifest(100));
        let budget = a.size() * 2 + 10;
        let mut cache = super::ManifestCache::default();
        cache.insert([1; 12], a.clone(), budget);
        cache.insert([2; 12], b, budget);
        assert_eq!(cache.kept.len(), 2);
        cache.insert([3; 12], c, budget);
        assert_eq!(cache.kept.len(), 2, "the first dropped");
        assert!(!cache.kept.contains_key(&[1; 12]));
        assert!(cache.bytes <= budget);
        // One larger than the whole budget is used but not kept.
        cache.insert([4; 12], manifest(1000), budget);
        assert!(!cache.kept.contains_key(&[4; 12]));
        assert_eq!(cache.bytes, a.size() * 2);
    }

    #[test]
    fn every_real_metadata_file_mutated_byte_by_byte_is_read_or_refused_never_a_panic() {
        let max = 1 << 20;
        // The nodes of every snapshot, for the manifests' lookups.
        let mut nodes = Vec::new();
        for repo in ["v1", "v2"] {
            for file in files(repo, "snapshots") {
                let f = block_on(header::read(&file, FileType::Snapshot, max)).unwrap();
                let s = block_on(Snapshot::parse(f.payload.clone())).unwrap();
                nodes.extend(s.nodes().iter().map(|n| n.id));
                mutate(&f.payload, |p| {
                    if let Ok(s) = block_on(Snapshot::parse(p)) {
                        for n in s.nodes() {
                            let _ = s.manifest_for(n, &[0, 0]);
                        }
                    }
                });
            }
        }
        assert!(nodes.len() > 10);
        let indices: [&[u32]; 5] = [&[0], &[3], &[0, 0], &[1, 2], &[2, 0, 1]];
        let mut found = 0;
        for repo in ["v1", "v2"] {
            for file in files(repo, "manifests") {
                let f = block_on(header::read(&file, FileType::Manifest, max)).unwrap();
                let m = Manifest::parse(f.payload.clone()).unwrap();
                for n in &nodes {
                    for i in indices {
                        found += usize::from(m.get(n, i).unwrap().is_some());
                    }
                }
                // Mutated: parsed and looked up for a few nodes (every node would take long).
                mutate(&f.payload, |p| {
                    if let Ok(m) = Manifest::parse(p) {
                        for n in nodes.iter().step_by(5) {
                            let _ = m.get(n, &[0, 0]);
                            let _ = m.get(n, &[1]);
                        }
                    }
                });
            }
        }
        assert!(found > 20, "the lookups found chunks ({found})");
        let repo = std::fs::read(
            [
                env!("CARGO_MANIFEST_DIR"),
                "tests/fixtures/icechunk/v2/repo",
            ]
            .iter()
            .collect::<PathBuf>(),
        )
        .unwrap();
        let f = block_on(header::read(&repo, FileType::RepoInfo, max)).unwrap();
        assert!(RepoInfo::parse(&f.payload)
            .unwrap()
            .resolve(RefKind::Branch, "dev")
            .unwrap()
            .is_some());
        mutate(&f.payload, |p| {
            if let Ok(r) = RepoInfo::parse(&p) {
                let _ = r.resolve(RefKind::Branch, "main");
                let _ = r.resolve(RefKind::Tag, "v1");
                let _ = r.names(RefKind::Branch);
            }
        });
        // And the compressed files themselves, cut anywhere.
        for cut in (0..repo.len()).step_by(3) {
            let _ = block_on(header::read(&repo[..cut], FileType::RepoInfo, max));
        }
    }
}
