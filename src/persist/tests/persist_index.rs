//! Snapshots persist the keyword indexes of their records, and opening uses them instead of
//! tokenizing every text again: the result must rank exactly as an index rebuilt from the text,
//! including records changed by chunks written after the snapshot.

use super::persist_common;

use crate::engine::EngineState;
use crate::host::StorageKey;
use crate::persist::ops::{self, IndexTarget, Op, OpWriter};
use crate::persist::record::{self, RecordKind};
use crate::persist::{block_on, MemoryStorage};
use crate::recall::Scope;
use crate::{EngineOptions, Engram, HitTarget, NewMemory, SearchRequest};
use persist_common::*;

const QUERIES: [&str; 16] = [
    "coffee",
    "tea",
    "mountain river",
    "python",
    "rust garden",
    "violin",
    "paris",
    "tokyo",
    "cat",
    "dog",
    "note",
    "changed",
    "turn about",
    "plain coffee",
    "tokyo cat note",
    "what about the garden",
];

fn ranked(search: &mut dyn FnMut(&SearchRequest) -> Vec<crate::Hit>, q: &str) -> Vec<(String, f64)> {
    let req = SearchRequest { query: Some(q.into()), limit: Some(1000), scope: Scope::All, dry_run: true, ..Default::default() };
    search(&req)
        .into_iter()
        .map(|h| {
            let id = match &h.target {
                HitTarget::Memory(m) => m.id.clone(),
                HitTarget::Raw(e) => e.id.clone(),
            };
            (id, h.score)
        })
        .collect()
}

fn rebuilt(state: EngineState) -> Engram {
    let mut e = Engram::new(Box::new(clock()), EngineOptions { id_seed: Some(7), embedder: None, ..EngineOptions::default() });
    e.load_state(state).unwrap();
    e
}

fn snapshot(records: &[(StorageKey, Vec<u8>)]) -> Option<(usize, u64, Vec<Op>)> {
    records.iter().enumerate().find_map(|(i, (k, bytes))| {
        (k.get(1).map(String::as_str) == Some("snapshot")).then(|| {
            let (seq, body) = record::decode_kind(bytes, RecordKind::Snapshot).unwrap();
            (i, seq, ops::decode(body).unwrap())
        })
    })
}

#[test]
fn opening_from_persisted_keyword_indexes_ranks_exactly_as_a_rebuild() {
    let mut with_index = 0;
    for seed in 1..=6 {
        let storage = Faulty::default();
        // Compactions mid-workload, then chunks after the last one: both paths on every open.
        let mut store = open(storage.clone(), 7).unwrap();
        for step in workload(seed, 300) {
            run(&mut store, &step).unwrap();
        }
        flush(&mut store);
        let records = storage.inner.dump();
        if let Some((_, _, ops)) = snapshot(&records) {
            with_index += ops.iter().any(|op| matches!(op, Op::KeywordTerms(k) if k.target == IndexTarget::Memories)) as usize;
        }
        let mut reopened = open(MemoryStorage::from_records(records), usize::MAX).unwrap();
        let state = reopened.engine().state();
        assert_same(state.clone(), store.engine().state(), "reopen");
        let mut fresh = rebuilt(state);
        for q in QUERIES {
            let got = ranked(&mut |r| reopened.search(r).unwrap(), q);
            let want = ranked(&mut |r| fresh.search(r).unwrap(), q);
            assert_eq!(got, want, "seed {seed}, query {q:?}: opened from the persisted index vs rebuilt from text");
            // The store that wrote it indexed every text as it came (slots with holes, so ties may
            // be listed in another order): same hits, same scores.
            let mut by_id = got.clone();
            let mut live = ranked(&mut |r| store.search(r).unwrap(), q);
            by_id.sort_by(|a, b| a.0.cmp(&b.0));
            live.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(by_id, live, "seed {seed}, query {q:?}: opened vs the writer's own indexes");
        }
        assert_eq!(reopened.engine().stats(), fresh.stats(), "seed {seed}");
    }
    assert!(with_index >= 4, "the workloads left snapshots with persisted indexes ({with_index} of 6)");
}

/// Rewrites the memory keyword index of the snapshot in `records` with `edit`.
fn edit_index(records: &mut [(StorageKey, Vec<u8>)], edit: impl Fn(&mut ops::KeywordTerms)) {
    let (i, seq, mut ops) = snapshot(records).expect("a snapshot");
    let mut w = OpWriter::default();
    for op in &mut ops {
        if let Op::KeywordTerms(k) = op {
            if k.target == IndexTarget::Memories {
                edit(k);
            }
        }
        w.op(op);
    }
    records[i].1 = record::encode(RecordKind::Snapshot, seq, &w.into_bytes());
}

#[test]
fn opening_uses_the_persisted_index_unless_another_tokenizer_made_it() {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    let coffee = block_on(store.add(NewMemory { content: "Coffee with oat milk every morning".into(), ..Default::default() })).unwrap().memory.id;
    let violin = block_on(store.add(NewMemory { content: "Violin lessons on Tuesday evenings".into(), ..Default::default() })).unwrap().memory.id;
    block_on(store.compact()).unwrap();
    let top = |records: Vec<(StorageKey, Vec<u8>)>, q: &str| {
        let mut s = open(MemoryStorage::from_records(records), usize::MAX).unwrap();
        ranked(&mut |r| s.search(r).unwrap(), q).first().map(|(id, _)| id.clone())
    };
    assert_eq!(top(storage.inner.dump(), "violin").as_ref(), Some(&violin));

    // Swapping the two memories' persisted entries swaps what keyword search finds: the index was
    // installed as stored, not recomputed from the text.
    let mut swapped = storage.inner.dump();
    edit_index(&mut swapped, |k| k.docs.swap(0, 1));
    assert_eq!(top(swapped.clone(), "violin").as_ref(), Some(&coffee));

    // The same index marked as made by another tokenizer version is ignored and rebuilt.
    edit_index(&mut swapped, |k| k.version += 1);
    assert_eq!(top(swapped, "violin").as_ref(), Some(&violin));

    // An index that does not line up with the records (one entry missing) is rebuilt too.
    let mut short = storage.inner.dump();
    edit_index(&mut short, |k| {
        k.docs.pop();
    });
    assert_eq!(top(short, "violin").as_ref(), Some(&violin));
}
