#![cfg(all(not(target_arch = "wasm32"), feature = "icechunk"))]
//! The Icechunk repositories written by the icechunk Python package
//! (scripts/make_icechunk_fixtures.py), read at each branch, tag and snapshot the script read
//! them at, value by value against what icechunk read; and the store's errors and requests.

mod common;

use async_trait::async_trait;
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;
use zarr_wasm::store::http::{HttpClient, HttpFailure, HttpRequest, HttpResponse};
use zarr_wasm::store::icechunk::{IcechunkOptions, IcechunkStore, Version};
use zarr_wasm::store::ByteRange;
use zarr_wasm::{open, ErrorKind, Node};

const BASE: &str = "http://fixtures.test/icechunk";
const CONTAINER: &str = "https://example.org/icechunk/";

/// Serves tests/fixtures/icechunk over "HTTP", with ranges, and records the URLs asked for.
#[derive(Clone, Default)]
struct Files {
    seen: Rc<RefCell<Vec<String>>>,
    /// Each request's range, beside `seen`.
    ranges: Rc<RefCell<Vec<Option<ByteRange>>>>,
}

thread_local! {
    /// The fake clock's turn: a 0 ms timer ends once a later turn has come.
    static TURN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// A timer of 0 ms, as JavaScript's event loop runs it: done at the next turn, once everything
/// that could go on meanwhile has (reads started together join the same batch by then).
struct NextTurn(u64);

impl std::future::Future for NextTurn {
    type Output = ();
    fn poll(self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        match TURN.with(|t| t.get()) > self.0 {
            true => std::task::Poll::Ready(()),
            false => std::task::Poll::Pending,
        }
    }
}

/// Runs `f` to the end, a turn at a time: everything that can go on goes on, then the timers of
/// that turn fire.
fn run<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        TURN.with(|t| t.set(t.get() + 1));
    }
}

#[async_trait(?Send)]
impl HttpClient for Files {
    async fn send(&self, r: HttpRequest) -> Result<HttpResponse, HttpFailure> {
        self.seen.borrow_mut().push(r.url.clone());
        self.ranges.borrow_mut().push(r.range);
        // The fixtures, also as a public S3 or GCS bucket's objects.
        let rel = [
            BASE,
            "https://bucket.s3.amazonaws.com/icechunk",
            "https://storage.googleapis.com/bucket/icechunk",
        ]
        .iter()
        .find_map(|b| r.url.strip_prefix(b))
        .unwrap_or("/none")
        .trim_start_matches('/');
        let Ok(body) = std::fs::read(common::fixture_path(&format!("icechunk/{rel}"))) else {
            return Ok(HttpResponse {
                status: 404,
                ..Default::default()
            });
        };
        Ok(common::http_answer(body, r.range))
    }
    async fn sleep(&self, _ms: u32) {
        NextTurn(TURN.with(|t| t.get())).await
    }
}

fn options(version: Version) -> IcechunkOptions {
    IcechunkOptions {
        version,
        allowed_containers: vec![CONTAINER.into()],
        url_map: vec![(CONTAINER.into(), format!("{BASE}/"))],
        ..IcechunkOptions::default()
    }
}

fn version_of(key: &str) -> Version {
    let (kind, name) = key.split_once(':').unwrap();
    match kind {
        "branch" => Version::Branch(name.into()),
        "tag" => Version::Tag(name.into()),
        _ => Version::Snapshot(name.into()),
    }
}

/// `values` (JSON numbers, null for NaN) as little-endian `dtype`.
fn pack(dtype: &str, values: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        let f = v.as_f64().unwrap_or(f64::NAN);
        match dtype {
            "int16" => out.extend((v.as_i64().unwrap() as i16).to_le_bytes()),
            "int32" => out.extend((v.as_i64().unwrap() as i32).to_le_bytes()),
            "uint8" => out.extend((v.as_u64().unwrap() as u8).to_le_bytes()),
            "uint16" => out.extend((v.as_u64().unwrap() as u16).to_le_bytes()),
            "float32" => out.extend((f as f32).to_le_bytes()),
            "float64" => out.extend(f.to_le_bytes()),
            other => panic!("no packing for {other}"),
        }
    }
    out
}

fn store(repo: &str, version: Version, client: Files) -> zarr_wasm::Result<IcechunkStore<Files>> {
    run(IcechunkStore::open(
        &format!("{BASE}/{repo}"),
        client,
        options(version),
    ))
}

#[test]
fn every_array_at_every_version_reads_as_icechunk_reads_it() {
    let text = std::fs::read_to_string(common::fixture_path("icechunk.expected.json")).unwrap();
    let expected: Value = serde_json::from_str(&text).unwrap();
    let mut arrays = 0;
    for (repo, versions) in expected["repositories"].as_object().unwrap() {
        for (key, want) in versions.as_object().unwrap() {
            let s = Rc::new(store(repo, version_of(key), Files::default()).unwrap());
            assert_eq!(
                s.snapshot_id(),
                want["snapshot"].as_str().unwrap(),
                "{repo} {key}"
            );
            assert_eq!(s.spec_version(), if repo == "v1" { 1 } else { 2 });
            assert_eq!(s.writer(), "ic-2.3.0");
            for (path, a) in want["arrays"].as_object().unwrap() {
                let Node::Array(arr) = run(open(s.clone(), path)).unwrap() else {
                    panic!("{repo} {key} {path} is not an array");
                };
                let got = run(arr.get(&[])).unwrap();
                let dtype = a["dtype"].as_str().unwrap();
                let bytes = pack(dtype, a["values"].as_array().unwrap());
                // NaN compares by its bits: the writer's NaN fill and numpy's are the same one.
                assert_eq!(got.bytes, bytes, "{repo} {key} {path}");
                arrays += 1;
            }
            for (path, attrs) in want["groups"].as_object().unwrap() {
                let Node::Group(g) = run(open(s.clone(), path)).unwrap() else {
                    panic!("{repo} {key} {path:?} is not a group");
                };
                let got = Value::Object(g.metadata().attributes.clone());
                assert_eq!(&got, attrs, "{repo} {key} {path:?}");
            }
        }
    }
    assert_eq!(arrays, 32 + 15);
}

#[test]
fn manifests_are_fetched_when_a_read_needs_them_and_once() {
    let files = Files::default();
    let s = Rc::new(store("v2", Version::Branch("main".into()), files.clone()).unwrap());
    // The repo file and the snapshot.
    assert_eq!(files.seen.borrow().len(), 2);
    let Node::Array(small) = run(open(s.clone(), "small")).unwrap() else {
        panic!()
    };
    assert_eq!(
        files.seen.borrow().len(),
        2,
        "metadata comes from the snapshot"
    );
    assert_eq!(s.manifests_loaded(), 0);
    run(small.get(&[])).unwrap();
    let after_one = files.seen.borrow().len();
    assert_eq!(s.manifests_loaded(), 1);
    // Inline chunks: only the manifest was fetched.
    assert_eq!(after_one, 3, "{:?}", files.seen.borrow());
    run(small.get(&[])).unwrap();
    assert_eq!(files.seen.borrow().len(), 3, "the manifest is kept");
}

#[test]
fn of_an_array_split_across_manifests_only_the_manifest_covering_a_read_is_fetched() {
    // "split" is 4 x 4 chunks; each of its manifests covers two rows of them.
    let files = Files::default();
    let s = Rc::new(store("v2", Version::Branch("main".into()), files.clone()).unwrap());
    let Node::Array(split) = run(open(s.clone(), "split")).unwrap() else {
        panic!()
    };
    let manifests = |files: &Files| {
        files
            .seen
            .borrow()
            .iter()
            .filter(|u| u.contains("/manifests/"))
            .cloned()
            .collect::<Vec<_>>()
    };
    run(split.get_chunk(&[0, 0])).unwrap();
    run(split.get_chunk(&[1, 3])).unwrap();
    let first = manifests(&files);
    assert_eq!(first.len(), 1, "rows 0 and 1 share a manifest: {first:?}");
    run(split.get_chunk(&[2, 0])).unwrap();
    let second = manifests(&files);
    assert_eq!(second.len(), 2, "row 2 is in the other one: {second:?}");
    assert_ne!(second[0], second[1]);
    run(split.get(&[])).unwrap();
    assert_eq!(manifests(&files).len(), 2, "both kept");
    assert_eq!(s.manifests_loaded(), 2);
}

#[test]
fn s3_and_gs_repository_urls_are_read_from_the_buckets_public_endpoints() {
    for url in ["s3://bucket/icechunk/v2", "gs://bucket/icechunk/v2/"] {
        let files = Files::default();
        let s = run(IcechunkStore::open(
            url,
            files.clone(),
            options(Version::Tag("v1".into())),
        ))
        .unwrap();
        let Node::Array(small) = run(open(Rc::new(s), "small")).unwrap() else {
            panic!()
        };
        let got = run(small.get(&[])).unwrap();
        assert_eq!(got.bytes.len(), 20, "{url}");
        let seen = files.seen.borrow();
        assert!(seen[0].ends_with("/icechunk/v2/repo"), "{seen:?}");
        assert!(seen.iter().all(|u| u.starts_with("https://")), "{seen:?}");
    }
}

#[test]
fn the_virtual_chunks_of_one_file_read_together_are_fetched_in_merged_ranges() {
    let files = Files::default();
    let s = Rc::new(store("v2", Version::Branch("main".into()), files.clone()).unwrap());
    let requests_of_the_file = |files: &Files| {
        let seen = files.seen.borrow();
        let ranges = files.ranges.borrow();
        seen.iter()
            .zip(ranges.iter())
            .filter(|(u, _)| u.ends_with("/virtual.bin"))
            .map(|(_, r)| *r)
            .collect::<Vec<_>>()
    };
    // Three chunks at 16..80, 80..144 and 160..224 of virtual.bin: within the merge gap.
    let Node::Array(v) = run(open(s.clone(), "virtual")).unwrap() else {
        panic!()
    };
    run(v.get(&[])).unwrap();
    assert_eq!(
        requests_of_the_file(&files),
        [Some(ByteRange::Span {
            offset: 16,
            length: 208
        })]
    );
    // 32 chunks of 4 bytes, back to back: one request.
    files.seen.borrow_mut().clear();
    files.ranges.borrow_mut().clear();
    let Node::Array(many) = run(open(s.clone(), "virtual_many")).unwrap() else {
        panic!()
    };
    run(many.get(&[])).unwrap();
    assert_eq!(
        requests_of_the_file(&files),
        [Some(ByteRange::Span {
            offset: 16,
            length: 128
        })]
    );
    // One chunk alone: its own range.
    files.seen.borrow_mut().clear();
    files.ranges.borrow_mut().clear();
    run(v.get_chunk(&[2, 0])).unwrap();
    assert_eq!(
        requests_of_the_file(&files),
        [Some(ByteRange::Span {
            offset: 160,
            length: 64
        })]
    );
}

#[test]
fn virtual_chunks_outside_the_allowed_containers_are_refused_naming_the_url_and_the_option() {
    let opts = IcechunkOptions {
        allowed_containers: vec!["https://example.org/other/".into()],
        ..options(Version::Branch("main".into()))
    };
    let files = Files::default();
    let s = Rc::new(
        run(IcechunkStore::open(
            &format!("{BASE}/v2"),
            files.clone(),
            opts,
        ))
        .unwrap(),
    );
    let Node::Array(v) = run(open(s.clone(), "virtual")).unwrap() else {
        panic!()
    };
    let err = run(v.get(&[])).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Store);
    assert!(
        err.message
            .contains("https://example.org/icechunk/virtual.bin"),
        "{}",
        err.message
    );
    assert!(err.message.contains("allowedContainers"), "{}", err.message);
    assert!(!files
        .seen
        .borrow()
        .iter()
        .any(|u| u.contains("virtual.bin")));
    // A location relative to a named container (vcc://data/...) is checked as the URL it names.
    let Node::Array(named) = run(open(s, "virtual_named")).unwrap() else {
        panic!()
    };
    let err = run(named.get(&[])).unwrap_err();
    assert!(
        err.message
            .contains("https://example.org/icechunk/virtual.bin"),
        "{}",
        err.message
    );
}

#[test]
fn missing_refs_and_snapshots_are_not_found_errors_naming_them() {
    for (repo, version, says) in [
        ("v2", Version::Branch("nope".into()), "no branch \"nope\""),
        ("v2", Version::Tag("nope".into()), "its tags: \"v1\""),
        (
            "v1",
            Version::Branch("nope".into()),
            "refs/branch.nope/ref.json",
        ),
        ("v1", Version::Tag("nope".into()), "no tag \"nope\""),
        (
            "v2",
            Version::Snapshot("00000000000000000000".into()),
            "no snapshot 00000000000000000000",
        ),
    ] {
        let err = store(repo, version, Files::default()).err().unwrap();
        assert_eq!(err.kind, ErrorKind::NotFound, "{}", err.message);
        assert!(err.message.contains(says), "{}", err.message);
    }
    let err = store("v2", Version::Snapshot("nope".into()), Files::default())
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::ArgumentRange);
    assert!(
        err.message.contains("20 Crockford base 32"),
        "{}",
        err.message
    );
    let err = store("none", Version::Branch("main".into()), Files::default())
        .err()
        .unwrap();
    assert_eq!(err.kind, ErrorKind::NotFound);
}

#[test]
fn a_corrupt_snapshot_is_a_metadata_error_naming_its_url() {
    #[derive(Clone, Default)]
    struct Cut(Files);
    #[async_trait(?Send)]
    impl HttpClient for Cut {
        async fn send(&self, r: HttpRequest) -> Result<HttpResponse, HttpFailure> {
            let mut resp = self.0.send(r.clone()).await?;
            if r.url.contains("/snapshots/") {
                resp.body.truncate(resp.body.len() / 2);
            }
            Ok(resp)
        }
        async fn sleep(&self, _ms: u32) {}
    }
    let err = run(IcechunkStore::open(
        &format!("{BASE}/v2"),
        Cut::default(),
        options(Version::Branch("main".into())),
    ))
    .err()
    .unwrap();
    assert_eq!(err.kind, ErrorKind::Metadata);
    let text = std::fs::read_to_string(common::fixture_path("icechunk.expected.json")).unwrap();
    let expected: Value = serde_json::from_str(&text).unwrap();
    let main = expected["repositories"]["v2"]["branch:main"]["snapshot"]
        .as_str()
        .unwrap();
    let url = format!("{BASE}/v2/snapshots/{main}");
    assert!(err.message.contains(&url), "{}", err.message);
}

/// The fixtures with the objects whose URL contains `pattern` cut in half (`cut`) or gone.
#[derive(Clone)]
struct Mangled {
    files: Files,
    pattern: &'static str,
    cut: bool,
}

#[async_trait(?Send)]
impl HttpClient for Mangled {
    async fn send(&self, r: HttpRequest) -> Result<HttpResponse, HttpFailure> {
        if !r.url.contains(self.pattern) {
            return self.files.send(r).await;
        }
        if !self.cut {
            return Ok(HttpResponse {
                status: 404,
                ..Default::default()
            });
        }
        let whole = HttpRequest {
            range: None,
            ..r.clone()
        };
        let mut body = self.files.send(whole).await?.body;
        body.truncate(body.len() / 2);
        Ok(common::http_answer(body, r.range))
    }
    async fn sleep(&self, ms: u32) {
        self.files.sleep(ms).await
    }
}

#[test]
fn a_broken_manifest_a_missing_chunk_file_and_a_missing_virtual_file_are_errors_naming_them() {
    let read = |pattern: &'static str, cut: bool, path: &str| {
        let client = Mangled {
            files: Files::default(),
            pattern,
            cut,
        };
        let s = run(IcechunkStore::open(
            &format!("{BASE}/v2"),
            client,
            options(Version::Branch("main".into())),
        ))
        .unwrap();
        let Node::Array(a) = run(open(Rc::new(s), path)).unwrap() else {
            panic!()
        };
        run(a.get(&[])).unwrap_err()
    };
    let err = read("/manifests/", true, "small");
    assert_eq!(err.kind, ErrorKind::Metadata, "{}", err.message);
    assert!(err.message.contains("/v2/manifests/"), "{}", err.message);
    let err = read("/manifests/", false, "small");
    assert_eq!(err.kind, ErrorKind::Store, "{}", err.message);
    assert!(
        err.message.contains("the manifest is missing"),
        "{}",
        err.message
    );
    let err = read("/chunks/", false, "grid/native");
    assert_eq!(err.kind, ErrorKind::Store, "{}", err.message);
    assert!(err.message.contains("/v2/chunks/"), "{}", err.message);
    assert!(
        err.message.contains("the manifest says it is there"),
        "{}",
        err.message
    );
    let err = read("/chunks/", true, "grid/native");
    assert!(err.message.contains("ends before bytes"), "{}", err.message);
    let err = read("virtual.bin", false, "virtual");
    assert_eq!(err.kind, ErrorKind::Store, "{}", err.message);
    assert!(
        err.message.contains("virtual.bin is missing"),
        "{}",
        err.message
    );
}
