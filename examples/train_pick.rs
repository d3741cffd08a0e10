//! Trains the lead choice of a recall (`src/evolve/pick_weights.in`): which of the candidates a
//! question about what holds now is answered by first.
//!
//! The candidates and their features come from the evaluation harness, run on the corpus's `dev`
//! split with the local embedder (the features include the vector match):
//!
//! ```text
//! cargo build --profile bench-native --features embedder,internals --example eval --example train_pick
//! for mode in keyword hybrid; do for split in dev test; do
//!   ./target/bench-native/examples/eval evolving tests/fixtures/evolving/$split.json --mode $mode --picks /tmp/picks-$mode-$split.jsonl
//! done; done
//! ./target/bench-native/examples/train_pick /tmp/picks-{keyword,hybrid}-dev.jsonl --report /tmp/picks-{keyword,hybrid}-test.jsonl [--write | --check]
//! ```
//!
//! Both modes' `dev` questions train one set of weights (a keyword-only store has no vector
//! feature, and the same weights serve it); every file is reported (how often the chosen lead holds the expected
//! value or state, against the heuristics' own lead). A candidate is labelled right by `right`. The model is a linear score with a softmax over each
//! question's candidates (the loss is the chance given to the right ones), with L2 shrinkage so a
//! feature that rarely fires cannot take a large weight from a handful of questions. `--write`
//! stores the weights; `--check` fails when they differ from what the dev split trains (the test
//! command runs it, so a change to the features cannot ship with stale weights).

use engram::internals::pick::{FEATURES, N};
use serde_json::Value;

#[path = "shared/weights.rs"]
mod weights;

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

const WEIGHTS: &str = "src/evolve/pick_weights.in";
const L2: f64 = 0.01;
const STEPS: usize = 3000;
const RATE: f64 = 0.5;

/// One question: each candidate's features and whether it holds the expected value.
struct Question {
    candidates: Vec<([f64; N], bool)>,
}

/// Which candidate is right: for a question about what holds now, one whose text holds the
/// expected value in the current state; for a question that expects a derived state (deleted,
/// cascaded, uncertain), one in that state.
fn right(expect: &Value, text: &str, state: &str) -> bool {
    let wanted = expect["expected_state"].as_str().unwrap_or("current");
    if state != wanted {
        return false;
    }
    match expect["answer_contains"].as_str() {
        Some(v) => !v.trim().is_empty() && text.to_lowercase().contains(&v.trim().to_lowercase()),
        None => true,
    }
}

fn load(path: &str) -> AnyResult<Vec<Question>> {
    let mut out = Vec::new();
    for line in std::fs::read_to_string(path)?.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)?;
        let mut candidates = Vec::new();
        for c in v["candidates"].as_array().ok_or("a line without candidates")? {
            let f = c[1].as_array().ok_or("a candidate without features")?;
            if f.len() != N {
                return Err(format!("{path}: {} features, the model has {N}: re-run the harness", f.len()).into());
            }
            let mut x = [0.0; N];
            for (slot, value) in x.iter_mut().zip(f) {
                *slot = value.as_f64().unwrap_or(0.0);
            }
            candidates.push((x, right(&v["expect"], c[0].as_str().unwrap_or_default(), c[2].as_str().unwrap_or_default())));
        }
        out.push(Question { candidates });
    }
    Ok(out)
}

fn score(x: &[f64; N], w: &[f64; N]) -> f64 {
    x.iter().zip(w).map(|(a, b)| a * b).sum()
}

fn train(data: &[&Question]) -> [f64; N] {
    let mut w = [0.0; N];
    let usable: Vec<&&Question> = data.iter().filter(|q| q.candidates.iter().any(|c| c.1)).collect();
    let n = usable.len().max(1) as f64;
    for _ in 0..STEPS {
        let mut grad = [0.0; N];
        for q in &usable {
            let s: Vec<f64> = q.candidates.iter().map(|(x, _)| score(x, &w)).collect();
            let top = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let e: Vec<f64> = s.iter().map(|v| (v - top).exp()).collect();
            let z: f64 = e.iter().sum();
            let right: f64 = e.iter().zip(&q.candidates).filter(|(_, c)| c.1).map(|(v, _)| v / z).sum();
            for ((x, label), v) in q.candidates.iter().zip(&e) {
                let p = v / z;
                // d(-log right)/d score_i = p_i - [i right] p_i / right
                let g = p - if *label { p / right } else { 0.0 };
                for k in 0..N {
                    grad[k] += g * x[k];
                }
            }
        }
        for k in 0..N {
            w[k] -= RATE * (grad[k] / n + L2 * w[k]);
        }
    }
    w
}

/// (chosen lead right, heuristics' lead right, questions).
fn accuracy(data: &[Question], w: &[f64; N]) -> (usize, usize, usize) {
    let mut chosen = 0;
    let mut incumbent = 0;
    for q in data {
        // Ties go to the heuristics' lead, as in the engine.
        let best = q.candidates.iter().max_by(|a, b| score(&a.0, w).total_cmp(&score(&b.0, w)).then(a.0[0].total_cmp(&b.0[0])));
        chosen += usize::from(best.is_some_and(|c| c.1));
        incumbent += usize::from(q.candidates.iter().any(|c| c.0[0] > 0.0 && c.1));
    }
    (chosen, incumbent, data.len())
}

fn main() -> AnyResult<()> {
    let usage = "usage: train_pick DEV.jsonl… [--report OTHER.jsonl…] [--write | --check]";
    let c = weights::command(usage)?;
    // Each file read once: the training files are reported too.
    let files: Vec<(&String, Vec<Question>)> = c.fit.iter().chain(&c.report).map(|f| Ok((f, load(f)?))).collect::<AnyResult<_>>()?;
    let training: Vec<&Question> = files[..c.fit.len()].iter().flat_map(|(_, q)| q).collect();
    let w = train(&training);
    for (name, v) in FEATURES.iter().zip(w) {
        println!("{name:>18} {v:+.3}");
    }
    for (f, questions) in &files {
        let (chosen, incumbent, n) = accuracy(questions, &w);
        println!("{f}: lead right {chosen}/{n} (heuristics' lead {incumbent}/{n})");
    }
    weights::check_or_write(&c, WEIGHTS, &w, "the dev split", "train_pick")
}
