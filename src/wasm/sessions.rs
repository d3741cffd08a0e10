//! Sessions across the boundary: ingest (one, a batch), read, list, delete.

use js_sys::Promise;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::{borrow, js_view, json_js, parse, parse_opt, to_js, to_json, EngramCore};
use crate::api;

#[wasm_bindgen]
impl EngramCore {
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

    /// `[index]` of the turns an `ingest` of this session would leave as stored, vectors included
    /// (see `Engram::unchanged_turns`); `[]` for a session the ingest would refuse.
    #[wasm_bindgen(js_name = unchangedTurns)]
    pub fn unchanged_turns(&self, session: &str) -> std::result::Result<String, JsValue> {
        let Ok(input) = parse(session, "ingest").and_then(|v| api::parse_session(&v)) else { return Ok("[]".into()) };
        Ok(to_json(&serde_json::json!(borrow(&self.inner)?.engine().unchanged_turns(input))))
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
        write_promise!(self, |b| b.mutate(|e| e.delete_session(&id)).await.and_then(|r| js_view(&r)))
    }
}
