//! Where someone works, said with the verb or with the role: "Sam works at Brightline", "my
//! partner Leonie is an ICU nurse at Halvard General", "I'm a barista at Kettle & Co". The place
//! is the value and the slot is that person's employer, so the role never becomes a slot of the
//! user's ("the user's nurse is Leonie") and the person never becomes the place's value.

use super::relation::word_spans;
use super::spans::{value_spans, SpanKind};

/// A workplace read from one clause.
#[derive(Clone, Debug, PartialEq)]
pub struct Employment {
    /// The subject's words without a possessive ("partner Leonie"); empty for the user.
    pub subject: String,
    /// The subject is `my …` or `I` (the user's side), `our …` (the team's).
    pub team: bool,
    pub value: String,
}

/// Words that make the clause something other than a standing fact: a plan, a hedge, a
/// condition, a negation, a past.
const NOT_PLAIN: &[&str] =
    &["if", "would", "could", "might", "maybe", "will", "not", "no", "never", "longer", "used", "was", "were", "until", "soon", "next", "hoping", "wants", "applied"];
/// Prepositions after which the workplace is named.
const AT: &[&str] = &["at", "for", "with"];
/// A role is a short noun phrase.
const ROLE_MAX: usize = 3;
const SUBJECT_MAX: usize = 4;

/// The workplace a clause states, if it has this shape.
pub fn employment(clause: &str) -> Option<Employment> {
    let ws = word_spans(clause);
    let lw: Vec<String> = ws.iter().map(|(_, w)| w.to_lowercase()).collect();
    if lw.iter().any(|w| NOT_PLAIN.contains(&w.as_str()) || w.ends_with("n't")) {
        return None;
    }
    // The verb: "works at" / "work for", or a copula and an indefinite role ("is an ICU nurse at").
    let (verb, prep) = (0..lw.len().min(SUBJECT_MAX + 2)).find_map(|v| {
        let w = lw[v].as_str();
        if ["works", "work"].contains(&w) && lw.get(v + 1).is_some_and(|p| AT.contains(&p.as_str())) {
            return Some((v, v + 1));
        }
        let copula = ["is", "am"].contains(&w) || ["i'm", "im"].contains(&w);
        if copula && lw.get(v + 1).is_some_and(|a| a == "a" || a == "an") {
            let p = (v + 3..=(v + 2 + ROLE_MAX).min(lw.len().saturating_sub(1))).find(|&p| AT.contains(&lw[p].as_str()))?;
            return Some((v, p));
        }
        None
    })?;
    // The subject: the user, or a possessive phrase, or a name (capitalized as written).
    let first_person = ["i", "i'm", "im"].contains(&lw[0].as_str()) && (verb == 0 || lw[0] == "i" && verb == 1);
    let subject_words: Vec<&str> = if ["i'm", "im"].contains(&lw[verb].as_str()) { Vec::new() } else { ws[..verb].iter().map(|(_, w)| *w).collect() };
    let possessive = subject_words.first().is_some_and(|w| ["my", "our"].contains(&w.to_lowercase().as_str()));
    let named = !subject_words.is_empty() && subject_words.iter().all(|w| w.starts_with(char::is_uppercase));
    if !(first_person || possessive || named) || subject_words.len() > SUBJECT_MAX {
        return None;
    }
    // The workplace: the name right after the preposition ("the" allowed).
    let mut at = prep + 1;
    if lw.get(at).is_some_and(|w| w == "the") {
        at += 1;
    }
    let place_at = ws.get(at)?.0;
    let value = value_spans(clause).into_iter().find(|s| s.kind == SpanKind::Name && s.at == place_at && !s.opens_sentence_alone())?;
    let team = subject_words.first().is_some_and(|w| w.eq_ignore_ascii_case("our"));
    let subject =
        if first_person { String::new() } else { subject_words.iter().filter(|w| !["my", "our"].contains(&w.to_lowercase().as_str())).copied().collect::<Vec<_>>().join(" ") };
    Some(Employment { subject, team, value: value.text.trim_end_matches("'s").to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Option<(String, String)> {
        employment(s).map(|e| (e.subject, e.value))
    }

    #[test]
    fn a_workplace_is_read_with_the_verb_or_the_role() {
        let r = |s: &str, v: &str| Some((s.to_string(), v.to_string()));
        assert_eq!(read("My partner Leonie is an ICU nurse at Halvard General"), r("partner Leonie", "Halvard General"));
        assert_eq!(read("Sam works at Brightline Labs"), r("Sam", "Brightline Labs"));
        assert_eq!(read("my sister is a teacher at Brookfield High, she loves it"), r("sister", "Brookfield High"));
        assert_eq!(read("I'm a barista at Kettle Corner"), r("", "Kettle Corner"));
        assert_eq!(read("I work for the Ridgeway Trust"), r("", "Ridgeway Trust"));
    }

    #[test]
    fn plans_pasts_and_other_shapes_are_left_to_other_rules() {
        for s in [
            "If she ever left Halvard she'd work at Little Fern",
            "Sam used to work at Brightline Labs",
            "Sam no longer works at Brightline Labs",
            "Ana Lima is the product owner",
            "the ticket is a blocker for Release Nine",
            "she is a nurse",
        ] {
            assert_eq!(read(s), None, "{s}");
        }
    }
}
