//! Whom "his" / "her" / "their" at the head of a statement points at: the last person the turn
//! named before it ("our intern Priyanka Shah started Monday. her personal cell is …" → Priyanka
//! Shah's personal cell). A slot read from "her cell" alone would be the user's own, which is the
//! worst reading: a question about the user's number would find the intern's.
//!
//! A person is a name (capitalized words, from `spans`) or a relative the user names by role ("my
//! daughter"). Without one in the turn the statement is left as it was said.

use super::spans::{value_spans, SpanKind};
use super::text::words;

/// Possessive pronouns that may open a statement about someone else.
const POSSESSIVES: &[&str] = &["his", "her", "their"];

/// Nouns for people by their relation to the speaker ("my daughter", "our intern").
pub(super) const PEOPLE: &[&str] = &[
    "sister",
    "brother",
    "son",
    "daughter",
    "wife",
    "husband",
    "partner",
    "boyfriend",
    "girlfriend",
    "friend",
    "mom",
    "mum",
    "dad",
    "mother",
    "father",
    "kid",
    "child",
    "cousin",
    "aunt",
    "uncle",
    "niece",
    "nephew",
    "grandma",
    "grandpa",
    "neighbor",
    "neighbour",
    "roommate",
    "flatmate",
    "colleague",
    "coworker",
    "boss",
    "intern",
    "manager",
    "mentor",
    "teacher",
    "tutor",
    "landlord",
    "landlady",
    "doctor",
    "nanny",
    "babysitter",
    "assistant",
    "teammate",
    "lead",
];

/// `sentence` with an opening possessive pronoun replaced by the person `before` (the turn's
/// earlier text) last named, or None when it opens otherwise or names no one.
pub fn resolved(sentence: &str, before: &str) -> Option<String> {
    let first = sentence.split_whitespace().next()?;
    let lower = first.to_ascii_lowercase();
    if !POSSESSIVES.contains(&lower.as_str()) {
        return None;
    }
    let who = last_person(before)?;
    Some(format!("{who}'s{}", &sentence[first.len()..]))
}

/// The last person `text` names: a name of two words or more, or a single name that does not
/// open its sentence, or "my / our" + a relation noun.
fn last_person(text: &str) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    let mut consider = |at: usize, who: String| {
        if best.as_ref().is_none_or(|(b, _)| at >= *b) {
            best = Some((at, who));
        }
    };
    for s in value_spans(text) {
        let several = s.text.split_whitespace().count() >= 2;
        let opens = s.at == 0 || text[..s.at].trim_end().ends_with(['.', '!', '?', '\n']);
        if s.kind == SpanKind::Name && (several || !opens) && !s.text.chars().any(|c| c.is_ascii_digit()) {
            consider(s.at, s.text.trim_end_matches("'s").to_string());
        }
    }
    let ws: Vec<(usize, &str)> = word_offsets(text);
    for pair in ws.windows(2) {
        let owner = pair[0].1.to_ascii_lowercase();
        let noun = words(pair[1].1).into_iter().next().unwrap_or_default();
        if ["my", "our"].contains(&owner.as_str()) && PEOPLE.contains(&noun.as_str()) {
            consider(pair[0].0, format!("{} {}", pair[0].1, noun));
        }
    }
    best.map(|(_, who)| who)
}

fn word_offsets(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((s, &text[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::resolved;

    #[test]
    fn a_possessive_takes_the_person_named_last() {
        assert_eq!(
            resolved("her personal cell is 07700 900412", "our intern Priyanka Shah started Monday!! she's on assays."),
            Some("Priyanka Shah's personal cell is 07700 900412".into())
        );
        assert_eq!(resolved("His end date is August 29", "I'm mentoring our intern, Dario Mendez."), Some("Dario Mendez's end date is August 29".into()));
        assert_eq!(resolved("her teacher is Ms. Quint", "my daughter started school"), Some("my daughter's teacher is Ms. Quint".into()));
    }

    #[test]
    fn without_a_person_the_sentence_stays() {
        assert_eq!(resolved("her cell is 555-0182", "long day today."), None);
        assert_eq!(resolved("my cell is 555-0182", "Priyanka Shah started."), None);
    }
}
