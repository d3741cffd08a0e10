//! Search on the engine: candidates from the memory and raw indexes, fused, scored, expanded.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::visibility::Namespaces;
use super::Engram;
use crate::error::{Error, Result};
use crate::index::{DocId, KeywordIndex, KeywordQuery, VectorIndex};
use crate::model::{validate, Memory, RawEntry};
use crate::recall::turn_rank::{self, TurnEvidence};
use crate::recall::{fusion, score, timeframe, ScoreBreakdown, SearchRequest, DEFAULT_LIMIT, EXPANSION_DECAY, TOUCH_RELEVANCE};

/// What a hit is: an authored memory or a verbatim turn.
#[derive(Clone, Debug, PartialEq)]
pub enum HitTarget {
    Memory(Memory),
    Raw(RawEntry),
}

/// A search result.
#[derive(Clone, Debug)]
pub struct Hit {
    pub target: HitTarget,
    pub score: f64,
    pub explain: Option<ScoreBreakdown>,
    /// For an expansion (neighbouring turn, linked memory): the id of the hit that pulled it in.
    pub expanded_from: Option<String>,
}

impl Hit {
    pub fn memory(&self) -> Option<&Memory> {
        match &self.target {
            HitTarget::Memory(m) => Some(m),
            HitTarget::Raw(_) => None,
        }
    }
    pub fn raw(&self) -> Option<&RawEntry> {
        match &self.target {
            HitTarget::Raw(r) => Some(r),
            HitTarget::Memory(_) => None,
        }
    }
    pub fn id(&self) -> &str {
        match &self.target {
            HitTarget::Memory(m) => &m.id,
            HitTarget::Raw(r) => &r.id,
        }
    }
    pub fn content(&self) -> &str {
        match &self.target {
            HitTarget::Memory(m) => &m.content,
            HitTarget::Raw(r) => &r.content,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Key {
    Memory(DocId),
    Raw(DocId),
}

/// One re-ranked candidate's turn id (the caller's, else the entry's) and features.
#[cfg(feature = "internals")]
pub type TurnFeatures = (String, [f64; turn_rank::N]);

/// What a search gathers besides its hits, and whether it re-ranks raw turns.
#[derive(Default)]
struct Gathering<'a> {
    /// The raw turns nearest the query vector, however far.
    nearest_turns: Option<&'a mut Vec<(DocId, f32)>>,
    /// The re-ranked window's features (for the trainer).
    turn_features: Option<&'a mut Vec<(DocId, [f64; turn_rank::N])>>,
    /// Put the first raw candidates in the learned order (`recall::turn_rank`).
    rerank_turns: bool,
}

/// Keyword and vector evidence per document of one index pair.
fn gather(
    keyword: &KeywordIndex,
    vectors: &VectorIndex,
    query: Option<&KeywordQuery>,
    query_vec: Option<&[f32]>,
    pool: usize,
    accept: impl Fn(DocId) -> bool + Copy,
    nearest: Option<&mut Vec<(DocId, f32)>>,
) -> BTreeMap<DocId, (Option<f64>, Option<f64>)> {
    let mut evidence: BTreeMap<DocId, (Option<f64>, Option<f64>)> = BTreeMap::new();
    if let Some(q) = query {
        for h in keyword.search(q, pool, accept) {
            evidence.entry(h.doc).or_default().0 = Some(fusion::keyword_relevance(h.relevance));
        }
    }
    if let Some(v) = query_vec {
        let found = vectors.search(v, pool, accept);
        if let Some(nearest) = nearest {
            nearest.extend(found.iter().map(|h| (h.doc, h.cosine)));
        }
        // The query's own scale: its median candidate is what unrelated text looks like to it
        // (`found` is best first).
        let scale = (found.len() >= fusion::RELATIVE_MIN_CANDIDATES).then(|| (found[found.len() / 2].cosine, found[0].cosine));
        for h in found {
            // Without keyword evidence to weigh it against, the cosine itself is the relevance: a
            // pure vector search returns the nearest vectors, however far.
            let relevance = match (query.is_some(), scale) {
                (true, Some((median, top))) => fusion::vector_relevance_in(h.cosine, median, top),
                (true, None) => fusion::vector_relevance(h.cosine),
                (false, _) => f64::from(h.cosine).clamp(0.0, 1.0),
            };
            evidence.entry(h.doc).or_default().1 = Some(relevance);
        }
    }
    evidence
}

impl Engram {
    /// Hybrid search in a namespace (plus `default` unless the store or the request leaves it out) over memories, raw turns, or both: keyword and
    /// vector candidates, fused, scored, best first; then optional expansions (neighbouring turns,
    /// linked memories) after the direct hits. Memories with relevance above 0.5 are touched unless
    /// `dry_run`.
    pub fn search(&mut self, req: &SearchRequest) -> Result<Vec<Hit>> {
        self.search_gathering(req, Gathering { rerank_turns: true, ..Gathering::default() })
    }

    /// `search`, also handing back the re-ranked raw candidates' features, best first by the fused
    /// score (before the re-ranking): what `examples/train_turn_rank.rs` fits on.
    #[cfg(feature = "internals")]
    pub fn search_with_turn_features(&mut self, req: &SearchRequest) -> Result<(Vec<Hit>, Vec<TurnFeatures>)> {
        let mut features = Vec::new();
        let hits = self.search_gathering(req, Gathering { rerank_turns: true, turn_features: Some(&mut features), ..Gathering::default() })?;
        let named = features.into_iter().filter_map(|(slot, f)| self.tables.raw().get(slot).map(|e| (e.turn_id.clone().unwrap_or_else(|| e.id.clone()), f))).collect();
        Ok((hits, named))
    }

    /// `search` for the evolving read, also handing back the raw turns nearest the query vector
    /// however far (best first, up to the candidate pool): the vector pass already found them, so
    /// the read needs no second k-NN. Turns stay in the fused order: the read picks its lead with
    /// its own learned choice (`evolve::pick`), fitted on that order, and a turn stating the
    /// current value must not lose its place to an older turn richer in the question's topic.
    pub(crate) fn search_with_nearest_turns(&mut self, req: &SearchRequest) -> Result<(Vec<Hit>, Vec<Hit>)> {
        let mut nearest = Vec::new();
        let hits = self.search_gathering(req, Gathering { nearest_turns: Some(&mut nearest), ..Gathering::default() })?;
        let turns = nearest
            .into_iter()
            .filter_map(|(slot, cosine)| {
                let e = self.tables.raw().get(slot)?.clone();
                Some(Hit { target: HitTarget::Raw(e), score: f64::from(cosine), explain: None, expanded_from: None })
            })
            .collect();
        Ok((hits, turns))
    }

    fn search_gathering(&mut self, req: &SearchRequest, how: Gathering) -> Result<Vec<Hit>> {
        let Gathering { nearest_turns, turn_features, rerank_turns } = how;
        let visible = self.visible(Namespaces { namespace: req.namespace.as_deref(), include_default: req.include_default })?;
        let ns = visible.namespace.as_str();
        let limit = req.limit.unwrap_or(DEFAULT_LIMIT);
        validate::limit(limit, "limit")?;
        if req.neighbors > 8 {
            return Err(Error::invalid(format!("neighbors must be 0..8, got {}", req.neighbors)));
        }
        let text = req.query.as_deref().map(str::trim).filter(|q| !q.is_empty());
        if let Some(q) = text {
            validate::content(q).map_err(|e| Error::invalid(format!("query: {}", e.message)))?;
        }
        let dims = self.tables.vectors().dims().or(self.tables.raw_vectors().dims());
        let query_vec = match (&req.embedding, text) {
            (Some(v), _) => Some(validate::embedding(v, dims.or_else(|| self.expected_dims()))?),
            // A query the model cannot read (digits and symbols only) is still a keyword query.
            (None, Some(q)) if self.embedder.is_some() => match self.vector_for(None, q) {
                Ok(v) => v,
                Err(e) if e.code == crate::error::ErrorCode::InvalidInput => None,
                Err(e) => return Err(e),
            },
            _ => None,
        };
        if text.is_none() && query_vec.is_none() {
            return Err(Error::invalid("search needs a query text, an embedding, or both"));
        }
        let tags = validate::tags(&req.tags)?;
        let keyword_query = text.map(KeywordQuery::parse);
        let pool = (limit * 4).max(50);
        let now = self.now();
        let windows = text.map(|q| timeframe::windows(q, now)).unwrap_or_default();
        let at = score::QueryTime { now, windows: &windows };
        let in_scope = |m_ns: &str| visible.sees(m_ns);

        let mut scored: Vec<(Key, ScoreBreakdown)> = Vec::new();
        if req.scope.memories() {
            let table = self.tables.table();
            let replaced = if req.include_superseded { HashSet::new() } else { self.replaced_slots(&visible) };
            let accept = |slot: DocId| {
                !replaced.contains(&slot)
                    && table.get(slot).is_some_and(|m| {
                        in_scope(&m.namespace)
                            && (req.kinds.is_empty() || req.kinds.contains(&m.kind))
                            && (req.layers.is_empty() || req.layers.contains(&m.layer))
                            && tags.iter().all(|t| m.tags.contains(t))
                    })
            };
            // Importance decays by namespace epoch; candidates are of `ns` or `default`: two lookups per search.
            let epochs = (self.epoch(ns), self.epoch(validate::DEFAULT_NAMESPACE));
            for (slot, (k, v)) in gather(self.tables.keyword(), self.tables.vectors(), keyword_query.as_ref(), query_vec.as_deref(), pool, accept, None) {
                if let Some(m) = self.tables.table().get(slot) {
                    let epoch = if m.namespace == ns { epochs.0 } else { epochs.1 };
                    scored.push((Key::Memory(slot), score::score(m, crate::lifecycle::decay::current_importance(m, epoch), fusion::fuse(k, v), k, v, at)));
                }
            }
        }
        // Kind, layer and tag filters describe memories; raw turns have none of them.
        let memory_filters = !req.kinds.is_empty() || !req.layers.is_empty() || !tags.is_empty();
        if req.scope.raw() && !memory_filters {
            let raw = self.tables.raw();
            let accept = |slot: DocId| raw.get(slot).is_some_and(|e| in_scope(&e.namespace));
            // How well each whole session matches: a turn is read in the context of its session.
            let session_relevance: HashMap<DocId, f64> = match &keyword_query {
                Some(q) => self.tables.session_keyword().search(q, usize::MAX, |_| true).into_iter().map(|h| (h.doc, fusion::keyword_relevance(h.relevance))).collect(),
                None => HashMap::new(),
            };
            let evidence = gather(self.tables.raw_keyword(), self.tables.raw_vectors(), keyword_query.as_ref(), query_vec.as_deref(), pool, accept, nearest_turns);
            // The turns next to a keyword match: in a dialogue the answer often follows the turn
            // that names the topic, so adjacent turns carry part of its evidence.
            let mut adjacent: BTreeMap<DocId, f64> = BTreeMap::new();
            for (&slot, (k, _)) in &evidence {
                let (Some(k), Some(e)) = (k, self.tables.raw().get(slot)) else { continue };
                for t in [e.turn_index.checked_sub(1), e.turn_index.checked_add(1)].into_iter().flatten() {
                    if let Some(n) = self.tables.raw().turn(&e.session_id, t).filter(|&n| accept(n)) {
                        let a = adjacent.entry(n).or_default();
                        *a = a.max(*k);
                    }
                }
            }
            let candidates: std::collections::BTreeSet<DocId> = evidence.keys().chain(adjacent.keys()).copied().collect();
            let mut turns: Vec<(DocId, ScoreBreakdown, TurnEvidence)> = Vec::with_capacity(candidates.len());
            for slot in candidates {
                let Some(e) = self.tables.raw().get(slot) else { continue };
                let (own, v) = evidence.get(&slot).copied().unwrap_or_default();
                let near = adjacent.get(&slot).copied();
                let context = self.tables.raw().existing_session_number(&e.session_id).and_then(|n| session_relevance.get(&n)).copied();
                let k = fusion::with_context(fusion::with_adjacent(own, near), context);
                let b = score::score_raw(e, fusion::fuse(k, v), k, v, at);
                if b.relevance > 0.0 {
                    let ev = TurnEvidence { fused_score: b.score, keyword: own, adjacent: near, session: context, vector: v, words: 0, role_weight: b.role_weight.unwrap_or(1.0) };
                    turns.push((slot, b, ev));
                }
            }
            turns.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.0.cmp(&b.0)));
            let window = turns.len().min(turn_rank::RERANKED);
            if rerank_turns || turn_features.is_some() {
                // Only where the re-ranking reads them: a search may hold thousands of candidates,
                // some of them long.
                for (slot, _, ev) in turns[..window].iter_mut() {
                    ev.words = self.tables.raw().get(*slot).map_or(0, |e| e.content.split_whitespace().count());
                }
            }
            if let Some(sink) = turn_features {
                sink.extend(turns[..window].iter().map(|(slot, _, ev)| (*slot, turn_rank::features(ev))));
            }
            if rerank_turns {
                turn_rank::rerank(&mut turns, |t| t.2, |t| &mut t.1.score);
            }
            scored.extend(turns.into_iter().map(|(slot, b, _)| (Key::Raw(slot), b)));
        }
        scored.retain(|(_, b)| b.relevance > 0.0);
        // Stable, by score alone: memories were pushed in slot order, turns in their re-ranked
        // order, and equal scores keep it.
        scored.sort_by(|a, b| b.1.score.total_cmp(&a.1.score));
        scored.truncate(limit);

        let mut seen: HashSet<Key> = scored.iter().map(|(k, _)| *k).collect();
        let mut expansions: Vec<(Key, f64, String)> = Vec::new();
        for (key, b) in &scored {
            match *key {
                Key::Raw(slot) if req.neighbors > 0 => {
                    let Some(e) = self.tables.raw().get(slot) else { continue };
                    for d in 1..=req.neighbors {
                        let near = [e.turn_index.checked_sub(d), e.turn_index.checked_add(d)];
                        for t in near.into_iter().flatten() {
                            if let Some(n) = self.tables.raw().turn(&e.session_id, t) {
                                if seen.insert(Key::Raw(n)) {
                                    expansions.push((Key::Raw(n), b.score * EXPANSION_DECAY.powi(d as i32), e.id.clone()));
                                }
                            }
                        }
                    }
                }
                Key::Memory(slot) if req.expand_links => {
                    let Some(m) = self.tables.table().get(slot) else { continue };
                    for n in self.linked_slots(slot) {
                        let ok = self.tables.table().get(n).is_some_and(|x| in_scope(&x.namespace));
                        if ok && seen.insert(Key::Memory(n)) {
                            expansions.push((Key::Memory(n), b.score * EXPANSION_DECAY, m.id.clone()));
                        }
                    }
                }
                _ => {}
            }
        }

        let mut hits = Vec::with_capacity(scored.len() + expansions.len());
        for (key, b) in scored {
            if let Key::Memory(slot) = key {
                if !req.dry_run && b.relevance > TOUCH_RELEVANCE {
                    if let Some(m) = self.tables.memory_counters_mut(slot) {
                        m.access_count = m.access_count.saturating_add(1);
                        m.last_accessed = now;
                    }
                }
            }
            if let Some(target) = self.target(key) {
                hits.push(Hit { target, score: b.score, explain: req.explain.then_some(b), expanded_from: None });
            }
        }
        for (key, s, from) in expansions {
            if let Some(target) = self.target(key) {
                hits.push(Hit { target, score: s, explain: None, expanded_from: Some(from) });
            }
        }
        Ok(hits)
    }

    fn target(&self, key: Key) -> Option<HitTarget> {
        match key {
            Key::Memory(s) => self.tables.table().get(s).map(|m| HitTarget::Memory(self.presented(m))),
            Key::Raw(s) => self.tables.raw().get(s).cloned().map(HitTarget::Raw),
        }
    }
}
