//! Zstandard decoding (RFC 8878): frame headers, blocks and dictionaries.
//!
//! A frame is decoded straight into its output, which is its own window: a match copies from
//! the output already written (or, past its start, from a dictionary's content). No window is
//! ever reserved, so a header's window size, however large, costs nothing, and a frame can be
//! decoded a block at a time (`Decoder::decode_block`) into a buffer that grows.

mod bits;
mod fse;
mod huffman;
mod sequences;
pub mod xxhash64;

use sequences::{SeqTable, Tables, LITERAL_LENGTHS, MATCH_LENGTHS, OFFSETS};

/// The most a block decodes to (RFC 8878 3.1.1.2.4: `Block_Maximum_Size`).
pub const MAX_BLOCK: usize = 128 << 10;

pub const FRAME_MAGIC: u32 = 0xFD2F_B528;
const DICTIONARY_MAGIC: u32 = 0xEC30_A437;

/// Bytes that precede a frame's output and that its matches may reach back into: a dictionary's
/// content, or nothing.
pub type History<'a> = &'a [u8];

#[derive(Debug, PartialEq, Eq)]
pub enum Error {
    /// The output has no room for what the frame holds.
    OutputFull,
    /// The frame is not valid zstd; what is wrong.
    Corrupt(String),
}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::Corrupt(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::Corrupt(message.into())
    }
}

/// A frame's header (RFC 8878 3.1.1.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameHeader {
    /// Its length in bytes, magic number included: where the first block starts.
    pub length: usize,
    pub content_size: Option<u64>,
    pub window_size: u64,
    /// 0 where the frame names no dictionary.
    pub dictionary_id: u32,
    /// Whether a content checksum follows the last block.
    pub checksum: bool,
}

impl FrameHeader {
    /// Reads the header of the frame at the start of `data`.
    pub fn parse(data: &[u8]) -> Result<FrameHeader, String> {
        let le = |at: usize, n: usize| -> Result<u64, String> {
            let bytes = data
                .get(at..at + n)
                .ok_or("is truncated: the data ends inside the frame header")?;
            Ok(bytes
                .iter()
                .rev()
                .fold(0u64, |acc, &b| acc << 8 | u64::from(b)))
        };
        let magic = le(0, 4)? as u32;
        if magic != FRAME_MAGIC {
            return Err(format!(
                "does not start with the zstd magic number (found {magic:#010x})"
            ));
        }
        let descriptor = le(4, 1)? as u8;
        if descriptor & 0x08 != 0 {
            return Err("sets the frame header's reserved bit".into());
        }
        let single_segment = descriptor & 0x20 != 0;
        let mut at = 5;
        let mut window_size = 0;
        if !single_segment {
            let byte = le(at, 1)?;
            let log = 10 + (byte >> 3);
            let base = 1u64 << log;
            window_size = base + (base / 8) * (byte & 7);
            at += 1;
        }
        let id_len = [0, 1, 2, 4][usize::from(descriptor & 3)];
        let dictionary_id = le(at, id_len)? as u32;
        at += id_len;
        let size_len = match descriptor >> 6 {
            0 if single_segment => 1,
            0 => 0,
            1 => 2,
            2 => 4,
            _ => 8,
        };
        let content_size = match size_len {
            0 => None,
            2 => Some(le(at, 2)? + 256),
            n => Some(le(at, n)?),
        };
        at += size_len;
        if single_segment {
            window_size = content_size.unwrap_or(0);
        }
        Ok(FrameHeader {
            length: at,
            content_size,
            window_size,
            dictionary_id,
            checksum: descriptor & 0x04 != 0,
        })
    }
}

/// The length of the frame at the start of `data`, and its header unless it is a skippable frame
/// (RFC 8878 3.1.1), found by walking its header and block headers: a frame cut short is refused
/// before any of it is decoded. Errors follow "frame N ".
pub fn next_frame(data: &[u8]) -> Result<(usize, Option<FrameHeader>), String> {
    let truncated = |what: &str| format!("is truncated: the data ends inside {what}");
    let word = |at: usize, n: usize| -> Option<u64> {
        let bytes = data.get(at..at + n)?;
        Some(
            bytes
                .iter()
                .rev()
                .fold(0u64, |acc, &b| acc << 8 | u64::from(b)),
        )
    };
    let magic = word(0, 4).ok_or_else(|| truncated("the magic number"))? as u32;
    if magic & 0xFFFF_FFF0 == 0x184D_2A50 {
        let length = word(4, 4).ok_or_else(|| truncated("a skippable frame's header"))?;
        // Checked: on wasm32 a length near 4 GiB would wrap to an end before the frame's start.
        let end = usize::try_from(length)
            .ok()
            .and_then(|n| n.checked_add(8))
            .filter(|&end| end <= data.len());
        return match end {
            Some(end) => Ok((end, None)),
            None => Err(format!(
                "is a skippable frame of {length} bytes, truncated: the data ends inside it"
            )),
        };
    }
    let header = FrameHeader::parse(data)?;
    let mut at = header.length;
    let mut block = 0usize;
    loop {
        let fields = word(at, 3).ok_or_else(|| truncated(&format!("block {block}'s header")))?;
        let (last, kind, size) = (fields & 1 != 0, (fields >> 1) & 3, (fields >> 3) as usize);
        let body = match kind {
            1 => 1,
            3 => return Err(format!("has a block ({block}) of the reserved type")),
            _ => size,
        };
        at += 3 + body;
        if at > data.len() {
            return Err(truncated(&format!("block {block}")));
        }
        block += 1;
        if last {
            break;
        }
    }
    if header.checksum {
        at += 4;
        if at > data.len() {
            return Err(truncated("the content checksum"));
        }
    }
    Ok((at, Some(header)))
}

/// The entropy tables a block may repeat from the block before it (or from a dictionary).
#[derive(Default)]
struct Entropy {
    huffman: huffman::Table,
    has_huffman: bool,
    literal_lengths: SeqTable,
    offsets: SeqTable,
    match_lengths: SeqTable,
}

impl Entropy {
    fn copy_from(&mut self, other: &Entropy) {
        self.huffman.copy_from(&other.huffman);
        self.has_huffman = other.has_huffman;
        self.literal_lengths.copy_from(&other.literal_lengths);
        self.offsets.copy_from(&other.offsets);
        self.match_lengths.copy_from(&other.match_lengths);
    }

    fn clear(&mut self) {
        self.has_huffman = false;
        self.literal_lengths.ready = false;
        self.offsets.ready = false;
        self.match_lengths.ready = false;
    }
}

/// A zstd dictionary: entropy tables and repeat offsets a frame starts with, and content its
/// matches may reach back into.
pub struct Dictionary {
    pub id: u32,
    entropy: Entropy,
    repeats: [u32; 3],
    content: Vec<u8>,
}

impl Dictionary {
    /// Reads a dictionary as zstd's trainer writes it (RFC 8878 5); bytes without its magic
    /// number are content alone, as libzstd takes them.
    pub fn parse(bytes: &[u8]) -> Result<Dictionary, String> {
        let word = |at: usize| -> Result<u32, String> {
            let b = bytes.get(at..at + 4).ok_or("the dictionary is truncated")?;
            Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let mut entropy = Entropy::default();
        if bytes.len() < 8 || word(0)? != DICTIONARY_MAGIC {
            return Ok(Dictionary {
                id: 0,
                entropy,
                repeats: [1, 4, 8],
                content: bytes.to_vec(),
            });
        }
        let id = word(4)?;
        let mut scratch = fse::Table::default();
        let in_dictionary = |e: String| format!("the dictionary's tables: {e}");
        let mut at = 8;
        at += huffman::read_table(&bytes[at..], &mut entropy.huffman, &mut scratch)
            .map_err(in_dictionary)?;
        entropy.has_huffman = true;
        for (kind, table) in [
            (&OFFSETS, &mut entropy.offsets),
            (&MATCH_LENGTHS, &mut entropy.match_lengths),
            (&LITERAL_LENGTHS, &mut entropy.literal_lengths),
        ] {
            at += sequences::read_table(kind, 2, &bytes[at..], table).map_err(in_dictionary)?;
        }
        let repeats = [word(at)?, word(at + 4)?, word(at + 8)?];
        let content = bytes[at + 12..].to_vec();
        if repeats
            .iter()
            .any(|&r| r == 0 || r as usize > content.len())
        {
            return Err(format!(
                "the dictionary's repeat offsets {repeats:?} do not fit its {} bytes of content",
                content.len()
            ));
        }
        Ok(Dictionary {
            id,
            entropy,
            repeats,
            content,
        })
    }

    /// The content a frame's matches may reach back into.
    pub fn content(&self) -> History<'_> {
        &self.content
    }
}

/// A block decoded: how much input it took, where the output now ends, and whether it was the
/// frame's last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub used: usize,
    pub end: usize,
    pub last: bool,
}

/// Where a block's literals are: in its input (raw), or decoded into the decoder's buffer.
enum Literals {
    Input(std::ops::Range<usize>),
    Decoded(usize),
}

/// Decodes blocks; keeps what one block leaves the next (entropy tables, repeat offsets) and its
/// buffers between frames.
pub struct Decoder {
    entropy: Entropy,
    weights: fse::Table,
    repeats: [u32; 3],
    literals: Vec<u8>,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder::new()
    }
}

impl Decoder {
    pub fn new() -> Decoder {
        Decoder {
            entropy: Entropy::default(),
            weights: fse::Table::default(),
            repeats: [1, 4, 8],
            literals: Vec::new(),
        }
    }

    /// Starts a frame, with `dictionary`'s tables and repeat offsets where one is given.
    pub fn start_frame(&mut self, dictionary: Option<&Dictionary>) {
        match dictionary {
            Some(dictionary) => {
                self.entropy.copy_from(&dictionary.entropy);
                self.repeats = dictionary.repeats;
            }
            None => {
                self.entropy.clear();
                self.repeats = [1, 4, 8];
            }
        }
    }

    /// Decodes the block at the start of `input` into `out` from `at` on: `out[..at]` is the
    /// frame's output so far, `history` what precedes it.
    pub fn decode_block(
        &mut self,
        input: &[u8],
        out: &mut [u8],
        at: usize,
        history: History<'_>,
    ) -> Result<Block, Error> {
        let header = input
            .get(..3)
            .ok_or("is truncated: the data ends inside a block header")?;
        let header = u32::from(header[0]) | u32::from(header[1]) << 8 | u32::from(header[2]) << 16;
        let (last, kind, size) = (header & 1 != 0, (header >> 1) & 3, (header >> 3) as usize);
        if size > MAX_BLOCK {
            return Err(Error::Corrupt(format!(
                "has a block of {size} bytes, above zstd's 128 KiB"
            )));
        }
        let block_end = out.len().min(at + MAX_BLOCK);
        let (used, end) = match kind {
            0 => {
                let body = input
                    .get(3..3 + size)
                    .ok_or("is truncated: the data ends inside a raw block")?;
                let target = out.get_mut(at..at + size).ok_or(Error::OutputFull)?;
                target.copy_from_slice(body);
                (3 + size, at + size)
            }
            1 => {
                let byte = *input
                    .get(3)
                    .ok_or("is truncated: the data ends inside an RLE block")?;
                out.get_mut(at..at + size)
                    .ok_or(Error::OutputFull)?
                    .fill(byte);
                (4, at + size)
            }
            2 => {
                let body = input
                    .get(3..3 + size)
                    .ok_or("is truncated: the data ends inside a compressed block")?;
                let end = self
                    .compressed_block(body, &mut out[..block_end], at, history)
                    .map_err(|e| match e {
                        Error::OutputFull if block_end < out.len() => Error::Corrupt(
                            "has a block that decodes to more than zstd's 128 KiB".into(),
                        ),
                        e => e,
                    })?;
                (3 + size, end)
            }
            _ => return Err("has a block of the reserved type".into()),
        };
        Ok(Block { used, end, last })
    }

    fn compressed_block(
        &mut self,
        src: &[u8],
        out: &mut [u8],
        at: usize,
        history: History<'_>,
    ) -> Result<usize, Error> {
        let (literals, used) = self.read_literals(src)?;
        // The literals, and readable bytes after them (the block's rest, or the buffer's), so
        // that short copies can copy 16 bytes at a time.
        let (literals, literal_count) = match literals {
            Literals::Input(range) => (&src[range.start..], range.len()),
            Literals::Decoded(len) => (&self.literals[..], len),
        };
        let rest = &src[used..];
        let (count, mut at_in) = sequences::read_count(rest)?;
        if count == 0 {
            if at_in != rest.len() {
                return Err("has bytes after a block's sequences section of no sequences".into());
            }
            let target = out
                .get_mut(at..at + literal_count)
                .ok_or(Error::OutputFull)?;
            target.copy_from_slice(&literals[..literal_count]);
            return Ok(at + literal_count);
        }
        let modes = *rest
            .get(at_in)
            .ok_or("is truncated: the data ends inside the sequences section's header")?;
        if modes & 3 != 0 {
            return Err("sets the sequences section's reserved bits".into());
        }
        at_in += 1;
        let entropy = &mut self.entropy;
        for (kind, mode, table) in [
            (&LITERAL_LENGTHS, modes >> 6, &mut entropy.literal_lengths),
            (&OFFSETS, (modes >> 4) & 3, &mut entropy.offsets),
            (&MATCH_LENGTHS, (modes >> 2) & 3, &mut entropy.match_lengths),
        ] {
            at_in += sequences::read_table(kind, mode, &rest[at_in..], table)?;
        }
        let tables = Tables {
            literal_lengths: &entropy.literal_lengths.table,
            offsets: &entropy.offsets.table,
            match_lengths: &entropy.match_lengths.table,
        };
        sequences::execute(
            &rest[at_in..],
            count,
            &tables,
            &mut self.repeats,
            (literals, literal_count),
            out,
            at,
            history,
        )
    }

    /// Reads the literals section at the start of `src` (RFC 8878 3.1.1.3.1): where the literals
    /// are, and the section's length.
    fn read_literals(&mut self, src: &[u8]) -> Result<(Literals, usize), Error> {
        let truncated = "is truncated: the data ends inside a literals section";
        let byte = |i: usize| src.get(i).map(|&b| usize::from(b)).ok_or(truncated);
        let first = byte(0)?;
        let (kind, format) = (first & 3, (first >> 2) & 3);
        if kind < 2 {
            let (size, header) = match format {
                0 | 2 => (first >> 3, 1),
                1 => ((first >> 4) + (byte(1)? << 4), 2),
                _ => ((first >> 4) + (byte(1)? << 4) + (byte(2)? << 12), 3),
            };
            if size > MAX_BLOCK {
                return Err(Error::Corrupt(format!(
                    "has {size} literals in a block, above zstd's 128 KiB"
                )));
            }
            if kind == 0 {
                if src.len() < header + size {
                    return Err(truncated.into());
                }
                return Ok((Literals::Input(header..header + size), header + size));
            }
            let value = byte(header)? as u8;
            self.literal_buffer()[..size].fill(value);
            return Ok((Literals::Decoded(size), header + 1));
        }
        let (streams, header, width) = match format {
            0 => (1, 3, 10),
            1 => (4, 3, 10),
            2 => (4, 4, 14),
            _ => (4, 5, 18),
        };
        let fields = (0..header).try_fold(0u64, |acc, i| {
            Ok::<_, &str>(acc | (byte(i)? as u64) << (8 * i))
        })?;
        let mask = (1u64 << width) - 1;
        let size = ((fields >> 4) & mask) as usize;
        let compressed = ((fields >> (4 + width)) & mask) as usize;
        if size > MAX_BLOCK {
            return Err(Error::Corrupt(format!(
                "has {size} literals in a block, above zstd's 128 KiB"
            )));
        }
        let body = src.get(header..header + compressed).ok_or(truncated)?;
        let tree = if kind == 2 {
            let used = huffman::read_table(body, &mut self.entropy.huffman, &mut self.weights)?;
            self.entropy.has_huffman = true;
            used
        } else if self.entropy.has_huffman {
            0
        } else {
            return Err("reuses a Huffman table no earlier block had".into());
        };
        let body = &body[tree..];
        self.literal_buffer();
        let out = &mut self.literals[..size];
        match streams {
            1 => self.entropy.huffman.decode_stream(body, out)?,
            _ => self.entropy.huffman.decode_four(body, out)?,
        }
        Ok((Literals::Decoded(size), header + compressed))
    }

    /// The literals buffer, made once at its largest.
    fn literal_buffer(&mut self) -> &mut [u8] {
        if self.literals.len() < MAX_BLOCK + 32 {
            self.literals.resize(MAX_BLOCK + 32, 0);
        }
        &mut self.literals
    }

    /// The dictionary a frame is decoded with: `given` where the frame names it or names none.
    pub fn dictionary_for<'d>(
        &self,
        header: &FrameHeader,
        given: Option<&'d Dictionary>,
    ) -> Result<Option<&'d Dictionary>, String> {
        match (header.dictionary_id, given) {
            (_, Some(d)) if header.dictionary_id == 0 || header.dictionary_id == d.id => {
                Ok(Some(d))
            }
            (0, None) => Ok(None),
            (id, Some(d)) => Err(format!(
                "the frame needs zstd dictionary {id}, not the dictionary given ({})",
                d.id
            )),
            (id, None) => Err(format!(
                "the frame needs zstd dictionary {id}, which Zarr's zstd codec has no way to name"
            )),
        }
    }
}

/// zstd data (one or more frames; skippable frames are skipped) walked a block at a time into an
/// output the caller owns and makes room in: the one decoding loop of every zstd decode here, the
/// codec's (which stops between blocks to yield to the event loop) and `decode_to_vec`'s. Each
/// frame is walked block header by block header before it decodes (`next_frame`), so that a
/// truncated one is refused before any output; its output goes straight after the output so far,
/// which is its window.
pub struct Frames<'d> {
    dictionary: Option<&'d Dictionary>,
    /// The output's bound: a frame declaring more, or decoding more, is an error.
    limit: usize,
    /// Where the next frame, or the open frame's next block, starts in the data; the index of
    /// that frame among all frames.
    next: usize,
    index: usize,
    /// The frame being decoded.
    open: Option<OpenFrame<'d>>,
}

struct OpenFrame<'d> {
    header: FrameHeader,
    /// Where its output starts, and where it ends in the data.
    out_start: usize,
    end: usize,
    dictionary: Option<&'d Dictionary>,
}

impl<'d> Frames<'d> {
    /// A walk of data whose output is at most `limit` bytes, decoded with `dictionary` where one
    /// is given (and a frame names it or none).
    pub fn new(limit: usize, dictionary: Option<&'d Dictionary>) -> Frames<'d> {
        Frames {
            dictionary,
            limit,
            next: 0,
            index: 0,
            open: None,
        }
    }

    /// How far into the data the walk has read (to the end, once every frame is done). After an
    /// error the walk is over: it stops inside the frame that failed.
    pub fn consumed(&self) -> usize {
        self.next
    }

    /// Whether a frame has a block to decode: the one open, else the next frame of `data`, which
    /// this opens (`written`: the output so far). False once every frame is done.
    pub fn more(
        &mut self,
        decoder: &mut Decoder,
        data: &[u8],
        written: usize,
    ) -> Result<bool, String> {
        if data.is_empty() {
            return Err("no zstd frame".into());
        }
        while self.open.is_none() {
            let index = self.index;
            let Some(rest) = data.get(self.next..) else {
                return Err(format!(
                    "frame {index}: the data is not the data the frames were found in"
                ));
            };
            if rest.is_empty() {
                return Ok(false);
            }
            let (len, header) = next_frame(rest).map_err(|e| format!("frame {index} {e}"))?;
            if len == 0 {
                // next_frame never says so; were it to, the walk would stand still.
                return Err(format!("frame {index} is empty"));
            }
            let end = self.next + len;
            let Some(header) = header else {
                (self.next, self.index) = (end, index + 1);
                continue;
            };
            if header
                .content_size
                .is_some_and(|size| size > self.limit.saturating_sub(written) as u64)
            {
                return Err(too_large(self.limit));
            }
            let dictionary = decoder
                .dictionary_for(&header, self.dictionary)
                .map_err(|e| format!("frame {index}: {e}"))?;
            decoder.start_frame(dictionary);
            self.next += header.length;
            self.open = Some(OpenFrame {
                header,
                out_start: written,
                end,
                dictionary,
            });
        }
        Ok(true)
    }

    /// Decodes the open frame's next block into `out`, the whole output: its first `written`
    /// bytes are the output so far, and it holds room for a block after them (`MAX_BLOCK` bytes,
    /// or to the limit). Returns the output's new length; the frame's checks are made after its
    /// last block. Call after `more` said true.
    pub fn decode_block(
        &mut self,
        decoder: &mut Decoder,
        data: &[u8],
        out: &mut [u8],
        written: usize,
    ) -> Result<usize, String> {
        let index = self.index;
        let Some(frame) = self.open.take() else {
            return Err(format!("frame {index}: no block left to decode"));
        };
        let end = self.limit.min(out.len());
        let (Some(out), Some(at)) = (
            out.get_mut(frame.out_start..end),
            written.checked_sub(frame.out_start),
        ) else {
            return Err(format!(
                "frame {index}: the output so far is not where the frame left it"
            ));
        };
        let Some(input) = data.get(self.next..frame.end) else {
            return Err(format!(
                "frame {index}: the data is not the data the frame was found in"
            ));
        };
        let history = frame.dictionary.map_or(&[][..], Dictionary::content);
        let block = decoder
            .decode_block(input, out, at, history)
            .map_err(|e| match e {
                Error::OutputFull => too_large(self.limit),
                Error::Corrupt(message) => format!("frame {index}: {message}"),
            })?;
        self.next += block.used;
        let new_length = frame.out_start + block.end;
        if block.last {
            finish_frame(
                &frame.header,
                &out[..block.end],
                &data[self.next..frame.end],
            )
            .map_err(|e| format!("frame {index}: {e}"))?;
            (self.next, self.index) = (frame.end, index + 1);
        } else {
            self.open = Some(frame);
        }
        Ok(new_length)
    }
}

fn too_large(limit: usize) -> String {
    format!("decoded data is larger than {limit} bytes")
}

/// Decodes every frame of `input` (skippable frames skipped), with `dictionary` where one is
/// given, into a vector grown a block at a time up to `limit` bytes: more is an error, so that a
/// frame is bounded by what it holds, never by a size it declares. For payloads read whole
/// (Icechunk's files, Parquet pages); chunks go through the zstd codec, which decodes in steps.
pub fn decode_to_vec(
    input: &[u8],
    limit: usize,
    dictionary: Option<&Dictionary>,
) -> Result<Vec<u8>, String> {
    decode_into_vec(input, Vec::new(), limit, dictionary)
}

/// `decode_to_vec` into `out` (emptied first), whose room the caller may have reserved: one that
/// knows the output's size reserves exactly that, and `out` then never grows (a vector grown a
/// block at a time doubles, to up to twice the output).
pub fn decode_into_vec(
    input: &[u8],
    mut out: Vec<u8>,
    limit: usize,
    dictionary: Option<&Dictionary>,
) -> Result<Vec<u8>, String> {
    out.clear();
    let mut decoder = Decoder::new();
    let mut frames = Frames::new(limit, dictionary);
    while frames.more(&mut decoder, input, out.len())? {
        let written = out.len();
        out.resize(written.saturating_add(MAX_BLOCK).min(limit).max(written), 0);
        let end = frames.decode_block(&mut decoder, input, &mut out, written)?;
        out.truncate(end);
    }
    Ok(out)
}

/// Checks a frame's output (`out`, all of it) against its header's content size and the checksum
/// at the start of `trailer`; returns the length of the checksum.
pub fn finish_frame(header: &FrameHeader, out: &[u8], trailer: &[u8]) -> Result<usize, String> {
    if let Some(size) = header.content_size {
        if size != out.len() as u64 {
            return Err(format!(
                "decodes to {} bytes, not the {size} its header says",
                out.len()
            ));
        }
    }
    if !header.checksum {
        return Ok(0);
    }
    let stored = trailer
        .get(..4)
        .ok_or("is truncated: the data ends inside the content checksum")?;
    let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
    let computed = xxhash64::xxh64(out) as u32;
    if stored != computed {
        return Err(format!(
            "content checksum {stored:#010x} does not match the decoded data's ({computed:#010x})"
        ));
    }
    Ok(4)
}

#[cfg(test)]
mod tests;
