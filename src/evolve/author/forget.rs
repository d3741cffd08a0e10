//! Requests to forget, recognised by what the sentence does rather than by one phrasing:
//! 1. **the request**: an imperative of discarding ("wipe", "scrap", "toss", "take … out", "get rid
//!    of", …) or a refusal to keep ("don't store", "I'd rather you didn't hold on to", "could you not
//!    keep"), addressed to the assistant — not a statement about oneself ("we dropped Orvane", "I
//!    always forget my keys");
//! 2. **the referent**: what the request points at, found in order by a value it repeats (a known
//!    thread's value, or a code / name written in it), by the words naming it against the known
//!    threads, and failing both against the earlier statements of the conversation ("that invite
//!    code" → the sentence where the code was given);
//! 3. **what to scrub**: the thread's values, plus the value-like spans and the stated value of the
//!    earlier statement it points at, so the raw turns lose the value even when it was never
//!    authored as a memory.
//!
//! Verbs whose plain sense is an action in the world ("drop", "clear", "remove", "toss") count only
//! when the request is aimed at what is kept: a memory word ("from your notes", "I gave you"), a
//! pronoun pointing back, or a referent found in memory.

use super::slot::{self, thread_by_value, KNOWN_MATCH};
use super::spans::{value_spans, SpanKind};
use super::text::{find_word, words};
use super::{KnownThread, PastTurn};

/// Imperatives of discarding that say "memory" on their own.
/// (With their gerunds, for "would you mind forgetting …".)
const STRONG: &[&str] = &[
    "forget",
    "erase",
    "wipe",
    "scrap",
    "scratch",
    "nuke",
    "purge",
    "unlearn",
    "delete",
    "shred",
    "expunge",
    "bin",
    "trash",
    "junk",
    "ditch",
    "lose",
    "forgetting",
    "erasing",
    "wiping",
    "scrapping",
    "scratching",
    "nuking",
    "purging",
    "deleting",
    "shredding",
    "binning",
    "trashing",
    "ditching",
];
/// Imperatives of discarding that may be actions in the world.
const WEAK: &[&str] = &["remove", "drop", "toss", "clear", "discard", "dump", "strike", "void", "kill", "removing", "dropping", "tossing", "clearing", "discarding", "dumping"];
/// Verb + particle imperatives, the particle within a few words ("take my number out of your notes").
const PHRASAL: &[(&str, &[&str])] =
    &[("take", &["out", "off", "away"]), ("throw", &["away", "out"]), ("get", &["rid"]), ("cross", &["off", "out"]), ("let", &["go"]), ("wipe", &["out"]), ("clear", &["out"])];
/// Keeping verbs, refused ("don't keep", "rather you didn't hold on to").
const KEEP: &[&str] = &[
    "keep",
    "store",
    "save",
    "remember",
    "hold on to",
    "hold onto",
    "hang on to",
    "hang onto",
    "retain",
    "track",
    "log",
    "record",
    "note",
    "file",
    "have",
    "hold",
    "memorize",
    "memorise",
    "keeping",
    "storing",
    "saving",
    "remembering",
    "holding on to",
    "holding onto",
    "hanging on to",
    "hanging onto",
    "retaining",
    "tracking",
    "logging",
    "recording",
];
const NOT: &[&str] = &["don't", "dont", "do not", "not", "never", "no need to", "stop", "didn't", "did not", "shouldn't", "wouldn't", "won't", "no longer"];
/// Words that may stand before an imperative in its clause.
const LEADS: &[&str] = &[
    "oh", "and", "also", "so", "ok", "okay", "please", "pls", "plz", "just", "can", "could", "would", "will", "you", "mind", "feel", "free", "to", "go", "ahead", "kindly", "then",
    "now", "btw", "actually", "hey", "but", "yeah", "right", "hmm", "well", "maybe", "perhaps", "now", "again", "quickly", "pretty", "honestly", "sorry", "nvm", "oops",
];
/// Words that say the request is about what the assistant keeps.
const MEMORY_WORDS: &[&str] = &[
    "memory",
    "memories",
    "notes",
    "note",
    "records",
    "record",
    "file",
    "files",
    "stored",
    "saved",
    "kept",
    "history",
    "gave you",
    "told you",
    "sent you",
    "shared",
    "pasted",
    "mentioned",
    "i gave",
    "i told",
    "i sent",
    "i shared",
    "i pasted",
    "from before",
    "earlier",
    "you have",
    "you've got",
    "on file",
    "you know",
    "you saved",
    "you stored",
];
/// Words of a request that name nothing (courtesy, reasons, the request itself).
const NOT_REFERENT: &[&str] = &[
    "please",
    "pls",
    "plz",
    "thanks",
    "thank",
    "anymore",
    "around",
    "floating",
    "lying",
    "sit",
    "sitting",
    "anywhere",
    "really",
    "actually",
    "just",
    "also",
    "oh",
    "ok",
    "okay",
    "mind",
    "would",
    "could",
    "can",
    "you",
    "your",
    "rather",
    "prefer",
    "didn't",
    "didnt",
    "don't",
    "dont",
    "not",
    "no",
    "never",
    "need",
    "want",
    "wanted",
    "like",
    "gave",
    "give",
    "told",
    "tell",
    "sent",
    "shared",
    "pasted",
    "mentioned",
    "said",
    "earlier",
    "before",
    "from",
    "memory",
    "memories",
    "notes",
    "records",
    "file",
    "stored",
    "saved",
    "kept",
    "there",
    "anyway",
    "anyways",
    "now",
    "longer",
    "more",
    "any",
    "feel",
    "free",
    "to",
    "hang",
    "hold",
    "onto",
    "on",
    "keep",
    "store",
    "save",
    "remember",
    "thing",
    "stuff",
    "info",
    "one",
    "bit",
    "piece",
    "little",
    "btw",
    "hey",
    "sorry",
    "ahead",
    "go",
    "out",
    "off",
    "away",
    "rid",
    "get",
    "take",
    "that",
    "this",
    "those",
    "these",
    "it",
    "them",
    "i",
    "me",
    "we",
    "have",
    "having",
    "had",
    "is",
    "was",
    "are",
    "were",
    "be",
    "been",
    "in",
    "at",
    "for",
    "with",
    "by",
    "of",
    "and",
    "or",
    "but",
    "so",
    "if",
    "as",
    "too",
    "let",
    "go",
    "nvm",
    "okay",
    "track",
    "log",
    "record",
    "note",
    "retain",
    "anything",
    "everything",
    "something",
    "all",
    "about",
    "re",
    "regarding",
    "written",
    "down",
    "somewhere",
    "here",
    "stuff",
    "know",
    "knows",
    "already",
    "i'd",
    "i'm",
    "you've",
    "it's",
    "that's",
];

/// Words of a request to keep a line exactly.
const VERBATIM_HINTS: &[&str] = &["verbatim", "exactly", "word for word", "as typed", "as is", "character for character", "byte for byte", "to the letter"];

/// A request to forget found in a sentence.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The known thread it points at, or a label made of the words naming it.
    pub thread: Option<String>,
    /// Whether `thread` is one already known.
    pub on_known: bool,
    /// The words naming what is to be forgotten (without the values it repeats).
    pub referent: String,
    /// Values to scrub beyond the thread's own.
    pub forget: Vec<String>,
    /// How the request was found (a strong verb, a refusal, a weak verb aimed at memory).
    pub cue: &'static str,
    pub doubts: Vec<String>,
}

/// Lowercased ASCII only, so byte offsets found in it hold in the text it came from.
fn lower_norm(s: &str) -> String {
    s.replace(['’', '‘'], "'").to_ascii_lowercase()
}

/// The clause around byte `at`: from the last clause break before it to the next after it.
fn clause_bounds(lower: &str, at: usize) -> (usize, usize) {
    let breaks = |c: char| matches!(c, ',' | ';' | ':' | '—' | '–' | '.' | '!' | '?' | '(' | ')');
    let start = lower[..at].rfind(breaks).map_or(0, |i| i + lower[i..].chars().next().map_or(1, char::len_utf8));
    let end = lower[at..].find(breaks).map_or(lower.len(), |i| at + i);
    (start, end)
}

/// Whether the words before a verb in its clause leave it an imperative addressed to the assistant.
fn imperative_before(before: &str) -> bool {
    let ws = words(before);
    ws.iter().all(|w| LEADS.contains(&w.as_str()))
}

/// The discarding cue of a sentence: `(cue kind, start, end)` of the cue words in `lower`.
fn cue(lower: &str) -> Option<(&'static str, usize, usize)> {
    let mut best: Option<(&'static str, usize, usize)> = None;
    let mut consider = |kind: &'static str, at: usize, end: usize| {
        if best.is_none_or(|b| at < b.1) {
            best = Some((kind, at, end));
        }
    };
    for (list, kind) in [(STRONG, "strong"), (WEAK, "weak")] {
        for v in list {
            let mut from = 0;
            while let Some(at) = find_word(lower, v, from) {
                let (cs, _) = clause_bounds(lower, at);
                if imperative_before(&lower[cs..at]) {
                    consider(kind, at, at + v.len());
                }
                from = at + v.len();
            }
        }
    }
    for (verb, particles) in PHRASAL {
        let mut from = 0;
        while let Some(at) = find_word(lower, verb, from) {
            let (cs, ce) = clause_bounds(lower, at);
            let tail = &lower[at + verb.len()..ce];
            if imperative_before(&lower[cs..at]) && words(tail).iter().take(8).any(|w| particles.contains(&w.as_str())) {
                consider("strong", at, at + verb.len());
            }
            from = at + verb.len();
        }
    }
    // A refusal to keep: a negation, then a keeping verb, within one clause addressed to "you" or
    // as an imperative ("don't store it", "I'd rather you didn't hold on to …").
    for k in KEEP {
        let mut from = 0;
        while let Some(at) = find_word(lower, k, from) {
            let (cs, _) = clause_bounds(lower, at);
            let before = &lower[cs..at];
            let bw = words(before);
            let negated = NOT.iter().any(|n| find_word(before, n, 0).is_some_and(|p| words(&before[p..]).len() <= 6));
            let addressed = bw.iter().any(|w| w == "you")
                || bw
                    .first()
                    .is_some_and(|w| ["don't", "dont", "do", "never", "no", "stop", "please", "pls", "plz", "just", "and", "also", "so", "oh", "but"].contains(&w.as_str()));
            let about_self = bw.iter().any(|w| ["i", "we", "he", "she", "they", "i'm", "we're"].contains(&w.as_str())) && !bw.iter().any(|w| w == "you");
            // "have" refused only with a written-down sense ("not comfortable having X written down").
            let have = *k == "have" || *k == "hold";
            if negated && addressed && !about_self && !have {
                consider("refusal", at, at + k.len());
            }
            from = at + k.len();
        }
    }
    best
}

/// Stems for matching referent words against labels and statements.
fn stem(w: &str) -> String {
    let w = w.trim_end_matches("'s");
    if w.ends_with("ss") || w.ends_with("us") || w.ends_with("is") {
        return w.to_string();
    }
    for suf in ["ies", "s"] {
        if w.len() > 4 && w.ends_with(suf) {
            return w[..w.len() - suf.len()].to_string() + if suf == "ies" { "y" } else { "" };
        }
    }
    w.to_string()
}

/// A word of the request itself: a discarding verb (any list above), never part of what it names.
fn is_cue_word(w: &str) -> bool {
    STRONG.contains(&w) || WEAK.contains(&w) || PHRASAL.iter().any(|(verb, _)| *verb == w)
}

fn content_words(text: &str) -> Vec<String> {
    slot::slot_words(text).into_iter().filter(|w| !NOT_REFERENT.contains(&w.as_str()) && !is_cue_word(w) && w.chars().count() >= 2).map(|w| stem(&w)).collect()
}

/// The words naming what a request points at: its object, else the topic before the cue.
fn referent(sentence: &str, lower: &str, at: usize, end: usize) -> String {
    let (cs, ce) = clause_bounds(lower, at);
    let object = sentence.get(end..ce).unwrap_or("");
    // Reasons and relative clauses after the object name nothing ("… , it leaked", "… I gave you").
    let object_lower = lower.get(end..ce).unwrap_or("");
    let stop = [
        " because",
        " since",
        " as ",
        " it ",
        " it's",
        " they",
        " we ",
        " i gave",
        " i told",
        " i sent",
        " i pasted",
        " i shared",
        " i mentioned",
        " from your",
        " out of",
        " from memory",
    ]
    .iter()
    .filter_map(|m| object_lower.find(m))
    .min()
    .unwrap_or(object_lower.len());
    let object = object.get(..stop).unwrap_or(object);
    if !content_words(object).is_empty() {
        return object.trim().to_string();
    }
    // "The badge number from before, erase it": the topic before the request.
    let in_clause = sentence.get(cs..at).unwrap_or("");
    if !content_words(in_clause).is_empty() {
        return in_clause.trim().to_string();
    }
    let topic = sentence.get(..cs).unwrap_or("").trim().trim_end_matches([',', ';', ':', '—', '-', ' ']);
    // "Since she left Larkspur, that lunch number is useless — don't keep it": a clause opened by
    // a word of reason or time gives the why, the others name the what.
    let clauses = topic_clauses(topic);
    let named: Vec<&str> = clauses.iter().copied().filter(|c| !opens_with_reason(c)).collect();
    match named.last() {
        Some(c) if named.len() < clauses.len() => subject_of(c).to_string(),
        _ => topic.to_string(),
    }
}

/// "that locker code is useless" → "that locker code": what a clause says something about.
fn subject_of(clause: &str) -> &str {
    let l = clause.to_ascii_lowercase();
    let cut = [" is ", " are ", " was ", " were ", " isn't ", " aren't ", " has ", " won't ", " will "].iter().filter_map(|c| l.find(c)).min();
    match cut {
        Some(i) if !content_words(&clause[..i]).is_empty() => clause[..i].trim(),
        _ => clause.trim(),
    }
}

/// The referent without the names that own something in it ("Dario's personal address" →
/// "personal address").
fn possessors_dropped(referent: &str) -> String {
    referent
        .split_whitespace()
        .filter(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’');
            !(w.ends_with("'s") || w.ends_with("’s")) || w.chars().next().is_some_and(char::is_lowercase)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a clause opens with a word of reason or time ("since …", "now that …", "because …").
fn opens_with_reason(clause: &str) -> bool {
    let l = clause.trim_start().to_ascii_lowercase();
    ["since ", "because ", "as ", "now that ", "now ", "after ", "when ", "given ", "seeing ", "oh, since ", "oh since ", "so since ", "bc ", "cause ", "cuz "]
        .iter()
        .any(|p| l.starts_with(p))
}

/// The clauses of a topic, each a candidate for what a request points at ("About the number of
/// Mr. Ostrowski — he asked me not to give it around, so please …": the first one names it).
fn topic_clauses(topic: &str) -> Vec<&str> {
    topic.split([',', ';', ':', '—', '–', '(', ')']).map(str::trim).filter(|c| !content_words(c).is_empty()).collect()
}

/// How well the referent words name a known thread (0–1): its label words and its values' words.
fn thread_score(refw: &[String], names: &[String], k: &KnownThread) -> f64 {
    if refw.is_empty() {
        return 0.0;
    }
    let mut have: Vec<String> = k.thread.split(['/', '-']).map(stem).collect();
    for v in &k.values {
        have.extend(words(v).iter().map(|w| stem(w)));
    }
    let hits = refw.iter().filter(|w| have.contains(w)).count() as f64;
    let mut score = hits / refw.len() as f64;
    // A person named in the request must be the thread's ("Priya's number" is not "Ana's number").
    if !names.is_empty() && !names.iter().any(|n| have.contains(n)) {
        score *= 0.4;
    }
    score
}

/// The earlier statement a request points at, scored by the referent words it holds (rarer words
/// weigh more), most recent first on ties.
fn statement<'h>(refw: &[String], history: &'h [PastTurn]) -> Option<(&'h str, f64)> {
    if refw.is_empty() {
        return None;
    }
    // Each sentence with what follows it in its turn: a value is often given right after the
    // sentence that names it ("Can you hang on to the staging token? stg-tok-…").
    let sentences: Vec<(&str, &str)> = history
        .iter()
        .rev()
        .flat_map(|t| {
            let all = super::text::sentences(t.text);
            let next: Vec<&str> = all.iter().skip(1).copied().chain(std::iter::once("")).collect();
            all.into_iter().zip(next).map(move |(s, n)| (s, with_next(t.text, s, n)))
        })
        .collect();
    // "#" before or after a noun reads "number" ("chip # 985…", "ticket #4412").
    let bags: Vec<Vec<String>> = sentences
        .iter()
        .map(|(s, _)| {
            let mut bag: Vec<String> = words(&lower_norm(s).replace('#', " number ")).iter().map(|w| stem(w)).collect();
            bag.extend(type_words(s).iter().map(|w| w.to_string()));
            bag
        })
        .collect();
    let df = |w: &String| bags.iter().filter(|b| b.contains(w)).count() as f64;
    let weight = |w: &String| 1.0 / (1.0 + df(w)).ln().max(0.5);
    let total: f64 = refw.iter().map(weight).sum();
    let mut best: Option<(&str, f64)> = None;
    for ((s, extended), bag) in sentences.iter().zip(&bags) {
        let got: f64 = refw.iter().filter(|w| bag.contains(w)).map(weight).sum();
        // A line kept verbatim (code, a command) shares words with many requests by accident.
        let kept_line = s.contains('`') || VERBATIM_HINTS.iter().any(|h| lower_norm(s).contains(h));
        let score = got / total.max(1e-9) * if kept_line { 0.7 } else { 1.0 };
        if score > best.map_or(0.0, |b| b.1) {
            // A sentence that names the thing without giving a value gave it in the next one.
            let gives_value = value_spans(s).iter().any(|sp| sp.kind != SpanKind::Quoted);
            best = Some((if gives_value { s } else { extended }, score));
        }
    }
    best
}

/// The words that name the kind of value a sentence gives ("that address" points at the sentence
/// holding an email, "the number" at one holding digits): a request names a value by its kind as
/// often as by its slot.
fn type_words(sentence: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for sp in value_spans(sentence) {
        match sp.kind {
            SpanKind::Address if sp.text.contains('@') && sp.text.contains('.') => out.extend(["address", "email", "mail", "e-mail"]),
            SpanKind::Address if sp.text.contains('.') || sp.text.contains('/') => out.extend(["address", "link", "url"]),
            SpanKind::Code if sp.text.chars().filter(char::is_ascii_digit).count() >= 3 => out.extend(["number", "code"]),
            _ => {}
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// `sentence` through the end of `next` (the sentence after it in `text`), both slices of `text`;
/// `sentence` alone when there is no next one or either lies outside `text`.
fn with_next<'t>(text: &'t str, sentence: &'t str, next: &'t str) -> &'t str {
    let base = text.as_ptr() as usize;
    let start = (sentence.as_ptr() as usize).wrapping_sub(base);
    let end = (next.as_ptr() as usize).wrapping_sub(base).wrapping_add(next.len());
    if next.is_empty() || start > text.len() || end > text.len() || end < start {
        return sentence;
    }
    text.get(start..end).unwrap_or(sentence)
}

/// Values in `statement` to scrub: its codes, addresses, quoted text, and names the request does
/// not use to point at it, and the value it states (`stated`, from the value rules).
fn values_in(statement: &str, request_lower: &str, stated: Option<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for sp in value_spans(statement) {
        let named_in_request = find_word(request_lower, &sp.text.to_lowercase(), 0).is_some();
        // A quoted line was kept on purpose: only a request that repeats it scrubs it (the
        // request's own spans), never a match on a word or two of it.
        let keep = match sp.kind {
            SpanKind::Code | SpanKind::Address => true,
            SpanKind::Quoted => false,
            SpanKind::Name => !named_in_request && !sp.opens_sentence_alone(),
        };
        if keep && sp.text.chars().count() >= 3 {
            out.push(sp.text);
        }
    }
    // The stated value, unless the rules read a phrase of the speaker's into it ("me till Friday").
    let personal = |v: &str| words(v).iter().any(|w| ["i", "me", "my", "you", "your", "we", "us", "it", "that", "this", "he", "she", "they"].contains(&w.as_str()));
    if let Some(v) = stated.filter(|v| v.chars().count() >= 3 && words(v).len() <= 6 && !personal(v)) {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// The request to forget in `sentence`, if it makes one. `delete_score` is the intent model's
/// probability that the sentence asks to delete (`None` without a model); `stated` gives the value
/// the value rules read in a sentence.
pub fn request(
    sentence: &str,
    previous: Option<&str>,
    delete_score: Option<f32>,
    known: &[KnownThread],
    history: &[PastTurn],
    stated: &dyn Fn(&str) -> Option<String>,
) -> Option<Request> {
    let text = sentence.replace(['’', '‘'], "'");
    // ASCII lowering keeps the byte offsets of `lower` valid in `text`.
    let lower = text.to_ascii_lowercase();
    let (kind, at, end) = cue(&lower)?;
    // The model, where there is one, can veto a cue it finds no request in (a recipe's "remove the
    // stems", "drop the kids off") and vouches for weak cues.
    if delete_score.is_some_and(|p| p < 0.15) {
        return None;
    }
    let mut refer = referent(&text, &lower, at, end);
    // "That registration number, it's not needed any more. Take it out, please.": a request that
    // names nothing points at the sentence before it.
    if content_words(&refer).is_empty() {
        if let Some(p) = previous {
            refer = p.trim().to_string();
        }
    }
    let refw = content_words(&refer);
    // Names written in the request; a lone capitalized first word is grammar ("Take it out"), not a name.
    let names: Vec<String> =
        value_spans(&text).into_iter().filter(|s| s.kind == SpanKind::Name && !s.opens_sentence_alone()).flat_map(|s| words(&s.text)).map(|w| stem(&w)).collect();
    let mut doubts = Vec::new();
    // 1. A value it repeats: a known thread's, or a code written in the request itself.
    // Only the referent counts: a value named in a reason beside it ("since she's not at Larkspur
    // anymore, drop that lunch number") is not what is to be forgotten.
    // A name as possessor ("Dario's address") says whose, not what.
    let what = possessors_dropped(&refer);
    let by_value = thread_by_value(&what.to_ascii_lowercase(), known).filter(|(_, s, _)| *s >= 0.7).map(|(k, _, _)| k.thread.clone());
    let own_codes: Vec<String> = value_spans(&text).into_iter().filter(|s| s.kind != SpanKind::Name).map(|s| s.text).collect();
    // 2. The words naming it, against the known threads.
    let by_words = known
        .iter()
        .map(|k| (k, thread_score(&refw, &names, k)))
        .filter(|(_, s)| *s >= KNOWN_MATCH)
        .max_by(|a, b| a.1.total_cmp(&b.1).then(a.0.order.cmp(&b.0.order)))
        .map(|(k, _)| k.thread.clone());
    // 3. The earlier statement it points at.
    // The names in the request identify what it points at ("toss Mrs. Penhallow's address").
    let mut probe: Vec<String> = if refw.is_empty() { own_codes.iter().flat_map(|c| words(c)).collect() } else { refw.clone() };
    for n in &names {
        if !probe.contains(n) && !NOT_REFERENT.contains(&n.as_str()) {
            probe.push(n.clone());
        }
    }
    let mut earlier = statement(&probe, history).filter(|(_, s)| *s >= 0.5);
    // A topic of several clauses (a reason beside the referent): the clause that best names an
    // earlier statement is the referent.
    let clauses = topic_clauses(&refer);
    if earlier.is_none() && clauses.len() > 1 {
        for c in clauses {
            let mut p = content_words(c);
            p.extend(names.iter().filter(|n| c.to_lowercase().contains(n.as_str())).cloned());
            if let Some(found) = statement(&p, history).filter(|(_, s)| *s >= 0.5) {
                if earlier.is_none_or(|e| found.1 > e.1) {
                    earlier = Some(found);
                }
            }
        }
    }
    // The thread whose value that statement gave, when it was authored as one.
    // The codes that statement gave. One that no thread keeps is what it points at, and a kept
    // name beside it ("my Harborline loan reference, HL-…") is context.
    let codes: Vec<String> = earlier
        .map(|(st, _)| value_spans(st).into_iter().filter(|sp| matches!(sp.kind, SpanKind::Code | SpanKind::Address)).map(|sp| sp.text.to_lowercase()).collect())
        .unwrap_or_default();
    let own_code = codes.iter().any(|c| thread_by_value(c, known).is_none());
    let by_statement = earlier.filter(|_| !own_code).and_then(|(st, _)| thread_by_value(&lower_norm(st), known)).filter(|(_, s, _)| *s >= 0.7).map(|(k, _, _)| k.thread.clone());
    let scrubbable = earlier.is_some_and(|(st, _)| value_spans(st).iter().any(|sp| sp.kind != SpanKind::Quoted));
    let aimed = MEMORY_WORDS.iter().any(|m| find_word(&lower, m, 0).is_some())
        || words(lower.get(end..).unwrap_or("")).first().is_some_and(|w| ["it", "that", "this", "them", "those", "these"].contains(&w.as_str()))
        || by_value.is_some()
        || by_words.is_some()
        || !own_codes.is_empty()
        || earlier.is_some_and(|(_, s)| s >= 0.75)
        || scrubbable;
    match (kind, delete_score) {
        ("weak", None) if !aimed => return None,
        ("weak", Some(p)) if !aimed && p < 0.5 => return None,
        _ => {}
    }
    let mut forget: Vec<String> = own_codes.clone();
    if let Some((s, score)) = earlier {
        if score < 0.75 {
            doubts.push("the earlier statement it points at was matched in part".to_string());
        }
        for v in values_in(s, &lower, stated(s)) {
            if !forget.contains(&v) {
                forget.push(v);
            }
        }
    }
    // A statement matched whole that gave a code: that code's thread (or, when none keeps it, the
    // statement itself) is the referent, before any thread a word of the request resembles.
    let by_code = earlier
        .filter(|(_, score)| *score >= 0.75 && !codes.is_empty())
        .map(|_| codes.iter().find_map(|c| thread_by_value(c, known).filter(|(_, s, _)| *s >= 1.0).map(|(k, _, _)| k.thread.clone())));
    let known_thread = match by_code {
        Some(code_thread) => by_value.or(code_thread),
        None => by_value.or(by_words).or(by_statement),
    };
    let on_known = known_thread.is_some();
    // A new thread is named by the request's content words, without the values it repeats.
    let value_words: Vec<String> = own_codes.iter().flat_map(|c| words(c)).collect();
    let naming: Vec<String> = refw.iter().filter(|w| !value_words.contains(w)).take(slot::LABEL_WORDS_MAX).cloned().collect();
    let said: Vec<String> = slot::slot_words(&refer)
        .into_iter()
        .filter(|w| !NOT_REFERENT.contains(&w.as_str()) && !is_cue_word(w) && !value_words.contains(w) && w.chars().count() >= 2)
        .take(slot::LABEL_WORDS_MAX)
        .collect();
    let thread = known_thread
        .or_else(|| slot::label(&naming.join(" ")))
        .or_else(|| earlier.and_then(|(s, _)| slot::label(&content_words(s).into_iter().take(slot::LABEL_WORDS_MAX).collect::<Vec<_>>().join(" "))));
    if !on_known {
        doubts.push("no kept thread matched: the thread is named by the request's words".to_string());
    }
    if thread.is_none() && forget.is_empty() {
        return None;
    }
    Some(Request { thread, on_known, referent: said.join(" "), forget, cue: kind, doubts })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn past(texts: &[&'static str]) -> Vec<PastTurn<'static>> {
        texts.iter().enumerate().map(|(i, t)| PastTurn { id: format!("p{i}"), text: t, date: None }).collect()
    }

    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn requests_in_many_phrasings_are_found_and_statements_are_not() {
        for s in [
            "oh, can you wipe Priya's mom's number?",
            "scrap 7HXL-204, car's gone",
            "I'd rather you didn't hold on to that loan reference I gave you.",
            "please don't keep it around, thanks!",
            "take her chip number out of your notes",
            "Could you not keep that, please?",
            "feel free to toss her address, no reason to have it lying around",
            "nuke the api key i pasted",
            "bin that bypass code pls",
            "the guest wifi pw — pls don't store that one",
            "so you can drop his flight info",
            "Please get rid of the booking number?",
            "lose that code I gave you",
        ] {
            assert!(cue(&lower_norm(s)).is_some(), "{s}");
        }
        for s in [
            "We dropped Orvane for Pellucid last sprint.",
            "I always forget my keys.",
            "we don't keep backups offsite",
            "Remember to buy milk",
            "He scrapped the old design.",
            "I keep my bike in the hall.",
        ] {
            assert!(cue(&lower_norm(s)).is_none(), "{s}");
        }
    }

    #[test]
    fn any_text_in_any_script_reads_without_a_panic() {
        let alphabet: Vec<char> = "aZ09 .,:;—-'’\"`()İıßẞΣσςéÉ日本ігор€$#@/\n?!".chars().collect();
        let known = vec![KnownThread { thread: "pin".into(), values: vec!["İ88".into()], order: 0, dependent: false }];
        let history = past(&["My PIN is İ88 — ẞtraße 7, ігор.", "日本の住所は東京です"]);
        let mut rng = crate::test_rng::Rng::new(7);
        for _ in 0..3000 {
            let t = rng.text(&alphabet, 50);
            let t = match rng.below(3) {
                0 => format!("{t} please forget {t}"),
                1 => format!("İ {t}, don't keep {t} İ"),
                _ => t,
            };
            let _ = request(&t, Some(&t), None, &known, &history, &none);
        }
    }

    #[test]
    fn the_referent_is_found_by_value_by_words_or_in_the_conversation() {
        let known = vec![KnownThread { thread: "wifi-password".into(), values: vec!["otter-lamp-92".into()], order: 0, dependent: false }];
        let r = request("the wifi password — pls don't store that one, forget it", None, None, &known, &[], &none).unwrap();
        assert_eq!((r.thread.as_deref(), r.on_known), (Some("wifi-password"), true));
        // Never authored as a thread: found in the conversation, its number scrubbed.
        let history = past(&["Priya's mom gave me her cell for carpool, (617) 555-0182 — hang onto that for me?", "Noor is at Larchmont."]);
        let r = request("oh, can you wipe Priya's mom's number? turns out it's her work line", None, None, &[], &history, &none).unwrap();
        assert!(r.forget.contains(&"(617) 555-0182".to_string()), "{r:?}");
        assert!(!r.forget.iter().any(|f| f.contains("Priya")), "a name used to point is not scrubbed: {r:?}");
        assert!(r.thread.as_deref().is_some_and(|t| t.contains("priya")), "{r:?}");
        // A weak verb aimed at nothing kept is an errand, not a request.
        assert!(request("Remove the stems before you blend it.", None, None, &[], &history, &none).is_none());
        // The model can veto.
        assert!(request("please forget it", None, Some(0.05), &known, &history, &none).is_none());
        // A request naming nothing points at the sentence before it; a gerund after "would you mind".
        let known = vec![KnownThread { thread: "registration-number-league".into(), values: vec!["VBL-7713-Q".into()], order: 0, dependent: false }];
        let r = request("Take it out, please.", Some("That registration number from the league is not needed more."), None, &known, &[], &none).unwrap();
        assert_eq!(r.thread.as_deref(), Some("registration-number-league"));
        let history = past(&["Writing this down: the lobby door code is 2719B.", "Mrs. Penhallow wants her invites dropped at her place, 14 Quillon Row."]);
        let r = request("would you mind forgetting the lobby door code?", None, None, &[], &history, &none).unwrap();
        assert_eq!(r.forget, ["2719B"]);
        let r = request("so feel free to toss her address, Mrs. Penhallow has her invites", None, None, &[], &history, &none).unwrap();
        assert_eq!(r.forget, ["14 Quillon Row"]);
        // A kept value named in the reason beside the referent is not what is to be forgotten.
        let known = vec![
            KnownThread { thread: "harbor-rowing-club".into(), values: vec!["Harbor Rowing Club".into()], order: 0, dependent: false },
            KnownThread { thread: "locker-code".into(), values: vec!["4471".into()], order: 1, dependent: false },
        ];
        let r = request("now that I've quit Harbor Rowing Club, that locker code is useless, please don't keep it", None, None, &known, &[], &none).unwrap();
        assert_eq!(r.thread.as_deref(), Some("locker-code"), "{r:?}");
        // A kept name that owns the referent says whose it is, not what.
        let known = vec![KnownThread { thread: "mentee".into(), values: vec!["Ilka Brandt".into()], order: 0, dependent: false }];
        let history = past(&["Ilka's home phone is 0151 442 9087, for emergencies only."]);
        let r = request("please don't keep Ilka's home phone around", None, None, &known, &history, &none).unwrap();
        assert_ne!(r.thread.as_deref(), Some("mentee"), "{r:?}");
        assert_eq!(r.forget, ["0151 442 9087"]);
        // A statement matched whole that gave a code: its code's thread, not one it names in passing.
        let known = vec![
            KnownThread { thread: "credit-union".into(), values: vec!["Tidemark Credit Union".into()], order: 0, dependent: false },
            KnownThread { thread: "loan-reference".into(), values: vec!["TM-4410-Z".into()], order: 1, dependent: true },
        ];
        let history = past(&["Tidemark gave me a loan reference, TM-4410-Z, to quote when I call."]);
        let r = request("I'd rather you didn't hold on to that loan reference I gave you", None, None, &known, &history, &none).unwrap();
        assert_eq!(r.thread.as_deref(), Some("loan-reference"), "{r:?}");
        // The sentence that names the thing asks to keep it; the value follows in the next one.
        let history = past(&["Could you keep the garage remote pin for me? 88-31-07. The old one stopped working.", "Lunch is at noon."]);
        let r = request("on second thought, don't keep that garage pin I gave you", None, None, &[], &history, &none).unwrap();
        assert_eq!(r.forget, ["88-31-07"], "{r:?}");
        // "#" is read as "number" when the statement is matched.
        let history = past(&["the boiler ticket # is RX-5520, they want it on every call", "concert ticket prices went up again", "my ticket for the match was free"]);
        let r = request("please forget the ticket number", None, None, &[], &history, &none).unwrap();
        assert_eq!(r.forget, ["RX-5520"], "{r:?}");
    }
}
