//! The derived states of a slot and what each answer carries. Built on read, never stored.

use serde::{Serialize, Serializer};

use crate::model::time::{to_iso, Millis};

/// What a slot's value is, derived from its thread's dated trail.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "SlotState"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// The latest value on its thread, not undermined by any upstream change.
    Current,
    /// A later value on the same thread replaced it.
    Superseded,
    /// A later retraction on the thread withdrew it: the value itself is withheld.
    Deleted,
    /// Its upstream changed and a stated consequent applies instead.
    Cascaded,
    /// Its upstream changed and nothing states a replacement: the old value may no longer hold.
    Uncertain,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Current => "current",
            State::Superseded => "superseded",
            State::Deleted => "deleted",
            State::Cascaded => "cascaded",
            State::Uncertain => "uncertain",
        }
    }
}

pub(crate) fn iso<S: Serializer>(ms: &Millis, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&to_iso(*ms))
}

fn iso_opt<S: Serializer>(ms: &Option<Millis>, s: S) -> Result<S::Ok, S::Error> {
    match ms {
        Some(ms) => s.serialize_str(&to_iso(*ms)),
        None => s.serialize_none(),
    }
}

/// The change on an upstream thread that undermined a dependent value.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "SlotChange"))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpstreamChange {
    /// The upstream thread (`dependsOn.thread`).
    pub thread: String,
    /// The upstream value the dependent was stated under, when known and not withdrawn.
    pub was: Option<String>,
    /// The upstream's value now; `None` when it is itself uncertain.
    pub now: Option<String>,
    /// The upstream's own state (a two-hop cascade reads `cascaded` or `uncertain` here).
    pub upstream_state: State,
    #[serde(serialize_with = "iso")]
    #[cfg_attr(test, ts(type = "string"))]
    pub changed_at: Millis,
    /// The memory that stated the change.
    pub evidence: String,
}

/// What replaced a superseded value.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "SlotReplacement"))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Replacement {
    pub id: String,
    pub value: String,
    #[serde(serialize_with = "iso")]
    #[cfg_attr(test, ts(type = "string"))]
    pub at: Millis,
}

/// One value on a slot and its derived state. `value` is `None` exactly when the state is
/// `deleted` (withheld) or `uncertain` (no value can be vouched for; `previous` names the old one).
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "SlotAnswer"))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// The slot's thread; `None` for a memory on no thread (its own slot).
    pub thread: Option<String>,
    pub state: State,
    pub value: Option<String>,
    /// Cascaded / uncertain: the value that held before the upstream changed.
    pub previous: Option<String>,
    /// When the value was stated (current, superseded, cascaded, uncertain) or withdrawn (deleted).
    #[serde(serialize_with = "iso_opt")]
    #[cfg_attr(test, ts(type = "string | null"))]
    pub since: Option<Millis>,
    pub replaced_by: Option<Replacement>,
    pub because: Option<UpstreamChange>,
    /// Cascaded: the stated consequent that applies. Current: the consequent that would apply if
    /// the upstream changed.
    pub consequent: Option<String>,
    /// Ids of the memories (and raw turns) this answer rests on.
    pub evidence: Vec<String>,
    /// The source memory's text (withheld for deleted values).
    pub content: Option<String>,
}
