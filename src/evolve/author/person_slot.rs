//! A person is whose slot it is, never the slot. "Noor goes to Larchmont Elementary", "my dad
//! lives at Birchwood Manor", "Maud is on the platform team": read as slot = subject, every fact
//! about Noor would share the thread `noor`, and her bus would supersede her school. The slot is
//! the person and what the fact is about: a school or a team when the value says so by its kind
//! (stable across changes: the next school is a school too), else what the verb does ("lives" →
//! home, "works" → employer, "goes" → go). A bare copula with nothing naming the slot is left as
//! it was said: there is no word to name it by.

use super::people::is_person_noun;
use super::spans::{value_spans, SpanKind};
use super::text::words;

/// Closing words of a value that make it a school, whatever its name.
const SCHOOL_WORDS: &[&str] =
    &["school", "elementary", "primary", "academy", "kindergarten", "nursery", "preschool", "daycare", "montessori", "gymnasium", "college", "university"];

/// Closing words of a value that make it a group someone belongs to.
const GROUP_WORDS: &[&str] = &["team", "squad", "crew", "group", "department", "unit", "band", "league", "choir"];

/// Closing words of a value that make it where someone lives.
const HOME_WORDS: &[&str] = &["house", "manor", "home", "apartments", "residence", "residences", "towers", "lofts"];

/// The kinds of a person's slot, each with the closing words that say it.
const KINDS: &[(&str, &[&str])] = &[("school", SCHOOL_WORDS), ("team", GROUP_WORDS), ("home", HOME_WORDS)];

/// The kind a value's closing word says ("academy" → school).
fn kind_of_word(w: &str) -> Option<&'static str> {
    KINDS.iter().find(|(_, closing)| closing.contains(&w)).map(|(kind, _)| *kind)
}

/// Determiners that may open a person's phrase ("my son Theo", "our intern").
const OPENERS: &[&str] = &["my", "our", "the"];

/// Whether a subject phrase names a person other than the speaker: a name (capitalized words, no
/// kind word of its own), or a relative or role the user names them by ("my son", "dad", "our
/// intern Sam").
pub fn is_person(subject: &str) -> bool {
    let ws = words(subject);
    let raw: Vec<&str> = subject.split_whitespace().collect();
    if ws.is_empty() || ws.len() > 4 || raw.len() != ws.len() {
        return false;
    }
    let start = usize::from(OPENERS.contains(&ws[0].as_str()));
    let rest = &ws[start..];
    if rest.is_empty() {
        return false;
    }
    if rest.iter().any(|w| is_person_noun(w)) {
        // "my son Theo", "dad": the noun first, a name after it at most.
        return is_person_noun(&rest[0]) && raw[start + 1..].iter().all(|w| w.starts_with(char::is_uppercase));
    }
    // A bare name of one or two capitalized words that says no kind ("Noor", "Jun Park", not
    // "Larchmont Elementary").
    start == 0
        && rest.len() <= 2
        && raw.iter().all(|w| w.starts_with(char::is_uppercase) && w.chars().skip(1).all(|c| c.is_lowercase() || c == '\'' || c == '-'))
        && !rest.iter().any(|w| kind_of_word(w).is_some())
}

/// The slot a person's fact fills, and its value: the person and the kind of the value, or the
/// verb's slot. `verb` is the clause's verb in lower case ("goes", "is"); `copula` whether it is a
/// form of "to be". A name of that kind inside the value is the value ("third grade at Larkspur
/// Elementary" → Larkspur Elementary). None when nothing names the slot beyond the person.
pub fn person_slot(subject: &str, verb: &str, copula: bool, value: &str) -> Option<(String, String)> {
    if !is_person(subject) {
        return None;
    }
    let person = person_words(subject);
    let (noun, value) = match of_kind(value) {
        Some((noun, named)) => (noun.to_string(), named),
        // A lone capitalized word may be a noun opening the sentence ("Orders go out with …"):
        // only a value of a person's kind makes it someone's.
        None if copula || !surely_person(subject) => return None,
        None => (verb_noun(verb)?, value.to_string()),
    };
    Some((format!("{person} {noun}"), value))
}

/// The kind of slot a value says it fills (school, team), with the words that say it: a name
/// closing with the kind's word, or the value itself when it closes so ("the platform team").
pub fn of_kind(value: &str) -> Option<(&'static str, String)> {
    let named = value_spans(value).into_iter().filter(|s| s.kind == SpanKind::Name).find_map(|s| Some((kind_of_word(words(&s.text).last()?)?, s.text)));
    named.or_else(|| Some((kind_of_word(words(value).last()?)?, value.to_string())))
}

/// A person beyond doubt: a relative or role ("my dad"), or a name of two words ("Jun Park").
fn surely_person(subject: &str) -> bool {
    let ws = words(subject);
    ws.iter().any(|w| is_person_noun(w)) || ws.len() == 2
}

/// The person's words without an opening determiner ("my son Theo" → "son Theo").
fn person_words(subject: &str) -> String {
    let raw: Vec<&str> = subject.split_whitespace().collect();
    let start = usize::from(raw.first().is_some_and(|w| OPENERS.contains(&w.to_ascii_lowercase().as_str())));
    raw[start..].join(" ")
}

/// What a verb says the slot is: its base form, or the thing it names ("lives" → home).
fn verb_noun(verb: &str) -> Option<String> {
    let base = match verb {
        "goes" | "went" | "go" => "go".to_string(),
        "does" | "did" => return None,
        "has" | "had" | "have" => return None,
        v if v.ends_with("ies") => format!("{}y", &v[..v.len() - 3]),
        v if v.ends_with("ches") || v.ends_with("shes") || v.ends_with("sses") => v[..v.len() - 2].to_string(),
        v if v.ends_with('s') && !v.ends_with("ss") => v[..v.len() - 1].to_string(),
        v => v.to_string(),
    };
    Some(super::rules::verb_slot(&base))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_is_a_name_or_a_relative_never_a_place() {
        for p in ["Noor", "Jun Park", "my son Theo", "Dad", "our intern", "my daughter"] {
            assert!(is_person(p), "{p}");
        }
        for p in ["Larchmont Elementary", "the platform", "our backups", "The Kessler Cohort Files", "NAS02", "my son's school"] {
            assert!(!is_person(p), "{p}");
        }
    }

    #[test]
    fn each_fact_about_a_person_gets_its_own_slot() {
        let slot = |s: &str, verb: &str, copula: bool, v: &str| person_slot(s, verb, copula, v).map(|(slot, v)| format!("{slot} = {v}"));
        assert_eq!(slot("Noor", "goes", false, "Larchmont Elementary").as_deref(), Some("Noor school = Larchmont Elementary"));
        assert_eq!(slot("Theo", "is", true, "third grade at Brookfield Primary").as_deref(), Some("Theo school = Brookfield Primary"));
        assert_eq!(slot("Maud", "is", true, "the platform team").as_deref(), Some("Maud team = the platform team"));
        assert_eq!(slot("my dad", "lives", false, "Birchwood Manor").as_deref(), Some("dad home = Birchwood Manor"));
        assert_eq!(slot("grandpa", "is", true, "at Linden Court Residences now").as_deref(), Some("grandpa home = Linden Court Residences"));
        assert_eq!(slot("Jun Park", "goes", false, "Maplewood Animal Hospital").as_deref(), Some("Jun Park go = Maplewood Animal Hospital"));
        // A lone capitalized word by its verb alone may be a noun opening the sentence.
        assert_eq!(person_slot("Orders", "go", false, "ParcelJet"), None);
        // Nothing names the slot: left as said.
        assert_eq!(person_slot("Jonas", "is", true, "Brightwell Bakery"), None);
        // Not a person: not this rule's.
        assert_eq!(person_slot("Larchmont Elementary", "goes", false, "Route 14"), None);
    }
}
