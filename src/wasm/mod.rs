//! The only code that names wasm-bindgen / js_sys. It exposes `EngramCore`, a synchronous handle over
//! the engine that speaks JSON strings (parsed strictly by `crate::api`) and `Float32Array` vectors;
//! the JS facade in `pkg-template/` adds the async API, host embedders and typed errors on top.

#[cfg(feature = "embedder")]
mod embedder;
mod error;

use serde_json::Value;
use wasm_bindgen::prelude::*;

use crate::api;
use crate::engine::{EngineOptions, Engram};
use crate::error::{Error, Result};
use crate::host::Clock;

use error::to_js;

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
    v.to_string()
}

/// The engine handle behind the JS `Engram` class.
#[wasm_bindgen]
pub struct EngramCore {
    engine: Engram,
}

#[wasm_bindgen]
impl EngramCore {
    /// `options`: JSON `{idSeed?: number}`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<String>) -> std::result::Result<EngramCore, JsValue> {
        let opts = parse_opt(options, "open options").map_err(to_js)?;
        let f = api::Fields::of(opts.as_ref(), "open options", &["idSeed"]).map_err(to_js)?;
        let id_seed = f.map(|f| f.usize("idSeed")).transpose().map_err(to_js)?.flatten().map(|s| s as u64);
        Ok(EngramCore { engine: Engram::new(Box::new(JsClock), EngineOptions { id_seed, embedder: None }) })
    }

    /// Makes `embedder` produce the vectors of new memories, turns and queries of this store.
    #[cfg(feature = "embedder")]
    #[wasm_bindgen(js_name = setEmbedder)]
    pub fn set_embedder(&mut self, embedder: &embedder::LocalEmbedder) -> std::result::Result<(), JsValue> {
        self.engine.set_embedder(Box::new(embedder.shared())).map_err(to_js)
    }

    /// Returns the stored (or reinforced) memory as JSON, with `deduplicated`.
    pub fn add(&mut self, input: &str, embedding: Option<Vec<f32>>) -> std::result::Result<String, JsValue> {
        let mut req = api::parse_add(&parse(input, "add").map_err(to_js)?).map_err(to_js)?;
        if embedding.is_some() {
            req.embedding = embedding;
        }
        self.engine.add(req).map(|a| to_json(&api::added_view(&a))).map_err(to_js)
    }

    pub fn get(&self, id: &str) -> Option<String> {
        self.engine.get(id).map(|m| to_json(&api::memory_view(m)))
    }

    #[wasm_bindgen(js_name = getAll)]
    pub fn get_all(&self, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "getAll options").map_err(to_js)?;
        let (ns, limit, offset) = api::parse_page(opts.as_ref()).map_err(to_js)?;
        let items = self.engine.get_all(ns.as_deref(), limit, offset).map_err(to_js)?;
        Ok(to_json(&Value::Array(items.iter().map(api::memory_view).collect())))
    }

    pub fn update(&mut self, id: &str, patch: &str, embedding: Option<Vec<f32>>) -> std::result::Result<String, JsValue> {
        let mut p = api::parse_patch(&parse(patch, "update").map_err(to_js)?).map_err(to_js)?;
        if embedding.is_some() {
            p.embedding = embedding;
        }
        self.engine.update(id, p).map(|m| to_json(&api::memory_view(&m))).map_err(to_js)
    }

    pub fn delete(&mut self, id: &str) -> std::result::Result<(), JsValue> {
        self.engine.delete(id).map_err(to_js)
    }

    #[wasm_bindgen(js_name = deleteAll)]
    pub fn delete_all(&mut self, options: Option<String>) -> std::result::Result<u32, JsValue> {
        let opts = parse_opt(options, "deleteAll options").map_err(to_js)?;
        let ns = api::parse_namespace_only(opts.as_ref(), "deleteAll options").map_err(to_js)?;
        self.engine.delete_all(ns.as_deref()).map(|n| n as u32).map_err(to_js)
    }

    pub fn history(&self, id: &str) -> std::result::Result<String, JsValue> {
        let events = self.engine.history(id).map_err(to_js)?;
        Ok(to_json(&Value::Array(events.iter().map(api::history_view).collect())))
    }

    pub fn search(&mut self, query: Option<String>, options: Option<String>, embedding: Option<Vec<f32>>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "search options").map_err(to_js)?;
        let mut req = api::parse_search(query.as_deref(), opts.as_ref()).map_err(to_js)?;
        if embedding.is_some() {
            req.embedding = embedding;
        }
        let hits = self.engine.search(&req).map_err(to_js)?;
        Ok(to_json(&Value::Array(hits.iter().map(api::hit_view).collect())))
    }

    /// Keeps a session verbatim; returns what was added / replaced / unchanged.
    pub fn ingest(&mut self, session: &str) -> std::result::Result<String, JsValue> {
        let input = api::parse_session(&parse(session, "ingest").map_err(to_js)?).map_err(to_js)?;
        self.engine.ingest(input).map(|r| to_json(&api::ingested_view(&r))).map_err(to_js)
    }

    /// The turns of a session, in order.
    pub fn session(&self, id: &str) -> std::result::Result<String, JsValue> {
        let entries = self.engine.session(id).map_err(to_js)?;
        Ok(to_json(&Value::Array(entries.iter().map(api::raw_view).collect())))
    }

    pub fn sessions(&self, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "sessions options").map_err(to_js)?;
        let ns = api::parse_namespace_only(opts.as_ref(), "sessions options").map_err(to_js)?;
        self.engine.sessions(ns.as_deref()).map(|v| to_json(&serde_json::json!(v))).map_err(to_js)
    }

    #[wasm_bindgen(js_name = deleteSession)]
    pub fn delete_session(&mut self, id: &str) -> std::result::Result<String, JsValue> {
        self.engine.delete_session(id).map(|r| to_json(&serde_json::to_value(r).unwrap_or(Value::Null))).map_err(to_js)
    }

    /// `options`: JSON `{maxTokens, namespace?}`.
    #[wasm_bindgen(js_name = recallContext)]
    pub fn recall_context(&mut self, query: &str, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "recallContext options").map_err(to_js)?;
        let (ns, max_tokens) = api::parse_budget(opts.as_ref(), "recallContext options").map_err(to_js)?;
        self.engine.recall_context(query, ns.as_deref(), max_tokens).map(|c| to_json(&api::context_view(&c))).map_err(to_js)
    }

    /// `options`: JSON `{maxTokens, namespace?}`.
    pub fn resume(&self, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "resume options").map_err(to_js)?;
        let (ns, max_tokens) = api::parse_budget(opts.as_ref(), "resume options").map_err(to_js)?;
        self.engine.resume(ns.as_deref(), max_tokens).map(|c| to_json(&api::context_view(&c))).map_err(to_js)
    }

    /// Engine stats plus the size of this wasm instance's linear memory (shared by every store
    /// opened from the same module).
    pub fn stats(&self) -> String {
        let mut v = serde_json::to_value(self.engine.stats()).unwrap_or(Value::Null);
        v["wasmMemoryBytes"] = Value::from(core::arch::wasm32::memory_size(0) as u64 * 65_536);
        to_json(&v)
    }

    pub fn reset(&mut self) {
        self.engine.reset()
    }
}
