//! Applying changes another writer has already persisted (a second tab or process sharing the same
//! storage). Records are set to the values that writer stored — no rules run, no history of our own
//! is written and nothing is journaled: the change is not ours to persist, only to see.

use std::collections::{BTreeSet, HashMap};

use super::Engram;
use super::{EngineState, WithVector};
use crate::error::{Error, Result};
use crate::model::{Memory, RawEntry};
use crate::store::HistoryEvent;

/// One persisted change as read back from storage.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordChange {
    /// Every record was forgotten.
    Reset,
    /// A memory now has this value (`None`: it was removed).
    Memory {
        id: String,
        value: Option<WithVector<Memory>>,
    },
    /// A raw entry now has this value (`None`: it was removed).
    Raw {
        id: String,
        value: Option<WithVector<RawEntry>>,
    },
    History(HistoryEvent),
    /// A memory's history lost its text (the memory was deleted).
    ForgetHistoryText(String),
}

impl Engram {
    /// Applies changes persisted by another writer, in order. Every record is checked first (as on
    /// load); if one fails, nothing is applied and the error is `Corrupt` or `Embedder`.
    pub(crate) fn replay(&mut self, changes: Vec<RecordChange>) -> Result<()> {
        self.check_replay(&changes)?;
        let journal = self.journal.take();
        let mut sessions: BTreeSet<String> = BTreeSet::new();
        for change in changes {
            match change {
                RecordChange::Reset => {
                    // The tables are replaced wholesale; sessions noted so far no longer exist.
                    self.tables = self.tables.emptied_like();
                    self.tables.track_touches(journal.is_some());
                    sessions.clear();
                }
                // `check_replay` made sure the record's id is the key's.
                RecordChange::Memory { value: Some((m, v)), .. } => {
                    self.tables.put_memory(m, v.into());
                }
                RecordChange::Memory { id, value: None } => {
                    self.tables.remove_memory_by_id(&id);
                }
                RecordChange::Raw { value: Some((e, v)), .. } => {
                    sessions.insert(e.session_id.clone());
                    self.tables.put_raw(e, v);
                }
                RecordChange::Raw { id, value: None } => {
                    if let Some(e) = self.tables.remove_raw(&id) {
                        sessions.insert(e.session_id);
                    }
                }
                RecordChange::History(h) => self.tables.append_history(h),
                RecordChange::ForgetHistoryText(id) => {
                    self.tables.forget_history_text(&id);
                }
            }
        }
        // A session whose last entry went was dropped from the session index with it.
        self.tables.index_sessions(sessions);
        self.journal = journal;
        Ok(())
    }

    /// The records a replay would store must pass the load checks, and their vectors must fit this
    /// store's.
    fn check_replay(&self, changes: &[RecordChange]) -> Result<()> {
        // Last value per id: a record may be written twice in one batch.
        let mut memories: HashMap<&str, &WithVector<Memory>> = HashMap::new();
        let mut raw: HashMap<&str, &WithVector<RawEntry>> = HashMap::new();
        let mut reset = false;
        for c in changes {
            match c {
                RecordChange::Reset => {
                    reset = true;
                    memories.clear();
                    raw.clear();
                }
                RecordChange::Memory { id, value: Some(v) } => {
                    if v.0.id != *id {
                        return Err(Error::corrupt("replayed memory stored under another id"));
                    }
                    memories.insert(id, v);
                }
                RecordChange::Memory { id, value: None } => {
                    memories.remove(id.as_str());
                }
                RecordChange::Raw { id, value: Some(v) } => {
                    if v.0.id != *id {
                        return Err(Error::corrupt("replayed raw entry stored under another id"));
                    }
                    raw.insert(id, v);
                }
                RecordChange::Raw { id, value: None } => {
                    raw.remove(id.as_str());
                }
                RecordChange::History(_) | RecordChange::ForgetHistoryText(_) => {}
            }
        }
        let state = EngineState { memories: memories.into_values().cloned().collect(), raw: raw.into_values().cloned().collect(), history: Vec::new() };
        state.check()?;
        let (memory_dims, raw_dims) = state.dims();
        let have_memory = if reset { None } else { self.tables.vectors().dims() }.or_else(|| self.embedder.as_ref().map(|e| e.dims()));
        let have_raw = if reset { None } else { self.tables.raw_vectors().dims() }.or_else(|| self.embedder.as_ref().map(|e| e.dims()));
        for (have, given, what) in [(have_memory, memory_dims, "memory"), (have_raw, raw_dims, "raw")] {
            if let (Some(h), Some(g)) = (have, given) {
                if h != g {
                    return Err(Error::embedder(format!("another writer stored {g}-dimensional {what} vectors; this store's have {h}")));
                }
            }
        }
        Ok(())
    }
}
