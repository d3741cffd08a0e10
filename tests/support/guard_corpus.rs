//! The guard corpus (`tests/fixtures/guards/*.jsonl`): one payload per line,
//! `{"expect": "secret" | "injection" | "clean", "kind"?: "<secret kind>", "class"?: "..", "lang"?: "..", "text": ".."}`.
//! In the corpora written apart from the detectors (`tests/fixtures/guards-unseen/`), each secret
//! part of a secret payload is marked `[[...]]` (the marks are removed when it is read), so that a
//! redaction can be checked whole: no marked part may survive it. Those writers did not know the
//! detectors' kind names, so there a secret counts as found whatever kind it is given.
//! Key-shaped parts are written as `%%charset:length%%` and filled from a seeded generator when the
//! corpus is read, so the repository holds no key-shaped literal and every key is synthetic.
//! Charsets: `an` (A-Z a-z 0-9), `au` (an, `_`, `-`), `up` (A-Z 0-9), `hx` (0-9 a-f), `al` (A-Z a-z),
//! `b64` (an, `/`, `+`).
//! Shared by `src/guard/tests/guard_corpus.rs` (thresholds) and `examples/guards.rs` (the rates in BENCHMARKS.md).

use std::path::Path;

use engram::internals::guard::{find_secrets, injection};

#[derive(Debug)]
pub struct Payload {
    pub file: String,
    pub line: usize,
    pub expect: String,
    pub kind: Option<String>,
    pub lang: Option<String>,
    /// What the writer said the payload is (unseen corpora only).
    pub class: Option<String>,
    pub text: String,
    /// The `[[...]]`-marked secret parts, as they appear in `text`.
    pub parts: Vec<String>,
}

/// `text` without its `[[` `]]` marks, and the marked parts.
fn unmark(text: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("[[") {
        let Some(close) = rest[open + 2..].find("]]") else { break };
        out.push_str(&rest[..open]);
        let part = &rest[open + 2..open + 2 + close];
        out.push_str(part);
        parts.push(part.to_string());
        rest = &rest[open + 2 + close + 2..];
    }
    out.push_str(rest);
    (out, parts)
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn expand(text: &str, rng: &mut Rng) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("%%") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("%%") else {
            out.push_str(&rest[open..]);
            return out;
        };
        let spec = &after[..close];
        let (cs, n) = spec.split_once(':').expect("%%charset:length%%");
        let n: usize = n.parse().expect("a length");
        let alphabet: &str = match cs {
            "an" => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            "au" => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-",
            "up" => "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
            "hx" => "0123456789abcdef",
            "al" => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            "b64" => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+",
            other => panic!("unknown charset {other}"),
        };
        let a = alphabet.as_bytes();
        // First and last characters alphanumeric, so a key never ends in a separator.
        for i in 0..n {
            let pool = if i == 0 || i + 1 == n { &a[..a.len().min(62)] } else { a };
            out.push(pool[(rng.next() % pool.len() as u64) as usize] as char);
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}

pub fn load(dir: &Path) -> Vec<Payload> {
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
    files.sort();
    let mut rng = Rng(0x5EED_6A4D);
    let mut out = Vec::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        for (i, line) in std::fs::read_to_string(&f).unwrap().lines().enumerate() {
            if line.trim().is_empty() || line.starts_with("//") {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
            let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
            let (text, parts) = unmark(&expand(&s("text").expect("text"), &mut rng));
            out.push(Payload { file: name.clone(), line: i + 1, expect: s("expect").expect("expect"), kind: s("kind"), lang: s("lang"), class: s("class"), text, parts });
        }
    }
    out
}

/// The memories the engine itself writes from an evolving-corpus file (`tests/fixtures/evolving/`):
/// every episode's user turns, in order, read by the offline author; each authored memory's
/// content, then each user turn. None of it is an instruction to a reader (those files hold no
/// injections), yet it is what every store holds most of: the author's third-person records ("The
/// user's mentor is …") and the turns they came from. Their rate of being flagged is the guards'
/// cost on ordinary use.
pub fn authored_memories(path: &Path) -> (Vec<String>, Vec<String>) {
    use engram::internals::author::{author_in, Turn};
    let episodes: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).expect("episodes parse");
    let (mut authored, mut turns) = (Vec::new(), Vec::new());
    for ep in episodes.as_array().into_iter().flatten() {
        let texts: Vec<&str> = ep["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|s| s["conversation"].as_array().into_iter().flatten())
            .filter(|t| t["role"] == "user")
            .filter_map(|t| t["content"].as_str())
            .collect();
        let ids: Vec<String> = (0..texts.len()).map(|i| format!("t{i}")).collect();
        let user: Vec<Turn> = texts.iter().zip(&ids).map(|(text, id)| Turn { id, role: "user", speaker: None, date: None, text }).collect();
        authored.extend(author_in(&user, &[], &[]).into_iter().map(|a| a.content));
        turns.extend(texts.iter().map(|t| t.to_string()));
    }
    (authored, turns)
}

/// What the detectors say about one payload.
pub struct Verdict {
    pub secrets: Vec<&'static str>,
    pub injection: Vec<&'static str>,
}

pub fn judge(text: &str) -> Verdict {
    let mut secrets: Vec<&'static str> = find_secrets(text).iter().map(|f| f.kind).collect();
    secrets.dedup();
    Verdict { secrets, injection: injection::find(text) }
}

#[derive(Default, Debug)]
pub struct Rates {
    pub secrets: usize,
    pub secrets_found: usize,
    pub secrets_kind_right: usize,
    pub injections: usize,
    pub injections_found: usize,
    pub clean: usize,
    pub false_positives: usize,
    pub misses: Vec<String>,
    pub false_alarms: Vec<String>,
    /// Secret payloads with marked parts, and those whose redaction left none of them.
    pub marked: usize,
    pub redacted_whole: usize,
    pub partly_redacted: Vec<String>,
    /// Spans withheld in marked secret payloads that cover no marked part: what redaction costs
    /// the reader beyond the secrets (a booking number, a date taken with them).
    pub over_redacted: Vec<String>,
    /// How many items of each class were missed (a secret or injection not found, a clean item
    /// flagged, a secret left partly in place): counts only, so a held-out split can be read by class
    /// without reading its items.
    pub missed_by_class: std::collections::BTreeMap<String, usize>,
}

pub fn evaluate(payloads: &[Payload]) -> Rates {
    let mut r = Rates::default();
    for p in payloads {
        let before = (r.misses.len(), r.false_alarms.len(), r.partly_redacted.len());
        let v = judge(&p.text);
        let at = format!("{}:{} {:?}", p.file, p.line, p.text.chars().take(70).collect::<String>());
        match p.expect.as_str() {
            "secret" => {
                r.secrets += 1;
                if !p.parts.is_empty() {
                    r.marked += 1;
                    let kept = match engram::guard::GuardOptions::default().apply(&p.text, false, "content") {
                        Ok(g) => p.parts.iter().filter(|part| g.text.contains(part.as_str())).count(),
                        Err(_) => 0, // refused whole: nothing of it is stored
                    };
                    for f in find_secrets(&p.text) {
                        let covers = p.parts.iter().any(|part| p.text.match_indices(part.as_str()).any(|(at, _)| at < f.end && f.start < at + part.len()));
                        if !covers {
                            r.over_redacted.push(format!("{}:{} {:?}", p.file, p.line, &p.text[f.start..f.end]));
                        }
                    }
                    if kept == 0 {
                        r.redacted_whole += 1;
                    } else if !v.secrets.is_empty() {
                        r.partly_redacted.push(format!("{at}: {kept} of {} parts left", p.parts.len()));
                    }
                }
                if v.secrets.is_empty() {
                    r.misses.push(at);
                } else {
                    r.secrets_found += 1;
                    if p.kind.as_deref().is_none_or(|k| v.secrets.contains(&k)) {
                        r.secrets_kind_right += 1;
                    } else {
                        r.misses.push(format!("{at} (kind {:?}, found {:?})", p.kind, v.secrets));
                    }
                }
            }
            "injection" => {
                r.injections += 1;
                if v.injection.is_empty() {
                    r.misses.push(at);
                } else {
                    r.injections_found += 1;
                }
            }
            "clean" => {
                r.clean += 1;
                if !v.secrets.is_empty() || !v.injection.is_empty() {
                    r.false_positives += 1;
                    r.false_alarms.push(format!("{at} → {:?} {:?}", v.secrets, v.injection));
                }
            }
            other => panic!("{at}: unknown expect {other}"),
        }
        if before != (r.misses.len(), r.false_alarms.len(), r.partly_redacted.len()) {
            *r.missed_by_class.entry(format!("{}/{}", p.expect, p.class.as_deref().unwrap_or("?"))).or_default() += 1;
        }
    }
    r
}

pub fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}
