//! A condition said earlier comes true. "If Noor ever went to Brookhollow Academy she'd take the
//! Route 9 shuttle" names the alternative to a kept value ahead of time; weeks later "Noor started
//! at Brookhollow Academy" says no change word and names no old value, yet it is the change the
//! condition was about. The alternative is read back from the conversation's earlier conditions,
//! and what it replaces is the one kept value the condition's turn named of the same form.
//!
//! Plan → calls → apply: the sentences of this turn are read for names placed where a slot's value
//! goes (the object of "at", "to", "into", "in", "with", "on"); each is looked up in the earlier
//! user turns' conditions; the kept values those turns named are the candidates; one candidate
//! across the turn becomes a change, anything less certain authors nothing.

use super::confidence::HEDGES;
use super::form::{form_of, Form};
use super::people::is_person_noun;
use super::roots::change_on;
use super::rules::conditional_upstream;
use super::slot::{areas, mentions_value, names_value};
use super::spans::{value_spans, without_possessive, SpanKind, ValueSpan};
use super::text::{find_word, sentences, starts_in_lower_case, words};
use super::{Authored, KnownThread, PastTurn, Turn};

/// How sure a change read this way is: the condition said what would come, this turn says it came;
/// the old value is inferred from the condition's turn.
const REALIZED_CONFIDENCE: f64 = 0.55;
/// How many earlier user turns a name is looked up in (newest first): the cost of a turn stays
/// bounded however long the conversation grows.
const LOOK_BACK: usize = 400;
/// Prepositions whose object is where the subject now is or goes.
const ARRIVAL: &[&str] = &["at", "to", "into", "in", "with", "on", "onto"];
/// Words that may stand between the preposition and the name.
const BETWEEN: &[&str] = &["a", "an", "the", "our", "my", "new"];
/// Words that make a statement no report of what is: a question, a plan, a negation.
const NOT_SO: &[&str] = &["if", "not", "never", "no", "maybe", "might", "would", "could", "should", "unless", "whether", "considering", "thinking"];

/// The change a realized condition makes, when exactly one kept value is what it replaces.
pub(super) fn realized_alternative(turn: &Turn, known: &[KnownThread], history: &[PastTurn], authored: &[Authored]) -> Option<Authored> {
    let lower_case_writer = starts_in_lower_case(turn.text);
    let mut found: Vec<(String, &KnownThread, String, String)> = Vec::new();
    for sentence in sentences(turn.text) {
        if sentence.trim_end().ends_with('?') || !is_plain_report(sentence) {
            continue;
        }
        for name in value_spans(sentence).into_iter().filter(|s| s.kind == SpanKind::Name && (lower_case_writer || !s.opens_sentence_alone())) {
            if !after_arrival(sentence, &name) {
                continue;
            }
            let new = without_possessive(&name.text).to_string();
            let Some(replaced) = replaced_by_condition(&new, known, history) else { continue };
            if said_of_another(sentence, &name) {
                continue;
            }
            for (thread, old) in replaced {
                if said_of_another_person(sentence, &name, &thread.thread, history) {
                    continue;
                }
                if !found.iter().any(|(n, k, _, _)| *n == new && k.thread == thread.thread) {
                    found.push((new.clone(), thread, old, sentence.to_string()));
                }
            }
        }
    }
    let [(new, thread, old, sentence)] = found.as_slice() else { return None };
    // This turn's rules already said something of that thread, or it holds the name already.
    if authored.iter().any(|a| a.thread.as_deref() == Some(thread.thread.as_str())) || thread.values.last().is_some_and(|v| names_value(v, new)) {
        return None;
    }
    let area = areas(&thread.thread.replace('-', " "), None);
    let area = if area.is_empty() { vec![thread.thread.clone()] } else { area };
    let doubt = format!("{new} was named earlier as what would follow a change; taken as replacing {old}");
    Some(change_on(turn, sentence, thread.thread.clone(), new, area, REALIZED_CONFIDENCE, doubt))
}

/// A sentence that reports what is: no condition, plan, hedge or negation in it.
fn is_plain_report(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let ws = words(&lower);
    !ws.iter().any(|w| NOT_SO.contains(&w.as_str()) || w.ends_with("n't")) && !HEDGES.iter().any(|h| find_word(&lower, h, 0).is_some())
}

/// Whether the name is the object of a preposition of arrival ("started at X", "got dad into X").
fn after_arrival(sentence: &str, name: &ValueSpan) -> bool {
    let before = words(sentence.get(..name.at).unwrap_or(""));
    before.iter().rev().find(|w| !BETWEEN.contains(&w.as_str())).is_some_and(|w| ARRIVAL.contains(&w.as_str()))
}

/// Whether the clause that places the name says it of others: "they rehearse at the Rattle Room"
/// (a friend's band) after "if we ever ended up at the Rattle Room". The clause's first personal
/// pronoun is its subject; `they` and `you` are others. A name there is not judged: the person a
/// condition was about is often named in one turn and called "she" or "my dad" in another.
fn said_of_another(sentence: &str, name: &ValueSpan) -> bool {
    let pronoun = words(placing_clause(sentence, name)).into_iter().find(|w| ["i", "we", "he", "she", "they", "you", "i'm", "we're", "they're", "you're"].contains(&w.as_str()));
    pronoun.is_some_and(|w| ["they", "you", "they're", "you're"].contains(&w.as_str()))
}

/// The words of the sentence's clause up to the name, the part that says whose value it is.
fn placing_clause<'s>(sentence: &'s str, name: &ValueSpan) -> &'s str {
    let before = sentence.get(..name.at).unwrap_or("");
    before.rsplit([',', ';', '—', '(', ')']).next().unwrap_or(before)
}

/// Whether the clause placing the name is about someone other than the person whose slot the
/// thread is: "(My sister's boy Callum is already at Brookhollow Academy …)" is no change of
/// `noor-school`. A thread is a person's when its first word is a name the user wrote capitalized
/// inside a sentence; the clause is another's when it names a person (a relative, or a name
/// besides the placed one) and never that one.
fn said_of_another_person(sentence: &str, name: &ValueSpan, thread: &str, history: &[PastTurn]) -> bool {
    let Some(owner) = thread.split('-').next().filter(|o| thread.contains('-') && o.chars().count() >= 2) else { return false };
    let clause = placing_clause(sentence, name);
    let clause_words = words(clause);
    if clause_words.iter().any(|w| w == owner) {
        return false;
    }
    let names_person = clause_words.iter().any(|w| is_person_noun(w)) || value_spans(clause).iter().any(|s| s.kind == SpanKind::Name && !s.opens_sentence_alone());
    names_person && history.iter().rev().take(LOOK_BACK).any(|p| capitalized_inside(p.text, owner))
}

/// Whether `text` writes `word` (lower case) capitalized somewhere other than a sentence's start.
fn capitalized_inside(text: &str, word: &str) -> bool {
    let mut prev_ends = true;
    for w in text.split_whitespace() {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        let bare = bare.strip_suffix("'s").unwrap_or(bare);
        if !prev_ends && bare.starts_with(char::is_uppercase) && bare.to_lowercase() == word {
            return true;
        }
        prev_ends = w.ends_with(['.', '!', '?', ':']);
    }
    false
}

/// The kept values an earlier condition naming `new` was about:
/// for each earlier user turn (newest first) with a condition whose own words name `new`, the
/// independent kept values of a name's form that turn named besides it. The first such turn decides.
fn replaced_by_condition<'k>(new: &str, known: &'k [KnownThread], history: &[PastTurn]) -> Option<Vec<(&'k KnownThread, String)>> {
    for past in history.iter().rev().take(LOOK_BACK) {
        // Most turns never name it: a plain search first, the sentence reading only where it does.
        if !names_alternative(past.text, new) {
            continue;
        }
        if !sentences(past.text).into_iter().any(|s| conditional_upstream(s).is_some_and(|c| names_alternative(&c, new))) {
            continue;
        }
        let past_lower = past.text.to_lowercase();
        let named: Vec<(&KnownThread, String)> = known
            .iter()
            .filter(|k| !k.dependent)
            .filter_map(|k| {
                let v = k.values.last()?;
                let named = form_of(v) == Form::Name && !names_value(v, new) && !names_value(new, v) && names_kept(&past_lower, v);
                named.then(|| (k, v.clone()))
            })
            .collect();
        return Some(named);
    }
    None
}

/// Whether a condition's words name the alternative: the whole name, or its first word when that
/// word is long enough to be its own ("the Willowmere thing" for Willowmere Academy).
fn names_alternative(condition: &str, name: &str) -> bool {
    names_kept(&condition.to_lowercase(), name)
}

/// Whether a turn (in lower case) names a kept value: the whole, or its first word.
fn names_kept(text_lower: &str, value: &str) -> bool {
    if mentions_value(text_lower, value).is_some_and(|s| s >= 0.7) {
        return true;
    }
    let first = words(value).into_iter().next().unwrap_or_default();
    first.chars().count() >= 5 && find_word(text_lower, &first, 0).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(thread: &str, value: &str) -> KnownThread {
        KnownThread { thread: thread.into(), dependent: false, values: vec![value.into()], order: 0 }
    }

    fn turn(text: &str) -> Turn<'_> {
        Turn { id: "t9", role: "user", speaker: None, date: None, text }
    }

    fn past(text: &str) -> PastTurn<'_> {
        PastTurn { id: "t1".into(), text, date: None }
    }

    #[test]
    fn an_alternative_named_by_an_earlier_condition_replaces_the_value_that_turn_named() {
        let known = vec![kept("school", "Larkspur Elementary"), kept("teacher", "Ms. Varga")];
        let history = [past("She rides the Route 14B bus, only for the Larkspur catchment. If Noor ever went to Brookhollow Academy she'd take the Route 9 shuttle.")];
        let a = realized_alternative(&turn("Big news 🎉 Noor started at Brookhollow Academy last Monday!"), &known, &history, &[]).expect("a change");
        assert_eq!((a.thread.as_deref(), a.value.as_deref(), a.rule), (Some("school"), Some("Brookhollow Academy"), "change"));
        // The first word of the name is enough in the condition ("the Willowmere thing").
        let history = [past("Larkspur has Noor on Route 14. if the Willowmere thing ever comes through she'd ride the Blue Line shuttle")];
        let a = realized_alternative(&turn("the transfer came through!!! Noor had her first day at Willowmere Academy today"), &known, &history, &[]);
        assert_eq!(a.and_then(|a| a.value), Some("Willowmere Academy".into()));
    }

    #[test]
    fn no_change_without_the_condition_a_report_or_one_old_value() {
        let known = vec![kept("school", "Larkspur Elementary"), kept("club", "Chess Club")];
        let condition = [past("Larkspur is great. If Noor ever went to Brookhollow Academy she'd take the Route 9 shuttle.")];
        // Never named in a condition: nothing.
        let plain = [past("Larkspur is great. Her cousin goes to Brookhollow Academy.")];
        assert_eq!(realized_alternative(&turn("Noor started at Brookhollow Academy!"), &known, &plain, &[]), None);
        // Still a plan, a question, a negation.
        for text in ["Noor might start at Brookhollow Academy next year", "Should Noor move to Brookhollow Academy?", "Noor didn't get into Brookhollow Academy"] {
            assert_eq!(realized_alternative(&turn(text), &known, &condition, &[]), None, "{text}");
        }
        // A wide dash before the name is no trouble for the clause's reading.
        assert_eq!(realized_alternative(&turn("Big news — they started at Brookhollow Academy"), &known, &condition, &[]), None);
        // Said of others ("they started at …").
        for text in ["My neighbours' kids go there, they started at Brookhollow Academy", "you went to Brookhollow Academy"] {
            assert_eq!(realized_alternative(&turn(text), &known, &condition, &[]), None, "{text}");
        }
        // Said of another person than the one whose slot it is: Noor's school is not Callum's.
        let hers = vec![kept("noor-school", "Larkspur Elementary")];
        let aside = "(My sister's boy Callum is already at Brookhollow Academy and he loves it)";
        assert_eq!(realized_alternative(&turn(aside), &hers, &condition, &[]), None);
        let a = realized_alternative(&turn("Noor started at Brookhollow Academy!"), &hers, &condition, &[]);
        assert_eq!(a.and_then(|a| a.thread), Some("noor-school".into()), "her own change still is one");
        // Not where a value goes ("Brookhollow Academy called").
        assert_eq!(realized_alternative(&turn("Brookhollow Academy called about the waitlist"), &known, &condition, &[]), None);
        // Two kept values named by the condition's turn: which one is replaced is not said.
        let two = [past("Larkspur and the Chess Club are both great. If Noor ever went to Brookhollow Academy she'd take the shuttle.")];
        assert_eq!(realized_alternative(&turn("Noor started at Brookhollow Academy!"), &known, &two, &[]), None);
    }
}
