//! Engram: an evolving-memory engine for AI agents that runs inside its host (native or WebAssembly).
//!
//! The core is plain Rust with no JS types: [`engine::Engram`] owns the memory table, the keyword
//! and vector indexes and the history log; [`host`] declares what the host supplies (clock, storage,
//! embedder, LLM). The wasm binding in `src/wasm/` is a thin layer over [`api`], the JSON-shaped API
//! it speaks. See `docs/ARCHITECTURE.md` for the module map.

// Memory records travel whole in enums (journal steps, ops, hits); boxing them would add an
// allocation per change for no gain: the variants are short-lived.
#![allow(clippy::large_enum_variant)]
pub mod api;
pub mod digest;
pub mod engine;
pub mod error;
pub mod evolve;
pub mod guard;
pub mod host;
pub mod index;
pub mod keyed_hash;
pub mod lifecycle;
pub mod llm;
pub mod model;
pub mod persist;
pub mod recall;
pub mod store;
#[cfg(test)]
mod test_rng;

#[cfg(feature = "embedder")]
pub mod embed;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use engine::{Added, DeletedSession, EngineOptions, Engram, Evolving, EvolvingPatch, Hit, HitTarget, Ingested, MemoryPatch, NewMemory, SessionInput, Stats, TurnInput};
pub use error::{Error, ErrorCode, Result};
pub use model::{Kind, Layer, Memory, RawEntry};
pub use recall::{Scope, SearchRequest};
