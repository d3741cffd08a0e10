//! One pipeline for the LLM jobs (extract, author, consolidate). Each job is plan → calls → apply:
//! the engine plans the requests (pure), the host runs them wherever it likes (JS: outside the
//! store's queue), and the engine applies the results as one write.
//!
//! What the jobs share lives here: [`Job`] names them; [`JobRequest`] → [`Engram::plan_job`] →
//! [`JobPlan`] → [`Engram::apply_job`] → [`JobReport`] is the one plan/apply pair the wasm boundary
//! and the native driver ([`Engram::run_job`]) use; and the apply loop of the jobs that run over a
//! session's turns ([`TurnJob`]: extract and author) — check each reply, record its usage, skip
//! whole what cannot be applied (failed, invalid, turns changed since the plan, a memory citing a
//! turn it was not offered, the job's own refusal), store the rest and mark its turns. A new job
//! over turns is a `TurnJob` and a prompt module in `llm/`.

use serde::Serialize;
use serde_json::Value;

use super::author::AuthorReport;
use super::extract::{ExtractOptions, ExtractPlan, ExtractReport, PlannedCall, SkippedStep};
use super::{AuthorPlan, ConsolidateOptions, ConsolidatePlan, Engram};
use crate::error::{Error, Result};
use crate::host::Llm;
use crate::lifecycle::report::ConsolidateReport;
use crate::llm::{run_call, CallRecord, CallResult, LlmRequest, LlmUsage, Purpose};
use crate::model::time::truncate;
use crate::model::RawEntry;

/// The LLM jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    Extract,
    Author,
    Consolidate,
}

impl Job {
    pub const ALL: [Job; 3] = [Job::Extract, Job::Author, Job::Consolidate];

    pub fn as_str(self) -> &'static str {
        match self {
            Job::Extract => "extract",
            Job::Author => "author",
            Job::Consolidate => "consolidate",
        }
    }

    pub fn parse(s: &str) -> Result<Job> {
        Job::ALL.into_iter().find(|j| j.as_str() == s).ok_or_else(|| Error::invalid(format!("unknown job `{}` (jobs: extract, author, consolidate)", truncate(s, 40))))
    }
}

/// What to plan: the job, its target and its options.
#[derive(Clone, Debug)]
pub enum JobRequest {
    Extract { session_id: String, options: ExtractOptions },
    Author { session_id: String, options: ExtractOptions },
    Consolidate { options: ConsolidateOptions, has_llm: bool },
}

impl JobRequest {
    pub fn job(&self) -> Job {
        match self {
            JobRequest::Extract { .. } => Job::Extract,
            JobRequest::Author { .. } => Job::Author,
            JobRequest::Consolidate { .. } => Job::Consolidate,
        }
    }
}

/// A job's plan, serialized as the job's own plan (the job is named beside it at apply).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum JobPlan {
    Extract(ExtractPlan),
    Author(AuthorPlan),
    Consolidate(ConsolidatePlan),
}

impl JobPlan {
    pub fn job(&self) -> Job {
        match self {
            JobPlan::Extract(_) => Job::Extract,
            JobPlan::Author(_) => Job::Author,
            JobPlan::Consolidate(_) => Job::Consolidate,
        }
    }

    /// The requests the host runs, in order (one result per request comes back).
    pub fn requests(&self) -> Vec<&LlmRequest> {
        match self {
            JobPlan::Extract(p) => p.calls.iter().map(|c| &c.request).collect(),
            JobPlan::Author(p) => p.calls.iter().map(|c| &c.request).collect(),
            JobPlan::Consolidate(p) => p.calls.iter().map(|c| &c.request).collect(),
        }
    }

    /// A plan of `job` from its JSON (as `plan_job` produced it and a host handed it back).
    pub fn from_json(job: Job, text: &str) -> Result<JobPlan> {
        let not_a_plan = |e: serde_json::Error| Error::invalid(format!("{}: not a plan ({e})", job.as_str()));
        Ok(match job {
            Job::Extract => JobPlan::Extract(serde_json::from_str(text).map_err(not_a_plan)?),
            Job::Author => JobPlan::Author(serde_json::from_str(text).map_err(not_a_plan)?),
            Job::Consolidate => JobPlan::Consolidate(serde_json::from_str(text).map_err(not_a_plan)?),
        })
    }
}

/// What applying a job did, serialized as the job's own report.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum JobReport {
    Extract(ExtractReport),
    Author(AuthorReport),
    Consolidate(ConsolidateReport),
}

impl Engram {
    /// The requests of one run of a job (none when there is nothing to do).
    pub fn plan_job(&self, request: &JobRequest) -> Result<JobPlan> {
        Ok(match request {
            JobRequest::Extract { session_id, options } => JobPlan::Extract(self.plan_extract(session_id, options)?),
            JobRequest::Author { session_id, options } => JobPlan::Author(self.plan_author(session_id, options)?),
            JobRequest::Consolidate { options, has_llm } => JobPlan::Consolidate(self.plan_consolidate(options, *has_llm)?),
        })
    }

    /// Applies the results of a plan's requests (one per request, in order).
    pub fn apply_job(&mut self, plan: &JobPlan, results: Vec<CallResult>) -> Result<JobReport> {
        Ok(match plan {
            JobPlan::Extract(p) => JobReport::Extract(self.apply_extract(p, results)?),
            JobPlan::Author(p) => JobReport::Author(self.apply_author(p, results)?),
            JobPlan::Consolidate(p) => JobReport::Consolidate(self.apply_consolidate(p, results)?),
        })
    }

    /// Plans, runs each request through `llm` (one retry each; no calls without one) and applies:
    /// the native driver of every job.
    pub fn run_job(&mut self, llm: Option<&dyn Llm>, request: &JobRequest) -> Result<JobReport> {
        let plan = self.plan_job(request)?;
        let results = match llm {
            Some(llm) => plan.requests().into_iter().map(|r| run_call(llm, r, self.clock.as_ref())).collect(),
            None => Vec::new(),
        };
        self.apply_job(&plan, results)
    }
}

/// A job over a session's turns: what it reads from a valid reply, what it refuses, how it stores
/// what it keeps, how it marks a turn done.
pub(super) trait TurnJob {
    /// One memory of a reply.
    type Item;
    const PURPOSE: Purpose;
    const PROMPT_ID: &'static str;
    /// How a turn this job ran over is described in a reason ("extracted").
    const DONE_AS: &'static str;

    /// Whether this job already ran over the turn.
    fn done(turn: &RawEntry) -> bool;
    /// The memories of a reply the schema accepted.
    fn parse(reply: &Value) -> std::result::Result<Vec<Self::Item>, String>;
    /// The turns an item cites.
    fn cites(item: &Self::Item) -> &[String];
    /// Why a reply's memories must not be applied, beyond what every job checks.
    fn refuse(&self, engine: &Engram, items: &[Self::Item]) -> Option<String>;
    /// Stores a reply's memories in `namespace`.
    fn store(&mut self, engine: &mut Engram, namespace: &str, items: Vec<Self::Item>) -> Result<()>;
    /// Marks a turn as done by this job.
    fn mark(engine: &mut Engram, turn_id: &str);
}

/// What the shared loop did with a run's calls; the job's report takes these lists as they are.
#[derive(Debug, Default)]
pub(super) struct TurnRun {
    /// Turns now marked done.
    pub done: Vec<String>,
    pub skipped: Vec<SkippedStep>,
    /// Turns not done after this run: skipped ones, then those over the call budget.
    pub pending: Vec<String>,
    pub calls: Vec<CallRecord>,
    pub usage: LlmUsage,
}

impl Engram {
    /// Applies the results of a turn job's planned calls (one per call, in order): each valid reply
    /// whose turns are unchanged and whose memories cite only offered turns is stored whole and its
    /// turns marked; anything else is skipped whole, its turns left pending, and reported.
    pub(super) fn apply_turn_job<J: TurnJob>(&mut self, job: &mut J, session_id: &str, calls: &[PlannedCall], over_budget: &[String], results: Vec<CallResult>) -> Result<TurnRun> {
        if results.len() != calls.len() {
            return Err(Error::invalid(format!("{}: {} results for {} planned calls", J::PROMPT_ID, results.len(), calls.len())));
        }
        let namespace = self.tables.raw().session_namespace(session_id).map(str::to_string);
        let mut run = TurnRun::default();
        for (call, result) in calls.iter().zip(results) {
            let turn_ids: Vec<String> = call.turns.iter().map(|t| t.id.clone()).collect();
            let (record, checked) = result.checked(&call.request, J::parse);
            self.llm_usage.record(&record);
            run.calls.push(record.clone());
            let refusal = match checked {
                Err(why) => Err(truncate(&why, 300)),
                Ok(items) => match &namespace {
                    None => Err("the session no longer exists".to_string()),
                    Some(ns) => match self.turns_changed_since_plan(session_id, call, (J::PURPOSE, J::PROMPT_ID), J::done, J::DONE_AS) {
                        Some(why) => Err(why),
                        None => match items.iter().find(|m| J::cites(m).iter().any(|d| !turn_ids.contains(d))) {
                            Some(m) => Err(format!("a memory cites a turn this request did not offer: {}", truncate(&J::cites(m).join(", "), 80))),
                            None => job.refuse(self, &items).map_or(Ok((ns.clone(), items)), Err),
                        },
                    },
                },
            };
            match refusal {
                Err(reason) => {
                    run.pending.extend(turn_ids.iter().cloned());
                    run.skipped.push(SkippedStep { turns: turn_ids, outcome: Some(record.outcome), reason });
                }
                Ok((ns, items)) => {
                    job.store(self, &ns, items)?;
                    for id in &turn_ids {
                        self.note_raw(id);
                        J::mark(self, id);
                    }
                    run.done.extend(turn_ids);
                }
            }
        }
        run.pending.extend(over_budget.iter().cloned());
        run.usage = LlmUsage::of(&run.calls);
        Ok(run)
    }
}
