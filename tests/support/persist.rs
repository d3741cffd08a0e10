//! Shared pieces of the persistence tests: a workload driver, storages that record or fail, a
//! deterministic embedder.
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use engram::engine::EngineState;
use engram::host::{Embedder, ManualClock, Storage, StorageKey};
use engram::persist::{block_on, MemoryStorage, OpenOptions, Store};
use engram::{EngineOptions, Error, ErrorCode, Result};

pub const T0: i64 = 1_700_000_000_000;

/// One storage call as it reached the adapter.
#[derive(Clone, Debug)]
pub enum Write {
    Save(StorageKey, Vec<u8>),
    Remove(StorageKey),
}

/// What a call of `FaultyStorage` does when the fault fires.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fault {
    /// Fails before touching anything.
    Io,
    /// Out of quota.
    Quota,
    /// Writes half of the data, then fails (a save that tore).
    TornThenIo,
    /// Writes everything, then fails (the write landed; the acknowledgement was lost).
    LandsThenIo,
}

/// A `MemoryStorage` that logs every write and can fail its N-th call.
#[derive(Default)]
pub struct FaultyStorage {
    pub inner: MemoryStorage,
    pub log: RefCell<Vec<Write>>,
    pub calls: Cell<usize>,
    /// Call number (0-based, counted over every method) that fails, and how.
    pub fail_at: Cell<Option<(usize, Fault)>>,
    /// A second call that fails, independently of `fail_at`.
    pub fail_also: Cell<Option<(usize, Fault)>>,
    pub saves: Cell<usize>,
    /// Every snapshot save fails (a compaction that cannot get through), and how many were tried.
    pub fail_snapshots: Cell<bool>,
    pub snapshot_saves: Cell<usize>,
}

impl FaultyStorage {
    fn call(&self) -> Option<Fault> {
        let n = self.calls.get();
        self.calls.set(n + 1);
        [self.fail_at.get(), self.fail_also.get()].into_iter().flatten().find(|&(at, _)| at == n).map(|(_, f)| f)
    }
    /// Makes the next call fail.
    pub fn fail_next(&self, f: Fault) {
        self.fail_at.set(Some((self.calls.get(), f)));
    }
    pub fn clear_fault(&self) {
        self.fail_at.set(None);
        self.fail_also.set(None);
    }
}

fn fault_error(f: Fault) -> Error {
    match f {
        Fault::Quota => Error::new(ErrorCode::StorageFull, "quota exceeded (injected)"),
        _ => Error::new(ErrorCode::Storage, "I/O error (injected)"),
    }
}

/// A shared handle (the store owns one, the test keeps another).
#[derive(Clone, Default)]
pub struct Faulty(pub Rc<FaultyStorage>);

impl std::ops::Deref for Faulty {
    type Target = FaultyStorage;
    fn deref(&self) -> &FaultyStorage {
        &self.0
    }
}

impl Faulty {
    /// What a failing write leaves behind before it reports the failure.
    async fn fault_write(&self, key: &[String], data: &[u8], f: Fault) -> Result<()> {
        let landed = match f {
            Fault::TornThenIo => &data[..data.len() / 2],
            Fault::LandsThenIo => data,
            Fault::Io | Fault::Quota => return Ok(()),
        };
        self.log.borrow_mut().push(Write::Save(key.to_vec(), landed.to_vec()));
        self.inner.save(key, landed).await
    }
}

impl Storage for Faulty {
    async fn load(&self, key: &[String]) -> Result<Option<Vec<u8>>> {
        if let Some(f) = self.call() {
            return Err(fault_error(f));
        }
        self.inner.load(key).await
    }
    async fn save(&self, key: &[String], data: &[u8]) -> Result<()> {
        if let Some(f) = self.call() {
            self.fault_write(key, data, f).await?;
            return Err(fault_error(f));
        }
        if key.get(1).is_some_and(|k| k == "snapshot") {
            self.snapshot_saves.set(self.snapshot_saves.get() + 1);
            if self.fail_snapshots.get() {
                return Err(fault_error(Fault::Io));
            }
        }
        self.saves.set(self.saves.get() + 1);
        self.log.borrow_mut().push(Write::Save(key.to_vec(), data.to_vec()));
        self.inner.save(key, data).await
    }
    async fn create(&self, key: &[String], data: &[u8]) -> Result<bool> {
        if let Some(f) = self.call() {
            if self.inner.load(key).await?.is_none() {
                self.fault_write(key, data, f).await?;
            }
            return Err(fault_error(f));
        }
        let created = self.inner.create(key, data).await?;
        if created {
            self.saves.set(self.saves.get() + 1);
            self.log.borrow_mut().push(Write::Save(key.to_vec(), data.to_vec()));
        }
        Ok(created)
    }
    async fn remove(&self, key: &[String]) -> Result<()> {
        if let Some(f) = self.call() {
            return Err(fault_error(f));
        }
        self.log.borrow_mut().push(Write::Remove(key.to_vec()));
        self.inner.remove(key).await
    }
    async fn load_range(&self, prefix: &[String]) -> Result<Vec<(StorageKey, Vec<u8>)>> {
        if let Some(f) = self.call() {
            return Err(fault_error(f));
        }
        self.inner.load_range(prefix).await
    }
    async fn remove_range(&self, prefix: &[String]) -> Result<()> {
        if let Some(f) = self.call() {
            return Err(fault_error(f));
        }
        self.inner.remove_range(prefix).await
    }
}

/// A deterministic embedder: letter-bucket counts, so similar texts get similar vectors.
pub struct HashEmbedder {
    pub id: String,
    pub dims: usize,
}

impl Embedder for HashEmbedder {
    fn id(&self) -> &str {
        &self.id
    }
    fn dims(&self) -> usize {
        self.dims
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.1f32; self.dims];
                for (i, b) in t.bytes().enumerate() {
                    v[(b as usize + i % 3) % self.dims] += 1.0;
                }
                v
            })
            .collect())
    }
}

pub fn clock() -> Rc<ManualClock> {
    Rc::new(ManualClock::new(T0))
}

pub fn options(compact_after: usize) -> OpenOptions {
    OpenOptions { engine: EngineOptions { id_seed: Some(7), embedder: None, ..EngineOptions::default() }, reembed: false, compact_after, identity: None, ..OpenOptions::default() }
}

pub fn open<S: Storage>(storage: S, compact_after: usize) -> Result<Store<S>> {
    block_on(Store::open(storage, Box::new(clock()), options(compact_after)))
}

/// The state an image opens to, or the error.
pub fn open_state(records: Vec<(StorageKey, Vec<u8>)>) -> Result<EngineState> {
    open(MemoryStorage::from_records(records), usize::MAX).map(|s| s.engine().state())
}

/// A tiny deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One step of the recorded workloads.
#[derive(Clone, Debug)]
pub enum Step {
    Add { content: String, ns: &'static str, vector: bool },
    Update { pick: usize, content: String },
    Delete { pick: usize },
    DeleteAll { ns: &'static str },
    Ingest { session: usize, turns: usize },
    DeleteSession { session: usize },
    Search { word: String },
    Flush,
    Compact,
    Reset,
}

const WORDS: [&str; 12] = ["coffee", "tea", "mountain", "river", "python", "rust", "garden", "violin", "paris", "tokyo", "cat", "dog"];
const NAMESPACES: [&str; 3] = ["default", "work", "home"];

/// `n` steps, mostly adds, with every kind of write mixed in.
pub fn workload(seed: u64, n: usize) -> Vec<Step> {
    let mut r = Rng(seed);
    let word = |r: &mut Rng| WORDS[r.below(WORDS.len())].to_string();
    (0..n)
        .map(|i| match r.below(100) {
            0..=44 => Step::Add { content: format!("{} {} note {}", word(&mut r), word(&mut r), r.below(60)), ns: NAMESPACES[r.below(3)], vector: r.below(2) == 0 },
            45..=54 => Step::Update { pick: r.below(1000), content: format!("{} changed {}", word(&mut r), i) },
            55..=62 => Step::Delete { pick: r.below(1000) },
            63..=71 => Step::Ingest { session: r.below(6), turns: 1 + r.below(4) },
            72..=74 => Step::DeleteSession { session: r.below(6) },
            75..=86 => Step::Search { word: word(&mut r) },
            87..=91 => Step::Flush,
            92..=94 => Step::Compact,
            95..=96 => Step::DeleteAll { ns: NAMESPACES[r.below(3)] },
            97 if i > n / 2 => Step::Reset,
            _ => Step::Add { content: format!("{} plain {}", word(&mut r), i), ns: "default", vector: false },
        })
        .collect()
}

fn unit_vector(text: &str) -> Vec<f32> {
    HashEmbedder { id: "v".into(), dims: 8 }.embed(&[text]).unwrap().remove(0)
}

/// Runs one step. Engine-level rejections (NotFound, …) are part of the workload; storage errors are
/// returned for the caller to judge.
pub fn run<S: Storage>(store: &mut Store<S>, step: &Step) -> Result<()> {
    use engram::{MemoryPatch, NewMemory, SearchRequest, SessionInput, TurnInput};
    let ids: Vec<String> = store.engine().state().memories.iter().map(|(m, _)| m.id.clone()).collect();
    let pick = |p: usize| ids.get(p % ids.len().max(1)).cloned().unwrap_or_else(|| "missing".into());
    let r = block_on(async {
        match step {
            Step::Add { content, ns, vector } => {
                let embedding = vector.then(|| unit_vector(content));
                store.add(NewMemory { content: content.clone(), namespace: Some(ns.to_string()), embedding, ..Default::default() }).await.map(drop)
            }
            Step::Update { pick: p, content } => store.update(&pick(*p), MemoryPatch { content: Some(content.clone()), ..Default::default() }).await.map(drop),
            Step::Delete { pick: p } => store.delete(&pick(*p)).await,
            Step::DeleteAll { ns } => store.delete_all(Some(ns)).await.map(drop),
            Step::Ingest { session, turns } => {
                let turns = (0..*turns)
                    .map(|t| TurnInput {
                        role: if t % 2 == 0 { "user".into() } else { "assistant".into() },
                        content: format!("turn {t} of {session} about {}", WORDS[(t + session) % 12]),
                        embedding: Some(unit_vector(&format!("t{t}s{session}"))),
                        ..Default::default()
                    })
                    .collect();
                store.ingest(SessionInput { id: format!("s{session}"), namespace: None, date: None, turns, ..Default::default() }).await.map(drop)
            }
            Step::DeleteSession { session } => store.delete_session(&format!("s{session}")).await.map(drop),
            Step::Search { word } => store.search(&SearchRequest { query: Some(word.clone()), limit: Some(5), ..Default::default() }).map(drop),
            Step::Flush => store.flush().await,
            Step::Compact => store.compact().await,
            Step::Reset => store.reset().await,
        }
    });
    match r {
        Err(e) if matches!(e.code, ErrorCode::NotFound | ErrorCode::InvalidInput) => Ok(()),
        r => r,
    }
}

pub fn flush<S: Storage>(store: &mut Store<S>) {
    block_on(store.flush()).unwrap();
}

/// A state with raw entries by id: their slot order is internal (a re-put turn takes a new slot),
/// memories keep theirs (it orders ties in `get_all`).
pub fn canonical(mut s: EngineState) -> EngineState {
    s.raw.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    s
}

/// Asserts two states are equal, reporting only what differs.
pub fn assert_same(got: EngineState, want: EngineState, what: &str) {
    let (got, want) = (canonical(got), canonical(want));
    if got == want {
        return;
    }
    let ids = |s: &EngineState| s.memories.iter().map(|(m, _)| m.id.clone()).collect::<Vec<_>>();
    let diff_m: Vec<_> = got.memories.iter().zip(&want.memories).filter(|(a, b)| a != b).take(2).collect();
    let diff_r: Vec<_> = got.raw.iter().zip(&want.raw).filter(|(a, b)| a != b).take(2).collect();
    panic!(
        "{what}: states differ\n memories {} vs {} (ids equal: {}), first diffs {diff_m:?}\n raw {} vs {}, first diffs {diff_r:?}\n history {} vs {}",
        got.memories.len(),
        want.memories.len(),
        ids(&got) == ids(&want),
        got.raw.len(),
        want.raw.len(),
        got.history.len(),
        want.history.len()
    );
}

/// A compacted store of a few dozen records: one snapshot record.
pub fn reference_snapshot() -> (StorageKey, Vec<u8>) {
    let storage = Faulty::default();
    let mut store = open(storage.clone(), 1000).unwrap();
    for step in workload(77, 60) {
        run(&mut store, &step).unwrap();
    }
    block_on(store.compact()).unwrap();
    let mut records: Vec<_> = storage.inner.dump().into_iter().filter(|(k, _)| k[1] == "snapshot").collect();
    assert_eq!(records.len(), 1);
    records.remove(0)
}
