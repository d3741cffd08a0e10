//! The local ONNX embedder as a JS class. One loaded model can serve several stores: the handle is
//! shared by reference count, so `EngramCore::set_embedder` does not consume the JS object.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::error::to_js;
use crate::embed::{OnnxEmbedder, Precision};
use crate::host::Embedder;

#[wasm_bindgen]
pub struct LocalEmbedder {
    inner: Rc<OnnxEmbedder>,
}

#[wasm_bindgen]
impl LocalEmbedder {
    /// Loads the model and tokenizer from their bytes (the JS side fetches or reads them);
    /// `precision` is `"int8"` (the default) or `"f32"`.
    #[wasm_bindgen(constructor)]
    pub fn new(model: &[u8], tokenizer: &[u8], precision: Option<String>) -> Result<LocalEmbedder, JsValue> {
        let precision = precision.as_deref().map(Precision::parse).transpose().map_err(to_js)?.unwrap_or_default();
        OnnxEmbedder::with_precision(model, tokenizer, precision).map(|e| LocalEmbedder { inner: Rc::new(e) }).map_err(to_js)
    }

    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.inner.id().to_string()
    }

    #[wasm_bindgen(getter)]
    pub fn dims(&self) -> u32 {
        self.inner.dims() as u32
    }

    /// Word-piece ids per text, with [CLS] and [SEP], truncated as the model sees them.
    pub fn tokenize(&self, texts: Vec<String>) -> Result<JsValue, JsValue> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let ids = self.inner.tokenize(&refs).map_err(to_js)?;
        let outer = js_sys::Array::new();
        for row in ids {
            outer.push(&js_sys::Uint32Array::from(row.as_slice()));
        }
        Ok(outer.into())
    }

    /// Embeds every text; returns the vectors concatenated (`texts.length × dims` floats).
    pub fn embed(&self, texts: Vec<String>) -> Result<Vec<f32>, JsValue> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        self.inner.embed(&refs).map(|vs| vs.concat()).map_err(to_js)
    }
}

impl LocalEmbedder {
    pub(super) fn shared(&self) -> Rc<OnnxEmbedder> {
        self.inner.clone()
    }
}
