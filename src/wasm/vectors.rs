//! Vector index builds across the boundary (plan here, build anywhere, install here) and the vectors of a host embedder.

use js_sys::Promise;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::{borrow, fault, json_js, parse, to_js, to_json, view, Backend, EngramCore};
use crate::api;
use crate::engine::VectorTarget;
use crate::error::Error;
use crate::index::vector::{BuildInput, BuildOutput, Calibration, Installed};

/// Builds a vector graph segment from `planVectorBuild`'s bytes: pure and CPU-bound (seconds to
/// minutes), so hosts run it in a worker (any instance of this module will do) and hand the bytes it
/// returns to `installVectorBuild`.
#[wasm_bindgen(js_name = buildVectorGraph)]
pub fn build_vector_graph(input: &[u8]) -> std::result::Result<Vec<u8>, JsValue> {
    fault::injected_build_panic();
    BuildInput::from_bytes(input).map(|i| i.build().to_bytes()).map_err(to_js)
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
    /// For each item of a JSON array `[{content, speaker?, allowSecrets?}]`, the text a host
    /// embedder is shown (as the guards keep it; a turn's with its speaker in front), or
    /// `{error: {code, message}}` where the guards refuse it: a JSON array in item order.
    #[wasm_bindgen(js_name = embeddingTexts)]
    pub fn embedding_texts(&self, items: &str) -> std::result::Result<String, JsValue> {
        let items = api::parse_to_embed(&parse(items, "embeddingTexts").map_err(to_js)?).map_err(to_js)?;
        let texts = borrow(&self.inner)?.engine().embedding_texts(&items);
        let list: Vec<Value> = texts
            .into_iter()
            .map(|t| match t {
                Ok(text) => Value::String(text),
                Err(e) => serde_json::json!({ "error": { "code": e.code.as_str(), "message": e.message } }),
            })
            .collect();
        view(&list)
    }

    /// Up to `max` memories stored without a vector, `[{id, text}]`: a host embedder's vectors for
    /// them go to `setVectors`.
    pub fn vectorless(&self, max: usize) -> std::result::Result<String, JsValue> {
        let list = borrow(&self.inner)?.engine().vectorless(max.min(crate::engine::BATCH_MAX));
        view(&list.iter().map(|v| serde_json::json!({ "id": v.id, "text": v.text })).collect::<Vec<_>>())
    }

    /// Installs a host embedder's vectors for memories `vectorless` listed, as one write: `items`
    /// the JSON `[{id, text}]` as listed, `vectors` end to end, `dims[i]` item i's length. A memory
    /// whose text changed meanwhile keeps none; resolves to how many were installed.
    #[wasm_bindgen(js_name = setVectors)]
    pub fn set_vectors(&self, items: String, vectors: Vec<f32>, dims: Vec<i32>) -> Promise {
        write_promise!(self, |b| async {
            let targets = api::parse_vectorless(&parse(&items, "setVectors")?)?;
            if targets.len() != dims.len() {
                return Err(Error::invalid("setVectors: one vector length per item"));
            }
            let vectors = api::split_vectors(&vectors, &dims, "setVectors")?;
            let mut pairs = Vec::with_capacity(targets.len());
            for (t, v) in targets.into_iter().zip(vectors) {
                pairs.push((t, v.ok_or_else(|| Error::invalid("setVectors: every item needs a vector"))?));
            }
            b.mutate(|e| e.set_vectors(pairs.clone())).await.map(|n| JsValue::from(n as u32))
        }
        .await)
    }

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
