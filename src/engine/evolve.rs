//! Evolving memory on the engine: `recall`, `thread` and `gather` (see `crate::evolve`).

#[allow(unused_imports)]
use super::Engram;
