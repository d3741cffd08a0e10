//! The change journal: while persistence is on, every mutating call records which records it is about
//! to change together with their values *before* the change (an undo log). The persistence driver
//! takes the journal after each call, writes the records' current values as one chunk, and on a
//! failed write hands the journal back to [`Engram::undo`], which restores the befores in reverse so
//! the in-memory state is exactly what it was before the call.
//!
//! Off by default: an engine without persistence keeps no journal and pays nothing.

use std::collections::{BTreeSet, HashSet};

use super::tables::{Tables, VectorChange};
use super::{Engram, WithVector};
use crate::index::DocId;
use crate::model::{Memory, RawEntry};
use crate::store::HistoryEvent;

#[derive(Debug)]
enum Step {
    /// A memory about to change; `before` is its slot and value, `None` if it did not exist.
    Memory { id: String, before: Option<(DocId, WithVector<Memory>)> },
    /// A raw entry about to change.
    Raw { id: String, before: Option<WithVector<RawEntry>> },
    /// The history had `len` events before this call appended to it.
    History { len: usize },
    /// A memory's events lost their text (it was deleted); these had text.
    HistoryText { memory_id: String, before: Vec<(usize, HistoryEvent)> },
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
    /// Adds the changes of a later call (a group of calls committed as one chunk): undone in
    /// reverse, they restore what was there before the first.
    pub fn append(&mut self, later: Changes) {
        self.steps.extend(later.steps);
    }

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

    /// Memories whose history text was forgotten after the last reset.
    pub fn history_text_forgotten(&self) -> impl Iterator<Item = &str> {
        self.visible().iter().filter_map(|s| match s {
            Step::HistoryText { memory_id, .. } => Some(memory_id.as_str()),
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
        self.tables.track_touches(on);
    }

    /// Ids of memories whose access count or last access time changed in place (search touches)
    /// since the last call; only while recording.
    pub fn take_touched(&mut self) -> Vec<String> {
        let mut slots = self.tables.take_touched();
        slots.sort_unstable();
        slots.dedup();
        slots.into_iter().filter_map(|s| self.tables.table().get(s).map(|m| m.id.clone())).collect()
    }

    /// What changed since the last call (empty when not recording).
    pub(crate) fn take_changes(&mut self) -> Changes {
        match &mut self.journal {
            Some(j) => std::mem::take(j).changes,
            None => Changes::default(),
        }
    }

    /// Puts back every before-value of `changes`, newest first: the state returns to what it was
    /// when the journal was last taken (ids drawn meanwhile stay drawn).
    pub(crate) fn undo(&mut self, changes: Changes) {
        let mut sessions: BTreeSet<String> = BTreeSet::new();
        for step in changes.steps.into_iter().rev() {
            match step {
                // Changed in place (same slot, same vector): the record goes back in place, so
                // its vector keeps its graph segment and the window of newest vectors is not
                // fed an old one; a dry run of consolidation, which undoes every change, leaves
                // the indexes as they were.
                Step::Memory { id, before: Some((slot, (m, v))) }
                    if v.is_some() && self.tables.table().slot_of(&id) == Some(slot) && self.tables.vectors().get(slot) == v.as_deref() =>
                {
                    self.tables.put_memory(m, VectorChange::Keep);
                }
                Step::Memory { id, before } => {
                    self.tables.remove_memory_by_id(&id);
                    if let Some((slot, record)) = before {
                        self.tables.restore_memory(slot, record);
                    }
                }
                Step::Raw { id, before } => {
                    if let Some(e) = self.tables.remove_raw(&id) {
                        sessions.insert(e.session_id);
                    }
                    if let Some((e, v)) = before {
                        sessions.insert(e.session_id.clone());
                        self.tables.put_raw(e, v);
                    }
                }
                Step::History { len } => self.tables.truncate_history(len),
                Step::HistoryText { before, .. } => self.tables.put_back_history(before),
                Step::Reset { before } => self.tables = *before,
            }
        }
        self.tables.index_sessions(sessions);
    }

    /// Notes a memory's value before it changes (first time per journal only).
    pub(super) fn note_memory(&mut self, id: &str) {
        let Some(j) = &self.journal else { return };
        if j.memories.contains(id) {
            return;
        }
        let before = self.tables.table().slot_of(id).and_then(|s| self.tables.table().get(s).map(|m| (s, (m.clone(), self.tables.vectors().get(s).map(<[f32]>::to_vec)))));
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
        let before = self.tables.raw().slot_of(id).and_then(|s| self.tables.raw().get(s).map(|e| (e.clone(), self.tables.raw_vectors().get(s).map(<[f32]>::to_vec))));
        if let Some(j) = &mut self.journal {
            j.raw.insert(id.to_string());
            j.changes.steps.push(Step::Raw { id: id.to_string(), before });
        }
    }

    /// Appends a history event, noting where this call's events start.
    pub(super) fn log(&mut self, event: HistoryEvent) {
        let len = self.tables.history().len();
        if let Some(j) = &mut self.journal {
            if !j.history_noted {
                j.history_noted = true;
                j.changes.steps.push(Step::History { len });
            }
        }
        self.tables.append_history(event);
    }

    /// Takes a memory's text out of its history (it is being deleted), journaled.
    pub(super) fn forget_history_text(&mut self, memory_id: &str) {
        let before = self.tables.forget_history_text(memory_id);
        if let (Some(j), false) = (&mut self.journal, before.is_empty()) {
            j.changes.steps.push(Step::HistoryText { memory_id: memory_id.to_string(), before });
        }
    }

    /// Moves the whole state out (leaving an empty store) and journals it for undo.
    pub(super) fn forget_all(&mut self) {
        let empty = self.tables.emptied_like();
        let before = std::mem::replace(&mut self.tables, empty);
        self.tables.track_touches(self.journal.is_some());
        if let Some(j) = &mut self.journal {
            j.memories.clear();
            j.raw.clear();
            j.history_noted = false;
            j.changes.steps.push(Step::Reset { before: Box::new(before) });
        }
    }
}
