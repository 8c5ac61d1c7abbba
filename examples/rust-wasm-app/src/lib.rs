//! zarr-wasm's core in a Rust app of its own: a store of the app's (here in memory; an app in a
//! browser would implement `ReadableStore` over its own fetch, or use `HttpStore` with an
//! `HttpClient` of its own), an array opened and read, with no JavaScript involved.

use std::future::Future;
use std::pin::pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::ReadableStore;
use zarr_wasm::{open, DimSelection, Node, Result};

/// The value the demo array holds at (`row`, `col`).
pub fn value_at(row: u64, col: u64) -> u16 {
    (row * 100 + col) as u16
}

/// A 4 x 6 uint16 Zarr v3 array in chunks of 2 x 3, written here as any writer would.
pub fn demo_store() -> MemoryStore {
    let mut store = MemoryStore::new();
    let metadata = r#"{
        "zarr_format": 3, "node_type": "array", "shape": [4, 6], "data_type": "uint16",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]
    }"#;
    store.insert("demo/zarr.json", metadata.as_bytes());
    for chunk_row in 0..2 {
        for chunk_col in 0..2 {
            let mut bytes = Vec::new();
            for row in chunk_row * 2..chunk_row * 2 + 2 {
                for col in chunk_col * 3..chunk_col * 3 + 3 {
                    bytes.extend_from_slice(&value_at(row, col).to_le_bytes());
                }
            }
            store.insert(format!("demo/c/{chunk_row}/{chunk_col}"), bytes);
        }
    }
    store
}

/// Opens the array at `path` of `store` and sums a row of it.
pub async fn row_sum(store: Rc<dyn ReadableStore>, path: &str, row: u64) -> Result<u64> {
    let Node::Array(array) = open(store, path).await? else {
        return Err(zarr_wasm::ZarrError::metadata(path, "expected an array"));
    };
    let data = array
        .get(&[DimSelection::Index(row as i64), DimSelection::All])
        .await?;
    Ok(data
        .bytes
        .chunks_exact(2)
        .map(|v| u64::from(u16::from_le_bytes([v[0], v[1]])))
        .sum())
}

/// Runs a future that never waits on anything outside it (a store in memory) to its end. A
/// future that waits on something else (a timer, a network store) would never be woken here: it
/// panics rather than spin. An app with real I/O runs the core's futures on its executor
/// (`wasm-bindgen-futures` in a browser).
pub fn run_ready<F: Future>(future: F) -> F::Output {
    let woken = Arc::new(Woken(AtomicBool::new(true)));
    let waker = Waker::from(woken.clone());
    let mut context = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        assert!(
            woken.0.swap(false, Ordering::SeqCst),
            "the future waits on something outside it"
        );
        if let Poll::Ready(out) = future.as_mut().poll(&mut context) {
            return out;
        }
    }
}

/// Whether the future asked to be polled again.
struct Woken(AtomicBool);

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// The app's export: the sum of the demo array's row `row` (u64::MAX for an error).
#[no_mangle]
pub extern "C" fn demo_row_sum(row: u32) -> u64 {
    run_ready(row_sum(Rc::new(demo_store()), "demo", u64::from(row))).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_reads_the_apps_store() {
        for row in 0..4 {
            let expected: u64 = (0..6).map(|col| u64::from(value_at(row, col))).sum();
            assert_eq!(demo_row_sum(row as u32), expected, "row {row}");
        }
        let missing = run_ready(row_sum(Rc::new(demo_store()), "nope", 0));
        assert!(missing.is_err());
        assert_eq!(
            demo_row_sum(9),
            u64::MAX,
            "a row outside the array is an error"
        );
    }
}
