//! Lookup tables the guard scanners share: word lists bucketed by first byte, and a set of
//! two-byte starts that turns most words away before any bucket is read. Scanners run on every write
//! and most positions of ordinary text begin no entry.

/// `items` bucketed by the first byte of their word, in list order within each bucket (built once):
/// a position is compared only with the entries that begin with its byte, and most positions of
/// ordinary text begin none.
pub fn by_first_byte<T: Copy>(items: impl Iterator<Item = (&'static str, T)>) -> Vec<Vec<(&'static str, T)>> {
    let mut buckets = vec![Vec::new(); 256];
    for (word, item) in items {
        buckets[usize::from(word.as_bytes()[0])].push((word, item));
    }
    buckets
}

/// The (first, second) byte pairs that start some phrase or stem, one bit each (ASCII pairs only; a
/// non-ASCII byte maps to no pair, so such a word is always looked up). Most words of a text start
/// with a pair no entry has: one bit read turns them away before any bucket is scanned.
pub struct PairSet(Vec<u64>);

impl PairSet {
    pub fn new() -> PairSet {
        PairSet(vec![0; 128 * 128 / 64])
    }

    fn bit(first: u8, second: u8) -> Option<usize> {
        (first.is_ascii() && second.is_ascii()).then(|| usize::from(first) * 128 + usize::from(second))
    }

    pub fn add(&mut self, first: u8, second: u8) {
        if let Some(i) = Self::bit(first, second) {
            self.0[i / 64] |= 1 << (i % 64);
        }
    }

    /// False only when no entry can start with these two bytes.
    pub fn may_start(&self, first: u8, second: u8) -> bool {
        Self::bit(first, second).is_none_or(|i| self.0[i / 64] & (1 << (i % 64)) != 0)
    }
}
