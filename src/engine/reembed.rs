//! Re-embedding: every memory and raw turn gets a fresh vector from the attached embedder, when a
//! store moves to another model. Planned, then embedded batch by batch ([`Reembed::step`], so a host
//! can report progress and stop between batches), then applied at once: everything is embedded (and
//! checked) before anything changes, so an embedder failure or a stop leaves the store as it was;
//! the new vectors are journaled like any write.

use std::collections::HashMap;

use super::{Engram, VectorTarget};
use crate::error::{Error, Result};
use crate::host::Embedder;
use crate::index::DocId;
use crate::model::validate;

/// Texts per embedder call, and per step.
pub const REEMBED_BATCH: usize = 32;

/// A re-embedding under way: what to embed, and the vectors made so far.
pub struct Reembed {
    /// (which index, id, text), memories first.
    items: Vec<(VectorTarget, String, String)>,
    vectors: Vec<Vec<f32>>,
}

impl Reembed {
    /// Records embedded so far, and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.vectors.len(), self.items.len())
    }

    pub fn is_done(&self) -> bool {
        self.vectors.len() == self.items.len()
    }

    /// Embeds the next batch with `engine`'s embedder; returns whether any remain.
    pub fn step(&mut self, engine: &Engram) -> Result<bool> {
        let e = engine.embedder.as_deref().ok_or_else(|| Error::embedder("no embedder attached to re-embed with"))?;
        let from = self.vectors.len();
        let batch = &self.items[from..(from + REEMBED_BATCH).min(self.items.len())];
        if batch.is_empty() {
            return Ok(false);
        }
        let texts: Vec<&str> = batch.iter().map(|(_, _, t)| t.as_str()).collect();
        self.vectors.extend(embed_checked(e, &texts)?);
        Ok(!self.is_done())
    }
}

/// One embedder call, its output checked.
fn embed_checked(e: &dyn Embedder, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
    let vs = e.embed(texts)?;
    if vs.len() != texts.len() {
        return Err(Error::embedder("embedder returned the wrong number of vectors"));
    }
    vs.iter().map(|v| validate::embedding(v, Some(e.dims())).map_err(|x| Error::embedder(format!("embedder output rejected: {}", x.message)))).collect()
}

impl Engram {
    /// Plans replacing every vector with the embedder's. Refused when the store holds vectors of
    /// another length (those must be dropped first: the old space is meaningless to the new model).
    pub fn plan_reembed(&self) -> Result<Reembed> {
        let e = self.embedder.as_deref().ok_or_else(|| Error::embedder("no embedder attached to re-embed with"))?;
        for d in [self.tables.vectors().dims(), self.tables.raw_vectors().dims()].into_iter().flatten() {
            if d != e.dims() {
                return Err(Error::embedder(format!("the store holds {d}-dimensional vectors; embedder `{}` makes {}", e.id(), e.dims())));
            }
        }
        let memories = self.tables.table().iter().map(|(_, m)| (VectorTarget::Memories, m.id.clone(), m.content.clone()));
        let raw = self.tables.raw().iter().map(|(_, r)| (VectorTarget::Raw, r.id.clone(), r.indexed_text()));
        let items: Vec<_> = memories.chain(raw).collect();
        Ok(Reembed { vectors: Vec::with_capacity(items.len()), items })
    }

    /// Puts a finished re-embedding's vectors in place; returns how many. Records written since the
    /// plan (a commit that lost its race runs again after another writer's chunks) are embedded
    /// now; records gone since are skipped. Refused while batches remain.
    pub fn apply_reembed(&mut self, job: &Reembed) -> Result<usize> {
        if !job.is_done() {
            let (done, total) = job.progress();
            return Err(Error::invalid(format!("re-embedding not finished: {done} of {total} records embedded")));
        }
        let staged: HashMap<(VectorTarget, &str), (&str, &Vec<f32>)> =
            job.items.iter().zip(&job.vectors).map(|((t, id, text), v)| ((*t, id.as_str()), (text.as_str(), v))).collect();
        let now = self.plan_reembed()?;
        let mut vectors: Vec<Vec<f32>> = Vec::with_capacity(now.items.len());
        let mut missing: Vec<usize> = Vec::new();
        for (i, (target, id, text)) in now.items.iter().enumerate() {
            match staged.get(&(*target, id.as_str())) {
                Some((t, v)) if *t == text => vectors.push((*v).clone()),
                _ => {
                    missing.push(i);
                    vectors.push(Vec::new());
                }
            }
        }
        if !missing.is_empty() {
            let e = self.embedder.as_deref().ok_or_else(|| Error::embedder("no embedder attached to re-embed with"))?;
            for chunk in missing.chunks(REEMBED_BATCH) {
                let texts: Vec<&str> = chunk.iter().map(|&i| now.items[i].2.as_str()).collect();
                for (&i, v) in chunk.iter().zip(embed_checked(e, &texts)?) {
                    vectors[i] = v;
                }
            }
        }
        let made = vectors.len();
        for ((target, id, _), v) in now.items.into_iter().zip(vectors) {
            let slot: Option<DocId> = match target {
                VectorTarget::Memories => {
                    self.note_memory(&id);
                    self.tables.table().slot_of(&id)
                }
                VectorTarget::Raw => {
                    self.note_raw(&id);
                    self.tables.raw().slot_of(&id)
                }
            };
            if let Some(slot) = slot {
                self.tables.vector_index_mut(target).insert(slot, v);
            }
        }
        Ok(made)
    }

    /// Replaces every vector with the embedder's in one go; returns how many were made.
    pub fn reembed(&mut self) -> Result<usize> {
        let mut job = self.plan_reembed()?;
        while job.step(self)? {}
        self.apply_reembed(&job)
    }
}
