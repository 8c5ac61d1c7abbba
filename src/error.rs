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
    /// Valid Zarr that uses a codec this build leaves out and a build with the `all-codecs`
    /// feature reads (the npm package's full build, which its JS then loads).
    NotInThisBuild,
    /// Chunk bytes that a codec cannot decode.
    Codec,
    /// The store could not deliver bytes (HTTP status, network failure).
    Store,
    /// A selection that does not fit the array.
    Selection,
    /// The caller aborted the read (an `AbortSignal`).
    Aborted,
    /// An argument of the API (an option) of the wrong type: a `TypeError` in JS.
    ArgumentType,
    /// An argument of the API of the right type that the call does not take (out of range, not
    /// one of the choices): a `RangeError` in JS.
    ArgumentRange,
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
    /// A message longer than `MAX_MESSAGE` characters (one quoting a huge bad value) keeps its
    /// start and end, where locations and reasons are, and loses its middle.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ZarrError {
            kind,
            message: cap_message(message.into()),
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

    /// `location` uses `codec`, which this build leaves out (see `ErrorKind::NotInThisBuild`).
    pub fn not_in_this_build(location: &str, codec: &str) -> Self {
        Self::new(
            ErrorKind::NotInThisBuild,
            format!(
                "unsupported in {location}: codec \"{codec}\" is left out of this build of the module (a build with the all-codecs feature reads it: the npm package's full build)"
            ),
        )
    }

    pub fn store(location: &str, reason: impl fmt::Display) -> Self {
        Self::store_to("read", location, reason)
    }

    /// A store's failure to `verb` ("read", "write", "delete") `location`.
    pub fn store_to(verb: &str, location: &str, reason: impl fmt::Display) -> Self {
        Self::new(
            ErrorKind::Store,
            format!("cannot {verb} {location}: {reason}"),
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

    /// An argument of the wrong type (`range` false) or out of what the call takes (`range` true).
    pub fn argument(message: impl fmt::Display, range: bool) -> Self {
        let kind = if range {
            ErrorKind::ArgumentRange
        } else {
            ErrorKind::ArgumentType
        };
        Self::new(kind, message.to_string())
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

/// The most characters an error message has.
pub const MAX_MESSAGE: usize = 2000;

fn cap_message(message: String) -> String {
    let count = message.chars().count();
    if count <= MAX_MESSAGE {
        return message;
    }
    let head: String = message.chars().take(MAX_MESSAGE * 3 / 4).collect();
    let tail: String = message.chars().skip(count - MAX_MESSAGE / 5).collect();
    let cut = count - MAX_MESSAGE * 3 / 4 - MAX_MESSAGE / 5;
    format!("{head} [... {cut} characters cut ...] {tail}")
}

/// A document's `value` for quoting in a message: its JSON text, or the first 200 characters of
/// it and how long it is.
pub fn quote(value: &serde_json::Value) -> String {
    quote_text(crate::json_text::JsonText(value))
}

/// `text` for quoting in a message: as it is, or its first 200 characters and how long it is.
pub fn quote_text(text: impl fmt::Display) -> String {
    let text = text.to_string();
    let count = text.chars().count();
    if count <= 200 {
        return text;
    }
    let head: String = text.chars().take(200).collect();
    format!("{head}... ({count} characters)")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_keep_their_ends() {
        let huge = "x".repeat(20_000_000);
        let err = ZarrError::metadata(
            "http://h/a/zarr.json",
            format!("codecs {huge} is not a list"),
        );
        assert!(err.message.chars().count() < MAX_MESSAGE + 60);
        assert!(err
            .message
            .starts_with("invalid metadata in http://h/a/zarr.json: codecs xxx"));
        assert!(err.message.ends_with("xxx is not a list"));
        assert!(err.message.contains("characters cut"));
        assert_eq!(quote_text("short"), "short");
        assert!(quote_text("y".repeat(1000)).ends_with("... (1000 characters)"));
    }
}
