//! How the user (or someone of theirs) stands to a named party, with any verb: "I swim at Marlin
//! Pool & Spa most mornings", "our team uses Slack for chat", "my daughter takes violin lessons
//! with Ms. Hartley", "Dad does his physio at Kingsbridge Hospital", "Car insurance: Geico".
//!
//! The other value rules read a closed set of frames ("X is Y", "we use Y for X", "I bank with
//! Y"); a person says the same with whatever verb fits the thing. This frame reads the shape
//! instead of the verb: an owner as the subject, one name in the predicate (the object of a
//! preposition when there are several), and the slot named by what the clause says besides the
//! name: the noun after `for` / `as` when there is one, else the subject's own noun and the
//! predicate's content words ("son swimming lessons", "swim", "stream music").
//!
//! A terse note without a subject ("Storage unit at Public Storage", "Gym's Equinox") is read the
//! same way, its opening noun phrase the slot (`headless`).
//!
//! It reads only present, plain statements: a question, a hedge, a plan, a negation or a past
//! event ("we moved to Portland") is left to the rules that read those. It is the last value
//! rule tried, so every frame that names its slot outright wins over it.

use super::spans::{value_spans, SpanKind, ValueSpan};
use super::text::{words, Span};
use crate::evolve::pick::{MONTHS, WEEKDAYS};

/// A relation read from one clause.
#[derive(Clone, Debug, PartialEq)]
pub struct Relation {
    pub slot: String,
    pub value: String,
    /// The subject is `we` / `our …` (the team's), not `I` / `my …`.
    pub team: bool,
}

/// Subjects that speak of the user's own side.
const USER_SUBJECTS: &[&str] = &["i", "i'm", "im", "i've", "my"];
const TEAM_SUBJECTS: &[&str] = &["we", "we're", "we've", "our"];
/// Family members named without a possessive ("Dad does his physio at …").
const KIN: &[&str] = &["dad", "mom", "mum", "mother", "father", "grandma", "grandpa", "granny", "nan", "kids"];
/// Subject nouns that only say whose it is (the team's slot is the team's already).
const OWNER_NOUNS: &[&str] = &["team", "company", "startup", "business", "org", "family", "household", "house", "home", "firm", "office", "shop"];

/// Words that make a clause something other than a plain present statement: plans, hedges,
/// wishes, conditions, questions about it.
const NOT_PLAIN: &[&str] = &[
    "if",
    "unless",
    "whether",
    "maybe",
    "might",
    "may",
    "perhaps",
    "probably",
    "possibly",
    "would",
    "could",
    "should",
    "will",
    "won't",
    "wouldn't",
    "thinking",
    "considering",
    "planning",
    "plan",
    "want",
    "wants",
    "wanted",
    "hope",
    "hoping",
    "wish",
    "looking",
    "offered",
    "offer",
    "offers",
    "quote",
    "trial",
    "trying",
    "try",
    "compare",
    "comparing",
    "not",
    "never",
    "no",
    "n't",
    "don't",
    "doesn't",
    "didn't",
    "isn't",
    "aren't",
    "wasn't",
    "longer",
    "anymore",
    "used",
    "until",
    "instead",
    "switch",
    "switched",
    "moving",
    "moved",
    "move",
    "going",
    "gonna",
    "tomorrow",
    "soon",
    "next",
    "ago",
    "last",
    "told",
    "said",
    "says",
    "asked",
    "heard",
];
/// Verbs in the past tense that do not end in -ed (a past event, not a standing relation).
const PAST_IRREGULAR: &[&str] = &[
    "went", "got", "took", "made", "bought", "began", "left", "came", "saw", "met", "had", "found", "gave", "put", "sent", "sold", "spent", "told", "won", "lost", "paid",
    "brought", "chose", "drove", "flew", "ran", "wrote", "was", "were", "did", "joined",
];
/// Words that carry no slot meaning in a predicate: auxiliaries, light verbs, adverbs of
/// frequency and degree, prepositions, and words of time.
const FILLER: &[&str] = &[
    "am",
    "is",
    "are",
    "'m",
    "m",
    "be",
    "been",
    "being",
    "do",
    "does",
    "have",
    "has",
    "get",
    "gets",
    "getting",
    "go",
    "goes",
    "going",
    "take",
    "takes",
    "make",
    "makes",
    "use",
    "uses",
    "using",
    "always",
    "usually",
    "also",
    "just",
    "still",
    "mostly",
    "currently",
    "now",
    "really",
    "all",
    "only",
    "often",
    "sometimes",
    "regularly",
    "basically",
    "actually",
    "pretty",
    "much",
    "at",
    "on",
    "in",
    "with",
    "by",
    "via",
    "through",
    "to",
    "from",
    "of",
    "for",
    "as",
    "into",
    "onto",
    "over",
    "under",
    "out",
    "up",
    "every",
    "each",
    "most",
    "some",
    "few",
    "couple",
    "lot",
    "lots",
    "and",
    "or",
    "the",
    "a",
    "an",
    "my",
    "our",
    "his",
    "her",
    "their",
    "its",
    "your",
    "this",
    "that",
    "there",
    "here",
    "morning",
    "mornings",
    "evening",
    "evenings",
    "night",
    "nights",
    "day",
    "days",
    "week",
    "weeks",
    "weekend",
    "weekends",
    "weekday",
    "weekdays",
    "month",
    "months",
    "year",
    "years",
    "daily",
    "weekly",
    "monthly",
    "yearly",
    "today",
    "these",
    "those",
    "place",
    "one",
    "thing",
    "stuff",
    "everything",
    "things",
    "like",
    "kind",
    "sort",
    "bit",
    "time",
    "times",
    "once",
    "twice",
    "downtown",
    "near",
    "nearby",
    "local",
    "who",
    "which",
    "that's",
    "it",
    "them",
];
const SEASONS: &[&str] = &["spring", "summer", "autumn", "fall", "winter"];
/// Words that open a clause of their own inside a predicate.
const SUBORDINATORS: &[&str] = &["because", "since", "when", "while", "so", "which", "who", "whom", "where", "although", "though", "but", "and", "cause", "cuz"];
/// Prepositions whose object is where a party stands.
const PARTY_PREPS: &[&str] = &["at", "with", "on", "in", "to", "from", "by", "via", "through", "for", "of", "into"];
/// Leading phrases of time or place before the subject ("On weekends I …", "For internet at home we …").
const LEAD_MAX: usize = 4;

/// The relation a clause states, if it has this shape.
pub fn relation(clause: &str) -> Option<Relation> {
    let clause = clause.trim().trim_end_matches(['.', '!', ' ']);
    if clause.is_empty() || clause.ends_with('?') {
        return None;
    }
    labelled(clause).or_else(|| with_subject(clause)).or_else(|| headless(clause))
}

/// A note without a subject, as a terse writer keeps one: a noun phrase, then a time if any, then
/// a party after a preposition, and little else ("Storage unit at Public Storage", "Therapy
/// Wednesdays with Dr. Anand", "Gym's Equinox", "phone's on Skylane Mobile"). The noun phrase is the slot; it must open the
/// clause, so a sentence with a verb of its own ("The app sends …", "Took Biscuit to …") is not one.
fn headless(clause: &str) -> Option<Relation> {
    let ws = word_spans(clause);
    let lw: Vec<String> = ws.iter().map(|(_, w)| w.to_lowercase()).collect();
    if lw.iter().any(|w| NOT_PLAIN.contains(&w.as_str()) || w.ends_with("n't")) {
        return None;
    }
    let spans: Vec<ValueSpan> = value_spans(clause).into_iter().filter(|s| s.kind == SpanKind::Name && !s.opens_sentence_alone() && !is_time(&s.text)).collect();
    let name_at = |at: usize| spans.iter().find(|s| s.at == at);
    let mut i = usize::from(lw.first().is_some_and(|w| ["my", "our", "the"].contains(&w.as_str())));
    let team = lw.first().is_some_and(|w| w == "our");
    // The noun phrase: one to three plain words, the last of which may carry the "'s" of "is".
    let mut nouns: Vec<String> = Vec::new();
    let mut contracted = false;
    while i < ws.len() && nouns.len() < 3 {
        let w = &lw[i];
        if name_at(ws[i].0).is_some() || PARTY_PREPS.contains(&w.as_str()) || is_time(w) || FILLER.contains(&w.as_str()) && !w.ends_with("'s") {
            break;
        }
        let bare = w.trim_end_matches("'s");
        if USER_SUBJECTS.contains(&bare)
            || TEAM_SUBJECTS.contains(&bare)
            || PAST_IRREGULAR.contains(&bare)
            || SUBORDINATORS.contains(&bare)
            || bare.chars().any(|c| c.is_ascii_digit())
        {
            return None;
        }
        // A verb opening the note ("Took …", "Mixing …") makes it an account of something done; a
        // verb after its first word makes the noun phrase a subject ("the marketplace unit settles
        // through …": someone's statement, read by the rules for subjects).
        if (nouns.is_empty() && (bare.ends_with("ed") || bare.ends_with("ing"))) || (!nouns.is_empty() && looks_like_verb(bare)) {
            return None;
        }
        nouns.push(bare.to_string());
        i += 1;
        if w.ends_with("'s") {
            contracted = true;
            break;
        }
    }
    if nouns.is_empty() {
        return None;
    }
    // Words of time ("Wednesdays", "every morning"). Not a participle: "Finance signed with X" is
    // a subject and its verb, which nothing in the words tells from "Car insured with X".
    while lw.get(i).is_some_and(|w| is_time(w) || ["every", "each", "daily", "weekly", "monthly"].contains(&w.as_str())) {
        i += 1;
    }
    // The party: after a preposition (optional after "'s"), "the" allowed.
    let prep = lw.get(i).is_some_and(|w| PARTY_PREPS.contains(&w.as_str()));
    if !prep && !contracted {
        return None;
    }
    if prep {
        i += 1;
    }
    if lw.get(i).is_some_and(|w| w == "the") {
        i += 1;
    }
    let value = name_at(ws.get(i)?.0)?;
    // Little after it: a place or a qualifier ("on 5th", "downtown, the unlimited plan").
    let end = value.at + value.text.len();
    let after = clause.get(end..).unwrap_or("");
    if words(after.split(',').next().unwrap_or("")).len() > 4 {
        return None;
    }
    let slot: Vec<String> = nouns.into_iter().filter(|n| !is_filler(n)).collect();
    (!slot.is_empty()).then(|| Relation { slot: slot.join(" "), value: value.text.trim_end_matches("'s").to_string(), team })
}

/// "Car insurance: Geico", "Pediatrician: Dr. Hammond at Kids First": a short label without a
/// verb, then a name.
fn labelled(clause: &str) -> Option<Relation> {
    let (label, rest) = clause.split_once(':')?;
    let lw = words(label);
    if lw.is_empty()
        || lw.len() > 5
        || lw.iter().any(|w| USER_SUBJECTS.contains(&w.as_str()) || (TEAM_SUBJECTS.contains(&w.as_str()) && w != "our") || PAST_IRREGULAR.contains(&w.as_str()))
    {
        return None;
    }
    // A label is a noun phrase: no auxiliary, no -ed verb ("Hosting" names a service).
    if lw.iter().any(|w| ["is", "are", "was", "were", "do", "does", "have", "has"].contains(&w.as_str()) || (w.len() > 4 && w.ends_with("ed"))) {
        return None;
    }
    let rest_trim = rest.trim_start();
    let offset = clause.len() - rest_trim.len();
    let spans = value_spans(clause);
    let first = spans.iter().filter(|s| s.kind == SpanKind::Name && s.at == offset && !is_time(&s.text)).min_by_key(|s| s.at)?;
    // The name is the value only when nothing but a place or a qualifier follows it.
    let after = words(clause.get(first.at + first.text.len()..).unwrap_or(""));
    if after.len() > 4 {
        return None;
    }
    let team = lw.iter().any(|w| TEAM_SUBJECTS.contains(&w.as_str()));
    let slot = cut_at(label, &["for", "at", "in", "on", "with"]);
    let slot = slot.trim().trim_start_matches(|c: char| !c.is_alphanumeric());
    (!slot_content(slot).is_empty()).then(|| Relation { slot: slot.to_string(), value: first.text.clone(), team })
}

/// An owner as subject, a name in the predicate.
fn with_subject(clause: &str) -> Option<Relation> {
    let ws = word_spans(clause);
    let lw: Vec<String> = ws.iter().map(|(_, w)| w.to_lowercase()).collect();
    if lw.iter().any(|w| NOT_PLAIN.contains(&w.as_str()) || w.ends_with("n't")) {
        return None;
    }
    // The subject: the first owner word within a short lead ("On weekends I …").
    let si = lw.iter().take(LEAD_MAX + 1).position(|w| USER_SUBJECTS.contains(&w.as_str()) || TEAM_SUBJECTS.contains(&w.as_str()) || KIN.contains(&w.as_str()))?;
    // What leads up to it must be a lead of time or place, opened by a preposition or `every`.
    let the_kin = si == 1 && lw[0] == "the" && KIN.contains(&lw[si].as_str());
    // "Since spring I …" leads with a time; "since we're at X" gives a reason, read by the rules for reasons.
    let since_when = si == 2 && lw[0] == "since" && (SEASONS.contains(&lw[1].as_str()) || is_time(&lw[1]));
    // "Beans we take from Tarnow Roasters": a bare noun put before `we` / `I` is the topic, the
    // thing the relation is about, and names the slot.
    // "Midweek we go to …": a habitual time is a lead, like "on weekends".
    let habitual = si == 1 && HABITUAL_LEADS.contains(&lw[0].as_str());
    // Only one word: two words there are as often a subject and its verb ("Jonas insists we …").
    let topic = !habitual && si == 1 && ["we", "i"].contains(&lw[si].as_str()) && is_topic_word(&lw[0], ws[0].1);
    if si > 0
        && !the_kin
        && !since_when
        && !topic
        && !habitual
        && !["on", "for", "at", "in", "every", "most", "these", "nowadays", "usually", "also", "and", "so", "btw"].contains(&lw[0].as_str())
    {
        return None;
    }
    let team = TEAM_SUBJECTS.contains(&lw[si].as_str());
    let spans: Vec<ValueSpan> = value_spans(clause).into_iter().filter(|s| s.kind == SpanKind::Name && !s.opens_sentence_alone() && !is_time(&s.text)).collect();
    // The subject phrase: a possessive with its noun and any name in apposition ("my son Theo",
    // "our cat Biscuit"); a pronoun or a kin word alone.
    let mut verb_at = si + 1;
    let mut subject_nouns: Vec<String> = Vec::new();
    if ["my", "our"].contains(&lw[si].as_str()) {
        let mut j = si + 1;
        while j < ws.len() && j <= si + 3 {
            let (at, w) = ws[j];
            if let Some(name) = spans.iter().find(|s| s.at == at) {
                // A name right after the possessive's noun is the subject's own name.
                j = ws.iter().position(|(a, _)| *a >= name.at + name.text.len()).unwrap_or(ws.len());
                break;
            }
            if j > si + 1 && looks_like_verb(&lw[j]) {
                break;
            }
            if PARTY_PREPS.contains(&lw[j].as_str()) {
                return None;
            }
            subject_nouns.push(w.to_lowercase());
            j += 1;
        }
        if subject_nouns.is_empty() {
            return None;
        }
        verb_at = j;
    } else if KIN.contains(&lw[si].as_str()) {
        subject_nouns.push(lw[si].clone());
    }
    // Adverbs before the verb ("I secretly booked", "we always fly").
    let adverb = |w: &str| {
        ["always", "usually", "also", "just", "still", "mostly", "currently", "now", "really", "only", "often", "sometimes", "basically", "actually", "all"].contains(&w)
            || (w.len() > 4 && w.ends_with("ly") && !LY_NOUNS.contains(&w))
    };
    while lw.get(verb_at).is_some_and(|w| adverb(w)) {
        verb_at += 1;
    }
    let verb = lw.get(verb_at)?;
    // "The mother of Lina …", "my sister and I …": not a subject of the user's own.
    if PARTY_PREPS.contains(&verb.as_str()) && !["i'm", "im", "we're"].contains(&lw[si].as_str()) || verb == "and" {
        return None;
    }
    // A past event ("we moved to …", "I joined …") is not a standing relation.
    let copula = ["am", "is", "are", "'m", "m"].contains(&verb.as_str()) || ["i'm", "im", "we're"].contains(&lw[si].as_str());
    if !copula && (PAST_IRREGULAR.contains(&verb.as_str()) || (verb.ends_with("ed") && verb.len() > 3)) {
        return None;
    }
    let pred_start = ws.get(verb_at).map(|(a, _)| *a)?;
    // The predicate ends where a clause of its own begins ("… because it's Basaltic-native").
    let pred_end = ws.iter().skip(verb_at + 1).find(|(_, w)| SUBORDINATORS.contains(&w.to_lowercase().as_str())).map_or(clause.len(), |(a, _)| *a);
    let pred_end = clause[pred_start..pred_end].find(',').map_or(pred_end, |i| pred_start + i);
    // A time, a number or an address in the predicate makes it a schedule or a quantity, which
    // the rules for those read ("I pick up Matteo at 13:15").
    if value_spans(&clause[pred_start..pred_end]).iter().any(|s| matches!(s.kind, SpanKind::Code | SpanKind::Address)) {
        return None;
    }
    let candidates: Vec<&ValueSpan> = spans.iter().filter(|s| s.at >= pred_start && s.at < pred_end).collect();
    let value = match candidates.as_slice() {
        [] => return None,
        [one] => *one,
        many => {
            let placed: Vec<&&ValueSpan> = many.iter().filter(|s| after_prep(clause, s)).collect();
            *placed.first().copied().or(many.first())?
        }
    };
    // The slot: a topic put before the subject; else `for` / `as` and a noun phrase that is no
    // name; else a lead opened by `for`; else the clause's other words.
    let sp = Span::new(clause);
    let named_for = if topic {
        Some(lw[..si].to_vec())
    } else {
        ["for", "as"]
            .iter()
            .filter_map(|p| sp.find(p, pred_start).filter(|i| i + p.len() < pred_end).map(|i| i + p.len() + 1))
            .filter(|&at| at != value.at)
            .min()
            .and_then(|at| {
                let phrase = cut_at(&clause[at..pred_end], &["at", "in", "on", "with", "from", "every", "since"]);
                let phrase = phrase.split(',').next().unwrap_or("");
                let content = slot_content(phrase);
                let is_value = value.at >= at && value.at < at + phrase.len();
                (!content.is_empty() && !is_value && spans.iter().all(|s| s.at < at || s.at >= at + phrase.len())).then_some(content)
            })
            // "For internet at home we use Comcast": the lead names the slot.
            .or_else(|| (si > 0 && lw[0] == "for").then(|| slot_content(cut_at(&clause[ws[1].0..ws[si].0], &["at", "in", "on", "with"]))).filter(|w| !w.is_empty()))
    };
    let slot_words: Vec<String> = match named_for {
        Some(w) => subject_nouns.iter().filter(|n| !OWNER_NOUNS.contains(&n.as_str())).cloned().chain(w).collect(),
        None => {
            let mut w: Vec<String> = subject_nouns.iter().filter(|n| !OWNER_NOUNS.contains(&n.as_str())).cloned().collect();
            // The predicate's words before the name; when none, those after it up to the next
            // preposition ("… Netflix account for the family").
            let before: Vec<String> = ws.iter().skip(verb_at).take_while(|(at, _)| *at < value.at).map(|(_, x)| x.to_lowercase()).filter(|x| !is_filler(x)).collect();
            let after: Vec<String> = if before.is_empty() {
                ws.iter()
                    .filter(|(at, _)| *at >= value.at + value.text.len() && *at < pred_end)
                    .map(|(_, x)| x.to_lowercase())
                    .take_while(|x| !PARTY_PREPS.contains(&x.as_str()))
                    .filter(|x| !is_filler(x))
                    .collect()
            } else {
                Vec::new()
            };
            w.extend(before);
            w.extend(after);
            w
        }
    };
    let mut slot_words: Vec<String> = slot_words.into_iter().take(4).collect();
    // "We're at Calloway Court", "I've been with Harborline Credit Union": nothing but the name
    // says what it is, and a name's closing noun says its kind.
    if slot_words.is_empty() {
        slot_words = kind_of_name(&value.text).map(|k| vec![k]).unwrap_or_default();
    }
    if slot_words.is_empty() {
        return None;
    }
    Some(Relation { slot: slot_words.join(" "), value: value.text.trim_end_matches("'s").to_string(), team })
}

/// Times that say how often, opening a clause before its subject ("Weekends I …").
const HABITUAL_LEADS: &[&str] = &["midweek", "weekends", "weekdays", "mornings", "evenings", "nights", "afternoons", "sometimes", "often", "usually"];
/// Nouns that close the names of places and organizations and say what kind of thing they are
/// ("Calloway Court", "Clayhaus Studio", "Harborline Credit Union"). A person's name closes with
/// a surname, which says nothing of the kind, so only these name a slot.
const KIND_NOUNS: &[&str] = &[
    "academy",
    "agency",
    "apartments",
    "bank",
    "bakery",
    "cafe",
    "café",
    "center",
    "centre",
    "church",
    "clinic",
    "club",
    "college",
    "court",
    "daycare",
    "gallery",
    "garage",
    "gym",
    "hall",
    "hospital",
    "hotel",
    "institute",
    "library",
    "market",
    "office",
    "pharmacy",
    "pool",
    "practice",
    "school",
    "shop",
    "store",
    "studio",
    "studios",
    "surgery",
    "theatre",
    "theater",
    "union",
    "university",
    "towers",
    "tower",
    "gardens",
    "residences",
    "lofts",
    "house",
    "lab",
    "salon",
    "spa",
    "dojo",
    "rink",
    "stadium",
    "kindergarten",
];

/// The kind a name says it is by its closing noun, if it has one ("Harborline Credit Union" →
/// "union").
fn kind_of_name(name: &str) -> Option<String> {
    let ws = words(name);
    let last = ws.last().filter(|_| ws.len() >= 2)?;
    KIND_NOUNS.contains(&last.as_str()).then(|| last.clone())
}

/// A word that can make up a topic put before the subject: a noun in lower case (or opening the
/// sentence), no filler, no time, no adverb.
fn is_topic_word(lower: &str, raw: &str) -> bool {
    let time = ["today", "yesterday", "tomorrow", "tonight", "now", "then", "lately", "recently"];
    let preps = ["since", "for", "at", "in", "on", "every", "most", "these", "with", "from", "to", "by", "after", "before", "during", "until", "the", "a", "an", "this", "that"];
    let discourse = ["ok", "okay", "so", "well", "yeah", "yes", "no", "hi", "hey", "hello", "btw", "anyway", "also", "and", "but", "plus", "oh", "honestly", "basically", "here"];
    lower.chars().all(char::is_alphabetic)
        && !is_filler(lower)
        && !time.contains(&lower)
        && !HABITUAL_LEADS.contains(&lower)
        && !discourse.contains(&lower)
        && !preps.contains(&lower)
        && !is_time(lower)
        && raw.chars().skip(1).all(|c| !c.is_uppercase())
}

/// Words with their byte offsets.
pub(super) fn word_spans(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        let inside = c.is_alphanumeric() || c == '\'' || c == '’' || c == '-';
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, text[s..i].trim_matches(['\'', '’'])));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text[s..].trim_matches(['\'', '’'])));
    }
    out.retain(|(_, w)| !w.is_empty());
    out
}

/// A word that reads as a finite verb after a noun ("my son plays", "our cat sees").
pub(super) fn looks_like_verb(w: &str) -> bool {
    ["is", "are", "am", "was", "were", "has", "have", "had", "do", "does", "did", "goes", "go", "gets", "get", "takes", "take", "plays", "play", "uses", "use", "sees", "see"]
        .contains(&w)
        || (w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("'s"))
        || (w.len() > 3 && w.ends_with("ed"))
}

/// Whether a span is a preposition's object ("at the Red Lion").
fn after_prep(clause: &str, s: &ValueSpan) -> bool {
    let before = clause.get(..s.at).unwrap_or("");
    let last = before.split_whitespace().rev().find(|w| !["the", "a", "an"].contains(&w.to_lowercase().as_str()));
    last.is_some_and(|last| PARTY_PREPS.iter().any(|p| last.eq_ignore_ascii_case(p)))
}

/// A name that is a time, not a party ("Saturdays", "March"); short forms ("Jan", "Sun") may be
/// names of their own.
pub(super) fn is_time(name: &str) -> bool {
    words(name).iter().all(|w| (w.len() > 3 || w == "may") && (MONTHS.contains(&w.as_str()) || WEEKDAYS.contains(&w.as_str())))
}

/// A phrase cut before its first word of `stops`.
fn cut_at<'a>(phrase: &'a str, stops: &[&str]) -> &'a str {
    let mut end = phrase.len();
    for (at, w) in word_spans(phrase) {
        if at > 0 && stops.contains(&w.to_lowercase().as_str()) {
            end = at;
            break;
        }
    }
    phrase[..end].trim()
}

/// Nouns that end like adverbs.
const LY_NOUNS: &[&str] =
    &["family", "supply", "supplies", "rally", "assembly", "reply", "ally", "belly", "jelly", "italy", "bully", "lily", "dolly", "trolley", "pulley", "volley"];

/// Whether a word says nothing of what a slot is: a filler, a number, an adverb in -ly.
fn is_filler(w: &str) -> bool {
    FILLER.contains(&w) || w.chars().all(|c| c.is_ascii_digit()) || (w.len() > 4 && w.ends_with("ly") && !LY_NOUNS.contains(&w))
}

/// The words of a phrase that say what it is (fillers dropped).
fn slot_content(phrase: &str) -> Vec<String> {
    words(phrase).into_iter().filter(|w| !is_filler(w)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Option<(String, String, bool)> {
        relation(s).map(|r| (r.slot, r.value, r.team))
    }

    #[test]
    fn a_terse_note_without_a_subject() {
        assert_eq!(read("Locker rental at Harbor Lockers"), Some(("locker rental".into(), "Harbor Lockers".into(), false)));
        assert_eq!(read("Piano class Thursdays with Mrs. Ito"), Some(("piano class".into(), "Mrs. Ito".into(), false)));
        assert_eq!(read("Dentist's Brightsmile on Elm"), Some(("dentist".into(), "Brightsmile".into(), false)));
        assert_eq!(read("our router's on Fibrelink"), Some(("router".into(), "Fibrelink".into(), true)));
        // An account of something done, a subject with its verb, a question: not a note of a slot.
        assert_eq!(read("Drove Nana to Elmwood Clinic for her scan"), None);
        assert_eq!(read("The design team bills through Ledgerly"), None);
        assert_eq!(read("Procurement signed with Ledgerly"), None);
        assert_eq!(read("Locker rental at Harbor Lockers?"), None);
    }

    #[test]
    fn any_verb_with_an_owner_and_a_name() {
        assert_eq!(read("I swim at Marlin Pool & Spa most mornings"), Some(("swim".into(), "Marlin Pool & Spa".into(), false)));
        assert_eq!(read("Our team uses Slack for chat"), Some(("chat".into(), "Slack".into(), true)));
        assert_eq!(read("My daughter takes violin lessons with Ms. Hartley"), Some(("daughter violin lessons".into(), "Ms. Hartley".into(), false)));
        assert_eq!(read("Dad does his physio at Kingsbridge Hospital"), Some(("dad physio".into(), "Kingsbridge Hospital".into(), false)));
        assert_eq!(read("My son Theo does swimming lessons with Aqualine Swim School"), Some(("son swimming lessons".into(), "Aqualine Swim School".into(), false)));
        assert_eq!(read("I'm with Monzo for my current account"), Some(("current account".into(), "Monzo".into(), false)));
        assert_eq!(read("For internet at home we use Comcast"), Some(("internet".into(), "Comcast".into(), true)));
    }

    #[test]
    fn a_lead_of_time_before_the_subject() {
        assert_eq!(read("Since spring I swim at Marlin Pool"), Some(("swim".into(), "Marlin Pool".into(), false)));
        assert_eq!(read("since March we bank with Harborline"), Some(("bank".into(), "Harborline".into(), true)));
        // "since" giving a reason is no lead of time.
        assert_eq!(read("since Pinecrest we rent from Ossory Paddle"), None);
    }

    #[test]
    fn a_topic_before_the_subject_names_the_slot() {
        assert_eq!(read("Beans we take from Tarnow Roasters"), Some(("beans".into(), "Tarnow Roasters".into(), true)));
        assert_eq!(read("groceries I get at Lidl Market"), Some(("groceries".into(), "Lidl Market".into(), false)));
        // A time or a word of talk before the subject is no topic.
        assert_eq!(read("Yesterday we shop at Lidl Market"), None);
        assert_eq!(read("honestly I swim at Marlin Pool"), None);
        // A habitual time is a lead, not the slot.
        assert_eq!(read("Midweek we swim at Marlin Pool"), Some(("swim".into(), "Marlin Pool".into(), true)));
    }

    #[test]
    fn a_name_alone_says_its_kind_by_its_closing_noun() {
        assert_eq!(read("we're at Calloway Court"), Some(("court".into(), "Calloway Court".into(), true)));
        assert_eq!(read("I've been with Harborline Credit Union"), Some(("union".into(), "Harborline Credit Union".into(), false)));
        // A person's name says no kind.
        assert_eq!(read("I'm with Dana Kruse"), None);
    }

    #[test]
    fn a_label_and_a_name() {
        assert_eq!(read("Car insurance: Geico"), Some(("Car insurance".into(), "Geico".into(), false)));
        assert_eq!(read("Pediatrician: Dr. Hammond at Kids First"), Some(("Pediatrician".into(), "Dr. Hammond".into(), false)));
        assert_eq!(read("Note: I am tired"), None);
    }

    #[test]
    fn untrusted_text_never_panics() {
        // Lowercasing that changes byte lengths, lone marks, empty and punctuation-only clauses.
        for s in ["İstanbul İŞ for Ünal as Ärzte: Ωmega", "I use Ǆemal for İİİ", "My: ", ":", "I", "our", "We have a, , ,", "Ṁy Ṡon goes to Ẋ for ẞ"] {
            let _ = relation(s);
        }
    }

    #[test]
    fn plans_hedges_negations_past_events_and_others_are_not_relations() {
        for s in [
            "Thinking of moving to Pulse Fitness",
            "We might use Linear for tickets",
            "I no longer swim at Marlin Pool",
            "We moved to Portland two years ago",
            "I joined Tidewater Rowing Club",
            "Do you know Marlin Pool?",
            "Honestly the weather in Lisbon is great",
        ] {
            assert_eq!(read(s), None, "{s}");
        }
    }
}
