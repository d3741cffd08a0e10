//! Trains the offline author's intent model (`src/evolve/author/intent.bin`) on the corpus's `dev`
//! split and reports its sentence accuracy on both splits.
//!
//! `cargo run --release --features internals --example train_intent [-- --check]`
//!
//! Labels come from the episode sources (`tests/fixtures/evolving/episodes/`), not from the rules:
//! a sentence carrying a fact's value is `verbatim` (an ER fact), `change` (the slot had another
//! value before), `delete` (a value the episode asks to forget, restated after it was stated) or
//! `state`; a sentence of a turn marked as a deletion request that carries no fact is `delete`;
//! everything else (distractors, asides, the filler chats the `dev` episodes were given) is `none`.
//! `--check` trains and compares with the committed weights without writing (exit 1 on a
//! difference), so a change to the features cannot ship with stale weights.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use engram::internals::author::intent::{self, Example, Intent, Scores};
use engram::internals::author::{sentence_features, KnownThread};
use serde_json::Value;

type AnyResult<T> = Result<T, Box<dyn std::error::Error>>;

const CORPUS: &str = "tests/fixtures/evolving";
const WEIGHTS: &str = "src/evolve/author/intent.bin";

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

fn episodes(split: &str) -> AnyResult<Vec<Value>> {
    let dir = Path::new(CORPUS).join("episodes").join(split);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    paths.sort();
    paths.iter().map(|p| Ok(serde_json::from_str(&std::fs::read_to_string(p)?)?)).collect()
}

fn contains_ci(hay: &str, needle: &str) -> bool {
    !needle.trim().is_empty() && hay.to_lowercase().contains(&needle.trim().to_lowercase())
}

/// The labelled sentences of one episode's evidence turns.
fn label_episode(ep: &Value) -> Vec<(String, Example)> {
    let mut out = Vec::new();
    let mut known: Vec<KnownThread> = Vec::new();
    // Values a `Del` question asks about: restated after their statement, they are the request.
    let del_values: Vec<String> =
        ep["before_questions"].as_array().into_iter().flatten().filter(|q| q["task_type"] == "Del").flat_map(|q| strings(&q["expect"]["must_contain"])).collect();
    let mut stated: Vec<String> = Vec::new();
    for s in ep["sessions"].as_array().into_iter().flatten().filter(|s| s["kind"] == "evidence") {
        for t in s["turns"].as_array().into_iter().flatten() {
            let Some(text) = t["user"].as_str() else { continue };
            let facts: Vec<&Value> = t["facts"].as_array().into_iter().flatten().collect();
            let delete_turn = strings(&t["classes"]).iter().any(|c| c.ends_with("-delete"));
            for (sentence, features) in sentence_features(text, &known) {
                let fact = facts.iter().find(|f| f["value"].as_str().is_some_and(|v| contains_ci(&sentence, v) || contains_ci(v, sentence.trim())));
                let restated_del = del_values.iter().any(|v| contains_ci(&sentence, v) && stated.iter().any(|x| x == v));
                let intent = if restated_del {
                    Intent::Delete
                } else if let Some(f) = fact {
                    let entity = f["entity"].as_str().unwrap_or("");
                    let value = f["value"].as_str().unwrap_or("");
                    if strings(&f["tags"]).iter().any(|t| t == "ER") {
                        Intent::Verbatim
                    } else {
                        match known.iter().find(|k| k.thread == entity) {
                            Some(k) if k.values.last().is_some_and(|l| l != value) => Intent::Change,
                            _ => Intent::State,
                        }
                    }
                } else if delete_turn && !sentence.trim_end().ends_with('?') {
                    Intent::Delete
                } else {
                    Intent::None
                };
                out.push((sentence, Example { features, intent }));
            }
            for f in facts {
                let (Some(entity), Some(value)) = (f["entity"].as_str(), f["value"].as_str()) else { continue };
                stated.push(value.to_string());
                let order = known.len();
                match known.iter_mut().find(|k| k.thread == entity) {
                    Some(k) => k.values.push(value.to_string()),
                    None => known.push(KnownThread { thread: entity.to_string(), dependent: false, values: vec![value.to_string()], order }),
                }
            }
        }
    }
    out
}

/// The filler chats a split's episodes are given (the generator keeps the two splits' fillers apart).
fn filler_sentences(split: &str) -> AnyResult<Vec<(String, Example)>> {
    let fillers: Value = serde_json::from_str(&std::fs::read_to_string(Path::new(CORPUS).join("fillers.json"))?)?;
    let all = fillers.as_array().ok_or("fillers.json: expected an array")?;
    let half = all.len() / 2;
    let part = if split == "dev" { &all[..half] } else { &all[half..] };
    let mut out = Vec::new();
    for f in part {
        for t in f["turns"].as_array().into_iter().flatten() {
            if let Some(text) = t["user"].as_str() {
                out.extend(sentence_features(text, &[]).into_iter().map(|(s, features)| (s, Example { features, intent: Intent::None })));
            }
        }
    }
    Ok(out)
}

fn labelled(split: &str) -> AnyResult<Vec<(String, Example)>> {
    Ok(grouped(split)?.into_iter().flatten().collect())
}

/// The labelled sentences by episode (the fillers as one more group), for cross-validation that
/// keeps each episode's sentences on one side.
fn grouped(split: &str) -> AnyResult<Vec<Vec<(String, Example)>>> {
    let mut out: Vec<Vec<(String, Example)>> = episodes(split)?.iter().map(label_episode).collect();
    // The fillers in as many groups as episodes, so every fold sees some.
    let fillers = filler_sentences(split)?;
    let n = out.len().max(1);
    for (i, f) in fillers.into_iter().enumerate() {
        out[i % n].push(f);
    }
    Ok(out)
}

/// Mean per-class recall (deletions and verbatim requests are rare; plain accuracy would hide them).
fn balanced_accuracy(model: &intent::Model, data: &[&(String, Example)]) -> f64 {
    let mut per: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (_, e) in data {
        let p = per.entry(e.intent.as_str()).or_default();
        p.1 += 1;
        p.0 += usize::from(Scores(model.predict(&e.features)).best().0 == e.intent);
    }
    per.values().map(|(a, b)| *a as f64 / (*b).max(1) as f64).sum::<f64>() / per.len().max(1) as f64
}

/// The L2 strength with the best balanced accuracy in 5-fold cross-validation over `dev` episodes.
fn choose_l2(groups: &[Vec<(String, Example)>]) -> f32 {
    let grid = [1e-4f32, 1e-3, 3e-3, 1e-2, 3e-2];
    let mut best = (grid[0], -1.0);
    for &l2 in &grid {
        let mut total = 0.0;
        for fold in 0..5 {
            let train: Vec<Example> = groups.iter().enumerate().filter(|(i, _)| i % 5 != fold).flat_map(|(_, g)| g.iter().map(|(_, e)| e.clone())).collect();
            let held: Vec<&(String, Example)> = groups.iter().enumerate().filter(|(i, _)| i % 5 == fold).flat_map(|(_, g)| g.iter()).collect();
            let m = intent::train(&train, EPOCHS, RATE, l2);
            total += balanced_accuracy(&m, &held);
        }
        println!("cv l2={l2}: balanced accuracy {:.3}", total / 5.0);
        if total / 5.0 > best.1 {
            best = (l2, total / 5.0);
        }
    }
    best.0
}

const EPOCHS: usize = 300;
const RATE: f32 = 2.0;

fn report(name: &str, model: &intent::Model, data: &[(String, Example)]) {
    let mut per: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut confusion: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (_, e) in data {
        let got = Scores(model.predict(&e.features)).best().0;
        let p = per.entry(e.intent.as_str()).or_default();
        p.1 += 1;
        if got == e.intent {
            p.0 += 1;
        } else {
            *confusion.entry((e.intent.as_str(), got.as_str())).or_default() += 1;
        }
    }
    let ok: usize = per.values().map(|p| p.0).sum();
    let parts: Vec<String> = per.iter().map(|(k, (a, b))| format!("{k}={a}/{b}")).collect();
    println!("{name}: {ok}/{} {}", data.len(), parts.join(" "));
    let errs: Vec<String> = confusion.iter().map(|((want, got), n)| format!("{want}->{got}:{n}")).collect();
    println!("{name} errors: {}", errs.join(" "));
}

fn main() -> AnyResult<()> {
    let check = std::env::args().any(|a| a == "--check");
    let groups = grouped("dev")?;
    let l2 = choose_l2(&groups);
    let dev: Vec<(String, Example)> = groups.into_iter().flatten().collect();
    let test = labelled("test")?;
    let examples: Vec<Example> = dev.iter().map(|(_, e)| e.clone()).collect();
    let model = intent::train(&examples, EPOCHS, RATE, l2);
    println!("trained with l2={l2}");
    // What ships is the quantized model: report that one.
    let bytes = model.to_bytes();
    let shipped = intent::Model::from_bytes(&bytes).ok_or("the trained model does not read back")?;
    report("dev (trained on)", &shipped, &dev);
    report("test (held out)", &shipped, &test);
    if check {
        let committed = std::fs::read(WEIGHTS).unwrap_or_default();
        if committed != bytes {
            eprintln!("{WEIGHTS} differs from what the corpus trains: run `cargo run --release --features internals --example train_intent`");
            std::process::exit(1);
        }
        println!("{WEIGHTS} matches the corpus");
    } else {
        std::fs::write(WEIGHTS, &bytes)?;
        println!("wrote {WEIGHTS} ({} bytes)", bytes.len());
    }
    Ok(())
}
