//! A limit on requests in flight: an async counting semaphore for single-threaded (wasm) futures.
//! Browsers queue requests beyond their own per-host limit anyway, but a limit of our own keeps a
//! huge read from flooding the network stack and lets reads started later get a turn.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct State {
    in_use: Cell<usize>,
    waiting: RefCell<VecDeque<Waker>>,
}

/// Hands out at most `max` permits at once; the rest wait in order.
#[derive(Clone)]
pub struct Limiter {
    max: usize,
    state: Rc<State>,
}

/// Held while a request is in flight; dropping it lets the next one go.
pub struct Permit {
    state: Rc<State>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.state.in_use.set(self.state.in_use.get() - 1);
        if let Some(next) = self.state.waiting.borrow_mut().pop_front() {
            next.wake();
        }
    }
}

impl Limiter {
    pub fn new(max: usize) -> Limiter {
        Limiter {
            max: max.max(1),
            state: Rc::default(),
        }
    }

    pub fn in_use(&self) -> usize {
        self.state.in_use.get()
    }

    pub fn acquire(&self) -> Acquire {
        Acquire {
            limiter: self.clone(),
            queued: false,
        }
    }
}

pub struct Acquire {
    limiter: Limiter,
    queued: bool,
}

impl Future for Acquire {
    type Output = Permit;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit> {
        let state = self.limiter.state.clone();
        if state.in_use.get() < self.limiter.max {
            state.in_use.set(state.in_use.get() + 1);
            return Poll::Ready(Permit { state });
        }
        // Wait for a permit to be dropped; a spurious wake just queues again.
        state.waiting.borrow_mut().push_back(cx.waker().clone());
        self.queued = true;
        Poll::Pending
    }
}

impl Drop for Acquire {
    fn drop(&mut self) {
        // A waiter that gives up (its read was dropped) passes its turn on, so none is lost.
        if self.queued && self.limiter.state.in_use.get() < self.limiter.max {
            if let Some(next) = self.limiter.state.waiting.borrow_mut().pop_front() {
                next.wake();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_executor::LocalPool;
    use futures_util::task::LocalSpawnExt;

    /// Pending once (asking to be polled again), then ready: lets other tasks run.
    struct YieldNow(bool);

    impl Future for YieldNow {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.0 {
                return Poll::Ready(());
            }
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    #[test]
    fn no_more_than_max_run_at_once_and_all_finish() {
        let limiter = Limiter::new(3);
        let peak = Rc::new(Cell::new(0));
        let done = Rc::new(Cell::new(0));
        let mut pool = LocalPool::new();
        for _ in 0..20 {
            let (limiter, peak, done) = (limiter.clone(), peak.clone(), done.clone());
            pool.spawner()
                .spawn_local(async move {
                    let _permit = limiter.acquire().await;
                    peak.set(peak.get().max(limiter.in_use()));
                    YieldNow(false).await;
                    YieldNow(false).await;
                    done.set(done.get() + 1);
                })
                .unwrap();
        }
        pool.run_until_stalled();
        assert_eq!(peak.get(), 3);
        assert_eq!(done.get(), 20);
        assert_eq!(limiter.in_use(), 0);
    }
}
