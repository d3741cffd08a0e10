//! Two writers on one storage (two tabs on one IndexedDB database, two processes on one directory):
//! each syncs before it writes, as the JS facade does under the storage's writer lock. Nothing either
//! acknowledged may be lost, both end with the state the storage opens to, and a reader that syncs
//! sees the other's writes — also across the other's compactions.

#[path = "support/persist.rs"]
mod persist_common;

use std::rc::Rc;

use engram::persist::{block_on, MemoryStorage, OpenOptions, Store};
use engram::{EngineOptions, NewMemory, SearchRequest};
use persist_common::*;

fn open_writer(storage: &Rc<MemoryStorage>, seed: u64, compact_after: usize) -> Store<Rc<MemoryStorage>> {
    let options = OpenOptions {
        engine: EngineOptions { id_seed: Some(seed), embedder: None, ..EngineOptions::default() },
        reembed: false,
        compact_after,
        identity: None,
        ..OpenOptions::default()
    };
    block_on(Store::open(storage.clone(), Box::new(clock()), options)).unwrap()
}

#[test]
fn two_writers_that_sync_before_writing_lose_nothing() {
    for (seed, compact_after) in [(1, 1000), (2, 3), (3, 1)] {
        let storage = Rc::new(MemoryStorage::new());
        let mut writers = [open_writer(&storage, 100 + seed, compact_after), open_writer(&storage, 200 + seed, compact_after)];
        let mut pick = Rng(seed * 7919);
        for step in workload(seed, 300) {
            let w = &mut writers[pick.below(2)];
            block_on(w.sync()).unwrap();
            run(w, &step).unwrap();
        }
        for i in [0, 1, 0] {
            block_on(writers[i].sync()).unwrap();
            flush(&mut writers[i]);
        }
        block_on(writers[1].sync()).unwrap();
        let image = open_state(storage.dump()).unwrap();
        assert!(!image.memories.is_empty() || !image.raw.is_empty(), "the workload leaves something behind");
        assert_same(writers[0].engine().state(), image.clone(), &format!("writer 0, compact_after {compact_after}"));
        assert_same(writers[1].engine().state(), image, &format!("writer 1, compact_after {compact_after}"));
    }
}

#[test]
fn writers_that_never_sync_still_lose_nothing() {
    // No lock, no sync before writing (a failed lock, an adapter without one): a commit creates its
    // chunk only where none is, so the writer that comes second finds its sequence number taken,
    // applies the other's chunks (or reloads past its compaction) and writes after them.
    for compact_after in [1000, 3, 1] {
        let storage = Rc::new(MemoryStorage::new());
        let mut writers = [open_writer(&storage, 1, compact_after), open_writer(&storage, 2, compact_after)];
        let mut pick = Rng(compact_after as u64 + 5);
        let mut acknowledged = Vec::new();
        for i in 0..200 {
            let w = &mut writers[pick.below(2)];
            let added = block_on(w.add(NewMemory { content: format!("note {i}"), ..Default::default() })).unwrap();
            acknowledged.push(added.memory.id);
        }
        let image = open_state(storage.dump()).unwrap();
        let ids: std::collections::BTreeSet<&str> = image.memories.iter().map(|(m, _)| m.id.as_str()).collect();
        assert_eq!(acknowledged.iter().filter(|id| !ids.contains(id.as_str())).count(), 0, "acknowledged adds lost, compact_after {compact_after}");
        assert_eq!(ids.len(), 200);
    }
}

#[test]
fn writers_that_never_sync_converge_on_what_storage_holds() {
    for (seed, compact_after) in [(11, 1000), (12, 3), (13, 1)] {
        let storage = Rc::new(MemoryStorage::new());
        let mut writers = [open_writer(&storage, 100 + seed, compact_after), open_writer(&storage, 200 + seed, compact_after)];
        let mut pick = Rng(seed * 7919);
        for step in workload(seed, 300) {
            run(&mut writers[pick.below(2)], &step).unwrap();
        }
        for w in &mut writers {
            flush(w);
        }
        for w in &mut writers {
            block_on(w.sync()).unwrap();
        }
        let image = open_state(storage.dump()).unwrap();
        assert_same(writers[0].engine().state(), image.clone(), &format!("writer 0, compact_after {compact_after}"));
        assert_same(writers[1].engine().state(), image, &format!("writer 1, compact_after {compact_after}"));
    }
}

#[test]
fn a_reader_follows_a_writer_across_its_compactions() {
    let storage = Rc::new(MemoryStorage::new());
    let mut writer = open_writer(&storage, 5, 2);
    let mut reader = open_writer(&storage, 6, 2);
    let search = |s: &mut Store<Rc<MemoryStorage>>, q: &str| s.search(&SearchRequest { query: Some(q.into()), limit: Some(3), ..Default::default() }).unwrap().len();
    for i in 0..7 {
        block_on(writer.add(NewMemory { content: format!("violin lesson number {i}"), ..Default::default() })).unwrap();
        if i % 3 == 2 {
            // Several compactions happen between two reads: the reader must reload, not skip.
            block_on(reader.sync()).unwrap();
            assert_eq!(reader.engine().state().memories.len(), i + 1);
        }
    }
    block_on(reader.sync()).unwrap();
    assert_same(reader.engine().state(), writer.engine().state(), "reader after sync");
    assert_eq!(search(&mut reader, "violin"), 3, "the reader's indexes cover what it replayed");
}

/// Every storage call pends once before it runs, so writers driven side by side interleave inside
/// their commits and compactions, the way unlocked writers' promises do.
#[derive(Clone)]
struct Interleaved(Rc<MemoryStorage>);

struct PendOnce(bool);

impl std::future::Future for PendOnce {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, _: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if std::mem::replace(&mut self.0, true) {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    }
}

impl engram::host::Storage for Interleaved {
    async fn load(&self, key: &[String]) -> engram::Result<Option<Vec<u8>>> {
        PendOnce(false).await;
        self.0.load(key).await
    }
    async fn save(&self, key: &[String], data: &[u8]) -> engram::Result<()> {
        PendOnce(false).await;
        self.0.save(key, data).await
    }
    async fn create(&self, key: &[String], data: &[u8]) -> engram::Result<bool> {
        PendOnce(false).await;
        self.0.create(key, data).await
    }
    async fn remove(&self, key: &[String]) -> engram::Result<()> {
        PendOnce(false).await;
        self.0.remove(key).await
    }
    async fn load_range(&self, prefix: &[String]) -> engram::Result<Vec<(engram::host::StorageKey, Vec<u8>)>> {
        PendOnce(false).await;
        self.0.load_range(prefix).await
    }
    async fn remove_range(&self, prefix: &[String]) -> engram::Result<()> {
        PendOnce(false).await;
        self.0.remove_range(prefix).await
    }
}

#[test]
fn unlocked_writers_interleaving_inside_commits_and_compactions_lose_nothing() {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Poll, Waker};
    // Three writers, no lock, every storage call a point where another writer may run; compaction
    // every chunk or every three, so compactions overlap each other and other writers' commits. (It
    // found two races: a head record overwritten by an older compaction's, and a sync that applied
    // a chunk written below a snapshot made meanwhile.)
    for (seed, compact_after) in (1..=60u64).map(|s| (s, 1 + 2 * (s as usize % 2))) {
        let storage = Rc::new(MemoryStorage::new());
        let mut writers: Vec<Pin<Box<dyn Future<Output = Vec<String>>>>> = (0..3u64)
            .map(|w| {
                let options = OpenOptions {
                    engine: EngineOptions { id_seed: Some(seed * 10 + w), embedder: None, ..EngineOptions::default() },
                    reembed: false,
                    compact_after,
                    identity: None,
                    ..OpenOptions::default()
                };
                let mut store = block_on(Store::open(Interleaved(storage.clone()), Box::new(clock()), options)).unwrap();
                Box::pin(async move {
                    let mut ids = Vec::new();
                    for i in 0..30 {
                        let added = store.add(NewMemory { content: format!("note {i} from writer {w}"), ..Default::default() }).await.unwrap();
                        ids.push(added.memory.id);
                    }
                    ids
                }) as Pin<Box<dyn Future<Output = Vec<String>>>>
            })
            .collect();
        let mut acknowledged = Vec::new();
        let mut pick = Rng(seed);
        let mut cx = Context::from_waker(Waker::noop());
        while !writers.is_empty() {
            let i = pick.below(writers.len());
            if let Poll::Ready(ids) = writers[i].as_mut().poll(&mut cx) {
                acknowledged.extend(ids);
                drop(writers.swap_remove(i));
            }
        }
        let image = open_state(storage.dump()).unwrap_or_else(|e| panic!("seed {seed}, compact_after {compact_after}: {e}"));
        let stored: std::collections::BTreeSet<&str> = image.memories.iter().map(|(m, _)| m.id.as_str()).collect();
        let lost = acknowledged.iter().filter(|id| !stored.contains(id.as_str())).count();
        assert_eq!(lost, 0, "seed {seed}: {lost} of {} acknowledged adds lost", acknowledged.len());
        assert_eq!(stored.len(), 90, "seed {seed}");
    }
}
