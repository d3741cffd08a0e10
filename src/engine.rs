//! `Engram`: the engine every binding drives. It owns the tables and indexes and enforces the rules
//! (validation before any change, dedup within a namespace, every write into the buffer layer,
//! history for every change). Synchronous and free of I/O: bindings do the async parts around it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::host::{Clock, Embedder};
use crate::index::{DocId, KeywordIndex, KeywordQuery, VectorIndex};
use crate::model::ids::IdSource;
use crate::model::time::Millis;
use crate::model::{validate, Kind, Layer, Memory};
use crate::recall::{fusion, score, ScoreBreakdown, SearchRequest, DEFAULT_LIMIT, TOUCH_RELEVANCE};
use crate::store::{EventKind, HistoryEvent, HistoryLog, MemoryTable};

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
}

/// Result of `add`: the stored memory, and whether it already existed (then it was reinforced).
#[derive(Clone, Debug)]
pub struct Added {
    pub memory: Memory,
    pub deduplicated: bool,
}

/// A search result.
#[derive(Clone, Debug)]
pub struct Hit {
    pub memory: Memory,
    pub score: f64,
    pub explain: Option<ScoreBreakdown>,
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
}

/// Options for `Engram::new`.
#[derive(Default)]
pub struct EngineOptions {
    /// Seed for reproducible ids (tests); `None` draws ids from OS randomness.
    pub id_seed: Option<u64>,
    /// Embeds content on `add` and queries on `search` when the caller gives no vector.
    pub embedder: Option<Box<dyn Embedder>>,
}

pub struct Engram {
    clock: Box<dyn Clock>,
    ids: IdSource,
    embedder: Option<Box<dyn Embedder>>,
    table: MemoryTable,
    keyword: KeywordIndex,
    vectors: VectorIndex,
    history: HistoryLog,
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
            table: MemoryTable::default(),
            keyword: KeywordIndex::new(),
            vectors: VectorIndex::new(),
            history: HistoryLog::default(),
        }
    }

    pub fn now(&self) -> Millis {
        self.clock.now_ms()
    }

    pub fn embedder_id(&self) -> Option<&str> {
        self.embedder.as_deref().map(|e| e.id())
    }

    fn expected_dims(&self) -> Option<usize> {
        self.vectors.dims().or_else(|| self.embedder.as_ref().map(|e| e.dims()))
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

    fn index(&mut self, slot: DocId) {
        if let Some(m) = self.table.get(slot) {
            let texts: Vec<&str> = std::iter::once(m.content.as_str()).chain(m.tags.iter().map(String::as_str)).collect();
            self.keyword.insert(slot, texts);
        }
    }

    /// Stores a memory in the buffer layer, or reinforces the existing one with the same normalized
    /// content in the same namespace.
    pub fn add(&mut self, input: NewMemory) -> Result<Added> {
        validate::content(&input.content)?;
        let namespace = resolve_namespace(input.namespace.as_deref())?;
        let tags = validate::tags(&input.tags)?;
        if let Some(s) = &input.source {
            validate::source(s)?;
        }
        let importance = input.importance.unwrap_or(0.5);
        validate::importance(importance)?;
        let metadata = input.metadata.unwrap_or_default();
        validate::metadata(&metadata)?;
        let now = self.now();

        if let Some(slot) = self.table.find_duplicate(&namespace, &input.content) {
            if let Some(v) = &input.embedding {
                validate::embedding(v, self.expected_dims())?;
            }
            let m = self.table.get_mut(slot).expect("duplicate slot is live");
            m.repetition_count = m.repetition_count.saturating_add(1);
            m.last_accessed = now;
            let memory = m.clone();
            self.history.append(HistoryEvent {
                memory_id: memory.id.clone(),
                event: EventKind::Reinforce,
                at: now,
                content: Some(memory.content.clone()),
                previous_content: None,
            });
            return Ok(Added { memory, deduplicated: true });
        }

        let vector = self.vector_for(input.embedding.as_deref(), &input.content)?;
        let id = self.ids.next_uuid()?;
        let memory = Memory {
            id: id.clone(),
            namespace,
            content: input.content,
            kind: input.kind.unwrap_or_default(),
            layer: Layer::Buffer,
            importance,
            tags,
            source: input.source,
            metadata,
            created_at: now,
            modified_at: now,
            last_accessed: now,
            access_count: 0,
            repetition_count: 0,
            event_at: input.event_at,
            derived_from: Vec::new(),
        };
        self.history.append(HistoryEvent { memory_id: id, event: EventKind::Add, at: now, content: Some(memory.content.clone()), previous_content: None });
        let slot = self.table.insert(memory.clone());
        self.index(slot);
        if let Some(v) = vector {
            self.vectors.insert(slot, v);
        }
        Ok(Added { memory, deduplicated: false })
    }

    pub fn get(&self, id: &str) -> Option<&Memory> {
        self.table.by_id(id)
    }

    /// Memories of one namespace (not `default` unless asked for), newest first.
    pub fn get_all(&self, namespace: Option<&str>, limit: usize, offset: usize) -> Result<Vec<Memory>> {
        let ns = resolve_namespace(namespace)?;
        validate::limit(limit, "limit")?;
        let mut all: Vec<(DocId, &Memory)> = self.table.iter().filter(|(_, m)| m.namespace == ns).collect();
        all.sort_by(|a, b| b.1.created_at.cmp(&a.1.created_at).then(b.0.cmp(&a.0)));
        Ok(all.into_iter().skip(offset).take(limit).map(|(_, m)| m.clone()).collect())
    }

    pub fn count(&self, namespace: Option<&str>) -> Result<usize> {
        let ns = resolve_namespace(namespace)?;
        Ok(self.table.iter().filter(|(_, m)| m.namespace == ns).count())
    }

    pub fn update(&mut self, id: &str, patch: MemoryPatch) -> Result<Memory> {
        let slot = self.table.slot_of(id).ok_or_else(|| Error::not_found(format!("no memory with id {}", crate::model::time::truncate(id, 40))))?;
        let mut m = self.table.get(slot).expect("slot is live").clone();
        if let Some(c) = &patch.content {
            validate::content(c)?;
        }
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
        if let Some(k) = patch.kind {
            m.kind = k;
        }
        if let Some(i) = patch.importance {
            m.importance = i;
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
        self.history.append(HistoryEvent {
            memory_id: m.id.clone(),
            event: EventKind::Update,
            at: now,
            content: Some(m.content.clone()),
            previous_content: content_changed.then_some(previous),
        });
        self.table.replace(slot, m.clone());
        self.index(slot);
        match vector {
            Some(v) => self.vectors.insert(slot, v),
            None if content_changed => {
                self.vectors.remove(slot);
            }
            None => {}
        }
        Ok(m)
    }

    fn remove_slot(&mut self, slot: DocId, now: Millis) {
        if let Some(m) = self.table.remove(slot) {
            self.keyword.remove(slot);
            self.vectors.remove(slot);
            self.history.append(HistoryEvent { memory_id: m.id, event: EventKind::Delete, at: now, content: None, previous_content: Some(m.content) });
        }
    }

    pub fn delete(&mut self, id: &str) -> Result<()> {
        let slot = self.table.slot_of(id).ok_or_else(|| Error::not_found(format!("no memory with id {}", crate::model::time::truncate(id, 40))))?;
        let now = self.now();
        self.remove_slot(slot, now);
        Ok(())
    }

    /// Deletes every memory of one namespace; returns how many.
    pub fn delete_all(&mut self, namespace: Option<&str>) -> Result<usize> {
        let ns = resolve_namespace(namespace)?;
        let slots: Vec<DocId> = self.table.iter().filter(|(_, m)| m.namespace == ns).map(|(s, _)| s).collect();
        let now = self.now();
        for &s in &slots {
            self.remove_slot(s, now);
        }
        Ok(slots.len())
    }

    /// Everything that happened to a memory, oldest first. `NotFound` if it never existed.
    pub fn history(&self, id: &str) -> Result<Vec<HistoryEvent>> {
        self.history
            .of(id)
            .map(|v| v.into_iter().cloned().collect())
            .ok_or_else(|| Error::not_found(format!("no history for id {}", crate::model::time::truncate(id, 40))))
    }

    /// Forgets everything: memories, indexes, history.
    pub fn reset(&mut self) {
        self.table.clear();
        self.keyword.clear();
        self.vectors.clear();
        self.history.clear();
    }

    pub fn stats(&self) -> Stats {
        let mut s = Stats {
            memories: self.table.len(),
            vectors: self.vectors.len(),
            vector_dims: self.expected_dims(),
            keyword_terms: self.keyword.live_terms(),
            history_events: self.history.len(),
            embedder: self.embedder_id().map(str::to_string),
            ..Stats::default()
        };
        for (_, m) in self.table.iter() {
            *s.namespaces.entry(m.namespace.clone()).or_default() += 1;
            *s.by_kind.entry(m.kind.as_str().to_string()).or_default() += 1;
            *s.by_layer.entry(m.layer.as_str().to_string()).or_default() += 1;
        }
        s
    }

    /// Hybrid search in a namespace (plus `default`): keyword and vector candidates, fused, scored,
    /// best first. Memories with relevance above 0.5 are touched unless `dry_run`.
    pub fn search(&mut self, req: &SearchRequest) -> Result<Vec<Hit>> {
        let ns = resolve_namespace(req.namespace.as_deref())?;
        let limit = req.limit.unwrap_or(DEFAULT_LIMIT);
        validate::limit(limit, "limit")?;
        let text = req.query.as_deref().map(str::trim).filter(|q| !q.is_empty());
        if let Some(q) = text {
            validate::content(q).map_err(|e| Error::invalid(format!("query: {}", e.message)))?;
        }
        let query_vec = match (&req.embedding, text) {
            (Some(v), _) => Some(validate::embedding(v, self.vectors.dims())?),
            (None, Some(q)) if self.embedder.is_some() => self.vector_for(None, q)?,
            _ => None,
        };
        if text.is_none() && query_vec.is_none() {
            return Err(Error::invalid("search needs a query text, an embedding, or both"));
        }
        let tags = validate::tags(&req.tags)?;
        let table = &self.table;
        let accept = |slot: DocId| {
            table.get(slot).is_some_and(|m| {
                (m.namespace == ns || m.namespace == validate::DEFAULT_NAMESPACE)
                    && (req.kinds.is_empty() || req.kinds.contains(&m.kind))
                    && (req.layers.is_empty() || req.layers.contains(&m.layer))
                    && tags.iter().all(|t| m.tags.contains(t))
            })
        };
        // Fetch more candidates than asked for: scoring reorders them.
        let pool = (limit * 4).max(50);
        let mut evidence: BTreeMap<DocId, (Option<f64>, Option<f64>)> = BTreeMap::new();
        if let Some(q) = text {
            for h in self.keyword.search(&KeywordQuery::parse(q), pool, accept) {
                evidence.entry(h.doc).or_default().0 = Some(fusion::keyword_relevance(h.relevance));
            }
        }
        if let Some(v) = &query_vec {
            for h in self.vectors.search(v, pool, accept) {
                evidence.entry(h.doc).or_default().1 = Some(fusion::vector_relevance(h.cosine));
            }
        }
        let now = self.now();
        let mut scored: Vec<(DocId, ScoreBreakdown)> = evidence
            .into_iter()
            .filter_map(|(slot, (k, v))| {
                let m = self.table.get(slot)?;
                Some((slot, score::score(m, fusion::fuse(k, v), k, v, now)))
            })
            .filter(|(_, b)| b.relevance > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        let mut hits = Vec::with_capacity(scored.len());
        for (slot, b) in scored {
            if !req.dry_run && b.relevance > TOUCH_RELEVANCE {
                if let Some(m) = self.table.get_mut(slot) {
                    m.access_count = m.access_count.saturating_add(1);
                    m.last_accessed = now;
                }
            }
            let memory = self.table.get(slot).expect("scored slot is live").clone();
            hits.push(Hit { memory, score: b.score, explain: req.explain.then_some(b) });
        }
        Ok(hits)
    }
}
