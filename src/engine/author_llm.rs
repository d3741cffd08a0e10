//! Authoring through the host LLM, as plan → calls → apply exactly like extraction
//! (`engine/extract.rs`): `plan_author` (pure) builds the `author@3` requests for a session's turns
//! not yet authored, chunked to an input budget, with the namespace's known threads; the host runs
//! them; `apply_author` validates each reply again, checks that the turns it was planned over are
//! unchanged and that every memory cites a user turn, and stores the memories through the same path
//! as the offline author (retractions scrub first). A reply is applied whole or skipped whole.
//! `author_with` is the native driver; turns whose call failed can be handed to the offline rules
//! (`author_offline_turns`), the fallback of `llmLevel: "on"`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::author::AuthorReport;
use super::extract::{plan_turn_calls, ExtractOptions, PlannedCall};
use super::jobs::{JobReport, JobRequest, TurnJob};
use super::Engram;
use crate::error::{Error, Result};
use crate::evolve::author::Authored;
use crate::host::Llm;
use crate::llm::author::{self as prompt, AuthoredByLlm, OfferedThread};
use crate::llm::{CallResult, Purpose};
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

    /// Plans the `author@3` requests for a session's turns not yet authored (none when all are).
    pub fn plan_author(&self, session_id: &str, options: &ExtractOptions) -> Result<AuthorPlan> {
        let turns = self.turns_to_author(session_id)?;
        let namespace = self.tables.raw().session_namespace(session_id).unwrap_or_default().to_string();
        let known = self.known_threads(&namespace);
        let latest: Vec<(String, String)> = known.iter().rev().filter_map(|k| k.values.last().map(|v| (k.thread.clone(), v.clone()))).collect();
        let threads: Vec<OfferedThread> = latest.iter().map(|(t, v)| OfferedThread { thread: t, value: v }).collect();
        let (calls, pending_turns) = plan_turn_calls(turns, options.max_llm_calls, |date, offered| prompt::request(date, offered, &threads));
        Ok(AuthorPlan { session_id: session_id.to_string(), calls, pending_turns })
    }

    /// Applies the results of a plan's calls (one per planned call, in order).
    pub fn apply_author(&mut self, plan: &AuthorPlan, results: Vec<CallResult>) -> Result<AuthorReport> {
        let mut job = Authoring { report: AuthorReport::empty(&plan.session_id, prompt::PROMPT_ID) };
        let run = self.apply_turn_job(&mut job, &plan.session_id, &plan.calls, &plan.pending_turns, results)?;
        let mut report = job.report;
        report.authored_turns = run.done;
        report.skipped.extend(run.skipped);
        report.pending_turns = run.pending;
        report.calls = run.calls;
        report.usage = run.usage;
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
        let JobReport::Author(mut report) = self.run_job(Some(llm), &JobRequest::Author { session_id: session_id.to_string(), options: options.clone() })? else {
            unreachable!("an author plan applies as an author report")
        };
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

/// Authoring through the LLM as a job over turns: memories stored through the offline author's
/// path (retractions scrub first).
struct Authoring {
    report: AuthorReport,
}

impl TurnJob for Authoring {
    type Item = AuthoredByLlm;
    const PURPOSE: Purpose = Purpose::Author;
    const PROMPT_ID: &'static str = prompt::PROMPT_ID;
    const DONE_AS: &'static str = "authored";

    fn done(turn: &RawEntry) -> bool {
        turn.authored_by.is_some()
    }

    fn parse(reply: &Value) -> std::result::Result<Vec<AuthoredByLlm>, String> {
        prompt::memories(reply)
    }

    fn cites(item: &AuthoredByLlm) -> &[String] {
        &item.derived_from
    }

    /// Never author from assistant turns alone.
    fn refuse(&self, engine: &Engram, items: &[AuthoredByLlm]) -> Option<String> {
        let is_user = |id: &String| engine.tables.raw().by_id(id).is_some_and(|e| e.role.eq_ignore_ascii_case("user"));
        items.iter().find(|m| !m.derived_from.iter().any(is_user)).map(|m| format!("a memory cites no user turn: {}", truncate(&m.derived_from.join(", "), 80)))
    }

    fn store(&mut self, engine: &mut Engram, namespace: &str, items: Vec<AuthoredByLlm>) -> Result<()> {
        let authored: Vec<Authored> = items
            .into_iter()
            .map(|m| Authored {
                content: m.content,
                shape: m.shape,
                thread: m.thread,
                value: m.value,
                corrects: m.corrects,
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
        engine.apply_authored(namespace, authored, prompt::PROMPT_ID, &mut self.report)
    }

    fn mark(engine: &mut Engram, turn_id: &str) {
        engine.tables.mark_raw_authored(turn_id, prompt::PROMPT_ID);
    }
}
