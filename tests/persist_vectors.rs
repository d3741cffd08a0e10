//! Vector graph segments through a store: built off the query path (plan → build → install),
//! persisted beside the records, reused when the store is opened again (matched to records by id,
//! since slots are renumbered on open), skipped when damaged, and never serving a deleted or
//! other-namespace vector — checked against a plain model over long random runs that reopen the
//! store between builds.

#[path = "support/persist.rs"]
mod persist_common;
#[path = "support/vectors.rs"]
mod vectors;

use std::collections::BTreeMap;

use engram::engine::VectorTarget;
use engram::index::Installed;
use engram::index::{BuildOptions, VectorOptions};
use engram::persist::{block_on, OpenOptions, Store};
use engram::{EngineOptions, NewMemory, Scope, SearchRequest};
use persist_common::*;

const DIMS: usize = 16;

fn vector_options(graph_min: usize) -> VectorOptions {
    // Cheap builds (debug): correctness is under test here, recall in src/index/vector/tests/vector_index.rs.
    let build = BuildOptions { ef_construction: 16, ef_search: 64, always_graph: true, ..BuildOptions::default() };
    VectorOptions { graph_min, build, ..VectorOptions::default() }
}

fn open_with(storage: Faulty, graph_min: usize) -> engram::Result<Store<Faulty>> {
    let engine = EngineOptions { id_seed: None, embedder: None, vectors: vector_options(graph_min), ..EngineOptions::default() };
    block_on(Store::open(storage, Box::new(clock()), OpenOptions { engine, compact_after: 64, ..OpenOptions::default() }))
}

fn add(store: &mut Store<Faulty>, content: String, ns: &str, v: Vec<f32>) -> String {
    let input = NewMemory { content, namespace: Some(ns.into()), embedding: Some(v), ..NewMemory::default() };
    block_on(store.add(input)).unwrap().memory.id
}

fn nearest(store: &mut Store<Faulty>, q: &[f32], ns: &str, limit: usize) -> Vec<engram::Hit> {
    let req = SearchRequest { embedding: Some(q.to_vec()), namespace: Some(ns.into()), limit: Some(limit), dry_run: true, scope: Scope::Memories, ..SearchRequest::default() };
    store.search(&req).unwrap()
}

fn ids(hits: &[engram::Hit]) -> Vec<String> {
    hits.iter().map(|h| h.memory().unwrap().id.clone()).collect()
}

/// A store of `n` clustered vectors in namespace `a`, contents `m0`, `m1`, …
fn clustered_store(storage: &Faulty, graph_min: usize, n: usize, seed: u64) -> (Store<Faulty>, vectors::Clusters) {
    let mut store = open_with(storage.clone(), graph_min).unwrap();
    let mut c = vectors::Clusters::new(6, DIMS, seed);
    for i in 0..n {
        add(&mut store, format!("m{i}"), "a", c.sample());
    }
    (store, c)
}

/// Builds until nothing is due, through the store (so segments are persisted).
fn build_all(store: &mut Store<Faulty>) -> Vec<Installed> {
    let mut out = Vec::new();
    while let Some(input) = store.plan_vector_build(true) {
        out.push(block_on(store.install_vector_build(input.build())).unwrap().1);
        if out.len() > 16 {
            panic!("builds do not converge: {out:?}");
        }
    }
    out
}

#[test]
fn segments_are_persisted_and_reused_after_deletes_renumber_slots() {
    let storage = Faulty::default();
    let mut store = open_with(storage.clone(), 100).unwrap();
    let mut c = vectors::Clusters::new(12, DIMS, 1);
    let mut all = Vec::new();
    for i in 0..400 {
        let v = c.sample();
        all.push((add(&mut store, format!("memory {i}"), "a", v.clone()), v));
    }
    assert!(store.engine().needs_vector_build());
    assert_eq!(build_all(&mut store), vec![Installed::Segment { points: 400 }]);
    let keys: Vec<_> = block_on(engram::host::Storage::load_range(&storage, &["engram".to_string()])).unwrap().into_iter().map(|(k, _)| k).collect();
    assert!(keys.iter().any(|k| k[1] == "vgraph") && keys.iter().any(|k| k[1] == "vgraphs"), "{keys:?}");

    // Deletes free low slots, so every later record gets a new slot number on open.
    for (id, _) in all.iter().take(40) {
        block_on(store.delete(id)).unwrap();
    }
    let queries = c.many(20);
    let before: Vec<Vec<String>> = queries.iter().map(|q| ids(&nearest(&mut store, q, "a", 10))).collect();
    let stats = store.engine().vector_stats(VectorTarget::Memories);
    assert_eq!((stats.indexed, stats.tombstones, stats.segments), (360, 40, 1));
    drop(store);

    let mut reopened = open_with(storage.clone(), 100).unwrap();
    let stats = reopened.engine().vector_stats(VectorTarget::Memories);
    assert_eq!((stats.len, stats.indexed, stats.delta, stats.segments), (360, 360, 0, 1), "the segment serves every record it holds");
    let after: Vec<Vec<String>> = queries.iter().map(|q| ids(&nearest(&mut reopened, q, "a", 10))).collect();
    assert_eq!(after, before);
    for hits in &after {
        assert!(hits.iter().all(|id| !all[..40].iter().any(|(d, _)| d == id)));
    }
}

#[test]
fn links_reach_memories_in_segments_also_after_a_reopen() {
    let storage = Faulty::default();
    let mut store = open_with(storage.clone(), 100).unwrap();
    let mut c = vectors::Clusters::new(6, DIMS, 7);
    let all: Vec<(String, Vec<f32>)> = (0..300)
        .map(|i| {
            let v = c.sample();
            (add(&mut store, format!("m{i}"), "a", v.clone()), v)
        })
        .collect();
    build_all(&mut store);
    assert_eq!(store.engine().vector_stats(VectorTarget::Memories).delta, 0, "every vector sits in a segment");
    // Next to memory `i`: its vector nudged a little off, so the two are nearest to each other.
    let noise = vectors::random_unit(&mut vectors::Rng::new(99), DIMS);
    let next_to = |i: usize| vectors::normalize(all[i].1.iter().zip(&noise).map(|(a, b)| a + 0.05 * b).collect());
    let add_near = |store: &mut Store<Faulty>, i: usize, ns: &str| {
        let input = NewMemory { content: format!("close to m{i} in {ns}"), namespace: Some(ns.into()), embedding: Some(next_to(i)), ..NewMemory::default() };
        block_on(store.add(input)).unwrap().memory.links
    };
    // A new memory next to one in a segment links to it; one in another namespace does not.
    assert!(add_near(&mut store, 299, "a").contains(&all[299].0));
    assert!(!add_near(&mut store, 299, "b").contains(&all[299].0));
    // After a reopen the segments are read back, and the newest memories are still link candidates.
    drop(store);
    let mut store = open_with(storage.clone(), 100).unwrap();
    assert!(store.engine().vector_stats(VectorTarget::Memories).segments > 0);
    assert!(add_near(&mut store, 250, "a").contains(&all[250].0));
}

#[test]
fn a_damaged_or_missing_segment_is_skipped_and_vectors_are_scanned() {
    let storage = Faulty::default();
    let (mut store, mut c) = clustered_store(&storage, 50, 120, 2);
    build_all(&mut store);
    let q = c.sample();
    let want = ids(&nearest(&mut store, &q, "a", 5));
    drop(store);
    let records = block_on(engram::host::Storage::load_range(&storage, &["engram".to_string()])).unwrap();
    let (key, bytes) = records.iter().find(|(k, _)| k[1] == "vgraph").unwrap().clone();
    for damaged in [
        bytes[..bytes.len() / 2].to_vec(),
        {
            let mut b = bytes.clone();
            b[bytes.len() - 9] ^= 4;
            b
        },
        Vec::new(),
    ] {
        let s = Faulty::default();
        for (k, v) in &records {
            let v = if *k == key { damaged.clone() } else { v.clone() };
            block_on(engram::host::Storage::save(&s, k, &v)).unwrap();
        }
        let mut opened = open_with(s, 50).unwrap();
        let stats = opened.engine().vector_stats(VectorTarget::Memories);
        assert_eq!((stats.segments, stats.delta), (0, 120));
        assert_eq!(ids(&nearest(&mut opened, &q, "a", 5)), want);
        // The next build replaces the unreadable segment and removes its key.
        assert_eq!(build_all(&mut opened), vec![Installed::Segment { points: 120 }]);
    }
}

#[test]
fn a_failed_segment_write_is_a_storage_error_and_loses_nothing() {
    let storage = Faulty::default();
    let (mut store, mut c) = clustered_store(&storage, 50, 100, 3);
    let input = store.plan_vector_build(true).unwrap();
    storage.fail_next(Fault::Quota);
    let e = block_on(store.install_vector_build(input.build())).unwrap_err();
    assert_eq!(e.code, engram::ErrorCode::StorageFull);
    storage.clear_fault();
    // Queries keep working on the installed graph; the records are untouched on disk.
    assert_eq!(nearest(&mut store, &c.sample(), "a", 5).len(), 5);
    drop(store);
    let reopened = open_with(storage, 50).unwrap();
    assert_eq!(reopened.engine().stats().memories, 100);
    assert_eq!(reopened.engine().vector_stats(VectorTarget::Memories).delta, 100);
}

/// Random adds, deletes, vector searches in two namespaces, builds (planned at one moment,
/// installed after more changes) and reopens, against a map of live vectors.
fn model_run(ops: usize, seed: u64) {
    let storage = Faulty::default();
    let mut store = open_with(storage.clone(), 60).unwrap();
    let mut rng = vectors::Rng::new(seed);
    let mut model: BTreeMap<String, (String, Vec<f32>)> = BTreeMap::new();
    let mut pending = None;
    let (mut searches, mut with_segments, mut reopens, mut installs) = (0, 0, 0, 0);
    for i in 0..ops {
        match rng.below(100) {
            0..=39 => {
                let ns = if rng.below(3) == 0 { "b" } else { "a" };
                let v = vectors::random_unit(&mut rng, DIMS);
                let id = add(&mut store, format!("memory {i}"), ns, v.clone());
                model.insert(id, (ns.to_string(), v));
            }
            40..=54 if !model.is_empty() => {
                let id = model.keys().nth(rng.below(model.len())).unwrap().clone();
                block_on(store.delete(&id)).unwrap();
                model.remove(&id);
            }
            55..=94 => {
                let ns = if rng.below(2) == 0 { "a" } else { "b" };
                let q = vectors::random_unit(&mut rng, DIMS);
                let limit = 1 + rng.below(20);
                let hits = nearest(&mut store, &q, ns, limit);
                let live_in_ns = model.values().filter(|(n, _)| n == ns).count();
                assert!(hits.len() <= limit.min(live_in_ns));
                for w in hits.windows(2) {
                    assert!(w[0].score >= w[1].score, "sorted by score");
                }
                for h in &hits {
                    assert!(h.score.is_finite());
                    let m = h.memory().unwrap();
                    let (n, _) = model.get(&m.id).expect("a deleted memory was returned");
                    assert_eq!(n, ns, "a memory of another namespace was returned");
                }
                searches += 1;
                with_segments += (store.engine().vector_stats(VectorTarget::Memories).segments > 0) as usize;
            }
            95..=96 => match pending.take() {
                None => pending = store.plan_vector_build(rng.below(2) == 0),
                Some(input) => {
                    let input: engram::index::BuildInput = input;
                    if block_on(store.install_vector_build(input.build())).is_ok() {
                        installs += 1;
                    }
                }
            },
            97 if rng.below(8) == 0 => {
                drop(std::mem::replace(&mut store, open_with(storage.clone(), 60).unwrap()));
                pending = None;
                reopens += 1;
                assert_eq!(store.engine().stats().memories, model.len());
            }
            _ => {}
        }
    }
    println!("{ops} ops: {searches} searches ({with_segments} with segments), {installs} installs, {reopens} reopens");
    assert!(with_segments * 3 > searches, "segments were exercised: {with_segments}/{searches}");
    assert!(reopens > 0 && installs > 0);
}

#[test]
fn model_based_vector_operations_with_reopens() {
    model_run(if cfg!(debug_assertions) { 6_000 } else { 100_000 }, 0x5E6);
}

/// The 10^5-operation run (an optimized build: `cargo test --profile bench-native --test
/// persist_vectors -- --ignored`).
#[test]
#[ignore]
fn model_based_vector_operations_long() {
    model_run(100_000, 0x5E7);
}
