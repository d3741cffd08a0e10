//! Vectors from a host embedder, one that runs outside the core (the JS facade awaits it): what it
//! is shown, and vectors for memories the engine wrote without one. The facade's host-vectors
//! module asks here rather than composing texts itself, so a host embedder sees exactly what the
//! local embedder would: the text as the guards keep it, a turn as `speaker: content`.

use super::{Engram, VectorTarget};
use crate::error::Result;
use crate::model::{speaker_text, validate};

/// A text a host embedder is to embed.
#[derive(Clone, Debug, Default)]
pub struct ToEmbed {
    pub content: String,
    /// A turn's speaker (a memory has none).
    pub speaker: Option<String>,
    pub allow_secrets: bool,
}

/// A memory stored without a vector, with the text its vector is made from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vectorless {
    pub id: String,
    pub text: String,
}

impl Engram {
    /// For each item, the text a host embedder is shown: as this store's guards keep it (never the
    /// caller's text), a turn's with its speaker in front as the indexes read it; or the guards'
    /// refusal.
    pub fn embedding_texts(&self, items: &[ToEmbed]) -> Vec<Result<String>> {
        items
            .iter()
            .map(|item| {
                let kept = self.guards.apply(&item.content, item.allow_secrets, "content")?.text;
                Ok(speaker_text(item.speaker.as_deref(), &kept))
            })
            .collect()
    }

    /// Up to `max` memories with no vector, oldest slot first: those a job stored (extraction,
    /// authoring, consolidation write their own texts) while a host embedder was attached, and those
    /// stored before one was.
    pub fn vectorless(&self, max: usize) -> Vec<Vectorless> {
        let vectors = self.tables.vectors();
        self.tables.table().iter().filter(|(slot, _)| vectors.get(*slot).is_none()).take(max).map(|(_, m)| Vectorless { id: m.id.clone(), text: m.content.clone() }).collect()
    }

    /// Installs vectors for memories `vectorless` listed: each one only while the memory still has
    /// that text and no vector (a memory changed or deleted meanwhile is left alone). Every vector
    /// is checked before any is installed, all against one length (the store's, else the first
    /// vector's), so vectors of mixed lengths never reach the index. Returns how many were installed.
    pub fn set_vectors(&mut self, items: Vec<(Vectorless, Vec<f32>)>) -> Result<usize> {
        let dims = self.expected_dims().or_else(|| items.first().map(|(_, v)| v.len()));
        let mut checked = Vec::with_capacity(items.len());
        for (target, v) in items {
            checked.push((target, validate::embedding(&v, dims)?));
        }
        let mut installed = 0;
        for (target, v) in checked {
            let Some(slot) = self.tables.table().slot_of(&target.id) else { continue };
            let unchanged = self.tables.table().get(slot).is_some_and(|m| m.content == target.text);
            if !unchanged || self.tables.vectors().get(slot).is_some() {
                continue;
            }
            self.note_memory(&target.id);
            self.tables.vector_index_mut(VectorTarget::Memories).insert(slot, v);
            installed += 1;
        }
        Ok(installed)
    }
}
