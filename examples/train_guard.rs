//! Trains the guards' instruction model (`src/guard/instruction.bin`) and picks its threshold.
//!
//! `cargo run --release --features internals --example train_guard [-- --check]`
//!
//! Training texts: `tests/fixtures/guards-train/` (written for training), the guard corpus
//! (`tests/fixtures/guards/`: its injections and benign texts), the `dev` split of the corpora
//! written apart from the guards (`tests/fixtures/guards-unseen/dev`: its injections, and its
//! benign and secret-holding texts as ordinary memories: many writers' voices the phrase lists
//! would otherwise have to name one by one), the conversation turns of the evolving corpus's
//! filler chats as ordinary memories, and what the engine itself stores from the evolving corpus's
//! `dev` split (`guards-train/authored-dev.jsonl`: its user turns, and the offline author's records
//! of them, "The user's … is now …", which the model once flagged a third of; `test` measures it
//! held out). That file is written by `guards -- --authored tests/fixtures/evolving/dev.json --save
//! …` and kept fixed, so a change to the author does not stale the model. The threshold is chosen on five held-out folds of those: the
//! lowest probability at which at most 1 % of held-out benign texts would be flagged. The `test`
//! split is never trained on; measure it with
//! `cargo run --features internals --example guards -- tests/fixtures/guards-unseen/test`.
//! `--check` trains and compares with the committed weights without writing (exit 1 on a
//! difference), so a change to the features cannot ship with stale weights.

#[path = "../tests/support/guard_corpus.rs"]
#[allow(dead_code)] // the loader only: the rates are the guards example's
mod guard_corpus;

use engram::internals::guard::instruction_model::{features, train, Example, Model};

const WEIGHTS: &str = "src/guard/instruction.bin";
const EPOCHS: usize = 30;
const RATE: f32 = 1.0;
const L2: f32 = 1e-6;
/// Held-out benign texts the threshold may flag.
const BENIGN_FLAGGED: f64 = 0.01;

fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    for dir in ["tests/fixtures/guards-train", "tests/fixtures/guards", "tests/fixtures/guards-unseen/dev"] {
        let unseen = dir.contains("unseen");
        for p in guard_corpus::load(std::path::Path::new(dir)) {
            let instructs = match p.expect.as_str() {
                "injection" => true,
                "clean" => false,
                // A note holding a secret ("remember this for me: …") is no instruction to the
                // reader: the unseen writers' are ordinary memories of many kinds.
                "secret" if unseen => false,
                _ => continue, // secrets are the other detectors'
            };
            out.push(Example { features: features(&p.text), instructs });
        }
    }
    let fillers: serde_json::Value = serde_json::from_str(&std::fs::read_to_string("tests/fixtures/evolving/fillers.json").expect("fillers.json")).expect("fillers.json parses");
    for chat in fillers.as_array().into_iter().flatten() {
        for turn in chat["turns"].as_array().into_iter().flatten() {
            for who in ["user", "assistant"] {
                if let Some(t) = turn[who].as_str() {
                    out.push(Example { features: features(t), instructs: false });
                }
            }
        }
    }
    out
}

/// Held-out probabilities of every example over five folds (fold = index mod 5).
fn cross_validated(all: &[Example]) -> Vec<f32> {
    let mut probs = vec![0f32; all.len()];
    for fold in 0..5 {
        let train_set: Vec<Example> =
            all.iter().enumerate().filter(|(i, _)| i % 5 != fold).map(|(_, e)| Example { features: e.features.clone(), instructs: e.instructs }).collect();
        let m = train(&train_set, EPOCHS, RATE, L2);
        for (i, e) in all.iter().enumerate().filter(|(i, _)| i % 5 == fold) {
            probs[i] = m.probability(&e.features);
        }
    }
    probs
}

fn main() {
    let check = std::env::args().any(|a| a == "--check");
    let all = examples();
    let probs = cross_validated(&all);
    let mut benign: Vec<f32> = all.iter().zip(&probs).filter(|(e, _)| !e.instructs).map(|(_, p)| *p).collect();
    benign.sort_by(|a, b| b.total_cmp(a));
    // The threshold sits just above the benign text ranked at the allowed share.
    let allowed = (benign.len() as f64 * BENIGN_FLAGGED).floor() as usize;
    let threshold = (benign.get(allowed).copied().unwrap_or(0.5) + 1e-4).max(0.5);
    let positives: Vec<f32> = all.iter().zip(&probs).filter(|(e, _)| e.instructs).map(|(_, p)| *p).collect();
    let caught = positives.iter().filter(|p| **p >= threshold).count();
    let flagged = benign.iter().filter(|p| **p >= threshold).count();
    let mut model: Model = train(&all, EPOCHS, RATE, L2);
    model.threshold = threshold;
    let bytes = model.to_bytes();
    println!(
        "instruction model: {} texts ({} instructing); held-out folds at threshold {threshold:.3}: instructions {caught}/{} = {:.3}, benign flagged {flagged}/{} = {:.3}",
        all.len(),
        positives.len(),
        positives.len(),
        caught as f64 / positives.len().max(1) as f64,
        benign.len(),
        flagged as f64 / benign.len().max(1) as f64,
    );
    if check {
        let committed = std::fs::read(WEIGHTS).unwrap_or_default();
        if committed != bytes {
            eprintln!("{WEIGHTS} is stale: run `cargo run --release --features internals --example train_guard`");
            std::process::exit(1);
        }
        println!("{WEIGHTS} matches the training data");
    } else {
        std::fs::write(WEIGHTS, &bytes).expect("write the weights");
        println!("wrote {WEIGHTS} ({} bytes)", bytes.len());
    }
}
