//! Real sentence embeddings for the vector-index oracle tests (`src/index/vector/tests/vector_oracle.rs`):
//! all-MiniLM-L6-v2 (int8 ONNX, 384 dims, unit length) vectors of real conversation texts from the
//! public benchmark files beside the repository.
//!
//! **Texts, in a fixed order, each once (first occurrence wins):**
//! 1. LongMemEval-S (`longmemeval-s-dev.json.gz`): every question's `haystack_sessions` → turns →
//!    `content`, trimmed, empty ones skipped — exactly the text `examples/eval.rs` ingests (a
//!    LongMemEval turn has no speaker, so the engine embeds the content itself). 45,898 distinct texts
//!    in the dev file.
//! 2. LoCoMo (`locomo-dev.json`) turns: `"<speaker>: <text>"`, with `" [image: <caption>]"` after the
//!    text when the turn has a `blip_caption` — again what the engine embeds for eval's LoCoMo turns
//!    (`model::speaker_text`). 2,760 texts.
//! 3. Only LoCoMo's derived memory texts are left after that (the dev files hold 48,658 distinct turn
//!    texts, short of the 50,200 a 50k run with 200 held-out queries needs): its per-session
//!    `observation` facts (1,210), `event_summary` items (303) and `session_summary` paragraphs (128).
//!    They are real text about the same conversations, the kind of thing an agent stores as memories.
//!
//! Questions are kept apart ([`real_questions`]): LongMemEval's and LoCoMo's `question` fields, never
//! in the stored pool, so they can query it as a new text would.
//!
//! **Embeddings** come from the eval harness's on-disk cache, `.cache/embeddings/<model id>.bin` under
//! the repository (records of a little-endian u64 [`text_key`] and 384 little-endian f32, appended; a
//! torn tail is ignored), so the ~47k vectors `examples/eval.rs` already made are reused. Texts not in
//! it are embedded with the local model (`models/`, fetched by `scripts/fetch-models.sh`; override with
//! `ENGRAM_MODEL_DIR`) and appended. Texts the model cannot read (nothing left after tokenizing) are
//! skipped, like the engine skips them.
//!
//! The data files are looked up in `$ENGRAM_BENCH_DIR`, else `<repo>/../shared/bench`. A missing
//! feature, model, data file or too small a pool is an `Err` naming what to do, never a panic.
//!
//! `examples/embed_corpus.rs` includes this file for the cache format. `examples/eval.rs` could reuse
//! [`text_key`], [`cache_path`], [`read_cache`], [`append_cache`] and
//! [`longmemeval_turn_text`]/[`locomo_turn_text`] from here instead of its own copies (it keeps its
//! `CachedEmbedder` wrapper, which is an `Embedder` in front of these).
#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

pub const DIMS: usize = 384;

/// Where the benchmark files are: `$ENGRAM_BENCH_DIR`, else `<repo>/../shared/bench`.
pub fn bench_dir() -> PathBuf {
    std::env::var_os("ENGRAM_BENCH_DIR").map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("shared").join("bench"))
}

/// Where the model files are: `$ENGRAM_MODEL_DIR`, else `<repo>/models` (as `tests/embedder.rs`).
pub fn model_dir() -> PathBuf {
    std::env::var_os("ENGRAM_MODEL_DIR").map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("models"))
}

/// The eval harness's cache key: FNV-1a over the bytes, xor the length rotated by 32 (same as
/// `examples/eval.rs::text_key`; stable across runs and platforms).
pub fn text_key(text: &str) -> u64 {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    h ^ (text.len() as u64).rotate_left(32)
}

/// `<repo>/.cache/embeddings/<model id, unsafe characters as '_', at most 100>.bin`, the file
/// `examples/eval.rs` writes when run from the repository root.
pub fn cache_path(model_id: &str) -> PathBuf {
    let safe: String = model_id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".cache").join("embeddings").join(format!("{}.bin", &safe[..safe.len().min(100)]))
}

/// Every complete record of a cache file (later records win); a missing file is an empty cache.
pub fn read_cache(path: &Path, dims: usize) -> Result<HashMap<u64, Vec<f32>>, String> {
    Ok(read_records(path, dims)?.into_iter().collect())
}

/// The (text key, vector) records of a cache-format file in file order (a torn tail is ignored;
/// a missing file has none).
pub fn read_records(path: &Path, dims: usize) -> Result<Vec<(u64, Vec<f32>)>, String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let rec = 8 + 4 * dims;
    Ok(bytes
        .chunks_exact(rec)
        .map(|r| {
            let key = u64::from_le_bytes(r[..8].try_into().unwrap());
            (key, r[8..].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
        })
        .collect())
}

/// Appends records; a torn tail (a partial record from an interrupted writer) is cut first so the new
/// records stay aligned.
pub fn append_cache(path: &Path, dims: usize, records: &[(u64, &[f32])]) -> Result<(), String> {
    use std::io::Write;
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(err)?;
    let rec = (8 + 4 * dims) as u64;
    let len = f.metadata().map_err(err)?.len();
    if len % rec != 0 {
        f.set_len(len - len % rec).map_err(err)?;
    }
    let mut out = Vec::with_capacity(records.len() * rec as usize);
    for (key, v) in records {
        assert_eq!(v.len(), dims);
        out.extend_from_slice(&key.to_le_bytes());
        v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
    }
    f.write_all(&out).map_err(err)
}

/// The text the engine embeds for a LongMemEval turn as `examples/eval.rs` ingests it (no speaker).
pub fn longmemeval_turn_text(turn: &Value) -> Option<String> {
    let content = turn["content"].as_str()?.trim();
    (!content.is_empty()).then(|| content.chars().take(65_536).collect())
}

/// The text the engine embeds for a LoCoMo turn as `examples/eval.rs` ingests it
/// (`model::speaker_text` of the speaker and the text with its image caption).
pub fn locomo_turn_text(turn: &Value) -> Option<String> {
    let text = turn["text"].as_str()?;
    turn["dia_id"].as_str()?; // eval skips turns without an id
    let content = match turn.get("blip_caption").and_then(Value::as_str) {
        Some(cap) => format!("{text} [image: {cap}]"),
        None => text.to_string(),
    };
    Some(match turn["speaker"].as_str() {
        Some(s) => format!("{s}: {content}"),
        None => content,
    })
}

pub fn load_json(path: &Path) -> Result<Value, String> {
    use std::io::Read;
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e} (set ENGRAM_BENCH_DIR to the folder with the benchmark files)", path.display()))?;
    let text = if path.extension().is_some_and(|x| x == "gz") {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut s).map_err(|e| format!("{}: {e}", path.display()))?;
        s
    } else {
        String::from_utf8(bytes).map_err(|e| format!("{}: {e}", path.display()))?
    };
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn array(v: &Value) -> impl Iterator<Item = &Value> {
    v.as_array().into_iter().flatten()
}

/// The stored pool and the questions, in their fixed orders, each text once.
pub struct Texts {
    pub pool: Vec<String>,
    pub questions: Vec<String>,
}

/// Parses both files once per test binary.
pub fn texts() -> Result<&'static Texts, String> {
    static TEXTS: OnceLock<Result<Texts, String>> = OnceLock::new();
    TEXTS.get_or_init(load_texts).as_ref().map_err(Clone::clone)
}

fn load_texts() -> Result<Texts, String> {
    let dir = bench_dir();
    let lme = load_json(&dir.join("longmemeval-s-dev.json.gz"))?;
    let locomo = load_json(&dir.join("locomo-dev.json"))?;
    let lme = lme.as_array().ok_or("longmemeval-s-dev.json.gz: expected an array")?;
    let locomo = locomo.as_array().ok_or("locomo-dev.json: expected an array")?;

    let mut seen = HashSet::new();
    let mut pool = Vec::new();
    let mut push = |out: &mut Vec<String>, t: String| {
        if seen.insert(t.clone()) {
            out.push(t);
        }
    };
    for q in lme {
        for session in array(&q["haystack_sessions"]) {
            array(session).filter_map(longmemeval_turn_text).for_each(|t| push(&mut pool, t));
        }
    }
    for c in locomo {
        let conv = &c["conversation"];
        // Sessions are numbered from 1; like eval, stop at the first missing number.
        for n in 1.. {
            let Some(turns) = conv.get(format!("session_{n}")).and_then(Value::as_array) else { break };
            turns.iter().filter_map(locomo_turn_text).for_each(|t| push(&mut pool, t));
        }
    }
    // LoCoMo's derived texts, per conversation and session; speakers in the file's map order.
    for c in locomo {
        for n in 1.. {
            let Some(by_speaker) = c["observation"].get(format!("session_{n}_observation")).and_then(Value::as_object) else { break };
            for facts in by_speaker.values() {
                // Each fact is [text, evidence turn id].
                array(facts).filter_map(|f| f.get(0).and_then(Value::as_str).or_else(|| f.as_str())).for_each(|t| push(&mut pool, t.trim().to_string()));
            }
        }
    }
    for c in locomo {
        for n in 1.. {
            let Some(by_speaker) = c["event_summary"].get(format!("events_session_{n}")).and_then(Value::as_object) else { break };
            for (who, items) in by_speaker {
                if who != "date" {
                    array(items).filter_map(Value::as_str).for_each(|t| push(&mut pool, t.trim().to_string()));
                }
            }
        }
    }
    for c in locomo {
        for n in 1.. {
            let Some(summary) = c["session_summary"].get(format!("session_{n}_summary")).and_then(Value::as_str) else { break };
            push(&mut pool, summary.trim().to_string());
        }
    }
    pool.retain(|t| !t.is_empty());

    let mut questions = Vec::new();
    let lme_q = lme.iter().filter_map(|q| q["question"].as_str());
    let locomo_q = locomo.iter().flat_map(|c| array(&c["qa"])).filter_map(|qa| qa["question"].as_str());
    for q in lme_q.chain(locomo_q) {
        let q = q.trim();
        if !q.is_empty() {
            push(&mut questions, q.to_string());
        }
    }
    Ok(Texts { pool, questions })
}

/// The first `n` texts of the pool (1–3 above) with vectors, as unit vectors of [`DIMS`] dims, in pool
/// order. `real_vectors(n + k)[n..]` are then `k` real texts not among the first `n`: held-out queries.
pub fn real_vectors(n: usize) -> Result<Vec<Vec<f32>>, String> {
    let texts = texts()?;
    embedded(&texts.pool, n, "stored pool")
}

/// Up to `n` question vectors (LongMemEval's, then LoCoMo's), none of them in the stored pool.
pub fn real_questions(n: usize) -> Result<Vec<Vec<f32>>, String> {
    let texts = texts()?;
    embedded(&texts.questions, n.min(texts.questions.len()), "questions")
}

#[cfg(not(feature = "embedder"))]
fn embedded(_texts: &[String], _n: usize, _what: &str) -> Result<Vec<Vec<f32>>, String> {
    Err("real vectors need the local embedder: build with `--features embedder` (and run scripts/fetch-models.sh)".into())
}

/// The local model, loaded once per test binary.
#[cfg(feature = "embedder")]
pub fn embedder() -> Result<&'static engram::embed::OnnxEmbedder, String> {
    static MODEL: OnceLock<Result<engram::embed::OnnxEmbedder, String>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let dir = model_dir();
            let read = |f: &str| std::fs::read(dir.join(f)).map_err(|e| format!("{}: {e} (run scripts/fetch-models.sh or set ENGRAM_MODEL_DIR)", dir.join(f).display()));
            let (model, tokenizer) = (read("model.onnx")?, read("tokenizer.json")?);
            engram::embed::OnnxEmbedder::from_bytes(&model, &tokenizer).map_err(|e| format!("loading the model in {}: {e:?}", dir.display()))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Texts embedded per model call (the model sorts a call's texts by length and runs them 16 at a time).
#[cfg(feature = "embedder")]
const EMBED_CHUNK: usize = 64;

/// The first `n` of `texts` that have a vector, from the cache or embedded now (and appended to it).
#[cfg(feature = "embedder")]
fn embedded(texts: &[String], n: usize, what: &str) -> Result<Vec<Vec<f32>>, String> {
    use engram::host::Embedder;
    // One caller at a time: tests run on threads and the cache is appended to.
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|p| p.into_inner());

    let model = embedder()?;
    if model.dims() != DIMS {
        return Err(format!("the model makes {}-dim vectors, expected {DIMS}", model.dims()));
    }
    let path = cache_path(model.id());
    let mut cache = read_cache(&path, DIMS)?;
    let mut out: Vec<Vec<f32>> = Vec::with_capacity(n);
    let mut next = 0; // texts[..next] are decided
    let (mut embedded_now, mut unreadable, started) = (0usize, 0usize, std::time::Instant::now());
    while out.len() < n {
        if next == texts.len() {
            return Err(format!("only {} {what} texts have vectors in {}, {n} asked", out.len(), bench_dir().display()));
        }
        // Take the texts that fill `out` if every one embeds; embed the missing ones among them.
        let want = n - out.len();
        let window = &texts[next..(next + want).min(texts.len())];
        let missing: Vec<&str> = window.iter().map(String::as_str).filter(|t| !cache.contains_key(&text_key(t))).collect();
        for chunk in missing.chunks(EMBED_CHUNK) {
            let vectors: Vec<Option<Vec<f32>>> = match model.embed(chunk) {
                Ok(v) => v.into_iter().map(Some).collect(),
                // Some text has nothing the model can read: embed one by one, skipping those.
                Err(e) if e.code == engram::error::ErrorCode::InvalidInput => chunk.iter().map(|t| model.embed(&[t]).ok().and_then(|mut v| v.pop())).collect(),
                Err(e) => return Err(format!("embedding: {e:?}")),
            };
            let records: Vec<(u64, &[f32])> = chunk.iter().zip(&vectors).filter_map(|(t, v)| Some((text_key(t), v.as_deref()?))).collect();
            append_cache(&path, DIMS, &records)?;
            embedded_now += records.len();
            unreadable += chunk.len() - records.len();
            for (t, v) in chunk.iter().zip(vectors) {
                if let Some(v) = v {
                    cache.insert(text_key(t), v);
                }
            }
            if embedded_now > 0 && embedded_now % 1024 < EMBED_CHUNK {
                eprintln!("real_vectors: embedded {embedded_now} texts in {:.0?}", started.elapsed());
            }
        }
        for t in window {
            if let Some(v) = cache.get(&text_key(t)) {
                out.push(v.clone());
            }
        }
        next += window.len();
    }
    if embedded_now + unreadable > 0 {
        eprintln!("real_vectors: embedded {embedded_now} {what} texts not in {} in {:.1?} ({unreadable} unreadable, skipped)", path.display(), started.elapsed());
    }
    for (i, v) in out.iter().enumerate() {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if v.len() != DIMS || !(norm - 1.0).abs().lt(&1e-3) {
            return Err(format!("{what} vector {i} is not a {DIMS}-dim unit vector (len {}, norm {norm}): is {} damaged?", v.len(), path.display()));
        }
    }
    Ok(out)
}
