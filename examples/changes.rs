//! Does the offline author notice when a later turn changes a fact stated earlier, and leave it
//! alone when it does not? `cargo run --release --features internals --example changes -- FILE.jsonl… [--show] [--show-setup]`
//!
//! Each line of a file: `{"id", "before": [turns], "turn", "old", "new" | null, "class"}`. The
//! author reads `before`, then `turn`; the thread that held `old` is looked at before and after:
//! - `new` given: its newest value must now hold `new` (a change on the thread that held `old`);
//! - `new` null, class `negation`: the thread must be retracted or hold another value;
//! - `new` null otherwise: its newest value must still be `old`.
//!
//! An item whose `old` was never authored onto a thread is counted apart (`setup missed`): that is
//! the value rules' miss, not the change rules'. Per class, prints passed / scored, then
//! `changes right=R/N setup-missed=M` over every item (a setup miss is a miss); `--show`
//! prints every failure with what the author made of the turn, `--show-setup` every setup miss with
//! what it made of `before` (use them on dev files only).

use engram::internals::author::{author_in, remember, Authored, KnownThread, PastTurn, Turn};
use engram::model::Shape;
use serde_json::Value;
use std::collections::BTreeMap;

struct Item {
    id: String,
    before: Vec<String>,
    turn: String,
    old: String,
    new: Option<String>,
    class: String,
}

fn load(path: &str) -> Result<Vec<Item>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut items = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let before = v.get("before").and_then(Value::as_array).map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default();
        match (s("id"), s("turn"), s("old"), s("class")) {
            (Some(id), Some(turn), Some(old), Some(class)) => items.push(Item { id, before, turn, old, new: s("new"), class }),
            _ => return Err(format!("{path}:{}: needs id, turn, old, class", n + 1)),
        }
    }
    Ok(items)
}

/// Feeds one turn to the author as the engine does: known threads and earlier turns in view.
fn feed<'a>(text: &'a str, id: &'a str, known: &mut Vec<KnownThread>, history: &mut Vec<PastTurn<'a>>) -> Vec<Authored> {
    let turn = Turn { id, role: "user", speaker: None, date: None, text };
    let out = author_in(std::slice::from_ref(&turn), known, history);
    history.push(PastTurn { id: id.to_string(), text, date: None });
    for a in &out {
        remember(known, a);
    }
    out
}

fn holds(value: &str, wanted: &str) -> bool {
    let (v, w) = (value.to_lowercase(), wanted.to_lowercase());
    v.contains(&w) || (w.contains(&v) && v.len() >= 3)
}

enum Outcome {
    Pass,
    Fail(String),
    SetupMissed,
}

fn judge(item: &Item) -> (Outcome, Vec<Authored>) {
    let ids: Vec<String> = (0..=item.before.len()).map(|i| format!("t{i}")).collect();
    let mut known = Vec::new();
    let mut history = Vec::new();
    let mut setup = Vec::new();
    for (text, id) in item.before.iter().zip(&ids) {
        setup.extend(feed(text, id, &mut known, &mut history));
    }
    // The thread that holds `old` now (the newest if several do).
    let Some(thread) = known.iter().filter(|k| k.values.last().is_some_and(|v| holds(v, &item.old))).max_by_key(|k| k.order).map(|k| k.thread.clone()) else {
        return (Outcome::SetupMissed, setup);
    };
    let out = feed(&item.turn, &ids[item.before.len()], &mut known, &mut history);
    let after = known.iter().find(|k| k.thread == thread).and_then(|k| k.values.last().cloned());
    let retracted = out.iter().any(|a| a.shape == Shape::Retraction && a.thread.as_deref() == Some(thread.as_str()));
    let outcome = match (&item.new, item.class.as_str()) {
        (Some(new), _) => match &after {
            Some(v) if holds(v, new) => Outcome::Pass,
            other => Outcome::Fail(format!("{thread} = {other:?}, wanted {new:?}")),
        },
        (None, "negation") => match &after {
            Some(v) if holds(v, &item.old) && !retracted => Outcome::Fail(format!("{thread} still {v:?}")),
            _ => Outcome::Pass,
        },
        (None, _) => match &after {
            Some(v) if holds(v, &item.old) => Outcome::Pass,
            other => Outcome::Fail(format!("{thread} moved to {other:?}{}", if retracted { " (retracted)" } else { "" })),
        },
    };
    (outcome, out)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let show = args.iter().any(|a| a == "--show");
    let show_setup = args.iter().any(|a| a == "--show-setup");
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    if files.is_empty() {
        eprintln!("usage: changes FILE.jsonl… [--show]");
        std::process::exit(2);
    }
    let mut items = Vec::new();
    for f in files {
        match load(f) {
            Ok(mut v) => items.append(&mut v),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
    }
    // class → (passed, scored, setup missed)
    let mut per: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for item in &items {
        let (outcome, out) = judge(item);
        let e = per.entry(item.class.clone()).or_default();
        match outcome {
            Outcome::Pass => {
                e.0 += 1;
                e.1 += 1;
            }
            Outcome::SetupMissed => {
                e.2 += 1;
                if show_setup {
                    println!("SETUP {} {:?} not authored from {:?}", item.id, item.old, item.before);
                    for a in out {
                        println!("    {:?} {} thread={:?} value={:?} :: {}", a.shape, a.rule, a.thread, a.value, a.content);
                    }
                }
            }
            Outcome::Fail(why) => {
                e.1 += 1;
                if show {
                    println!("FAIL {} [{}] {why}\n  before: {:?}\n  turn: {}", item.id, item.class, item.before, item.turn);
                    for a in out {
                        println!("    {:?} {} thread={:?} value={:?} :: {}", a.shape, a.rule, a.thread, a.value, a.content);
                    }
                }
            }
        }
    }
    let (mut changes, mut keeps) = ((0, 0), (0, 0));
    println!("{:<22} {:>8} {:>8}", "class", "passed", "setup missed");
    for (class, (p, n, m)) in &per {
        println!("{class:<22} {:>8} {m:>8}", format!("{p}/{n}"));
        let bucket = if ["other-subject", "mention-no-change", "considering"].contains(&class.as_str()) { &mut keeps } else { &mut changes };
        bucket.0 += p;
        bucket.1 += n;
    }
    let missed: usize = per.values().map(|v| v.2).sum();
    println!("changes noticed {}/{}, non-changes left alone {}/{}, setup missed {missed}/{}", changes.0, changes.1, keeps.0, keeps.1, items.len());
    // Every item counts: a setup miss is a miss.
    println!("changes right={}/{} setup-missed={missed}", changes.0 + keeps.0, items.len());
}
