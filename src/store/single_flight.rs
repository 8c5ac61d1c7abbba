//! One request for many readers: while a fetch of some key is in flight, every read that wants
//! the same key waits for it instead of asking again (twelve tiles of one shard need its index
//! once). The fetch runs through the store view of the read that started it, so it carries that
//! read's `AbortSignal`; viewers abort reads all the time, and the rules that keep one read's
//! abort from failing another are written here, once:
//!
//! 1. A waiter whose own signal fires rejects at once, whoever started the fetch.
//! 2. A fetch is held weakly: it is dropped (its request with it) only when every waiter is gone.
//! 3. A fetch that failed because another read was aborted is started again for each waiter
//!    that was not: the first to retry starts it, the others join.
//!
//! A flight may carry state that joiners add to before it starts (a shard's range batch
//! collects the ranges of every read of the same turn), and may close itself to joiners (the
//! batch once sent) while it runs.

use super::ReadableStore;
use crate::error::{ErrorKind, Result, ZarrError};
use futures_util::future::{select, Either, FutureExt, LocalBoxFuture, Shared, WeakShared};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::Hash;
use std::rc::{Rc, Weak};

type Fetch<V> = LocalBoxFuture<'static, Result<V>>;

struct Flight<V, S> {
    id: u64,
    state: Rc<S>,
    fetch: WeakShared<Fetch<V>>,
}

type Flights<K, V, S> = RefCell<HashMap<K, Flight<V, S>>>;

/// Fetches in flight by key, each shared by the reads that want it. `S` is the state a flight
/// carries for its joiners (`()` for none).
pub struct SingleFlight<K, V, S = ()> {
    flights: Rc<Flights<K, V, S>>,
    next_id: Cell<u64>,
}

impl<K, V, S> Default for SingleFlight<K, V, S> {
    fn default() -> Self {
        SingleFlight {
            flights: Rc::default(),
            next_id: Cell::new(0),
        }
    }
}

/// A waiter's hold on a flight: dropped, it lets go of the fetch first, then forgets the flight
/// if nobody else holds it.
struct Waiting<'a, K: Hash + Eq + Clone + 'static, V: Clone + 'static, S: Default + 'static> {
    flight: &'a SingleFlight<K, V, S>,
    key: &'a K,
    id: u64,
    fetch: Option<Shared<Fetch<V>>>,
}

impl<K: Hash + Eq + Clone + 'static, V: Clone + 'static, S: Default + 'static> Drop
    for Waiting<'_, K, V, S>
{
    fn drop(&mut self) {
        self.fetch = None;
        self.flight.forget_if_abandoned(self.key, self.id);
    }
}

/// Handed to a flight's fetch: closes the flight to later readers (who start a flight of their
/// own) while it goes on for those who joined.
pub struct Closer<K, V, S> {
    flights: Weak<Flights<K, V, S>>,
    key: K,
    id: u64,
}

impl<K: Hash + Eq, V, S> Closer<K, V, S> {
    pub fn close(&self) {
        if let Some(flights) = self.flights.upgrade() {
            remove_if(&flights, &self.key, self.id);
        }
    }
}

fn remove_if<K: Hash + Eq, V, S>(flights: &Flights<K, V, S>, key: &K, id: u64) {
    let mut flights = flights.borrow_mut();
    if flights.get(key).is_some_and(|f| f.id == id) {
        flights.remove(key);
    }
}

impl<K, V, S> SingleFlight<K, V, S>
where
    K: Hash + Eq + Clone + 'static,
    V: Clone + 'static,
    S: Default + 'static,
{
    /// The result of the fetch of `key`, shared with every other waiter for it. `waiter` is the
    /// calling read's store view (its abort state); `location` says where `key` is, for messages
    /// (only made when one is needed: this runs for every chunk of a read); `join` adds
    /// this read's wishes to the flight's state (called for every flight it waits on, retries
    /// included); `start` makes the fetch of a new flight, through this read's store.
    pub async fn run(
        &self,
        key: K,
        waiter: &dyn ReadableStore,
        location: impl Fn() -> String,
        join: impl Fn(&S),
        start: impl Fn(Rc<S>, Closer<K, V, S>) -> Fetch<V>,
    ) -> Result<V> {
        loop {
            let (fetch, id, ours) = self.flight(&key, &join, &start);
            // However this wait ends (a result, an abort, the read dropped), a flight nobody
            // waits for any more leaves nothing in the table.
            let mut waiting = Waiting {
                flight: self,
                key: &key,
                id,
                fetch: Some(fetch),
            };
            if waiter.cancelled() {
                return Err(ZarrError::aborted(&location()));
            }
            let aborted = waiter.aborted();
            futures_util::pin_mut!(aborted);
            let result = match waiting.fetch.as_mut() {
                Some(fetch) => match select(fetch, aborted).await {
                    Either::Left((result, _)) => result,
                    Either::Right(_) => return Err(ZarrError::aborted(&location())),
                },
                // Not reached: the fetch was set above.
                None => return Err(ZarrError::aborted(&location())),
            };
            drop(waiting);
            // Done: later readers start afresh (a failure must not serve them; values worth
            // keeping are kept by the caller's cache).
            remove_if(&self.flights, &key, id);
            match result {
                // Another read's abort ended the fetch, and this read was not aborted: again.
                Err(e) if e.kind == ErrorKind::Aborted && !ours && !waiter.cancelled() => continue,
                Err(e) if e.kind == ErrorKind::Aborted && waiter.cancelled() => {
                    return Err(ZarrError::aborted(&location()))
                }
                result => return result,
            }
        }
    }

    /// The flight for `key` that this read joins (starting one if none is open), its number,
    /// and whether this read started it.
    fn flight(
        &self,
        key: &K,
        join: &impl Fn(&S),
        start: &impl Fn(Rc<S>, Closer<K, V, S>) -> Fetch<V>,
    ) -> (Shared<Fetch<V>>, u64, bool) {
        let open = {
            let flights = self.flights.borrow();
            flights
                .get(key)
                .and_then(|f| Some((f.fetch.upgrade()?, f.id, f.state.clone())))
        };
        if let Some((fetch, id, state)) = open {
            join(&state);
            return (fetch, id, false);
        }
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        let state: Rc<S> = Rc::default();
        join(&state);
        let closer = Closer {
            flights: Rc::downgrade(&self.flights),
            key: key.clone(),
            id,
        };
        let fetch = start(state.clone(), closer).shared();
        if let Some(weak) = fetch.downgrade() {
            let flight = Flight {
                id,
                state,
                fetch: weak,
            };
            self.flights.borrow_mut().insert(key.clone(), flight);
        }
        (fetch, id, true)
    }

    /// Drops the entry of flight `id` if no waiter is left to hold it: the map keeps nothing for
    /// keys every reader gave up on.
    fn forget_if_abandoned(&self, key: &K, id: u64) {
        let mut flights = self.flights.borrow_mut();
        if flights
            .get(key)
            .is_some_and(|f| f.id == id && f.fetch.upgrade().is_none())
        {
            flights.remove(key);
        }
    }

    /// Entries in the table, live or not (for tests and leak checks).
    pub fn entries(&self) -> usize {
        self.flights.borrow().len()
    }

    /// Flights open to joiners now (for tests and leak checks).
    pub fn open_flights(&self) -> usize {
        self.flights
            .borrow()
            .values()
            .filter(|f| f.fetch.upgrade().is_some())
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::abort::AbortToken;
    use crate::store::ByteRange;
    use async_trait::async_trait;
    use futures_util::future::{join_all, FutureExt};
    use futures_util::task::LocalSpawnExt;
    use std::cell::RefCell;

    /// A store view whose requests the test answers by hand, with its own abort token; requests
    /// made through an aborted view fail as aborted (as `fetch` with a signal does).
    struct Manual {
        token: AbortToken,
        log: Rc<RefCell<Vec<String>>>,
        release: Rc<AbortToken>,
    }

    #[async_trait(?Send)]
    impl ReadableStore for Manual {
        async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
            self.log.borrow_mut().push(key.to_string());
            let (done, stop) = (self.release.aborted(), self.token.aborted());
            match select(done, stop).await {
                Either::Left(_) => Ok(Some(key.as_bytes().to_vec())),
                Either::Right(_) => Err(ZarrError::aborted(key)),
            }
        }
        async fn get_range(&self, key: &str, _: ByteRange) -> Result<Option<Vec<u8>>> {
            self.get(key).await
        }
        fn locate(&self, key: &str) -> String {
            key.into()
        }
        fn cancelled(&self) -> bool {
            self.token.is_aborted()
        }
        async fn aborted(&self) {
            self.token.aborted().await
        }
    }

    type Value = Option<Vec<u8>>;
    type Start = dyn Fn(Rc<()>, Closer<String, Value, ()>) -> Fetch<Value>;

    fn fetch_through(view: Rc<Manual>) -> Box<Start> {
        Box::new(move |_, _| {
            let view = view.clone();
            async move { view.get("k").await }.boxed_local()
        })
    }

    /// Four reads share a fetch; the first three are aborted one after another while it is in
    /// flight; the fourth, never aborted, gets the value.
    #[test]
    fn only_the_aborted_reads_fail() {
        let mut pool = futures_executor::LocalPool::new();
        let flights: Rc<SingleFlight<String, Option<Vec<u8>>>> = Rc::default();
        let log = Rc::new(RefCell::new(Vec::new()));
        let release = Rc::new(AbortToken::new());
        let views: Vec<Rc<Manual>> = (0..4)
            .map(|_| {
                Rc::new(Manual {
                    token: AbortToken::new(),
                    log: log.clone(),
                    release: release.clone(),
                })
            })
            .collect();
        type Outcomes = RefCell<Vec<(usize, Result<Value>)>>;
        let results: Rc<Outcomes> = Rc::default();
        for (i, view) in views.iter().enumerate() {
            let (flights, view, results) = (flights.clone(), view.clone(), results.clone());
            pool.spawner()
                .spawn_local(async move {
                    let r = flights
                        .run(
                            "k".into(),
                            &*view,
                            || "k".into(),
                            |_| {},
                            fetch_through(view.clone()),
                        )
                        .await;
                    results.borrow_mut().push((i, r));
                })
                .unwrap();
        }
        pool.run_until_stalled();
        assert_eq!(log.borrow().len(), 1, "one request for four reads");
        for view in &views[..3] {
            view.token.abort();
            pool.run_until_stalled();
        }
        release.abort(); // the server answers
        pool.run();
        let results = results.borrow();
        for (i, r) in results.iter() {
            match i {
                3 => assert_eq!(r.as_ref().unwrap().as_deref(), Some(&b"k"[..])),
                _ => assert_eq!(r.as_ref().unwrap_err().kind, ErrorKind::Aborted, "read {i}"),
            }
        }
        assert_eq!(results.len(), 4);
        assert!(
            log.borrow().len() <= 4,
            "at most one request again per abort"
        );
        assert_eq!(flights.open_flights(), 0);
    }

    /// A waiter that aborts while it waits on another's fetch rejects at once, and the fetch goes
    /// on for the others; when every waiter is gone the fetch is dropped.
    #[test]
    fn an_abort_rejects_at_once_and_the_last_one_out_drops_the_fetch() {
        let flights: SingleFlight<String, Option<Vec<u8>>> = SingleFlight::default();
        let log = Rc::new(RefCell::new(Vec::new()));
        let release = Rc::new(AbortToken::new());
        let view = |_| {
            Rc::new(Manual {
                token: AbortToken::new(),
                log: log.clone(),
                release: release.clone(),
            })
        };
        let (a, b) = (view(0), view(1));
        let mut first = flights
            .run(
                "k".into(),
                &*a,
                || "k".into(),
                |_| {},
                fetch_through(a.clone()),
            )
            .boxed_local();
        let mut second = flights
            .run(
                "k".into(),
                &*b,
                || "k".into(),
                |_| {},
                fetch_through(b.clone()),
            )
            .boxed_local();
        assert!((&mut first).now_or_never().is_none());
        assert!((&mut second).now_or_never().is_none());
        b.token.abort();
        let r = (&mut second).now_or_never().expect("rejects at once");
        assert_eq!(r.unwrap_err().kind, ErrorKind::Aborted);
        assert_eq!(flights.open_flights(), 1, "still wanted by the first");
        drop(first);
        assert_eq!(flights.open_flights(), 0, "nobody waits: dropped");
        // The last reader out by abort leaves nothing in the table either.
        let c = view(2);
        let mut third = flights
            .run(
                "k".into(),
                &*c,
                || "k".into(),
                |_| {},
                fetch_through(c.clone()),
            )
            .boxed_local();
        assert!((&mut third).now_or_never().is_none());
        c.token.abort();
        assert!((&mut third).now_or_never().is_some());
        assert_eq!(flights.entries(), 0, "an abandoned flight is forgotten");
    }

    /// State added by every joiner reaches the fetch; a closed flight takes no more joiners.
    #[test]
    fn joiners_add_to_the_state_until_the_flight_closes() {
        let flights: SingleFlight<String, usize, RefCell<Vec<u32>>> = SingleFlight::default();
        let store = crate::store::memory::MemoryStore::new();
        let gate = Rc::new(AbortToken::new());
        let start = |state: Rc<RefCell<Vec<u32>>>, closer: Closer<_, _, _>| {
            let gate = gate.clone();
            async move {
                gate.aborted().await;
                closer.close();
                Ok(state.borrow().len())
            }
            .boxed_local()
        };
        let runs = (0..3u32).map(|i| {
            flights.run(
                "s".into(),
                &store,
                || "s".into(),
                move |s: &RefCell<Vec<u32>>| s.borrow_mut().push(i),
                start,
            )
        });
        let mut all = join_all(runs).boxed_local();
        assert!((&mut all).now_or_never().is_none());
        gate.abort();
        let counts: Vec<usize> = futures_executor::block_on(all)
            .into_iter()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(counts, vec![3, 3, 3]);
        assert_eq!(flights.open_flights(), 0);
    }
}
