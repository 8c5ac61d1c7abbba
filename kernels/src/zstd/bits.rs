//! The two bit readers of Zstandard: a backward one for the entropy-coded streams (Huffman
//! literals, FSE sequences and weights), which are written forwards and read from their end, and
//! a forward one for FSE table descriptions.

/// How a backward stream stands after a reload (zstd's `BIT_DStream_status`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    /// At least 8 bytes were still unread before this reload: the container is full.
    Unfinished,
    /// The container holds the stream's last unread bytes.
    EndOfBuffer,
    /// Every bit is read.
    Completed,
    /// More bits were read than the stream holds: it is corrupt (or, for Huffman weights, ended).
    Overflow,
}

/// Reads a stream from its last bit to its first. The stream's last byte holds a 1 above its
/// last bit, which is where reading starts. `container` holds the 8 bytes from `at` (all of a
/// shorter stream, as if zero bytes preceded it); `consumed` counts the bits of it read, from the
/// top. Reads past the start give zeros and leave `consumed` above 64, which `reload` reports.
pub struct BackwardBits<'a> {
    src: &'a [u8],
    at: usize,
    container: u64,
    consumed: u32,
}

impl<'a> BackwardBits<'a> {
    /// (Inlined, as `reload_near_start` is: a call that is handed the reader would keep its
    /// state in memory, stored at every read, instead of in registers.)
    #[inline(always)]
    pub fn new(src: &'a [u8]) -> Result<BackwardBits<'a>, String> {
        let last = match src.last() {
            Some(&last) if last != 0 => last,
            _ => return Err(unmarked()),
        };
        let mark = last.leading_zeros() + 1;
        Ok(if src.len() >= 8 {
            let at = src.len() - 8;
            BackwardBits {
                src,
                at,
                container: load(src, at),
                consumed: mark,
            }
        } else {
            let container = src
                .iter()
                .rev()
                .fold(0u64, |acc, &b| acc << 8 | u64::from(b));
            BackwardBits {
                src,
                at: 0,
                container,
                consumed: mark + (8 - src.len() as u32) * 8,
            }
        })
    }

    /// The next `n` bits (0 to 56) without reading them.
    #[inline(always)]
    pub fn peek(&self, n: u32) -> u64 {
        (self.container << (self.consumed & 63)) >> 1 >> (63 - n)
    }

    /// The next bits, `64 - shift` of them (1 to 63), without reading them: one shift less than
    /// `peek`, for the Huffman decoder's loop.
    #[inline(always)]
    pub fn peek_shifted(&self, shift: u32) -> u64 {
        self.container.wrapping_shl(self.consumed) >> shift
    }

    #[inline(always)]
    pub fn skip(&mut self, n: u32) {
        self.consumed += n;
    }

    /// Reads `n` bits (0 to 56).
    #[inline(always)]
    pub fn read(&mut self, n: u32) -> u64 {
        let value = self.peek(n);
        self.consumed += n;
        value
    }

    /// Refills the container from the stream: up to 56 bits can be read after it while the
    /// status is `Unfinished`.
    #[inline(always)]
    pub fn reload(&mut self) -> Status {
        if self.consumed > 64 {
            return Status::Overflow;
        }
        if self.at >= 8 {
            self.at -= (self.consumed >> 3) as usize;
            self.consumed &= 7;
            self.container = load(self.src, self.at);
            return Status::Unfinished;
        }
        self.reload_near_start()
    }

    #[inline(always)]
    fn reload_near_start(&mut self) -> Status {
        if self.at == 0 {
            return match self.consumed {
                64 => Status::Completed,
                _ => Status::EndOfBuffer,
            };
        }
        let (bytes, status) = match (self.consumed >> 3) as usize {
            n if n > self.at => (self.at, Status::EndOfBuffer),
            n => (n, Status::Unfinished),
        };
        self.at -= bytes;
        self.consumed -= bytes as u32 * 8;
        self.container = load(self.src, self.at);
        status
    }

    /// The reader as libzstd's fast Huffman loop holds it: the container's unread bits at the top,
    /// a 1 below them (a sentinel: its distance from bit 0 is the count of bits read). Needs
    /// `consumed <= 8`, as after `new` or a full reload.
    #[inline(always)]
    pub fn fused(&self) -> (usize, u64) {
        (self.at, (self.container | 1).wrapping_shl(self.consumed))
    }

    /// Takes back the state the fast loop left: the container loaded at `at`, `bits` read of it.
    #[inline(always)]
    pub fn set_fused(&mut self, at: usize, bits: u64) {
        self.at = at;
        self.container = load(self.src, at);
        self.consumed = bits.trailing_zeros();
    }

    pub fn src(&self) -> &'a [u8] {
        self.src
    }

    /// Whether every bit of the stream has been read, and no more.
    pub fn is_complete(&self) -> bool {
        self.at == 0 && self.consumed == 64
    }
}

#[cold]
fn unmarked() -> String {
    "an entropy-coded stream is empty or its last byte lacks its end mark".into()
}

#[inline(always)]
fn load(src: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&src[at..at + 8]);
    u64::from_le_bytes(word)
}

/// Reads bits from the start of a byte string, low bits first (FSE table descriptions). Reads
/// past the end give zeros; `bytes_used` tells the caller how far it went.
pub struct ForwardBits<'a> {
    src: &'a [u8],
    position: usize,
}

impl<'a> ForwardBits<'a> {
    pub fn new(src: &'a [u8], position: usize) -> ForwardBits<'a> {
        ForwardBits { src, position }
    }

    /// The next `n` bits (at most 25) without reading them.
    pub fn peek(&self, n: u32) -> u32 {
        let byte = self.position / 8;
        let word = (0..4).fold(0u32, |acc, i| {
            acc | u32::from(self.src.get(byte + i).copied().unwrap_or(0)) << (8 * i)
        });
        (word >> (self.position % 8)) & ((1u32 << n) - 1)
    }

    pub fn skip(&mut self, n: u32) {
        self.position += n as usize;
    }

    pub fn read(&mut self, n: u32) -> u32 {
        let value = self.peek(n);
        self.skip(n);
        value
    }

    /// The bytes read so far, the last one counted whole.
    pub fn bytes_used(&self) -> usize {
        self.position.div_ceil(8)
    }
}
