//! The data model: memories, their kinds and layers, ids, timestamps and input limits.

pub mod ids;
mod memory;
mod raw;
pub mod time;
pub mod validate;

pub use memory::{Kind, Layer, Memory};
pub use raw::{speaker_text, RawEntry};
