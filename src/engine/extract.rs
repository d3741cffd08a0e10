//! Extraction from conversations, as plan → calls → apply. `plan_extract` (pure) builds the
//! `extract@1` requests for a session's turns not yet extracted, chunked to an input budget; the
//! host runs them (JS: the facade's call runner; natively: [`Engram::extract_with`]); `apply_extract`
//! validates each reply again and stores its memories through the normal `add` path (journaled,
//! history naming the promptId, dedup), then marks the turns it covered. A reply is applied whole or
//! skipped whole: if any turn it was planned over changed or went away since the plan, or the reply
//! is invalid, or the call failed, nothing of it is applied and the report says why.

use serde::{Deserialize, Serialize};

use serde_json::Value;

use super::jobs::{JobReport, JobRequest, TurnJob};
use super::Engram;
use crate::error::{Error, Result};
use crate::host::Llm;
use crate::llm::extract::{self, ExtractedMemory, OfferedTurn};
use crate::llm::{CallRecord, CallResult, LlmRequest, LlmUsage, Outcome, Purpose};
use crate::model::time::{to_iso, truncate};
use crate::model::RawEntry;
use crate::recall::context::estimate_tokens;
use crate::NewMemory;

/// Estimated tokens of turn text one request carries; larger sessions are chunked.
pub const REQUEST_TURN_TOKENS: usize = 6000;

#[derive(Clone, Debug, Default)]
pub struct ExtractOptions {
    /// At most this many requests in this run; the remaining turns stay pending for the next run.
    pub max_llm_calls: Option<usize>,
}

/// A turn a request was planned over, with a fingerprint of what the model was shown.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlannedTurn {
    pub id: String,
    pub fingerprint: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlannedCall {
    pub request: LlmRequest,
    pub turns: Vec<PlannedTurn>,
}

/// The requests of one extraction run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExtractPlan {
    pub session_id: String,
    pub calls: Vec<PlannedCall>,
    /// Turns left for a later run (over `maxLlmCalls`).
    pub pending_turns: Vec<String>,
}

/// A step that changed nothing, and why.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "SkippedTurns"))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkippedStep {
    /// The turns it covered (they stay pending).
    pub turns: Vec<String>,
    /// The call's outcome, when a call was made.
    pub outcome: Option<Outcome>,
    pub reason: String,
}

/// What an extraction run did.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtractReport {
    pub session_id: String,
    pub prompt_id: String,
    /// Ids of the memories stored.
    pub added: Vec<String>,
    /// Ids of existing memories the extraction repeated (reinforced, not stored twice).
    pub reinforced: Vec<String>,
    /// Turns now marked as extracted.
    pub extracted_turns: Vec<String>,
    pub skipped: Vec<SkippedStep>,
    /// Turns not yet extracted after this run (skipped ones and those over the call budget).
    pub pending_turns: Vec<String>,
    pub calls: Vec<CallRecord>,
    pub usage: LlmUsage,
}

impl ExtractReport {
    fn empty(session_id: &str) -> ExtractReport {
        ExtractReport {
            session_id: session_id.to_string(),
            prompt_id: extract::PROMPT_ID.to_string(),
            added: Vec::new(),
            reinforced: Vec::new(),
            extracted_turns: Vec::new(),
            skipped: Vec::new(),
            pending_turns: Vec::new(),
            calls: Vec::new(),
            usage: LlmUsage::default(),
        }
    }
}

/// What the model is shown of a turn, summarized: a changed role, speaker, text or date changes it.
fn fingerprint(e: &RawEntry) -> String {
    let mut bytes = Vec::with_capacity(e.content.len() + 64);
    for part in [e.role.as_str(), e.speaker.as_deref().unwrap_or("\u{0}"), e.content.as_str(), &e.date.map_or(String::new(), |d| d.to_string())] {
        bytes.extend_from_slice(part.as_bytes());
        bytes.push(0xff); // a byte no UTF-8 text contains: parts cannot run into each other
    }
    format!("{:016x}", crate::digest::fnv1a(&bytes))
}

/// The text of a turn cut to at most `max_tokens` estimated tokens.
fn within_tokens(text: &str, max_tokens: usize) -> &str {
    if estimate_tokens(text) <= max_tokens {
        return text;
    }
    let (mut ascii, mut other) = (0usize, 0usize);
    for (i, c) in text.char_indices() {
        if c.is_ascii() {
            ascii += 1
        } else {
            other += 1
        }
        if ascii.div_ceil(4) + other > max_tokens {
            return &text[..i];
        }
    }
    text
}

fn day(ms: i64) -> String {
    to_iso(ms)[..10].to_string()
}

/// The calls of a run over `turns`: chunked in order so each request's turn text stays under
/// [`REQUEST_TURN_TOKENS`] (a longer turn is cut), the first `max_llm_calls` chunks each made into
/// one request by `request(session date, offered turns)`; returns the calls and the turns left
/// pending. Extraction and authoring plan their runs with it.
pub(super) fn plan_turn_calls(
    turns: Vec<&RawEntry>,
    max_llm_calls: Option<usize>,
    request: impl Fn(Option<&str>, &[OfferedTurn]) -> LlmRequest,
) -> (Vec<PlannedCall>, Vec<String>) {
    let mut chunks: Vec<Vec<&RawEntry>> = Vec::new();
    let mut used = 0;
    for e in turns {
        let cost = estimate_tokens(within_tokens(&e.content, REQUEST_TURN_TOKENS)) + 16;
        match chunks.last_mut() {
            Some(chunk) if used + cost <= REQUEST_TURN_TOKENS => chunk.push(e),
            _ => {
                chunks.push(vec![e]);
                used = 0;
            }
        }
        used += cost;
    }
    let budget = max_llm_calls.unwrap_or(usize::MAX);
    let pending = chunks.iter().skip(budget).flatten().map(|e| e.id.clone()).collect();
    let calls = chunks
        .into_iter()
        .take(budget)
        .map(|chunk| {
            let dates: Vec<Option<String>> = chunk.iter().map(|e| e.date.map(day)).collect();
            let offered: Vec<OfferedTurn> = chunk
                .iter()
                .zip(&dates)
                .map(|(e, date)| OfferedTurn {
                    id: &e.id,
                    role: &e.role,
                    speaker: e.speaker.as_deref(),
                    date: date.as_deref(),
                    text: within_tokens(&e.content, REQUEST_TURN_TOKENS),
                })
                .collect();
            let session_date = dates.iter().flatten().next().map(String::as_str);
            PlannedCall { request: request(session_date, &offered), turns: chunk.iter().map(|e| PlannedTurn { id: e.id.clone(), fingerprint: fingerprint(e) }).collect() }
        })
        .collect();
    (calls, pending)
}

impl Engram {
    /// LLM calls applied since this engine was created, summed.
    pub fn llm_usage(&self) -> &LlmUsage {
        &self.llm_usage
    }

    /// The turns of a session not yet extracted, in order. `NotFound` without such a session.
    fn pending_turns(&self, session_id: &str) -> Result<Vec<&RawEntry>> {
        let slots = self.tables.raw().session_slots(session_id);
        if slots.is_empty() {
            return Err(Error::not_found(format!("no session {}", truncate(session_id, 40))));
        }
        Ok(slots.into_iter().filter_map(|s| self.tables.raw().get(s)).filter(|e| e.extracted_by.is_none() && !e.quarantined).collect())
    }

    /// Plans the extraction requests for a session's turns not yet extracted (none when all are).
    pub fn plan_extract(&self, session_id: &str, options: &ExtractOptions) -> Result<ExtractPlan> {
        let (calls, pending_turns) = plan_turn_calls(self.pending_turns(session_id)?, options.max_llm_calls, extract::request);
        Ok(ExtractPlan { session_id: session_id.to_string(), calls, pending_turns })
    }

    /// What `extract` reports when there is no LLM to call: nothing extracted, every pending turn
    /// still pending (and searchable verbatim, as before).
    pub fn extract_without_llm(&self, session_id: &str) -> Result<ExtractReport> {
        let mut report = ExtractReport::empty(session_id);
        report.pending_turns = self.pending_turns(session_id)?.into_iter().map(|e| e.id.clone()).collect();
        if !report.pending_turns.is_empty() {
            report.skipped.push(SkippedStep { turns: report.pending_turns.clone(), outcome: None, reason: "no LLM: extraction needs the `llm` option (llmLevel is off)".into() });
        }
        Ok(report)
    }

    /// Why a call planned over a session's turns (for `purpose` and `prompt_id`) cannot be applied
    /// now: a turn gone, moved, changed, or already `done` (by another run) since the plan.
    pub(super) fn turns_changed_since_plan(
        &self,
        session_id: &str,
        call: &PlannedCall,
        (purpose, prompt_id): (Purpose, &str),
        done: impl Fn(&RawEntry) -> bool,
        done_as: &str,
    ) -> Option<String> {
        if call.request.purpose != purpose || call.request.prompt_id != prompt_id {
            return Some(format!("the plan holds a request that is not {prompt_id}"));
        }
        for t in &call.turns {
            match self.tables.raw().by_id(&t.id) {
                None => return Some(format!("turn `{}` no longer exists", truncate(&t.id, 60))),
                Some(e) if e.session_id != session_id => return Some(format!("turn `{}` is not in this session", truncate(&t.id, 60))),
                Some(e) if fingerprint(e) != t.fingerprint => return Some(format!("turn `{}` changed since the plan", truncate(&t.id, 60))),
                Some(e) if done(e) => return Some(format!("turn `{}` was {done_as} meanwhile", truncate(&t.id, 60))),
                Some(_) => {}
            }
        }
        None
    }

    /// Applies the results of a plan's calls (one per planned call, in order): each valid reply's
    /// memories are stored and its turns marked; everything else is skipped and reported.
    pub fn apply_extract(&mut self, plan: &ExtractPlan, results: Vec<CallResult>) -> Result<ExtractReport> {
        let mut job = Extraction::default();
        let run = self.apply_turn_job(&mut job, &plan.session_id, &plan.calls, &plan.pending_turns, results)?;
        let mut report = ExtractReport::empty(&plan.session_id);
        report.added = job.added;
        report.reinforced = job.reinforced;
        report.extracted_turns = run.done;
        report.skipped = run.skipped;
        report.pending_turns = run.pending;
        report.calls = run.calls;
        report.usage = run.usage;
        Ok(report)
    }

    /// Plans, runs the calls through `llm` (with one retry each) and applies them: the native driver.
    pub fn extract_with(&mut self, llm: &dyn Llm, session_id: &str, options: &ExtractOptions) -> Result<ExtractReport> {
        match self.run_job(Some(llm), &JobRequest::Extract { session_id: session_id.to_string(), options: options.clone() })? {
            JobReport::Extract(report) => Ok(report),
            _ => unreachable!("an extract plan applies as an extract report"),
        }
    }
}

/// Extraction as a job over turns: typed memories stored through `add`, deduplicated.
#[derive(Default)]
struct Extraction {
    added: Vec<String>,
    reinforced: Vec<String>,
}

impl TurnJob for Extraction {
    type Item = ExtractedMemory;
    const PURPOSE: Purpose = Purpose::Extract;
    const PROMPT_ID: &'static str = extract::PROMPT_ID;
    const DONE_AS: &'static str = "extracted";

    fn done(turn: &RawEntry) -> bool {
        turn.extracted_by.is_some()
    }

    fn parse(reply: &Value) -> std::result::Result<Vec<ExtractedMemory>, String> {
        extract::memories(reply)
    }

    fn cites(item: &ExtractedMemory) -> &[String] {
        &item.derived_from
    }

    /// Under `reject`, a reply with a secret is skipped whole, like any other unusable reply.
    fn refuse(&self, engine: &Engram, items: &[ExtractedMemory]) -> Option<String> {
        items.iter().find_map(|m| engine.guards.apply(&m.content, false, "an extracted memory").err()).map(|e| e.message)
    }

    fn store(&mut self, engine: &mut Engram, namespace: &str, items: Vec<ExtractedMemory>) -> Result<()> {
        for m in items {
            let input = NewMemory {
                content: m.content,
                namespace: Some(namespace.to_string()),
                kind: Some(m.kind),
                importance: Some(m.importance),
                tags: m.tags,
                source: Some("extract".into()),
                event_at: m.event_at,
                derived_from: m.derived_from,
                ..NewMemory::default()
            };
            let added = engine.add_by(input, Some(extract::PROMPT_ID))?;
            let list = if added.deduplicated { &mut self.reinforced } else { &mut self.added };
            if !list.contains(&added.memory.id) {
                list.push(added.memory.id);
            }
        }
        Ok(())
    }

    fn mark(engine: &mut Engram, turn_id: &str) {
        engine.tables.mark_raw_extracted(turn_id, extract::PROMPT_ID);
    }
}
