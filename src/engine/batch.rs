//! Writes of many items in one call (`add_many`, `ingest_many`): every item checked before anything
//! is written (a bad item fails the whole call, naming its index), the embedder asked once for the
//! batch, and the items applied in order exactly as one call each would apply them — so the results
//! are those of sequential calls, duplicates within the batch included. All or nothing, and under a
//! persistence driver one journal, hence one stored chunk, for the whole batch.

use super::{Added, Engram, Ingested, NewMemory, SessionInput};
use crate::error::{Error, Result};
use crate::guard::Guarded;
use crate::model::validate;
use std::collections::HashSet;

/// Most items one `add_many` or `ingest_many` call takes (one stored chunk holds them all).
pub const BATCH_MAX: usize = 10_000;

/// A new memory's input after every check that needs no other memory of its batch.
impl CheckedAdd {
    /// Whether a stored memory with the same words is this same fact: a repeat is reinforced, but
    /// the same sentence on another thread, with another value or about another date is a new
    /// memory (an evolving value stated again later is an event of its own on the thread's trail).
    pub fn same_fact(&self, m: &crate::model::Memory) -> bool {
        let ev = &self.evolving;
        m.thread == ev.thread && m.value == ev.value && m.shape == ev.shape && (self.input.event_at.is_none() || m.event_at == self.input.event_at)
    }

    /// What identifies an item's fact within one batch (see [`CheckedAdd::same_fact`]).
    fn fact_key(&self) -> (&str, String, Option<&str>, Option<&str>, Option<crate::model::time::Millis>) {
        (self.namespace.as_str(), crate::store::dedup::normalize(&self.input.content), self.evolving.thread.as_deref(), self.evolving.value.as_deref(), self.input.event_at)
    }
}

pub(super) struct CheckedAdd {
    /// The input as the guards left it.
    pub input: NewMemory,
    pub guarded: Guarded,
    pub namespace: String,
    pub tags: Vec<String>,
    pub importance: f64,
    pub derived_from: Vec<String>,
    pub evolving: super::Evolving,
}

/// `e` with the item it is about named first; the code stays.
fn at_item(what: &str, i: usize, e: Error) -> Error {
    Error::new(e.code, format!("{what}[{i}]: {}", e.message))
}

fn check_batch_len(len: usize, what: &str) -> Result<()> {
    if len > BATCH_MAX {
        return Err(Error::invalid(format!("{what}: {len} items; the limit is {BATCH_MAX} per call")));
    }
    Ok(())
}

impl Engram {
    /// `add` for each item, in order, as one write: one result per item as `add` returns it.
    pub fn add_many(&mut self, inputs: Vec<NewMemory>) -> Result<Vec<Added>> {
        check_batch_len(inputs.len(), "items")?;
        let mut dims = self.expected_dims();
        let mut checked = Vec::with_capacity(inputs.len());
        for (i, input) in inputs.into_iter().enumerate() {
            let c = self.check_add(input, dims).map_err(|e| at_item("items", i, e))?;
            dims = dims.or_else(|| c.input.embedding.as_ref().map(Vec::len));
            checked.push(c);
        }
        let mut vectors = self.embed_new(&checked, dims)?;
        self.all_or_nothing(|e| {
            let mut out = Vec::with_capacity(checked.len());
            for (i, c) in checked.into_iter().enumerate() {
                if let Some(dup) = e.apply_duplicate(&c, None) {
                    out.push(dup);
                    continue;
                }
                let vector = match c.input.embedding.clone() {
                    Some(v) => Some(validate::embedding(&v, e.expected_dims()).map_err(|x| at_item("items", i, x))?),
                    None => vectors[i].take(),
                };
                out.push(e.apply_add(c, vector, None).map_err(|x| at_item("items", i, x))?);
            }
            Ok(out)
        })
    }

    /// The embedder's vectors for the items that will be stored as new memories without a vector of
    /// their own (not duplicates of a stored memory or of an earlier item), in one call.
    fn embed_new(&self, checked: &[CheckedAdd], dims: Option<usize>) -> Result<Vec<Option<Vec<f32>>>> {
        let mut out: Vec<Option<Vec<f32>>> = vec![None; checked.len()];
        let Some(embedder) = self.embedder.as_deref() else { return Ok(out) };
        let mut seen = HashSet::new();
        let mut wanted: Vec<usize> = Vec::new();
        for (i, c) in checked.iter().enumerate() {
            let first = seen.insert(c.fact_key());
            if first && c.input.embedding.is_none() && self.tables.table().find_duplicate_where(&c.namespace, &c.input.content, |m| c.same_fact(m)).is_none() {
                wanted.push(i);
            }
        }
        if wanted.is_empty() {
            return Ok(out);
        }
        let texts: Vec<&str> = wanted.iter().map(|&i| checked[i].input.content.as_str()).collect();
        let vectors = embedder.embed(&texts)?;
        if vectors.len() != texts.len() {
            return Err(Error::embedder(format!("embedder returned {} vectors for {} texts", vectors.len(), texts.len())));
        }
        for (&i, v) in wanted.iter().zip(vectors) {
            let v = validate::embedding(&v, dims).map_err(|e| Error::embedder(format!("embedder output rejected for items[{i}]: {}", e.message)))?;
            out[i] = Some(v);
        }
        Ok(out)
    }

    /// `ingest` for each session, in order, as one write: one report per session.
    pub fn ingest_many(&mut self, sessions: Vec<SessionInput>) -> Result<Vec<Ingested>> {
        check_batch_len(sessions.len(), "sessions")?;
        self.all_or_nothing(|e| sessions.into_iter().enumerate().map(|(i, s)| e.ingest(s).map_err(|x| at_item("sessions", i, x))).collect())
    }

    /// Runs `f`; if it fails, undoes whatever it changed. Under a persistence driver the driver's
    /// journal already does that (and the failed call writes nothing); otherwise a private one.
    fn all_or_nothing<T>(&mut self, f: impl FnOnce(&mut Engram) -> Result<T>) -> Result<T> {
        if self.journal.is_some() {
            return f(self);
        }
        self.record_changes(true);
        let out = f(self);
        let changes = self.take_changes();
        self.record_changes(false);
        if out.is_err() {
            self.undo(changes);
        }
        out
    }
}
