//! Exact vector tier: unit-length f32 vectors by slot, scored by dot product (= cosine).
//! Every store starts here; an approximate tier for large stores sits in front of it later.

use super::keyword::DocId;

#[derive(Default, Debug)]
pub struct VectorIndex {
    dims: Option<usize>,
    vectors: Vec<Option<Box<[f32]>>>,
    count: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VectorHit {
    pub doc: DocId,
    pub cosine: f32,
}

impl VectorIndex {
    pub fn new() -> Self {
        Self::default()
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

    pub fn get(&self, doc: DocId) -> Option<&[f32]> {
        self.vectors.get(doc as usize).and_then(|v| v.as_deref())
    }

    /// Stores a unit vector for `doc`. The caller validated it (finite, unit length, right dims).
    pub fn insert(&mut self, doc: DocId, unit: Vec<f32>) {
        debug_assert!(self.dims.is_none_or(|d| d == unit.len()));
        self.dims.get_or_insert(unit.len());
        if self.vectors.len() <= doc as usize {
            self.vectors.resize_with(doc as usize + 1, || None);
        }
        if self.vectors[doc as usize].replace(unit.into_boxed_slice()).is_none() {
            self.count += 1;
        }
    }

    pub fn remove(&mut self, doc: DocId) -> bool {
        let removed = self.vectors.get_mut(doc as usize).and_then(Option::take).is_some();
        if removed {
            self.count -= 1;
        }
        removed
    }

    pub fn clear(&mut self) {
        *self = VectorIndex::default();
    }

    /// Exact top `limit` by cosine among the documents `accept` admits, best first.
    pub fn search(&self, query: &[f32], limit: usize, accept: impl Fn(DocId) -> bool) -> Vec<VectorHit> {
        if limit == 0 || self.dims != Some(query.len()) {
            return Vec::new();
        }
        let hits: Vec<VectorHit> = self
            .vectors
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_ref().map(|v| (i as DocId, v)))
            .filter(|(d, _)| accept(*d))
            .map(|(doc, v)| VectorHit { doc, cosine: dot(query, v) })
            .collect();
        super::top_k(hits, limit, |a, b| b.cosine.total_cmp(&a.cosine).then(a.doc.cmp(&b.doc)))
    }
}

pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
