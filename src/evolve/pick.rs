//! Which answer leads a question about what holds now: a small learned choice among the slots the
//! search reached and the user turns it found, instead of a fixed order of heuristics.
//!
//! The first answer of a recall is what a reader (or a model) takes as the value. The slots the
//! author wrote are one source of it; the user's own turns are another, and often the better one:
//! a change the author did not read ("thu kept colliding w/ board prep. Tuesday from here on") is
//! only in a turn. Each candidate is described by a few features of mechanism, not of phrasing:
//! how much of the question it names (words, vector), how new it is among the candidates, whether
//! it holds the kind of value the question asks for (a name for "who", a date for "when"), whether
//! it announces a change, hedges, or speaks of someone the question does not name. A linear score
//! over them (`WEIGHTS`) picks the lead; the weights are fitted by `examples/train_pick.rs` on the
//! `dev` split of the evolving corpus only, keyword-only and hybrid runs together (the `test`
//! split reports). The heuristics' own pick is one feature (`incumbent`), so the model learns when
//! to overrule it.
//!
//! A turn may lead over the slot that was authored from it: the turn says in full what the slot
//! may have read in part ("Dr Okafor — no sorry, Dr Okonjo"), and the slot follows it.
//!
//! Plan → apply: `candidates` gathers and describes, `lead` applies the choice. Derived states
//! (deleted, cascaded, uncertain) are never overruled: the reader must see them first, and the
//! recall only asks for a lead when its first answer is current.

use std::collections::HashSet;

use super::author::sentences;
use super::recall::{coverage, matches_itself, said, Sources};
use super::route::words;
use super::state::{Answer, State};
use crate::engine::Hit;
use crate::model::RawEntry;

/// The features, in `WEIGHTS` order.
pub const FEATURES: [&str; 17] = [
    "incumbent",
    "thread",
    "thread_named",
    "coverage",
    "vector",
    "keyword",
    "hit_rank",
    "newest",
    "newest_covering",
    "type_fit",
    "change_cue",
    "hedge",
    "other_subject",
    "asks",
    "sentence_coverage",
    "long",
    "sentence_type_fit",
];
pub const N: usize = FEATURES.len();

/// Fitted by `cargo run --release --features embedder,internals --example train_pick` (see there).
const WEIGHTS: [f64; N] = include!("pick_weights.in");

/// How many user turns the search found are weighed beside the slots. Only turns that matched by
/// their own words or a close vector (`matches_itself`) stand: the turns nearest by meaning alone,
/// however far, were tried as candidates too and chose worse leads.
const TURNS_FROM_HITS: usize = 8;

/// One candidate for the lead: the answer it would be, its text and its features.
#[derive(Debug)]
pub(super) struct Candidate {
    answer: Answer,
    /// What the features were read from (the trainer's labels are read from it too).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    text: String,
    features: [f64; N],
}

/// What the question asks for, read from its wh-word or a time word.
#[derive(Clone, Copy, PartialEq)]
enum Asked {
    Person,
    Time,
    Name,
    Number,
    Other,
}

fn asked(query_words: &[String]) -> Asked {
    let has = |w: &str| query_words.iter().any(|q| q == w);
    let pair = |a: &str, b: &[&str]| query_words.windows(2).any(|p| p[0] == a && b.contains(&p[1].as_str()));
    if has("who") || has("whom") || has("whose") {
        Asked::Person
    } else if query_words.iter().any(|w| TIME_WORDS.contains(&w.as_str())) {
        // A slot named by a time word asks for a time, whatever the wh-word ("release day?").
        Asked::Time
    } else if pair("how", &["much", "many", "often", "long"]) {
        Asked::Number
    } else if has("where") || has("which") || has("what") {
        Asked::Name
    } else {
        Asked::Other
    }
}

/// Words of a question that ask for a time.
const TIME_WORDS: &[&str] = &["when", "day", "days", "date", "dates", "time", "times", "weekend", "birthday", "bday", "deadline", "hour", "hours", "until"];

pub(crate) const MONTHS: &[&str] = &[
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
pub(crate) const WEEKDAYS: &[&str] = &[
    "mon",
    "tue",
    "tues",
    "wed",
    "thu",
    "thur",
    "thurs",
    "fri",
    "sat",
    "sun",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "mondays",
    "tuesdays",
    "wednesdays",
    "thursdays",
    "fridays",
    "saturdays",
    "sundays",
    "weekend",
    "weekends",
    "noon",
    "midnight",
    "tomorrow",
    "tonight",
];

/// A capitalized word that does not open its sentence: a name, most often.
fn has_inner_capital(text: &str) -> bool {
    let mut prev_end = true;
    for w in text.split_whitespace() {
        let first = w.trim_start_matches(|c: char| !c.is_alphanumeric()).chars().next();
        if !prev_end && first.is_some_and(char::is_uppercase) {
            return true;
        }
        prev_end = w.ends_with(['.', '!', '?', ':']);
    }
    false
}

fn fits(asked: Asked, text: &str, text_words: &[String]) -> bool {
    let digit = text.chars().any(|c| c.is_ascii_digit());
    match asked {
        Asked::Person => has_inner_capital(text) || text_words.iter().any(|w| matches!(w.as_str(), "dr" | "mr" | "mrs" | "ms" | "prof")),
        Asked::Time => {
            text_words.iter().any(|w| MONTHS.contains(&w.as_str()) || WEEKDAYS.contains(&w.as_str()) || w == "am" || w == "pm")
                || text.split(|c: char| !(c.is_ascii_digit() || c == ':' || c == '/')).any(|t| t.contains(':') || t.matches('/').count() >= 1 && t.len() >= 3)
        }
        Asked::Number => digit,
        Asked::Name => has_inner_capital(text) || digit,
        Asked::Other => false,
    }
}

/// Words that announce a value replacing another, in any domain.
const CHANGE_CUES: &[&str] = &[
    "now",
    "instead",
    "switched",
    "switch",
    "moved",
    "changed",
    "new",
    "anymore",
    "longer",
    "replaced",
    "since",
    "starting",
    "onwards",
    "forward",
    "actually",
    "misspoke",
    "correction",
    "wrong",
    "typo",
    "meant",
    "took",
    "update",
    "updated",
    "became",
];
/// Words that hold a statement back from being a fact.
const HEDGES: &[&str] = &["maybe", "might", "perhaps", "considering", "thinking", "wondering", "should", "if", "would", "could", "probably", "plan", "planning"];
/// People other than the speaker, by relation.
const RELATIONS: &[&str] = &[
    "friend",
    "friends",
    "sister",
    "brother",
    "cousin",
    "neighbour",
    "neighbor",
    "colleague",
    "coworker",
    "boss",
    "mom",
    "mum",
    "dad",
    "father",
    "mother",
    "wife",
    "husband",
    "partner",
    "son",
    "daughter",
    "other",
    "another",
    "their",
    "his",
    "her",
];

/// Whether a text asks rather than states: a question mark, or a question's opening word (chat
/// questions often go without the mark).
fn asks(text: &str, text_words: &[String]) -> bool {
    const OPENERS: &[&str] = &["what", "whats", "how", "why", "when", "where", "which", "who", "can", "could", "should", "is", "are", "do", "does", "any"];
    text.contains('?') || text_words.first().is_some_and(|w| OPENERS.contains(&w.as_str()))
}

fn any_of(text_words: &[String], list: &[&str]) -> bool {
    text_words.iter().any(|w| list.contains(&w.as_str()))
}

struct Raw {
    answer: Answer,
    text: String,
    incumbent: bool,
    vector: f64,
    keyword: f64,
    hit_rank: Option<usize>,
}

/// The candidates for the lead, described. `answers` are the ones the routes and heuristics chose
/// (first = their lead); the user turns the search matched join them.
pub(super) fn candidates(query: &str, hits: &[Hit], terms: &HashSet<String>, sources: &Sources, answers: &[Answer]) -> Vec<Candidate> {
    let mut raw: Vec<Raw> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let hit_of =
        |id: &str| hits.iter().enumerate().find(|(_, h)| h.expanded_from.is_none() && (h.id() == id || h.memory().is_some_and(|m| m.derived_from.iter().any(|d| d == id))));
    for (i, a) in answers.iter().enumerate().take(4) {
        if a.state != State::Current {
            continue;
        }
        let text = [a.value.as_deref(), a.content.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" — ");
        let hit = a.evidence.iter().find_map(|id| hit_of(id));
        seen.extend(a.evidence.iter().cloned());
        raw.push(Raw {
            answer: a.clone(),
            text,
            incumbent: i == 0,
            vector: hit.and_then(|(_, h)| h.explain.as_ref().and_then(|e| e.vector)).unwrap_or(0.0),
            keyword: hit.and_then(|(_, h)| h.explain.as_ref().and_then(|e| e.keyword)).unwrap_or(0.0),
            hit_rank: hit.map(|(r, _)| r),
        });
    }
    let stale = sources.stale();
    let usable = |r: &RawEntry| !stale.contains(r.id.as_str()) && sources.may_answer(r);
    let from_hits = hits
        .iter()
        .enumerate()
        .filter(|(_, h)| h.expanded_from.is_none() && matches_itself(h, terms))
        .filter_map(|(i, h)| h.raw().map(|r| (i, h, r)))
        .filter(|(_, _, r)| usable(r));
    for (i, h, r) in from_hits.take(TURNS_FROM_HITS) {
        if !seen.insert(r.id.clone()) {
            continue;
        }
        let e = h.explain.as_ref();
        raw.push(Raw {
            answer: said(r, terms),
            text: r.content.clone(),
            incumbent: false,
            vector: e.and_then(|e| e.vector).unwrap_or(0.0),
            keyword: e.and_then(|e| e.keyword).unwrap_or(0.0),
            hit_rank: Some(i),
        });
    }
    describe(query, terms, raw)
}

fn describe(query: &str, terms: &HashSet<String>, raw: Vec<Raw>) -> Vec<Candidate> {
    let qw = words(query);
    let wanted = asked(&qw);
    let qset: HashSet<&str> = qw.iter().map(String::as_str).collect();
    let n_terms = terms.len().max(1) as f64;
    let covers: Vec<usize> = raw.iter().map(|c| coverage(&c.text, terms)).collect();
    // Whether the sentence of each candidate that names most of the question holds the kind of
    // value asked for.
    let best_fits: Vec<bool> = raw.iter().map(|c| sentences(&c.text).into_iter().max_by_key(|s| coverage(s, terms)).is_some_and(|s| fits(wanted, s, &words(s)))).collect();
    // A turn's answer is dated by the turn (`said`), a slot's by its value.
    let when: Vec<i64> = raw.iter().map(|c| c.answer.since.unwrap_or(i64::MIN)).collect();
    let mut dates = when.clone();
    dates.sort_unstable();
    dates.dedup();
    let span = (dates.len().max(2) - 1) as f64;
    raw.into_iter()
        .enumerate()
        .map(|(i, c)| {
            let tw = words(&c.text);
            // No other candidate naming as much of the question is newer.
            let newest_covering = covers[i] > 0 && !(0..covers.len()).any(|j| j != i && covers[j] >= covers[i] && when[j] > when[i]);
            let mut f = [0.0; N];
            f[0] = f64::from(u8::from(c.incumbent));
            f[1] = f64::from(u8::from(c.answer.thread.is_some()));
            f[2] = c.answer.thread.as_deref().map_or(0.0, |t| {
                let lw = words(&t.replace('-', " "));
                if lw.is_empty() {
                    0.0
                } else {
                    lw.iter().filter(|w| qset.contains(w.as_str())).count() as f64 / lw.len() as f64
                }
            });
            f[3] = covers[i] as f64 / n_terms;
            f[4] = c.vector.max(0.0);
            f[5] = c.keyword.clamp(0.0, 1.0);
            f[6] = c.hit_rank.map_or(0.0, |r| 1.0 / (1.0 + r as f64));
            f[7] = dates.iter().position(|d| *d == when[i]).map_or(0.0, |p| p as f64 / span);
            f[8] = f64::from(u8::from(newest_covering));
            f[9] = f64::from(u8::from(fits(wanted, &c.text, &tw)));
            f[10] = f64::from(u8::from(any_of(&tw, CHANGE_CUES)));
            f[11] = f64::from(u8::from(any_of(&tw, HEDGES)));
            f[12] = f64::from(u8::from(tw.iter().any(|w| RELATIONS.contains(&w.as_str()) && !qset.contains(w.as_str()))));
            f[13] = f64::from(u8::from(asks(&c.text, &tw)));
            // A long turn names many words by chance; the sentence that names most of the question
            // is what speaks of its slot.
            f[14] = sentences(&c.text).iter().map(|s| coverage(s, terms)).max().unwrap_or(0) as f64 / n_terms;
            f[15] = (tw.len() as f64 / 80.0).min(1.0);
            // The kind of value asked for, in the sentence that speaks of the question: a long turn
            // holds a name or a date somewhere by chance.
            f[16] = f64::from(u8::from(best_fits[i]));
            Candidate { answer: c.answer, text: c.text, features: f }
        })
        .collect()
}

/// The linear score of a candidate.
fn score(features: &[f64; N]) -> f64 {
    features.iter().zip(WEIGHTS).map(|(f, w)| f * w).sum()
}

/// Puts the best candidate first when it is not already: the others keep their order after it.
pub(super) fn lead(candidates: Vec<Candidate>, answers: &mut Vec<Answer>) {
    #[cfg(feature = "internals")]
    dump::record(&candidates);
    let Some(best) = candidates.into_iter().max_by(|a, b| score(&a.features).total_cmp(&score(&b.features)).then(a.features[0].total_cmp(&b.features[0]))) else { return };
    if best.features[0] > 0.0 {
        return;
    }
    answers.retain(|a| a.evidence != best.answer.evidence);
    answers.insert(0, best.answer);
}

/// The candidates of each `lead`, kept for the trainer (`internals` only).
#[cfg(feature = "internals")]
pub mod dump {
    use std::cell::RefCell;

    use super::{Candidate, N};

    thread_local! {
        static LAST: RefCell<Vec<(String, [f64; N], &'static str)>> = const { RefCell::new(Vec::new()) };
    }

    pub(super) fn record(c: &[Candidate]) {
        LAST.with(|l| *l.borrow_mut() = c.iter().map(|c| (c.text.clone(), c.features, c.answer.state.as_str())).collect());
    }

    /// The candidates (text, features, state) of the last `lead` on this thread, cleared. A turn
    /// is `deleted` where the question meets a value withdrawn from it (`recall::said`).
    pub fn take() -> Vec<(String, [f64; N], &'static str)> {
        LAST.with(|l| std::mem::take(&mut *l.borrow_mut()))
    }
}

#[cfg(test)]
mod tests {
    use super::{asked, asks, fits, words, Asked};

    #[test]
    fn the_kind_of_value_a_question_asks_for_comes_from_its_wh_word_or_its_time_words() {
        let kind = |q: &str| asked(&words(q));
        assert!(kind("who's maud's manager") == Asked::Person);
        assert!(kind("release day?") == Asked::Time, "a slot named by a time word");
        assert!(kind("When do we fly out?") == Asked::Time);
        assert!(kind("how many rooms did we book") == Asked::Number);
        assert!(kind("Which carrier takes our orders?") == Asked::Name);
        assert!(kind("tell me about the trip") == Asked::Other);
    }

    #[test]
    fn a_value_of_the_asked_kind_is_recognized_by_its_shape() {
        let fit = |k: Asked, t: &str| fits(k, t, &words(t));
        assert!(fit(Asked::Person, "reports to Ezra now"));
        assert!(!fit(Asked::Person, "reports to the ops lead now"));
        assert!(fit(Asked::Time, "thu kept colliding, tuesday from here on"));
        assert!(fit(Asked::Time, "pickup moved to 13:45"));
        assert!(!fit(Asked::Time, "the release notes are long"));
        assert!(fit(Asked::Number, "we settled on $11 a week"));
        assert!(!fit(Asked::Other, "Anything at All 42"));
    }

    #[test]
    fn a_turn_asks_by_its_mark_or_its_opening_word() {
        let ask = |t: &str| asks(t, &words(t));
        assert!(ask("is it bad to swim right after taking it"));
        assert!(ask("what's the 50/30/20 thing for budgeting"));
        assert!(ask("we open at 6:45 now, ok?"));
        assert!(!ask("we open at 6:45 now"));
    }
}
