//! Results of variable-length types (strings, byte strings). Elements cannot be copied as fixed-size
//! bytes, so each element of a decoded chunk or result is a handle: a native-order u64 index into
//! `Items`, which holds every item's bytes. Selections, fill values and region copies then work on
//! handles exactly as on numbers. Item 0 is the fill value.
//!
//! Stored, a chunk of them is in numcodecs' vlen layout (`item_ranges`): the `vlen-*` codecs and
//! sharding's inner chunks both read it.

use crate::data_type::VARIABLE_HANDLE_SIZE;
use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Items {
    data: Vec<u8>,
    /// Item `i` is `data[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<usize>,
}

impl Items {
    /// A list holding only the fill item, handle 0.
    pub fn with_fill(fill: &[u8]) -> Items {
        Items {
            data: fill.to_vec(),
            ends: vec![fill.len()],
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Adds an item; returns its index, or an error where memory for it cannot be had.
    pub fn push(&mut self, item: &[u8]) -> Result<usize, String> {
        let no_room = || format!("cannot allocate {} bytes for an item", item.len());
        self.data.try_reserve(item.len()).map_err(|_| no_room())?;
        self.ends.try_reserve(1).map_err(|_| no_room())?;
        self.data.extend_from_slice(item);
        self.ends.push(self.data.len());
        Ok(self.ends.len() - 1)
    }

    /// The bytes of item `i`.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.data.get(start..end)
    }

    /// The item a handle element (`VARIABLE_HANDLE_SIZE` native-order bytes) refers to.
    pub fn resolve(&self, handle: &[u8]) -> Option<&[u8]> {
        let index = u64::from_ne_bytes(handle.try_into().ok()?);
        self.get(usize::try_from(index).ok()?)
    }

    /// Adds the `n` elements of a chunk in vlen layout and returns the chunk as handles. An item
    /// longer than `max_item` bytes is refused (JavaScript strings have a length limit of their own).
    pub fn push_chunk(
        &mut self,
        chunk: &[u8],
        n: usize,
        max_item: usize,
    ) -> Result<Vec<u8>, String> {
        let ranges = item_ranges(chunk, n)?;
        if let Some((i, r)) = ranges.iter().enumerate().find(|(_, r)| r.len() > max_item) {
            return Err(format!(
                "item {i} is {} bytes, more than the {max_item} an item may have (limits.maxItemBytes; JavaScript's longest string is {} units)",
                r.len(),
                crate::limits::JS_MAX_STRING_LENGTH
            ));
        }
        let mut handles = Vec::new();
        handles
            .try_reserve_exact(n * VARIABLE_HANDLE_SIZE)
            .map_err(|_| format!("cannot allocate handles for {n} elements"))?;
        self.data
            .try_reserve(chunk.len())
            .map_err(|_| format!("cannot allocate {} bytes", chunk.len()))?;
        for r in ranges {
            handles.extend((self.ends.len() as u64).to_ne_bytes());
            self.data.extend_from_slice(&chunk[r]);
            self.ends.push(self.data.len());
        }
        Ok(handles)
    }
}

/// Elements in a chunk of `shape`, if that count fits in memory at all.
pub fn element_count(shape: &[u64]) -> Option<usize> {
    let n = shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))?;
    usize::try_from(n).ok()
}

/// Where each of the `n` elements of an encoded chunk lies in it.
pub fn item_ranges(encoded: &[u8], n: usize) -> Result<Vec<Range<usize>>, String> {
    let u32_at = |at: usize| -> Option<usize> {
        let b = encoded.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let count = u32_at(0)
        .ok_or_else(|| format!("{} bytes is too short for the element count", encoded.len()))?;
    if count != n {
        return Err(format!(
            "the chunk holds {count} elements, its shape has {n}"
        ));
    }
    // Each element takes at least its 4-byte length, which bounds the list before allocating it.
    if n > (encoded.len() - 4) / 4 {
        return Err(format!(
            "{n} elements cannot fit in {} bytes",
            encoded.len()
        ));
    }
    let mut ranges = Vec::with_capacity(n);
    let mut pos = 4usize;
    for i in 0..n {
        let len = u32_at(pos)
            .ok_or_else(|| format!("element {i}'s length is past the end of the data"))?;
        let start = pos + 4;
        let end = start
            .checked_add(len)
            .filter(|&e| e <= encoded.len())
            .ok_or_else(|| format!("element {i} of {len} bytes runs past the end of the data"))?;
        ranges.push(start..end);
        pos = end;
    }
    if pos != encoded.len() {
        return Err(format!(
            "{} bytes follow the last element",
            encoded.len() - pos
        ));
    }
    Ok(ranges)
}

/// `items` in vlen layout (u32 count, then each item's u32 length and bytes), its size counted
/// (with overflow checked) and allocated, fallibly, before any byte is written.
pub fn layout(items: &[&[u8]]) -> Result<Vec<u8>, String> {
    let too_large = || format!("{} variable-length items are too large", items.len());
    let count = u32::try_from(items.len()).map_err(|_| too_large())?;
    let size = items
        .iter()
        .try_fold(4usize, |n, item| {
            u32::try_from(item.len()).ok()?;
            n.checked_add(4)?.checked_add(item.len())
        })
        .ok_or_else(too_large)?;
    let mut out = Vec::new();
    out.try_reserve_exact(size)
        .map_err(|_| format!("cannot allocate {size} bytes"))?;
    out.extend(count.to_le_bytes());
    for item in items {
        out.extend((item.len() as u32).to_le_bytes());
        out.extend_from_slice(item);
    }
    Ok(out)
}

/// The positions 0..n, each as a native-order u64 (as handles are): reordering codecs run on
/// them to learn where each item of a variable-length chunk goes.
pub fn positions(n: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    out.try_reserve_exact(n.saturating_mul(8))
        .map_err(|_| format!("cannot allocate positions for {n} elements"))?;
    for i in 0..n as u64 {
        out.extend(i.to_ne_bytes());
    }
    Ok(out)
}

/// The items of a chunk in vlen layout (`chunk`, its item `ranges`) in the order `positions`
/// (native-order u64 indexes) gives, laid out again.
pub fn reorder(chunk: &[u8], ranges: &[Range<usize>], positions: &[u8]) -> Result<Vec<u8>, String> {
    let items = positions
        .chunks_exact(8)
        .map(|p| {
            let i = u64::from_ne_bytes(p.try_into().unwrap_or_default());
            usize::try_from(i)
                .ok()
                .and_then(|i| ranges.get(i))
                .map(|r| &chunk[r.clone()])
                .ok_or_else(|| format!("position {i} is past the chunk's {} items", ranges.len()))
        })
        .collect::<Result<Vec<&[u8]>, String>>()?;
    layout(&items)
}
