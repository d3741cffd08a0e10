//! The newest vectors stored, as the sign bits of their codes (one bit per dimension: 48 bytes at
//! 384 dimensions, against 384 for the code), whatever tier serves them now. A new memory's link
//! search ([`super::VectorIndex::search_bounded`]) ranks all of them by Hamming distance and reads
//! the codes of the closest few: the same work at any store size, however many graph segments the
//! older vectors sit in. Searching the segments' graphs instead cost a full HNSW search per segment
//! on every add (0.26 ms per add natively with one segment, 0.87 ms with three at 100k).
//!
//! A window of [`RECENT_ROWS`] entries, the oldest overwritten. Entries are not taken back when a
//! vector is replaced or removed: the search reads each pick's current code (none: it is skipped),
//! so a stale entry can only cost a pick, never a wrong score.

use crate::index::DocId;

/// Vectors the window keeps. The first adds of a store scan a window still filling, so a larger one
/// makes later adds dearer than the first: with 4,096 (and a walk of 128) the last 5k of 100k adds
/// cost 1.24–1.30× the first 5k on real vectors and 1.58–1.69× on clustered ones in wasm; with 2,048
/// and a walk of 48, 1.00–1.03× and 1.21–1.25× (docs/BENCHMARKS-HISTORY.md, 2026-11-27, evening). Links it misses
/// are found by consolidation.
pub const RECENT_ROWS: usize = 2048;

/// Sets `out` to the signs of `q` (bit i of the row: `q[i] > 0`).
pub fn signs_into(q: &[i8], out: &mut [u64]) {
    out.fill(0);
    for (i, &x) in q.iter().enumerate() {
        out[i / 64] |= u64::from(x > 0) << (i % 64);
    }
}

/// Words of signs for `dims` dimensions.
pub fn sign_words(dims: usize) -> usize {
    dims.div_ceil(64)
}

#[derive(Debug, Default)]
pub struct Recent {
    dims: usize,
    /// Documents, oldest first until the window is full, then overwritten from `next` on.
    docs: Vec<DocId>,
    /// `sign_words(dims)` words per entry, in the order of `docs`.
    signs: Vec<u64>,
    /// Where the next entry goes once the window is full (the oldest entry).
    next: usize,
}

impl Recent {
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// `doc`'s vector (as its int8 code) was stored.
    pub fn push(&mut self, doc: DocId, code: &[i8]) {
        if self.docs.is_empty() {
            self.dims = code.len();
        }
        let w = sign_words(self.dims);
        if self.docs.len() < RECENT_ROWS {
            self.docs.push(doc);
            self.signs.resize(self.signs.len() + w, 0);
            let at = self.signs.len() - w;
            signs_into(code, &mut self.signs[at..]);
        } else {
            let at = self.next;
            self.docs[at] = doc;
            signs_into(code, &mut self.signs[at * w..(at + 1) * w]);
            self.next = (at + 1) % RECENT_ROWS;
        }
    }

    /// Every document in the window, oldest first.
    pub fn docs(&self) -> impl Iterator<Item = DocId> + '_ {
        self.docs[self.next..].iter().chain(&self.docs[..self.next]).copied()
    }

    /// Documents `accept` takes, the `keep` closest to `query` (signs) by Hamming distance, ties to
    /// the newer entry, in no particular order.
    pub fn closest(&self, query: &[u64], keep: usize, accept: impl Fn(DocId) -> bool) -> Vec<DocId> {
        let w = sign_words(self.dims);
        // Distances are small integers (0..=dims): a count per distance finds the cut-off in two
        // passes, where selecting among (distance, entry) pairs cost a sort's comparisons and branches.
        let mut counts = vec![0u32; self.dims.min(usize::from(FARTHEST)) + 1];
        let mut distances = Vec::with_capacity(self.len());
        // Oldest first, so that an entry's place in `distances` is its age rank.
        for part in [&self.signs[self.next * w..], &self.signs[..self.next * w]] {
            match w {
                // The widths of common embedding sizes (384, 768, 1024, 1536) as fixed-size rows:
                // the loop over a row's words unrolls, and this pass is most of the search's cost.
                6 => hamming_fixed::<6>(part, query, &mut counts, &mut distances),
                12 => hamming_fixed::<12>(part, query, &mut counts, &mut distances),
                16 => hamming_fixed::<16>(part, query, &mut counts, &mut distances),
                24 => hamming_fixed::<24>(part, query, &mut counts, &mut distances),
                _ => hamming_any(part, w, query, &mut counts, &mut distances),
            }
        }
        let doc = |rank: u32| self.docs[(self.next + rank as usize) % self.len().max(1)];
        // `accept` is asked of the picked entries only (in a store of one namespace, all of them
        // pass), not of every entry; a refusal among them recounts the accepted entries and picks again.
        let picked = closest(&distances, &counts, keep);
        if picked.iter().all(|&r| accept(doc(r))) {
            return picked.into_iter().map(doc).collect();
        }
        counts.fill(0);
        for (rank, d) in distances.iter_mut().enumerate() {
            if accept(doc(rank as u32)) {
                counts[usize::from(*d)] += 1;
            } else {
                *d = REFUSED;
            }
        }
        closest(&distances, &counts, keep).into_iter().map(doc).collect()
    }

    pub fn memory_bytes(&self) -> usize {
        self.docs.capacity() * 4 + self.signs.capacity() * 8
    }
}

/// A distance no entry has: marks an entry `accept` refused, so that no cut-off reaches it.
const REFUSED: u16 = u16::MAX;
/// Distances are kept as `u16`: beyond 65,534 differing signs (embeddings of over 65,534
/// dimensions; none is refused) they count as this far, equally, rather than wrap to near.
const FARTHEST: u16 = REFUSED - 1;

/// Appends the Hamming distance of each `W`-word row of `signs` to `query` and counts it.
fn hamming_fixed<const W: usize>(signs: &[u64], query: &[u64], counts: &mut [u32], distances: &mut Vec<u16>) {
    let Ok(q) = <&[u64; W]>::try_from(query) else { return hamming_any(signs, W, query, counts, distances) };
    for row in signs.chunks_exact(W) {
        let mut d = 0;
        for k in 0..W {
            d += (row[k] ^ q[k]).count_ones();
        }
        counts[d as usize] += 1;
        distances.push(d as u16);
    }
}

/// [`hamming_fixed`] for any row width.
fn hamming_any(signs: &[u64], w: usize, query: &[u64], counts: &mut [u32], distances: &mut Vec<u16>) {
    for row in signs.chunks_exact(w.max(1)) {
        let d: u32 = row.iter().zip(query).map(|(a, b)| (a ^ b).count_ones()).sum();
        let d = d.min(u32::from(FARTHEST)) as u16;
        counts[usize::from(d)] += 1;
        distances.push(d);
    }
}

/// Ranks (places in `distances`, oldest first) of the `keep` smallest distances, ties to the newer:
/// every entry closer than the cut-off, then entries at the cut-off from the newest. `counts` are of
/// the entries not marked [`REFUSED`]; with fewer of them than `keep`, all are taken.
fn closest(distances: &[u16], counts: &[u32], keep: usize) -> Vec<u32> {
    // The smallest distance `cut` with at least `keep` entries at or below it, else the largest.
    let mut below = 0usize;
    let cut = counts.iter().position(|&c| {
        below += c as usize;
        below >= keep
    });
    let cut = cut.unwrap_or(counts.len() - 1);
    let mut at_cut = keep.saturating_sub(below - counts[cut] as usize);
    let cut = cut as u16;
    let mut ranks = Vec::with_capacity(keep.min(distances.len()));
    for (r, &d) in distances.iter().enumerate().rev() {
        if d < cut {
            ranks.push(r as u32);
        } else if d == cut && at_cut > 0 {
            at_cut -= 1;
            ranks.push(r as u32);
        }
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::vector::quantize::Code;
    use crate::index::vector::tests::vectors;

    fn signs_of(v: &[f32]) -> Vec<u64> {
        let mut signs = vec![0; sign_words(v.len())];
        signs_into(&Code::new(v).q, &mut signs);
        signs
    }

    /// A window holding `vs` as documents 0, 1, …, pushed in that order.
    fn recent_of(vs: &[Vec<f32>]) -> Recent {
        let mut r = Recent::default();
        for (i, v) in vs.iter().enumerate() {
            r.push(i as DocId, &Code::new(v).q);
        }
        r
    }

    #[test]
    fn the_window_keeps_the_newest_oldest_first() {
        let vs = vectors(RECENT_ROWS + 700, 16, 3);
        let r = recent_of(&vs);
        assert_eq!(r.len(), RECENT_ROWS);
        let docs: Vec<DocId> = r.docs().collect();
        let want: Vec<DocId> = (700..RECENT_ROWS as DocId + 700).collect();
        assert_eq!(docs, want);
        // Each entry's signs are those of its own vector, also where the oldest were overwritten.
        let w = sign_words(16);
        for (i, doc) in r.docs.iter().enumerate() {
            assert_eq!(&r.signs[i * w..(i + 1) * w], &signs_of(&vs[*doc as usize])[..], "entry {i}");
        }
    }

    #[test]
    fn ranking_equals_a_sort_by_distance_then_newest() {
        // Few dimensions make many entries tie at the cut, where "newer first" decides; windows that
        // have wrapped put the newest entries before the oldest in memory.
        // Every filter: all entries taken (the picks are asked only), a third refused (a recount).
        let filters: [fn(DocId) -> bool; 2] = [|_| true, |doc| doc % 3 != 1];
        let cases = [(8, 300, 40), (64, 500, 100), (384, 900, 384), (384, RECENT_ROWS + 900, 96), (768, 400, 50), (16, RECENT_ROWS + 50, 80), (16, 50, 80)];
        for ((dims, n, keep), accept) in cases.into_iter().flat_map(|c| filters.map(|f| (c, f))) {
            let vs = vectors(n + 1, dims, dims as u64);
            let r = recent_of(&vs[..n]);
            let query = signs_of(&vs[n]);
            let mut got = r.closest(&query, keep, accept);
            got.sort_unstable();
            let distance = |doc: usize| signs_of(&vs[doc]).iter().zip(&query).map(|(a, b)| (a ^ b).count_ones()).sum::<u32>();
            let mut all: Vec<(u32, std::cmp::Reverse<DocId>)> =
                (n.saturating_sub(RECENT_ROWS)..n).filter(|&d| accept(d as DocId)).map(|d| (distance(d), std::cmp::Reverse(d as DocId))).collect();
            all.sort_unstable();
            let mut want: Vec<DocId> = all.iter().take(keep).map(|&(_, std::cmp::Reverse(d))| d).collect();
            want.sort_unstable();
            assert_eq!(got, want, "dims {dims}, n {n}, keep {keep}");
        }
    }

    #[test]
    fn ranking_keeps_the_closest_accepted_entries() {
        let dims = 384;
        let vs = vectors(501, dims, 9);
        let r = recent_of(&vs[..500]);
        // A query next to document 250's vector (a little noise): it must be kept, and the filter holds.
        let near: Vec<f32> = vs[250].iter().zip(&vs[500]).map(|(a, b)| a + 0.2 * b).collect();
        let signs = signs_of(&near);
        let kept = r.closest(&signs, 10, |doc| doc % 2 == 0);
        assert_eq!(kept.len(), 10);
        assert!(kept.iter().all(|&d| d % 2 == 0), "{kept:?}");
        assert!(kept.contains(&250), "{kept:?}");
        assert!(!r.closest(&signs, 10, |doc| doc != 250).contains(&250));
        assert!(Recent::default().closest(&signs, 10, |_| true).is_empty());
    }

    #[test]
    fn distances_past_the_u16_range_still_rank() {
        // Embeddings are not capped in size: at 131,072 dimensions the distances of unrelated
        // vectors straddle 65,535, where a u16 would wrap and put the farthest first.
        let dims = 131_072;
        let vs = vectors(41, dims, 5);
        let r = recent_of(&vs[..40]);
        let query = signs_of(&vs[40]);
        let distance = |doc: usize| signs_of(&vs[doc]).iter().zip(&query).map(|(a, b)| (a ^ b).count_ones()).sum::<u32>();
        let mut by_distance: Vec<(u32, DocId)> = (0..40).map(|d| (distance(d), d as DocId)).collect();
        by_distance.sort_unstable();
        assert!(by_distance[0].0 < 65_535 && by_distance[39].0 > 65_535, "the case must straddle: {by_distance:?}");
        let mut got = r.closest(&query, 5, |_| true);
        got.sort_unstable();
        let mut want: Vec<DocId> = by_distance[..5].iter().map(|&(_, d)| d).collect();
        want.sort_unstable();
        assert_eq!(got, want);
        // Fewer entries than asked for: all of them.
        assert_eq!(r.closest(&query, 50, |_| true).len(), 40);
    }
}
