//! Where a read's time goes, for the benchmarks: when turned on, the core adds up the time of its
//! synchronous phases (decoding chunks, assembling them into the result) and the binding layer
//! its copy out to JS; whatever else a read's wall time holds is fetching and waiting. Off by
//! default, so that reads pay no clock reads for it (`__timingsForBench` in the JS API).

use std::cell::Cell;

#[derive(Clone, Copy)]
pub enum Phase {
    Decode = 0,
    Assemble = 1,
    CopyOut = 2,
}

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    static SPENT: Cell<[f64; 3]> = const { Cell::new([0.0; 3]) };
}

/// Runs `f`, adding its time to `phase` when timings are on.
pub fn timed<T>(phase: Phase, f: impl FnOnce() -> T) -> T {
    if !ON.with(Cell::get) {
        return f();
    }
    let Some(start) = crate::host::now_ms() else {
        return f();
    };
    let result = f();
    let spent = crate::host::now_ms().unwrap_or(start) - start;
    SPENT.with(|s| {
        let mut totals = s.get();
        totals[phase as usize] += spent;
        s.set(totals);
    });
    result
}

/// Turns timings on or off, and returns the milliseconds spent in each phase since the last call
/// (decode, assemble, copy out), starting again from zero.
pub fn switch(on: bool) -> [f64; 3] {
    ON.with(|o| o.set(on));
    SPENT.with(|s| s.replace([0.0; 3]))
}
