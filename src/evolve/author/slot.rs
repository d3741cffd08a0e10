//! Slots and values: turning the noun phrase a user names a slot with into a thread label, cleaning
//! a stated value, finding which known thread a later sentence is about, and the area labels.

use super::text::words;
use super::KnownThread;

/// Words that carry no slot meaning: determiners, possessives, and the adjectives of change
/// ("my new roommate" is the roommate slot).
const SLOT_STOPWORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "my",
    "our",
    "your",
    "his",
    "her",
    "their",
    "its",
    "this",
    "that",
    "these",
    "those",
    "current",
    "new",
    "latest",
    "usual",
    "present",
    "old",
    "previous",
    "former",
    "i",
    "we",
    "me",
    "us",
    "it",
    "s",
    "of",
    "for",
    "main",
    "actual",
    "real",
    "whole",
    "entire",
    "everything",
    "all",
    "some",
    "any",
    "one",
    "very",
    "also",
    "just",
    "now",
    "still",
    "and",
    "own",
    "go",
    "to",
    "about",
    "regarding",
    "re",
];

/// The share of a phrase's words a known thread must hold to be the one it names.
pub const KNOWN_MATCH: f64 = 0.5;

/// At most this many words in a thread label.
pub const LABEL_WORDS_MAX: usize = 5;
/// Characters of a label: the bound of labels written through `add`.
pub use crate::model::evolve::LABEL_MAX_CHARS;
/// Characters of a stated value kept.
pub const VALUE_MAX_CHARS: usize = 200;

/// The words of a slot phrase that name it (stopwords dropped, `'s` cut).
pub fn slot_words(phrase: &str) -> Vec<String> {
    words(phrase).into_iter().map(|w| w.strip_suffix("'s").map(str::to_string).unwrap_or(w)).filter(|w| !SLOT_STOPWORDS.contains(&w.as_str())).collect()
}

/// A normalized label: lowercase `a-z0-9` words joined by `-`; `None` when nothing is left.
pub fn label(phrase: &str) -> Option<String> {
    let parts: Vec<String> = slot_words(phrase)
        .iter()
        .flat_map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()).map(str::to_string).collect::<Vec<_>>())
        .filter(|w| !w.is_empty())
        .take(LABEL_WORDS_MAX)
        .collect();
    let mut out = parts.join("-");
    // Bounded like every label (96 characters), cut at a word.
    while out.len() > LABEL_MAX_CHARS {
        match out.rfind('-') {
            Some(i) => out.truncate(i),
            None => out.truncate(LABEL_MAX_CHARS),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A thread label with an optional owner prefix (`sam/pharmacy`); the owner is normalized too.
pub fn thread_label(owner: Option<&str>, slot: &str) -> Option<String> {
    let slot = label(slot)?;
    match owner.and_then(|o| {
        let w: Vec<String> =
            words(o).iter().flat_map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()).map(str::to_string).collect::<Vec<_>>()).filter(|w| !w.is_empty()).collect();
        (!w.is_empty()).then(|| w.into_iter().take(3).collect::<Vec<_>>().join("-").chars().take(32).collect::<String>().trim_end_matches('-').to_string())
    }) {
        Some(o) => {
            let mut slot = slot;
            while o.len() + 1 + slot.len() > LABEL_MAX_CHARS {
                match slot.rfind('-') {
                    Some(i) => slot.truncate(i),
                    None => slot.truncate(LABEL_MAX_CHARS - o.len() - 1),
                }
            }
            Some(format!("{o}/{slot}"))
        }
        None => Some(slot),
    }
}

/// Whether a label is normalized: `/`-separated segments of lowercase `a-z0-9` words joined by `-`.
pub fn is_normalized(label: &str) -> bool {
    !label.is_empty()
        && label.len() <= LABEL_MAX_CHARS
        && label.split('/').count() <= 4
        && label.split('/').all(|seg| !seg.is_empty() && seg.split('-').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())))
}

/// A crude stem so `insurer` / `insurance` / `insurers` and `backup` / `backups` meet.
fn stem(w: &str) -> String {
    let w = w.trim_end_matches('s');
    let n = w.chars().count();
    if n > 5 {
        w.chars().take(5).collect()
    } else {
        w.to_string()
    }
}

/// Acronym of a label's words (`product-owner` → `po`).
fn acronym(label_words: &[String]) -> String {
    label_words.iter().filter_map(|w| w.chars().next()).collect()
}

/// The slot part of a thread label (after any owner prefix), as words.
fn label_words(thread: &str) -> Vec<String> {
    thread.rsplit('/').next().unwrap_or(thread).split('-').map(str::to_string).collect()
}

/// How well a slot phrase names a known thread, 0–1 (share of the phrase's words found).
pub fn slot_match(phrase_words: &[String], thread: &str) -> f64 {
    if phrase_words.is_empty() {
        return 0.0;
    }
    let lw = label_words(thread);
    if phrase_words.len() == 1 && lw.len() > 1 && phrase_words[0] == acronym(&lw) {
        return 0.9;
    }
    let stems: Vec<String> = lw.iter().map(|w| stem(w)).collect();
    let hits = phrase_words.iter().filter(|w| stems.contains(&stem(w))).count();
    hits as f64 / phrase_words.len().max(1) as f64
}

/// The known thread a slot phrase names best (ties: the most recently stated), with the score.
pub fn best_thread<'k>(phrase: &str, owner: Option<&str>, known: &'k [KnownThread]) -> Option<(&'k KnownThread, f64)> {
    let pw = slot_words(phrase);
    let prefix = owner.and_then(|o| thread_label(Some(o), "x")).map(|l| l.trim_end_matches("/x").to_string());
    known
        .iter()
        .filter(|k| same_owner(&k.thread, prefix.as_deref()))
        .map(|k| (k, slot_match(&pw, &k.thread)))
        .filter(|(_, s)| *s >= 0.5)
        .max_by(|a, b| a.1.total_cmp(&b.1).then(a.0.order.cmp(&b.0.order)))
}

fn same_owner(thread: &str, prefix: Option<&str>) -> bool {
    match (thread.split_once('/'), prefix) {
        (Some((o, _)), Some(p)) => o == p,
        (None, _) => true,
        (Some(_), None) => true,
    }
}

/// Whether `value` is stated in `text` (case-insensitive, whole words; a value of at least 3
/// characters, or its distinctive first word when the value is a name like `Halden Mutual`).
pub fn mentions_value(text_lower: &str, value: &str) -> Option<f64> {
    let v = value.trim().to_lowercase();
    if v.chars().count() < 3 {
        return None;
    }
    if super::text::find_word(text_lower, &v, 0).is_some() {
        return Some(1.0);
    }
    // A name is often repeated by its first word alone ("Halden" for "Halden Mutual").
    let first = value.split_whitespace().next()?;
    let distinctive = first.chars().next().is_some_and(char::is_uppercase) && first.chars().count() >= 4 && value.split_whitespace().count() > 1;
    (distinctive && super::text::find_word(text_lower, &first.to_lowercase(), 0).is_some()).then_some(0.7)
}

/// Whether `text` names a kept value: whole, by its distinctive first word (`mentions_value`), or,
/// for a name of several words, by a later one as written ("Albatros" for "Viajes Albatros"):
/// capitalized there too and long enough to be distinctive, so a generic closing word said in
/// lower case ("the bank") does not count.
pub fn names_value(text: &str, value: &str) -> bool {
    names_value_in(text, &text.to_lowercase(), value)
}

/// `names_value` with the text's lower case already made (read against many values).
pub fn names_value_in(text: &str, text_lower: &str, value: &str) -> bool {
    if mentions_value(text_lower, value).is_some_and(|s| s >= 0.7) {
        return true;
    }
    let ws: Vec<&str> = value.split_whitespace().collect();
    ws.len() > 1
        && ws[1..].iter().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            w.chars().count() >= 5 && w.chars().next().is_some_and(char::is_uppercase) && super::text::find_word(text, w, 0).is_some()
        })
}

/// The known thread whose value (current first, then older ones) `text` mentions, with the score
/// and the value mentioned.
pub fn thread_by_value<'k>(text_lower: &str, known: &'k [KnownThread]) -> Option<(&'k KnownThread, f64, &'k str)> {
    let mut best: Option<(&KnownThread, f64, &str)> = None;
    for k in known {
        for (i, v) in k.values.iter().enumerate().rev() {
            if let Some(score) = mentions_value(text_lower, v) {
                let score = if i + 1 == k.values.len() { score } else { score * 0.9 };
                // A value repeated on a dependent thread ("roadside help is through Acme") is
                // usually the independent thread's ("the insurer is Acme Mutual").
                let score = if k.dependent { score * 0.6 } else { score };
                if best.is_none_or(|b| score > b.1 || (score == b.1 && k.order > b.0.order)) {
                    best = Some((k, score, v.as_str()));
                }
            }
        }
    }
    best
}

/// Words trailing a value that say when, not what ("now", "these days", "last sprint").
const TIME_NOUNS: &[&str] = &[
    "week", "month", "year", "sprint", "quarter", "day", "morning", "evening", "night", "weekend", "season", "semester", "term", "time", "summer", "winter", "spring", "autumn",
    "fall", "holidays", "break", "night",
];
const TAIL_ADVERBS: &[&str] = &[
    "now",
    "today",
    "currently",
    "nowadays",
    "instead",
    "again",
    "too",
    "also",
    "anymore",
    "lately",
    "recently",
    "already",
    "though",
    "then",
    "please",
    "sharp",
    "always",
    "from",
    "since",
    "starting",
];
const TAIL_PHRASES: &[&str] = &[
    "these days",
    "at the moment",
    "for now",
    "from now on",
    "for years",
    "for a while",
    "as of now",
    "right now",
    "going forward",
    "by now",
    "from here on out",
    "from here on",
    "until further notice",
    "for the time being",
    "for the foreseeable future",
    "for good",
];

/// Subjects that open a clause of their own after "and".
const CLAUSE_SUBJECTS: &[&str] =
    &["i", "i'm", "i've", "i'll", "we", "we're", "we've", "he", "he's", "she", "she's", "they", "they're", "it", "it's", "you", "you're", "that's", "there's"];

/// A stated value, cleaned: cut at a trailing subordinate clause, time words stripped, bounded.
pub fn clean_value(raw: &str) -> Option<String> {
    let mut v = raw.trim();
    // A subordinate clause after a comma is not part of the value ("..., in case I forget it").
    for cut in [
        " now that ",
        ", in case",
        ", because",
        ", since",
        ", so ",
        ", which",
        ", and i",
        ", and we",
        " but ",
        " if ",
        " unless ",
        ", though",
        ", although",
        ", when",
        ", if",
        ", as ",
        ", but",
        ", after",
        " because ",
        " since ",
        " in case ",
        " so that ",
    ] {
        if let Some(at) = v.to_ascii_lowercase().find(cut) {
            v = &v[..at];
        }
    }
    // "… and she's obsessed with fishing": a new clause with its own subject starts after "and".
    // "… and that would wreck my mornings": a demonstrative before an auxiliary is a subject too.
    if let Some(at) = v.to_ascii_lowercase().match_indices(" and ").map(|(i, _)| i).find(|&i| {
        let mut next = v[i + 5..].split_whitespace().map(|w| w.to_ascii_lowercase());
        let (first, second) = (next.next().unwrap_or_default(), next.next().unwrap_or_default());
        CLAUSE_SUBJECTS.contains(&first.trim_end_matches([',', '.']))
            || (["that", "this"].contains(&first.as_str()) && ["would", "will", "is", "was", "means", "could", "might", "makes", "has"].contains(&second.as_str()))
    }) {
        v = &v[..at];
    }
    loop {
        let lower = v.to_ascii_lowercase();
        let before = v.len();
        for p in TAIL_PHRASES {
            if lower.ends_with(p) && (lower.len() == p.len() || !lower.as_bytes()[lower.len() - p.len() - 1].is_ascii_alphanumeric()) {
                v = v[..v.len() - p.len()].trim_end();
                break;
            }
        }
        let lower = v.to_ascii_lowercase();
        if let Some((head, last)) = lower.rsplit_once(' ') {
            if TAIL_ADVERBS.contains(&last) {
                v = v[..head.len()].trim_end();
            } else if let Some((head2, mid)) = head.rsplit_once(' ') {
                let time_noun = TIME_NOUNS.iter().any(|n| last == *n || last.strip_suffix('s') == Some(n));
                if time_noun && ["last", "this", "next", "from", "every", "each", "per"].contains(&mid) {
                    v = v[..head2.len()].trim_end();
                } else if let Some((head3, prep)) = head2.rsplit_once(' ') {
                    // "over the summer", "during the break".
                    if time_noun && mid == "the" && ["over", "during", "in", "by", "before", "after", "since", "at", "for", "from"].contains(&prep) {
                        v = v[..head3.len()].trim_end();
                    }
                }
            }
        }
        v = v.trim_end_matches([',', ' ', ':', '-', '—']);
        if v.len() == before {
            break;
        }
    }
    // Leading determiners are not part of a name-like value.
    for det in ["the ", "a ", "an "] {
        if v.len() > det.len() && v.get(..det.len()).is_some_and(|h| h.eq_ignore_ascii_case(det)) && v[det.len()..].chars().next().is_some_and(char::is_uppercase) {
            v = &v[det.len()..];
        }
    }
    let v: String = v.trim().trim_matches(['"', '\'', '“', '”']).chars().take(VALUE_MAX_CHARS).collect();
    (v.chars().any(char::is_alphanumeric)).then_some(v)
}

/// Area labels by stem: an open vocabulary, normalized, seeded with the common life and work areas.
const AREAS: &[(&str, &[&str])] = &[
    ("health", &["therap", "doctor", "dentist", "medic", "pharma", "clinic", "allergy", "diet", "vitamin", "pill", "health", "physio"]),
    ("finance", &["bank", "pin", "insur", "tax", "salary", "budget", "loan", "mortgage", "card", "account", "pension", "claim", "adjuster", "rent", "utilit", "bill"]),
    ("home", &["flat", "apartment", "house", "roommate", "flatmate", "landlord", "utilit", "rent", "cleaning", "rota", "kitchen"]),
    ("food", &["coffee", "tea", "recipe", "chili", "cook", "meal", "food", "lunch", "dinner", "breakfast", "restaurant"]),
    ("fitness", &["run", "running", "gym", "marathon", "workout", "yoga", "swim", "cycling", "training", "exercise"]),
    ("learning", &["learn", "language", "class", "course", "lesson", "study", "practice", "tutor"]),
    ("vehicle", &["car", "bike", "frame", "roadside", "vehicle", "garage", "mechanic"]),
    ("work", &["team", "manager", "owner", "po", "boss", "colleague", "sprint", "demo", "release", "cadence", "meeting", "employer", "job", "office", "sla", "support"]),
    (
        "infrastructure",
        &[
            "cloud",
            "host",
            "server",
            "database",
            "db",
            "backup",
            "deploy",
            "build",
            "cluster",
            "ip",
            "log",
            "trace",
            "dashboard",
            "monitor",
            "cron",
            "frontend",
            "backend",
            "api",
            "key",
            "error",
            "framework",
            "package",
        ],
    ),
    ("plants", &["plant", "flower", "fern", "succulent", "cactus", "orchid", "monstera", "fig", "palm", "ivy", "basil", "herb", "bonsai", "pothos", "pearls", "seedling"]),
    (
        "languages",
        &["language", "portuguese", "spanish", "french", "german", "italian", "japanese", "korean", "chinese", "mandarin", "kanji", "arabic", "russian", "hindi", "duolingo"],
    ),
    ("observability", &["trace", "tracing", "log", "dashboard", "metric", "monitor", "telemetry", "alert", "observab"]),
    ("on-call", &["on-call", "oncall", "pager", "alert", "escalat", "handoff", "incident", "runbook", "postmortem", "rotation"]),
    ("people", &["friend", "partner", "wife", "husband", "mother", "father", "sister", "brother", "family", "grandma", "grandpa", "mentor"]),
];

/// 1–3 area labels for a slot (and value): the seeded areas its words fall under, else its head word.
pub fn areas(slot_phrase: &str, value: Option<&str>) -> Vec<String> {
    let mut ws = slot_words(slot_phrase);
    if let Some(v) = value {
        ws.extend(slot_words(v));
    }
    let mut out: Vec<String> = Vec::new();
    for (area, stems) in AREAS {
        let hit = ws.iter().any(|w| stems.iter().any(|s| if s.len() <= 3 { w == s || w.trim_end_matches('s') == *s } else { w.starts_with(s) }));
        if hit && out.len() < 3 && !out.iter().any(|a| a == area) {
            out.push(area.to_string());
        }
    }
    if out.is_empty() {
        if let Some(head) = label(slot_phrase).and_then(|l| l.rsplit('-').next().map(str::to_string)) {
            out.push(head);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(thread: &str, values: &[&str], order: usize) -> KnownThread {
        KnownThread { thread: thread.into(), values: values.iter().map(|v| v.to_string()).collect(), order, dependent: false }
    }

    #[test]
    fn labels_are_normalized_slot_words() {
        assert_eq!(label("My new Dentist's office").as_deref(), Some("dentist-office"));
        assert_eq!(label("the Wi-Fi password").as_deref(), Some("wi-fi-password"));
        assert_eq!(label("the über café").as_deref(), None.or(Some("ber-caf")), "non-ASCII letters drop out of labels");
        assert_eq!(label("my"), None);
        assert_eq!(thread_label(Some("Ana María"), "my gym").as_deref(), Some("ana-mar-a/gym"));
        assert!(is_normalized("team/package-manager") && !is_normalized("Team/x") && !is_normalized("a//b") && !is_normalized("a--b"));
    }

    #[test]
    fn slots_match_by_words_stems_and_acronyms() {
        let k = [known("product-owner", &["Ana"], 0), known("car-insurance", &["Acme"], 1), known("gym", &["FitHub"], 2)];
        assert_eq!(best_thread("the PO", None, &k).map(|(t, _)| t.thread.as_str()), Some("product-owner"));
        assert_eq!(best_thread("my insurer", None, &k).map(|(t, _)| t.thread.as_str()), Some("car-insurance"));
        assert_eq!(best_thread("the gym I go to", None, &k).map(|(t, _)| t.thread.as_str()), Some("gym"));
        assert!(best_thread("my dentist", None, &k).is_none());
    }

    #[test]
    fn values_are_found_whole_or_by_their_name() {
        let k = [known("bank", &["Northfield Credit Union"], 0), known("wifi", &["hunter22"], 1)];
        assert_eq!(thread_by_value("we left northfield last year", &k).map(|t| t.0.thread.as_str()), Some("bank"));
        assert_eq!(thread_by_value("the password hunter22 is old", &k).map(|t| t.2), Some("hunter22"));
        assert!(thread_by_value("hunter222", &k).is_none());
    }

    #[test]
    fn values_lose_time_words_and_trailing_clauses() {
        assert_eq!(clean_value("Lisbon these days").as_deref(), Some("Lisbon"));
        assert_eq!(clean_value("oat milk now, since dairy bothers me").as_deref(), Some("oat milk"));
        assert_eq!(clean_value("the Riverside Clinic from this month").as_deref(), Some("Riverside Clinic"));
        assert_eq!(clean_value("Postgres last quarter").as_deref(), Some("Postgres"));
        assert_eq!(clean_value("a red bicycle").as_deref(), Some("a red bicycle"));
        assert_eq!(clean_value(" , ").as_deref(), None);
    }

    #[test]
    fn areas_come_from_the_slot() {
        assert_eq!(areas("my dentist", None), vec!["health"]);
        assert_eq!(areas("the staging database", None), vec!["infrastructure"]);
        assert_eq!(areas("my telescope", None), vec!["telescope"]);
    }
}

#[cfg(test)]
mod bounds {
    use super::*;

    #[test]
    fn labels_stay_within_the_label_bounds() {
        let long = "supercalifragilistic ".repeat(20);
        let l = label(&long).unwrap();
        assert!(l.len() <= LABEL_MAX_CHARS && is_normalized(&l), "{l}");
        let t = thread_label(Some(&"Maximiliana Wolkenstein-Hohenberg ".repeat(4)), &long).unwrap();
        assert!(t.len() <= LABEL_MAX_CHARS && is_normalized(&t), "{t}");
    }
}
