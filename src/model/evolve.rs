//! The typed fields of evolving facts. A memory may say what shape of fact it holds, which slot
//! (thread) its value lives on, and what it depends on; what is *current* is never stored: it is
//! derived on read from the thread's dated values (see `crate::evolve`).

use serde::{Deserialize, Serialize};

/// What shape of fact a memory holds.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "MemoryShape"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// True once stated and not expected to change (a birthday, a name).
    StableFact,
    /// A slot whose value changes over time (current employer, package manager).
    EvolvingAttribute,
    /// A value that holds because of another thread's value (`dependsOn`).
    ContingentValue,
    /// A value with a stated alternative (`consequent`) if its upstream changes.
    ConditionalValue,
    /// A request to forget a thread's value: everything earlier on the thread is withdrawn.
    Retraction,
    /// Something that happened at a time.
    Event,
}

impl Shape {
    pub const ALL: [Shape; 6] = [Shape::StableFact, Shape::EvolvingAttribute, Shape::ContingentValue, Shape::ConditionalValue, Shape::Retraction, Shape::Event];
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::StableFact => "stable_fact",
            Shape::EvolvingAttribute => "evolving_attribute",
            Shape::ContingentValue => "contingent_value",
            Shape::ConditionalValue => "conditional_value",
            Shape::Retraction => "retraction",
            Shape::Event => "event",
        }
    }
    pub fn parse(s: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// How a memory is held: `pinned` never decays and is lifted to core by consolidation; `deprecated`
/// is kept for history but ranks last.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "MemoryPin"))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pin {
    Pinned,
    #[default]
    Active,
    Deprecated,
}

impl Pin {
    pub const ALL: [Pin; 3] = [Pin::Pinned, Pin::Active, Pin::Deprecated];
    pub fn as_str(self) -> &'static str {
        match self {
            Pin::Pinned => "pinned",
            Pin::Active => "active",
            Pin::Deprecated => "deprecated",
        }
    }
    pub fn parse(s: &str) -> Option<Pin> {
        Pin::ALL.into_iter().find(|k| k.as_str() == s)
    }
    pub fn is_active(&self) -> bool {
        *self == Pin::Active
    }
}

/// The thread a value was set by, and the upstream value it was stated under.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DependsOn {
    pub thread: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}
