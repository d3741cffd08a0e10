//! Append-only log of what happened to each memory. Kept after a memory is deleted, so `history(id)`
//! still explains where it went; only `reset` clears it. A deletion takes the memory's text out of
//! its events (`forget_text`): the events stay, what was deleted does not.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::model::time::Millis;

#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "HistoryEventKind"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum EventKind {
    /// Created by `add` (or `import`).
    Add,
    /// Changed by `update`.
    Update,
    /// Removed by `delete` or `deleteAll`.
    Delete,
    /// The same content was added again: reinforced instead of stored twice.
    Reinforce,
    /// Consolidation moved it up a layer (buffer → working, working → core).
    Promote,
    /// It left the core layer (unpinned).
    Demote,
    /// One consolidation epoch of a namespace: importance decayed (one event per epoch, on the
    /// namespace's epoch id, not one per memory).
    Decay,
    /// It absorbed another memory (`related`: the absorbed one), or was absorbed into `related`.
    Merge,
    /// A newer memory on its thread replaced it (`related`: the newer one).
    Supersede,
    /// Consolidation dropped it from the buffer (decayed to the floor or over the buffer cap).
    Evict,
    /// Written by the host LLM from conversation turns (`promptId` names the prompt).
    Extract,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Add => "ADD",
            EventKind::Update => "UPDATE",
            EventKind::Delete => "DELETE",
            EventKind::Reinforce => "REINFORCE",
            EventKind::Promote => "PROMOTE",
            EventKind::Demote => "DEMOTE",
            EventKind::Decay => "DECAY",
            EventKind::Merge => "MERGE",
            EventKind::Supersede => "SUPERSEDE",
            EventKind::Evict => "EVICT",
            EventKind::Extract => "EXTRACT",
        }
    }
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEvent {
    pub memory_id: String,
    pub event: EventKind,
    pub at: Millis,
    /// Content after the event (absent for DELETE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Content before the event, when it changed or was removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_content: Option<String>,
    /// The versioned prompt behind an LLM-made change (`extract@1`); absent for the caller's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// The other memory of a merge or supersession.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related: Option<String>,
    /// Why the lifecycle did it (consolidation events), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl HistoryEvent {
    /// An event without text, link or reason.
    pub fn bare(memory_id: &str, event: EventKind, at: Millis) -> HistoryEvent {
        HistoryEvent { memory_id: memory_id.to_string(), event, at, content: None, previous_content: None, prompt_id: None, related: None, reason: None }
    }
}

#[derive(Default, Debug)]
pub struct HistoryLog {
    events: Vec<HistoryEvent>,
    by_memory: HashMap<String, Vec<usize>, crate::keyed_hash::KeyedState>,
}

impl HistoryLog {
    pub fn append(&mut self, event: HistoryEvent) {
        self.by_memory.entry(event.memory_id.clone()).or_default().push(self.events.len());
        self.events.push(event);
    }

    /// How many events name this id.
    pub fn count(&self, memory_id: &str) -> usize {
        self.by_memory.get(memory_id).map_or(0, Vec::len)
    }

    /// Whether any event names this memory id.
    pub fn knows(&self, memory_id: &str) -> bool {
        self.by_memory.contains_key(memory_id)
    }

    /// Events of one memory, oldest first; `None` if the id never existed.
    pub fn of(&self, memory_id: &str) -> Option<Vec<&HistoryEvent>> {
        self.by_memory.get(memory_id).map(|ix| ix.iter().map(|&i| &self.events[i]).collect())
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Removes the text from every event of one memory; returns the events that had text, as they
    /// were (index, event), so the change can be undone.
    pub fn forget_text(&mut self, memory_id: &str) -> Vec<(usize, HistoryEvent)> {
        let Some(ix) = self.by_memory.get(memory_id) else { return Vec::new() };
        let mut before = Vec::new();
        for &i in ix {
            let e = &mut self.events[i];
            if e.content.is_some() || e.previous_content.is_some() {
                before.push((i, e.clone()));
                e.content = None;
                e.previous_content = None;
            }
        }
        before
    }

    /// Puts back an event [`HistoryLog::forget_text`] changed (undo); ignored if `i` holds an event
    /// of another memory.
    pub fn put_back(&mut self, i: usize, event: HistoryEvent) {
        if let Some(e) = self.events.get_mut(i).filter(|e| e.memory_id == event.memory_id) {
            *e = event;
        }
    }

    /// Every event, oldest first (what persistence and export write).
    pub fn events(&self) -> &[HistoryEvent] {
        &self.events
    }

    /// Drops the events after the first `len`: undoing a change that failed to persist.
    pub fn truncate(&mut self, len: usize) {
        while self.events.len() > len {
            let Some(e) = self.events.pop() else { break };
            let at = self.events.len();
            if let Some(ix) = self.by_memory.get_mut(&e.memory_id) {
                ix.retain(|&i| i != at);
                if ix.is_empty() {
                    self.by_memory.remove(&e.memory_id);
                }
            }
        }
    }
}
