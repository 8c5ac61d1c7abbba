//! The header every Icechunk metadata file starts with, and the zstd payload after it:
//! 12 magic bytes (`ICE🧊CHUNK`), 24 bytes naming the writer (space-padded), the spec version
//! (1 or 2), the file type and the compression (0 none, 1 zstd). The payload is a FlatBuffer.

use zarr_wasm_kernels::zstd::{self, Dictionary};

pub const MAGIC: &[u8] = "ICE🧊CHUNK".as_bytes();
const IMPLEMENTATION_LEN: usize = 24;
/// Magic, implementation, spec version, file type, compression.
pub const HEADER_LEN: usize = 12 + IMPLEMENTATION_LEN + 3;

/// The spec versions this reader knows.
pub const SPEC_VERSIONS: &[u8] = &[1, 2];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    Snapshot = 1,
    Manifest = 2,
    RepoInfo = 6,
}

impl FileType {
    fn name(self) -> &'static str {
        match self {
            FileType::Snapshot => "a snapshot",
            FileType::Manifest => "a manifest",
            FileType::RepoInfo => "a repo info file",
        }
    }
}

/// A file's spec version and its payload, decompressed.
#[derive(Debug)]
pub struct File {
    pub spec_version: u8,
    /// The writer, as the header names it.
    pub implementation: String,
    pub payload: Vec<u8>,
}

/// Checks the header of `bytes` (a file of type `expected`) and decompresses its payload, which
/// may not exceed `max_bytes`; the decompression yields to the event loop whenever it has taken a
/// slice of time (`host::yield_if_busy`): a manifest of hundreds of megabytes decompresses in
/// many short turns.
pub async fn read(bytes: &[u8], expected: FileType, max_bytes: u64) -> Result<File, String> {
    if bytes.len() < HEADER_LEN {
        return Err(format!(
            "{} bytes, shorter than the {HEADER_LEN}-byte header of an Icechunk file",
            bytes.len()
        ));
    }
    if !bytes.starts_with(MAGIC) {
        return Err("not an Icechunk file (it does not start with ICE🧊CHUNK)".into());
    }
    let implementation = String::from_utf8_lossy(&bytes[12..12 + IMPLEMENTATION_LEN])
        .trim_end()
        .to_string();
    let [spec_version, file_type, compression] = [bytes[36], bytes[37], bytes[38]];
    if !SPEC_VERSIONS.contains(&spec_version) {
        return Err(format!(
            "spec version {spec_version} (written by {implementation}), not one this reader knows (1 or 2)"
        ));
    }
    if file_type != expected as u8 {
        return Err(format!(
            "file type {file_type}, not {} ({})",
            expected as u8,
            expected.name()
        ));
    }
    let body = &bytes[HEADER_LEN..];
    let payload = match compression {
        0 => {
            if body.len() as u64 > max_bytes {
                return Err(too_large(max_bytes));
            }
            body.to_vec()
        }
        1 => unzstd_yielding(body, max_bytes)
            .await
            .map_err(|e| format!("its zstd payload: {e}"))?,
        c => return Err(format!("compression {c}, not 0 (none) or 1 (zstd)")),
    };
    Ok(File {
        spec_version,
        implementation,
        payload,
    })
}

fn too_large(max_bytes: u64) -> String {
    format!("more than {max_bytes} bytes decompressed (the maxMetadataBytes option)")
}

/// `unzstd` without a dictionary, a block at a time, giving the event loop a turn between blocks
/// where the work has taken a slice of time.
async fn unzstd_yielding(data: &[u8], max_bytes: u64) -> Result<Vec<u8>, String> {
    let limit = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    let mut decoder = zstd::Decoder::new();
    let mut frames = zstd::Frames::new(limit, None);
    let mut out = Vec::new();
    let said = |e: String| match e.starts_with("decoded data is larger than") {
        true => too_large(max_bytes),
        false => e,
    };
    while frames.more(&mut decoder, data, out.len()).map_err(said)? {
        let written = out.len();
        let room = written
            .saturating_add(zstd::MAX_BLOCK)
            .min(limit)
            .max(written);
        out.try_reserve(room - written)
            .map_err(|_| format!("cannot allocate {room} bytes for the payload"))?;
        out.resize(room, 0);
        let end = frames
            .decode_block(&mut decoder, data, &mut out, written)
            .map_err(said)?;
        out.truncate(end);
        crate::host::yield_if_busy().await;
    }
    Ok(out)
}

/// The zstd frames of `data`, decompressed, at most `max_bytes` of them (more is an error), with
/// the dictionary `dict` where one is given: a frame without a content size (icechunk's have
/// none) is bounded by what it really holds, never by a size it declares.
pub fn unzstd(data: &[u8], max_bytes: u64, dict: Option<&Dictionary>) -> Result<Vec<u8>, String> {
    let max = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    zstd::decode_to_vec(data, max, dict).map_err(|e| {
        // Too much output: said with the option that sets the bound.
        match e.starts_with("decoded data is larger than") {
            true => too_large(max_bytes),
            false => e,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read`, to its end (without a host nothing yields).
    fn read(bytes: &[u8], expected: FileType, max_bytes: u64) -> Result<File, String> {
        futures_executor::block_on(super::read(bytes, expected, max_bytes))
    }

    /// A header for `file_type`, version 2, no compression, then `payload`.
    pub fn file(file_type: u8, compression: u8, payload: &[u8]) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend(format!("{:<24}", "test").into_bytes());
        b.extend([2, file_type, compression]);
        b.extend(payload);
        b
    }

    #[test]
    fn reads_the_header_and_the_payload() {
        let f = read(&file(1, 0, b"abc"), FileType::Snapshot, 100).unwrap();
        assert_eq!((f.spec_version, f.payload.as_slice()), (2, &b"abc"[..]));
        assert_eq!(f.implementation, "test");
        // A zstd frame of "abc" (raw block), as `zstd -c` writes it.
        let frame = [
            0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x03, 0x19, 0x00, 0x00, b'a', b'b', b'c',
        ];
        let f = read(&file(2, 1, &frame), FileType::Manifest, 100).unwrap();
        assert_eq!(f.payload, b"abc");
    }

    #[test]
    fn bad_headers_and_payloads_are_errors_saying_what() {
        let err = |b: &[u8], t, max| read(b, t, max).unwrap_err();
        assert!(err(b"ICE", FileType::Snapshot, 9).contains("shorter than the 39-byte header"));
        assert!(err(&[b'x'; 40], FileType::Snapshot, 9).contains("not an Icechunk file"));
        assert!(err(&file(2, 0, b""), FileType::Snapshot, 9).contains("file type 2, not 1"));
        assert!(err(&file(1, 7, b""), FileType::Snapshot, 9).contains("compression 7"));
        let mut v3 = file(1, 0, b"");
        v3[36] = 3;
        assert!(err(&v3, FileType::Snapshot, 9).contains("spec version 3"));
        assert!(
            err(&file(1, 0, b"0123456789"), FileType::Snapshot, 9).contains("more than 9 bytes")
        );
        assert!(err(&file(1, 1, b"not zstd"), FileType::Snapshot, 9).contains("zstd payload"));
        // Every truncation of a good zstd file is an error or a shorter payload: never a panic.
        let frame = [
            0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x03, 0x19, 0x00, 0x00, b'a', b'b', b'c',
        ];
        let good = file(1, 1, &frame);
        for cut in 0..good.len() {
            let _ = read(&good[..cut], FileType::Snapshot, 100);
        }
        // More output than allowed is refused, not decoded whole.
        assert!(err(&good, FileType::Snapshot, 2).contains("more than 2 bytes"));
    }
}
