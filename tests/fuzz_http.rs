//! Fuzzing of the HTTP store, as a property test: fixture arrays (plain, sharded with the index at
//! either end, sparse, nested, v2) are read through `HttpStore` from a fuzzing server that answers
//! each request with a random quirk: error statuses, network failures, a whole value for a range,
//! bodies a byte short or long, lying, missing or malformed Content-Range headers, 416, HEAD
//! without a length, empty bodies, and bodies far larger than asked for. Every read must give the
//! exact values (those of a clean read) or an error: never wrong values, never a panic, never more
//! than 5 s, never a peak allocation beyond a bound of the array's size.
//!
//! `cargo test --test fuzz_http` runs a short round (FUZZ_ITERS, default 1500). Long runs:
//! `FUZZ_ITERS=200000 FUZZ_SEED=7 cargo test --release --test fuzz_http -- --nocapture`.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::counting::{peak_since, start_peak, CountingAllocator};

use async_trait::async_trait;
use common::{DirStore, Rng};
use futures_executor::block_on;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};
use zarr_wasm::indexing::selection::DimSelection;
use zarr_wasm::store::http::{
    HttpClient, HttpFailure, HttpOptions, HttpRequest, HttpResponse, HttpStore, Method,
    SuffixRanges,
};
use zarr_wasm::{open, Array, Node};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// What the fuzzing server does with one request.
#[derive(Debug, Clone, Copy)]
enum Quirk {
    Normal,
    Status(u16),
    NetworkFailure,
    WholeForRange,
    /// A whole answer of which the client kept only the part wanted, as `FetchClient` does.
    WholeKeptForRange,
    ShortBody,
    LongBody,
    ShiftedContentRange,
    WrongTotal,
    NoContentRange,
    GarbageContentRange,
    Unsatisfiable,
    HeadWithoutLength,
    WrongLength,
    EmptyBody,
    Enormous,
}

const QUIRKS: [Quirk; 20] = [
    Quirk::Status(500),
    Quirk::Status(503),
    Quirk::Status(429),
    Quirk::Status(408),
    Quirk::Status(400),
    Quirk::Status(401),
    Quirk::Status(418),
    Quirk::Status(302),
    Quirk::NetworkFailure,
    Quirk::WholeForRange,
    Quirk::WholeKeptForRange,
    Quirk::ShortBody,
    Quirk::LongBody,
    Quirk::ShiftedContentRange,
    Quirk::WrongTotal,
    Quirk::NoContentRange,
    Quirk::GarbageContentRange,
    Quirk::Unsatisfiable,
    Quirk::HeadWithoutLength,
    Quirk::WrongLength,
];

/// Serves the fixture files below `root`, answering a share of requests with a quirk.
struct FuzzServer {
    root: std::path::PathBuf,
    rng: RefCell<Rng>,
    /// Chance in 100 that a request gets a quirk.
    quirk_percent: u64,
    quirks_served: RefCell<Vec<Quirk>>,
}

impl FuzzServer {
    fn quirk(&self) -> Quirk {
        let mut rng = self.rng.borrow_mut();
        if rng.next() % 100 >= self.quirk_percent {
            return Quirk::Normal;
        }
        match rng.below(QUIRKS.len() + 2) {
            i if i < QUIRKS.len() => QUIRKS[i],
            i if i == QUIRKS.len() => Quirk::EmptyBody,
            _ => Quirk::Enormous,
        }
    }
}

#[async_trait(?Send)]
impl HttpClient for FuzzServer {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpFailure> {
        let key = request.url.trim_start_matches("http://fuzz/");
        let quirk = self.quirk();
        self.quirks_served.borrow_mut().push(quirk);
        let Ok(value) = std::fs::read(self.root.join(key)) else {
            return Ok(HttpResponse {
                status: 404,
                ..HttpResponse::default()
            });
        };
        let total = value.len() as u64;
        let head = request.method == Method::Head;
        let ranged = request.range.map(|r| r.resolve(total));
        let partial = |r: std::ops::Range<u64>| HttpResponse {
            status: 206,
            body: value[r.start as usize..r.end as usize].to_vec(),
            content_range: Some(format!("bytes {}-{}/{total}", r.start, r.end.max(1) - 1)),
            content_length: Some(r.end - r.start),
            cut: false,
        };
        let whole = HttpResponse {
            status: 200,
            body: if head { Vec::new() } else { value.clone() },
            content_range: None,
            content_length: Some(total),
            cut: false,
        };
        let normal = match &ranged {
            Some(r) if r.start < r.end => partial(r.clone()),
            Some(_) => HttpResponse {
                status: 416,
                content_range: Some(format!("bytes */{total}")),
                ..HttpResponse::default()
            },
            None => whole.clone(),
        };
        let answer = match quirk {
            Quirk::Normal => normal,
            Quirk::Status(status) => HttpResponse {
                status,
                body: b"no".to_vec(),
                ..HttpResponse::default()
            },
            Quirk::NetworkFailure => {
                return Err(HttpFailure {
                    message: "connection reset by the fuzzer".into(),
                    retryable: true,
                    aborted: false,
                    refused: false,
                })
            }
            Quirk::WholeForRange => whole,
            Quirk::WholeKeptForRange => match request.keep {
                Some(keep) if !head => HttpResponse {
                    body: keep.cut(&value).to_vec(),
                    cut: true,
                    ..whole
                },
                _ => whole,
            },
            Quirk::ShortBody => {
                let mut r = normal;
                r.body.pop();
                r
            }
            Quirk::LongBody => {
                let mut r = normal;
                r.body.push(0xAB);
                r
            }
            Quirk::ShiftedContentRange => match &ranged {
                Some(r) if r.end > r.start => HttpResponse {
                    content_range: Some(format!("bytes {}-{}/{total}", r.start + 1, r.end)),
                    ..normal
                },
                _ => normal,
            },
            Quirk::WrongTotal => match &ranged {
                Some(r) if r.end > r.start => HttpResponse {
                    content_range: Some(format!("bytes {}-{}/{}", r.start, r.end - 1, total + 7)),
                    ..normal
                },
                _ => normal,
            },
            Quirk::NoContentRange => HttpResponse {
                content_range: None,
                ..normal
            },
            Quirk::GarbageContentRange => HttpResponse {
                content_range: Some("bytes banana".into()),
                ..normal
            },
            Quirk::Unsatisfiable => HttpResponse {
                status: 416,
                content_range: Some(format!("bytes */{total}")),
                ..HttpResponse::default()
            },
            Quirk::HeadWithoutLength => HttpResponse {
                content_length: None,
                ..normal
            },
            Quirk::WrongLength => HttpResponse {
                content_length: Some(total / 2 + 1),
                ..normal
            },
            Quirk::EmptyBody => HttpResponse {
                body: Vec::new(),
                ..normal
            },
            // Far more than anything asked for: a client passing it on must be stopped.
            Quirk::Enormous => HttpResponse {
                body: vec![0; 8 << 20],
                content_length: None,
                ..normal
            },
        };
        Ok(answer)
    }

    async fn sleep(&self, _ms: u32) {}
}

/// A fixture array, its clean read, and selections to try.
struct Target {
    store: &'static str,
    path: &'static str,
    whole: Vec<u8>,
    shape: Vec<u64>,
}

const TARGETS: [(&str, &str); 9] = [
    ("v3.zarr", "dtypes/uint16"),
    ("v3.zarr", "layouts/many_chunks"),
    ("codecs.zarr", "sharding/index_end"),
    ("codecs.zarr", "sharding/index_start"),
    ("codecs.zarr", "sharding/sparse"),
    ("codecs.zarr", "sharding/nested"),
    ("codecs.zarr", "vlen/utf8_sharded"),
    ("v2.zarr", "compressors/zlib"),
    ("tensorstore.zarr", "uint16_sharded_start"),
];

fn open_array(
    store: Rc<dyn zarr_wasm::store::ReadableStore>,
    path: &str,
) -> zarr_wasm::Result<Array> {
    match block_on(open(store, path))? {
        Node::Array(a) => Ok(a),
        Node::Group(_) => panic!("{path} is a group"),
    }
}

/// The bytes of a result, items included, for comparisons.
fn flat(data: &zarr_wasm::ArrayData) -> Vec<u8> {
    match &data.items {
        Some(items) => data
            .bytes
            .chunks(8)
            .flat_map(|h| {
                let item = items.resolve(h).unwrap_or_default();
                (item.len() as u32)
                    .to_le_bytes()
                    .into_iter()
                    .chain(item.iter().copied())
            })
            .collect(),
        None => data.bytes.clone(),
    }
}

fn targets() -> Vec<Target> {
    TARGETS
        .iter()
        .map(|&(store, path)| {
            let arr = open_array(Rc::new(DirStore::fixtures(store)), path)
                .unwrap_or_else(|e| panic!("{store}/{path}: {e}"));
            let data = block_on(arr.get(&[])).unwrap();
            Target {
                store,
                path,
                whole: flat(&data),
                shape: data.shape,
            }
        })
        .collect()
}

/// A random box of the array: a slice per dimension.
fn random_box(rng: &mut Rng, shape: &[u64]) -> Vec<(u64, u64)> {
    shape
        .iter()
        .map(|&n| {
            let start = rng.below(n as usize) as u64;
            let stop = start + 1 + rng.below((n - start) as usize) as u64;
            (start, stop)
        })
        .collect()
}

#[test]
fn quirky_servers_give_exact_values_or_errors() {
    let iterations: usize = std::env::var("FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let seed: u64 = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20261124);
    let targets = targets();
    let mut rng = Rng(seed | 1);
    let (mut exact, mut errors) = (0usize, 0usize);
    for i in 0..iterations {
        let t = &targets[rng.below(targets.len())];
        let server = FuzzServer {
            root: common::fixture_path(t.store),
            rng: RefCell::new(Rng(rng.next() | 1)),
            quirk_percent: [5, 20, 50][rng.below(3)],
            quirks_served: RefCell::default(),
        };
        let options = HttpOptions {
            suffix_ranges: [
                SuffixRanges::Ask,
                SuffixRanges::Ask,
                SuffixRanges::HeadFirst,
                SuffixRanges::Never,
            ][rng.below(4) as usize],
            retries: rng.below(3) as u32,
            ..HttpOptions::default()
        };
        let store: Rc<dyn zarr_wasm::store::ReadableStore> =
            Rc::new(HttpStore::with_options("http://fuzz/", server, options));
        let whole_read = rng.below(3) == 0;
        let region = random_box(&mut rng, &t.shape);
        let base = start_peak();
        let start = Instant::now();
        let result = open_array(store, t.path).and_then(|arr| {
            let selection: Vec<DimSelection> = if whole_read {
                Vec::new()
            } else {
                region
                    .iter()
                    .map(|&(a, b)| DimSelection::Slice {
                        start: Some(a as i64),
                        stop: Some(b as i64),
                        step: None,
                    })
                    .collect()
            };
            block_on(arr.get(&selection))
        });
        let elapsed = start.elapsed();
        let peak = peak_since(base);
        let what = format!("iteration {i} (seed {seed}): {}/{}", t.store, t.path);
        assert!(elapsed < Duration::from_secs(5), "{what}: took {elapsed:?}");
        // Room for the largest body a quirk sends (8 MiB), the array a few times, and the rest.
        let bound = (16 << 20) + 4 * t.whole.len();
        assert!(peak <= bound, "{what}: peak allocation {peak} > {bound}");
        match result {
            Ok(data) => {
                let want = if whole_read {
                    t.whole.clone()
                } else {
                    let clean = open_array(Rc::new(DirStore::fixtures(t.store)), t.path).unwrap();
                    let selection: Vec<DimSelection> = region
                        .iter()
                        .map(|&(a, b)| DimSelection::Slice {
                            start: Some(a as i64),
                            stop: Some(b as i64),
                            step: None,
                        })
                        .collect();
                    flat(&block_on(clean.get(&selection)).unwrap())
                };
                assert!(
                    flat(&data) == want,
                    "{what}: wrong values read without an error"
                );
                exact += 1;
            }
            Err(e) => {
                assert!(!e.message.is_empty(), "{what}: an error without a message");
                errors += 1;
            }
        }
    }
    println!("fuzz_http: {iterations} reads, {exact} exact, {errors} errors");
    assert!(exact > 0 && errors > 0, "both outcomes happen");
}
