//! A JS storage adapter seen as the core's [`Storage`] trait. The JS facade hands over an adapter
//! whose methods always return promises and reject with `{code, message}` errors; this side still
//! checks every value it gets back, since a host adapter is outside our control.

use js_sys::{Array, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::error::{Error, ErrorCode, Result};
use crate::host::{Storage, StorageKey};

#[wasm_bindgen]
extern "C" {
    /// `{load, save, remove, loadRange, removeRange}` of the automerge-repo adapter shape.
    pub type JsAdapter;

    #[wasm_bindgen(method, catch)]
    fn load(this: &JsAdapter, key: Array) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn save(this: &JsAdapter, key: Array, data: Uint8Array) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn remove(this: &JsAdapter, key: Array) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = loadRange)]
    fn load_range(this: &JsAdapter, prefix: Array) -> std::result::Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = removeRange)]
    fn remove_range(this: &JsAdapter, prefix: Array) -> std::result::Result<Promise, JsValue>;
    /// Optional: saves only where nothing is stored, resolving to whether it wrote.
    #[wasm_bindgen(method, catch)]
    fn create(this: &JsAdapter, key: Array, data: Uint8Array) -> std::result::Result<Promise, JsValue>;
    /// Optional: the adapter's durability barrier.
    #[wasm_bindgen(method, catch)]
    fn flush(this: &JsAdapter) -> std::result::Result<Promise, JsValue>;
}

pub struct JsStorage {
    adapter: JsAdapter,
    has_create: bool,
    has_flush: bool,
}

impl JsStorage {
    pub fn new(adapter: JsAdapter) -> Self {
        let has = |name: &str| Reflect::get(&adapter, &JsValue::from_str(name)).is_ok_and(|f| f.is_function());
        let (has_create, has_flush) = (has("create"), has("flush"));
        JsStorage { adapter, has_create, has_flush }
    }
}

fn key_array(key: &[String]) -> Array {
    key.iter().map(|s| JsValue::from_str(s)).collect()
}

/// The one place an adapter rejection becomes an engine error: `StorageFull` and `Corrupt` (an
/// adapter that finds its records unreadable, e.g. `encrypted` with the wrong key) keep their code,
/// anything else is `Storage`. The facade's adapter wrapper (`pkg-template/src/storage-bridge.js`)
/// already rejects with such a typed error whose message names the operation and key; a rejection
/// without a code (an adapter handed over some other way) gets the operation named here.
fn storage_error(what: &str, e: JsValue) -> Error {
    let field = |name: &str| Reflect::get(&e, &JsValue::from_str(name)).ok().and_then(|v| v.as_string());
    let message = field("message").or_else(|| e.as_string()).unwrap_or_else(|| "unknown error".into());
    match field("code").as_deref() {
        Some("StorageFull") => Error::new(ErrorCode::StorageFull, message),
        Some("Storage") => Error::new(ErrorCode::Storage, message),
        Some("Corrupt") => Error::new(ErrorCode::Corrupt, message),
        _ => Error::new(ErrorCode::Storage, format!("storage {what} failed: {message}")),
    }
}

async fn settle(what: &str, call: std::result::Result<Promise, JsValue>) -> Result<JsValue> {
    let promise = call.map_err(|e| storage_error(what, e))?;
    let settled = JsFuture::from(promise).await;
    super::fault::injected_panic();
    settled.map_err(|e| storage_error(what, e))
}

fn bad_result(what: &str) -> Error {
    Error::new(ErrorCode::Storage, format!("storage {what} returned something other than the adapter contract says"))
}

/// A load is about to copy these records into linear memory and decode them into about twice their
/// size. The allocator grows linear memory only as far as each allocation needs, and every
/// `memory.grow` is slow in engines (measured: ~0.7 s of a 1.9 s open of 50k memories in Node went
/// to thousands of small grows), so the heap is grown once, up front, by what the load will use:
/// freed at once, that space stays in the allocator for the allocations that follow.
fn reserve_heap_for(entries: &Array) {
    let total: usize =
        entries.iter().filter_map(|e| Reflect::get(&e, &JsValue::from_str("data")).ok()).filter_map(|d| d.dyn_into::<Uint8Array>().ok()).map(|a| a.length() as usize).sum();
    if total >= 1 << 20 {
        let mut reserve: Vec<u8> = Vec::new();
        // Best effort: without the room, allocations grow memory as they go.
        let _ = reserve.try_reserve_exact(total.saturating_mul(3));
    }
}

fn bytes(v: JsValue, what: &str) -> Result<Vec<u8>> {
    v.dyn_into::<Uint8Array>().map(|a| a.to_vec()).map_err(|_| bad_result(what))
}

fn key_of(v: JsValue, what: &str) -> Result<StorageKey> {
    let arr = v.dyn_into::<Array>().map_err(|_| bad_result(what))?;
    arr.iter().map(|s| s.as_string().ok_or_else(|| bad_result(what))).collect()
}

impl Storage for JsStorage {
    async fn load(&self, key: &[String]) -> Result<Option<Vec<u8>>> {
        let v = settle("load", self.adapter.load(key_array(key))).await?;
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        bytes(v, "load").map(Some)
    }

    async fn save(&self, key: &[String], data: &[u8]) -> Result<()> {
        // A copy in JS memory: a view into wasm memory would go stale if the memory grows.
        settle("save", self.adapter.save(key_array(key), Uint8Array::from(data))).await.map(drop)
    }

    async fn remove(&self, key: &[String]) -> Result<()> {
        settle("remove", self.adapter.remove(key_array(key))).await.map(drop)
    }

    async fn load_range(&self, prefix: &[String]) -> Result<Vec<(StorageKey, Vec<u8>)>> {
        let v = settle("loadRange", self.adapter.load_range(key_array(prefix))).await?;
        let entries = v.dyn_into::<Array>().map_err(|_| bad_result("loadRange"))?;
        reserve_heap_for(&entries);
        let mut out = Vec::with_capacity(entries.length() as usize);
        for entry in entries.iter() {
            let key = Reflect::get(&entry, &JsValue::from_str("key")).map_err(|_| bad_result("loadRange"))?;
            let data = Reflect::get(&entry, &JsValue::from_str("data")).map_err(|_| bad_result("loadRange"))?;
            out.push((key_of(key, "loadRange")?, bytes(data, "loadRange")?));
        }
        Ok(out)
    }

    async fn remove_range(&self, prefix: &[String]) -> Result<()> {
        settle("removeRange", self.adapter.remove_range(key_array(prefix))).await.map(drop)
    }

    async fn create(&self, key: &[String], data: &[u8]) -> Result<bool> {
        if !self.has_create {
            // Look, then save: exclusive only under the adapter's lock (README: adapter contract).
            if self.load(key).await?.is_some() {
                return Ok(false);
            }
            return self.save(key, data).await.map(|()| true);
        }
        let created = settle("create", self.adapter.create(key_array(key), Uint8Array::from(data))).await?;
        created.as_bool().ok_or_else(|| bad_result("create"))
    }

    async fn flush(&self) -> Result<()> {
        if !self.has_flush {
            return Ok(());
        }
        settle("flush", self.adapter.flush()).await.map(drop)
    }
}
