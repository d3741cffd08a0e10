//! Vector search over unit embeddings in two tiers, both on int8 codes (see `quantize.rs`):
//!
//! - an **exact tier**: a dense int8 scan of every vector outside the graph segments — all of them
//!   while the store is below [`VectorOptions::graph_min`] (or where a build found a graph does not
//!   pay off), afterwards those added since the last build;
//! - an **HNSW tier**: graph *segments* (`graph.rs`), each built in one batch of at most
//!   [`SEGMENT_MAX`] points when the owner asks ([`VectorIndex::plan_build`] → [`BuildInput::build`]
//!   → [`VectorIndex::install`], off the query path; or [`VectorIndex::rebuild`] in place) and
//!   calibrated on its own points (`build.rs`). Never on insert, never inside a query. Replaced or
//!   removed graph points are tombstones until their segment is rebuilt;
//! - beside them, a **window** of the newest vectors' sign bits (`recent.rs`), whatever tier holds
//!   them: [`VectorIndex::search_bounded`] reads only that, for a search whose work stays the same
//!   at any store size.
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
mod recent;

#[cfg(any(test, feature = "internals"))]
pub use build::GRAPH_EVAL_COST;
pub use build::{BuildInput, BuildOptions, BuildOutput, Calibration};
#[cfg(test)]
pub use build::{TRIAL_MIN_CONTRAST, TRIAL_POINTS};
pub use graph::BuiltGraph;
pub use quantize::dot;
#[cfg(test)]
pub use recent::RECENT_ROWS;

use serde::Serialize;

use super::keyword::DocId;
use crate::error::{Error, Result};
use delta::Delta;
use quantize::{Code, ScanQuery};

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

/// Most points one build takes (a 64k build is minutes in wasm): bigger stores get several segments.
pub const SEGMENT_MAX: usize = 65_536;

/// Counts for stats and rebuild decisions. Serialized as the API's `vectorIndexStats()` tiers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VectorStats {
    #[serde(rename = "vectors")]
    pub len: usize,
    /// Live vectors served by graph segments.
    pub indexed: usize,
    /// Live vectors in the exact tier.
    #[serde(rename = "exact")]
    pub delta: usize,
    /// Graph points whose vector was since replaced or removed.
    pub tombstones: usize,
    pub segments: usize,
    /// Approximate heap bytes of the whole index.
    pub memory_bytes: usize,
}

/// What installing a build did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Installed {
    /// A new segment now serves this many points.
    Segment { points: usize },
    /// The build found a graph does not pay off for its points: they are scanned exactly, and the
    /// next build waits until the exact tier doubles.
    Scan,
    /// The index changed under the build (a segment it replaces is gone, or none of its points is
    /// still current): nothing was installed.
    Stale,
}

/// Where a document's current vector lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    Empty,
    Delta(u32),
    Graph(u16, u32),
}

#[derive(Debug)]
struct Segment {
    id: u64,
    graph: BuiltGraph,
    /// Points still serving their document (the rest are tombstones).
    live: usize,
}

#[derive(Debug)]
pub struct VectorIndex {
    options: VectorOptions,
    dims: Option<usize>,
    count: usize,
    locs: Vec<Loc>,
    exact: Vec<Option<Box<[f32]>>>,
    delta: Delta,
    segments: Vec<Segment>,
    /// The newest vectors stored, whatever tier holds them: what a bounded search scans.
    recent: recent::Recent,
    /// After a build chose the scan, the exact tier must reach this size before the next one.
    retry_at: usize,
}

impl Default for VectorIndex {
    fn default() -> Self {
        VectorIndex::with_options(VectorOptions::default())
    }
}

const NO_POINT: u32 = u32::MAX;

/// Estimates a search keeps before its final pick of `limit`: int8 estimates are within ~1e-3 of
/// the cosine, so a few times the limit holds the true top with room for near-ties.
fn candidate_pool(limit: usize) -> usize {
    limit * 4 + 32
}

impl VectorIndex {
    #[cfg(test)]
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_options(options: VectorOptions) -> Self {
        VectorIndex {
            options,
            dims: None,
            count: 0,
            locs: Vec::new(),
            exact: Vec::new(),
            delta: Delta::default(),
            segments: Vec::new(),
            recent: recent::Recent::default(),
            retry_at: 0,
        }
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

    // `len` without `is_empty` is a lint where the index is exported (through `internals`).
    #[cfg(any(test, feature = "internals"))]
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
        let row = match self.locs[slot] {
            Loc::Delta(row) => {
                self.delta.set(row, &unit);
                row
            }
            old => {
                if let Loc::Graph(s, _) = old {
                    self.segments[s as usize].live -= 1;
                } else {
                    self.count += 1;
                }
                let row = self.delta.push(doc, &unit);
                self.locs[slot] = Loc::Delta(row);
                row
            }
        };
        self.recent.push(doc, self.delta.row(row).0);
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
            Loc::Graph(s, _) => self.segments[s as usize].live -= 1,
        }
        self.locs[doc as usize] = Loc::Empty;
        if let Some(v) = self.exact.get_mut(doc as usize) {
            *v = None;
        }
        self.count -= 1;
        true
    }

    #[cfg(test)]
    pub fn clear(&mut self) {
        *self = VectorIndex::with_options(self.options.clone());
    }

    pub fn stats(&self) -> VectorStats {
        let dims = self.dims.unwrap_or(0);
        let exact = if self.options.keep_exact { self.exact.capacity() * 16 + self.count * dims * 4 } else { 0 };
        let graphs: usize = self.segments.iter().map(|s| s.graph.memory_bytes()).sum();
        VectorStats {
            len: self.count,
            indexed: self.indexed_len(),
            delta: self.delta.len(),
            tombstones: self.tombstones(),
            segments: self.segments.len(),
            memory_bytes: self.locs.capacity() * std::mem::size_of::<Loc>() + exact + self.delta.memory_bytes() + graphs + self.recent.memory_bytes(),
        }
    }

    pub fn indexed_len(&self) -> usize {
        self.count - self.delta.len()
    }

    #[cfg(test)]
    pub fn delta_len(&self) -> usize {
        self.delta.len()
    }

    pub fn tombstones(&self) -> usize {
        self.segments.iter().map(|s| s.graph.len() - s.live).sum()
    }

    /// The installed graph segments as (id, graph), e.g. to persist them with
    /// [`BuiltGraph::to_bytes`].
    pub fn segments(&self) -> impl Iterator<Item = (u64, &BuiltGraph)> + '_ {
        self.segments.iter().map(|s| (s.id, &s.graph))
    }

    fn delta_threshold(&self) -> usize {
        (self.options.graph_min / 4).max(1)
    }

    fn heavy(s: &Segment) -> bool {
        (s.graph.len() - s.live) * 4 > s.graph.len()
    }

    /// Whether [`VectorIndex::plan_build`] has work now without being forced: the exact tier passed
    /// a quarter of [`VectorOptions::graph_min`] (and the size a scan decision asked to wait for) in a
    /// store of at least `graph_min`, a segment is more than a quarter tombstones, or the store
    /// shrank below half of `graph_min` while it still has segments.
    pub fn needs_rebuild(&self) -> bool {
        let min = self.options.graph_min;
        if self.count < min {
            return !self.segments.is_empty() && self.count < min / 2;
        }
        let delta = self.delta.len();
        (delta >= self.delta_threshold() && delta >= self.retry_at) || self.segments.iter().any(Self::heavy)
    }

    /// The next build worth doing, as an owned input to build anywhere and hand back to
    /// [`VectorIndex::install`]: the exact tier's vectors (at most [`SEGMENT_MAX`], in slot order),
    /// any segment that is mostly tombstones, and every segment no bigger than what the build
    /// already holds (so segment sizes grow geometrically and a store keeps few of them). `force`
    /// (an explicit reindex) builds the exact tier whatever its size, unless a scan decision said
    /// to wait. Below `graph_min / 2` vectors the segments are dropped here (cheap) and `None` is
    /// returned.
    pub fn plan_build(&mut self, force: bool) -> Option<BuildInput> {
        let min = self.options.graph_min;
        if self.count < min {
            if !self.segments.is_empty() && self.count < min / 2 {
                self.relocate(&vec![false; self.segments.len()], None);
            }
            return None;
        }
        let delta = self.delta.len();
        let take_delta = if delta > 0 && delta >= self.retry_at && (force || delta >= self.delta_threshold()) { delta.min(SEGMENT_MAX) } else { 0 };
        let mut chosen: Vec<usize> = Vec::new();
        let mut total = take_delta;
        for (i, s) in self.segments.iter().enumerate() {
            if Self::heavy(s) && (chosen.is_empty() && take_delta == 0 || total + s.live <= SEGMENT_MAX) {
                chosen.push(i);
                total += s.live;
            }
        }
        if total == 0 && chosen.is_empty() {
            return None;
        }
        let mut rest: Vec<usize> = (0..self.segments.len()).filter(|i| !chosen.contains(i)).collect();
        rest.sort_by_key(|&i| (self.segments[i].live, i));
        for i in rest {
            let live = self.segments[i].live;
            if live > total || total + live > SEGMENT_MAX {
                break;
            }
            chosen.push(i);
            total += live;
        }
        let mut from_delta: Vec<DocId> = self.delta.rows().map(|(d, _, _)| d).collect();
        from_delta.sort_unstable();
        from_delta.truncate(take_delta);
        let mut docs = from_delta;
        for &i in &chosen {
            docs.extend(self.live_points(i).map(|(_, d)| d));
        }
        Some(self.input_for(docs, chosen.iter().map(|&i| self.segments[i].id).collect(), take_delta))
    }

    fn live_points(&self, seg: usize) -> impl Iterator<Item = (u32, DocId)> + '_ {
        let g = &self.segments[seg].graph;
        (0..g.len() as u32).map(move |p| (p, g.doc(p))).filter(move |&(p, d)| self.locs.get(d as usize) == Some(&Loc::Graph(seg as u16, p)))
    }

    fn input_for(&self, docs: Vec<DocId>, replaces: Vec<u64>, from_delta: usize) -> BuildInput {
        let codes = docs
            .iter()
            .map(|&d| {
                let (q, scale) = self.code_of(d).expect("planned documents are live");
                Code { scale, q: q.into() }
            })
            .collect();
        BuildInput { dims: self.dims.unwrap_or(0), docs, codes, replaces, from_delta, label: 0, options: self.options.build.clone() }
    }

    /// Drops every segment that still holds a removed vector, moving its live points to the exact
    /// tier (the next build indexes them again). A removed vector otherwise stays in its segment,
    /// in memory and on disk, until a rebuild; a namespace wipe must not leave it there. Returns
    /// whether a segment went.
    pub fn drop_segments_with_tombstones(&mut self) -> bool {
        let keep: Vec<bool> = self.segments.iter().map(|s| s.live == s.graph.len()).collect();
        if keep.iter().all(|&k| k) {
            return false;
        }
        self.relocate(&keep, None);
        true
    }

    /// Builds one segment over every live vector, synchronously, replacing all segments (or drops
    /// them below `graph_min`). Blocks for the whole build: hosts that must stay responsive use
    /// [`VectorIndex::plan_build`] → [`BuildInput::build`] → [`VectorIndex::install`] off the
    /// query path instead.
    #[cfg(test)]
    pub fn rebuild(&mut self) {
        if self.count < self.options.graph_min {
            self.relocate(&vec![false; self.segments.len()], None);
            return;
        }
        let parallel = self.options.build.parallel;
        let output = self.snapshot_for_build().build_with(parallel);
        self.install(output).expect("a build of this index fits it");
    }

    /// Every live vector as one build input that replaces all segments (slot order).
    #[cfg(any(test, feature = "internals"))]
    pub fn snapshot_for_build(&self) -> BuildInput {
        let docs: Vec<DocId> = self.locs.iter().enumerate().filter(|(_, l)| **l != Loc::Empty).map(|(d, _)| d as DocId).collect();
        self.input_for(docs, self.segments.iter().map(|s| s.id).collect(), self.delta.len())
    }

    /// Swaps in a build's result. A point serves its document only if the document still has
    /// exactly that code and is in the exact tier or in a segment this build replaces; everything
    /// else (vectors added, replaced or removed since the plan) stays where it is or moves to the
    /// exact tier.
    pub fn install(&mut self, output: BuildOutput) -> Result<Installed> {
        let Some(dims) = self.dims else { return Ok(Installed::Stale) };
        if output.dims != dims {
            return Err(Error::invalid(format!("vector graph has {} dimensions; this index has {dims}", output.dims)));
        }
        let replaced: Option<Vec<bool>> = {
            let mut mask = vec![false; self.segments.len()];
            let all_found = output.replaces.iter().all(|id| match self.segments.iter().position(|s| s.id == *id) {
                Some(i) => {
                    mask[i] = true;
                    true
                }
                None => false,
            });
            all_found.then_some(mask)
        };
        let Some(replaced) = replaced else { return Ok(Installed::Stale) };
        let keep: Vec<bool> = replaced.iter().map(|r| !r).collect();
        let Some(graph) = output.graph else {
            // A graph would not pay off for these points: scan them, and wait for more.
            self.relocate(&keep, None);
            self.retry_at = (2 * output.calibration.points as usize).max(self.delta_threshold());
            return Ok(Installed::Scan);
        };
        if self.segments.iter().any(|s| s.id == output.id) || self.segments.len() >= u16::MAX as usize {
            return Ok(Installed::Stale);
        }
        let mut point_of = vec![NO_POINT; self.locs.len()];
        let mut adopted = 0;
        for (pid, doc, code) in graph.points() {
            let Some(slot) = point_of.get_mut(doc as usize) else { continue };
            let movable = match self.locs[doc as usize] {
                Loc::Delta(_) => true,
                Loc::Graph(s, _) => replaced[s as usize],
                Loc::Empty => false,
            };
            if *slot == NO_POINT && movable && self.code_of(doc).is_some_and(|(q, s)| s.to_bits() == code.scale.to_bits() && *q == *code.q) {
                *slot = pid;
                adopted += 1;
            }
        }
        if adopted == 0 {
            return Ok(Installed::Stale);
        }
        self.relocate(&keep, Some((output.id, graph, point_of)));
        self.retry_at = 0;
        Ok(Installed::Segment { points: adopted })
    }

    /// Installs a segment read back from storage: it serves the exact-tier documents whose code it
    /// holds unchanged.
    pub fn install_segment(&mut self, id: u64, graph: BuiltGraph) -> Result<Installed> {
        let calibration = Calibration { points: graph.len() as u32, use_graph: true, ..Calibration::default() };
        self.install(BuildOutput { dims: graph.dims(), replaces: Vec::new(), from_delta: 0, label: 0, id, graph: Some(graph), calibration })
    }

    /// Rebuilds the placement of every live vector: in the new segment if `point_of[doc]` says so,
    /// in its old segment if that one is kept, otherwise in a fresh, dense exact tier.
    fn relocate(&mut self, keep: &[bool], new: Option<(u64, BuiltGraph, Vec<u32>)>) {
        let old_segments = std::mem::take(&mut self.segments);
        let mut remap = vec![u16::MAX; old_segments.len()];
        // Old indexes stay valid during the move (codes are read from dropped segments too);
        // `remap` gives a kept segment's index in the new list.
        let mut kept_count = 0u16;
        for (i, _) in old_segments.iter().enumerate() {
            if keep.get(i).copied().unwrap_or(false) {
                remap[i] = kept_count;
                kept_count += 1;
            }
        }
        let segments = old_segments;
        let new_index = kept_count;
        let (new_id, new_graph, point_of) = match new {
            Some((id, g, p)) => (Some(id), Some(g), p),
            None => (None, None, Vec::new()),
        };
        let mut delta = Delta::new(self.dims.unwrap_or(0));
        let mut locs = vec![Loc::Empty; self.locs.len()];
        let mut live_new = 0;
        let mut kept_live = vec![0usize; segments.len()];
        for (doc, loc) in locs.iter_mut().enumerate() {
            let old = self.locs[doc];
            if old == Loc::Empty {
                continue;
            }
            if let Some(&pid) = point_of.get(doc).filter(|p| **p != NO_POINT) {
                *loc = Loc::Graph(new_index, pid);
                live_new += 1;
                continue;
            }
            match old {
                Loc::Graph(s, pid) if remap[s as usize] != u16::MAX => {
                    *loc = Loc::Graph(remap[s as usize], pid);
                    kept_live[s as usize] += 1;
                }
                _ => {
                    let (q, scale) = Self::code_in(&segments, &self.delta, old).expect("live documents have a code");
                    *loc = Loc::Delta(delta.push_code(doc as DocId, q, scale));
                }
            }
        }
        let mut kept: Vec<Segment> = Vec::new();
        for (i, mut s) in segments.into_iter().enumerate() {
            if remap[i] != u16::MAX {
                s.live = kept_live[i];
                kept.push(s);
            }
        }
        if let (Some(id), Some(graph)) = (new_id, new_graph) {
            kept.push(Segment { id, graph, live: live_new });
        }
        delta.shrink_to_fit();
        self.locs = locs;
        self.delta = delta;
        self.segments = kept;
    }

    fn code_in<'a>(segments: &'a [Segment], delta: &'a Delta, loc: Loc) -> Option<(&'a [i8], f32)> {
        match loc {
            Loc::Empty => None,
            Loc::Delta(row) => Some(delta.row(row)),
            Loc::Graph(s, pid) => segments.get(s as usize).map(|s| {
                let c = s.graph.code(pid);
                (&c.q[..], c.scale)
            }),
        }
    }

    fn code_of(&self, doc: DocId) -> Option<(&[i8], f32)> {
        Self::code_in(&self.segments, &self.delta, *self.locs.get(doc as usize)?)
    }

    /// Top `limit` by cosine among the documents `accept` admits, best first. Exact below the graph
    /// size; with a graph, approximate for the graph tier unless the filter is selective, in which
    /// case the accepted set is scanned exactly.
    pub fn search(&self, query: &[f32], limit: usize, accept: impl Fn(DocId) -> bool) -> Vec<VectorHit> {
        let Some((q, scan_q)) = self.query_code(query, limit) else { return Vec::new() };
        let pool = candidate_pool(limit);
        let mut delta_best = Best::new(pool);
        for (d, c, s) in self.delta.rows() {
            delta_best.offer(d, scan_q.cosine(s, c), &accept);
        }
        let mut candidates = delta_best.into_vec();
        for (si, seg) in self.segments.iter().enumerate() {
            let (g, si) = (&seg.graph, si as u16);
            if seg.live == 0 {
                continue;
            }
            let live = |pid: u32, doc: DocId| self.locs.get(doc as usize) == Some(&Loc::Graph(si, pid));
            let scan = || {
                let mut b = Best::new(pool);
                for (p, d, c) in g.points() {
                    b.offer(d, scan_q.cosine(c.scale, &c.q), &|d| live(p, d) && accept(d));
                }
                b.into_vec()
            };
            let from_graph = if self.selective(si, g, &accept, limit) {
                scan()
            } else {
                let hits: Vec<(DocId, f32)> =
                    g.nearest(&q).into_iter().map(|(p, est)| (g.doc(p), p, est)).filter(|(d, p, _)| live(*p, *d) && accept(*d)).map(|(d, _, est)| (d, est)).collect();
                // Too few survivors after tombstones and the filter: only a scan is sure to find all.
                if hits.len() < limit.min(seg.live) {
                    scan()
                } else {
                    hits
                }
            };
            candidates.extend(from_graph);
        }
        // Estimates are within ~1e-3 of the exact cosine: only the best of them are worth rescoring.
        let candidates = if self.segments.is_empty() { candidates } else { best(candidates.into_iter(), pool) };
        let hits = candidates.into_iter().map(|(doc, _)| VectorHit { doc, cosine: self.rescore(doc, query) }).collect();
        super::top_k(hits, limit, |a, b| b.cosine.total_cmp(&a.cosine).then(a.doc.cmp(&b.doc)))
    }

    /// Top `limit` by cosine like [`VectorIndex::search`], but in the same work at any store size,
    /// however the tiers hold the vectors: only the newest [`RECENT_ROWS`] vectors stored are
    /// candidates (ranked by the signs of their codes, then the closest few by their codes), older
    /// ones never, in the exact tier or a segment. For callers that want good neighbours cheaply
    /// rather than the exact ones (a new memory's links: a walk over stored links reaches further
    /// back), so that their cost stays flat however many segments the older vectors sit in and
    /// however far the builds lag behind the writes. Hits carry the int8 estimate (within ~1e-3 of the
    /// cosine), not the exact value: a caller that needs it scores its few final picks itself.
    pub fn search_bounded(&self, query: &[f32], limit: usize, accept: impl Fn(DocId) -> bool) -> Vec<VectorHit> {
        let Some((q, scan_q)) = self.query_code(query, limit) else { return Vec::new() };
        // As many codes read as the pool holds: on real MiniLM and on clustered vectors (100k adds)
        // reading 384 instead found the same links for a quarter more time per add.
        let pool = candidate_pool(limit);
        let mut picks: Vec<DocId> = if self.recent.len() > pool * 2 {
            let mut signs = vec![0u64; recent::sign_words(q.q.len())];
            recent::signs_into(&q.q, &mut signs);
            self.recent.closest(&signs, pool, &accept)
        } else {
            self.recent.docs().filter(|&d| accept(d)).collect()
        };
        // A document whose vector was replaced is in the window twice; one whose vector is gone has
        // no code and is skipped.
        picks.sort_unstable();
        picks.dedup();
        let hits = picks.into_iter().filter_map(|doc| self.code_of(doc).map(|(c, s)| VectorHit { doc, cosine: scan_q.cosine(s, c) })).collect();
        super::top_k(hits, limit, |a, b| b.cosine.total_cmp(&a.cosine).then(a.doc.cmp(&b.doc)))
    }

    /// The query's int8 code, as stored and widened for scans; `None` when there is nothing to find
    /// (no limit, another dimension, an empty index).
    fn query_code(&self, query: &[f32], limit: usize) -> Option<(Code, ScanQuery)> {
        if limit == 0 || self.dims != Some(query.len()) || self.count == 0 {
            return None;
        }
        let q = Code::new(query);
        let scan_q = ScanQuery::new(&q);
        Some((q, scan_q))
    }

    /// Whether too few graph results would pass `accept` for HNSW to fill `limit`: estimated from a
    /// strided sample of the graph's points, against the ef candidates a query returns.
    fn selective(&self, seg: u16, g: &BuiltGraph, accept: &impl Fn(DocId) -> bool, limit: usize) -> bool {
        const SAMPLE: usize = 256;
        let n = g.len();
        let step = (n / SAMPLE).max(1);
        let (mut seen, mut passed) = (0usize, 0usize);
        for pid in (0..n).step_by(step) {
            let doc = g.doc(pid as u32);
            seen += 1;
            if self.locs.get(doc as usize) == Some(&Loc::Graph(seg, pid as u32)) && accept(doc) {
                passed += 1;
            }
        }
        // Expected survivors among the ef results must cover the request with some margin.
        passed * g.ef_search() < seen * (limit + limit / 2)
    }

    /// Cosine of `doc`'s vector with `query` (as search results score it), if `doc` has one.
    pub fn similarity(&self, doc: DocId, query: &[f32]) -> Option<f32> {
        if self.dims != Some(query.len()) {
            return None;
        }
        // The f32 copy exactly when `doc` has a vector (kept copies are dropped with it): one
        // memory read, where asking the tiers first would read its int8 code too.
        if let Some(v) = self.get(doc) {
            return Some(dot(query, v));
        }
        self.code_of(doc).map(|(q, s)| s * q.iter().zip(query).map(|(&c, &x)| c as f32 * x).sum::<f32>())
    }

    /// Scores scattered documents against `query` from their int8 codes (see [`Estimator`]).
    pub fn estimator(&self, query: &[f32]) -> Option<Estimator<'_>> {
        (self.dims == Some(query.len())).then(|| Estimator { index: self, query: ScanQuery::new(&Code::new(query)) })
    }

    /// Exact cosine from the f32 copy, or the f32 query against the int8 code without one.
    fn rescore(&self, doc: DocId, query: &[f32]) -> f32 {
        self.similarity(doc, query).unwrap_or(f32::NEG_INFINITY)
    }
}

/// Cosine estimates (within ~1e-3 of the exact value) of one query against documents picked one by
/// one, as a walk over links does: each reads the document's int8 code, a quarter of the bytes of its
/// f32 copy, and scattered reads are what such a walk pays for as the store outgrows the caches.
pub struct Estimator<'a> {
    index: &'a VectorIndex,
    query: ScanQuery,
}

impl Estimator<'_> {
    /// The estimated cosine of `doc`'s vector with the query; `None` if `doc` has none.
    pub fn estimate(&self, doc: DocId) -> Option<f32> {
        self.index.code_of(doc).map(|(c, scale)| self.query.cosine(scale, c))
    }
}

/// The `pool` best (doc, estimate) pairs offered so far. The filter is asked only about a pair that
/// would enter them: in a scan most documents score below the pool and never pay for `accept` (for
/// the engine, a lookup of the memory's namespace, kind, layer and tags — a cache miss per document,
/// which cost more than the int8 dot product itself).
struct Best {
    pool: usize,
    /// Max-heap whose top is the worst kept pair.
    heap: std::collections::BinaryHeap<Ranked>,
    /// The worst kept estimate once the pool is full (−∞ before): most rows of a scan fall below it
    /// and are turned away by one float comparison.
    floor: f32,
}

/// Orders (estimate, doc) so that the greater is the worse: lower estimate, then higher doc — the
/// same order `best` uses, so a scan through `Best` keeps the same pairs.
#[derive(Clone, Copy, Debug)]
struct Ranked(f32, DocId);

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.0.total_cmp(&self.0).then(self.1.cmp(&other.1))
    }
}

impl Best {
    fn new(pool: usize) -> Best {
        Best { pool, heap: std::collections::BinaryHeap::with_capacity(pool + 1), floor: f32::NEG_INFINITY }
    }

    fn offer(&mut self, doc: DocId, estimate: f32, accept: &impl Fn(DocId) -> bool) {
        if self.pool == 0 || estimate < self.floor {
            return;
        }
        let candidate = Ranked(estimate, doc);
        let full = self.heap.len() >= self.pool;
        if full && self.heap.peek().is_some_and(|worst| candidate >= *worst) {
            return;
        }
        if !accept(doc) {
            return;
        }
        if full {
            self.heap.pop();
        }
        self.heap.push(candidate);
        if self.heap.len() >= self.pool {
            self.floor = self.heap.peek().map_or(f32::NEG_INFINITY, |worst| worst.0);
        }
    }

    fn into_vec(self) -> Vec<(DocId, f32)> {
        self.heap.into_iter().map(|Ranked(e, d)| (d, e)).collect()
    }
}

/// The `pool` best (doc, estimate) pairs, unordered.
fn best(scored: impl Iterator<Item = (DocId, f32)>, pool: usize) -> Vec<(DocId, f32)> {
    let all: Vec<(DocId, f32)> = scored.collect();
    super::top_k(all, pool, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)))
}

#[cfg(test)]
mod tests;
