//! Every input limit a caller can hit, in one object: what the package exports as `limits()` (so a
//! tool schema, a form or an MCP server states the same bounds the core enforces) and what the
//! facade checks before it copies a large input into wasm memory. Built from the constants the
//! checks themselves read.

use serde::Serialize;

use crate::evolve::fields as evolving;
use crate::model::validate;

/// The bounds of what Engram accepts (characters are Unicode scalar values; bytes are UTF-8).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// A memory's `content`, in characters.
    pub content_chars: usize,
    /// Tags on one memory (or in one filter, where a memory must carry all of them).
    pub tags: usize,
    pub tag_chars: usize,
    pub source_chars: usize,
    /// A namespace id: any text but control characters, not blank, without surrounding spaces.
    pub namespace_chars: usize,
    /// A memory's `metadata`, as JSON.
    pub metadata_bytes: usize,
    pub embedding_dims: usize,
    /// Hits of one `search`.
    pub search_limit: usize,
    /// `maxTokens` of a context block.
    pub context_tokens: usize,
    /// One verbatim turn's content, in characters.
    pub turn_chars: usize,
    pub session_id_chars: usize,
    pub session_turns: usize,
    pub role_chars: usize,
    pub speaker_chars: usize,
    pub turn_id_chars: usize,
    /// The text of one `ingest` call (turns, speakers, roles, ids).
    pub ingest_bytes: usize,
    /// One `import` file.
    pub import_bytes: usize,
    /// Items of one `addMany`, sessions of one `ingestMany`.
    pub batch_items: usize,
    /// A thread or area label, normalized.
    pub label_chars: usize,
    pub label_segments: usize,
    /// Areas of one memory.
    pub areas: usize,
    /// An evolving `value` or `consequent`.
    pub value_chars: usize,
    /// A verbatim phrase kept for exact recall.
    pub signature_chars: usize,
}

pub const LIMITS: Limits = Limits {
    content_chars: validate::CONTENT_MAX_CHARS,
    tags: validate::TAGS_MAX,
    tag_chars: validate::TAG_MAX_CHARS,
    source_chars: validate::SOURCE_MAX_CHARS,
    namespace_chars: validate::NAMESPACE_MAX_CHARS,
    metadata_bytes: validate::METADATA_MAX_BYTES,
    embedding_dims: validate::EMBEDDING_DIMS_MAX,
    search_limit: validate::SEARCH_LIMIT_MAX,
    context_tokens: validate::CONTEXT_TOKENS_MAX,
    turn_chars: validate::RAW_CONTENT_MAX_CHARS,
    session_id_chars: validate::SESSION_ID_MAX_CHARS,
    session_turns: validate::SESSION_TURNS_MAX,
    role_chars: validate::ROLE_MAX_CHARS,
    speaker_chars: validate::SPEAKER_MAX_CHARS,
    turn_id_chars: validate::TURN_ID_MAX_CHARS,
    ingest_bytes: validate::INGEST_BYTES_MAX,
    import_bytes: validate::IMPORT_BYTES_MAX,
    batch_items: crate::engine::BATCH_MAX,
    label_chars: evolving::LABEL_MAX_CHARS,
    label_segments: evolving::LABEL_MAX_SEGMENTS,
    areas: evolving::AREA_MAX,
    value_chars: evolving::VALUE_MAX_CHARS,
    signature_chars: evolving::SIGNATURE_MAX_CHARS,
};
