//! One error type for the whole engine. Each variant has a stable `code` that crosses into JS as the
//! `code` (and `name`) of an `Error` object, so hosts can branch on it without parsing messages.

use std::fmt;

/// Declares `ErrorCode` from one list of variants, and derives `ErrorCode::ALL` and `as_str` from it
/// (the code is the variant's name). The JS package's `ERROR_CODES` is generated from this list too
/// (`pkg-template/build.mjs` reads it), so a new code is one edit here plus its `index.d.ts` union,
/// which a test keeps equal to `ERROR_CODES`.
macro_rules! error_codes {
    ($($(#[doc = $doc:literal])* $code:ident,)*) => {
        /// What went wrong, as a stable machine-readable code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(test, derive(ts_rs::TS))]
        pub enum ErrorCode {
            $($(#[doc = $doc])* $code,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$code),*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$code => stringify!($code),)*
                }
            }
        }
    };
}

error_codes! {
    /// The caller passed something the API does not accept; nothing changed.
    InvalidInput,
    /// The id (memory, session, …) does not exist in this store.
    NotFound,
    /// The host storage adapter failed; the operation was not applied.
    Storage,
    /// The host storage adapter is out of space (quota); the operation was not applied.
    StorageFull,
    /// Persisted or imported bytes failed validation (checksum, version, structure).
    Corrupt,
    /// The embedder failed, or its output does not fit this store (dimension, identity).
    Embedder,
    /// The host LLM callback failed or returned output that does not fit its schema.
    Llm,
    /// The caller aborted a long operation through its signal.
    Aborted,
    /// The store was closed.
    Closed,
    /// A fault inside Engram itself (a wasm trap, a broken invariant): a bug, not the caller's doing.
    Internal,
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An engine error: a stable code plus a message written for the developer calling the API.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error { code, message: message.into() }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::InvalidInput, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::NotFound, message)
    }
    pub fn corrupt(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Corrupt, message)
    }
    pub fn embedder(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::Embedder, message)
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
