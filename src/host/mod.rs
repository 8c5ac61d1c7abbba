//! What the core needs of the platform it runs on, beyond stores: a clock and a way to give the
//! event loop a turn. In a browser or Node a read runs on the thread that also draws the page and
//! fires timers; a long read must let them run (every few milliseconds of work), or no timeout
//! and no abort could ever fire during it. The binding layer installs the JS host; natively there
//! is none, and yielding does nothing.

pub mod timing;

use futures_util::future::LocalBoxFuture;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

pub trait Host {
    /// Milliseconds from some fixed point.
    fn now_ms(&self) -> f64;
    /// Resolves once the event loop has had a turn (timers, events, rendering).
    fn next_turn(&self) -> LocalBoxFuture<'static, ()>;
}

/// Work between turns given to the event loop: long enough that yielding costs little, short
/// enough for a 60 Hz frame.
const SLICE_MS: f64 = 8.0;

thread_local! {
    static HOST: RefCell<Option<Rc<dyn Host>>> = const { RefCell::new(None) };
    static SLICE_START: Cell<f64> = const { Cell::new(0.0) };
}

/// Makes `host` the platform for this thread.
pub fn install(host: Rc<dyn Host>) {
    SLICE_START.with(|s| s.set(host.now_ms()));
    HOST.with(|h| *h.borrow_mut() = Some(host));
}

/// Whether this thread has a host: an event loop that long work must let run.
pub fn installed() -> bool {
    HOST.with(|h| h.borrow().is_some())
}

/// The host's clock, in milliseconds, where there is a host.
pub fn now_ms() -> Option<f64> {
    HOST.with(|h| h.borrow().as_ref().map(|host| host.now_ms()))
}

/// Gives the event loop a turn if the work since its last turn has taken a slice or more; cheap
/// to call often (a clock read).
pub async fn yield_if_busy() {
    let Some(host) = HOST.with(|h| h.borrow().clone()) else {
        return;
    };
    let now = host.now_ms();
    if now - SLICE_START.with(Cell::get) < SLICE_MS {
        return;
    }
    host.next_turn().await;
    SLICE_START.with(|s| s.set(host.now_ms()));
}
