//! A least-recently-used map bounded by the bytes of its values: the caches of raw store values
//! and of decoded chunks.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::rc::Rc;

pub struct ByteLru<K> {
    capacity: usize,
    used: usize,
    tick: u64,
    /// Each key's value and when it was last used.
    entries: HashMap<K, (Rc<Vec<u8>>, u64)>,
    /// Keys by when they were last used, oldest first.
    order: BTreeMap<u64, K>,
}

impl<K: Hash + Eq + Clone> ByteLru<K> {
    /// A cache holding at most `capacity` bytes of values (0: holds nothing).
    pub fn new(capacity: usize) -> Self {
        ByteLru {
            capacity,
            used: 0,
            tick: 0,
            entries: HashMap::new(),
            order: BTreeMap::new(),
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
        self.order.remove(last);
        *last = self.tick;
        self.order.insert(self.tick, key.clone());
        Some(value.clone())
    }

    /// Keeps `value`, dropping the least recently used values to make room. A value larger than
    /// the whole cache is not kept.
    pub fn insert(&mut self, key: K, value: Rc<Vec<u8>>) {
        if self.capacity == 0 || value.len() > self.capacity {
            return;
        }
        self.remove(&key);
        while self.used + value.len() > self.capacity {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some((v, _)) = self.entries.remove(&oldest) {
                self.used -= v.len();
            }
        }
        self.tick += 1;
        self.used += value.len();
        self.order.insert(self.tick, key.clone());
        self.entries.insert(key, (value, self.tick));
    }

    fn remove(&mut self, key: &K) {
        if let Some((v, last)) = self.entries.remove(key) {
            self.order.remove(&last);
            self.used -= v.len();
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
        let mut off = ByteLru::new(0);
        off.insert("x", Rc::new(vec![]));
        assert!(
            off.get(&"x").is_none(),
            "a cache without room keeps nothing, empty values too"
        );
    }
}
