//! One sort for the whole module.
//!
//! The standard library's sorts are generic: each element type sorted brings its own copy of
//! driftsort or ipnsort, 3-4 KB of WebAssembly apiece (four of them were 15 KB of every page's
//! download). The lists sorted here are short (a group's children, a listing's paths, a read's
//! byte ranges), so one merge sort over indices, compiled once, orders them all; what each
//! element type adds is the small loop that moves its elements into that order.

/// Sorts `items` stably by `less` (a strict "comes before").
pub fn sort_by<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    if items.len() < 2 {
        return;
    }
    let order = stable_order(items.len(), &|a, b| less(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts `items` (ascending) and drops repeated values.
pub fn sort_dedup<T: Ord>(items: &mut Vec<T>) {
    sort_by(items, |a, b| a < b);
    items.dedup();
}

/// The indices `0..len` in the order `less` puts them, equal ones in their first order: a
/// bottom-up merge sort.
#[inline(never)]
fn stable_order(len: usize, less: &dyn Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut merged = vec![0usize; len];
    let mut width = 1;
    while width < len {
        let mut start = 0;
        while start < len {
            let middle = (start + width).min(len);
            let end = (start + 2 * width).min(len);
            let (mut left, mut right) = (start, middle);
            for slot in &mut merged[start..end] {
                // Take from the right only when strictly before: equal elements keep their order.
                let take_right = right < end && (left == middle || less(order[right], order[left]));
                if take_right {
                    *slot = order[right];
                    right += 1;
                } else {
                    *slot = order[left];
                    left += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    order
}

/// Moves `items` so that position `i` holds what was at `order[i]`, by swaps: `at[k]` is where
/// the element first at `k` is now, `from[p]` which first element position `p` holds.
fn permute<T>(items: &mut [T], order: Vec<usize>) {
    let mut at: Vec<usize> = (0..items.len()).collect();
    let mut from = at.clone();
    for (i, &wanted) in order.iter().enumerate() {
        let now = at[wanted];
        if now != i {
            items.swap(i, now);
            let displaced = from[i];
            at[displaced] = now;
            from[now] = displaced;
            at[wanted] = i;
            from[i] = wanted;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_the_standard_stable_sort_does() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for len in 0..300 {
            // Few distinct keys, so that stability shows: (key, original position).
            let items: Vec<(u64, usize)> =
                (0..len).map(|i| (next(len as u64 / 3 + 1), i)).collect();
            let mut ours = items.clone();
            sort_by(&mut ours, |a, b| a.0 < b.0);
            let mut std = items;
            std.sort_by_key(|x| x.0);
            assert_eq!(ours, std, "{len}");
        }
    }

    #[test]
    fn sorts_and_drops_repeats() {
        let mut names: Vec<String> = ["b", "a", "c", "a", "b"].map(String::from).to_vec();
        sort_dedup(&mut names);
        assert_eq!(names, ["a", "b", "c"]);
    }
}
