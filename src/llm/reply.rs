//! Turning a reply's text into a checked value, and the one retry an invalid reply gets.

use serde_json::Value;

use super::request::{LlmMessage, LlmRequest, Role};
use super::{consolidate, extract, schema};

/// Replies longer than this are invalid before parsing: no prompt asks for anything near it.
pub const REPLY_MAX_BYTES: usize = 256 * 1024;

/// How much of an invalid reply is echoed back in the retry (the rest would only cost tokens).
const ECHO_MAX_CHARS: usize = 2000;

/// The JSON inside a reply: the whole text, or the body of one Markdown code fence around it (what
/// models asked for JSON without structured output often send).
fn json_text(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else { return t };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    rest.strip_suffix("```").map_or(t, str::trim)
}

/// Parses `text` and checks it against the request's schema and against the request itself (its
/// purpose's own rules: e.g. every id must be one the request offered). The error says what to fix.
pub fn validate_reply(request: &LlmRequest, text: &str) -> Result<Value, String> {
    if text.len() > REPLY_MAX_BYTES {
        return Err(format!("the reply is {} bytes; the limit is {REPLY_MAX_BYTES}", text.len()));
    }
    let value: Value = serde_json::from_str(json_text(text)).map_err(|e| format!("the reply is not valid JSON ({e})"))?;
    schema::validate(&value, &request.schema)?;
    if request.prompt_id == extract::PROMPT_ID {
        extract::check(&value)?;
    }
    if consolidate::is_consolidation(&request.prompt_id) {
        consolidate::check(&request.prompt_id, &value)?;
    }
    if request.prompt_id == super::author::PROMPT_ID {
        super::author::check(&value)?;
    }
    Ok(value)
}

/// The request again, with the invalid reply and the validation error appended to the conversation.
pub fn retry_request(request: &LlmRequest, invalid_text: &str, error: &str) -> LlmRequest {
    let mut retry = request.clone();
    let echoed = crate::model::time::truncate(invalid_text, ECHO_MAX_CHARS);
    retry.messages.push(LlmMessage { role: Role::Assistant, content: echoed });
    retry
        .messages
        .push(LlmMessage { role: Role::User, content: format!("That reply was rejected: {error}\nReply again with only a JSON value that satisfies the schema; no other text.") });
    retry
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::request::Purpose;
    use serde_json::json;

    fn request() -> LlmRequest {
        LlmRequest {
            purpose: Purpose::Topic,
            prompt_id: "test@1".into(),
            system: "s".into(),
            messages: vec![LlmMessage { role: Role::User, content: "u".into() }],
            schema: json!({ "type": "object", "additionalProperties": false, "required": ["a"], "properties": { "a": { "type": "string" } } }),
            max_output_tokens: 100,
            temperature: 0.0,
        }
    }

    #[test]
    fn parses_plain_and_fenced_json() {
        assert_eq!(validate_reply(&request(), " {\"a\":\"x\"} "), Ok(json!({ "a": "x" })));
        assert_eq!(validate_reply(&request(), "```json\n{\"a\":\"x\"}\n```"), Ok(json!({ "a": "x" })));
    }

    #[test]
    fn rejects_malformed_oversized_and_off_schema_replies() {
        assert!(validate_reply(&request(), "{\"a\":").unwrap_err().contains("not valid JSON"));
        assert!(validate_reply(&request(), "Sure! Here it is: {\"a\":\"x\"}").is_err());
        assert!(validate_reply(&request(), &"[".repeat(10_000)).is_err(), "deep nesting is an error, not a stack overflow");
        assert!(validate_reply(&request(), &format!("{{\"a\":\"{}\"}}", "x".repeat(REPLY_MAX_BYTES))).unwrap_err().contains("limit"));
        assert!(validate_reply(&request(), "{\"a\":\"x\",\"b\":1}").unwrap_err().contains("unknown field"));
    }

    #[test]
    fn retry_appends_the_reply_and_the_error() {
        let r = retry_request(&request(), &"y".repeat(10_000), "bad");
        assert_eq!(r.messages.len(), 3);
        assert_eq!(r.messages[1].role, Role::Assistant);
        assert!(r.messages[1].content.chars().count() <= ECHO_MAX_CHARS + 1);
        assert!(r.messages[2].content.contains("bad"));
        assert_eq!((r.schema, r.prompt_id), (request().schema, request().prompt_id));
    }
}
