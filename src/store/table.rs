//! The memory table: records by slot (the number every index uses), lookup by id, and the duplicate
//! map per namespace. Slots are never reused, so an index that still mentions a removed slot can only
//! miss it, never return a different memory in its place.

use std::collections::{BTreeSet, HashMap};

use super::dedup::{normalize, normalized_hash};
use crate::index::DocId;
use crate::keyed_hash::KeyedState;
use crate::model::Memory;

#[derive(Default, Debug)]
pub struct MemoryTable {
    slots: Vec<Option<Memory>>,
    by_id: HashMap<String, DocId, KeyedState>,
    /// (namespace number, content hash) → slots with that normalized content (more than one only on
    /// a hash collision or after an update made two memories equal).
    by_content: HashMap<(u32, u64), Vec<DocId>, KeyedState>,
    /// The namespace of each slot as a number (`NO_NAMESPACE` for an empty slot): a namespace filter
    /// over many scattered slots (a new memory's link search) reads 4 bytes of one array per slot
    /// instead of the memory and its namespace string, two cache misses that grew with the store.
    slot_namespace: Vec<u32>,
    /// Namespace → its number; numbers are never reused, namespaces are few.
    namespace_numbers: HashMap<String, u32, KeyedState>,
    /// Slots of the memories on a thread: what is superseded is derived from them alone on every
    /// search, which must not read every memory of a large store to find the few threaded ones.
    threaded: BTreeSet<DocId>,
    /// Slots handed out by `get_mut` since last taken, while persistence wants to know (search
    /// touches access counts in place; those memories must be written again).
    touched: Option<Vec<DocId>>,
}

const NO_NAMESPACE: u32 = u32::MAX;

impl MemoryTable {
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn slot_of(&self, id: &str) -> Option<DocId> {
        self.by_id.get(id).copied()
    }

    pub fn get(&self, slot: DocId) -> Option<&Memory> {
        self.slots.get(slot as usize).and_then(Option::as_ref)
    }

    /// The number of `namespace` (see [`MemoryTable::namespace_of`]); `None` if no memory was ever in it.
    pub fn namespace_number(&self, namespace: &str) -> Option<u32> {
        self.namespace_numbers.get(namespace).copied()
    }

    /// The number of the namespace of the memory in `slot`; `None` for an empty slot.
    pub fn namespace_of(&self, slot: DocId) -> Option<u32> {
        self.slot_namespace.get(slot as usize).copied().filter(|&n| n != NO_NAMESPACE)
    }

    /// Live memories on a thread with their slots, in slot order.
    pub fn threaded(&self) -> impl Iterator<Item = (DocId, &Memory)> {
        self.threaded.iter().filter_map(|&s| self.get(s).map(|m| (s, m)))
    }

    /// Keeps the per-slot derived facts (namespace number, on a thread) in step with `memory`
    /// stored in `slot`, or with the slot emptied (`None`).
    fn note_slot(&mut self, slot: DocId, memory: Option<&Memory>) {
        self.set_namespace(slot, memory.map(|m| m.namespace.as_str()));
        if memory.is_some_and(|m| m.thread.is_some()) {
            self.threaded.insert(slot);
        } else {
            self.threaded.remove(&slot);
        }
    }

    fn set_namespace(&mut self, slot: DocId, namespace: Option<&str>) {
        let number = match namespace {
            None => NO_NAMESPACE,
            Some(ns) => match self.namespace_numbers.get(ns) {
                Some(&n) => n,
                None => {
                    let n = self.namespace_numbers.len() as u32;
                    self.namespace_numbers.insert(ns.to_string(), n);
                    n
                }
            },
        };
        let i = slot as usize;
        if self.slot_namespace.len() <= i {
            self.slot_namespace.resize(i + 1, NO_NAMESPACE);
        }
        self.slot_namespace[i] = number;
    }

    pub fn get_mut(&mut self, slot: DocId) -> Option<&mut Memory> {
        let m = self.slots.get_mut(slot as usize).and_then(Option::as_mut)?;
        if let Some(t) = &mut self.touched {
            t.push(slot);
        }
        Some(m)
    }

    /// Starts (or stops) noting the slots `get_mut` hands out.
    pub fn track_touches(&mut self, on: bool) {
        self.touched = on.then(Vec::new);
    }

    /// Slots handed out by `get_mut` since the last call (possibly repeated or since removed).
    pub fn take_touched(&mut self) -> Vec<DocId> {
        self.touched.as_mut().map(std::mem::take).unwrap_or_default()
    }

    pub fn by_id(&self, id: &str) -> Option<&Memory> {
        self.slot_of(id).and_then(|s| self.get(s))
    }

    /// Live memories with their slots, in slot (insertion) order.
    pub fn iter(&self) -> impl Iterator<Item = (DocId, &Memory)> {
        self.slots.iter().enumerate().filter_map(|(i, m)| m.as_ref().map(|m| (i as DocId, m)))
    }

    /// The live memory in `namespace` whose normalized content equals that of `content`, among the
    /// memories `same` accepts (the same fact, not only the same words).
    pub fn find_duplicate_where(&self, namespace: &str, content: &str, same: impl Fn(&Memory) -> bool) -> Option<DocId> {
        let key = (self.namespace_number(namespace)?, normalized_hash(content));
        let candidates = self.by_content.get(&key)?;
        // A bucket is nearly always empty or a true duplicate; texts are compared only then.
        let norm = normalize(content);
        candidates.iter().copied().find(|&s| self.get(s).is_some_and(|m| normalize(&m.content) == norm && same(m)))
    }

    /// Stores a new memory in a fresh slot and returns it.
    pub fn insert(&mut self, memory: Memory) -> DocId {
        let slot = self.slots.len() as DocId;
        self.by_id.insert(memory.id.clone(), slot);
        self.note_slot(slot, Some(&memory));
        let key = self.content_key(&memory);
        self.by_content.entry(key).or_default().push(slot);
        self.slots.push(Some(memory));
        slot
    }

    /// Replaces the record in `slot` (same id), keeping the duplicate map in step with its content.
    pub fn replace(&mut self, slot: DocId, memory: Memory) {
        if let Some(old) = self.slots.get_mut(slot as usize).and_then(Option::take) {
            self.unlink_content(&old, slot);
        }
        self.note_slot(slot, Some(&memory));
        let key = self.content_key(&memory);
        self.by_content.entry(key).or_default().push(slot);
        self.slots[slot as usize] = Some(memory);
    }

    /// Puts a removed memory back into its own (empty) slot: undoing a delete that failed to persist.
    /// Refused (false) if the slot is taken or out of range, or the id is live elsewhere.
    pub fn restore(&mut self, slot: DocId, memory: Memory) -> bool {
        let free = self.slots.get(slot as usize).is_some_and(Option::is_none);
        if !free || self.by_id.contains_key(&memory.id) {
            return false;
        }
        self.by_id.insert(memory.id.clone(), slot);
        self.note_slot(slot, Some(&memory));
        let key = self.content_key(&memory);
        self.by_content.entry(key).or_default().push(slot);
        self.slots[slot as usize] = Some(memory);
        true
    }

    pub fn remove(&mut self, slot: DocId) -> Option<Memory> {
        let old = self.slots.get_mut(slot as usize).and_then(Option::take)?;
        self.by_id.remove(&old.id);
        self.unlink_content(&old, slot);
        self.note_slot(slot, None);
        Some(old)
    }

    /// The duplicate map's key of `m`, whose namespace has a number (every stored memory's has).
    fn content_key(&self, m: &Memory) -> (u32, u64) {
        (self.namespace_number(&m.namespace).unwrap_or(NO_NAMESPACE), normalized_hash(&m.content))
    }

    fn unlink_content(&mut self, memory: &Memory, slot: DocId) {
        let key = self.content_key(memory);
        if let Some(list) = self.by_content.get_mut(&key) {
            list.retain(|&s| s != slot);
            if list.is_empty() {
                self.by_content.remove(&key);
            }
        }
    }
}
