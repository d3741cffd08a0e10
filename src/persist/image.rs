//! The state a sequence of operations describes, kept in insertion order (the engine's slot order)
//! while chunks are applied, then handed to the engine in one piece so indexes are built once. A
//! snapshot's persisted keyword index is attached to the records it covers; a record a later chunk
//! replaces loses its entry and is indexed from its text.

use std::collections::HashMap;

use super::identity::EmbedderIdentity;
use super::ops::{IndexTarget, KeywordTerms, Op};
use crate::engine::{Counted, EngineState, Prebuilt, WithVector};
use crate::index::keyword::TOKENIZER_VERSION;
use crate::model::{Memory, RawEntry};
use crate::store::HistoryEvent;

/// A record and its row in the persisted keyword index, if it has one.
type Entry<T> = (WithVector<T>, Option<u32>);

/// Records by id in first-insertion order; replacing keeps the position, as the engine's slots do.
struct Ordered<T> {
    entries: Vec<Option<Entry<T>>>,
    at: HashMap<String, usize>,
}

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered { entries: Vec::new(), at: HashMap::new() }
    }
}

impl<T> Ordered<T> {
    fn put(&mut self, id: String, value: WithVector<T>) {
        match self.at.get(&id) {
            Some(&i) => self.entries[i] = Some((value, None)),
            None => {
                self.at.insert(id, self.entries.len());
                self.entries.push(Some((value, None)));
            }
        }
    }
    fn delete(&mut self, id: &str) {
        if let Some(i) = self.at.remove(id) {
            self.entries[i] = None;
        }
    }
    /// Gives the records rows 0..n of a persisted index, if they are exactly n, all present and
    /// none yet indexed (as in a snapshot, which puts each record once from empty).
    fn attach(&mut self, n: usize) -> bool {
        if self.entries.len() != n || self.entries.iter().any(|e| !matches!(e, Some((_, None)))) {
            return false;
        }
        for (row, e) in self.entries.iter_mut().flatten().enumerate() {
            e.1 = Some(row as u32);
        }
        true
    }
    fn into_parts(self) -> (Vec<WithVector<T>>, Vec<Option<u32>>) {
        self.entries.into_iter().flatten().unzip()
    }
}

#[derive(Default)]
pub struct Image {
    memories: Ordered<Memory>,
    raw: Ordered<RawEntry>,
    history: Vec<HistoryEvent>,
    memory_terms: Option<KeywordTerms>,
    raw_terms: Option<KeywordTerms>,
    pub identity: Option<EmbedderIdentity>,
}

impl Image {
    pub fn apply(&mut self, op: Op) {
        match op {
            Op::Reset => {
                let identity = self.identity.take();
                *self = Image { identity, ..Image::default() };
            }
            Op::PutMemory(m, v) => self.memories.put(m.id.clone(), (m, v)),
            Op::DeleteMemory(id) => self.memories.delete(&id),
            // A raw entry re-ingested gets a fresh slot in the engine: it moves to the end here too.
            Op::PutRaw(e, v) => {
                self.raw.delete(&e.id);
                self.raw.put(e.id.clone(), (e, v));
            }
            Op::DeleteRaw(id) => self.raw.delete(&id),
            Op::History(h) => self.history.push(h),
            Op::ForgetHistoryText(id) => {
                for h in self.history.iter_mut().filter(|h| h.memory_id == id) {
                    h.content = None;
                    h.previous_content = None;
                }
            }
            Op::Embedder(id) => self.identity = Some(id),
            // An index of another tokenizer, or one that does not line up with the records, is
            // left out: those records are indexed from their text.
            Op::KeywordTerms(k) if k.version == TOKENIZER_VERSION => match k.target {
                IndexTarget::Memories if self.memories.attach(k.docs.len()) => self.memory_terms = Some(k),
                IndexTarget::Raw if self.raw.attach(k.docs.len()) => self.raw_terms = Some(k),
                _ => {}
            },
            Op::KeywordTerms(_) => {}
        }
    }

    pub fn into_state(self) -> (EngineState, Option<EmbedderIdentity>, Prebuilt) {
        let (memories, memory_rows) = self.memories.into_parts();
        let (raw, raw_rows) = self.raw.into_parts();
        let counted = |terms: Option<KeywordTerms>, rows: Vec<Option<u32>>| terms.map(|k| Counted { vocabulary: k.vocabulary, docs: k.docs, rows });
        let prebuilt = Prebuilt { memories: counted(self.memory_terms, memory_rows), raw: counted(self.raw_terms, raw_rows), vector_segments: Vec::new() };
        (EngineState { memories, raw, history: self.history }, self.identity, prebuilt)
    }
}
