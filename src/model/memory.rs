//! The memory record and its small enums.

use serde::{Deserialize, Serialize};

use super::evolve::{DependsOn, Pin, Shape};
use super::time::Millis;

/// What sort of knowledge a memory holds. Decides decay speed and ranking bias.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "MemoryKind"))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Facts, preferences, lessons: the default.
    #[default]
    Semantic,
    /// Time-bound events and experiences.
    Episodic,
    /// Workflows, instructions, how-to.
    Procedural,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Semantic, Kind::Episodic, Kind::Procedural];
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Semantic => "semantic",
            Kind::Episodic => "episodic",
            Kind::Procedural => "procedural",
        }
    }
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Where a memory sits in its lifecycle. Every API write lands in `Buffer`; only consolidation moves
/// memories up, so a caller cannot write straight into long-term memory.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "MemoryLayer"))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    #[default]
    Buffer,
    Working,
    Core,
}

impl Layer {
    pub const ALL: [Layer; 3] = [Layer::Buffer, Layer::Working, Layer::Core];
    pub fn as_str(self) -> &'static str {
        match self {
            Layer::Buffer => "buffer",
            Layer::Working => "working",
            Layer::Core => "core",
        }
    }
    pub fn parse(s: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

/// One memory. Persisted with serde; every field added later is `#[serde(default)]` so older records
/// keep loading (the typed evolving-memory fields — shape, thread, dependsOn, … — arrive that way).
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "MemoryItem"))]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Memory {
    pub id: String,
    pub namespace: String,
    pub content: String,
    #[serde(default)]
    pub kind: Kind,
    #[serde(default)]
    pub layer: Layer,
    pub importance: f64,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default)]
    #[cfg_attr(test, ts(type = "JsonObject"))]
    pub metadata: serde_json::Map<String, serde_json::Value>,
    pub created_at: Millis,
    pub modified_at: Millis,
    pub last_accessed: Millis,
    #[serde(default)]
    pub access_count: u32,
    #[serde(default)]
    pub repetition_count: u32,
    /// When the remembered thing happened, if known (drives recency); otherwise `created_at`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_at: Option<Millis>,
    /// Raw entries (verbatim conversation turns) this memory was authored from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derived_from: Vec<String>,
    /// Ids of the memories this one was closest to when it was written (cosine ≥ 0.5, at most 3):
    /// found by a bounded search on add (its namespace or the default one), refined by the first
    /// consolidation epoch that scans it (from its namespace's memories written before it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<String>,
    // Evolving-fact fields (all optional; see `model::evolve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    /// The slot an evolving value lives on, e.g. `team/package-manager` (normalized label).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// The slot's value as stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The value on the same thread this one corrects: stated by mistake, never held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrects: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<DependsOn>,
    /// The value this one becomes if its upstream changes (conditional values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consequent: Option<String>,
    /// 1–3 normalized labels for gathering everything of an area.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub area: Vec<String>,
    /// A verbatim phrase indexed for exact recall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(default, skip_serializing_if = "Pin::is_active")]
    pub pin: Pin,
    /// How sure the author (LLM or offline rules) was, 0–1; `None` for memories written by the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// Memory ids this one summarizes or absorbed (distillation); their "distilled" state is derived.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cites: Vec<String>,
    /// Consolidation bookkeeping (epochs in layer, triage and gate decisions).
    #[serde(default, skip_serializing_if = "Lifecycle::is_fresh")]
    pub lifecycle: Lifecycle,
    /// What the guards found in the content: `secret:<kind>` (kept secrets), `injection:<kind>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// Kept out of context blocks until released (`guards.injection: "quarantine"`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quarantined: bool,
}

/// What consolidation remembers of a memory between epochs. Epochs are counted per namespace.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "MemoryLifecycle"))]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lifecycle {
    /// The namespace epoch at which the memory entered its current layer.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub layer_epoch: u64,
    /// The namespace epoch at which `importance` was last set: decay since then is derived on read
    /// (`lifecycle::current_importance`), so an epoch writes nothing per memory.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub decay_epoch: u64,
    /// Consolidation has compared it with the namespace for near-duplicates (done once per memory;
    /// later memories are compared with it when they are checked).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub merge_checked: bool,
    /// Memories reconcile judged to be different facts (each pair is judged once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_apart: Vec<String>,
    /// Buffer triage decided it once (promote or keep): it is not offered again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub triaged: bool,
    /// Times the core gate rejected it (escalating cooldowns; the third is final).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub gate_rejections: u32,
    /// The gate may see it again from this namespace epoch on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_retry_epoch: Option<u64>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

impl Lifecycle {
    pub fn is_fresh(&self) -> bool {
        *self == Lifecycle::default()
    }
}

impl Memory {
    /// The instant recency is measured from.
    pub fn event_time(&self) -> Millis {
        self.event_at.unwrap_or(self.created_at)
    }
}
