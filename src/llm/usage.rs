//! The log of LLM calls: each call's purpose, promptId, duration, tokens and outcome, and their sums
//! (`llmUsage()`). Tokens are the provider's counts when it reported them, otherwise the estimate of
//! `recall::context::estimate_tokens` over the text sent and received (marked `estimated`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::request::{LlmRequest, Purpose, ReportedUsage};
use crate::recall::context::estimate_tokens;

/// How a call ended.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "LlmOutcome"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Valid on the first reply.
    Ok,
    /// Valid on the retry.
    Retried,
    /// Invalid twice: the step was skipped.
    Invalid,
    /// The host's function threw or rejected.
    Error,
    Timeout,
    Aborted,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Retried => "retried",
            Outcome::Invalid => "invalid",
            Outcome::Error => "error",
            Outcome::Timeout => "timeout",
            Outcome::Aborted => "aborted",
        }
    }

    /// Whether the call produced a reply that may be applied.
    pub fn is_valid(self) -> bool {
        matches!(self, Outcome::Ok | Outcome::Retried)
    }
}

/// One call (its retry included) as logged.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "LlmCallRecord"))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRecord {
    pub purpose: Purpose,
    pub prompt_id: String,
    pub outcome: Outcome,
    /// Requests sent: 1, or 2 with the retry.
    pub attempts: u32,
    pub duration_ms: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Whether any of the token counts is an estimate.
    pub estimated: bool,
}

impl CallRecord {
    /// A call's record from the requests sent and the replies received (in order); `reported` is
    /// the provider's counts summed over the attempts, when every attempt reported them.
    pub fn new(requests: &[&LlmRequest], replies: &[&str], reported: Option<ReportedUsage>, outcome: Outcome, duration_ms: u64) -> CallRecord {
        let first = requests.first();
        let (input, input_estimated) = match reported.and_then(|u| u.input_tokens) {
            Some(n) => (n, false),
            None => (requests.iter().map(|r| estimate_request(r)).sum(), true),
        };
        let (output, output_estimated) = match reported.and_then(|u| u.output_tokens) {
            Some(n) => (n, false),
            None => (replies.iter().map(|t| estimate_tokens(t) as u64).sum(), true),
        };
        CallRecord {
            purpose: first.map_or(Purpose::Extract, |r| r.purpose),
            prompt_id: first.map(|r| r.prompt_id.clone()).unwrap_or_default(),
            outcome,
            attempts: requests.len() as u32,
            duration_ms,
            input_tokens: input,
            output_tokens: output,
            estimated: input_estimated || output_estimated,
        }
    }
}

/// Estimated input tokens of a request: its instructions, messages and schema.
pub fn estimate_request(r: &LlmRequest) -> u64 {
    let messages: usize = r.messages.iter().map(|m| estimate_tokens(&m.content)).sum();
    (estimate_tokens(&r.system) + messages + estimate_tokens(&r.schema.to_string())) as u64
}

/// Calls summed (since the store was opened).
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LlmUsage {
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub duration_ms: u64,
    /// Calls whose token counts include an estimate.
    pub estimated_calls: u64,
    /// Calls by outcome (`ok`, `retried`, `invalid`, `error`, `timeout`, `aborted`).
    #[cfg_attr(test, ts(type = "Partial<Record<LlmOutcome, number>>"))]
    pub by_outcome: BTreeMap<String, u64>,
    /// Calls by purpose.
    #[cfg_attr(test, ts(type = "Partial<Record<LlmPurpose, number>>"))]
    pub by_purpose: BTreeMap<String, u64>,
}

impl LlmUsage {
    pub fn record(&mut self, c: &CallRecord) {
        self.calls += 1;
        self.input_tokens += c.input_tokens;
        self.output_tokens += c.output_tokens;
        self.duration_ms += c.duration_ms;
        self.estimated_calls += u64::from(c.estimated);
        *self.by_outcome.entry(c.outcome.as_str().to_string()).or_default() += 1;
        *self.by_purpose.entry(c.purpose.as_str().to_string()).or_default() += 1;
    }

    pub fn of(records: &[CallRecord]) -> LlmUsage {
        let mut u = LlmUsage::default();
        for r in records {
            u.record(r);
        }
        u
    }
}
