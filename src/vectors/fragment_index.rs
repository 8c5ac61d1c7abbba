//! The fragment index ("fragment_index_v1") of a spatial chunk: which rows of the chunk's vertices
//! (or links) make each fragment, as a range or an explicit list. Little-endian:
//!
//! ```text
//! u32 magic 0x5A564647 ("GFVZ" on disk), u16 version 1, u16 flags 0, u32 F fragments, u32 R ranges
//! range bitmap: ceil(F / 8) bytes, padded to a multiple of 8; bit f (LSB first) set = f is a range
//! R x (i64 start, i64 count), in order of the set bits
//! u32 offsets[E + 1] (E = F - R; written even when E = 0), i64 indices[offsets[E]]
//! ```

use super::Cursor;

pub const MAGIC: u32 = 0x5A56_4647;

/// One fragment: rows `start..start + count`, or the rows listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fragment {
    Range { start: u64, count: u64 },
    List(Vec<u64>),
}

impl Fragment {
    pub fn len(&self) -> u64 {
        match self {
            Fragment::Range { count, .. } => *count,
            Fragment::List(rows) => rows.len() as u64,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows, in order.
    pub fn rows(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        match self {
            Fragment::Range { start, count } => Box::new(*start..start + count),
            Fragment::List(rows) => Box::new(rows.iter().copied()),
        }
    }
}

/// Parses a fragment index. `rows` is how many rows the chunk has (its vertices' count): every
/// fragment must lie within them. Errors say what is wrong and where.
pub fn parse(bytes: &[u8], rows: u64) -> Result<Vec<Fragment>, String> {
    let mut c = Cursor::new(bytes);
    let magic = c.u32("the magic number")?;
    if magic != MAGIC {
        return Err(format!(
            "not a fragment index: magic {magic:#010x}, expected {MAGIC:#010x}"
        ));
    }
    let version = c.u16("the version")?;
    if version != 1 {
        return Err(format!(
            "fragment index version {version}; only version 1 is known"
        ));
    }
    let flags = c.u16("the flags")?;
    if flags != 0 {
        return Err(format!("fragment index flags {flags:#x}; none are known"));
    }
    let fragments = c.u32("the fragment count")? as usize;
    let ranges = c.u32("the range count")? as usize;
    if ranges > fragments {
        return Err(format!("{ranges} range fragments of {fragments} in all"));
    }
    // Every fragment takes at least one bitmap bit and a range or an offset: a count the blob
    // cannot hold is refused before anything is allocated for it.
    if fragments / 8 > c.remaining() {
        return Err(format!(
            "{fragments} fragments cannot fit in {} bytes",
            bytes.len()
        ));
    }
    let bitmap_len = fragments.div_ceil(8).div_ceil(8) * 8;
    let bitmap = c.take(bitmap_len, "the range bitmap")?;
    let is_range = |f: usize| bitmap[f / 8] & (1 << (f % 8)) != 0;
    let set = (0..fragments).filter(|&f| is_range(f)).count();
    if set != ranges {
        return Err(format!(
            "the range bitmap marks {set} fragments as ranges, the header says {ranges}"
        ));
    }
    if (fragments..bitmap_len * 8).any(is_range) {
        return Err("the range bitmap has bits set past the last fragment".into());
    }
    let mut range_list = Vec::with_capacity(ranges.min(c.remaining() / 16));
    for r in 0..ranges {
        let start = c.i64("a range's start")?;
        let count = c.i64("a range's count")?;
        let fits = start >= 0
            && count >= 0
            && (start as u64)
                .checked_add(count as u64)
                .is_some_and(|end| end <= rows);
        if !fits {
            return Err(format!(
                "range {r} is rows {start} + {count}, outside the chunk's {rows} rows"
            ));
        }
        range_list.push((start as u64, count as u64));
    }
    let explicit = fragments - ranges;
    if explicit > c.remaining() / 4 {
        return Err(format!(
            "{explicit} explicit fragments need more offsets than the blob holds"
        ));
    }
    let mut offsets = Vec::with_capacity(explicit + 1);
    for _ in 0..=explicit {
        offsets.push(c.u32("an offset")? as usize);
    }
    if offsets[0] != 0 || offsets.windows(2).any(|w| w[1] < w[0]) {
        return Err(format!(
            "the explicit fragments' offsets do not start at 0 and rise: {:?}",
            &offsets[..offsets.len().min(8)]
        ));
    }
    let total = offsets[explicit];
    if total > c.remaining() / 8 {
        return Err(format!(
            "{total} explicit row indices need {} bytes, {} are left",
            total.saturating_mul(8),
            c.remaining()
        ));
    }
    let mut indices = Vec::with_capacity(total);
    for i in 0..total {
        let row = c.i64("a row index")?;
        if row < 0 || row as u64 >= rows {
            return Err(format!(
                "row index {i} is {row}, outside the chunk's {rows} rows"
            ));
        }
        indices.push(row as u64);
    }
    c.finish("fragment index")?;
    let (mut next_range, mut next_list) = (range_list.into_iter(), 0usize);
    Ok((0..fragments)
        .map(|f| {
            if is_range(f) {
                let (start, count) = next_range.next().unwrap_or_default();
                Fragment::Range { start, count }
            } else {
                let e = next_list;
                next_list += 1;
                Fragment::List(indices[offsets[e]..offsets[e + 1]].to_vec())
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A blob as the writer lays it out.
    fn blob(fragments: &[Fragment]) -> Vec<u8> {
        let ranges: Vec<_> = fragments
            .iter()
            .filter_map(|f| match f {
                Fragment::Range { start, count } => Some((*start, *count)),
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        out.extend(MAGIC.to_le_bytes());
        out.extend(1u16.to_le_bytes());
        out.extend(0u16.to_le_bytes());
        out.extend((fragments.len() as u32).to_le_bytes());
        out.extend((ranges.len() as u32).to_le_bytes());
        let mut bitmap = vec![0u8; fragments.len().div_ceil(8).div_ceil(8) * 8];
        for (f, frag) in fragments.iter().enumerate() {
            if matches!(frag, Fragment::Range { .. }) {
                bitmap[f / 8] |= 1 << (f % 8);
            }
        }
        out.extend(bitmap);
        for (s, c) in ranges {
            out.extend((s as i64).to_le_bytes());
            out.extend((c as i64).to_le_bytes());
        }
        let lists: Vec<&Vec<u64>> = fragments
            .iter()
            .filter_map(|f| match f {
                Fragment::List(l) => Some(l),
                _ => None,
            })
            .collect();
        let mut at = 0u32;
        out.extend(at.to_le_bytes());
        for l in &lists {
            at += l.len() as u32;
            out.extend(at.to_le_bytes());
        }
        for l in &lists {
            for r in *l {
                out.extend((*r as i64).to_le_bytes());
            }
        }
        out
    }

    #[test]
    fn ranges_and_lists_in_order() {
        let fragments = vec![
            Fragment::Range { start: 0, count: 3 },
            Fragment::List(vec![5, 3]),
            Fragment::Range { start: 3, count: 0 },
            Fragment::List(vec![]),
            Fragment::List(vec![4]),
        ];
        let parsed = parse(&blob(&fragments), 6).unwrap();
        assert_eq!(parsed, fragments);
        assert_eq!(parsed[1].rows().collect::<Vec<_>>(), vec![5, 3]);
        assert_eq!(parse(&blob(&[]), 0).unwrap(), vec![]);
    }

    #[test]
    fn bad_blobs_are_refused_with_the_reason() {
        let good = blob(&[
            Fragment::Range { start: 1, count: 2 },
            Fragment::List(vec![0]),
        ]);
        let error = |mut b: Vec<u8>, edit: &dyn Fn(&mut Vec<u8>)| {
            edit(&mut b);
            parse(&b, 3).unwrap_err()
        };
        assert!(error(good.clone(), &|b| b[0] = 0).contains("magic"));
        assert!(error(good.clone(), &|b| b[4] = 2).contains("version 2"));
        assert!(error(good.clone(), &|b| b[6] = 1).contains("flags"));
        assert!(error(good.clone(), &|b| b[12] = 3).contains("range fragments of"));
        assert!(error(good.clone(), &|b| b[16] = 0b11).contains("bitmap marks 2"));
        assert!(error(good.clone(), &|b| b[16] = 0b101).contains("past the last fragment"));
        assert!(error(good.clone(), &|b| b[32] = 9).contains("outside the chunk's 3 rows"));
        assert!(error(good.clone(), &|b| b.push(0)).contains("after the end"));
        assert!(error(good.clone(), &|b| b.truncate(b.len() - 3))
            .contains("explicit row indices need 8 bytes"));
        let last = good.len() - 8;
        assert!(error(good.clone(), &|b| b[last] = 7).contains("row index 0 is 7"));
        assert!(error(good.clone(), &|b| b[8..12]
            .copy_from_slice(&u32::MAX.to_le_bytes()))
        .contains("cannot fit"));
        assert!(parse(&good[..10], 3)
            .unwrap_err()
            .contains("the fragment count"));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let good = blob(&[
            Fragment::Range { start: 1, count: 2 },
            Fragment::List(vec![0, 2]),
            Fragment::List(vec![1]),
        ]);
        for b in super::super::mutations(&good, 0x9E37_79B9_7F4A_7C15, 20000) {
            let _ = parse(&b, 3);
        }
    }
}
