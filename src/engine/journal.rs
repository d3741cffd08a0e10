//! The change journal: while persistence is on, every mutating call records which records it is about
//! to change together with their values *before* the change (an undo log). The persistence driver
//! takes the journal after each call, writes the records' current values as one chunk, and on a
//! failed write hands the journal back to [`Engram::undo`], which restores the befores in reverse so
//! the in-memory state is exactly what it was before the call.
//!
//! Off by default: an engine without persistence keeps no journal and pays nothing.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::prebuilt::{self, Prebuilt};
use super::Engram;
use crate::error::{Error, Result};
use crate::index::{DocId, KeywordIndex, VectorIndex};
use crate::model::{validate, Memory, RawEntry};
use crate::store::{HistoryEvent, HistoryLog, MemoryTable, RawTable};

/// A record with its (unit) vector, as persisted and exported.
pub type WithVector<T> = (T, Option<Vec<f32>>);

/// Everything a store holds, in slot order: what snapshots and exports contain and what an engine is
/// rebuilt from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineState {
    pub memories: Vec<WithVector<Memory>>,
    pub raw: Vec<WithVector<RawEntry>>,
    pub history: Vec<HistoryEvent>,
}

/// The engine's whole mutable state, held as one value so `reset` can move it out and undoing the
/// reset can move it back.
#[derive(Debug, Default)]
pub(crate) struct Tables {
    pub(super) table: MemoryTable,
    pub(super) keyword: KeywordIndex,
    pub(super) vectors: VectorIndex,
    pub(super) history: HistoryLog,
    pub(super) raw: RawTable,
    pub(super) raw_keyword: KeywordIndex,
    pub(super) raw_vectors: VectorIndex,
    /// Whole sessions as documents (all turns' text), by session number: the context a turn is in.
    pub(super) session_keyword: KeywordIndex,
    /// Reverse of `Memory::links` (who links to a memory), derived from the table, never stored.
    pub(super) linked_from: HashMap<String, Vec<String>>,
}

impl Tables {
    pub(super) fn with_vector_options(options: &crate::index::VectorOptions) -> Tables {
        Tables { vectors: VectorIndex::with_options(options.clone()), raw_vectors: VectorIndex::with_options(options.clone()), ..Tables::default() }
    }

    /// Empty tables whose vector indexes keep `self`'s options.
    pub(super) fn emptied_like(&self) -> Tables {
        Tables {
            vectors: VectorIndex::with_options(self.vectors.options().clone()),
            raw_vectors: VectorIndex::with_options(self.raw_vectors.options().clone()),
            ..Tables::default()
        }
    }
}

#[derive(Debug)]
enum Step {
    /// A memory about to change; `before` is its slot and value, `None` if it did not exist.
    Memory { id: String, before: Option<(DocId, WithVector<Memory>)> },
    /// A raw entry about to change.
    Raw { id: String, before: Option<WithVector<RawEntry>> },
    /// The history had `len` events before this call appended to it.
    History { len: usize },
    /// Everything was forgotten; this was the state.
    Reset { before: Box<Tables> },
}

/// What one or more engine calls changed since the journal was last taken.
#[derive(Debug, Default)]
pub struct Changes {
    steps: Vec<Step>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The steps whose effect is still visible: those after the last reset.
    fn visible(&self) -> &[Step] {
        let start = self.steps.iter().rposition(|s| matches!(s, Step::Reset { .. })).map_or(0, |i| i + 1);
        &self.steps[start..]
    }

    /// Whether the store was reset (then only what came after it needs writing).
    pub fn reset(&self) -> bool {
        self.steps.iter().any(|s| matches!(s, Step::Reset { .. }))
    }

    /// Ids of memories changed (added, updated, removed) after the last reset, once each.
    pub fn memory_ids(&self) -> impl Iterator<Item = &str> {
        self.visible().iter().filter_map(|s| match s {
            Step::Memory { id, .. } => Some(id.as_str()),
            _ => None,
        })
    }

    /// Ids of raw entries changed after the last reset, once each.
    pub fn raw_ids(&self) -> impl Iterator<Item = &str> {
        self.visible().iter().filter_map(|s| match s {
            Step::Raw { id, .. } => Some(id.as_str()),
            _ => None,
        })
    }

    /// Index of the first history event appended after the last reset, if any was.
    pub fn history_from(&self) -> Option<usize> {
        self.visible().iter().find_map(|s| match s {
            Step::History { len } => Some(*len),
            _ => None,
        })
    }
}

/// The journal while recording: steps plus what was already noted (only the first before counts).
#[derive(Debug, Default)]
pub(crate) struct Journal {
    changes: Changes,
    memories: HashSet<String>,
    raw: HashSet<String>,
    history_noted: bool,
}

impl Engram {
    /// Starts (or stops) recording changes for persistence. Stopping drops what was recorded.
    pub fn record_changes(&mut self, on: bool) {
        self.journal = on.then(Journal::default);
        self.tables.table.track_touches(on);
    }

    /// Ids of memories whose access count or last access time changed in place (search touches)
    /// since the last call; only while recording.
    pub fn take_touched(&mut self) -> Vec<String> {
        let mut slots = self.tables.table.take_touched();
        slots.sort_unstable();
        slots.dedup();
        slots.into_iter().filter_map(|s| self.tables.table.get(s).map(|m| m.id.clone())).collect()
    }

    /// What changed since the last call (empty when not recording).
    pub fn take_changes(&mut self) -> Changes {
        match &mut self.journal {
            Some(j) => std::mem::take(j).changes,
            None => Changes::default(),
        }
    }

    /// Puts back every before-value of `changes`, newest first: the state returns to what it was
    /// when the journal was last taken (ids drawn meanwhile stay drawn).
    pub fn undo(&mut self, changes: Changes) {
        let mut sessions: BTreeSet<String> = BTreeSet::new();
        for step in changes.steps.into_iter().rev() {
            match step {
                Step::Memory { id, before } => self.restore_memory(&id, before),
                Step::Raw { id, before } => {
                    if let Some(e) = self.tables.raw.by_id(&id) {
                        sessions.insert(e.session_id.clone());
                    }
                    if let Some((e, _)) = &before {
                        sessions.insert(e.session_id.clone());
                    }
                    self.restore_raw(&id, before);
                }
                Step::History { len } => self.tables.history.truncate(len),
                Step::Reset { before } => self.put_tables(*before),
            }
        }
        for s in sessions {
            if self.tables.raw.session_namespace(&s).is_some() {
                self.index_session(&s);
            }
        }
    }

    /// Notes a memory's value before it changes (first time per journal only).
    pub(super) fn note_memory(&mut self, id: &str) {
        let Some(j) = &self.journal else { return };
        if j.memories.contains(id) {
            return;
        }
        let before = self.tables.table.slot_of(id).and_then(|s| self.tables.table.get(s).map(|m| (s, (m.clone(), self.tables.vectors.get(s).map(<[f32]>::to_vec)))));
        if let Some(j) = &mut self.journal {
            j.memories.insert(id.to_string());
            j.changes.steps.push(Step::Memory { id: id.to_string(), before });
        }
    }

    /// Notes a raw entry's value before it changes (first time per journal only).
    pub(super) fn note_raw(&mut self, id: &str) {
        let Some(j) = &self.journal else { return };
        if j.raw.contains(id) {
            return;
        }
        let before = self.tables.raw.slot_of(id).and_then(|s| self.tables.raw.get(s).map(|e| (e.clone(), self.tables.raw_vectors.get(s).map(<[f32]>::to_vec))));
        if let Some(j) = &mut self.journal {
            j.raw.insert(id.to_string());
            j.changes.steps.push(Step::Raw { id: id.to_string(), before });
        }
    }

    /// Appends a history event, noting where this call's events start.
    pub(super) fn log(&mut self, event: HistoryEvent) {
        let len = self.tables.history.len();
        if let Some(j) = &mut self.journal {
            if !j.history_noted {
                j.history_noted = true;
                j.changes.steps.push(Step::History { len });
            }
        }
        self.tables.history.append(event);
    }

    /// Moves the whole state out (leaving an empty store) and journals it for undo.
    pub(super) fn forget_all(&mut self) {
        let before = self.take_tables();
        self.tables.table.track_touches(self.journal.is_some());
        if let Some(j) = &mut self.journal {
            j.memories.clear();
            j.raw.clear();
            j.history_noted = false;
            j.changes.steps.push(Step::Reset { before: Box::new(before) });
        }
    }

    fn take_tables(&mut self) -> Tables {
        let empty = self.tables.emptied_like();
        std::mem::replace(&mut self.tables, empty)
    }

    fn put_tables(&mut self, t: Tables) {
        self.tables = t;
    }

    pub(super) fn link(&mut self, m: &Memory) {
        for target in &m.links {
            self.tables.linked_from.entry(target.clone()).or_default().push(m.id.clone());
        }
    }

    pub(super) fn unlink(&mut self, m: &Memory) {
        for target in &m.links {
            if let Some(from) = self.tables.linked_from.get_mut(target) {
                from.retain(|x| *x != m.id);
                if from.is_empty() {
                    self.tables.linked_from.remove(target);
                }
            }
        }
    }

    fn restore_memory(&mut self, id: &str, before: Option<(DocId, WithVector<Memory>)>) {
        if let Some(slot) = self.tables.table.slot_of(id) {
            if let Some(m) = self.tables.table.remove(slot) {
                self.unlink(&m);
            }
            self.tables.keyword.remove(slot);
            self.tables.vectors.remove(slot);
        }
        let Some((slot, (m, v))) = before else { return };
        self.link(&m);
        let slot = if self.tables.table.restore(slot, m.clone()) { slot } else { self.tables.table.insert(m) };
        self.index(slot);
        if let Some(v) = v {
            self.tables.vectors.insert(slot, v);
        }
    }

    fn restore_raw(&mut self, id: &str, before: Option<WithVector<RawEntry>>) {
        if let Some((slot, _, dropped_session)) = self.tables.raw.remove_entry(id) {
            self.tables.raw_keyword.remove(slot);
            self.tables.raw_vectors.remove(slot);
            if let Some(n) = dropped_session {
                self.tables.session_keyword.remove(n);
            }
        }
        if let Some((e, v)) = before {
            self.put_raw(e, v);
        }
    }

    /// Stores a raw entry with its indexes (not its session document).
    pub(super) fn put_raw(&mut self, e: RawEntry, v: Option<Vec<f32>>) {
        let text = e.indexed_text();
        let (slot, replaced) = self.tables.raw.put(e);
        if let Some(old) = replaced {
            self.tables.raw_keyword.remove(old);
            self.tables.raw_vectors.remove(old);
        }
        self.tables.raw_keyword.insert(slot, [text.as_str()]);
        if let Some(v) = v {
            self.tables.raw_vectors.insert(slot, v);
        }
    }

    /// The memory with this id and its vector.
    pub fn memory_with_vector(&self, id: &str) -> Option<(&Memory, Option<&[f32]>)> {
        let slot = self.tables.table.slot_of(id)?;
        self.tables.table.get(slot).map(|m| (m, self.tables.vectors.get(slot)))
    }

    /// The raw entry with this id and its vector.
    pub fn raw_with_vector(&self, id: &str) -> Option<(&RawEntry, Option<&[f32]>)> {
        let slot = self.tables.raw.slot_of(id)?;
        self.tables.raw.get(slot).map(|e| (e, self.tables.raw_vectors.get(slot)))
    }

    /// Every memory with its vector, in slot order.
    pub fn memories_with_vectors(&self) -> impl Iterator<Item = (&Memory, Option<&[f32]>)> {
        self.tables.table.iter().map(|(s, m)| (m, self.tables.vectors.get(s)))
    }

    /// Every raw entry with its vector, in slot order.
    pub fn raw_with_vectors(&self) -> impl Iterator<Item = (&RawEntry, Option<&[f32]>)> {
        self.tables.raw.iter().map(|(s, e)| (e, self.tables.raw_vectors.get(s)))
    }

    /// Every history event, oldest first.
    pub fn history_events(&self) -> &[HistoryEvent] {
        self.tables.history.events()
    }

    /// A copy of the whole state (tests, export).
    pub fn state(&self) -> EngineState {
        EngineState {
            memories: self.memories_with_vectors().map(|(m, v)| (m.clone(), v.map(<[f32]>::to_vec))).collect(),
            raw: self.raw_with_vectors().map(|(e, v)| (e.clone(), v.map(<[f32]>::to_vec))).collect(),
            history: self.history_events().to_vec(),
        }
    }

    /// Replaces the whole state with `state` (loaded or imported bytes: every record is checked, so
    /// a bad one is `Corrupt` and leaves this engine as it was). Indexes are rebuilt.
    pub fn load_state(&mut self, state: EngineState) -> Result<()> {
        self.load_state_with(state, Prebuilt::default())
    }

    /// [`Engram::load_state`] reusing keyword entries a snapshot persisted for its records.
    pub fn load_state_with(&mut self, state: EngineState, prebuilt: Prebuilt) -> Result<()> {
        state.check()?;
        for (dims, what) in [(first_dims(&state.memories), "memory"), (first_dims(&state.raw), "raw")] {
            if let (Some(d), Some(e)) = (dims, self.embedder.as_deref()) {
                if d != e.dims() {
                    return Err(Error::embedder(format!("the stored {what} vectors have {d} dimensions; embedder `{}` makes {}", e.id(), e.dims())));
                }
            }
        }
        let journal = self.journal.take();
        self.take_tables();
        self.tables.table.track_touches(journal.is_some());
        let mut ids = Vec::new();
        for (i, (m, v)) in state.memories.into_iter().enumerate() {
            self.link(&m);
            let slot = self.tables.table.insert(m);
            if !prebuilt::insert_counted(prebuilt.memories.as_ref(), &mut ids, i, &mut self.tables.keyword, slot) {
                self.index(slot);
            }
            if let Some(v) = v {
                self.tables.vectors.insert(slot, v);
            }
        }
        let mut sessions: Vec<String> = Vec::new();
        let mut ids = Vec::new();
        for (i, (e, v)) in state.raw.into_iter().enumerate() {
            if self.tables.raw.session_namespace(&e.session_id).is_none() {
                sessions.push(e.session_id.clone());
            }
            let (slot, replaced) = self.tables.raw.put(e);
            if let Some(old) = replaced {
                self.tables.raw_keyword.remove(old);
                self.tables.raw_vectors.remove(old);
            }
            if !prebuilt::insert_counted(prebuilt.raw.as_ref(), &mut ids, i, &mut self.tables.raw_keyword, slot) {
                let text = self.tables.raw.get(slot).map(RawEntry::indexed_text).unwrap_or_default();
                self.tables.raw_keyword.insert(slot, [text.as_str()]);
            }
            if let Some(v) = v {
                self.tables.raw_vectors.insert(slot, v);
            }
        }
        // Sessions are summed from their turns' entries: the turns were just counted.
        let vocabulary = self.tables.raw_keyword.vocabulary();
        let mut ids = Vec::new();
        for s in sessions {
            let n = self.tables.raw.session_number(&s);
            let slots = self.tables.raw.session_slots(&s);
            prebuilt::insert_session(&self.tables.raw_keyword, &vocabulary, &mut ids, &mut self.tables.session_keyword, n, &slots);
        }
        for h in state.history {
            self.tables.history.append(h);
        }
        // Graph segments are derived data: one that does not decode or fit is skipped (its vectors
        // stay in the exact tier until the next build).
        for seg in prebuilt.vector_segments {
            if let Ok(graph) = crate::index::BuiltGraph::from_bytes(&seg.graph) {
                let _ = self.install_vector_segment(seg.target, seg.id, &seg.ids, graph);
            }
        }
        self.journal = journal.map(|_| Journal::default());
        Ok(())
    }

    /// A keyword index and the slots of the records it covers, in the order
    /// [`Engram::memories_with_vectors`] (or [`Engram::raw_with_vectors`]) lists them: what a
    /// snapshot persists beside those records.
    pub fn memory_keywords(&self) -> (&KeywordIndex, impl Iterator<Item = DocId> + '_) {
        (&self.tables.keyword, self.tables.table.iter().map(|(s, _)| s))
    }

    /// See [`Engram::memory_keywords`].
    pub fn raw_keywords(&self) -> (&KeywordIndex, impl Iterator<Item = DocId> + '_) {
        (&self.tables.raw_keyword, self.tables.raw.iter().map(|(s, _)| s))
    }
}

fn first_dims<T>(records: &[WithVector<T>]) -> Option<usize> {
    records.iter().find_map(|(_, v)| v.as_ref().map(Vec::len))
}

impl EngineState {
    /// Checks every record of loaded or imported bytes before anything is built from them (`Corrupt`
    /// if any fails): unique ids, valid namespaces, vectors of one length, finite and of unit length,
    /// turn indexes in range and matching their ids, one namespace per session.
    pub fn check(&self) -> Result<()> {
        check_state(self)
    }

    /// Vector length of the memories and of the raw entries, if they have vectors.
    pub fn dims(&self) -> (Option<usize>, Option<usize>) {
        (first_dims(&self.memories), first_dims(&self.raw))
    }
}

fn check_state(state: &EngineState) -> Result<()> {
    let bad = |what: String| Error::corrupt(format!("stored state: {what}"));
    let mut ids: HashSet<&str> = HashSet::new();
    let dims = first_dims(&state.memories);
    for (m, v) in &state.memories {
        if m.id.is_empty() || !ids.insert(&m.id) {
            return Err(bad(format!("memory id `{}` is empty or repeated", crate::model::time::truncate(&m.id, 40))));
        }
        validate::namespace(&m.namespace).map_err(|e| bad(e.message))?;
        check_vector(v.as_deref(), dims)?;
    }
    let mut raw_ids: HashSet<&str> = HashSet::new();
    let mut session_ns: HashMap<&str, &str> = HashMap::new();
    let dims = first_dims(&state.raw);
    for (e, v) in &state.raw {
        if e.turn_index as usize >= validate::SESSION_TURNS_MAX || e.id != RawEntry::make_id(&e.session_id, e.turn_index) || !raw_ids.insert(&e.id) {
            return Err(bad(format!("raw entry `{}` has a bad or repeated id / turn index", crate::model::time::truncate(&e.id, 40))));
        }
        validate::namespace(&e.namespace).map_err(|e| bad(e.message))?;
        if *session_ns.entry(&e.session_id).or_insert(&e.namespace) != e.namespace {
            return Err(bad(format!("session `{}` spans namespaces", crate::model::time::truncate(&e.session_id, 40))));
        }
        check_vector(v.as_deref(), dims)?;
    }
    Ok(())
}

/// A stored vector must be what the engine stores: the right length, finite, unit (kept bit-exact,
/// so it is checked, not normalized again).
fn check_vector(v: Option<&[f32]>, dims: Option<usize>) -> Result<()> {
    let Some(v) = v else { return Ok(()) };
    if v.is_empty() || dims.is_some_and(|d| d != v.len()) {
        return Err(Error::corrupt(format!("stored vector has {} dimensions; the others have {}", v.len(), dims.unwrap_or(0))));
    }
    // One pass, no copy: this runs for every vector of a store on open.
    let mut sum = 0.0f64;
    for x in v {
        if !x.is_finite() {
            return Err(Error::corrupt("stored vector holds a non-finite number"));
        }
        sum += f64::from(*x) * f64::from(*x);
    }
    if (sum.sqrt() - 1.0).abs() > 1e-3 {
        return Err(Error::corrupt(format!("stored vector has length {}, not 1", sum.sqrt())));
    }
    Ok(())
}
