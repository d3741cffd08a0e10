//! In-memory tables: memories (with duplicate detection) and the history log.

pub mod dedup;
pub mod history;
mod raw_table;
mod table;

pub use history::{EventKind, HistoryEvent, HistoryLog};
pub use raw_table::RawTable;
pub use table::MemoryTable;
