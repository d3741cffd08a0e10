//! Trains the guards' instruction model (`src/guard/instruction.bin`) and picks its thresholds.
//!
//! `cargo run --release --features internals --example train_guard [-- --check]`
//!
//! Training texts: `tests/fixtures/guards-train/` (written for training), the guard corpus
//! (`tests/fixtures/guards/`: its injections and benign texts), the `dev` split of the corpora
//! written apart from the guards (`tests/fixtures/guards-unseen/dev`: its injections, and its
//! benign and secret-holding texts as ordinary memories: many writers' voices the phrase lists
//! would otherwise have to name one by one), the conversation turns of the evolving corpus's
//! filler chats as ordinary memories, and what the engine itself stores from the evolving corpus's
//! `dev` split (`guards-train/authored-dev.jsonl`: its user turns, and the offline author's
//! records of them, "The user's … is now …", which the model once flagged a third of; `test`
//! measures it held out). That file is written by `guards -- --authored
//! tests/fixtures/evolving/dev.json --save …` and kept fixed, so a change to the author does not
//! stale the model. Benign texts train sentence by sentence as well
//! (`instruction_model::sentences`). The two thresholds (a whole text's, a sentence's) are chosen
//! together on five held-out folds: of the sentence thresholds tried, each with the whole-text
//! threshold that keeps held-out benign texts flagged (either way) within 1 %, the pair that finds
//! the most held-out instructions. The `test` split is never trained on; measure it with
//! `cargo run --features internals --example guards -- tests/fixtures/guards-unseen/test`.
//! `--check` trains and compares with the committed weights without writing (exit 1 on a
//! difference), so a change to the features cannot ship with stale weights.

#[path = "../tests/support/guard_corpus.rs"]
#[allow(dead_code)] // the loader only: the rates are the guards example's
mod guard_corpus;

use engram::internals::guard::instruction_model::{features, sentences, train, Example, Model};

const WEIGHTS: &str = "src/guard/instruction.bin";
const EPOCHS: usize = 30;
const RATE: f32 = 1.0;
const L2: f32 = 1e-6;
/// Held-out benign texts the thresholds may flag, whole or by a sentence.
const BENIGN_FLAGGED: f64 = 0.01;
/// The sentence thresholds tried (a sentence is short, so its score is held higher than a text's).
const SENTENCE_THRESHOLDS: [f32; 9] = [0.9, 0.95, 0.97, 0.98, 0.99, 0.993, 0.995, 0.997, 0.999];

/// One training text: whole, with its label, and its sentences when it has several.
struct Text {
    features: Vec<u32>,
    instructs: bool,
    sentences: Vec<Vec<u32>>,
}

impl Text {
    fn new(text: &str, instructs: bool) -> Text {
        Text { features: features(text), instructs, sentences: sentences(text).into_iter().map(features).collect() }
    }
}

fn texts() -> Vec<Text> {
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
            out.push(Text::new(&p.text, instructs));
        }
    }
    let fillers: serde_json::Value = serde_json::from_str(&std::fs::read_to_string("tests/fixtures/evolving/fillers.json").expect("fillers.json")).expect("fillers.json parses");
    for chat in fillers.as_array().into_iter().flatten() {
        for turn in chat["turns"].as_array().into_iter().flatten() {
            for who in ["user", "assistant"] {
                if let Some(t) = turn[who].as_str() {
                    out.push(Text::new(t, false));
                }
            }
        }
    }
    out
}

/// What a model trains on: every text whole, and each sentence of a benign text (an ordinary
/// sentence read alone is ordinary; an instructing text's sentences are not all instructions, so
/// they are not labelled).
fn training_set<'a>(texts: impl Iterator<Item = &'a Text>) -> Vec<Example> {
    let mut out = Vec::new();
    for t in texts {
        out.push(Example { features: t.features.clone(), instructs: t.instructs });
        if !t.instructs {
            out.extend(t.sentences.iter().map(|f| Example { features: f.clone(), instructs: false }));
        }
    }
    out
}

/// A text's score whole and its best sentence's (0 for a text of one sentence).
fn scores(m: &Model, t: &Text) -> (f32, f32) {
    (m.probability(&t.features), t.sentences.iter().map(|f| m.probability(f)).fold(0.0, f32::max))
}

/// Held-out scores of every text over five folds (fold = index mod 5).
fn cross_validated(all: &[Text]) -> Vec<(f32, f32)> {
    let mut out = vec![(0f32, 0f32); all.len()];
    for fold in 0..5 {
        let m = train(&training_set(all.iter().enumerate().filter(|(i, _)| i % 5 != fold).map(|(_, t)| t)), EPOCHS, RATE, L2);
        for (i, t) in all.iter().enumerate().filter(|(i, _)| i % 5 == fold) {
            out[i] = scores(&m, t);
        }
    }
    out
}

/// The whole-text and sentence thresholds that find the most held-out instructions while flagging
/// at most `BENIGN_FLAGGED` of held-out benign texts, by either score; with their counts.
fn thresholds(all: &[Text], held_out: &[(f32, f32)]) -> (f32, f32, usize, usize) {
    let benign: Vec<(f32, f32)> = all.iter().zip(held_out).filter(|(t, _)| !t.instructs).map(|(_, s)| *s).collect();
    let positives: Vec<(f32, f32)> = all.iter().zip(held_out).filter(|(t, _)| t.instructs).map(|(_, s)| *s).collect();
    let allowed = (benign.len() as f64 * BENIGN_FLAGGED).floor() as usize;
    let mut best = (0.5, f32::INFINITY, 0, 0);
    for sentence in SENTENCE_THRESHOLDS.iter().copied().chain([f32::INFINITY]) {
        let by_sentence = benign.iter().filter(|s| s.1 >= sentence).count();
        let Some(left) = allowed.checked_sub(by_sentence) else { continue };
        // The whole-text threshold sits just above the benign text ranked at what is left of the
        // budget, among those no sentence flagged.
        let mut rest: Vec<f32> = benign.iter().filter(|s| s.1 < sentence).map(|s| s.0).collect();
        rest.sort_by(|a, b| b.total_cmp(a));
        let whole = (rest.get(left).copied().unwrap_or(0.5) + 1e-4).max(0.5);
        let caught = positives.iter().filter(|s| s.0 >= whole || s.1 >= sentence).count();
        let flagged = benign.iter().filter(|s| s.0 >= whole || s.1 >= sentence).count();
        if caught > best.2 {
            best = (whole, sentence, caught, flagged);
        }
    }
    best
}

fn main() {
    let check = std::env::args().any(|a| a == "--check");
    let all = texts();
    let (threshold, sentence_threshold, caught, flagged) = thresholds(&all, &cross_validated(&all));
    let positives = all.iter().filter(|t| t.instructs).count();
    let benign = all.len() - positives;
    let mut model: Model = train(&training_set(all.iter()), EPOCHS, RATE, L2);
    model.threshold = threshold;
    model.sentence_threshold = sentence_threshold;
    let bytes = model.to_bytes();
    println!(
        "instruction model: {} texts ({positives} instructing); held-out folds at thresholds {threshold:.3} (whole) and {sentence_threshold:.3} (a sentence): instructions {caught}/{positives} = {:.3}, benign flagged {flagged}/{benign} = {:.3}",
        all.len(),
        caught as f64 / positives.max(1) as f64,
        flagged as f64 / benign.max(1) as f64,
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
