//! What the host supplies. The core never reaches the outside world itself: time, randomness for ids,
//! storage, embeddings and LLM calls all come through these traits, so tests inject fakes and the wasm
//! layer wraps JS objects.

use crate::error::Result;

/// Wall-clock time in milliseconds since the Unix epoch. `std::time` panics on wasm32, hence a trait.
pub trait Clock {
    fn now_ms(&self) -> i64;
}

/// The system clock, for native builds.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

#[cfg(not(target_arch = "wasm32"))]
impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        use std::time::{SystemTime, UNIX_EPOCH};
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
    }
}

/// A clock that returns what the test sets, so recency and history timestamps are reproducible.
#[derive(Debug, Default)]
pub struct ManualClock(std::cell::Cell<i64>);

impl ManualClock {
    pub fn new(start_ms: i64) -> Self {
        ManualClock(std::cell::Cell::new(start_ms))
    }
    pub fn set(&self, ms: i64) {
        self.0.set(ms)
    }
    pub fn advance(&self, ms: i64) {
        self.0.set(self.0.get() + ms)
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.get()
    }
}

impl<C: Clock + ?Sized> Clock for std::rc::Rc<C> {
    fn now_ms(&self) -> i64 {
        (**self).now_ms()
    }
}

/// A sentence embedder: text in, one unit-length vector of `dims()` floats out per text.
///
/// Synchronous on purpose: the local embedder is CPU work in the same thread. Host embedders that are
/// async (JS callbacks, remote APIs) are awaited by the JS facade before it calls into the core.
pub trait Embedder {
    /// Stable identity of the model (name + weights hash); stores record it so vector generations
    /// never mix silently.
    fn id(&self) -> &str;
    /// Vector length.
    fn dims(&self) -> usize;
    /// Embeds every text; the result has one vector per input, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
}

/// A shared embedder (one loaded model serving several stores) is an embedder.
impl<E: Embedder + ?Sized> Embedder for std::rc::Rc<E> {
    fn id(&self) -> &str {
        (**self).id()
    }
    fn dims(&self) -> usize {
        (**self).dims()
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        (**self).embed(texts)
    }
}

/// Key of a stored record: a path of segments, as in the automerge-repo storage adapter shape.
pub type StorageKey = Vec<String>;

/// Host storage in the automerge-repo adapter shape. Async because browser and Node storage are.
/// The engine's persistence layer (format, commits) is written against this trait. What each method
/// promises is written once, as `StorageAdapter` in `pkg-template/index.d.ts` (the JS adapters the
/// wasm build wraps follow it); `engram-wasm/adapter-tests` checks an adapter against it.
#[allow(async_fn_in_trait)]
pub trait Storage {
    async fn load(&self, key: &[String]) -> Result<Option<Vec<u8>>>;
    async fn save(&self, key: &[String], data: &[u8]) -> Result<()>;
    async fn remove(&self, key: &[String]) -> Result<()>;
    async fn load_range(&self, prefix: &[String]) -> Result<Vec<(StorageKey, Vec<u8>)>>;
    async fn remove_range(&self, prefix: &[String]) -> Result<()>;
    /// Saves `data` under `key` only if nothing is stored there: `Ok(true)` when it wrote,
    /// `Ok(false)` when the key was taken (nothing written). Commits use it so that two writers can
    /// never overwrite each other's chunk. Adapters should make it atomic (create-exclusive); this
    /// default — look, then save — is atomic only while the writer lock holds.
    async fn create(&self, key: &[String], data: &[u8]) -> Result<bool> {
        if self.load(key).await?.is_some() {
            return Ok(false);
        }
        self.save(key, data).await.map(|()| true)
    }
    /// Makes every write acknowledged so far durable (compaction calls it before removing what a
    /// snapshot replaces). A no-op where acknowledged writes are durable already.
    async fn flush(&self) -> Result<()> {
        Ok(())
    }
}

/// One adapter shared by several stores (or by a store and the code inspecting it) is an adapter.
impl<S: Storage + ?Sized> Storage for std::rc::Rc<S> {
    async fn load(&self, key: &[String]) -> Result<Option<Vec<u8>>> {
        (**self).load(key).await
    }
    async fn save(&self, key: &[String], data: &[u8]) -> Result<()> {
        (**self).save(key, data).await
    }
    async fn remove(&self, key: &[String]) -> Result<()> {
        (**self).remove(key).await
    }
    async fn load_range(&self, prefix: &[String]) -> Result<Vec<(StorageKey, Vec<u8>)>> {
        (**self).load_range(prefix).await
    }
    async fn remove_range(&self, prefix: &[String]) -> Result<()> {
        (**self).remove_range(prefix).await
    }
    async fn create(&self, key: &[String], data: &[u8]) -> Result<bool> {
        (**self).create(key, data).await
    }
    async fn flush(&self) -> Result<()> {
        (**self).flush().await
    }
}

/// The host LLM (contract: `crate::llm`): one request in, the reply text out, or why there is
/// none. Natively it drives the extraction loop directly (test doubles implement it); in wasm the JS
/// facade runs the requests through the host's async function and hands the replies back, so the
/// core itself never awaits a model.
pub trait Llm {
    fn complete(&self, request: &crate::llm::LlmRequest) -> std::result::Result<crate::llm::LlmReply, crate::llm::LlmFailure>;
}

type Answer = Box<dyn Fn(&crate::llm::LlmRequest) -> std::result::Result<crate::llm::LlmReply, crate::llm::LlmFailure>>;

/// An `Llm` for tests, as `ManualClock` is a clock for tests: each request is answered by a
/// function of it (or by a script, in order) and kept in `seen`. Never a product default: the host
/// brings its own LLM.
pub struct ScriptedLlm {
    answer: Answer,
    /// Every request, in the order it came.
    pub seen: std::cell::RefCell<Vec<crate::llm::LlmRequest>>,
}

impl ScriptedLlm {
    /// Answers with the texts of `script`, one per request, in order; a request after the last
    /// fails with "script exhausted".
    pub fn new<S: Into<String>>(script: Vec<std::result::Result<S, crate::llm::LlmFailure>>) -> ScriptedLlm {
        ScriptedLlm::replies(script.into_iter().map(|r| r.map(|text| crate::llm::LlmReply::from(text.into().as_str()))).collect())
    }

    /// `new` with whole replies (a reply may report its token usage).
    pub fn replies(script: Vec<std::result::Result<crate::llm::LlmReply, crate::llm::LlmFailure>>) -> ScriptedLlm {
        let script = std::cell::RefCell::new(std::collections::VecDeque::from(script));
        ScriptedLlm {
            answer: Box::new(move |_| script.borrow_mut().pop_front().unwrap_or_else(|| Err(crate::llm::LlmFailure::Error("script exhausted".into())))),
            seen: std::cell::RefCell::default(),
        }
    }

    /// Answers each request with the text `answer(request)`.
    pub fn answering(answer: impl Fn(&crate::llm::LlmRequest) -> std::result::Result<String, crate::llm::LlmFailure> + 'static) -> ScriptedLlm {
        ScriptedLlm { answer: Box::new(move |r| answer(r).map(|text| crate::llm::LlmReply::from(text.as_str()))), seen: std::cell::RefCell::default() }
    }
}

impl Llm for ScriptedLlm {
    fn complete(&self, request: &crate::llm::LlmRequest) -> std::result::Result<crate::llm::LlmReply, crate::llm::LlmFailure> {
        self.seen.borrow_mut().push(request.clone());
        (self.answer)(request)
    }
}
