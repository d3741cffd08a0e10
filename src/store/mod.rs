//! In-memory tables: memories (with duplicate detection), their links by slot, raw turns and the
//! history log.

pub mod dedup;
pub mod history;
mod link_graph;
mod raw_table;
mod table;

pub use history::{EventKind, HistoryEvent, HistoryLog};
pub use link_graph::LinkGraph;
pub use raw_table::RawTable;
pub use table::MemoryTable;
