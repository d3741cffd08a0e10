//! Whom "his" / "her" / "their" at the head of a statement points at: the last person the turn
//! named before it ("our intern Priyanka Shah started Monday. her personal cell is …" → Priyanka
//! Shah's personal cell). A slot read from "her cell" alone would be the user's own, which is the
//! worst reading: a question about the user's number would find the intern's.
//!
//! A person is a name (capitalized words, from `spans`) or a relative the user names by role ("my
//! daughter"). Without one in the turn the statement is left as it was said.

use super::people::is_person_noun;
use super::person_slot::of_kind;
use super::relation::word_spans;
use super::spans::{value_spans, SpanKind};
use super::text::words;

/// Possessive pronouns that may open a statement about someone else.
const POSSESSIVES: &[&str] = &["his", "her", "their"];

/// `sentence` with an opening possessive pronoun replaced by the person the conversation is most
/// about just before it: `before` (this turn's earlier text) and `earlier` (the user's previous
/// turns, newest first). None when it opens otherwise or names no one.
pub fn resolved(sentence: &str, before: &str, earlier: &[&str]) -> Option<String> {
    let first = sentence.split_whitespace().next()?;
    let lower = first.to_ascii_lowercase();
    if !POSSESSIVES.contains(&lower.as_str()) {
        return None;
    }
    let who = salient_person(before, earlier)?;
    Some(format!("{who}'s{}", &sentence[first.len()..]))
}

/// A clause opening with "he" / "she" that says where the person belongs by a kind of its own
/// ("she's in third grade at Larkspur Elementary", "He's on the Payments squad"), with the pronoun
/// replaced by the person the talk is about. Only then: "she's 12" says nothing a slot can hold.
/// `before` gives the text said before the clause, built only when the clause qualifies.
pub fn subject_resolved(clause: &str, before: impl FnOnce() -> String, earlier: &[&str]) -> Option<String> {
    let trimmed = clause.trim_start();
    let first = trimmed.split_whitespace().next()?;
    let lower = first.to_lowercase().replace('’', "'");
    let rest = &trimmed[first.len()..];
    let tail = match lower.as_str() {
        "he's" | "she's" => format!(" is{rest}"),
        "he" | "she" => rest.to_string(),
        _ => return None,
    };
    of_kind(&tail)?;
    let who = salient_person(&before(), earlier)?;
    Some(format!("{who}{tail}"))
}

/// The person named most in `before` and `earlier` (a mention in this turn counts double), ties to
/// the latest: a pronoun points at whom the talk is about, not at the last capitalized word (a
/// project, a place). People are keyed by their first name, and the fullest form said is used.
fn salient_person(before: &str, earlier: &[&str]) -> Option<String> {
    // (key, fullest form, weight, recency)
    let mut people: Vec<(String, String, f64, usize)> = Vec::new();
    let texts = std::iter::once((before, 2.0)).chain(earlier.iter().take(3).map(|t| (*t, 1.0)));
    let n = 1 + earlier.len().min(3);
    for (age, (text, weight)) in texts.enumerate() {
        for (at, who) in people_in(text) {
            let key = who.split_whitespace().next().unwrap_or_default().to_lowercase();
            // Newer texts and later positions rank higher.
            let recency = (n - age) * 1_000_000 + at;
            match people.iter_mut().find(|p| p.0 == key) {
                Some(p) => {
                    p.2 += weight;
                    p.3 = p.3.max(recency);
                    if who.len() > p.1.len() {
                        p.1 = who;
                    }
                }
                None => people.push((key, who, weight, recency)),
            }
        }
    }
    people.into_iter().max_by(|a, b| a.2.total_cmp(&b.2).then(a.3.cmp(&b.3))).map(|p| p.1)
}

/// The people `text` names, with their offsets: names (capitalized words; a single one that opens
/// a sentence only when it owns something, "Dario's first PR"), and "my / our" + a relation noun.
fn people_in(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for s in value_spans(text) {
        let several = s.text.split_whitespace().count() >= 2;
        let opens = s.at == 0 || text[..s.at].trim_end().ends_with(['.', '!', '?', '\n']);
        let owns = text[s.at + s.text.len()..].starts_with("'s");
        if s.kind == SpanKind::Name && (several || !opens || owns) && !s.text.chars().any(|c| c.is_ascii_digit()) {
            out.push((s.at, s.text.trim_end_matches("'s").to_string()));
        }
    }
    let ws = word_spans(text);
    for pair in ws.windows(2) {
        let owner = pair[0].1.to_ascii_lowercase();
        let noun = words(pair[1].1).into_iter().next().unwrap_or_default();
        if ["my", "our"].contains(&owner.as_str()) && is_person_noun(&noun) {
            out.push((pair[0].0, format!("{} {}", pair[0].1, noun)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{resolved, subject_resolved};

    #[test]
    fn a_possessive_takes_the_person_the_talk_is_about() {
        let r = |s: &str, before: &str| resolved(s, before, &[]);
        assert_eq!(
            r("her personal cell is 07700 900412", "our intern Priyanka Shah started Monday!! she's on assays."),
            Some("Priyanka Shah's personal cell is 07700 900412".into())
        );
        assert_eq!(r("His end date is August 29", "I'm mentoring our intern, Dario Mendez."), Some("Dario Mendez's end date is August 29".into()));
        assert_eq!(r("her teacher is Ms. Quint", "my daughter started school"), Some("my daughter's teacher is Ms. Quint".into()));
        // Whom the talk is about, not the last capitalized word.
        let earlier = ["Dario moved to Ibis this week.", "Dario's first PR got merged.", "Our intern is Dario Mendez."];
        assert_eq!(resolved("His end date is August 29", "", &earlier), Some("Dario Mendez's end date is August 29".into()));
    }

    #[test]
    fn he_or_she_belonging_somewhere_takes_the_person_the_talk_is_about() {
        let r = |s: &str, before: &str| subject_resolved(s, || before.to_string(), &[]);
        assert_eq!(r("she's in third grade at Larkspur Elementary", "my daughter Noor is 8 and").as_deref(), Some("Noor is in third grade at Larkspur Elementary"));
        assert_eq!(r("He's on the Payments squad", "our summer intern, Dario Mendez.").as_deref(), Some("Dario Mendez is on the Payments squad"));
        // Nothing of a person's kind: left as said.
        assert_eq!(r("She's 12 and negotiating", "Emi Sato gets an allowance."), None);
        assert_eq!(r("she's at Larkspur Elementary", "long day."), None);
    }

    #[test]
    fn without_a_person_the_sentence_stays() {
        assert_eq!(resolved("her cell is 555-0182", "long day today.", &[]), None);
        assert_eq!(resolved("my cell is 555-0182", "Priyanka Shah started.", &[]), None);
    }
}
