//! Turning keyword and vector evidence for one candidate into one relevance in 0..1.

/// Maps BM25 relevance (≈ 1 when every query term occurs once at average length, unbounded above)
/// into 0..1 with `1 − e^(−2r)`: strictly increasing, so BM25's order survives among strong matches
/// (a clip at 1 would tie them); a full match gives ≈ 0.86.
pub fn keyword_relevance(bm25_relevance: f32) -> f64 {
    1.0 - (-2.0 * f64::from(bm25_relevance).max(0.0)).exp()
}

/// Cosine at or below this carries no evidence: sentence embedders put unrelated texts around
/// 0.1–0.3, so raw cosine would lift every candidate alike.
pub const COSINE_FLOOR: f64 = 0.3;

/// Cosine rescaled so the floor maps to 0 and identity to 1.
pub fn vector_relevance(cosine: f32) -> f64 {
    ((f64::from(cosine) - COSINE_FLOOR) / (1.0 - COSINE_FLOOR)).clamp(0.0, 1.0)
}

/// Fuses the two signals. Either alone counts as is; together they combine as independent evidence
/// (`1 − (1−k)(1−v)`), so a memory both channels found outranks one found by a single channel with the
/// same strength.
pub fn fuse(keyword: Option<f64>, vector: Option<f64>) -> f64 {
    match (keyword, vector) {
        (Some(k), Some(v)) => 1.0 - (1.0 - k) * (1.0 - v),
        (Some(k), None) => k,
        (None, Some(v)) => v,
        (None, None) => 0.0,
    }
}

/// How much a whole session's match counts towards one of its turns.
pub const SESSION_CONTEXT_WEIGHT: f64 = 0.5;

/// Combines a turn's own keyword relevance with its session's, as partial independent evidence:
/// `1 − (1−k)(1−w·s)`. A turn that matches alone keeps its evidence; among turns that match
/// equally, the one in the session that is about the query ranks first.
pub fn with_context(turn: Option<f64>, session: Option<f64>) -> Option<f64> {
    match (turn, session) {
        (Some(k), Some(s)) => Some(1.0 - (1.0 - k) * (1.0 - SESSION_CONTEXT_WEIGHT * s)),
        (k, _) => k,
    }
}

/// How much an adjacent turn's keyword match counts towards a turn.
pub const ADJACENT_WEIGHT: f64 = 0.3;

/// A turn's own keyword evidence combined with the best of its neighbours' (`1 − (1−k)(1−w·a)`);
/// a turn with no match of its own gets `w·a`, so the reply to a matching question can surface.
pub fn with_adjacent(own: Option<f64>, adjacent: Option<f64>) -> Option<f64> {
    match (own, adjacent) {
        (Some(k), Some(a)) => Some(1.0 - (1.0 - k) * (1.0 - ADJACENT_WEIGHT * a)),
        (None, Some(a)) => Some(ADJACENT_WEIGHT * a),
        (k, None) => k,
    }
}
