//! Grows a file of distinct real MiniLM vectors for the vector benchmarks (`benches/vector.mjs
//! --vectors FILE`, `examples/synthetic_export.rs --vectors FILE`), beyond the ~51k turns the eval
//! harness's embedding cache holds: it copies the cache's distinct vectors, then embeds sentences of
//! the dev benchmark files' turns (split at sentence ends and line breaks, 4+ words, each text once,
//! none already in the file) with the crate's own embedder until the file holds `--target` vectors.
//!
//! Same record format as the cache (`.cache/embeddings/<model>.bin`): an 8-byte FNV-1a text key, then
//! 384 little-endian f32. Every vector in the output is distinct (exact bytes), so an exact
//! nearest-neighbour answer has no ties between copies. The file is appended as it grows and a rerun
//! continues where it stopped. Order: the cache's turns first (in cache order), then sentences in
//! dataset order (LongMemEval-S, then LoCoMo), so the first 50k are the turns the earlier benchmarks
//! used and larger sizes add sentences.
//!
//! ```text
//! cargo run --profile bench-native --features embedder --example embed_corpus -- \
//!     [--target 110000] [--out .cache/embeddings/<model>-corpus.bin] [--without-cache] [LONGMEMEVAL.json.gz LOCOMO.json]
//! ```
//! `--without-cache` starts a new output file from sentences alone when the eval cache is empty
//! (a fresh machine), instead of refusing.
//! Datasets default to `../shared/bench/longmemeval-s-dev.json.gz` and `../shared/bench/locomo-dev.json`;
//! models come from `ENGRAM_MODEL_DIR` or `models/`.

#[cfg(feature = "embedder")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    run::main()
}

#[cfg(not(feature = "embedder"))]
fn main() {
    eprintln!("embed_corpus needs the local embedder: cargo run --profile bench-native --features embedder --example embed_corpus");
    std::process::exit(2);
}

// The eval cache's key, path and record format, shared with the oracle tests and the eval harness.
#[cfg(feature = "embedder")]
#[path = "../tests/support/real_vectors.rs"]
mod real_vectors;

#[cfg(feature = "embedder")]
mod run {
    use std::collections::HashSet;
    use std::path::PathBuf;
    use std::time::Instant;

    use engram::host::Embedder;
    use serde_json::Value;

    use super::real_vectors::{append_cache, bench_dir, cache_path, load_json, model_dir, text_key};

    type AnyResult<T> = std::result::Result<T, Box<dyn std::error::Error>>;

    /// Turn texts in dataset order: LongMemEval-S haystack turns, then LoCoMo dialogue turns.
    fn turns(longmemeval: &Value, locomo: &Value) -> Vec<String> {
        let mut out = Vec::new();
        for q in longmemeval.as_array().into_iter().flatten() {
            for session in q["haystack_sessions"].as_array().into_iter().flatten() {
                for t in session.as_array().into_iter().flatten() {
                    if let Some(c) = t["content"].as_str() {
                        out.push(c.to_string());
                    }
                }
            }
        }
        for conv in locomo.as_array().into_iter().flatten() {
            let c = &conv["conversation"];
            for n in 1.. {
                let Some(session) = c.get(format!("session_{n}")).and_then(Value::as_array) else {
                    break;
                };
                out.extend(session.iter().filter_map(|t| t["text"].as_str().map(str::to_string)));
            }
        }
        out
    }

    /// A text's sentences: cut after `.`, `!` or `?` followed by whitespace, and at line breaks;
    /// whitespace collapsed; list markers and emphasis left in (they are part of real text). Kept if
    /// 4..=60 words, so fragments ("Sure!", "1.") and whole paragraphs are left out.
    fn sentences(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for line in text.lines() {
            let chars: Vec<char> = line.chars().collect();
            let mut start = 0;
            for i in 0..chars.len() {
                let end = matches!(chars[i], '.' | '!' | '?') && chars.get(i + 1).is_some_and(|c| c.is_whitespace());
                if end || i + 1 == chars.len() {
                    let s: String = chars[start..=i].iter().collect();
                    let words: Vec<&str> = s.split_whitespace().collect();
                    if (4..=60).contains(&words.len()) {
                        out.push(words.join(" "));
                    }
                    start = i + 1;
                }
            }
        }
        out
    }

    pub fn main() -> AnyResult<()> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
        let target: usize = flag("--target").map(|s| s.parse()).transpose()?.unwrap_or(110_000);
        // Flags with a value take the next argument; `--without-cache` takes none.
        let takes_value = |flag: &String| flag.starts_with("--") && flag != "--without-cache";
        let positional: Vec<&String> = args.iter().enumerate().filter(|(i, a)| !a.starts_with("--") && (*i == 0 || !takes_value(&args[i - 1]))).map(|(_, a)| a).collect();
        let lme = positional.first().map_or_else(|| bench_dir().join("longmemeval-s-dev.json.gz"), PathBuf::from);
        let locomo = positional.get(1).map_or_else(|| bench_dir().join("locomo-dev.json"), PathBuf::from);

        let dir = model_dir();
        let model = std::fs::read(dir.join("model.onnx")).map_err(|e| format!("{}: {e} (run scripts/fetch-models.sh)", dir.join("model.onnx").display()))?;
        let tokenizer = std::fs::read(dir.join("tokenizer.json"))?;
        let embedder = engram::embed::OnnxEmbedder::from_bytes(&model, &tokenizer)?;
        let dims = embedder.dims();
        let rec = 8 + 4 * dims;
        let cache = cache_path(embedder.id());
        let out_path = flag("--out").map_or_else(|| cache.with_file_name(format!("{}-corpus.bin", cache.file_stem().unwrap().to_string_lossy())), PathBuf::from);

        // Texts the cache already embedded (whole turns) are never embedded again; its distinct
        // vectors seed a new output file. A rerun continues from what the output holds.
        let cached = std::fs::read(&cache).unwrap_or_default();
        let mut keys: HashSet<u64> = cached.chunks_exact(rec).map(|r| u64::from_le_bytes(r[..8].try_into().unwrap())).collect();
        let mut vectors: HashSet<Vec<u8>> = HashSet::new();
        let mut have = 0usize;
        if let Ok(bytes) = std::fs::read(&out_path) {
            for r in bytes.chunks_exact(rec) {
                keys.insert(u64::from_le_bytes(r[..8].try_into()?));
                vectors.insert(r[8..].to_vec());
                have += 1;
            }
            eprintln!("embed_corpus: {} holds {have} vectors", out_path.display());
        } else {
            if cached.is_empty() && !args.iter().any(|a| a == "--without-cache") {
                return Err(format!("{}: empty or missing (fill it with the eval harness in hybrid mode, or pass --without-cache to embed sentences only)", cache.display()).into());
            }
            let mut seed = Vec::new();
            for r in cached.chunks_exact(rec) {
                if vectors.insert(r[8..].to_vec()) {
                    seed.extend_from_slice(r);
                    have += 1;
                }
            }
            std::fs::write(&out_path, &seed)?;
            eprintln!("embed_corpus: {have} distinct vectors of {} from {}", cached.len() / rec, cache.display());
        }
        drop(cached);
        if have >= target {
            eprintln!("embed_corpus: {have} ≥ {target}, nothing to do");
            return Ok(());
        }

        let (lme, locomo) = (load_json(&lme)?, load_json(&locomo)?);
        let mut pending: Vec<String> = Vec::new();
        let mut queued: HashSet<u64> = HashSet::new();
        for t in turns(&lme, &locomo) {
            for s in sentences(&t) {
                let k = text_key(&s);
                if !keys.contains(&k) && queued.insert(k) {
                    pending.push(s);
                }
            }
        }
        eprintln!("embed_corpus: {} new distinct sentences available; embedding until {target} vectors", pending.len());

        let started = Instant::now();
        let mut embedded = 0usize;
        // Windows of 64 texts: the embedder sorts each call by length, so padding stays small.
        for window in pending.chunks(64) {
            if have >= target {
                break;
            }
            let texts: Vec<&str> = window.iter().map(String::as_str).collect();
            let vs = embedder.embed(&texts)?;
            let mut fresh: Vec<(u64, &[f32])> = Vec::new();
            for (t, v) in texts.iter().zip(&vs) {
                let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                if have < target && vectors.insert(bytes) {
                    fresh.push((text_key(t), v));
                    have += 1;
                }
            }
            append_cache(&out_path, dims, &fresh)?;
            embedded += texts.len();
            if embedded % 2048 == 0 {
                let secs = started.elapsed().as_secs_f64();
                eprintln!("embed_corpus: {have} vectors ({embedded} sentences in {secs:.0} s, {:.1} ms each)", 1000.0 * secs / embedded as f64);
            }
        }
        eprintln!("embed_corpus: {}: {have} distinct vectors ({embedded} sentences embedded in {:.0} s)", out_path.display(), started.elapsed().as_secs_f64());
        if have < target {
            return Err(format!("only {have} distinct vectors: the datasets have too few new sentences for {target}").into());
        }
        Ok(())
    }
}
