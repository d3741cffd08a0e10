//! The per-store guard policies (`Engram.open({guards: {secrets, injection}})`).

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
