//! Options and views of the evolving-memory reads: `recall`, `thread`, `gather`.

use serde_json::Value;

use super::{context_view, namespaces, Fields};
use crate::engine::NamespaceChoice;
use crate::error::Result;
use crate::evolve::Recall;
use crate::model::time::Millis;

pub const RECALL_FIELDS: &[&str] = &["namespace", "includeDefault", "maxTokens", "at"];
pub const AS_OF_FIELDS: &[&str] = &["namespace", "includeDefault", "at"];

/// `{namespace?, includeDefault?, maxTokens?, at?}` for `recall`; `maxTokens` defaults to 1000, `at`
/// (ISO string or milliseconds) to now.
pub fn parse_recall(v: Option<&Value>) -> Result<(NamespaceChoice, usize, Option<Millis>)> {
    match Fields::of(v, "recall options", RECALL_FIELDS)? {
        None => Ok((NamespaceChoice::default(), 1000, None)),
        Some(f) => Ok((namespaces(&f)?, f.usize("maxTokens")?.unwrap_or(1000), f.date("at")?)),
    }
}

/// `{namespace?, includeDefault?, at?}` for `thread` and `gather`.
pub fn parse_as_of(v: Option<&Value>, what: &'static str) -> Result<(NamespaceChoice, Option<Millis>)> {
    match Fields::of(v, what, AS_OF_FIELDS)? {
        None => Ok((NamespaceChoice::default(), None)),
        Some(f) => Ok((namespaces(&f)?, f.date("at")?)),
    }
}

/// `{route, answers, context}`; the context as `recallContext` shows it.
pub fn recall_view(r: &Recall) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    v["context"] = context_view(&r.context);
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_are_strict() {
        assert_eq!(parse_recall(None).unwrap(), (NamespaceChoice::default(), 1000, None));
        let w = NamespaceChoice { namespace: Some("w".into()), include_default: Some(false) };
        assert_eq!(parse_recall(Some(&json!({"namespace": "w", "includeDefault": false, "maxTokens": 600, "at": 5}))).unwrap(), (w, 600, Some(5)));
        assert!(parse_recall(Some(&json!({"includeDefault": "no"}))).is_err());
        assert!(parse_recall(Some(&json!({"max_tokens": 5}))).is_err());
        assert!(parse_recall(Some(&json!({"at": "yesterday"}))).is_err());
        assert_eq!(parse_as_of(Some(&json!({"at": "1970-01-01T00:00:00.010Z"})), "thread options").unwrap(), (NamespaceChoice::default(), Some(10)));
        assert!(parse_as_of(Some(&json!({"maxTokens": 5})), "thread options").is_err());
    }
}
