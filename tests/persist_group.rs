//! Group commit (`Store::mutate_many`): a burst of writes is one chunk; what the engine refuses is
//! left out alone; a failed chunk write rejects the whole group and leaves none of it in memory or
//! storage; two writers committing groups on one storage lose nothing.

#[path = "support/persist.rs"]
mod persist_common;

use std::rc::Rc;

use engram::engine::{Added, Engram};
use engram::persist::{block_on, GroupedWrite, MemoryStorage, Store};
use engram::{ErrorCode, NewMemory};
use persist_common::*;

type Op<'a> = GroupedWrite<'a, Added>;

fn adds(contents: &[String]) -> Vec<Op<'_>> {
    contents.iter().map(|c| Box::new(move |e: &mut Engram| e.add(NewMemory { content: c.clone(), ..Default::default() })) as Op<'_>).collect()
}

fn burst(tag: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{tag} note {i}: the meeting moved to room {}", i * 3 + 1)).collect()
}

fn chunks(storage: &MemoryStorage) -> usize {
    storage.dump().iter().filter(|(k, _)| k.get(1).is_some_and(|s| s == "chunk")).count()
}

#[test]
fn a_burst_is_one_chunk_and_every_acknowledged_write_survives_reopen() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    let mut contents = burst("first", 40);
    contents[17] = "   ".into(); // refused by the engine: blank content
    let saves = storage.saves.get();
    let outs = block_on(store.mutate_many(&mut adds(&contents))).unwrap();
    assert_eq!(storage.saves.get() - saves, 1, "one storage write for the group");
    assert_eq!(chunks(&storage.inner), 1);
    assert_eq!(outs.len(), 40);
    assert_eq!(outs[17].as_ref().unwrap_err().code, ErrorCode::InvalidInput);
    assert_eq!(outs.iter().filter(|o| o.is_ok()).count(), 39);
    let reopened = open_state(storage.inner.dump()).unwrap();
    for (i, out) in outs.iter().enumerate().filter(|(i, _)| *i != 17) {
        let id = &out.as_ref().unwrap().memory.id;
        assert!(reopened.memories.iter().any(|(m, _)| &m.id == id && m.content == contents[i]), "write {i} survives reopen");
    }
    assert_eq!(reopened.memories.len(), 39);
    assert_same(reopened, store.engine().state(), "storage holds what memory holds");
}

#[test]
fn a_failed_group_write_rejects_every_write_and_leaves_none_of_them() {
    for fault in [Fault::Io, Fault::Quota, Fault::TornThenIo] {
        let storage = Faulty::default();
        let mut store = open(storage.clone(), 1000).unwrap();
        block_on(store.mutate_many(&mut adds(&burst("kept", 5)))).unwrap();
        let before = store.engine().state();
        let stored = storage.inner.dump();
        // The group's create is the first storage call of the commit.
        storage.fail_next(fault);
        let e = block_on(store.mutate_many(&mut adds(&burst("lost", 25)))).expect_err("the group's write failed");
        assert_eq!(e.code, if fault == Fault::Quota { ErrorCode::StorageFull } else { ErrorCode::Storage }, "{fault:?}");
        assert!(store.engine().state() == before, "{fault:?}: no write of the failed group is visible");
        assert!(store.search(&engram::recall::SearchRequest { query: Some("lost".into()), ..Default::default() }).unwrap().is_empty());
        assert_same(open_state(storage.inner.dump()).unwrap(), before.clone(), &format!("{fault:?}: storage holds none of it"));
        assert_eq!(open_state(storage.inner.dump()).unwrap().memories.len(), open_state(stored).unwrap().memories.len());
        // The store goes on: the same burst again is acknowledged and survives.
        storage.clear_fault();
        let outs = block_on(store.mutate_many(&mut adds(&burst("lost", 25)))).unwrap();
        assert!(outs.iter().all(|o| o.is_ok()));
        assert_eq!(open_state(storage.inner.dump()).unwrap().memories.len(), 30, "{fault:?}");
    }
}

#[test]
fn a_group_whose_write_landed_before_the_adapter_failed_is_acknowledged_whole() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    storage.fail_next(Fault::LandsThenIo);
    let outs = block_on(store.mutate_many(&mut adds(&burst("landed", 12)))).expect("the chunk is there whole: committed");
    assert!(outs.iter().all(|o| o.is_ok()));
    assert_same(open_state(storage.inner.dump()).unwrap(), store.engine().state(), "all twelve are stored");
}

#[test]
fn two_writers_committing_bursts_on_one_storage_lose_nothing() {
    // No lock between them: each group's create may find its sequence number taken, and is then
    // run again, whole, after the other's chunks are applied.
    let storage = Rc::new(MemoryStorage::new());
    let mut a = block_on(Store::open(storage.clone(), Box::new(clock()), options(7))).unwrap();
    let mut b = block_on(Store::open(storage.clone(), Box::new(clock()), options(7))).unwrap();
    let mut acknowledged = Vec::new();
    for round in 0..12 {
        for (name, store) in [("a", &mut a), ("b", &mut b)] {
            let contents = burst(&format!("{name}{round}"), 1 + round % 5);
            let outs = block_on(store.mutate_many(&mut adds(&contents))).unwrap();
            acknowledged.extend(outs.into_iter().map(|o| o.unwrap().memory.id));
        }
    }
    let reopened = open_state(storage.dump()).unwrap();
    for id in &acknowledged {
        assert!(reopened.memories.iter().any(|(m, _)| &m.id == id), "acknowledged {id} is stored");
    }
    assert_eq!(reopened.memories.len(), acknowledged.len());
    block_on(a.sync()).unwrap();
    assert_same(reopened, a.engine().state(), "the first writer, caught up, holds what storage holds");
}
