//! SHIM on branch `evolve-read` only, so the evolving harness compiles: the offline author (rules
//! over a session's user turns → typed memories) is built on branch `evolve-author`, whose version
//! of this file replaces this one on merge. This one authors nothing.

use serde::Serialize;

use super::Engram;
use crate::error::Result;

/// What authoring a session did.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorReport {
    pub added: Vec<String>,
}

impl Engram {
    /// Authors typed memories from a stored session's new turns (offline rules, no LLM).
    pub fn author_offline(&mut self, session_id: &str) -> Result<AuthorReport> {
        self.session(session_id)?;
        Ok(AuthorReport::default())
    }
}
