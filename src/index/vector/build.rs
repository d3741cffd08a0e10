//! Building the approximate tier: an owned batch of codes goes in, a graph segment (or the decision
//! that a graph does not pay off for them) comes out. The build is pure, so it can run on another
//! thread, in a worker, or in another instance (input and output have byte forms) while the index
//! keeps answering queries from what it already has.
//!
//! Every build ends with a **calibration** on its own points: sample queries (batch points, and
//! points moved off the data like a new text's vector) query the graph, their true neighbours come
//! from an exact scan of the batch, and the smallest `ef_search` that reaches
//! [`RECALL_MEAN`] / [`RECALL_MIN`] is kept — if a graph at that `ef` does not cost clearly fewer
//! distance evaluations than scanning the batch, the output says so and the points stay in the exact
//! tier. Uniform random vectors (no structure to navigate) thus stay exact; clustered real
//! embeddings get a graph. Work is counted in distance evaluations, not time, so the decision is
//! deterministic and the same in wasm and natively.

use serde::Serialize;

use super::graph::BuiltGraph;
use super::quantize::{self, dot_i8, Code};
use super::{binary, frame};
use crate::error::{Error, Result};
use crate::index::DocId;

/// Owned input of one build: a batch of live vectors as int8 codes, which segments the result
/// replaces, and the options to build with.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildInput {
    pub(super) dims: usize,
    pub(super) docs: Vec<DocId>,
    pub(super) codes: Vec<Code>,
    /// Segments whose points are in this batch; installing the result removes them.
    pub(super) replaces: Vec<u64>,
    /// How many of the points came from the exact tier (the rest from replaced segments).
    pub(super) from_delta: usize,
    /// The owner's tag (which index of the owner this is for), echoed by the output.
    pub label: u8,
    pub(super) options: BuildOptions,
}

/// What a build produced: a graph segment, or `None` when the calibration found that scanning these
/// points exactly is as cheap (then they stay in the exact tier).
#[derive(Debug)]
pub struct BuildOutput {
    pub(super) dims: usize,
    pub(super) replaces: Vec<u64>,
    pub(super) from_delta: usize,
    pub label: u8,
    /// Identifies the segment (a hash of its points), e.g. as its storage key.
    pub id: u64,
    pub(crate) graph: Option<BuiltGraph>,
    pub calibration: Calibration,
}

/// How well the graph served its own sample queries, and the decision taken. Serialized as the
/// `calibration` of the API's reindex steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Calibration {
    pub points: u32,
    pub samples: u32,
    /// The `ef_search` chosen (the last one tried if none reached the targets).
    pub ef_search: u32,
    /// Share of each sample's true top 10 among the graph's results: mean and worst.
    pub recall_mean: f32,
    pub recall_min: f32,
    /// Mean distance evaluations per sample query (an exact scan costs `points`).
    #[serde(rename = "distanceEvaluations")]
    pub evals: f32,
    pub use_graph: bool,
    /// The batch was turned away by its sample's relative contrast, without a graph build (the
    /// recall and evaluation figures are then 0).
    pub trial: bool,
    /// The sample's relative contrast, where it was measured (batches of at least twice
    /// `TRIAL_POINTS`); 0 otherwise.
    pub contrast: f32,
}

/// Calibration targets, above the recall the index promises (mean 0.95, worst 0.6) because 48 sample
/// queries are few and real queries come from texts the batch has never seen.
pub const RECALL_MEAN: f32 = 0.97;
pub const RECALL_MIN: f32 = 0.7;
/// A graph distance evaluation (random access, heap upkeep, rescoring) costs about this many
/// sequential scan evaluations: on 10k real MiniLM turns a graph query doing 1,742 evaluations took
/// as long as a 10,000-vector int8 scan (natively, `benches/vector_native.rs`). A graph is kept only
/// if it does fewer than `points / GRAPH_EVAL_COST` of them.
pub const GRAPH_EVAL_COST: f32 = 6.0;
const SAMPLES: usize = 48;
const K: usize = 10;

impl BuildInput {
    pub fn len(&self) -> usize {
        self.docs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
    pub fn dims(&self) -> usize {
        self.dims
    }
    pub fn replaces(&self) -> &[u64] {
        &self.replaces
    }

    /// Versioned, checksummed bytes, so a build can happen in another instance (a web worker).
    pub fn to_bytes(&self) -> Vec<u8> {
        let o = &self.options;
        let header = (self.dims as u64, self.label, self.from_delta as u64, &self.replaces, (o.seed, o.ef_construction as u64, o.ef_search as u64, o.always_graph));
        let body = binary::to_vec(&(header, &self.docs, &self.codes)).expect("snapshot shapes are all supported by the codec");
        frame::wrap(frame::SNAPSHOT_MAGIC, &body)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<BuildInput> {
        type Header = (u64, u8, u64, Vec<u64>, (u64, u64, u64, bool));
        let body = frame::unwrap(frame::SNAPSHOT_MAGIC, bytes, "vector build input")?;
        let ((dims, label, from_delta, replaces, (seed, ef_c, ef_s, always_graph)), docs, codes): (Header, Vec<DocId>, Vec<Code>) =
            binary::from_slice(body).map_err(|e| Error::corrupt(format!("vector build input: {e}")))?;
        let dims_ok = dims > 0 && dims <= 1 << 16;
        let options_ok = (1..=4096).contains(&ef_c) && (1..=4096).contains(&ef_s);
        if !dims_ok
            || !options_ok
            || from_delta > docs.len() as u64
            || docs.len() != codes.len()
            || codes.iter().any(|c| c.q.len() as u64 != dims || !c.scale.is_finite() || c.scale < 0.0)
        {
            return Err(Error::corrupt("vector build input: codes do not match their dimension, documents or options"));
        }
        let options = BuildOptions { seed, ef_construction: ef_c as usize, ef_search: ef_s as usize, parallel: false, always_graph };
        Ok(BuildInput { dims: dims as usize, docs, codes, replaces, from_delta: from_delta as usize, label, options })
    }

    /// Builds and calibrates the graph: pure and CPU-bound (seconds to minutes at tens of thousands
    /// of vectors), so run it off the query path. `parallel` builds use every core (faster, but the
    /// graph then varies slightly between runs).
    pub fn build(self) -> BuildOutput {
        self.build_with(false)
    }

    pub fn build_with(self, parallel: bool) -> BuildOutput {
        let id = self.segment_id();
        let BuildInput { dims, docs, codes, replaces, from_delta, label, options } = self;
        let contrast = if codes.len() >= 2 * TRIAL_POINTS { relative_contrast(&codes) } else { 0.0 };
        if contrast > 0.0 && contrast < TRIAL_MIN_CONTRAST && !options.always_graph {
            let calibration = Calibration { points: codes.len() as u32, samples: TRIAL_QUERIES as u32, contrast, trial: true, ..Calibration::default() };
            return BuildOutput { dims, replaces, from_delta, label, id, graph: None, calibration };
        }
        let (graph, index_of) = build_graph(dims, docs, codes.clone(), &options, parallel);
        let (graph, calibration) = calibrate(graph, &codes, &index_of, &options, codes.len() as f32 / GRAPH_EVAL_COST);
        let calibration = Calibration { contrast, ..calibration };
        BuildOutput { dims, replaces, from_delta, label, id, graph: calibration.use_graph.then_some(graph), calibration }
    }

    /// FNV-1a over the batch: the same points give the same id in every instance.
    fn segment_id(&self) -> u64 {
        let mut h = crate::digest::Fnv1a::default();
        let mut eat = |x: u64| h.eat(&x.to_le_bytes());
        eat(self.label as u64);
        for (d, c) in self.docs.iter().zip(&self.codes) {
            eat(*d as u64);
            eat(c.scale.to_bits() as u64);
        }
        for r in &self.replaces {
            eat(*r);
        }
        h.finish()
    }
}

impl BuildOutput {
    pub fn to_bytes(&self) -> Vec<u8> {
        let c = &self.calibration;
        let cal = (c.points, c.samples, c.ef_search, c.recall_mean, c.recall_min, c.evals, c.use_graph, c.trial, c.contrast);
        let graph = self.graph.as_ref().map(BuiltGraph::to_bytes).unwrap_or_default();
        let body = binary::to_vec(&((self.dims as u64, &self.replaces, self.from_delta as u64, self.label, self.id), cal, super::quantize::ByteString(&graph)))
            .expect("output shapes are all supported by the codec");
        frame::wrap(frame::OUTPUT_MAGIC, &body)
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<BuildOutput> {
        type Head = (u64, Vec<u64>, u64, u8, u64);
        type Cal = (u32, u32, u32, f32, f32, f32, bool, bool, f32);
        let body = frame::unwrap(frame::OUTPUT_MAGIC, bytes, "vector build output")?;
        let ((dims, replaces, from_delta, label, id), cal, graph): (Head, Cal, quantize::OwnedBytes) =
            binary::from_slice(body).map_err(|e| Error::corrupt(format!("vector build output: {e}")))?;
        let graph = if graph.0.is_empty() { None } else { Some(BuiltGraph::from_bytes(&graph.0)?) };
        if graph.as_ref().is_some_and(|g| g.dims() as u64 != dims) || cal.6 != graph.is_some() {
            return Err(Error::corrupt("vector build output: graph does not match its header"));
        }
        let calibration =
            Calibration { points: cal.0, samples: cal.1, ef_search: cal.2, recall_mean: cal.3, recall_min: cal.4, evals: cal.5, use_graph: cal.6, trial: cal.7, contrast: cal.8 };
        Ok(BuildOutput { dims: dims as usize, replaces, from_delta: from_delta as usize, label, id, graph, calibration })
    }
}

/// The graph over `codes` (documents `docs`), and the input index of each graph point.
fn build_graph(dims: usize, docs: Vec<DocId>, codes: Vec<Code>, options: &BuildOptions, parallel: bool) -> (BuiltGraph, Vec<u32>) {
    let builder = instant_distance::Builder::default().seed(options.seed).ef_construction(options.ef_construction).ef_search(options.ef_search);
    let build = move || builder.build_hnsw(codes);
    let (hnsw, pids) = if parallel { build() } else { on_one_thread(build) };
    let mut index_of = vec![0u32; pids.len()];
    for (i, pid) in pids.iter().enumerate() {
        index_of[pid.into_inner() as usize] = i as u32;
    }
    (BuiltGraph::from_build(dims, options.ef_search, docs, hnsw, pids), index_of)
}

/// Points of the sample looked at before a large batch's build.
pub const TRIAL_POINTS: usize = 2048;
/// Below this relative contrast (see [`relative_contrast`]) a batch has no structure a graph could
/// navigate. Measured with `src/index/vector/tests/vector_trial.rs` (`trial_contrast`, batches of 4,096 384-d vectors):
/// uniform random 1.10; clustered synthetic sets 1.75 (64 clusters), 1.60 (500), 1.44 (2,000
/// clusters, two points each). A trial graph over 4,096 points could not tell them apart (uniform
/// reached recall 0.98 at 0.80 of a scan, 500 clusters at 0.71): the recall a graph loses at scale
/// does not show in a small one.
pub const TRIAL_MIN_CONTRAST: f32 = 1.2;
const TRIAL_QUERIES: usize = 48;

/// Relative contrast of a strided sample of [`TRIAL_POINTS`] of `codes`: mean distance to a sample
/// point over distance to the nearest one, averaged over 48 sample queries. Near 1, every point is
/// about as far as every other (uniform random vectors in high dimension): a graph search cannot
/// prune, and the calibration would reject the graph after minutes of building. So a batch of at
/// least twice [`TRIAL_POINTS`] below [`TRIAL_MIN_CONTRAST`] gets no build at all (`trial` set,
/// `points` the whole batch, so the next try waits until the exact tier doubles); above it, the
/// full build's calibration still decides.
pub fn relative_contrast(codes: &[Code]) -> f32 {
    let n = codes.len();
    let m = TRIAL_POINTS.min(n);
    let sample: Vec<&Code> = (0..m).map(|i| &codes[i * n / m]).collect();
    let distance = |cos: f32| (2.0 - 2.0 * cos).max(1e-6).sqrt();
    let mut sum = 0.0f32;
    let queries = TRIAL_QUERIES.min(m);
    for k in 0..queries {
        let qi = k * m / queries;
        let q = sample[qi];
        let (mut nearest, mut total) = (f32::NEG_INFINITY, 0.0f32);
        for (_, c) in sample.iter().enumerate().filter(|(i, _)| *i != qi) {
            let cos = q.scale * c.scale * dot_i8(&q.q, &c.q) as f32;
            nearest = nearest.max(cos);
            total += distance(cos);
        }
        sum += total / (m - 1).max(1) as f32 / distance(nearest);
    }
    sum / queries.max(1) as f32
}

/// Tries `ef`, 2·`ef`, 4·`ef` until the sample recall reaches the targets, then decides between the
/// graph and a scan by the distance evaluations each costs: the graph pays off below `eval_budget`
/// evaluations per query. `index_of[point]` is the input index of each graph point, to compare
/// against the exact truth.
fn calibrate(mut graph: BuiltGraph, codes: &[Code], index_of: &[u32], options: &BuildOptions, eval_budget: f32) -> (BuiltGraph, Calibration) {
    let n = codes.len();
    let samples: Vec<usize> = if n <= SAMPLES { (0..n).collect() } else { (0..SAMPLES).map(|i| i * n / SAMPLES).collect() };
    // Half the sample queries are batch points (their neighbours are the other points); half are
    // points moved off the data (`off_point`), like a new text's vector, which is where a graph
    // misses most: on-point queries alone overstate the recall real queries see.
    let queries: Vec<(Code, Option<usize>)> =
        samples.iter().enumerate().map(|(i, &s)| if i % 2 == 0 { (codes[s].clone(), Some(s)) } else { (off_point(&codes[s], i as u64), None) }).collect();
    let truth: Vec<Vec<u32>> = queries.iter().map(|(q, own)| exact_neighbours(codes, q, *own)).collect();
    let mut cal = Calibration { points: n as u32, samples: samples.len() as u32, ..Calibration::default() };
    let mut tried = options.ef_search.max(1);
    for round in 0..3 {
        if round > 0 {
            tried *= 2;
            graph = graph.with_ef_search(tried);
        }
        let (mut sum, mut worst, mut evals) = (0f32, 1f32, 0u64);
        for ((query, _), truth) in queries.iter().zip(&truth) {
            let before = quantize::distance_evals();
            let found: Vec<u32> = graph.nearest(query).into_iter().map(|(p, _)| index_of[p as usize]).collect();
            evals += quantize::distance_evals() - before;
            let r = if truth.is_empty() { 1.0 } else { truth.iter().filter(|t| found.contains(t)).count() as f32 / truth.len() as f32 };
            sum += r;
            worst = worst.min(r);
        }
        let m = samples.len().max(1) as f32;
        cal.ef_search = tried as u32;
        cal.recall_mean = sum / m;
        cal.recall_min = worst;
        cal.evals = evals as f32 / m;
        if cal.recall_mean >= RECALL_MEAN && cal.recall_min >= RECALL_MIN {
            cal.use_graph = options.always_graph || cal.evals < eval_budget;
            return (graph, cal);
        }
        if cal.evals >= eval_budget && !options.always_graph {
            break; // a larger ef would only cost more
        }
    }
    cal.use_graph = options.always_graph;
    (graph, cal)
}

/// The `K` nearest points to `q` by the int8 estimate (ties by index), leaving out point `own`.
fn exact_neighbours(codes: &[Code], q: &Code, own: Option<usize>) -> Vec<u32> {
    let scored: Vec<(f32, u32)> = codes.iter().enumerate().filter(|(i, _)| Some(*i) != own).map(|(i, c)| (q.scale * c.scale * dot_i8(&q.q, &c.q) as f32, i as u32)).collect();
    crate::index::top_k(scored, K, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))).into_iter().map(|(_, i)| i).collect()
}

/// A query near `point` but not on it: the point plus a seeded random direction of equal length,
/// renormalized (cosine ≈ 0.7 to the point) — about as far as a question's vector is from the turn
/// that answers it.
fn off_point(point: &Code, seed: u64) -> Code {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let noise: Vec<f32> = (0..point.q.len())
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect();
    let noise_norm = noise.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
    let v: Vec<f32> = point.q.iter().zip(&noise).map(|(&x, e)| f32::from(x) * point.scale + e / noise_norm).collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
    Code::new(&v.iter().map(|x| x / norm).collect::<Vec<_>>())
}

/// instant-distance inserts in parallel with rayon, which makes the graph depend on thread timing.
/// One thread (and the fixed seed) gives the same graph for the same input on every run.
fn on_one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    #[cfg(not(target_arch = "wasm32"))]
    if let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(1).build() {
        return pool.install(f);
    }
    // wasm32 has no threads: rayon already runs everything on the caller's thread.
    f()
}

#[derive(Clone, Debug, PartialEq)]
pub struct BuildOptions {
    /// Seeds the level assignment. instant-distance's `Builder::default()` also draws a random
    /// seed from the OS, but `.seed()` overrides it, so the graph does not depend on it.
    pub seed: u64,
    /// Candidates kept while linking each point (build quality vs build time). 64: on 50k clustered
    /// 384-dim vectors, 40 built in half the time but left a query at recall@10 0.8 (0.0 at 100k);
    /// 64 gave 1.0 for every query.
    pub ef_construction: usize,
    /// Candidates a query returns to start with; the calibration may double it (twice). instant-
    /// distance fixes it per graph (there is no per-query ef), so it also bounds how selective a
    /// filter can be before the index falls back to an exact scan of the accepted set.
    pub ef_search: usize,
    /// Use every core (rayon) in the index's blocking `rebuild` (tests). Faster, but the graph then varies
    /// slightly between runs.
    pub parallel: bool,
    /// Keep the graph whatever the calibration found (to measure the graph tier itself).
    pub always_graph: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions { seed: 0x5EED_E47A_11A5_0001, ef_construction: 64, ef_search: 100, parallel: false, always_graph: false }
    }
}
