//! Merging an imported state into a live store, by id: imported memories and raw entries replace
//! those with the same id or are added; history events not already present are appended. Journaled
//! like any write, so a failed persist undoes it.

use std::collections::HashSet;

use super::EngineState;
use super::Engram;
use crate::error::{Error, Result};
use crate::store::HistoryEvent;

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Merged {
    pub added: usize,
    pub replaced: usize,
    pub raw_entries: usize,
    pub history_events: usize,
}

impl Engram {
    /// Merges `state` (already decoded) into this store. Refused before any change if a record is
    /// malformed (`Corrupt`), breaks a rule of the write API (`InvalidInput`), or its vectors do not
    /// fit this store's (`Embedder`).
    pub fn merge_state(&mut self, mut state: EngineState) -> Result<Merged> {
        state.check()?;
        state.check_importable()?;
        self.guard_import(&mut state)?;
        let (memory_dims, raw_dims) = state.dims();
        let fits = |have: Option<usize>, given: Option<usize>, what: &str| match (have, given) {
            (Some(h), Some(g)) if h != g => Err(Error::embedder(format!("imported {what} vectors have {g} dimensions; this store's have {h}"))),
            _ => Ok(()),
        };
        fits(self.expected_dims(), memory_dims, "memory")?;
        fits(self.tables.raw_vectors().dims().or_else(|| self.expected_dims()), raw_dims, "raw")?;
        for (e, _) in &state.raw {
            if let Some(ns) = self.tables.raw().session_namespace(&e.session_id) {
                if ns != e.namespace {
                    return Err(Error::invalid(format!("imported session `{}` belongs to namespace `{ns}` here", crate::model::time::truncate(&e.session_id, 40))));
                }
            }
        }

        let mut merged = Merged::default();
        for (m, v) in state.memories {
            self.note_memory(&m.id);
            if self.tables.table().slot_of(&m.id).is_some() {
                merged.replaced += 1;
            } else {
                merged.added += 1;
            }
            self.tables.put_memory(m, v.into());
        }
        let mut sessions: Vec<String> = Vec::new();
        for (e, v) in state.raw {
            self.note_raw(&e.id);
            if !sessions.contains(&e.session_id) {
                sessions.push(e.session_id.clone());
            }
            self.tables.put_raw(e, v);
            merged.raw_entries += 1;
        }
        self.tables.index_sessions(sessions);
        let known: HashSet<String> = self.history_events().iter().map(event_key).collect();
        for h in state.history {
            if !known.contains(&event_key(&h)) {
                self.log(h);
                merged.history_events += 1;
            }
        }
        Ok(merged)
    }
}

/// Identity of a history event for merging: the same event imported twice is appended once.
fn event_key(h: &HistoryEvent) -> String {
    serde_json::to_string(h).unwrap_or_default()
}
