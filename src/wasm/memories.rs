//! Memories across the boundary: add (one, a group, a batch), read, update, delete, search, release.

use js_sys::Promise;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::{borrow, js_view, json_js, parse, parse_opt, to_js, to_json, Backend, EngramCore};
use crate::api;
use crate::engine::Engram;
use crate::error::{Error, Result};
use crate::persist::GroupedWrite;

#[wasm_bindgen]
impl EngramCore {
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

    /// Lets a quarantined memory or raw turn back into context blocks: `{id, target, released}`.
    pub fn release(&self, id: String) -> Promise {
        write_promise!(self, |b| b.mutate(|e| e.release(&id)).await.and_then(|r| js_view(&r)))
    }
}
