//! The reads that answer a query or start a session: recall, recallContext, thread, gather, resume.

use wasm_bindgen::prelude::*;

use super::{borrow, parse_opt, to_js, to_json, view, EngramCore};
use crate::api;

#[wasm_bindgen]
impl EngramCore {
    /// `options`: JSON `{maxTokens, namespace?}`; `embedding`: the query's vector from a host
    /// embedder.
    #[wasm_bindgen(js_name = recallContext)]
    pub fn recall_context(&self, query: &str, options: Option<String>, embedding: Option<Vec<f32>>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "recallContext options").map_err(to_js)?;
        let (ns, max_tokens, copts) = api::parse_context_options(opts.as_ref(), "recallContext options").map_err(to_js)?;
        let context = borrow(&self.inner)?.read(|e| e.recall_context_by(query, embedding, &ns, max_tokens, copts)).map_err(to_js)?;
        Ok(to_json(&api::context_view(&context)))
    }

    /// `options`: JSON `{namespace?, maxTokens?, at?}` → `{route, answers, context}`; `embedding`:
    /// the query's vector from a host embedder.
    pub fn recall(&self, query: &str, options: Option<String>, embedding: Option<Vec<f32>>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "recall options").map_err(to_js)?;
        let (ns, max_tokens, at) = api::parse_recall(opts.as_ref()).map_err(to_js)?;
        let r = borrow(&self.inner)?.read(|e| e.recall_by(query, embedding, &ns, max_tokens, at)).map_err(to_js)?;
        Ok(to_json(&api::recall_view(&r)))
    }

    /// `options`: JSON `{namespace?, at?}` → `{thread, state, values}`.
    pub fn thread(&self, label: &str, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "thread options").map_err(to_js)?;
        let (ns, at) = api::parse_as_of(opts.as_ref(), "thread options").map_err(to_js)?;
        let t = borrow(&self.inner)?.engine().thread(label, &ns, at).map_err(to_js)?;
        view(&t)
    }

    /// `options`: JSON `{namespace?, at?}` → `{area, answers}`.
    pub fn gather(&self, area: &str, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "gather options").map_err(to_js)?;
        let (ns, at) = api::parse_as_of(opts.as_ref(), "gather options").map_err(to_js)?;
        let g = borrow(&self.inner)?.engine().gather(area, &ns, at).map_err(to_js)?;
        view(&g)
    }

    /// `options`: JSON `{maxTokens, namespace?}`.
    pub fn resume(&self, options: Option<String>) -> std::result::Result<String, JsValue> {
        let opts = parse_opt(options, "resume options").map_err(to_js)?;
        let (ns, max_tokens, copts) = api::parse_context_options(opts.as_ref(), "resume options").map_err(to_js)?;
        borrow(&self.inner)?.engine().resume_with(&ns, max_tokens, copts).map(|c| to_json(&api::context_view(&c))).map_err(to_js)
    }
}
