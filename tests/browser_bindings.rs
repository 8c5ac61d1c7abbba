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
use zarr_wasm::bindings::{FetchClient, WasmArray, WasmStore};
use zarr_wasm::store::http::HttpStore;
use zarr_wasm::store::{ByteRange, ReadableStore};

wasm_bindgen_test_configure!(run_in_browser);

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
    let node = settle(store.open(path.into(), JsValue::UNDEFINED, JsValue::NULL))
        .await
        .unwrap_or_else(|e| panic!("open {path}: {e:?}"));
    WasmArray::try_from_js_value(node).unwrap_or_else(|_| panic!("{path} is an array"))
}

#[wasm_bindgen_test]
async fn the_http_store_fetches_values_ranges_and_suffixes() {
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
    );
}

#[wasm_bindgen_test]
async fn failures_are_errors_named_by_kind() {
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
