//! Exactness of the local ONNX embedder against an independent reference (onnxruntime + Python
//! tokenizers on the unmodified model; see scripts/embed_reference.py), natively.
//!
//! Needs the model files (`bash scripts/fetch-models.sh`). Without them the tests print why and pass,
//! unless `ENGRAM_REQUIRE_MODEL` is set (CI sets it), in which case they fail.
#![cfg(feature = "embedder")]

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Instant;

use engram::embed::{OnnxEmbedder, Precision, MAX_TOKENS};
use engram::error::ErrorCode;
use engram::host::Embedder;
use serde_json::Value;

fn model_dir() -> PathBuf {
    std::env::var_os("ENGRAM_MODEL_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models"))
}

/// The model files' bytes, or None (after saying why) when they are absent and not required.
fn model_bytes() -> Option<(Vec<u8>, Vec<u8>)> {
    let dir = model_dir();
    match (std::fs::read(dir.join("model.onnx")), std::fs::read(dir.join("tokenizer.json"))) {
        (Ok(model), Ok(tokenizer)) => Some((model, tokenizer)),
        _ if std::env::var_os("ENGRAM_REQUIRE_MODEL").is_some() => {
            panic!("ENGRAM_REQUIRE_MODEL is set but model.onnx/tokenizer.json are missing in {}: run scripts/fetch-models.sh", dir.display())
        }
        _ => {
            println!("SKIPPED: embedder model files not found in {} (run scripts/fetch-models.sh; set ENGRAM_REQUIRE_MODEL to make this fail)", dir.display());
            None
        }
    }
}

/// One embedder per precision for the whole test binary: loading and planning takes a while.
fn embedder() -> Option<&'static OnnxEmbedder> {
    static EMBEDDER: OnceLock<Option<OnnxEmbedder>> = OnceLock::new();
    EMBEDDER.get_or_init(|| load(Precision::default())).as_ref()
}

fn f32_embedder() -> Option<&'static OnnxEmbedder> {
    static EMBEDDER: OnceLock<Option<OnnxEmbedder>> = OnceLock::new();
    EMBEDDER.get_or_init(|| load(Precision::F32)).as_ref()
}

fn load(precision: Precision) -> Option<OnnxEmbedder> {
    let (model, tokenizer) = model_bytes()?;
    Some(OnnxEmbedder::with_precision(&model, &tokenizer, precision).expect("the fetched model loads"))
}

struct Case {
    note: String,
    text: String,
    ids: Vec<u32>,
    vector: Option<Vec<f32>>,
}

fn fixture() -> (Value, Vec<Case>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/embed_reference.json");
    let json: Value = serde_json::from_slice(&std::fs::read(&path).expect("fixture present")).expect("fixture parses");
    let cases = json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| Case {
            note: c["note"].as_str().unwrap().to_string(),
            text: c["text"].as_str().unwrap().to_string(),
            ids: c["ids"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect(),
            vector: c["vector"].as_array().map(|v| v.iter().map(|x| x.as_f64().unwrap() as f32).collect()),
        })
        .collect();
    (json, cases)
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn fixture_is_varied_enough() {
    let (_, cases) = fixture();
    assert!(cases.len() >= 50, "at least 50 reference inputs");
    assert!(cases.iter().any(|c| c.ids.len() == MAX_TOKENS && c.note.contains("truncated")));
    assert!(cases.iter().any(|c| c.vector.is_none()), "an empty-input case");
}

#[test]
fn identity_and_dims() {
    let Some(e) = embedder() else { return };
    let (json, _) = fixture();
    let sha = json["model_sha256"].as_str().unwrap();
    assert_eq!(e.id(), format!("all-MiniLM-L6-v2-int8@{sha}"));
    assert_eq!(e.dims(), 384);
    assert!(e.gather_first_rewrites() >= 1, "the word-embedding table is gathered before dequantizing");
    // 6 layers × (query, key, value, attention output, two feed-forward) weights, all int8 in the file.
    assert_eq!(e.int8_matmuls(), 36, "every int8 weight product runs on integers");
}

#[test]
fn token_ids_match_reference() {
    let Some(e) = embedder() else { return };
    let (_, cases) = fixture();
    let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
    let ids = e.tokenize(&texts).unwrap();
    for (case, got) in cases.iter().zip(&ids) {
        assert_eq!(got, &case.ids, "token ids differ for {:?} ({})", case.text, case.note);
    }
}

#[test]
fn vectors_match_reference() {
    let Some(e) = embedder() else { return };
    check_against_reference(e, "int8");
}

#[test]
fn f32_vectors_match_reference() {
    let Some(e) = f32_embedder() else { return };
    assert_eq!(e.int8_matmuls(), 0, "f32 precision keeps the float products");
    assert_eq!(Some(e.id()), embedder().map(|d| d.id()), "both precisions share the identity");
    check_against_reference(e, "f32");
}

/// Every reference input embeds to a unit vector within cosine 0.999 of onnxruntime's. With
/// `ENGRAM_NATIVE_VECTORS_DIR` set, the vectors are written to `<dir>/<label>.json` for the wasm parity
/// test (tests/js/embedder.test.mjs).
fn check_against_reference(e: &OnnxEmbedder, label: &str) {
    let (_, cases) = fixture();
    let cases: Vec<&Case> = cases.iter().filter(|c| c.vector.is_some()).collect();
    let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
    // One call for all: exercises length grouping, batch padding and the masks.
    let vectors = e.embed(&texts).unwrap();
    assert_eq!(vectors.len(), texts.len());
    let mut worst = (f32::INFINITY, "");
    for (case, got) in cases.iter().zip(&vectors) {
        assert_eq!(got.len(), 384);
        let norm = got.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "unit length for {:?}", case.note);
        let cos = cosine(got, case.vector.as_ref().unwrap());
        assert!(cos >= 0.999, "{label}: cosine {cos} < 0.999 for {:?} ({})", case.text, case.note);
        if cos < worst.0 {
            worst = (cos, &case.note);
        }
    }
    println!("{label}: min cosine over {} reference inputs: {:.7} ({})", cases.len(), worst.0, worst.1);
    if let Some(dir) = std::env::var_os("ENGRAM_NATIVE_VECTORS_DIR") {
        let out: Vec<serde_json::Value> = texts.iter().zip(&vectors).map(|(t, v)| serde_json::json!({ "text": t, "vector": v })).collect();
        std::fs::create_dir_all(&dir).expect("vectors dir");
        std::fs::write(PathBuf::from(dir).join(format!("{label}.json")), serde_json::to_vec(&out).unwrap()).expect("write native vectors");
    }
}

#[test]
fn batching_does_not_change_vectors() {
    let Some(e) = embedder() else { return };
    let texts = ["hello", "The quick brown fox jumps over the lazy dog.", "我喜欢在早上喝咖啡。", "a"];
    let together = e.embed(&texts).unwrap();
    for (text, v) in texts.iter().zip(&together) {
        let alone = e.embed(&[text]).unwrap().remove(0);
        assert!(cosine(v, &alone) > 0.99999, "padding changed the vector of {text:?}");
    }
}

#[test]
fn empty_or_blank_text_is_invalid_input() {
    let Some(e) = embedder() else { return };
    assert_eq!(e.embed(&[]).unwrap(), Vec::<Vec<f32>>::new());
    for blank in ["", "   \t\n  ", "\u{0}\u{1}\u{200b}"] {
        let err = e.embed(&["fine", blank]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput, "{blank:?}");
        assert!(err.message.contains("text 1"), "the error names the index: {}", err.message);
        // tokenize() itself accepts it and shows why: only [CLS] [SEP].
        assert_eq!(e.tokenize(&[blank]).unwrap(), vec![vec![101, 102]]);
    }
}

#[test]
fn odd_input_does_not_panic() {
    let Some(e) = embedder() else { return };
    let long = "word ".repeat(20_000);
    let odd = ["\u{feff}bom", "\u{10ffff}", "a\u{0301}\u{0301}\u{0301}", &long, "<script>alert(1)</script>"];
    let v = e.embed(&odd).unwrap();
    assert!(v.iter().all(|v| v.len() == 384 && v.iter().all(|x| x.is_finite())));
}

#[test]
fn random_unicode_never_panics() {
    let Some(e) = embedder() else { return };
    // A fixed-seed LCG over all scalar values, biased towards ASCII, controls and combining marks.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    let texts: Vec<String> = (0..300)
        .map(|_| {
            let len = next() % 40;
            (0..len)
                .filter_map(|_| {
                    let r = next();
                    let cp = match r % 4 {
                        0 => r % 0x80,
                        1 => 0x300 + r % 0x70,
                        2 => r % 0x3000,
                        _ => r % 0x11_0000,
                    };
                    char::from_u32(cp)
                })
                .collect()
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let ids = e.tokenize(&refs).unwrap();
    let embeddable: Vec<&str> = refs.iter().zip(&ids).filter(|(_, ids)| ids.len() > 2).map(|(t, _)| *t).take(40).collect();
    let vectors = e.embed(&embeddable).unwrap();
    assert!(vectors.iter().all(|v| v.len() == 384 && v.iter().all(|x| x.is_finite())));
}

#[test]
fn garbage_model_bytes_are_rejected() {
    let Some((_, tokenizer)) = model_bytes() else { return };
    let err = OnnxEmbedder::from_bytes(b"not a model", &tokenizer).err().expect("rejected");
    assert_eq!(err.code, ErrorCode::InvalidInput);
    let err = OnnxEmbedder::from_bytes(b"", b"{").err().expect("rejected");
    assert_eq!(err.code, ErrorCode::InvalidInput);
}

/// Native latency per call. Run with an optimized profile:
/// `cargo test --profile bench-native --features embedder --test embedder -- --ignored --nocapture`
#[test]
#[ignore]
fn timing_short_sentence() {
    let Some(e) = embedder() else { return };
    let cases: [(&str, Vec<&str>); 3] = [
        ("13-token sentence", vec!["I prefer dark roast coffee in the morning, thanks."]),
        ("one word", vec!["hello"]),
        ("batch of 16 sentences", vec!["Meeting with Alice moved to Thursday at 3pm."; 16]),
    ];
    for (label, texts) in cases {
        let tokens = e.tokenize(&texts[..1]).unwrap()[0].len();
        for _ in 0..3 {
            e.embed(&texts).unwrap();
        }
        let n = 30;
        let start = Instant::now();
        for _ in 0..n {
            e.embed(&texts).unwrap();
        }
        let ms = start.elapsed().as_secs_f64() * 1000.0 / n as f64;
        println!("{label} ({tokens} tokens each): {ms:.2} ms per call");
    }
}
