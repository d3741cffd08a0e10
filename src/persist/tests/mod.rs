//! Persistence tests that need crate internals (record encoding, ops, load): moved here from
//! `tests/`, where the tests of the public `Store` API stay. They share `tests/support/persist.rs`
//! with those.

#[path = "../../../tests/support/persist.rs"]
mod persist_common;

mod persist_index;
mod persist_open_time;
mod snapshot_bodies;
