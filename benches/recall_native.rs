//! What the evolving read (`recall`) costs beyond the hybrid search it is built on, natively: a store
//! of N verbatim turns (sessions of 20, 384-d clustered vectors given by the host, synthetic text),
//! then the same queries (text and vector) through `search` with the request `recall` makes, and
//! through `recall_by`. The search is the peer measured in the same run; the ratio is what the
//! derivation, the routing and the nearest-turn fill add to it.
//!
//! Vector builds run before the queries (untimed), as a host's background worker would have.
//!
//! `cargo bench --profile bench-native --bench recall_native -- [--n 10000] [--queries 200]`

#[path = "../tests/support/vectors.rs"]
mod vectors;

use engram::host::SystemClock;
use engram::{EngineOptions, Engram, SearchRequest};
use engram::{SessionInput, TurnInput};
use std::time::Instant;
use vectors::Clusters;

const DIMS: usize = 384;
const TURNS_PER_SESSION: usize = 20;
const TOPICS: [&str; 8] = ["the garden shed", "our release train", "the bass guitar", "Biscuit's vet", "the staging cluster", "my commute", "the book club", "quarterly taxes"];

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn p50(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = arg(&args, "--n", 10_000);
    let queries = arg(&args, "--queries", 200).max(1);
    let mut clusters = Clusters::new(500, DIMS, 7);
    let data = clusters.many(n + queries);
    let mut e = Engram::new(Box::new(SystemClock), EngineOptions { id_seed: Some(1), ..EngineOptions::default() });
    let t = Instant::now();
    for (s, chunk) in data[..n].chunks(TURNS_PER_SESSION).enumerate() {
        let turns = chunk
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let k = s * TURNS_PER_SESSION + i;
                TurnInput {
                    role: if i % 2 == 0 { "user" } else { "assistant" }.to_string(),
                    content: format!("About {}: note {k} from day {}, item {}", TOPICS[k % TOPICS.len()], k % 365, k * 7919 % 1000),
                    embedding: Some(v.clone()),
                    ..TurnInput::default()
                }
            })
            .collect();
        e.ingest(SessionInput { id: format!("s{s}"), turns, ..SessionInput::default() }).expect("ingest");
    }
    while let Some(input) = e.plan_vector_build(false) {
        e.install_vector_build(input.build_with(true)).expect("install");
    }
    println!("{n} turns ingested and indexed in {:.1} s", t.elapsed().as_secs_f64());

    let (mut search, mut recall) = (Vec::new(), Vec::new());
    for (q, v) in data[n..].iter().enumerate() {
        let text = format!("what did I say about {}?", TOPICS[q % TOPICS.len()]);
        let req =
            SearchRequest { query: Some(text.clone()), embedding: Some(v.clone()), limit: Some(30), dry_run: true, explain: true, include_superseded: true, ..Default::default() };
        let t = Instant::now();
        let hits = e.search(&req).expect("search");
        search.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(!hits.is_empty());
        let t = Instant::now();
        let r = e.recall_by(&text, Some(v.clone()), None, 600, None).expect("recall");
        recall.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(!r.context.ids.is_empty());
    }
    let (s, r) = (p50(search), p50(recall));
    println!("{n} turns, {queries} queries: recall p50 {r:.2} ms, search p50 {s:.2} ms, recall/search {:.2}×", r / s);
}
