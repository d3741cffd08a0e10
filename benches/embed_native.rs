//! Native latency of the local ONNX embedder (model load, then per-call times for typical inputs).
//!
//!     bash scripts/fetch-models.sh
//!     cargo bench --profile bench-native --features embedder --bench embed_native
//!
//! Plain timing loop (no criterion): median of repeated calls after a warm-up.

#[cfg(feature = "embedder")]
fn main() {
    use engram::embed::OnnxEmbedder;
    use engram::host::Embedder;
    use std::path::PathBuf;
    use std::time::Instant;

    let dir = std::env::var_os("ENGRAM_MODEL_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models"));
    let (Ok(model), Ok(tokenizer)) = (std::fs::read(dir.join("model.onnx")), std::fs::read(dir.join("tokenizer.json"))) else {
        println!("SKIPPED: model files not found in {} (run scripts/fetch-models.sh)", dir.display());
        return;
    };

    let start = Instant::now();
    let embedder = OnnxEmbedder::from_bytes(&model, &tokenizer).expect("model loads");
    println!("load + plan: {:.0} ms", start.elapsed().as_secs_f64() * 1000.0);

    let long = "Memory in an agent is a set of habits: what to keep, when to revisit it, and how to let old facts fade. ".repeat(12);
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("one word", vec!["hello"]),
        ("short sentence", vec!["I prefer dark roast coffee in the morning, thanks."]),
        ("256-token text", vec![long.as_str()]),
        ("16 short sentences", vec!["Meeting with Alice moved to Thursday at 3pm."; 16]),
    ];
    for (label, texts) in cases {
        let tokens = embedder.tokenize(&texts[..1]).expect("tokenizes")[0].len();
        for _ in 0..3 {
            embedder.embed(&texts).expect("embeds");
        }
        let mut times: Vec<f64> = (0..25)
            .map(|_| {
                let t = Instant::now();
                embedder.embed(&texts).expect("embeds");
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!("{label:>20} ({} × {tokens} tokens): median {:.2} ms, min {:.2} ms per call", texts.len(), times[times.len() / 2], times[0]);
    }
}

#[cfg(not(feature = "embedder"))]
fn main() {
    println!("SKIPPED: build with --features embedder");
}
