//! Options of the LLM jobs as the boundary receives them: one request per job, one results list.

use serde_json::Value;

use super::Fields;
use crate::engine::{ConsolidateOptions, ExtractOptions, Job, JobRequest};
use crate::error::{Error, Result};
use crate::lifecycle::report::LlmLevel;
use crate::llm::CallResult;

/// What to plan for `job`: extract and author run over the session `target` and take
/// `{maxLlmCalls?}`; consolidate takes no target and `{namespace?, llmLevel?, hasLlm?,
/// maxLlmCalls?, bufferCap?}`.
pub fn parse_job_request(job: Job, target: Option<&str>, options: Option<&Value>) -> Result<JobRequest> {
    let session = || target.map(str::to_string).ok_or_else(|| Error::invalid(format!("{}: a session id is required", job.as_str())));
    match job {
        Job::Extract | Job::Author => {
            let what = if job == Job::Extract { "extract options" } else { "author options" };
            let f = Fields::of(options, what, &["maxLlmCalls"])?;
            let options = ExtractOptions { max_llm_calls: f.as_ref().map(|f| f.usize("maxLlmCalls")).transpose()?.flatten() };
            Ok(if job == Job::Extract { JobRequest::Extract { session_id: session()?, options } } else { JobRequest::Author { session_id: session()?, options } })
        }
        Job::Consolidate => {
            if target.is_some() {
                return Err(Error::invalid("consolidate: takes no session id (its scope is `namespace`)"));
            }
            let (options, has_llm) = parse_consolidate(options)?;
            Ok(JobRequest::Consolidate { options, has_llm })
        }
    }
}

/// `{namespace?, llmLevel?, hasLlm?, maxLlmCalls?, bufferCap?}` → options and whether an LLM exists.
pub fn parse_consolidate(options: Option<&Value>) -> Result<(ConsolidateOptions, bool)> {
    let mut out = ConsolidateOptions::default();
    let Some(f) = Fields::of(options, "consolidate options", &["namespace", "llmLevel", "hasLlm", "maxLlmCalls", "bufferCap"])? else { return Ok((out, false)) };
    out.namespace = f.str("namespace")?.map(str::to_string);
    if let Some(l) = f.str("llmLevel")? {
        out.level = LlmLevel::parse(l).ok_or_else(|| Error::invalid("consolidate: `llmLevel` must be off, auto or on"))?;
    }
    out.max_llm_calls = f.usize("maxLlmCalls")?;
    if let Some(cap) = f.usize("bufferCap")? {
        out.buffer_cap = cap;
    }
    Ok((out, f.bool("hasLlm")?.unwrap_or(false)))
}

/// The host's results of a plan's calls (`[{outcome, attempts, replies, usage?, durationMs, error?}]`).
pub fn parse_call_results(job: Job, text: &str) -> Result<Vec<CallResult>> {
    serde_json::from_str(text).map_err(|e| Error::invalid(format!("{}: not call results ({e})", job.as_str())))
}
