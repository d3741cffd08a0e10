//! The LLM jobs across the boundary: one plan/apply pair keyed by job (`jobPlan` → the host runs
//! the requests → `jobApply`), the checks a host runs on each reply (`llmCheck`), and what runs
//! without an LLM (extraction's report, a consolidation dry run, the offline author, retraction).

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::{borrow, js_view, parse_opt, to_js, view, EngramCore};
use crate::api;
use crate::engine::{Job, JobPlan};
use crate::error::Error;

/// Validates one LLM reply against its request (schema and the request's own rules):
/// `{valid: true}`, or `{valid: false, error, retry}` where `retry` is the request again with the
/// reply and the error appended (the one retry the contract allows).
#[wasm_bindgen(js_name = llmCheck)]
pub fn llm_check(request: &str, reply: &str) -> std::result::Result<String, JsValue> {
    let request: crate::llm::LlmRequest = serde_json::from_str(request).map_err(|e| to_js(Error::invalid(format!("llmCheck: not a request ({e})"))))?;
    view(&match crate::llm::validate_reply(&request, reply) {
        Ok(_) => serde_json::json!({ "valid": true }),
        Err(error) => serde_json::json!({ "valid": false, "retry": crate::llm::retry_request(&request, reply, &error), "error": error }),
    })
}

#[wasm_bindgen]
impl EngramCore {
    /// The requests of one run of `job` ("extract" | "author" | "consolidate"): a plan for
    /// `jobApply`, JSON with `calls[].request`. `target`: the session of extract and author (none
    /// for consolidate). `options`: JSON, `{maxLlmCalls?}` for extract and author, `{namespace?,
    /// llmLevel, hasLlm, maxLlmCalls?, bufferCap?}` for consolidate.
    #[wasm_bindgen(js_name = jobPlan)]
    pub fn job_plan(&self, job: &str, target: Option<String>, options: Option<String>) -> std::result::Result<String, JsValue> {
        let job = Job::parse(job).map_err(to_js)?;
        let opts = parse_opt(options, "job options").map_err(to_js)?;
        let request = api::parse_job_request(job, target.as_deref(), opts.as_ref()).map_err(to_js)?;
        let plan = borrow(&self.inner)?.engine().plan_job(&request).map_err(to_js)?;
        view(&plan)
    }

    /// Applies the results of a plan's calls (`[{outcome, attempts, replies, usage?, durationMs,
    /// error?}]`, one per planned call, in order) as one write; resolves to the job's report.
    #[wasm_bindgen(js_name = jobApply)]
    pub fn job_apply(&self, job: String, plan: String, results: String) -> Promise {
        write_promise!(self, |b| async {
            let job = Job::parse(&job)?;
            let plan = JobPlan::from_json(job, &plan)?;
            let results = api::parse_call_results(job, &results)?;
            b.mutate(|e| e.apply_job(&plan, results.clone())).await.and_then(|r| js_view(&r))
        }
        .await)
    }

    /// The report of an extraction without an LLM: nothing extracted, every new turn pending.
    #[wasm_bindgen(js_name = extractWithoutLlm)]
    pub fn extract_without_llm(&self, session_id: &str) -> std::result::Result<String, JsValue> {
        view(&borrow(&self.inner)?.engine().extract_without_llm(session_id).map_err(to_js)?)
    }

    /// The report one epoch would give, changing nothing (the LLM calls it would make are listed).
    #[wasm_bindgen(js_name = consolidateDryRun)]
    pub fn consolidate_dry_run(&self, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "consolidate options").map_err(to_js)?;
        let (opts, has_llm) = api::parse_consolidate(opts.as_ref()).map_err(to_js)?;
        view(&borrow(&self.inner)?.read(|e| e.consolidate_dry_run(&opts, has_llm)).map_err(to_js)?)
    }

    /// Authors a session's turns not yet authored with the offline rules; `turnIds` (JSON array)
    /// limits it to those turns (the fallback of failed LLM calls).
    #[wasm_bindgen(js_name = authorOffline)]
    pub fn author_offline(&self, session_id: String, turn_ids: Option<String>) -> Promise {
        write_promise!(self, |b| async {
            let only: Option<Vec<String>> = match turn_ids {
                Some(j) => Some(serde_json::from_str(&j).map_err(|e| Error::invalid(format!("authorOffline: turnIds must be an array of strings ({e})")))?),
                None => None,
            };
            b.mutate(|e| match &only {
                Some(ids) => e.author_offline_turns(&session_id, ids),
                None => e.author_offline(&session_id),
            })
            .await
            .and_then(|r| js_view(&r))
        }
        .await)
    }

    /// Retracts a thread: its values leave every memory, raw turn, index and history text of the
    /// namespace. `options`: JSON `{namespace?}`.
    #[wasm_bindgen]
    pub fn retract(&self, thread: String, options: Option<String>) -> Promise {
        write_promise!(self, |b| async {
            let opts = parse_opt(options, "retract options")?;
            let namespace = api::parse_namespace_only(opts.as_ref(), "retract options")?;
            b.mutate(|e| e.retract(&thread, namespace.as_deref())).await.and_then(|r| js_view(&r))
        }
        .await)
    }

    /// LLM calls applied since this store was opened, summed.
    #[wasm_bindgen(js_name = llmUsage)]
    pub fn llm_usage(&self) -> std::result::Result<String, JsValue> {
        view(borrow(&self.inner)?.engine().llm_usage())
    }
}
