//! Writes an export file of N synthetic memories for the persistence benchmarks
//! (`benches/persist.mjs`): each memory has 8–40 words drawn Zipf-like from a 5,000-word
//! vocabulary, one or two tags, a random unit 384-dim vector and its `add` history event, so a store
//! built by importing it has the shape of one built by `add`, in seconds instead of hours.
//!
//! `--vectors FILE` takes the vectors, in order, from an embedding cache written by the eval harness
//! (`.cache/embeddings/*.bin`: records of an 8-byte text hash and 384 f32), so vector benchmarks can
//! run on real embeddings of conversation turns; `--skip K` starts at the K-th vector.
//!
//! `--uniform` gives every memory the same kind and time, so search ranks them by similarity alone
//! (what a vector-index benchmark compares against an exact nearest-neighbour answer).
//!
//! `cargo run --release --features internals --example synthetic_export -- N OUT [--vectors FILE [--skip K]] [--uniform]`

use engram::internals::persist::{encode, OpWriter, RecordKind};
use engram::model::{Kind, Layer, Memory};
use engram::store::{EventKind, HistoryEvent};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: deterministic across machines, no dependency.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SYLLABLES: [&str; 24] =
    ["ka", "lo", "mi", "ren", "tas", "vo", "shi", "pa", "dun", "el", "or", "ix", "qu", "ba", "ne", "sa", "ti", "gor", "wen", "zu", "ha", "fi", "mo", "lek"];

fn vocabulary(n: usize, rng: &mut Rng) -> Vec<String> {
    let mut words = Vec::with_capacity(n);
    let mut seen = std::collections::HashSet::new();
    while words.len() < n {
        let len = 1 + rng.below(3);
        let w: String = (0..len).map(|_| SYLLABLES[rng.below(SYLLABLES.len())]).collect();
        if seen.insert(w.clone()) {
            words.push(w);
        }
    }
    words
}

/// A Zipf-like rank: frequent words are few, rare words many (as in conversation text).
fn zipf(rng: &mut Rng, n: usize) -> usize {
    let u = rng.unit();
    (((n as f64 + 1.0).powf(u) - 1.0) as usize).min(n - 1)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(n), Some(out)) = (args.first().and_then(|s| s.parse::<usize>().ok()), args.get(1)) else {
        eprintln!("usage: synthetic_export N OUT [--vectors FILE [--skip K]]");
        std::process::exit(2);
    };
    let dims = 384;
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1));
    let real: Option<Vec<u8>> = flag("--vectors").map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("cannot read {p}: {e}")));
    let skip: usize = flag("--skip").and_then(|s| s.parse().ok()).unwrap_or(0);
    let uniform = args.iter().any(|a| a == "--uniform");
    let record = 8 + 4 * dims;
    if let Some(bytes) = &real {
        let have = bytes.len() / record;
        if have < skip + n {
            eprintln!("synthetic_export: {have} vectors in the file, asked for {} from {skip}", n);
            std::process::exit(1);
        }
    }
    let mut rng = Rng(0x5eed_0000 ^ n as u64);
    let words = vocabulary(5_000, &mut rng);
    let t0: i64 = 1_700_000_000_000;
    let mut w = OpWriter::default();
    let mut history = Vec::with_capacity(n);
    for i in 0..n {
        let len = 8 + rng.below(33);
        let content = (0..len).map(|_| words[zipf(&mut rng, words.len())].as_str()).collect::<Vec<_>>().join(" ");
        // Distinct, as `add` stores them (imports are held to its rules).
        let mut tags: Vec<String> = (0..1 + rng.below(2)).map(|_| words[rng.below(200)].clone()).collect();
        tags.dedup();
        let mut v: Vec<f32> = match &real {
            Some(bytes) => bytes[(skip + i) * record + 8..(skip + i + 1) * record].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            None => (0..dims).map(|_| rng.unit() as f32 * 2.0 - 1.0).collect(),
        };
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= norm);
        let at = if uniform { t0 } else { t0 + i as i64 * 60_000 };
        let id = format!("{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}", i, rng.below(1 << 16), rng.below(1 << 12), rng.below(1 << 12), rng.next() >> 16);
        let m = Memory {
            id: id.clone(),
            namespace: "default".into(),
            content: content.clone(),
            kind: if uniform { Kind::Semantic } else { [Kind::Semantic, Kind::Episodic, Kind::Procedural][rng.below(3)] },
            layer: Layer::Buffer,
            importance: 0.5,
            tags,
            source: None,
            metadata: Default::default(),
            created_at: at,
            modified_at: at,
            last_accessed: at,
            access_count: 0,
            repetition_count: 0,
            event_at: None,
            derived_from: vec![],
            links: vec![],
            ..Default::default()
        };
        w.put_memory(&m, Some(&v));
        history.push(HistoryEvent { memory_id: id, event: EventKind::Add, at, content: Some(content), previous_content: None, prompt_id: None, related: None, reason: None });
    }
    for h in &history {
        w.history(h);
    }
    let bytes = encode(RecordKind::Export, 0, &w.into_bytes());
    std::fs::write(out, &bytes).unwrap_or_else(|e| {
        eprintln!("synthetic_export: cannot write {out}: {e}");
        std::process::exit(1);
    });
    eprintln!("synthetic_export: {n} memories, {dims} dims, {:.1} MB → {out}", bytes.len() as f64 / 1e6);
}
