//! A new memory's links: its ≤ 3 nearest earlier memories (namespace or default) with cosine ≥ 0.5,
//! found in bounded work so that an add costs the same at 5k memories and at 100k. Candidates come
//! from the vector index's bounded search (the newest 2,048 vectors stored, whatever tier holds them
//! now; not the graph segments, whose full search per segment cost up to 17 times the rest of an
//! add), then a best-first walk over the links already stored (each memory's own and the reverse
//! ones): every memory was linked to its nearest earlier ones when it was added, so the links form a
//! proximity graph that reaches neighbours older than the newest vectors.
//! The walk follows links by slot (`store::LinkGraph`), filters namespaces by the table's per-slot
//! number and ranks by int8 estimates, scoring only its final beam exactly: each step reads a few
//! bytes, which is what keeps its cost from growing once the store outgrows the caches.
//!
//! The bounded search misses older neighbours (on real vectors at 100k memories it finds half of
//! the exact links; all of them while the store holds no more than the window). A consolidation
//! epoch refines the links of the memories it scans ([`Engram::refined_links`]) from the full vector
//! search it runs for them anyway, off the add path: 0.96 of the exact links after it.

use super::Engram;
use crate::index::DocId;
use crate::model::Memory;
use crate::recall::{LINKS_MAX, LINK_MIN_COSINE};
use std::collections::BinaryHeap;

/// Memories the walk scores at most: the add's work, whatever the store's size. On the 100k wasm
/// benches with the 2,048-vector window, 48 keeps the last 5k adds within 1.3× of the first 5k on
/// clustered vectors (1.21–1.25×; 64: 1.29–1.31×, 128: 1.52–1.56×), for links that consolidation
/// completes (docs/BENCHMARKS-HISTORY.md, 2026-11-27, evening).
pub const LINK_WALK_MAX: usize = 48;
/// The beam's best (by estimate) scored exactly for the links: estimates are within ~1e-3 of the
/// cosine, so a link beyond these would have to tie the third within that margin.
const EXACT_SCORED: usize = 2 * LINKS_MAX;
/// Best candidates the walk keeps expanding from (its beam).
const LINK_BEAM: usize = 16;
/// Reverse links followed per memory (the newest): an early memory of a topic is linked from many
/// later ones, and reading all of them would make the walk grow with the store again.
const REVERSE_PER_MEMORY: usize = 24;

/// (cosine, slot) ordered by cosine, then the lower slot first, for a max-heap.
#[derive(Clone, Copy, PartialEq)]
struct Scored(f32, DocId);
impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scored {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

impl Engram {
    /// Ids of the closest existing memories (namespace or default) for a new memory's links.
    pub(super) fn nearest_for_links(&mut self, v: &[f32], namespace: &str) -> Vec<String> {
        let visible = self.visible_from(namespace);
        let Engram { tables, link_walk, .. } = self;
        let table = tables.table();
        let vectors = tables.vectors();
        let links = tables.links();
        let wanted: Vec<_> = visible.all().filter_map(|ns| table.namespace_number(ns)).collect();
        let accept = |s: DocId| table.namespace_of(s).is_some_and(|n| wanted.contains(&n));
        let seeds = vectors.search_bounded(v, LINK_BEAM, accept);
        link_walk.start();
        for h in &seeds {
            link_walk.meet(h.doc);
        }
        let mut frontier: BinaryHeap<Scored> = seeds.iter().map(|h| Scored(h.cosine, h.doc)).collect();
        let mut best: Vec<Scored> = frontier.clone().into_sorted_vec();
        best.reverse();
        let Some(estimator) = vectors.estimator(v) else { return Vec::new() };
        let mut scored = seeds.len();
        // The worst of a full beam: what a candidate must beat to enter it.
        let floor = |best: &[Scored]| best.get(LINK_BEAM - 1).copied();
        while let Some(Scored(cos, slot)) = frontier.pop() {
            // Stop once the beam is full and nothing left to expand can enter it, or the work is spent.
            if scored >= LINK_WALK_MAX || floor(&best).is_some_and(|w| cos < w.0) {
                break;
            }
            let reverse = links.incoming(slot);
            for &next in links.outgoing(slot).iter().chain(&reverse[reverse.len().saturating_sub(REVERSE_PER_MEMORY)..]) {
                if scored >= LINK_WALK_MAX {
                    break;
                }
                if !link_walk.meet(next) || !accept(next) {
                    continue;
                }
                let Some(c) = estimator.estimate(next) else { continue };
                scored += 1;
                let s = Scored(c, next);
                // One that cannot enter the beam now never will (its floor only rises): expanding it
                // would end the walk, so it is not queued at all.
                if floor(&best).is_some_and(|w| s < w) {
                    continue;
                }
                frontier.push(s);
                let at = best.partition_point(|b| *b > s);
                best.insert(at, s);
                best.truncate(LINK_BEAM);
            }
        }
        // The walk ranked by estimates; the beam's few are scored exactly for the threshold and order.
        let exact: Vec<Scored> = best.into_iter().take(EXACT_SCORED).filter_map(|s| vectors.similarity(s.1, v).map(|c| Scored(c, s.1))).collect();
        link_ids(table, exact)
    }

    /// The links the memory in `slot` should have, given `found` (ids a full vector search of its
    /// namespace put nearest to it): the ≤ [`LINKS_MAX`] with the highest cosine ≥ [`LINK_MIN_COSINE`]
    /// among its current links and the memories of `found` written before it, all of its namespace
    /// or the default one. `None` when that is the set it has. Only memories written before it keep
    /// the meaning of `links` (what it was closest to when written); its current links qualify as
    /// they are (they were found when it was written, a link into the default namespace too),
    /// unless they no longer exist, reach outside its namespace, or no longer meet the threshold.
    /// `found` holds later memories too (the search is shared with the epoch's pairs): for an old
    /// memory in a dense topic, few candidates may be left.
    pub(super) fn refined_links(&self, slot: DocId, found: &[String]) -> Option<Vec<String>> {
        let table = self.tables.table();
        let vectors = self.tables.vectors();
        let m: &Memory = table.get(slot)?;
        let v = vectors.get(slot)?;
        let visible = self.visible_from(&m.namespace);
        let in_reach = |o: &Memory| visible.sees(&o.namespace);
        let current = m.links.iter().filter_map(|id| table.slot_of(id));
        // Same-millisecond writes (a batch) are ordered by slot: slots are handed out in insertion
        // order and never reused. A plan comes back from the host: only its first few ids are read.
        let earlier = found.iter().take(FOUND_READ).filter_map(|id| table.slot_of(id)).filter(|&s| table.get(s).is_some_and(|o| (o.created_at, s) < (m.created_at, slot)));
        let mut scored: Vec<Scored> = Vec::with_capacity(m.links.len() + found.len().min(FOUND_READ));
        for s in current.chain(earlier) {
            if s == slot || scored.iter().any(|x| x.1 == s) || !table.get(s).is_some_and(in_reach) {
                continue;
            }
            if let Some(c) = vectors.similarity(s, v) {
                scored.push(Scored(c, s));
            }
        }
        let links = link_ids(table, scored);
        let same = links.len() == m.links.len() && links.iter().all(|l| m.links.contains(l));
        (!same).then_some(links)
    }
}

/// Candidate ids [`Engram::refined_links`] reads: as many as an epoch's search gives.
const FOUND_READ: usize = crate::lifecycle::similar::NEIGHBORS;

/// The ids of the ≤ [`LINKS_MAX`] closest of `scored` (exact cosines) at [`LINK_MIN_COSINE`] or
/// more, closest first.
fn link_ids(table: &crate::store::MemoryTable, mut scored: Vec<Scored>) -> Vec<String> {
    scored.sort_unstable_by(|a, b| b.cmp(a));
    scored.into_iter().filter(|s| s.0 >= LINK_MIN_COSINE).take(LINKS_MAX).filter_map(|s| table.get(s.1).map(|m| m.id.clone())).collect()
}

/// Which slots one walk has met: a stamp per slot, reused from walk to walk (a new walk only moves
/// the stamp on), so that marking a slot is one store instead of a hash-set insert per neighbour.
#[derive(Debug, Default)]
pub(super) struct WalkScratch {
    stamps: Vec<u32>,
    walk: u32,
}

impl WalkScratch {
    /// Forgets the slots of the previous walk.
    fn start(&mut self) {
        self.walk = self.walk.wrapping_add(1);
        if self.walk == 0 {
            // Stamps of 2^32 walks ago would read as met: start over once in that many walks.
            self.stamps.fill(0);
            self.walk = 1;
        }
    }

    /// Marks `slot`; false if this walk had met it already.
    fn meet(&mut self, slot: DocId) -> bool {
        let i = slot as usize;
        if i >= self.stamps.len() {
            self.stamps.resize((i + 1).next_power_of_two(), 0);
        }
        std::mem::replace(&mut self.stamps[i], self.walk) != self.walk
    }
}
