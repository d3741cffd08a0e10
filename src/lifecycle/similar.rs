//! Which memories of a namespace say nearly the same thing (merge), or speak of the same topic and
//! may update one another (reconcile), and when two texts are the same fact in other words.
//!
//! With vectors, similarity is cosine (merge ≥ 0.78, reconcile 0.55–0.78); without, a keyword search
//! prefilters candidates and the overlap of their content words stands in for it.

use std::collections::BTreeSet;

use crate::index::tokenize::tokenize;

/// Cosine at or above which two memories are merge candidates.
pub const MERGE_COSINE: f64 = 0.78;
/// Cosine at or above which (and under `MERGE_COSINE`) two memories are reconcile candidates.
pub const RECONCILE_COSINE: f64 = 0.55;
/// Without vectors: content-word overlap (Jaccard) for the same two windows.
pub const MERGE_OVERLAP: f64 = 0.6;
pub const RECONCILE_OVERLAP: f64 = 0.35;
/// Overlap at or above which the heuristic may merge without a judge, when nothing specific differs.
pub const SAME_FACT_OVERLAP: f64 = 0.8;
/// Cosine a heuristic merge also needs when both memories have vectors.
pub const SAME_FACT_COSINE: f64 = 0.9;
/// A memory is compared with at most this many nearest memories.
pub const NEIGHBORS: usize = 6;

/// Words that carry no fact of their own.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by", "from", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this",
    "that", "these", "those", "he", "she", "they", "them", "his", "her", "their", "i", "me", "my", "we", "our", "you", "your", "has", "have", "had", "do", "does", "did", "so",
    "very", "really", "also", "just", "about", "into", "than", "then", "there", "here", "which", "who", "whom", "what", "when", "where", "will", "would", "can", "could", "should",
    "may", "might", "s",
];

/// Words that turn a statement around: a pair where one has them and the other does not may
/// contradict, so it is never merged on wording alone.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "stopped", "quit", "longer", "anymore", "dont", "doesnt", "didnt", "isnt", "wasnt", "cant",
    "wont",
];

/// The content words of a text (lowercased tokens minus function words).
pub fn content_words(text: &str) -> BTreeSet<String> {
    tokenize(text).into_iter().map(|t| t.replace('\'', "")).filter(|t| !FUNCTION_WORDS.contains(&t.as_str())).collect()
}

/// Jaccard overlap of two word sets (0 when both are empty).
pub fn overlap(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// Words written with a capital inside a sentence or holding a digit: names, places, amounts, dates.
fn specifics(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, word) in text.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).enumerate() {
        let capital = i > 0 && word.chars().next().is_some_and(char::is_uppercase);
        if capital || word.chars().any(|c| c.is_ascii_digit()) {
            out.insert(word.to_lowercase());
        }
    }
    out
}

/// Whether two texts could contradict: one negates where the other does not, or they name different
/// specifics (numbers, names, dates). Such a pair is never merged without a judge.
pub fn may_contradict(a: &str, b: &str) -> bool {
    let (wa, wb) = (content_words(a), content_words(b));
    let negated = |w: &BTreeSet<String>| NEGATIONS.iter().filter(|n| w.contains(**n)).count();
    if negated(&wa) != negated(&wb) {
        return true;
    }
    let (sa, sb) = (specifics(a), specifics(b));
    sa.symmetric_difference(&sb).next().is_some()
}

/// Whether the heuristic may treat two texts as the same fact: nearly the same content words, nothing
/// specific differing, no negation on one side only; and, when vectors exist, nearly the same meaning.
pub fn same_fact(a: &str, b: &str, cosine: Option<f64>) -> bool {
    if cosine.is_some_and(|c| c < SAME_FACT_COSINE) {
        return false;
    }
    overlap(&content_words(a), &content_words(b)) >= SAME_FACT_OVERLAP && !may_contradict(a, b)
}

/// Which window a similarity falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Band {
    /// Near-duplicates.
    Merge,
    /// Same topic, possibly an update.
    Reconcile,
}

/// The band of a cosine (vectors) or of a content-word overlap (no vectors).
pub fn band(similarity: f64, by_vector: bool) -> Option<Band> {
    let (merge, reconcile) = if by_vector { (MERGE_COSINE, RECONCILE_COSINE) } else { (MERGE_OVERLAP, RECONCILE_OVERLAP) };
    if similarity >= merge {
        Some(Band::Merge)
    } else if similarity >= reconcile {
        Some(Band::Reconcile)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_fact_in_other_words_but_never_a_different_one() {
        assert!(same_fact("Sam likes green tea in the morning", "Sam really likes green tea in the morning", None));
        assert!(!same_fact("Sam likes green tea", "Sam does not like green tea", None), "negation on one side");
        assert!(!same_fact("The meeting is at 10 on Friday", "The meeting is at 11 on Friday", None), "a number differs");
        assert!(!same_fact("Sam's manager is Priya Shah", "Sam's manager is Tom Shah", None), "a name differs");
        assert!(!same_fact("Sam likes green tea in the morning", "Sam really likes green tea in the morning", Some(0.8)), "vectors disagree");
        assert!(!same_fact("Sam likes tea", "Sam plays chess on weekends", None));
    }

    #[test]
    fn bands() {
        assert_eq!(band(0.9, true), Some(Band::Merge));
        assert_eq!(band(0.6, true), Some(Band::Reconcile));
        assert_eq!(band(0.5, true), None);
        assert_eq!(band(0.7, false), Some(Band::Merge));
        assert_eq!(band(0.4, false), Some(Band::Reconcile));
    }
}
