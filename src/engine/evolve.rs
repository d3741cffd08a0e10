//! Evolving memory on the engine: `recall` (one search read by the shape of its hits), `thread`
//! (a slot's dated trail) and `gather` (everything of an area), each derived on read over the
//! namespace's memories dated at or before `at` (see `crate::evolve`).

use std::collections::HashSet;

use serde::Serialize;

use super::context::check_budget;
use super::visibility::{Namespaces, Visible};
use super::{Engram, Hit, HitTarget};
use crate::error::Result;
use crate::evolve::fields::label;
use crate::evolve::recall::{answer_leaks, gather_area, read};
use crate::evolve::{Answer, Derivation, Recall, State};
use crate::index::DocId;
use crate::model::time::Millis;
use crate::model::{validate, Memory};
use crate::recall::SearchRequest;

/// A thread as `thread(label)` returns it.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "ThreadResult"))]
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadView {
    pub thread: String,
    /// The slot now; `None` when nothing (dated at or before `at`) is on the thread.
    pub state: Option<Answer>,
    /// Oldest first; withdrawn values appear once as `deleted`, the values withheld.
    pub values: Vec<Answer>,
}

/// An area as `gather(area)` returns it: one answer per slot, oldest first.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "GatherResult"))]
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GatherView {
    pub area: String,
    pub answers: Vec<Answer>,
}

impl Engram {
    /// Slots of the memories a later value on their thread superseded or a retraction withdrew, among
    /// those `visible`: plain search and context blocks leave them out (what is current
    /// ranks alone); `get`, `history`, `recall`'s trails and `includeSuperseded` still show them.
    pub(super) fn replaced_slots(&self, visible: &Visible) -> HashSet<DocId> {
        let in_scope = |m: &Memory| m.thread.is_some() && visible.sees(&m.namespace);
        let threaded: Vec<&Memory> = self.tables.table().threaded().map(|(_, m)| m).filter(|m| in_scope(m)).collect();
        if threaded.is_empty() {
            return HashSet::new();
        }
        let d = Derivation::new(threaded.iter().copied(), None);
        threaded
            .iter()
            .filter(|m| d.answer_for(m).is_some_and(|a| matches!(a.state, State::Superseded | State::Deleted)))
            .filter_map(|m| self.tables.table().slot_of(&m.id))
            .collect()
    }

    /// The memories a derivation reads: those visible (as search sees them), quarantined left out.
    pub(super) fn evolving_scope<'a>(&self, within: impl Into<Namespaces<'a>>) -> Result<Vec<&Memory>> {
        let visible = self.visible(within)?;
        Ok(self.tables.table().iter().map(|(_, m)| m).filter(|m| visible.sees(&m.namespace) && !m.quarantined).collect())
    }

    /// One hybrid search for `query`, routed by the shape of its hits (or the route the query
    /// declares), answered with derived states and rendered as a `<memory>` block within
    /// `max_tokens`. With `at`, only memories and turns dated at or before it count. A read: nothing
    /// is touched.
    pub fn recall<'a>(&mut self, query: &str, namespace: impl Into<Namespaces<'a>>, max_tokens: usize, at: Option<Millis>) -> Result<Recall> {
        self.recall_by(query, None, namespace, max_tokens, at)
    }

    /// `recall` with the query's vector from a host embedder (the engine's own embedder makes one
    /// when none is given).
    pub fn recall_by<'a>(&mut self, query: &str, embedding: Option<Vec<f32>>, namespace: impl Into<Namespaces<'a>>, max_tokens: usize, at: Option<Millis>) -> Result<Recall> {
        let within = namespace.into();
        check_budget(max_tokens)?;
        if let Some(at) = at {
            validate::timestamp(at, "at")?;
        }
        let req = SearchRequest {
            query: Some(query.to_string()),
            embedding,
            namespace: within.namespace.map(str::to_string),
            include_default: within.include_default,
            limit: Some(30),
            dry_run: true,
            // The read needs each turn's own vector match (`matches_itself`).
            explain: true,
            include_superseded: true,
            ..Default::default()
        };
        // The turns nearest the query by meaning alone (a set's members, a value in other words,
        // rarely share its words) come from the same search's vector pass, however far; turns after
        // `at` are dropped after it, which the pool (4 × the limit) leaves room for.
        let (hits, nearest) = self.search_with_nearest_turns(&req)?;
        let (hits, nearest) = (readable(hits, at), readable(nearest, at));
        let scope = self.evolving_scope(within)?;
        let d = Derivation::new(scope, at);
        Ok(read(query, &hits, &nearest, &d, max_tokens))
    }

    /// The derived trail of one thread.
    pub fn thread<'a>(&self, thread: &str, namespace: impl Into<Namespaces<'a>>, at: Option<Millis>) -> Result<ThreadView> {
        let thread = label(thread, "thread")?;
        if let Some(at) = at {
            validate::timestamp(at, "at")?;
        }
        let d = Derivation::new(self.evolving_scope(namespace)?, at);
        Ok(match d.trail(&thread) {
            Some(t) => ThreadView { thread, state: t.head.clone(), values: t.values.clone() },
            None => ThreadView { thread, state: None, values: Vec::new() },
        })
    }

    /// Every slot of one area, each in its derived state.
    pub fn gather<'a>(&self, area: &str, namespace: impl Into<Namespaces<'a>>, at: Option<Millis>) -> Result<GatherView> {
        let area = label(area, "area")?;
        if let Some(at) = at {
            validate::timestamp(at, "at")?;
        }
        let d = Derivation::new(self.evolving_scope(namespace)?, at);
        let withheld = d.withheld();
        let answers = gather_area(&area, &d).into_iter().map(|(a, _)| a).filter(|a| !answer_leaks(a, &withheld)).collect();
        Ok(GatherView { area, answers })
    }
}

/// The hits a recall may read: quarantined records stay out of every context block until
/// released, and with `at` only what was dated at or before it counts.
fn readable(mut hits: Vec<Hit>, at: Option<Millis>) -> Vec<Hit> {
    hits.retain(|h| match &h.target {
        HitTarget::Memory(m) => !m.quarantined && at.is_none_or(|at| m.event_time() <= at),
        HitTarget::Raw(r) => !r.quarantined && at.is_none_or(|at| r.event_time() <= at),
    });
    hits
}
