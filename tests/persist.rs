//! Persistence through the Rust API: round trips, write counts, embedder identity, and damaged
//! bytes (every truncation and ≥ 10,000 bit flips of a reference snapshot are `Corrupt`, never a
//! panic).

#[path = "support/persist.rs"]
mod persist_common;

use std::rc::Rc;

use engram::persist::{block_on, MemoryStorage, OpenOptions, Store};
use engram::{EngineOptions, ErrorCode, NewMemory, SearchRequest};
use persist_common::*;

#[test]
fn a_store_reopens_as_it_was_and_an_add_is_one_write() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    for step in workload(5, 120) {
        run(&mut store, &step).unwrap();
    }
    flush(&mut store);
    assert_same(open_state(storage.inner.dump()).unwrap(), store.engine().state(), "reopen");

    let saves = storage.saves.get();
    let calls = storage.calls.get();
    block_on(store.add(NewMemory { content: "one more thing".into(), ..Default::default() })).unwrap();
    assert_eq!(storage.saves.get() - saves, 1, "an add is one save");
    // Plus two loads after it: the head (no writer compacted past it) and the chunk before it (the
    // storage did not vanish), so a chunk is only acknowledged where a load will read it.
    assert_eq!(storage.calls.get() - calls, 3, "and no other storage call");

    // Under a lock that fences creates (the host says so), the create alone: no writer honouring the
    // lock can have compacted past it, so the placement check is left out; cleared, it is back.
    store.set_fenced(true);
    let calls = storage.calls.get();
    block_on(store.add(NewMemory { content: "a fenced thing".into(), ..Default::default() })).unwrap();
    assert_eq!(storage.calls.get() - calls, 1, "a fenced add is its create");
    store.set_fenced(false);
    let calls = storage.calls.get();
    block_on(store.add(NewMemory { content: "an unfenced thing".into(), ..Default::default() })).unwrap();
    assert_eq!(storage.calls.get() - calls, 3);

    // Search touches reach storage with the next flush.
    let hits = store.search(&SearchRequest { query: Some("one more thing".into()), ..Default::default() }).unwrap();
    assert!(!hits.is_empty());
    let touched = store.engine().get(hits[0].id()).unwrap().access_count;
    assert!(touched > 0);
    flush(&mut store);
    let reopened = open(MemoryStorage::from_records(storage.inner.dump()), 1000).unwrap();
    assert_eq!(reopened.engine().get(hits[0].id()).unwrap().access_count, touched);
}

#[test]
fn compaction_leaves_one_snapshot_and_loads_the_same() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    for step in workload(11, 80) {
        run(&mut store, &step).unwrap();
    }
    block_on(store.compact()).unwrap();
    let keys: Vec<_> = storage.inner.dump().into_iter().map(|(k, _)| k[1].clone()).collect();
    assert_eq!(keys, ["head", "head", "snapshot"], "one snapshot, the head record and the head marker naming it");
    assert_same(open_state(storage.inner.dump()).unwrap(), store.engine().state(), "after compaction");
}

fn with_embedder(id: &str, dims: usize, reembed: bool) -> OpenOptions {
    let embedder: Box<dyn engram::host::Embedder> = Box::new(HashEmbedder { id: id.into(), dims });
    OpenOptions {
        engine: EngineOptions { id_seed: Some(3), embedder: Some(embedder), ..EngineOptions::default() },
        reembed,
        compact_after: 1000,
        identity: None,
        ..OpenOptions::default()
    }
}

#[test]
fn a_store_remembers_its_embedder_and_refuses_another_unless_asked_to_reembed() {
    let storage = Rc::new(MemoryStorage::new());
    let open_with = |id: &str, dims: usize, reembed: bool| block_on(Store::open(storage.clone(), Box::new(clock()), with_embedder(id, dims, reembed)));
    let mut store = open_with("model-a", 8, false).unwrap();
    block_on(store.add(NewMemory { content: "the cat sat on the mat".into(), ..Default::default() })).unwrap();
    let id = block_on(store.add(NewMemory { content: "dogs bark at night".into(), ..Default::default() })).unwrap().memory.id;
    drop(store);

    for (model, dims) in [("model-b", 8), ("model-a", 16)] {
        let err = open_with(model, dims, false).err().expect("another embedder is refused");
        assert_eq!(err.code, ErrorCode::Embedder, "{err}");
    }
    let same = open_with("model-a", 8, false).unwrap();
    assert_eq!(same.embedder_identity().unwrap().model, "model-a");
    drop(same);

    let store = open_with("model-b", 16, true).unwrap();
    assert_eq!(store.engine().memory_with_vector(&id).unwrap().1.unwrap().len(), 16);
    drop(store);
    let store = open_with("model-b", 16, false).unwrap();
    assert_eq!(store.embedder_identity().unwrap().dims, 16);
    assert_eq!(store.engine().memory_with_vector(&id).unwrap().1.unwrap().len(), 16);
    assert_eq!(open_with("model-a", 8, false).err().unwrap().code, ErrorCode::Embedder);
}

/// Opening with `reembed` in steps: progress counts every record in batches, a drop before the end
/// leaves storage byte for byte as it was (the old embedder still opens it), and finishing gives
/// what a one-step open gives.
#[test]
fn a_reembedding_open_runs_in_batches_and_a_drop_before_the_end_changes_nothing() {
    let storage = Rc::new(MemoryStorage::new());
    let mut store = block_on(Store::open(storage.clone(), Box::new(clock()), with_embedder("model-a", 8, false))).unwrap();
    let contents: Vec<String> = (0..70).map(|i| format!("memory number {i} about topic {}", i % 7)).collect();
    let mut ids = Vec::new();
    for c in &contents {
        ids.push(block_on(store.add(NewMemory { content: c.clone(), ..Default::default() })).unwrap().memory.id);
    }
    drop(store);
    let before = storage.dump();

    let mut opening = block_on(Store::opening(storage.clone(), Box::new(clock()), with_embedder("model-b", 16, true))).unwrap();
    assert_eq!(opening.progress(), (0, 70));
    assert!(opening.step().unwrap());
    assert_eq!(opening.progress(), (engram::REEMBED_BATCH, 70));
    drop(opening);
    assert_eq!(storage.dump(), before, "a dropped opening wrote nothing");
    assert!(block_on(Store::open(storage.clone(), Box::new(clock()), with_embedder("model-a", 8, false))).is_ok(), "the old embedder still opens it");

    let mut opening = block_on(Store::opening(storage.clone(), Box::new(clock()), with_embedder("model-b", 16, true))).unwrap();
    let mut seen = vec![opening.progress().0];
    while opening.step().unwrap() {
        seen.push(opening.progress().0);
    }
    seen.push(opening.progress().0);
    assert_eq!(seen, [0, 32, 64, 70]);
    let stepped = block_on(opening.finish()).unwrap();
    let at_once = block_on(Store::open(Rc::new(MemoryStorage::from_records(before)), Box::new(clock()), with_embedder("model-b", 16, true))).unwrap();
    for id in &ids {
        let v = stepped.engine().memory_with_vector(id).unwrap().1.unwrap();
        assert_eq!(v.len(), 16);
        assert_eq!(Some(v), at_once.engine().memory_with_vector(id).unwrap().1);
    }
    drop(stepped);
    assert_eq!(block_on(Store::open(storage.clone(), Box::new(clock()), with_embedder("model-a", 8, false))).err().unwrap().code, ErrorCode::Embedder);
}

#[test]
fn a_seeded_id_source_never_reuses_an_id_after_a_reopen() {
    // A seeded source restarts its sequence on every open; the ids it already handed out (live or
    // deleted) must not be handed out again.
    let storage = Rc::new(MemoryStorage::new());
    let open_seeded = || block_on(Store::open(storage.clone(), Box::new(clock()), with_embedder("model-a", 8, false)));
    let mut store = open_seeded().unwrap();
    let kept = block_on(store.add(NewMemory { content: "first memory".into(), ..Default::default() })).unwrap().memory.id;
    let gone = block_on(store.add(NewMemory { content: "second memory".into(), ..Default::default() })).unwrap().memory.id;
    block_on(store.delete(&gone)).unwrap();
    drop(store);
    let mut store = open_seeded().unwrap();
    let a = block_on(store.add(NewMemory { content: "third memory".into(), ..Default::default() })).unwrap().memory.id;
    let b = block_on(store.add(NewMemory { content: "fourth memory".into(), ..Default::default() })).unwrap().memory.id;
    let ids = [&kept, &gone, &a, &b];
    assert_eq!(ids.iter().collect::<std::collections::HashSet<_>>().len(), 4, "{ids:?}");
    assert_eq!(store.engine().get(&kept).unwrap().content, "first memory");
    assert_eq!(store.engine().history(&a).unwrap().len(), 1);
}

#[test]
fn every_truncation_and_bit_flip_of_a_snapshot_is_corrupt() {
    let (key, bytes) = reference_snapshot();
    assert!(open_state(vec![(key.clone(), bytes.clone())]).is_ok());
    for cut in 0..bytes.len() {
        let err = open_state(vec![(key.clone(), bytes[..cut].to_vec())]).err().unwrap_or_else(|| panic!("cut {cut} opened"));
        assert_eq!(err.code, ErrorCode::Corrupt, "cut {cut}: {err}");
    }
    let mut r = Rng(0xfeed);
    let flips = 10_000;
    for i in 0..flips {
        let mut damaged = bytes.clone();
        for _ in 0..1 + i % 3 {
            let bit = r.below(damaged.len() * 8);
            damaged[bit / 8] ^= 1 << (bit % 8);
        }
        if damaged == bytes {
            continue;
        }
        let err = open_state(vec![(key.clone(), damaged)]).err().unwrap_or_else(|| panic!("flip {i} opened"));
        assert_eq!(err.code, ErrorCode::Corrupt, "flip {i}: {err}");
    }
    println!("{} truncations and {flips} bit-flip variants rejected", bytes.len());
}

#[test]
fn a_gap_or_a_damaged_middle_chunk_is_corrupt_not_silent_loss() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    for i in 0..5 {
        block_on(store.add(NewMemory { content: format!("memory number {i}"), ..Default::default() })).unwrap();
    }
    let records = storage.inner.dump();
    assert_eq!(records.len(), 5);
    let mut gap = records.clone();
    gap.remove(2);
    assert_eq!(open_state(gap).err().unwrap().code, ErrorCode::Corrupt);
    let mut damaged = records.clone();
    damaged[1].1[30] ^= 4;
    assert_eq!(open_state(damaged).err().unwrap().code, ErrorCode::Corrupt);
    let mut torn_tail = records.clone();
    let last = torn_tail.len() - 1;
    torn_tail[last].1.truncate(10);
    assert_eq!(open_state(torn_tail).unwrap().memories.len(), 4);
}

#[test]
fn export_import_round_trips_merges_by_id_and_rejects_damage() {
    let mut source = open(Faulty::default(), 1000).unwrap();
    for step in workload(21, 80) {
        run(&mut source, &step).unwrap();
    }
    let file = source.export(None);

    // Into an empty store: the same state.
    let mut target = open(Faulty::default(), 1000).unwrap();
    let merged = block_on(target.import(&file)).unwrap();
    assert_eq!(merged.added, source.engine().state().memories.len());
    assert_same(target.engine().state(), source.engine().state(), "import into empty");

    // Again into a store with its own memories: imported ids replace, others stay, history once.
    let mut mixed = open(Faulty::default(), 1000).unwrap();
    let own = block_on(mixed.add(NewMemory { content: "a memory of the target's own".into(), namespace: Some("own".into()), ..Default::default() })).unwrap().memory.id;
    block_on(mixed.import(&file)).unwrap();
    let again = block_on(mixed.import(&file)).unwrap();
    assert_eq!(again.added, 0);
    assert_eq!(again.history_events, 0);
    assert!(mixed.engine().get(&own).is_some());
    assert_eq!(mixed.engine().state().memories.len(), source.engine().state().memories.len() + 1);

    // One namespace only.
    let work = source.export(Some("work"));
    let mut ns = open(Faulty::default(), 1000).unwrap();
    block_on(ns.import(&work)).unwrap();
    assert!(ns.engine().state().memories.iter().all(|(m, _)| m.namespace == "work"));
    assert_eq!(ns.engine().count(Some("work")).unwrap(), source.engine().count(Some("work")).unwrap());

    // Damage: every truncation and a few thousand flips are Corrupt and change nothing.
    let before = target.engine().state();
    for cut in (0..file.len()).step_by(7) {
        assert_eq!(block_on(target.import(&file[..cut])).err().unwrap().code, ErrorCode::Corrupt, "cut {cut}");
    }
    let mut r = Rng(99);
    for i in 0..3000 {
        let mut d = file.clone();
        let bit = r.below(d.len() * 8);
        d[bit / 8] ^= 1 << (bit % 8);
        assert_eq!(block_on(target.import(&d)).err().unwrap().code, ErrorCode::Corrupt, "flip {i}");
    }
    assert_same(target.engine().state(), before, "after rejected imports");
}

/// Every text a store holds for a memory id: its record, and its history events.
fn texts_of(state: &engram::engine::EngineState, id: &str) -> Vec<String> {
    let records = state.memories.iter().filter(|(m, _)| m.id == id).map(|(m, _)| m.content.clone());
    let events = state.history.iter().filter(|h| h.memory_id == id).flat_map(|h| h.content.iter().chain(&h.previous_content).cloned());
    records.chain(events).collect()
}

#[test]
fn a_deleted_memory_leaves_its_text_nowhere_the_store_keeps_or_exports() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    let id = block_on(store.add(NewMemory { content: "my pharmacy is Greenway on 5th".into(), ..Default::default() })).unwrap().memory.id;
    block_on(store.update(&id, engram::MemoryPatch { content: Some("my pharmacy is Northside".into()), ..Default::default() })).unwrap();
    block_on(store.add(NewMemory { content: "my pharmacy is Northside".into(), ..Default::default() })).unwrap();
    let kept = block_on(store.add(NewMemory { content: "the cat is called Miso".into(), ..Default::default() })).unwrap().memory.id;
    // A delete whose write fails is undone whole: the history keeps its text.
    storage.fail_next(Fault::Io);
    assert_eq!(block_on(store.delete(&id)).unwrap_err().code, ErrorCode::Storage);
    assert_eq!(texts_of(&store.engine().state(), &id).len(), 5, "record, ADD, UPDATE (new and old), REINFORCE");
    storage.clear_fault();

    block_on(store.delete(&id)).unwrap();
    let events = store.engine().history(&id).unwrap();
    assert_eq!(events.len(), 4, "the events stay");
    assert!(texts_of(&store.engine().state(), &id).is_empty());
    assert_eq!(texts_of(&store.engine().state(), &kept), vec!["the cat is called Miso".to_string(); 2], "others keep theirs");

    // Reopened (chunks replayed), exported, and after compaction: no text of it anywhere.
    assert!(texts_of(&open_state(storage.inner.dump()).unwrap(), &id).is_empty());
    let exported = engram::persist::export::decode_export(&store.export(None)).unwrap().state;
    assert!(texts_of(&exported, &id).is_empty());
    assert_eq!(exported.history.iter().filter(|h| h.memory_id == id).count(), 4);
    block_on(store.compact()).unwrap();
    let bytes: Vec<u8> = storage.inner.dump().into_iter().flat_map(|(_, v)| v.to_ascii_lowercase()).collect();
    assert!(!bytes.windows(8).any(|w| w == b"greenway" || w == b"northsid"), "compaction leaves no stored byte of it, not even an index term");

    // A second writer on the same storage sees the deletion, text and all, when it syncs.
    let shared = Rc::new(MemoryStorage::new());
    let mut a = open(shared.clone(), 1000).unwrap();
    let mut b = open(shared.clone(), 1000).unwrap();
    let id = block_on(a.add(NewMemory { content: "my locker code is 4417".into(), ..Default::default() })).unwrap().memory.id;
    block_on(b.sync()).unwrap();
    assert_eq!(texts_of(&b.engine().state(), &id).len(), 2);
    block_on(a.delete(&id)).unwrap();
    block_on(b.sync()).unwrap();
    assert!(texts_of(&b.engine().state(), &id).is_empty());
    assert_same(b.engine().state(), a.engine().state(), "follower");
}

#[test]
fn imports_are_held_to_the_rules_of_add_and_to_a_size_limit() {
    use engram::engine::EngineState;
    use engram::model::validate;
    let mut source = open(Faulty::default(), 1000).unwrap();
    block_on(source.add(NewMemory { content: "a plain memory".into(), tags: vec!["t".into()], ..Default::default() })).unwrap();
    let session =
        engram::SessionInput { id: "s".into(), turns: vec![engram::TurnInput { role: "user".into(), content: "hello".into(), ..Default::default() }], ..Default::default() };
    block_on(source.ingest(session)).unwrap();
    let base = source.engine().state();
    type Craft = fn(&mut EngineState);
    let crafted: [(&str, Craft); 10] = [
        ("a core layer", |s| s.memories[0].0.layer = engram::Layer::Core),
        ("a working layer", |s| s.memories[0].0.layer = engram::Layer::Working),
        ("importance 1e308", |s| s.memories[0].0.importance = 1e308),
        ("content over the limit", |s| s.memories[0].0.content = "x".repeat(validate::CONTENT_MAX_CHARS + 1)),
        ("createdAt i64::MIN", |s| s.memories[0].0.created_at = i64::MIN),
        ("eventAt past 9999", |s| s.memories[0].0.event_at = Some(i64::MAX)),
        ("untrimmed tags", |s| s.memories[0].0.tags = vec![" t ".into()]),
        ("a turn over the limit", |s| s.raw[0].0.content = "y".repeat(validate::RAW_CONTENT_MAX_CHARS + 1)),
        ("a history time out of range", |s| s.history[0].at = i64::MIN),
        ("history text over the limit", |s| s.history[0].content = Some("z".repeat(validate::CONTENT_MAX_CHARS + 1))),
    ];
    let mut target = open(Faulty::default(), 1000).unwrap();
    block_on(target.add(NewMemory { content: "the target's own".into(), ..Default::default() })).unwrap();
    let before = target.engine().state();
    for (what, craft) in crafted {
        let mut state = base.clone();
        craft(&mut state);
        // The file is well formed (decodes), it only says what no write could have.
        let mut maker = engram::Engram::new(Box::new(clock()), EngineOptions::default());
        maker.load_state(state).unwrap();
        let file = engram::persist::export::export(&maker, None, None);
        let err = block_on(target.import(&file)).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput, "{what}: {err}");
        assert_same(target.engine().state(), before.clone(), what);
    }
    // The untouched file imports.
    block_on(target.import(&source.export(None))).unwrap();

    // A file over the size limit is refused before it is read.
    let huge = vec![0u8; validate::IMPORT_BYTES_MAX + 1];
    assert_eq!(block_on(target.import(&huge)).unwrap_err().code, ErrorCode::InvalidInput);
    assert_eq!(
        engram::persist::export::decode_export(&huge[..validate::IMPORT_BYTES_MAX]).err().unwrap().code,
        ErrorCode::Corrupt,
        "at the limit it is read (and these zeros are no file)"
    );
}
