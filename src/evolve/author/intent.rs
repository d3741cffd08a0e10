//! What a user sentence does to memory — states a value, changes one, asks to forget one, asks to
//! keep a line verbatim, or nothing — scored by a small trained model rather than decided by one
//! phrase list.
//!
//! The model is multinomial logistic regression over hashed sparse features:
//! - the sentence's words with names and numbers folded to their shape (`<name>`, `<num>`), so
//!   "switched to Corvo" and "switched to Halden" are one feature, and word pairs;
//! - its punctuation (a question mark, a colon, quotes, backticks);
//! - which rule patterns matched (`rule:change`, `rule:retraction`, …): the rules are evidence the
//!   model weighs, not the decision;
//! - what it shares with memory already kept: a known thread's value repeated, a known slot's words.
//!
//! The weights (`intent.bin`, a few KB) are trained by `cargo run --features internals --example train_intent` on the
//! labelled sentences of the corpus's `dev` split only (`tests/fixtures/evolving/`); the `test`
//! split is for reporting. The model runs without the embedder, so keyword-only stores get it too.

use std::sync::OnceLock;

use super::slot::{self, thread_by_value};
use super::text::words;
use super::KnownThread;

/// What a sentence does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Intent {
    /// Chatter, a question, someone else's fact: nothing to author.
    None,
    /// A value for a slot (first statement, or one restated unchanged).
    State,
    /// A new value for a slot that had another.
    Change,
    /// A request to forget something kept.
    Delete,
    /// A request to keep a line exactly.
    Verbatim,
}

impl Intent {
    pub const ALL: [Intent; 5] = [Intent::None, Intent::State, Intent::Change, Intent::Delete, Intent::Verbatim];

    #[cfg(any(test, feature = "internals"))]
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::None => "none",
            Intent::State => "state",
            Intent::Change => "change",
            Intent::Delete => "delete",
            Intent::Verbatim => "verbatim",
        }
    }

    #[cfg(any(test, feature = "internals"))]
    pub fn parse(s: &str) -> Option<Intent> {
        Intent::ALL.into_iter().find(|i| i.as_str() == s)
    }

    fn index(self) -> usize {
        Intent::ALL.iter().position(|i| *i == self).unwrap_or(0)
    }
}

/// Hashed feature space. 4,096 buckets × 5 intents of one byte each: 20 KB, far below the cost of
/// one word-piece vocabulary, and collisions are rare at a corpus's few thousand distinct features.
pub const BUCKETS: usize = 4096;
const N: usize = Intent::ALL.len();

/// Which rule patterns matched a sentence (computed by `rules`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RuleHits {
    pub retraction: bool,
    pub verbatim: bool,
    pub change: bool,
    pub value: bool,
    pub ended: bool,
    pub event: bool,
    pub conditional: bool,
    pub dependency: bool,
    pub question: bool,
    pub request: bool,
    pub hedged: bool,
}

fn fnv(parts: &[&str]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0x1f;
            h = h.wrapping_mul(0x0100_0193);
        }
        for b in p.bytes() {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
    }
    h
}

/// A word folded to its shape where the word itself does not generalize: numbers and
/// identifiers with digits become `<num>`, capitalized words not at the start `<name>`.
fn fold(raw: &str, first: bool) -> String {
    if raw.chars().any(|c| c.is_ascii_digit()) {
        return "<num>".into();
    }
    let lower = raw.to_lowercase();
    if !first && raw.chars().next().is_some_and(char::is_uppercase) && lower != "i" && !lower.starts_with("i'") {
        return "<name>".into();
    }
    lower
}

/// The sentence's tokens as the model sees them: words with apostrophes kept ("don't"), folded.
fn tokens(sentence: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, raw) in
        sentence.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '-' || c == '_')).filter(|w| !w.trim_matches(['\'', '’', '-', '_']).is_empty()).enumerate()
    {
        let w = raw.trim_matches(['\'', '’', '-', '_']).replace('’', "'");
        out.push(fold(&w, i == 0));
    }
    out
}

/// The hashed features of one sentence (sorted, deduplicated).
pub fn features(sentence: &str, hits: &RuleHits, known: &[KnownThread]) -> Vec<u32> {
    let mut names: Vec<String> = Vec::new();
    let toks = tokens(sentence);
    for t in &toks {
        names.push(format!("w:{t}"));
    }
    for pair in toks.windows(2) {
        names.push(format!("b:{}_{}", pair[0], pair[1]));
    }
    if let Some(f) = toks.first() {
        names.push(format!("first:{f}"));
    }
    if toks.len() >= 2 {
        names.push(format!("first2:{}_{}", toks[0], toks[1]));
    }
    let trimmed = sentence.trim_end();
    for (cond, name) in [
        (trimmed.ends_with('?'), "p:question"),
        (sentence.contains(':'), "p:colon"),
        (sentence.contains('"') || sentence.contains('“'), "p:quote"),
        (sentence.contains('`'), "p:backtick"),
        (sentence.contains(['{', '<', '|', '\\']), "p:code"),
        (sentence.contains(['—', '–', ';']), "p:dash"),
        (toks.len() <= 6, "len:short"),
        (toks.len() > 20, "len:long"),
    ] {
        if cond {
            names.push(name.into());
        }
    }
    for (cond, name) in [
        (hits.retraction, "rule:retraction"),
        (hits.verbatim, "rule:verbatim"),
        (hits.change, "rule:change"),
        (hits.value, "rule:value"),
        (hits.ended, "rule:ended"),
        (hits.event, "rule:event"),
        (hits.conditional, "rule:conditional"),
        (hits.dependency, "rule:dependency"),
        (hits.question, "rule:question"),
        (hits.request, "rule:request"),
        (hits.hedged, "rule:hedged"),
    ] {
        if cond {
            names.push(name.into());
        }
    }
    if !hits.retraction && !hits.verbatim && !hits.change && !hits.value && !hits.ended && !hits.event {
        names.push("rule:nothing".into());
    }
    // What the sentence shares with what is kept: a value repeated, a slot named.
    let lower = sentence.to_lowercase();
    match thread_by_value(&lower, known) {
        Some((k, _, v)) => {
            names.push("known:value".into());
            if k.values.last().is_some_and(|last| last == v) {
                names.push("known:current-value".into());
            } else {
                names.push("known:older-value".into());
            }
        }
        None => names.push("known:no-value".into()),
    }
    let ws = slot::slot_words(sentence);
    let slot_hit = known.iter().any(|k| ws.iter().any(|w| slot::slot_match(std::slice::from_ref(w), &k.thread) >= 0.99));
    names.push(if slot_hit { "known:slot" } else { "known:no-slot" }.into());
    if known.is_empty() {
        names.push("known:none".into());
    }
    let _ = words;
    let mut out: Vec<u32> = names.iter().map(|n| fnv(&[n]) % BUCKETS as u32).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The trained weights: one row of `N` per bucket, and a bias per intent.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub weights: Vec<[f32; N]>,
    pub bias: [f32; N],
}

const MAGIC: &[u8; 8] = b"ENGINT01";

impl Model {
    /// Probabilities over `Intent::ALL` for a sentence's features.
    pub fn predict(&self, feats: &[u32]) -> [f32; N] {
        let mut z = self.bias;
        for &f in feats {
            if let Some(row) = self.weights.get(f as usize) {
                for (zi, wi) in z.iter_mut().zip(row) {
                    *zi += wi;
                }
            }
        }
        softmax(z)
    }

    /// Serialized as `ENGINT01`, a f32 scale, `N` f32 biases, then `BUCKETS × N` i8 weights
    /// (weight = i8 × scale): small enough to compile in.
    #[cfg(any(test, feature = "internals"))]
    pub fn to_bytes(&self) -> Vec<u8> {
        let max = self.weights.iter().flat_map(|r| r.iter()).fold(0f32, |m, w| m.max(w.abs())).max(1e-6);
        let scale = max / 127.0;
        let mut out = MAGIC.to_vec();
        out.extend(scale.to_le_bytes());
        for b in self.bias {
            out.extend(b.to_le_bytes());
        }
        for row in &self.weights {
            for w in row {
                out.push((w / scale).round().clamp(-127.0, 127.0) as i8 as u8);
            }
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Option<Model> {
        let rest = bytes.strip_prefix(MAGIC.as_slice())?;
        let f = |i: usize| -> Option<f32> { Some(f32::from_le_bytes(rest.get(i * 4..i * 4 + 4)?.try_into().ok()?)) };
        let scale = f(0)?;
        let mut bias = [0f32; N];
        for (i, b) in bias.iter_mut().enumerate() {
            *b = f(1 + i)?;
        }
        let body = rest.get((1 + N) * 4..)?;
        if body.len() != BUCKETS * N {
            return None;
        }
        let weights = body.chunks_exact(N).map(|c| std::array::from_fn(|i| f32::from(c[i] as i8) * scale)).collect();
        Some(Model { weights, bias })
    }
}

fn softmax(z: [f32; N]) -> [f32; N] {
    let max = z.iter().fold(f32::NEG_INFINITY, |m, v| m.max(*v));
    let e: [f32; N] = std::array::from_fn(|i| (z[i] - max).exp());
    let sum: f32 = e.iter().sum();
    std::array::from_fn(|i| e[i] / sum)
}

/// The compiled-in model; `None` when the weights file is missing or unreadable (the rules then
/// decide alone, and authored memories say so in their doubts).
pub fn model() -> Option<&'static Model> {
    static MODEL: OnceLock<Option<Model>> = OnceLock::new();
    MODEL.get_or_init(|| Model::from_bytes(include_bytes!("intent.bin"))).as_ref()
}

/// A model's scores for a sentence, as a lookup by intent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scores(pub [f32; N]);

impl Scores {
    pub fn get(&self, i: Intent) -> f32 {
        self.0[i.index()]
    }

    #[cfg(any(test, feature = "internals"))]
    pub fn best(&self) -> (Intent, f32) {
        Intent::ALL.into_iter().map(|i| (i, self.get(i))).fold((Intent::None, -1.0), |b, x| if x.1 > b.1 { x } else { b })
    }
}

/// One labelled sentence for training.
#[derive(Clone, Debug)]
#[cfg(any(test, feature = "internals"))]
pub struct Example {
    pub features: Vec<u32>,
    pub intent: Intent,
}

/// Trains the model by full-batch gradient descent on the cross-entropy with L2, classes weighted
/// by inverse frequency (deletions are rare; missing one costs more than a spare `none`).
#[cfg(any(test, feature = "internals"))]
pub fn train(examples: &[Example], epochs: usize, rate: f32, l2: f32) -> Model {
    let mut m = Model { weights: vec![[0.0; N]; BUCKETS], bias: [0.0; N] };
    let mut counts = [0usize; N];
    for e in examples {
        counts[e.intent.index()] += 1;
    }
    let total = examples.len().max(1) as f32;
    let class_w: [f32; N] = std::array::from_fn(|i| if counts[i] == 0 { 0.0 } else { total / (N as f32 * counts[i] as f32) });
    for _ in 0..epochs {
        let mut gw = vec![[0f32; N]; BUCKETS];
        let mut gb = [0f32; N];
        for e in examples {
            let p = m.predict(&e.features);
            let cw = class_w[e.intent.index()];
            for i in 0..N {
                let g = cw * (p[i] - if i == e.intent.index() { 1.0 } else { 0.0 });
                gb[i] += g;
                for &f in &e.features {
                    gw[f as usize][i] += g;
                }
            }
        }
        for (b, g) in m.bias.iter_mut().zip(gb) {
            *b -= rate * g / total;
        }
        for (row, g) in m.weights.iter_mut().zip(&gw) {
            for i in 0..N {
                row[i] -= rate * (g[i] / total + l2 * row[i]);
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(text: &str, intent: Intent) -> Example {
        Example { features: features(text, &RuleHits::default(), &[]), intent }
    }

    #[test]
    fn names_and_numbers_fold_to_their_shape() {
        assert_eq!(tokens("Switched to Corvo in 2024"), vec!["switched", "to", "<name>", "in", "<num>"]);
        assert_eq!(tokens("I don’t want it"), vec!["i", "don't", "want", "it"]);
        assert_eq!(features("Moved to Corvo.", &RuleHits::default(), &[]), features("Moved to Halden.", &RuleHits::default(), &[]));
    }

    #[test]
    fn training_separates_what_it_was_shown_and_survives_serialization() {
        let data = vec![
            ex("please forget that code", Intent::Delete),
            ex("wipe the number I gave you", Intent::Delete),
            ex("my dentist is Dr Ko", Intent::State),
            ex("our CI runs on Buildkite", Intent::State),
            ex("what should I cook tonight?", Intent::None),
            ex("can you explain recursion?", Intent::None),
        ];
        let m = train(&data, 200, 1.0, 1e-4);
        for e in &data {
            assert_eq!(Scores(m.predict(&e.features)).best().0, e.intent);
        }
        let back = Model::from_bytes(&m.to_bytes()).expect("round trip");
        for e in &data {
            assert_eq!(Scores(back.predict(&e.features)).best().0, e.intent, "quantized weights keep the decision");
        }
        assert!(Model::from_bytes(b"nonsense").is_none());
        assert!(Model::from_bytes(&m.to_bytes()[..100]).is_none());
    }
}
