//! Final ranking score: relevance to the query, lifted by what the store knows about the memory
//! (importance, reinforcement, kind, layer) and by recency of the remembered event.
//!
//! `raw = relevance × (1 + 0.4·weight + 0.2·recency) × (1 + time match)`, `score = tanh(raw)`:
//! relevance is a factor, so an irrelevant memory never rises on importance or date alone, and tanh
//! keeps scores in 0..1 while keeping order among strong hits. The time match is 0..1, and only for
//! queries naming a relative time ("two weeks ago", see `timeframe`).

use serde::Serialize;

use super::timeframe::{self, Window};
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
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreBreakdown {
    /// Fused relevance to the query, 0..1.
    pub relevance: f64,
    /// BM25 relevance (1 ≈ every query term present), if the keyword index matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub keyword: Option<f64>,
    /// Cosine similarity, if a vector matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub vector: Option<f64>,
    pub importance: f64,
    pub reinforcement: f64,
    pub kind_bias: f64,
    pub layer_bias: f64,
    /// 1 for an event now, halving every 7 days.
    pub recency: f64,
    /// How well the event date falls in the time the query names (0..1), if it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub time_match: Option<f64>,
    /// For a verbatim turn: the weight of its speaker's role (the relevance above includes it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub role_weight: Option<f64>,
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

/// The query-side inputs shared by every candidate of one search.
#[derive(Clone, Copy, Debug)]
pub struct QueryTime<'a> {
    pub now: Millis,
    /// Windows named by the query (`timeframe::windows`); empty for most queries.
    pub windows: &'a [Window],
}

/// `importance`: the memory's importance now (decayed by consolidation epochs, `Engram::current_importance`).
pub fn score(m: &Memory, importance: f64, relevance: f64, keyword: Option<f64>, vector: Option<f64>, at: QueryTime) -> ScoreBreakdown {
    combine(Prior::of(m, importance), relevance, keyword, vector, m.event_time(), at)
}

/// How much an assistant's turn counts as evidence, relative to anyone else's. The user's turns
/// state what happened to them; the assistant's replies are long, general elaborations that share
/// vocabulary with many queries, so at equal text match the person's own words rank first. Measured
/// on LongMemEval-S (docs/BENCHMARKS-HISTORY.md): 0.5–0.8 is a plateau, 0.9 is too weak to reorder sessions.
pub const ASSISTANT_TURN_WEIGHT: f64 = 0.75;

/// The evidence weight of a turn by its role (see `ASSISTANT_TURN_WEIGHT`).
pub fn role_weight(role: &str) -> f64 {
    if role.eq_ignore_ascii_case("assistant") {
        ASSISTANT_TURN_WEIGHT
    } else {
        1.0
    }
}

/// A verbatim turn has no importance or lifecycle of its own: it is scored as a fresh, untouched
/// semantic memory of default importance, so raw and authored hits share one scale; its relevance
/// is weighted by who said it (`role_weight`).
pub fn score_raw(e: &RawEntry, relevance: f64, keyword: Option<f64>, vector: Option<f64>, at: QueryTime) -> ScoreBreakdown {
    let prior = Prior { importance: 0.5, reinforcement: 0.0, kind_bias: 0.0, layer_bias: 0.0 };
    let weight = role_weight(&e.role);
    ScoreBreakdown { role_weight: Some(weight), ..combine(prior, relevance * weight, keyword, vector, e.event_time(), at) }
}

/// What a memory brings to its score besides relevance: the parts of its weight.
pub struct Prior {
    importance: f64,
    reinforcement: f64,
    kind_bias: f64,
    layer_bias: f64,
}

impl Prior {
    /// `importance`: the memory's importance now (decayed by consolidation epochs).
    pub fn of(m: &Memory, importance: f64) -> Prior {
        Prior { importance, reinforcement: reinforcement_bonus(m), kind_bias: kind_bias(m.kind), layer_bias: layer_bias(m.layer) }
    }

    /// importance + reinforcement + kind bias + layer bias: how much a memory counts, whatever
    /// the query (ranking within a search, and the order of `resume`).
    pub fn weight(&self) -> f64 {
        self.importance + self.reinforcement + self.kind_bias + self.layer_bias
    }
}

/// How much a full time match multiplies the score: an event at the named time counts as much as
/// doubling its relevance, so it outranks better topical matches from other dates, but a candidate
/// with no relevance stays at none.
pub const TIME_MATCH_WEIGHT: f64 = 1.0;

fn combine(p: Prior, relevance: f64, keyword: Option<f64>, vector: Option<f64>, event_at: Millis, at: QueryTime) -> ScoreBreakdown {
    let weight = p.weight();
    let recency = recency(event_at, at.now);
    let time_match = timeframe::closeness(at.windows, event_at);
    let raw = relevance * (1.0 + 0.4 * weight + 0.2 * recency) * (1.0 + TIME_MATCH_WEIGHT * time_match.unwrap_or(0.0));
    ScoreBreakdown {
        relevance,
        keyword,
        vector,
        importance: p.importance,
        reinforcement: p.reinforcement,
        kind_bias: p.kind_bias,
        layer_bias: p.layer_bias,
        recency,
        time_match,
        role_weight: None,
        weight,
        score: raw.max(0.0).tanh(),
    }
}
