//! In-memory tables: memories (with duplicate detection), their links by slot, raw turns and the
//! history log.

pub(crate) mod dedup;
pub(crate) mod history;
mod link_graph;
mod raw_table;
mod table;

pub(crate) use history::HistoryLog;
pub use history::{EventKind, HistoryEvent};
pub(crate) use link_graph::LinkGraph;
pub(crate) use raw_table::RawTable;
pub(crate) use table::MemoryTable;
