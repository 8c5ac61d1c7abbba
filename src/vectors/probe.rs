//! Which link arrays a read could need, for stores that cannot list them (a static HTTP server
//! without index pages, a bucket behind a CDN).
//!
//! A link array is named by where its links' other endpoints lie relative to the source chunk
//! (`links.rs`), so the links among a set of chunks can only be in the arrays whose offsets lead
//! from one of those chunks to others of them. Asking for exactly those names is complete for
//! the read, however far links reach: the writer's fixtures link chunks three apart, so asking
//! only for the 3^D neighbours would lose links without a word. What was asked is remembered by
//! the family, so a later read asks only for names it has not.

use std::collections::BTreeSet;

/// The most link arrays one read asks for by name. A whole read of a large level could need
/// thousands; past this the store must list them (the error says how).
pub const MAX_PROBES: usize = 4096;

/// The most offset combinations looked at for one read, however few distinct names they make.
const MAX_STEPS: usize = 1 << 22;

/// The link arrays that can hold links of `width` endpoints whose first endpoint lies in a chunk
/// with an anchor in `anchors` (the source chunks as seen from the target level: themselves,
/// within a level) and whose other endpoints lie in `targets`, by name as the writer formats
/// them. `canonical`: the family stores each link once, endpoints sorted, so the offsets are
/// lexicographically non-negative and non-decreasing (what zarr-vectors' validator checks).
/// More than `limit` names, or too much work to find them, is an error: the count so far.
pub fn candidates(
    width: usize,
    canonical: bool,
    anchors: &[Vec<i64>],
    targets: &[Vec<i64>],
    limit: usize,
) -> Result<BTreeSet<String>, usize> {
    let mut names = BTreeSet::new();
    if width <= 1 {
        names.insert("self".to_string());
        return Ok(names);
    }
    let further = width - 1;
    let mut steps = 0usize;
    // Sources in one coarser chunk share an anchor: each is looked at again, at no more cost
    // than the steps bound allows, and names once.
    for anchor in anchors {
        let offsets = offsets_from(anchor, targets, canonical);
        if offsets.is_empty() {
            continue;
        }
        // An odometer over `further` indices into `offsets`: every combination (with repeats)
        // for a canonical family, whose endpoints are stored sorted; every tuple otherwise.
        let mut at = vec![0usize; further];
        loop {
            steps += 1;
            if steps > MAX_STEPS {
                return Err(names.len().max(limit + 1));
            }
            let mut tuple: Vec<&Vec<i64>> = at.iter().map(|&i| &offsets[i]).collect();
            if canonical {
                sort_small(&mut tuple);
            }
            names.insert(segment_name(tuple.into_iter()));
            if names.len() > limit {
                return Err(names.len());
            }
            if !advance(&mut at, offsets.len(), canonical) {
                break;
            }
        }
    }
    Ok(names)
}

/// The offsets from `anchor` to each target (once each: targets are distinct chunks), only the
/// lexicographically non-negative ones for a canonical family.
fn offsets_from(anchor: &[i64], targets: &[Vec<i64>], canonical: bool) -> Vec<Vec<i64>> {
    let zero = vec![0i64; anchor.len()];
    targets
        .iter()
        .filter(|t| t.len() == anchor.len())
        .filter_map(|t| {
            t.iter()
                .zip(anchor)
                .map(|(t, a)| t.checked_sub(*a))
                .collect::<Option<Vec<i64>>>()
        })
        .filter(|o| !canonical || *o >= zero)
        .collect()
}

/// A link's few offsets in lexicographic order, by insertion (a tuple has at most 19).
fn sort_small(tuple: &mut [&Vec<i64>]) {
    for i in 1..tuple.len() {
        let mut j = i;
        while j > 0 && tuple[j - 1] > tuple[j] {
            tuple.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// The next index tuple, or false after the last. Canonical tuples never decrease.
fn advance(at: &mut [usize], n: usize, canonical: bool) -> bool {
    for i in (0..at.len()).rev() {
        if at[i] + 1 < n {
            at[i] += 1;
            let floor = if canonical { at[i] } else { 0 };
            for later in &mut at[i + 1..] {
                *later = floor;
            }
            return true;
        }
    }
    false
}

/// Offsets as the writer names their array: "+1.0.-1", offsets joined by "_".
pub fn segment_name<'a>(offsets: impl Iterator<Item = &'a Vec<i64>>) -> String {
    let formatted: Vec<String> = offsets
        .map(|o| {
            o.iter()
                .map(|&c| match c {
                    c if c > 0 => format!("+{c}"),
                    c => c.to_string(),
                })
                .collect::<Vec<_>>()
                .join(".")
        })
        .collect();
    formatted.join("_")
}

/// A level's name for links reaching `delta` levels away: "0", "+1", "-1".
pub fn delta_name(delta: i64) -> String {
    match delta {
        d if d > 0 => format!("+{d}"),
        d => d.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(list: &[&[i64]]) -> Vec<Vec<i64>> {
        list.iter().map(|c| c.to_vec()).collect()
    }

    #[test]
    fn names_are_the_writers() {
        assert_eq!(segment_name([vec![1, 0, -1]].iter()), "+1.0.-1");
        assert_eq!(segment_name([vec![0, 0], vec![0, 2]].iter()), "0.0_0.+2");
        assert_eq!(delta_name(0), "0");
        assert_eq!(delta_name(1), "+1");
        assert_eq!(delta_name(-1), "-1");
    }

    #[test]
    fn edges_between_chunks_read_are_asked_for_once_each_way_they_are_stored() {
        let read = chunks(&[&[0, 0], &[0, 1], &[3, 0]]);
        // Undirected, stored once: offsets from each chunk to those after it (and itself).
        let canonical = candidates(2, true, &read, &read, 100).unwrap();
        let want: BTreeSet<String> = ["0.0", "0.+1", "+3.0", "+3.-1"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(canonical, want);
        // Directed: every difference, both ways.
        let directed = candidates(2, false, &read, &read, 100).unwrap();
        assert_eq!(directed.len(), 7);
        assert!(directed.contains("-3.+1") && directed.contains("0.-1"));
    }

    #[test]
    fn faces_take_sorted_pairs_of_offsets() {
        let read = chunks(&[&[0], &[1], &[2]]);
        let names = candidates(3, true, &read, &read, 100).unwrap();
        let want: BTreeSet<String> = ["0_0", "0_+1", "0_+2", "+1_+1", "+1_+2", "+2_+2"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(names, want);
        assert_eq!(candidates(1, true, &read, &read, 100).unwrap().len(), 1);
    }

    #[test]
    fn cross_level_offsets_count_from_the_anchor() {
        // Sources anchored at the coarser level's chunk 0; targets there at 0 and 1.
        let names = candidates(
            2,
            false,
            &chunks(&[&[0, 0]]),
            &chunks(&[&[0, 0], &[1, 0]]),
            10,
        );
        assert_eq!(
            names.unwrap().into_iter().collect::<Vec<_>>(),
            ["+1.0", "0.0"]
        );
    }

    #[test]
    fn too_many_names_is_an_error_not_a_flood() {
        let read: Vec<Vec<i64>> = (0..100).map(|i| vec![i]).collect();
        assert!(candidates(2, false, &read, &read, 150).is_err());
        assert_eq!(candidates(2, false, &read, &read, 199).unwrap().len(), 199);
        // Wide links over many chunks stop at the bound rather than run for ever.
        assert!(candidates(8, false, &read, &read, MAX_PROBES).is_err());
    }
}
