//! `Store<S>`: an engine bound to host storage. Every write goes through [`Store::mutate`]: the
//! engine call runs (synchronously, journaling its befores), its changes are written as one chunk,
//! and only then does the call resolve. If the write fails the journal is undone, so memory and
//! storage agree, and the storage error is returned.

use std::collections::BTreeSet;

use super::block_on::both;
use super::export;
use super::graphs;
use super::identity::EmbedderIdentity;
use super::keys::{self, chunk_key, head_key, head_marker_key, snapshot_key, StoredKey};
use super::load;
use super::ops::{Op, OpWriter};
use super::record::{self, RecordKind};
use crate::engine::{Added, Changes, DeletedSession, EngineOptions, Engram, Hit, Ingested, MemoryPatch, Merged, NewMemory, RecordChange, Reembed, SessionInput, VectorTarget};
use crate::error::{Error, ErrorCode, Result};
use crate::host::{Clock, Storage, StorageKey};
use crate::index::vector::{BuildInput, BuildOutput, Installed};
use crate::model::Memory;
use crate::recall::SearchRequest;

/// Chunks written since the last snapshot before one is written automatically.
pub const DEFAULT_COMPACT_AFTER: usize = 1024;

/// Times one write is run again after other writers took its sequence number (each time after
/// applying what they wrote): only writers that commit without the storage lock can get there.
const COMMIT_ATTEMPTS: usize = 64;

/// One write of a group commit ([`Store::mutate_many`]): run again if the group must be.
pub type GroupedWrite<'a, T> = Box<dyn FnMut(&mut Engram) -> Result<T> + 'a>;

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
    /// A newest chunk damaged after it was written: refuse to open (the default), or open without
    /// it and report it (`Store::take_skipped`).
    pub damage: load::Damage,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions { engine: EngineOptions::default(), reembed: false, compact_after: DEFAULT_COMPACT_AFTER, identity: None, damage: load::Damage::Refuse }
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
    /// After a failed automatic compaction, the next one waits until this many chunks.
    compact_floor: usize,
    /// An automatic compaction's failure, until the host takes it to report it.
    compaction_failure: Option<Error>,
    /// Body bytes the next chunk is known to need (an import: its file's body), reserved up front.
    chunk_hint: usize,
    damage: load::Damage,
    /// Every damaged record left out so far (with `Damage::Skip`), each once however often it is
    /// met; those from `reported` on are not yet handed to the host.
    skipped: Vec<load::Skipped>,
    reported: usize,
    /// Set by the host while it holds a writer lock whose adapter fences `create` with it (see
    /// [`Store::set_fenced`]).
    fenced: bool,
}

/// Storage errors keep their code (Storage / StorageFull, and Corrupt: an adapter that can tell its
/// records are unreadable, such as an encrypting one given the wrong key, says so); any other code
/// from an adapter is a storage failure too.
fn storage_error(e: Error) -> Error {
    match e.code {
        ErrorCode::Storage | ErrorCode::StorageFull | ErrorCode::Corrupt => e,
        _ => Error::new(ErrorCode::Storage, e.message),
    }
}

/// A store being opened whose records still wait for the new embedder's vectors ([`Store::opening`]).
pub struct Opening<S: Storage> {
    store: Store<S>,
    reembed: Option<Reembed>,
}

impl<S: Storage> Opening<S> {
    /// Records re-embedded so far, and in all (`(0, 0)` when nothing is to be re-embedded).
    pub fn progress(&self) -> (usize, usize) {
        self.reembed.as_ref().map_or((0, 0), Reembed::progress)
    }

    /// Embeds the next batch; returns whether any remain.
    pub fn step(&mut self) -> Result<bool> {
        match &mut self.reembed {
            Some(job) => job.step(&self.store.engine),
            None => Ok(false),
        }
    }

    /// The open store, with the new vectors written as one chunk. Dropping an `Opening` instead
    /// leaves storage as it was.
    pub async fn finish(mut self) -> Result<Store<S>> {
        if let Some(job) = self.reembed.take() {
            self.store.mutate(|e| e.apply_reembed(&job)).await?;
        }
        Ok(self.store)
    }
}

impl<S: Storage> Store<S> {
    /// Opens the store kept in `storage` (empty storage: a new store).
    pub async fn open(storage: S, clock: Box<dyn Clock>, options: OpenOptions) -> Result<Self> {
        let mut opening = Self::opening(storage, clock, options).await?;
        while opening.step()? {}
        opening.finish().await
    }

    /// [`Store::open`] in steps: the store as loaded, with the re-embedding `reembed` asked for still
    /// to run batch by batch ([`Opening::step`]), so a host can report progress and give up between
    /// batches; nothing is written before [`Opening::finish`].
    pub async fn opening(storage: S, clock: Box<dyn Clock>, options: OpenOptions) -> Result<Opening<S>> {
        let loaded = Self::read_image(&storage, options.damage).await?;
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
            compact_floor: 0,
            compaction_failure: None,
            chunk_hint: 0,
            damage: options.damage,
            skipped: Vec::new(),
            reported: 0,
            fenced: false,
        };
        store.adopt(loaded, mismatch)?;
        if let Some(want) = wanted {
            store.identity_pending = store.identity.as_ref() != Some(&want);
            store.identity = Some(want);
        }
        let reembed = if mismatch { Some(store.engine.plan_reembed()?) } else { None };
        Ok(Opening { store, reembed })
    }

    /// The image in storage. Read again if a snapshot was made while the records were read (by a
    /// writer compacting meanwhile, which the lock does not keep out of reads): they may mix what
    /// the snapshot replaced with what came after it.
    async fn read_image(storage: &S, damage: load::Damage) -> Result<load::Loaded> {
        for _ in 0..COMMIT_ATTEMPTS {
            let before = Self::newest_snapshot(storage).await?;
            let records = storage.load_range(&keys::root()).await.map_err(storage_error)?;
            if Self::newest_snapshot(storage).await? == before {
                return load::load(records, damage);
            }
        }
        Err(Error::new(ErrorCode::Storage, format!("other writers compacted the store {COMMIT_ATTEMPTS} times while it was being read")))
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
        for skipped in loaded.skipped {
            self.note_skipped(skipped);
        }
        Ok(())
    }

    fn note_skipped(&mut self, skipped: load::Skipped) {
        if !self.skipped.contains(&skipped) {
            self.skipped.push(skipped);
        }
    }

    /// Damaged records left out since the last call (opened with `Damage::Skip`), for the host to
    /// report.
    pub fn take_skipped(&mut self) -> Vec<load::Skipped> {
        let new = self.skipped[self.reported..].to_vec();
        self.reported = self.skipped.len();
        new
    }

    /// Brings this store up to date with what other writers sharing its storage (another tab, another
    /// process) committed since it last looked: their chunks are applied in order; if one of them
    /// compacted past what this store has read, the whole image is reloaded. Returns whether anything
    /// changed. Hold the storage's writer lock around `sync` and the write that follows it (the JS
    /// facade does): then the write's sequence number is free. Without the lock nothing is lost
    /// either (see [`Store::mutate`]), the write just runs again. Reading without the lock is safe;
    /// a chunk being written meanwhile is simply not seen yet.
    pub async fn sync(&mut self) -> Result<bool> {
        self.note_touches();
        // The head and the next chunk are read side by side (one round trip to a remote store), so
        // storage may answer them in either order. What sync must catch is a snapshot at or past a
        // chunk it applies (a chunk written below it is one no load reads). The newest snapshot
        // only grows (a marker is saved after its snapshot and removed only by a later compaction,
        // after that one's own marker; the head record never moves back), and every chunk applied
        // is past `last`: a snapshot at or past one that exists when the head is read makes
        // `head > last` (reload, the probe unused), one made later is caught by the head read
        // again below, issued after the last chunk read returned. Neither depends on whether the
        // probe was answered first. The order only decides whether a snapshot at or below `last`
        // made between the two answers shows as the head moving; it covers none of the chunks
        // applied, so missing it loses nothing (reading head first would reload for it).
        let probe = chunk_key(self.last + 1);
        let (head, next) = both(Self::newest_snapshot(&self.storage), self.storage.load(&probe)).await;
        let head = head?;
        // A torn head (a non-atomic adapter cut mid-write): assume the worst and reload.
        if head.is_none_or(|seq| seq > self.last) {
            self.reload().await?;
            return Ok(true);
        }
        let mut changed = false;
        let applied = self.apply_next_chunks(next.map_err(storage_error), &mut changed).await;
        // A writer without the lock may have compacted meanwhile and another written a chunk below
        // its snapshot, one no load will read: if the head moved, what was applied may be such a
        // chunk, and the image is what counts.
        if (changed || applied.is_err()) && Self::newest_snapshot(&self.storage).await? != head {
            self.reload().await?;
            return Ok(true);
        }
        applied.map(|()| changed)
    }

    /// Applies the chunks after `last` while they are there and whole; `next` is what reading the
    /// first of them (chunk `last + 1`) returned.
    async fn apply_next_chunks(&mut self, mut next: Result<Option<Vec<u8>>>, changed: &mut bool) -> Result<()> {
        loop {
            let seq = self.last + 1;
            let key = chunk_key(seq);
            let Some(bytes) = next? else { return Ok(()) };
            // A torn chunk is a write in flight (or one that crashed): not committed, not seen. One
            // written whole and damaged since is refused, or left out and reported.
            let Some(ops) = load::read(&bytes, RecordKind::Chunk, seq)? else {
                if !record::is_torn(&bytes) {
                    let skipped = load::damaged_chunk(&key, seq, &bytes, self.damage)?;
                    self.note_skipped(skipped);
                }
                return Ok(());
            };
            self.apply_foreign(ops)?;
            self.last = seq;
            self.chunks_since_snapshot += 1;
            self.chunk_bytes += bytes.len();
            self.obsolete.push(key);
            *changed = true;
            next = self.storage.load(&chunk_key(self.last + 1)).await.map_err(storage_error);
        }
    }

    /// Replaces this store's state with the image in storage (another writer compacted past it).
    async fn reload(&mut self) -> Result<()> {
        let loaded = Self::read_image(&self.storage, self.damage).await?;
        self.check_identity(loaded.identity.as_ref())?;
        let wanted = self.identity.clone();
        self.adopt(loaded, false)?;
        if self.identity.is_none() {
            self.identity_pending = wanted.is_some();
            self.identity = wanted;
        }
        Ok(())
    }

    /// The sequence number of the newest snapshot: the largest head marker, or the head record
    /// (written by earlier versions too); 0 without any, `None` if the head record does not read
    /// back whole. A marker's key is its sequence: it is saved after its snapshot.
    async fn newest_snapshot(storage: &S) -> Result<Option<u64>> {
        let mut newest = Some(0);
        for (key, bytes) in storage.load_range(&head_key()).await.map_err(storage_error)? {
            let seq = match keys::parse(&key) {
                Some(StoredKey::HeadMarker(seq)) => Some(seq),
                Some(StoredKey::Head) => record::decode_kind(&bytes, RecordKind::Head).ok().map(|(seq, _)| seq),
                _ => continue,
            };
            newest = newest.zip(seq).map(|(a, b)| a.max(b));
        }
        Ok(newest)
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
    ///
    /// If another writer committed under the same sequence number first (it wrote without holding
    /// the storage lock, or the lock failed), the change is undone, that writer's chunks applied, and
    /// `op` runs again on the new state — so `op` may run more than once.
    pub async fn mutate<T>(&mut self, mut op: impl FnMut(&mut Engram) -> Result<T>) -> Result<T> {
        for _ in 0..COMMIT_ATTEMPTS {
            let out = op(&mut self.engine);
            let changes = self.engine.take_changes();
            match out {
                Ok(v) => {
                    if self.commit(changes).await? {
                        return Ok(v);
                    }
                }
                Err(e) => {
                    self.engine.undo(changes);
                    return Err(e);
                }
            }
        }
        Err(Error::new(ErrorCode::Storage, format!("other writers took this write's place in storage {COMMIT_ATTEMPTS} times in a row; nothing was written")))
    }

    /// Group commit: runs several engine writes in order and persists what all of them changed as
    /// one chunk — one storage write (one fsync) for the group. Each write's own outcome is in the
    /// returned list: a write the engine refuses changes nothing and is left out of the chunk, the
    /// others go on. If the chunk cannot be written, every write of the group is undone and the
    /// storage error returned: none of them is acknowledged, none stays visible. If another writer
    /// took the chunk's place, the whole group runs again on the new state (as [`Store::mutate`]).
    pub async fn mutate_many<T>(&mut self, ops: &mut [GroupedWrite<'_, T>]) -> Result<Vec<Result<T>>> {
        for _ in 0..COMMIT_ATTEMPTS {
            let mut outs = Vec::with_capacity(ops.len());
            let mut all = Changes::default();
            for op in ops.iter_mut() {
                let out = op(&mut self.engine);
                let changes = self.engine.take_changes();
                if out.is_ok() {
                    all.append(changes);
                } else {
                    self.engine.undo(changes);
                }
                outs.push(out);
            }
            if self.commit(all).await? {
                return Ok(outs);
            }
        }
        Err(Error::new(ErrorCode::Storage, format!("other writers took this write's place in storage {COMMIT_ATTEMPTS} times in a row; nothing was written")))
    }

    pub async fn add(&mut self, input: NewMemory) -> Result<Added> {
        self.mutate(|e| e.add(input.clone())).await
    }
    pub async fn update(&mut self, id: &str, patch: MemoryPatch) -> Result<Memory> {
        self.mutate(|e| e.update(id, patch.clone())).await
    }
    pub async fn delete(&mut self, id: &str) -> Result<()> {
        self.mutate(|e| e.delete(id)).await
    }
    pub async fn delete_all(&mut self, namespace: Option<&str>) -> Result<usize> {
        self.mutate(|e| e.delete_all(namespace)).await
    }
    pub async fn ingest(&mut self, session: SessionInput) -> Result<Ingested> {
        self.mutate(|e| e.ingest(session.clone())).await
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

    /// Declares whether the writes that follow are fenced by the storage's writer lock: the adapter
    /// holds the lock and refuses a `create` unless the lock is still held when it writes (a
    /// database advisory lock on the connection that writes). Then no other writer honouring the
    /// lock can have compacted past a chunk this store creates, and the placement check after each
    /// create (one more round trip to a remote store) is left out. A writer that ignores the lock is
    /// not caught while this is set, so the host sets it only around commits it makes under such
    /// an adapter's lock, and clears it after.
    pub fn set_fenced(&mut self, fenced: bool) {
        self.fenced = fenced;
    }

    /// Writes whatever is not yet in storage (search touches). After it resolves, everything done
    /// before it survives a crash.
    pub async fn flush(&mut self) -> Result<()> {
        self.mutate(|_| Ok(())).await
    }

    /// Writes the changes of one call as the next chunk (nothing if there is nothing to write),
    /// created only if no other writer has taken that sequence number. `Ok(false)`: one had; the
    /// changes are undone and its chunks applied, for the caller to run the call again.
    async fn commit(&mut self, changes: Changes) -> Result<bool> {
        self.note_touches();
        if changes.is_empty() && self.touched.is_empty() && !self.identity_pending {
            return Ok(true);
        }
        let seq = self.last + 1;
        let key = chunk_key(seq);
        let bytes = self.chunk_record(&changes, seq);
        match self.storage.create(&key, &bytes).await {
            Ok(true) => {}
            Ok(false) => {
                self.engine.undo(changes);
                self.sync().await?;
                if self.last < seq {
                    // The chunk there does not read back whole: a write torn by a crash, never
                    // committed. Clear it so the sequence can go on.
                    self.storage.remove(&key).await.map_err(storage_error)?;
                }
                return Ok(false);
            }
            // The adapter reported a failure, but if the chunk is there, whole, it is committed
            // (others may already have read it): the call succeeded.
            Err(e) => {
                if !self.landed(&key, &bytes).await {
                    self.engine.undo(changes);
                    return Err(storage_error(e));
                }
            }
        }
        let placed = if self.fenced { Ok(true) } else { self.check_placed(seq).await };
        match placed {
            Ok(true) => {}
            Ok(false) => {
                // Below a snapshot another writer made meanwhile: no load would ever read it.
                self.storage.remove(&key).await.map_err(storage_error)?;
                self.engine.undo(changes);
                self.sync().await?;
                return Ok(false);
            }
            Err(e) => {
                // Best effort: what is left is never read (nothing leads up to it), or, if the
                // check only failed to look, is found by the next sync.
                let _ = self.storage.remove(&key).await;
                self.engine.undo(changes);
                return Err(e);
            }
        }
        self.last = seq;
        self.chunks_since_snapshot += 1;
        self.chunk_bytes += bytes.len();
        self.obsolete.push(key);
        self.touched.clear();
        self.identity_pending = false;
        if self.should_compact() {
            // The call is already durable; a failed compaction only leaves more chunks to read. It
            // is reported once (`take_compaction_failure`) and tried again after twice the chunks.
            if let Err(e) = self.write_snapshot().await {
                if self.compact_floor == 0 {
                    self.compaction_failure = Some(e); // the first of a run of failures
                }
                self.compact_floor = self.chunks_since_snapshot.max(self.compact_after).saturating_mul(2);
            }
        }
        Ok(true)
    }

    /// Whether a chunk whose save reported a failure is in storage all the same, byte for byte. A
    /// torn copy is removed (best effort: a torn chunk is ignored by loads, and cleared by the next
    /// commit that meets it).
    async fn landed(&self, key: &[String], bytes: &[u8]) -> bool {
        match self.storage.load(key).await {
            Ok(Some(stored)) if stored == bytes => true,
            Ok(Some(stored)) if record::decode_kind(&stored, RecordKind::Chunk).is_err() => {
                let _ = self.storage.remove(key).await;
                false
            }
            _ => false,
        }
    }

    /// After chunk `seq` was created: whether a load will read it. `Ok(false)`: another writer
    /// compacted past it meanwhile (one that wrote without the lock, or this store did). An error
    /// when what comes before it is gone — the database deleted or evicted, the directory removed
    /// under a live store: acknowledging the chunk would report success for data that cannot be
    /// reopened.
    ///
    /// The head and the previous chunk are read side by side (one round trip to a remote store),
    /// both issued after the create returned, so storage may answer them in either order. "Placed"
    /// rests on two facts, each established by one read on its own whenever it is answered after
    /// the create: no snapshot at or past `seq` (a writer that compacted past this chunk) and the
    /// record before `seq` present (storage that vanished); neither needs the other read first.
    /// When that record is missing, the snapshot at `seq - 1` and then the head are read again, in
    /// turn, to tell a compaction from vanished storage. A compaction that removed chunk `seq - 1`
    /// saved its marker (at `seq - 1` or past it) first; if the first head read was answered after
    /// the chunk read it already shows that marker: past `seq - 1` is not placed at once, and at
    /// `seq - 1` its snapshot (saved before the marker) is found, unless a later compaction removed
    /// it after saving its own marker past `seq`, which the second head read shows. If the first
    /// head read was answered before the chunk read, the second one shows the move, as when the
    /// reads were made in turn. So storage is reported gone only when no compaction explains it.
    async fn check_placed(&self, seq: u64) -> Result<bool> {
        if seq == 1 {
            let head = Self::newest_snapshot(&self.storage).await?;
            return Ok(head.is_none_or(|head| head < seq));
        }
        let before = chunk_key(seq - 1);
        let (head, previous) = both(Self::newest_snapshot(&self.storage), self.storage.load(&before)).await;
        let head = head?;
        if head.is_some_and(|head| head >= seq) {
            return Ok(false);
        }
        if previous.map_err(storage_error)?.is_some() || self.storage.load(&snapshot_key(seq - 1)).await.map_err(storage_error)?.is_some() {
            return Ok(true);
        }
        // Gone, or compacted away just now by another writer: then the head moved.
        let now = Self::newest_snapshot(&self.storage).await?;
        if now != head {
            return Ok(now.is_none_or(|head| head < seq));
        }
        Err(Error::new(
            ErrorCode::Storage,
            format!(
                "the store's records (up to sequence {}) are gone from storage: it was deleted, evicted or removed while open; nothing was written (reopen the store)",
                seq - 1
            ),
        ))
    }

    /// The failure of an automatic compaction, once per run of failures (until one succeeds): the
    /// write that triggered it succeeded, so hosts report it out of band.
    pub fn take_compaction_failure(&mut self) -> Option<Error> {
        self.compaction_failure.take()
    }

    /// After `compact_after` chunks, once they add up to half the last snapshot: rewriting a large
    /// store costs O(store), so it waits until the chunks are worth it (write amplification ≤ ~3×),
    /// but never beyond 16 × `compact_after` chunks (bounded work on open).
    fn should_compact(&self) -> bool {
        let n = self.chunks_since_snapshot;
        n >= self.compact_after.max(self.compact_floor) && (self.chunk_bytes * 2 >= self.snapshot_bytes || n >= self.compact_after.saturating_mul(16))
    }

    /// The chunk record of one write's changes (framed in place: an import's chunk is as large as
    /// the file imported, and is not copied again).
    fn chunk_record(&self, changes: &Changes, seq: u64) -> Vec<u8> {
        let mut w = OpWriter::framed_with_capacity(self.chunk_hint);
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
        w.into_record(RecordKind::Chunk, seq)
    }

    /// Writes the whole state as a snapshot, then removes the chunks and snapshots it replaces. New
    /// data first, old data after: a crash at any point leaves a loadable image.
    pub async fn compact(&mut self) -> Result<()> {
        self.flush().await?;
        self.write_snapshot().await?;
        // Segments dropped since the last build (a namespace wipe) leave storage here too.
        self.persist_segments().await
    }

    async fn write_snapshot(&mut self) -> Result<()> {
        if self.chunks_since_snapshot == 0 {
            return Ok(());
        }
        let seq = self.last;
        let key = snapshot_key(seq);
        let bytes = export::snapshot_ops_into(&self.engine, self.identity.as_ref(), OpWriter::framed()).into_record(RecordKind::Snapshot, seq);
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
        // they cannot, the chunks stay until a later compaction. The marker makes the newest
        // snapshot known even to a writer whose head record another one overwrote.
        let head = record::encode(RecordKind::Head, seq, &[]);
        self.storage.save(&head_marker_key(seq), &head).await.map_err(storage_error)?;
        if Self::newest_snapshot(&self.storage).await?.is_none_or(|newest| newest <= seq) {
            self.storage.save(&head_key(), &head).await.map_err(storage_error)?;
        }
        // Nothing is removed until the snapshot is durable, whatever the adapter's durability: a
        // power loss must find either the chunks or the snapshot.
        self.storage.flush().await.map_err(storage_error)?;
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
        // This marker goes once the next snapshot has written its own.
        self.obsolete.push(head_marker_key(seq));
        self.compact_floor = 0;
        Ok(())
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
        self.import_decoded(export::decode_export(bytes)?).await
    }

    /// Merges a decoded export file (read whole or in slices, [`export::ExportReader`]) as one write.
    /// The decoded records move into the tables rather than being copied, so an import holds them
    /// once. If another writer takes this write's place in storage (only writers the lock does not
    /// separate), the records are gone with the undone attempt: the import is refused with
    /// `Storage` and nothing of it stays.
    pub async fn import_decoded(&mut self, file: export::Exported) -> Result<Merged> {
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
        let mut staged = Some(file.state);
        // The chunk repeats the file's records; the slack covers what may join them (touched
        // memories, the embedder op), so the buffer does not double at the very end.
        self.chunk_hint = file.body_bytes + file.body_bytes / 16 + (64 << 10);
        let out = self
            .mutate(|e| match staged.take() {
                Some(state) => e.merge_state(state),
                None => Err(Error::new(ErrorCode::Storage, "another writer committed while this import was being written; nothing was imported (import the file again)")),
            })
            .await;
        self.chunk_hint = 0;
        if adopt && out.is_err() {
            self.identity = None;
            self.identity_pending = false;
        }
        out
    }
}
