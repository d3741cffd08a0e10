//! The JSON-shaped API that bindings share: parse caller objects into engine requests (strictly) and
//! render engine results as the objects callers see (camelCase, ISO-8601 timestamps).

mod batch;
mod evolve;
mod fields;
#[cfg(test)]
mod generated;
mod guards;
mod host_vectors;
mod jobs;
mod limits;
mod open;
pub mod view;

pub use batch::{parse_add_many, parse_sessions, split_vectors};
use serde::Serialize;
use serde_json::{json, Value};

pub use evolve::{parse_as_of, parse_recall, recall_view};
pub use fields::Fields;
pub use guards::{parse_context_options, CONTEXT_FIELDS};
pub use host_vectors::{parse_to_embed, parse_vectorless};
pub use jobs::{parse_call_results, parse_consolidate, parse_job_request};
pub use limits::{Limits, LIMITS};
pub use open::{parse_handle_options, parse_storage_options, HandleOptions, StorageOptions};

use crate::engine::{Added, Evolving, EvolvingPatch, Hit, HitTarget, Ingested, MemoryPatch, NewMemory, SessionInput, TurnInput};
use crate::error::{Error, Result};
use crate::model::evolve::FIELDS as EVOLVING_FIELDS;
use crate::model::{DependsOn, Kind, Layer, Memory, Pin, RawEntry, Shape};
use crate::recall::{Scope, SearchRequest};
use crate::store::HistoryEvent;

fn kind(f: &Fields, key: &str) -> Result<Option<Kind>> {
    f.str(key)?
        .map(|s| Kind::parse(s).ok_or_else(|| Error::invalid(format!("`{key}` must be one of semantic, episodic, procedural; got `{}`", crate::model::time::truncate(s, 40)))))
        .transpose()
}

/// Entries a `kinds` or `layers` filter may list: there are three of each, so more can only be
/// repeats, and every memory a search considers is checked against the list.
pub const FILTER_ENTRIES_MAX: usize = 8;

fn kinds_or_layers<T>(f: &Fields, key: &str, parse: fn(&str) -> Option<T>, names: &str) -> Result<Vec<T>> {
    let Some(list) = f.str_list(key)? else { return Ok(Vec::new()) };
    if list.len() > FILTER_ENTRIES_MAX {
        return Err(Error::invalid(format!("`{key}` has {} entries; the limit is {FILTER_ENTRIES_MAX}", list.len())));
    }
    list.iter().map(|s| parse(s).ok_or_else(|| Error::invalid(format!("`{key}` entries must be {names}; got `{}`", crate::model::time::truncate(s, 40))))).collect()
}

/// `add`'s own fields, then the evolving ones (`model::evolve::FIELDS`), then its switch.
pub const ADD_FIELDS: &[&str] = &with_evolving::<10, 21>(["content", "namespace", "kind", "importance", "tags", "source", "metadata", "embedding", "eventAt", "derivedFrom"]);

fn shape(f: &Fields, key: &str) -> Result<Option<Shape>> {
    f.str(key)?
        .map(|s| {
            Shape::parse(s).ok_or_else(|| {
                let names: Vec<&str> = Shape::ALL.iter().map(|k| k.as_str()).collect();
                Error::invalid(format!("`{key}` must be one of {}; got `{}`", names.join(", "), crate::model::time::truncate(s, 40)))
            })
        })
        .transpose()
}

fn pin(f: &Fields, key: &str) -> Result<Option<Pin>> {
    f.str(key)?
        .map(|s| Pin::parse(s).ok_or_else(|| Error::invalid(format!("`{key}` must be one of pinned, active, deprecated; got `{}`", crate::model::time::truncate(s, 40)))))
        .transpose()
}

/// `dependsOn: {thread, value?}`.
fn depends_on(f: &Fields) -> Result<Option<DependsOn>> {
    let Some(o) = f.object("dependsOn")? else { return Ok(None) };
    let v = Value::Object(o);
    let d = Fields::of(Some(&v), "dependsOn", &["thread", "value"])?.ok_or_else(|| Error::invalid("dependsOn: expected an object"))?;
    Ok(Some(DependsOn { thread: d.required_str("thread")?.to_string(), value: d.str("value")?.map(str::to_string) }))
}

/// The typed evolving-fact fields of `add` (checked and normalized by the engine).
fn evolving(f: &Fields) -> Result<Evolving> {
    Ok(Evolving {
        shape: shape(f, "shape")?,
        thread: f.str("thread")?.map(str::to_string),
        value: f.str("value")?.map(str::to_string),
        corrects: f.str("corrects")?.map(str::to_string),
        depends_on: depends_on(f)?,
        consequent: f.str("consequent")?.map(str::to_string),
        area: f.str_list("area")?.unwrap_or_default(),
        signature: f.str("signature")?.map(str::to_string),
        pin: pin(f, "pin")?,
        confidence: f.f64("confidence")?,
    })
}

/// The same fields in a patch: `null` clears one (`area: null` or `[]` empties it; `pin: null`
/// resets it to `active`).
fn evolving_patch(f: &Fields) -> Result<EvolvingPatch> {
    let text = |k: &str| -> Result<Option<Option<String>>> { Ok(if f.is_null(k) { Some(None) } else { f.str(k)?.map(|s| Some(s.to_string())) }) };
    Ok(EvolvingPatch {
        shape: if f.is_null("shape") { Some(None) } else { shape(f, "shape")?.map(Some) },
        thread: text("thread")?,
        value: text("value")?,
        corrects: text("corrects")?,
        depends_on: if f.is_null("dependsOn") { Some(None) } else { depends_on(f)?.map(Some) },
        consequent: text("consequent")?,
        area: if f.is_null("area") { Some(Vec::new()) } else { f.str_list("area")? },
        signature: text("signature")?,
        pin: if f.is_null("pin") { Some(Pin::Active) } else { pin(f, "pin")? },
        confidence: if f.is_null("confidence") { Some(None) } else { f.f64("confidence")?.map(Some) },
    })
}

/// `add({content, namespace?, kind?, importance?, tags?, source?, metadata?, embedding?, eventAt?})`.
pub fn parse_add(v: &Value) -> Result<NewMemory> {
    let f = Fields::of(Some(v), "add", ADD_FIELDS)?.ok_or_else(|| Error::invalid("add: expected an object with `content`"))?;
    Ok(NewMemory {
        content: f.required_str("content")?.to_string(),
        namespace: f.str("namespace")?.map(str::to_string),
        kind: kind(&f, "kind")?,
        importance: f.f64("importance")?,
        tags: f.str_list("tags")?.unwrap_or_default(),
        source: f.str("source")?.map(str::to_string),
        metadata: f.object("metadata")?,
        embedding: f.f32_list("embedding")?,
        event_at: f.date("eventAt")?,
        derived_from: f.str_list("derivedFrom")?.unwrap_or_default(),
        evolving: evolving(&f)?,
        allow_secrets: f.bool("allowSecrets")?.unwrap_or(false),
    })
}

pub const PATCH_FIELDS: &[&str] = &with_evolving::<8, 19>(["content", "kind", "importance", "tags", "source", "metadata", "embedding", "eventAt"]);

/// `own`, the evolving fields, and `allowSecrets`: one list of the keys a write takes, so a field
/// added to the evolving record is accepted by `add` and `update` without being named here.
/// (`M` is `N + FIELDS.len() + 1`, checked when the constant is built.)
const fn with_evolving<const N: usize, const M: usize>(own: [&'static str; N]) -> [&'static str; M] {
    assert!(M == N + EVOLVING_FIELDS.len() + 1, "with_evolving: M must be N + the evolving fields + allowSecrets");
    let mut out = [""; M];
    let mut i = 0;
    while i < N {
        out[i] = own[i];
        i += 1;
    }
    let mut j = 0;
    while j < EVOLVING_FIELDS.len() {
        out[N + j] = EVOLVING_FIELDS[j];
        j += 1;
    }
    out[M - 1] = "allowSecrets";
    out
}

/// `update(id, {content?, kind?, importance?, tags?, source?, metadata?, embedding?, eventAt?})`;
/// `source: null` / `eventAt: null` clear those fields.
pub fn parse_patch(v: &Value) -> Result<MemoryPatch> {
    let f = Fields::of(Some(v), "update", PATCH_FIELDS)?.ok_or_else(|| Error::invalid("update: expected an object of fields to change"))?;
    if !PATCH_FIELDS.iter().any(|k| f.has(k) && *k != "allowSecrets") {
        return Err(Error::invalid("update: the patch changes nothing"));
    }
    Ok(MemoryPatch {
        content: f.str("content")?.map(str::to_string),
        kind: kind(&f, "kind")?,
        importance: f.f64("importance")?,
        tags: f.str_list("tags")?,
        source: if f.is_null("source") { Some(None) } else { f.str("source")?.map(|s| Some(s.to_string())) },
        metadata: f.object("metadata")?,
        embedding: f.f32_list("embedding")?,
        event_at: if f.is_null("eventAt") { Some(None) } else { f.date("eventAt")?.map(Some) },
        evolving: evolving_patch(&f)?,
        allow_secrets: f.bool("allowSecrets")?.unwrap_or(false),
    })
}

pub const SEARCH_FIELDS: &[&str] =
    &["namespace", "includeDefault", "limit", "embedding", "kinds", "layers", "tags", "explain", "dryRun", "scope", "neighbors", "expandLinks", "includeSuperseded"];

/// `search(query | null, {namespace?, limit?, embedding?, kinds?, layers?, tags?, explain?, dryRun?, scope?, …})`.
/// Callers search memories unless they ask for turns (`scope: "raw" | "all"`): every hit then has
/// the one shape they index first (`hits[0].memory`), however the turns would have ranked.
pub fn parse_search(query: Option<&str>, options: Option<&Value>) -> Result<SearchRequest> {
    let mut req = SearchRequest { query: query.map(str::to_string), scope: Scope::Memories, ..SearchRequest::default() };
    if let Some(f) = Fields::of(options, "search options", SEARCH_FIELDS)? {
        req.namespace = f.str("namespace")?.map(str::to_string);
        req.include_default = f.bool("includeDefault")?;
        req.limit = f.usize("limit")?;
        req.embedding = f.f32_list("embedding")?;
        req.kinds = kinds_or_layers(&f, "kinds", Kind::parse, "semantic, episodic or procedural")?;
        req.layers = kinds_or_layers(&f, "layers", Layer::parse, "buffer, working or core")?;
        req.tags = f.str_list("tags")?.unwrap_or_default();
        req.explain = f.bool("explain")?.unwrap_or(false);
        req.dry_run = f.bool("dryRun")?.unwrap_or(false);
        if let Some(sc) = f.str("scope")? {
            req.scope = Scope::parse(sc).ok_or_else(|| Error::invalid(format!("`scope` must be memories, raw or all; got `{}`", crate::model::time::truncate(sc, 40))))?;
        }
        req.neighbors = u32::try_from(f.usize("neighbors")?.unwrap_or(0)).unwrap_or(u32::MAX);
        req.expand_links = f.bool("expandLinks")?.unwrap_or(false);
        req.include_superseded = f.bool("includeSuperseded")?.unwrap_or(false);
    }
    Ok(req)
}

/// `{namespace?, includeDefault?}` of a read: its namespace, and whether the shared `default` one is
/// seen with it (left out: as the store was opened).
pub(crate) fn namespaces(f: &Fields) -> Result<crate::engine::NamespaceChoice> {
    Ok(crate::engine::NamespaceChoice { namespace: f.str("namespace")?.map(str::to_string), include_default: f.bool("includeDefault")? })
}

/// `{namespace?, limit?, offset?}` for `getAll`; limit defaults to 100.
pub fn parse_page(v: Option<&Value>) -> Result<(Option<String>, usize, usize)> {
    match Fields::of(v, "getAll options", &["namespace", "limit", "offset"])? {
        None => Ok((None, 100, 0)),
        Some(f) => Ok((f.str("namespace")?.map(str::to_string), f.usize("limit")?.unwrap_or(100), f.usize("offset")?.unwrap_or(0))),
    }
}

/// `{namespace?}` for `deleteAll` and friends.
pub fn parse_namespace_only(v: Option<&Value>, what: &'static str) -> Result<Option<String>> {
    match Fields::of(v, what, &["namespace"])? {
        None => Ok(None),
        Some(f) => Ok(f.str("namespace")?.map(str::to_string)),
    }
}

/// A model record as callers see it (see [`view`]): derived from its serde form (the persisted one,
/// already in camelCase) so that a field added to the model reaches the view with no edit here (a
/// field meant for storage only would have to be removed here). Fields the model skips when empty (a
/// memory's `derivedFrom`, `links`) stay absent.
fn record_view<T: Serialize>(record: &T, shape: &view::Shape) -> Value {
    serde_json::to_value(view::View { record, shape, extra: &[] }).unwrap_or_else(|e| unreachable!("model records serialize to JSON objects: {e}"))
}

/// A memory as callers see it.
pub fn memory_view(m: &Memory) -> Value {
    record_view(m, &view::MEMORY)
}

/// Memories as callers see them, as the text of one JSON array (written directly: no tree).
pub fn memories_json<'a>(all: impl IntoIterator<Item = &'a Memory>) -> Result<String> {
    let list: Vec<_> = all.into_iter().map(|m| view::View { record: m, shape: &view::MEMORY, extra: &[] }).collect();
    json_text(&list)
}

/// A memory as callers see it, as JSON text.
pub fn memory_json(m: &Memory) -> Result<String> {
    json_text(&view::View { record: m, shape: &view::MEMORY, extra: &[] })
}

/// A raw entry (verbatim turn) as callers see it.
pub fn raw_view(e: &RawEntry) -> Value {
    record_view(e, &view::RAW)
}

pub const SESSION_FIELDS: &[&str] = &["id", "namespace", "date", "turns", "allowSecrets"];
pub const TURN_FIELDS: &[&str] = &["role", "content", "speaker", "id", "embedding"];

/// `ingest({id, namespace?, date?, turns: [{role, content, speaker?, id?, embedding?}]})`.
pub fn parse_session(v: &Value) -> Result<SessionInput> {
    let f = Fields::of(Some(v), "ingest", SESSION_FIELDS)?.ok_or_else(|| Error::invalid("ingest: expected a session object"))?;
    let turns = match v.get("turns") {
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let tf = Fields::of(Some(t), "ingest turn", TURN_FIELDS)?.ok_or_else(|| Error::invalid(format!("ingest: turn {i} is null")))?;
                Ok(TurnInput {
                    role: tf.required_str("role")?.to_string(),
                    content: tf.required_str("content")?.to_string(),
                    speaker: tf.str("speaker")?.map(str::to_string),
                    id: tf.str("id")?.map(str::to_string),
                    embedding: tf.f32_list("embedding")?,
                })
            })
            .collect::<Result<Vec<_>>>()?,
        _ => return Err(Error::invalid("ingest: `turns` must be an array of {role, content}")),
    };
    Ok(SessionInput {
        id: f.required_str("id")?.to_string(),
        namespace: f.str("namespace")?.map(str::to_string),
        date: f.date("date")?,
        turns,
        allow_secrets: f.bool("allowSecrets")?.unwrap_or(false),
    })
}

pub fn ingested_view(r: &Ingested) -> Value {
    serde_json::to_value(r).unwrap_or(Value::Null)
}

/// What `add` returns: the memory as callers see it, and whether it reinforced a stored one.
struct AddedView<'a>(&'a Added);

impl Serialize for AddedView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let extra = [("deduplicated", Value::Bool(self.0.deduplicated))];
        view::View { record: &self.0.memory, shape: &view::MEMORY, extra: &extra }.serialize(s)
    }
}

pub fn added_view(a: &Added) -> Value {
    serde_json::to_value(AddedView(a)).unwrap_or_else(|e| unreachable!("model records serialize to JSON objects: {e}"))
}

/// `added_view` of each, as the text of one JSON array: a large `addMany` returns 10,000 of them,
/// written straight to text.
pub fn added_list_json(all: &[Added]) -> Result<String> {
    json_text(&all.iter().map(AddedView).collect::<Vec<_>>())
}

/// JSON text of a view. Views of model records do not fail to serialize (their maps have string
/// keys), so a failure is a bug: an `Internal` error, never a panic.
fn json_text<T: Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| Error::new(crate::error::ErrorCode::Internal, format!("a result did not serialize: {e}")))
}

/// `{type: "memory", memory, score}` or `{type: "raw", raw, score}`, plus `explain` and
/// `expandedFrom` when present.
pub fn hit_view(h: &Hit) -> Value {
    let mut v = match &h.target {
        HitTarget::Memory(m) => json!({ "type": "memory", "memory": memory_view(m), "score": h.score }),
        HitTarget::Raw(r) => json!({ "type": "raw", "raw": raw_view(r), "score": h.score }),
    };
    if let Some(e) = &h.explain {
        v["explain"] = serde_json::to_value(e).unwrap_or(Value::Null);
    }
    if let Some(from) = &h.expanded_from {
        v["expandedFrom"] = json!(from);
    }
    v
}

pub fn history_view(e: &HistoryEvent) -> Value {
    record_view(e, &view::HISTORY)
}

/// `{maxTokens, namespace?}` for `recallContext` and `resume`; `maxTokens` defaults to 1000.
pub fn parse_budget(v: Option<&Value>, what: &'static str) -> Result<(Option<String>, usize)> {
    match Fields::of(v, what, &["namespace", "maxTokens"])? {
        None => Ok((None, 1000)),
        Some(f) => Ok((f.str("namespace")?.map(str::to_string), f.usize("maxTokens")?.unwrap_or(1000))),
    }
}

pub fn context_view(c: &crate::recall::context::Context) -> Value {
    let mut v = serde_json::to_value(c).unwrap_or(Value::Null);
    v["tokenEstimate"] = json!("ceil(ascii_chars / 4) + non_ascii_chars");
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::vector::Calibration;
    use crate::index::VectorStats;

    /// Built from its persisted form, so fields the model gains later (all `serde(default)`) need no edit here.
    fn memory() -> Memory {
        serde_json::from_value(json!({
            "id": "m1", "namespace": "default", "content": "likes tea", "kind": "episodic", "layer": "working",
            "importance": 0.75, "tags": ["drinks"], "createdAt": 0, "modifiedAt": 1_000, "lastAccessed": 86_400_000,
            "accessCount": 2, "repetitionCount": 1,
        }))
        .expect("a persisted memory")
    }

    // The views are JSON with sorted keys; these strings are the API's output, byte for byte.
    #[test]
    fn memory_view_is_the_model_in_camel_case_with_iso_times_and_nulls_for_unset_options() {
        assert_eq!(
            memory_view(&memory()).to_string(),
            r#"{"accessCount":2,"content":"likes tea","createdAt":"1970-01-01T00:00:00.000Z","eventAt":null,"id":"m1","importance":0.75,"kind":"episodic","lastAccessed":"1970-01-02T00:00:00.000Z","layer":"working","metadata":{},"modifiedAt":"1970-01-01T00:00:01.000Z","namespace":"default","repetitionCount":1,"source":null,"tags":["drinks"]}"#
        );
        let linked = Memory { source: Some("chat".into()), event_at: Some(0), derived_from: vec!["s#0".into()], links: vec!["m0".into()], ..memory() };
        let v = memory_view(&linked);
        assert_eq!((&v["source"], &v["eventAt"]), (&json!("chat"), &json!("1970-01-01T00:00:00.000Z")));
        assert_eq!((&v["derivedFrom"], &v["links"]), (&json!(["s#0"]), &json!(["m0"])));
    }

    #[test]
    fn raw_and_history_views() {
        let raw: RawEntry = serde_json::from_value(json!({
            "id": "s#0", "namespace": "default", "sessionId": "s", "turnIndex": 0, "role": "user", "content": "hi", "createdAt": 0,
        }))
        .expect("a persisted raw entry");
        assert_eq!(
            raw_view(&raw).to_string(),
            r#"{"content":"hi","createdAt":"1970-01-01T00:00:00.000Z","date":null,"id":"s#0","namespace":"default","role":"user","sessionId":"s","speaker":null,"turnId":null,"turnIndex":0}"#
        );
        let event: HistoryEvent = serde_json::from_value(json!({ "memoryId": "m1", "event": "DELETE", "at": 0, "previousContent": "x" })).expect("a persisted event");
        assert_eq!(history_view(&event).to_string(), r#"{"at":"1970-01-01T00:00:00.000Z","content":null,"event":"DELETE","memoryId":"m1","previousContent":"x"}"#);
    }

    #[test]
    fn vector_index_views() {
        let stats = VectorStats { len: 5, indexed: 3, delta: 2, tombstones: 1, segments: 1, memory_bytes: 640 };
        assert_eq!(json!(stats).to_string(), r#"{"exact":2,"indexed":3,"memoryBytes":640,"segments":1,"tombstones":1,"vectors":5}"#);
        let c = Calibration { points: 100, samples: 48, ef_search: 64, recall_mean: 0.875, recall_min: 0.75, evals: 12.5, use_graph: true, trial: false, contrast: 0.0 };
        assert_eq!(
            json!(c).to_string(),
            r#"{"contrast":0.0,"distanceEvaluations":12.5,"efSearch":64,"points":100,"recallMean":0.875,"recallMin":0.75,"samples":48,"trial":false,"useGraph":true}"#
        );
    }

    /// Each key in a parser's allowed list changes what it returns, so none is accepted and then
    /// silently ignored (the reverse, a read of a key not in the list, is a debug assertion in
    /// `Fields`). `full` sets every allowed key to a value other than its default.
    fn every_allowed_key_is_read<T: std::fmt::Debug>(full: Value, allowed: &[&str], parse: impl Fn(&Value) -> Result<T>) {
        let keys: std::collections::BTreeSet<&str> = full.as_object().expect("an object").keys().map(String::as_str).collect();
        assert_eq!(keys, allowed.iter().copied().collect(), "the test input sets exactly the allowed keys");
        let parsed = parse(&full);
        assert!(parsed.is_ok(), "the full input parses: {parsed:?}");
        let parsed = format!("{parsed:?}");
        for key in allowed {
            let mut without = full.clone();
            without.as_object_mut().expect("an object").remove(*key);
            assert_ne!(format!("{:?}", parse(&without)), parsed, "`{key}` is allowed but makes no difference");
        }
    }

    #[test]
    fn parsers_read_every_field_they_allow() {
        every_allowed_key_is_read(
            json!({
                "content": "likes tea", "namespace": "work", "kind": "episodic", "importance": 0.9, "tags": ["t"], "source": "chat",
                "metadata": {"a": 1}, "embedding": [1.0], "eventAt": 5, "derivedFrom": ["s#0"], "shape": "retraction", "thread": "home/pharmacy",
                "value": "Greenway", "corrects": "Greenwey", "dependsOn": {"thread": "home/city"}, "consequent": "Northside", "area": ["health"], "signature": "Greenway on 5th",
                "pin": "pinned", "confidence": 0.5, "allowSecrets": true,
            }),
            ADD_FIELDS,
            parse_add,
        );
        every_allowed_key_is_read(
            json!({
                "content": "x", "kind": "procedural", "importance": 0.2, "tags": [], "source": null, "metadata": {}, "embedding": [1.0], "eventAt": null,
                "shape": "event", "thread": null, "value": "v", "corrects": null, "dependsOn": null, "consequent": "c", "area": ["a"], "signature": null, "pin": "deprecated",
                "confidence": null, "allowSecrets": true,
            }),
            PATCH_FIELDS,
            parse_patch,
        );
        every_allowed_key_is_read(
            json!({
                "namespace": "work", "includeDefault": false, "limit": 3, "embedding": [1.0], "kinds": ["episodic"], "layers": ["core"], "tags": ["t"], "explain": true,
                "dryRun": true, "scope": "raw", "neighbors": 2, "expandLinks": true, "includeSuperseded": true,
            }),
            SEARCH_FIELDS,
            |v| parse_search(Some("tea"), Some(v)),
        );
        let turn = json!({ "role": "user", "content": "hi", "speaker": "Sam", "id": "t1", "embedding": [1.0] });
        every_allowed_key_is_read(json!({ "id": "s", "namespace": "work", "date": 5, "turns": [turn], "allowSecrets": true }), SESSION_FIELDS, parse_session);
        every_allowed_key_is_read(turn, TURN_FIELDS, |t| parse_session(&json!({ "id": "s", "turns": [t] })));
        let read = json!({ "namespace": "work", "includeDefault": false, "maxTokens": 5, "at": 5 });
        every_allowed_key_is_read(read.clone(), evolve::RECALL_FIELDS, |v| parse_recall(Some(v)));
        let as_of = json!({ "namespace": "work", "includeDefault": true, "at": 5 });
        every_allowed_key_is_read(as_of, evolve::AS_OF_FIELDS, |v| parse_as_of(Some(v), "thread options"));
        let context = json!({ "namespace": "work", "includeDefault": false, "maxTokens": 5, "redact": true });
        every_allowed_key_is_read(context, CONTEXT_FIELDS, |v| parse_context_options(Some(v), "resume options"));
    }
}
