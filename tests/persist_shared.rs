//! Two writers on one storage (two tabs on one IndexedDB database, two processes on one directory):
//! each syncs before it writes, as the JS facade does under the storage's writer lock. Nothing either
//! acknowledged may be lost, both end with the state the storage opens to, and a reader that syncs
//! sees the other's writes — also across the other's compactions.

mod persist_common;

use std::rc::Rc;

use engram::persist::{block_on, MemoryStorage, OpenOptions, Store};
use engram::{EngineOptions, NewMemory, SearchRequest};
use persist_common::*;

fn open_writer(storage: &Rc<MemoryStorage>, seed: u64, compact_after: usize) -> Store<Rc<MemoryStorage>> {
    let options = OpenOptions { engine: EngineOptions { id_seed: Some(seed), embedder: None, ..EngineOptions::default() }, reembed: false, compact_after, identity: None };
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
fn without_sync_a_second_writer_would_overwrite_so_sync_is_what_makes_it_safe() {
    // The same interleaving without sync: the second writer reuses the first one's sequence number
    // and its memory is lost — the failure the lock + sync protocol exists to prevent.
    let storage = Rc::new(MemoryStorage::new());
    let mut a = open_writer(&storage, 1, 1000);
    let mut b = open_writer(&storage, 2, 1000);
    block_on(a.add(NewMemory { content: "written by a".into(), ..Default::default() })).unwrap();
    block_on(b.add(NewMemory { content: "written by b".into(), ..Default::default() })).unwrap();
    let lost = open_state(storage.dump()).unwrap();
    assert_eq!(lost.memories.len(), 1, "unsynced writers collide");

    let storage = Rc::new(MemoryStorage::new());
    let mut a = open_writer(&storage, 1, 1000);
    let mut b = open_writer(&storage, 2, 1000);
    block_on(a.sync()).unwrap();
    block_on(a.add(NewMemory { content: "written by a".into(), ..Default::default() })).unwrap();
    assert!(block_on(b.sync()).unwrap(), "b sees a's chunk");
    block_on(b.add(NewMemory { content: "written by b".into(), ..Default::default() })).unwrap();
    let kept = open_state(storage.dump()).unwrap();
    assert_eq!(kept.memories.len(), 2);
    assert!(!block_on(b.sync()).unwrap(), "nothing new for b");
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
