//! The exact int8 tier: contiguous rows of codes for the vectors not (yet) in the HNSW graph —
//! every vector while the store is small, then those added since the last build. Removal moves the
//! last row into the hole so scans stay dense. Each row also keeps its code's signs, one bit per
//! dimension: a bounded scan ranks rows by the Hamming distance of signs (48 bytes a row at 384
//! dimensions, against 384 for the code) and reads the codes of the best few only.

use super::quantize::quantize_into;
use crate::index::DocId;

#[derive(Default, Debug)]
pub struct Delta {
    dims: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
    docs: Vec<DocId>,
    /// `sign_words()` words per row: bit i set when the code's dimension i is positive.
    signs: Vec<u64>,
}

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

impl Delta {
    pub fn new(dims: usize) -> Delta {
        Delta { dims, ..Delta::default() }
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Appends a row and returns its number.
    pub fn push(&mut self, doc: DocId, unit: &[f32]) -> u32 {
        if self.docs.is_empty() {
            self.dims = unit.len();
        }
        let at = self.codes.len();
        self.codes.resize(at + self.dims, 0);
        self.scales.push(quantize_into(unit, &mut self.codes[at..]));
        self.docs.push(doc);
        self.push_signs(at);
        (self.docs.len() - 1) as u32
    }

    /// Appends the signs of the code starting at `at` in `codes`.
    fn push_signs(&mut self, at: usize) {
        let w = self.signs.len();
        self.signs.resize(w + sign_words(self.dims), 0);
        signs_into(&self.codes[at..at + self.dims], &mut self.signs[w..]);
    }

    pub fn push_code(&mut self, doc: DocId, q: &[i8], scale: f32) -> u32 {
        if self.docs.is_empty() {
            self.dims = q.len();
        }
        let at = self.codes.len();
        self.codes.extend_from_slice(q);
        self.scales.push(scale);
        self.docs.push(doc);
        self.push_signs(at);
        (self.docs.len() - 1) as u32
    }

    pub fn set(&mut self, row: u32, unit: &[f32]) {
        let r = row as usize;
        self.scales[r] = quantize_into(unit, &mut self.codes[r * self.dims..(r + 1) * self.dims]);
        let w = sign_words(self.dims);
        signs_into(&self.codes[r * self.dims..(r + 1) * self.dims], &mut self.signs[r * w..(r + 1) * w]);
    }

    /// Removes `row`; returns the document whose row moved into its place, if any.
    pub fn swap_remove(&mut self, row: u32) -> Option<DocId> {
        let (r, last) = (row as usize, self.docs.len() - 1);
        if r != last {
            self.codes.copy_within(last * self.dims..(last + 1) * self.dims, r * self.dims);
        }
        self.codes.truncate(last * self.dims);
        let w = sign_words(self.dims);
        if r != last {
            self.signs.copy_within(last * w..(last + 1) * w, r * w);
        }
        self.signs.truncate(last * w);
        self.scales.swap_remove(r);
        self.docs.swap_remove(r);
        (r != last).then(|| self.docs[r])
    }

    pub fn row(&self, row: u32) -> (&[i8], f32) {
        let r = row as usize;
        (&self.codes[r * self.dims..(r + 1) * self.dims], self.scales[r])
    }

    pub fn doc(&self, row: u32) -> DocId {
        self.docs[row as usize]
    }

    /// (doc, codes, scale) of every row, in row order.
    pub fn rows(&self) -> impl Iterator<Item = (DocId, &[i8], f32)> + '_ {
        self.newest(self.len())
    }

    /// The newest `n` rows (appended last), in row order.
    pub fn newest(&self, n: usize) -> impl Iterator<Item = (DocId, &[i8], f32)> + '_ {
        // Sliced, not `rows().skip(…)`: skipping walks every older row.
        let start = self.len().saturating_sub(n);
        let codes = &self.codes[start * self.dims..];
        self.docs[start..].iter().zip(codes.chunks_exact(self.dims.max(1))).zip(&self.scales[start..]).map(|((&d, q), &s)| (d, q, s))
    }

    /// Rows among the newest `n` that `accept` takes, the `keep` closest to `query` by the Hamming
    /// distance of their signs (ties to the newer row), in no particular order.
    pub fn newest_by_signs(&self, n: usize, query: &[u64], keep: usize, accept: impl Fn(DocId) -> bool) -> Vec<u32> {
        let w = sign_words(self.dims);
        let start = self.len().saturating_sub(n);
        let signs = &self.signs[start * w..];
        // Distances are small integers (0..=dims): a count per distance finds the cut-off in two
        // passes, where selecting among (distance, row) pairs cost a sort's comparisons and branches.
        let mut counts = vec![0u32; self.dims + 1];
        let mut distances = Vec::with_capacity(self.len() - start);
        match w {
            // The widths of common embedding sizes (384, 768, 1024, 1536) as fixed-size rows: the
            // loop over a row's words unrolls, and this pass is most of a bounded scan's cost.
            6 => hamming_fixed::<6>(signs, query, &mut counts, &mut distances),
            12 => hamming_fixed::<12>(signs, query, &mut counts, &mut distances),
            16 => hamming_fixed::<16>(signs, query, &mut counts, &mut distances),
            24 => hamming_fixed::<24>(signs, query, &mut counts, &mut distances),
            _ => hamming_any(signs, w, query, &mut counts, &mut distances),
        }
        // `accept` is asked of the picked rows only (in a store of one namespace, all of them pass),
        // not of every scanned row; a refusal among them recounts the accepted rows and picks again.
        let picked = closest(&distances, &counts, keep, start);
        if picked.iter().all(|&r| accept(self.docs[r as usize])) {
            return picked;
        }
        counts.fill(0);
        for (d, &doc) in distances.iter_mut().zip(&self.docs[start..]) {
            if accept(doc) {
                counts[usize::from(*d)] += 1;
            } else {
                *d = REFUSED;
            }
        }
        closest(&distances, &counts, keep, start)
    }

    /// Drops growth slack after a bulk move (an install), when the tier is not about to grow.
    pub fn shrink_to_fit(&mut self) {
        self.codes.shrink_to_fit();
        self.scales.shrink_to_fit();
        self.docs.shrink_to_fit();
        self.signs.shrink_to_fit();
    }

    pub fn memory_bytes(&self) -> usize {
        self.codes.capacity() + self.scales.capacity() * 4 + self.docs.capacity() * 4 + self.signs.capacity() * 8
    }
}

/// A distance no row has: marks a row `accept` refused, so that no cut-off reaches it.
const REFUSED: u16 = u16::MAX;

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
        counts[d as usize] += 1;
        distances.push(d as u16);
    }
}

/// Rows (numbered from `start`) of the `keep` smallest distances, ties to the newer row: every row
/// closer than the cut-off, then rows at the cut-off from the newest. `counts` are of the rows not
/// marked [`REFUSED`]; with fewer of them than `keep`, all are taken.
fn closest(distances: &[u16], counts: &[u32], keep: usize, start: usize) -> Vec<u32> {
    // The smallest distance `cut` with at least `keep` rows at or below it, else the largest.
    let mut below = 0usize;
    let cut = counts.iter().position(|&c| {
        below += c as usize;
        below >= keep
    });
    let cut = cut.unwrap_or(counts.len() - 1);
    let mut at_cut = keep.saturating_sub(below - counts[cut] as usize);
    let cut = cut as u16;
    let mut rows = Vec::with_capacity(keep.min(distances.len()));
    for (r, &d) in distances.iter().enumerate().rev() {
        if d < cut {
            rows.push((start + r) as u32);
        } else if d == cut && at_cut > 0 {
            at_cut -= 1;
            rows.push((start + r) as u32);
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::vector::tests::vectors;

    fn delta_of(vs: &[Vec<f32>]) -> Delta {
        let mut d = Delta::new(vs[0].len());
        for (i, v) in vs.iter().enumerate() {
            d.push(i as DocId, v);
        }
        d
    }

    fn signs_of(v: &[f32]) -> Vec<u64> {
        let mut signs = vec![0; sign_words(v.len())];
        signs_into(&crate::index::vector::quantize::Code::new(v).q, &mut signs);
        signs
    }

    /// Every row's signs are those of its code, through pushes, rewrites and removals.
    fn check_signs(d: &Delta) {
        let w = sign_words(d.dims);
        for r in 0..d.len() {
            let mut want = vec![0; w];
            signs_into(d.row(r as u32).0, &mut want);
            assert_eq!(&d.signs[r * w..(r + 1) * w], &want[..], "row {r}");
        }
        assert_eq!(d.signs.len(), d.len() * w);
    }

    #[test]
    fn signs_follow_the_rows() {
        let dims = 100;
        let vs = vectors(43, dims, 5);
        let mut d = delta_of(&vs[..40]);
        let q = crate::index::vector::quantize::Code::new(&vs[40]);
        d.push_code(40, &q.q, q.scale);
        d.set(3, &vs[41]);
        for row in [0, 17, 38, 5] {
            d.swap_remove(row);
        }
        check_signs(&d);
    }

    #[test]
    fn sign_ranking_equals_a_sort_by_distance_then_newest() {
        // Few dimensions make many rows tie at the cut, where "newer first" decides.
        // Every filter: all rows taken (the picks are asked only), a third refused (a recount).
        let filters: [fn(DocId) -> bool; 2] = [|_| true, |doc| doc % 3 != 1];
        let cases = [(8, 300, 40), (64, 500, 100), (384, 900, 384), (384, 900, 96), (768, 400, 50), (16, 50, 80)];
        for ((dims, n, keep), accept) in cases.into_iter().flat_map(|c| filters.map(|f| (c, f))) {
            let vs = vectors(n + 1, dims, dims as u64);
            let d = delta_of(&vs[..n]);
            let query = signs_of(&vs[n]);
            let window = n * 2 / 3;
            let mut got = d.newest_by_signs(window, &query, keep, accept);
            got.sort_unstable();
            let w = sign_words(dims);
            let mut all: Vec<(u32, std::cmp::Reverse<u32>)> = (n - window..n)
                .filter(|&r| accept(d.doc(r as u32)))
                .map(|r| (d.signs[r * w..(r + 1) * w].iter().zip(&query).map(|(a, b)| (a ^ b).count_ones()).sum(), std::cmp::Reverse(r as u32)))
                .collect();
            all.sort_unstable();
            let mut want: Vec<u32> = all.iter().take(keep).map(|&(_, std::cmp::Reverse(r))| r).collect();
            want.sort_unstable();
            assert_eq!(got, want, "dims {dims}, n {n}, keep {keep}");
        }
    }

    #[test]
    fn sign_ranking_keeps_the_closest_accepted_rows() {
        let dims = 384;
        let vs = vectors(501, dims, 9);
        let d = delta_of(&vs[..500]);
        // A query next to row 250's vector (a little noise): it must be kept, and the filter holds.
        let near: Vec<f32> = vs[250].iter().zip(&vs[500]).map(|(a, b)| a + 0.2 * b).collect();
        let signs = signs_of(&near);
        let kept = d.newest_by_signs(400, &signs, 10, |doc| doc % 2 == 0);
        assert_eq!(kept.len(), 10);
        assert!(kept.iter().all(|&r| d.doc(r) % 2 == 0 && r >= 100), "{kept:?}");
        assert!(kept.iter().any(|&r| d.doc(r) == 250), "{kept:?}");
        assert!(d.newest_by_signs(400, &signs, 10, |doc| doc != 250).iter().all(|&r| d.doc(r) != 250));
    }
}
