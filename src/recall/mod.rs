//! The read side: candidates from every index, fused into one relevance, scored and ranked.

pub mod context;
pub(crate) mod fusion;
pub(crate) mod score;
pub(crate) mod timeframe;
pub(crate) mod turn_rank;

pub use score::{ScoreBreakdown, ASSISTANT_TURN_WEIGHT};

use crate::model::{Kind, Layer};

/// A search as the engine receives it (validated by the caller's parser or by `Engram::search`).
#[derive(Clone, Debug, Default)]
pub struct SearchRequest {
    /// Keyword query; `None` or empty for a pure vector search.
    pub query: Option<String>,
    /// Namespace searched, together with `default` unless `include_default` (or the store) says not.
    pub namespace: Option<String>,
    /// Whether the shared `default` namespace is searched too (`None`: as the store was opened).
    pub include_default: Option<bool>,
    pub limit: Option<usize>,
    /// Query vector, for vector / hybrid search.
    pub embedding: Option<Vec<f32>>,
    /// Only these kinds / layers (empty = any).
    pub kinds: Vec<Kind>,
    pub layers: Vec<Layer>,
    /// Only memories carrying every one of these tags.
    pub tags: Vec<String>,
    /// Include each hit's score breakdown.
    pub explain: bool,
    /// Do not touch (access count, last accessed) the memories returned.
    pub dry_run: bool,
    /// Which records to search: authored memories, raw turns, or both.
    pub scope: Scope,
    /// Also return up to this many neighbouring turns on each side of a raw hit.
    pub neighbors: u32,
    /// Also return memories linked to a memory hit.
    pub expand_links: bool,
    /// Also return memories a later value on their thread superseded, or a retraction withdrew
    /// (hidden by default: what is current ranks alone).
    pub include_superseded: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    Memories,
    Raw,
    #[default]
    All,
}

impl Scope {
    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "memories" => Some(Scope::Memories),
            "raw" => Some(Scope::Raw),
            "all" => Some(Scope::All),
            _ => None,
        }
    }
    pub fn memories(self) -> bool {
        matches!(self, Scope::Memories | Scope::All)
    }
    pub fn raw(self) -> bool {
        matches!(self, Scope::Raw | Scope::All)
    }
}

/// Score of an expanded neighbour relative to the hit that pulled it in, per step of distance.
pub(crate) const EXPANSION_DECAY: f64 = 0.5;
/// Links are made to at most this many earlier memories, each at least this similar.
pub(crate) const LINKS_MAX: usize = 3;
pub(crate) const LINK_MIN_COSINE: f32 = 0.5;

/// Relevance above which a retrieved memory counts as used (its access count goes up).
pub(crate) const TOUCH_RELEVANCE: f64 = 0.5;
pub(crate) const DEFAULT_LIMIT: usize = 10;
