//! Evolving memory on read: what a namespace's typed, dated memories say *now* (or as of a past
//! date). Nothing here is stored; every state is derived from the trail each time it is asked for.
//!
//! - `fields`: checks and normalization of the typed fields (`add`, `update`, imports)

pub mod fields;
