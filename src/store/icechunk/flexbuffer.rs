//! A bounded reader of the FlexBuffers the repo file keeps the repository's configuration in
//! (`Repo.config`): only what finding the virtual chunk containers needs, maps of strings. Every
//! access checks its offsets against the buffer: a corrupt buffer is an error, never a panic.
//!
//! A value is a slot of its parent's width holding either the value itself (null, numbers,
//! booleans) or an offset back to it, with a packed type byte (type << 2 | width code) saying
//! which; the root's slot and type are the buffer's last bytes.

use super::flatbuffer::FbResult;

const NULL: u8 = 0;
const KEY: u8 = 4;
const STRING: u8 = 5;
const MAP: u8 = 9;

/// A value: where its slot is, the slot's width, and its packed type.
#[derive(Clone, Copy, Debug)]
pub struct Value<'a> {
    buf: &'a [u8],
    slot: usize,
    slot_width: usize,
    packed: u8,
}

fn uint(buf: &[u8], at: usize, width: usize) -> FbResult<u64> {
    let bytes = at
        .checked_add(width)
        .and_then(|end| buf.get(at..end))
        .ok_or_else(|| format!("a {width}-byte value at byte {at} lies past the end"))?;
    Ok(bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
}

fn width_of(packed: u8) -> usize {
    1 << (packed & 3)
}

/// The root value of a FlexBuffer.
pub fn root(buf: &[u8]) -> FbResult<Value<'_>> {
    let n = buf.len();
    if n < 3 {
        return Err(format!("a FlexBuffer of {n} bytes"));
    }
    let slot_width = buf[n - 1] as usize;
    if !matches!(slot_width, 1 | 2 | 4 | 8) || slot_width + 2 > n {
        return Err(format!("a root of width {slot_width}"));
    }
    Ok(Value {
        buf,
        slot: n - 2 - slot_width,
        slot_width,
        packed: buf[n - 2],
    })
}

impl<'a> Value<'a> {
    pub fn is_null(&self) -> bool {
        self.packed >> 2 == NULL
    }

    /// Where an offset type's data starts.
    fn target(&self) -> FbResult<usize> {
        let back = uint(self.buf, self.slot, self.slot_width)?;
        usize::try_from(back)
            .ok()
            .and_then(|b| self.slot.checked_sub(b))
            .ok_or_else(|| format!("an offset at byte {} points before the buffer", self.slot))
    }

    /// The text of a string; None for another type.
    pub fn str(&self) -> FbResult<Option<&'a str>> {
        if self.packed >> 2 != STRING {
            return Ok(None);
        }
        let at = self.target()?;
        let w = width_of(self.packed);
        let len = uint(
            self.buf,
            at.checked_sub(w).ok_or("a string before the buffer")?,
            w,
        )?;
        let bytes = usize::try_from(len)
            .ok()
            .and_then(|len| self.buf.get(at..at.checked_add(len)?))
            .ok_or_else(|| format!("a string of {len} bytes past the end"))?;
        std::str::from_utf8(bytes)
            .map(Some)
            .map_err(|_| "a string that is not UTF-8".to_string())
    }

    /// A map's entries (keys, then the values by the same index); None for another type.
    pub fn map(&self) -> FbResult<Option<Map<'a>>> {
        if self.packed >> 2 != MAP {
            return Ok(None);
        }
        let at = self.target()?;
        let w = width_of(self.packed);
        let before = |k: usize| at.checked_sub(k * w).ok_or("a map before the buffer");
        let len = uint(self.buf, before(1)?, w)?;
        let keys_width = uint(self.buf, before(2)?, w)?;
        let keys_slot = before(3)?;
        let keys_back = uint(self.buf, keys_slot, w)?;
        let keys = usize::try_from(keys_back)
            .ok()
            .and_then(|b| keys_slot.checked_sub(b))
            .ok_or("a map's keys before the buffer")?;
        let len = usize::try_from(len).map_err(|_| "a map too long")?;
        if !matches!(keys_width, 1 | 2 | 4 | 8) {
            return Err(format!("a map's keys of width {keys_width}"));
        }
        let keys_width = keys_width as usize;
        // Its values, then a type byte each; its keys' offsets: all within the buffer.
        let values_end = len
            .checked_mul(w)
            .and_then(|v| at.checked_add(v))
            .and_then(|v| v.checked_add(len))
            .filter(|&end| end <= self.buf.len());
        let keys_end = len
            .checked_mul(keys_width)
            .and_then(|k| keys.checked_add(k))
            .filter(|&end| end <= self.buf.len());
        if values_end.is_none() || keys_end.is_none() {
            return Err(format!("a map of {len} entries past the end"));
        }
        Ok(Some(Map {
            buf: self.buf,
            at,
            width: w,
            keys,
            keys_width,
            len,
        }))
    }
}

/// A map: `len` keys at `keys` (offsets of `keys_width` bytes to null-terminated keys) and
/// values at `at` (`width` bytes each, then a type byte each).
#[derive(Clone, Copy, Debug)]
pub struct Map<'a> {
    buf: &'a [u8],
    at: usize,
    width: usize,
    keys: usize,
    keys_width: usize,
    len: usize,
}

impl<'a> Map<'a> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn key(&self, i: usize) -> FbResult<&'a str> {
        if i >= self.len {
            return Err(format!("key {i} of a map of {}", self.len));
        }
        let slot = self.keys + i * self.keys_width;
        let back = uint(self.buf, slot, self.keys_width)?;
        let at = usize::try_from(back)
            .ok()
            .and_then(|b| slot.checked_sub(b))
            .ok_or("a key before the buffer")?;
        let rest = self.buf.get(at..).ok_or("a key past the end")?;
        let end = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or("a key without its terminating zero")?;
        std::str::from_utf8(&rest[..end]).map_err(|_| "a key that is not UTF-8".to_string())
    }

    pub fn value(&self, i: usize) -> FbResult<Value<'a>> {
        if i >= self.len {
            return Err(format!("entry {i} of a map of {}", self.len));
        }
        let packed = self.buf[self.at + self.len * self.width + i];
        if packed >> 2 == KEY {
            return Err("a map value of type key".into());
        }
        Ok(Value {
            buf: self.buf,
            slot: self.at + i * self.width,
            slot_width: self.width,
            packed,
        })
    }

    /// The value of `key`, where the map has it (keys are sorted, but a linear scan serves any
    /// map: the configuration's are small).
    pub fn get(&self, key: &str) -> FbResult<Option<Value<'a>>> {
        for i in 0..self.len {
            if self.key(i)? == key {
                return self.value(i).map(Some);
            }
        }
        Ok(None)
    }
}

/// The virtual chunk containers of a repository configuration: `(name, url_prefix)` of those
/// that have a name (the ones `vcc://<name>/...` locations refer to).
pub fn named_containers(config: &[u8]) -> FbResult<Vec<(String, String)>> {
    let Some(top) = root(config)?.map()? else {
        return Err("the configuration is not a map".into());
    };
    let Some(containers) = top.get("virtual_chunk_containers")? else {
        return Ok(Vec::new());
    };
    if containers.is_null() {
        return Ok(Vec::new());
    }
    let Some(containers) = containers.map()? else {
        return Err("virtual_chunk_containers is not a map".into());
    };
    let mut out = Vec::new();
    for i in 0..containers.len() {
        let Some(c) = containers.value(i)?.map()? else {
            return Err("a virtual chunk container that is not a map".into());
        };
        let name = match c.get("name")? {
            Some(v) => v.str()?,
            None => None,
        };
        let prefix = match c.get("url_prefix")? {
            Some(v) => v.str()?,
            None => None,
        };
        if let (Some(name), Some(prefix)) = (name, prefix) {
            out.push((name.to_string(), prefix.to_string()));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_named_containers_of_the_fixture_repository() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/icechunk/v2/repo"
        );
        let file = std::fs::read(path).unwrap();
        let f = futures_executor::block_on(super::super::header::read(
            &file,
            super::super::header::FileType::RepoInfo,
            1 << 20,
        ))
        .unwrap();
        let config = super::super::refs::RepoInfo::parse(&f.payload)
            .unwrap()
            .config()
            .unwrap();
        assert_eq!(
            named_containers(config).unwrap(),
            [(
                "data".to_string(),
                "https://example.org/icechunk/".to_string()
            )]
        );
        // Cut or changed anywhere: read or refused, never a panic.
        for cut in 0..config.len() {
            let _ = named_containers(&config[cut..]);
            let _ = named_containers(&config[..cut]);
        }
        for i in 0..config.len() {
            for v in [0u8, 1, 0x7f, 0xff] {
                let mut c = config.to_vec();
                c[i] = v;
                let _ = named_containers(&c);
            }
        }
        assert!(named_containers(&[]).is_err());
        assert!(named_containers(&[0, 0, 9]).is_err());
    }
}
