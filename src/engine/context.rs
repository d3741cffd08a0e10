//! Prompt context on the engine: `recall_context` (what is relevant to a query) and `resume` (what
//! a new session should start with), both under a token budget.

use std::collections::HashSet;

use super::visibility::Namespaces;
use super::{Engram, HitTarget};
use crate::error::{Error, Result};
use crate::evolve::recall::{asked_ids, contains_withheld, said_under_changed, ThreadFlags};
use crate::evolve::render::state_line;
use crate::evolve::{Derivation, State};
use crate::model::{Kind, Layer};
use crate::recall::context::{assemble_with, withhold_unasked_secrets, Context, ContextItem, ContextOptions, Section};
use crate::recall::score;
use crate::recall::SearchRequest;
use crate::store::dedup::normalize;

pub const MAX_CONTEXT_TOKENS: usize = crate::model::validate::CONTEXT_TOKENS_MAX;

pub(super) fn check_budget(max_tokens: usize) -> Result<()> {
    if max_tokens == 0 || max_tokens > MAX_CONTEXT_TOKENS {
        return Err(Error::invalid(format!("maxTokens must be 1..{MAX_CONTEXT_TOKENS}, got {max_tokens}")));
    }
    Ok(())
}

fn memory_section(kind: Kind) -> Section {
    match kind {
        Kind::Semantic => Section::Knowledge,
        Kind::Procedural => Section::Procedures,
        Kind::Episodic => Section::Events,
    }
}

impl Engram {
    /// The block to prepend to a prompt for `query`: the best memories and turns, by section,
    /// without repeated facts (same normalized text, or a turn a chosen memory already cites), never
    /// over `max_tokens`.
    pub fn recall_context<'a>(&mut self, query: &str, namespace: impl Into<Namespaces<'a>>, max_tokens: usize) -> Result<Context> {
        self.recall_context_with(query, namespace, max_tokens, ContextOptions::default())
    }

    /// `recall_context` with options for flagged entries. Quarantined records are never included.
    pub fn recall_context_with<'a>(&mut self, query: &str, namespace: impl Into<Namespaces<'a>>, max_tokens: usize, options: ContextOptions) -> Result<Context> {
        self.recall_context_by(query, None, namespace, max_tokens, options)
    }

    /// `recall_context_with` with the query's vector from a host embedder (the engine's own embedder
    /// makes one when none is given).
    pub fn recall_context_by<'a>(
        &mut self,
        query: &str,
        embedding: Option<Vec<f32>>,
        namespace: impl Into<Namespaces<'a>>,
        max_tokens: usize,
        options: ContextOptions,
    ) -> Result<Context> {
        let within = namespace.into();
        check_budget(max_tokens)?;
        let req = SearchRequest {
            query: Some(query.to_string()),
            embedding,
            namespace: within.namespace.map(str::to_string),
            include_default: within.include_default,
            limit: Some(50),
            ..Default::default()
        };
        let hits: Vec<_> = self.search(&req)?.into_iter().filter(|h| !quarantined(h)).collect();
        // One truth on every read: a memory on a thread is shown in the state `recall` derives for
        // that thread (an upstream change makes it uncertain or cascaded; a request to forget,
        // deleted), never as the plain fact it was when stated.
        let d = Derivation::new(self.evolving_scope(within)?, None);
        let withheld = d.withheld();
        let mut seen_threads: HashSet<String> = HashSet::new();
        let mut seen_text: HashSet<String> = HashSet::new();
        let cited: HashSet<String> = hits.iter().filter_map(|h| h.memory()).flat_map(|m| m.derived_from.iter().cloned()).collect();
        let mut items = Vec::new();
        // The best hit is what the query asks for: only its slot may show a kept secret.
        let asked = asked_ids(hits.first().map(|h| h.id()).as_slice(), query, &d);
        let flags = ThreadFlags::of(&d);
        for h in hits {
            if !seen_text.insert(normalize(h.content())) {
                continue;
            }
            items.push(match h.target {
                HitTarget::Memory(m) => {
                    let derived = match m.thread.as_deref().and_then(|t| d.trail(t)) {
                        Some(tr) => {
                            if !seen_threads.insert(tr.thread.clone()) {
                                continue;
                            }
                            // A current head that is this very memory reads as itself.
                            tr.head.as_ref().filter(|a| a.state != State::Current || !a.evidence.contains(&m.id)).map(state_line)
                        }
                        None => None,
                    };
                    match derived {
                        Some(text) => ContextItem { section: Section::State, date: None, flags: flags.shown(&m), id: m.id, text, speaker: None },
                        None => ContextItem {
                            section: memory_section(m.kind),
                            date: (m.kind == Kind::Episodic).then(|| m.event_time()),
                            id: m.id,
                            text: m.content,
                            speaker: None,
                            flags: m.flags,
                        },
                    }
                }
                HitTarget::Raw(r) => {
                    if cited.contains(&r.id) {
                        continue;
                    }
                    // A turn said under a value that has changed since reads as such, not as said.
                    match said_under_changed(&r, &d) {
                        Some(text) => ContextItem { section: Section::State, date: Some(r.event_time()), id: r.id, text, speaker: None, flags: r.flags },
                        None => ContextItem {
                            section: Section::Conversation,
                            date: Some(r.event_time()),
                            id: r.id,
                            text: r.content,
                            speaker: r.speaker.or(Some(r.role)),
                            flags: r.flags,
                        },
                    }
                }
            });
        }
        items.retain(|i| !contains_withheld(&i.text, &withheld));
        withhold_unasked_secrets(&mut items, &asked);
        Ok(assemble_with(items, max_tokens, options))
    }

    /// Session-start context: core memories (strongest first), then the most recently changed
    /// others, within `max_tokens`. Reads only; nothing is touched.
    pub fn resume<'a>(&self, namespace: impl Into<Namespaces<'a>>, max_tokens: usize) -> Result<Context> {
        self.resume_with(namespace, max_tokens, ContextOptions::default())
    }

    /// `resume` with options for flagged entries. Quarantined memories are never included.
    pub fn resume_with<'a>(&self, namespace: impl Into<Namespaces<'a>>, max_tokens: usize, options: ContextOptions) -> Result<Context> {
        check_budget(max_tokens)?;
        let within = self.visible(namespace)?;
        let visible = |m_ns: &str| within.sees(m_ns);
        let mut core: Vec<_> = self.tables.table().iter().map(|(_, m)| m).filter(|m| visible(&m.namespace) && m.layer == Layer::Core && !m.quarantined).collect();
        let weight = |m: &crate::model::Memory| score::Prior::of(m, self.current_importance(m)).weight();
        core.sort_by(|a, b| weight(b).total_cmp(&weight(a)).then(b.modified_at.cmp(&a.modified_at)));
        let mut recent: Vec<_> = self.tables.table().iter().map(|(_, m)| m).filter(|m| visible(&m.namespace) && m.layer != Layer::Core && !m.quarantined).collect();
        recent.sort_by(|a, b| b.modified_at.cmp(&a.modified_at).then(b.created_at.cmp(&a.created_at)));
        let mut items: Vec<ContextItem> = core
            .into_iter()
            .map(|m| (Section::Core, m))
            .chain(recent.into_iter().map(|m| (Section::Recent, m)))
            .map(|(section, m)| ContextItem { id: m.id.clone(), section, text: m.content.clone(), date: Some(m.event_time()), speaker: None, flags: m.flags.clone() })
            .collect();
        // No query asks for anything here: every kept secret is withheld.
        withhold_unasked_secrets(&mut items, &HashSet::new());
        Ok(assemble_with(items, max_tokens, options))
    }
}

fn quarantined(h: &super::Hit) -> bool {
    match &h.target {
        HitTarget::Memory(m) => m.quarantined,
        HitTarget::Raw(r) => r.quarantined,
    }
}
