//! Indexes over memories, addressed by slot number: keyword (BM25) and vectors.

pub mod keyword;
pub mod stem;
pub mod tokenize;
pub mod vector;

pub use keyword::{DocId, KeywordHit, KeywordIndex, KeywordQuery};
pub use vector::{BuildInput, BuildOptions, BuiltGraph, VectorHit, VectorIndex, VectorOptions, VectorStats};

/// Keeps the `limit` best of `hits` under `better_first`, sorted: a partial selection, then a sort of
/// only what is kept.
pub(crate) fn top_k<T>(mut hits: Vec<T>, limit: usize, better_first: impl Fn(&T, &T) -> std::cmp::Ordering) -> Vec<T> {
    if hits.len() > limit {
        if limit == 0 {
            return Vec::new();
        }
        hits.select_nth_unstable_by(limit - 1, &better_first);
        hits.truncate(limit);
    }
    hits.sort_unstable_by(better_first);
    hits
}
