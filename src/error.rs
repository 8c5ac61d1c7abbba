//! One error type for the whole reader. Every variant says *where* (a key, a URL or a node path)
//! and *what* went wrong, because the message is all a user sees in a rejected promise.

use std::fmt;

/// What kind of failure this is: the binding layer maps it to a JS error name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// No node (no `zarr.json`) at the requested path.
    NotFound,
    /// Metadata that is not valid JSON or not valid Zarr.
    Metadata,
    /// Valid Zarr that uses something this reader does not implement.
    Unsupported,
    /// Chunk bytes that a codec cannot decode.
    Codec,
    /// The store could not deliver bytes (HTTP status, network failure).
    Store,
    /// A selection that does not fit the array.
    Selection,
    /// The caller aborted the read (an `AbortSignal`).
    Aborted,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZarrError {
    pub kind: ErrorKind,
    pub message: String,
    /// The HTTP status a server answered with, for store errors that are one.
    pub status: Option<u16>,
}

pub type Result<T, E = ZarrError> = std::result::Result<T, E>;

impl ZarrError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ZarrError {
            kind,
            message: message.into(),
            status: None,
        }
    }

    pub fn not_found(location: &str) -> Self {
        Self::new(ErrorKind::NotFound, format!("no Zarr node at {location}"))
    }

    pub fn metadata(location: &str, reason: impl fmt::Display) -> Self {
        Self::new(
            ErrorKind::Metadata,
            format!("invalid metadata in {location}: {reason}"),
        )
    }

    pub fn unsupported(location: &str, reason: impl fmt::Display) -> Self {
        Self::new(
            ErrorKind::Unsupported,
            format!("unsupported in {location}: {reason}"),
        )
    }

    pub fn store(location: &str, reason: impl fmt::Display) -> Self {
        Self::new(
            ErrorKind::Store,
            format!("cannot read {location}: {reason}"),
        )
    }

    /// An HTTP error status the server answered `location` with.
    pub fn http_status(location: &str, status: u16, detail: impl fmt::Display) -> Self {
        ZarrError {
            status: Some(status),
            ..Self::store(location, format!("HTTP status {status}{detail}"))
        }
    }

    pub fn aborted(location: &str) -> Self {
        Self::new(
            ErrorKind::Aborted,
            format!("reading {location} was aborted"),
        )
    }

    pub fn selection(reason: impl fmt::Display) -> Self {
        Self::new(ErrorKind::Selection, format!("invalid selection: {reason}"))
    }

    /// A codec failure, placed at the chunk it happened in.
    pub fn codec(location: &str, err: CodecError) -> Self {
        Self::new(
            ErrorKind::Codec,
            format!(
                "codec {} failed to decode {location}: {}",
                err.codec, err.reason
            ),
        )
    }
}

impl fmt::Display for ZarrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ZarrError {}

/// A codec's own failure, before the array layer knows which chunk it was decoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodecError {
    pub codec: &'static str,
    pub reason: String,
}

impl CodecError {
    pub fn new(codec: &'static str, reason: impl Into<String>) -> Self {
        CodecError {
            codec,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.codec, self.reason)
    }
}
