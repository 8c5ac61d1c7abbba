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
        zarr_wasm_kernels::bytes::grow_zeroed(v, len);
    }
    Ok(())
}

/// Where a decoder that works in steps writes (see `codecs::codec::StepDecoder`): the caller's
/// buffer, or a vector grown as the output needs. The output so far is at its start, and the
/// decoder keeps track of where it ends.
pub enum Output<'a> {
    /// The caller's buffer, the output's exact size: a chunk decoded straight into a read's
    /// result.
    Fixed(&'a mut [u8]),
    /// A vector grown as needed, for output whose size is not known beforehand.
    Growing(&'a mut Vec<u8>),
}

impl Output<'_> {
    /// The output as one slice, what is written and the room after it: where it grows, at least
    /// `len` bytes long, never past `limit`. A vector grows at least twofold, so that growing by
    /// steps copies no more than growing at once would.
    pub fn room(&mut self, len: usize, limit: usize) -> Result<&mut [u8], String> {
        match self {
            Output::Fixed(out) => Ok(out),
            Output::Growing(vec) => {
                let wanted = len.min(limit);
                if vec.len() < wanted {
                    try_grow(vec, wanted.max(vec.len().saturating_mul(2)).min(limit))?;
                }
                Ok(vec.as_mut_slice())
            }
        }
    }

    /// The output as it is: what is written, and any room after it.
    pub fn contents(&self) -> &[u8] {
        match self {
            Output::Fixed(out) => out,
            Output::Growing(vec) => vec,
        }
    }
}

/// Runs a decoder that works in steps (`step(budget)`: the final length once done) to its end
/// in one go: the one-shot decode of every such decoder.
pub fn in_one_go<T, E>(mut step: impl FnMut(usize) -> Result<Option<T>, E>) -> Result<T, E> {
    loop {
        if let Some(done) = step(usize::MAX)? {
            return Ok(done);
        }
    }
}
