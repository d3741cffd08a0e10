//! The state a sequence of operations describes, kept in insertion order (the engine's slot order)
//! while chunks are applied, then handed to the engine in one piece so indexes are built once.

use std::collections::HashMap;

use super::identity::EmbedderIdentity;
use super::ops::Op;
use crate::engine::{EngineState, WithVector};
use crate::model::{Memory, RawEntry};
use crate::store::HistoryEvent;

/// Records by id in first-insertion order; replacing keeps the position, as the engine's slots do.
struct Ordered<T> {
    entries: Vec<Option<WithVector<T>>>,
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
            Some(&i) => self.entries[i] = Some(value),
            None => {
                self.at.insert(id, self.entries.len());
                self.entries.push(Some(value));
            }
        }
    }
    fn delete(&mut self, id: &str) {
        if let Some(i) = self.at.remove(id) {
            self.entries[i] = None;
        }
    }
    fn into_vec(self) -> Vec<WithVector<T>> {
        self.entries.into_iter().flatten().collect()
    }
}

#[derive(Default)]
pub struct Image {
    memories: Ordered<Memory>,
    raw: Ordered<RawEntry>,
    history: Vec<HistoryEvent>,
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
            Op::Embedder(id) => self.identity = Some(id),
        }
    }

    pub fn into_state(self) -> (EngineState, Option<EmbedderIdentity>) {
        (EngineState { memories: self.memories.into_vec(), raw: self.raw.into_vec(), history: self.history }, self.identity)
    }
}
