//! Export and import across the boundary: whole files, streamed slices, and an import fed in slices.

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::{borrow, js_view, to_js, Backend, EngramCore};
use crate::engine::Engram;
use crate::error::{Error, Result};
use crate::persist::{export, EmbedderIdentity};

#[wasm_bindgen]
impl EngramCore {
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
            merged.and_then(|m| js_view(&m))
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
            merged.and_then(|m| js_view(&m))
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
