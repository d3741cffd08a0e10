//! Whether `add` with a vector stays flat as a store grows, natively (no JS, no garbage collector):
//! N adds of 384-d clustered vectors one by one through `Engram::add`, the mean cost of each block
//! of adds, the last block against the first, and the quality of the links `add` found for a sample
//! of the last block against the exact ones (≤ 3 nearest earlier memories with cosine ≥ 0.5).
//! No graph build runs (the engine builds only when a host asks), so the exact tier holds every
//! vector: the worst case for a link search that must not grow with it.
//!
//! `--vectors FILE` adds real vectors instead, in the file's order: records of an 8-byte text key and
//! 384 little-endian f32 (the format of `examples/embed_corpus.rs`, e.g. MiniLM vectors of the dev
//! benchmarks' conversation turns, which arrive session by session as an agent's memories would).
//!
//! `--build-every N` runs the vector builds a host's background worker would (plan, build on 2
//! threads, install; untimed) after every N adds, for the case where builds keep up with the writes:
//! links then come from graph segments as well as the newest rows and the walk.
//!
//! `--consolidate-every N` runs a consolidation epoch (no LLM; untimed) after every N adds, as a host
//! consolidating as it writes would: later adds then walk links the epochs have refined.
//!
//! `--consolidate` then runs consolidation epochs (no LLM) until every memory has been scanned once,
//! and measures the sample's links again: each epoch refines the links of the memories it scans from
//! the full vector search it runs for them (graph segments too, with `--build-every`).
//!
//! `cargo bench --profile bench-native --bench add_scale_native -- [--n 100000] [--block 5000] [--sample 100] [--vectors FILE] [--build-every N] [--consolidate-every N] [--consolidate]`

#[path = "../tests/support/vectors.rs"]
mod vectors;
// The embedding cache's record format (`--vectors`).
#[path = "../tests/support/real_vectors.rs"]
mod real_vectors;

use engram::host::SystemClock;
use engram::{EngineOptions, Engram, NewMemory};
use std::time::Instant;
use vectors::Clusters;

const DIMS: usize = 384;
const LINK_MIN: f32 = 0.5;

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The first `n` vectors of a file in the embedding cache's record format.
fn read_vectors(path: &str, n: usize) -> Vec<Vec<f32>> {
    match real_vectors::read_records(std::path::Path::new(path), DIMS) {
        Ok(records) if !records.is_empty() => records.into_iter().take(n).map(|(_, v)| v).collect(),
        Ok(_) => fail(&format!("--vectors {path}: missing or holds no vectors")),
        Err(e) => fail(&format!("--vectors {e}")),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("add_scale_native: {message}");
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = arg(&args, "--n", 100_000);
    let block = arg(&args, "--block", 5_000).max(1);
    let sample = arg(&args, "--sample", 100);
    let build_every = arg(&args, "--build-every", 0);
    let consolidate_every = arg(&args, "--consolidate-every", 0);
    // Epochs without an LLM; the buffer's cap would evict most of a bulk load, here every memory stays.
    let epoch = engram::engine::ConsolidateOptions { buffer_cap: 1_000_000, ..Default::default() };
    let data = match args.iter().position(|a| a == "--vectors").and_then(|i| args.get(i + 1)) {
        Some(path) => read_vectors(path, n),
        None => Clusters::new(500, DIMS, 42).many(n),
    };
    let n = data.len();
    let mut e = Engram::new(Box::new(SystemClock), EngineOptions { id_seed: Some(1), ..EngineOptions::default() });
    let mut ids = Vec::with_capacity(n);
    let mut links = Vec::with_capacity(n);
    let mut blocks = Vec::new();
    let t0 = Instant::now();
    for start in (0..n).step_by(block) {
        let end = (start + block).min(n);
        let t = Instant::now();
        let mut building = std::time::Duration::ZERO;
        for (i, v) in data[start..end].iter().enumerate() {
            let input = NewMemory {
                content: format!("memory {}: note about topic {} written on day {}", start + i, (start + i) * 7919 % 500, (start + i) % 365),
                embedding: Some(v.clone()),
                ..NewMemory::default()
            };
            let added = e.add(input).expect("add");
            ids.push(added.memory.id.clone());
            links.push(added.memory.links);
            if build_every > 0 && ids.len() % build_every == 0 {
                let paused = Instant::now();
                while let Some(input) = e.plan_vector_build(false) {
                    e.install_vector_build(input.build_with(true)).expect("install");
                }
                building += paused.elapsed();
            }
            if consolidate_every > 0 && ids.len() % consolidate_every == 0 {
                let paused = Instant::now();
                e.consolidate_with(None, &epoch).expect("consolidate");
                building += paused.elapsed();
            }
        }
        let ms = (t.elapsed() - building).as_secs_f64() * 1e3 / (end - start) as f64;
        let stats = e.vector_stats(engram::engine::VectorTarget::Memories);
        println!("{end}: {ms:.3} ms/add (segments {})", stats.segments);
        blocks.push((end, ms));
    }
    let total = t0.elapsed().as_secs_f64();

    let first = n.saturating_sub(block);
    let index: std::collections::HashMap<&String, usize> = ids.iter().enumerate().map(|(i, id)| (id, i)).collect();
    let cosine = |i: usize, j: usize| data[i].iter().zip(&data[j]).map(|(a, b)| a * b).sum::<f32>();
    // Exact top-3 recall is strict where many candidates are near-equal: the cosine the links reach,
    // summed, against the exact links' sum says how much nearness the misses cost.
    let quality = |links: &[Vec<String>]| {
        let (mut found, mut exact, mut found_cos, mut exact_cos) = (0, 0, 0f64, 0f64);
        for k in 0..sample {
            let i = first + k * (n - first) / sample.max(1);
            let mut best: Vec<(usize, f32)> = (0..i).map(|j| (j, cosine(i, j))).filter(|&(_, c)| c >= LINK_MIN).collect();
            best.sort_by(|a, b| b.1.total_cmp(&a.1));
            let truth: Vec<&String> = best.iter().take(3).map(|&(j, _)| &ids[j]).collect();
            exact += truth.len();
            found += links[i].iter().filter(|l| truth.contains(l)).count();
            exact_cos += best.iter().take(3).map(|&(_, c)| c as f64).sum::<f64>();
            found_cos += links[i].iter().map(|l| cosine(i, index[l]) as f64).sum::<f64>();
        }
        format!(
            "{found} of {exact} exact links found ({:.3}); summed cosine {:.3} of the exact links'",
            found as f64 / exact.max(1) as f64,
            found_cos / exact_cos.max(f64::MIN_POSITIVE)
        )
    };
    let (first_ms, last_ms) = (blocks[0].1, blocks[blocks.len() - 1].1);
    println!("{n} adds of {DIMS}-d vectors in {total:.1} s; last block / first block: {:.2}× ({last_ms:.3} vs {first_ms:.3} ms per add)", last_ms / first_ms);
    println!("links vs exact on {sample} of the last block: {}", quality(&links));
    if args.iter().any(|a| a == "--consolidate") {
        let t = Instant::now();
        let (mut epochs, mut relinked) = (0, 0);
        loop {
            let report = e.consolidate_with(None, &epoch).expect("consolidate");
            if report.found.scanned == 0 {
                break;
            }
            epochs += 1;
            relinked += report.relinked;
        }
        let refined: Vec<Vec<String>> = ids.iter().map(|id| e.get(id).map(|m| m.links.clone()).unwrap_or_default()).collect();
        println!("consolidated in {epochs} epochs, {:.1} s: {relinked} of {n} memories relinked", t.elapsed().as_secs_f64());
        println!("links after consolidation, the same sample: {}", quality(&refined));
    }
}
