//! A read's abort state, as the core sees it: set once (by the binding layer, from an
//! `AbortSignal`), watched by any number of waits. One listener on the platform's signal feeds
//! it, however many requests and waits the read makes: a read of a million chunks must not leave
//! a million listeners on its signal.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct State {
    aborted: Cell<bool>,
    /// The wakers of the waits pending on it, each under its own number.
    waiting: RefCell<Vec<(u64, Waker)>>,
    next: Cell<u64>,
}

/// Cheap to clone: every clone is the same token.
#[derive(Clone, Default)]
pub struct AbortToken(Rc<State>);

impl AbortToken {
    pub fn new() -> AbortToken {
        AbortToken::default()
    }

    /// Marks the token aborted and wakes every wait on it. Later calls do nothing.
    pub fn abort(&self) {
        if self.0.aborted.replace(true) {
            return;
        }
        // Taken out first: a woken task may wait on the token again.
        let waiting = self.0.waiting.take();
        for (_, waker) in waiting {
            waker.wake();
        }
    }

    pub fn is_aborted(&self) -> bool {
        self.0.aborted.get()
    }

    /// Resolves once the token is aborted (at once if it is).
    pub fn aborted(&self) -> Aborted {
        Aborted {
            token: self.clone(),
            id: None,
        }
    }
}

/// A wait on an `AbortToken`; dropping it leaves nothing behind.
pub struct Aborted {
    token: AbortToken,
    id: Option<u64>,
}

impl Future for Aborted {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let state = self.token.0.clone();
        if state.aborted.get() {
            return Poll::Ready(());
        }
        let mut waiting = state.waiting.borrow_mut();
        match self.id {
            Some(id) => match waiting.iter_mut().find(|(w, _)| *w == id) {
                Some(entry) => entry.1.clone_from(cx.waker()),
                None => waiting.push((id, cx.waker().clone())),
            },
            None => {
                let id = state.next.get();
                state.next.set(id + 1);
                waiting.push((id, cx.waker().clone()));
                drop(waiting);
                self.id = Some(id);
            }
        }
        Poll::Pending
    }
}

impl Drop for Aborted {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            self.token.0.waiting.borrow_mut().retain(|(w, _)| *w != id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_executor::block_on;
    use futures_util::future::{select, Either};

    #[test]
    fn waits_end_when_aborted_and_leave_nothing_behind() {
        let token = AbortToken::new();
        {
            let mut wait = Box::pin(token.aborted());
            let ready = block_on(select(&mut wait, std::future::ready(())));
            assert!(matches!(ready, Either::Right(_)), "not aborted yet");
            assert_eq!(token.0.waiting.borrow().len(), 1);
        }
        assert!(
            token.0.waiting.borrow().is_empty(),
            "a dropped wait is gone"
        );
        token.abort();
        token.abort();
        assert!(token.is_aborted());
        block_on(token.aborted());
    }
}
