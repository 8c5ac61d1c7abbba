//! An object's manifest: where its fragments are, chunk by chunk, in the order its vertices run.
//! Little-endian, unaligned: `u32 B` blocks, each `i64 chunk[D]`, `u8 mode`, then mode 0: `i64
//! fragment`; mode 1: `i64 start, i64 count` (a run of fragments); mode 2: `u32 n, i64
//! fragments[n]`.

use super::Cursor;

/// The fragments of one chunk that an object uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fragments {
    One(u64),
    Run { start: u64, count: u64 },
    List(Vec<u64>),
}

impl Fragments {
    /// The fragment numbers below `n`, in order; a run is cut to them, not walked (a run's count
    /// is the manifest's word, and may be anything).
    pub fn below(&self, n: u64) -> Box<dyn Iterator<Item = u64> + '_> {
        match self {
            Fragments::Run { start, count } => {
                Box::new((*start).min(n)..start.saturating_add(*count).min(n))
            }
            _ => Box::new(self.iter().filter(move |f| *f < n)),
        }
    }

    /// The fragment numbers, in order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        match self {
            Fragments::One(f) => Box::new(std::iter::once(*f)),
            Fragments::Run { start, count } => Box::new(*start..start + count),
            Fragments::List(list) => Box::new(list.iter().copied()),
        }
    }
}

/// One block of a manifest: a spatial chunk (in the store's chunk coordinates, which may be
/// negative) and the object's fragments in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub chunk: Vec<i64>,
    pub fragments: Fragments,
}

/// Parses a manifest of a store with `ndim` spatial dimensions.
pub fn parse(bytes: &[u8], ndim: usize) -> Result<Vec<Block>, String> {
    let mut c = Cursor::new(bytes);
    let count = c.u32("the block count")? as usize;
    // Each block takes at least its coordinates, its mode and four bytes (an empty mode-2 list).
    let least = 8 * ndim + 1 + 4;
    if count > c.remaining() / least {
        return Err(format!(
            "{count} blocks cannot fit in {} bytes",
            bytes.len()
        ));
    }
    let mut blocks = Vec::with_capacity(count);
    for b in 0..count {
        let chunk = (0..ndim)
            .map(|_| c.i64("a chunk coordinate"))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("block {b}: {e}"))?;
        let at = c.position();
        let fragment = |c: &mut Cursor, what: &str| -> Result<u64, String> {
            let v = c.i64(what)?;
            u64::try_from(v).map_err(|_| format!("block {b}: {what} is negative ({v})"))
        };
        let fragments = match c.u8("a block's mode")? {
            0 => Fragments::One(fragment(&mut c, "the fragment")?),
            1 => {
                let start = fragment(&mut c, "the run's start")?;
                let count = fragment(&mut c, "the run's length")?;
                if start.checked_add(count).is_none() {
                    return Err(format!(
                        "block {b}: a run of {count} from {start} overflows"
                    ));
                }
                Fragments::Run { start, count }
            }
            2 => {
                let n = c.u32("the list length")? as usize;
                if n > c.remaining() / 8 {
                    return Err(format!(
                        "block {b}: {n} fragments listed, {} bytes left",
                        c.remaining()
                    ));
                }
                Fragments::List(
                    (0..n)
                        .map(|_| fragment(&mut c, "a listed fragment"))
                        .collect::<Result<_, _>>()?,
                )
            }
            mode => {
                return Err(format!(
                    "block {b}: mode {mode} at byte {at}; modes are 0, 1 and 2"
                ))
            }
        };
        blocks.push(Block { chunk, fragments });
    }
    c.finish("manifest")?;
    Ok(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(out: &mut Vec<u8>, chunk: &[i64], mode: u8, values: &[i64]) {
        for v in chunk {
            out.extend(v.to_le_bytes());
        }
        out.push(mode);
        if mode == 2 {
            out.extend((values.len() as u32).to_le_bytes());
        }
        for v in values {
            out.extend(v.to_le_bytes());
        }
    }

    fn manifest() -> Vec<u8> {
        let mut out = 3u32.to_le_bytes().to_vec();
        block(&mut out, &[-1, 0, 2], 0, &[4]);
        block(&mut out, &[0, 0, 2], 1, &[2, 3]);
        block(&mut out, &[0, 1, 2], 2, &[7, 1]);
        out
    }

    #[test]
    fn empty_lists_and_runs_are_blocks_too() {
        // The writer encodes an empty fragment list as mode 2 with n = 0.
        let mut out = 2u32.to_le_bytes().to_vec();
        block(&mut out, &[0, 0, 0], 2, &[]);
        block(&mut out, &[1, 0, 0], 1, &[5, 0]);
        let blocks = parse(&out, 3).unwrap();
        assert_eq!(blocks[0].fragments, Fragments::List(vec![]));
        assert_eq!(blocks[1].fragments.iter().count(), 0);
    }

    #[test]
    fn the_three_modes() {
        let blocks = parse(&manifest(), 3).unwrap();
        assert_eq!(blocks[0].chunk, vec![-1, 0, 2]);
        assert_eq!(blocks[0].fragments, Fragments::One(4));
        assert_eq!(
            blocks[1].fragments.iter().collect::<Vec<_>>(),
            vec![2, 3, 4]
        );
        assert_eq!(blocks[2].fragments, Fragments::List(vec![7, 1]));
        assert_eq!(parse(&0u32.to_le_bytes(), 3).unwrap(), vec![]);
    }

    #[test]
    fn bad_manifests_say_why() {
        let good = manifest();
        let mut mode = good.clone();
        mode[4 + 24] = 3;
        assert!(parse(&mode, 3).unwrap_err().contains("mode 3"));
        let mut negative = good.clone();
        negative[4 + 25 + 7] = 0x80;
        assert!(parse(&negative, 3).unwrap_err().contains("negative"));
        let mut extra = good.clone();
        extra.push(1);
        assert!(parse(&extra, 3).unwrap_err().contains("after the end"));
        assert!(parse(&good[..good.len() - 1], 3)
            .unwrap_err()
            .contains("block 2: 2 fragments listed"));
        assert!(parse(&u32::MAX.to_le_bytes(), 3)
            .unwrap_err()
            .contains("cannot fit"));
        assert!(
            parse(&good, 2).is_err(),
            "read with the wrong dimension count"
        );
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let good = manifest();
        for b in super::super::mutations(&good, 0x2545_F491_4F6C_DD1D, 20000) {
            let _ = parse(&b, 3);
        }
    }
}
