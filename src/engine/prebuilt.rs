//! Keyword entries counted ahead of a load — by the snapshot that is being opened — so loading a
//! large store indexes its records from (term, frequency) pairs instead of tokenizing and stemming
//! every text again. Records without an entry (changed by a chunk after the snapshot, or from an
//! index of another tokenizer version) are indexed from their text as usual.

use crate::index::keyword::TermId;
use crate::index::{DocId, KeywordIndex};

/// A persisted keyword index for one kind of record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counted {
    pub vocabulary: Vec<String>,
    /// (vocabulary index, frequency) pairs and token count, per persisted record.
    pub docs: Vec<(Vec<(u32, u32)>, u32)>,
    /// Per record of the state being loaded, in order: its row in `docs`, if it has one.
    pub rows: Vec<Option<u32>>,
}

/// A vector graph segment read back from storage, installed after the records are loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct PersistedSegment {
    pub target: super::VectorTarget,
    pub id: u64,
    /// The record id of each graph point.
    pub ids: Vec<String>,
    /// [`crate::index::BuiltGraph::to_bytes`] output.
    pub graph: Vec<u8>,
}

/// What a load may reuse instead of rebuilding.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Prebuilt {
    pub memories: Option<Counted>,
    pub raw: Option<Counted>,
    pub vector_segments: Vec<PersistedSegment>,
}

/// Indexes record `i` of a load into `doc` of `index` from its persisted counts; `false` when it
/// has none (the caller indexes its text). `ids` caches vocabulary index → `index`'s term id.
pub(super) fn insert_counted(counted: Option<&Counted>, ids: &mut Vec<Option<TermId>>, i: usize, index: &mut KeywordIndex, doc: DocId) -> bool {
    let Some(c) = counted else { return false };
    let Some(&Some(row)) = c.rows.get(i) else { return false };
    let Some((pairs, len)) = c.docs.get(row as usize) else { return false };
    if ids.len() < c.vocabulary.len() {
        ids.resize(c.vocabulary.len(), None);
    }
    let mut terms = Vec::with_capacity(pairs.len());
    for &(t, tf) in pairs {
        let Some(term) = c.vocabulary.get(t as usize) else { continue };
        let id = *ids[t as usize].get_or_insert_with(|| index.intern(term));
        terms.push((id, tf));
    }
    index.insert_counted(doc, terms, *len);
    true
}

/// Indexes a session (`doc` of `sessions`) as the sum of its turns' entries in `turns`: the same
/// counts as tokenizing all its turns' text, without doing it. `ids` caches `turns` term id →
/// `sessions` term id; `vocabulary` is `turns.vocabulary()`.
pub(super) fn insert_session(turns: &KeywordIndex, vocabulary: &[&str], ids: &mut Vec<Option<TermId>>, sessions: &mut KeywordIndex, doc: DocId, slots: &[DocId]) {
    if ids.len() < vocabulary.len() {
        ids.resize(vocabulary.len(), None);
    }
    let mut terms = Vec::new();
    let mut len = 0u32;
    for &slot in slots {
        let Some((pairs, n)) = turns.doc_terms(slot) else { continue };
        len = len.saturating_add(n);
        for &(t, tf) in pairs {
            let Some(term) = vocabulary.get(t as usize) else { continue };
            terms.push((*ids[t as usize].get_or_insert_with(|| sessions.intern(term)), tf));
        }
    }
    sessions.insert_counted(doc, terms, len);
}
