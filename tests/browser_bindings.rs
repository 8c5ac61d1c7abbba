//! The binding layer and the async store and fetch code in a real browser: a wasm-bindgen-test
//! suite, run by `wasm-pack test --headless --chrome` (Debian's chromium and chromedriver).
//! tests/node/wasm-pack.test.mjs starts the fixture server and runs it, giving the server's URL
//! at build time (`ZARR_WASM_TEST_SERVER`); the README's test command runs that.
//!
//! What only a browser has is exercised here from Rust: `fetch` with Range headers and CORS,
//! `AbortSignal`, promises driven by the browser's event loop, and typed arrays handed to JS.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Object, Promise, Reflect, Uint16Array, Uint8Array};
use wasm_bindgen::convert::TryFromJsValue;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use zarr_wasm::bindings::{FetchClient, WasmArray, WasmBytesCodec, WasmStore};
use zarr_wasm::store::http::HttpStore;
use zarr_wasm::store::{ByteRange, ReadableStore};

wasm_bindgen_test_configure!(run_in_browser);

/// What the module's start function does (the runner calls no start function): the JS host, so
/// that long reads give the browser's event loop its turns, as in the npm package.
fn start() {
    zarr_wasm::bindings::install();
}

/// The fixture server (tests/support/server.mjs), as the test that runs this suite started it.
const SERVER: &str = env!("ZARR_WASM_TEST_SERVER");

fn fixtures(store: &str) -> String {
    format!("{SERVER}/tests/fixtures/{store}")
}

/// The bytes at `url`, fetched by the browser.
async fn fetch_bytes(url: &str) -> Vec<u8> {
    let window = web_sys::window().expect("a window");
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .expect("fetch")
        .dyn_into()
        .expect("a Response");
    assert!(response.ok(), "{url}: {}", response.status());
    let body = JsFuture::from(response.array_buffer().expect("a body"))
        .await
        .expect("the body");
    Uint8Array::new(&body).to_vec()
}

/// A fixture array's expected bytes, from its manifest (`v3.expected.json`).
async fn expected(store: &str, path: &str) -> Vec<u8> {
    let manifest: serde_json::Value =
        serde_json::from_slice(&fetch_bytes(&fixtures("v3.expected.json")).await).unwrap();
    let entry = manifest["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["store"] == store && e["path"] == path)
        .unwrap_or_else(|| panic!("{store}/{path} is in the manifest"));
    fetch_bytes(&fixtures(entry["data"].as_str().unwrap())).await
}

/// The requests the server saw since the last `clear_log`: (method, path, Range header).
async fn requests() -> Vec<(String, String, Option<String>)> {
    let log: serde_json::Value =
        serde_json::from_slice(&fetch_bytes(&format!("{SERVER}/__log")).await).unwrap();
    log.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["method"].as_str().unwrap().to_string(),
                r["path"].as_str().unwrap().to_string(),
                r["range"].as_str().map(String::from),
            )
        })
        .collect()
}

async fn clear_log() {
    fetch_bytes(&format!("{SERVER}/__log/clear")).await;
}

async fn settle(promise: Promise) -> Result<JsValue, JsValue> {
    JsFuture::from(promise).await
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &key.into()).unwrap()
}

/// Opens `path` of the store at `url` through the JS API's objects.
async fn open_array(url: &str, path: &str) -> WasmArray {
    let store = WasmStore::fetch(url.into(), JsValue::UNDEFINED).expect("a store");
    let opened = settle(store.open(path.into(), JsValue::UNDEFINED, JsValue::NULL))
        .await
        .unwrap_or_else(|e| panic!("open {path}: {e:?}"));
    array_of(opened)
}

/// The array of what `WasmStore::open` resolves to: `[node, documents the opening read]`.
fn array_of(opened: JsValue) -> WasmArray {
    let node = Reflect::get_u32(&opened, 0).expect("[node, documents]");
    let documents = Reflect::get_u32(&opened, 1).expect("[node, documents]");
    assert!(Array::is_array(&documents), "the opening's documents");
    WasmArray::try_from_js_value(node).unwrap_or_else(|_| panic!("an array"))
}

#[wasm_bindgen_test]
async fn the_http_store_fetches_values_ranges_and_suffixes() {
    start();
    let store = HttpStore::new(&fixtures("codecs.zarr"), FetchClient::default());
    let shard_key = "sharding/index_end/c/0/0";
    let whole = store.get(shard_key).await.unwrap().expect("the shard");
    assert_eq!(
        whole,
        fetch_bytes(&fixtures(&format!("codecs.zarr/{shard_key}"))).await
    );
    let span = ByteRange::Span {
        offset: 10,
        length: 20,
    };
    let part = store.get_range(shard_key, span).await.unwrap().unwrap();
    assert_eq!(part, whole[10..30]);
    let suffix = store
        .get_range(shard_key, ByteRange::Suffix(100))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(suffix, whole[whole.len() - 100..]);
    assert_eq!(store.get("sharding/index_end/c/9/9").await.unwrap(), None);
}

#[wasm_bindgen_test]
async fn an_array_reads_into_typed_arrays_through_the_js_objects() {
    start();
    let arr = open_array(&fixtures("v3.zarr"), "dtypes/uint16").await;
    let info = arr.info().unwrap();
    let shape: Vec<f64> = Array::from(&get(&info, "shape"))
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(shape, [13.0, 11.0]);
    assert_eq!(get(&info, "dtype"), "uint16");
    let result = settle(arr.get(JsValue::NULL, JsValue::UNDEFINED))
        .await
        .expect("the read");
    let data: Uint16Array = get(&result, "data").dyn_into().expect("a Uint16Array");
    let bytes = Uint8Array::new_with_byte_offset_and_length(
        &data.buffer(),
        data.byte_offset(),
        data.byte_length(),
    )
    .to_vec();
    assert_eq!(bytes, expected("v3.zarr", "dtypes/uint16").await);
}

#[wasm_bindgen_test]
async fn one_element_of_a_shard_is_its_index_and_one_inner_chunk_by_range() {
    start();
    let arr = open_array(&fixtures("codecs.zarr"), "sharding/index_end").await;
    clear_log().await;
    // [0, 0] selects one element: both axes are integers.
    let one_element = Array::of2(&0.into(), &0.into());
    let result = settle(arr.get(one_element.into(), JsValue::UNDEFINED))
        .await
        .expect("the read");
    let data: Uint16Array = get(&result, "data").dyn_into().unwrap();
    let whole = expected("codecs.zarr", "sharding/index_end").await;
    assert_eq!(data.get_index(0), u16::from_le_bytes([whole[0], whole[1]]));
    let chunk_requests: Vec<_> = requests()
        .await
        .into_iter()
        .filter(|(_, path, _)| path.contains("/c/"))
        .collect();
    assert_eq!(chunk_requests.len(), 2, "{chunk_requests:?}");
    assert!(
        chunk_requests[0]
            .2
            .as_deref()
            .is_some_and(|r| r.starts_with("bytes=-")),
        "the index by a suffix range first: {chunk_requests:?}"
    );
    assert!(
        chunk_requests[1].2.is_some(),
        "then the inner chunk by a range: {chunk_requests:?}"
    );
}

#[wasm_bindgen_test]
async fn an_abort_signal_ends_its_read_with_an_abort_error() {
    start();
    // The server answers this path's requests 3 s late.
    let arr = open_array(
        &format!("{SERVER}/__slow/3000/tests/fixtures/v3.zarr"),
        "dtypes/uint16",
    )
    .await;
    let controller = web_sys::AbortController::new().unwrap();
    let options = Object::new();
    Reflect::set(&options, &"signal".into(), &controller.signal()).unwrap();
    let read = arr.get(JsValue::NULL, options.into());
    let abort = Closure::once_into_js(move || controller.abort());
    web_sys::window()
        .unwrap()
        .set_timeout_with_callback_and_timeout_and_arguments_0(abort.unchecked_ref(), 50)
        .unwrap();
    let started = js_sys::Date::now();
    let err = settle(read).await.expect_err("the read is aborted");
    let elapsed = js_sys::Date::now() - started;
    assert_eq!(get(&err, "name"), "AbortError", "{err:?}");
    assert!(
        elapsed < 2500.0,
        "the abort ended the read at once ({elapsed} ms)"
    ); // The requests themselves were cancelled: the server sees their connections closed.
    let mut seen = false;
    for _ in 0..40 {
        if chunk_request_aborted().await {
            seen = true;
            break;
        }
        sleep(50).await;
    }
    assert!(seen, "the server saw a chunk request aborted");
}

/// Whether the server's log has a chunk request whose connection the client closed.
async fn chunk_request_aborted() -> bool {
    let log: serde_json::Value =
        serde_json::from_slice(&fetch_bytes(&format!("{SERVER}/__log")).await).unwrap();
    log.as_array()
        .unwrap()
        .iter()
        .any(|r| r["path"].as_str().unwrap_or("").contains("/c/") && r["aborted"] == true)
}

async fn sleep(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

#[wasm_bindgen_test]
async fn failures_are_errors_named_by_kind() {
    start();
    let store = WasmStore::fetch(fixtures("v3.zarr"), JsValue::UNDEFINED).unwrap();
    let missing = settle(store.open("no/such/array".into(), JsValue::UNDEFINED, JsValue::NULL))
        .await
        .expect_err("nothing there");
    assert_eq!(get(&missing, "name"), "NotFoundError");
    let message = get(&missing, "message").as_string().unwrap();
    assert!(message.contains("no/such/array"), "{message}");
    let arr = open_array(&fixtures("v3.zarr"), "dtypes/uint16").await;
    let outside = Array::of2(&100.into(), &0.into());
    let err = settle(arr.get(outside.into(), JsValue::UNDEFINED))
        .await
        .expect_err("out of bounds");
    assert_eq!(get(&err, "name"), "SelectionError", "{err:?}");
}

#[wasm_bindgen_test]
async fn a_codec_on_its_own_decodes_a_writers_chunk() {
    start();
    // codecs.zarr/zstd/level3's chunk (0, 0): 100 x 160 uint16 by zarr-python, zstd level 3.
    let encoded = fetch_bytes(&fixtures("codecs.zarr/zstd/level3/c/0/0")).await;
    let zstd = WasmBytesCodec::new(r#"{"name": "zstd", "configuration": {"level": 3}}"#, None)
        .expect("zstd builds");
    let decoded = zstd
        .decode(encoded.clone(), 0.0, "c/0/0")
        .expect("it decodes");
    let whole = expected("codecs.zarr", "zstd/level3").await;
    // The chunk's first row is the array's first 160 values.
    assert_eq!(decoded.len(), 100 * 160 * 2);
    assert_eq!(decoded[..320], whole[..320]);
    let err = zstd
        .decode(encoded[..encoded.len() / 2].to_vec(), 0.0, "c/0/0")
        .expect_err("half a frame");
    let message = get(&err, "message").as_string().unwrap();
    assert_eq!(get(&err, "name"), "CodecError");
    assert!(
        message.contains("zstd") && message.contains("c/0/0"),
        "{message}"
    );
    let unknown = WasmBytesCodec::new(r#"{"name": "snappy"}"#, None)
        .err()
        .unwrap();
    assert_eq!(get(&unknown, "name"), "UnsupportedError");
}

#[wasm_bindgen_test]
async fn a_store_written_in_js_is_read_with_its_ranges_and_progress() {
    start();
    // A JS object with get and getRange over fetch, as a user writes one; its calls are kept.
    let make_store = js_sys::Function::new_with_args(
        "base",
        r#"
        const calls = [];
        const take = async (r) => (r.status === 404 ? undefined : new Uint8Array(await r.arrayBuffer()));
        return {
          calls,
          get: (key, options) => (calls.push(["get", key]), fetch(`${base}/${key}`, { signal: options?.signal }).then(take)),
          getRange: (key, range, options) => {
            calls.push(["getRange", key]);
            const header = range.suffixLength !== undefined
              ? `bytes=-${range.suffixLength}`
              : `bytes=${range.offset}-${range.offset + range.length - 1}`;
            return fetch(`${base}/${key}`, { headers: { Range: header }, signal: options?.signal }).then(take);
          },
        };
        "#,
    );
    let js_store = make_store
        .call1(&JsValue::NULL, &fixtures("codecs.zarr").into())
        .unwrap();
    let store = WasmStore::js(js_store.clone(), "a JS store".into(), JsValue::UNDEFINED).unwrap();
    let node = settle(store.open(
        "sharding/index_end".into(),
        JsValue::UNDEFINED,
        JsValue::NULL,
    ))
    .await
    .expect("open");
    let arr = array_of(node);
    let reports = Array::new();
    let on_progress = {
        let reports = reports.clone();
        Closure::<dyn Fn(JsValue)>::new(move |p: JsValue| {
            reports.push(&p);
        })
    };
    let options = Object::new();
    Reflect::set(&options, &"onProgress".into(), on_progress.as_ref()).unwrap();
    let one_element = Array::of2(&0.into(), &0.into());
    let result = settle(arr.get(one_element.into(), options.into()))
        .await
        .expect("the read");
    let data: Uint16Array = get(&result, "data").dyn_into().unwrap();
    let whole = expected("codecs.zarr", "sharding/index_end").await;
    assert_eq!(data.get_index(0), u16::from_le_bytes([whole[0], whole[1]]));
    let calls: Vec<String> = Array::from(&get(&js_store, "calls"))
        .iter()
        .map(|c| Array::from(&c).join(" ").into())
        .collect();
    let ranged = calls
        .iter()
        .filter(|c| c.starts_with("getRange sharding/index_end/c/"))
        .count();
    assert_eq!(
        ranged, 2,
        "the shard's index and one inner chunk by getRange: {calls:?}"
    );
    assert!(reports.length() > 0, "progress was reported");
    let last = reports.get(reports.length() - 1);
    assert_eq!(get(&last, "chunksDone"), get(&last, "chunksTotal"));
}
