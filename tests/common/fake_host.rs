//! The platform as the core sees it in a browser, played by a test (tests/yielding_reads.rs,
//! tests/stepwise_extra.rs): every look at the clock is 10 ms after the last (so every
//! `yield_if_busy` yields), and each turn of the event loop is counted; at turn `abort_at`, the
//! read's signal fires, and an `Abortable` store over it says its reads are cancelled.

use async_trait::async_trait;
use futures_util::future::LocalBoxFuture;
use std::cell::Cell;
use std::rc::Rc;
use zarr_wasm::host::Host;
use zarr_wasm::store::memory::MemoryStore;
use zarr_wasm::store::{ByteRange, ReadableStore};

#[derive(Default)]
pub struct FakeHost {
    pub clock: Cell<f64>,
    pub turns: Cell<usize>,
    pub abort_at: Cell<Option<usize>>,
    pub signal: Rc<Cell<bool>>,
}

impl Host for FakeHost {
    fn now_ms(&self) -> f64 {
        self.clock.set(self.clock.get() + 10.0);
        self.clock.get()
    }

    fn next_turn(&self) -> LocalBoxFuture<'static, ()> {
        self.turns.set(self.turns.get() + 1);
        if self.abort_at.get() == Some(self.turns.get()) {
            self.signal.set(true);
        }
        Box::pin(std::future::ready(()))
    }
}

/// A store in memory whose reads are aborted once `signal` is set.
pub struct Abortable {
    pub inner: MemoryStore,
    pub signal: Rc<Cell<bool>>,
}

#[async_trait(?Send)]
impl ReadableStore for Abortable {
    async fn get(&self, key: &str) -> zarr_wasm::Result<Option<Vec<u8>>> {
        self.inner.get(key).await
    }

    async fn get_range(&self, key: &str, range: ByteRange) -> zarr_wasm::Result<Option<Vec<u8>>> {
        self.inner.get_range(key, range).await
    }

    fn locate(&self, key: &str) -> String {
        self.inner.locate(key)
    }

    fn cancelled(&self) -> bool {
        self.signal.get()
    }
}
