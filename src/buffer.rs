//! Allocation that fails with an error instead of aborting. Sizes come from metadata and headers
//! that a server controls; in wasm an aborted allocation kills the module for every caller.

/// No buffer may exceed wasm32's whole address space; native builds keep the same ceiling so that
/// they fail where the wasm build fails (and tests cannot ask the host for terabytes).
pub const MAX_BUFFER: usize = if usize::BITS > 32 {
    1 << 32
} else {
    usize::MAX
};

/// A zeroed buffer of `len` bytes, or an error naming the size.
pub fn try_zeroed(len: usize) -> Result<Vec<u8>, String> {
    let mut v = Vec::new();
    try_grow(&mut v, len)?;
    Ok(v)
}

/// Grows `v` to `len` zeroed bytes, or an error naming the size.
pub fn try_grow(v: &mut Vec<u8>, len: usize) -> Result<(), String> {
    // Compared as u64: on wasm32 the ceiling is usize::MAX and the test can never fail, which is
    // the point (the allocator then says no), but the same code serves 64-bit hosts.
    if len as u64 > MAX_BUFFER as u64 {
        return Err(format!(
            "cannot allocate {len} bytes (more than {MAX_BUFFER})"
        ));
    }
    if len > v.len() {
        v.try_reserve_exact(len - v.len())
            .map_err(|_| format!("cannot allocate {len} bytes"))?;
        v.resize(len, 0);
    }
    Ok(())
}
