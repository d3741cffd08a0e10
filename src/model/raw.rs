//! Raw entries: conversation turns kept verbatim, so every authored memory can point back to the
//! words it came from, and recall can reach what no memory captured yet.

use serde::{Deserialize, Serialize};

use super::time::Millis;

/// One turn of an ingested session.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawEntry {
    /// `<session id>#<turn index>`: stable, so re-ingesting a session addresses the same entries.
    pub id: String,
    pub namespace: String,
    pub session_id: String,
    pub turn_index: u32,
    /// `user`, `assistant`, `system`, `tool`, or a host-defined role.
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    /// The caller's own id for this turn, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    pub content: String,
    /// When the session happened, if the caller said; recency counts from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<Millis>,
    pub created_at: Millis,
    /// The promptId of the extraction that read this turn (absent: not extracted yet). A changed
    /// turn is a new entry, so it is extracted again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extracted_by: Option<String>,
    /// The author that read this turn (`author-rules@1` for the offline rules, `author@3` for the
    /// LLM prompt); absent: not authored yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authored_by: Option<String>,
    /// What the guards found in the content (see `Memory::flags`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// Kept out of context blocks and extraction until released.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quarantined: bool,
}

impl RawEntry {
    pub fn make_id(session_id: &str, turn_index: u32) -> String {
        format!("{session_id}#{turn_index}")
    }

    /// The text the indexes see: who spoke, then what was said.
    pub fn indexed_text(&self) -> String {
        speaker_text(self.speaker.as_deref(), &self.content)
    }

    pub fn event_time(&self) -> Millis {
        self.date.unwrap_or(self.created_at)
    }
}

/// `speaker: content`, or the content alone: who said something is part of what it is about.
pub fn speaker_text(speaker: Option<&str>, content: &str) -> String {
    match speaker {
        Some(s) => format!("{s}: {content}"),
        None => content.to_string(),
    }
}
