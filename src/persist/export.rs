//! Export and import: a whole store, or one namespace, as one portable file — a single record of
//! kind `Export` (same framing, checksum and operations as a snapshot): embedder identity, memories
//! and raw entries with their vectors, history, format version in the header.

use std::collections::HashSet;

pub use super::export_reader::ExportReader;
pub use super::export_stream::ExportStream;
use super::identity::EmbedderIdentity;
use super::ops::{IndexTarget, OpWriter};
use super::record::RecordKind;
use crate::engine::{EngineState, Engram};
use crate::error::Result;

/// The operations that rebuild `engine`'s state (or one namespace of it) from empty. For a
/// namespace, history is that of the memories exported (events do not carry a namespace).
#[cfg(test)]
pub(crate) fn state_ops(engine: &Engram, identity: Option<&EmbedderIdentity>, namespace: Option<&str>) -> OpWriter {
    state_ops_into(engine, identity, namespace, OpWriter::default())
}

fn state_ops_into(engine: &Engram, identity: Option<&EmbedderIdentity>, namespace: Option<&str>, mut w: OpWriter) -> OpWriter {
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
#[cfg(test)]
pub(crate) fn snapshot_ops(engine: &Engram, identity: Option<&EmbedderIdentity>) -> OpWriter {
    snapshot_ops_into(engine, identity, OpWriter::default())
}

/// [`snapshot_ops`] appended to `w` (a writer with room for the record header: [`OpWriter::framed`]).
pub(crate) fn snapshot_ops_into(engine: &Engram, identity: Option<&EmbedderIdentity>, w: OpWriter) -> OpWriter {
    let mut w = state_ops_into(engine, identity, None, w);
    let (index, slots) = engine.memory_keywords();
    w.keyword_terms(IndexTarget::Memories, index, slots);
    let (index, slots) = engine.raw_keywords();
    w.keyword_terms(IndexTarget::Raw, index, slots);
    w
}

/// The export file of a store or namespace.
pub fn export(engine: &Engram, identity: Option<&EmbedderIdentity>, namespace: Option<&str>) -> Vec<u8> {
    state_ops_into(engine, identity, namespace, OpWriter::framed()).into_record(RecordKind::Export, 0)
}

/// A decoded export file.
pub struct Exported {
    pub state: EngineState,
    pub identity: Option<EmbedderIdentity>,
    /// The file's body length: about what the chunk that imports it takes.
    pub body_bytes: usize,
}

/// Decodes and validates an export file: framing, checksum, version, every operation, every
/// record. Any defect is `Corrupt`; a file over the import size limit is `InvalidInput`. The same
/// reader takes a file in slices ([`ExportReader`]).
pub fn decode_export(bytes: &[u8]) -> Result<Exported> {
    crate::model::validate::import_bytes(bytes.len())?;
    let mut reader = ExportReader::new();
    reader.push(bytes)?;
    reader.finish()
}
