//! In-memory tables: memories (with duplicate detection) and the history log.

pub mod dedup;
pub mod history;
mod table;

pub use history::{EventKind, HistoryEvent, HistoryLog};
pub use table::MemoryTable;
