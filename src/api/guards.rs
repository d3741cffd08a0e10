//! The guard-related parts of the JSON API: context-block options with `redact`.

use serde_json::Value;

use super::Fields;
use crate::engine::NamespaceChoice;
use crate::error::Result;
use crate::recall::context::ContextOptions;

pub const CONTEXT_FIELDS: &[&str] = &["namespace", "includeDefault", "maxTokens", "redact"];

/// `{maxTokens?, namespace?, redact?}` for `recallContext` and `resume`; `maxTokens` defaults to 1000,
/// `redact` (withhold the text of flagged entries) to false.
pub fn parse_context_options(v: Option<&Value>, what: &'static str) -> Result<(NamespaceChoice, usize, ContextOptions)> {
    match Fields::of(v, what, CONTEXT_FIELDS)? {
        None => Ok((NamespaceChoice::default(), 1000, ContextOptions::default())),
        Some(f) => Ok((super::namespaces(&f)?, f.usize("maxTokens")?.unwrap_or(1000), ContextOptions { redact: f.bool("redact")?.unwrap_or(false) })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn context_options_are_strict() {
        let (ns, max, o) = parse_context_options(Some(&json!({"namespace": "w", "maxTokens": 50, "redact": true})), "recallContext options").unwrap();
        assert_eq!((ns.namespace.as_deref(), ns.include_default, max, o.redact), (Some("w"), None, 50, true));
        assert!(parse_context_options(Some(&json!({"redact": "yes"})), "recallContext options").is_err());
        assert!(parse_context_options(Some(&json!({"redacted": true})), "recallContext options").is_err());
        assert_eq!(parse_context_options(None, "resume options").unwrap().2, ContextOptions::default());
    }
}
