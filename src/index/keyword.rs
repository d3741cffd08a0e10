//! Incremental BM25 (k1 = 1.2, b = 0.75) over documents numbered by slot.
//!
//! Each document remembers its own term frequencies, so removing it takes exactly its postings out
//! and corrects the document count and total length at once: a removed document is never scored and
//! no longer moves anyone's IDF or length normalization (no ghosts, no lazy tombstones).

use crate::keyed_hash::KeyedState;
use std::cell::RefCell;
use std::collections::HashMap;

use super::tokenize::{for_each_term, tokenize_into};

pub const K1: f32 = 1.2;
pub const B: f32 = 0.75;

pub type TermId = u32;

/// Version of tokenization and stemming (`tokenize.rs`, `stem.rs`): a persisted index made by
/// another version is rebuilt from the text rather than trusted. Bump on any change to either.
pub const TOKENIZER_VERSION: u32 = 1;
pub type DocId = u32;

#[derive(Default, Debug)]
struct DocEntry {
    /// (term, frequency) pairs, each term once.
    terms: Vec<(TermId, u32)>,
    len: u32,
}

#[derive(Default, Debug)]
pub struct KeywordIndex {
    term_ids: HashMap<String, TermId, KeyedState>,
    /// By term id: (document, term frequency). Order is irrelevant: scores are summed.
    postings: Vec<Vec<(DocId, u32)>>,
    docs: Vec<Option<DocEntry>>,
    doc_count: u32,
    total_len: u64,
    /// Per-query score accumulator, reused so a query does not allocate one per document.
    scratch: RefCell<Vec<f32>>,
}

/// A scored document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KeywordHit {
    pub doc: DocId,
    /// Raw BM25 score.
    pub score: f32,
    /// `score` divided by the score of a document that contains every query term once at average
    /// length: about 1 for a full match, smaller for partial ones, so callers get a query-independent
    /// relevance in roughly 0..1 without normalizing by the best hit (which would make any hit "1").
    pub relevance: f32,
}

/// A parsed query: distinct terms with their repeat counts.
pub struct KeywordQuery {
    terms: Vec<(String, u32)>,
}

impl KeywordQuery {
    pub fn parse(text: &str) -> Self {
        let mut toks = Vec::new();
        tokenize_into(text, &mut toks);
        // Function words say how a question is asked, not what it is about; keep them only when the
        // query has nothing else.
        if toks.iter().any(|t| !is_function_word(t)) {
            toks.retain(|t| !is_function_word(t));
        }
        let mut terms: Vec<(String, u32)> = Vec::new();
        for t in toks {
            match terms.iter_mut().find(|(x, _)| *x == t) {
                Some((_, n)) => *n += 1,
                None => terms.push((t, 1)),
            }
        }
        KeywordQuery { terms }
    }
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
    /// The query's terms (stemmed, folded, function words dropped when others remain).
    pub fn terms(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(|(t, _)| t.as_str())
    }
}

/// English function words (after stemming), dropped from queries that have other terms.
fn is_function_word(term: &str) -> bool {
    const WORDS: &[&str] = &[
        "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by", "from", "about", "as", "into", "is", "are", "was", "were", "be", "been", "am",
        "do", "doe", "did", "does", "has", "have", "had", "will", "would", "can", "could", "should", "shall", "may", "might", "must", "what", "which", "who", "whom", "whose",
        "when", "where", "why", "how", "i", "me", "my", "you", "your", "he", "him", "his", "she", "her", "it", "its", "we", "us", "our", "they", "them", "their", "this", "that",
        "these", "those", "there", "here", "if", "then", "than", "so", "not", "no", "any", "some", "all",
    ];
    WORDS.contains(&term)
}

impl KeywordIndex {
    #[cfg(test)]
    pub fn new() -> Self {
        Self::default()
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.doc_count as usize
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.doc_count == 0
    }

    /// Distinct terms that occur in at least one live document.
    pub fn live_terms(&self) -> usize {
        self.postings.iter().filter(|p| !p.is_empty()).count()
    }

    #[cfg(test)]
    pub fn contains(&self, doc: DocId) -> bool {
        self.docs.get(doc as usize).is_some_and(Option::is_some)
    }

    /// Indexes `doc` with the given texts (content, tags, …), replacing what it had before.
    pub fn insert<'a>(&mut self, doc: DocId, texts: impl IntoIterator<Item = &'a str>) {
        let mut ids: Vec<(TermId, u32)> = Vec::new();
        for t in texts {
            for_each_term(t, |term| ids.push((self.intern(term), 1)));
        }
        let len = ids.len() as u32;
        self.insert_counted(doc, ids, len);
    }

    /// The id of `term`, adding it to the vocabulary if new (ids are this index's own).
    pub fn intern(&mut self, term: &str) -> TermId {
        if let Some(&id) = self.term_ids.get(term) {
            return id;
        }
        let id = self.postings.len() as TermId;
        self.term_ids.insert(term.to_string(), id);
        self.postings.push(Vec::new());
        id
    }

    /// Indexes `doc` from (term id, frequency) pairs already counted — by a persisted index or by
    /// another index's entries — replacing what it had before. Repeated ids are summed; `len` is the
    /// document's token count. Ids must come from [`KeywordIndex::intern`] on this index.
    pub fn insert_counted(&mut self, doc: DocId, mut terms: Vec<(TermId, u32)>, len: u32) {
        self.remove(doc);
        terms.retain(|&(t, _)| (t as usize) < self.postings.len());
        terms.sort_unstable_by_key(|&(t, _)| t);
        terms.dedup_by(|next, kept| {
            let same = next.0 == kept.0;
            if same {
                kept.1 = kept.1.saturating_add(next.1);
            }
            same
        });
        for &(t, tf) in &terms {
            self.postings[t as usize].push((doc, tf));
        }
        if self.docs.len() <= doc as usize {
            self.docs.resize_with(doc as usize + 1, || None);
        }
        self.docs[doc as usize] = Some(DocEntry { terms, len });
        self.doc_count += 1;
        self.total_len += u64::from(len);
    }

    /// Every term by id (for persisting: ids index this table).
    pub fn vocabulary(&self) -> Vec<&str> {
        let mut by_id = vec![""; self.postings.len()];
        for (term, &id) in &self.term_ids {
            by_id[id as usize] = term;
        }
        by_id
    }

    /// A document's (term id, frequency) pairs, sorted by id, and its token count.
    pub fn doc_terms(&self, doc: DocId) -> Option<(&[(TermId, u32)], u32)> {
        self.docs.get(doc as usize)?.as_ref().map(|e| (e.terms.as_slice(), e.len))
    }

    /// Removes `doc` and all its postings. Returns whether it was indexed.
    pub fn remove(&mut self, doc: DocId) -> bool {
        let Some(entry) = self.docs.get_mut(doc as usize).and_then(Option::take) else {
            return false;
        };
        for (t, _) in entry.terms {
            let list = &mut self.postings[t as usize];
            if let Some(pos) = list.iter().position(|(d, _)| *d == doc) {
                list.swap_remove(pos);
            }
        }
        self.doc_count -= 1;
        self.total_len -= u64::from(entry.len);
        true
    }

    #[cfg(test)]
    pub fn clear(&mut self) {
        *self = KeywordIndex::default();
    }

    fn idf(&self, df: usize) -> f32 {
        let n = self.doc_count as f32;
        let df = df as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Top `limit` documents for the query among those `accept` admits, best first (ties by doc id).
    pub fn search(&self, query: &KeywordQuery, limit: usize, accept: impl Fn(DocId) -> bool) -> Vec<KeywordHit> {
        if self.doc_count == 0 || query.is_empty() || limit == 0 {
            return Vec::new();
        }
        let avgdl = (self.total_len as f32 / self.doc_count as f32).max(1.0);
        let mut scratch = self.scratch.borrow_mut();
        scratch.clear();
        scratch.resize(self.docs.len(), 0.0);
        let mut touched: Vec<DocId> = Vec::new();
        let mut ideal = 0.0f32;
        for (term, qtf) in &query.terms {
            let qtf = *qtf as f32;
            let Some(&t) = self.term_ids.get(term) else {
                // An unseen term is as specific as a term can be: it counts fully in the ideal.
                ideal += qtf * self.idf(0);
                continue;
            };
            let list = &self.postings[t as usize];
            let idf = self.idf(list.len());
            ideal += qtf * idf;
            for &(doc, tf) in list {
                let dl = self.docs[doc as usize].as_ref().map_or(0, |d| d.len) as f32;
                let tf = tf as f32;
                let s = qtf * idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / avgdl));
                let slot = &mut scratch[doc as usize];
                if *slot == 0.0 {
                    touched.push(doc);
                }
                *slot += s;
            }
        }
        let hits: Vec<KeywordHit> = touched
            .into_iter()
            .filter(|&d| accept(d))
            .map(|d| {
                let score = scratch[d as usize];
                KeywordHit { doc: d, score, relevance: if ideal > 0.0 { score / ideal } else { 0.0 } }
            })
            .collect();
        super::top_k(hits, limit, |a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(docs: &[&str]) -> KeywordIndex {
        let mut ix = KeywordIndex::new();
        for (i, d) in docs.iter().enumerate() {
            ix.insert(i as DocId, [*d]);
        }
        ix
    }

    fn ranked(ix: &KeywordIndex, q: &str) -> Vec<DocId> {
        ix.search(&KeywordQuery::parse(q), 10, |_| true).into_iter().map(|h| h.doc).collect()
    }

    #[test]
    fn matches_hand_computed_bm25() {
        // Two docs: "a b" and "a c c". N=2, avgdl=2.5. For query "c": df=1, idf=ln(1+(2-1+.5)/1.5)=ln 2.
        let ix = index(&["a b", "a c c"]);
        let hits = ix.search(&KeywordQuery::parse("c"), 10, |_| true);
        assert_eq!(hits.len(), 1);
        let idf = 2f32.ln();
        let expected = idf * 2.0 * (K1 + 1.0) / (2.0 + K1 * (1.0 - B + B * 3.0 / 2.5));
        assert!((hits[0].score - expected).abs() < 1e-6, "{} vs {expected}", hits[0].score);
    }

    #[test]
    fn rarer_terms_and_shorter_docs_rank_higher() {
        let ix = index(&["the cat sat on the mat", "the dog chased the cat around the big garden all afternoon long", "a dog", "the the the the"]);
        assert_eq!(ranked(&ix, "cat"), [0, 1]);
        assert_eq!(ranked(&ix, "dog"), [2, 1]);
        // Both terms beat one; among one-term matches (equal IDF) the shorter document wins.
        assert_eq!(ranked(&ix, "dog cat"), [1, 2, 0]);
    }

    #[test]
    fn removal_leaves_no_ghosts() {
        let mut ix = index(&["apple pie recipe", "apple orchard", "banana bread"]);
        let before = ix.search(&KeywordQuery::parse("banana"), 10, |_| true)[0].score;
        assert!(ix.remove(1));
        assert!(!ix.remove(1));
        assert_eq!(ranked(&ix, "orchard"), Vec::<DocId>::new());
        assert_eq!(ranked(&ix, "apple"), [0]);
        // The same two remaining docs indexed fresh must score identically.
        let fresh = index(&["apple pie recipe", "banana bread"]);
        let a = ix.search(&KeywordQuery::parse("apple banana"), 10, |_| true);
        let b = fresh.search(&KeywordQuery::parse("apple banana"), 10, |_| true);
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert!((x.score - y.score).abs() < 1e-6);
        }
        assert_ne!(before, ix.search(&KeywordQuery::parse("banana"), 10, |_| true)[0].score);
        // Re-inserting replaces rather than duplicates.
        ix.insert(0, ["cherry"]);
        assert_eq!(ranked(&ix, "apple"), Vec::<DocId>::new());
        assert_eq!(ix.len(), 2);
    }

    #[test]
    fn relevance_is_about_one_for_full_match_and_filter_applies() {
        let ix = index(&["red apples", "green apples", "red cars"]);
        let hits = ix.search(&KeywordQuery::parse("red apples"), 10, |d| d != 1);
        assert_eq!(hits.iter().map(|h| h.doc).collect::<Vec<_>>(), [0, 2]);
        assert!(hits[0].relevance > 0.8 && hits[0].relevance < 1.3, "{}", hits[0].relevance);
        assert!(hits[1].relevance < hits[0].relevance);
        assert!(ix.search(&KeywordQuery::parse("zebra"), 10, |_| true).is_empty());
    }
}
