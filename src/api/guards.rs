//! The guard-related parts of the JSON API: the store's guard policies, and context-block options
//! with `redact`. (The JSON reading lives here so that `guard` depends on nothing above it.)

use serde_json::Value;

use super::Fields;
use crate::engine::NamespaceChoice;
use crate::error::{Error, Result};
use crate::guard::{GuardOptions, InjectionPolicy, SecretPolicy};
use crate::recall::context::ContextOptions;

pub const GUARD_FIELDS: &[&str] = &["secrets", "injection"];

/// `{secrets?: "redact" | "reject" | "flag" | "off", injection?: "flag" | "quarantine" | "off"}`;
/// absent or null: the defaults (redact, flag).
pub fn parse_guard_options(v: Option<&Value>) -> Result<GuardOptions> {
    let Some(f) = Fields::of(v, "open options: guards", GUARD_FIELDS)? else { return Ok(GuardOptions::default()) };
    let mut out = GuardOptions::default();
    if let Some(s) = f.str("secrets")? {
        out.secrets = SecretPolicy::parse(s)
            .ok_or_else(|| Error::invalid(format!("open options: guards.secrets must be redact, reject, flag or off; got `{}`", crate::model::time::truncate(s, 40))))?;
    }
    if let Some(s) = f.str("injection")? {
        out.injection = InjectionPolicy::parse(s)
            .ok_or_else(|| Error::invalid(format!("open options: guards.injection must be flag, quarantine or off; got `{}`", crate::model::time::truncate(s, 40))))?;
    }
    Ok(out)
}

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
    fn guard_policies_parse_strictly() {
        assert_eq!(parse_guard_options(None).unwrap(), GuardOptions::default());
        let g = parse_guard_options(Some(&json!({"secrets": "reject", "injection": "quarantine"}))).unwrap();
        assert_eq!((g.secrets, g.injection), (SecretPolicy::Reject, InjectionPolicy::Quarantine));
        for bad in [json!({"secrets": "drop"}), json!({"injection": "redact"}), json!({"secret": "off"}), json!("off"), json!({"secrets": 1})] {
            assert_eq!(parse_guard_options(Some(&bad)).unwrap_err().code, crate::ErrorCode::InvalidInput, "{bad}");
        }
    }

    #[test]
    fn context_options_are_strict() {
        let (ns, max, o) = parse_context_options(Some(&json!({"namespace": "w", "maxTokens": 50, "redact": true})), "recallContext options").unwrap();
        assert_eq!((ns.namespace.as_deref(), ns.include_default, max, o.redact), (Some("w"), None, 50, true));
        assert!(parse_context_options(Some(&json!({"redact": "yes"})), "recallContext options").is_err());
        assert!(parse_context_options(Some(&json!({"redacted": true})), "recallContext options").is_err());
        assert_eq!(parse_context_options(None, "resume options").unwrap().2, ContextOptions::default());
    }
}
