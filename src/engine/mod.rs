//! `Engram`: the engine every binding drives. It owns the tables and indexes and enforces the rules
//! (validation before any change, dedup within a namespace, every write into the buffer layer,
//! history for every change). Synchronous and free of I/O: bindings do the async parts around it.

mod author;
mod author_llm;
mod batch;
mod consolidate;
mod context;
mod evolve;
mod extract;
mod guarded;
mod host_vectors;
mod jobs;
mod journal;
mod links;
mod merge;
mod prebuilt;
mod raw;
mod reembed;
mod replay;
mod search;
mod state;
mod tables;
mod vectors;
mod visibility;

use std::collections::BTreeMap;

use serde::Serialize;

pub use author::{AuthorReport, Retracted, REDACTED, RULES_ID};
pub use author_llm::AuthorPlan;
pub use batch::BATCH_MAX;
pub use consolidate::{ConsolidateOptions, ConsolidatePlan, PlannedDecision, PlannedMemory, Step as ConsolidateStep};
pub use evolve::{GatherView, ThreadView};
pub use extract::{ExtractOptions, ExtractPlan, ExtractReport, PlannedCall, PlannedTurn, SkippedStep};
pub use guarded::Released;
pub use host_vectors::{ToEmbed, Vectorless};
pub use jobs::{Job, JobPlan, JobReport, JobRequest};
pub(crate) use journal::Changes;
pub use merge::Merged;
pub(crate) use prebuilt::{Counted, PersistedSegment, Prebuilt};
pub use raw::{DeletedSession, Ingested, SessionInput, TurnInput};
pub use reembed::{Reembed, REEMBED_BATCH};
pub(crate) use replay::RecordChange;
pub use search::{Hit, HitTarget};
pub use state::{EngineState, WithVector};
pub use vectors::VectorTarget;
pub use visibility::{NamespaceChoice, Namespaces};
// The evolving record lives with the data model; `engine::Evolving` stays its public path.
pub use crate::model::{Evolving, EvolvingPatch};

use crate::error::{Error, Result};
use crate::host::{Clock, Embedder};
use crate::index::DocId;
use crate::model::ids::IdSource;
use crate::model::time::Millis;
use crate::model::{validate, Kind, Layer, Memory};
use crate::store::{EventKind, HistoryEvent};
use tables::VectorChange;

/// What `add` takes. Only `content` is required.
#[derive(Clone, Debug, Default)]
pub struct NewMemory {
    pub content: String,
    pub namespace: Option<String>,
    pub kind: Option<Kind>,
    pub importance: Option<f64>,
    pub tags: Vec<String>,
    pub source: Option<String>,
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// Caller-supplied vector; otherwise the engine's embedder (if any) makes one.
    pub embedding: Option<Vec<f32>>,
    /// When the remembered thing happened, if not now.
    pub event_at: Option<Millis>,
    /// Raw entry ids (`<session>#<turn>`) this memory was authored from; each must exist.
    pub derived_from: Vec<String>,
    /// The typed evolving-fact fields (shape, thread, value, …), all optional.
    pub evolving: Evolving,
    /// Keep secrets in this memory's text even where the store's guards would redact or reject them.
    pub allow_secrets: bool,
}

/// What `update` changes; `None` leaves a field as it is. The layer is not here: only the lifecycle
/// moves memories between layers.
#[derive(Clone, Debug, Default)]
pub struct MemoryPatch {
    pub content: Option<String>,
    pub kind: Option<Kind>,
    pub importance: Option<f64>,
    pub tags: Option<Vec<String>>,
    /// `Some(None)` clears the source.
    pub source: Option<Option<String>>,
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    pub embedding: Option<Vec<f32>>,
    pub event_at: Option<Option<Millis>>,
    /// Keep secrets in the new text (see `NewMemory::allow_secrets`).
    pub allow_secrets: bool,
    /// The evolving-fact fields to change (`Some(None)` clears one).
    pub evolving: EvolvingPatch,
}

/// Result of `add`: the stored memory, and whether it already existed (then it was reinforced).
#[derive(Clone, Debug)]
pub struct Added {
    pub memory: Memory,
    pub deduplicated: bool,
}

/// Counts that describe a store.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub memories: usize,
    pub namespaces: BTreeMap<String, usize>,
    pub by_kind: BTreeMap<String, usize>,
    pub by_layer: BTreeMap<String, usize>,
    pub vectors: usize,
    pub vector_dims: Option<usize>,
    pub keyword_terms: usize,
    pub history_events: usize,
    pub embedder: Option<String>,
    pub sessions: usize,
    pub raw_entries: usize,
    pub raw_vectors: usize,
}

/// Options for `Engram::new`.
#[derive(Default)]
pub struct EngineOptions {
    /// Seed for reproducible ids (tests); `None` draws ids from OS randomness.
    pub id_seed: Option<u64>,
    /// Embeds content on `add` and queries on `search` when the caller gives no vector.
    pub embedder: Option<Box<dyn Embedder>>,
    /// Options of both vector indexes (memories, raw turns): when graphs pay off and how they build.
    pub vectors: crate::index::VectorOptions,
    /// Secret and injection policies applied to every write.
    pub guards: crate::guard::GuardOptions,
    /// Reads in a namespace see only it, not the shared `default` namespace (a tenant's search sees
    /// only its own memories); a call can still ask for it (`Namespaces::include_default`). New
    /// memories link within their namespace only.
    pub exclude_default: bool,
}

pub struct Engram {
    clock: Box<dyn Clock>,
    ids: IdSource,
    embedder: Option<Box<dyn Embedder>>,
    tables: tables::Tables,
    /// Undo log of changes while persistence records them (`record_changes`); `None` otherwise.
    journal: Option<journal::Journal>,
    /// LLM calls applied since this engine was created (not persisted).
    llm_usage: crate::llm::LlmUsage,
    guards: crate::guard::GuardOptions,
    /// Scratch of the link walk (which slots it has met), kept between adds.
    link_walk: links::WalkScratch,
    /// `EngineOptions::exclude_default`.
    exclude_default: bool,
}

fn resolve_namespace(ns: Option<&str>) -> Result<String> {
    let ns = ns.unwrap_or(validate::DEFAULT_NAMESPACE);
    validate::namespace(ns)?;
    Ok(ns.to_string())
}

impl Engram {
    pub fn new(clock: Box<dyn Clock>, options: EngineOptions) -> Self {
        Engram {
            clock,
            ids: options.id_seed.map_or(IdSource::Os, IdSource::Seeded),
            embedder: options.embedder,
            tables: tables::Tables::with_vector_options(&options.vectors),
            journal: None,
            llm_usage: crate::llm::LlmUsage::default(),
            guards: options.guards,
            link_walk: links::WalkScratch::default(),
            exclude_default: options.exclude_default,
        }
    }

    pub fn now(&self) -> Millis {
        self.clock.now_ms()
    }

    /// Attaches the embedder that makes vectors for new text. Refused when the store already holds
    /// vectors of another length: vector generations never mix silently.
    pub fn set_embedder(&mut self, embedder: Box<dyn Embedder>) -> Result<()> {
        for dims in [self.tables.vectors().dims(), self.tables.raw_vectors().dims()].into_iter().flatten() {
            if dims != embedder.dims() {
                return Err(Error::embedder(format!("this store holds {dims}-dimensional vectors; embedder `{}` makes {}", embedder.id(), embedder.dims())));
            }
        }
        self.embedder = Some(embedder);
        Ok(())
    }

    pub fn embedder_id(&self) -> Option<&str> {
        self.embedder.as_deref().map(|e| e.id())
    }

    fn expected_dims(&self) -> Option<usize> {
        self.tables.vectors().dims().or_else(|| self.embedder.as_ref().map(|e| e.dims()))
    }

    /// A caller's vector, validated and normalized; or the embedder's vector for `text`; or none.
    fn vector_for(&self, given: Option<&[f32]>, text: &str) -> Result<Option<Vec<f32>>> {
        if let Some(v) = given {
            return validate::embedding(v, self.expected_dims()).map(Some);
        }
        let Some(e) = self.embedder.as_deref() else { return Ok(None) };
        let mut out = e.embed(&[text])?;
        let v = out.pop().filter(|_| out.is_empty()).ok_or_else(|| Error::embedder("embedder returned the wrong number of vectors"))?;
        validate::embedding(&v, self.expected_dims()).map(Some).map_err(|e| Error::embedder(format!("embedder output rejected: {}", e.message)))
    }

    /// Stores a memory in the buffer layer, or reinforces the existing one with the same normalized
    /// content in the same namespace about the same fact (see `CheckedAdd::same_fact`).
    pub fn add(&mut self, input: NewMemory) -> Result<Added> {
        self.add_by(input, None)
    }

    /// `add`, naming in history the versioned prompt behind an LLM-made memory.
    fn add_by(&mut self, input: NewMemory, prompt_id: Option<&str>) -> Result<Added> {
        let checked = self.check_add(input, self.expected_dims())?;
        if let Some(dup) = self.apply_duplicate(&checked, prompt_id) {
            return Ok(dup);
        }
        let vector = self.vector_for(checked.input.embedding.as_deref(), &checked.input.content)?;
        self.apply_add(checked, vector, prompt_id)
    }

    /// Every check of `add` that needs no other memory of a batch: guards, limits, the caller's
    /// vector against `dims`. Changes nothing.
    fn check_add(&self, input: NewMemory, dims: Option<usize>) -> Result<batch::CheckedAdd> {
        validate::content(&input.content)?;
        let (input, guarded) = self.guard_new(input)?;
        let namespace = resolve_namespace(input.namespace.as_deref())?;
        let tags = validate::tags(&input.tags)?;
        if let Some(s) = &input.source {
            validate::source(s)?;
        }
        let importance = input.importance.unwrap_or(0.5);
        validate::importance(importance)?;
        if let Some(md) = &input.metadata {
            validate::metadata(md)?;
        }
        let derived_from = self.check_derived_from(&input.derived_from)?;
        let evolving = crate::evolve::fields::check_new(input.evolving.clone())?;
        if let Some(v) = &input.embedding {
            validate::embedding(v, dims)?;
        }
        Ok(batch::CheckedAdd { input, guarded, namespace, tags, importance, derived_from, evolving })
    }

    /// Reinforces the stored memory with the same normalized content in the namespace, if any.
    fn apply_duplicate(&mut self, checked: &batch::CheckedAdd, prompt_id: Option<&str>) -> Option<Added> {
        let slot = self.tables.table().find_duplicate_where(&checked.namespace, &checked.input.content, |m| checked.same_fact(m))?;
        let now = self.now();
        if let Some(id) = self.tables.table().get(slot).map(|m| m.id.clone()) {
            self.note_memory(&id);
        }
        let m = self.tables.memory_counters_mut(slot).expect("duplicate slot is live");
        m.repetition_count = m.repetition_count.saturating_add(1);
        m.last_accessed = now;
        let memory = m.clone();
        self.log(HistoryEvent {
            memory_id: memory.id.clone(),
            event: EventKind::Reinforce,
            at: now,
            content: Some(memory.content.clone()),
            previous_content: None,
            prompt_id: prompt_id.map(str::to_string),
            related: None,
            reason: None,
        });
        Some(Added { memory, deduplicated: true })
    }

    /// Stores a checked new memory (not a duplicate) with its vector, if any.
    fn apply_add(&mut self, checked: batch::CheckedAdd, vector: Option<Vec<f32>>, prompt_id: Option<&str>) -> Result<Added> {
        let batch::CheckedAdd { input, guarded, namespace, tags, importance, derived_from, evolving } = checked;
        let now = self.now();
        let id = self.fresh_id()?;
        let epoch = self.epoch(&namespace);
        let links = vector.as_deref().map(|v| self.nearest_for_links(v, &namespace)).unwrap_or_default();
        let mut memory = Memory {
            id: id.clone(),
            namespace,
            content: input.content,
            kind: input.kind.unwrap_or_default(),
            layer: Layer::Buffer,
            importance,
            tags,
            source: input.source,
            metadata: input.metadata.unwrap_or_default(),
            created_at: now,
            modified_at: now,
            last_accessed: now,
            access_count: 0,
            repetition_count: 0,
            event_at: input.event_at,
            derived_from,
            links,
            cites: Vec::new(),
            lifecycle: crate::model::Lifecycle { layer_epoch: epoch, decay_epoch: epoch, ..Default::default() },
            flags: guarded.flags,
            quarantined: guarded.quarantine,
            ..Memory::default()
        };
        evolving.set_on(&mut memory);
        self.note_memory(&id);
        self.log(HistoryEvent {
            memory_id: id,
            event: EventKind::Add,
            at: now,
            content: Some(memory.content.clone()),
            previous_content: None,
            prompt_id: prompt_id.map(str::to_string),
            related: None,
            reason: None,
        });
        self.tables.put_memory(memory.clone(), vector.map_or(VectorChange::Keep, VectorChange::Set));
        Ok(Added { memory, deduplicated: false })
    }

    pub fn get(&self, id: &str) -> Option<&Memory> {
        self.tables.table().by_id(id)
    }

    /// Memories of one namespace (not `default` unless asked for), newest first.
    pub fn get_all(&self, namespace: Option<&str>, limit: usize, offset: usize) -> Result<Vec<Memory>> {
        let ns = resolve_namespace(namespace)?;
        validate::limit(limit, "limit")?;
        let mut all: Vec<(DocId, &Memory)> = self.tables.table().iter().filter(|(_, m)| m.namespace == ns).collect();
        all.sort_by(|a, b| b.1.created_at.cmp(&a.1.created_at).then(b.0.cmp(&a.0)));
        Ok(all.into_iter().skip(offset).take(limit).map(|(_, m)| m.clone()).collect())
    }

    pub fn count(&self, namespace: Option<&str>) -> Result<usize> {
        let ns = resolve_namespace(namespace)?;
        Ok(self.tables.table().iter().filter(|(_, m)| m.namespace == ns).count())
    }

    pub fn update(&mut self, id: &str, patch: MemoryPatch) -> Result<Memory> {
        let slot = self.tables.table().slot_of(id).ok_or_else(|| Error::not_found(format!("no memory with id {}", crate::model::time::truncate(id, 40))))?;
        let mut m = self.tables.table().get(slot).expect("slot is live").clone();
        if let Some(c) = &patch.content {
            validate::content(c)?;
        }
        let (patch, guarded) = self.guard_patch(patch)?;
        let tags = patch.tags.as_deref().map(validate::tags).transpose()?;
        if let Some(Some(s)) = &patch.source {
            validate::source(s)?;
        }
        if let Some(i) = patch.importance {
            validate::importance(i)?;
        }
        if let Some(md) = &patch.metadata {
            validate::metadata(md)?;
        }
        crate::evolve::fields::apply_patch(&mut m, &patch.evolving)?;
        let content_changed = patch.content.as_ref().is_some_and(|c| *c != m.content);
        // A new text needs a new vector: the caller's, or the embedder's; the old one would be stale.
        let vector = match (&patch.embedding, content_changed) {
            (Some(v), _) => Some(validate::embedding(v, self.expected_dims())?),
            (None, true) => self.vector_for(None, patch.content.as_deref().unwrap_or_default())?,
            (None, false) => None,
        };
        let previous = m.content.clone();
        if let Some(c) = patch.content {
            m.content = c;
        }
        // Flags follow the text: a release holds until the text changes.
        if let Some(g) = guarded.filter(|_| content_changed) {
            m.flags = g.flags;
            m.quarantined = g.quarantine;
        }
        if let Some(k) = patch.kind {
            m.kind = k;
        }
        if let Some(i) = patch.importance {
            // Set now: decay counts from this epoch.
            m.importance = i;
            m.lifecycle.decay_epoch = self.epoch(&m.namespace);
        }
        if let Some(t) = tags {
            m.tags = t;
        }
        if let Some(s) = patch.source {
            m.source = s;
        }
        if let Some(md) = patch.metadata {
            m.metadata = md;
        }
        if let Some(e) = patch.event_at {
            m.event_at = e;
        }
        let now = self.now();
        m.modified_at = now;
        self.note_memory(&m.id);
        self.log(HistoryEvent {
            memory_id: m.id.clone(),
            event: EventKind::Update,
            at: now,
            content: Some(m.content.clone()),
            previous_content: content_changed.then_some(previous),
            prompt_id: None,
            related: None,
            reason: None,
        });
        let vector = match vector {
            Some(v) => VectorChange::Set(v),
            None if content_changed => VectorChange::Clear,
            None => VectorChange::Keep,
        };
        self.tables.put_memory(m.clone(), vector);
        Ok(m)
    }

    fn remove_slot(&mut self, slot: DocId, now: Millis) {
        if let Some(id) = self.tables.table().get(slot).map(|m| m.id.clone()) {
            self.note_memory(&id);
        }
        if let Some(m) = self.tables.remove_memory(slot) {
            // The event stays; the deleted text leaves the history with the memory.
            self.log(HistoryEvent {
                memory_id: m.id.clone(),
                event: EventKind::Delete,
                at: now,
                content: None,
                previous_content: None,
                prompt_id: None,
                related: None,
                reason: None,
            });
            self.forget_history_text(&m.id);
        }
    }

    pub fn delete(&mut self, id: &str) -> Result<()> {
        let slot = self.tables.table().slot_of(id).ok_or_else(|| Error::not_found(format!("no memory with id {}", crate::model::time::truncate(id, 40))))?;
        let now = self.now();
        self.remove_slot(slot, now);
        Ok(())
    }

    /// Deletes every memory and every raw session of one namespace, so nothing of it is left in an
    /// index or (after compaction) a stored byte; returns how many memories went, counting those of
    /// other namespaces that were derived only from its turns (as `deleteSession` removes them).
    pub fn delete_all(&mut self, namespace: Option<&str>) -> Result<usize> {
        let ns = resolve_namespace(namespace)?;
        let slots: Vec<DocId> = self.tables.table().iter().filter(|(_, m)| m.namespace == ns).map(|(s, _)| s).collect();
        let now = self.now();
        for &s in &slots {
            self.remove_slot(s, now);
        }
        let mut deleted = slots.len();
        for session in self.tables.raw().sessions_in(&ns) {
            deleted += self.delete_session(&session)?.memories;
        }
        // Graph segments keep removed vectors until rebuilt; the namespace's must go now (their
        // stored copies go at the next compaction).
        self.tables.drop_segments_with_tombstones();
        Ok(deleted)
    }

    /// A new memory id that no memory, live or deleted, has had. OS ids never collide in practice;
    /// a seeded source restarts its sequence when a store is reopened, so its ids are checked.
    fn fresh_id(&mut self) -> Result<String> {
        loop {
            let id = self.ids.next_uuid()?;
            if self.tables.table().slot_of(&id).is_none() && !self.tables.history().knows(&id) {
                return Ok(id);
            }
        }
    }

    /// Everything that happened to a memory, oldest first. `NotFound` if it never existed.
    pub fn history(&self, id: &str) -> Result<Vec<HistoryEvent>> {
        self.tables
            .history()
            .of(id)
            .map(|v| v.into_iter().cloned().collect())
            .ok_or_else(|| Error::not_found(format!("no history for id {}", crate::model::time::truncate(id, 40))))
    }

    /// Forgets everything: memories, indexes, history.
    pub fn reset(&mut self) {
        self.forget_all();
    }

    pub fn stats(&self) -> Stats {
        let mut s = Stats {
            memories: self.tables.table().len(),
            vectors: self.tables.vectors().len(),
            vector_dims: self.expected_dims(),
            keyword_terms: self.tables.keyword().live_terms(),
            history_events: self.tables.history().len(),
            embedder: self.embedder_id().map(str::to_string),
            sessions: self.tables.raw().session_count(),
            raw_entries: self.tables.raw().len(),
            raw_vectors: self.tables.raw_vectors().len(),
            ..Stats::default()
        };
        for (_, m) in self.tables.table().iter() {
            *s.namespaces.entry(m.namespace.clone()).or_default() += 1;
            *s.by_kind.entry(m.kind.as_str().to_string()).or_default() += 1;
            *s.by_layer.entry(m.layer.as_str().to_string()).or_default() += 1;
        }
        s
    }

    /// Checks `derivedFrom` ids exist as raw entries; drops repeats, keeps order.
    fn check_derived_from(&self, ids: &[String]) -> Result<Vec<String>> {
        if ids.len() > validate::DERIVED_FROM_MAX {
            return Err(Error::invalid(format!("derivedFrom has {} ids; the limit is {}", ids.len(), validate::DERIVED_FROM_MAX)));
        }
        let mut out: Vec<String> = Vec::with_capacity(ids.len());
        for id in ids {
            if self.tables.raw().by_id(id).is_none() {
                return Err(Error::invalid(format!("derivedFrom: no raw entry `{}`", crate::model::time::truncate(id, 60))));
            }
            if !out.contains(id) {
                out.push(id.clone());
            }
        }
        Ok(out)
    }

    /// Memories linked with `id` in either direction.
    pub fn linked(&self, id: &str) -> Vec<String> {
        let table = self.tables.table();
        let slots = match table.slot_of(id) {
            Some(slot) => self.linked_slots(slot),
            None => self.tables.links().pending(id).to_vec(),
        };
        slots.into_iter().filter_map(|s| table.get(s).map(|m| m.id.clone())).collect()
    }

    /// Slots of the memories linked with the one in `slot` in either direction, each once.
    pub(crate) fn linked_slots(&self, slot: DocId) -> Vec<DocId> {
        let links = self.tables.links();
        let mut out: Vec<DocId> = Vec::with_capacity(links.outgoing(slot).len() + links.incoming(slot).len());
        for &s in links.outgoing(slot).iter().chain(links.incoming(slot)) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }
}
