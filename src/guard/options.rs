//! The per-store guard policies (`Engram.open({guards: {secrets, injection}})`).

use serde_json::Value;

use crate::api::Fields;
use crate::error::{Error, Result};

/// What happens to a secret found in text being written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SecretPolicy {
    /// Replaced by `[secret:<kind>]` before anything is stored, indexed or embedded.
    #[default]
    Redact,
    /// The write fails with `InvalidInput`; nothing changes.
    Reject,
    /// Kept, and named in the record's `flags` (`secret:<kind>`).
    Flag,
    Off,
}

/// What happens to text that tries to act as instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InjectionPolicy {
    /// Kept and recalled, with `injection:<kind>` in the record's `flags`.
    #[default]
    Flag,
    /// Flagged, and kept out of context blocks until released.
    Quarantine,
    Off,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GuardOptions {
    pub secrets: SecretPolicy,
    pub injection: InjectionPolicy,
}

impl SecretPolicy {
    pub fn parse(s: &str) -> Option<SecretPolicy> {
        Some(match s {
            "redact" => SecretPolicy::Redact,
            "reject" => SecretPolicy::Reject,
            "flag" => SecretPolicy::Flag,
            "off" => SecretPolicy::Off,
            _ => return None,
        })
    }
}

impl InjectionPolicy {
    pub fn parse(s: &str) -> Option<InjectionPolicy> {
        Some(match s {
            "flag" => InjectionPolicy::Flag,
            "quarantine" => InjectionPolicy::Quarantine,
            "off" => InjectionPolicy::Off,
            _ => return None,
        })
    }
}

pub const GUARD_FIELDS: &[&str] = &["secrets", "injection"];

impl GuardOptions {
    /// `{secrets?: "redact" | "reject" | "flag" | "off", injection?: "flag" | "quarantine" | "off"}`;
    /// absent or null: the defaults (redact, flag).
    pub fn from_json(v: Option<&Value>) -> Result<GuardOptions> {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_policies_strictly() {
        assert_eq!(GuardOptions::from_json(None).unwrap(), GuardOptions::default());
        let g = GuardOptions::from_json(Some(&json!({"secrets": "reject", "injection": "quarantine"}))).unwrap();
        assert_eq!((g.secrets, g.injection), (SecretPolicy::Reject, InjectionPolicy::Quarantine));
        for bad in [json!({"secrets": "drop"}), json!({"injection": "redact"}), json!({"secret": "off"}), json!("off"), json!({"secrets": 1})] {
            assert_eq!(GuardOptions::from_json(Some(&bad)).unwrap_err().code, crate::ErrorCode::InvalidInput, "{bad}");
        }
    }
}
