//! The read side: candidates from every index, fused into one relevance, scored and ranked.

pub mod fusion;
pub mod score;

pub use score::ScoreBreakdown;

use crate::model::{Kind, Layer};

/// A search as the engine receives it (validated by the caller's parser or by `Engram::search`).
#[derive(Clone, Debug, Default)]
pub struct SearchRequest {
    /// Keyword query; `None` or empty for a pure vector search.
    pub query: Option<String>,
    /// Namespace searched, together with `default`.
    pub namespace: Option<String>,
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
}

/// Relevance above which a retrieved memory counts as used (its access count goes up).
pub const TOUCH_RELEVANCE: f64 = 0.5;
pub const DEFAULT_LIMIT: usize = 10;
