//! A least-recently-used map bounded by the bytes of its values: the caches of raw store values
//! and of decoded chunks.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::rc::Rc;

pub struct ByteLru<K> {
    capacity: usize,
    used: usize,
    tick: u64,
    /// Each key's value and when it was last used.
    entries: HashMap<K, (Rc<Vec<u8>>, u64)>,
    /// Keys in the order of their uses, oldest first: each use is pushed at the back, and a use
    /// that a later one of the same key has made stale is skipped when it reaches the front (a
    /// queue with lazy removal: a sorted map's code costs the module about 10 KiB).
    order: VecDeque<(u64, K)>,
}

impl<K: Hash + Eq + Clone> ByteLru<K> {
    /// A cache holding at most `capacity` bytes of values (0: holds nothing).
    pub fn new(capacity: usize) -> Self {
        ByteLru {
            capacity,
            used: 0,
            tick: 0,
            entries: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The bytes the values take now.
    pub fn used(&self) -> usize {
        self.used
    }

    pub fn get(&mut self, key: &K) -> Option<Rc<Vec<u8>>> {
        self.tick += 1;
        let (value, last) = self.entries.get_mut(key)?;
        *last = self.tick;
        let value = value.clone();
        self.order.push_back((self.tick, key.clone()));
        self.compact();
        Some(value)
    }

    /// Keeps `value`, dropping the least recently used values to make room. A value larger than
    /// the whole cache is not kept.
    pub fn insert(&mut self, key: K, value: Rc<Vec<u8>>) {
        if self.capacity == 0 || value.len() > self.capacity {
            return;
        }
        self.remove(&key);
        while self.used + value.len() > self.capacity {
            let Some((tick, oldest)) = self.order.pop_front() else {
                break;
            };
            if self
                .entries
                .get(&oldest)
                .is_some_and(|(_, last)| *last == tick)
            {
                if let Some((v, _)) = self.entries.remove(&oldest) {
                    self.used -= v.len();
                }
            }
        }
        self.tick += 1;
        self.used += value.len();
        self.order.push_back((self.tick, key.clone()));
        self.entries.insert(key, (value, self.tick));
        self.compact();
    }

    /// Drops every value whose key `gone` says (a value written anew, say).
    pub fn forget(&mut self, gone: impl Fn(&K) -> bool) {
        let keys: Vec<K> = self.entries.keys().filter(|k| gone(k)).cloned().collect();
        for key in keys {
            self.remove(&key);
        }
    }

    /// Drops the value under `key`, if any.
    pub fn remove(&mut self, key: &K) {
        if let Some((v, _)) = self.entries.remove(key) {
            self.used -= v.len();
        }
    }

    /// Drops the stale uses once they outnumber the live ones, so that the queue stays within
    /// twice the entries (plus a few): amortised, each use is dropped once.
    fn compact(&mut self) {
        if self.order.len() > 2 * self.entries.len() + 16 {
            let entries = &self.entries;
            self.order
                .retain(|(tick, key)| entries.get(key).is_some_and(|(_, last)| last == tick));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_go_first_and_the_bound_holds() {
        let mut lru = ByteLru::new(10);
        lru.insert("a", Rc::new(vec![0; 4]));
        lru.insert("b", Rc::new(vec![0; 4]));
        assert!(lru.get(&"a").is_some());
        lru.insert("c", Rc::new(vec![0; 4])); // b, the least recently used, goes
        assert!(lru.get(&"b").is_none() && lru.get(&"a").is_some() && lru.get(&"c").is_some());
        assert_eq!(lru.used(), 8);
        lru.insert("big", Rc::new(vec![0; 11]));
        assert!(lru.get(&"big").is_none());
        lru.insert("a", Rc::new(vec![0; 10]));
        assert_eq!((lru.used(), lru.get(&"c").is_none()), (10, true));
        // Many uses of few keys: the queue of uses stays short, and the order holds.
        let mut busy = ByteLru::new(12);
        for round in 0..1000 {
            for key in ["x", "y", "z"] {
                if round == 0 {
                    busy.insert(key, Rc::new(vec![0; 4]));
                }
                assert!(busy.get(&key).is_some());
            }
        }
        assert!(busy.order.len() <= 2 * 3 + 16, "{}", busy.order.len());
        assert!(busy.get(&"x").is_some()); // now y is the least recently used
        busy.insert("w", Rc::new(vec![0; 4]));
        assert!(busy.get(&"y").is_none() && busy.get(&"z").is_some() && busy.get(&"x").is_some());
        assert_eq!(busy.used(), 12);
        let mut off = ByteLru::new(0);
        off.insert("x", Rc::new(vec![]));
        assert!(
            off.get(&"x").is_none(),
            "a cache without room keeps nothing, empty values too"
        );
    }
}
