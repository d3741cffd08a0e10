//! The exact int8 tier: contiguous rows of codes for the vectors not (yet) in the HNSW graph —
//! every vector while the store is small, then those added since the last build. Removal moves the
//! last row into the hole so scans stay dense.

use super::quantize::quantize_into;
use crate::index::DocId;

#[derive(Default, Debug)]
pub struct Delta {
    dims: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
    docs: Vec<DocId>,
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
        (self.docs.len() - 1) as u32
    }

    pub fn push_code(&mut self, doc: DocId, q: &[i8], scale: f32) -> u32 {
        if self.docs.is_empty() {
            self.dims = q.len();
        }
        self.codes.extend_from_slice(q);
        self.scales.push(scale);
        self.docs.push(doc);
        (self.docs.len() - 1) as u32
    }

    pub fn set(&mut self, row: u32, unit: &[f32]) {
        let r = row as usize;
        self.scales[r] = quantize_into(unit, &mut self.codes[r * self.dims..(r + 1) * self.dims]);
    }

    /// Removes `row`; returns the document whose row moved into its place, if any.
    pub fn swap_remove(&mut self, row: u32) -> Option<DocId> {
        let (r, last) = (row as usize, self.docs.len() - 1);
        if r != last {
            self.codes.copy_within(last * self.dims..(last + 1) * self.dims, r * self.dims);
        }
        self.codes.truncate(last * self.dims);
        self.scales.swap_remove(r);
        self.docs.swap_remove(r);
        (r != last).then(|| self.docs[r])
    }

    pub fn row(&self, row: u32) -> (&[i8], f32) {
        let r = row as usize;
        (&self.codes[r * self.dims..(r + 1) * self.dims], self.scales[r])
    }

    /// (doc, codes, scale) of every row, in row order.
    pub fn rows(&self) -> impl Iterator<Item = (DocId, &[i8], f32)> + '_ {
        self.docs.iter().zip(self.codes.chunks_exact(self.dims.max(1))).zip(&self.scales).map(|((&d, q), &s)| (d, q, s))
    }

    /// Drops growth slack after a bulk move (an install), when the tier is not about to grow.
    pub fn shrink_to_fit(&mut self) {
        self.codes.shrink_to_fit();
        self.scales.shrink_to_fit();
        self.docs.shrink_to_fit();
    }

    pub fn memory_bytes(&self) -> usize {
        self.codes.capacity() + self.scales.capacity() * 4 + self.docs.capacity() * 4
    }
}
