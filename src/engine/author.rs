//! Authoring on the engine: a session's new turns → typed, dated memories, and retraction.
//!
//! - `author_offline`: the rules of `evolve::author` over the turns not yet authored, given the
//!   namespace's known threads; each memory goes through `add_by` (journaled, history naming the rule
//!   set `author-rules@1`), the turns are marked `authoredBy`.
//! - `plan_author` / `apply_author` / `author_with`: the same through the host LLM with the
//!   `author@3` prompt, plan → calls → apply exactly like extraction (see `engine/extract.rs`).
//! - `retract`: a thread's values leave every place Engram keeps text (below). An authored
//!   retraction runs it too.
//!
//! Retraction is provenance-complete. The memories stating the thread's values are **deleted**, not
//! redacted: a redacted memory would keep nothing but its thread label, which the retraction memory
//! already records with its date, and deletion reuses the path that takes a memory's text out of its
//! history. Other memories that repeat a value (a dependent value's `dependsOn`, a summary) and the
//! raw turns that state it are **redacted in place**: the value is replaced by `[retracted]`, their
//! postings re-indexed, their vectors re-embedded (or dropped without an embedder), and the history
//! text of every memory that carried it forgotten. Everything is a normal put/remove step, so it is
//! journaled, persisted as ordinary operations and replayed the same way by other writers; exports
//! and snapshots taken afterwards are built from the redacted records.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{resolve_namespace, Engram, Evolving, SkippedStep, VectorChange};
use crate::error::{Error, Result};
use crate::evolve::author::{self as rules, Authored, KnownThread, PastTurn, Turn};
use crate::index::DocId;
use crate::llm::{CallRecord, LlmUsage};
use crate::model::time::{truncate, Millis};
use crate::model::{RawEntry, Shape, TextField};
use crate::store::{EventKind, HistoryEvent};
use crate::NewMemory;

/// The rule set's version, named in history and in `authoredBy` (bump when the rules change).
pub const RULES_ID: &str = "author-rules@1";
/// How many earlier user turns the offline author resolves requests to forget against: enough for
/// a long conversation, bounded so authoring stays flat as a store grows.
pub const PAST_TURNS: usize = 400;
/// What replaces a retracted value in kept text.
pub const REDACTED: &str = "[retracted]";
/// Values shorter than this are not scrubbed from other text (they would hit unrelated words);
/// the memories stating them are still deleted. The report lists them.
pub const SCRUB_MIN_CHARS: usize = 3;

/// What one retraction removed.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Retracted {
    pub namespace: String,
    pub thread: String,
    /// Memories that stated the thread's values, deleted.
    pub deleted: Vec<String>,
    /// Other memories whose text repeated a value, redacted.
    pub redacted_memories: Vec<String>,
    /// Raw turns whose text stated a value, redacted in place.
    pub redacted_turns: Vec<String>,
    /// Values too short to scrub from other text safely (their memories were still deleted).
    pub unscrubbed: usize,
}

/// What an authoring run did.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorReport {
    pub session_id: String,
    /// `author-rules@1` (offline) or `author@3` (LLM).
    pub author: String,
    /// Ids of the memories stored.
    pub added: Vec<String>,
    /// Ids of existing memories the run repeated (reinforced, not stored twice).
    pub reinforced: Vec<String>,
    pub retracted: Vec<Retracted>,
    /// Turns now marked as authored.
    pub authored_turns: Vec<String>,
    /// Of those, the turns the offline rules authored as the fallback of failed LLM calls.
    pub offline_turns: Vec<String>,
    pub skipped: Vec<SkippedStep>,
    /// Turns not yet authored after this run.
    pub pending_turns: Vec<String>,
    pub calls: Vec<CallRecord>,
    pub usage: LlmUsage,
}

impl AuthorReport {
    pub(super) fn empty(session_id: &str, author: &str) -> AuthorReport {
        AuthorReport {
            session_id: session_id.to_string(),
            author: author.to_string(),
            added: Vec::new(),
            reinforced: Vec::new(),
            retracted: Vec::new(),
            authored_turns: Vec::new(),
            offline_turns: Vec::new(),
            skipped: Vec::new(),
            pending_turns: Vec::new(),
            calls: Vec::new(),
            usage: LlmUsage::default(),
        }
    }
}

/// Where a retraction stops in raw text: turns after the one that asked are left alone.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cutoff<'a> {
    pub session_id: &'a str,
    pub turn_index: u32,
    pub at: Millis,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

/// `text` with every whole-word, case-insensitive occurrence of `values` replaced; `None` when
/// nothing matched.
pub fn redact(text: &str, values: &[String]) -> Option<String> {
    let mut out = text.to_string();
    let mut changed = false;
    // Longest first, so "Acme Mutual" goes before "Acme".
    let mut vs: Vec<&String> = values.iter().filter(|v| v.chars().count() >= SCRUB_MIN_CHARS).collect();
    vs.sort_by_key(|v| std::cmp::Reverse(v.len()));
    for v in vs {
        let needle = v.to_ascii_lowercase();
        let mut from = 0;
        loop {
            let lower = out.to_ascii_lowercase();
            let Some(rel) = lower.get(from..).and_then(|s| s.find(&needle)) else { break };
            let at = from + rel;
            let end = at + needle.len();
            let b = lower.as_bytes();
            let bounded = (at == 0 || !is_word_byte(b[at - 1]) || !is_word_byte(needle.as_bytes()[0]))
                && (end >= b.len() || !is_word_byte(b[end]) || !is_word_byte(needle.as_bytes()[needle.len() - 1]));
            if bounded {
                out.replace_range(at..end, REDACTED);
                changed = true;
                from = at + REDACTED.len();
            } else {
                from = at + 1;
                while from < out.len() && !out.is_char_boundary(from) {
                    from += 1;
                }
            }
        }
    }
    changed.then_some(out)
}

/// The forms of a value scrubbed from text: the value, and the distinctive first word of a
/// multi-word name ("Acme" of "Acme Mutual"), which people repeat alone.
fn scrub_forms(values: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        let v = v.trim();
        if v.is_empty() {
            continue;
        }
        out.push(v.to_string());
        let ws: Vec<&str> = v.split_whitespace().collect();
        if ws.len() > 1 && ws[0].chars().next().is_some_and(char::is_uppercase) && ws[0].chars().count() >= 4 {
            out.push(ws[0].trim_end_matches([',', '.']).to_string());
        }
    }
    out.sort();
    out.dedup();
    out
}

impl Engram {
    /// The namespace's threads with their values oldest → newest (a retraction empties a thread).
    pub(crate) fn known_threads(&self, namespace: &str) -> Vec<KnownThread> {
        let mut on: Vec<(Millis, Millis, &crate::model::Memory)> =
            self.tables.table().iter().filter(|(_, m)| m.namespace == namespace && m.thread.is_some()).map(|(_, m)| (m.event_time(), m.created_at, m)).collect();
        on.sort_by_key(|a| (a.0, a.1));
        let mut out: Vec<KnownThread> = Vec::new();
        for (i, (_, _, m)) in on.into_iter().enumerate() {
            let thread = m.thread.clone().unwrap_or_default();
            let k = match out.iter_mut().position(|k| k.thread == thread) {
                Some(p) => &mut out[p],
                None => {
                    out.push(KnownThread { thread, values: Vec::new(), order: 0, dependent: false });
                    out.last_mut().expect("just pushed")
                }
            };
            k.order = i;
            k.record(m.shape == Some(Shape::Retraction), m.corrects.as_deref(), m.value.as_deref());
            k.dependent = m.depends_on.is_some();
        }
        out
    }

    /// The turns of a session not yet authored, in order. `NotFound` without such a session.
    fn unauthored_turns(&self, session_id: &str) -> Result<Vec<&RawEntry>> {
        let slots = self.tables.raw().session_slots(session_id);
        if slots.is_empty() {
            return Err(Error::not_found(format!("no session {}", truncate(session_id, 40))));
        }
        Ok(slots.into_iter().filter_map(|s| self.tables.raw().get(s)).filter(|e| e.authored_by.is_none()).collect())
    }

    /// Authors a session's turns not yet authored with the offline rules (no LLM).
    pub fn author_offline(&mut self, session_id: &str) -> Result<AuthorReport> {
        let turns: Vec<RawEntry> = self.unauthored_turns(session_id)?.into_iter().cloned().collect();
        let mut report = AuthorReport::empty(session_id, RULES_ID);
        self.author_by_rules(session_id, turns, &mut report)?;
        Ok(report)
    }

    /// The offline rules over `turns` (of `session_id`, in order), given the namespace's threads and
    /// its earlier user turns; what they author is stored and the turns marked as authored.
    pub(super) fn author_by_rules(&mut self, session_id: &str, turns: Vec<RawEntry>, report: &mut AuthorReport) -> Result<()> {
        let Some(namespace) = self.tables.raw().session_namespace(session_id).map(str::to_string) else { return Ok(()) };
        let known = self.known_threads(&namespace);
        let first = turns.iter().map(|e| (e.event_time(), e.turn_index)).min();
        let past = self.past_user_turns(&namespace, session_id, first);
        let history: Vec<PastTurn> = past.iter().map(|(id, text, date)| PastTurn { id: id.clone(), text, date: Some(*date) }).collect();
        let views: Vec<Turn> = turns.iter().map(|e| Turn { id: &e.id, role: &e.role, speaker: e.speaker.as_deref(), date: e.date, text: &e.content }).collect();
        let authored = rules::author_in(&views, &known, &history);
        self.apply_authored(&namespace, authored, RULES_ID, report)?;
        for e in &turns {
            self.note_raw(&e.id);
            self.tables.mark_raw_authored(&e.id, RULES_ID);
        }
        report.authored_turns.extend(turns.into_iter().map(|e| e.id));
        Ok(())
    }

    /// The namespace's user turns written before `session_id`'s turns (at most the newest
    /// `PAST_TURNS`, oldest first): what a request to forget may point back at. Turns of the
    /// session itself that come before are included; retracted text is already redacted in them.
    fn past_user_turns(&self, namespace: &str, session_id: &str, before: Option<(Millis, u32)>) -> Vec<(String, String, Millis)> {
        let mut past: Vec<(Millis, u32, &RawEntry)> = self
            .tables
            .raw()
            .iter()
            .map(|(_, e)| e)
            .filter(|e| e.namespace == namespace && e.role.eq_ignore_ascii_case("user"))
            .filter(|e| match before {
                Some((at, index)) => e.event_time() < at || (e.session_id == session_id && e.turn_index < index),
                None => e.session_id != session_id,
            })
            .map(|e| (e.event_time(), e.turn_index, e))
            .collect();
        past.sort_by_key(|(at, i, _)| (*at, *i));
        let skip = past.len().saturating_sub(PAST_TURNS);
        past.into_iter().skip(skip).map(|(at, _, e)| (e.id.clone(), e.content.clone(), at)).collect()
    }

    /// Stores authored memories in order: a retraction first scrubs its thread, then is stored.
    pub(super) fn apply_authored(&mut self, namespace: &str, authored: Vec<Authored>, by: &str, report: &mut AuthorReport) -> Result<()> {
        for a in authored {
            if let Err(e) = check_authored(&a) {
                report.skipped.push(SkippedStep { turns: a.derived_from.clone(), outcome: None, reason: e.message });
                continue;
            }
            let mut content = a.content.clone();
            if a.shape == Shape::Retraction {
                let Some(thread) = a.thread.clone() else { continue };
                let turn = a.derived_from.first().and_then(|id| self.tables.raw().by_id(id)).map(|e| (e.session_id.clone(), e.turn_index, e.event_time()));
                let cutoff = turn.as_ref().map(|(s, i, at)| Cutoff { session_id: s, turn_index: *i, at: *at });
                let (done, forms) = self.retract_in(namespace, &thread, &a.forget, cutoff)?;
                // The retraction's own words never carry what it removed.
                if let Some(r) = redact(&content, &forms) {
                    content = r;
                }
                report.retracted.push(done);
            }
            let input = NewMemory {
                content,
                namespace: Some(namespace.to_string()),
                source: Some("author".into()),
                event_at: a.event_at,
                derived_from: a.derived_from.clone(),
                evolving: Evolving {
                    shape: Some(a.shape),
                    thread: a.thread.clone(),
                    value: a.value.clone(),
                    corrects: a.corrects.clone(),
                    depends_on: a.depends_on.clone(),
                    consequent: a.consequent.clone(),
                    area: a.area.clone(),
                    signature: a.signature.clone(),
                    pin: None,
                    confidence: Some(a.confidence),
                },
                ..NewMemory::default()
            };
            // A secret the host kept in a source turn (`allowSecrets` on ingest: flagged, not
            // redacted) stays kept in what is authored from it, flagged in turn.
            let kept_secret = a.derived_from.iter().filter_map(|id| self.tables.raw().by_id(id)).any(|r| r.flags.iter().any(|f| f.starts_with("secret:")));
            let input = NewMemory { allow_secrets: kept_secret, ..input };
            let turns = a.derived_from.clone();
            let added = match self.add_by(input, Some(by)) {
                Ok(added) => added,
                // One memory the store refuses (over a limit) is skipped, not the whole run.
                Err(e) if e.code == crate::error::ErrorCode::InvalidInput => {
                    report.skipped.push(SkippedStep { turns, outcome: None, reason: e.message });
                    continue;
                }
                Err(e) => return Err(e),
            };
            let list = if added.deduplicated { &mut report.reinforced } else { &mut report.added };
            if !list.contains(&added.memory.id) {
                list.push(added.memory.id);
            }
        }
        Ok(())
    }

    /// Retracts a thread: its values leave every memory, raw turn, index and history text of the
    /// namespace (see the module doc). Returns what was removed; `NotFound` when the namespace has
    /// no memory on that thread.
    pub fn retract(&mut self, thread: &str, namespace: Option<&str>) -> Result<Retracted> {
        let namespace = resolve_namespace(namespace)?;
        if !rules::is_normalized(thread) {
            return Err(Error::invalid(format!("thread `{}` is not a normalized label (lowercase a-z0-9 words joined by `-`, `/` between parts)", truncate(thread, 60))));
        }
        if !self.tables.table().iter().any(|(_, m)| m.namespace == namespace && m.thread.as_deref() == Some(thread)) {
            return Err(Error::not_found(format!("no memory on thread `{}` in namespace `{namespace}`", truncate(thread, 60))));
        }
        self.retract_in(&namespace, thread, &[], None).map(|(done, _)| done)
    }

    /// The work of a retraction. `extra` are values named beside the request; `cutoff` leaves later
    /// turns alone (a value restated after the request is a new statement).
    /// Also returns the forms scrubbed (never stored or reported: they are what was retracted).
    pub(super) fn retract_in(&mut self, namespace: &str, thread: &str, extra: &[String], cutoff: Option<Cutoff>) -> Result<(Retracted, Vec<String>)> {
        let now = self.now();
        let mut done = Retracted { namespace: namespace.to_string(), thread: thread.to_string(), ..Retracted::default() };
        let on_thread: Vec<DocId> = self
            .tables
            .table()
            .iter()
            .filter(|(_, m)| m.namespace == namespace && m.shape != Some(Shape::Retraction))
            // A memory whose value is one of those to forget states it wherever it was placed: it
            // goes with the thread's own, rather than staying as a `[retracted]` value.
            .filter(|(_, m)| {
                m.thread.as_deref() == Some(thread)
                    || m.value.as_deref().is_some_and(|v| extra.iter().any(|x| x.trim().chars().count() >= SCRUB_MIN_CHARS && x.trim().eq_ignore_ascii_case(v.trim())))
            })
            .map(|(s, _)| s)
            .collect();
        let mut values: Vec<String> = extra.to_vec();
        for &s in &on_thread {
            if let Some(m) = self.tables.table().get(s) {
                values.extend(TextField::ALL.into_iter().filter_map(|f| m.evolving_text(f)).map(str::to_string));
            }
        }
        done.unscrubbed = values.iter().filter(|v| v.trim().chars().count() < SCRUB_MIN_CHARS).count();
        let forms = scrub_forms(&values);
        for s in on_thread {
            if let Some(id) = self.tables.table().get(s).map(|m| m.id.clone()) {
                self.remove_slot(s, now);
                done.deleted.push(id);
            }
        }
        if forms.iter().all(|f| f.chars().count() < SCRUB_MIN_CHARS) {
            return Ok((done, forms));
        }
        // Other memories that repeat a value.
        let slots: Vec<DocId> = self.tables.table().iter().filter(|(_, m)| m.namespace == namespace).map(|(s, _)| s).collect();
        for s in slots {
            let Some(m) = self.tables.table().get(s).cloned() else { continue };
            let mut r = m.clone();
            let mut changed = false;
            let mut fix = |t: &mut String| {
                if let Some(x) = redact(t, &forms) {
                    *t = x;
                    changed = true;
                }
            };
            fix(&mut r.content);
            for t in r.tags.iter_mut() {
                fix(t);
            }
            for f in TextField::ALL {
                if let Some(t) = r.evolving_text_mut(f) {
                    fix(t);
                }
            }
            if let Some(d) = r.depends_on.as_mut().and_then(|d| d.value.as_mut()) {
                fix(d);
            }
            if !changed {
                continue;
            }
            r.modified_at = now;
            let vector = match self.vector_for(None, &r.content) {
                Ok(Some(v)) => VectorChange::Set(v),
                _ => VectorChange::Clear,
            };
            self.note_memory(&r.id);
            // The event stays without text: persistence forgets a memory's history text after
            // writing the call's events, so text logged here would not survive a replay anyway.
            self.log(HistoryEvent {
                memory_id: r.id.clone(),
                event: EventKind::Update,
                at: now,
                content: None,
                previous_content: None,
                related: None,
                reason: None,
                prompt_id: Some(REDACTION_ID.into()),
            });
            self.forget_history_text(&r.id);
            done.redacted_memories.push(r.id.clone());
            self.tables.put_memory(r, vector);
        }
        // History text of any other memory that carried a value (deleted earlier, or updated away).
        let mut carriers: BTreeSet<String> = BTreeSet::new();
        for h in self.tables.history().events() {
            let texts = [h.content.as_deref(), h.previous_content.as_deref()];
            if texts.into_iter().flatten().any(|t| redact(t, &forms).is_some()) {
                carriers.insert(h.memory_id.clone());
            }
        }
        for id in carriers {
            let live = self.tables.table().by_id(&id).is_some_and(|m| m.namespace == namespace);
            let gone = self.tables.table().by_id(&id).is_none();
            if live || gone {
                self.forget_history_text(&id);
            }
        }
        // Raw turns that state a value, redacted in place.
        let turns: Vec<RawEntry> = self
            .tables
            .raw()
            .iter()
            .filter(|(_, e)| e.namespace == namespace)
            .filter(|(_, e)| match cutoff {
                Some(c) if e.session_id == c.session_id => e.turn_index <= c.turn_index,
                Some(c) => e.event_time() <= c.at,
                None => true,
            })
            .map(|(_, e)| e.clone())
            .collect();
        let mut sessions: BTreeSet<String> = BTreeSet::new();
        for mut e in turns {
            let content = redact(&e.content, &forms);
            let speaker = e.speaker.as_deref().and_then(|s| redact(s, &forms));
            if content.is_none() && speaker.is_none() {
                continue;
            }
            if let Some(c) = content {
                e.content = c;
            }
            if speaker.is_some() {
                e.speaker = speaker;
            }
            let vector = self.raw_vector_for(&e.indexed_text());
            self.note_raw(&e.id);
            sessions.insert(e.session_id.clone());
            done.redacted_turns.push(e.id.clone());
            self.tables.put_raw(e, vector);
        }
        self.tables.index_sessions(sessions);
        Ok((done, forms))
    }

    /// A raw turn's vector for new text: the embedder's, or none (the old one would hold the value).
    fn raw_vector_for(&self, text: &str) -> Option<Vec<f32>> {
        let e = self.embedder.as_deref()?;
        let dims = self.tables.raw_vectors().dims().or_else(|| self.expected_dims());
        let mut out = e.embed(&[text]).ok()?;
        let v = out.pop().filter(|_| out.is_empty())?;
        crate::model::validate::embedding(&v, dims).ok()
    }
}

/// The history `promptId` of a redaction (no prompt: the retraction rule).
pub const REDACTION_ID: &str = "retraction";

/// What the engine checks of an authored memory before storing it (rules or LLM alike).
pub(super) fn check_authored(a: &Authored) -> Result<()> {
    let bad = |what: &str| Err(Error::invalid(format!("authored memory: {what}")));
    if let Some(t) = &a.thread {
        if !rules::is_normalized(t) {
            return bad("thread is not a normalized label");
        }
    }
    if let Some(d) = &a.depends_on {
        if !rules::is_normalized(&d.thread) {
            return bad("dependsOn.thread is not a normalized label");
        }
    }
    if a.area.is_empty() || a.area.len() > 3 || a.area.iter().any(|x| !rules::is_normalized(x)) {
        return bad("area needs 1-3 normalized labels");
    }
    if !(0.0..=1.0).contains(&a.confidence) {
        return bad("confidence must be 0..1");
    }
    if a.shape == Shape::Retraction && a.value.is_some() {
        return bad("a retraction carries no value");
    }
    if a.derived_from.is_empty() {
        return bad("an authored memory cites its turns");
    }
    Ok(())
}
