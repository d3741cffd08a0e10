//! Turning keyword and vector evidence for one candidate into one relevance in 0..1.

/// Keyword relevance above 1 (more matches than a one-of-each document) is clipped.
pub fn keyword_relevance(bm25_relevance: f32) -> f64 {
    f64::from(bm25_relevance).clamp(0.0, 1.0)
}

/// Cosine below zero carries no evidence of relevance.
pub fn vector_relevance(cosine: f32) -> f64 {
    f64::from(cosine).clamp(0.0, 1.0)
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
