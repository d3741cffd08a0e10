//! Export and import: a whole store, or one namespace, as one portable file — a single record of
//! kind `Export` (same framing, checksum and operations as a snapshot): embedder identity, memories
//! and raw entries with their vectors, history, format version in the header.

use std::collections::HashSet;

use super::identity::EmbedderIdentity;
use super::image::Image;
use super::ops::{self, IndexTarget, Op, OpWriter};
use super::record::{self, RecordKind};
use crate::engine::{EngineState, Engram};
use crate::error::{Error, Result};

/// The operations that rebuild `engine`'s state (or one namespace of it) from empty. For a
/// namespace, history is that of the memories exported (events do not carry a namespace).
pub fn state_ops(engine: &Engram, identity: Option<&EmbedderIdentity>, namespace: Option<&str>) -> OpWriter {
    let mut w = OpWriter::default();
    if let Some(id) = identity {
        w.embedder(id);
    }
    let keep = |ns: &str| namespace.is_none_or(|n| n == ns);
    let mut ids: HashSet<&str> = HashSet::new();
    for (m, v) in engine.memories_with_vectors().filter(|(m, _)| keep(&m.namespace)) {
        ids.insert(&m.id);
        w.put_memory(m, v);
    }
    for (e, v) in engine.raw_with_vectors().filter(|(e, _)| keep(&e.namespace)) {
        w.put_raw(e, v);
    }
    for h in engine.history_events().iter().filter(|h| namespace.is_none() || ids.contains(h.memory_id.as_str())) {
        w.history(h);
    }
    w
}

/// A snapshot body: the whole state, then its keyword indexes (so opening need not rebuild them).
pub fn snapshot_ops(engine: &Engram, identity: Option<&EmbedderIdentity>) -> OpWriter {
    let mut w = state_ops(engine, identity, None);
    let (index, slots) = engine.memory_keywords();
    w.keyword_terms(IndexTarget::Memories, index, slots);
    let (index, slots) = engine.raw_keywords();
    w.keyword_terms(IndexTarget::Raw, index, slots);
    w
}

/// The export file of a store or namespace.
pub fn export(engine: &Engram, identity: Option<&EmbedderIdentity>, namespace: Option<&str>) -> Vec<u8> {
    record::encode(RecordKind::Export, 0, &state_ops(engine, identity, namespace).into_bytes())
}

/// A decoded export file.
pub struct Exported {
    pub state: EngineState,
    pub identity: Option<EmbedderIdentity>,
}

/// Decodes and validates an export file: framing, checksum, version, every operation, every
/// record. Any defect is `Corrupt`; a file over the import size limit is `InvalidInput`.
pub fn decode_export(bytes: &[u8]) -> Result<Exported> {
    crate::model::validate::import_bytes(bytes.len())?;
    let (_, body) = record::decode_kind(bytes, RecordKind::Export)?;
    let mut image = Image::default();
    for op in ops::decode(body)? {
        if matches!(op, Op::Reset | Op::DeleteMemory(_) | Op::DeleteRaw(_) | Op::ForgetHistoryText(_) | Op::KeywordTerms(_)) {
            return Err(Error::corrupt("an export file holds only records, not changes"));
        }
        image.apply(op);
    }
    let (state, identity, _) = image.into_state();
    state.check()?;
    Ok(Exported { state, identity })
}
