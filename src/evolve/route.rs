//! Which reading a query gets: the shape of its best hits decides, unless the query itself declares
//! one ("exactly", "over time", "everything about").

use serde::Serialize;

use crate::model::Memory;

#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "RecallRoute"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// Verbatim recall: the kept phrase or the turn, untouched.
    Exact,
    /// Everything of one area.
    Gather,
    /// Evolving threads: their derived state and dated values, oldest to newest.
    Trail,
    /// Plain hybrid search.
    Search,
}

impl Route {
    pub fn as_str(self) -> &'static str {
        match self {
            Route::Exact => "exact",
            Route::Gather => "gather",
            Route::Trail => "trail",
            Route::Search => "search",
        }
    }
}

const EXACT_CUES: &[&str] = &["exactly", "exact", "word for word", "verbatim", "recite", "quote", "as is", "character for character"];
const TRAIL_CUES: &[&str] = &[
    "over time",
    "history of",
    "in order",
    "from the start",
    "from the beginning",
    "earliest to latest",
    "oldest to newest",
    "oldest first",
    "newest first",
    "latest first",
    "first to last",
    "first to latest",
    "gone through",
    "been through",
    "over the years",
    "changed",
    "evolved",
    "timeline",
    "so far",
];
const GATHER_CUES: &[&str] = &["everything about", "everything you know", "tell me everything", "all of", "all about", "what do you know about", "all the"];

/// Lowercase words of `text` (letters and digits), for phrase matching on word boundaries.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

fn has_phrase(words: &[String], phrase: &str) -> bool {
    let p: Vec<&str> = phrase.split(' ').collect();
    words.windows(p.len()).any(|w| w.iter().zip(&p).all(|(a, b)| a == b))
}

/// The route a query declares, if any.
pub fn declared(query: &str) -> Option<Route> {
    let w = words(query);
    let any = |cues: &[&str]| cues.iter().any(|c| has_phrase(&w, c));
    if any(EXACT_CUES) {
        Some(Route::Exact)
    } else if any(TRAIL_CUES) {
        Some(Route::Trail)
    } else if any(GATHER_CUES) {
        Some(Route::Gather)
    } else {
        None
    }
}

/// Verb forms that end in "s" but name no set ("what is", "which does").
const NOT_PLURAL: &[&str] = &["is", "was", "does", "has", "this", "its", "his", "hers", "ours", "yours", "theirs", "always", "plus", "less", "across", "unless", "thus"];

/// Units of time: "which days does she work?", "what hours are you open?" ask for one schedule
/// (a single slot's value), not for a set of things.
const TIME_UNITS: &[&str] = &["days", "nights", "mornings", "afternoons", "evenings", "weekends", "weekdays", "hours", "times", "weeks", "months", "minutes", "dates"];

/// Whether the query asks for a set in plain English: a wh-question whose subject is plural ("which
/// plants do I have?", "what are our on-call practices?", "which tools has the team tried?"), or a
/// request to list. Such a question is answered by the whole area, not by one slot's trail.
pub fn asks_for_set(query: &str) -> bool {
    let w = words(query);
    if w.first().is_some_and(|f| f == "list" || f == "name") {
        return true;
    }
    let Some(i) = w.iter().position(|x| x == "which" || x == "what") else { return false };
    let Some(next) = w.get(i + 1) else { return false };
    if next == "are" || next == "were" {
        return true;
    }
    next.len() > 3 && next.ends_with('s') && !next.ends_with("ss") && !NOT_PLURAL.contains(&next.as_str()) && !TIME_UNITS.contains(&next.as_str())
}

/// Nouns for a piece of text itself, as a user asks for one they kept ("the tag cmd format", "that
/// SQL with the ESCAPE clause", "the git alias").
const TEXT_NOUNS: &str = "line lines command commands cmd snippet code expression query sql regex alias script string format \
    wording text note recipe formula rule label labels template message phrase quote config url path";
/// Verbs that ask for a text back rather than for a value.
const TEXT_VERBS: &[&str] = &["paste", "copy", "recite", "reproduce"];

/// Words of a kept text's description that say only that it was kept.
const KEPT_WORDS: &[&str] = &["user", "user's", "kept", "keep", "word", "exactly", "verbatim", "said", "this", "that", "with", "from"];

/// Whether `query` asks for the text a kept (verbatim) memory holds: it names a kind of text, asks to
/// have one pasted back, or names what the text is (its thread label, or its description outside
/// the text itself: "Grandma's chili ratio"). "Which school does Noor go to?" does none of these,
/// so a lunch label that happens to name Noor does not answer it.
pub fn asks_for_text(query: &str, kept: &Memory) -> bool {
    let w = words(query);
    if w.iter().any(|x| TEXT_NOUNS.split_whitespace().any(|n| n == x) || TEXT_VERBS.contains(&x.as_str())) {
        return true;
    }
    let label: Vec<&str> = kept.thread.as_deref().unwrap_or("").split('-').filter(|x| x.len() > 2).collect();
    let description = kept.signature.as_deref().map_or(kept.content.clone(), |sig| kept.content.replace(sig, " "));
    let described: Vec<String> = words(&description).into_iter().filter(|x| x.len() > 3 && !KEPT_WORDS.contains(&x.as_str())).collect();
    w.iter().any(|x| label.contains(&x.as_str()) || described.contains(x))
}

/// The route the best memory hits' shapes call for (best first).
pub fn from_shapes(best: &[&Memory]) -> Route {
    let Some(top) = best.first() else { return Route::Search };
    if top.signature.is_some() {
        return Route::Exact;
    }
    // Several top hits on different slots sharing an area: the question is about the area.
    let shared_area = top.area.iter().any(|a| best.iter().skip(1).take(4).any(|m| m.area.contains(a) && (m.thread.is_none() || m.thread != top.thread)));
    // A fact on no thread that belongs to an area is one of a set: the set answers best.
    let lone_member = !top.area.is_empty() && top.thread.is_none();
    if (shared_area || lone_member) && top.depends_on.is_none() {
        return Route::Gather;
    }
    if top.thread.is_some() {
        return Route::Trail;
    }
    Route::Search
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_declare_routes_on_word_boundaries() {
        assert_eq!(declared("Say it word for word"), Some(Route::Exact));
        assert_eq!(declared("How did my diet evolve? Give the history of it"), Some(Route::Trail));
        assert_eq!(declared("Tell me everything about the garden"), Some(Route::Gather));
        assert_eq!(declared("Who is my dentist?"), None);
        // "exactness" is not "exact"; "install" is not "all".
        assert_eq!(declared("exactness install"), None);
    }

    #[test]
    fn a_kept_text_answers_only_a_question_for_a_text() {
        let kept = Memory { thread: Some("lunch-label".into()), signature: Some("NOOR K. | 3B | veg".into()), ..Default::default() };
        for q in ["gimme the tag cmd format", "Paste back the thing I saved", "what was Noor's lunch label?", "that SQL with the ESCAPE clause"] {
            assert!(asks_for_text(q, &kept), "{q}");
        }
        for q in ["Which school does Noor go to?", "Who is Noor's teacher?"] {
            assert!(!asks_for_text(q, &kept), "{q}");
        }
        // Without a label, the description outside the text says what it is.
        let described = Memory { content: "Grandma's chili ratio, to keep word for word".into(), signature: Some("2 lb chuck".into()), ..Default::default() };
        assert!(asks_for_text("What is grandma's chili ratio?", &described));
        assert!(!asks_for_text("What is my chuck roast budget?", &described), "words of the text itself are no description");
    }

    #[test]
    fn plural_wh_questions_ask_for_sets() {
        for q in [
            "Which languages does Priya speak?",
            "What are the rules for the shared kitchen?",
            "which cities have we visited",
            "List my subscriptions",
            "What hobbies did I pick up?",
        ] {
            assert!(asks_for_set(q), "{q}");
        }
        for q in [
            "Which dentist do I see?",
            "What is my pharmacy?",
            "What does the lead want?",
            "Who are my neighbours?",
            "What was the address?",
            "Which class is it in?",
            "Which days does the cleaner come?",
            "what hours is the pool open",
        ] {
            assert!(!asks_for_set(q), "{q}");
        }
    }
}
