//! The cost of `addMany` without vectors, natively, on real conversational lines: the guard scanners
//! per line (each scanner alone, then as the write path runs them), and `add_many` of N lines in
//! batches of `BATCH_MAX` with the default guards and with the guards off, in the same run. Each
//! `add_many` figure is timed twice: the engine call alone (inputs built beforehand), and the JSON
//! path the wasm binding takes (parse the items, add, render each result as JSON).
//!
//! `cargo bench --profile bench-native --features internals --bench add_many_native -- [PATH] [--n 100000] [--reps 3] [--only scans|add|engine]`
//! (`--only engine`: the engine call with the default guards alone, for a profiler)
//!
//! PATH defaults to `longmemeval-s-dev.json.gz` in `$ENGRAM_BENCH_DIR` or `../shared/bench`. The lines
//! are picked as `benches/corpus.mjs` picks them: every line of every haystack turn, trimmed, cut to
//! 8192 UTF-16 units, kept if at least 20 units long and not seen before, in file order.

#[path = "../tests/support/real_vectors.rs"]
mod real_vectors;

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use engram::guard::{GuardOptions, InjectionPolicy, SecretPolicy};
use engram::host::ManualClock;
use engram::internals::guard;
use engram::{EngineOptions, Engram, NewMemory};
use serde_json::Value;

/// `line.trim().slice(0, 8192)` with JavaScript's UTF-16 units, and its length in those units.
fn js_trim_cut(line: &str) -> (String, usize) {
    let t = line.trim_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}');
    let mut units = 0;
    let mut end = t.len();
    for (i, c) in t.char_indices() {
        if units + c.len_utf16() > 8192 {
            end = i;
            break;
        }
        units += c.len_utf16();
    }
    (t[..end].to_string(), units)
}

fn load_lines(path: &std::path::Path, n: usize) -> Result<Vec<String>, String> {
    let data = real_vectors::load_json(path)?;
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    for q in data.as_array().into_iter().flatten() {
        for session in q["haystack_sessions"].as_array().into_iter().flatten() {
            for turn in session.as_array().into_iter().flatten() {
                for line in turn["content"].as_str().unwrap_or("").split('\n') {
                    let (line, units) = js_trim_cut(line);
                    if units < 20 || !seen.insert(line.clone()) {
                        continue;
                    }
                    out.push(line);
                    if out.len() == n {
                        return Ok(out);
                    }
                }
            }
        }
    }
    Err(format!("{}: only {} distinct lines; asked for {n}", path.display(), out.len()))
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// Best and median of `reps` timings of `f`.
fn timed(reps: usize, mut f: impl FnMut() -> usize) -> (Duration, Duration) {
    let mut times = Vec::with_capacity(reps);
    let mut sink = 0;
    for _ in 0..reps {
        let t = Instant::now();
        sink += f();
        times.push(t.elapsed());
    }
    std::hint::black_box(sink);
    times.sort();
    (times[0], times[times.len() / 2])
}

fn engine(guards: GuardOptions) -> Engram {
    Engram::new(Box::new(std::rc::Rc::new(ManualClock::new(1_700_000_000_000))), EngineOptions { id_seed: Some(7), guards, ..EngineOptions::default() })
}

/// The engine call alone: inputs are built before the clock starts.
fn add_many_engine(lines: &[String], guards: GuardOptions) -> (Duration, usize) {
    let batches: Vec<Vec<NewMemory>> =
        lines.chunks(engram::engine::BATCH_MAX).map(|c| c.iter().map(|l| NewMemory { content: l.clone(), ..Default::default() }).collect()).collect();
    let mut e = engine(guards);
    let t = Instant::now();
    let mut added = 0;
    for b in batches {
        added += e.add_many(b).expect("add_many").len();
    }
    (t.elapsed(), added)
}

/// What the wasm binding does per call: parse the JSON items, add them, render each result as JSON.
fn add_many_json(lines: &[String], guards: GuardOptions) -> (Duration, usize) {
    let jsons: Vec<String> = lines.chunks(engram::engine::BATCH_MAX).map(|c| Value::Array(c.iter().map(|l| serde_json::json!({ "content": l })).collect()).to_string()).collect();
    let mut e = engine(guards);
    let t = Instant::now();
    let mut bytes = 0;
    for (json, len) in jsons.iter().zip(lines.chunks(engram::engine::BATCH_MAX).map(<[String]>::len)) {
        let items = engram::api::parse_add_many(&serde_json::from_str(json).expect("json"), &[], &vec![-1; len]).expect("parse");
        let all = e.add_many(items).expect("add_many");
        let views = all.into_iter().map(|mut a| {
            a.memory = e.presented(&a.memory);
            engram::api::added_view(&a)
        });
        bytes += Value::Array(views.collect()).to_string().len();
    }
    (t.elapsed(), bytes)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let flag = |name: &str, default: usize| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default);
    let n = flag("--n", 100_000);
    let reps = flag("--reps", 3).max(1);
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).map(String::as_str);
    let path = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || !args[i - 1].starts_with("--")))
        .map(|(_, a)| PathBuf::from(a))
        .unwrap_or_else(|| real_vectors::bench_dir().join("longmemeval-s-dev.json.gz"));
    let lines = load_lines(&path, n).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2);
    });
    let bytes: usize = lines.iter().map(String::len).sum();
    println!("{} lines ({:.1} MB) of {}, best | median of {reps}, times per 100k lines", lines.len(), bytes as f64 / 1e6, path.display());

    match only {
        Some("scans") => scan_times(&lines, reps),
        Some("add") => add_many_times(&lines, reps),
        Some("engine") => (0..reps).for_each(|_| println!("{}", per_100k(add_many_engine(&lines, GuardOptions::default()).0, lines.len()))),
        _ => {
            scan_times(&lines, reps);
            add_many_times(&lines, reps);
        }
    }
}

fn per_100k(d: Duration, lines: usize) -> String {
    ms(d.mul_f64(100_000.0 / lines as f64))
}

fn scan_times(lines: &[String], reps: usize) {
    println!("guard scanners, each run on every line:");
    type Scan = fn(&str) -> usize;
    let scans: [(&str, Scan); 8] = [
        ("secrets::find (keys, PEM, JWT, assigned)", |t| {
            let mut out = guard::Findings::default();
            guard::secrets::find(t, &mut out);
            out.len()
        }),
        ("cards::find", |t| {
            let mut out = guard::Findings::default();
            guard::cards::find(t, &mut out);
            out.len()
        }),
        ("iban::find", |t| {
            let mut out = guard::Findings::default();
            guard::iban::find(t, &mut out);
            out.len()
        }),
        ("password::find", |t| {
            let mut out = guard::Findings::default();
            guard::password::find(t, &mut out);
            out.len()
        }),
        ("find_secrets (all secret scanners)", |t| guard::find_secrets(t).len()),
        ("injection::find", |t| guard::injection::find(t).len()),
        ("GuardOptions::default().apply", |t| GuardOptions::default().apply(t, false, "content").map_or(0, |g| g.flags.len() + g.text.len())),
        ("dedup normalize", |t| engram::internals::normalize(t).len()),
    ];
    for (name, f) in scans {
        let (best, median) = timed(reps, || lines.iter().map(|l| f(l)).sum());
        println!("  {name:<42} {:>10} | {:>10}  ({:.2} µs/line)", per_100k(best, lines.len()), per_100k(median, lines.len()), best.as_secs_f64() * 1e6 / lines.len() as f64);
    }
}

fn add_many_times(lines: &[String], reps: usize) {
    let off = GuardOptions { secrets: SecretPolicy::Off, injection: InjectionPolicy::Off };
    println!("add_many, {} per call, keyword only:", engram::engine::BATCH_MAX);
    for (label, guards) in [("guards default", GuardOptions::default()), ("guards off", off)] {
        let mut engine_only: Vec<Duration> = (0..reps).map(|_| add_many_engine(lines, guards).0).collect();
        engine_only.sort();
        let mut json: Vec<Duration> = (0..reps).map(|_| add_many_json(lines, guards).0).collect();
        json.sort();
        println!(
            "  {label:<16} engine {:>10} | {:>10}   json path {:>10} | {:>10}",
            per_100k(engine_only[0], lines.len()),
            per_100k(engine_only[reps / 2], lines.len()),
            per_100k(json[0], lines.len()),
            per_100k(json[reps / 2], lines.len())
        );
    }
}
