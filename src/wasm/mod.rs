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

use serde::Serialize;

use crate::api;
use crate::engine::{EngineOptions, Engram};
use crate::error::{Error, ErrorCode, Result};
use crate::host::{Clock, Embedder};
use crate::index::VectorOptions;
use crate::persist::{EmbedderIdentity, OpenOptions, Store};

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

/// A result as JSON text: what a read returns.
fn view<T: Serialize + ?Sized>(v: &T) -> std::result::Result<String, JsValue> {
    serde_json::to_string(v).map_err(|e| to_js(Error::new(ErrorCode::Internal, format!("cannot render the result ({e})"))))
}

/// A result as a JS string of JSON: what a write resolves to.
fn js_view<T: Serialize + ?Sized>(v: &T) -> Result<JsValue> {
    serde_json::to_string(v).map(|t| JsValue::from_str(&t)).map_err(|e| Error::new(ErrorCode::Internal, format!("cannot render the result ({e})")))
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
    /// `{includeDefault: false}`: reads see only their own namespace unless a call asks.
    exclude_default: bool,
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
        ::wasm_bindgen_futures::future_to_promise(async move {
            let mut guard = $crate::wasm::borrow(&inner)?;
            let $backend: &mut $crate::wasm::Backend = &mut guard;
            let out: $crate::error::Result<::wasm_bindgen::JsValue> = $body;
            out.map_err($crate::wasm::to_js)
        })
    }};
}

// After the macro, so the modules can use it.
mod export_import;
mod jobs;
mod memories;
mod recall;
mod sessions;
mod vectors;

#[wasm_bindgen]
impl EngramCore {
    /// `options`: JSON `{idSeed?, embedder?: {id, dims}, vectorIndex?, guards?, includeDefault?}` —
    /// `embedder` names the host embedder whose vectors will be passed in.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<String>) -> std::result::Result<EngramCore, JsValue> {
        let opts = parse_opt(options, "open options").map_err(to_js)?;
        let api::HandleOptions { id_seed, declared, vectors, guards, exclude_default } = api::parse_handle_options(opts.as_ref()).map_err(to_js)?;
        let engine = Engram::new(Box::new(JsClock), EngineOptions { id_seed, embedder: None, vectors: vectors.clone(), guards, exclude_default });
        Ok(EngramCore { inner: Rc::new(RefCell::new(Backend::Memory(Box::new(engine)))), id_seed, local: None, declared, vectors, guards, exclude_default })
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
    /// `on_batch(done, total)`, when a reembed runs: called after each batch of records embedded; it
    /// may return a promise, awaited before the next batch (the host's turn to report progress and
    /// to give up: a throw or rejection ends the open with that error, nothing written).
    pub fn open(&self, adapter: JsAdapter, options: Option<String>, on_batch: Option<js_sys::Function>) -> Promise {
        let inner = self.inner.clone();
        let (id_seed, local, declared, vectors, guards, exclude_default) =
            (self.id_seed, self.local.clone(), self.declared.clone(), self.vectors.clone(), self.guards, self.exclude_default);
        future_to_promise(async move {
            let opts = parse_opt(options, "open options").map_err(to_js)?;
            let api::StorageOptions { reembed, compact_after, damage } = api::parse_storage_options(opts.as_ref()).map_err(to_js)?;
            let mut guard = borrow(&inner)?;
            if matches!(&*guard, Backend::Stored(_)) || guard.engine().stats().memories > 0 || guard.engine().stats().raw_entries > 0 {
                return Err(to_js(Error::invalid("open: storage can only be attached to a new, empty handle")));
            }
            let embedder: Option<Box<dyn Embedder>> = local.map(|e| Box::new(e) as Box<dyn Embedder>);
            let options = OpenOptions { engine: EngineOptions { id_seed, embedder, vectors, guards, exclude_default }, reembed, compact_after, identity: declared, damage };
            let mut opening = Store::opening(JsStorage::new(adapter), Box::new(JsClock), options).await.map_err(to_js)?;
            while opening.step().map_err(to_js)? {
                if let Some(f) = &on_batch {
                    let (done, total) = opening.progress();
                    let turn = f.call2(&JsValue::NULL, &JsValue::from(done as f64), &JsValue::from(total as f64))?;
                    if turn.is_instance_of::<Promise>() {
                        wasm_bindgen_futures::JsFuture::from(Promise::from(turn)).await?;
                    }
                }
            }
            let store = opening.finish().await.map_err(to_js)?;
            *guard = Backend::Stored(Box::new(store));
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Engine stats plus the size of this wasm instance's linear memory (shared by every store
    /// opened from the same module).
    pub fn stats(&self) -> std::result::Result<String, JsValue> {
        let mut v = serde_json::to_value(borrow(&self.inner)?.engine().stats()).map_err(|e| to_js(Error::new(ErrorCode::Internal, e.to_string())))?;
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

    /// Whether the commits that follow are fenced by the adapter's writer lock (see
    /// `Store::set_fenced`): the facade sets it while it holds a lock whose hold says `fenced`.
    #[wasm_bindgen(js_name = setFenced)]
    pub fn set_fenced(&self, fenced: bool) -> std::result::Result<(), JsValue> {
        if let Backend::Stored(s) = &mut *borrow(&self.inner)? {
            s.set_fenced(fenced);
        }
        Ok(())
    }

    /// Applies what other writers sharing the storage committed; resolves to whether anything changed.
    pub fn sync(&self) -> Promise {
        write_promise!(self, |b| match b {
            Backend::Memory(_) => Ok(JsValue::FALSE),
            Backend::Stored(s) => s.sync().await.map(JsValue::from_bool),
        })
    }
}

impl EngramCore {
    /// Which embedder this handle's vectors come from.
    fn identity(&self) -> Option<EmbedderIdentity> {
        self.local.as_deref().map(EmbedderIdentity::of).or_else(|| self.declared.clone())
    }
}
