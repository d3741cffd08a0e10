//! Writes the seed corpus of the `import` fuzz target: valid export files of small, deterministic
//! stores (fixed id seed, manual clock), one per shape of file the importer reads.
//!
//!     cargo run --manifest-path fuzz/Cargo.toml --example make_seeds -- fuzz/seeds/import

use std::path::PathBuf;

use engram::host::{Embedder, ManualClock};
use engram::persist::{block_on, MemoryStorage, OpenOptions, Store};
use engram::{EngineOptions, Kind, MemoryPatch, NewMemory, SessionInput, TurnInput};

/// 2024-01-01T00:00:00Z.
const T0: i64 = 1_704_067_200_000;

/// A tiny deterministic embedder (byte histogram; the engine normalizes).
struct Bytes4;

impl Embedder for Bytes4 {
    fn id(&self) -> &str {
        "fuzz-bytes4"
    }
    fn dims(&self) -> usize {
        4
    }
    fn embed(&self, texts: &[&str]) -> engram::Result<Vec<Vec<f32>>> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0.25f32; 4];
                for (i, b) in t.bytes().enumerate() {
                    v[(b as usize + i) % 4] += 1.0;
                }
                v
            })
            .collect())
    }
}

fn open(seed: u64, embedder: bool) -> Store<MemoryStorage> {
    let embedder: Option<Box<dyn Embedder>> = if embedder { Some(Box::new(Bytes4)) } else { None };
    let options = OpenOptions { engine: EngineOptions { id_seed: Some(seed), embedder, ..EngineOptions::default() }, ..OpenOptions::default() };
    block_on(Store::open(MemoryStorage::new(), Box::new(ManualClock::new(T0)), options)).expect("open")
}

fn memory(content: &str) -> NewMemory {
    NewMemory { content: content.into(), ..Default::default() }
}

fn session(id: &str, namespace: Option<&str>, turns: &[(&str, &str)]) -> SessionInput {
    SessionInput {
        id: id.into(),
        namespace: namespace.map(Into::into),
        date: Some(T0 - 86_400_000),
        turns: turns
            .iter()
            .map(|(role, content)| TurnInput { role: (*role).into(), content: (*content).into(), ..Default::default() })
            .collect(),
        allow_secrets: false,
    }
}

/// Memories of every kind with tags, metadata, source and dates; one updated, one deleted, one
/// reinforced (so history has ADD, UPDATE, DELETE and REINFORCE events).
fn memories(store: &mut Store<MemoryStorage>) {
    let mut meta = serde_json::Map::new();
    meta.insert("origin".into(), serde_json::json!({"app": "fuzz", "n": 3, "ok": true, "x": -0.5}));
    let a = block_on(store.add(NewMemory {
        content: "Alice prefers tea over coffee".into(),
        kind: Some(Kind::Semantic),
        importance: Some(0.8),
        tags: vec!["pref".into(), "drink".into()],
        source: Some("chat".into()),
        metadata: Some(meta),
        ..Default::default()
    }))
    .expect("add");
    block_on(store.add(NewMemory {
        content: "Met Bob in Zürich on Tuesday — 会议".into(),
        kind: Some(Kind::Episodic),
        event_at: Some(T0 - 3 * 86_400_000),
        ..Default::default()
    }))
    .expect("add");
    let c = block_on(store.add(NewMemory { content: "To deploy: run make release".into(), kind: Some(Kind::Procedural), ..Default::default() })).expect("add");
    block_on(store.add(memory("Alice prefers tea over coffee"))).expect("reinforce");
    block_on(store.update(&a.memory.id, MemoryPatch { tags: Some(vec!["pref".into()]), ..Default::default() })).expect("update");
    block_on(store.delete(&c.memory.id)).expect("delete");
}

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "fuzz/seeds/import".into()));
    std::fs::create_dir_all(&dir).expect("seed dir");
    let mut files: Vec<(&str, Vec<u8>)> = Vec::new();

    files.push(("empty", open(1, false).export(None)));

    let mut s = open(2, false);
    memories(&mut s);
    files.push(("memories", s.export(None)));

    let mut s = open(3, false);
    let ingested = block_on(s.ingest(session("s1", None, &[("user", "I moved to Lisbon last spring"), ("assistant", "How do you like it?")]))).expect("ingest");
    block_on(s.add(NewMemory { content: "The user lives in Lisbon".into(), derived_from: vec![ingested.entry_ids[0].clone()], ..Default::default() })).expect("add");
    files.push(("sessions", s.export(None)));

    let mut s = open(4, true);
    memories(&mut s);
    block_on(s.ingest(session("s2", Some("work"), &[("user", "the build is red again"), ("assistant", "the flaky test is back")]))).expect("ingest");
    block_on(s.add(NewMemory { content: "CI is flaky on Mondays".into(), namespace: Some("work".into()), ..Default::default() })).expect("add");
    files.push(("vectors", s.export(None)));
    files.push(("namespace", s.export(Some("work"))));

    for (name, bytes) in files {
        let path = dir.join(format!("{name}.bin"));
        std::fs::write(&path, &bytes).expect("write seed");
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
}
