//! The request and reply of one LLM call, in the contract's shape (camelCase on the wire).

use serde::{Deserialize, Serialize};

/// Which feature a call serves; closed, so usage can be summed per purpose.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "LlmPurpose"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Purpose {
    Extract,
    Author,
    Triage,
    Gate,
    Merge,
    Reconcile,
    Distill,
    Expand,
    Topic,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Extract => "extract",
            Purpose::Author => "author",
            Purpose::Triage => "triage",
            Purpose::Gate => "gate",
            Purpose::Merge => "merge",
            Purpose::Reconcile => "reconcile",
            Purpose::Distill => "distill",
            Purpose::Expand => "expand",
            Purpose::Topic => "topic",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmMessage {
    pub role: Role,
    pub content: String,
}

/// One call as the host receives it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LlmRequest {
    pub purpose: Purpose,
    /// Versioned (`extract@1`); changes whenever the prompt text or schema changes.
    pub prompt_id: String,
    pub system: String,
    pub messages: Vec<LlmMessage>,
    /// JSON Schema (the subset `schema` checks) the reply must satisfy.
    pub schema: serde_json::Value,
    pub max_output_tokens: u32,
    pub temperature: f32,
}

/// Token counts as the provider reported them, when it did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportedUsage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
}

/// What the host's LLM answered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LlmReply {
    pub text: String,
    pub usage: Option<ReportedUsage>,
}

impl From<&str> for LlmReply {
    fn from(text: &str) -> Self {
        LlmReply { text: text.to_string(), usage: None }
    }
}

/// Why a call produced no reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LlmFailure {
    /// The host's function threw or its promise rejected.
    Error(String),
    /// The call ran past its time limit.
    Timeout,
    /// The caller's signal aborted the operation.
    Aborted,
}
