//! Trains the re-ranking of verbatim turns (`src/recall/turn_rank_weights.in`): the order of a
//! search's first raw candidates.
//!
//! The candidates and their features come from the evaluation harness on LoCoMo with the local
//! embedder; only the `tune` half (conversations 1–3) is fitted on, the `held` half is reported:
//!
//! ```text
//! cargo build --profile bench-native --features embedder,internals --example eval --example train_turn_rank
//! for part in tune held; do
//!   ./target/bench-native/examples/eval locomo ../shared/bench/locomo-dev.json --mode hybrid --part $part --turn-features /tmp/turns-$part.jsonl
//! done
//! ./target/bench-native/examples/train_turn_rank /tmp/turns-tune.jsonl --report /tmp/turns-held.jsonl [--write | --check]
//! ```
//!
//! The loss is pairwise: for each question, every evidence turn against every other candidate
//! of its window, `log(1 + e^(s_wrong − s_right))`, so the model learns the order among the
//! candidates that compete for the first places rather than how to tell evidence from the far
//! tail. Features are standardized while fitting (so one step size suits them all and the L2
//! shrinkage treats them alike) and the weights are stored divided by each feature's spread, so
//! the engine applies them to the features as computed. Fitting starts from the fused order (all
//! weight on the fused score), so a feature that adds nothing stays near zero. `--check` fails when
//! the committed weights differ from what `tune` trains (the test command runs it).

use engram::internals::turn_rank::{FEATURES, N};
use serde_json::Value;

#[path = "shared/weights.rs"]
mod weights;

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

const WEIGHTS: &str = "src/recall/turn_rank_weights.in";
const L2: f64 = 0.001;
const STEPS: usize = 300;
const RATE: f64 = 0.3;
/// Recall is counted in the first `K`, as the LoCoMo harness does.
const K: usize = 10;

/// One question: its candidates' features, best first by the fused score, and which are
/// evidence; `gold` is how many evidence turns it has in all (some may be outside the window).
struct Question {
    category: String,
    gold: usize,
    candidates: Vec<([f64; N], bool)>,
}

fn load(path: &str) -> AnyResult<Vec<Question>> {
    let mut out = Vec::new();
    for line in std::fs::read_to_string(path)?.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)?;
        let right: Vec<bool> = v["right"].as_array().ok_or("a line without `right`")?.iter().map(|b| b.as_bool().unwrap_or(false)).collect();
        let mut candidates = Vec::new();
        for (c, r) in v["candidates"].as_array().ok_or("a line without candidates")?.iter().zip(right) {
            let f = c.as_array().ok_or("a candidate without features")?;
            if f.len() != N {
                return Err(format!("{path}: {} features, the model has {N}: re-run the harness", f.len()).into());
            }
            let mut x = [0.0; N];
            for (slot, value) in x.iter_mut().zip(f) {
                *slot = value.as_f64().unwrap_or(0.0);
            }
            candidates.push((x, r));
        }
        out.push(Question { category: v["category"].as_str().unwrap_or("other").to_string(), gold: v["gold"].as_u64().unwrap_or(1).max(1) as usize, candidates });
    }
    Ok(out)
}

fn dot(x: &[f64; N], w: &[f64; N]) -> f64 {
    x.iter().zip(w).map(|(a, b)| a * b).sum()
}

/// Each feature's mean and spread over every candidate of the training questions.
fn moments(data: &[&Question]) -> ([f64; N], [f64; N]) {
    let all: Vec<&[f64; N]> = data.iter().flat_map(|q| q.candidates.iter().map(|c| &c.0)).collect();
    let n = all.len().max(1) as f64;
    let mut mean = [0.0; N];
    let mut spread = [0.0; N];
    for k in 0..N {
        mean[k] = all.iter().map(|x| x[k]).sum::<f64>() / n;
        spread[k] = (all.iter().map(|x| (x[k] - mean[k]).powi(2)).sum::<f64>() / n).sqrt().max(1e-9);
    }
    (mean, spread)
}

/// One question's standardized candidates and which are evidence.
type Standardized = (Vec<[f64; N]>, Vec<bool>);

/// The weights on the features as computed (standardized weights divided by the spreads). Each
/// training file weighs the same in total, whatever its number of questions: a small corpus of
/// another kind (long sessions, assistant turns) counts as much as a large one.
fn train(files: &[&[Question]]) -> [f64; N] {
    let all: Vec<&Question> = files.iter().flat_map(|f| f.iter()).collect();
    let (mean, spread) = moments(&all);
    let standard = |x: &[f64; N]| -> [f64; N] { std::array::from_fn(|k| (x[k] - mean[k]) / spread[k]) };
    let sets: Vec<Vec<Standardized>> = files
        .iter()
        .map(|f| {
            f.iter()
                .filter(|q| q.candidates.iter().any(|c| c.1) && q.candidates.iter().any(|c| !c.1))
                .map(|q| (q.candidates.iter().map(|c| standard(&c.0)).collect(), q.candidates.iter().map(|c| c.1).collect()))
                .collect()
        })
        .collect();
    let mut w = [0.0; N];
    w[0] = 1.0; // the fused order
    for _ in 0..STEPS {
        let mut grad = [0.0; N];
        for questions in &sets {
            let mut part = [0.0; N];
            let mut pairs = 0usize;
            for (xs, right) in questions {
                let s: Vec<f64> = xs.iter().map(|x| dot(x, &w)).collect();
                for (i, xi) in xs.iter().enumerate().filter(|(i, _)| right[*i]) {
                    for (j, xj) in xs.iter().enumerate().filter(|(j, _)| !right[*j]) {
                        // d/d(s_i − s_j) of log(1 + e^−(s_i − s_j)) = −σ(s_j − s_i)
                        let g = 1.0 / (1.0 + (s[i] - s[j]).exp());
                        for k in 0..N {
                            part[k] -= g * (xi[k] - xj[k]);
                        }
                        pairs += 1;
                    }
                }
            }
            for k in 0..N {
                grad[k] += part[k] / pairs.max(1) as f64 / sets.len() as f64;
            }
        }
        for k in 0..N {
            w[k] -= RATE * (grad[k] + L2 * w[k]);
        }
    }
    std::array::from_fn(|k| w[k] / spread[k])
}

/// Mean recall in the first `K` per category and overall: (category, questions, with `w`, in the
/// fused order).
fn recall(data: &[Question], w: &[f64; N]) -> Vec<(String, usize, f64, f64)> {
    let mut by: std::collections::BTreeMap<String, (usize, f64, f64)> = std::collections::BTreeMap::new();
    for q in data {
        let mut order: Vec<usize> = (0..q.candidates.len()).collect();
        // Stable: ties keep the fused order, as in the engine.
        order.sort_by(|&a, &b| dot(&q.candidates[b].0, w).total_cmp(&dot(&q.candidates[a].0, w)));
        let found = |idx: &mut dyn Iterator<Item = usize>| idx.take(K).filter(|&i| q.candidates[i].1).count() as f64 / q.gold as f64;
        let (with, fused) = (found(&mut order.into_iter()), found(&mut (0..q.candidates.len())));
        for key in [q.category.clone(), "all".to_string()] {
            let e = by.entry(key).or_default();
            e.0 += 1;
            e.1 += with;
            e.2 += fused;
        }
    }
    by.into_iter().map(|(k, (n, a, b))| (k, n, a / n.max(1) as f64, b / n.max(1) as f64)).collect()
}

fn main() -> AnyResult<()> {
    let usage = "usage: train_turn_rank TUNE.jsonl… [--report OTHER.jsonl…] [--write | --check]";
    let c = weights::command(usage)?;
    let files: Vec<(&String, Vec<Question>)> = c.fit.iter().chain(&c.report).map(|f| Ok((f, load(f)?))).collect::<AnyResult<_>>()?;
    let training: Vec<&[Question]> = files[..c.fit.len()].iter().map(|(_, q)| q.as_slice()).collect();
    let w = train(&training);
    for (name, v) in FEATURES.iter().zip(w) {
        println!("{name:>18} {v:+.4}");
    }
    for (f, questions) in &files {
        for (key, n, with, fused) in recall(questions, &w) {
            println!("{f}: {key:>26} ({n:>3}): recall@{K} {with:.3} (fused order {fused:.3})");
        }
    }
    weights::check_or_write(&c, WEIGHTS, &w, "the tune half", "train_turn_rank")
}
