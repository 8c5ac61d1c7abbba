#![cfg(all(not(target_arch = "wasm32"), feature = "icechunk"))]
//! Icechunk repositories made by hand, to be hostile: virtual chunk locations that try to leave
//! their allowed container, snapshots whose nodes share one large vector, snapshots of very many
//! nodes, unsorted manifests, and ref files of millions of lists. Each is refused with an error
//! that says what is wrong, or read within a bound of time and memory.

#[path = "../src/store/icechunk/testbuild.rs"]
#[allow(dead_code)]
mod testbuild;

use async_trait::async_trait;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use testbuild::{build, F};
use zarr_wasm::store::http::{HttpClient, HttpFailure, HttpRequest, HttpResponse};
use zarr_wasm::store::icechunk::{IcechunkOptions, IcechunkStore, Version};
use zarr_wasm::store::ReadableStore;
use zarr_wasm::{ErrorKind, ZarrError};

const BASE: &str = "http://repo.test/r";
/// The snapshot's and the manifest's id (twelve zero bytes, as Icechunk writes it in keys).
const ID: &str = "00000000000000000000";
/// The array's node id.
const NODE: [u8; 8] = [7; 8];

/// An Icechunk file: the header (spec version 1, uncompressed) and `payload`.
fn file(file_type: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = "ICE🧊CHUNK".as_bytes().to_vec();
    out.extend(format!("{:<24}", "hostile-test").as_bytes());
    out.extend([1, file_type, 0]);
    out.extend(payload);
    out
}

fn array_json(chunks: usize) -> String {
    format!(
        r#"{{"zarr_format":3,"node_type":"array","shape":[{chunks}],"data_type":"uint8","chunk_grid":{{"name":"regular","configuration":{{"chunk_shape":[1]}}}},"chunk_key_encoding":{{"name":"default","configuration":{{"separator":"/"}}}},"fill_value":0,"codecs":[{{"name":"bytes"}}]}}"#
    )
}

/// A snapshot of the root group and the array `/arr` of `chunks` chunks, in one manifest.
fn snapshot(chunks: usize) -> Vec<u8> {
    let group = vec![
        F::Scalar(vec![1; 8]),
        F::Bytes(b"/".to_vec()),
        F::Bytes(br#"{"zarr_format":3,"node_type":"group"}"#.to_vec()),
        F::Scalar(vec![2]),
        F::Table(vec![]),
    ];
    let manifest_ref = vec![
        F::Scalar(vec![0; 12]),
        F::Structs(vec![
            [0u32.to_le_bytes(), (chunks as u32).to_le_bytes()].concat()
        ]),
    ];
    let array = vec![
        F::Scalar(NODE.to_vec()),
        F::Bytes(b"/arr".to_vec()),
        F::Bytes(array_json(chunks).into_bytes()),
        F::Scalar(vec![1]),
        F::Table(vec![
            F::Structs(vec![]),
            F::Absent,
            F::Tables(vec![manifest_ref]),
        ]),
    ];
    build(vec![
        F::Scalar(vec![0; 12]),
        F::Absent,
        F::Tables(vec![group, array]),
    ])
}

/// A chunk reference of `/arr`: chunk `index`, `length` bytes from `offset` of `location`.
fn virtual_ref(index: u32, location: &str, offset: u64, length: u64) -> Vec<F> {
    vec![
        F::Structs(vec![index.to_le_bytes().to_vec()]),
        F::Absent,
        F::Scalar(offset.to_le_bytes().to_vec()),
        F::Scalar(length.to_le_bytes().to_vec()),
        F::Absent,
        F::Bytes(location.as_bytes().to_vec()),
    ]
}

/// A manifest of `/arr` with the chunk references `refs`, in the order given.
fn manifest(refs: Vec<Vec<F>>) -> Vec<u8> {
    build(vec![
        F::Scalar(vec![0; 12]),
        F::Tables(vec![vec![F::Scalar(NODE.to_vec()), F::Tables(refs)]]),
    ])
}

/// A spec version 1 repository at `BASE`: branch main at the snapshot `ID`, and its manifest.
fn repo(snapshot: &[u8], manifest: Option<&[u8]>) -> HashMap<String, Vec<u8>> {
    let mut files = HashMap::new();
    files.insert(
        format!("{BASE}/refs/branch.main/ref.json"),
        format!(r#"{{"snapshot":"{ID}"}}"#).into_bytes(),
    );
    files.insert(format!("{BASE}/snapshots/{ID}"), file(1, snapshot));
    if let Some(m) = manifest {
        files.insert(format!("{BASE}/manifests/{ID}"), file(2, m));
    }
    files
}

/// Serves `files` and, at any other http URL, 64 bytes (the virtual chunk files), recording
/// the URLs asked for.
#[derive(Clone, Default)]
struct Server {
    files: Rc<HashMap<String, Vec<u8>>>,
    seen: Rc<RefCell<Vec<String>>>,
}

#[async_trait(?Send)]
impl HttpClient for Server {
    async fn send(&self, r: HttpRequest) -> Result<HttpResponse, HttpFailure> {
        self.seen.borrow_mut().push(r.url.clone());
        let body = match self.files.get(&r.url) {
            Some(body) => body.clone(),
            None if r.url.starts_with(BASE) => {
                return Ok(HttpResponse {
                    status: 404,
                    ..Default::default()
                })
            }
            None => (0..64).collect(),
        };
        let (status, body) = match r.range {
            None => (200, body),
            Some(range) => {
                let at = range.resolve(body.len() as u64);
                (206, body[at.start as usize..at.end as usize].to_vec())
            }
        };
        Ok(HttpResponse {
            status,
            body,
            ..Default::default()
        })
    }
    async fn sleep(&self, _ms: u32) {}
}

fn open(
    files: HashMap<String, Vec<u8>>,
    allowed: &[&str],
    url_map: &[(&str, &str)],
) -> (Result<IcechunkStore<Server>, ZarrError>, Server) {
    let server = Server {
        files: Rc::new(files),
        ..Server::default()
    };
    let options = IcechunkOptions {
        version: Version::Branch("main".into()),
        allowed_containers: allowed.iter().map(|s| s.to_string()).collect(),
        url_map: url_map
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        ..IcechunkOptions::default()
    };
    let store = futures_executor::block_on(IcechunkStore::open(BASE, server.clone(), options));
    (store, server)
}

/// Reads chunk `i` of `/arr` for each of `locations`: what was fetched, or the error.
fn read_virtual(
    locations: &[&str],
    allowed: &[&str],
    url_map: &[(&str, &str)],
) -> Vec<Result<String, ZarrError>> {
    let refs = locations
        .iter()
        .enumerate()
        .map(|(i, l)| virtual_ref(i as u32, l, 3, 2))
        .collect();
    let (store, server) = open(
        repo(&snapshot(locations.len()), Some(&manifest(refs))),
        allowed,
        url_map,
    );
    let store = store.unwrap();
    (0..locations.len())
        .map(|i| {
            server.seen.borrow_mut().clear();
            let got = futures_executor::block_on(store.get(&format!("arr/c/{i}")))?;
            assert_eq!(got, Some(vec![3, 4]), "{}", locations[i]);
            let seen = server.seen.borrow();
            let chunk: Vec<&String> = seen.iter().filter(|u| !u.starts_with(BASE)).collect();
            assert_eq!(chunk.len(), 1, "{seen:?}");
            Ok(chunk[0].clone())
        })
        .collect()
}

#[test]
fn virtual_chunks_cannot_leave_their_allowed_container() {
    let _one = counting::serial();
    let allowed = ["http://h/ok/c/"];
    let escapes = [
        "http://h/ok/c/../secret/v.bin",
        "http://h/ok/c/%2e%2e/secret/v.bin",
        "http://h/ok/c/%2E%2E/secret/v.bin",
        "http://h/ok/c/.%2E/secret/v.bin",
        "http://h/ok/c/%2e./secret/v.bin",
        "http://h/ok/c/..\\secret/v.bin",
        "http://h/ok/c/.\t.\n/secret/v.bin",
        "http://h/ok/c/x/../../secret/v.bin",
        "http://h/ok/c/..%2Fsecret/v.bin",
        "http://h/ok/c/..%5Csecret/v.bin",
        "http://h/ok/c",
        "http://h/ok/cx/v.bin",
        "http://h/ok/c\\..\\..\\secret/v.bin",
        "http://h\\@evil.test/ok/c/v.bin",
        "http://evil.test/ok/c/v.bin",
        "http://h:8080/ok/c/v.bin",
        "https://h/ok/c/v.bin",
        "ok/c/v.bin",
    ];
    for (location, got) in escapes.iter().zip(read_virtual(&escapes, &allowed, &[])) {
        let err = got.expect_err(location);
        assert_eq!(err.kind, ErrorKind::Store, "{location}: {}", err.message);
        assert!(
            err.message.contains("allowedContainers") && err.message.contains("arr/c/"),
            "{location}: {}",
            err.message
        );
    }
    // What stays inside is read, from the URL as fetch would read it; other percent-encoded
    // characters stay as they are.
    let inside = [
        ("http://h/ok/c/v.bin", "http://h/ok/c/v.bin"),
        ("HTTP://H:80/ok/c/./d/v.bin", "http://h/ok/c/d/v.bin"),
        ("http://h/ok/c/d/../v.bin", "http://h/ok/c/v.bin"),
        ("http://h/ok/c/d/%2e%2e/v.bin", "http://h/ok/c/v.bin"),
        ("http://h/ok/c\\d\\v.bin", "http://h/ok/c/d/v.bin"),
        (
            " http://h/ok/c/a%20b%41.bin?x=%2F",
            "http://h/ok/c/a%20b%41.bin?x=%2F",
        ),
        ("http://h/ok/c/é.bin", "http://h/ok/c/%C3%A9.bin"),
    ];
    let locations: Vec<&str> = inside.iter().map(|(l, _)| *l).collect();
    for ((location, want), got) in inside.iter().zip(read_virtual(&locations, &allowed, &[])) {
        assert_eq!(got.expect(location), *want, "{location}");
    }
    // A prefix without its final slash admits what is below it and itself, not `cx`.
    let got = read_virtual(
        &[
            "http://h/ok/c/v.bin",
            "http://h/ok/c",
            "http://h/ok/cx/v.bin",
        ],
        &["http://h/ok/c"],
        &[],
    );
    assert_eq!(got[0].as_deref().unwrap(), "http://h/ok/c/v.bin");
    assert_eq!(got[1].as_deref().unwrap(), "http://h/ok/c");
    assert!(got[2].is_err());
}

#[test]
fn the_check_is_on_the_url_fetched_after_the_url_map() {
    let _one = counting::serial();
    let map = [("s3://bucket/", "http://h/bucket/")];
    let got = read_virtual(
        &[
            "s3://bucket/prefix/v.bin",
            "s3://bucket/prefix/../v.bin",
            "s3://bucket/prefix/%2e%2e/v.bin",
            "s3://bucket/prefix/a/../v.bin",
            "s3://bucket/prefixx/v.bin",
        ],
        &["s3://bucket/prefix/"],
        &map,
    );
    assert_eq!(got[0].as_deref().unwrap(), "http://h/bucket/prefix/v.bin");
    for g in [&got[1], &got[2], &got[4]] {
        let err = g.as_ref().unwrap_err();
        assert!(err.message.contains("allowedContainers"), "{}", err.message);
    }
    assert_eq!(got[3].as_deref().unwrap(), "http://h/bucket/prefix/v.bin");
    // A urlMap prefix that ends inside a segment: `pre..` is a name in the s3 URL, and `..`
    // once mapped. The URL fetched would leave the place the entry maps to.
    let got = read_virtual(
        &["s3://bucket/pre../x/v.bin", "s3://bucket/prefix/v.bin"],
        &["s3://bucket/"],
        &[("s3://bucket/pre", "http://h/m/")],
    );
    let err = got[0].as_ref().unwrap_err();
    assert!(
        err.message
            .contains("would be fetched from http://h/x/v.bin"),
        "{}",
        err.message
    );
    assert_eq!(got[1].as_deref().unwrap(), "http://h/m/fix/v.bin");
    // Without a urlMap, s3 and gs buckets are read from their public endpoints; a bucket name
    // that would name another host is refused.
    let got = read_virtual(
        &[
            "s3://b/k/v.bin",
            "s3://evil.test#/k",
            "s3://evil.test?/k",
            "gs://b/k/../../v.bin",
        ],
        &["s3://", "gs://b/k/"],
        &[],
    );
    assert_eq!(
        got[0].as_deref().unwrap(),
        "https://b.s3.amazonaws.com/k/v.bin"
    );
    for g in &got[1..] {
        assert!(g.is_err(), "{g:?}");
    }
    // The allowed containers are URLs: one that is not is an error of the option.
    let (err, _) = open(repo(&snapshot(1), None), &["no scheme"], &[]);
    let err = err.err().unwrap();
    assert_eq!(err.kind, ErrorKind::ArgumentRange);
    assert!(err.message.contains("allowedContainers"), "{}", err.message);
}

#[path = "common/counting.rs"]
mod counting;

#[global_allocator]
static ALLOCATOR: counting::CountingAllocator = counting::CountingAllocator;

/// How long `f` took, the most it allocated at once, and its result. The tests run one at a
/// time (`counting::serial`), so that the peak is theirs.
fn measured<T>(f: impl FnOnce() -> T) -> (T, std::time::Duration, usize) {
    let start = std::time::Instant::now();
    let (out, peak) = counting::peak_of(f);
    (out, start.elapsed(), peak)
}

/// A FlatBuffer laid out by hand, so that tables and vectors can be shared (every offset points
/// forward, as FlatBuffers requires).
struct Raw(Vec<u8>);

impl Raw {
    fn align(&mut self) {
        while !self.0.len().is_multiple_of(4) {
            self.0.push(0);
        }
    }
    /// A vtable: the table's size and each field's place in it (0: absent).
    fn vtable(&mut self, size: u16, fields: &[u16]) -> usize {
        self.align();
        let at = self.0.len();
        self.0.extend((4 + 2 * fields.len() as u16).to_le_bytes());
        self.0.extend(size.to_le_bytes());
        for f in fields {
            self.0.extend(f.to_le_bytes());
        }
        at
    }
    /// A table of `size` bytes (zeroed) of the vtable at `vt`.
    fn table(&mut self, vt: usize, size: usize) -> usize {
        self.align();
        let at = self.0.len();
        self.0.extend(((at - vt) as i32).to_le_bytes());
        self.0.resize(at + size, 0);
        at
    }
    fn put(&mut self, at: usize, bytes: &[u8]) {
        self.0[at..at + bytes.len()].copy_from_slice(bytes);
    }
    /// The offset at `at`, pointing to `to`.
    fn point(&mut self, at: usize, to: usize) {
        self.put(at, &((to - at) as u32).to_le_bytes());
    }
    /// A vector of `n` 4-byte slots: where it is, and where its first slot is.
    fn slots(&mut self, n: usize) -> (usize, usize) {
        self.align();
        let at = self.0.len();
        self.0.extend((n as u32).to_le_bytes());
        self.0.resize(at + 4 + 4 * n, 0);
        (at, at + 4)
    }
    fn bytes(&mut self, b: &[u8]) -> usize {
        self.align();
        let at = self.0.len();
        self.0.extend((b.len() as u32).to_le_bytes());
        self.0.extend(b);
        self.0.push(0);
        at
    }
}

/// A snapshot of `nodes` arrays (`/a000000`, ...) that all share one `zarr.json` of `doc` bytes
/// and one list of `refs` manifest refs, each covering chunk 0.
fn shared_snapshot(nodes: usize, doc: usize, refs: usize) -> Vec<u8> {
    let mut r = Raw(vec![0; 4]);
    let root_vt = r.vtable(20, &[4, 0, 16]);
    let node_vt = r.vtable(28, &[4, 12, 16, 20, 24]);
    let data_vt = r.vtable(8, &[0, 0, 4]);
    let ref_vt = r.vtable(20, &[4, 16]);
    let root = r.table(root_vt, 20);
    r.point(0, root);
    let (list, first) = r.slots(nodes);
    r.point(root + 16, list);
    let tables: Vec<usize> = (0..nodes)
        .map(|i| {
            let t = r.table(node_vt, 28);
            r.point(first + 4 * i, t);
            r.put(t + 4, &(i as u64).to_le_bytes());
            r.put(t + 20, &[1]);
            t
        })
        .collect();
    for (i, &t) in tables.iter().enumerate() {
        let path = r.bytes(format!("/a{i:06}").as_bytes());
        r.point(t + 12, path);
    }
    let data = r.table(data_vt, 8);
    for &t in &tables {
        r.point(t + 24, data);
    }
    let (list, first) = r.slots(refs);
    r.point(data + 4, list);
    let refs: Vec<usize> = (0..refs)
        .map(|i| {
            let t = r.table(ref_vt, 20);
            r.point(first + 4 * i, t);
            t
        })
        .collect();
    r.align();
    let extents = r.0.len();
    r.0.extend(1u32.to_le_bytes());
    r.0.extend(0u32.to_le_bytes());
    r.0.extend(1u32.to_le_bytes());
    for t in refs {
        r.point(t + 16, extents);
    }
    let mut json = array_json(4).into_bytes();
    json.resize(doc.max(json.len()), b' ');
    let json = r.bytes(&json);
    for &t in &tables {
        r.point(t + 16, json);
    }
    r.0
}

#[test]
fn a_vector_shared_by_many_nodes_is_read_once() {
    let _one = counting::serial();
    // 5000 nodes pointing at one document of 180 KB (a 420 KB snapshot took 902 MB and 1.6 s to
    // open: the document was copied per node), and at one list of 20,000 manifest refs (a 720 KB
    // snapshot took 4.8 GB and 38 s: the list was read per node). Now each is read when a read
    // needs it, and the refs of the last array looked at are kept; an array may have 10,000.
    for (nodes, doc, refs) in [(5000, 180_000, 1), (5000, 200, 10_000), (5000, 200, 20_000)] {
        let bytes = shared_snapshot(nodes, doc, refs);
        let ((store, _), time, peak) = measured(|| open(repo(&bytes, None), &[], &[]));
        eprintln!(
            "{nodes} nodes sharing a document of {doc} bytes and {refs} manifest refs: a snapshot of {} bytes, opened in {time:?}, {peak} bytes at the most",
            bytes.len()
        );
        let store = store.unwrap();
        // The snapshot is held (and was copied on its way: the fake server's answer, the
        // header's payload): a few times its size, and nothing per node beyond 64 bytes.
        assert!(
            peak < 5 * bytes.len() + 64 * nodes,
            "{peak} bytes for a snapshot of {}",
            bytes.len()
        );
        assert!(time < std::time::Duration::from_secs(1), "{time:?}");
        let ((), time, peak) = measured(|| {
            for i in (0..nodes).step_by(97) {
                let key = format!("a{i:06}/zarr.json");
                let got = futures_executor::block_on(store.get(&key))
                    .unwrap()
                    .unwrap();
                assert_eq!(got.len(), doc.max(got.len()));
                // Chunk 0: the first manifest ref covers it (it has no file here, so the read
                // fails, naming it); chunk 1: none does, every ref is looked at, and it is the
                // fill value. Past 10,000 refs, the array's chunks are refused, naming the limit
                // and the snapshot.
                let err =
                    futures_executor::block_on(store.get(&format!("a{i:06}/c/0"))).unwrap_err();
                let got = futures_executor::block_on(store.get(&format!("a{i:06}/c/1")));
                if refs > 10_000 {
                    assert_eq!(err.kind, ErrorKind::Metadata);
                    assert!(
                        err.message.contains(&format!("{BASE}/snapshots/{ID}"))
                            && err.message.contains(&format!("array \"/a{i:06}\""))
                            && err
                                .message
                                .contains("20000 manifest refs, more than the 10000"),
                        "{}",
                        err.message
                    );
                    assert!(got.is_err());
                    continue;
                }
                assert!(err.message.contains("/manifests/"), "{}", err.message);
                assert_eq!(got.unwrap(), None);
            }
        });
        eprintln!("  52 documents and 104 chunk lookups in {time:?}, {peak} bytes at the most");
        assert!(peak < 4 * doc + (1 << 20), "{peak}");
    }
}

/// A snapshot of `n` arrays, each with its own document and manifest ref, as icechunk writes them.
fn many_nodes(n: usize) -> Vec<u8> {
    let doc = array_json(4).into_bytes();
    let nodes: Vec<Vec<F>> = (0..n)
        .map(|i| {
            let extents = [0u32.to_le_bytes(), 4u32.to_le_bytes()].concat();
            vec![
                F::Scalar((i as u64).to_le_bytes().to_vec()),
                F::Bytes(format!("/g{:03}/a{i:07}", i / 1000).into_bytes()),
                F::Bytes(doc.clone()),
                F::Scalar(vec![1]),
                F::Table(vec![
                    F::Structs(vec![]),
                    F::Absent,
                    F::Tables(vec![vec![
                        F::Scalar(vec![0; 12]),
                        F::Structs(vec![extents]),
                    ]]),
                ]),
            ]
        })
        .collect();
    build(vec![F::Scalar(vec![0; 12]), F::Absent, F::Tables(nodes)])
}

/// The platform of a browser as the core sees it, played: every look at the clock is 10 ms after
/// the last (so every `yield_if_busy` yields), and the turns given to the event loop are counted.
#[derive(Default)]
struct Turns {
    clock: std::cell::Cell<f64>,
    turns: std::cell::Cell<usize>,
}

impl zarr_wasm::host::Host for Turns {
    fn now_ms(&self) -> f64 {
        self.clock.set(self.clock.get() + 10.0);
        self.clock.get()
    }
    fn next_turn(&self) -> futures_util::future::LocalBoxFuture<'static, ()> {
        self.turns.set(self.turns.get() + 1);
        Box::pin(std::future::ready(()))
    }
}

#[test]
fn a_large_snapshot_is_decompressed_and_walked_in_turns_of_the_event_loop() {
    // 200,000 nodes (the most), zstd-compressed as icechunk writes them: opening it took about
    // 300 ms in one piece (natively, more in wasm); the decompression and the pass over the nodes
    // now give the event loop its turns.
    let host = Rc::new(Turns::default());
    zarr_wasm::host::install(host.clone());
    let payload = many_nodes(200_000);
    let compressed = zstd::encode_all(&payload[..], 3).unwrap();
    let mut files = repo(&payload, None);
    let mut snapshot = file(1, &compressed);
    snapshot[38] = 1; // compression: zstd
    files.insert(format!("{BASE}/snapshots/{ID}"), snapshot);
    let (store, _) = open(files, &[], &[]);
    let store = store.unwrap();
    let turns = host.turns.get();
    // One turn a block of the decompression (at most 128 KiB each) and one every 1,024 nodes.
    let blocks = payload.len().div_ceil(128 << 10);
    assert!(
        turns >= blocks + 195,
        "{turns} turns for {blocks} blocks of {} bytes and 200,000 nodes",
        payload.len()
    );
    let got = futures_executor::block_on(store.get("g123/a0123456/zarr.json")).unwrap();
    assert!(got.is_some());
}

#[test]
fn a_snapshot_of_many_nodes_opens_in_one_cheap_pass_up_to_a_stated_count() {
    let _one = counting::serial();
    // 200,000 nodes: 1.55 s and 336 MB to open before (natively).
    let bytes = many_nodes(200_000);
    let ((store, _), time, peak) = measured(|| open(repo(&bytes, None), &[], &[]));
    eprintln!(
        "200,000 nodes: a snapshot of {} bytes, opened in {time:?}, {peak} bytes at the most",
        bytes.len()
    );
    let store = store.unwrap();
    assert!(peak < 4 * bytes.len() + 64 * 200_000, "{peak}");
    assert!(time < std::time::Duration::from_secs(1), "{time:?}");
    let got = futures_executor::block_on(store.get("g123/a0123456/zarr.json")).unwrap();
    assert!(got.is_some());
    let names = futures_executor::block_on(store.list_dir("g007"))
        .unwrap()
        .unwrap();
    assert_eq!(names.len(), 1000);
    // Past the most a snapshot may have, it is refused at once, naming the limit.
    let mut r = Raw(vec![0; 4]);
    let root_vt = r.vtable(20, &[4, 0, 16]);
    let root = r.table(root_vt, 20);
    r.point(0, root);
    let (list, _) = r.slots(200_001);
    r.point(root + 16, list);
    let ((store, _), time, _) = measured(|| open(repo(&r.0, None), &[], &[]));
    let err = store.err().unwrap();
    assert_eq!(err.kind, ErrorKind::Metadata);
    assert!(
        err.message.contains("200001 nodes, more than the 200000")
            && err.message.contains(&format!("{BASE}/snapshots/{ID}")),
        "{}",
        err.message
    );
    assert!(time < std::time::Duration::from_millis(500), "{time:?}");
}

#[test]
fn a_manifest_out_of_order_is_an_error_naming_it_not_fill_values() {
    let _one = counting::serial();
    // Chunks 1, 2, 0: a binary search for chunk 0 missed it, and it read as the fill value.
    let refs = [1, 2, 0]
        .iter()
        .map(|&i| virtual_ref(i, "http://h/ok/c/v.bin", 0, 1))
        .collect();
    let (store, _) = open(
        repo(&snapshot(3), Some(&manifest(refs))),
        &["http://h/ok/c/"],
        &[],
    );
    let store = store.unwrap();
    for i in 0..3 {
        let err = futures_executor::block_on(store.get(&format!("arr/c/{i}"))).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Metadata, "{}", err.message);
        assert!(
            err.message.contains(&format!("{BASE}/manifests/{ID}"))
                && err.message.contains("the manifest is not sorted"),
            "{}",
            err.message
        );
    }
    // In order, every chunk is read; checking the order of 200,000 references is one pass, once.
    let n = 200_000;
    let refs = (0..n as u32)
        .map(|i| {
            vec![
                F::Structs(vec![i.to_le_bytes().to_vec()]),
                F::Bytes(vec![i as u8]),
            ]
        })
        .collect();
    let (store, _) = open(repo(&snapshot(n), Some(&manifest(refs))), &[], &[]);
    let store = store.unwrap();
    let (got, first, _) = measured(|| futures_executor::block_on(store.get("arr/c/7")));
    assert_eq!(got.unwrap(), Some(vec![7]));
    let (got, next, _) = measured(|| futures_executor::block_on(store.get("arr/c/199999")));
    assert_eq!(got.unwrap(), Some(vec![199_999u32 as u8]));
    eprintln!("a manifest of {n} references: the first lookup {first:?}, the next {next:?}");
    assert!(first < std::time::Duration::from_secs(1), "{first:?}");
}

#[test]
fn a_ref_file_of_millions_of_lists_is_refused_promptly() {
    let _one = counting::serial();
    // [[0],[0],...]: 3 million one-element lists, 12 MB (1.1 s and 1.2 GB before, read whole
    // without a bound); and 15,000 of them, 60 KB, within the bound on a ref file's bytes.
    for (lists, says) in [
        (3_000_000, "more than the 65536 a ref file may have"),
        (15_000, "more than 64 lists and objects"),
    ] {
        let mut text = b"[".to_vec();
        text.extend(b"[0],".repeat(lists));
        text.extend(b"[0]]");
        let mut files = repo(&snapshot(1), None);
        files.insert(format!("{BASE}/refs/branch.main/ref.json"), text);
        let ((store, _), time, peak) = measured(|| open(files, &[], &[]));
        let err = store.err().unwrap();
        eprintln!(
            "a ref.json of {lists} lists: refused in {time:?}, {peak} bytes at the most: {}",
            err.message
        );
        assert_eq!(err.kind, ErrorKind::Metadata);
        assert!(
            err.message
                .contains(&format!("{BASE}/refs/branch.main/ref.json"))
                && err.message.contains(says)
                && err
                    .message
                    .contains(r#"a ref file is {"snapshot": "<id>"}"#),
            "{}",
            err.message
        );
        assert!(time < std::time::Duration::from_millis(100), "{time:?}");
        // The file itself and its copy on the way; a few lists.
        assert!(peak < 3 * 4 * lists + (1 << 20), "{peak}");
    }
}
