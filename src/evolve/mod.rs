//! Evolving memory on read: what a namespace's typed, dated memories say *now* (or as of a past
//! date). Nothing here is stored; every state is derived from the trail each time it is asked for.
//!
//! - `fields`: checks and normalization of the typed fields (`add`, `update`, imports)
//! - `state`: the derived states and the answers that carry them
//! - `derive`: the derivation over a thread's trail and its upstream threads
//! - `route`: which reading a query gets (declared cues, else the shape of the best hits)
//! - `render`: the states in unmistakable words
//! - `pick`: which answer leads a question about what holds now (a small learned choice)
//! - `recall`: one search read through the derivation: route, answers, context
//! - `author`: the offline rules that author typed memories from conversation turns (write side)

pub(crate) mod author;
pub(crate) mod derive;
pub(crate) mod fields;
pub(crate) mod pick;
pub(crate) mod recall;
pub(crate) mod render;
pub(crate) mod route;
pub(crate) mod state;

pub use derive::{Derivation, Trail};
pub use recall::Recall;
pub use route::Route;
pub use state::{Answer, Replacement, State, UpstreamChange};
