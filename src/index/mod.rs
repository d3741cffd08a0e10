//! Indexes over memories, addressed by slot number: keyword (BM25) and vectors.
//!
//! Public: the vector tier's options and the build a host may run off the engine's thread
//! ([`persist::Store::plan_vector_build`](crate::persist::Store::plan_vector_build) → [`BuildInput::build`]
//! → `install_vector_build`). The indexes themselves are crate-private.

pub(crate) mod keyword;
pub(crate) mod stem;
pub(crate) mod tokenize;
pub(crate) mod vector;

pub(crate) use keyword::{DocId, KeywordIndex, KeywordQuery};
pub use vector::{BuildInput, BuildOptions, BuildOutput, Calibration, Installed, VectorOptions, VectorStats};
pub(crate) use vector::{BuiltGraph, VectorIndex};

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
