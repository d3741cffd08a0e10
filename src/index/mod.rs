//! Indexes over memories, addressed by slot number: keyword (BM25) and vectors.

pub mod keyword;
pub mod stem;
pub mod tokenize;
pub mod vector;

pub use keyword::{DocId, KeywordHit, KeywordIndex, KeywordQuery};
pub use vector::{VectorHit, VectorIndex};
