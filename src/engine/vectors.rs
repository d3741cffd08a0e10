//! Vector index builds at the engine level. The engine has two vector indexes — memories and raw
//! turns — and builds for either go through the same three steps, so a host can put the slow middle
//! one anywhere: [`Engram::plan_vector_build`] (cheap, here) → [`BuildInput::build`] (seconds to
//! minutes; a worker, a thread, another instance) → [`Engram::install_vector_build`] (cheap, here).
//! Queries keep being answered from the current tiers the whole time. Segments are persisted with
//! their points' record ids, since slots are renumbered when a store is opened again.

use super::Engram;
use crate::error::{Error, Result};
use crate::index::vector::{BuildInput, BuildOutput, BuiltGraph, Installed};
use crate::index::{DocId, VectorStats};

/// Which of the engine's vector indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VectorTarget {
    Memories,
    Raw,
}

impl VectorTarget {
    pub const ALL: [VectorTarget; 2] = [VectorTarget::Memories, VectorTarget::Raw];

    pub fn as_str(self) -> &'static str {
        match self {
            VectorTarget::Memories => "memories",
            VectorTarget::Raw => "raw",
        }
    }

    pub fn parse(s: &str) -> Option<VectorTarget> {
        VectorTarget::ALL.into_iter().find(|t| t.as_str() == s)
    }

    fn label(self) -> u8 {
        self as u8
    }

    fn of_label(label: u8) -> Result<VectorTarget> {
        VectorTarget::ALL.into_iter().find(|t| t.label() == label).ok_or_else(|| Error::invalid(format!("vector build for unknown index {label}")))
    }
}

impl Engram {
    pub fn vector_stats(&self, target: VectorTarget) -> VectorStats {
        self.tables.vector_index(target).stats()
    }

    /// Whether either index has a build worth doing without being asked (see
    /// [`VectorIndex::needs_rebuild`]).
    pub fn needs_vector_build(&self) -> bool {
        VectorTarget::ALL.into_iter().any(|t| self.tables.vector_index(t).needs_rebuild())
    }

    /// The next build worth doing, memories first; `force` builds whatever the exact tier holds (an
    /// explicit reindex). `None` when there is nothing to build.
    pub fn plan_vector_build(&mut self, force: bool) -> Option<BuildInput> {
        for target in VectorTarget::ALL {
            if let Some(mut input) = self.tables.vector_index_mut(target).plan_build(force) {
                input.label = target.label();
                return Some(input);
            }
        }
        None
    }

    /// Installs a build's output into the index it was planned for.
    pub fn install_vector_build(&mut self, output: BuildOutput) -> Result<(VectorTarget, Installed)> {
        let target = VectorTarget::of_label(output.label)?;
        let installed = self.tables.vector_index_mut(target).install(output)?;
        Ok((target, installed))
    }

    /// The installed segments of one index as (id, graph).
    pub(crate) fn vector_segments(&self, target: VectorTarget) -> Vec<(u64, &BuiltGraph)> {
        self.tables.vector_index(target).segments().collect()
    }

    /// The record id of each point of a segment (empty for a point whose slot holds nothing now), so
    /// the segment can be matched to records when the store is opened again.
    pub(crate) fn vector_segment_ids(&self, target: VectorTarget, graph: &BuiltGraph) -> Vec<String> {
        graph
            .point_docs()
            .iter()
            .map(|&slot| match target {
                VectorTarget::Memories => self.tables.table().get(slot).map(|m| m.id.clone()),
                VectorTarget::Raw => self.tables.raw().get(slot).map(|e| e.id.clone()),
            })
            .map(Option::unwrap_or_default)
            .collect()
    }

    /// Installs a persisted segment whose points are given by record id: each point serves the
    /// record of that id if the record's vector still has exactly the point's code.
    pub(crate) fn install_vector_segment(&mut self, target: VectorTarget, id: u64, ids: &[String], graph: BuiltGraph) -> Result<Installed> {
        let docs: Vec<DocId> = ids
            .iter()
            .map(|rid| match target {
                VectorTarget::Memories => self.tables.table().slot_of(rid),
                VectorTarget::Raw => self.tables.raw().slot_of(rid),
            })
            .map(|s| s.unwrap_or(DocId::MAX))
            .collect();
        let graph = graph.with_docs(docs)?;
        self.tables.vector_index_mut(target).install_segment(id, graph)
    }
}
