//! The order of verbatim turns among a search's best: a learned re-ranking of the first
//! `RERANKED` raw candidates.
//!
//! The hand-set fusion (`fusion`, `score::score_raw`) weighs each signal by one constant and
//! multiplies them; it cannot learn that a turn whose session is about the query but which shares
//! few words itself is often the evidence, or that a long turn that matched both channels is
//! likelier than a one-line reply that matched one. A linear score over the signals the search
//! already has (the fused score itself, each channel's evidence, the session's and the
//! neighbours', the turn's length and role) orders the first candidates instead. The weights are
//! fitted pairwise (a right turn above a wrong one of the same question) by
//! `examples/train_turn_rank.rs` on the `tune` halves of LoCoMo (with and without vectors) and of
//! LongMemEval (keyword-only), each file weighing the same, and kept because the `held` halves,
//! never fitted on, improved with them (BENCHMARKS, retrieval quality).
//!
//! Only the order changes: the re-ranked turns take the same scores the fused order gave, best
//! first, so a search over memories and turns together still weighs turns on the scale memories
//! are scored on, and nothing below the re-ranked window moves.

/// The features, in `WEIGHTS` order.
pub const FEATURES: [&str; 10] = ["fused_score_log", "keyword", "adjacent", "session", "vector", "keyword_found", "vector_found", "keyword_x_vector", "length_log", "role_weight"];
pub const N: usize = FEATURES.len();

/// How many of the best raw candidates (by the fused score) are re-ranked. The trainer reads the
/// same window.
pub const RERANKED: usize = 40;

/// Fitted by `cargo run --profile bench-native --features embedder,internals --example
/// train_turn_rank` (see there); already divided by each feature's spread on the training data,
/// so they apply to the features as computed.
const WEIGHTS: [f64; N] = include!("turn_rank_weights.in");

/// What the search knows of one raw candidate before fusing it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TurnEvidence {
    /// The fused, scored value (`score::score_raw`): what ranks the candidate without this model.
    pub fused_score: f64,
    /// The turn's own keyword relevance.
    pub keyword: Option<f64>,
    /// The best keyword relevance of the turns beside it.
    pub adjacent: Option<f64>,
    /// Its whole session's keyword relevance.
    pub session: Option<f64>,
    /// Its vector relevance.
    pub vector: Option<f64>,
    /// Its length in words.
    pub words: usize,
    /// The weight of its speaker's role (`score::role_weight`): the fused score holds it, the
    /// separate evidence does not, so the model must see it to keep it. Recency and a time the
    /// query names are left to the fused score alone: the corpora fitted on say nothing of them
    /// (their questions are asked after every session), and a weight fitted on noise could turn
    /// "the newest wins" around.
    pub role_weight: f64,
}

/// The features of one candidate.
pub fn features(e: &TurnEvidence) -> [f64; N] {
    let k = e.keyword.unwrap_or(0.0);
    let v = e.vector.unwrap_or(0.0);
    [
        // A floor keeps a candidate with almost no score from dominating through the logarithm.
        e.fused_score.max(1e-3).ln(),
        k,
        e.adjacent.unwrap_or(0.0),
        e.session.unwrap_or(0.0),
        v,
        f64::from(u8::from(e.keyword.is_some())),
        f64::from(u8::from(e.vector.is_some())),
        k * v,
        (e.words as f64).ln_1p(),
        e.role_weight,
    ]
}

/// The learned score: higher ranks first. Only comparable within one search.
pub fn score(features: &[f64; N]) -> f64 {
    WEIGHTS.iter().zip(features).map(|(w, x)| w * x).sum()
}

/// The learned order of a search's best raw candidates, given best first by their fused score:
/// the indices of the first `RERANKED`, best first by the learned score.
pub fn order(candidates: impl IntoIterator<Item = TurnEvidence>) -> Vec<usize> {
    let learned: Vec<f64> = candidates.into_iter().take(RERANKED).map(|e| score(&features(&e))).collect();
    let mut order: Vec<usize> = (0..learned.len()).collect();
    // Stable: equal learned scores keep the fused order.
    order.sort_by(|&a, &b| learned[b].total_cmp(&learned[a]));
    order
}

/// Re-ranks the head of `items` (best first by fused score) in the learned order. A moved item
/// takes the score of the place it lands in, so the scores keep their values in descending order
/// and nothing below the window moves: callers that merge by score see the same cut-offs.
pub fn rerank<T>(items: &mut Vec<T>, evidence: impl Fn(&T) -> TurnEvidence, score: impl Fn(&mut T) -> &mut f64) {
    let window = items.len().min(RERANKED);
    let order = order(items[..window].iter().map(&evidence));
    let places: Vec<f64> = items[..window].iter_mut().map(|t| *score(t)).collect();
    let mut head: Vec<Option<T>> = items.drain(..window).map(Some).collect();
    let moved = order.into_iter().zip(places).map(|(i, place)| {
        let mut item = head[i].take().expect("order is a permutation of the window");
        *score(&mut item) = place;
        item
    });
    items.splice(0..0, moved.collect::<Vec<T>>());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence(fused_score: f64, keyword: Option<f64>, session: Option<f64>, words: usize) -> TurnEvidence {
        TurnEvidence { fused_score, keyword, adjacent: None, session, vector: None, words, role_weight: 1.0 }
    }

    #[test]
    fn the_order_permutes_the_window_only() {
        let c: Vec<TurnEvidence> = (0..50).map(|i| evidence(1.0 - f64::from(i) * 0.01, Some(0.5), Some(0.1), 5 + i as usize)).collect();
        let mut order = order(c.iter().copied());
        assert_eq!(order.len(), RERANKED);
        order.sort_unstable();
        assert_eq!(order, (0..RERANKED).collect::<Vec<_>>());
        // Equal evidence keeps the fused order.
        assert_eq!(super::order([evidence(0.5, None, None, 3); 3]), vec![0, 1, 2]);
    }

    #[test]
    fn rerank_keeps_the_scores_and_the_tail() {
        // Fused scores fall slowly while the keyword evidence rises: the learned order must move
        // turns, and every moved turn must take its new place's score.
        let items: Vec<(usize, f64, TurnEvidence)> = (0..50)
            .map(|i| {
                let fused = 1.0 - f64::from(i as u32) * 0.001;
                (i, fused, evidence(fused, Some(0.1 + f64::from(i as u32) * 0.01), Some(0.1), 10))
            })
            .collect();
        let mut ranked = items.clone();
        rerank(&mut ranked, |t| t.2, |t| &mut t.1);
        let ids: Vec<usize> = ranked.iter().map(|t| t.0).collect();
        assert_ne!(ids[..RERANKED], (0..RERANKED).collect::<Vec<_>>()[..], "the learned order moved nothing");
        let mut head = ids[..RERANKED].to_vec();
        head.sort_unstable();
        assert_eq!(head, (0..RERANKED).collect::<Vec<_>>());
        // The same score values, place by place, so still descending; the tail untouched.
        for (after, before) in ranked.iter().zip(&items) {
            assert_eq!(after.1, before.1);
        }
        assert_eq!(ranked[RERANKED..], items[RERANKED..]);
        // Each moved item kept its own evidence.
        assert!(ranked.iter().all(|t| t.2 == items[t.0].2));
    }

    #[test]
    fn more_evidence_ranks_higher() {
        // The weights must read more of each kind of evidence as better, all else equal: a model
        // that learned otherwise was fitted on something other than relevance.
        let base = evidence(0.5, Some(0.4), Some(0.3), 20);
        let f = |e: TurnEvidence| score(&features(&e));
        assert!(f(TurnEvidence { fused_score: 0.8, ..base }) > f(base));
        assert!(f(TurnEvidence { keyword: Some(0.8), ..base }) > f(base));
        assert!(f(TurnEvidence { session: Some(0.8), ..base }) > f(base));
        assert!(f(TurnEvidence { vector: Some(0.6), ..base }) > f(TurnEvidence { vector: Some(0.2), ..base }));
    }
}
