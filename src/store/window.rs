//! The part of a whole value a range request wanted, kept as the value streams in.
//!
//! A server that ignores Range answers a request for a 16 KiB shard index with the whole shard
//! (200). Holding the whole body to cut the range out of it costs the shard's size, for a few
//! KiB; a `BodyWindow` keeps only the wanted bytes as the parts arrive, and says when a span is
//! complete, so that the client can stop reading the rest.

use super::ByteRange;
use std::collections::TryReserveError;
use std::ops::Range;

/// The wanted part of a body that arrives in parts.
#[derive(Debug)]
pub struct BodyWindow {
    range: ByteRange,
    /// Body bytes seen so far, kept or not.
    seen: u64,
    /// For a span or an open end: the bytes kept, in order. For a suffix: the latest bytes, of
    /// which the last `n` are the answer (`into_body` drops the rest).
    kept: Vec<u8>,
}

impl BodyWindow {
    pub fn new(range: ByteRange) -> Self {
        BodyWindow {
            range,
            seen: 0,
            kept: Vec::new(),
        }
    }

    /// Takes the next `len` bytes of the body: `copy(part, into)` is called at most once, to copy
    /// the bytes `part` of those `len` (offsets within them) into `into`, which is as long as
    /// `part`. Memory is bounded by the window, never by the body: at most the span asked for, or
    /// twice a suffix's length.
    pub fn take(
        &mut self,
        len: usize,
        copy: impl FnOnce(Range<usize>, &mut [u8]),
    ) -> Result<(), TryReserveError> {
        let start = self.seen;
        self.seen = self.seen.saturating_add(len as u64);
        let part = match self.range {
            ByteRange::Span { offset, length } => {
                let end = offset.saturating_add(length);
                clip(start, len, offset, end)
            }
            ByteRange::From(offset) => clip(start, len, offset, u64::MAX),
            ByteRange::Suffix(n) => {
                let n = usize::try_from(n).unwrap_or(usize::MAX);
                if len >= n {
                    // The part alone holds the whole suffix.
                    self.kept.clear();
                    len - n..len
                } else {
                    // Older bytes go once twice the suffix is held: each byte moves at most once.
                    if self.kept.len() + len > n.saturating_mul(2) {
                        let drop = self.kept.len().saturating_sub(n - len);
                        self.kept.drain(..drop);
                    }
                    0..len
                }
            }
        };
        if part.is_empty() {
            return Ok(());
        }
        let at = self.kept.len();
        self.kept.try_reserve_exact(part.len())?;
        self.kept.resize(at + part.len(), 0);
        copy(part, &mut self.kept[at..]);
        Ok(())
    }

    /// Whether every wanted byte has come (a span or a suffix whose end is past): the rest of the
    /// body need not be read. Never for a suffix or an open end, whose end is the body's.
    pub fn complete(&self) -> bool {
        match self.range {
            ByteRange::Span { offset, length } => self.seen >= offset.saturating_add(length),
            ByteRange::From(_) | ByteRange::Suffix(_) => false,
        }
    }

    /// The wanted part of the body seen: what `range.cut(body)` gives of the whole body.
    pub fn into_body(mut self) -> Vec<u8> {
        if let ByteRange::Suffix(n) = self.range {
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            let extra = self.kept.len().saturating_sub(n);
            self.kept.drain(..extra);
        }
        self.kept
    }
}

/// The offsets, within a part of `len` bytes at body offset `start`, of the bytes in
/// `[from, to)`.
fn clip(start: u64, len: usize, from: u64, to: u64) -> Range<usize> {
    let end = start.saturating_add(len as u64);
    let a = from.clamp(start, end) - start;
    let b = to.clamp(start, end) - start;
    a as usize..b.max(a) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `body` fed to a window in parts of `part` bytes.
    fn through(range: ByteRange, body: &[u8], part: usize) -> (Vec<u8>, usize) {
        let mut window = BodyWindow::new(range);
        let mut peak = 0;
        for chunk in body.chunks(part) {
            window
                .take(chunk.len(), |r, into| into.copy_from_slice(&chunk[r]))
                .unwrap();
            peak = peak.max(window.kept.capacity());
        }
        (window.into_body(), peak)
    }

    #[test]
    fn keeps_what_cut_gives_for_every_range_and_part_size() {
        let body: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let ranges = [
            ByteRange::Span {
                offset: 0,
                length: 10,
            },
            ByteRange::Span {
                offset: 995,
                length: 10,
            },
            ByteRange::Span {
                offset: 300,
                length: 400,
            },
            ByteRange::Span {
                offset: 2000,
                length: 4,
            },
            ByteRange::From(0),
            ByteRange::From(999),
            ByteRange::From(5000),
            ByteRange::Suffix(0),
            ByteRange::Suffix(1),
            ByteRange::Suffix(16),
            ByteRange::Suffix(999),
            ByteRange::Suffix(1000),
            ByteRange::Suffix(4000),
        ];
        for range in ranges {
            for part in [1, 3, 15, 16, 17, 64, 999, 1000, 4096] {
                let (kept, _) = through(range, &body, part);
                assert_eq!(kept, range.cut(&body), "{range:?} in parts of {part}");
            }
        }
    }

    #[test]
    fn memory_is_the_window_not_the_body() {
        let body = vec![7u8; 1 << 20];
        let (kept, peak) = through(ByteRange::Suffix(1024), &body, 100);
        assert_eq!(kept.len(), 1024);
        assert!(peak <= 3 * 1024, "a 1 KiB suffix held {peak} bytes");
        let (kept, peak) = through(
            ByteRange::Span {
                offset: 5000,
                length: 300,
            },
            &body,
            4096,
        );
        assert_eq!(kept.len(), 300);
        assert!(peak <= 300, "a 300-byte span held {peak} bytes");
    }

    #[test]
    fn a_span_is_complete_once_its_end_has_come() {
        let mut window = BodyWindow::new(ByteRange::Span {
            offset: 10,
            length: 5,
        });
        window.take(12, |_, _| {}).unwrap();
        assert!(!window.complete());
        window.take(3, |_, _| {}).unwrap();
        assert!(window.complete());
        assert!(!BodyWindow::new(ByteRange::Suffix(4)).complete());
    }
}
