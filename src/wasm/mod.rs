//! The only code that names wasm-bindgen / js_sys. It exposes `EngramCore`, a handle over the engine
//! that speaks JSON strings (parsed strictly by `crate::api`) and `Float32Array` vectors; the JS
//! facade in `pkg-template/` adds host embedders, locks, the call queue and typed errors on top.
//!
//! Reads are synchronous. Writes return promises: with a storage adapter attached (`open`) a write
//! resolves once its chunk is acknowledged by the adapter, and a failed write is undone (see
//! `persist::Store`); without one they resolve at once.

// A write's future holds the store's `RefMut` across the adapter's await on purpose: the store must
// not change mid-write, and an overlapping call fails `try_borrow_mut` with a typed error instead.
#![allow(clippy::await_holding_refcell_ref)]

mod alloc;
#[cfg(feature = "embedder")]
mod embedder;
mod error;
mod fault;
mod storage;

use std::cell::{RefCell, RefMut};
use std::rc::Rc;

use js_sys::Promise;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use crate::api;
use crate::engine::{EngineOptions, Engram, VectorTarget};
use crate::error::{Error, Result};
use crate::host::{Clock, Embedder};
use crate::index::vector::{BuildInput, BuildOutput, Calibration, Installed};
use crate::index::VectorOptions;
use crate::persist::{export, load::Damage, EmbedderIdentity, GroupedWrite, OpenOptions, Store, DEFAULT_COMPACT_AFTER};

use error::to_js;
use storage::{JsAdapter, JsStorage};

struct JsClock;

impl Clock for JsClock {
    fn now_ms(&self) -> i64 {
        js_sys::Date::now() as i64
    }
}

fn parse(json: &str, what: &str) -> Result<Value> {
    serde_json::from_str(json).map_err(|e| Error::invalid(format!("{what}: not valid JSON ({e})")))
}

fn parse_opt(json: Option<String>, what: &str) -> Result<Option<Value>> {
    json.map(|j| parse(&j, what)).transpose()
}

fn to_json(v: &Value) -> String {
    // Straight into a byte buffer: `Value`'s `Display` goes through the formatter once per token,
    // which was a visible share of a large `addMany` (100k results). Same text; a `Value` cannot
    // fail to serialize, and `Display` stays as the fallback anyway.
    serde_json::to_string(v).unwrap_or_else(|_| v.to_string())
}

fn json_js(v: &Value) -> JsValue {
    JsValue::from_str(&to_json(v))
}

/// An engine alone, or one bound to host storage.
enum Backend {
    Memory(Box<Engram>),
    Stored(Box<Store<JsStorage>>),
}

impl Backend {
    fn engine(&self) -> &Engram {
        match self {
            Backend::Memory(e) => e,
            Backend::Stored(s) => s.engine(),
        }
    }

    /// A write: persisted (and undone if the adapter rejects it) when storage is attached.
    async fn mutate<T>(&mut self, mut op: impl FnMut(&mut Engram) -> Result<T>) -> Result<T> {
        match self {
            Backend::Memory(e) => op(e),
            Backend::Stored(s) => s.mutate(op).await,
        }
    }

    /// A read that may touch access counts (kept for the next write when storage is attached).
    fn read<T>(&mut self, f: impl FnOnce(&mut Engram) -> T) -> T {
        match self {
            Backend::Memory(e) => f(e),
            Backend::Stored(s) => s.read(f),
        }
    }
}

/// The engine handle behind the JS `Engram` class.
#[wasm_bindgen]
pub struct EngramCore {
    /// Shared with the futures of pending writes. The facade runs one call at a time; a call made
    /// while a write is pending gets an error, never a second borrow.
    inner: Rc<RefCell<Backend>>,
    id_seed: Option<u64>,
    /// The local embedder, kept to hand to the store on `open`.
    local: Option<Rc<dyn Embedder>>,
    /// Identity of vectors a host embedder passes in (`{embedder: {id, dims}}`).
    declared: Option<EmbedderIdentity>,
    vectors: VectorOptions,
    guards: crate::guard::GuardOptions,
}

fn busy() -> JsValue {
    to_js(Error::invalid("another call on this store has not finished (calls must be awaited in turn)"))
}

fn borrow(inner: &Rc<RefCell<Backend>>) -> std::result::Result<RefMut<'_, Backend>, JsValue> {
    inner.try_borrow_mut().map_err(|_| busy())
}

/// Runs a write to completion as a promise of its JSON (or `undefined`) result.
macro_rules! write_promise {
    ($self:ident, |$backend:ident| $body:expr) => {{
        let inner = $self.inner.clone();
        future_to_promise(async move {
            let mut guard = borrow(&inner)?;
            let $backend: &mut Backend = &mut guard;
            let out: Result<JsValue> = $body;
            out.map_err(to_js)
        })
    }};
}

#[wasm_bindgen]
impl EngramCore {
    /// `options`: JSON `{idSeed?: number, embedder?: {id: string, dims: number}}` — `embedder`
    /// names the host embedder whose vectors will be passed in.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<String>) -> std::result::Result<EngramCore, JsValue> {
        let opts = parse_opt(options, "open options").map_err(to_js)?;
        let f = api::Fields::of(opts.as_ref(), "open options", &["idSeed", "embedder", "vectorIndex", "guards"]).map_err(to_js)?;
        let id_seed = f.as_ref().map(|f| f.usize("idSeed")).transpose().map_err(to_js)?.flatten().map(|s| s as u64);
        let declared = opts.as_ref().and_then(|o| o.get("embedder")).filter(|v| !v.is_null()).map(parse_declared).transpose().map_err(to_js)?;
        let vectors = parse_vector_options(opts.as_ref().and_then(|o| o.get("vectorIndex")).filter(|v| !v.is_null())).map_err(to_js)?;
        let guards = crate::guard::GuardOptions::from_json(opts.as_ref().and_then(|o| o.get("guards")).filter(|v| !v.is_null())).map_err(to_js)?;
        let engine = Engram::new(Box::new(JsClock), EngineOptions { id_seed, embedder: None, vectors: vectors.clone(), guards });
        Ok(EngramCore { inner: Rc::new(RefCell::new(Backend::Memory(Box::new(engine)))), id_seed, local: None, declared, vectors, guards })
    }

    /// Makes `embedder` produce the vectors of new memories, turns and queries of this store (call
    /// before `open`).
    #[cfg(feature = "embedder")]
    #[wasm_bindgen(js_name = setEmbedder)]
    pub fn set_embedder(&mut self, embedder: &embedder::LocalEmbedder) -> std::result::Result<(), JsValue> {
        let shared: Rc<dyn Embedder> = embedder.shared();
        match &mut *borrow(&self.inner)? {
            Backend::Memory(e) => e.set_embedder(Box::new(shared.clone())).map_err(to_js)?,
            Backend::Stored(_) => return Err(to_js(Error::invalid("setEmbedder: the store is already open"))),
        }
        self.local = Some(shared);
        Ok(())
    }

    /// Binds this (still empty) handle to the store kept by `adapter`, loading what it holds.
    /// `options`: JSON `{reembed?: boolean, compactAfter?: number, skipDamaged?: boolean}`.
    pub fn open(&self, adapter: JsAdapter, options: Option<String>) -> Promise {
        let inner = self.inner.clone();
        let (id_seed, local, declared, vectors, guards) = (self.id_seed, self.local.clone(), self.declared.clone(), self.vectors.clone(), self.guards);
        future_to_promise(async move {
            let opts = parse_opt(options, "open options").map_err(to_js)?;
            let f = api::Fields::of(opts.as_ref(), "open options", &["reembed", "compactAfter", "skipDamaged"]).map_err(to_js)?;
            let skip = f.as_ref().map(|f| f.bool("skipDamaged")).transpose().map_err(to_js)?.flatten().unwrap_or(false);
            let damage = if skip { Damage::Skip } else { Damage::Refuse };
            let reembed = f.as_ref().map(|f| f.bool("reembed")).transpose().map_err(to_js)?.flatten().unwrap_or(false);
            let compact_after = f.as_ref().map(|f| f.usize("compactAfter")).transpose().map_err(to_js)?.flatten().unwrap_or(DEFAULT_COMPACT_AFTER);
            let mut guard = borrow(&inner)?;
            if matches!(&*guard, Backend::Stored(_)) || guard.engine().stats().memories > 0 || guard.engine().stats().raw_entries > 0 {
                return Err(to_js(Error::invalid("open: storage can only be attached to a new, empty handle")));
            }
            let embedder: Option<Box<dyn Embedder>> = local.map(|e| Box::new(e) as Box<dyn Embedder>);
            let options = OpenOptions { engine: EngineOptions { id_seed, embedder, vectors, guards }, reembed, compact_after, identity: declared, damage };
            let store = Store::open(JsStorage::new(adapter), Box::new(JsClock), options).await.map_err(to_js)?;
            *guard = Backend::Stored(Box::new(store));
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Returns the stored (or reinforced) memory as JSON, with `deduplicated`.
    pub fn add(&self, input: String, embedding: Option<Vec<f32>>) -> Promise {
        write_promise!(self, |b| async {
            let mut req = api::parse_add(&parse(&input, "add")?)?;
            if embedding.is_some() {
                req.embedding = embedding;
            }
            b.mutate(|e| {
                e.add(req.clone()).map(|mut a| {
                    a.memory = e.presented(&a.memory);
                    a
                })
            })
            .await
            .map(|a| json_js(&api::added_view(&a)))
        }
        .await)
    }

    /// Group commit of several `add`s: `inputs` a JSON array of add objects, `vectors` their given
    /// vectors end to end, `dims[i]` the length of input i's (-1: none; 0 is an empty vector, which
    /// `add` refuses). All the adds the engine
    /// accepts are persisted as one chunk; resolves to a JSON array with each input's outcome,
    /// `{ok: memory}` or `{error: {code, message}}`. A failed commit rejects the whole call: none
    /// of the group was written, none of it stays.
    #[wasm_bindgen(js_name = addGroup)]
    pub fn add_group(&self, inputs: String, vectors: Vec<f32>, dims: Vec<i32>) -> Promise {
        write_promise!(self, |b| async {
            let Value::Array(items) = parse(&inputs, "add")? else { return Err(Error::invalid("addGroup: expected an array of add inputs")) };
            if items.len() != dims.len() {
                return Err(Error::invalid("addGroup: one vector length per input"));
            }
            let vectors = api::split_vectors(&vectors, &dims, "addGroup")?;
            let parsed: Vec<Result<crate::engine::NewMemory>> = items
                .iter()
                .zip(vectors)
                .map(|(item, vector)| {
                    api::parse_add(item).map(|mut req| {
                        if vector.is_some() {
                            req.embedding = vector;
                        }
                        req
                    })
                })
                .collect();
            let mut ops: Vec<GroupedWrite<'_, Value>> = parsed
                .iter()
                .filter_map(|p| p.as_ref().ok())
                .map(|req| {
                    Box::new(move |e: &mut Engram| {
                        e.add(req.clone()).map(|mut a| {
                            a.memory = e.presented(&a.memory);
                            api::added_view(&a)
                        })
                    }) as GroupedWrite<'_, Value>
                })
                .collect();
            let mut outs = match b {
                Backend::Memory(e) => ops.iter_mut().map(|op| op(e)).collect(),
                Backend::Stored(s) => s.mutate_many(&mut ops).await?,
            }
            .into_iter();
            drop(ops);
            let outcome = |r: Result<Value>| match r {
                Ok(v) => serde_json::json!({ "ok": v }),
                Err(e) => serde_json::json!({ "error": { "code": e.code.as_str(), "message": e.message } }),
            };
            let list: Vec<Value> = parsed
                .into_iter()
                .map(|p| outcome(p.and_then(|_| outs.next().unwrap_or_else(|| Err(Error::new(crate::error::ErrorCode::Internal, "addGroup: an outcome is missing"))))))
                .collect();
            Ok(json_js(&Value::Array(list)))
        }
        .await)
    }

    /// `add` for every item of a JSON array, as one write (one stored chunk): the results in item
    /// order. `vectors` holds the items' vectors end to end, `dims[i]` item i's length (-1: none).
    #[wasm_bindgen(js_name = addMany)]
    pub fn add_many(&self, items: String, vectors: Vec<f32>, dims: Vec<i32>) -> Promise {
        write_promise!(self, |b| async {
            let reqs = api::parse_add_many(&parse(&items, "addMany")?, &vectors, &dims)?;
            let present = |e: &Engram, mut all: Vec<crate::engine::Added>| {
                all.iter_mut().for_each(|a| e.present(&mut a.memory));
                all
            };
            // In memory the write runs once, so the items move into it; a stored write may run again
            // (another writer took its place) and gets a copy each time.
            let all = match &mut *b {
                Backend::Memory(e) => e.add_many(reqs).map(|all| present(e, all))?,
                Backend::Stored(s) => s.mutate(|e| e.add_many(reqs.clone()).map(|all| present(e, all))).await?,
            };
            api::added_list_json(&all).map(|text| JsValue::from_str(&text))
        }
        .await)
    }

    pub fn get(&self, id: &str) -> std::result::Result<Option<String>, JsValue> {
        let b = borrow(&self.inner)?;
        b.engine().get(id).map(|m| api::memory_json(&b.engine().presented(m))).transpose().map_err(to_js)
    }

    #[wasm_bindgen(js_name = getAll)]
    pub fn get_all(&self, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "getAll options").map_err(to_js)?;
        let (ns, limit, offset) = api::parse_page(opts.as_ref()).map_err(to_js)?;
        let b = borrow(&self.inner)?;
        let mut items = b.engine().get_all(ns.as_deref(), limit, offset).map_err(to_js)?;
        items.iter_mut().for_each(|m| b.engine().present(m));
        api::memories_json(&items).map_err(to_js)
    }

    pub fn update(&self, id: String, patch: String, embedding: Option<Vec<f32>>) -> Promise {
        write_promise!(self, |b| async {
            let mut p = api::parse_patch(&parse(&patch, "update")?)?;
            if embedding.is_some() {
                p.embedding = embedding;
            }
            b.mutate(|e| e.update(&id, p.clone()).map(|m| e.presented(&m))).await.map(|m| json_js(&api::memory_view(&m)))
        }
        .await)
    }

    pub fn delete(&self, id: String) -> Promise {
        write_promise!(self, |b| b.mutate(|e| e.delete(&id)).await.map(|_| JsValue::UNDEFINED))
    }

    #[wasm_bindgen(js_name = deleteAll)]
    pub fn delete_all(&self, options: Option<String>) -> Promise {
        write_promise!(self, |b| async {
            let opts = parse_opt(options, "deleteAll options")?;
            let ns = api::parse_namespace_only(opts.as_ref(), "deleteAll options")?;
            b.mutate(|e| e.delete_all(ns.as_deref())).await.map(|n| JsValue::from(n as u32))
        }
        .await)
    }

    pub fn history(&self, id: &str) -> std::result::Result<String, JsValue> {
        let events = borrow(&self.inner)?.engine().history(id).map_err(to_js)?;
        Ok(to_json(&Value::Array(events.iter().map(api::history_view).collect())))
    }

    pub fn search(&self, query: Option<String>, options: Option<String>, embedding: Option<Vec<f32>>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "search options").map_err(to_js)?;
        let mut req = api::parse_search(query.as_deref(), opts.as_ref()).map_err(to_js)?;
        if embedding.is_some() {
            req.embedding = embedding;
        }
        let hits = borrow(&self.inner)?.read(|e| e.search(&req)).map_err(to_js)?;
        Ok(to_json(&Value::Array(hits.iter().map(api::hit_view).collect())))
    }

    /// Keeps a session verbatim; returns what was added / replaced / unchanged.
    pub fn ingest(&self, session: String) -> Promise {
        write_promise!(self, |b| async {
            let input = api::parse_session(&parse(&session, "ingest")?)?;
            b.mutate(|e| e.ingest(input.clone())).await.map(|r| json_js(&api::ingested_view(&r)))
        }
        .await)
    }

    /// `ingest` for every session of a JSON array, as one write: the reports in session order.
    #[wasm_bindgen(js_name = ingestMany)]
    pub fn ingest_many(&self, sessions: String) -> Promise {
        write_promise!(self, |b| async {
            let input = api::parse_sessions(&parse(&sessions, "ingestMany")?)?;
            b.mutate(|e| e.ingest_many(input.clone())).await.map(|r| json_js(&Value::Array(r.iter().map(api::ingested_view).collect())))
        }
        .await)
    }

    /// Lets a quarantined memory or raw turn back into context blocks: `{id, target, released}`.
    pub fn release(&self, id: String) -> Promise {
        write_promise!(self, |b| b.mutate(|e| e.release(&id)).await.map(|r| json_js(&serde_json::to_value(r).unwrap_or(Value::Null))))
    }

    /// A text as this store's guards would keep it, `{text, flags, redacted, quarantined}` (throws
    /// `InvalidInput` where they reject it): the facade embeds this text, never the given one.
    #[wasm_bindgen(js_name = guardText)]
    pub fn guard_text(&self, text: &str, allow_secrets: bool) -> std::result::Result<String, JsValue> {
        let g = borrow(&self.inner)?.engine().guard_preview(text, allow_secrets).map_err(to_js)?;
        Ok(to_json(&api::guarded_view(&g)))
    }

    /// The turns of a session, in order.
    pub fn session(&self, id: &str) -> std::result::Result<String, JsValue> {
        let entries = borrow(&self.inner)?.engine().session(id).map_err(to_js)?;
        Ok(to_json(&Value::Array(entries.iter().map(api::raw_view).collect())))
    }

    pub fn sessions(&self, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "sessions options").map_err(to_js)?;
        let ns = api::parse_namespace_only(opts.as_ref(), "sessions options").map_err(to_js)?;
        borrow(&self.inner)?.engine().sessions(ns.as_deref()).map(|v| to_json(&serde_json::json!(v))).map_err(to_js)
    }

    #[wasm_bindgen(js_name = deleteSession)]
    pub fn delete_session(&self, id: String) -> Promise {
        write_promise!(self, |b| b.mutate(|e| e.delete_session(&id)).await.map(|r| json_js(&serde_json::to_value(r).unwrap_or(Value::Null))))
    }

    /// `options`: JSON `{maxTokens, namespace?}`.
    #[wasm_bindgen(js_name = recallContext)]
    pub fn recall_context(&self, query: &str, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "recallContext options").map_err(to_js)?;
        let (ns, max_tokens, copts) = api::parse_context_options(opts.as_ref(), "recallContext options").map_err(to_js)?;
        let context = borrow(&self.inner)?.read(|e| e.recall_context_with(query, ns.as_deref(), max_tokens, copts)).map_err(to_js)?;
        Ok(to_json(&api::context_view(&context)))
    }

    /// `options`: JSON `{namespace?, maxTokens?, at?}` → `{route, answers, context}`.
    pub fn recall(&self, query: &str, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "recall options").map_err(to_js)?;
        let (ns, max_tokens, at) = api::parse_recall(opts.as_ref()).map_err(to_js)?;
        let r = borrow(&self.inner)?.read(|e| e.recall(query, ns.as_deref(), max_tokens, at)).map_err(to_js)?;
        Ok(to_json(&api::recall_view(&r)))
    }

    /// `options`: JSON `{namespace?, at?}` → `{thread, state, values}`.
    pub fn thread(&self, label: &str, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "thread options").map_err(to_js)?;
        let (ns, at) = api::parse_as_of(opts.as_ref(), "thread options").map_err(to_js)?;
        let t = borrow(&self.inner)?.engine().thread(label, ns.as_deref(), at).map_err(to_js)?;
        Ok(to_json(&serde_json::to_value(&t).unwrap_or(Value::Null)))
    }

    /// `options`: JSON `{namespace?, at?}` → `{area, answers}`.
    pub fn gather(&self, area: &str, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "gather options").map_err(to_js)?;
        let (ns, at) = api::parse_as_of(opts.as_ref(), "gather options").map_err(to_js)?;
        let g = borrow(&self.inner)?.engine().gather(area, ns.as_deref(), at).map_err(to_js)?;
        Ok(to_json(&serde_json::to_value(&g).unwrap_or(Value::Null)))
    }

    /// `options`: JSON `{maxTokens, namespace?}`.
    pub fn resume(&self, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "resume options").map_err(to_js)?;
        let (ns, max_tokens, copts) = api::parse_context_options(opts.as_ref(), "resume options").map_err(to_js)?;
        borrow(&self.inner)?.engine().resume_with(ns.as_deref(), max_tokens, copts).map(|c| to_json(&api::context_view(&c))).map_err(to_js)
    }

    /// Engine stats plus the size of this wasm instance's linear memory (shared by every store
    /// opened from the same module).
    pub fn stats(&self) -> std::result::Result<String, JsValue> {
        let mut v = serde_json::to_value(borrow(&self.inner)?.engine().stats()).unwrap_or(Value::Null);
        v["wasmMemoryBytes"] = Value::from(core::arch::wasm32::memory_size(0) as u64 * 65_536);
        Ok(to_json(&v))
    }

    pub fn reset(&self) -> Promise {
        write_promise!(self, |b| b
            .mutate(|e| {
                e.reset();
                Ok(())
            })
            .await
            .map(|_| JsValue::UNDEFINED))
    }

    /// Writes what is not yet in storage (search touches); after it resolves everything done before
    /// it survives a crash (as far as the adapter's own acknowledgement goes).
    pub fn flush(&self) -> Promise {
        write_promise!(self, |b| match b {
            Backend::Memory(_) => Ok(JsValue::UNDEFINED),
            Backend::Stored(s) => s.flush().await.map(|_| JsValue::UNDEFINED),
        })
    }

    /// Rewrites the store as one snapshot and removes what it replaces.
    pub fn compact(&self) -> Promise {
        write_promise!(self, |b| match b {
            Backend::Memory(_) => Ok(JsValue::UNDEFINED),
            Backend::Stored(s) => s.compact().await.map(|_| JsValue::UNDEFINED),
        })
    }

    /// The failure of the last automatic compaction, once (the write that triggered it succeeded,
    /// so the facade reports it out of band); `undefined` when there is none.
    #[wasm_bindgen(js_name = takeCompactionFailure)]
    pub fn take_compaction_failure(&self) -> std::result::Result<JsValue, JsValue> {
        Ok(match &mut *borrow(&self.inner)? {
            Backend::Stored(s) => s.take_compaction_failure().map_or(JsValue::UNDEFINED, to_js),
            Backend::Memory(_) => JsValue::UNDEFINED,
        })
    }

    /// Damaged records left out since the last call (opened with `skipDamaged`), as a JSON array of
    /// `{key, seq, bytes, reason}`; the facade hands them to the host's `onCorruption`.
    #[wasm_bindgen(js_name = takeSkipped)]
    pub fn take_skipped(&self) -> std::result::Result<String, JsValue> {
        Ok(match &mut *borrow(&self.inner)? {
            Backend::Stored(s) => serde_json::to_string(&s.take_skipped()).unwrap_or_else(|_| "[]".into()),
            Backend::Memory(_) => "[]".to_string(),
        })
    }

    /// Applies what other writers sharing the storage committed; resolves to whether anything changed.
    pub fn sync(&self) -> Promise {
        write_promise!(self, |b| match b {
            Backend::Memory(_) => Ok(JsValue::FALSE),
            Backend::Stored(s) => s.sync().await.map(JsValue::from_bool),
        })
    }

    /// The whole store or one namespace as one portable file.
    pub fn export(&self, namespace: Option<String>) -> std::result::Result<Vec<u8>, JsValue> {
        if let Some(ns) = namespace.as_deref() {
            crate::model::validate::namespace(ns).map_err(to_js)?;
        }
        let guard = borrow(&self.inner)?;
        Ok(match &*guard {
            Backend::Memory(e) => export::export(e, self.identity().as_ref(), namespace.as_deref()),
            Backend::Stored(s) => s.export(namespace.as_deref()),
        })
    }

    /// A cursor over the export file of the whole store or one namespace, read with `exportNext`.
    #[wasm_bindgen(js_name = exportCursor)]
    pub fn export_cursor(&self, namespace: Option<String>) -> std::result::Result<ExportCursor, JsValue> {
        if let Some(ns) = namespace.as_deref() {
            crate::model::validate::namespace(ns).map_err(to_js)?;
        }
        let guard = borrow(&self.inner)?;
        let identity = match &*guard {
            Backend::Memory(_) => self.identity(),
            Backend::Stored(s) => s.embedder_identity().cloned(),
        };
        Ok(ExportCursor { stream: export::ExportStream::new(identity, namespace) })
    }

    /// The next slice of the export file (about `maxBytes`), `undefined` after the last. The store
    /// must not change between the first slice and the last (the facade holds its queue).
    #[wasm_bindgen(js_name = exportNext)]
    pub fn export_next(&self, cursor: &mut ExportCursor, max_bytes: usize) -> std::result::Result<Option<Vec<u8>>, JsValue> {
        let guard = borrow(&self.inner)?;
        Ok(cursor.stream.next_slice(guard.engine(), max_bytes.max(1)))
    }

    /// Merges an export file read through `feed` (pushed whole and finished) by id, as one write.
    #[wasm_bindgen(js_name = importFeed)]
    pub fn import_feed(&self, feed: &mut ImportFeed) -> Promise {
        let identity = self.identity();
        let decoded = feed.decoded.take();
        write_promise!(self, |b| {
            let merged = match decoded {
                None => Err(Error::invalid("import: the file was not read to its end")),
                Some(file) => match b {
                    Backend::Memory(e) => merge_into(e, identity.as_ref(), file),
                    Backend::Stored(s) => s.import_decoded(file).await,
                },
            };
            merged.map(|m| json_js(&serde_json::to_value(m).unwrap_or(Value::Null)))
        })
    }

    /// Validates an export file and merges it by id, as one write.
    pub fn import(&self, bytes: Vec<u8>) -> Promise {
        let identity = self.identity();
        write_promise!(self, |b| {
            let merged = match b {
                Backend::Memory(e) => import_into(e, identity.as_ref(), &bytes),
                Backend::Stored(s) => s.import(&bytes).await,
            };
            merged.map(|m| json_js(&serde_json::to_value(m).unwrap_or(Value::Null)))
        })
    }
}

/// Where an export being streamed has got to (`EngramCore.exportCursor` / `exportNext`).
#[wasm_bindgen]
pub struct ExportCursor {
    stream: export::ExportStream,
}

/// An export file read in slices (a stream): `push` each slice, `finish` once all are in, then
/// `EngramCore.importFeed`. wasm memory holds the decoded records and at most one record's bytes,
/// never the whole file.
#[wasm_bindgen]
pub struct ImportFeed {
    reader: Option<export::ExportReader>,
    decoded: Option<export::Exported>,
}

#[wasm_bindgen]
impl ImportFeed {
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> ImportFeed {
        ImportFeed { reader: Some(export::ExportReader::new()), decoded: None }
    }

    /// The next slice of the file; a defect seen in it throws (`Corrupt`, `InvalidInput`).
    pub fn push(&mut self, bytes: &[u8]) -> std::result::Result<(), JsValue> {
        match &mut self.reader {
            Some(r) => r.push(bytes).map_err(to_js),
            None => Err(to_js(Error::invalid("import: the file was already read to its end"))),
        }
    }

    /// Checks the whole file (checksum, records) once every slice was pushed.
    pub fn finish(&mut self) -> std::result::Result<(), JsValue> {
        let reader = self.reader.take().ok_or_else(|| to_js(Error::invalid("import: the file was already read to its end")))?;
        self.decoded = Some(reader.finish().map_err(to_js)?);
        Ok(())
    }
}

/// `{namespace?, llmLevel?, hasLlm?, maxLlmCalls?, bufferCap?}` → options and whether an LLM exists.
fn consolidate_options(options: Option<String>) -> Result<(crate::engine::ConsolidateOptions, bool)> {
    let opts = parse_opt(options, "consolidate options")?;
    let mut out = crate::engine::ConsolidateOptions::default();
    let Some(f) = api::Fields::of(opts.as_ref(), "consolidate options", &["namespace", "llmLevel", "hasLlm", "maxLlmCalls", "bufferCap"])? else { return Ok((out, false)) };
    out.namespace = f.str("namespace")?.map(str::to_string);
    if let Some(l) = f.str("llmLevel")? {
        out.level = crate::lifecycle::report::LlmLevel::parse(l).ok_or_else(|| Error::invalid("consolidate: `llmLevel` must be off, auto or on"))?;
    }
    out.max_llm_calls = f.usize("maxLlmCalls")?;
    if let Some(cap) = f.usize("bufferCap")? {
        out.buffer_cap = cap;
    }
    Ok((out, f.bool("hasLlm")?.unwrap_or(false)))
}

/// Validates one LLM reply against its request (schema and the request's own rules):
/// `{valid: true}`, or `{valid: false, error, retry}` where `retry` is the request again with the
/// reply and the error appended (the one retry the contract allows).
#[wasm_bindgen(js_name = llmCheck)]
pub fn llm_check(request: &str, reply: &str) -> std::result::Result<String, JsValue> {
    let request: crate::llm::LlmRequest = serde_json::from_str(request).map_err(|e| to_js(Error::invalid(format!("llmCheck: not a request ({e})"))))?;
    Ok(to_json(&match crate::llm::validate_reply(&request, reply) {
        Ok(_) => serde_json::json!({ "valid": true }),
        Err(error) => serde_json::json!({ "valid": false, "retry": crate::llm::retry_request(&request, reply, &error), "error": error }),
    }))
}

#[wasm_bindgen]
impl EngramCore {
    /// The extraction requests for a session's turns not yet extracted: a plan for `extractApply`.
    /// `options`: JSON `{maxLlmCalls?}`.
    #[wasm_bindgen(js_name = extractPlan)]
    pub fn extract_plan(&self, session_id: &str, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "extract options").map_err(to_js)?;
        let f = api::Fields::of(opts.as_ref(), "extract options", &["maxLlmCalls"]).map_err(to_js)?;
        let max_llm_calls = f.as_ref().map(|f| f.usize("maxLlmCalls")).transpose().map_err(to_js)?.flatten();
        let plan = borrow(&self.inner)?.engine().plan_extract(session_id, &crate::engine::ExtractOptions { max_llm_calls }).map_err(to_js)?;
        serde_json::to_string(&plan).map_err(|e| to_js(Error::new(crate::error::ErrorCode::Internal, e.to_string())))
    }

    /// Applies the results of a plan's calls (`[{outcome, attempts, replies, usage?, durationMs, error?}]`,
    /// one per planned call) as one write; resolves to the report.
    /// `vectors`: JSON `{text: [number]}`, the host embedder's vectors for the extracted texts.
    #[wasm_bindgen(js_name = extractApply)]
    pub fn extract_apply(&self, plan: String, results: String, vectors: Option<String>) -> Promise {
        write_promise!(self, |b| async {
            let plan: crate::engine::ExtractPlan = serde_json::from_str(&plan).map_err(|e| Error::invalid(format!("extract: not a plan ({e})")))?;
            let results: Vec<crate::llm::CallResult> = serde_json::from_str(&results).map_err(|e| Error::invalid(format!("extract: not call results ({e})")))?;
            let vectors: std::collections::HashMap<String, Vec<f32>> = match vectors {
                Some(v) => serde_json::from_str(&v).map_err(|e| Error::invalid(format!("extract: not text vectors ({e})")))?,
                None => Default::default(),
            };
            b.mutate(|e| e.apply_extract_with_vectors(&plan, results.clone(), &vectors)).await.map(|r| json_js(&serde_json::to_value(r).unwrap_or(Value::Null)))
        }
        .await)
    }

    /// The report of an extraction without an LLM: nothing extracted, every new turn pending.
    #[wasm_bindgen(js_name = extractWithoutLlm)]
    pub fn extract_without_llm(&self, session_id: &str) -> std::result::Result<String, JsValue> {
        let report = borrow(&self.inner)?.engine().extract_without_llm(session_id).map_err(to_js)?;
        Ok(to_json(&serde_json::to_value(report).unwrap_or(Value::Null)))
    }

    /// The LLM requests of one consolidation epoch: a plan for `consolidateApply`. `options`: JSON
    /// `{namespace?, llmLevel, hasLlm, maxLlmCalls?, bufferCap?}`.
    #[wasm_bindgen(js_name = consolidatePlan)]
    pub fn consolidate_plan(&self, options: Option<String>) -> std::result::Result<String, JsValue> {
        let (opts, has_llm) = consolidate_options(options).map_err(to_js)?;
        let plan = borrow(&self.inner)?.engine().plan_consolidate(&opts, has_llm).map_err(to_js)?;
        serde_json::to_string(&plan).map_err(|e| to_js(Error::new(crate::error::ErrorCode::Internal, e.to_string())))
    }

    /// Applies the results of a plan's calls (one per planned call) and the epoch's heuristic
    /// steps as one write; resolves to the report.
    #[wasm_bindgen(js_name = consolidateApply)]
    pub fn consolidate_apply(&self, plan: String, results: String) -> Promise {
        write_promise!(self, |b| async {
            let plan: crate::engine::ConsolidatePlan = serde_json::from_str(&plan).map_err(|e| Error::invalid(format!("consolidate: not a plan ({e})")))?;
            let results: Vec<crate::llm::CallResult> = serde_json::from_str(&results).map_err(|e| Error::invalid(format!("consolidate: not call results ({e})")))?;
            b.mutate(|e| e.apply_consolidate(&plan, results.clone())).await.map(|r| json_js(&serde_json::to_value(r).unwrap_or(Value::Null)))
        }
        .await)
    }

    /// The `author@1` requests for a session's turns not yet authored: a plan for `authorApply`.
    /// `options`: JSON `{maxLlmCalls?}`.
    #[wasm_bindgen(js_name = authorPlan)]
    pub fn author_plan(&self, session_id: &str, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "author options").map_err(to_js)?;
        let f = api::Fields::of(opts.as_ref(), "author options", &["maxLlmCalls"]).map_err(to_js)?;
        let max_llm_calls = f.as_ref().map(|f| f.usize("maxLlmCalls")).transpose().map_err(to_js)?.flatten();
        let plan = borrow(&self.inner)?.engine().plan_author(session_id, &crate::engine::ExtractOptions { max_llm_calls }).map_err(to_js)?;
        serde_json::to_string(&plan).map_err(|e| to_js(Error::new(crate::error::ErrorCode::Internal, e.to_string())))
    }

    /// Applies the results of an author plan's calls as one write; resolves to the report.
    #[wasm_bindgen(js_name = authorApply)]
    pub fn author_apply(&self, plan: String, results: String) -> Promise {
        write_promise!(self, |b| async {
            let plan: crate::engine::AuthorPlan = serde_json::from_str(&plan).map_err(|e| Error::invalid(format!("author: not a plan ({e})")))?;
            let results: Vec<crate::llm::CallResult> = serde_json::from_str(&results).map_err(|e| Error::invalid(format!("author: not call results ({e})")))?;
            b.mutate(|e| e.apply_author(&plan, results.clone())).await.map(|r| json_js(&serde_json::to_value(r).unwrap_or(Value::Null)))
        }
        .await)
    }

    /// The report one epoch would give, changing nothing (the LLM calls it would make are listed).
    #[wasm_bindgen(js_name = consolidateDryRun)]
    pub fn consolidate_dry_run(&self, options: Option<String>) -> std::result::Result<String, JsValue> {
        let (opts, has_llm) = consolidate_options(options).map_err(to_js)?;
        let report = borrow(&self.inner)?.read(|e| e.consolidate_dry_run(&opts, has_llm)).map_err(to_js)?;
        Ok(to_json(&serde_json::to_value(report).unwrap_or(Value::Null)))
    }

    /// Authors a session's turns not yet authored with the offline rules; `turnIds` (JSON array)
    /// limits it to those turns (the fallback of failed LLM calls).
    #[wasm_bindgen(js_name = authorOffline)]
    pub fn author_offline(&self, session_id: String, turn_ids: Option<String>) -> Promise {
        write_promise!(self, |b| async {
            let only: Option<Vec<String>> = match turn_ids {
                Some(j) => Some(serde_json::from_str(&j).map_err(|e| Error::invalid(format!("authorOffline: turnIds must be an array of strings ({e})")))?),
                None => None,
            };
            b.mutate(|e| match &only {
                Some(ids) => e.author_offline_turns(&session_id, ids),
                None => e.author_offline(&session_id),
            })
            .await
            .map(|r| json_js(&serde_json::to_value(r).unwrap_or(Value::Null)))
        }
        .await)
    }

    /// Retracts a thread: its values leave every memory, raw turn, index and history text of the
    /// namespace. `options`: JSON `{namespace?}`.
    #[wasm_bindgen]
    pub fn retract(&self, thread: String, options: Option<String>) -> Promise {
        write_promise!(self, |b| async {
            let opts = parse_opt(options, "retract options")?;
            let f = api::Fields::of(opts.as_ref(), "retract options", &["namespace"])?;
            let namespace = f.as_ref().map(|f| f.str("namespace")).transpose()?.flatten().map(str::to_string);
            b.mutate(|e| e.retract(&thread, namespace.as_deref())).await.map(|r| json_js(&serde_json::to_value(r).unwrap_or(Value::Null)))
        }
        .await)
    }

    /// LLM calls applied since this store was opened, summed.
    #[wasm_bindgen(js_name = llmUsage)]
    pub fn llm_usage(&self) -> std::result::Result<String, JsValue> {
        Ok(to_json(&serde_json::to_value(borrow(&self.inner)?.engine().llm_usage()).unwrap_or(Value::Null)))
    }
}

/// Builds a vector graph segment from `planVectorBuild`'s bytes: pure and CPU-bound (seconds to
/// minutes), so hosts run it in a worker (any instance of this module will do) and hand the bytes it
/// returns to `installVectorBuild`.
#[wasm_bindgen(js_name = buildVectorGraph)]
pub fn build_vector_graph(input: &[u8]) -> std::result::Result<Vec<u8>, JsValue> {
    fault::injected_build_panic();
    BuildInput::from_bytes(input).map(|i| i.build().to_bytes()).map_err(to_js)
}

/// The byte budgets the facade checks before it copies a large input into wasm memory (the core
/// checks them again), and the list lengths it checks before work per entry (embedding each item
/// or turn): `{ingestBytes, importBytes, batchItems, sessionTurns}`.
#[wasm_bindgen]
pub fn limits() -> String {
    use crate::model::validate;
    serde_json::json!({
        "ingestBytes": validate::INGEST_BYTES_MAX, "importBytes": validate::IMPORT_BYTES_MAX,
        "batchItems": crate::engine::BATCH_MAX, "sessionTurns": validate::SESSION_TURNS_MAX,
    })
    .to_string()
}

/// `{target, points, replaces}` of a planned build (for progress reports).
#[wasm_bindgen(js_name = describeVectorBuild)]
pub fn describe_vector_build(input: &[u8]) -> std::result::Result<String, JsValue> {
    let i = BuildInput::from_bytes(input).map_err(to_js)?;
    let target = if i.label == 1 { "raw" } else { "memories" };
    Ok(to_json(&serde_json::json!({ "target": target, "points": i.len(), "replaces": i.replaces().len() })))
}

fn installed_view(target: VectorTarget, installed: Installed, c: &Calibration) -> Value {
    let (result, points) = match installed {
        Installed::Segment { points } => ("segment", points),
        Installed::Scan => ("scan", 0),
        Installed::Stale => ("stale", 0),
    };
    serde_json::json!({
        "target": target.as_str(), "result": result, "points": points, "calibration": c,
    })
}

#[wasm_bindgen]
impl EngramCore {
    /// The next vector index build worth doing, as bytes for `buildVectorGraph`; `undefined` when
    /// there is none. `force` (an explicit reindex) builds whatever the exact tier holds.
    #[wasm_bindgen(js_name = planVectorBuild)]
    pub fn plan_vector_build(&self, force: bool) -> std::result::Result<Option<Vec<u8>>, JsValue> {
        let mut guard = borrow(&self.inner)?;
        let input = match &mut *guard {
            Backend::Memory(e) => e.plan_vector_build(force),
            Backend::Stored(s) => s.plan_vector_build(force),
        };
        Ok(input.map(|i| i.to_bytes()))
    }

    /// Installs `buildVectorGraph`'s output (persisting the segment when storage is attached);
    /// resolves to `{target, result: "segment" | "scan" | "stale", points, calibration}`.
    #[wasm_bindgen(js_name = installVectorBuild)]
    pub fn install_vector_build(&self, output: Vec<u8>) -> Promise {
        write_promise!(self, |b| async {
            let output = BuildOutput::from_bytes(&output)?;
            let calibration = output.calibration;
            let (target, installed) = match b {
                Backend::Memory(e) => e.install_vector_build(output)?,
                Backend::Stored(s) => s.install_vector_build(output).await?,
            };
            Ok(json_js(&installed_view(target, installed, &calibration)))
        }
        .await)
    }

    /// Tiers of both vector indexes, and whether a build is due: `{memories, raw, needsBuild}`.
    #[wasm_bindgen(js_name = vectorIndexStats)]
    pub fn vector_index_stats(&self) -> std::result::Result<String, JsValue> {
        let guard = borrow(&self.inner)?;
        let e = guard.engine();
        Ok(to_json(&serde_json::json!({
            "memories": e.vector_stats(VectorTarget::Memories),
            "raw": e.vector_stats(VectorTarget::Raw),
            "needsBuild": e.needs_vector_build(),
        })))
    }
}

impl EngramCore {
    /// Which embedder this handle's vectors come from.
    fn identity(&self) -> Option<EmbedderIdentity> {
        self.local.as_deref().map(EmbedderIdentity::of).or_else(|| self.declared.clone())
    }
}

/// `{id, dims}` of a host embedder.
/// `{graphMin?: number, alwaysGraph?: boolean}`: the vector count from which graph segments are
/// built (default 20,000), and whether to keep a graph even where the calibration finds an exact scan
/// as cheap.
fn parse_vector_options(v: Option<&Value>) -> Result<VectorOptions> {
    let mut out = VectorOptions::default();
    if let Some(f) = api::Fields::of(v, "open options: vectorIndex", &["graphMin", "alwaysGraph"])? {
        out.build.always_graph = f.bool("alwaysGraph")?.unwrap_or(false);
        if let Some(min) = f.usize("graphMin")? {
            if min == 0 {
                return Err(Error::invalid("open options: vectorIndex.graphMin must be at least 1"));
            }
            out.graph_min = min;
        }
    }
    Ok(out)
}

fn parse_declared(v: &Value) -> Result<EmbedderIdentity> {
    let f = api::Fields::of(Some(v), "open options: embedder", &["id", "dims"])?.ok_or_else(|| Error::invalid("open options: embedder must be an object"))?;
    let model = f.str("id")?.filter(|s| !s.trim().is_empty()).ok_or_else(|| Error::invalid("open options: embedder.id must be a non-empty string"))?;
    let dims = f.usize("dims")?.filter(|d| (1..=65_536).contains(d)).ok_or_else(|| Error::invalid("open options: embedder.dims must be an integer from 1 to 65536"))?;
    Ok(EmbedderIdentity { model: model.to_string(), dims: dims as u32 })
}

/// Import into a store without storage: the same checks as `Store::import`.
fn import_into(engine: &mut Engram, identity: Option<&EmbedderIdentity>, bytes: &[u8]) -> Result<crate::engine::Merged> {
    merge_into(engine, identity, export::decode_export(bytes)?)
}

fn merge_into(engine: &mut Engram, identity: Option<&EmbedderIdentity>, file: export::Exported) -> Result<crate::engine::Merged> {
    if let (Some(have), Some(given)) = (identity, &file.identity) {
        if have != given {
            return Err(Error::embedder(format!("the file's vectors were made by {given}; this store's by {have}")));
        }
    }
    engine.merge_state(file.state)
}
