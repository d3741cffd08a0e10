//! The guards on the engine's write paths (`add`, `update`, `ingest`, extraction through `add`):
//! text is scanned and, under the store's policies, redacted or rejected before it is validated,
//! deduplicated, embedded, indexed or logged; findings become the record's `flags`. `release` lets
//! a quarantined record back into context blocks.

use serde::Serialize;

use super::{Engram, MemoryPatch, NewMemory, SessionInput, VectorChange};
use crate::error::{Error, Result};
use crate::guard::Guarded;
use crate::model::{validate, TextField};
use crate::store::{EventKind, HistoryEvent};

/// What `release` did.
#[cfg_attr(test, derive(ts_rs::TS))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Released {
    pub id: String,
    /// `memory` or `raw`.
    #[cfg_attr(test, ts(type = "\"memory\" | \"raw\""))]
    pub target: &'static str,
    /// Whether it was quarantined (`false`: it already was not, and nothing changed).
    pub released: bool,
}

type Metadata = serde_json::Map<String, serde_json::Value>;

impl Engram {
    pub fn guards(&self) -> crate::guard::GuardOptions {
        self.guards
    }

    /// One text field other than the content; the kinds of secrets kept in it go to `kept`.
    fn guard_field(&self, s: String, allow: bool, what: &str, kept: &mut Vec<&'static str>) -> Result<String> {
        let (text, k) = self.guards.secrets_in(&s, allow, what)?;
        kept.extend(k);
        Ok(text)
    }

    fn guard_strings(&self, list: Vec<String>, allow: bool, what: &str, kept: &mut Vec<&'static str>) -> Result<Vec<String>> {
        list.into_iter().map(|t| self.guard_field(t, allow, what, kept)).collect()
    }

    fn guard_opt(&self, s: Option<String>, allow: bool, what: &str, kept: &mut Vec<&'static str>) -> Result<Option<String>> {
        s.map(|s| self.guard_field(s, allow, what, kept)).transpose()
    }

    /// String values anywhere in metadata.
    fn guard_metadata(&self, map: Metadata, allow: bool, kept: &mut Vec<&'static str>) -> Result<Metadata> {
        fn walk(g: &Engram, v: serde_json::Value, allow: bool, kept: &mut Vec<&'static str>) -> Result<serde_json::Value> {
            use serde_json::Value;
            Ok(match v {
                Value::String(s) => Value::String(g.guard_field(s, allow, "metadata", kept)?),
                Value::Array(a) => Value::Array(a.into_iter().map(|x| walk(g, x, allow, kept)).collect::<Result<_>>()?),
                Value::Object(o) => Value::Object(o.into_iter().map(|(k, x)| walk(g, x, allow, kept).map(|x| (k, x))).collect::<Result<_>>()?),
                other => other,
            })
        }
        map.into_iter().map(|(k, v)| walk(self, v, allow, kept).map(|v| (k, v))).collect()
    }

    /// Secrets kept (flag policy, allowSecrets) in fields other than the content are flagged too.
    fn flag_kept(flags: &mut Vec<String>, kept: Vec<&'static str>) {
        for k in kept {
            let f = format!("secret:{k}");
            if !flags.contains(&f) {
                flags.push(f);
            }
        }
    }

    /// A new memory's text fields under the guards; the content's findings are returned.
    pub(super) fn guard_new(&self, mut input: NewMemory) -> Result<(NewMemory, Guarded)> {
        let allow = input.allow_secrets;
        let mut guarded = self.guards.apply(&input.content, allow, "content")?;
        validate::content(&guarded.text)?;
        input.content = guarded.text.clone();
        let mut kept = Vec::new();
        input.tags = self.guard_strings(std::mem::take(&mut input.tags), allow, "a tag", &mut kept)?;
        input.metadata = input.metadata.map(|m| self.guard_metadata(m, allow, &mut kept)).transpose()?;
        for f in TextField::ALL {
            let field = input.evolving.text_mut(f);
            *field = self.guard_opt(field.take(), allow, f.name(), &mut kept)?;
        }
        Self::flag_kept(&mut guarded.flags, kept);
        Ok((input, guarded))
    }

    /// A patch's text fields under the guards; the new content's findings, if it has content.
    pub(super) fn guard_patch(&self, mut patch: MemoryPatch) -> Result<(MemoryPatch, Option<Guarded>)> {
        let allow = patch.allow_secrets;
        let guarded = match &patch.content {
            Some(c) => {
                let g = self.guards.apply(c, allow, "content")?;
                validate::content(&g.text)?;
                patch.content = Some(g.text.clone());
                Some(g)
            }
            None => None,
        };
        let mut kept = Vec::new();
        patch.tags = patch.tags.map(|t| self.guard_strings(t, allow, "a tag", &mut kept)).transpose()?;
        patch.metadata = patch.metadata.map(|m| self.guard_metadata(m, allow, &mut kept)).transpose()?;
        // The evolving text fields a patch sets are guarded as `add` guards them.
        for f in TextField::ALL {
            let field = patch.evolving.text_mut(f);
            // `None` (leave it) and `Some(None)` (clear it) carry no text.
            match field.take() {
                Some(Some(text)) => *field = Some(Some(self.guard_field(text, allow, f.name(), &mut kept)?)),
                other => *field = other,
            }
        }
        let guarded = guarded.map(|mut g| {
            Self::flag_kept(&mut g.flags, kept);
            g
        });
        Ok((patch, guarded))
    }

    /// Each turn's content under the guards (in place); the findings per turn. A rejection names the turn.
    pub(super) fn guard_turns(&self, session: &mut SessionInput) -> Result<Vec<Guarded>> {
        let allow = session.allow_secrets;
        let mut out = Vec::with_capacity(session.turns.len());
        for (i, t) in session.turns.iter_mut().enumerate() {
            let g = self.guards.apply(&t.content, allow, "the turn").map_err(|e| Error::invalid(format!("turn {i}: {}", e.message)))?;
            validate::raw_content(&g.text).map_err(|e| Error::invalid(format!("turn {i}: {}", e.message)))?;
            t.content = g.text.clone();
            out.push(g);
        }
        Ok(out)
    }

    /// An import under the store's guards, like every other write: the memories' and turns' text is
    /// redacted, rejected or flagged as `add` and `ingest` would, and the history's copies of that
    /// text are redacted too (an export from a store with weaker guards, or a crafted file, must not
    /// carry secrets or unflagged instructions in). Runs before the import changes anything.
    pub(super) fn guard_import(&self, state: &mut super::EngineState) -> Result<()> {
        let named = |what: &str, id: &str, e: Error| Error::invalid(format!("import: {what} `{}`: {}", crate::model::time::truncate(id, 40), e.message));
        for (m, _) in &mut state.memories {
            let id = m.id.clone();
            let mut g = self.guards.apply(&m.content, false, "content").map_err(|e| named("memory", &id, e))?;
            validate::content(&g.text).map_err(|e| named("memory", &id, e))?;
            let mut kept = Vec::new();
            m.tags = self.guard_strings(std::mem::take(&mut m.tags), false, "a tag", &mut kept).map_err(|e| named("memory", &id, e))?;
            m.metadata = self.guard_metadata(std::mem::take(&mut m.metadata), false, &mut kept).map_err(|e| named("memory", &id, e))?;
            for f in TextField::ALL {
                let field = m.evolving_text_mut(f);
                *field = self.guard_opt(field.take(), false, f.name(), &mut kept).map_err(|e| named("memory", &id, e))?;
            }
            Self::flag_kept(&mut g.flags, kept);
            m.content = g.text;
            for f in g.flags {
                if !m.flags.contains(&f) {
                    m.flags.push(f);
                }
            }
            m.quarantined |= g.quarantine;
        }
        for (e, _) in &mut state.raw {
            let id = e.id.clone();
            let g = self.guards.apply(&e.content, false, "the turn").map_err(|err| named("turn", &id, err))?;
            validate::raw_content(&g.text).map_err(|err| named("turn", &id, err))?;
            e.content = g.text;
            for f in g.flags {
                if !e.flags.contains(&f) {
                    e.flags.push(f);
                }
            }
            e.quarantined |= g.quarantine;
        }
        for h in &mut state.history {
            let id = h.memory_id.clone();
            let mut kept = Vec::new();
            h.content = self.guard_opt(h.content.take(), false, "history text", &mut kept).map_err(|e| named("history of", &id, e))?;
            h.previous_content = self.guard_opt(h.previous_content.take(), false, "history text", &mut kept).map_err(|e| named("history of", &id, e))?;
        }
        Ok(())
    }

    /// Lets a quarantined memory or raw turn back into context blocks. Its flags stay.
    pub fn release(&mut self, id: &str) -> Result<Released> {
        if let Some(slot) = self.tables.table().slot_of(id) {
            let mut m = self.tables.table().get(slot).expect("slot is live").clone();
            if !m.quarantined {
                return Ok(Released { id: id.to_string(), target: "memory", released: false });
            }
            m.quarantined = false;
            m.modified_at = self.now();
            self.note_memory(&m.id);
            self.log(HistoryEvent {
                memory_id: m.id.clone(),
                event: EventKind::Update,
                at: m.modified_at,
                content: Some(m.content.clone()),
                previous_content: None,
                prompt_id: None,
                related: None,
                reason: None,
            });
            self.tables.put_memory(m, VectorChange::Keep);
            return Ok(Released { id: id.to_string(), target: "memory", released: true });
        }
        match self.tables.raw().by_id(id).map(|e| e.quarantined) {
            None => Err(Error::not_found(format!("no memory or raw entry with id {}", crate::model::time::truncate(id, 40)))),
            Some(false) => Ok(Released { id: id.to_string(), target: "raw", released: false }),
            Some(true) => {
                self.note_raw(id);
                self.tables.release_raw(id);
                Ok(Released { id: id.to_string(), target: "raw", released: true })
            }
        }
    }
}
