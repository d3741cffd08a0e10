//! Retrieval quality on public conversational-memory benchmarks, through Engram's public API only
//! (`ingest` + `search`): no benchmark-specific logic lives in the engine.
//!
//! ```text
//! cargo run --release --example eval -- locomo PATH [--limit N] [--mode bm25|hybrid] [--neighbors N]
//! cargo run --release --example eval -- longmemeval PATH [--limit N] [--mode bm25|hybrid] [--misses]
//! ... [--consolidate N]   run N consolidation epochs (no LLM) after ingesting, before the questions
//! cargo run --release --example eval -- evolving PATH [--author offline|llm] [--max-tokens N] [--limit EPISODES] [--show]
//!     --llm-url http://HOST:PORT/v1 --model M   the LLM author (`author@3`) through any OpenAI-compatible server
//! ```
//! PATH may be `.json` or `.json.gz`. `--mode hybrid` needs `--features embedder` and the model files
//! (`scripts/fetch-models.sh`); embeddings are cached under `.cache/embeddings/` by model id and text.
//! The last line is machine-readable:
//! `locomo recall@5=… recall@10=… recall@20=… n=…` / `longmemeval recall_all@5=… ndcg@10=… n=…`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::rc::Rc;

use engram::host::{Embedder, ManualClock};
use engram::model::time::parse_iso;
use engram::{EngineOptions, Engram, Scope, SearchRequest, SessionInput, TurnInput};
use serde_json::Value;

#[path = "eval/evolving.rs"]
mod evolving;
#[path = "eval/openai.rs"]
mod openai;

type AnyResult<T> = std::result::Result<T, Box<dyn std::error::Error>>;

struct Args {
    dataset: String,
    path: String,
    limit: Option<usize>,
    mode: String,
    neighbors: u32,
    /// Print each LongMemEval question that misses recall_all@5, with its gold sessions' ranks and
    /// the hits that placed the ten best sessions (stderr).
    misses: bool,
    /// Consolidation epochs run after ingesting, before the questions (recall must not drop).
    consolidate: u32,
    /// A fixed half of the data: `tune` (LoCoMo conversations 1–3, LongMemEval's even questions) to
    /// fit levers on, `held` (the rest) to report them on. Unset: all of it.
    part: Option<Part>,
    /// Write each question's raw candidates with their re-ranking features here (JSON lines), the
    /// training data of `train_turn_rank`. LongMemEval's evidence is its turns marked `has_answer`.
    turn_features: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Part {
    Tune,
    Held,
}

impl Part {
    /// Whether item `i` (a LoCoMo conversation, a LongMemEval question) belongs to `part`.
    fn holds(part: Option<Part>, i: usize, conversations: bool) -> bool {
        let tune = if conversations { i < 3 } else { i % 2 == 0 };
        match part {
            None => true,
            Some(Part::Tune) => tune,
            Some(Part::Held) => !tune,
        }
    }
}

fn parse_args() -> AnyResult<Args> {
    let mut it = std::env::args().skip(1);
    let usage = "usage: eval <locomo|longmemeval> PATH [--limit N] [--mode bm25|hybrid] [--neighbors N] [--misses] [--consolidate N] [--part tune|held] [--turn-features FILE]";
    let dataset = it.next().ok_or(usage)?;
    let path = it.next().ok_or(usage)?;
    let mut args = Args { dataset, path, limit: None, mode: "bm25".into(), neighbors: 0, misses: false, consolidate: 0, part: None, turn_features: None };
    while let Some(flag) = it.next() {
        if flag == "--misses" {
            args.misses = true;
            continue;
        }
        let value = it.next().ok_or(usage)?;
        match flag.as_str() {
            "--limit" => args.limit = Some(value.parse()?),
            "--mode" => args.mode = value,
            "--neighbors" => args.neighbors = value.parse()?,
            "--consolidate" => args.consolidate = value.parse()?,
            "--turn-features" => args.turn_features = Some(value),
            "--part" => {
                args.part = Some(match value.as_str() {
                    "tune" => Part::Tune,
                    "held" => Part::Held,
                    _ => return Err(usage.into()),
                })
            }
            _ => return Err(usage.into()),
        }
    }
    if !["bm25", "hybrid"].contains(&args.mode.as_str()) {
        return Err(usage.into());
    }
    Ok(args)
}

fn load_json(path: &str) -> AnyResult<Value> {
    let bytes = std::fs::read(path)?;
    let text = if path.ends_with(".gz") {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut s)?;
        s
    } else {
        String::from_utf8(bytes)?
    };
    Ok(serde_json::from_str(&text)?)
}

// ---------------------------------------------------------------------------------------------
// Embeddings (hybrid mode): the local ONNX embedder behind an on-disk cache.

/// Wraps an embedder with a cache file of (text hash, vector) records, appended as it grows.
struct CachedEmbedder {
    inner: Box<dyn Embedder>,
    path: std::path::PathBuf,
    cache: std::cell::RefCell<HashMap<u64, Vec<f32>>>,
}

fn text_key(text: &str) -> u64 {
    // FNV-1a over the bytes plus the length: stable across runs and platforms.
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    h ^ (text.len() as u64).rotate_left(32)
}

impl CachedEmbedder {
    fn new(inner: Box<dyn Embedder>) -> AnyResult<Self> {
        let safe: String = inner.id().chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
        let dir = std::path::Path::new(".cache/embeddings");
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{}.bin", &safe[..safe.len().min(100)]));
        let dims = inner.dims();
        let mut cache = HashMap::new();
        if let Ok(bytes) = std::fs::read(&path) {
            let rec = 8 + 4 * dims;
            for chunk in bytes.chunks_exact(rec) {
                let key = u64::from_le_bytes(chunk[..8].try_into()?);
                let v = chunk[8..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
                cache.insert(key, v);
            }
        }
        Ok(CachedEmbedder { inner, path, cache: std::cell::RefCell::new(cache) })
    }
}

impl Embedder for CachedEmbedder {
    fn id(&self) -> &str {
        self.inner.id()
    }
    fn dims(&self) -> usize {
        self.inner.dims()
    }
    fn embed(&self, texts: &[&str]) -> engram::Result<Vec<Vec<f32>>> {
        let missing: Vec<&str> = {
            let cache = self.cache.borrow();
            let mut seen = HashSet::new();
            texts.iter().copied().filter(|t| !cache.contains_key(&text_key(t)) && seen.insert(text_key(t))).collect()
        };
        if !missing.is_empty() {
            let vectors = self.inner.embed(&missing)?;
            let mut out = Vec::with_capacity(missing.len() * (8 + 4 * self.dims()));
            let mut cache = self.cache.borrow_mut();
            for (t, v) in missing.iter().zip(vectors) {
                out.extend_from_slice(&text_key(t).to_le_bytes());
                v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
                cache.insert(text_key(t), v);
            }
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&self.path).map_err(|e| engram::Error::embedder(e.to_string()))?;
            f.write_all(&out).map_err(|e| engram::Error::embedder(e.to_string()))?;
        }
        let cache = self.cache.borrow();
        Ok(texts.iter().map(|t| cache[&text_key(t)].clone()).collect())
    }
}

#[cfg(feature = "embedder")]
fn local_embedder() -> AnyResult<Box<dyn Embedder>> {
    let dir = std::env::var("ENGRAM_MODEL_DIR").unwrap_or_else(|_| "models".into());
    let model = std::fs::read(format!("{dir}/model.onnx")).map_err(|e| format!("{dir}/model.onnx: {e} (run scripts/fetch-models.sh)"))?;
    let tokenizer = std::fs::read(format!("{dir}/tokenizer.json"))?;
    Ok(Box::new(engram::embed::OnnxEmbedder::from_bytes(&model, &tokenizer)?))
}

#[cfg(not(feature = "embedder"))]
fn local_embedder() -> AnyResult<Box<dyn Embedder>> {
    Err("--mode hybrid needs the local embedder: cargo run --release --features embedder --example eval -- …".into())
}

/// One shared cached embedder for the whole run (engines borrow it through an Rc).
struct SharedEmbedder(Rc<CachedEmbedder>);

impl Embedder for SharedEmbedder {
    fn id(&self) -> &str {
        self.0.id()
    }
    fn dims(&self) -> usize {
        self.0.dims()
    }
    fn embed(&self, texts: &[&str]) -> engram::Result<Vec<Vec<f32>>> {
        self.0.embed(texts)
    }
}

/// A fresh engine per conversation, with a clock the harness sets to when questions are asked.
fn new_engine(now: i64, embedder: &Option<Rc<CachedEmbedder>>) -> (Engram, Rc<ManualClock>) {
    let options = EngineOptions { id_seed: Some(7), embedder: embedder.as_ref().map(|e| Box::new(SharedEmbedder(e.clone())) as Box<dyn Embedder>), ..EngineOptions::default() };
    let clock = Rc::new(ManualClock::new(now));
    (Engram::new(Box::new(clock.clone()), options), clock)
}

// ---------------------------------------------------------------------------------------------
// Dates as the datasets write them.

const MONTHS: [&str; 12] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/// LoCoMo: `1:56 pm on 8 May, 2023`.
fn locomo_date(s: &str) -> Option<i64> {
    let (time, date) = s.split_once(" on ")?;
    let (hm, ampm) = time.trim().split_once(' ')?;
    let (h, m) = hm.split_once(':')?;
    let mut h: i64 = h.parse().ok()?;
    let m: i64 = m.parse().ok()?;
    match ampm.to_ascii_lowercase().as_str() {
        "pm" if h != 12 => h += 12,
        "am" if h == 12 => h = 0,
        _ => {}
    }
    let mut parts = date.split([' ', ',']).filter(|p| !p.is_empty());
    let day: u32 = parts.next()?.parse().ok()?;
    let month_name = parts.next()?.to_ascii_lowercase();
    let month = MONTHS.iter().position(|mo| *mo == month_name)? + 1;
    let year: i32 = parts.next()?.parse().ok()?;
    parse_iso(&format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:00Z")).ok()
}

/// LongMemEval: `2023/03/16 (Thu) 10:38`.
fn longmemeval_date(s: &str) -> Option<i64> {
    let mut parts = s.split_whitespace();
    let date = parts.next()?.replace('/', "-");
    let time = parts.last().unwrap_or("00:00");
    parse_iso(&format!("{date}T{time}:00Z")).ok()
}

// ---------------------------------------------------------------------------------------------

/// `epochs` consolidation epochs without an LLM (the heuristic lifecycle).
fn consolidate(engine: &mut Engram, epochs: u32) -> AnyResult<()> {
    for _ in 0..epochs {
        engine.consolidate_with(None, &engram::engine::ConsolidateOptions::default())?;
    }
    Ok(())
}

fn search_raw(e: &mut Engram, question: &str, limit: usize, neighbors: u32) -> Vec<engram::RawEntry> {
    let req = SearchRequest { query: Some(question.to_string()), scope: Scope::Raw, limit: Some(limit), dry_run: true, neighbors, ..Default::default() };
    match e.search(&req) {
        Ok(hits) => hits.into_iter().filter_map(|h| h.raw().cloned()).collect(),
        Err(err) => {
            eprintln!("search failed for {question:?}: {err}");
            Vec::new()
        }
    }
}

/// The re-ranker's training data: each question's first raw candidates by the fused score, their
/// features, and which are evidence.
mod turn_features {
    use super::*;
    use std::io::Write;

    pub fn search(e: &mut Engram, question: &str, limit: usize, out: &mut impl Write, item: usize, category: &str, gold: &HashSet<String>) -> AnyResult<Vec<String>> {
        Ok(search_raw(e, question, limit, out, item, category, gold)?.into_iter().filter_map(|r| r.turn_id).collect())
    }

    #[cfg(feature = "internals")]
    pub fn search_raw(e: &mut Engram, question: &str, limit: usize, out: &mut impl Write, item: usize, category: &str, gold: &HashSet<String>) -> AnyResult<Vec<engram::RawEntry>> {
        use engram::internals::turn_rank::RERANKED;
        let req = SearchRequest { query: Some(question.to_string()), scope: Scope::Raw, limit: Some(limit), dry_run: true, ..Default::default() };
        let (hits, features) = e.search_with_turn_features(&req)?;
        let window = &features[..features.len().min(RERANKED)];
        let line = serde_json::json!({
            "item": item,
            "category": category,
            "gold": gold.len(),
            "right": window.iter().map(|(id, _)| gold.contains(id)).collect::<Vec<_>>(),
            "candidates": window.iter().map(|(_, f)| f.to_vec()).collect::<Vec<_>>(),
        });
        writeln!(out, "{line}")?;
        Ok(hits.into_iter().filter_map(|h| h.raw().cloned()).collect())
    }

    #[cfg(not(feature = "internals"))]
    pub fn search_raw(_: &mut Engram, _: &str, _: usize, _: &mut impl Write, _: usize, _: &str, _: &HashSet<String>) -> AnyResult<Vec<engram::RawEntry>> {
        Err("--turn-features needs the `internals` feature".into())
    }
}

fn locomo(args: &Args, data: &Value, embedder: &Option<Rc<CachedEmbedder>>) -> AnyResult<()> {
    const KS: [usize; 3] = [5, 10, 20];
    let names = ["", "multi-hop", "temporal", "open-domain", "single-hop", "adversarial"];
    let mut per_cat: BTreeMap<u64, (usize, [f64; 3])> = BTreeMap::new();
    let mut total = (0usize, [0f64; 3]);
    let mut questions_seen = 0usize;
    let mut features_out = match &args.turn_features {
        Some(path) => Some(std::io::BufWriter::new(std::fs::File::create(path)?)),
        None => None,
    };
    for (i, conv) in data.as_array().ok_or("LoCoMo: expected an array")?.iter().enumerate() {
        if !Part::holds(args.part, i, true) {
            continue;
        }
        let c = &conv["conversation"];
        let (mut engine, clock) = new_engine(0, embedder);
        let mut turn_ids: HashSet<String> = HashSet::new();
        let mut last_date = 0;
        for n in 1.. {
            let Some(turns) = c.get(format!("session_{n}")).and_then(Value::as_array) else { break };
            let date = c.get(format!("session_{n}_date_time")).and_then(Value::as_str).and_then(locomo_date);
            last_date = last_date.max(date.unwrap_or(0));
            let turns: Vec<TurnInput> = turns
                .iter()
                .filter_map(|t| {
                    let text = t["text"].as_str()?;
                    let content = match t.get("blip_caption").and_then(Value::as_str) {
                        Some(cap) => format!("{text} [image: {cap}]"),
                        None => text.to_string(),
                    };
                    let id = t["dia_id"].as_str()?.to_string();
                    turn_ids.insert(id.clone());
                    Some(TurnInput { role: "user".into(), speaker: t["speaker"].as_str().map(str::to_string), content, id: Some(id), embedding: None })
                })
                .collect();
            if turns.is_empty() {
                continue;
            }
            engine.ingest(SessionInput { id: format!("session_{n}"), namespace: None, date, turns, ..Default::default() })?;
        }
        consolidate(&mut engine, args.consolidate)?;
        // Questions are asked the day after the conversation's last session.
        clock.set(last_date + 86_400_000);
        for qa in conv["qa"].as_array().ok_or("LoCoMo: qa")? {
            if args.limit.is_some_and(|l| questions_seen >= l) {
                break;
            }
            let gold: HashSet<String> = qa["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .flat_map(|e| e.split(';').map(|x| x.trim().to_string()).collect::<Vec<_>>())
                .filter(|id| turn_ids.contains(id))
                .collect();
            if gold.is_empty() {
                continue;
            }
            questions_seen += 1;
            let question = qa["question"].as_str().unwrap_or_default();
            let cat = qa["category"].as_u64().unwrap_or(0);
            let ranked: Vec<String> = match features_out.as_mut() {
                Some(out) => turn_features::search(&mut engine, question, 20, out, i, names.get(cat as usize).copied().unwrap_or("other"), &gold)?,
                None => search_raw(&mut engine, question, 20, args.neighbors).into_iter().filter_map(|r| r.turn_id).collect(),
            };
            let entry = per_cat.entry(cat).or_default();
            entry.0 += 1;
            total.0 += 1;
            for (i, k) in KS.iter().enumerate() {
                let found = ranked.iter().take(*k).filter(|id| gold.contains(*id)).count();
                let r = found as f64 / gold.len() as f64;
                entry.1[i] += r;
                total.1[i] += r;
            }
        }
    }
    println!("| category | n | recall@5 | recall@10 | recall@20 |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (cat, (n, sums)) in &per_cat {
        let name = names.get(*cat as usize).copied().unwrap_or("other");
        println!("| {cat} {name} | {n} | {:.3} | {:.3} | {:.3} |", sums[0] / *n as f64, sums[1] / *n as f64, sums[2] / *n as f64);
    }
    let n = total.0.max(1) as f64;
    println!("| all | {} | {:.3} | {:.3} | {:.3} |", total.0, total.1[0] / n, total.1[1] / n, total.1[2] / n);
    println!("locomo recall@5={:.4} recall@10={:.4} recall@20={:.4} n={}", total.1[0] / n, total.1[1] / n, total.1[2] / n, total.0);
    Ok(())
}

fn longmemeval(args: &Args, data: &Value, embedder: &Option<Rc<CachedEmbedder>>) -> AnyResult<()> {
    let mut by_type: BTreeMap<String, (usize, f64, f64)> = BTreeMap::new();
    let (mut n, mut recall_sum, mut ndcg_sum) = (0usize, 0f64, 0f64);
    let mut features_out = match &args.turn_features {
        Some(path) => Some(std::io::BufWriter::new(std::fs::File::create(path)?)),
        None => None,
    };
    for (i, q) in data.as_array().ok_or("LongMemEval: expected an array")?.iter().enumerate() {
        if args.limit.is_some_and(|l| n >= l) {
            break;
        }
        if !Part::holds(args.part, i, false) {
            continue;
        }
        let qid = q["question_id"].as_str().unwrap_or_default();
        if qid.ends_with("_abs") {
            continue;
        }
        let asked = q["question_date"].as_str().and_then(longmemeval_date).unwrap_or(0);
        let (mut engine, _clock) = new_engine(asked, embedder);
        let sessions = q["haystack_sessions"].as_array().ok_or("haystack_sessions")?;
        let ids = q["haystack_session_ids"].as_array().ok_or("haystack_session_ids")?;
        let dates = q["haystack_dates"].as_array().ok_or("haystack_dates")?;
        for ((turns, id), date) in sessions.iter().zip(ids).zip(dates) {
            let turns: Vec<TurnInput> = turns
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| {
                    let content = t["content"].as_str()?.trim();
                    (!content.is_empty()).then(|| TurnInput {
                        role: t["role"].as_str().unwrap_or("user").into(),
                        content: content.chars().take(65_536).collect(),
                        ..Default::default()
                    })
                })
                .collect();
            if turns.is_empty() {
                continue;
            }
            let id = id.as_str().unwrap_or_default().to_string();
            // Haystacks can repeat a session id; keep the first copy.
            if engine.session(&id).is_ok() {
                continue;
            }
            engine.ingest(SessionInput { id, namespace: None, date: date.as_str().and_then(longmemeval_date), turns, ..Default::default() })?;
        }
        consolidate(&mut engine, args.consolidate)?;
        let gold: HashSet<&str> = q["answer_session_ids"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        if gold.is_empty() {
            continue;
        }
        let question = q["question"].as_str().unwrap_or_default();
        let hits = match features_out.as_mut() {
            Some(out) => {
                // The ids the engine gives turns (`<session>#<index>` among the turns ingested).
                let mut evidence: HashSet<String> = HashSet::new();
                for (turns, id) in sessions.iter().zip(ids) {
                    let kept = turns.as_array().into_iter().flatten().filter(|t| t["content"].as_str().is_some_and(|c| !c.trim().is_empty()));
                    for (index, t) in kept.enumerate() {
                        if t["has_answer"].as_bool() == Some(true) {
                            evidence.insert(format!("{}#{index}", id.as_str().unwrap_or_default()));
                        }
                    }
                }
                turn_features::search_raw(&mut engine, question, 1000, out, i, q["question_type"].as_str().unwrap_or("other"), &evidence)?
            }
            None => search_raw(&mut engine, question, 1000, args.neighbors),
        };
        let mut ranked_sessions: Vec<String> = Vec::new();
        for r in hits {
            if !ranked_sessions.contains(&r.session_id) {
                ranked_sessions.push(r.session_id);
            }
        }
        let top5: HashSet<&str> = ranked_sessions.iter().take(5).map(String::as_str).collect();
        let recall_all = f64::from(u8::from(gold.iter().all(|g| top5.contains(g))));
        let dcg: f64 = ranked_sessions.iter().take(10).enumerate().filter(|(_, s)| gold.contains(s.as_str())).map(|(i, _)| 1.0 / (i as f64 + 2.0).log2()).sum();
        let idcg: f64 = (0..gold.len().min(10)).map(|i| 1.0 / (i as f64 + 2.0).log2()).sum();
        let ndcg = dcg / idcg;
        if args.misses && recall_all < 1.0 {
            let ranks: Vec<String> = gold.iter().map(|g| ranked_sessions.iter().position(|s| s == g).map_or("-".into(), |p| (p + 1).to_string())).collect();
            eprintln!(
                "miss {qid} [{}] gold ranks {} of {}: {}",
                q["question_type"].as_str().unwrap_or("?"),
                ranks.join(","),
                ranked_sessions.len(),
                q["question"].as_str().unwrap_or_default()
            );
            {
                // The ten best sessions and the hit that placed each, with its score breakdown.
                let req = SearchRequest {
                    query: Some(q["question"].as_str().unwrap_or_default().to_string()),
                    scope: Scope::Raw,
                    limit: Some(1000),
                    dry_run: true,
                    explain: true,
                    ..Default::default()
                };
                let mut shown: Vec<String> = Vec::new();
                for h in engine.search(&req).unwrap() {
                    let r = h.raw().unwrap();
                    if shown.contains(&r.session_id) || shown.len() >= 10 {
                        continue;
                    }
                    shown.push(r.session_id.clone());
                    let b = h.explain.clone().unwrap();
                    let c: String = r.content.chars().take(110).collect::<String>().replace('\n', " ");
                    eprintln!(
                        "   {}{:>2} s={:.3} rel={:.3} k={:?} v={:?} t={} [{}] {}",
                        if gold.contains(r.session_id.as_str()) { "*" } else { " " },
                        shown.len(),
                        b.score,
                        b.relevance,
                        b.keyword.map(|x| (x * 1000.0).round() / 1000.0),
                        b.vector.map(|x| (x * 1000.0).round() / 1000.0),
                        r.turn_index,
                        r.role,
                        c
                    );
                }
            }
        }
        n += 1;
        recall_sum += recall_all;
        ndcg_sum += ndcg;
        let t = by_type.entry(q["question_type"].as_str().unwrap_or("?").to_string()).or_default();
        t.0 += 1;
        t.1 += recall_all;
        t.2 += ndcg;
    }
    println!("| question type | n | recall_all@5 | ndcg@10 |");
    println!("| --- | ---: | ---: | ---: |");
    for (t, (k, r, d)) in &by_type {
        println!("| {t} | {k} | {:.3} | {:.3} |", r / *k as f64, d / *k as f64);
    }
    let nf = n.max(1) as f64;
    println!("| all | {n} | {:.3} | {:.3} |", recall_sum / nf, ndcg_sum / nf);
    println!("longmemeval recall_all@5={:.4} ndcg@10={:.4} n={n}", recall_sum / nf, ndcg_sum / nf);
    Ok(())
}

fn main() -> AnyResult<()> {
    if std::env::args().nth(1).as_deref() == Some("evolving") {
        return evolving::run(std::env::args().skip(2));
    }
    let args = parse_args()?;
    let data = load_json(&args.path)?;
    let embedder = match args.mode.as_str() {
        "hybrid" => Some(Rc::new(CachedEmbedder::new(local_embedder()?)?)),
        _ => None,
    };
    eprintln!("eval: {} {} mode={} neighbors={} consolidate={}", args.dataset, args.path, args.mode, args.neighbors, args.consolidate);
    match args.dataset.as_str() {
        "locomo" => locomo(&args, &data, &embedder),
        "longmemeval" => longmemeval(&args, &data, &embedder),
        other => Err(format!("unknown dataset {other}: locomo or longmemeval").into()),
    }
}
