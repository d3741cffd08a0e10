//! Vector tier benchmark: per size, query latency (p50/p95) of the exact int8 scan, the HNSW tier and
//! a plain f32 brute force in the same run, HNSW build time, recall@10 of HNSW, and bytes per vector.
//!
//! `cargo bench --profile bench-native --features internals --bench vector_native -- [sizes…] [--real PATH]`
//! (default sizes 10000 50000 100000, 384 dims, clustered synthetic vectors; `--real` reads the eval
//! harness's embedding cache — u64 key + 384 f32 per record — and samples queries from it).

#[path = "../tests/support/vectors.rs"]
mod vectors;
// The embedding cache's record format (`--real`).
#[path = "../tests/support/real_vectors.rs"]
mod real_vectors;

use engram::index::{BuildOptions, VectorOptions};
use engram::internals::index::{VectorIndex, GRAPH_EVAL_COST};
use std::time::{Duration, Instant};
use vectors::*;

const DIMS: usize = 384;
const QUERIES: usize = 200;

fn percentile(mut xs: Vec<Duration>, p: f64) -> Duration {
    xs.sort();
    xs[((xs.len() - 1) as f64 * p).round() as usize]
}

fn time_queries(queries: &[Vec<f32>], mut f: impl FnMut(&[f32]) -> usize) -> (Duration, Duration) {
    let mut times = Vec::with_capacity(queries.len());
    let mut sink = 0;
    for q in queries {
        let t = Instant::now();
        sink += f(q);
        times.push(t.elapsed());
    }
    std::hint::black_box(sink);
    (percentile(times.clone(), 0.5), percentile(times, 0.95))
}

fn us(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

fn run(label: &str, data: &[Vec<f32>], queries: &[Vec<f32>], parallel: bool) {
    let n = data.len();
    let labelled: Vec<(u32, Vec<f32>)> = data.iter().cloned().enumerate().map(|(i, v)| (i as u32, v)).collect();
    // The graph tier is measured even where the calibration would keep the scan (its verdict is printed).
    let mut build = BuildOptions { parallel, always_graph: true, ..BuildOptions::default() };
    if let Some(ef) = std::env::var("EF_CONSTRUCTION").ok().and_then(|v| v.parse().ok()) {
        build.ef_construction = ef;
    }
    if let Some(ef) = std::env::var("EF_SEARCH").ok().and_then(|v| v.parse().ok()) {
        build.ef_search = ef;
    }
    let options = VectorOptions { graph_min: usize::MAX, build: build.clone(), ..VectorOptions::default() };
    let mut exact = VectorIndex::with_options(options.clone());
    let mut int8_only = VectorIndex::with_options(VectorOptions { keep_exact: false, ..options.clone() });
    for (d, v) in &labelled {
        exact.insert(*d, v.clone());
        int8_only.insert(*d, v.clone());
    }
    let flat: Vec<f32> = data.iter().flatten().copied().collect();
    let brute = |q: &[f32]| -> usize {
        let mut s: Vec<(f32, u32)> = flat.chunks_exact(DIMS).enumerate().map(|(i, v)| (v.iter().zip(q).map(|(a, b)| a * b).sum(), i as u32)).collect();
        s.select_nth_unstable_by(9, |a, b| b.0.total_cmp(&a.0));
        s[0].1 as usize
    };
    let (f32_50, f32_95) = time_queries(queries, brute);
    let (scan_50, scan_95) = time_queries(queries, |q| exact.search(q, 10, |_| true).len());
    let exact_bytes = exact.stats().memory_bytes;
    let int8_bytes = int8_only.stats().memory_bytes;

    let snapshot = exact.snapshot_for_build();
    let t = Instant::now();
    let output = snapshot.build_with(parallel);
    let build_time = t.elapsed();
    let cal = output.calibration;
    exact.install(output).unwrap();
    let (hnsw_50, hnsw_95) = time_queries(queries, |q| exact.search(q, 10, |_| true).len());
    let (hnsw50_50, _) = time_queries(queries, |q| exact.search(q, 50, |_| true).len());
    let (filt_50, filt_95) = time_queries(queries, |q| exact.search(q, 10, |d| d % 20 == 0).len());
    let graph_bytes = exact.stats().memory_bytes;
    let graph_len: usize = exact.segments().map(|(_, g)| g.to_bytes().len()).sum();
    let recall = |k: usize| {
        queries
            .iter()
            .map(|q| {
                let truth: Vec<u32> = exact_top(&labelled, q, k, |_| true).into_iter().map(|h| h.0).collect();
                exact.search(q, k, |_| true).iter().filter(|h| truth.contains(&h.doc)).count() as f64 / k as f64
            })
            .fold((0.0, 1.0f64), |(s, w), r| (s + r, w.min(r)))
    };
    let (r10, w10) = recall(10);
    let (r50, w50) = recall(50);
    let qn = queries.len() as f64;
    println!("## {label}: n = {n}, {DIMS} dims, {} queries, build {}", queries.len(), if parallel { "parallel" } else { "1 thread" });
    println!("  f32 brute force     p50 {:>9}  p95 {:>9}", us(f32_50), us(f32_95));
    println!("  int8 scan + rescore p50 {:>9}  p95 {:>9}", us(scan_50), us(scan_95));
    println!("  HNSW k=10           p50 {:>9}  p95 {:>9}   recall@10 {:.3} (worst {:.1})", us(hnsw_50), us(hnsw_95), r10 / qn, w10);
    println!("  HNSW k=50           p50 {:>9}               recall@50 {:.3} (worst {:.2})", us(hnsw50_50), r50 / qn, w50);
    println!("  HNSW, filter 1/20   p50 {:>9}  p95 {:>9}   (selective → exact scan of accepted)", us(filt_50), us(filt_95));
    println!("  HNSW build {:.2?} (ef_construction {}, ef_search {}); graph bytes {}", build_time, build.ef_construction, cal.ef_search, graph_len);
    println!(
        "  calibration: {} samples, recall mean {:.3} worst {:.2}, {:.0} distance evaluations per query vs {} for a scan → {}",
        cal.samples,
        cal.recall_mean,
        cal.recall_min,
        cal.evals,
        cal.points,
        if cal.evals * GRAPH_EVAL_COST < cal.points as f32 && cal.recall_mean >= 0.97 { "graph" } else { "scan" }
    );
    println!(
        "  bytes/vector: f32+int8 {:.0}, int8 only {:.0}, f32+int8+graph {:.0} (plain f32 today: {})",
        exact_bytes as f64 / n as f64,
        int8_bytes as f64 / n as f64,
        graph_bytes as f64 / n as f64,
        DIMS * 4 + 16
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let mut sizes = Vec::new();
    let mut real = None;
    let mut parallel = false;
    let mut random = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--real" => real = it.next().cloned(),
            "--parallel" => parallel = true,
            "--random" => random = true,
            s => sizes.extend(s.parse::<usize>().ok()),
        }
    }
    if let Some(path) = real {
        let records = real_vectors::read_records(std::path::Path::new(&path), DIMS).expect("embedding cache");
        assert!(records.len() > QUERIES, "{path}: missing or holds too few vectors");
        let mut all: Vec<Vec<f32>> = records.into_iter().map(|(_, v)| v).collect();
        all.retain(|v| v.iter().all(|x| x.is_finite()));
        let all: Vec<Vec<f32>> = all.into_iter().map(normalize).collect();
        // Queries are held-out turns (new text asking about stored text), the last QUERIES vectors.
        let (data, queries) = all.split_at(all.len() - QUERIES);
        if sizes.is_empty() {
            sizes.push(data.len());
        }
        for n in sizes {
            run("real MiniLM embeddings of conversation turns", &data[..n.min(data.len())], queries, parallel);
        }
        return;
    }
    if sizes.is_empty() {
        sizes = vec![10_000, 50_000, 100_000];
    }
    for n in sizes {
        if random {
            run("uniform random", &uniform(n, DIMS, 41), &uniform(QUERIES, DIMS, 43), parallel);
            continue;
        }
        let mut c = Clusters::new(n / 100, DIMS, 42);
        let data = c.many(n);
        let queries = c.many(QUERIES);
        run("clustered", &data, &queries, parallel);
    }
}
