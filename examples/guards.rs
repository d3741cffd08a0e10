//! Detection and false-positive rates of the guards over a payload corpus (default:
//! `tests/fixtures/guards`), as reported in BENCHMARKS.md, plus scan throughput.
//!
//! ```text
//! cargo run --release --features internals --example guards -- [DIR] [--verbose]
//! cargo run --release --features internals --example guards -- --authored EPISODES.json [--verbose] [--save FILE.jsonl]
//! ```
//!
//! `--authored` measures what the engine itself stores: the offline author's memories and the user
//! turns of an evolving-corpus file, none of them instructions, and how many the guards flag.
//!
//! Without `--verbose` only totals are printed: a held-out split is measured that way, so its
//! failures are never read one by one.

#[path = "../tests/support/guard_corpus.rs"]
mod guard_corpus;

use guard_corpus::{authored_memories, evaluate, judge, load, ratio};

/// `--authored`: how many of the author's memories and of the user turns the guards flag.
fn authored(path: &str, verbose: bool, save: Option<&String>) {
    let (memories, turns) = authored_memories(std::path::Path::new(path));
    // `--save FILE`: the records and turns as benign texts in the corpus layout (the instruction
    // model's training texts are a fixed file, so a change to the author never stales the model).
    if let Some(out) = save {
        let lines: Vec<String> = memories
            .iter()
            .map(|t| ("authored-record", t))
            .chain(turns.iter().map(|t| ("user-turn", t)))
            .map(|(class, t)| serde_json::json!({"expect": "clean", "class": class, "lang": "en", "text": t}).to_string())
            .collect();
        std::fs::write(out, lines.join("\n") + "\n").expect("--save: write");
        println!("wrote {} texts to {out}", lines.len());
    }
    println!("authored from {path}:");
    for (what, texts) in [("memories", &memories), ("user turns", &turns)] {
        let flagged: Vec<&String> = texts.iter().filter(|t| !judge(t).injection.is_empty()).collect();
        println!("  {what:<10} flagged as injections {:>4}/{:<4} = {:.3}", flagged.len(), texts.len(), ratio(flagged.len(), texts.len()));
        if verbose {
            for t in flagged {
                println!("    flagged {:?}: {t}", judge(t).injection);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "--verbose");
    if let Some(i) = args.iter().position(|a| a == "--authored") {
        let save = args.iter().position(|a| a == "--save").and_then(|j| args.get(j + 1));
        return authored(args.get(i + 1).expect("--authored EPISODES.json"), verbose, save);
    }
    let dir = args.iter().find(|a| !a.starts_with("--")).cloned().unwrap_or_else(|| format!("{}/tests/fixtures/guards", env!("CARGO_MANIFEST_DIR")));
    let payloads = load(std::path::Path::new(&dir));
    let r = evaluate(&payloads);
    println!("guard corpus: {} payloads from {dir}", payloads.len());
    println!(
        "  secrets    detected {:>3}/{:<3} = {:.3}   right kind {:>3}/{:<3} = {:.3}",
        r.secrets_found,
        r.secrets,
        ratio(r.secrets_found, r.secrets),
        r.secrets_kind_right,
        r.secrets,
        ratio(r.secrets_kind_right, r.secrets)
    );
    println!("  injection  detected {:>3}/{:<3} = {:.3}", r.injections_found, r.injections, ratio(r.injections_found, r.injections));
    println!("  benign     flagged  {:>3}/{:<3} = {:.3} (false positives)", r.false_positives, r.clean, ratio(r.false_positives, r.clean));
    if r.marked > 0 {
        println!("  secrets redacted whole (no marked part left) {:>3}/{:<3} = {:.3}", r.redacted_whole, r.marked, ratio(r.redacted_whole, r.marked));
        println!("  spans withheld that cover no marked part: {}", r.over_redacted.len());
    }
    let mut by_lang: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for p in payloads.iter().filter(|p| p.expect == "injection") {
        let e = by_lang.entry(p.lang.clone().unwrap_or_default()).or_default();
        e.1 += 1;
        e.0 += usize::from(!judge(&p.text).injection.is_empty());
    }
    println!("  injection by language: {}", by_lang.iter().map(|(l, (f, n))| format!("{l} {f}/{n}")).collect::<Vec<_>>().join(", "));
    if verbose {
        // Per writer's class (unseen corpora): how many of each were caught (or, for benign, left alone).
        let mut by_class: std::collections::BTreeMap<(String, String), (usize, usize)> = Default::default();
        for p in payloads.iter().filter(|p| p.class.is_some()) {
            let v = judge(&p.text);
            let right = match p.expect.as_str() {
                "secret" => !v.secrets.is_empty(),
                "injection" => !v.injection.is_empty(),
                _ => v.secrets.is_empty() && v.injection.is_empty(),
            };
            let e = by_class.entry((p.expect.clone(), p.class.clone().unwrap_or_default())).or_default();
            e.0 += usize::from(right);
            e.1 += 1;
        }
        for ((expect, class), (right, n)) in &by_class {
            println!("  class {expect}/{class}: {right}/{n}");
        }
        for m in &r.misses {
            println!("  miss: {m}");
        }
        for f in &r.false_alarms {
            println!("  false alarm: {f}");
        }
        for p in &r.partly_redacted {
            println!("  partly redacted: {p}");
        }
        for o in &r.over_redacted {
            println!("  withheld beyond the secret: {o}");
        }
    }
    // Throughput: the whole corpus scanned repeatedly (both detectors, as a write does).
    let bytes: usize = payloads.iter().map(|p| p.text.len()).sum();
    let rounds = 200;
    let t = std::time::Instant::now();
    let mut n = 0usize;
    for _ in 0..rounds {
        for p in &payloads {
            let v = judge(std::hint::black_box(&p.text));
            n += v.secrets.len() + v.injection.len();
        }
    }
    let secs = t.elapsed().as_secs_f64();
    // Worst cases (and adversarial runs of candidates without the spaces or closing marks that
    // end one): one long turn (the largest a raw turn may be) dense with triggers.
    for (what, unit) in [
        ("triggers", "password is 'x pwd: sk-a ignore all previous <entry 4111 "),
        ("words", "the quick brown fox jumps over the lazy dog "),
        ("cjk", "忽略之前的所有指令之前以前"),
        ("pwd,pwd,…", "pwd,"),
        ("SG.SG.…", "SG."),
        ("token=token=…", "token="),
        ("![![…", "!["),
        ("unclosed BEGIN blocks", "-----BEGIN PRIVATE KEY----- "),
        ("digit groups", "4 1 "),
        ("password is \"…", "password is \""),
    ] {
        let text = unit.repeat(65_536 / unit.len());
        let t = std::time::Instant::now();
        let v = judge(&text);
        println!("  64 KiB of {what}: {:.1} ms ({} secrets, {} flags)", t.elapsed().as_secs_f64() * 1e3, v.secrets.len(), v.injection.len());
    }
    println!(
        "  scan: {:.1} MB/s, {:.1} µs per payload (avg {} bytes) [{n}]",
        (bytes * rounds) as f64 / secs / 1e6,
        secs * 1e6 / (payloads.len() * rounds) as f64,
        bytes / payloads.len()
    );
}
