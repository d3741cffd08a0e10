//! Vector search over unit embeddings in two tiers, both on int8 codes (see `quantize.rs`):
//!
//! - an **exact tier**: a dense int8 scan of every vector outside the graph — all of them while the
//!   store is below [`VectorOptions::graph_min`], afterwards only those added since the last build;
//! - an **HNSW tier** (`graph.rs`) over the rest, built in one batch when the owner asks
//!   ([`VectorIndex::rebuild`], or [`VectorIndex::snapshot_for_build`] → [`BuildInput::build`] →
//!   [`VectorIndex::install`] off the query path). Never on insert, never inside a query.
//!   Replaced or removed graph points are tombstones until the next build.
//!
//! Every query takes a short list of int8 winners from both tiers and rescores it with the exact f32
//! dot product, so scores and order are those of a brute-force f32 search over the candidates.
//!
//! Memory per 384-dim vector (`stats().memory_bytes`, measured by `benches/vector_native.rs`):
//! 2,081 B with f32 copies, 524 B without; 2,285 B with f32 copies once in the graph (a plain f32
//! `Vec<Option<Box<[f32]>>>` was 1,552 B). The f32 copies are kept by default
//! ([`VectorOptions::keep_exact`]): the index is the only holder of embeddings (export and
//! persistence read them back through [`VectorIndex::get`]) and they make rescoring exact; the int8
//! codes cost 25 % more memory for a scan about 5× faster than f32. Without the copies the index
//! needs about a third of the old memory, `get` returns `None`, and rescoring uses the f32 query
//! against the int8 code (cosine error ≈ 1e-3).

mod binary;
mod build;
mod delta;
mod frame;
mod graph;
mod quantize;

pub use build::{BuildInput, BuildOptions};
pub use graph::BuiltGraph;
pub use quantize::dot;

use super::keyword::DocId;
use crate::error::{Error, Result};
use delta::Delta;
use quantize::{dot_i8, Code};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VectorHit {
    pub doc: DocId,
    pub cosine: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VectorOptions {
    /// Keep an exact f32 copy of every vector (see the module docs for the trade-off).
    pub keep_exact: bool,
    /// Below this many vectors the exact int8 scan is about as fast as HNSW, so no graph is built.
    pub graph_min: usize,
    pub build: BuildOptions,
}

impl Default for VectorOptions {
    fn default() -> Self {
        VectorOptions { keep_exact: true, graph_min: GRAPH_MIN, build: BuildOptions::default() }
    }
}

/// From `benches/vector_native.rs` (384 dims, 2 shared cores): the int8 scan takes ≈ 37 µs per 1,000
/// vectors (0.37 ms at 10k), an HNSW query 0.17–0.35 ms from 6k to 100k. HNSW wins on latency from
/// ≈ 5k, but a build costs ≈ 1.7 ms per vector on one thread (85 s at 50k) and recall can drop
/// below 1, so the graph waits until the scan approaches a millisecond.
pub const GRAPH_MIN: usize = 20_000;

/// Counts for stats and rebuild decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VectorStats {
    pub len: usize,
    /// Live vectors served by the graph.
    pub indexed: usize,
    /// Live vectors in the exact tier.
    pub delta: usize,
    /// Graph points whose vector was since replaced or removed.
    pub tombstones: usize,
    /// Approximate heap bytes of the whole index.
    pub memory_bytes: usize,
}

/// Where a document's current vector lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    Empty,
    Delta(u32),
    Graph(u32),
}

#[derive(Debug)]
pub struct VectorIndex {
    options: VectorOptions,
    dims: Option<usize>,
    count: usize,
    locs: Vec<Loc>,
    exact: Vec<Option<Box<[f32]>>>,
    delta: Delta,
    graph: Option<BuiltGraph>,
    tombstones: usize,
}

impl Default for VectorIndex {
    fn default() -> Self {
        VectorIndex::with_options(VectorOptions::default())
    }
}

const NO_POINT: u32 = u32::MAX;

impl VectorIndex {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_options(options: VectorOptions) -> Self {
        VectorIndex { options, dims: None, count: 0, locs: Vec::new(), exact: Vec::new(), delta: Delta::default(), graph: None, tombstones: 0 }
    }

    pub fn options(&self) -> &VectorOptions {
        &self.options
    }

    /// Dimension fixed by the first vector stored (or set explicitly by the store's embedder).
    pub fn dims(&self) -> Option<usize> {
        self.dims
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The exact vector of `doc`; `None` if absent or if this index keeps int8 codes only.
    pub fn get(&self, doc: DocId) -> Option<&[f32]> {
        self.exact.get(doc as usize).and_then(|v| v.as_deref())
    }

    /// Stores a unit vector for `doc`. The caller validated it (finite, unit length, right dims).
    pub fn insert(&mut self, doc: DocId, unit: Vec<f32>) {
        let dims = *self.dims.get_or_insert(unit.len());
        if unit.len() != dims {
            debug_assert!(false, "vector of {} dims in a {dims}-dim index", unit.len());
            return;
        }
        let slot = doc as usize;
        if self.locs.len() <= slot {
            self.locs.resize(slot + 1, Loc::Empty);
        }
        match self.locs[slot] {
            Loc::Delta(row) => self.delta.set(row, &unit),
            old => {
                if let Loc::Graph(_) = old {
                    self.tombstones += 1;
                } else {
                    self.count += 1;
                }
                self.locs[slot] = Loc::Delta(self.delta.push(doc, &unit));
            }
        }
        if self.options.keep_exact {
            if self.exact.len() <= slot {
                self.exact.resize_with(slot + 1, || None);
            }
            self.exact[slot] = Some(unit.into_boxed_slice());
        }
    }

    pub fn remove(&mut self, doc: DocId) -> bool {
        let Some(&loc) = self.locs.get(doc as usize) else { return false };
        match loc {
            Loc::Empty => return false,
            Loc::Delta(row) => {
                if let Some(moved) = self.delta.swap_remove(row) {
                    self.locs[moved as usize] = Loc::Delta(row);
                }
            }
            Loc::Graph(_) => self.tombstones += 1,
        }
        self.locs[doc as usize] = Loc::Empty;
        if let Some(v) = self.exact.get_mut(doc as usize) {
            *v = None;
        }
        self.count -= 1;
        true
    }

    pub fn clear(&mut self) {
        *self = VectorIndex::with_options(self.options.clone());
    }

    pub fn stats(&self) -> VectorStats {
        let dims = self.dims.unwrap_or(0);
        let exact = if self.options.keep_exact { self.exact.capacity() * 16 + self.count * dims * 4 } else { 0 };
        let graph = self.graph.as_ref().map_or(0, BuiltGraph::memory_bytes);
        VectorStats {
            len: self.count,
            indexed: self.count - self.delta.len(),
            delta: self.delta.len(),
            tombstones: self.tombstones,
            memory_bytes: self.locs.capacity() * std::mem::size_of::<Loc>() + exact + self.delta.memory_bytes() + graph,
        }
    }

    pub fn indexed_len(&self) -> usize {
        self.count - self.delta.len()
    }

    pub fn delta_len(&self) -> usize {
        self.delta.len()
    }

    pub fn tombstones(&self) -> usize {
        self.tombstones
    }

    /// The installed graph, e.g. to persist it with [`BuiltGraph::to_bytes`].
    pub fn graph(&self) -> Option<&BuiltGraph> {
        self.graph.as_ref()
    }

    /// Whether a build would pay off now: the store crossed [`VectorOptions::graph_min`] without a
    /// graph, the exact tier grew past a quarter of that, tombstones exceed a quarter of the graph, or
    /// the store shrank well below the graph size. The owner decides when to act on it.
    pub fn needs_rebuild(&self) -> bool {
        let min = self.options.graph_min;
        match &self.graph {
            None => self.count >= min,
            Some(g) => self.count < min / 2 || self.delta.len() > (min / 4).max(1) || self.tombstones > g.len() / 4,
        }
    }

    /// Builds and installs a graph synchronously (or drops it below the graph size). Blocks for the
    /// whole build: hosts that must stay responsive use the snapshot/build/install path instead.
    pub fn rebuild(&mut self) {
        if self.count < self.options.graph_min {
            self.relocate(None, &[]);
            return;
        }
        let graph = self.snapshot_for_build().build(&self.options.build);
        self.install(graph).expect("a graph built from this index fits it");
    }

    /// The live vectors as an owned build input (slot order).
    pub fn snapshot_for_build(&self) -> BuildInput {
        let mut docs = Vec::with_capacity(self.count);
        let mut codes = Vec::with_capacity(self.count);
        for (doc, _) in self.locs.iter().enumerate().filter(|(_, l)| **l != Loc::Empty) {
            if let Some((q, scale)) = self.code_of(doc as DocId) {
                docs.push(doc as DocId);
                codes.push(Code { scale, q: q.into() });
            }
        }
        BuildInput { dims: self.dims.unwrap_or(0), docs, codes }
    }

    /// Swaps in a graph. A point serves its document only if the document still has exactly that
    /// code; everything else (vectors added, replaced or removed since the snapshot) stays in or moves
    /// to the exact tier, or becomes a tombstone.
    pub fn install(&mut self, graph: BuiltGraph) -> Result<()> {
        if graph.is_empty() {
            self.relocate(None, &[]);
            return Ok(());
        }
        let Some(dims) = self.dims else { return Ok(()) };
        if graph.dims() != dims {
            return Err(Error::invalid(format!("vector graph has {} dimensions; this index has {dims}", graph.dims())));
        }
        let mut point_of = vec![NO_POINT; self.locs.len()];
        for (pid, doc, code) in graph.points() {
            let Some(slot) = point_of.get_mut(doc as usize) else { continue };
            if *slot == NO_POINT && self.code_of(doc).is_some_and(|(q, s)| s.to_bits() == code.scale.to_bits() && *q == *code.q) {
                *slot = pid;
            }
        }
        self.relocate(Some(graph), &point_of);
        Ok(())
    }

    /// Moves every live vector to its new home: `point_of[doc]` in `graph`, or the exact tier.
    fn relocate(&mut self, graph: Option<BuiltGraph>, point_of: &[u32]) {
        let mut delta = Delta::new(self.dims.unwrap_or(0));
        let mut locs = vec![Loc::Empty; self.locs.len()];
        let mut adopted = 0;
        for (doc, loc) in locs.iter_mut().enumerate() {
            if self.locs[doc] == Loc::Empty {
                continue;
            }
            match point_of.get(doc) {
                Some(&pid) if pid != NO_POINT => {
                    *loc = Loc::Graph(pid);
                    adopted += 1;
                }
                _ => {
                    let (q, scale) = self.code_of(doc as DocId).expect("live documents have a code");
                    *loc = Loc::Delta(delta.push_code(doc as DocId, q, scale));
                }
            }
        }
        delta.shrink_to_fit();
        self.tombstones = graph.as_ref().map_or(0, |g| g.len() - adopted);
        self.locs = locs;
        self.delta = delta;
        self.graph = graph;
    }

    fn code_of(&self, doc: DocId) -> Option<(&[i8], f32)> {
        match self.locs.get(doc as usize)? {
            Loc::Empty => None,
            Loc::Delta(row) => Some(self.delta.row(*row)),
            Loc::Graph(pid) => self.graph.as_ref().map(|g| {
                let c = g.code(*pid);
                (&c.q[..], c.scale)
            }),
        }
    }

    /// Top `limit` by cosine among the documents `accept` admits, best first. Exact below the graph
    /// size; with a graph, approximate for the graph tier unless the filter is selective, in which
    /// case the accepted set is scanned exactly.
    pub fn search(&self, query: &[f32], limit: usize, accept: impl Fn(DocId) -> bool) -> Vec<VectorHit> {
        if limit == 0 || self.dims != Some(query.len()) || self.count == 0 {
            return Vec::new();
        }
        let q = Code::new(query);
        let pool = limit * 4 + 32;
        let mut candidates = best(self.delta.rows().filter(|(d, _, _)| accept(*d)).map(|(d, c, s)| (d, q.scale * s * dot_i8(&q.q, c) as f32)), pool);
        if let Some(g) = &self.graph {
            let live = |pid: u32, doc: DocId| self.locs.get(doc as usize) == Some(&Loc::Graph(pid));
            let scan = || best(g.points().filter(|(p, d, _)| live(*p, *d) && accept(*d)).map(|(_, d, c)| (d, q.cosine(c))), pool);
            let from_graph = if self.selective(g, &accept, limit) {
                scan()
            } else {
                let hits: Vec<(DocId, f32)> = g.nearest(&q).into_iter().map(|(p, est)| (g.doc(p), p, est)).filter(|(d, p, _)| live(*p, *d) && accept(*d)).map(|(d, _, est)| (d, est)).collect();
                // Too few survivors after tombstones and the filter: only a scan is sure to find all.
                if hits.len() < limit { scan() } else { hits }
            };
            candidates.extend(from_graph);
        }
        let hits = candidates.into_iter().map(|(doc, _)| VectorHit { doc, cosine: self.rescore(doc, query) }).collect();
        super::top_k(hits, limit, |a, b| b.cosine.total_cmp(&a.cosine).then(a.doc.cmp(&b.doc)))
    }

    /// Whether too few graph results would pass `accept` for HNSW to fill `limit`: estimated from a
    /// strided sample of the graph's points, against the ef candidates a query returns.
    fn selective(&self, g: &BuiltGraph, accept: &impl Fn(DocId) -> bool, limit: usize) -> bool {
        const SAMPLE: usize = 256;
        let n = g.len();
        let step = (n / SAMPLE).max(1);
        let (mut seen, mut passed) = (0usize, 0usize);
        for pid in (0..n).step_by(step) {
            let doc = g.doc(pid as u32);
            seen += 1;
            if self.locs.get(doc as usize) == Some(&Loc::Graph(pid as u32)) && accept(doc) {
                passed += 1;
            }
        }
        // Expected survivors among the ef results must cover the request with some margin.
        passed * g.ef_search() < seen * (limit + limit / 2)
    }

    /// Exact cosine from the f32 copy, or the f32 query against the int8 code without one.
    fn rescore(&self, doc: DocId, query: &[f32]) -> f32 {
        if let Some(v) = self.get(doc) {
            return dot(query, v);
        }
        self.code_of(doc).map_or(f32::NEG_INFINITY, |(q, s)| s * q.iter().zip(query).map(|(&c, &x)| c as f32 * x).sum::<f32>())
    }
}

/// The `pool` best (doc, estimate) pairs, unordered.
fn best(scored: impl Iterator<Item = (DocId, f32)>, pool: usize) -> Vec<(DocId, f32)> {
    let all: Vec<(DocId, f32)> = scored.collect();
    super::top_k(all, pool, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)))
}

#[cfg(test)]
mod tests;
