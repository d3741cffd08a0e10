//! The data model: memories, their kinds and layers, ids, timestamps and input limits.

pub(crate) mod evolve;
pub(crate) mod ids;
mod memory;
mod raw;
pub mod time;
pub mod validate;

pub use evolve::{DependsOn, Evolving, EvolvingPatch, Pin, Shape, TextField};
pub use memory::{Kind, Layer, Lifecycle, Memory};
pub use raw::{speaker_text, RawEntry};
