//! What a consolidation run did (or, dry, would do): every action with the memories it touched, the
//! reason and, for LLM decisions, the prompt; what was skipped and why; the LLM calls it made.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::llm::{CallRecord, LlmUsage, Outcome};

/// How much consolidation asks the host LLM: `off` never, `auto` where the heuristics are not
/// confident, `on` for every step that has a prompt.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LlmLevel {
    #[default]
    Off,
    Auto,
    On,
}

impl LlmLevel {
    pub fn parse(s: &str) -> Option<LlmLevel> {
        match s {
            "off" => Some(LlmLevel::Off),
            "auto" => Some(LlmLevel::Auto),
            "on" => Some(LlmLevel::On),
            _ => None,
        }
    }
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "ConsolidateActionKind"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionKind {
    /// Moved up a layer (`ids[0]`).
    Promote,
    /// `ids[0]` absorbed `ids[1]` (which is gone).
    Merge,
    /// `ids[0]` is superseded by `ids[1]` (kept, hidden from default recall).
    Supersede,
    /// `ids[0]` was dropped from the buffer.
    Evict,
    /// `ids[0]` is a new episodic memory summarizing the rest.
    Distill,
    /// Triage kept `ids[0]` in the buffer (decided once).
    Keep,
    /// The core gate rejected `ids[0]` (it may be offered again after a cooldown, or never).
    Reject,
    /// A pair judged to be different facts (`ids`), never offered again.
    Distinct,
    /// The namespace advanced one epoch; importance decayed.
    Decay,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "ConsolidateAction"))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Action {
    pub action: ActionKind,
    pub namespace: String,
    pub ids: Vec<String>,
    pub reason: String,
    /// The prompt behind an LLM decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub prompt_id: Option<String>,
    /// Promotions: the layer reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub layer: Option<crate::model::Layer>,
}

/// A step that changed nothing, and why.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "ConsolidateSkipped"))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    /// `triage`, `gate`, `merge`, `reconcile` or `distill`.
    #[cfg_attr(test, ts(type = "\"triage\" | \"gate\" | \"merge\" | \"reconcile\" | \"distill\""))]
    pub step: String,
    pub namespace: String,
    pub ids: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub outcome: Option<Outcome>,
    pub reason: String,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsolidateReport {
    pub dry_run: bool,
    pub llm_level: LlmLevel,
    /// Each namespace's epoch after the run (before it, when dry).
    pub epochs: BTreeMap<String, u64>,
    pub actions: Vec<Action>,
    pub skipped: Vec<Skipped>,
    /// LLM calls the run made (a dry run makes none: `planned` lists them).
    pub calls: Vec<CallRecord>,
    pub usage: LlmUsage,
    /// What the epoch found to judge, before batch sizes and `maxLlmCalls` bounded the calls.
    pub found: Found,
    /// Scanned memories whose links the epoch's full vector search improved (see `Memory::links`).
    pub relinked: usize,
    /// Dry runs: the LLM calls a run would make, by step and namespace.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(optional = nullable))]
    pub planned: Vec<PlannedCallSummary>,
}

/// Counts of what an epoch found to judge (a design with one call per candidate would make this many).
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "ConsolidateFound"))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    /// Memories compared with their namespace this epoch.
    pub scanned: usize,
    /// Near-duplicate pairs (merge band), of which `sameFact` the heuristic merges itself.
    pub merge_pairs: usize,
    pub same_fact: usize,
    /// Same-topic pairs (reconcile band) with the time gap of an update.
    pub reconcile_pairs: usize,
    pub gate_candidates: usize,
    pub triage_candidates: usize,
    pub distill_groups: usize,
}

#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "ConsolidatePlannedCall"))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedCallSummary {
    pub step: String,
    pub namespace: String,
    pub prompt_id: String,
    pub ids: Vec<String>,
}
