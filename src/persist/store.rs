//! `Store<S>`: an engine bound to host storage. Every write goes through [`Store::mutate`]: the
//! engine call runs (synchronously, journaling its befores), its changes are written as one chunk,
//! and only then does the call resolve. If the write fails the journal is undone, so memory and
//! storage agree, and the storage error is returned.

use std::collections::BTreeSet;

use super::export;
use super::graphs;
use super::identity::EmbedderIdentity;
use super::keys::{self, chunk_key, head_key, snapshot_key};
use super::load;
use super::ops::{Op, OpWriter};
use super::record::{self, RecordKind};
use crate::engine::{Added, Changes, DeletedSession, EngineOptions, Engram, Hit, Ingested, MemoryPatch, Merged, NewMemory, RecordChange, SessionInput, VectorTarget};
use crate::error::{Error, ErrorCode, Result};
use crate::host::{Clock, Storage, StorageKey};
use crate::index::vector::{BuildInput, BuildOutput, Installed};
use crate::model::Memory;
use crate::recall::SearchRequest;

/// Chunks written since the last snapshot before one is written automatically.
pub const DEFAULT_COMPACT_AFTER: usize = 1024;

pub struct OpenOptions {
    pub engine: EngineOptions,
    /// When the store's vectors come from another embedder than `engine.embedder`: re-embed every
    /// record with the new one instead of refusing to open.
    pub reembed: bool,
    /// Chunks since the last snapshot that trigger a compaction (at least 1).
    pub compact_after: usize,
    /// The embedder whose vectors the host passes in, when `engine.embedder` is not set (a host
    /// embedder in JS): recorded and checked like a local embedder's identity.
    pub identity: Option<EmbedderIdentity>,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions { engine: EngineOptions::default(), reembed: false, compact_after: DEFAULT_COMPACT_AFTER, identity: None }
    }
}

pub struct Store<S: Storage> {
    engine: Engram,
    storage: S,
    /// Sequence number of the last committed chunk (or of the base snapshot).
    last: u64,
    /// Chunks committed since the base snapshot, and their bytes.
    chunks_since_snapshot: usize,
    chunk_bytes: usize,
    /// Size of the base snapshot record (0 without one).
    snapshot_bytes: usize,
    compact_after: usize,
    identity: Option<EmbedderIdentity>,
    /// The identity is known but not yet in storage (first write of a store opened with an embedder).
    identity_pending: bool,
    /// Memories touched by searches whose new access counts are not written yet.
    touched: BTreeSet<String>,
    /// Keys made obsolete by the base snapshot or to be made obsolete by the next one.
    obsolete: Vec<StorageKey>,
    /// Vector graph segments in storage and named by its segment list.
    segments_stored: BTreeSet<(VectorTarget, u64)>,
    /// Segment keys no list names (an install interrupted before its cleanup).
    stale_segments: Vec<StorageKey>,
}

/// Storage errors keep their code (Storage / StorageFull); any other code from an adapter is a
/// storage failure too.
fn storage_error(e: Error) -> Error {
    match e.code {
        ErrorCode::Storage | ErrorCode::StorageFull => e,
        _ => Error::new(ErrorCode::Storage, e.message),
    }
}

impl<S: Storage> Store<S> {
    /// Opens the store kept in `storage` (empty storage: a new store).
    pub async fn open(storage: S, clock: Box<dyn Clock>, options: OpenOptions) -> Result<Self> {
        let loaded = Self::read_image(&storage).await?;
        let wanted = options.engine.embedder.as_deref().map(EmbedderIdentity::of).or(options.identity);
        let mismatch = matches!((&loaded.identity, &wanted), (Some(have), Some(want)) if have != want);
        if mismatch && !options.reembed {
            let (have, want) = (loaded.identity.as_ref().map(ToString::to_string), wanted.as_ref().map(ToString::to_string));
            return Err(Error::embedder(format!(
                "this store's vectors were made by {}; the embedder given is {} (open with reembed to re-embed every record)",
                have.unwrap_or_default(),
                want.unwrap_or_default()
            )));
        }
        let mut engine = Engram::new(clock, options.engine);
        engine.record_changes(true);
        let mut store = Store {
            engine,
            storage,
            last: 0,
            chunks_since_snapshot: 0,
            chunk_bytes: 0,
            snapshot_bytes: 0,
            compact_after: options.compact_after.max(1),
            identity: None,
            identity_pending: false,
            touched: BTreeSet::new(),
            obsolete: Vec::new(),
            segments_stored: BTreeSet::new(),
            stale_segments: Vec::new(),
        };
        store.adopt(loaded, mismatch)?;
        if let Some(want) = wanted {
            store.identity_pending = store.identity.as_ref() != Some(&want);
            store.identity = Some(want);
        }
        if mismatch {
            store.mutate(|e| e.reembed()).await?;
        }
        Ok(store)
    }

    async fn read_image(storage: &S) -> Result<load::Loaded> {
        let records = storage.load_range(&keys::root()).await.map_err(storage_error)?;
        load::load(records)
    }

    /// Makes a loaded image this store's state (`drop_vectors`: its vectors are of another
    /// embedder and are about to be remade).
    fn adopt(&mut self, mut loaded: load::Loaded, drop_vectors: bool) -> Result<()> {
        if drop_vectors {
            loaded.state.memories.iter_mut().for_each(|(_, v)| *v = None);
            loaded.state.raw.iter_mut().for_each(|(_, v)| *v = None);
        }
        self.engine.load_state_with(loaded.state, loaded.prebuilt)?;
        self.last = loaded.last;
        self.chunks_since_snapshot = (loaded.last - loaded.base) as usize;
        self.chunk_bytes = 0;
        self.snapshot_bytes = loaded.base_bytes;
        self.identity = loaded.identity;
        self.identity_pending = false;
        self.touched.clear();
        self.obsolete = loaded.obsolete;
        self.segments_stored = loaded.segments.into_iter().collect();
        self.stale_segments = loaded.stale_segments;
        Ok(())
    }

    /// Brings this store up to date with what other writers sharing its storage (another tab, another
    /// process) committed since it last looked: their chunks are applied in order; if one of them
    /// compacted past what this store has read, the whole image is reloaded. Returns whether anything
    /// changed. Two writers must never commit concurrently: hold the storage's writer lock around
    /// `sync` and the write that follows it (the JS facade does). Reading without the lock is safe; a
    /// chunk being written meanwhile is simply not seen yet.
    pub async fn sync(&mut self) -> Result<bool> {
        self.note_touches();
        let head = self.storage.load(&head_key()).await.map_err(storage_error)?;
        // Unreadable head (a non-atomic adapter torn mid-write): assume the worst and reload.
        let newest_snapshot = head.map_or(0, |b| record::decode_kind(&b, RecordKind::Head).map_or(u64::MAX, |(seq, _)| seq));
        if newest_snapshot > self.last {
            let loaded = Self::read_image(&self.storage).await?;
            self.check_identity(loaded.identity.as_ref())?;
            let wanted = self.identity.clone();
            self.adopt(loaded, false)?;
            if self.identity.is_none() {
                self.identity_pending = wanted.is_some();
                self.identity = wanted;
            }
            return Ok(true);
        }
        let mut changed = false;
        loop {
            let seq = self.last + 1;
            let key = chunk_key(seq);
            let Some(bytes) = self.storage.load(&key).await.map_err(storage_error)? else { break };
            // A torn chunk is a write in flight (or one that crashed): not committed, not seen.
            let Some(ops) = load::read(&bytes, RecordKind::Chunk, seq)? else { break };
            self.apply_foreign(ops)?;
            self.last = seq;
            self.chunks_since_snapshot += 1;
            self.chunk_bytes += bytes.len();
            self.obsolete.push(key);
            changed = true;
        }
        Ok(changed)
    }

    /// Another writer's vectors must come from this store's embedder.
    fn check_identity(&self, theirs: Option<&EmbedderIdentity>) -> Result<()> {
        match (&self.identity, theirs) {
            (Some(mine), Some(theirs)) if mine != theirs => {
                Err(Error::embedder(format!("another writer switched this store's vectors to {theirs}; this instance makes {mine}: reopen it with that embedder")))
            }
            _ => Ok(()),
        }
    }

    fn apply_foreign(&mut self, ops: Vec<Op>) -> Result<()> {
        let mut changes = Vec::with_capacity(ops.len());
        for op in ops {
            changes.push(match op {
                Op::Reset => RecordChange::Reset,
                Op::PutMemory(m, v) => RecordChange::Memory { id: m.id.clone(), value: Some((m, v)) },
                Op::DeleteMemory(id) => RecordChange::Memory { id, value: None },
                Op::PutRaw(e, v) => RecordChange::Raw { id: e.id.clone(), value: Some((e, v)) },
                Op::DeleteRaw(id) => RecordChange::Raw { id, value: None },
                Op::History(h) => RecordChange::History(h),
                Op::ForgetHistoryText(id) => RecordChange::ForgetHistoryText(id),
                Op::Embedder(id) => {
                    self.check_identity(Some(&id))?;
                    // The other writer stored the identity; it is ours too, nothing left to write.
                    self.identity = Some(id);
                    self.identity_pending = false;
                    continue;
                }
                // Only snapshots carry index entries, and a chunk's records are indexed as replayed.
                Op::KeywordTerms(_) => continue,
            });
        }
        self.engine.replay(changes)
    }

    pub fn engine(&self) -> &Engram {
        &self.engine
    }

    pub fn storage(&self) -> &S {
        &self.storage
    }

    pub fn embedder_identity(&self) -> Option<&EmbedderIdentity> {
        self.identity.as_ref()
    }

    /// Runs one engine write and persists what it changed as one chunk before returning. On a
    /// storage failure the change is undone and the typed storage error returned; on an engine error
    /// nothing was changed or written.
    pub async fn mutate<T>(&mut self, op: impl FnOnce(&mut Engram) -> Result<T>) -> Result<T> {
        let out = op(&mut self.engine);
        let changes = self.engine.take_changes();
        match out {
            Ok(v) => {
                self.commit(changes).await?;
                Ok(v)
            }
            Err(e) => {
                self.engine.undo(changes);
                Err(e)
            }
        }
    }

    pub async fn add(&mut self, input: NewMemory) -> Result<Added> {
        self.mutate(|e| e.add(input)).await
    }
    pub async fn update(&mut self, id: &str, patch: MemoryPatch) -> Result<Memory> {
        self.mutate(|e| e.update(id, patch)).await
    }
    pub async fn delete(&mut self, id: &str) -> Result<()> {
        self.mutate(|e| e.delete(id)).await
    }
    pub async fn delete_all(&mut self, namespace: Option<&str>) -> Result<usize> {
        self.mutate(|e| e.delete_all(namespace)).await
    }
    pub async fn ingest(&mut self, session: SessionInput) -> Result<Ingested> {
        self.mutate(|e| e.ingest(session)).await
    }
    pub async fn delete_session(&mut self, session_id: &str) -> Result<DeletedSession> {
        self.mutate(|e| e.delete_session(session_id)).await
    }
    pub async fn reset(&mut self) -> Result<()> {
        self.mutate(|e| {
            e.reset();
            Ok(())
        })
        .await
    }

    /// Search; the access counts it touches are written with the next write or `flush`.
    pub fn search(&mut self, req: &SearchRequest) -> Result<Vec<Hit>> {
        let hits = self.engine.search(req);
        self.note_touches();
        hits
    }

    /// Any read that may touch access counts (`recall_context`, …): touches are kept for the next
    /// write. Writes must go through `mutate`.
    pub fn read<T>(&mut self, f: impl FnOnce(&mut Engram) -> T) -> T {
        let out = f(&mut self.engine);
        self.note_touches();
        // A write here would bypass the commit; put it back rather than leave memory ahead of storage.
        let stray = self.engine.take_changes();
        if !stray.is_empty() {
            debug_assert!(false, "Store::read made a write; use Store::mutate");
            self.engine.undo(stray);
        }
        out
    }

    fn note_touches(&mut self) {
        self.touched.extend(self.engine.take_touched());
    }

    /// Writes whatever is not yet in storage (search touches). After it resolves, everything done
    /// before it survives a crash.
    pub async fn flush(&mut self) -> Result<()> {
        self.note_touches();
        self.commit(Changes::default()).await
    }

    /// Writes the changes of one call as the next chunk (nothing if there is nothing to write).
    async fn commit(&mut self, changes: Changes) -> Result<()> {
        self.note_touches();
        if changes.is_empty() && self.touched.is_empty() && !self.identity_pending {
            return Ok(());
        }
        let body = self.chunk_body(&changes);
        let seq = self.last + 1;
        let key = chunk_key(seq);
        let bytes = record::encode(RecordKind::Chunk, seq, &body);
        if let Err(e) = self.storage.save(&key, &bytes).await {
            self.engine.undo(changes);
            // The write may have landed in part; clear it so a rejected call never resurfaces. If
            // this fails too, the next chunk overwrites the same key.
            let _ = self.storage.remove(&key).await;
            return Err(storage_error(e));
        }
        self.last = seq;
        self.chunks_since_snapshot += 1;
        self.chunk_bytes += bytes.len();
        self.obsolete.push(key);
        self.touched.clear();
        self.identity_pending = false;
        if self.should_compact() {
            // The call is already durable; a failed compaction only leaves more chunks to read and
            // is retried after the next write.
            let _ = self.write_snapshot().await;
        }
        Ok(())
    }

    /// After `compact_after` chunks, once they add up to half the last snapshot: rewriting a large
    /// store costs O(store), so it waits until the chunks are worth it (write amplification ≤ ~3×),
    /// but never beyond 16 × `compact_after` chunks (bounded work on open).
    fn should_compact(&self) -> bool {
        let n = self.chunks_since_snapshot;
        n >= self.compact_after && (self.chunk_bytes * 2 >= self.snapshot_bytes || n >= self.compact_after.saturating_mul(16))
    }

    fn chunk_body(&self, changes: &Changes) -> Vec<u8> {
        let mut w = OpWriter::default();
        if changes.reset() {
            w.reset();
        }
        if self.identity_pending {
            if let Some(id) = &self.identity {
                w.embedder(id);
            }
        }
        let mut written: BTreeSet<&str> = BTreeSet::new();
        for id in changes.memory_ids().chain(self.touched.iter().map(String::as_str)) {
            if !written.insert(id) {
                continue;
            }
            match self.engine.memory_with_vector(id) {
                Some((m, v)) => w.put_memory(m, v),
                None if changes.memory_ids().any(|c| c == id) => w.delete_memory(id),
                None => {}
            }
        }
        for id in changes.raw_ids() {
            match self.engine.raw_with_vector(id) {
                Some((e, v)) => w.put_raw(e, v),
                None => w.delete_raw(id),
            }
        }
        if let Some(from) = changes.history_from() {
            for h in self.engine.history_events().get(from..).unwrap_or_default() {
                w.history(h);
            }
        }
        // After the appended events: a forgotten memory's events, new ones included, have no text.
        for id in changes.history_text_forgotten() {
            w.forget_history_text(id);
        }
        w.into_bytes()
    }

    /// Writes the whole state as a snapshot, then removes the chunks and snapshots it replaces. New
    /// data first, old data after: a crash at any point leaves a loadable image.
    pub async fn compact(&mut self) -> Result<()> {
        self.flush().await?;
        self.write_snapshot().await
    }

    async fn write_snapshot(&mut self) -> Result<()> {
        if self.chunks_since_snapshot == 0 {
            return Ok(());
        }
        let seq = self.last;
        let key = snapshot_key(seq);
        let bytes = record::encode(RecordKind::Snapshot, seq, &self.snapshot_body());
        if let Err(e) = self.storage.save(&key, &bytes).await {
            // Possibly torn: harmless (its chunks are all still there), removed by a later compaction.
            if !self.obsolete.contains(&key) {
                self.obsolete.push(key);
            }
            return Err(storage_error(e));
        }
        self.chunks_since_snapshot = 0;
        self.chunk_bytes = 0;
        self.snapshot_bytes = bytes.len();
        // Other writers must learn of the snapshot before the chunks it covers go (see `sync`); if
        // they cannot, the chunks stay until a later compaction.
        self.storage.save(&head_key(), &record::encode(RecordKind::Head, seq, &[])).await.map_err(storage_error)?;
        let mut obsolete = std::mem::take(&mut self.obsolete);
        obsolete.retain(|k| *k != key);
        while let Some(k) = obsolete.pop() {
            if let Err(e) = self.storage.remove(&k).await {
                obsolete.push(k);
                self.obsolete = obsolete;
                self.obsolete.push(key);
                return Err(storage_error(e));
            }
        }
        self.obsolete.push(key);
        Ok(())
    }

    fn snapshot_body(&self) -> Vec<u8> {
        export::snapshot_ops(&self.engine, self.identity.as_ref()).into_bytes()
    }

    /// The next vector index build worth doing (see [`Engram::plan_vector_build`]); build it
    /// anywhere, then hand the output to [`Store::install_vector_build`].
    pub fn plan_vector_build(&mut self, force: bool) -> Option<BuildInput> {
        self.engine.plan_vector_build(force)
    }

    /// Installs a build's output and persists the segments: new segments first, then the list that
    /// names them, then the removal of segments no longer listed. A failed write leaves the
    /// installed graph serving queries (it is derived data; the records are untouched) and returns
    /// the storage error; the store on disk still names only complete segments.
    pub async fn install_vector_build(&mut self, output: BuildOutput) -> Result<(VectorTarget, Installed)> {
        let out = self.engine.install_vector_build(output)?;
        self.persist_segments().await?;
        Ok(out)
    }

    async fn persist_segments(&mut self) -> Result<()> {
        let mut current = BTreeSet::new();
        for target in VectorTarget::ALL {
            for (id, graph) in self.engine.vector_segments(target) {
                current.insert((target, id));
                if self.segments_stored.contains(&(target, id)) {
                    continue;
                }
                let value = graphs::encode_segment(&self.engine.vector_segment_ids(target, graph), &graph.to_bytes());
                self.storage.save(&keys::segment_key(target, id), &value).await.map_err(storage_error)?;
            }
        }
        if current == self.segments_stored && self.stale_segments.is_empty() {
            return Ok(());
        }
        let list: Vec<(VectorTarget, u64)> = current.iter().copied().collect();
        self.storage.save(&keys::segment_list_key(), &graphs::encode_list(&list)).await.map_err(storage_error)?;
        let dropped: Vec<(VectorTarget, u64)> = self.segments_stored.difference(&current).copied().collect();
        self.segments_stored = current;
        self.stale_segments.extend(dropped.into_iter().map(|(t, id)| keys::segment_key(t, id)));
        while let Some(key) = self.stale_segments.pop() {
            if let Err(e) = self.storage.remove(&key).await {
                self.stale_segments.push(key);
                return Err(storage_error(e));
            }
        }
        Ok(())
    }

    /// The whole store, or one namespace, as one portable file (see [`super::export`]).
    pub fn export(&self, namespace: Option<&str>) -> Vec<u8> {
        export::export(&self.engine, self.identity.as_ref(), namespace)
    }

    /// Validates an export file and merges it by id (records with the same id are replaced), as one
    /// write. Refused before any change if the file is damaged (`Corrupt`) or was made with another
    /// embedder (`Embedder`).
    pub async fn import(&mut self, bytes: &[u8]) -> Result<Merged> {
        let file = export::decode_export(bytes)?;
        if let (Some(have), Some(given)) = (&self.identity, &file.identity) {
            if have != given {
                return Err(Error::embedder(format!("the file's vectors were made by {given}; this store's by {have}")));
            }
        }
        let adopt = self.identity.is_none() && file.identity.is_some();
        if adopt {
            self.identity = file.identity;
            self.identity_pending = true;
        }
        let out = self.mutate(|e| e.merge_state(file.state)).await;
        if adopt && out.is_err() {
            self.identity = None;
            self.identity_pending = false;
        }
        out
    }
}
