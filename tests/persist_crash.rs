//! Crash safety by exhaustion: a recorded workload of ≥ 200 operations, then every prefix of its
//! storage writes (plus torn variants of the next write) opened as an image; and injected I/O and
//! quota failures on storage calls.

#[path = "support/persist.rs"]
mod persist_common;

use std::collections::BTreeMap;

use engram::engine::EngineState;
use engram::host::StorageKey;
use engram::ErrorCode;
use persist_common::*;

const OPS: usize = 240;

#[test]
fn every_prefix_and_torn_write_opens_to_the_last_commit() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 12).unwrap();
    // commits[i] = (log length right after the chunk save that committed op i, state then).
    let mut commits: Vec<(usize, EngineState)> = Vec::new();
    let steps = workload(42, OPS);
    for step in &steps {
        let before = storage.log.borrow().len();
        run(&mut store, step).unwrap();
        let log = storage.log.borrow();
        let commit = log[before..].iter().position(|w| matches!(w, Write::Save(k, _) if k[1] == "chunk"));
        if let Some(at) = commit {
            commits.push((before + at + 1, store.engine().state()));
        }
    }
    let log = storage.log.borrow().clone();
    assert!(commits.len() > 150, "{} commits", commits.len());
    assert!(log.iter().any(|w| matches!(w, Write::Save(k, _) if k[1] == "snapshot")), "the workload compacts");
    let expected = |p: usize| commits.iter().rev().find(|(at, _)| *at <= p).map(|(_, s)| s.clone()).unwrap_or_default();

    let mut image: BTreeMap<StorageKey, Vec<u8>> = BTreeMap::new();
    let mut reopened = 0;
    for p in 0..=log.len() {
        let want = expected(p);
        let got = open_state(image.clone().into_iter().collect()).unwrap_or_else(|e| panic!("prefix {p}: {e}"));
        assert_same(got, want.clone(), &format!("prefix {p}"));
        reopened += 1;
        let Some(next) = log.get(p) else { break };
        if let Write::Save(key, data) = next {
            for cut in [0, data.len() / 2, data.len() - 1] {
                let mut torn = image.clone();
                torn.insert(key.clone(), data[..cut].to_vec());
                let got = open_state(torn.into_iter().collect()).unwrap_or_else(|e| panic!("prefix {p} torn at {cut}: {e}"));
                assert_same(got, want.clone(), &format!("prefix {p} torn at {cut}"));
                reopened += 1;
            }
        }
        match next {
            Write::Save(k, d) => image.insert(k.clone(), d.clone()),
            Write::Remove(k) => image.remove(k),
        };
    }
    println!("{} operations, {} storage writes, {reopened} images reopened", steps.len(), log.len());
    assert!(reopened > 600);
}

#[test]
fn a_failed_storage_call_rejects_typed_changes_nothing_and_the_retry_succeeds() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 8).unwrap();
    let faults = [Fault::Io, Fault::Quota, Fault::TornThenIo];
    let (mut rejected, mut survived) = (0, 0);
    for (i, step) in workload(9, OPS).iter().enumerate() {
        let before = store.engine().state();
        // Fail the first storage call of the step, or (every third step) a later one: compaction
        // and removals, which must not fail the step that is already durable.
        let fault = faults[i % 3];
        let delay = if i % 3 == 2 { 1 } else { 0 };
        storage.fail_at.set(Some((storage.calls.get() + delay, fault)));
        match run(&mut store, step) {
            Err(e) => {
                let want = if fault == Fault::Quota { ErrorCode::StorageFull } else { ErrorCode::Storage };
                assert_eq!(e.code, want, "step {i} {step:?}");
                assert_same(store.engine().state(), before, &format!("step {i} {step:?}: state changed by a failed call"));
                storage.clear_fault();
                run(&mut store, step).unwrap_or_else(|e| panic!("step {i} retry: {e}"));
                rejected += 1;
            }
            Ok(()) => survived += 1,
        }
        storage.clear_fault();
        // Whatever happened, storage holds exactly what memory holds once flushed.
        if i % 10 == 0 {
            persist_common::flush(&mut store);
            let image = storage.inner.dump();
            assert_same(open_state(image).unwrap(), store.engine().state(), &format!("step {i}: storage and memory disagree"));
        }
    }
    persist_common::flush(&mut store);
    assert_same(open_state(storage.inner.dump()).unwrap(), store.engine().state(), "end");
    println!("{rejected} steps rejected and retried, {survived} went through");
    assert!(rejected > 50);
}

#[test]
fn failed_reset_ingest_and_session_delete_are_undone_exactly() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    let setup = [
        Step::Add { content: "coffee in the morning".into(), ns: "default", vector: true },
        Step::Ingest { session: 1, turns: 3 },
        Step::Ingest { session: 2, turns: 2 },
        Step::Add { content: "tea in the evening".into(), ns: "work", vector: true },
        Step::Search { word: "coffee".into() },
    ];
    for s in &setup {
        run(&mut store, s).unwrap();
    }
    let risky = [
        Step::Reset,
        Step::Ingest { session: 1, turns: 4 },
        Step::DeleteSession { session: 2 },
        Step::DeleteAll { ns: "work" },
        Step::Update { pick: 0, content: "espresso".into() },
        Step::Flush,
    ];
    for fault in [Fault::Io, Fault::Quota, Fault::TornThenIo] {
        for step in &risky {
            if matches!(step, Step::Flush) {
                // Something for the flush to write: access counts touched by a search.
                run(&mut store, &Step::Search { word: "coffee".into() }).unwrap();
            }
            let before = store.engine().state();
            storage.fail_next(fault);
            let err = run(&mut store, step).err().unwrap_or_else(|| panic!("{step:?} under {fault:?} succeeded"));
            assert!(matches!(err.code, ErrorCode::Storage | ErrorCode::StorageFull), "{err}");
            assert_same(store.engine().state(), before.clone(), &format!("{step:?} under {fault:?}"));
            storage.clear_fault();
            // Storage never saw the rejected call: reopening gives the acknowledged state.
            flush(&mut store);
            assert_same(open_state(storage.inner.dump()).unwrap(), store.engine().state(), &format!("reopen after {step:?}"));
        }
    }
    // Once the fault clears, each goes through and persists.
    for step in &risky {
        run(&mut store, step).unwrap();
        flush(&mut store);
        assert_same(open_state(storage.inner.dump()).unwrap(), store.engine().state(), &format!("{step:?} after the fault"));
    }
}

/// A newest chunk written whole and damaged afterwards (one flipped byte) may hold acknowledged
/// writes: opening refuses it as `Corrupt`, naming it; opened with `Damage::Skip` the store opens
/// without it and reports exactly what was left out, and the next write takes its place. A chunk
/// cut short (a crash mid-write, never acknowledged) is still left out silently.
#[test]
fn a_damaged_newest_chunk_is_refused_or_reported_never_skipped_silently() {
    use engram::persist::Damage;
    use engram::persist::{block_on, MemoryStorage, OpenOptions, Store};
    use engram::NewMemory;
    let storage = std::rc::Rc::new(MemoryStorage::new());
    let mut store = open(storage.clone(), 1000).unwrap();
    for i in 0..35 {
        block_on(store.add(NewMemory { content: format!("acknowledged memory {i}"), ..Default::default() })).unwrap();
    }
    drop(store);
    let records = storage.dump();
    let (newest_key, newest) = records.iter().filter(|(k, _)| k[1] == "chunk").max_by_key(|(k, _)| k[2].parse::<u64>().unwrap()).cloned().unwrap();
    let newest_seq: u64 = newest_key[2].parse().unwrap();
    let with = |bytes: Vec<u8>| records.iter().map(|(k, v)| (k.clone(), if *k == newest_key { bytes.clone() } else { v.clone() })).collect::<Vec<_>>();
    let count = |s: EngineState| s.memories.len();

    let mut flipped = newest.clone();
    let at = flipped.len() / 2;
    flipped[at] ^= 0x01;
    let e = open(MemoryStorage::from_records(with(flipped.clone())), 1000).err().expect("a damaged newest chunk is refused");
    assert_eq!(e.code, ErrorCode::Corrupt);
    assert!(e.message.contains(&format!("chunk {newest_seq} ")) && e.message.contains("onCorruption"), "{}", e.message);

    let damaged = std::rc::Rc::new(MemoryStorage::from_records(with(flipped.clone())));
    let options = OpenOptions { damage: Damage::Skip, ..options(1000) };
    let mut store = block_on(Store::open(damaged.clone(), Box::new(clock()), options)).unwrap();
    assert_eq!(count(store.engine().state()), 34);
    let skipped = store.take_skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!((skipped[0].seq, skipped[0].bytes, &skipped[0].key), (newest_seq, flipped.len(), &newest_key));
    block_on(store.sync()).unwrap();
    assert!(store.take_skipped().is_empty(), "reported once, though every sync meets it again");
    // The next write takes the damaged chunk's place; the store then opens without complaint.
    block_on(store.add(NewMemory { content: "written after the damage".into(), ..Default::default() })).unwrap();
    drop(store);
    assert_eq!(count(open(damaged, 1000).unwrap().engine().state()), 35);

    // Cut short, or zeroed by a power loss: a write in flight, left out without a word.
    for torn in [newest[..newest.len() - 3].to_vec(), vec![0; newest.len()], Vec::new()] {
        assert_eq!(count(open_state(with(torn)).unwrap()), 34);
    }
}
