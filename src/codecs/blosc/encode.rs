//! Blosc chunks written as c-blosc 1.x writes them (format version 2), so that numcodecs' C
//! library and our decoder read them: the header, the table of block offsets, then each block
//! shuffled (bytes or bits) and compressed, in one stream or in one per byte of the type. A
//! stream that does not get smaller is stored as it is; a chunk that does not is stored whole
//! (the "memcpyed" flag). Block sizes are chosen by the rules c-blosc 1.x chooses them by.

use super::format::{
    CompressorName, Settings, ShuffleKind, FLAG_BITSHUFFLE, FLAG_DONT_SPLIT, FLAG_MEMCPYED,
    FLAG_SHUFFLE, HEADER_LEN, MAX_SPLITS, MIN_SPLIT_ELEMENTS,
};
use zarr_wasm_kernels::{blosclz, lz4, shuffle};

/// The L1 cache size c-blosc sizes its blocks from.
const L1: usize = 32 * 1024;

/// Chunks smaller than this are stored whole (c-blosc's `MIN_BUFFERSIZE`).
const MIN_BUFFER: usize = 128;

/// Whether chunks can be written with these settings (snappy has no encoder here).
pub fn encodes(settings: &Settings) -> bool {
    settings.cname != CompressorName::Snappy
}

/// The compressor's code in the header (lz4hc writes LZ4 blocks, code 1).
fn code(cname: CompressorName) -> u8 {
    match cname {
        CompressorName::BloscLz => 0,
        CompressorName::Lz4 | CompressorName::Lz4hc => 1,
        CompressorName::Snappy => 2,
        CompressorName::Zlib => 3,
        CompressorName::Zstd => 4,
    }
}

/// Compressors c-blosc gives larger blocks, for their higher ratios.
fn high_ratio(cname: CompressorName) -> bool {
    matches!(
        cname,
        CompressorName::Lz4hc | CompressorName::Zlib | CompressorName::Zstd
    )
}

/// Whether blocks of `blocksize` are split into one stream per byte of the type: for every
/// compressor but zstd (c-blosc 1.x's default), where the type has at most 16 bytes and a block at
/// least 128 elements.
fn splits(cname: CompressorName, typesize: usize, blocksize: usize) -> bool {
    cname != CompressorName::Zstd
        && typesize <= MAX_SPLITS
        && blocksize / typesize >= MIN_SPLIT_ELEMENTS
}

/// The block size for `nbytes` of data: the L1 size scaled by the level (and doubled for the
/// high-ratio compressors), grown for split blocks, at most the data, a multiple of the type.
fn block_size(settings: &Settings, nbytes: usize) -> usize {
    let Settings {
        cname,
        clevel,
        typesize,
        blocksize,
        ..
    } = *settings;
    if nbytes < typesize {
        return 1;
    }
    let mut size = if blocksize > 0 {
        blocksize.max(MIN_BUFFER)
    } else if nbytes >= L1 {
        let base = if high_ratio(cname) { 2 * L1 } else { L1 };
        match clevel {
            0 => base / 4,
            1 => base / 2,
            2 => base,
            3 => base * 2,
            4 | 5 => base * 4,
            6..=8 => base * 8,
            _ => base * if high_ratio(cname) { 16 } else { 8 },
        }
    } else {
        nbytes
    };
    if blocksize == 0 && clevel > 0 && splits(cname, typesize, size) {
        size = (size.min(1 << 18) * typesize).clamp(1 << 16, 1 << 20);
    }
    size = size.min(nbytes);
    if size > typesize {
        size = size / typesize * typesize;
    }
    size
}

thread_local! {
    /// Where LZ4 writes a stream before it is appended to the chunk (room for the largest output
    /// made once, not zeroed again for each stream).
    static LZ4_OUT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The most the LZ4 scratch keeps between streams: room for a stream of 1 MiB, Blosc's largest
/// block when it chooses (after a larger block asked for, the scratch is let go).
const LZ4_OUT_KEPT: usize = lz4::max_compressed_size(1 << 20);

/// Appends `stream` to `out` as a Blosc stream: its compressed size (4 bytes) and `cname`'s
/// bytes at `clevel`, or where those are no smaller, its size and the stream itself.
fn push_stream(
    cname: CompressorName,
    clevel: u8,
    stream: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let at = out.len();
    let compressed = match cname {
        // LZ4 into the thread's scratch, then its bytes onto `out` (the fastest compressor: a
        // block's allocation was a sixth of its time, and zeroing room for the largest output
        // in `out` for each stream, growing it as it went, a twelfth of converting to it).
        CompressorName::Lz4 => LZ4_OUT.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let room = lz4::max_compressed_size(stream.len());
            if scratch.len() < room {
                scratch.resize(room, 0);
            }
            let len = lz4::compress_into(stream, &mut scratch[..room], lz4_acceleration(clevel))?;
            // No smaller: stored as it is, below.
            if len < stream.len() {
                out.extend((len as u32).to_le_bytes());
                out.extend_from_slice(&scratch[..len]);
            }
            if scratch.len() > LZ4_OUT_KEPT {
                *scratch = Vec::new();
            }
            Ok::<usize, String>(len)
        })?,
        _ => {
            let bytes = compress(cname, clevel, stream)?;
            out.extend((bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(&bytes);
            bytes.len()
        }
    };
    if compressed == 0 || compressed >= stream.len() {
        out.truncate(at);
        out.extend((stream.len() as u32).to_le_bytes());
        out.extend_from_slice(stream);
    } else {
        out[at..at + 4].copy_from_slice(&(compressed as u32).to_le_bytes());
    }
    Ok(())
}

/// LZ4's acceleration at Blosc's `clevel`, as c-blosc sets it: 10 - clevel (9 at level 1, 1 at
/// level 9), so that a level is as fast, and compresses as much, as C's.
fn lz4_acceleration(clevel: u8) -> u32 {
    10u32.saturating_sub(u32::from(clevel)).max(1)
}

/// `stream` compressed with `cname` at `clevel` (LZ4 apart: see `push_stream`).
fn compress(cname: CompressorName, clevel: u8, stream: &[u8]) -> Result<Vec<u8>, String> {
    Ok(match cname {
        CompressorName::BloscLz => blosclz::compress(stream),
        CompressorName::Lz4hc => crate::compression::lz4hc::compress(stream, clevel),
        CompressorName::Lz4 => {
            let mut out = vec![0; lz4::max_compressed_size(stream.len())];
            let len = lz4::compress_into(stream, &mut out, lz4_acceleration(clevel))?;
            out.truncate(len);
            out
        }
        CompressorName::Zlib => crate::compression::deflate::deflate(stream, clevel, true),
        CompressorName::Zstd => {
            // c-blosc's mapping of its levels to zstd's: twice less one, the most at 9.
            let level = match clevel {
                9 => 22,
                l => (2 * l as i32 - 1).max(1),
            };
            crate::codecs::zstd::frame(stream, level, false)?
        }
        CompressorName::Snappy => return Err("snappy cannot be encoded by zarr-wasm".into()),
    })
}

/// The 16-byte header.
fn header(flags: u8, typesize: usize, nbytes: usize, blocksize: usize, cbytes: usize) -> Vec<u8> {
    let mut h = vec![2, 1, flags, typesize as u8];
    h.extend((nbytes as u32).to_le_bytes());
    h.extend((blocksize as u32).to_le_bytes());
    h.extend((cbytes as u32).to_le_bytes());
    h
}

/// `data` stored whole behind a header that says so.
fn stored(settings: &Settings, data: &[u8], flags: u8) -> Vec<u8> {
    let nbytes = data.len();
    let mut out = header(
        flags | FLAG_MEMCPYED,
        settings.typesize,
        nbytes,
        nbytes.max(1),
        nbytes + HEADER_LEN,
    );
    out.extend_from_slice(data);
    out
}

/// `data` as one Blosc chunk.
pub fn encode(settings: &Settings, data: &[u8]) -> Result<Vec<u8>, String> {
    match Encoder::new(settings, data)? {
        Err(stored) => Ok(stored),
        Ok(mut encoder) => loop {
            if let Some(chunk) = encoder.step(data, usize::MAX)? {
                return Ok(chunk);
            }
        },
    }
}

/// A Blosc chunk being written, a block at a time (the block's bytes and the rest of the plan:
/// an encode in steps takes some blocks per step).
pub struct Encoder {
    settings: Settings,
    shuffle: ShuffleKind,
    flags: u8,
    blocksize: usize,
    split: bool,
    nblocks: usize,
    /// The header's place, the table of block offsets, and the blocks written so far.
    out: Vec<u8>,
    shuffled: Vec<u8>,
    /// The next block.
    next: usize,
}

impl Encoder {
    /// The encoder of `data` (what a step takes again), or the chunk at once where it is stored
    /// whole (no compression, or too small to compress).
    pub fn new(settings: &Settings, data: &[u8]) -> Result<Result<Encoder, Vec<u8>>, String> {
        let nbytes = data.len();
        if nbytes > i32::MAX as usize - HEADER_LEN {
            return Err(format!("{nbytes} bytes are more than a Blosc chunk holds"));
        }
        let typesize = settings.typesize;
        let shuffle = match settings.shuffle {
            ShuffleKind::Auto if typesize == 1 => ShuffleKind::Bit,
            ShuffleKind::Auto => ShuffleKind::Byte,
            kind => kind,
        };
        let mut flags = code(settings.cname) << 5;
        match shuffle {
            ShuffleKind::Byte if typesize > 1 => flags |= FLAG_SHUFFLE,
            ShuffleKind::Bit => flags |= FLAG_BITSHUFFLE,
            _ => {}
        }
        if settings.clevel == 0 || nbytes < MIN_BUFFER {
            return Ok(Err(stored(settings, data, flags)));
        }
        let blocksize = block_size(settings, nbytes);
        let split = splits(settings.cname, typesize, blocksize);
        if !split {
            flags |= FLAG_DONT_SPLIT;
        }
        let nblocks = nbytes.div_ceil(blocksize);
        Ok(Ok(Encoder {
            settings: *settings,
            shuffle,
            flags,
            blocksize,
            split,
            nblocks,
            out: vec![0; HEADER_LEN + 4 * nblocks],
            shuffled: vec![0; blocksize],
            next: 0,
        }))
    }

    /// Writes the next blocks of `data` (the same at every step), about `budget` bytes of it:
    /// the chunk once every block is written.
    pub fn step(&mut self, data: &[u8], budget: usize) -> Result<Option<Vec<u8>>, String> {
        let (nbytes, blocksize, typesize) = (data.len(), self.blocksize, self.settings.typesize);
        let mut taken = 0;
        while self.next < self.nblocks && taken < budget.max(1) {
            let b = self.next;
            let block = &data[b * blocksize..((b + 1) * blocksize).min(nbytes)];
            taken += block.len();
            let shuffled = &mut self.shuffled[..block.len()];
            match self.shuffle {
                ShuffleKind::Byte if typesize > 1 => shuffle::shuffle(typesize, block, shuffled),
                ShuffleKind::Bit if block.len() >= typesize => {
                    shuffle::bitshuffle(typesize, block, shuffled)
                }
                _ => shuffled.copy_from_slice(block),
            }
            let start = self.out.len() as u32;
            self.out[HEADER_LEN + 4 * b..HEADER_LEN + 4 * b + 4]
                .copy_from_slice(&start.to_le_bytes());
            // The short last block is one stream, whatever the others are.
            let streams = if self.split && block.len() == blocksize {
                typesize
            } else {
                1
            };
            for stream in shuffled.chunks(block.len() / streams) {
                push_stream(
                    self.settings.cname,
                    self.settings.clevel,
                    stream,
                    &mut self.out,
                )?;
            }
            // Larger than the data: stored whole.
            if self.out.len() > nbytes + HEADER_LEN {
                self.next = self.nblocks;
                return Ok(Some(stored(&self.settings, data, self.flags)));
            }
            self.next += 1;
        }
        if self.next < self.nblocks {
            return Ok(None);
        }
        let cbytes = self.out.len();
        let head = header(self.flags, typesize, nbytes, blocksize, cbytes);
        let mut out = std::mem::take(&mut self.out);
        out[..HEADER_LEN].copy_from_slice(&head);
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(cname: CompressorName, shuffle: ShuffleKind, typesize: usize) -> Settings {
        Settings {
            cname,
            clevel: 5,
            shuffle,
            typesize,
            blocksize: 0,
        }
    }

    #[test]
    fn chunks_decode_back_for_every_compressor_shuffle_and_size() {
        let smooth: Vec<u8> = (0..300_000u32)
            .flat_map(|i| ((i / 7) as u16).to_le_bytes())
            .collect();
        let noise: Vec<u8> = (0..70_001u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
            .collect();
        for cname in [
            CompressorName::BloscLz,
            CompressorName::Lz4,
            CompressorName::Lz4hc,
            CompressorName::Zlib,
            CompressorName::Zstd,
        ] {
            for shuffle in [
                ShuffleKind::No,
                ShuffleKind::Byte,
                ShuffleKind::Bit,
                ShuffleKind::Auto,
            ] {
                for (data, typesize) in [
                    (&smooth, 2),
                    (&noise, 1),
                    (&smooth[..100].to_vec(), 4),
                    (&smooth[..1003].to_vec(), 8),
                ] {
                    let s = settings(cname, shuffle, typesize);
                    let chunk = encode(&s, data).unwrap();
                    let back = crate::codecs::blosc::decompress(&chunk, Some(data.len()));
                    assert_eq!(
                        back.as_ref(),
                        Ok(data),
                        "{cname:?} {shuffle:?} {typesize} {}",
                        data.len()
                    );
                }
            }
        }
        let chunk = encode(
            &settings(CompressorName::Zstd, ShuffleKind::Byte, 2),
            &smooth,
        )
        .unwrap();
        assert!(chunk.len() < smooth.len() / 20, "{}", chunk.len());
    }
}
