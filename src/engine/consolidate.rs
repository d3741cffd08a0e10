//! One consolidation epoch, as plan → calls → apply. `plan_consolidate` (pure) finds what the epoch
//! will judge: near-duplicate and same-topic pairs, core candidates, buffer memories to triage, old
//! session memories to distill; it plans an LLM request for each batch the level allows. The host
//! runs the calls; `apply_consolidate` validates every reply again and applies, in one write:
//! the LLM decisions (each only to memories unchanged since the plan), the heuristic merges,
//! mechanical promotions, the epoch's decay (one event per namespace), and buffer eviction.
//! Without an LLM every step has a heuristic path or is skipped and reported; nothing is lost:
//! working and core memories are never deleted here, and evicted memories' raw turns stay.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::tables::VectorChange;
use super::Engram;
use crate::error::{Error, Result};
use crate::host::Llm;
use crate::index::keyword::KeywordQuery;
use crate::index::DocId;
use crate::lifecycle::report::{Action, ActionKind, ConsolidateReport, Found, LlmLevel, PlannedCallSummary, Skipped};
use crate::lifecycle::similar::{self, Band};
use crate::lifecycle::{self, decay};
use crate::llm::consolidate::{self as prompts, Decision, Offered};
use crate::llm::{CallResult, LlmRequest, LlmUsage};
use crate::model::time::{to_iso, truncate};
use crate::model::{validate, Kind, Layer, Memory, Pin, Shape};
use crate::recall::score;
use crate::store::{EventKind, HistoryEvent};

/// A newer memory must be this much newer than an older one for reconcile to call it an update.
const RECONCILE_MIN_GAP_MS: i64 = 3_600_000;

#[derive(Clone, Debug)]
pub struct ConsolidateOptions {
    /// Only this namespace; every namespace when `None`.
    pub namespace: Option<String>,
    pub level: LlmLevel,
    /// At most this many LLM calls in the run.
    pub max_llm_calls: Option<usize>,
    /// Buffer memories kept per namespace.
    pub buffer_cap: usize,
}

impl Default for ConsolidateOptions {
    fn default() -> Self {
        ConsolidateOptions { namespace: None, level: LlmLevel::Off, max_llm_calls: None, buffer_cap: lifecycle::BUFFER_CAP_DEFAULT }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    Merge,
    Reconcile,
    Gate,
    Triage,
    Distill,
}

impl Step {
    fn as_str(self) -> &'static str {
        match self {
            Step::Merge => "merge",
            Step::Reconcile => "reconcile",
            Step::Gate => "gate",
            Step::Triage => "triage",
            Step::Distill => "distill",
        }
    }
}

/// A memory a decision was planned over, with a fingerprint of what the judge was shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlannedMemory {
    pub id: String,
    pub fingerprint: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlannedDecision {
    pub step: Step,
    pub namespace: String,
    pub request: LlmRequest,
    /// The memories offered, in order (pairs: a, b, a, b, …).
    pub memories: Vec<PlannedMemory>,
}

/// What one epoch will judge. Heuristic steps are re-derived at apply from the state then.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConsolidatePlan {
    pub namespaces: Vec<String>,
    pub level: LlmLevel,
    pub buffer_cap: usize,
    pub calls: Vec<PlannedDecision>,
    /// Same-fact pairs the heuristic merges (survivor's choice is made at apply).
    pub heuristic_merges: Vec<(PlannedMemory, PlannedMemory)>,
    /// Memories compared with their namespace this epoch; marked done unless a call about them fails.
    pub scanned: Vec<PlannedMemory>,
    /// Per scanned memory with a vector: the ids of its namespace its full vector search found
    /// nearest (its links are refined from them at apply, see `Engram::refined_links`). Plans made
    /// before this field existed have none, and their memories keep their links.
    #[serde(default)]
    pub link_candidates: BTreeMap<String, Vec<String>>,
    /// Judgements not planned (over `maxLlmCalls`), reported as skipped.
    pub over_budget: Vec<(Step, String, Vec<String>)>,
    /// What the epoch found to judge.
    pub found: Found,
}

/// What the judge is shown of a memory, summarized: a change of text, kind, layer or tags changes it.
fn fingerprint(m: &Memory) -> String {
    let mut bytes = Vec::with_capacity(m.content.len() + 64);
    for part in [m.content.as_str(), m.kind.as_str(), m.layer.as_str(), &m.tags.join("\u{1f}"), m.thread.as_deref().unwrap_or("")] {
        bytes.extend_from_slice(part.as_bytes());
        bytes.push(0xff);
    }
    format!("{:016x}", crate::digest::fnv1a(&bytes))
}

fn planned(m: &Memory) -> PlannedMemory {
    PlannedMemory { id: m.id.clone(), fingerprint: fingerprint(m) }
}

fn day(ms: i64) -> String {
    to_iso(ms)[..10].to_string()
}

fn offered(m: &Memory) -> Offered<'_> {
    Offered { id: &m.id, kind: m.kind.as_str(), text: &m.content, date: Some(day(m.event_time())) }
}

fn event(id: &str, kind: EventKind, at: i64, reason: String, prompt_id: Option<&str>, related: Option<&str>) -> HistoryEvent {
    HistoryEvent { reason: Some(reason), prompt_id: prompt_id.map(str::to_string), related: related.map(str::to_string), ..HistoryEvent::bare(id, kind, at) }
}

/// A candidate pair of one namespace, ids ordered older first.
struct Pair {
    a: DocId,
    b: DocId,
    band: Band,
    cosine: Option<f64>,
}

impl Engram {
    /// The namespace's consolidation epoch: how many epochs it has run.
    pub fn epoch(&self, namespace: &str) -> u64 {
        self.tables.history().count(&lifecycle::epoch_id(namespace)) as u64
    }

    /// A memory's importance now (decayed by the epochs since it was set).
    pub fn current_importance(&self, m: &Memory) -> f64 {
        decay::current_importance(m, self.epoch(&m.namespace))
    }

    /// The memory as the API presents it: importance as it stands now.
    pub fn presented(&self, m: &Memory) -> Memory {
        let mut out = m.clone();
        self.present(&mut out);
        out
    }

    /// [`Engram::presented`] in place, for a copy the caller already owns.
    pub fn present(&self, m: &mut Memory) {
        let epoch = self.epoch(&m.namespace);
        m.importance = decay::current_importance(m, epoch);
        m.lifecycle.decay_epoch = epoch;
    }

    fn consolidation_namespaces(&self, only: Option<&str>) -> Result<Vec<String>> {
        if let Some(ns) = only {
            validate::namespace(ns)?;
            return Ok(vec![ns.to_string()]);
        }
        let set: BTreeSet<String> = self.tables.table().iter().map(|(_, m)| m.namespace.clone()).collect();
        Ok(set.into_iter().collect())
    }

    /// Older-first pairs of near-duplicate or same-topic memories found from `scan` (each compared
    /// with its nearest memories of the namespace: by vector when it has one, else by keywords).
    /// The ids each vector search found are recorded in `link_candidates`, by the scanned memory's id.
    fn candidate_pairs(&self, namespace: &str, scan: &[DocId], link_candidates: &mut BTreeMap<String, Vec<String>>) -> Vec<Pair> {
        let table = self.tables.table();
        let mut seen: BTreeSet<(DocId, DocId)> = BTreeSet::new();
        let mut out = Vec::new();
        for &slot in scan {
            let Some(m) = table.get(slot) else { continue };
            let accept = |s: DocId| s != slot && table.get(s).is_some_and(|o| o.namespace == namespace);
            let neighbors: Vec<(DocId, f64, bool)> = match self.tables.vectors().get(slot) {
                Some(v) => {
                    let hits = self.tables.vectors().search(v, similar::NEIGHBORS, accept);
                    // Of the namespace only, like the pairs: a second search for the default
                    // namespace's memories would, where they are few, scan whole graph segments.
                    link_candidates.insert(m.id.clone(), hits.iter().filter_map(|h| table.get(h.doc).map(|o| o.id.clone())).collect());
                    hits.into_iter().map(|h| (h.doc, h.cosine as f64, true)).collect()
                }
                None => {
                    let words = similar::content_words(&m.content);
                    self.tables
                        .keyword()
                        .search(&KeywordQuery::parse(&m.content), similar::NEIGHBORS, accept)
                        .into_iter()
                        .filter_map(|h| table.get(h.doc).map(|o| (h.doc, similar::overlap(&words, &similar::content_words(&o.content)), false)))
                        .collect()
                }
            };
            for (other, sim, by_vector) in neighbors {
                let Some(o) = table.get(other) else { continue };
                let Some(band) = similar::band(sim, by_vector) else { continue };
                let (a, b) = if (m.event_time(), m.created_at, slot) <= (o.event_time(), o.created_at, other) { (slot, other) } else { (other, slot) };
                if !seen.insert((a, b)) {
                    continue;
                }
                out.push(Pair { a, b, band, cosine: by_vector.then_some(sim) });
            }
        }
        out
    }

    /// Whether a pair may be judged at all: never pinned memories or retractions, never two
    /// memories that are both on threads (their threads already say which is current, and
    /// different threads are different slots), never a pair already judged distinct.
    fn pair_allowed(a: &Memory, b: &Memory) -> bool {
        if a.pin == Pin::Pinned || b.pin == Pin::Pinned {
            return false;
        }
        if a.shape == Some(Shape::Retraction) || b.shape == Some(Shape::Retraction) || (a.thread.is_some() && b.thread.is_some()) {
            return false;
        }
        !a.lifecycle.kept_apart.contains(&b.id) && !b.lifecycle.kept_apart.contains(&a.id)
    }

    /// Plans one epoch (see the module doc). `has_llm`: whether the host gave an LLM.
    pub fn plan_consolidate(&self, options: &ConsolidateOptions, has_llm: bool) -> Result<ConsolidatePlan> {
        if let Some(n) = options.max_llm_calls {
            validate::limit(n.max(1), "maxLlmCalls")?;
        }
        if options.buffer_cap == 0 || options.buffer_cap > 1_000_000 {
            return Err(Error::invalid(format!("bufferCap must be 1..1000000, got {}", options.buffer_cap)));
        }
        let level = if has_llm { options.level } else { LlmLevel::Off };
        let namespaces = self.consolidation_namespaces(options.namespace.as_deref())?;
        let table = self.tables.table();
        let mut plan = ConsolidatePlan {
            namespaces: namespaces.clone(),
            level,
            buffer_cap: options.buffer_cap,
            calls: Vec::new(),
            heuristic_merges: Vec::new(),
            scanned: Vec::new(),
            link_candidates: BTreeMap::new(),
            over_budget: Vec::new(),
            found: Found::default(),
        };
        let mut wanted: Vec<PlannedDecision> = Vec::new();
        let mut scan_budget = lifecycle::MERGE_SCAN_PER_EPOCH;
        let (mut merge_pairs, mut reconcile_pairs, mut gate_batches) = (0usize, 0usize, 0usize);
        let mut distills = 0usize;
        for ns in &namespaces {
            let epoch = self.epoch(ns);
            let mut members: Vec<(DocId, &Memory)> = table.iter().filter(|(_, m)| &m.namespace == ns).collect();
            members.sort_by_key(|(s, _)| *s);

            // Similarity: memories not yet compared, oldest first, a bounded number per epoch.
            let mut scan: Vec<(DocId, &Memory)> = members.iter().filter(|(_, m)| !m.lifecycle.merge_checked).copied().collect();
            scan.sort_by_key(|(s, m)| (m.created_at, *s));
            scan.truncate(scan_budget);
            scan_budget -= scan.len();
            plan.scanned.extend(scan.iter().map(|(_, m)| planned(m)));
            plan.found.scanned += scan.len();
            let scan_slots: Vec<DocId> = scan.iter().map(|(s, _)| *s).collect();
            let mut merge_llm: Vec<(&Memory, &Memory)> = Vec::new();
            let mut reconcile_llm: Vec<(&Memory, &Memory)> = Vec::new();
            let mut in_heuristic: BTreeSet<DocId> = BTreeSet::new();
            for p in self.candidate_pairs(ns, &scan_slots, &mut plan.link_candidates) {
                let (Some(a), Some(b)) = (table.get(p.a), table.get(p.b)) else { continue };
                if !Self::pair_allowed(a, b) {
                    continue;
                }
                // A memory on a thread is never merged (its text is a dated value of a slot); a
                // near-duplicate of it can only be an update of that slot, or superseded by it.
                let mut p = p;
                if p.band == Band::Merge && (a.thread.is_some() || b.thread.is_some()) {
                    p.band = Band::Reconcile;
                }
                let same = p.band == Band::Merge && similar::same_fact(&a.content, &b.content, p.cosine);
                match p.band {
                    Band::Merge => plan.found.merge_pairs += 1,
                    Band::Reconcile if b.event_time().max(b.created_at) - a.event_time().max(a.created_at) >= RECONCILE_MIN_GAP_MS => plan.found.reconcile_pairs += 1,
                    Band::Reconcile => {}
                }
                plan.found.same_fact += usize::from(same);
                match p.band {
                    // One heuristic merge per memory per epoch: chains settle over epochs.
                    Band::Merge
                        if level != LlmLevel::On && similar::same_fact(&a.content, &b.content, p.cosine) && !in_heuristic.contains(&p.a) && !in_heuristic.contains(&p.b) =>
                    {
                        in_heuristic.extend([p.a, p.b]);
                        plan.heuristic_merges.push((planned(a), planned(b)));
                    }
                    Band::Merge if level != LlmLevel::Off => merge_llm.push((a, b)),
                    Band::Reconcile if level != LlmLevel::Off && b.event_time().max(b.created_at) - a.event_time().max(a.created_at) >= RECONCILE_MIN_GAP_MS => {
                        reconcile_llm.push((a, b))
                    }
                    _ => {}
                }
            }
            for (step, pairs, used) in [(Step::Merge, merge_llm, &mut merge_pairs), (Step::Reconcile, reconcile_llm, &mut reconcile_pairs)] {
                let room = (lifecycle::PAIR_BATCH * lifecycle::PAIR_CALLS_MAX).saturating_sub(*used);
                for chunk in pairs[..pairs.len().min(room)].chunks(lifecycle::PAIR_BATCH) {
                    *used += chunk.len();
                    let offered: Vec<(Offered, Offered)> = chunk.iter().map(|(a, b)| (offered(a), offered(b))).collect();
                    let request = if step == Step::Merge { prompts::merge(&offered) } else { prompts::reconcile(&offered) };
                    let memories = chunk.iter().flat_map(|(a, b)| [planned(a), planned(b)]).collect();
                    wanted.push(PlannedDecision { step, namespace: ns.clone(), request, memories });
                }
            }
            if level == LlmLevel::Off {
                continue;
            }

            // The core gate: working memories that qualify, strongest first.
            let mut candidates: Vec<&Memory> =
                members.iter().map(|(_, m)| *m).filter(|m| lifecycle::core_candidate(m, epoch, decay::current_importance(m, epoch)) && m.pin != Pin::Pinned).collect();
            plan.found.gate_candidates += candidates.len();
            candidates.sort_by(|a, b| lifecycle::reinforcement_score(b).total_cmp(&lifecycle::reinforcement_score(a)).then(a.created_at.cmp(&b.created_at)));
            for chunk in candidates.chunks(lifecycle::GATE_BATCH) {
                if gate_batches >= lifecycle::GATE_CALLS_MAX {
                    break;
                }
                gate_batches += 1;
                let offered: Vec<Offered> = chunk.iter().map(|m| offered(m)).collect();
                wanted.push(PlannedDecision { step: Step::Gate, namespace: ns.clone(), request: prompts::gate(&offered), memories: chunk.iter().map(|m| planned(m)).collect() });
            }

            // Triage: buffer memories not decided before and not promoted by the rules this epoch,
            // held at least one epoch; `auto` only offers those with some signal.
            let mut triage: Vec<&Memory> = members
                .iter()
                .map(|(_, m)| *m)
                .filter(|m| m.layer == Layer::Buffer && !m.lifecycle.triaged && m.pin != Pin::Pinned && lifecycle::mechanical_promotion(m, epoch).is_none())
                .filter(|m| epoch > m.lifecycle.layer_epoch && !m.tags.iter().any(|t| t == lifecycle::DISTILLED_TAG))
                .filter(|m| level == LlmLevel::On || decay::current_importance(m, epoch) >= 0.6 || lifecycle::reinforcement_score(m) > 0.0)
                .collect();
            triage.sort_by(|a, b| {
                score::Prior::of(b, decay::current_importance(b, epoch))
                    .weight()
                    .total_cmp(&score::Prior::of(a, decay::current_importance(a, epoch)).weight())
                    .then(a.created_at.cmp(&b.created_at))
            });
            plan.found.triage_candidates += triage.len();
            triage.truncate(lifecycle::TRIAGE_BATCH);
            if !triage.is_empty() {
                let offered: Vec<Offered> = triage.iter().map(|m| offered(m)).collect();
                wanted.push(PlannedDecision {
                    step: Step::Triage,
                    namespace: ns.clone(),
                    request: prompts::triage(&offered),
                    memories: triage.iter().map(|m| planned(m)).collect(),
                });
            }

            // Distillation: older session-derived memories no summary cites yet.
            if distills < lifecycle::DISTILL_CALLS_MAX {
                let cited: BTreeSet<&str> = members.iter().flat_map(|(_, m)| m.cites.iter().map(String::as_str)).collect();
                let mut old: Vec<&Memory> = members
                    .iter()
                    .map(|(_, m)| *m)
                    .filter(|m| !m.derived_from.is_empty() && m.layer != Layer::Core && !cited.contains(m.id.as_str()) && !m.tags.iter().any(|t| t == lifecycle::DISTILLED_TAG))
                    .filter(|m| epoch.saturating_sub(m.lifecycle.layer_epoch) >= lifecycle::DISTILL_AGE_EPOCHS)
                    .collect();
                old.sort_by_key(|m| (m.event_time(), m.created_at));
                old.truncate(lifecycle::DISTILL_GROUP_MAX);
                if old.len() >= lifecycle::DISTILL_MIN {
                    plan.found.distill_groups += 1;
                    distills += 1;
                    let offered: Vec<Offered> = old.iter().map(|m| offered(m)).collect();
                    wanted.push(PlannedDecision {
                        step: Step::Distill,
                        namespace: ns.clone(),
                        request: prompts::distill(&offered),
                        memories: old.iter().map(|m| planned(m)).collect(),
                    });
                }
            }
        }
        // The budget keeps the steps in order of what they save: duplicates first.
        wanted.sort_by_key(|c| c.step);
        let budget = options.max_llm_calls.unwrap_or(usize::MAX);
        for (i, call) in wanted.into_iter().enumerate() {
            if i < budget {
                plan.calls.push(call);
            } else {
                plan.over_budget.push((call.step, call.namespace, call.memories.into_iter().map(|m| m.id).collect()));
            }
        }
        Ok(plan)
    }

    /// The live memory a planned one names, if it is unchanged since the plan.
    fn unchanged(&self, p: &PlannedMemory) -> Option<DocId> {
        let slot = self.tables.table().slot_of(&p.id)?;
        self.tables.table().get(slot).filter(|m| fingerprint(m) == p.fingerprint).map(|_| slot)
    }

    fn memory(&self, slot: DocId) -> Memory {
        self.tables.table().get(slot).expect("a live slot").clone()
    }

    /// Writes a changed memory (journaled), its vector as it was.
    fn put_back(&mut self, m: Memory) {
        self.note_memory(&m.id);
        self.tables.put_memory(m, VectorChange::Keep);
    }

    /// Applies the results of a plan's calls (one per planned call, in order), then the epoch's
    /// heuristic steps. Returns the report; `Err` only for a malformed call (then nothing changed).
    pub fn apply_consolidate(&mut self, plan: &ConsolidatePlan, results: Vec<CallResult>) -> Result<ConsolidateReport> {
        if results.len() != plan.calls.len() {
            return Err(Error::invalid(format!("consolidate: {} results for {} planned calls", results.len(), plan.calls.len())));
        }
        for call in &plan.calls {
            let expected = match call.step {
                Step::Merge => prompts::MERGE,
                Step::Reconcile => prompts::RECONCILE,
                Step::Gate => prompts::GATE,
                Step::Triage => prompts::TRIAGE,
                Step::Distill => prompts::DISTILL,
            };
            if call.request.prompt_id != expected {
                return Err(Error::invalid(format!("consolidate: the plan holds a {} request that is not {expected}", call.step.as_str())));
            }
            validate::namespace(&call.namespace)?;
        }
        for ns in &plan.namespaces {
            validate::namespace(ns)?;
        }
        let now = self.now();
        let mut report = ConsolidateReport { llm_level: plan.level, found: plan.found, ..ConsolidateReport::default() };
        let mut failed: BTreeSet<String> = BTreeSet::new();
        for (call, result) in plan.calls.iter().zip(results) {
            let (record, checked) = result.checked(&call.request, |v| Ok(v.clone()));
            let ids: Vec<String> = call.memories.iter().map(|m| m.id.clone()).collect();
            let outcome = record.outcome;
            self.llm_usage.record(&record);
            report.calls.push(record);
            let value = match checked {
                Ok(v) => v,
                Err(why) => {
                    failed.extend(ids.iter().cloned());
                    report.skipped.push(Skipped { step: call.step.as_str().into(), namespace: call.namespace.clone(), ids, outcome: Some(outcome), reason: truncate(&why, 300) });
                    continue;
                }
            };
            let prompt_id = call.request.prompt_id.as_str();
            if call.step == Step::Distill {
                self.apply_distill(call, &value, now, &mut report)?;
                continue;
            }
            let decisions = prompts::decisions(prompt_id, &value).unwrap_or_default();
            for d in decisions {
                self.apply_decision(call, &d, now, &mut report, &mut failed);
            }
        }
        for (step, ns, ids) in &plan.over_budget {
            failed.extend(ids.iter().cloned());
            report.skipped.push(Skipped {
                step: step.as_str().into(),
                namespace: ns.clone(),
                ids: ids.clone(),
                outcome: None,
                reason: "over maxLlmCalls: left for a later epoch".into(),
            });
        }

        // Heuristic merges of same-fact pairs.
        for (a, b) in &plan.heuristic_merges {
            if let (Some(sa), Some(sb)) = (self.unchanged(a), self.unchanged(b)) {
                let (ma, mb) = (self.memory(sa), self.memory(sb));
                let text = if lifecycle::reinforcement_score(&mb) > lifecycle::reinforcement_score(&ma) { mb.content.clone() } else { ma.content.clone() };
                self.merge_pair(ma, mb, text, "the same fact in other words (heuristic)", None, now, &mut report);
            }
        }
        for p in &plan.scanned {
            if failed.contains(&p.id) {
                continue;
            }
            if let Some(slot) = self.tables.table().slot_of(&p.id) {
                let links = plan.link_candidates.get(&p.id).and_then(|found| self.refined_links(slot, found));
                let mut m = self.memory(slot);
                if m.lifecycle.merge_checked && links.is_none() {
                    continue;
                }
                m.lifecycle.merge_checked = true;
                if let Some(links) = links {
                    m.links = links;
                    report.relinked += 1;
                }
                self.put_back(m);
            }
        }

        for ns in &plan.namespaces {
            self.epoch_rules(ns, plan.buffer_cap, now, &mut report);
        }
        report.usage = LlmUsage::of(&report.calls);
        Ok(report)
    }

    /// Applies one decision of a batch reply to the memories it names, if they are unchanged.
    fn apply_decision(&mut self, call: &PlannedDecision, d: &Decision, now: i64, report: &mut ConsolidateReport, failed: &mut BTreeSet<String>) {
        let prompt_id = call.request.prompt_id.as_str();
        let ns = call.namespace.clone();
        let skip = |report: &mut ConsolidateReport, ids: Vec<String>, why: &str| {
            report.skipped.push(Skipped { step: call.step.as_str().into(), namespace: ns.clone(), ids, outcome: None, reason: why.into() });
        };
        match call.step {
            Step::Triage | Step::Gate => {
                let Some(p) = call.memories.iter().find(|m| m.id == d.id) else { return };
                let Some(slot) = self.unchanged(p) else {
                    failed.insert(p.id.clone());
                    return skip(report, vec![p.id.clone()], "changed or gone since the plan");
                };
                let mut m = self.memory(slot);
                let epoch = self.epoch(&ns);
                match (call.step, d.decision.as_str()) {
                    (Step::Triage, "promote") => {
                        m.lifecycle.triaged = true;
                        self.promote(m, epoch, "triage: worth keeping".into(), Some(prompt_id), now, report);
                    }
                    (Step::Triage, _) => {
                        m.lifecycle.triaged = true;
                        self.put_back(m);
                        report.actions.push(Action {
                            action: ActionKind::Keep,
                            namespace: ns,
                            ids: vec![d.id.clone()],
                            reason: "triage: stays in the buffer".into(),
                            prompt_id: Some(prompt_id.into()),
                            layer: None,
                        });
                    }
                    (Step::Gate, "approve") if d.detail.as_deref().is_some_and(|c| c != "none") => {
                        let reason = format!("core gate: {}", d.detail.as_deref().unwrap_or_default());
                        self.promote(m, epoch, reason, Some(prompt_id), now, report);
                    }
                    (Step::Gate, _) => {
                        m.lifecycle.gate_rejections = m.lifecycle.gate_rejections.saturating_add(1);
                        m.lifecycle.gate_retry_epoch = lifecycle::gate_retry(m.lifecycle.gate_rejections, epoch);
                        let reason = match m.lifecycle.gate_retry_epoch {
                            Some(e) => format!("core gate: not a durable kind; may be offered again at epoch {e}"),
                            None => "core gate: not a durable kind; rejected for good".into(),
                        };
                        self.put_back(m);
                        report.actions.push(Action { action: ActionKind::Reject, namespace: ns, ids: vec![d.id.clone()], reason, prompt_id: Some(prompt_id.into()), layer: None });
                    }
                    _ => {}
                }
            }
            Step::Merge | Step::Reconcile => {
                let Some(i) = d.id.strip_prefix("pair-").and_then(|n| n.parse::<usize>().ok()) else { return };
                let (Some(pa), Some(pb)) = (call.memories.get(2 * i), call.memories.get(2 * i + 1)) else { return };
                let ids = vec![pa.id.clone(), pb.id.clone()];
                let (Some(sa), Some(sb)) = (self.unchanged(pa), self.unchanged(pb)) else {
                    failed.extend(ids.iter().cloned());
                    return skip(report, ids, "changed or gone since the plan");
                };
                let (mut a, mut b) = (self.memory(sa), self.memory(sb));
                match d.decision.as_str() {
                    "merge" | "absorb" => {
                        let text = d.detail.clone().unwrap_or_else(|| b.content.clone());
                        // An LLM-written text passes the store's guards like any written text.
                        let guarded = match self.guards.apply(&text, false, "content").and_then(|g| validate::content(&g.text).map(|_| g)) {
                            Ok(g) => g,
                            Err(e) => return skip(report, ids, &format!("the merged text was refused: {}", truncate(&e.message, 200))),
                        };
                        let why = if call.step == Step::Merge { "near-duplicates merged" } else { "overlapping memories combined" };
                        let (flags, quarantine) = (guarded.flags, guarded.quarantine);
                        let survivor = self.merge_pair(a, b, guarded.text, why, Some(prompt_id), now, report);
                        if let Some(slot) = self.tables.table().slot_of(&survivor) {
                            let mut m = self.memory(slot);
                            let before = (m.flags.clone(), m.quarantined);
                            for f in flags {
                                if !m.flags.contains(&f) {
                                    m.flags.push(f);
                                }
                            }
                            m.quarantined |= quarantine;
                            if (m.flags.clone(), m.quarantined) != before {
                                self.put_back(m);
                            }
                        }
                    }
                    "update" => self.supersede(a, b, prompt_id, now, report),
                    _ => {
                        a.lifecycle.kept_apart.push(b.id.clone());
                        b.lifecycle.kept_apart.push(a.id.clone());
                        self.put_back(a);
                        self.put_back(b);
                        report.actions.push(Action {
                            action: ActionKind::Distinct,
                            namespace: ns,
                            ids,
                            reason: "judged different facts".into(),
                            prompt_id: Some(prompt_id.into()),
                            layer: None,
                        });
                    }
                }
            }
            Step::Distill => {}
        }
    }

    /// Moves a memory up one layer (buffer → working → core), with its event.
    fn promote(&mut self, mut m: Memory, epoch: u64, reason: String, prompt_id: Option<&str>, now: i64, report: &mut ConsolidateReport) {
        let to = match m.layer {
            Layer::Buffer => Layer::Working,
            Layer::Working => Layer::Core,
            Layer::Core => return,
        };
        let from = std::mem::replace(&mut m.layer, to);
        m.lifecycle.layer_epoch = epoch;
        let id = m.id.clone();
        let ns = m.namespace.clone();
        self.put_back(m);
        self.log(event(&id, EventKind::Promote, now, format!("{} → {}: {reason}", from.as_str(), to.as_str()), prompt_id, None));
        report.actions.push(Action { action: ActionKind::Promote, namespace: ns, ids: vec![id], reason, prompt_id: prompt_id.map(str::to_string), layer: Some(to) });
    }

    /// `a` and `b` become one memory with `text`. The survivor is the one in the higher layer (then
    /// the more reinforced, then the older), so nothing skips a layer; it takes the union of tags
    /// and sources, the summed counts and the higher importance. The other is deleted with a MERGE
    /// event naming the survivor. Returns the survivor's id.
    #[allow(clippy::too_many_arguments)]
    fn merge_pair(&mut self, a: Memory, b: Memory, text: String, why: &str, prompt_id: Option<&str>, now: i64, report: &mut ConsolidateReport) -> String {
        let epoch = self.epoch(&a.namespace);
        let key = |m: &Memory| (m.layer, lifecycle::reinforcement_score(m).to_bits(), std::cmp::Reverse(m.created_at));
        let (mut keep, gone) = if key(&b) > key(&a) { (b, a) } else { (a, b) };
        let importance = decay::current_importance(&keep, epoch).max(decay::current_importance(&gone, epoch));
        let changed = keep.content != text;
        let previous = std::mem::replace(&mut keep.content, text);
        for t in &gone.tags {
            if !keep.tags.contains(t) && keep.tags.len() < validate::TAGS_MAX {
                keep.tags.push(t.clone());
            }
        }
        for d in &gone.derived_from {
            if !keep.derived_from.contains(d) && keep.derived_from.len() < validate::DERIVED_FROM_MAX {
                keep.derived_from.push(d.clone());
            }
        }
        for c in gone.cites.iter().chain(std::iter::once(&gone.id)) {
            if !keep.cites.contains(c) && keep.cites.len() < validate::DERIVED_FROM_MAX {
                keep.cites.push(c.clone());
            }
        }
        keep.cites.retain(|c| *c != keep.id);
        keep.access_count = keep.access_count.saturating_add(gone.access_count);
        keep.repetition_count = keep.repetition_count.saturating_add(gone.repetition_count).saturating_add(1);
        keep.importance = importance;
        keep.lifecycle.decay_epoch = epoch;
        keep.lifecycle.merge_checked = false;
        keep.thread = keep.thread.take().or(gone.thread.clone());
        keep.modified_at = now;
        let (keep_id, gone_id, ns) = (keep.id.clone(), gone.id.clone(), keep.namespace.clone());
        // New text needs a vector that says it: the embedder's when there is one; otherwise the
        // survivor keeps its own, which stood for nearly the same text.
        let vector = if changed { self.vector_for(None, &keep.content).ok().flatten().map_or(VectorChange::Keep, VectorChange::Set) } else { VectorChange::Keep };
        self.note_memory(&keep_id);
        let mut e = event(&keep_id, EventKind::Merge, now, format!("absorbed {gone_id}: {why}"), prompt_id, Some(&gone_id));
        e.content = Some(keep.content.clone());
        e.previous_content = changed.then_some(previous);
        self.tables.put_memory(keep, vector);
        self.log(e);
        if let Some(slot) = self.tables.table().slot_of(&gone_id) {
            self.note_memory(&gone_id);
            self.tables.remove_memory(slot);
            self.log(event(&gone_id, EventKind::Merge, now, format!("merged into {keep_id}: {why}"), prompt_id, Some(&keep_id)));
        }
        report.actions.push(Action {
            action: ActionKind::Merge,
            namespace: ns,
            ids: vec![keep_id.clone(), gone_id],
            reason: why.into(),
            prompt_id: prompt_id.map(str::to_string),
            layer: None,
        });
        keep_id
    }

    /// The newer memory `b` replaces the older `a`: both go on one thread (the one either has, or a
    /// new one named after the older), so the derived state of `a` is superseded — kept for `get`,
    /// history and explicit searches, hidden from default recall. One model of what is current.
    fn supersede(&mut self, mut a: Memory, mut b: Memory, prompt_id: &str, now: i64, report: &mut ConsolidateReport) {
        let thread = a.thread.clone().or_else(|| b.thread.clone()).unwrap_or_else(|| format!("memory/{}", a.id.split('-').next().unwrap_or(&a.id)));
        a.thread = Some(thread.clone());
        b.thread = Some(thread);
        // The update must come after on the thread, whatever dates the texts carry.
        if b.event_time() <= a.event_time() {
            b.event_at = Some(a.event_time().saturating_add(1).max(b.created_at));
        }
        let (old, new, ns) = (a.id.clone(), b.id.clone(), a.namespace.clone());
        self.put_back(a);
        self.put_back(b);
        self.log(event(&old, EventKind::Supersede, now, format!("replaced by {new}"), Some(prompt_id), Some(&new)));
        report.actions.push(Action {
            action: ActionKind::Supersede,
            namespace: ns,
            ids: vec![old, new],
            reason: "the newer memory updates the older".into(),
            prompt_id: Some(prompt_id.into()),
            layer: None,
        });
    }

    /// Stores a distillation: one episodic buffer memory citing the memories it condenses.
    fn apply_distill(&mut self, call: &PlannedDecision, value: &serde_json::Value, now: i64, report: &mut ConsolidateReport) -> Result<()> {
        let ids: Vec<String> = call.memories.iter().map(|m| m.id.clone()).collect();
        if call.memories.iter().any(|p| self.unchanged(p).is_none()) {
            report.skipped.push(Skipped { step: "distill".into(), namespace: call.namespace.clone(), ids, outcome: None, reason: "changed or gone since the plan".into() });
            return Ok(());
        }
        let content = value["content"].as_str().unwrap_or_default().trim().to_string();
        let importance = value["importance"].as_f64().unwrap_or(0.5).clamp(0.0, 1.0);
        let mut derived: Vec<String> = Vec::new();
        let mut first_event: Option<i64> = None;
        for p in &call.memories {
            if let Some(m) = self.get(&p.id) {
                first_event = Some(first_event.map_or(m.event_time(), |f: i64| f.min(m.event_time())));
                for d in &m.derived_from {
                    if !derived.contains(d) && derived.len() < validate::DERIVED_FROM_MAX && self.tables.raw().by_id(d).is_some() {
                        derived.push(d.clone());
                    }
                }
            }
        }
        let input = crate::NewMemory {
            content,
            namespace: Some(call.namespace.clone()),
            kind: Some(Kind::Episodic),
            importance: Some(importance),
            tags: vec![lifecycle::DISTILLED_TAG.to_string()],
            source: Some("distill".into()),
            event_at: first_event,
            derived_from: derived,
            ..crate::NewMemory::default()
        };
        let added = self.add_by(input, Some(prompts::DISTILL))?;
        let mut m = added.memory.clone();
        for id in &ids {
            if !m.cites.contains(id) {
                m.cites.push(id.clone());
            }
        }
        m.modified_at = now;
        let new_id = m.id.clone();
        self.put_back(m);
        let mut all = vec![new_id];
        all.extend(ids);
        report.actions.push(Action {
            action: ActionKind::Distill,
            namespace: call.namespace.clone(),
            ids: all,
            reason: "older session memories condensed".into(),
            prompt_id: Some(prompts::DISTILL.into()),
            layer: None,
        });
        Ok(())
    }

    /// The rules every epoch runs on a namespace without a judge: promotions by reinforcement,
    /// age of procedures and lessons, and pins; then the epoch itself (decay); then eviction of
    /// buffer memories at the floor and over the cap.
    fn epoch_rules(&mut self, ns: &str, cap: usize, now: i64, report: &mut ConsolidateReport) {
        let epoch = self.epoch(ns);
        let members: Vec<DocId> = self.tables.table().iter().filter(|(_, m)| m.namespace == ns).map(|(s, _)| s).collect();
        for &slot in &members {
            let Some(m) = self.tables.table().get(slot) else { continue };
            let reason = if m.pin == Pin::Pinned && m.layer != Layer::Core { Some("pinned") } else { lifecycle::mechanical_promotion(m, epoch) };
            if let Some(reason) = reason {
                let m = m.clone();
                self.promote(m, epoch, reason.into(), None, now, report);
            }
        }
        // The epoch: one event for the namespace; every memory's importance now reads one epoch lower.
        let n = self.tables.table().iter().filter(|(_, m)| m.namespace == ns && m.pin != Pin::Pinned).count();
        let summary = format!("epoch {}: {n} memories decayed (episodic ×0.98, semantic ×0.988, procedural ×0.996; floor 0.01)", epoch + 1);
        let mut e = HistoryEvent::bare(&lifecycle::epoch_id(ns), EventKind::Decay, now);
        e.reason = Some(summary.clone());
        self.log(e);
        report.actions.push(Action { action: ActionKind::Decay, namespace: ns.to_string(), ids: Vec::new(), reason: summary, prompt_id: None, layer: None });
        let epoch = epoch + 1;
        report.epochs.insert(ns.to_string(), epoch);

        // Eviction: decayed to the floor, then the lowest weighted beyond the cap.
        let mut buffer: Vec<(DocId, f64, i64)> = self
            .tables
            .table()
            .iter()
            // A memory on a thread is part of a slot's dated trail (a retraction, or the value that
            // made another one superseded): evicting it would change what is current. Kept.
            .filter(|(_, m)| m.namespace == ns && m.layer == Layer::Buffer && m.pin != Pin::Pinned && m.thread.is_none())
            .map(|(s, m)| (s, score::Prior::of(m, decay::current_importance(m, epoch)).weight(), m.created_at))
            .collect();
        let mut evict: Vec<(DocId, &'static str)> = Vec::new();
        buffer.retain(|&(s, _, _)| {
            let floor = self.tables.table().get(s).is_some_and(|m| decay::at_floor(m, epoch));
            if floor {
                evict.push((s, "decayed to the floor"));
            }
            !floor
        });
        if buffer.len() > cap {
            buffer.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)));
            let over = buffer.len() - cap;
            evict.extend(buffer[..over].iter().map(|&(s, _, _)| (s, "over the buffer cap: lowest weight")));
        }
        for (slot, why) in evict {
            let Some(m) = self.tables.table().get(slot).cloned() else { continue };
            self.note_memory(&m.id);
            self.tables.remove_memory(slot);
            let mut e = event(&m.id, EventKind::Evict, now, why.into(), None, None);
            e.previous_content = Some(m.content.clone());
            self.log(e);
            report.actions.push(Action { action: ActionKind::Evict, namespace: ns.to_string(), ids: vec![m.id], reason: why.into(), prompt_id: None, layer: None });
        }
    }

    /// The report a run would give, without changing anything: the heuristic steps as they would
    /// apply now, and the LLM calls it would make (not made).
    pub fn consolidate_dry_run(&mut self, options: &ConsolidateOptions, has_llm: bool) -> Result<ConsolidateReport> {
        let plan = self.plan_consolidate(options, has_llm)?;
        let planned: Vec<PlannedCallSummary> = plan
            .calls
            .iter()
            .map(|c| PlannedCallSummary {
                step: c.step.as_str().into(),
                namespace: c.namespace.clone(),
                prompt_id: c.request.prompt_id.clone(),
                ids: c.memories.iter().map(|m| m.id.clone()).collect(),
            })
            .collect();
        let heuristic = ConsolidatePlan { calls: Vec::new(), ..plan };
        let saved = self.journal.replace(super::journal::Journal::default());
        let result = self.apply_consolidate(&heuristic, Vec::new());
        let changes = self.take_changes();
        self.undo(changes);
        self.journal = saved;
        let mut report = result?;
        report.dry_run = true;
        report.planned = planned;
        for ns in &heuristic.namespaces {
            report.epochs.insert(ns.clone(), self.epoch(ns));
        }
        Ok(report)
    }

    /// Plans, runs the calls through `llm` (one retry each) and applies: the native driver.
    pub fn consolidate_with(&mut self, llm: Option<&dyn Llm>, options: &ConsolidateOptions) -> Result<ConsolidateReport> {
        match self.run_job(llm, &super::JobRequest::Consolidate { options: options.clone(), has_llm: llm.is_some() })? {
            super::JobReport::Consolidate(report) => Ok(report),
            _ => unreachable!("a consolidate plan applies as a consolidate report"),
        }
    }
}
