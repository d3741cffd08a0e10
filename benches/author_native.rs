//! The offline author's cost on a long chat, natively: the turns of the evolving corpus
//! (`tests/fixtures/evolving/{dev,test}.json`, episodes one after another in one namespace, each
//! session ingested at its date and authored as it arrives) up to `--turns` turns, with the time to
//! ingest the same turns beside it and, built with `--features embedder` and the model present, the
//! time to embed them with the local model (the peer the issue sets: authoring must stay well under
//! it).
//!
//! `cargo bench --profile bench-native [--features embedder] --bench author_native -- [--turns 1000] [--reps 3]`

use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use engram::host::ManualClock;
use engram::{EngineOptions, Engram, SessionInput, TurnInput};
use serde_json::Value;

fn date(s: &str) -> Option<i64> {
    // "2024/05/30 14:05"
    let (d, t) = s.split_once(' ')?;
    let mut p = d.split('/').map(|x| x.parse::<i64>().ok());
    let (y, m, dd) = (p.next()??, p.next()??, p.next()??);
    let (h, mi) = t.split_once(':')?;
    let days = days_from_civil(y, m, dd);
    Some(((days * 24 + h.parse::<i64>().ok()?) * 60 + mi.parse::<i64>().ok()?) * 60_000)
}

fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Sessions of the corpus in order, cut so their turns total `turns`.
fn sessions(turns: usize) -> Vec<SessionInput> {
    let mut out = Vec::new();
    let mut total = 0;
    for split in ["dev", "test"] {
        let path = Path::new("tests/fixtures/evolving").join(format!("{split}.json"));
        let data: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("corpus file")).expect("corpus json");
        for ep in data.as_array().expect("episodes") {
            let id = ep["episode_id"].as_str().unwrap_or("ep");
            for s in ep["sessions"].as_array().into_iter().flatten() {
                let at = s["timestamp"].as_str().and_then(date).unwrap_or(0);
                let mut ts: Vec<TurnInput> = s["conversation"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t| Some(TurnInput { role: t["role"].as_str()?.into(), content: t["content"].as_str()?.into(), ..TurnInput::default() }))
                    .collect();
                ts.truncate(turns - total);
                total += ts.len();
                out.push(SessionInput { id: format!("{id}-s{}", s["idx"]), namespace: Some("chat".into()), date: Some(at), turns: ts, allow_secrets: false });
                if total >= turns {
                    return out;
                }
            }
        }
    }
    out
}

fn engine() -> Engram {
    Engram::new(Box::new(Rc::new(ManualClock::new(1_700_000_000_000))), EngineOptions { id_seed: Some(3), ..EngineOptions::default() })
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[cfg(feature = "embedder")]
fn embed_time(input: &[SessionInput]) -> Option<Duration> {
    use engram::host::Embedder;
    let dir = std::env::var("ENGRAM_MODEL_DIR").unwrap_or_else(|_| "models".into());
    let model = std::fs::read(format!("{dir}/model.onnx")).ok()?;
    let tokenizer = std::fs::read(format!("{dir}/tokenizer.json")).ok()?;
    let e = engram::embed::OnnxEmbedder::from_bytes(&model, &tokenizer).ok()?;
    let texts: Vec<&str> = input.iter().flat_map(|s| s.turns.iter().map(|t| t.content.as_str())).collect();
    let t = Instant::now();
    for chunk in texts.chunks(16) {
        e.embed(chunk).ok()?;
    }
    Some(t.elapsed())
}

#[cfg(not(feature = "embedder"))]
fn embed_time(_: &[SessionInput]) -> Option<Duration> {
    None
}

fn main() {
    let mut turns = 1000;
    let mut reps = 3;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--turns" => turns = it.next().and_then(|v| v.parse().ok()).unwrap_or(turns),
            "--reps" => reps = it.next().and_then(|v| v.parse().ok()).unwrap_or(reps),
            "--bench" => {}
            _ => {}
        }
    }
    let input = sessions(turns);
    let n: usize = input.iter().map(|s| s.turns.len()).sum();
    let users: usize = input.iter().flat_map(|s| &s.turns).filter(|t| t.role == "user").count();
    let (mut ingest, mut author, mut memories) = (Vec::new(), Vec::new(), 0);
    for _ in 0..reps {
        let mut e = engine();
        let (mut ti, mut ta) = (Duration::ZERO, Duration::ZERO);
        for s in &input {
            let id = s.id.clone();
            let t = Instant::now();
            e.ingest(s.clone()).expect("ingest");
            ti += t.elapsed();
            let t = Instant::now();
            let r = e.author_offline(&id).expect("author");
            ta += t.elapsed();
            memories += r.added.len();
        }
        ingest.push(ti);
        author.push(ta);
    }
    let (ti, ta) = (median(ingest), median(author));
    println!("{n} turns ({users} from the user) in {} sessions, {} memories authored per run", input.len(), memories / reps.max(1));
    println!("author_offline: {:.1} ms in all, {:.1} µs per turn (median of {reps})", ta.as_secs_f64() * 1e3, ta.as_secs_f64() * 1e6 / n as f64);
    println!("ingest (keyword-only, same run): {:.1} ms in all; author / ingest = {:.2}", ti.as_secs_f64() * 1e3, ta.as_secs_f64() / ti.as_secs_f64());
    match embed_time(&input) {
        Some(te) => println!("embedding the same turns with the local model: {:.0} ms; author / embed = {:.3}", te.as_secs_f64() * 1e3, ta.as_secs_f64() / te.as_secs_f64()),
        None => println!("embedding time: build with --features embedder and the model files to compare"),
    }
}
