//! Nothing acknowledged is lost, and nothing is acknowledged that cannot be reopened: saves that
//! land and then report a failure, storage that vanishes under a live store, compaction under
//! relaxed durability (a power loss after `flush` + `compact`), compactions that keep failing.

#[path = "support/persist.rs"]
mod persist_common;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use engram::host::{Storage, StorageKey};
use engram::persist::{block_on, MemoryStorage};
use engram::{ErrorCode, NewMemory, Result};
use persist_common::*;

fn add<S: Storage>(store: &mut engram::persist::Store<S>, content: &str) -> Result<engram::engine::Added> {
    block_on(store.add(NewMemory { content: content.into(), ..Default::default() }))
}

fn count(storage: &MemoryStorage, content: &str) -> usize {
    open_state(storage.dump()).unwrap().memories.iter().filter(|(m, _)| m.content == content).count()
}

#[test]
fn a_save_that_lands_and_then_reports_a_failure_is_the_success_it_is() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    add(&mut store, "first").unwrap();
    // The chunk is written whole, then the adapter throws (a lost acknowledgement): the store reads
    // it back, finds it committed, and resolves — a caller has no reason to retry.
    storage.fail_next(Fault::LandsThenIo);
    let added = add(&mut store, "landed anyway").expect("a write that landed is acknowledged");
    assert_eq!(count(&storage.inner, "landed anyway"), 1);
    assert_eq!(store.engine().history(&added.memory.id).unwrap().len(), 1, "one ADD");
    flush(&mut store);
    assert_same(open_state(storage.inner.dump()).unwrap(), store.engine().state(), "storage holds what memory holds");
}

#[test]
fn a_write_whose_outcome_is_unknown_is_neither_lost_nor_duplicated_by_its_retry() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    add(&mut store, "first").unwrap();
    // The chunk lands, the adapter throws, and reading it back fails too: the call rejects.
    storage.fail_next(Fault::LandsThenIo);
    storage.fail_also.set(Some((storage.calls.get() + 1, Fault::Io)));
    let before = store.engine().state();
    let err = add(&mut store, "maybe written").unwrap_err();
    assert_eq!(err.code, ErrorCode::Storage);
    assert_same(store.engine().state(), before, "memory unchanged by the rejected call");
    storage.clear_fault();
    // The caller retries: the chunk that did land is found and applied, not overwritten, and the
    // retry reinforces it instead of storing it twice.
    add(&mut store, "maybe written").unwrap();
    add(&mut store, "after").unwrap();
    assert_eq!(count(&storage.inner, "maybe written"), 1);
    assert_eq!(count(&storage.inner, "after"), 1);
    flush(&mut store);
    assert_same(open_state(storage.inner.dump()).unwrap(), store.engine().state(), "storage holds what memory holds");
}

#[test]
fn storage_that_vanishes_under_a_live_store_fails_the_next_write() {
    for compact_after in [1000, 1] {
        let storage = Rc::new(MemoryStorage::new());
        let mut store = open(storage.clone(), compact_after).unwrap();
        for i in 0..3 {
            add(&mut store, &format!("kept {i}")).unwrap();
        }
        // The database deleted or evicted, the directory removed, while the store is open.
        block_on(storage.remove_range(&[])).unwrap();
        let err = add(&mut store, "into the void").expect_err("a write into vanished storage must not be acknowledged");
        assert_eq!(err.code, ErrorCode::Storage, "{err}");
        assert!(err.message.contains("gone"), "{err}");
        // Nothing was acknowledged that cannot be reopened: the storage opens (empty), not Corrupt.
        let reopened = open_state(storage.dump()).unwrap_or_else(|e| panic!("compact_after {compact_after}: {e}"));
        assert!(reopened.memories.is_empty());
        assert_eq!(add(&mut store, "again").unwrap_err().code, ErrorCode::Storage, "every later write too");
    }
}

/// A file system without fsync on each write: saves are kept in the page cache (seen by reads)
/// until `flush`; removals reach the disk at once (the worst order a power loss can expose).
#[derive(Default)]
struct RelaxedDisk {
    seen: MemoryStorage,
    disk: RefCell<BTreeMap<StorageKey, Vec<u8>>>,
    unsynced: RefCell<BTreeMap<StorageKey, Vec<u8>>>,
}

/// A shared handle (the store owns one, the test keeps another).
#[derive(Clone, Default)]
struct Relaxed(Rc<RelaxedDisk>);

impl std::ops::Deref for Relaxed {
    type Target = RelaxedDisk;
    fn deref(&self) -> &RelaxedDisk {
        &self.0
    }
}

impl RelaxedDisk {
    /// What a power loss leaves.
    fn after_power_loss(&self) -> Vec<(StorageKey, Vec<u8>)> {
        self.disk.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

impl Storage for Relaxed {
    async fn load(&self, key: &[String]) -> Result<Option<Vec<u8>>> {
        self.seen.load(key).await
    }
    async fn save(&self, key: &[String], data: &[u8]) -> Result<()> {
        self.unsynced.borrow_mut().insert(key.to_vec(), data.to_vec());
        self.seen.save(key, data).await
    }
    async fn remove(&self, key: &[String]) -> Result<()> {
        self.unsynced.borrow_mut().remove(key);
        self.disk.borrow_mut().remove(key);
        self.seen.remove(key).await
    }
    async fn load_range(&self, prefix: &[String]) -> Result<Vec<(StorageKey, Vec<u8>)>> {
        self.seen.load_range(prefix).await
    }
    async fn remove_range(&self, _: &[String]) -> Result<()> {
        unreachable!("the store never removes a range")
    }
    async fn flush(&self) -> Result<()> {
        let synced = std::mem::take(&mut *self.unsynced.borrow_mut());
        self.disk.borrow_mut().extend(synced);
        Ok(())
    }
}

#[test]
fn a_power_loss_after_flush_and_compaction_finds_the_snapshot_under_relaxed_durability() {
    let storage = Relaxed::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    for i in 0..5 {
        add(&mut store, &format!("note {i}")).unwrap();
    }
    flush(&mut store);
    block_on(storage.flush()).unwrap(); // the host's flush(): everything so far is on disk
    let flushed = store.engine().state();
    assert_same(open_state(storage.after_power_loss()).unwrap(), flushed.clone(), "after flush");
    block_on(store.compact()).unwrap();
    let lost_power = open_state(storage.after_power_loss()).unwrap_or_else(|e| panic!("a power loss after compact(): {e}"));
    assert_same(lost_power, flushed, "a power loss after compact() keeps what flush() made durable");

    // Automatic compactions too, at every point of a workload.
    let storage = Relaxed::default();
    let mut store = open(storage.clone(), 3).unwrap();
    for (i, step) in workload(21, 120).iter().enumerate() {
        run(&mut store, step).unwrap();
        open_state(storage.after_power_loss()).unwrap_or_else(|e| panic!("power loss after step {i} {step:?}: {e}"));
    }
}

#[test]
fn a_failing_compaction_is_reported_once_and_backed_off() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 2).unwrap();
    storage.fail_snapshots.set(true);
    for i in 0..200 {
        add(&mut store, &format!("note {i} with some words")).expect("the write itself is durable");
    }
    let tries = storage.snapshot_saves.get();
    assert!(tries <= 8, "a failing compaction is not retried on every write: {tries} tries in 200 writes");
    let failure = store.take_compaction_failure().expect("the failure is reported");
    assert_eq!(failure.code, ErrorCode::Storage);
    assert!(store.take_compaction_failure().is_none(), "once");
    storage.fail_snapshots.set(false);
    block_on(store.compact()).unwrap();
    assert_same(open_state(storage.inner.dump()).unwrap(), store.engine().state(), "after the fault clears");
}
