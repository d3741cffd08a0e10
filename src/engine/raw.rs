//! The raw tier on the engine: ingesting sessions verbatim, reading them back, deleting them with
//! everything derived from them.

use serde::Serialize;

use super::{resolve_namespace, Engram};
use crate::error::{Error, ErrorCode, Result};
use crate::index::DocId;
use crate::model::time::Millis;
use crate::model::{speaker_text, validate, RawEntry};
use crate::store::{EventKind, HistoryEvent};

/// One turn as the caller gives it.
#[derive(Clone, Debug, Default)]
pub struct TurnInput {
    pub role: String,
    pub content: String,
    pub speaker: Option<String>,
    pub id: Option<String>,
    /// Caller-supplied vector; otherwise the engine's embedder (if any) makes one.
    pub embedding: Option<Vec<f32>>,
}

/// A conversation session to keep verbatim.
#[derive(Clone, Debug, Default)]
pub struct SessionInput {
    pub id: String,
    pub namespace: Option<String>,
    pub date: Option<Millis>,
    pub turns: Vec<TurnInput>,
    /// Keep secrets in the turns even where the store's guards would redact or reject them.
    pub allow_secrets: bool,
}

/// What `ingest` did. Re-ingesting a session is idempotent per turn index: unchanged turns are left
/// alone, changed ones replaced, new ones added.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "IngestResult"))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ingested {
    pub session_id: String,
    pub added: usize,
    pub replaced: usize,
    pub unchanged: usize,
    /// Raw entry ids, in turn order.
    pub entry_ids: Vec<String>,
}

/// What `delete_session` removed.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeletedSession {
    pub entries: usize,
    /// Memories derived only from this session, deleted with it.
    pub memories: usize,
}

fn same_turn(e: &RawEntry, t: &TurnInput, date: Option<Millis>) -> bool {
    e.content == t.content && same_turn_but_content(e, t, date)
}

fn same_turn_but_content(e: &RawEntry, t: &TurnInput, date: Option<Millis>) -> bool {
    e.role == t.role && e.speaker == t.speaker && e.turn_id == t.id && e.date == date
}

impl Engram {
    /// Turn indices an `ingest` of `session` would leave as they are stored, each with its vector
    /// there already: what a host embedder need not embed again (a chat re-ingested whole as it grows
    /// would otherwise have every earlier turn embedded on every call). Reads only, and a hint: the
    /// ingest checks everything again. A session of another namespace answers none.
    pub fn unchanged_turns(&self, session: SessionInput) -> Vec<u32> {
        let Ok(namespace) = resolve_namespace(session.namespace.as_deref()) else { return Vec::new() };
        let raw = self.tables.raw();
        if raw.session_namespace(&session.id).is_none_or(|ns| ns != namespace) {
            return Vec::new();
        }
        (0..session.turns.len())
            .filter_map(|i| {
                let slot = raw.turn(&session.id, i as u32)?;
                self.tables.raw_vectors().get(slot)?;
                let (stored, turn) = (raw.get(slot)?, &session.turns[i]);
                if !same_turn_but_content(stored, turn, session.date) {
                    return None;
                }
                // Stored turns hold the guards' text: only a turn whose text differs as sent (one the
                // guards redacted, or a changed one) pays for a guard pass to compare.
                let same = stored.content == turn.content || self.guards.apply(&turn.content, session.allow_secrets, "the turn").is_ok_and(|g| stored.content == g.text);
                same.then_some(i as u32)
            })
            .collect()
    }

    /// Keeps a conversation verbatim: each turn becomes a raw entry `<session>#<index>`, searchable
    /// with `scope: raw | all`, that memories can cite in `derivedFrom`.
    pub fn ingest(&mut self, mut session: SessionInput) -> Result<Ingested> {
        validate::label(&session.id, "session id", validate::SESSION_ID_MAX_CHARS)?;
        let namespace = resolve_namespace(session.namespace.as_deref())?;
        if let Some(ns) = self.tables.raw().session_namespace(&session.id) {
            if ns != namespace {
                return Err(Error::invalid(format!("session `{}` belongs to namespace `{ns}`", crate::model::time::truncate(&session.id, 40))));
            }
        }
        if session.turns.is_empty() || session.turns.len() > validate::SESSION_TURNS_MAX {
            return Err(Error::invalid(format!("a session needs 1..{} turns, got {}", validate::SESSION_TURNS_MAX, session.turns.len())));
        }
        let text_bytes: usize =
            session.turns.iter().map(|t| t.role.len() + t.content.len() + t.speaker.as_ref().map_or(0, String::len) + t.id.as_ref().map_or(0, String::len)).sum();
        validate::ingest_bytes(text_bytes)?;
        for (i, t) in session.turns.iter().enumerate() {
            validate::turn(&t.role, &t.content, t.speaker.as_deref(), t.id.as_deref()).map_err(|e| Error::invalid(format!("turn {i}: {}", e.message)))?;
        }
        // Turns are compared, embedded and stored as the guards leave them.
        let mut guarded = self.guard_turns(&mut session)?;
        // Vectors for the turns that change, computed (and checked) before anything is written.
        let changed: Vec<usize> = (0..session.turns.len())
            .filter(|&i| {
                let existing = self.tables.raw().turn(&session.id, i as u32).and_then(|s| self.tables.raw().get(s));
                !existing.is_some_and(|e| same_turn(e, &session.turns[i], session.date))
            })
            .collect();
        let dims = self.tables.raw_vectors().dims().or_else(|| self.expected_dims());
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; session.turns.len()];
        let mut to_embed: Vec<usize> = Vec::new();
        for &i in &changed {
            match &session.turns[i].embedding {
                Some(v) => vectors[i] = Some(validate::embedding(v, dims).map_err(|e| Error::invalid(format!("turn {i}: {}", e.message)))?),
                None if self.embedder.is_some() => to_embed.push(i),
                None => {}
            }
        }
        if let Some(embedder) = self.embedder.as_deref() {
            for chunk in to_embed.chunks(32) {
                let texts: Vec<String> = chunk.iter().map(|&i| speaker_text(session.turns[i].speaker.as_deref(), &session.turns[i].content)).collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let out: Vec<Option<Vec<f32>>> = match embedder.embed(&refs) {
                    Ok(out) => out.into_iter().map(Some).collect(),
                    // A verbatim turn is kept even when it has nothing the model can read (only
                    // control or zero-width characters): it is stored without a vector, findable by
                    // keyword only. Other embedder failures fail the call.
                    Err(e) if e.code == ErrorCode::InvalidInput => refs
                        .iter()
                        .map(|t| match embedder.embed(&[t]) {
                            Ok(mut v) if v.len() == 1 => Ok(v.pop()),
                            Ok(_) => Err(Error::embedder("embedder returned the wrong number of vectors")),
                            Err(e) if e.code == ErrorCode::InvalidInput => Ok(None),
                            Err(e) => Err(e),
                        })
                        .collect::<Result<_>>()?,
                    Err(e) => return Err(e),
                };
                if out.len() != chunk.len() {
                    return Err(Error::embedder("embedder returned the wrong number of vectors"));
                }
                for (&i, v) in chunk.iter().zip(out) {
                    if let Some(v) = v {
                        vectors[i] = Some(validate::embedding(&v, dims).map_err(|e| Error::embedder(format!("embedder output rejected: {}", e.message)))?);
                    }
                }
            }
        }

        let now = self.now();
        let mut result = Ingested { session_id: session.id.clone(), ..Default::default() };
        for (i, t) in session.turns.into_iter().enumerate() {
            let index = i as u32;
            let id = RawEntry::make_id(&session.id, index);
            result.entry_ids.push(id.clone());
            if changed.binary_search(&i).is_err() {
                result.unchanged += 1;
                continue;
            }
            let entry = RawEntry {
                id,
                namespace: namespace.clone(),
                session_id: session.id.clone(),
                turn_index: index,
                role: t.role,
                speaker: t.speaker,
                turn_id: t.id,
                content: t.content,
                date: session.date,
                created_at: now,
                extracted_by: None,
                authored_by: None,
                flags: std::mem::take(&mut guarded[i].flags),
                quarantined: guarded[i].quarantine,
            };
            self.note_raw(&entry.id);
            if self.tables.put_raw(entry, vectors[i].take()) {
                result.replaced += 1;
            } else {
                result.added += 1;
            }
        }
        if result.added + result.replaced > 0 {
            self.tables.index_sessions([&session.id]);
        }
        Ok(result)
    }

    /// The turns of a session, in order.
    pub fn session(&self, session_id: &str) -> Result<Vec<RawEntry>> {
        let slots = self.tables.raw().session_slots(session_id);
        if slots.is_empty() {
            return Err(Error::not_found(format!("no session {}", crate::model::time::truncate(session_id, 40))));
        }
        Ok(slots.into_iter().filter_map(|s| self.tables.raw().get(s).cloned()).collect())
    }

    /// Session ids of a namespace, sorted.
    pub fn sessions(&self, namespace: Option<&str>) -> Result<Vec<String>> {
        Ok(self.tables.raw().sessions_in(&resolve_namespace(namespace)?))
    }

    /// Removes a session's raw entries and the memories derived only from them; memories that also
    /// cite other raw entries keep those citations.
    pub fn delete_session(&mut self, session_id: &str) -> Result<DeletedSession> {
        if self.tables.raw().session_namespace(session_id).is_none() {
            return Err(Error::not_found(format!("no session {}", crate::model::time::truncate(session_id, 40))));
        }
        for slot in self.tables.raw().session_slots(session_id) {
            if let Some(id) = self.tables.raw().get(slot).map(|e| e.id.clone()) {
                self.note_raw(&id);
            }
        }
        let removed = self.tables.remove_session(session_id);
        let gone: std::collections::HashSet<&str> = removed.iter().map(|e| e.id.as_str()).collect();
        let now = self.now();
        let affected: Vec<DocId> = self.tables.table().iter().filter(|(_, m)| m.derived_from.iter().any(|d| gone.contains(d.as_str()))).map(|(s, _)| s).collect();
        let mut deleted = 0;
        for slot in affected {
            let Some(m) = self.tables.table().get(slot) else { continue };
            let remaining: Vec<String> = m.derived_from.iter().filter(|d| !gone.contains(d.as_str())).cloned().collect();
            if remaining.is_empty() {
                self.remove_slot(slot, now);
                deleted += 1;
            } else {
                let mut m = m.clone();
                m.derived_from = remaining;
                m.modified_at = now;
                self.note_memory(&m.id);
                self.log(HistoryEvent {
                    memory_id: m.id.clone(),
                    event: EventKind::Update,
                    at: now,
                    content: Some(m.content.clone()),
                    previous_content: None,
                    prompt_id: None,
                    related: None,
                    reason: None,
                });
                self.tables.put_memory(m, super::VectorChange::Keep);
            }
        }
        Ok(DeletedSession { entries: removed.len(), memories: deleted })
    }
}
