//! Final ranking score: relevance to the query, lifted by what the store knows about the memory
//! (importance, reinforcement, kind, layer) and by recency of the remembered event.
//!
//! `raw = relevance × (1 + 0.4·weight + 0.2·recency)`, `score = tanh(raw)`: relevance is a factor, so
//! an irrelevant memory never rises on importance alone, and tanh keeps scores in 0..1 while keeping
//! order among strong hits.

use serde::Serialize;

use crate::model::{time::Millis, Kind, Layer, Memory, RawEntry};

pub const RECENCY_HALF_LIFE_MS: f64 = 7.0 * 86_400_000.0;
/// One repetition (the same thing said again) is worth 2.5 retrievals.
pub const REPETITION_WEIGHT: f64 = 2.5;

pub fn kind_bias(kind: Kind) -> f64 {
    match kind {
        Kind::Procedural => 0.15,
        Kind::Semantic => 0.0,
        Kind::Episodic => -0.1,
    }
}

pub fn layer_bias(layer: Layer) -> f64 {
    match layer {
        Layer::Core => 0.1,
        Layer::Working => 0.0,
        Layer::Buffer => -0.1,
    }
}

/// The parts of a hit's score, returned with `explain`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreBreakdown {
    /// Fused relevance to the query, 0..1.
    pub relevance: f64,
    /// BM25 relevance (1 ≈ every query term present), if the keyword index matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<f64>,
    /// Cosine similarity, if a vector matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector: Option<f64>,
    pub importance: f64,
    pub reinforcement: f64,
    pub kind_bias: f64,
    pub layer_bias: f64,
    /// 1 for an event now, halving every 7 days.
    pub recency: f64,
    /// importance + reinforcement + kind bias + layer bias.
    pub weight: f64,
    pub score: f64,
}

/// Bonus for being retrieved and repeated: logarithmic, capped, so popularity cannot swamp relevance.
pub fn reinforcement_bonus(m: &Memory) -> f64 {
    let r = f64::from(m.access_count) + REPETITION_WEIGHT * f64::from(m.repetition_count);
    (0.12 * (1.0 + r).ln()).min(0.6)
}

pub fn recency(event_at: Millis, now: Millis) -> f64 {
    let age = (now - event_at).max(0) as f64;
    0.5f64.powf(age / RECENCY_HALF_LIFE_MS)
}

pub fn score(m: &Memory, relevance: f64, keyword: Option<f64>, vector: Option<f64>, now: Millis) -> ScoreBreakdown {
    let prior = Prior { importance: m.importance, reinforcement: reinforcement_bonus(m), kind_bias: kind_bias(m.kind), layer_bias: layer_bias(m.layer) };
    combine(prior, relevance, keyword, vector, m.event_time(), now)
}

/// A verbatim turn has no importance or lifecycle of its own: it is scored as a fresh, untouched
/// semantic memory of default importance, so raw and authored hits share one scale.
pub fn score_raw(e: &RawEntry, relevance: f64, keyword: Option<f64>, vector: Option<f64>, now: Millis) -> ScoreBreakdown {
    let prior = Prior { importance: 0.5, reinforcement: 0.0, kind_bias: 0.0, layer_bias: 0.0 };
    combine(prior, relevance, keyword, vector, e.event_time(), now)
}

struct Prior {
    importance: f64,
    reinforcement: f64,
    kind_bias: f64,
    layer_bias: f64,
}

fn combine(p: Prior, relevance: f64, keyword: Option<f64>, vector: Option<f64>, event_at: Millis, now: Millis) -> ScoreBreakdown {
    let weight = p.importance + p.reinforcement + p.kind_bias + p.layer_bias;
    let recency = recency(event_at, now);
    let raw = relevance * (1.0 + 0.4 * weight + 0.2 * recency);
    ScoreBreakdown {
        relevance,
        keyword,
        vector,
        importance: p.importance,
        reinforcement: p.reinforcement,
        kind_bias: p.kind_bias,
        layer_bias: p.layer_bias,
        recency,
        weight,
        score: raw.max(0.0).tanh(),
    }
}
