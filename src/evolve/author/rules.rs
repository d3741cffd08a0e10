//! The patterns. Each works on a clause or a sentence and returns what it found (`Found`): a slot
//! phrase, a value, an old value, an upstream; `resolve` then places it on a thread (a known one
//! when the words or a repeated value say so), scores it and writes its content.

use super::confidence::{Evidence, HEDGES};
use super::intent::{self, Intent, Scores};
use super::people::is_kin;
use super::person_slot::person_slot;
use super::slot::{self, best_thread, clean_value, thread_by_value, thread_label};
use super::spans::{value_spans, SpanKind};
use super::text::{self, clauses, find_word, sentences, spell_out_arrows, words, Span, IRREGULAR_PAST};
use super::{antecedent, employment, forget, form, frames, keep, labels, relation, role_name, roots, schedule, Authored, KnownThread, PastTurn, Turn};
use crate::model::{DependsOn, Shape};

/// Pronouns and other words that cannot be a slot or a value on their own.
const PRONOUNS: &[&str] = &[
    "it",
    "that",
    "this",
    "they",
    "them",
    "he",
    "she",
    "him",
    "her",
    "i",
    "we",
    "you",
    "there",
    "what",
    "which",
    "who",
    "those",
    "these",
    "everything",
    "something",
    "nothing",
    "anything",
    "someone",
    "somebody",
    "one",
    "here",
    "me",
    "us",
    "he's",
    "she's",
    "it's",
    "that's",
    "there's",
    "they're",
    "i'm",
    "we're",
    "you're",
    "here's",
    "what's",
];
/// Words of talk about the talk, never part of a slot's name.
const DISCOURSE_WORDS: &[&str] = &[
    "ugh",
    "sorry",
    "please",
    "pls",
    "lol",
    "oh",
    "ok",
    "okay",
    "yeah",
    "hey",
    "hi",
    "hiii",
    "hmm",
    "btw",
    "fyi",
    "thanks",
    "thx",
    "haha",
    "wow",
    "anyway",
    "honestly",
    "basically",
    "oops",
    "naturally",
    "unrelated",
    "tbh",
];
const WH_STARTS: &[&str] =
    &["what", "how", "why", "when", "where", "who", "which", "can", "could", "would", "do", "does", "did", "is", "are", "should", "will", "shall", "may", "any", "have", "has"];
/// Openers of requests and chatter, not statements of fact.
const REQUEST_STARTS: &[&str] = &[
    "i'm looking for",
    "i am looking for",
    "i need",
    "i want",
    "i'd like",
    "i would like",
    "thank",
    "thanks",
    "please help",
    "help me",
    "let me",
    "let's",
    "tell me",
    "give me",
    "remind me",
    "summarize",
    "write",
    "explain",
    "show me",
    "i wonder",
    "i was wondering",
];
const LEADS: &[&str] = &[
    "honestly",
    "basically",
    "right",
    "so yeah",
    "ok so",
    "speaking of which",
    "by the way",
    "anyway",
    "remember that",
    "note that",
    "store that",
    "keep in mind that",
    "fyi",
    "for the record",
    "just so you know",
    "i think",
    "i guess",
    "i believe",
    "i suppose",
    "maybe",
    "probably",
    "perhaps",
    "and",
    "so",
    "also",
    "oh",
    "btw",
    "by the way",
    "well",
    "ok",
    "okay",
    "plus",
    "anyway",
    "actually",
    "oh and",
    "and also",
];
/// Particles that complete a verb before its preposition ("go out with", "signed up with").
const VERB_PARTICLES: &[&str] = &["out", "off", "up", "back", "over", "along", "around", "down"];
const PREPS: &[&str] = &["on", "in", "at", "with", "through", "via", "to", "from", "by", "for", "under", "within", "inside", "into", "after", "every"];
const LIGHT_VERBS: &[&str] = &[
    "live",
    "lives",
    "go",
    "goes",
    "sit",
    "sits",
    "happen",
    "happens",
    "come",
    "comes",
    "stay",
    "stays",
    "point",
    "points",
    "land",
    "lands",
    "escalate",
    "escalates",
    "belong",
    "belongs",
    "fall",
    "falls",
    "get",
    "gets",
    "run",
    "runs",
    "move",
    "moves",
    "sync",
    "syncs",
    "start",
    "starts",
    "end",
    "ends",
    "meet",
    "meets",
    "ship",
    "ships",
    "deploy",
    "deploys",
    "expire",
    "expires",
    "renew",
    "renews",
    "drain",
    "drains",
    "flow",
    "flows",
    "feed",
    "feeds",
    "route",
    "routes",
    "forward",
    "forwards",
    "report",
    "reports",
    "started out",
    "started",
    "began",
    "follows",
    "follow",
];
/// "B covers X": the subject is the value, the object the slot.
const PROVIDER_VERBS: &[&str] =
    &["covers", "handles", "hosts", "manages", "provides", "insures", "services", "maintains", "leads", "owns", "runs", "teaches", "coaches", "supplies"];
const CHANGE_VERBS: &[&str] = &[
    "switched",
    "switch",
    "moved",
    "changed",
    "change",
    "migrated",
    "migrate",
    "went",
    "upgraded",
    "downgraded",
    "transitioned",
    "converted",
    "swapped",
    "shifted",
    "ported",
    "upped",
    "raised",
    "bumped",
    "increased",
    "lowered",
    "reduced",
    "cut",
    "set",
    "pushed",
    "pulled",
    "extended",
    "shortened",
    "doubled",
    "halved",
    "updated",
    "renamed",
    "rewrote",
    "rebuilt",
    "redid",
    "made",
];
const LEAVE_VERBS: &[&str] = &["dropped", "ditched", "left", "quit", "cancelled", "canceled", "ended", "abandoned", "retired", "stopped using", "got rid of", "dumped"];
const GONE_PHRASES: &[&str] =
    &["is out", "are out", "moved out", "left", "quit", "resigned", "retired", "stepped down", "moved to another team", "moved on", "is gone", "is no longer", "no longer works"];
const DEP_ACTIVE: &[&str] =
    &["assigned", "picked", "chose", "set", "appointed", "named", "hired", "selected", "negotiated", "arranged", "booked", "recommended", "referred", "decided"];
const DEP_CAUSE: &[&str] = &["asked", "wanted", "decided", "chose", "picked", "set", "said", "requested", "insisted", "prefers", "preferred", "likes", "liked", "told"];
const DEP_PASSIVE: &[&str] = &[
    "assigned",
    "picked",
    "chosen",
    "set",
    "appointed",
    "named",
    "hired",
    "selected",
    "negotiated",
    "arranged",
    "recommended",
    "referred",
    "provided",
    "decided",
    "agreed",
    "booked",
];
const DEP_FOLLOW: &[&str] = &["follows", "depends on", "is based on", "is tied to", "comes with", "is linked to", "goes with", "is set by", "is decided by"];
const VERBATIM_MARKERS: &[&str] =
    &["word for word", "verbatim", "exactly as is", "exactly as written", "exactly", "as is", "character for character", "letter for letter", "to the letter", "precisely as"];

/// Who a statement is about, for content and thread naming.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Owner {
    User,
    Team,
}

/// What a pattern found.
#[derive(Clone, Debug, Default)]
struct Found {
    rule: &'static str,
    slot: Option<String>,
    value: Option<String>,
    old_value: Option<String>,
    /// Stated as a change ("now", "switched to", "my new …").
    change: bool,
    /// A value left with nothing stated in its place ("dropped A").
    ended: bool,
    retraction: bool,
    forget: Vec<String>,
    signature: Option<String>,
    /// What happened, for an event ("bought a fig tree").
    event: Option<String>,
    /// The event is about something of the user's ("my fig put out a leaf"), not by the user.
    event_owned: bool,
    /// The phrase naming what the value depends on, and whether it is a slot ("a new PO") or a
    /// holder of a value ("Lucía", "Halden").
    upstream: Option<String>,
    upstream_slot: Option<String>,
    consequent: Option<String>,
    evidence: Evidence,
    owner: Option<Owner>,
    /// The thread already decided (a request to forget resolved by `forget`, a change by mention).
    fixed_thread: Option<String>,
    /// The fixed thread's value this one corrects (said by mistake in an earlier turn).
    corrects: Option<String>,
    /// Byte offset of its sentence in the turn's text (corrections withdraw what came before them).
    at: usize,
    /// The slot was said as another party's ("their technician …"): that party, named elsewhere
    /// in the sentence, is what the value depends on.
    of_other_party: bool,
}

impl Found {
    fn new(rule: &'static str, base: f64) -> Found {
        Found { rule, evidence: Evidence::new(base), ..Found::default() }
    }

    /// A value read without a verb frame (a label, a request to keep): its slot as said, whose
    /// by the slot's or the clause's owner words, and why it is less sure.
    fn noted(owner_words: &str, slot: String, value: String, doubt: &'static str) -> Found {
        let mut f = Found::new("value", 0.7);
        f.owner = owner_of(owner_words);
        f.slot = Some(slot);
        f.value = Some(value);
        f.evidence.doubt(0.1, doubt);
        f
    }
}

fn first_word(s: &str) -> String {
    words(s).into_iter().next().unwrap_or_default()
}

fn is_pronoun_phrase(s: &str) -> bool {
    let w = words(s);
    w.is_empty() || (w.len() == 1 && is_pronoun(&w[0]))
}

/// A pronoun, with its contractions ("i'll", "we've", "you'd").
fn is_pronoun(w: &str) -> bool {
    PRONOUNS.contains(&w) || ["i'", "we'", "you'", "they'", "he'", "she'", "it'"].iter().any(|p| w.starts_with(p))
}

/// The owner a phrase speaks of: `my`/`I` the user, `our`/`we` the team.
fn owner_of(s: &str) -> Option<Owner> {
    let w = words(s);
    if w.iter().any(|w| ["my", "i", "i'm", "me", "mine"].contains(&w.as_str())) {
        Some(Owner::User)
    } else if w.iter().any(|w| ["our", "we", "we're", "us", "ours"].contains(&w.as_str())) {
        Some(Owner::Team)
    } else {
        None
    }
}

/// A clause without its conversational lead-in ("And", "Oh, by the way,").
fn strip_lead(s: &str) -> &str {
    let mut s = s.trim().trim_start_matches([',', ' ']);
    loop {
        let lower = s.to_ascii_lowercase();
        let Some(l) = LEADS.iter().filter(|l| lower.starts_with(*l) && lower[l.len()..].starts_with([' ', ','])).max_by_key(|l| l.len()) else { return s };
        s = s[l.len()..].trim_start_matches([',', ' ', ':']);
    }
}

/// A noun phrase as a subject: short, not a pronoun, not a clause of its own.
fn np_subject(s: &str) -> Option<&str> {
    let s = strip_lead(s).trim();
    // "for the weekends we have Ines, she is from …": a lone pronoun after the last comma is the
    // verb's subject; the words before the comma are a clause of their own.
    if s.contains(',') && s.rsplit(',').next().is_some_and(|last| matches!(words(last).as_slice(), [w] if is_pronoun(w))) {
        return None;
    }
    // "the gym I go to": the relative clause is not part of the slot.
    let lower = s.to_ascii_lowercase();
    let s = match [" i ", " we ", " that i ", " which ", " you "].iter().filter_map(|m| lower.find(m)).min() {
        Some(i) if i > 0 && !words(&s[..i]).is_empty() => s[..i].trim(),
        _ => s,
    };
    let w = words(s);
    if w.is_empty() || w.len() > 7 || is_pronoun(&w[0]) || WH_STARTS.contains(&w[0].as_str()) || ["your", "yours"].contains(&w[0].as_str()) {
        return None;
    }
    if w.iter().any(|x| x.contains('\'') && is_pronoun(x)) {
        return None;
    }
    if w.iter().any(|x| ["if", "when", "because", "since", "i", "we", "you", "i'm", "we're", "should", "would", "could"].contains(&x.as_str())) {
        return None;
    }
    Some(s)
}

/// Whether a phrase reads as a name (every word capitalized or a number, not a determiner).
fn is_name(s: &str) -> bool {
    let ws: Vec<&str> = s.split_whitespace().collect();
    !ws.is_empty()
        && ws.len() <= 4
        && !["the", "my", "our", "this", "that", "a", "an", "your"].contains(&ws[0].to_ascii_lowercase().as_str())
        && ws.iter().all(|w| w.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit()) || ["de", "van", "von", "da", "del", "la", "le"].contains(w))
}

/// Cuts a noun phrase at its first preposition ("the product owner on our team" → "the product owner").
fn cut_at_prep(s: &str) -> &str {
    let lower = s.to_ascii_lowercase();
    let cut = PREPS.iter().filter_map(|p| find_word(&lower, p, 1)).min().unwrap_or(s.len());
    s[..cut].trim()
}

/// `(start, end)` of the first whole word of `list` after `from`.
fn first_of(sp: &Span, list: &[&str], from: usize) -> Option<(usize, usize)> {
    sp.find_any(list, from).map(|(at, len)| (at, at + len))
}

/// After a verb: an optional preposition, then the rest.
fn after_prep<'a>(sp: &Span<'a>, from: usize) -> (Option<&'static str>, &'a str) {
    let Some(rest) = sp.lower.get(from..) else { return (None, "") };
    let trimmed = rest.trim_start();
    let skip = rest.len() - trimmed.len();
    for p in PREPS {
        if trimmed.starts_with(p) && trimmed[p.len()..].starts_with(' ') {
            return (Some(p), sp.slice(from + skip + p.len(), sp.text.len()));
        }
    }
    (None, sp.slice(from, sp.text.len()))
}

/// A value as stated: cut at the first comma outside parentheses, then cleaned.
fn value_of(s: &str) -> Option<String> {
    let mut depth = 0i32;
    let mut cut = s.len();
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth <= 0 => {
                cut = i;
                break;
            }
            _ => {}
        }
    }
    let v = clean_value(&s[..cut])?;
    (!is_pronoun_phrase(&v) && !is_predicate_phrase(&v)).then_some(v)
}

/// A phrase that says how something is rather than what it is: an object pronoun in front ("him
/// from here on out" points at a value named elsewhere), an intensifier ("so quiet", "too many"), a
/// lone participle ("finished", "cancelled"). Kept as a value it would answer "who / which / when"
/// with a judgement; the turn itself stays in the conversation for the reader.
fn is_predicate_phrase(v: &str) -> bool {
    let w = words(v);
    let Some(first) = w.first() else { return true };
    let object_pronoun = ["him", "her", "them", "me", "us", "it", "himself", "herself", "themselves", "myself"].contains(&first.as_str());
    let intensifier = w.len() > 1 && ["so", "too", "very", "really", "super", "pretty", "quite", "way", "much", "more", "less"].contains(&first.as_str());
    let lone_participle = w.len() == 1 && first.len() > 4 && first.ends_with("ed") && v.chars().all(|c| !c.is_uppercase() && !c.is_ascii_digit());
    object_pronoun || intensifier || lone_participle
}

fn negated(lower: &str) -> bool {
    [" not ", "n't ", " never ", " no longer "].iter().any(|n| lower.contains(n)) || lower.starts_with("not ") || lower.starts_with("never ")
}

// --- Value and change patterns over one clause -------------------------------------------------

/// "TOPIC: it's Y" / "TOPIC again: …": a short topic before a colon names the slot.
fn topic_split(c: &str) -> Option<(&str, &str)> {
    let (topic, rest) = c.split_once(": ")?;
    let tw = words(topic);
    if tw.is_empty() || tw.len() > 5 {
        return None;
    }
    let topic = topic.trim();
    let lower = topic.to_ascii_lowercase();
    let mut t = topic;
    for strip in ["about ", "re ", "regarding ", "as for ", "update on ", "on "] {
        if lower.starts_with(strip) {
            t = &topic[strip.len()..];
        }
    }
    for strip in [" again", " update", " news"] {
        if t.to_ascii_lowercase().ends_with(strip) {
            t = &t[..t.len() - strip.len()];
        }
    }
    Some((t.trim(), rest.trim()))
}

fn value_clause(c: &str) -> Option<Found> {
    let c = strip_lead(c);
    // "release day = Wednesday", "vpn = Tunnelkit": a slot set to a value in notation.
    if let Some((slot, value)) = c.split_once(" = ").filter(|(l, r)| (1..=5).contains(&words(l).len()) && (1..=6).contains(&words(r).len())) {
        let mut f = Found::new("value", 0.72);
        f.owner = owner_of(slot);
        f.slot = Some(slot.trim().to_string()).filter(|s| !is_pronoun_phrase(s));
        f.value = value_of(value.trim());
        f.change = now_cue(&value.to_ascii_lowercase());
        if f.slot.is_some() && f.value.is_some() {
            return Some(f);
        }
    }
    if let Some((topic, rest)) = topic_split(c) {
        let rl = rest.to_ascii_lowercase();
        if let Some(p) = ["it's ", "it is ", "that's ", "that is ", "they're ", "they are ", "now it's "].iter().find(|p| rl.starts_with(*p)) {
            let mut f = Found::new("value", 0.72);
            f.slot = Some(topic.to_string());
            f.change = now_cue(&rl);
            f.owner = owner_of(topic);
            f.value = value_of(&rest[p.len()..]);
            return f.value.is_some().then_some(f);
        }
        let pronoun_subject = PRONOUNS.contains(&first_word(rest).as_str()) && !["i", "we", "i'm", "we're", "you"].contains(&first_word(rest).as_str());
        if let Some(mut f) = value_clause(rest) {
            if !pronoun_subject {
                return Some(f);
            }
            if f.slot.as_deref().is_none_or(is_pronoun_phrase) {
                f.slot = Some(topic.to_string());
            }
            return Some(f);
        }
        // "Car insurance: Geico": a label and a name, with no verb.
        return related(c).or_else(|| labelled(c));
    }
    let sp = Span::new(c);
    if negated(&format!(" {} ", sp.lower)) {
        return None;
    }
    let found = appointed(&sp)
        .or_else(|| employed(c))
        .or_else(|| apposition(c))
        .or_else(|| change_clause(&sp))
        .or_else(|| titled(c))
        .or_else(|| first_person_extra(&sp))
        .or_else(|| first_person(&sp))
        .or_else(|| copula_or_light(&sp))
        .or_else(|| event_clause(&sp));
    match found {
        // A frame that names no slot ("I'm with Monzo …") yields to one that does.
        Some(f) if f.slot.is_none() && f.value.is_some() && f.old_value.is_none() && f.event.is_none() => related(c).or(Some(f)),
        None => related(c).or_else(|| labelled(c)).or_else(|| scheduled(c)),
        some => some,
    }
}

/// A clause about "he" / "she" belonging somewhere ("… and she's in third grade at Larkspur
/// Elementary"), read with the person the talk is about in the pronoun's place.
fn person_clause(clause: &str, sentence: &str, said_before: &str, earlier: &[&str]) -> Option<Found> {
    let at = (clause.as_ptr() as usize).checked_sub(sentence.as_ptr() as usize).filter(|&i| i <= sentence.len()).unwrap_or(0);
    let before = || format!("{said_before} {}", sentence.get(..at).unwrap_or(""));
    value_clause(&antecedent::subject_resolved(clause, before, earlier)?)
}

/// The statement a sentence makes before the question it ends with, when a clause boundary
/// separates them and the question opens with a question's word; or, for a sentence that opens
/// as a statement and ends in "??" / "?!" (surprise, not a question of its own: "Leonie is a nurse
/// at Halvard General, the daycare has a goat??"), everything before its last clause.
fn statement_before_question(sentence: &str) -> Option<&str> {
    if !sentence.trim_end().ends_with('?') || WH_STARTS.contains(&first_word(sentence).as_str()) {
        return None;
    }
    let lower = sentence.to_ascii_lowercase();
    let boundaries = || [" — ", " – ", " - ", "; ", ", so ", ", but ", ", and ", ", "].iter().flat_map(|sep| lower.match_indices(sep).map(move |(at, _)| (at, at + sep.len())));
    let exclaimed = ["??", "?!", "!?"].iter().any(|e| sentence.trim_end().ends_with(e));
    let cut = boundaries().filter(|&(_, after)| WH_STARTS.contains(&first_word(&sentence[after..]).as_str())).map(|(at, _)| at).min();
    let cut = cut.or_else(|| exclaimed.then(|| boundaries().map(|(at, _)| at).max()).flatten())?;
    let before = sentence[..cut].trim();
    (words(before).len() >= 3).then_some(before)
}

/// A sentence that is a value alone ("stg-tok-9QX4-ferrous", "It's 2719B"): an identifier, or
/// quoted text, with at most a pronoun and copula before it and a few words after.
fn bare_value(sentence: &str) -> Option<String> {
    let lower = sentence.to_ascii_lowercase();
    let lead = ["it's ", "it is ", "its ", "here it is: ", "here: ", "that's ", "that is "].iter().find(|p| lower.starts_with(*p)).map_or(0, |p| p.len());
    let v = value_spans(sentence).into_iter().find(|v| v.at == lead && matches!(v.kind, SpanKind::Code | SpanKind::Address | SpanKind::Quoted))?;
    (words(&sentence[(lead + v.text.len()).min(sentence.len())..]).len() <= 3).then_some(v.text)
}

/// An identifier written after its label ("guest wifi pw otter-lamp-92"): tried after every
/// frame with a verb.
fn labelled(c: &str) -> Option<Found> {
    let l = labels::labelled_code(c)?;
    Some(Found::noted(c, l.label, l.value, "an identifier read after its label, without a verb"))
}

/// Where someone works ("Leonie is an ICU nurse at Halvard General"): the person's employer.
fn employed(c: &str) -> Option<Found> {
    let e = employment::employment(c)?;
    let mut f = Found::new("value", 0.72);
    f.owner = Some(if e.team { Owner::Team } else { Owner::User });
    f.slot = Some(if e.subject.is_empty() { "employer".to_string() } else { format!("{} employer", e.subject) });
    f.value = Some(e.value);
    Some(f)
}

/// A role right before the name filling it ("their technician Piotr Wasik").
fn titled(c: &str) -> Option<Found> {
    let r = role_name::role_name(c)?;
    let mut f = Found::new("value", 0.7);
    f.owner = match r.whose {
        role_name::Whose::User => Some(Owner::User),
        role_name::Whose::Team => Some(Owner::Team),
        role_name::Whose::Theirs | role_name::Whose::Unsaid => None,
    };
    f.of_other_party = r.whose == role_name::Whose::Theirs;
    f.slot = Some(r.role);
    f.value = Some(r.name);
    Some(f)
}

/// A time after the activity it times ("we open at 7:00"): tried last, as it reads no verb.
fn scheduled(c: &str) -> Option<Found> {
    let s = schedule::scheduled(c)?;
    Some(Found::noted(s.subject.as_deref().unwrap_or(c), s.slot, s.value, "a time read after the activity it times"))
}

/// Any verb between an owner and a name (`relation`): the last value rule, as it names its slot
/// least surely.
fn related(c: &str) -> Option<Found> {
    let r = relation::relation(c)?;
    let mut f = Found::new("value", 0.72);
    f.owner = Some(if r.team { Owner::Team } else { Owner::User });
    f.slot = Some(r.slot);
    f.value = Some(r.value);
    f.evidence.doubt(0.1, "the slot is named by the clause's other words");
    Some(f)
}

/// Subjects of a relative clause that makes a noun the user's or the team's ("the agency we work
/// with", "the hairdresser I've gone to for years").
const RELATIVE_OWNERS: &[(&str, Owner)] = &[("i", Owner::User), ("i've", Owner::User), ("i'm", Owner::User), ("we", Owner::Team), ("we've", Owner::Team), ("we're", Owner::Team)];

/// A name set beside the noun it fills, between commas: "My doctor, Dr. Abernathy, wants …", "The
/// agency we work with, Northlight Creative, delivered …", "We have a lawn service, GreenThumb."
/// Whatever the rest of the sentence says, the apposition states the value; the noun is the slot.
fn apposition(c: &str) -> Option<Found> {
    let (head, rest) = c.split_once(", ")?;
    let hw = words(head);
    if hw.len() < 2 || hw.len() > 8 {
        return None;
    }
    let (owner, slot) = match hw[0].as_str() {
        "my" => (Owner::User, hw[1..].to_vec()),
        "our" => (Owner::Team, hw[1..].to_vec()),
        // "The X we use", "The X I've gone to for years": the noun before the relative subject.
        "the" => {
            let (k, owner) = hw.iter().enumerate().skip(2).find_map(|(i, w)| RELATIVE_OWNERS.iter().find(|(p, _)| p == w).map(|(_, o)| (i, *o)))?;
            (owner, hw[1..k].to_vec())
        }
        // "We have a lawn service", "I've got a cleaner".
        "we" | "i" | "we've" | "i've" => {
            let owner = if hw[0].starts_with('i') { Owner::User } else { Owner::Team };
            let at =
                hw.iter().position(|w| w == "a" || w == "an").filter(|&i| (1..=3).contains(&i) && hw[1..i].iter().all(|w| ["have", "got", "use", "'ve"].contains(&w.as_str())))?;
            (owner, hw[at + 1..].to_vec())
        }
        _ => return None,
    };
    if slot.is_empty() || slot.len() > 4 || slot.iter().any(|w| is_pronoun(w) || w.chars().any(|c| c.is_ascii_digit())) {
        return None;
    }
    // "My sister, Hana, lives in Oslo": a relative named is the subject of what follows, whose
    // facts are hers (read by the rules for other subjects), not the user's slot "sister".
    if slot.iter().any(|w| is_kin(w)) {
        return None;
    }
    // The head is a noun phrase in lower case: a capitalized word there makes it a name ("my
    // sister, Hana, …" keeps its kin noun; "My Spotify, …" is not a slot).
    if head.split_whitespace().skip(1).any(|w| w.chars().next().is_some_and(char::is_uppercase)) {
        return None;
    }
    // The name opens what follows the comma (after "the"), and ends at a comma, the clause's end
    // or a preposition: "Sandra at Meadowbank Clinic" is Sandra.
    let lead = if rest.to_ascii_lowercase().starts_with("the ") { 4 } else { 0 };
    let name = value_spans(rest).into_iter().find(|v| v.at == lead && matches!(v.kind, SpanKind::Name))?;
    let after = rest.get(lead + name.text.len()..)?.trim_start();
    let joins = ["at ", "from ", "in ", "on ", "of ", "who ", "which "].iter().any(|p| after.to_ascii_lowercase().starts_with(p));
    if !(after.is_empty() || after.starts_with(',') || after.starts_with('(') || joins) {
        return None;
    }
    let mut f = Found::new("value", 0.72);
    f.owner = Some(owner);
    f.slot = Some(slot.join(" "));
    f.value = Some(name.text.trim_end_matches("'s").to_string());
    Some(f)
}

/// "A picked B as (our) X": B is the value of X (the upstream A is read by `dependency`).
fn appointed(sp: &Span) -> Option<Found> {
    let (_, vend) = first_of(sp, &["assigned", "picked", "chose", "appointed", "named", "hired", "selected", "made"], 1)?;
    let as_at = sp.find("as", vend)?;
    let mut f = Found::new("value", 0.72);
    f.value = value_of(sp.slice(vend, as_at)).filter(|v| words(v).len() <= 4);
    let role = sp.slice(as_at + 2, sp.text.len());
    f.owner = owner_of(role);
    f.slot = Some(cut_at_prep(role.split(',').next().unwrap_or(role)).to_string()).filter(|r| !is_pronoun_phrase(r));
    (f.value.is_some() && f.slot.is_some()).then_some(f)
}

fn now_cue(lower: &str) -> bool {
    ["now", "these days", "nowadays", "anymore", "from now on", "currently", "this month", "this week", "again"].iter().any(|p| find_word(lower, p, 0).is_some())
}

/// "X is Y", "X is on Y", "Name is the X", "X goes to Y", "B covers X".
fn copula_or_light(sp: &Span) -> Option<Found> {
    let cop = first_of(sp, &["is", "are", "'re", "was", "were"], 1);
    // A verb right after a pronoun belongs to a relative clause ("the gym I go to is …").
    let main_verb = |list: &[&str], light: bool| {
        let mut from = 1;
        while let Some((a, e)) = first_of(sp, list, from) {
            let before = words(&sp.text[..a]);
            // A light verb is one when a preposition follows ("drain to", "runs on"); before a noun
            // it is part of a noun phrase ("the log drain endpoint", "the weekly report recipient").
            let next = first_word(&sp.text[e..]);
            let light_ok = !light
                || PREPS.contains(&next.as_str())
                || ["out", "off", "up", "back", "daily", "weekly", "monthly", "nightly"].contains(&next.as_str())
                || ["follows", "follow"].contains(&&sp.lower[a..e]);
            if light_ok && !before.last().is_some_and(|w| ["i", "we", "you", "they"].contains(&w.as_str())) {
                return Some((a, e));
            }
            from = e;
        }
        None
    };
    let light = main_verb(LIGHT_VERBS, true);
    let provider = main_verb(PROVIDER_VERBS, false);
    // A verb that is both ("runs"): light before a preposition ("runs on X"), else a provider.
    let provider_first = provider.is_some_and(|p| light.is_some_and(|l| l.0 == p.0) && after_prep(sp, p.1).0.is_none());
    let light = light.filter(|_| !provider_first);
    let (at, end, kind) = [cop.map(|(a, e)| (a, e, 0)), light.map(|(a, e)| (a, e, 1)), provider.map(|(a, e)| (a, e, 2))].into_iter().flatten().min_by_key(|x| (x.0, x.2))?;
    let subject = np_subject(sp.slice(0, at))?;
    let mut f = Found::new("value", 0.75);
    f.change = now_cue(&sp.lower);
    f.owner = owner_of(subject);
    if kind == 2 {
        // "Corvo Insurance covers the car": the subject is the value, the object names the slot.
        let object = sp.slice(end, sp.text.len());
        let object = cut_at_prep(object.split(',').next().unwrap_or(object));
        if is_pronoun_phrase(object) {
            return None;
        }
        f.value = value_of(subject);
        f.slot = Some(object.to_string());
        f.evidence.doubt(0.15, "the slot is named only by what the value covers");
        return f.value.is_some().then_some(f);
    }
    let past = ["was", "were"].contains(&&sp.lower[at..end]);
    let (mut prep, mut rest) = after_prep(sp, end);
    // "orders go out with ParcelJet", "we signed up with X": a particle between a light verb and
    // its preposition belongs to the verb; the value is the preposition's object.
    if kind == 1 && prep.is_none() {
        let particle = first_word(rest);
        if VERB_PARTICLES.contains(&particle.as_str()) {
            let after_particle = end + (sp.lower[end..].find(&particle).unwrap_or(0) + particle.len());
            if let (Some(p), r) = after_prep(sp, after_particle) {
                (prep, rest) = (Some(p), r);
            }
        }
    }
    // Adverbs between the verb and what it says.
    loop {
        let lower = rest.to_ascii_lowercase();
        let Some(adv) = ["now", "currently", "still", "actually", "finally", "also", "officially", "fully", "just", "usually", "always", "all"]
            .iter()
            .find(|a| lower.starts_with(*a) && lower[a.len()..].starts_with(' '))
        else {
            break;
        };
        rest = rest[adv.len()..].trim_start();
        if *adv == "now" {
            f.change = true;
        }
    }
    let rsp = Span::new(rest);
    let rw = words(rest);
    if kind == 0 && prep.is_none() {
        // A participle and its preposition: "hosted by", "retained for", "due within".
        if let (Some(first), Some(second)) = (rw.first(), rw.get(1)) {
            if ["called", "named", "known"].contains(&first.as_str()) && !past {
                let v = if second == "as" { rsp.slice(first.len() + 4, rest.len()) } else { rsp.slice(first.len(), rest.len()) };
                f.slot = Some(subject.to_string());
                f.value = value_of(v);
                return f.value.is_some().then_some(f);
            }
            let participle = first.ends_with("ed") || ["due", "set", "run", "done", "kept", "held", "paid", "made", "based", "located", "stored", "sent"].contains(&first.as_str());
            if participle && PREPS.contains(&second.as_str()) {
                let (_, v) = after_prep(&rsp, first.len());
                if past && !DEP_PASSIVE.contains(&first.as_str()) {
                    return None;
                }
                if DEP_PASSIVE.contains(&first.as_str()) && subject.chars().any(|c| c.is_ascii_digit()) {
                    // "Our 4-hour SLA was negotiated with Acme": the subject holds the value,
                    // the one it was set with is the upstream (read by `dependency`).
                    let (num, head): (Vec<&str>, Vec<&str>) = subject.split_whitespace().partition(|w| w.chars().any(|c| c.is_ascii_digit()));
                    f.slot = Some(head.join(" "));
                    f.value = value_of(&num.join(" "));
                    return f.value.is_some().then_some(f);
                }
                f.slot = Some(subject.to_string());
                f.value = value_of(v);
                return f.value.is_some().then_some(f);
            }
        }
        if past {
            return None;
        }
        // "Ana Lima is the product owner": the name is the value, the role the slot.
        if is_name(subject) && ["the", "our", "my", "a", "an"].contains(&first_word(rest).as_str()) {
            let role = cut_at_prep(rest.split(',').next().unwrap_or(rest));
            f.slot = Some(role.to_string());
            f.value = value_of(subject);
            f.owner = owner_of(rest).or(f.owner);
            f.evidence.doubt(0.1, "read as `Name is the role`");
            return f.value.is_some().then_some(f);
        }
    } else if past {
        return None;
    }
    if rw.is_empty() {
        return None;
    }
    f.value = value_of(rest);
    // A person owns the slot, they are not it ("Noor goes to Larchmont Elementary" → Noor's school).
    let verb = &sp.lower[at..end];
    match f.value.as_deref().and_then(|v| person_slot(subject, verb, kind == 0, v)) {
        Some((slot, value)) => (f.slot, f.value) = (Some(slot), value_of(&value)),
        None => f.slot = Some(subject.to_string()),
    }
    // "The rota follows Theo's schedule, kitchen on Sundays": the upstream, then the value.
    if kind == 1 && ["follows", "follow"].contains(&&sp.lower[at..end]) {
        if let Some((_, after)) = rest.split_once(", ") {
            f.value = value_of(after);
        }
    }
    if kind == 1 && prep.is_none() && rw.len() > 4 {
        f.evidence.doubt(0.15, "the value is a whole phrase after the verb");
    }
    f.value.is_some().then_some(f)
}

/// "I use Y for X", "we use Y as our X", "I go to Y for X", "I get X from Y", "we're on Y".
fn first_person(sp: &Span) -> Option<Found> {
    let w = words(sp.text);
    let subject = w.first()?;
    let team = ["we", "we're"].contains(&subject.as_str());
    if !team && !["i", "i'm"].contains(&subject.as_str()) {
        return None;
    }
    let owner = Some(if team { Owner::Team } else { Owner::User });
    let mut f = Found::new("value", 0.72);
    f.owner = owner;
    f.change = now_cue(&sp.lower);
    if let Some((_, end)) = first_of(sp, &["use", "uses", "used", "using"], 0) {
        let rest = &sp.lower[end..];
        if let Some(at) = [" for ", " as "].iter().filter_map(|p| rest.find(p).map(|i| (i, p.len()))).min() {
            f.value = value_of(sp.slice(end, end + at.0));
            f.slot = Some(sp.slice(end + at.0 + at.1, sp.text.len()).split(',').next().unwrap_or("").to_string());
        } else {
            f.value = value_of(sp.slice(end, sp.text.len()));
            f.evidence.doubt(0.2, "no slot named: placed by the value's words");
        }
        return f.value.is_some().then_some(f);
    }
    if let Some((_, end)) = first_of(sp, &["go to", "went to", "head to", "see", "visit"], 0) {
        let rest = &sp.lower[end..];
        if let Some(at) = rest.find(" for ") {
            f.value = value_of(sp.slice(end, end + at));
            f.slot = Some(sp.slice(end + at + 5, sp.text.len()).split(',').next().unwrap_or("").to_string());
            return f.value.is_some().then_some(f);
        }
    }
    if let Some((_, end)) = first_of(sp, &["get", "buy", "order", "rent", "borrow"], 0) {
        let rest = &sp.lower[end..];
        if let Some(at) = [" from ", " at ", " through "].iter().filter_map(|p| rest.find(p).map(|i| (i, p.len()))).min() {
            f.slot = Some(sp.slice(end, end + at.0).to_string());
            f.value = value_of(sp.slice(end + at.0 + at.1, sp.text.len()));
            return (f.value.is_some() && !f.slot.as_deref().is_some_and(is_pronoun_phrase)).then_some(f);
        }
    }
    // "we're (fully) on Y": a value with no slot named.
    let copula = ["we're", "i'm"].contains(&subject.as_str()) || w.get(1).is_some_and(|x| ["are", "am"].contains(&x.as_str()));
    if copula {
        let skip = if ["we're", "i'm"].contains(&subject.as_str()) { sp.lower.find(subject.as_str())? + subject.len() } else { sp.find(&w[1], 0)? + w[1].len() };
        let mut skip = skip;
        for adv in ["fully", "all", "now", "currently", "still", "officially", "finally"] {
            if let Some(at) = sp.find(adv, skip).filter(|&a| sp.lower[skip..a].trim().is_empty()) {
                skip = at + adv.len();
            }
        }
        // "I'm insured with X", "we're hosted on X": the participle names the slot.
        let participle = first_word(sp.lower.get(skip..).unwrap_or(""));
        if participle.ends_with("ed") && participle.len() > 4 {
            let at = skip + sp.lower[skip..].find(participle.as_str()).unwrap_or(0) + participle.len();
            if let (Some(_), rest) = after_prep(sp, at) {
                if let Some(v) = value_of(rest).filter(|v| v.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())) {
                    f.slot = Some(participle.clone());
                    f.value = Some(v);
                    f.evidence.doubt(0.1, "the slot is named by the verb");
                    return Some(f);
                }
            }
        }
        let (prep, rest) = after_prep(sp, skip);
        let v = prep.and_then(|_| value_of(rest));
        if let (Some(p), Some(v)) = (prep, v) {
            if ["on", "with", "at", "in"].contains(&p) && v.chars().next().is_some_and(char::is_uppercase) {
                f.value = Some(v);
                f.change = true;
                f.evidence.doubt(0.2, "no slot named: placed by the value's words");
                return Some(f);
            }
        }
    }
    // "we host everything on Y", "I bank with Y": the verb names the slot.
    let verb = w.get(1)?;
    let rest_at = sp.find(verb, 0)? + verb.len();
    let rest = &sp.lower[rest_at..];
    let p = [" on ", " with ", " at ", " in ", " through ", " for "].iter().filter_map(|p| rest.find(p).map(|i| (i, p.len()))).min()?;
    let object = sp.slice(rest_at, rest_at + p.0);
    // Only verbs that name a slot of their own ("we host on X", "I bank with X").
    let slot_verbs = ["live", "work", "bank", "host", "deploy", "shop", "train", "store", "keep", "park", "study", "run", "share", "insure", "vote", "worship", "commute"];
    if object.split_whitespace().count() > 3 || !slot_verbs.contains(&verb.as_str()) {
        return None;
    }
    let slot = if is_pronoun_phrase(object) || object.is_empty() || ["everything", "all", "stuff", "things"].contains(&object.to_ascii_lowercase().as_str()) {
        verb_slot(verb)
    } else {
        format!("{} {}", verb_slot(verb), object)
    };
    let v = value_of(sp.slice(rest_at + p.0 + p.1, sp.text.len()))?;
    if !v.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit()) {
        return None;
    }
    f.slot = Some(slot);
    f.value = Some(v);
    f.evidence.doubt(0.1, "the slot is named by the verb");
    Some(f)
}

/// Verbs that tell of something the user did, kept as events (no slot: gathered by area).
const EVENT_VERBS: &[&str] = &[
    "bought",
    "got",
    "adopted",
    "started",
    "joined",
    "signed up for",
    "planted",
    "picked up",
    "ordered",
    "booked",
    "visited",
    "finished",
    "read",
    "watched",
    "took up",
    "enrolled in",
    "repotted",
];
const NOT_ACTIVITIES: &[&str] =
    &["going", "looking", "thinking", "trying", "wondering", "planning", "hoping", "asking", "getting", "having", "doing", "feeling", "curious", "glad"];

/// "I've been running 5k loops" (an activity's current value), "Theo and I split the bills 50/50"
/// (a quantity), "I bought a fig tree" / "Started a pottery class" (events).
fn first_person_extra(sp: &Span) -> Option<Found> {
    // Progressive: the activity is the slot.
    for lead in ["i've been", "i have been", "i'm", "i am", "we've been", "we have been", "we're", "we are"] {
        if sp.lower.starts_with(lead) && sp.lower[lead.len()..].starts_with(' ') {
            let rest = sp.slice(lead.len(), sp.text.len());
            let verb = first_word(rest);
            // Only an activity with a concrete value: "running 5k", "learning Portuguese".
            let object = rest.get(verb.len()..).unwrap_or("").trim();
            let concrete = object.chars().next().is_some_and(|c| c.is_ascii_digit() || c.is_uppercase());
            if verb.ends_with("ing") && verb.len() > 4 && !NOT_ACTIVITIES.contains(&verb.as_str()) && concrete {
                let mut f = Found::new("value", 0.62);
                f.owner = owner_of(lead);
                f.slot = Some(verb.clone());
                f.value = value_of(rest.get(verb.len()..).unwrap_or("").trim());
                f.evidence.doubt(0.05, "the slot is the activity named");
                return f.value.is_some().then_some(f);
            }
        }
    }
    // A quantity after a verb and its object: "we split utilities 50/50".
    // The subject a whole word: "we're at Calloway Court, unit 4B" has no verb after "we".
    let subject_end = ["and i", "i", "we"].iter().filter_map(|p| sp.find(p, 0).filter(|&a| a <= 20).map(|a| a + p.len())).filter(|&e| sp.text[e..].starts_with(' ')).min()?;
    let rest = Span::new(sp.slice(subject_end, sp.text.len()));
    let rw = words(rest.text);
    if rw.len() >= 3 && rw.len() <= 8 && rw.last().is_some_and(|x| x.chars().any(|c| c.is_ascii_digit())) && !rw[1].chars().any(|c| c.is_ascii_digit()) {
        let verb = &rw[0];
        if verb.ends_with("ing") || WH_STARTS.contains(&verb.as_str()) || ["am", "was", "have", "had", "think", "feel", "want", "need", "got", "bought"].contains(&verb.as_str()) {
            return None;
        }
        // The quantity is the last value the clause ends with, whole ("September 5"), else its last word.
        let ends_with_value = value_spans(rest.text).into_iter().rfind(|v| v.kind == SpanKind::Code && v.at + v.text.len() + 1 >= rest.text.trim_end_matches(['.', '!']).len());
        let digit_at = match ends_with_value {
            Some(v) if v.at > verb.len() => v.at,
            _ => rest.text.rfind(|c: char| c.is_whitespace())?,
        };
        let object = rest.slice(verb.len(), digit_at);
        let mut f = Found::new("value", 0.6);
        f.owner = Some(if sp.lower.starts_with("we") { Owner::Team } else { Owner::User });
        f.slot = Some(format!("{} {}", object, verb));
        f.value = value_of(rest.slice(digit_at, rest.text.len()));
        f.evidence.doubt(0.1, "read as verb, object, quantity");
        return (f.value.is_some() && !is_pronoun_phrase(object)).then_some(f);
    }
    None
}

/// "I bought a fig tree", "Started a pottery class on Tuesdays": an event, gathered by its area.
fn event_clause(sp: &Span) -> Option<Found> {
    owned_event(sp).or_else(|| did_event(sp))
}

/// "The monstera finally put out a new leaf": something of the user's did something.
fn owned_event(sp: &Span) -> Option<Found> {
    let det = ["the ", "my ", "our "].iter().find(|d| sp.lower.starts_with(*d))?;
    let w = words(sp.text);
    if w.len() > 16 || sp.text.trim_end().ends_with('?') {
        return None;
    }
    let verb_at = w.iter().enumerate().skip(2).find(|(_, x)| (x.ends_with("ed") && x.len() > 4) || IRREGULAR_PAST.contains(&x.as_str())).map(|(i, _)| i)?;
    let verb = &w[verb_at];
    let at = sp.find(verb, det.len())?;
    let np = cut_at_prep(sp.slice(det.len(), at));
    if np.is_empty() || words(np).len() > 4 {
        return None;
    }
    let mut f = Found::new("event", 0.5);
    f.owner = Some(if det.starts_with("our") { Owner::Team } else { Owner::User });
    f.event = Some(sp.slice(det.len(), sp.text.len()).to_string());
    f.event_owned = true;
    f.slot = Some(np.to_string());
    Some(f)
}

fn did_event(sp: &Span) -> Option<Found> {
    let lead = ["i also ", "i just ", "i ", "we also ", "we just ", "we ", "also ", "just ", ""].iter().find(|l| sp.lower.starts_with(*l))?;
    let after = &sp.lower[lead.len()..];
    let verb = EVENT_VERBS.iter().filter(|v| after.starts_with(*v) && after[v.len()..].starts_with(' ')).max_by_key(|v| v.len())?;
    if lead.is_empty() && !sp.text.chars().next().is_some_and(char::is_uppercase) {
        return None;
    }
    let what = sp.slice(lead.len() + verb.len(), sp.text.len());
    let ww = words(what);
    if ww.is_empty() || ww.len() > 14 || is_pronoun_phrase(what) {
        return None;
    }
    let mut f = Found::new("event", 0.55);
    f.owner = Some(if lead.starts_with("we") { Owner::Team } else { Owner::User });
    f.event = Some(format!("{verb} {what}"));
    f.slot = Some(what.to_string());
    Some(f)
}

/// The slot a first-person verb speaks of ("live" → "home").
pub(super) fn verb_slot(verb: &str) -> String {
    match verb {
        "live" | "lived" => "home".into(),
        "work" | "worked" => "employer".into(),
        "bank" | "banked" => "bank".into(),
        "host" | "hosted" => "hosting".into(),
        "deploy" | "deployed" => "deployment".into(),
        "shop" | "shopped" => "shopping".into(),
        "train" | "trained" => "training".into(),
        v => v.trim_end_matches("ed").to_string(),
    }
}

/// "switched X from A to B", "changed X to B", "dropped A for B", "replaced A with B",
/// "B replaced A", "B took over as X", "my new X is B", "rewrote X in B".
fn change_clause(sp: &Span) -> Option<Found> {
    let mut f = Found::new("change", 0.78);
    f.change = true;
    f.owner = owner_of(sp.text);
    if let Some((vat, vend)) = first_of(sp, CHANGE_VERBS, 0) {
        let verb = &sp.lower[vat..vend];
        let from = sp.find("from", vend);
        let to = sp.find("to", from.unwrap_or(vend));
        let rewrote = ["rewrote", "rebuilt", "redid", "ported"].contains(&verb);
        let into = if rewrote { sp.find_any(&["in", "with", "on", "to", "into"], vend).map(|(a, l)| (a, a + l)) } else { to.map(|t| (t, t + 2)) };
        if let Some((tat, tend)) = into {
            let slot_end = from.unwrap_or(tat);
            let slot = sp.slice(vend, slot_end);
            let slot = slot.trim_start_matches("over").trim();
            f.slot = (!is_pronoun_phrase(slot) && !slot.is_empty() && slot.split_whitespace().count() <= 5).then(|| slot.to_string());
            // "Our standup moved from 9:30 to 10:00": the subject is the slot.
            if f.slot.is_none() && vat > 0 {
                f.slot = np_subject(sp.slice(0, vat)).filter(|s| !is_name(s)).map(str::to_string);
            }
            f.old_value = from.and_then(|fa| value_of(sp.slice(fa + 4, tat)));
            f.value = value_of(sp.slice(tend, sp.text.len()));
            // "made X to B" and "set X to B" need their slot named.
            if ["made", "set", "cut", "updated"].contains(&verb) && f.slot.is_none() {
                return None;
            }
            if f.value.is_some() && (f.slot.is_some() || f.old_value.is_some() || ["switched", "switch", "moved", "migrated", "went", "changed", "change"].contains(&verb)) {
                return Some(f);
            }
        }
    }
    // "dropped A for B", "swapped A for B", "replaced A with B".
    if let Some((vat, vend)) = first_of(sp, &["dropped", "ditched", "swapped", "traded", "exchanged", "replaced", "left", "quit", "abandoned"], 0) {
        let _ = vat;
        let sep = if &sp.lower[vat..vend] == "replaced" { "with" } else { "for" };
        if let Some(s) = sp.find(sep, vend) {
            let old = sp.slice(vend, s);
            f.old_value = value_of(old);
            f.value = value_of(sp.slice(s + sep.len(), sp.text.len()));
            if f.value.is_some() && f.old_value.is_some() {
                return Some(f);
            }
        }
    }
    // "B replaced A", "B took over (as X)", "B succeeded A".
    if let Some((vat, vend)) = first_of(sp, &["replaced", "replaces", "succeeded", "superseded", "took over", "has taken over", "is taking over", "stepped in"], 1) {
        let subject = np_subject(sp.slice(0, vat))?;
        f.value = value_of(subject);
        let rest = sp.slice(vend, sp.text.len());
        let rl = rest.to_ascii_lowercase();
        if let Some(role) = rl.strip_prefix("as ").map(|_| &rest[3..]) {
            f.slot = Some(cut_at_prep(role.split(',').next().unwrap_or(role)).to_string());
        } else if !is_pronoun_phrase(rest) && !rest.is_empty() && !rl.starts_with("from") {
            f.old_value = value_of(rest);
        } else if let Some(r) = rl.strip_prefix("from ") {
            f.old_value = value_of(&rest[rest.len() - r.len()..]);
        }
        return f.value.is_some().then_some(f);
    }
    // "my new X is B".
    if let Some(at) = sp.find_any(&["new", "current"], 0).map(|x| x.0) {
        if at <= 8 {
            let (cat, cend) = first_of(sp, &["is", "are"], at)?;
            let slot = sp.slice(at, cat);
            f.slot = Some(slot.to_string());
            f.value = value_of(sp.slice(cend, sp.text.len()));
            return f.value.is_some().then_some(f);
        }
    }
    None
}

/// "Dropped A", "A is out", "A moved out": a value that ended, naming no successor.
fn ended_clause(c: &str) -> Option<Found> {
    let sp = Span::new(strip_lead(c));
    let mut f = Found::new("ended", 0.6);
    if let Some((_, end)) = first_of(&sp, LEAVE_VERBS, 0) {
        if sp.find("for", end).is_none() {
            f.old_value = value_of(sp.slice(end, sp.text.len()));
        }
    } else if let Some((at, _)) = first_of(&sp, GONE_PHRASES, 1) {
        f.old_value = np_subject(sp.slice(0, at)).and_then(value_of);
    }
    f.ended = true;
    f.old_value.is_some().then_some(f)
}

// --- Dependencies and conditionals over a sentence ---------------------------------------------

/// What a sentence says a value depends on: a holder ("Lucía", "Halden") and/or a slot ("a new PO").
fn dependency(sentence: &str) -> (Option<String>, Option<String>) {
    let sp = Span::new(sentence);
    let mut holder = None;
    for c in clauses(sentence) {
        let cs = Span::new(strip_lead(c));
        if let Some((at, _)) = first_of(&cs, DEP_ACTIVE, 1) {
            let no_verb = |s: &&str| !s.contains(',') && !words(s).iter().any(|w| ["was", "were", "is", "are", "been", "be", "got", "'s"].contains(&w.as_str()));
            if let Some(s) = np_subject(cs.slice(0, at)).filter(no_verb) {
                if is_name(s) || s.to_ascii_lowercase().starts_with("my ") || s.to_ascii_lowercase().starts_with("our ") {
                    holder = Some(s.to_string());
                    break;
                }
            }
        }
    }
    if holder.is_none() {
        if let Some((_, end)) = first_of(&sp, &["since", "because", "as"], 0) {
            let rest = Span::new(sp.slice(end, sp.text.len()));
            let cause: Vec<&str> = DEP_CAUSE.iter().chain(DEP_ACTIVE).copied().collect();
            if let Some((at, _)) = first_of(&rest, &cause, 1) {
                holder = np_subject(rest.slice(0, at)).map(str::to_string);
            }
        }
    }
    if holder.is_none() {
        for p in DEP_PASSIVE {
            for by in ["by", "with", "through"] {
                if let Some(at) = sp.find(&format!("{p} {by}"), 0) {
                    let rest = sp.slice(at + p.len() + by.len() + 1, sp.text.len());
                    holder = value_of(cut_at_prep(rest.split([';', '—']).next().unwrap_or(rest)));
                }
            }
        }
    }
    if holder.is_none() {
        if let Some((_, end)) = first_of(&sp, DEP_FOLLOW, 1) {
            let rest = sp.slice(end, sp.text.len());
            holder = value_of(rest.split([';', '—', ',']).next().unwrap_or(rest)).map(|h| h.trim_end_matches("'s").to_string());
            if let Some(h) = &holder {
                holder = Some(h.split("'s ").next().unwrap_or(h).to_string());
            }
        }
    }
    // "a new PO could …", "another provider means …", "with a different insurer".
    let mut slot = None;
    if let Some((_, end)) = first_of(&sp, &["a new", "a different", "another", "any other", "some other"], 0) {
        let rest = &sp.lower[end..];
        let stop = [" would", " could", " might", " will", " means", " mean", " may", ",", "'d", " i'd", " it'd", " would've"]
            .iter()
            .filter_map(|s| rest.find(s))
            .min()
            .unwrap_or(rest.len());
        let phrase = sp.slice(end, end + stop);
        if !phrase.is_empty() && phrase.split_whitespace().count() <= 4 {
            slot = Some(phrase.to_string());
        }
    } else if sp.find("someone new", 0).is_some() || sp.find("somebody new", 0).is_some() {
        slot = None;
        holder = holder.or(None);
    }
    (holder, slot)
}

/// The last name a sentence gives before `value` (the party a "their …" refers back to).
fn other_party(sentence: &str, value: &str) -> Option<String> {
    let at = sentence.find(value)?;
    value_spans(&sentence[..at])
        .into_iter()
        .filter(|s| s.kind == SpanKind::Name && !s.opens_sentence_alone())
        .max_by_key(|s| s.at)
        .map(|s| s.text.trim_end_matches("'s").to_string())
}

/// The value a conditional sentence says would follow ("… then it would be their technician Dana
/// Kruse"): what a turn states for a change before it happens.
pub(crate) fn conditional_consequent(sentence: &str) -> Option<String> {
    conditional(sentence).map(|(_, consequent, _)| consequent)
}

/// The condition's own words ("Noor ever went to Brookhollow Academy"), when a sentence is a
/// conditional: what an earlier turn said would change.
pub(super) fn conditional_upstream(sentence: &str) -> Option<String> {
    conditional(sentence).map(|(upstream, _, _)| upstream)
}

/// Words that open a sentence supposing rather than stating: what follows is what would be.
const SUPPOSING: &[&str] = &["if", "unless", "suppose", "supposing"];

/// Whether `sentence` supposes rather than states: a conditional with its consequent, or one that
/// opens with a condition however the rest is joined ("if we ever left Maplewood she'd board at
/// Barkwell Inn" has no comma before what would follow). Nothing in it is true now.
pub(super) fn supposes(sentence: &str) -> bool {
    opens_supposing(sentence) || conditional(sentence).is_some()
}

/// Whether `sentence` (or a clause) opens with a word of supposing.
fn opens_supposing(sentence: &str) -> bool {
    SUPPOSING.contains(&first_word(sentence).as_str())
}

/// A conditional: the upstream phrase and the consequent ("if we leave Nimbara, backups move to
/// Vaultline" → ("Nimbara", "Vaultline")).
fn conditional(sentence: &str) -> Option<(String, String, String)> {
    let sp = Span::new(sentence);
    let (cat, cend) = first_of(&sp, &["if", "with a different", "with a new", "with another", "should", "in case", "were", "otherwise"], 0)?;
    let _ = cat;
    let rest = &sp.lower[cend..];
    let markers = [
        " would be ",
        "'d be ",
        " will be ",
        " would become ",
        " becomes ",
        " moves to ",
        " move to ",
        " goes to ",
        " go to ",
        " switches to ",
        " changes to ",
        " would ",
        "'d ",
        " will ",
    ];
    // A bare ", then" (notation: "if X ever goes, then Y") only when no verb of becoming is said.
    let (mat, mlen) = markers.iter().filter_map(|m| rest.find(m).map(|i| (i, m.len()))).min_by_key(|x| x.0).or_else(|| rest.find(", then ").map(|i| (i, ", then ".len())))?;
    let head = sp.slice(cend, cend + mat);
    // The upstream phrase: the condition without its subject and verb ("I ever switch insurers").
    let (cond, subject) = match head.rfind(',') {
        Some(i) => (&head[..i], head[i + 1..].trim()),
        None => (head, ""),
    };
    let cond_words: Vec<&str> = cond
        .split_whitespace()
        .filter(|w| {
            let l = w.to_ascii_lowercase();
            ![
                "i", "we", "ever", "switch", "change", "changes", "changed", "leave", "left", "move", "moved", "get", "got", "have", "had", "drop", "lose", "hire", "pick", "were",
                "to", "the", "my", "our", "a", "an", "one", "day", "someday", "go", "away", "from", "stop", "using", "quit",
            ]
            .contains(&l.as_str())
        })
        .collect();
    let upstream = cond_words.join(" ");
    let after = sp.slice(cend + mat + mlen, sp.text.len());
    let bare = [" would ", "'d ", " will "].iter().any(|m| m.len() == mlen && rest[mat..].starts_with(m));
    let verb_skipped = if bare {
        // "would host them" / "would assign someone new": skip the verb (and a preposition).
        let asp = Span::new(after);
        let w = words(after);
        let v = w.first().cloned().unwrap_or_default();
        let (_, r) = after_prep(&asp, v.len());
        r
    } else {
        after
    };
    let consequent = if is_pronoun_phrase(verb_skipped.split(',').next().unwrap_or("")) || ["someone", "something", "another"].contains(&first_word(verb_skipped).as_str()) {
        // "Marcus Webb would host them": the consequent is the clause's subject.
        let s = strip_lead(subject);
        (!s.is_empty() && is_name(s)).then(|| s.to_string())?
    } else {
        value_of(verb_skipped)?
    };
    if upstream.trim().is_empty() || is_pronoun_phrase(&consequent) {
        return None;
    }
    Some((upstream, consequent, strip_lead(subject).to_string()))
}

// --- Retraction and verbatim -------------------------------------------------------------------

/// An imperative to forget, aimed at what is kept: the phrase naming what to forget (may be a
/// pronoun, then the rest of the sentence is the referent).
fn retraction(sentence: &str) -> Option<(String, String)> {
    let sp = Span::new(sentence);
    let strong = [
        "forget",
        "scratch",
        "erase",
        "wipe",
        "unlearn",
        "stop remembering",
        "don't remember",
        "do not remember",
        "don't keep",
        "do not keep",
        "don't store",
        "do not store",
        "don't save",
        "do not save",
        "no need to remember",
        "strike",
    ];
    let weak = ["delete", "remove", "drop", "discard", "purge", "get rid of", "clear"];
    let memory_words =
        ["memory", "memories", "stored", "store", "remember", "record", "records", "notes", "shared", "mentioned", "told you", "gave you", "pasted", "saved", "kept"];
    let (at, end, is_strong) =
        [first_of(&sp, &strong, 0).map(|(a, e)| (a, e, true)), first_of(&sp, &weak, 0).map(|(a, e)| (a, e, false))].into_iter().flatten().min_by_key(|x| x.0)?;
    // A statement about oneself ("I always forget my keys") is not a request.
    let before: Vec<String> = words(&sp.text[..at]);
    let tail: Vec<&str> = before.iter().rev().take(3).map(String::as_str).collect();
    let imperative_lead = tail.is_empty()
        || tail.first().is_some_and(|w| ["please", "just", "and", "so", "also", "then", "kindly", "pls", "can", "could", "would", "should", "must", "to", "ahead"].contains(w))
        || (tail.first() == Some(&"you") && tail.get(1).is_some_and(|w| ["can", "could", "should", "please", "would", "must"].contains(w)))
        || sp.text[..at].trim_end().ends_with([',', ':', '—', '-', ';']);
    if !imperative_lead
        || tail.iter().take(2).any(|w| ["i", "we", "he", "she", "they", "i'll", "i'd", "we'll", "never", "not", "don't"].contains(w)) && !sp.lower[at..].starts_with("don't")
    {
        return None;
    }
    let mut object = sp.slice(end, sp.text.len()).trim_end_matches(['?', '.', '!']);
    for lead in ["what i said about", "what i told you about", "what i mentioned about", "what you know about", "everything about", "anything about", "what i said regarding"] {
        if object.get(..lead.len()).is_some_and(|h| h.eq_ignore_ascii_case(lead)) {
            object = object[lead.len()..].trim_start();
        }
    }
    let ow = words(object);
    let aimed = ow.first().is_some_and(|w| ["it", "that", "this", "them", "my", "our", "the", "about", "those", "these", "everything"].contains(&w.as_str()));
    let aimed = aimed || object.len() < sp.slice(end, sp.text.len()).trim_end_matches(['?', '.', '!']).len();
    if !is_strong && !(aimed && (memory_words.iter().any(|m| find_word(&sp.lower, m, 0).is_some()) || ow.first().is_some_and(|w| ["it", "that", "this"].contains(&w.as_str())))) {
        return None;
    }
    if is_strong && !aimed && !ow.is_empty() && !sp.text[..at].trim().is_empty() && !sp.text[..at].trim_end().ends_with([',', ':', '—', '-', ';']) {
        return None;
    }
    let object = object.trim_start_matches(|c: char| c == ',' || c.is_whitespace());
    let object = object.strip_prefix("about ").unwrap_or(object);
    let object = object.split([',', ';', '—', '-']).next().unwrap_or(object);
    let object = ["from your memory", "from memory", "from your notes", "please", "for good", "entirely", "completely"].iter().fold(object.to_string(), |o, s| {
        let l = o.to_ascii_lowercase();
        match l.find(s) {
            Some(i) => o[..i].to_string(),
            None => o,
        }
    });
    let referent = format!("{} {}", &sp.text[..at], sp.text.get(end..).unwrap_or(""));
    Some((object.trim().to_string(), referent))
}

/// A relative clause after a slot ("the PIN hint I gave you") is not part of it.
fn strip_relative(s: &str) -> &str {
    let lower = s.to_ascii_lowercase();
    let cut = [" i gave", " i mentioned", " i told", " i pasted", " i shared", " i said", " i sent", " that i", " which i", " you have", " you saved", " you stored"]
        .iter()
        .filter_map(|m| lower.find(m))
        .min()
        .unwrap_or(s.len());
    s[..cut].trim()
}

/// Whether a turn asks for something to be kept exactly ("remember this exactly: …", "save exact
/// pls, `…`"): a keep marker, and a phrase set apart by a line break, quotes or backticks.
pub fn asks_to_keep_verbatim(text: &str) -> bool {
    let lower = text.to_lowercase();
    let w = words(&lower);
    let marked = VERBATIM_MARKERS.iter().any(|m| find_word(&lower, m, 0).is_some())
        || w.windows(2).any(|p| ["keep", "save", "store", "copy", "note"].contains(&p[0].as_str()) && p[1] == "exact");
    marked && (text.trim().contains('\n') || text.contains('`') || text.contains('"') || text.contains('“'))
}

/// A keep-exactly request with its phrase: `(slot phrase, phrase, byte range consumed)`.
fn verbatim(text: &str) -> Option<(String, String, std::ops::Range<usize>)> {
    let sp = Span::new(text);
    let base = text.len() - text.trim_start().len();
    let (mat, mend) = first_of(&sp, VERBATIM_MARKERS, 0)?;
    let sent_start = sp.text[..mat].rfind(['.', '!', '?', '\n']).map_or(0, |i| i + 1);
    let line_end = sp.text[mend..].find('\n').map_or(sp.text.len(), |i| mend + i);
    // The phrase: after a colon close behind the marker, in quotes, or after a colon before it.
    // The outermost quoted phrase: the pair that opens first (a backticked line may hold quotes).
    let quoted = |s: &str, off: usize| -> Option<(usize, usize)> {
        [('"', '"'), ('“', '”'), ('`', '`')]
            .into_iter()
            .filter_map(|(open, close)| {
                let a = s.find(open)?;
                let b = s[a + open.len_utf8()..].find(close)?;
                Some((off + a + open.len_utf8(), off + a + open.len_utf8() + b))
            })
            .min_by_key(|(a, b)| (*a, std::cmp::Reverse(*b)))
    };
    let (phrase, consumed_end, slot_text) = if let Some(colon) = sp.text[mend..line_end].find(':').filter(|&c| c <= 40) {
        let start = mend + colon + 1;
        let after = &sp.text[start..];
        // A quoted phrase after the colon ends at its closing quote, even over line breaks.
        match quoted(after, start) {
            Some((a, b)) if sp.text[start..a].trim_matches(['"', '“', '`', ' ', '\n']).is_empty() => {
                (sp.text[a..b].to_string(), b + sp.text[b..].chars().next().map_or(0, char::len_utf8), sp.text[sent_start..mat].to_string())
            }
            _ => (sp.text[start..line_end].trim().to_string(), line_end, sp.text[sent_start..mat].to_string()),
        }
    } else if let Some((a, b)) = quoted(&sp.text[sent_start..line_end], sent_start) {
        (sp.text[a..b].to_string(), line_end.min(sp.text[mend..].find(['.', '!', '?']).map_or(line_end, |i| mend + i)).max(b), sp.text[sent_start..a].to_string())
    } else if let Some(colon) = sp.text[sent_start..mat].find(':') {
        let p = sp.text[sent_start + colon + 1..mat].trim().trim_end_matches(|c: char| c == ',' || c.is_whitespace());
        let p = p.rsplit_once(", ").map_or(p, |(a, b)| if words(b).iter().any(|w| ["keep", "save", "store", "remember", "note"].contains(&w.as_str())) { a } else { p });
        (p.to_string(), mend, sp.text[sent_start..sent_start + colon].to_string())
    } else {
        return None;
    };
    let phrase: String = phrase.trim().trim_end_matches(['.']).chars().take(500).collect();
    if phrase.is_empty() {
        return None;
    }
    // The slot: the sentence before the marker without the keep request ("Here's X, keep it").
    let mut s = slot_text.split(',').next().unwrap_or("").trim().to_string();
    let lower = s.to_ascii_lowercase();
    for lead in ["here's", "here is", "keep", "save", "remember", "store", "note", "record", "please", "this is", "that's"] {
        if lower.starts_with(lead) {
            s = s[lead.len()..].trim().to_string();
            break;
        }
    }
    let cut = [" keeps ", " is ", " are ", " was ", " has ", " came ", " showed ", " shows ", " that ", " which ", " i ", " we ", " keep ", " please"]
        .iter()
        .filter_map(|m| s.to_ascii_lowercase().find(m))
        .min()
        .unwrap_or(s.len());
    s.truncate(cut);
    if slot::slot_words(&s).is_empty() {
        // "Save "X" verbatim, it's my recovery phrase" / "exactly: the door code is X".
        let after = &sp.text[mend..sp.text[mend..].find(['.', '!', '?', '\n']).map_or(sp.text.len(), |i| mend + i)];
        let al = after.to_ascii_lowercase();
        if let Some(i) = ["it's ", "it is ", "that's ", "that is ", "this is "].iter().filter_map(|m| al.find(m).map(|i| i + m.len())).min() {
            s = cut_at_prep(&after[i..]).to_string();
        } else if let Some(i) = phrase.to_ascii_lowercase().find(" is ").filter(|&i| words(&phrase[..i]).len() <= 4) {
            s = phrase[..i].to_string();
        }
    }
    Some((s.trim().to_string(), phrase, base + sent_start..base + consumed_end))
}

// --- The turn: find, then resolve ---------------------------------------------------------------

fn normalize_quotes(s: &str) -> String {
    s.replace(['’', '‘'], "'")
}

/// Everything the rules author from one user turn.
pub(super) fn turn(turn: &Turn, known: &[KnownThread], history: &[PastTurn]) -> Vec<Authored> {
    let text = normalize_quotes(turn.text);
    let mut found: Vec<(Found, String)> = Vec::new();
    let mut rest = text.clone();
    if let Some((slot, phrase, range)) = verbatim(&text) {
        let mut f = Found::new("verbatim", 0.88);
        f.owner = owner_of(text.get(range.clone()).unwrap_or(""));
        f.slot = (!slot.is_empty()).then_some(slot);
        f.signature = Some(phrase);
        if f.slot.is_none() {
            f.evidence.doubt(0.2, "no slot named for the verbatim phrase");
        }
        found.push((f, text.get(range.clone()).unwrap_or("").to_string()));
        rest = format!("{} {}", text.get(..range.start).unwrap_or(""), text.get(range.end..).unwrap_or(""));
    }
    // Arrows are read as what they stand for; a kept verbatim phrase was taken out before.
    let rest = spell_out_arrows(&rest);
    let mut previous: Option<&str> = None;
    // A request to keep that named its object and no value ("can you hang on to the deploy token
    // for me?"): the next sentence may be the value alone.
    let mut awaited: Option<String> = None;
    // The user's turns before this one, newest first, where "his / her" may find its person
    // (`antecedent` weighs the last three).
    let earlier: Vec<&str> = history.iter().rev().take(3).map(|h| h.text).collect();
    let (mut marked, mut last_at) = (0usize, 0usize);
    for sentence in sentences(&rest) {
        let before = previous.replace(sentence);
        for (f, _) in found[marked..].iter_mut() {
            f.at = last_at;
        }
        marked = found.len();
        last_at = (sentence.as_ptr() as usize).saturating_sub(rest.as_ptr() as usize);
        if words(sentence).len() > 45 {
            continue;
        }
        let scores = intent::model().map(|m| Scores(m.predict(&intent::features(sentence, &hits(sentence), known))));
        let stated = |s: &str| clauses(s).into_iter().find_map(|c| value_clause(c).and_then(|f| f.value));
        // "X is Y. Please delete that": the statement just made is the referent (read below).
        let points_back = retraction(sentence).is_some_and(|(obj, _)| is_pronoun_phrase(strip_relative(&obj))) && found.iter().any(|(p, _)| p.value.is_some() && !p.retraction);
        let request = if points_back { None } else { forget::request(sentence, before, None, known, history, &stated) };
        if let Some(req) = request.filter(|r| r.on_known || !r.forget.is_empty()) {
            let mut f = Found::new("retraction", if req.cue == "weak" { 0.7 } else { 0.8 });
            f.retraction = true;
            f.owner = owner_of(sentence);
            f.slot = Some(req.referent.clone()).filter(|r| !slot::slot_words(r).is_empty());
            f.fixed_thread = req.thread.clone();
            f.forget = req.forget.clone();
            for d in req.doubts {
                f.evidence.doubt(0.1, d);
            }
            found.push((f, sentence.to_string()));
            continue;
        }
        if let Some((object, referent)) = retraction(sentence) {
            let mut f = Found::new("retraction", 0.8);
            f.retraction = true;
            f.owner = owner_of(sentence);
            let obj = strip_relative(&object).to_string();
            // "don't keep it anymore": words that name nothing leave the referent to be found.
            let names_nothing = slot::slot_words(&obj).iter().all(|w| ["anymore", "around", "please", "pls", "now", "again", "either", "too", "thanks"].contains(&w.as_str()));
            f.slot = (!is_pronoun_phrase(&obj) && !names_nothing).then_some(obj);
            // A value named beside the slot ("the build box IP, 10.4.7.19") is scrubbed too.
            for part in referent.split([',', ':', '—', ';']).skip(1) {
                let p = part.trim();
                if !p.is_empty()
                    && words(p).len() <= 6
                    && retraction(p).is_none()
                    && !p.to_ascii_lowercase().starts_with("i ")
                    && p.chars().any(|c| c.is_uppercase() || c.is_ascii_digit())
                {
                    f.forget.push(p.trim_end_matches(['.', '!']).to_string());
                }
            }
            // "The door code is 7741, please forget it": the statement names the slot, and its
            // value is to be scrubbed, never kept in the retraction's own words.
            let before_cue = referent.split([',', ':', '—', ';']).next().unwrap_or("");
            if let Some(stated) = value_clause(before_cue).filter(|s| s.slot.is_some() && s.value.is_some()) {
                if f.slot.is_none() {
                    f.slot = stated.slot.clone();
                }
                f.forget.extend(stated.value);
            }
            if f.slot.is_none() {
                let r = strip_relative(referent.split([',', ':', '—']).next().unwrap_or(&referent)).to_string();
                let named = words(&r).iter().any(|w| {
                    ![
                        "please", "from", "your", "my", "memory", "memories", "notes", "just", "kindly", "and", "also", "now", "too", "that", "it", "this", "them", "actually",
                        "oh", "wait", "sorry", "ok", "okay", "hmm", "no", "on", "second", "thought",
                    ]
                    .contains(&w.as_str())
                });
                f.slot = (named && !is_pronoun_phrase(&r) && retraction(&r).is_none()).then_some(r);
            }
            if f.slot.is_none() && f.forget.is_empty() {
                // "X is Y. Please delete that": the statement just made is the referent, and is
                // not authored at all.
                if let Some(i) = found.iter().rposition(|(p, _)| p.value.is_some() && !p.retraction) {
                    let (prev, _) = found.remove(i);
                    f.slot = prev.slot.clone();
                    f.forget.extend(prev.value.clone());
                    f.evidence.doubt(0.1, "the referent is the statement before it");
                }
            }
            found.push((f, sentence.to_string()));
            continue;
        }
        if let Some(slot) = awaited.take() {
            if let Some(value) = bare_value(sentence) {
                let owner_words = slot.clone();
                found.push((Found::noted(&owner_words, slot, value, "the value followed a request to keep its slot"), sentence.to_string()));
                continue;
            }
        }
        // "…, jot that down for me?": the request is neither statement nor question; what it
        // asks to keep is read.
        let kept = keep::request(sentence);
        let sentence = match &kept {
            Some(k) if k.statement.chars().any(char::is_alphanumeric) => k.statement,
            Some(_) => continue,
            None => sentence,
        };
        // "…Priyanka Shah started Monday. her personal cell is X": the cell is Priyanka's.
        let said_before = rest.get(..(sentence.as_ptr() as usize).saturating_sub(rest.as_ptr() as usize)).unwrap_or("");
        let with_antecedent: String;
        // The person may have been named in this turn or in the user's turns before it.
        let resolved = antecedent::resolved(sentence, said_before, &earlier);
        let sentence: &str = match resolved {
            Some(r) => {
                with_antecedent = r;
                &with_antecedent
            }
            None => sentence,
        };
        // "dad (Anselm, 81) is at Birchwood Manor": the aside parts the subject from its verb.
        let without_aside = text::without_subject_aside(sentence);
        let sentence = without_aside.as_deref().unwrap_or(sentence);
        // "I get my flour from Hollins Mill — will that confuse people?": the statement before
        // the question is read.
        let sentence = statement_before_question(sentence).unwrap_or(sentence);
        let lower = sentence.to_ascii_lowercase();
        let first = first_word(sentence);
        if sentence.trim_end().ends_with('?') || WH_STARTS.contains(&first.as_str()) || REQUEST_STARTS.iter().any(|r| lower.starts_with(r)) {
            continue;
        }
        let hedged = HEDGES.iter().any(|h| find_word(&lower, h, 0).is_some());
        let start = found.len();
        let mut ended: Vec<Found> = Vec::new();
        let cond = conditional(sentence);
        // `supposes`, with the conditional already read.
        let supposing = cond.is_some() || opens_supposing(sentence);
        for c in clauses(sentence) {
            let cl = c.to_ascii_lowercase();
            // The conditional clause is read by `conditional`, not as a statement of its own.
            if supposing && opens_supposing(c) {
                continue;
            }
            if cond.is_some()
                && ["if ", "with a different", "with a new", "with another", "should ", "in case", "otherwise"]
                    .iter()
                    .any(|k| cl.trim_start().starts_with(k) || cl.contains(&format!(", {k}")) || cl.contains(&format!(" {k}")))
            {
                if let Some(idx) = ["if ", "with a different", "with a new", "with another"].iter().filter_map(|k| cl.find(k)).min().filter(|&i| i > 0) {
                    if let Some(f) = value_clause(&c[..idx]) {
                        found.push((f, sentence.to_string()));
                    }
                }
                continue;
            }
            // "if we ever left Maplewood …": the condition ends nothing.
            if let Some(f) = ended_clause(c).filter(|_| !supposing) {
                ended.push(f);
            } else if let Some(f) = person_clause(c, sentence, said_before, &earlier).or_else(|| value_clause(c)) {
                found.push((f, sentence.to_string()));
            }
        }
        // "Dropped A — B covers the car": the ended value names the thread of the new one.
        for e in ended {
            match found[start..].iter_mut().find(|(f, _)| f.value.is_some() && f.old_value.is_none()) {
                Some((f, _)) => {
                    f.old_value = e.old_value;
                    f.change = true;
                }
                None => found.push((e, sentence.to_string())),
            }
        }
        let (mut holder, mut up_slot) = dependency(sentence);
        // "Tarnow … they send their technician Piotr Wasik": the party the role is said of.
        if holder.is_none() && up_slot.is_none() {
            holder = found[start..].iter().find(|(f, _)| f.of_other_party).and_then(|(f, _)| other_party(sentence, f.value.as_deref()?));
        }
        // A holder named by its role ("my partner picked her") is the upstream slot itself.
        if up_slot.is_none() && holder.as_deref().is_some_and(|h| ["my ", "our ", "the "].iter().any(|p| h.to_ascii_lowercase().starts_with(p))) {
            up_slot = holder.clone();
        }
        // Attach to the statement of this sentence, or the previous one ("… it'd be C instead").
        let mut target = if found.len() > start { Some(start) } else { found.len().checked_sub(1).filter(|&i| found[i].0.value.is_some() && !found[i].0.retraction) };
        // What a condition says would follow replaces a value of its own form: "… Tuesdays at 8pm.
        // if we ever ended up at the Rattle Room it'd be Sunday afternoons" replaces the time, not
        // the room named before it. The nearest statement of the turn whose value can take the
        // consequent's place, or none (a consequent on the wrong slot would mark that slot as
        // depending on something it does not).
        if let Some((_, consequent, _)) = cond.as_ref() {
            // Only a name against a time or an amount is told apart: "S3" after "Buildkite's
            // cache" is a name with a digit, not an identifier.
            let fits = |f: &Found| {
                f.value.as_deref().is_none_or(|v| {
                    use form::Form::{Name, Quantity, Time};
                    !matches!((form::form_of(v), form::form_of(consequent)), (Name, Time | Quantity) | (Time | Quantity, Name))
                })
            };
            if target.is_some_and(|i| !fits(&found[i].0)) {
                target = (start..found.len()).chain((0..start).rev()).find(|&i| found[i].0.value.is_some() && !found[i].0.retraction && fits(&found[i].0));
            }
        }
        if target.is_none() {
            // "If the lead changes, the report recipient will be C": the slot's current value is
            // whatever the thread holds (filled in on resolve).
            if let Some((_, _, subject)) = cond.as_ref().filter(|c| np_subject(&c.2).is_some() && !is_name(&c.2)) {
                let mut f = Found::new("value", 0.65);
                f.slot = Some(subject.clone());
                f.owner = owner_of(subject);
                found.push((f, sentence.to_string()));
                target = Some(found.len() - 1);
            }
        }
        if let Some(i) = target {
            let f = &mut found[i].0;
            if let Some((upstream, consequent, _)) = cond.clone() {
                f.consequent = Some(consequent);
                f.upstream_slot = Some(upstream);
            }
            if holder.is_some() || up_slot.is_some() {
                f.upstream = holder.or(f.upstream.take());
                if f.upstream_slot.is_none() {
                    f.upstream_slot = up_slot;
                }
            }
            if hedged {
                f.evidence.doubt(0.25, "stated tentatively");
            }
        }
        for (f, _) in found[start..].iter_mut() {
            if hedged && target != Some(start) {
                f.evidence.doubt(0.25, "stated tentatively");
            }
        }
        // "Note our merchant ID somewhere, the job needs it: MID-77Q": the request named the slot.
        if let Some(object) = kept.as_ref().and_then(|k| k.object).filter(|_| found.len() == start) {
            let after = sentence.find(object).map_or(0, |at| at + object.len());
            let value = value_spans(&sentence[after..]).into_iter().filter(|v| matches!(v.kind, SpanKind::Code | SpanKind::Address | SpanKind::Quoted)).min_by_key(|v| v.at);
            match value {
                Some(v) => {
                    found.push((Found::noted(object, object.to_string(), v.text, "the value stood beside a request to keep its slot"), sentence.to_string()));
                }
                None => awaited = Some(object.to_string()),
            }
        }
        read_against_known(sentence, known, &mut found, start, scores);
    }
    for (f, _) in found[marked..].iter_mut() {
        f.at = last_at;
    }
    correct(&rest, &mut found, known);
    // A change told across sentences ("vendor review done. Everyone agreed on Beaconly. Pingfire's
    // contract ends Friday"): when no sentence stated a value, the turn as a whole names a kept
    // slot's value and exactly one new value of its form.
    // When other statements were read, the change must not restate one of them (their values and
    // threads are what the turn already said).
    // Nor may another statement of the turn hold the slot's current value: "Ana Lima is our
    // product owner at Fieldwise" affirms the kept value, it does not replace it by Fieldwise.
    let restates = |c: &frames::Change| {
        let current = known.iter().find(|k| k.thread == c.thread).and_then(|k| k.values.last()).map(|v| v.to_lowercase());
        found.iter().any(|(f, said)| {
            let v = f.value.as_deref().map(str::to_lowercase);
            let affirms = |cur: &str| v.as_deref().is_some_and(|v| v.contains(cur)) && !roots::ending_near(said, cur);
            f.retraction
                || f.fixed_thread.as_deref() == Some(c.thread.as_str())
                || v.as_deref().is_some_and(|v| v.contains(&c.value.to_lowercase()))
                || current.as_deref().is_some_and(affirms)
        })
    };
    if !sentences(&rest).iter().any(|s| supposes(s) || s.trim_end().ends_with('?')) {
        if let Some(c) = frames::change_by_mention(&rest, known).filter(|c| c.by_old_value && !restates(c)) {
            let mut f = Found::new("change", 0.55);
            f.change = true;
            f.value = Some(c.value.clone());
            f.fixed_thread = Some(c.thread.clone());
            f.evidence.doubt(0.1, "a new value told across the turn's sentences, beside the slot's earlier one");
            found.push((f, rest.clone()));
        }
    }
    let mut out = Vec::new();
    let mut known: Vec<KnownThread> = known.to_vec();
    for (f, sentence) in found {
        if let Some(a) = resolve(f, &sentence, turn, &known) {
            if let Some(t) = &a.thread {
                let next = known.iter().map(|k| k.order + 1).max().unwrap_or(0);
                match known.iter_mut().find(|k| k.thread == *t) {
                    Some(k) => {
                        k.values.extend(a.value.clone());
                        k.order = next;
                        k.dependent = a.depends_on.is_some();
                    }
                    None => known.push(KnownThread { thread: t.clone(), values: a.value.iter().cloned().collect(), order: next, dependent: a.depends_on.is_some() }),
                }
            }
            out.push(a);
        }
    }
    out
}

/// Words that may open a slot phrase without naming it.
const LEADING_DETERMINERS: &[&str] = &["a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "this", "that", "these", "those"];

/// The slot's words as said, without the determiners that open it ("the Car insurance" → "car
/// insurance"; "a string of pearls plant" keeps its "of": the label drops such words, the text
/// the answer quotes must not).
fn slot_text(slot: &str) -> String {
    let ws = words(slot);
    let start = ws.iter().position(|w| !LEADING_DETERMINERS.contains(&w.as_str())).unwrap_or(ws.len());
    ws[start..].iter().map(|w| w.strip_suffix("'s").unwrap_or(w)).collect::<Vec<_>>().join(" ")
}

/// A slot phrase opened by a person's name in the possessive ("Dario Mendez's end date"): the
/// name and the rest of the phrase.
fn named_possessor(slot: &str) -> Option<(&str, &str)> {
    let name = value_spans(slot).into_iter().find(|s| s.at == 0 && s.kind == SpanKind::Name)?;
    let end = slot.get(name.text.len()..)?;
    let rest = end.strip_prefix("'s ").or_else(|| end.strip_prefix("’s "))?;
    (!rest.trim().is_empty()).then(|| (&slot[..name.text.len()], rest.trim()))
}

fn thread_words(thread: &str) -> String {
    thread.rsplit('/').next().unwrap_or(thread).replace('-', " ")
}

fn owner_phrase(owner: Option<Owner>, speaker: Option<&str>) -> String {
    match (owner, speaker) {
        (Some(Owner::Team), _) => "The team's".into(),
        (_, Some(s)) => format!("{s}'s"),
        (Some(Owner::User), None) | (None, None) => "The user's".into(),
    }
}

/// Places a finding on a thread, scores it and writes its content.
fn resolve(mut f: Found, sentence: &str, turn: &Turn, known: &[KnownThread]) -> Option<Authored> {
    if f.event.is_some() {
        // An event has no slot to depend on or to change into.
        (f.upstream, f.upstream_slot, f.consequent) = (None, None, None);
    }
    let speaker_prefix = turn.speaker.filter(|_| f.owner != Some(Owner::Team));
    let mut thread: Option<String> = f.fixed_thread.clone();
    // 1. A repeated old value places a change on that value's thread.
    if let Some(old) = f.old_value.as_ref().filter(|_| thread.is_none()) {
        if let Some((k, score, _)) = thread_by_value(&old.to_lowercase(), known) {
            thread = Some(k.thread.clone());
            if score < 1.0 {
                f.evidence.doubt(0.05, "the earlier value was repeated in part");
            }
        }
    }
    // 2. A retraction: a value it repeats, then the slot it names.
    if f.retraction && thread.is_none() {
        let referent = f.forget.join(" ").to_lowercase();
        let by_value = f.forget.iter().chain(f.slot.iter()).find_map(|s| thread_by_value(&s.to_lowercase(), known)).or_else(|| thread_by_value(&referent, known));
        if let Some((k, _, _)) = by_value {
            thread = Some(k.thread.clone());
        }
    }
    // 3. The slot's words.
    if thread.is_none() {
        if let Some(s) = &f.slot {
            // A value of another form (a name where a time was) fills another slot, whatever
            // words the two share.
            let fits_form = |k: &KnownThread| match (k.values.last(), f.value.as_deref()) {
                (Some(old), Some(new)) => form::compatible(old, new),
                _ => true,
            };
            match best_thread(s, speaker_prefix, known).filter(|(k, _)| fits_form(k)) {
                Some((k, score)) if score >= 0.99 || f.change || f.retraction || score >= 0.66 => thread = Some(k.thread.clone()),
                Some((k, _)) if slot::slot_words(s).len() > 1 => {
                    // A partial match on a longer phrase: the same slot only if the head word matches.
                    let head = slot::slot_words(s).last().cloned().unwrap_or_default();
                    // A name among the other words is whose slot it is: "Sam employer" is not
                    // "partner-leonie-employer", however alike their heads.
                    let other_name = s.split_whitespace().filter(|w| w.starts_with(char::is_uppercase)).any(|w| !words(&k.thread).contains(&w.to_lowercase()));
                    if !other_name && best_thread(&head, speaker_prefix, std::slice::from_ref(k)).is_some() {
                        thread = Some(k.thread.clone());
                        f.evidence.doubt(0.1, "matched an earlier slot by its head word");
                    }
                }
                _ => {}
            }
        }
    }
    // 4. No slot: the value's kind word ("Aldergate Cloud" ~ "Nimbara Cloud").
    if thread.is_none() && f.slot.is_none() {
        if let Some(v) = &f.value {
            let vw = slot::slot_words(v);
            let head = vw.last().cloned().unwrap_or_default();
            let hit = known
                .iter()
                .filter(|k| k.values.iter().any(|kv| slot::slot_words(kv).last() == Some(&head)) || slot::slot_match(std::slice::from_ref(&head), &k.thread) >= 0.99)
                .max_by_key(|k| k.order);
            if let (Some(k), true) = (hit, head.chars().count() >= 3) {
                thread = Some(k.thread.clone());
                f.evidence.doubt(0.2, "placed on a thread by the kind of value only");
            }
        }
    }
    if thread.is_none() {
        thread = f.slot.as_deref().and_then(|s| thread_label(speaker_prefix, s));
        if f.change && f.rule != "verbatim" && f.old_value.is_some() {
            f.evidence.doubt(0.15, "the earlier value was not found on any thread");
        }
        if f.retraction {
            f.evidence.doubt(0.3, "no earlier value found on this thread");
        }
    }
    let thread = thread.filter(|t| slot::is_normalized(t));
    // A slot named "the user" or "the system" addresses Engram itself, not a fact of the user's.
    if f.slot.as_deref().is_some_and(|s| matches!(slot::slot_words(s).as_slice(), [w] if ["user", "assistant", "system", "ai", "bot", "model"].contains(&w.as_str()))) {
        return None;
    }
    // A slot phrase holding an interjection, an apology or a request ("ugh sorry", "please hang on
    // to that my inbox") is a sentence's opening mistaken for a noun phrase, not a slot.
    if !f.retraction && f.signature.is_none() && f.slot.as_deref().is_some_and(|s| words(s).iter().any(|w| DISCOURSE_WORDS.contains(&w.as_str()))) {
        return None;
    }
    let on_known = thread.as_ref().is_some_and(|t| known.iter().any(|k| k.thread == *t));
    // "Dario Mendez's end date": the named person owns the slot, in the words as well.
    let possessor = f.slot.as_deref().filter(|_| !on_known && f.owner != Some(Owner::Team)).and_then(named_possessor);
    let owner = possessor.map_or_else(|| owner_phrase(f.owner, turn.speaker), |(who, _)| format!("{who}'s"));
    let own_slot = possessor.map_or(f.slot.as_deref(), |(_, rest)| Some(rest));
    let slot_name =
        if on_known { None } else { own_slot.map(slot_text).filter(|s| !s.is_empty()) }.or_else(|| thread.as_deref().map(thread_words)).unwrap_or_else(|| "record".into());
    let area = slot::areas(&slot_name, None);
    let mut depends_on = None;
    if f.upstream.is_some() || f.upstream_slot.is_some() {
        let by_holder = f.upstream.as_deref().and_then(|h| thread_by_value(&h.to_lowercase(), known));
        let by_slot = f.upstream_slot.as_deref().and_then(|s| thread_by_value(&s.to_lowercase(), known).map(|(k, _, _)| (k, 1.0)).or_else(|| best_thread(s, None, known)));
        let own = f.value.as_deref().map(str::to_lowercase).unwrap_or_default();
        let rest_of_sentence = if own.is_empty() { sentence.to_lowercase() } else { sentence.to_lowercase().replace(&own, " ") };
        let by_mention = || thread_by_value(&rest_of_sentence, known).map(|(k, _, _)| k).filter(|k| !k.dependent);
        let up = by_holder.map(|(k, _, _)| k).or(by_slot.map(|(k, _)| k)).or_else(by_mention).filter(|k| Some(&k.thread) != thread.as_ref());
        match up {
            Some(k) => depends_on = Some(DependsOn { thread: k.thread.clone(), value: k.values.last().cloned() }),
            None => {
                let label = f.upstream_slot.as_deref().and_then(slot::label).filter(|l| Some(l) != thread.as_ref());
                // A holder named by a name no thread has yet: a root to be placed (`roots`).
                let holder_name = || f.upstream.as_deref().filter(|h| is_name(h)).and_then(slot::label).filter(|l| Some(l) != thread.as_ref());
                if let Some(l) = label {
                    depends_on = Some(DependsOn { thread: l, value: f.upstream.clone().filter(|h| Some(h) != f.upstream_slot.as_ref()) });
                    f.evidence.doubt(0.15, "the upstream slot was not seen before");
                } else if let Some(l) = holder_name() {
                    depends_on = Some(DependsOn { thread: l, value: None });
                    f.evidence.doubt(0.15, "the upstream was named but not seen before");
                } else {
                    f.evidence.doubt(0.2, "names something it depends on that could not be placed");
                }
            }
        }
    }
    if f.value.is_none() && f.consequent.is_some() && !f.retraction {
        f.value = thread.as_ref().and_then(|t| known.iter().find(|k| k.thread == *t)).and_then(|k| k.values.last().cloned());
        f.evidence.doubt(0.1, "the current value was taken from the thread");
    }
    if let Some(what) = &f.event {
        let who = match (f.owner, f.event_owned) {
            (Some(Owner::Team), false) => "The team".to_string(),
            (Some(Owner::Team), true) => "The team's".to_string(),
            (_, false) => turn.speaker.unwrap_or("The user").to_string(),
            (_, true) => format!("{}'s", turn.speaker.unwrap_or("The user")),
        };
        let what = format!(" {what}").replace(" my ", " their ").replace(" our ", " their ");
        let (confidence, doubts) = f.evidence.finish();
        return Some(Authored {
            content: format!("{who}{what}."),
            shape: Shape::Event,
            thread: None,
            value: None,
            corrects: None,
            depends_on: None,
            consequent: None,
            area: slot::areas(f.slot.as_deref().unwrap_or(""), None),
            signature: None,
            confidence,
            doubts,
            event_at: turn.date,
            derived_from: vec![turn.id.to_string()],
            rule: f.rule,
            forget: Vec::new(),
        })
        .filter(|a| !a.area.is_empty());
    }
    let (shape, content) = if f.retraction {
        (crate::model::Shape::Retraction, format!("{} asked to forget {} {}.", turn.speaker.unwrap_or("The user"), owner.to_lowercase().replace("the user's", "their"), slot_name))
    } else if let Some(sig) = &f.signature {
        (Shape::StableFact, format!("{owner} {slot_name}, kept word for word: {sig}"))
    } else if f.ended {
        let old = f.old_value.clone()?;
        thread.as_ref()?;
        (Shape::Event, format!("{old} is no longer the {} (stated without a replacement).", thread_words(thread.as_deref()?)))
    } else {
        let value = f.value.clone()?;
        // "The team's dashboards are …": a plural slot (a last word in -s, not -ss / -us / -is).
        let last = slot_name.rsplit(' ').next().unwrap_or("");
        let plural = last.ends_with('s') && !["ss", "us", "is"].iter().any(|e| last.ends_with(e)) && last.len() > 3;
        let verb = match (f.change, plural) {
            (true, true) => "are now",
            (true, false) => "is now",
            (false, true) => "are",
            (false, false) => "is",
        };
        match (&f.consequent, &depends_on) {
            (Some(c), _) => {
                let up = depends_on.as_ref().map_or_else(|| f.upstream_slot.clone().unwrap_or_default(), |d| thread_words(&d.thread));
                (Shape::ConditionalValue, format!("{owner} {slot_name} {verb} {value}; if the {up} changes, it becomes {c}."))
            }
            (None, Some(d)) => {
                let by = d.value.as_deref().map_or_else(|| thread_words(&d.thread), |v| format!("{} {v}", thread_words(&d.thread)));
                (Shape::ContingentValue, format!("{owner} {slot_name} {verb} {value} (set under {by})."))
            }
            (None, None) => (Shape::EvolvingAttribute, format!("{owner} {slot_name} {verb} {value}.")),
        }
    };
    if thread.is_none() && shape != Shape::StableFact {
        return None;
    }
    if let Some(v) = &f.value {
        if words(v).len() > 8 {
            f.evidence.doubt(0.15, "the value is long: it may carry more than the slot's value");
        }
    }
    let value = if f.retraction || f.signature.is_some() { None } else { f.value.clone() };
    let value = if shape == Shape::Event { None } else { value };
    let (confidence, doubts) = f.evidence.finish();
    let mut forget = f.forget;
    if f.retraction {
        // The retraction names no value of its own; the engine scrubs the thread's values.
        forget.retain(|v| v.chars().count() >= 3);
    }
    Some(Authored {
        content,
        shape,
        thread,
        value,
        corrects: f.corrects,
        depends_on,
        consequent: f.consequent,
        area,
        signature: f.signature,
        confidence,
        doubts,
        event_at: turn.date,
        derived_from: vec![turn.id.to_string()],
        rule: f.rule,
        forget,
    })
}

/// Words by which a statement gives its reason.
const CAUSE_CUES: &[&str] = &["because", "bc", "b/c", "cuz", "cause", "since", "due to", "thanks to", "that's why", "which is why", "that is why", "so that's"];

/// Where a (lower-cased) sentence first gives a reason.
fn cause_at(lower: &str) -> Option<usize> {
    CAUSE_CUES.iter().filter_map(|c| find_word(lower, c, 0)).min()
}

/// "ingestion uses the loam connector — we only run that one because it's Basaltic-native": a
/// value stated with a reason that names another thread's kept value depends on that thread. The
/// reason is what makes it contingent, so the statement must give one (a cue word) and name the
/// kept value after it; the statement's own thread is no upstream of itself.
fn explained_by_kept(sentence: &str, known: &[KnownThread], found: &mut [(Found, String)], start: usize) {
    let lower = sentence.to_ascii_lowercase();
    let Some(cue) = cause_at(&lower) else { return };
    // What the turn stated before this sentence is kept as much as what earlier turns did.
    let stated: Vec<KnownThread> = found[..start]
        .iter()
        .filter(|(f, _)| !f.retraction && f.upstream.is_none() && f.consequent.is_none())
        .filter_map(|(f, _)| Some(KnownThread { thread: slot::label(f.slot.as_deref()?)?, dependent: false, values: vec![f.value.clone()?], order: 0 }))
        .collect();
    let known: Vec<&KnownThread> = known.iter().chain(&stated).collect();
    for (f, _) in found[start..].iter_mut() {
        if f.retraction || f.change || f.upstream.is_some() || f.upstream_slot.is_some() || f.consequent.is_some() {
            continue;
        }
        if f.value.is_none() {
            continue;
        }
        let own = f.slot.as_deref().and_then(slot::label);
        // The reason is what follows the cue; a value named before it is what is explained.
        let reason = &lower[cue..];
        let held = known.iter().filter(|k| !k.dependent && own.as_deref() != Some(k.thread.as_str())).find_map(|k| {
            let v = k.values.last()?;
            let named = slot::mentions_value(reason, v).is_some_and(|s| s >= 0.7);
            named.then(|| v.clone())
        });
        if let Some(v) = held {
            f.upstream = Some(v);
            f.evidence.doubt(0.1, "read as depending on a kept value named as its reason");
        }
    }
}

/// A kept name given as a statement's reason ("since we're at Pinecrest we rent from Ossory
/// Paddle Co"): the kept value and the statement without its reason. A value named as a reason is
/// affirmed, so the sentence changes nothing on its thread; what it states depends on it.
fn reason_naming_kept<'s>(sentence: &'s str, known: &[KnownThread]) -> Option<(String, &'s str)> {
    let lower = sentence.to_ascii_lowercase();
    let cue = cause_at(&lower)?;
    let (value, mention) = known.iter().filter(|k| !k.dependent).find_map(|k| {
        let v = k.values.last()?;
        if form::form_of(v) != form::Form::Name {
            return None;
        }
        let first = words(v).into_iter().find(|w| w.len() >= 3)?;
        let at = find_word(&lower, &first, cue)?;
        Some((v.clone(), at + first.len()))
    })?;
    // A reason that ends its value ("since we left Pinecrest") is a change, read elsewhere.
    let reason = &lower[cue..mention];
    if roots::ends_any(&words(reason)) {
        return None;
    }
    // The reason opens the sentence (after a topic and its colon, if any): the statement follows it.
    let before = lower[..cue].trim();
    let opens = before.rsplit_once(':').map_or(before, |(_, after)| after).trim().is_empty();
    let main = if opens {
        let rest = sentence.get(mention..)?;
        let rest = rest.trim_start_matches(|c: char| c.is_alphanumeric() || c == '\'' || c == '’');
        rest.trim_start_matches([',', ' '])
    } else {
        sentence.get(..cue)?.trim_end().trim_end_matches([',', ';', '—', '-', ' ']).trim_end_matches(" only").trim_end_matches(" just")
    };
    (words(main).len() >= 2).then_some((value, main))
}

/// The frames read against kept threads (`frames`) over a sentence the patterns have read: a new
/// value for a slot the sentence names, or a value set by the holder of a kept one. The intent
/// model, where there is one, vetoes a sentence it reads as saying nothing to keep.
fn read_against_known(sentence: &str, known: &[KnownThread], found: &mut Vec<(Found, String)>, start: usize, scores: Option<Scores>) {
    if scores.is_some_and(|s| s.get(Intent::None) > 0.8) {
        return;
    }
    let here = |found: &[(Found, String)], v: &str| found[start..].iter().position(|(f, _)| f.value.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(v)));
    explained_by_kept(sentence, known, found, start);
    if let Some((kept, main)) = reason_naming_kept(sentence, known) {
        if found[start..].iter().all(|(f, _)| f.value.is_none()) {
            if let Some(mut f) = value_clause(main).filter(|f| f.value.is_some() && !f.retraction && f.event.is_none()) {
                f.upstream = Some(kept);
                f.evidence.doubt(0.1, "read as depending on a kept value named as its reason");
                found.push((f, sentence.to_string()));
            }
        }
        return;
    }
    if let Some(sb) = frames::set_by(sentence, known) {
        match here(found, &sb.value) {
            Some(i) => {
                let f = &mut found[start + i].0;
                if f.upstream.is_none() && f.upstream_slot.is_none() {
                    f.upstream = Some(sb.upstream_value.clone());
                }
            }
            None => {
                let mut f = Found::new("value", 0.62);
                f.owner = owner_of(sentence);
                f.slot = Some(sb.slot.clone());
                f.value = Some(sb.value.clone());
                f.upstream = Some(sb.upstream_value.clone());
                f.evidence.doubt(0.05, "read as a value set by the holder of a kept one");
                found.push((f, sentence.to_string()));
            }
        }
        return;
    }
    // A conditional states what would be, not what is now.
    if supposes(sentence) {
        return;
    }
    if let Some(c) = frames::change_by_mention(sentence, known) {
        // A value the patterns gave a slot of its own, or a dependency, is another slot's: leave it.
        let label: Vec<String> = c.thread.rsplit('/').next().unwrap_or(&c.thread).split('-').map(str::to_string).collect();
        let own_slot = |f: &Found| f.slot.as_deref().is_some_and(|s| !slot::slot_words(s).iter().any(|w| label.contains(w)));
        match here(found, &c.value) {
            Some(i) if own_slot(&found[start + i].0) || found[start + i].0.upstream.is_some() || found[start + i].0.upstream_slot.is_some() => {}
            Some(i) => {
                let f = &mut found[start + i].0;
                f.fixed_thread = Some(c.thread.clone());
                f.change = true;
            }
            None if found[start..].iter().all(|(f, _)| f.value.is_none() || f.ended) && dependency(sentence) == (None, None) => {
                let mut f = Found::new("change", if c.by_old_value { 0.66 } else { 0.6 });
                f.change = true;
                f.value = Some(c.value.clone());
                f.fixed_thread = Some(c.thread.clone());
                f.evidence.doubt(0.05, if c.by_old_value { "a new value beside the slot's earlier one" } else { "a new value beside the slot's name" });
                // An ended value in the same sentence is this change's old value, not an event.
                let mut i = start;
                while i < found.len() {
                    if found[i].0.ended {
                        found.remove(i);
                    } else {
                        i += 1;
                    }
                }
                found.push((f, sentence.to_string()));
            }
            None => {}
        }
    }
}

/// "Beepwise — actually no, I misspoke, paging is on Sirenhub": the value stated last before a
/// correction is withdrawn; a value stated after it takes its slot, or, when none is read, the first
/// value after the cue replaces it in place.
/// With no value before the cue in this turn, what it withdraws was said in an earlier one
/// (`correct_earlier`).
fn correct(text: &str, found: &mut Vec<(Found, String)>, known: &[KnownThread]) {
    let Some(cue_end) = frames::correction_at(text) else { return };
    let cue_start = text[..cue_end].rfind(|c: char| c.is_whitespace() || matches!(c, ',' | '—' | '-' | '.')).unwrap_or(0);
    // Where each statement's value stands: statements of one sentence share its start, and the
    // cue may stand between them ("… is August 29 — I misspoke, it's September 5").
    let value_at = |f: &Found| f.value.as_deref().map(|v| text.get(f.at..).and_then(|rest| rest.find(v)).map_or(f.at, |p| f.at + p));
    let Some(pre) = found.iter().rposition(|(f, _)| value_at(f).is_some_and(|at| at <= cue_start) && !f.retraction && f.signature.is_none()) else {
        correct_earlier(text, cue_end, found, known);
        return;
    };
    let post = found.iter().enumerate().skip(pre + 1).find(|(_, (f, _))| value_at(f).is_some_and(|at| at > cue_start) && !f.retraction).map(|(i, _)| i);
    match post {
        Some(i) => {
            let (withdrawn, _) = found.remove(pre);
            let f = &mut found[i - 1].0;
            if f.fixed_thread.is_none() && withdrawn.fixed_thread.is_some() {
                f.fixed_thread = withdrawn.fixed_thread;
            } else if f.fixed_thread.is_none() {
                f.slot = withdrawn.slot.or(f.slot.take());
            }
            f.evidence.doubt(0.05, "a correction of the value stated before it");
        }
        None => {
            let old = found[pre].0.value.clone().unwrap_or_default();
            let after = text.get(cue_end..).unwrap_or("");
            let fresh = super::spans::value_spans(after).into_iter().find(|s| s.kind != super::spans::SpanKind::Quoted && !old.contains(&s.text));
            match fresh {
                Some(v) => {
                    let f = &mut found[pre].0;
                    f.value = Some(v.text);
                    f.evidence.doubt(0.1, "the value after a correction replaces the one before it");
                }
                None => {
                    found.remove(pre);
                }
            }
        }
    }
}

/// How many of the most recently set threads a correction in a later turn may reach back to: a
/// correction is about what was just said.
const CORRECTION_REACH: usize = 3;

/// "Sorry, I typed that wrong — it's the 14th": a correction whose turn says no value of the
/// corrected form before it withdraws a value an earlier turn set. The first value after the cue
/// replaces the current value of the most recently set thread whose value has its form, when that
/// thread is among the last few set; a value the turn already gave another kept thread is left
/// there. Anything less certain changes nothing.
fn correct_earlier(text: &str, cue_end: usize, found: &mut Vec<(Found, String)>, known: &[KnownThread]) {
    let after = text.get(cue_end..).unwrap_or("");
    let Some(fresh) = value_spans(after).into_iter().find(|s| s.kind != SpanKind::Quoted) else { return };
    // "we're on 7.3.0-rc2 — no wait, 7.3.0-rc4": the withdrawn value is this turn's, though no
    // statement of it was read; an earlier thread is not what it corrects.
    let before = text.get(..cue_end).unwrap_or("");
    if value_spans(before).iter().any(|s| s.kind != SpanKind::Quoted && frames::same_form(&fresh.text, s)) {
        return;
    }
    let newest = known.iter().map(|k| k.order).max().unwrap_or(0);
    let target = known
        .iter()
        .filter(|k| !k.dependent && k.order + CORRECTION_REACH > newest)
        .filter(|k| k.values.last().is_some_and(|v| !v.eq_ignore_ascii_case(&fresh.text) && frames::same_form(v, &fresh)))
        .max_by_key(|k| k.order);
    let Some(target) = target else { return };
    let same_value = |f: &Found| f.value.as_deref().is_some_and(|v| v.eq_ignore_ascii_case(&fresh.text));
    if found.iter().any(|(f, _)| same_value(f) && f.fixed_thread.as_deref().is_some_and(|t| t != target.thread)) {
        return;
    }
    found.retain(|(f, _)| !same_value(f));
    let mut f = Found::new("change", 0.6);
    f.change = true;
    f.value = Some(fresh.text);
    f.fixed_thread = Some(target.thread.clone());
    // The withdrawn value is marked as never held only when the turn says which slot it corrects,
    // by its name or by the mistaken value: a correction placed by the value's form alone may have
    // reached the wrong thread, whose history then stays whole.
    let lower = text.to_lowercase();
    let mistaken = target.values.last().cloned();
    let named = slot::slot_words(&thread_words(&target.thread)).iter().any(|w| w.len() >= 3 && find_word(&lower, w, 0).is_some());
    f.corrects = mistaken.filter(|old| named || slot::names_value(text, old));
    f.evidence.doubt(0.1, "a correction of the value an earlier turn set, read as that slot's");
    found.push((f, text.to_string()));
}

/// Which patterns match a sentence, as features for the intent model (`intent`).
pub(super) fn hits(sentence: &str) -> super::intent::RuleHits {
    let text = normalize_quotes(sentence);
    let s = text.as_str();
    let lower = s.to_ascii_lowercase();
    let first = first_word(s);
    let mut h = super::intent::RuleHits {
        retraction: retraction(s).is_some(),
        verbatim: verbatim(s).is_some(),
        conditional: conditional(s).is_some(),
        question: s.trim_end().ends_with('?') || WH_STARTS.contains(&first.as_str()),
        request: REQUEST_STARTS.iter().any(|r| lower.starts_with(r)),
        hedged: HEDGES.iter().any(|h| find_word(&lower, h, 0).is_some()),
        ..Default::default()
    };
    let (holder, up) = dependency(s);
    h.dependency = holder.is_some() || up.is_some();
    for c in clauses(s) {
        if ended_clause(c).is_some() {
            h.ended = true;
        } else if let Some(f) = value_clause(c) {
            match (f.rule, f.change, f.event.is_some()) {
                (_, _, true) => h.event = true,
                ("change", _, _) | (_, true, _) => h.change = true,
                _ => h.value = true,
            }
        }
    }
    h
}

#[cfg(test)]
mod slot_text_tests {
    use super::slot_text;

    #[test]
    fn a_slot_keeps_its_words_as_said_but_not_its_determiners() {
        assert_eq!(slot_text("a string of pearls plant"), "string of pearls plant");
        assert_eq!(slot_text("the Car insurance"), "car insurance");
        assert_eq!(slot_text("my sister's bakery"), "sister bakery");
        assert_eq!(slot_text("Bank of Scotland account"), "bank of scotland account");
        assert_eq!(slot_text("the"), "");
    }
}
