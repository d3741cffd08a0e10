//! Evolving memory: typed, dated, dependency-linked memories authored at write time.
//! `author`: the offline rules that author them from conversation turns.

pub mod author;
