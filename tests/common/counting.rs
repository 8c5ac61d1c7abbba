//! A global allocator that counts the bytes in use and their peak, for tests that bound what bad
//! input may make the reader allocate. A test binary installs it with
//! `#[global_allocator] static ALLOCATOR: CountingAllocator = CountingAllocator;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub struct CountingAllocator;

// Counted per thread: the test harness runs a binary's tests on several threads, and a peak
// counted across all of them is another test's as much as the measured one's (a flake seen in CI:
// a parquet test's peak 1.7 MB over its bound while a neighbour allocated). What a test measures
// runs on its own thread (`block_on`, the fake servers), so its thread's count is its own. A block
// freed on another thread than the one that allocated it makes that thread's count go below zero,
// hence signed counts.
thread_local! {
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn grow(bytes: usize) {
    let _ = CURRENT.try_with(|current| {
        let now = current.get().wrapping_add(bytes as isize);
        current.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn shrink(bytes: usize) {
    let _ = CURRENT.try_with(|current| current.set(current.get().wrapping_sub(bytes as isize)));
}

// SAFETY: every call is passed to the system allocator unchanged; only counts are added, in
// thread-locals that need no allocation (const-initialised, no destructor).
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        // SAFETY: `ptr` came from the system allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grow(new_size - layout.size());
        } else {
            shrink(layout.size() - new_size);
        }
        // SAFETY: as in `dealloc`; the caller vouches for `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Starts measuring a peak on this thread: returns the bytes this thread holds now.
pub fn start_peak() -> isize {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|peak| peak.set(base));
    base
}

/// The most bytes this thread held at once since `start_peak` returned `base`, beyond `base`.
pub fn peak_since(base: isize) -> usize {
    PEAK.with(Cell::get).saturating_sub(base).max(0) as usize
}

/// `f`'s result and the most memory it held at once beyond what was held before.
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = start_peak();
    let out = f();
    (out, peak_since(base))
}

/// Tests that measure time as well as a peak run one at a time, so that a neighbour's work does
/// not slow them: each holds this guard while it measures.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}
