//! The host LLM contract, on the core's side. Every language-model call is a [`LlmRequest`] the core
//! plans and a reply it validates; the host runs the call (JS: the function given to `Engram.open`;
//! natively: a [`crate::host::Llm`]). An LLM-using operation is plan → calls → apply:
//!
//! - `request`: what a call asks for and what comes back (purpose, versioned promptId, schema).
//! - `schema`: the strict JSON-Schema subset a reply is checked against.
//! - `reply`: parsing and validating a reply, and the one retry with the error appended.
//! - `call`: the native driver of one call (attempt, validate, retry once, classify the outcome).
//! - `usage`: the log of calls and their summed tokens (reported or estimated).
//! - `prompt`: stored text inside prompts, escaped and delimited as data.
//! - `extract`: the `extract@1` prompt, its schema and the typed memories of its reply.
//! - `consolidate`: the lifecycle's prompts (`triage@1`, `gate@1`, `merge@1`, `reconcile@1`, `distill@1`).
//! - `author`: the `author@3` prompt: typed evolving memories (shape, thread, value, dependsOn, …).

pub(crate) mod author;
mod call;
pub(crate) mod consolidate;
pub(crate) mod extract;
mod prompt;
mod reply;
mod request;
mod schema;
pub(crate) mod usage;

pub use call::{run_call, CallResult};
pub use reply::{retry_request, validate_reply, REPLY_MAX_BYTES};
pub use request::{LlmFailure, LlmMessage, LlmReply, LlmRequest, Purpose, ReportedUsage, Role};
#[cfg(test)]
pub(crate) use schema::check_schema_supported;
pub use usage::{CallRecord, LlmUsage, Outcome};
