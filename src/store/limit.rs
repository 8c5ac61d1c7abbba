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
    /// Waiters in arrival order, each with the waker of its latest poll.
    waiting: RefCell<VecDeque<(u64, Waker)>>,
    next_id: Cell<u64>,
}

impl State {
    /// Wakes the first waiter, if a permit is free for it. The waker is cloned out first: waking
    /// may run code that touches the queue.
    fn wake_first(&self, max: usize) {
        if self.in_use.get() >= max {
            return;
        }
        let first = self.waiting.borrow().front().map(|(_, w)| w.clone());
        if let Some(waker) = first {
            waker.wake();
        }
    }
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
    max: usize,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.state.in_use.set(self.state.in_use.get() - 1);
        self.state.wake_first(self.max);
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

    /// Whether this is the only handle on it (no copy, no one waiting for a permit).
    pub fn is_alone(&self) -> bool {
        Rc::strong_count(&self.state) == 1
    }

    pub fn acquire(&self) -> Acquire {
        Acquire {
            limiter: self.clone(),
            id: None,
        }
    }
}

/// Waiting for a permit. A waiter is served when a permit is free and it is first in line; it
/// keeps its place across polls, and leaves the line when dropped.
pub struct Acquire {
    limiter: Limiter,
    /// Its place in the line, once it had to wait.
    id: Option<u64>,
}

impl Future for Acquire {
    type Output = Permit;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit> {
        let (max, state) = (self.limiter.max, self.limiter.state.clone());
        let first_in_line = {
            let waiting = state.waiting.borrow();
            match self.id {
                None => waiting.is_empty(),
                Some(id) => waiting.front().is_some_and(|(front, _)| *front == id),
            }
        };
        if state.in_use.get() < max && first_in_line {
            if let Some(id) = self.id.take() {
                state.waiting.borrow_mut().retain(|(w, _)| *w != id);
            }
            state.in_use.set(state.in_use.get() + 1);
            // A permit may still be free for the next in line.
            state.wake_first(max);
            return Poll::Ready(Permit { state, max });
        }
        let mut waiting = state.waiting.borrow_mut();
        match self.id {
            Some(id) => {
                if let Some(entry) = waiting.iter_mut().find(|(w, _)| *w == id) {
                    entry.1 = cx.waker().clone();
                }
            }
            None => {
                let id = state.next_id.get();
                state.next_id.set(id + 1);
                waiting.push_back((id, cx.waker().clone()));
                self.id = Some(id);
            }
        }
        Poll::Pending
    }
}

impl Drop for Acquire {
    fn drop(&mut self) {
        // A waiter that gives up (its read was dropped) leaves the line and passes its turn on.
        if let Some(id) = self.id {
            let state = &self.limiter.state;
            state.waiting.borrow_mut().retain(|(w, _)| *w != id);
            state.wake_first(self.limiter.max);
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

    #[test]
    fn dropped_waiters_do_not_take_a_turn_from_the_living() {
        let limiter = Limiter::new(1);
        let held = futures_executor::block_on(limiter.acquire());
        let mut pool = LocalPool::new();
        // Two waiters queue behind the permit; the first is dropped before it is served.
        let mut doomed = Box::pin(limiter.acquire());
        let waker = futures_util::task::noop_waker();
        assert!(doomed
            .as_mut()
            .poll(&mut Context::from_waker(&waker))
            .is_pending());
        let done = Rc::new(Cell::new(false));
        let (l, d) = (limiter.clone(), done.clone());
        pool.spawner()
            .spawn_local(async move {
                let _p = l.acquire().await;
                d.set(true);
            })
            .unwrap();
        pool.run_until_stalled();
        drop(doomed);
        drop(held);
        pool.run_until_stalled();
        assert!(done.get(), "the living waiter got the permit");
        assert_eq!(limiter.in_use(), 0);
    }
}
