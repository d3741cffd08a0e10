//! Engram: an evolving-memory engine for AI agents that runs inside its host (native or WebAssembly).
//!
//! The core is plain Rust with no JS types: [`Engram`] owns the memory table, the keyword and vector
//! indexes and the history log; [`host`] declares what the host supplies (clock, storage, embedder,
//! LLM); [`persist::Store`] keeps an engine in host storage. The wasm binding in `src/wasm/` is a
//! thin layer over [`api`], the JSON-shaped API it speaks. See `docs/ARCHITECTURE.md` for the module
//! map.
//!
//! # Public Rust API
//!
//! What a native host (a Tauri app, a Rust agent) embeds: the engine and its option and result types
//! ([`engine`], the common ones also at the crate root), the persistent [`persist::Store`] and what
//! opening one takes, the host traits ([`host`]), the records ([`model`]), [`error`], search requests
//! and context options ([`recall`]), the evolving read results ([`evolve`]), the LLM call contract
//! and job types ([`llm`], [`engine`]), guard options ([`guard`]), the vector tier's options and
//! off-thread build ([`index`]), consolidation reports ([`lifecycle`]), history events ([`store`]),
//! export and import ([`persist::export`]), the local embedder (`embed`, feature `embedder`) and the
//! JSON-shaped [`api`]. Everything else (record encoding, the indexes, scoring, prompts, scanners,
//! the lifecycle's rules, hashing) is crate-private.

// Memory records travel whole in enums (journal steps, ops, hits); boxing them would add an
// allocation per change for no gain: the variants are short-lived.
#![allow(clippy::large_enum_variant)]
pub mod api;
pub(crate) mod digest;
pub mod engine;
pub mod error;
pub mod evolve;
pub mod guard;
pub mod host;
pub mod index;
pub(crate) mod keyed_hash;
pub mod lifecycle;
pub mod llm;
pub mod model;
pub mod persist;
pub mod recall;
pub mod store;
#[cfg(test)]
mod test_rng;
// Test-support files shared with the integration tests (`tests/support/*.rs`) name the crate
// `engram`; this lets the unit tests that include them do the same.
#[cfg(test)]
extern crate self as engram;

#[cfg(feature = "embedder")]
pub mod embed;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use engine::{
    Added, DeletedSession, EngineOptions, Engram, Evolving, EvolvingPatch, Hit, HitTarget, Ingested, MemoryPatch, NewMemory, Reembed, SessionInput, Stats, TurnInput, REEMBED_BATCH,
};
pub use error::{Error, ErrorCode, Result};
pub use model::{Kind, Layer, Memory, RawEntry};
pub use recall::{Scope, SearchRequest};

/// The repository's own tools' door to crate internals: the training and diagnostic examples
/// (`train_intent`, `train_guard`, `author`, `guards`, `synthetic_export`), the native benches and
/// the fuzz target, built with `--features internals`. **Not part of the public API and not covered
/// by semver**: anything here may change or go in any release. Hosts use the public modules. Also
/// compiled in unit tests, where the shared test-support files reach it as `engram::internals`.
#[cfg(any(test, feature = "internals"))]
#[doc(hidden)]
pub mod internals {
    /// The offline author's pieces: sentence features, the intent model and its training.
    pub mod author {
        pub use crate::evolve::author::intent;
        pub use crate::evolve::author::{author_in, remember, sentence_features, Authored, KnownThread, PastTurn, Turn};
    }

    /// Which answer leads a recall: the candidates' features as the trainer reads them.
    pub mod pick {
        #[cfg(feature = "internals")]
        pub use crate::evolve::pick::dump;
        pub use crate::evolve::pick::{FEATURES, N};
    }

    /// The re-ranking of verbatim turns: its features as the trainer reads them.
    pub mod turn_rank {
        pub use crate::recall::turn_rank::{FEATURES, N, RERANKED};
    }

    /// The secret and injection scanners one by one, and the instruction model's training.
    pub mod guard {
        pub use crate::guard::scan::{find_secrets, Finding, Findings};
        pub mod instruction_model {
            pub use crate::guard::instruction_model::{features, sentences, train, Example, Model};
        }
        pub mod secrets {
            pub use crate::guard::secrets::find;
        }
        pub mod cards {
            pub use crate::guard::cards::find;
        }
        pub mod iban {
            pub use crate::guard::iban::find;
        }
        pub mod password {
            pub use crate::guard::password::find;
        }
        pub mod injection {
            pub use crate::guard::injection::find;
        }
    }

    /// Record encoding, for tools that write store or export bytes directly.
    pub mod persist {
        pub use crate::persist::ops::OpWriter;
        pub use crate::persist::record::{encode, RecordKind};
    }

    /// The vector index itself, for its benchmark.
    pub mod index {
        pub use crate::index::vector::{VectorIndex, GRAPH_EVAL_COST};
    }

    pub use crate::digest::crc32c;
    pub use crate::store::dedup::normalize;
}
