//! Authoring through the host LLM, as plan → calls → apply exactly like extraction
//! (`engine/extract.rs`): `plan_author` (pure) builds the `author@1` requests for a session's turns
//! not yet authored, chunked to an input budget, with the namespace's known threads; the host runs
//! them; `apply_author` validates each reply again, checks that the turns it was planned over are
//! unchanged and that every memory cites a user turn, and stores the memories through the same path
//! as the offline author (retractions scrub first). A reply is applied whole or skipped whole.
//! `author_with` is the native driver; turns whose call failed can be handed to the offline rules
//! (`author_offline_turns`), the fallback of `llmLevel: "on"`.

use serde::{Deserialize, Serialize};

use super::author::AuthorReport;
use super::extract::{plan_turn_calls, ExtractOptions, PlannedCall, SkippedStep};
use super::Engram;
use crate::error::{Error, Result};
use crate::evolve::author::Authored;
use crate::host::Llm;
use crate::llm::author::{self as prompt, OfferedThread};
use crate::llm::{run_call, CallResult, LlmUsage, Outcome, Purpose};
use crate::model::time::truncate;
use crate::model::RawEntry;

/// The requests of one authoring run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthorPlan {
    pub session_id: String,
    pub calls: Vec<PlannedCall>,
    /// Turns left for a later run (over `maxLlmCalls`).
    pub pending_turns: Vec<String>,
}

impl Engram {
    fn turns_to_author(&self, session_id: &str) -> Result<Vec<&RawEntry>> {
        let slots = self.tables.raw().session_slots(session_id);
        if slots.is_empty() {
            return Err(Error::not_found(format!("no session {}", truncate(session_id, 40))));
        }
        Ok(slots.into_iter().filter_map(|s| self.tables.raw().get(s)).filter(|e| e.authored_by.is_none()).collect())
    }

    /// Plans the `author@1` requests for a session's turns not yet authored (none when all are).
    pub fn plan_author(&self, session_id: &str, options: &ExtractOptions) -> Result<AuthorPlan> {
        let turns = self.turns_to_author(session_id)?;
        let namespace = self.tables.raw().session_namespace(session_id).unwrap_or_default().to_string();
        let known = self.known_threads(&namespace);
        let latest: Vec<(String, String)> = known.iter().rev().filter_map(|k| k.values.last().map(|v| (k.thread.clone(), v.clone()))).collect();
        let threads: Vec<OfferedThread> = latest.iter().map(|(t, v)| OfferedThread { thread: t, value: v }).collect();
        let (calls, pending_turns) = plan_turn_calls(turns, options.max_llm_calls, |date, offered| prompt::request(date, offered, &threads));
        Ok(AuthorPlan { session_id: session_id.to_string(), calls, pending_turns })
    }

    fn author_changed_since_plan(&self, session_id: &str, call: &PlannedCall) -> Option<String> {
        self.turns_changed_since_plan(session_id, call, (Purpose::Author, prompt::PROMPT_ID), |e| e.authored_by.is_some(), "authored")
    }

    /// Applies the results of a plan's calls (one per planned call, in order).
    pub fn apply_author(&mut self, plan: &AuthorPlan, results: Vec<CallResult>) -> Result<AuthorReport> {
        if results.len() != plan.calls.len() {
            return Err(Error::invalid(format!("author: {} results for {} planned calls", results.len(), plan.calls.len())));
        }
        let namespace = self.tables.raw().session_namespace(&plan.session_id).map(str::to_string);
        let mut report = AuthorReport::empty(&plan.session_id, prompt::PROMPT_ID);
        for (call, result) in plan.calls.iter().zip(results) {
            let turn_ids: Vec<String> = call.turns.iter().map(|t| t.id.clone()).collect();
            let skip = |report: &mut AuthorReport, outcome: Option<Outcome>, reason: String| {
                report.pending_turns.extend(turn_ids.iter().cloned());
                report.skipped.push(SkippedStep { turns: turn_ids.clone(), outcome, reason });
            };
            let (record, checked) = result.checked(&call.request, prompt::memories);
            self.llm_usage.record(&record);
            report.calls.push(record.clone());
            let memories = match checked {
                Ok(m) => m,
                Err(why) => {
                    skip(&mut report, Some(record.outcome), truncate(&why, 300));
                    continue;
                }
            };
            let (Some(namespace), None) = (&namespace, self.author_changed_since_plan(&plan.session_id, call)) else {
                let why = self.author_changed_since_plan(&plan.session_id, call).unwrap_or_else(|| "the session no longer exists".into());
                skip(&mut report, Some(record.outcome), why);
                continue;
            };
            if let Some(m) = memories.iter().find(|m| m.derived_from.iter().any(|d| !turn_ids.contains(d))) {
                skip(&mut report, Some(record.outcome), format!("a memory cites a turn this request did not offer: {}", truncate(&m.derived_from.join(", "), 80)));
                continue;
            }
            // Never author from assistant turns alone.
            let is_user = |id: &String| self.tables.raw().by_id(id).is_some_and(|e| e.role.eq_ignore_ascii_case("user"));
            if let Some(m) = memories.iter().find(|m| !m.derived_from.iter().any(is_user)) {
                skip(&mut report, Some(record.outcome), format!("a memory cites no user turn: {}", truncate(&m.derived_from.join(", "), 80)));
                continue;
            }
            let authored: Vec<Authored> = memories
                .into_iter()
                .map(|m| Authored {
                    content: m.content,
                    shape: m.shape,
                    thread: m.thread,
                    value: m.value,
                    depends_on: m.depends_on,
                    consequent: m.consequent,
                    area: m.area,
                    signature: m.signature,
                    confidence: m.confidence,
                    doubts: Vec::new(),
                    event_at: m.event_at,
                    derived_from: m.derived_from,
                    rule: "llm",
                    forget: Vec::new(),
                })
                .collect();
            self.apply_authored(namespace, authored, prompt::PROMPT_ID, &mut report)?;
            for id in &turn_ids {
                self.note_raw(id);
                self.tables.mark_raw_authored(id, prompt::PROMPT_ID);
            }
            report.authored_turns.extend(turn_ids);
        }
        report.pending_turns.extend(plan.pending_turns.iter().cloned());
        report.usage = LlmUsage::of(&report.calls);
        Ok(report)
    }

    /// Authors the given turns of a session (those not yet authored) with the offline rules: the
    /// fallback for turns whose LLM call failed. Ids of other sessions are ignored.
    pub fn author_offline_turns(&mut self, session_id: &str, turn_ids: &[String]) -> Result<AuthorReport> {
        let turns: Vec<RawEntry> = self.turns_to_author(session_id)?.into_iter().filter(|e| turn_ids.contains(&e.id)).cloned().collect();
        let mut report = AuthorReport::empty(session_id, super::author::RULES_ID);
        self.author_by_rules(session_id, turns, &mut report)?;
        Ok(report)
    }

    /// Plans, runs the calls through `llm` (one retry each), applies them; with `fallback`, the
    /// turns of failed or invalid calls are then authored by the offline rules (reported in
    /// `offlineTurns`), those over the call budget stay pending.
    pub fn author_with(&mut self, llm: &dyn Llm, session_id: &str, options: &ExtractOptions, fallback: bool) -> Result<AuthorReport> {
        let plan = self.plan_author(session_id, options)?;
        let results = plan.calls.iter().map(|c| run_call(llm, &c.request, self.clock.as_ref())).collect();
        let mut report = self.apply_author(&plan, results)?;
        if fallback {
            let failed: Vec<String> = report.skipped.iter().flat_map(|s| s.turns.iter().cloned()).collect();
            if !failed.is_empty() {
                let offline = self.author_offline_turns(session_id, &failed)?;
                report.merge_offline(offline);
            }
        }
        Ok(report)
    }
}

impl AuthorReport {
    /// Folds an offline run over some of this run's turns into it.
    pub fn merge_offline(&mut self, offline: AuthorReport) {
        self.pending_turns.retain(|t| !offline.authored_turns.contains(t));
        self.added.extend(offline.added);
        self.reinforced.extend(offline.reinforced);
        self.retracted.extend(offline.retracted);
        self.skipped.extend(offline.skipped);
        self.offline_turns.extend(offline.authored_turns.iter().cloned());
        self.authored_turns.extend(offline.authored_turns);
    }
}
