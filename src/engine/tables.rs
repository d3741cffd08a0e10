//! The engine's state in one home: the record tables and every index derived from them (keyword
//! postings, vectors, whole-session documents, the reverse link map). The fields are private and
//! every change goes through a put / remove step here, so an engine call, an undo, a load, a replay
//! and an import all keep the derived indexes in step the same way; a new index is one edit here.

use super::prebuilt::{self, Prebuilt};
use super::vectors::VectorTarget;
use super::WithVector;
use crate::index::{DocId, KeywordIndex, VectorIndex, VectorOptions};
use crate::model::{Memory, RawEntry};
use crate::store::{HistoryEvent, HistoryLog, LinkGraph, MemoryTable, RawTable};

/// What a put does to a record's vector.
#[derive(Debug)]
pub(crate) enum VectorChange {
    /// Leave it as it is (a metadata-only change).
    Keep,
    Set(Vec<f32>),
    Clear,
}

impl From<Option<Vec<f32>>> for VectorChange {
    /// A record's stored vector, as given whole (load, replay, import): absent means none.
    fn from(v: Option<Vec<f32>>) -> Self {
        v.map_or(VectorChange::Clear, VectorChange::Set)
    }
}

/// The engine's whole mutable state, held as one value so `reset` can move it out and undoing the
/// reset can move it back.
#[derive(Debug, Default)]
pub(crate) struct Tables {
    table: MemoryTable,
    keyword: KeywordIndex,
    vectors: VectorIndex,
    history: HistoryLog,
    raw: RawTable,
    raw_keyword: KeywordIndex,
    raw_vectors: VectorIndex,
    /// Whole sessions as documents (all turns' text), by session number: the context a turn is in.
    session_keyword: KeywordIndex,
    /// `Memory::links` by slot, both ways, derived from the table, never stored.
    links: LinkGraph,
}

impl Tables {
    pub fn with_vector_options(options: &VectorOptions) -> Tables {
        Tables { vectors: VectorIndex::with_options(options.clone()), raw_vectors: VectorIndex::with_options(options.clone()), ..Tables::default() }
    }

    /// Empty tables whose vector indexes keep `self`'s options.
    pub fn emptied_like(&self) -> Tables {
        Tables {
            vectors: VectorIndex::with_options(self.vectors.options().clone()),
            raw_vectors: VectorIndex::with_options(self.raw_vectors.options().clone()),
            ..Tables::default()
        }
    }

    // Reads.

    pub fn table(&self) -> &MemoryTable {
        &self.table
    }
    pub fn keyword(&self) -> &KeywordIndex {
        &self.keyword
    }
    /// Drops the vector graph segments (memories and turns) that still hold removed vectors.
    pub fn drop_segments_with_tombstones(&mut self) {
        self.vectors.drop_segments_with_tombstones();
        self.raw_vectors.drop_segments_with_tombstones();
    }

    pub fn vectors(&self) -> &VectorIndex {
        &self.vectors
    }
    pub fn history(&self) -> &HistoryLog {
        &self.history
    }
    pub fn raw(&self) -> &RawTable {
        &self.raw
    }
    pub fn raw_keyword(&self) -> &KeywordIndex {
        &self.raw_keyword
    }
    pub fn raw_vectors(&self) -> &VectorIndex {
        &self.raw_vectors
    }
    pub fn session_keyword(&self) -> &KeywordIndex {
        &self.session_keyword
    }
    pub fn links(&self) -> &LinkGraph {
        &self.links
    }

    pub fn vector_index(&self, target: VectorTarget) -> &VectorIndex {
        match target {
            VectorTarget::Memories => &self.vectors,
            VectorTarget::Raw => &self.raw_vectors,
        }
    }

    /// A vector index to build graph segments in or to give new vectors for existing records
    /// (re-embedding): neither changes which records exist or their text.
    pub fn vector_index_mut(&mut self, target: VectorTarget) -> &mut VectorIndex {
        match target {
            VectorTarget::Memories => &mut self.vectors,
            VectorTarget::Raw => &mut self.raw_vectors,
        }
    }

    // Memories.

    /// A memory to change in place: only its counters (access, repetition, last access), which no
    /// index reads. Text, tags, namespace and links change through [`Tables::put_memory`].
    pub fn memory_counters_mut(&mut self, slot: DocId) -> Option<&mut Memory> {
        self.table.get_mut(slot)
    }

    pub fn track_touches(&mut self, on: bool) {
        self.table.track_touches(on);
    }

    pub fn take_touched(&mut self) -> Vec<DocId> {
        self.table.take_touched()
    }

    /// Stores `m`, replacing the memory with its id if there is one (same slot), and brings every
    /// index in step: links, keyword postings, vector.
    pub fn put_memory(&mut self, m: Memory, vector: VectorChange) -> DocId {
        let slot = match self.table.slot_of(&m.id) {
            Some(slot) => {
                let table = &self.table;
                let old = table.get(slot).map_or(&[][..], |o| o.links.as_slice());
                if old != m.links.as_slice() {
                    self.links.relink(slot, old, &m.links, |id| table.slot_of(id));
                }
                self.table.replace(slot, m);
                slot
            }
            None => {
                let slot = self.table.insert(m);
                self.link(slot);
                slot
            }
        };
        self.index_memory(slot);
        self.change_vector(VectorTarget::Memories, slot, vector);
        slot
    }

    /// Puts a removed memory back into the slot it had (undo), or a fresh slot if that one is taken.
    pub fn restore_memory(&mut self, slot: DocId, (m, v): WithVector<Memory>) {
        let slot = if self.table.restore(slot, m.clone()) { slot } else { self.table.insert(m) };
        self.link(slot);
        self.index_memory(slot);
        self.change_vector(VectorTarget::Memories, slot, v.into());
    }

    /// Removes a memory with its postings, vector and links.
    pub fn remove_memory(&mut self, slot: DocId) -> Option<Memory> {
        let m = self.table.remove(slot)?;
        self.keyword.remove(slot);
        self.vectors.remove(slot);
        self.links.remove(slot, &m.id, &m.links);
        Some(m)
    }

    pub fn remove_memory_by_id(&mut self, id: &str) -> Option<Memory> {
        self.table.slot_of(id).and_then(|slot| self.remove_memory(slot))
    }

    fn index_memory(&mut self, slot: DocId) {
        if let Some(m) = self.table.get(slot) {
            let texts: Vec<&str> = std::iter::once(m.content.as_str()).chain(m.tags.iter().map(String::as_str)).collect();
            self.keyword.insert(slot, texts);
        }
    }

    fn change_vector(&mut self, target: VectorTarget, slot: DocId, change: VectorChange) {
        let index = self.vector_index_mut(target);
        match change {
            VectorChange::Keep => {}
            VectorChange::Set(v) => index.insert(slot, v),
            VectorChange::Clear => {
                index.remove(slot);
            }
        }
    }

    /// Brings the link graph in step with the memory just stored in `slot`.
    fn link(&mut self, slot: DocId) {
        let table = &self.table;
        if let Some(m) = table.get(slot) {
            self.links.insert(slot, &m.id, &m.links, |id| table.slot_of(id));
        }
    }

    // Raw turns. A turn's session document is brought in step by `index_sessions` once per batch
    // of turns, not per turn: it is the text of the whole session.

    /// Stores a raw entry (replacing the one of its id) with its postings and vector; `true` when it
    /// replaced one.
    pub fn put_raw(&mut self, e: RawEntry, v: Option<Vec<f32>>) -> bool {
        let text = e.indexed_text();
        let (slot, replaced) = self.raw.put(e);
        if let Some(old) = replaced {
            self.raw_keyword.remove(old);
            self.raw_vectors.remove(old);
        }
        self.raw_keyword.insert(slot, [text.as_str()]);
        if let Some(v) = v {
            self.raw_vectors.insert(slot, v);
        }
        replaced.is_some()
    }

    /// Marks a raw entry as read by the extraction prompt `prompt_id`; no index reads the mark.
    pub fn mark_raw_extracted(&mut self, id: &str, prompt_id: &str) -> bool {
        let Some(slot) = self.raw.slot_of(id) else { return false };
        self.raw.get_mut(slot).map(|e| e.extracted_by = Some(prompt_id.to_string())).is_some()
    }

    /// Marks a raw entry as read by the author `by` (rules or prompt); no index reads the mark.
    pub fn mark_raw_authored(&mut self, id: &str, by: &str) -> bool {
        let Some(slot) = self.raw.slot_of(id) else { return false };
        self.raw.get_mut(slot).map(|e| e.authored_by = Some(by.to_string())).is_some()
    }

    /// Lets a quarantined raw entry into context blocks; no index reads the mark.
    pub fn release_raw(&mut self, id: &str) -> bool {
        let Some(slot) = self.raw.slot_of(id) else { return false };
        self.raw.get_mut(slot).map(|e| e.quarantined = false).is_some()
    }

    /// Removes a raw entry with its postings and vector (and its session's document when it was
    /// the session's last turn).
    pub fn remove_raw(&mut self, id: &str) -> Option<RawEntry> {
        let (slot, e, dropped_session) = self.raw.remove_entry(id)?;
        self.raw_keyword.remove(slot);
        self.raw_vectors.remove(slot);
        if let Some(n) = dropped_session {
            self.session_keyword.remove(n);
        }
        Some(e)
    }

    /// Removes a whole session: its turns, their postings and vectors, and its document.
    pub fn remove_session(&mut self, session_id: &str) -> Vec<RawEntry> {
        if let Some(n) = self.raw.existing_session_number(session_id) {
            self.session_keyword.remove(n);
        }
        let removed = self.raw.remove_session(session_id);
        removed
            .into_iter()
            .map(|(slot, e)| {
                self.raw_keyword.remove(slot);
                self.raw_vectors.remove(slot);
                e
            })
            .collect()
    }

    /// Re-indexes each still existing session as one document (the context its turns are read in).
    pub fn index_sessions<S: AsRef<str>>(&mut self, sessions: impl IntoIterator<Item = S>) {
        for s in sessions {
            let s = s.as_ref();
            if self.raw.session_namespace(s).is_none() {
                continue;
            }
            let n = self.raw.session_number(s);
            let texts: Vec<String> = self.raw.session_slots(s).into_iter().filter_map(|slot| self.raw.get(slot)).map(RawEntry::indexed_text).collect();
            self.session_keyword.insert(n, texts.iter().map(String::as_str));
        }
    }

    // History.

    pub fn append_history(&mut self, event: HistoryEvent) {
        self.history.append(event);
    }

    pub fn truncate_history(&mut self, len: usize) {
        self.history.truncate(len);
    }

    pub fn forget_history_text(&mut self, memory_id: &str) -> Vec<(usize, HistoryEvent)> {
        self.history.forget_text(memory_id)
    }

    pub fn put_back_history(&mut self, before: Vec<(usize, HistoryEvent)>) {
        for (i, e) in before {
            self.history.put_back(i, e);
        }
    }

    // Loading.

    /// Builds the tables of a loaded state (checked by the caller), reusing keyword entries a
    /// snapshot persisted for its records; graph segments are installed by the caller, since they
    /// name records by id.
    pub fn load(&mut self, memories: Vec<WithVector<Memory>>, raw: Vec<WithVector<RawEntry>>, history: Vec<HistoryEvent>, prebuilt: &Prebuilt) {
        let mut ids = Vec::new();
        for (i, (m, v)) in memories.into_iter().enumerate() {
            let slot = self.table.insert(m);
            self.link(slot);
            if !prebuilt::insert_counted(prebuilt.memories.as_ref(), &mut ids, i, &mut self.keyword, slot) {
                self.index_memory(slot);
            }
            self.change_vector(VectorTarget::Memories, slot, v.into());
        }
        let mut sessions: Vec<String> = Vec::new();
        let mut ids = Vec::new();
        for (i, (e, v)) in raw.into_iter().enumerate() {
            if self.raw.session_namespace(&e.session_id).is_none() {
                sessions.push(e.session_id.clone());
            }
            let (slot, replaced) = self.raw.put(e);
            if let Some(old) = replaced {
                self.raw_keyword.remove(old);
                self.raw_vectors.remove(old);
            }
            if !prebuilt::insert_counted(prebuilt.raw.as_ref(), &mut ids, i, &mut self.raw_keyword, slot) {
                let text = self.raw.get(slot).map(RawEntry::indexed_text).unwrap_or_default();
                self.raw_keyword.insert(slot, [text.as_str()]);
            }
            self.change_vector(VectorTarget::Raw, slot, v.into());
        }
        // Sessions are summed from their turns' entries: the turns were just counted.
        let vocabulary = self.raw_keyword.vocabulary();
        let mut ids = Vec::new();
        for s in sessions {
            let n = self.raw.session_number(&s);
            let slots = self.raw.session_slots(&s);
            prebuilt::insert_session(&self.raw_keyword, &vocabulary, &mut ids, &mut self.session_keyword, n, &slots);
        }
        for h in history {
            self.history.append(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The link graph (and the table's per-slot namespace numbers and threaded set) after random
    /// puts, relinks, removals and restores equals what is read off the table from scratch:
    /// outgoing = the slots of a memory's existing link ids, incoming = the memories whose links
    /// name it (in slot order), pending = the memories naming an id no memory has.
    #[test]
    fn link_graph_stays_equal_to_the_links_in_the_table() {
        let mut t = Tables::default();
        let mut removed: Vec<(DocId, Memory)> = Vec::new();
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        let id = |k: u64| format!("m{k}");
        for _ in 0..3_000 {
            let links: Vec<String> = (0..next(4)).map(|_| id(next(40))).collect();
            match next(10) {
                0..=4 => {
                    let thread = (next(3) == 0).then(|| "t".to_string());
                    let namespace = ["default", "work"][next(2) as usize].to_string();
                    let m = Memory { id: id(next(40)), links, thread, namespace, ..Memory::default() };
                    t.put_memory(m, VectorChange::Keep);
                }
                5..=7 => {
                    if let Some(slot) = t.table().slot_of(&id(next(40))) {
                        let m = t.remove_memory(slot).unwrap();
                        removed.push((slot, m));
                    }
                }
                _ => {
                    if let Some((slot, m)) = removed.pop() {
                        if t.table().slot_of(&m.id).is_none() {
                            t.restore_memory(slot, (m, None));
                        }
                    }
                }
            }
            let table = t.table();
            let sorted = |mut v: Vec<DocId>| {
                v.sort_unstable();
                v
            };
            let threaded: Vec<DocId> = table.iter().filter(|(_, m)| m.thread.is_some()).map(|(s, _)| s).collect();
            assert_eq!(table.threaded().map(|(s, _)| s).collect::<Vec<_>>(), threaded);
            for (slot, m) in table.iter() {
                assert_eq!(table.namespace_of(slot), table.namespace_number(&m.namespace));
                let want_out: Vec<DocId> = m.links.iter().filter_map(|l| table.slot_of(l)).collect();
                assert_eq!(sorted(t.links().outgoing(slot).to_vec()), sorted(want_out), "outgoing of {}", m.id);
                let want_in: Vec<DocId> = table.iter().flat_map(|(s, o)| o.links.iter().filter(|l| **l == m.id).map(move |_| s)).collect();
                assert_eq!(t.links().incoming(slot), want_in, "incoming of {}, in slot order", m.id);
            }
            for k in 0..40 {
                if table.slot_of(&id(k)).is_none() {
                    let want: Vec<DocId> = table.iter().flat_map(|(s, o)| o.links.iter().filter(|l| **l == id(k)).map(move |_| s)).collect();
                    assert_eq!(sorted(t.links().pending(&id(k)).to_vec()), sorted(want), "pending of {}", id(k));
                }
            }
        }
    }
}
