//! Persistence: an engine kept in host storage (the async automerge-repo-shaped [`Storage`] trait),
//! crash-safe by construction.
//!
//! # Design
//!
//! - **The engine stays synchronous and I/O-free.** While persistence is on, every mutating engine
//!   call journals the records it is about to change with their values *before* the change (an undo
//!   log, `engine::journal`). The driver ([`Store`]) takes the journal after the call, writes the
//!   records' current values as one *chunk*, and if that write fails undoes the journal: memory then
//!   equals storage again and the call rejects with the adapter's `Storage` / `StorageFull` error.
//!   Journaling befores (rather than computing a change before applying it) keeps every engine rule
//!   in one place — the engine — and the driver ignorant of them. The same pieces
//!   (`take_changes` / `undo`, `ops`, `record`, `load`) serve a driver written elsewhere (the
//!   wasm binding, where storage is a JS promise).
//! - **Cost of a write is O(what it changed):** one `save` of one chunk holding the changed records
//!   (a memory with its vector, its history event). A single `add` is exactly one storage write.
//! - **Records** (see `record`) are framed with magic, format version, kind, sequence number and
//!   length, and end in a CRC-32C. The checksum is each record's commit marker: a torn write fails
//!   it. The key layout is in `keys`.
//! - **Load** (see `load`) takes the newest valid snapshot and applies the chunks after it in
//!   sequence while they are present and valid. Everything a crash can leave (a torn last chunk, a
//!   torn snapshot whose chunks are still there, stale records) is ignored; anything that would
//!   drop committed data silently is `Corrupt`.
//! - **Compaction** writes a snapshot of the whole state (sequence = last chunk) first, makes it
//!   durable ([`Storage::flush`](crate::host::Storage::flush)), and only then removes the chunks and
//!   snapshots it replaces: new data before old data is removed. It runs after
//!   [`OpenOptions::compact_after`] chunks and on [`Store::compact`]; if it fails the call that
//!   triggered it still succeeded (its chunk is durable), the failure is reported once
//!   ([`Store::take_compaction_failure`]) and compaction is tried again after twice the chunks.
//! - **Several writers** never overwrite each other: a chunk is created only where none is
//!   ([`Storage::create`](crate::host::Storage::create)); a writer that finds its sequence number
//!   taken applies the other's chunks and runs its call again. A chunk is acknowledged only where a
//!   load will read it (not below a newer snapshot, not in storage that lost what came before).
//! - **Acknowledged** means: a `Store` write whose future resolved `Ok` is in storage and survives
//!   any crash after it. Search touches (access count, last access) change memory in place without a
//!   write; they are persisted with the next write or by [`Store::flush`]. A crash before that loses
//!   only those counters.
//! - **Indexes are derived data.** A snapshot carries its records' keyword entries (term counts), so
//!   opening re-counts only what later chunks changed; vector graph segments are stored beside the
//!   chain (`graphs`) and skipped if missing or damaged. Either way the records alone rebuild
//!   every index.
//! - **Embedder identity** (model id, dims) is stored with the data; opening with a different
//!   embedder is an `Embedder` error unless [`OpenOptions::reembed`] asks to re-embed everything
//!   (written as one chunk).
//! - **Export / import** ([`export`]): one record of kind `Export` with the same operations as a
//!   snapshot; import validates everything first, then merges by id as one write. Both can go in
//!   slices (`ExportReader`, `ExportStream`), so neither needs the whole file in memory.
//! - **Group commit** ([`Store::mutate_many`]): several writes, one chunk; all of them or none.
//! - **Bytes from storage are untrusted:** every read is bounds-checked, no allocation is sized by
//!   a header beyond the bytes present, and a decoded state is validated before the engine is built.

pub(crate) mod block_on;
mod bytes;
pub mod export;
mod export_reader;
mod export_stream;
pub(crate) mod graphs;
mod identity;
mod image;
pub(crate) mod keys;
pub(crate) mod load;
mod memory_storage;
pub(crate) mod ops;
pub(crate) mod record;
mod store;
#[cfg(test)]
mod tests;

pub use block_on::block_on;
pub use identity::EmbedderIdentity;
pub use load::{Damage, Skipped};
pub use memory_storage::MemoryStorage;
pub use store::{GroupedWrite, OpenOptions, Opening, Store, DEFAULT_COMPACT_AFTER};
