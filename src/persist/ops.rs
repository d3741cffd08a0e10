//! The body of chunks, snapshots and exports: a sequence of operations, each a tag byte and its
//! fields, until the body ends. A snapshot is the operations that rebuild the state from empty; a
//! chunk, those that turn the previous state into the next. Records (memories, raw entries, history
//! events) are JSON so fields added later load with their defaults; vectors are raw f32 LE bytes.

use super::bytes::{Reader, Writer};
use super::identity::EmbedderIdentity;
use crate::error::{Error, Result};
use crate::index::keyword::{KeywordIndex, TOKENIZER_VERSION};
use crate::model::{Memory, RawEntry};
use crate::store::HistoryEvent;

const RESET: u8 = 1;
const PUT_MEMORY: u8 = 2;
const DELETE_MEMORY: u8 = 3;
const PUT_RAW: u8 = 4;
const DELETE_RAW: u8 = 5;
const HISTORY: u8 = 6;
const EMBEDDER: u8 = 7;
const KEYWORD_TERMS: u8 = 8;
const FORGET_HISTORY_TEXT: u8 = 9;

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Forget every record (the embedder identity stays: it describes the store, not its records).
    Reset,
    /// Insert or replace a memory (by id) with its vector.
    PutMemory(Memory, Option<Vec<f32>>),
    DeleteMemory(String),
    /// Insert or replace a raw entry (by id) with its vector.
    PutRaw(RawEntry, Option<Vec<f32>>),
    DeleteRaw(String),
    /// Append a history event.
    History(HistoryEvent),
    /// Remove the text of every history event of this memory so far (it was deleted).
    ForgetHistoryText(String),
    /// The embedder that made the vectors.
    Embedder(EmbedderIdentity),
    /// Snapshots only: a keyword index's entries for the records put before it (see [`KeywordTerms`]).
    KeywordTerms(KeywordTerms),
}

/// Which records a persisted keyword index covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexTarget {
    Memories = 0,
    Raw = 1,
}

/// A keyword index as a snapshot persists it: the vocabulary and, for each record of the target
/// kind in the order the snapshot puts them, its (term, frequency) pairs and token count. Opening
/// then indexes records from these counts instead of tokenizing every text again. Only an index of
/// the current [`TOKENIZER_VERSION`] is used; any other is ignored and rebuilt from the text.
#[derive(Clone, Debug, PartialEq)]
pub struct KeywordTerms {
    pub target: IndexTarget,
    pub version: u32,
    pub vocabulary: Vec<String>,
    /// Per record: (vocabulary index, frequency) sorted by index, and the token count.
    pub docs: Vec<(Vec<(u32, u32)>, u32)>,
}

/// Writes operations without copying the records they come from.
#[derive(Default)]
pub struct OpWriter {
    w: Writer,
    count: usize,
}

impl OpWriter {
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.count
    }
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    pub fn into_bytes(self) -> Vec<u8> {
        self.w.buf
    }
    /// Bytes written so far.
    pub fn byte_len(&self) -> usize {
        self.w.buf.len()
    }
    /// A writer whose buffer starts with room for a record header, for [`OpWriter::into_record`].
    pub fn framed() -> OpWriter {
        OpWriter::framed_with_capacity(0)
    }
    /// [`OpWriter::framed`] with room for a body of `body` bytes reserved: a large body known in
    /// advance is never reallocated (each doubling holds the old and the new buffer at once).
    pub fn framed_with_capacity(body: usize) -> OpWriter {
        let mut buf = Vec::with_capacity(super::record::HEADER + body + super::record::TRAILER);
        buf.resize(super::record::HEADER, 0);
        OpWriter { w: Writer { buf }, count: 0 }
    }
    /// The operations written since [`OpWriter::framed`] as one record, framed in place.
    pub fn into_record(self, kind: super::record::RecordKind, seq: u64) -> Vec<u8> {
        super::record::seal(kind, seq, self.w.buf)
    }
    fn tag(&mut self, t: u8) {
        self.count += 1;
        self.w.u8(t);
    }
    pub fn reset(&mut self) {
        self.tag(RESET);
    }
    pub fn put_memory(&mut self, m: &Memory, v: Option<&[f32]>) {
        self.tag(PUT_MEMORY);
        self.w.json(m);
        self.w.vector(v);
    }
    pub fn delete_memory(&mut self, id: &str) {
        self.tag(DELETE_MEMORY);
        self.w.str(id);
    }
    pub fn put_raw(&mut self, e: &RawEntry, v: Option<&[f32]>) {
        self.tag(PUT_RAW);
        self.w.json(e);
        self.w.vector(v);
    }
    pub fn delete_raw(&mut self, id: &str) {
        self.tag(DELETE_RAW);
        self.w.str(id);
    }
    pub fn history(&mut self, h: &HistoryEvent) {
        self.tag(HISTORY);
        self.w.json(h);
    }
    pub fn forget_history_text(&mut self, memory_id: &str) {
        self.tag(FORGET_HISTORY_TEXT);
        self.w.str(memory_id);
    }
    /// `index`'s entries for `docs` (the slots of the records already written, in their order).
    /// Only the terms those records use are written: a deleted record's words leave storage with it.
    pub fn keyword_terms(&mut self, target: IndexTarget, index: &KeywordIndex, docs: impl Iterator<Item = u32>) {
        let vocabulary = index.vocabulary();
        let docs: Vec<(&[(u32, u32)], u32)> = docs.map(|d| index.doc_terms(d).unwrap_or((&[], 0))).collect();
        let mut used = vec![false; vocabulary.len()];
        for &(terms, _) in &docs {
            for &(t, _) in terms {
                used[t as usize] = true;
            }
        }
        // New numbers in the old order, so each record's pairs stay sorted.
        let mut renumber = vec![0u32; vocabulary.len()];
        let mut kept = Vec::new();
        for (t, term) in vocabulary.iter().enumerate() {
            if used[t] {
                renumber[t] = kept.len() as u32;
                kept.push(*term);
            }
        }
        let docs: Vec<(Vec<(u32, u32)>, u32)> = docs.into_iter().map(|(terms, len)| (terms.iter().map(|&(t, tf)| (renumber[t as usize], tf)).collect(), len)).collect();
        self.keyword_entries(target, TOKENIZER_VERSION, &kept, docs.iter().map(|(t, len)| (t.as_slice(), *len)));
    }
    fn keyword_entries<'a, S: AsRef<str>>(&mut self, target: IndexTarget, version: u32, vocabulary: &[S], docs: impl Iterator<Item = (&'a [(u32, u32)], u32)>) {
        self.tag(KEYWORD_TERMS);
        self.w.u8(target as u8);
        self.w.u32(version);
        self.w.u32(vocabulary.len() as u32);
        for term in vocabulary {
            self.w.str(term.as_ref());
        }
        let count_at = self.w.buf.len();
        self.w.u32(0);
        let mut count = 0u32;
        for (terms, len) in docs {
            self.w.u32(len);
            self.w.u32(terms.len() as u32);
            for &(t, tf) in terms {
                self.w.u32(t);
                self.w.u32(tf);
            }
            count += 1;
        }
        self.w.buf[count_at..count_at + 4].copy_from_slice(&count.to_le_bytes());
    }
    /// Any operation (tests and tools re-encode decoded bodies with it).
    #[cfg(test)]
    pub fn op(&mut self, op: &Op) {
        match op {
            Op::Reset => self.reset(),
            Op::PutMemory(m, v) => self.put_memory(m, v.as_deref()),
            Op::DeleteMemory(id) => self.delete_memory(id),
            Op::PutRaw(e, v) => self.put_raw(e, v.as_deref()),
            Op::DeleteRaw(id) => self.delete_raw(id),
            Op::History(h) => self.history(h),
            Op::ForgetHistoryText(id) => self.forget_history_text(id),
            Op::Embedder(id) => self.embedder(id),
            Op::KeywordTerms(k) => self.keyword_entries(k.target, k.version, &k.vocabulary, k.docs.iter().map(|(t, len)| (t.as_slice(), *len))),
        }
    }
    pub fn embedder(&mut self, id: &EmbedderIdentity) {
        self.tag(EMBEDDER);
        self.w.str(&id.model);
        self.w.u32(id.dims);
    }
}

/// Decodes every operation of a body; any malformed byte is `Corrupt`.
pub fn decode(body: &[u8]) -> Result<Vec<Op>> {
    let mut r = Reader::new(body);
    let mut ops = Vec::new();
    while !r.is_empty() {
        ops.push(decode_op(&mut r)?);
    }
    Ok(ops)
}

fn decode_op(r: &mut Reader) -> Result<Op> {
    Ok(match r.u8()? {
        RESET => Op::Reset,
        PUT_MEMORY => Op::PutMemory(r.json("memory")?, r.vector()?),
        DELETE_MEMORY => Op::DeleteMemory(r.str()?),
        PUT_RAW => Op::PutRaw(r.json("raw entry")?, r.vector()?),
        DELETE_RAW => Op::DeleteRaw(r.str()?),
        HISTORY => Op::History(r.json("history event")?),
        FORGET_HISTORY_TEXT => Op::ForgetHistoryText(r.str()?),
        EMBEDDER => Op::Embedder(EmbedderIdentity { model: r.str()?, dims: r.u32()? }),
        KEYWORD_TERMS => Op::KeywordTerms(keyword_terms(r)?),
        t => return Err(Error::corrupt(format!("unknown operation tag {t}"))),
    })
}

/// Decodes exactly one operation spanning all of `bytes` (see [`record_op_len`]).
pub fn decode_one(bytes: &[u8]) -> Result<Op> {
    let mut r = Reader::new(bytes);
    let op = decode_op(&mut r)?;
    if !r.is_empty() {
        return Err(Error::corrupt("an operation is longer than its fields"));
    }
    Ok(op)
}

/// The length of the record operation (put memory, put raw entry, history event, embedder) that
/// `bytes` starts with, or `None` while its bytes are not all there: a reader fed in slices decodes
/// each operation once it is whole, and holds no more than one of them. Any other operation is
/// `Corrupt` here (an export holds only records).
pub fn record_op_len(bytes: &[u8]) -> Result<Option<usize>> {
    let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let Some(&tag) = bytes.first() else { return Ok(None) };
    // Each field's end from the previous one's; lengths are untrusted, so sums are checked.
    let field = |at: usize| -> Result<Option<usize>> {
        match u32_at(at) {
            Some(n) => at.checked_add(4 + n).map(Some).ok_or_else(|| Error::corrupt("an operation's length overflows")),
            None => Ok(None),
        }
    };
    match tag {
        PUT_MEMORY | PUT_RAW => {
            let Some(at) = field(1)? else { return Ok(None) };
            match bytes.get(at) {
                None => Ok(None),
                Some(0) => Ok(Some(at + 1)),
                Some(1) => match u32_at(at + 1) {
                    None => Ok(None),
                    Some(n) => n
                        .checked_mul(4)
                        .and_then(|b| b.checked_add(at + 5))
                        .map(|end| (end <= bytes.len()).then_some(end))
                        .ok_or_else(|| Error::corrupt("a vector's length overflows")),
                },
                Some(t) => Err(Error::corrupt(format!("bad vector flag {t}"))),
            }
        }
        HISTORY => Ok(field(1)?.filter(|&end| end <= bytes.len())),
        EMBEDDER => Ok(field(1)?.map(|at| at + 4).filter(|&end| end <= bytes.len())),
        RESET | DELETE_MEMORY | DELETE_RAW | FORGET_HISTORY_TEXT | KEYWORD_TERMS => Err(Error::corrupt("an export file holds only records, not changes")),
        t => Err(Error::corrupt(format!("unknown operation tag {t}"))),
    }
}

/// Decodes a persisted keyword index, checking what an index needs to be safe to install: term
/// indexes inside the vocabulary, each once per record in increasing order, frequencies adding up to
/// the token count. Counts are untrusted: capacity never exceeds what the bytes left could hold.
fn keyword_terms(r: &mut Reader) -> Result<KeywordTerms> {
    let bad = |what: &str| Error::corrupt(format!("stored keyword index: {what}"));
    let target = match r.u8()? {
        0 => IndexTarget::Memories,
        1 => IndexTarget::Raw,
        t => return Err(bad(&format!("unknown target {t}"))),
    };
    let version = r.u32()?;
    let terms = r.u32()? as usize;
    let mut vocabulary = Vec::with_capacity(terms.min(r.remaining() / 4));
    for _ in 0..terms {
        vocabulary.push(r.str()?);
    }
    let count = r.u32()? as usize;
    let mut docs = Vec::with_capacity(count.min(r.remaining() / 8));
    for _ in 0..count {
        let len = r.u32()?;
        let n = r.u32()? as usize;
        let mut pairs = Vec::with_capacity(n.min(r.remaining() / 8));
        let mut sum = 0u64;
        for _ in 0..n {
            let (t, tf) = (r.u32()?, r.u32()?);
            if t as usize >= terms || pairs.last().is_some_and(|&(p, _)| p >= t) || tf == 0 {
                return Err(bad("a term is out of range, repeated or counted zero times"));
            }
            sum += u64::from(tf);
            pairs.push((t, tf));
        }
        if sum != u64::from(len) {
            return Err(bad("term frequencies do not add up to the token count"));
        }
        docs.push((pairs, len));
    }
    Ok(KeywordTerms { target, version, vocabulary, docs })
}
