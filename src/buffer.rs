//! Allocation that fails with an error instead of aborting. Sizes come from metadata and headers
//! that a server controls; in wasm an aborted allocation kills the module for every caller.

/// A zeroed buffer of `len` bytes, or an error naming the size.
pub fn try_zeroed(len: usize) -> Result<Vec<u8>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| format!("cannot allocate {len} bytes"))?;
    v.resize(len, 0);
    Ok(v)
}

/// Grows `v` to `len` zeroed bytes, or an error naming the size.
pub fn try_grow(v: &mut Vec<u8>, len: usize) -> Result<(), String> {
    if len > v.len() {
        v.try_reserve_exact(len - v.len()).map_err(|_| format!("cannot allocate {len} bytes"))?;
        v.resize(len, 0);
    }
    Ok(())
}
