//! One call as run by a native driver: attempt, validate, retry once with the error appended,
//! classify. The JS facade runs the same protocol around the host's async function (asking the core
//! to validate), and both hand the core a [`CallResult`] to apply.

use serde::{Deserialize, Serialize};

use super::reply::{retry_request, validate_reply};
use super::request::{LlmFailure, LlmRequest, ReportedUsage};
use super::usage::{CallRecord, Outcome};
use crate::host::{Clock, Llm};

/// What running one planned request produced. Apply validates the last reply again, so a result
/// claiming `ok` around an invalid reply is treated as `invalid`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallResult {
    pub outcome: Outcome,
    /// Requests sent: 0 (never run), 1, or 2 with the retry.
    pub attempts: u32,
    /// The reply of each attempt, in order (none when the first attempt failed).
    #[serde(default)]
    pub replies: Vec<String>,
    /// The provider's counts summed over the attempts, when it reported them.
    #[serde(default)]
    pub usage: Option<ReportedUsage>,
    #[serde(default)]
    pub duration_ms: u64,
    /// Why the call failed (the host's error, or the validation error of the last reply).
    #[serde(default)]
    pub error: Option<String>,
}

impl CallResult {
    /// A call that was never made (the run was aborted before it, or over its call budget).
    pub fn not_run(outcome: Outcome, why: &str) -> CallResult {
        CallResult { outcome, attempts: 0, replies: Vec::new(), usage: None, duration_ms: 0, error: Some(why.to_string()) }
    }

    /// The call judged again by the core, as every apply step does before anything reaches the store
    /// (what is applied never depends on the caller's verdict): the last reply validated against
    /// `request` and read by `parse`. Returns the call's record — `invalid` when a reply claimed valid
    /// is not — and the parsed reply, or why there is none.
    pub fn checked<T>(&self, request: &LlmRequest, parse: impl FnOnce(&serde_json::Value) -> Result<T, String>) -> (CallRecord, Result<T, String>) {
        let mut record = self.record(request);
        let checked = match (self.outcome.is_valid(), self.replies.last()) {
            (true, Some(text)) => super::reply::validate_reply(request, text).and_then(|v| parse(&v)),
            (true, None) => Err("no reply".to_string()),
            (false, _) => Err(self.error.clone().unwrap_or_else(|| self.outcome.as_str().to_string())),
        };
        if checked.is_err() && self.outcome.is_valid() {
            record.outcome = Outcome::Invalid;
        }
        (record, checked)
    }

    /// The logged record of this call for `request` (the retry request is rebuilt to estimate it).
    pub fn record(&self, request: &LlmRequest) -> CallRecord {
        let retry = (self.attempts > 1).then(|| retry_request(request, self.replies.first().map_or("", String::as_str), self.error.as_deref().unwrap_or("")));
        let requests: Vec<&LlmRequest> = std::iter::once(request).chain(retry.as_ref()).take(self.attempts.min(2) as usize).collect();
        let replies: Vec<&str> = self.replies.iter().map(String::as_str).collect();
        let mut record = CallRecord::new(&requests, &replies, self.usage, self.outcome, self.duration_ms);
        record.purpose = request.purpose;
        record.prompt_id = request.prompt_id.clone();
        record
    }
}

fn add_usage(total: &mut Option<ReportedUsage>, more: Option<ReportedUsage>, first: bool) {
    // Counts are kept only when every attempt reported them; otherwise the record estimates.
    *total = match (first, *total, more) {
        (true, _, m) => m,
        (false, Some(a), Some(b)) => {
            Some(ReportedUsage { input_tokens: a.input_tokens.zip(b.input_tokens).map(|(x, y)| x + y), output_tokens: a.output_tokens.zip(b.output_tokens).map(|(x, y)| x + y) })
        }
        _ => None,
    };
}

/// Runs `request` through `llm` with one retry on an invalid reply.
pub fn run_call(llm: &dyn Llm, request: &LlmRequest, clock: &dyn Clock) -> CallResult {
    let start = clock.now_ms();
    let mut result = CallResult { outcome: Outcome::Invalid, attempts: 0, replies: Vec::new(), usage: None, duration_ms: 0, error: None };
    let mut current = request.clone();
    for attempt in 0..2 {
        result.attempts += 1;
        match llm.complete(&current) {
            Ok(reply) => {
                add_usage(&mut result.usage, reply.usage, attempt == 0);
                let verdict = validate_reply(request, &reply.text);
                result.replies.push(reply.text);
                match verdict {
                    Ok(_) => {
                        result.outcome = if attempt == 0 { Outcome::Ok } else { Outcome::Retried };
                        result.error = None;
                        break;
                    }
                    Err(e) => {
                        current = retry_request(request, result.replies.last().map_or("", String::as_str), &e);
                        result.error = Some(e);
                    }
                }
            }
            Err(failure) => {
                let (outcome, message) = match failure {
                    LlmFailure::Error(m) => (Outcome::Error, m),
                    LlmFailure::Timeout => (Outcome::Timeout, "the call timed out".to_string()),
                    LlmFailure::Aborted => (Outcome::Aborted, "the call was aborted".to_string()),
                };
                result.outcome = outcome;
                result.error = Some(crate::model::time::truncate(&message, 500));
                break;
            }
        }
    }
    result.duration_ms = clock.now_ms().saturating_sub(start).max(0) as u64;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{ManualClock, ScriptedLlm};
    use crate::llm::extract::{request, OfferedTurn};

    use crate::llm::LlmReply;

    fn run(script: Vec<Result<LlmReply, LlmFailure>>) -> (CallResult, Vec<LlmRequest>) {
        let llm = ScriptedLlm::replies(script);
        let r = request(None, &[OfferedTurn { id: "s#0", role: "user", speaker: None, date: None, text: "I like tea" }]);
        let out = run_call(&llm, &r, &ManualClock::new(0));
        (out, llm.seen.into_inner())
    }

    const GOOD: &str = r#"{"memories":[]}"#;

    #[test]
    fn one_retry_with_the_error_appended_then_valid_or_invalid() {
        let (ok, seen) = run(vec![Ok(GOOD.into())]);
        assert_eq!((ok.outcome, ok.attempts, seen.len()), (Outcome::Ok, 1, 1));
        let (retried, seen) = run(vec![Ok("{oops".into()), Ok(GOOD.into())]);
        assert_eq!((retried.outcome, retried.attempts), (Outcome::Retried, 2));
        assert_eq!(seen[1].messages.len(), 3);
        assert_eq!(seen[1].messages[1].content, "{oops");
        assert!(seen[1].messages[2].content.contains("not valid JSON"));
        let (invalid, seen) = run(vec![Ok(r#"{"memories":[],"x":1}"#.into()), Ok("[]".into())]);
        assert_eq!((invalid.outcome, invalid.attempts, seen.len()), (Outcome::Invalid, 2, 2));
        assert!(invalid.error.as_deref().is_some_and(|e| e.contains("expected object")));
    }

    #[test]
    fn failures_are_classified_and_not_retried() {
        for (failure, outcome) in [(LlmFailure::Error("boom".into()), Outcome::Error), (LlmFailure::Timeout, Outcome::Timeout), (LlmFailure::Aborted, Outcome::Aborted)] {
            let (r, seen) = run(vec![Err(failure)]);
            assert_eq!((r.outcome, seen.len()), (outcome, 1));
        }
    }

    #[test]
    fn usage_is_reported_or_estimated() {
        let reported = LlmReply { text: GOOD.into(), usage: Some(ReportedUsage { input_tokens: Some(120), output_tokens: Some(7) }) };
        let (r, seen) = run(vec![Ok(reported)]);
        let rec = r.record(&seen[0]);
        assert_eq!((rec.input_tokens, rec.output_tokens, rec.estimated, rec.prompt_id.as_str()), (120, 7, false, "extract@1"));
        let (r, seen) = run(vec![Ok("{oops".into()), Ok(GOOD.into())]);
        let rec = r.record(&seen[0]);
        assert!(rec.estimated && rec.attempts == 2);
        assert!(rec.input_tokens > 2 * crate::llm::usage::estimate_request(&seen[0]) - 1, "both attempts counted");
    }
}
