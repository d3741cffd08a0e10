//! The engine's state as plain records: what snapshots and exports contain, the checks every record
//! read from storage or an import passes before anything is built from it, and loading an engine
//! from it.

use std::collections::{HashMap, HashSet};

use super::prebuilt::Prebuilt;
use super::Engram;
use crate::error::{Error, Result};
use crate::index::{DocId, KeywordIndex};
use crate::model::{validate, Memory, RawEntry};
use crate::store::HistoryEvent;

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

impl Engram {
    /// The memory with this id and its vector.
    pub fn memory_with_vector(&self, id: &str) -> Option<(&Memory, Option<&[f32]>)> {
        let slot = self.tables.table().slot_of(id)?;
        self.tables.table().get(slot).map(|m| (m, self.tables.vectors().get(slot)))
    }

    /// The raw entry with this id and its vector.
    pub fn raw_with_vector(&self, id: &str) -> Option<(&RawEntry, Option<&[f32]>)> {
        let slot = self.tables.raw().slot_of(id)?;
        self.tables.raw().get(slot).map(|e| (e, self.tables.raw_vectors().get(slot)))
    }

    /// Every memory with its vector, in slot order.
    pub fn memories_with_vectors(&self) -> impl Iterator<Item = (&Memory, Option<&[f32]>)> {
        self.tables.table().iter().map(|(s, m)| (m, self.tables.vectors().get(s)))
    }

    /// Every raw entry with its vector, in slot order.
    pub fn raw_with_vectors(&self) -> impl Iterator<Item = (&RawEntry, Option<&[f32]>)> {
        self.tables.raw().iter().map(|(s, e)| (e, self.tables.raw_vectors().get(s)))
    }

    /// Every history event, oldest first.
    pub fn history_events(&self) -> &[HistoryEvent] {
        self.tables.history().events()
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
    pub(crate) fn load_state_with(&mut self, state: EngineState, prebuilt: Prebuilt) -> Result<()> {
        state.check()?;
        for (dims, what) in [(first_dims(&state.memories), "memory"), (first_dims(&state.raw), "raw")] {
            if let (Some(d), Some(e)) = (dims, self.embedder.as_deref()) {
                if d != e.dims() {
                    return Err(Error::embedder(format!("the stored {what} vectors have {d} dimensions; embedder `{}` makes {}", e.id(), e.dims())));
                }
            }
        }
        let recording = self.journal.is_some();
        self.tables = self.tables.emptied_like();
        self.tables.load(state.memories, state.raw, state.history, &prebuilt);
        // Graph segments are derived data: one that does not decode or fit is skipped (its vectors
        // stay in the exact tier until the next build).
        for seg in prebuilt.vector_segments {
            if let Ok(graph) = crate::index::BuiltGraph::from_bytes(&seg.graph) {
                let _ = self.install_vector_segment(seg.target, seg.id, &seg.ids, graph);
            }
        }
        // A load is not a change to persist: whatever was journaled before it is void.
        self.record_changes(recording);
        Ok(())
    }

    /// A keyword index and the slots of the records it covers, in the order
    /// [`Engram::memories_with_vectors`] (or [`Engram::raw_with_vectors`]) lists them: what a
    /// snapshot persists beside those records.
    pub(crate) fn memory_keywords(&self) -> (&KeywordIndex, impl Iterator<Item = DocId> + '_) {
        (self.tables.keyword(), self.tables.table().iter().map(|(s, _)| s))
    }

    /// See [`Engram::memory_keywords`].
    pub(crate) fn raw_keywords(&self) -> (&KeywordIndex, impl Iterator<Item = DocId> + '_) {
        (self.tables.raw_keyword(), self.tables.raw().iter().map(|(s, _)| s))
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
        let bad = |what: String| Error::corrupt(format!("stored state: {what}"));
        let mut ids: HashSet<&str> = HashSet::new();
        let dims = first_dims(&self.memories);
        for (m, v) in &self.memories {
            if m.id.is_empty() || !ids.insert(&m.id) {
                return Err(bad(format!("memory id `{}` is empty or repeated", crate::model::time::truncate(&m.id, 40))));
            }
            validate::namespace(&m.namespace).map_err(|e| bad(e.message))?;
            check_vector(v.as_deref(), dims)?;
        }
        let mut raw_ids: HashSet<&str> = HashSet::new();
        let mut session_ns: HashMap<&str, &str> = HashMap::new();
        let dims = first_dims(&self.raw);
        for (e, v) in &self.raw {
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

    /// Checks what an import brings against the rules every write obeys (`InvalidInput` naming the
    /// first record that breaks one): the limits of `add` and `ingest`, tags as `add` stores them,
    /// times a date can name, links and citations of the size the engine makes, and layers only as
    /// the engine could have produced them. A file is data from outside: it may not set what a
    /// caller cannot.
    pub fn check_importable(&self) -> Result<()> {
        for (m, _) in &self.memories {
            let at = |e: Error| in_import("memory", &m.id, e);
            validate::content(&m.content).map_err(at)?;
            if validate::tags(&m.tags).map_err(at)? != m.tags {
                return Err(at(Error::invalid("tags must be trimmed and distinct, as `add` stores them")));
            }
            if let Some(src) = &m.source {
                validate::source(src).map_err(at)?;
            }
            validate::importance(m.importance).map_err(at)?;
            validate::metadata(&m.metadata).map_err(at)?;
            crate::evolve::fields::check_memory(m).map_err(at)?;
            for (t, what) in [(m.created_at, "createdAt"), (m.modified_at, "modifiedAt"), (m.last_accessed, "lastAccessed")].into_iter().chain(m.event_at.map(|t| (t, "eventAt"))) {
                validate::timestamp(t, what).map_err(at)?;
            }
            if m.derived_from.len() > validate::DERIVED_FROM_MAX || m.links.len() > crate::recall::LINKS_MAX {
                return Err(at(Error::invalid("more derivedFrom ids or links than a memory can have")));
            }
            // Every write lands in the buffer and nothing moves a memory out of it yet: a file that
            // places one in working or core memory claims a promotion that never happened.
            if m.layer != crate::model::Layer::Buffer {
                return Err(at(Error::invalid(format!("layer `{}`: memories are written to the buffer layer", m.layer.as_str()))));
            }
        }
        for (e, _) in &self.raw {
            let at = |x: Error| in_import("raw entry", &e.id, x);
            validate::label(&e.session_id, "session id", validate::SESSION_ID_MAX_CHARS).map_err(at)?;
            validate::turn(&e.role, &e.content, e.speaker.as_deref(), e.turn_id.as_deref()).map_err(at)?;
            for t in [Some(e.created_at), e.date].into_iter().flatten() {
                validate::timestamp(t, "time").map_err(at)?;
            }
        }
        for h in &self.history {
            let at = |e: Error| in_import("history event of", &h.memory_id, e);
            validate::timestamp(h.at, "time").map_err(at)?;
            for text in [&h.content, &h.previous_content].into_iter().flatten() {
                validate::content(text).map_err(at)?;
            }
        }
        Ok(())
    }

    /// Vector length of the memories and of the raw entries, if they have vectors.
    pub fn dims(&self) -> (Option<usize>, Option<usize>) {
        (first_dims(&self.memories), first_dims(&self.raw))
    }
}

fn in_import(what: &str, id: &str, e: Error) -> Error {
    Error::invalid(format!("import: {what} `{}`: {}", crate::model::time::truncate(id, 40), e.message))
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
