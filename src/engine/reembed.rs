//! Re-embedding: every memory and raw turn gets a fresh vector from the attached embedder, when a
//! store moves to another model. Everything is embedded (and checked) before anything changes, so an
//! embedder failure leaves the store as it was; the new vectors are journaled like any write.

use super::{Engram, VectorTarget};
use crate::error::{Error, Result};
use crate::index::DocId;
use crate::model::validate;

const BATCH: usize = 32;

impl Engram {
    /// Replaces every vector with the embedder's; returns how many were made. Refused when the store
    /// holds vectors of another length (those must be dropped first: the old space is meaningless to
    /// the new model).
    pub fn reembed(&mut self) -> Result<usize> {
        let e = self.embedder.as_deref().ok_or_else(|| Error::embedder("no embedder attached to re-embed with"))?;
        for d in [self.tables.vectors().dims(), self.tables.raw_vectors().dims()].into_iter().flatten() {
            if d != e.dims() {
                return Err(Error::embedder(format!("the store holds {d}-dimensional vectors; embedder `{}` makes {}", e.id(), e.dims())));
            }
        }
        let memories: Vec<(DocId, String, String)> = self.tables.table().iter().map(|(s, m)| (s, m.id.clone(), m.content.clone())).collect();
        let raw: Vec<(DocId, String, String)> = self.tables.raw().iter().map(|(s, r)| (s, r.id.clone(), r.indexed_text())).collect();
        let embed_all = |items: &[(DocId, String, String)]| -> Result<Vec<Vec<f32>>> {
            let mut out = Vec::with_capacity(items.len());
            for chunk in items.chunks(BATCH) {
                let texts: Vec<&str> = chunk.iter().map(|(_, _, t)| t.as_str()).collect();
                let vs = e.embed(&texts)?;
                if vs.len() != chunk.len() {
                    return Err(Error::embedder("embedder returned the wrong number of vectors"));
                }
                for v in vs {
                    out.push(validate::embedding(&v, Some(e.dims())).map_err(|x| Error::embedder(format!("embedder output rejected: {}", x.message)))?);
                }
            }
            Ok(out)
        };
        let memory_vectors = embed_all(&memories)?;
        let raw_vectors = embed_all(&raw)?;
        let made = memory_vectors.len() + raw_vectors.len();
        for ((slot, id, _), v) in memories.into_iter().zip(memory_vectors) {
            self.note_memory(&id);
            self.tables.vector_index_mut(VectorTarget::Memories).insert(slot, v);
        }
        for ((slot, id, _), v) in raw.into_iter().zip(raw_vectors) {
            self.note_raw(&id);
            self.tables.vector_index_mut(VectorTarget::Raw).insert(slot, v);
        }
        Ok(made)
    }
}
