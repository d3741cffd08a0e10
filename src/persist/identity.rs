//! Which embedder made a store's vectors. Recorded with the data so a store is never searched with
//! vectors of another model (same length, different space: silently wrong results).

use crate::host::Embedder;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbedderIdentity {
    /// The embedder's stable id (model name + weights hash).
    pub model: String,
    pub dims: u32,
}

impl EmbedderIdentity {
    pub fn of(e: &dyn Embedder) -> Self {
        EmbedderIdentity { model: e.id().to_string(), dims: e.dims() as u32 }
    }
}

impl std::fmt::Display for EmbedderIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` ({} dims)", self.model, self.dims)
    }
}
