use super::*;

// The index against brute-force oracles, at small sizes and (ignored) at 10k/50k, and the trial
// before a large build: moved here from `tests/` (the index is crate-private).
#[path = "../../../tests/support/vectors.rs"]
mod vectors;

mod vector_index;
mod vector_oracle;
mod vector_trial;

fn unit(v: Vec<f32>) -> Vec<f32> {
    let n = dot(&v, &v).sqrt();
    v.into_iter().map(|x| x / n).collect()
}

/// Small deterministic pseudo-random unit vectors (xorshift), enough for unit tests.
pub(super) fn vectors(n: usize, dims: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    };
    (0..n).map(|_| unit((0..dims).map(|_| next()).collect())).collect()
}

/// Small stores with a graph whatever the calibration says (tiny graphs rarely pay off).
fn small_graph_options() -> VectorOptions {
    VectorOptions { graph_min: 50, build: BuildOptions { always_graph: true, ..BuildOptions::default() }, ..VectorOptions::default() }
}

fn first_graph(ix: &VectorIndex) -> Option<&BuiltGraph> {
    ix.segments().next().map(|(_, g)| g)
}

#[test]
fn exact_search_orders_by_cosine_and_respects_removal() {
    let mut ix = VectorIndex::new();
    ix.insert(0, vec![1.0, 0.0]);
    ix.insert(1, vec![0.6, 0.8]);
    ix.insert(2, vec![0.0, 1.0]);
    let q = [0.8, 0.6];
    let order: Vec<_> = ix.search(&q, 10, |_| true).iter().map(|h| h.doc).collect();
    assert_eq!(order, [1, 0, 2]);
    assert!(ix.remove(1));
    assert_eq!(ix.search(&q, 1, |_| true)[0].doc, 0);
    assert_eq!(ix.len(), 2);
    assert!(ix.search(&[1.0, 0.0, 0.0], 10, |_| true).is_empty());
}

#[test]
fn graph_tier_takes_built_vectors_and_delta_keeps_new_ones() {
    let vs = vectors(300, 16, 7);
    let mut ix = VectorIndex::with_options(small_graph_options());
    for (i, v) in vs.iter().enumerate().take(200) {
        ix.insert(i as DocId, v.clone());
    }
    assert!(ix.needs_rebuild());
    let snapshot = ix.snapshot_for_build();
    // Changes after the snapshot: a new vector, a replaced one, a removed one.
    ix.insert(250, vs[250].clone());
    ix.insert(3, vs[251].clone());
    ix.remove(4);
    assert_eq!(ix.install(snapshot.build()).unwrap(), Installed::Segment { points: 198 });
    let s = ix.stats();
    assert_eq!((s.len, s.indexed, s.delta, s.tombstones), (200, 198, 2, 2));
    assert_eq!(ix.search(&vs[251], 1, |_| true)[0].doc, 3);
    assert_eq!(ix.search(&vs[250], 1, |_| true)[0].doc, 250);
    assert!(ix.search(&vs[4], 200, |_| true).iter().all(|h| h.doc != 4));
    assert_eq!(ix.search(&vs[4], 500, |_| true).len(), 200);

    ix.rebuild();
    let s = ix.stats();
    assert_eq!((s.indexed, s.delta, s.tombstones), (200, 0, 0));
    // Shrinking below the graph size moves everything back to the exact tier.
    for d in 0..180 {
        ix.remove(d);
    }
    assert!(ix.needs_rebuild());
    ix.rebuild();
    assert!(first_graph(&ix).is_none());
    assert_eq!((ix.delta_len(), ix.len()), (21, 21));
}

#[test]
fn install_rejects_another_dimension_and_builds_are_reproducible() {
    let mut a = VectorIndex::with_options(small_graph_options());
    for (i, v) in vectors(120, 8, 3).into_iter().enumerate() {
        a.insert(i as DocId, v);
    }
    let g1 = a.snapshot_for_build().build().to_bytes();
    let g2 = a.snapshot_for_build().build().to_bytes();
    assert_eq!(g1, g2);
    let mut b = VectorIndex::new();
    b.insert(0, vec![1.0, 0.0]);
    assert_eq!(b.install(BuildOutput::from_bytes(&g1).unwrap()).unwrap_err().code, crate::error::ErrorCode::InvalidInput);
}

#[test]
fn int8_only_index_keeps_no_f32_and_still_ranks() {
    let vs = vectors(100, 32, 11);
    let mut ix = VectorIndex::with_options(VectorOptions { keep_exact: false, ..VectorOptions::default() });
    for (i, v) in vs.iter().enumerate() {
        ix.insert(i as DocId, v.clone());
    }
    assert!(ix.get(5).is_none());
    let hits = ix.search(&vs[5], 3, |_| true);
    assert_eq!(hits[0].doc, 5);
    assert!((hits[0].cosine - 1.0).abs() < 1e-2);
}

#[test]
fn snapshot_bytes_round_trip_and_reject_corruption() {
    let mut ix = VectorIndex::new();
    for (i, v) in vectors(10, 8, 5).into_iter().enumerate() {
        ix.insert(i as DocId * 2, v);
    }
    let snap = ix.snapshot_for_build();
    let bytes = snap.to_bytes();
    assert_eq!(BuildInput::from_bytes(&bytes).unwrap(), snap);
    for cut in 0..bytes.len() {
        assert!(BuildInput::from_bytes(&bytes[..cut]).is_err());
    }
}

/// Bytes with a valid envelope but a forged body (every byte position tried with a few values): the
/// decoder either rejects them as `Corrupt` or yields a graph that searches without panicking.
#[test]
fn forged_graph_bodies_never_panic() {
    let vs = vectors(60, 4, 13);
    let mut ix = VectorIndex::with_options(VectorOptions { graph_min: 1, ..small_graph_options() });
    for (i, v) in vs.iter().enumerate() {
        ix.insert(i as DocId, v.clone());
    }
    ix.rebuild();
    let bytes = first_graph(&ix).unwrap().to_bytes();
    let body = frame::unwrap(frame::GRAPH_MAGIC, &bytes, "test").unwrap().to_vec();
    let (mut accepted, mut rejected) = (0, 0);
    for at in (0..body.len()).step_by((body.len() / 300).max(1)) {
        for value in [0u8, 1, 0x7F, 0xFF] {
            let mut b = body.clone();
            b[at] = value;
            match BuiltGraph::from_bytes(&frame::wrap(frame::GRAPH_MAGIC, &b)) {
                Ok(g) => {
                    accepted += 1;
                    let mut copy = VectorIndex::with_options(ix.options().clone());
                    for (i, v) in vs.iter().enumerate() {
                        copy.insert(i as DocId, v.clone());
                    }
                    copy.install_segment(1, g).ok();
                    for q in vs.iter().take(3) {
                        copy.search(q, 5, |_| true);
                    }
                }
                Err(e) => {
                    assert_eq!(e.code, crate::error::ErrorCode::Corrupt);
                    rejected += 1;
                }
            }
        }
    }
    assert!(accepted > 0 && rejected > 0, "{accepted} accepted, {rejected} rejected");
}

/// The index is shared across threads by hosts, and a snapshot is sent to a build thread.
#[test]
fn index_is_send_and_sync_and_builds_can_move_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<VectorIndex>();
    send_sync::<BuildInput>();
    send_sync::<BuiltGraph>();
    send_sync::<BuildOutput>();
    let mut ix = VectorIndex::with_options(small_graph_options());
    for (i, v) in vectors(80, 8, 17).into_iter().enumerate() {
        ix.insert(i as DocId, v);
    }
    let snapshot = ix.snapshot_for_build();
    let output = std::thread::spawn(move || snapshot.build()).join().unwrap();
    ix.install(output).unwrap();
    assert_eq!(ix.indexed_len(), 80);
}

#[test]
fn streaming_pool_keeps_what_a_full_sort_keeps_and_filters_only_entrants() {
    // Estimates with many ties (rounded), half the documents rejected by the filter.
    let scores: Vec<(DocId, f32)> = vectors(5000, 4, 11).iter().enumerate().map(|(i, v)| (i as DocId, (v[0] * 20.0).round() / 20.0)).collect();
    let accept = |d: DocId| d % 2 == 0;
    for pool in [0, 1, 7, 72, 4999, 6000] {
        let calls = std::cell::Cell::new(0usize);
        let counted = |d: DocId| {
            calls.set(calls.get() + 1);
            accept(d)
        };
        let mut b = Best::new(pool);
        for &(d, e) in &scores {
            b.offer(d, e, &counted);
        }
        let mut got = b.into_vec();
        let mut want = best(scores.iter().copied().filter(|(d, _)| accept(*d)), pool);
        let order = |a: &(DocId, f32), b: &(DocId, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        got.sort_by(order);
        want.sort_by(order);
        assert_eq!(got, want, "pool {pool}");
        if pool == 72 {
            assert!(calls.get() < scores.len() / 4, "the filter ran {} times for {} documents", calls.get(), scores.len());
        }
    }
}

#[test]
fn bounded_search_reads_the_newest_vectors_whatever_tier_holds_them() {
    let n = RECENT_ROWS + 600;
    let vs = vectors(n + 1, 16, 21);
    // A cheap graph: what it finds does not matter here, only that the vectors move into it.
    let options = VectorOptions { build: BuildOptions { ef_construction: 8, ef_search: 8, ..small_graph_options().build }, ..small_graph_options() };
    let mut ix = VectorIndex::with_options(options);
    for (i, v) in vs.iter().enumerate().take(n) {
        ix.insert(i as DocId, v.clone());
    }
    ix.rebuild();
    assert_eq!(ix.delta_len(), 0, "every vector now sits in a segment");
    let old = 0..(n - RECENT_ROWS) as DocId;
    // Each of the newest vectors is found by itself (estimate within 1e-2 of 1), from the segment.
    for doc in [n - 1, n - 2_000, n - RECENT_ROWS] {
        let hits = ix.search_bounded(&vs[doc], 4, |_| true);
        assert_eq!(hits[0].doc, doc as DocId, "doc {doc}");
        assert!((hits[0].cosine - 1.0).abs() < 1e-2, "{}", hits[0].cosine);
    }
    // Older vectors are never candidates, even their own query's.
    for doc in [0, n - RECENT_ROWS - 1] {
        assert!(ix.search_bounded(&vs[doc], 50, |_| true).iter().all(|h| !old.contains(&h.doc)));
    }
    // The filter holds; a removed vector is gone; a replaced one is found by its new value, once.
    assert!(ix.search_bounded(&vs[n - 1], 50, |d| d % 2 == 0).iter().all(|h| h.doc % 2 == 0));
    ix.remove((n - 1) as DocId);
    assert!(ix.search_bounded(&vs[n - 1], 50, |_| true).iter().all(|h| h.doc != (n - 1) as DocId));
    ix.insert((n - 2) as DocId, vs[n].clone());
    let hits = ix.search_bounded(&vs[n], 50, |_| true);
    assert_eq!(hits[0].doc, (n - 2) as DocId);
    assert_eq!(hits.iter().filter(|h| h.doc == (n - 2) as DocId).count(), 1);
    // Dimension mismatch or an empty request: nothing, never a panic.
    assert!(ix.search_bounded(&vs[0][..8], 4, |_| true).is_empty());
    assert!(ix.search_bounded(&vs[0], 0, |_| true).is_empty());
}
