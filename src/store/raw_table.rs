//! Raw entries by slot (their own slot space and indexes), by id, and by session in turn order.

use std::collections::HashMap;

use crate::index::DocId;
use crate::model::RawEntry;

#[derive(Default, Debug)]
pub struct RawTable {
    slots: Vec<Option<RawEntry>>,
    by_id: HashMap<String, DocId>,
    /// session id → (namespace, slots by turn index; `None` where a turn index was never given).
    sessions: HashMap<String, (String, Vec<Option<DocId>>)>,
    /// session id → its number in the session-level index; numbers are never reused.
    session_numbers: HashMap<String, DocId>,
    next_session_number: DocId,
}

impl RawTable {
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    pub fn get(&self, slot: DocId) -> Option<&RawEntry> {
        self.slots.get(slot as usize).and_then(Option::as_ref)
    }

    /// An entry to change in place: only fields no index reads (the extraction mark).
    pub fn get_mut(&mut self, slot: DocId) -> Option<&mut RawEntry> {
        self.slots.get_mut(slot as usize).and_then(Option::as_mut)
    }

    pub fn slot_of(&self, id: &str) -> Option<DocId> {
        self.by_id.get(id).copied()
    }

    pub fn by_id(&self, id: &str) -> Option<&RawEntry> {
        self.slot_of(id).and_then(|s| self.get(s))
    }

    /// Live entries with their slots, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (DocId, &RawEntry)> {
        self.slots.iter().enumerate().filter_map(|(i, e)| e.as_ref().map(|e| (i as DocId, e)))
    }

    /// Namespace a session belongs to, if it exists.
    pub fn session_namespace(&self, session_id: &str) -> Option<&str> {
        self.sessions.get(session_id).map(|(ns, _)| ns.as_str())
    }

    /// The session's number in session-level indexes, assigned on first use.
    pub fn session_number(&mut self, session_id: &str) -> DocId {
        if let Some(&n) = self.session_numbers.get(session_id) {
            return n;
        }
        let n = self.next_session_number;
        self.next_session_number += 1;
        self.session_numbers.insert(session_id.to_string(), n);
        n
    }

    pub fn existing_session_number(&self, session_id: &str) -> Option<DocId> {
        self.session_numbers.get(session_id).copied()
    }

    /// Slot of a session's turn.
    pub fn turn(&self, session_id: &str, turn_index: u32) -> Option<DocId> {
        self.sessions.get(session_id)?.1.get(turn_index as usize).copied().flatten()
    }

    /// Slots of a session in turn order.
    pub fn session_slots(&self, session_id: &str) -> Vec<DocId> {
        self.sessions.get(session_id).map(|(_, v)| v.iter().flatten().copied().collect()).unwrap_or_default()
    }

    /// Stores an entry in a fresh slot (replacing the slot of the same session turn, if any) and
    /// returns (new slot, replaced slot).
    pub fn put(&mut self, entry: RawEntry) -> (DocId, Option<DocId>) {
        let replaced = self.turn(&entry.session_id, entry.turn_index);
        if let Some(old) = replaced {
            self.slots[old as usize] = None;
        }
        let slot = self.slots.len() as DocId;
        self.by_id.insert(entry.id.clone(), slot);
        let (_, turns) = self.sessions.entry(entry.session_id.clone()).or_insert_with(|| (entry.namespace.clone(), Vec::new()));
        let i = entry.turn_index as usize;
        if turns.len() <= i {
            turns.resize(i + 1, None);
        }
        turns[i] = Some(slot);
        self.slots.push(Some(entry));
        (slot, replaced)
    }

    /// Removes a whole session; returns the removed entries with their slots.
    pub fn remove_session(&mut self, session_id: &str) -> Vec<(DocId, RawEntry)> {
        self.session_numbers.remove(session_id);
        let Some((_, turns)) = self.sessions.remove(session_id) else { return Vec::new() };
        turns
            .into_iter()
            .flatten()
            .filter_map(|s| {
                let e = self.slots[s as usize].take()?;
                self.by_id.remove(&e.id);
                Some((s, e))
            })
            .collect()
    }

    /// Removes one entry by id; a session left without turns is removed too (its number is then
    /// returned, so the caller can drop the session document).
    pub fn remove_entry(&mut self, id: &str) -> Option<(DocId, RawEntry, Option<DocId>)> {
        let slot = self.by_id.remove(id)?;
        let entry = self.slots.get_mut(slot as usize).and_then(Option::take)?;
        let mut dropped_session = None;
        if let Some((_, turns)) = self.sessions.get_mut(&entry.session_id) {
            if let Some(t) = turns.get_mut(entry.turn_index as usize) {
                if *t == Some(slot) {
                    *t = None;
                }
            }
            while turns.last() == Some(&None) {
                turns.pop();
            }
            if turns.is_empty() {
                self.sessions.remove(&entry.session_id);
                dropped_session = self.session_numbers.remove(&entry.session_id);
            }
        }
        Some((slot, entry, dropped_session))
    }

    /// Sessions of a namespace.
    pub fn sessions_in(&self, namespace: &str) -> Vec<String> {
        let mut v: Vec<String> = self.sessions.iter().filter(|(_, (ns, _))| ns == namespace).map(|(id, _)| id.clone()).collect();
        v.sort();
        v
    }
}
