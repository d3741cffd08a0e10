//! The trial before a large build: a batch without structure (uniform random vectors) is turned
//! away by its sample's relative contrast, without a graph build; clustered data passes the trial
//! and gets its full build and calibration.

use super::vectors;

use crate::index::vector::{BuildOutput, TRIAL_MIN_CONTRAST, TRIAL_POINTS};
use crate::index::{BuildOptions, VectorIndex, VectorOptions};
use vectors::*;

/// The build output for `data` as one batch, with the default build options (the real calibration).
fn build(data: Vec<Vec<f32>>) -> BuildOutput {
    let mut ix = VectorIndex::with_options(VectorOptions { graph_min: 1, ..VectorOptions::default() });
    for (d, v) in data.into_iter().enumerate() {
        ix.insert(d as u32, v);
    }
    ix.plan_build(true).expect("a batch to build").build()
}

#[test]
fn uniform_random_vectors_are_rejected_by_the_trial_alone() {
    let n = 2 * TRIAL_POINTS;
    let out = build(uniform(n, 384, 7));
    let c = out.calibration;
    assert!(out.graph.is_none() && !c.use_graph, "{c:?}");
    assert!(c.trial, "the full build was run: {c:?}");
    assert_eq!(c.points as usize, n, "the decision is about the whole batch (retries wait for twice it)");
    assert!(c.contrast > 0.0 && c.contrast < TRIAL_MIN_CONTRAST, "{c:?}");
    assert_eq!((c.evals, c.recall_mean), (0.0, 0.0), "no graph was queried: {c:?}");
}

#[test]
fn clustered_vectors_pass_the_trial_and_get_the_full_build() {
    let n = 2 * TRIAL_POINTS;
    // Cheaper links in debug builds, where instant-distance is slow: the trial does not depend on them.
    let build_options = BuildOptions { ef_construction: if cfg!(debug_assertions) { 16 } else { 64 }, ..BuildOptions::default() };
    let mut ix = VectorIndex::with_options(VectorOptions { graph_min: 1, build: build_options, ..VectorOptions::default() });
    for (d, v) in Clusters::new(64, 384, 11).many(n).into_iter().enumerate() {
        ix.insert(d as u32, v);
    }
    let c = ix.plan_build(true).expect("a batch to build").build().calibration;
    assert!(!c.trial && c.contrast >= TRIAL_MIN_CONTRAST, "the trial turned clustered data away: {c:?}");
    assert_eq!(c.points as usize, n);
    assert!(c.evals > 0.0 && c.recall_mean > 0.5, "the full graph was built and queried: {c:?}");
}

#[test]
fn small_batches_skip_the_trial() {
    let out = build(uniform(2 * TRIAL_POINTS - 1, 16, 3));
    assert!(!out.calibration.trial && out.calibration.contrast == 0.0, "{:?}", out.calibration);
}

/// The relative contrast of each kind of data (how [`TRIAL_MIN_CONTRAST`] was chosen):
/// `cargo test --profile bench-native --lib -- --ignored vector_trial:: --nocapture`.
#[test]
#[ignore]
fn trial_contrast() {
    let n = 2 * TRIAL_POINTS;
    let sets = [
        ("uniform", uniform(n, 384, 5)),
        ("clustered 64", Clusters::new(64, 384, 6).many(n)),
        ("clustered 500", Clusters::new(500, 384, 8).many(n)),
        ("clustered 2000", Clusters::new(2000, 384, 9).many(n)),
    ];
    for (name, data) in sets {
        let t = std::time::Instant::now();
        let c = build(data).calibration;
        println!("{name}: contrast {:.3}, trial {}, graph {} (recall {:.3}, {:.0} evaluations), {:?}", c.contrast, c.trial, c.use_graph, c.recall_mean, c.evals, t.elapsed());
    }
}
