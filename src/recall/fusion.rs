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

/// The weight of the query-relative vector scale (`vector_relevance_in`).
pub const RELATIVE_VECTOR_WEIGHT: f64 = 0.5;
/// Below this many vector candidates their median says nothing about the query's scale.
pub const RELATIVE_MIN_CANDIDATES: usize = 8;

/// A cosine's relevance on two scales at once, the lower of: the fixed one (`vector_relevance`)
/// and the query's own, `w·(cos − median)/(top − median)` over its vector candidates. How close
/// "close" is differs by query: a short, common question sits near many turns, a rare one near
/// none. Its median candidate is what unrelated text looks like to this query, so a cosine that is
/// high in absolute terms but ordinary for the query counts for little; the fixed floor still keeps
/// a query whose candidates are all far from lifting any of them.
pub fn vector_relevance_in(cosine: f32, median: f32, top: f32) -> f64 {
    let fixed = vector_relevance(cosine);
    if top - median <= 1e-6 {
        return fixed;
    }
    fixed.min(RELATIVE_VECTOR_WEIGHT * (f64::from(cosine - median) / f64::from(top - median)).clamp(0.0, 1.0))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cosine_counts_on_the_query_scale_and_the_fixed_one() {
        // Ordinary for this query (its median): no evidence, however high in absolute terms.
        assert_eq!(vector_relevance_in(0.62, 0.62, 0.80), 0.0);
        // The query's best: its relative weight, capped by the fixed scale.
        assert!((vector_relevance_in(0.80, 0.62, 0.80) - RELATIVE_VECTOR_WEIGHT.min(vector_relevance(0.80))).abs() < 1e-9);
        // Far in absolute terms: the fixed floor still holds it at zero.
        assert_eq!(vector_relevance_in(0.25, 0.05, 0.25), 0.0);
        // Every candidate alike: no scale to read, the fixed one alone.
        assert_eq!(vector_relevance_in(0.7, 0.7, 0.7), vector_relevance(0.7));
        // Monotonic between the median and the top.
        assert!(vector_relevance_in(0.75, 0.6, 0.8) > vector_relevance_in(0.7, 0.6, 0.8));
    }
}
