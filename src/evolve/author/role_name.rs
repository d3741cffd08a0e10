//! A role noun set right before the name that fills it, with no comma between: "their technician
//! Piotr Wasik", "the agency Viajes Albatros", "my part-timer Wren", "our in-house engineer Kit
//! Moravec records the demos". Wherever the phrase stands in the clause (subject or object) and
//! whatever the verb, the noun is the slot and the name its value; the comma-set form ("my
//! dentist, Dr. Ferreira, …") is read by the apposition rule.
//!
//! A role said as someone else's (`their`, `his`, `her`) belongs to a party named elsewhere in the
//! sentence ("Tarnow … their technician"): the caller reads that party as what the value depends
//! on. Kin nouns are left out: "my sister Carmen" names a person who is the subject of her own
//! facts, not a value of the user's.

use super::people::held_by_many;
use super::relation::{is_time, looks_like_verb, word_spans};
use super::spans::{value_spans, SpanKind};

/// Whose the role is, as the determiner says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Whose {
    /// `my`
    User,
    /// `our`
    Team,
    /// `their`, `his`, `her`: a party named elsewhere.
    Theirs,
    /// `the`: no owner said.
    Unsaid,
}

/// A role and the name that fills it, read from one clause.
#[derive(Clone, Debug, PartialEq)]
pub struct RoleName {
    pub whose: Whose,
    pub role: String,
    pub name: String,
}

/// A role is a short noun phrase.
const ROLE_MAX: usize = 3;
/// Words that make the clause something other than a plain statement (a plan, a condition, a
/// negation, a past arrangement): the rules for those read it.
const NOT_PLAIN: &[&str] = &["if", "unless", "would", "could", "might", "maybe", "not", "never", "no", "used", "wish", "whether"];
/// Words that cannot stand in a role's noun phrase: they open a clause, join phrases or are verbs
/// of naming ("the guy called Bo" is read by other rules).
const NOT_ROLE: &[&str] = &[
    "and", "or", "but", "of", "to", "for", "with", "at", "in", "on", "from", "by", "about", "as", "is", "are", "was", "were", "be", "been", "has", "have", "had", "called",
    "named", "name", "names", "like", "than", "that", "this", "these", "those", "who", "which", "one", "same", "other", "new", "old", "next", "last", "first",
];
/// Prepositions that make the phrase a place or a time, after which a name may open a clause of
/// its own ("in our house Noor is the boss").
const PREPS: &[&str] = &["in", "at", "on", "from", "to", "with", "for", "by", "of"];

/// The role and its name in a clause, if it has one.
pub fn role_name(clause: &str) -> Option<RoleName> {
    let ws = word_spans(clause);
    let lw: Vec<String> = ws.iter().map(|(_, w)| w.to_lowercase()).collect();
    if lw.iter().any(|w| NOT_PLAIN.contains(&w.as_str()) || w.ends_with("n't") || w.ends_with("'d")) {
        return None;
    }
    let names: Vec<_> =
        value_spans(clause).into_iter().filter(|s| s.kind == SpanKind::Name && !s.opens_sentence_alone() && !is_time(&s.text) && !is_plural_acronym(&s.text)).collect();
    for (d, det) in lw.iter().enumerate() {
        let whose = match det.as_str() {
            "my" => Whose::User,
            "our" => Whose::Team,
            "their" | "his" | "her" => Whose::Theirs,
            "the" => Whose::Unsaid,
            _ => continue,
        };
        // The role: lower-case words up to the name, which must follow within ROLE_MAX words.
        let mut j = d + 1;
        while j < ws.len() && j <= d + ROLE_MAX {
            let (at, w) = ws[j];
            if let Some(name) = names.iter().find(|s| s.at == at) {
                let Some(gap) = between(clause, ws[j - 1], at) else { break };
                let name_end = name.at + name.text.len();
                let after = clause.get(name_end..).unwrap_or("").trim_start();
                let next = ws.iter().find(|(a, _)| *a >= name_end).map(|(_, w)| w.to_lowercase());
                // "included the hotel, Hostal Brisa, near the port": a comma may set the name off
                // when the phrase is no preposition's object and the name ends where it stands.
                let ends = after.is_empty() || after.starts_with([',', '(', '.']) || next.as_deref().is_some_and(|n| PREPS.contains(&n) || n == "near");
                let set_off = gap == "," && ends && (d == 0 || !PREPS.contains(&lw[d - 1].as_str()));
                if j == d + 1 || !(gap.is_empty() || set_off) {
                    break;
                }
                let role: Vec<&str> = lw[d + 1..j].iter().map(String::as_str).collect();
                if role.iter().any(|r| held_by_many(r)) {
                    break;
                }
                // After a preposition, a name followed by a verb is the subject of a clause of its own.
                if d > 0 && PREPS.contains(&lw[d - 1].as_str()) && next.is_some_and(|n| looks_like_verb(&n)) {
                    break;
                }
                return Some(RoleName { whose, role: role.join(" "), name: name.text.trim_end_matches("'s").to_string() });
            }
            let lower = w.chars().all(|c| c.is_lowercase() || c == '-');
            // Only spaces between the words: "the cookie :) | love, Mama" is no phrase.
            let gap = between(clause, ws[j - 1], at).is_some_and(str::is_empty);
            if !gap || !lower || NOT_ROLE.contains(&lw[j].as_str()) || !w.chars().any(char::is_alphabetic) {
                break;
            }
            j += 1;
        }
    }
    None
}

/// What stands between a word and the next offset, trimmed; `None` where the offsets do not fall
/// on characters (a word whose quote marks were trimmed).
fn between<'a>(clause: &'a str, word: (usize, &str), next: usize) -> Option<&'a str> {
    clause.get(word.0 + word.1.len()..next).map(str::trim)
}

/// "URLs", "IDs": a plural of an acronym is a common noun.
fn is_plural_acronym(name: &str) -> bool {
    name.len() > 2 && name.ends_with('s') && name[..name.len() - 1].chars().all(|c| c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(s: &str) -> Option<(Whose, String, String)> {
        role_name(s).map(|r| (r.whose, r.role, r.name))
    }

    #[test]
    fn a_role_before_its_name_is_read_wherever_it_stands() {
        let r = |w: Whose, role: &str, name: &str| Some((w, role.to_string(), name.to_string()));
        assert_eq!(read("they send always their technician Piotr Wasik"), r(Whose::Theirs, "technician", "Piotr Wasik"));
        assert_eq!(read("Everything organise the agency Viajes Albatros"), r(Whose::Unsaid, "agency", "Viajes Albatros"));
        assert_eq!(read("our in-house engineer Kit Moravec records the demos"), r(Whose::Team, "in-house engineer", "Kit Moravec"));
        assert_eq!(read("staff is me and my part-timer Wren"), r(Whose::User, "part-timer", "Wren"));
        assert_eq!(read("In the package is included the hotel, Hostal Brisa, near to the port"), r(Whose::Unsaid, "hotel", "Hostal Brisa"));
    }

    #[test]
    fn untrusted_text_never_panics() {
        for s in ["the \u{2019}\u{e9} Omega", "their \u{2019}tech\u{2019} \u{c4}rzte B\u{f6}", "the", "my , , Ab", "our \u{2019}\u{2019} X Y", "the \u{130}\u{130} \u{dc}nal"] {
            let _ = role_name(s);
        }
    }

    #[test]
    fn people_dates_plans_and_names_without_a_role_are_left_alone() {
        for s in [
            "my sister Carmen and her two kids come too",
            "the meeting Friday is moved",
            "if we switched, their technician Dana Kruse would come",
            "the Tarnow contract includes service",
            "we talked about the guy named Bo",
            "I don't like the dentist Dr. Ruiz",
            "big news in our house Noor is starting school",
            "Rhea says yes as long as her dog Pickle gets to tag along",
            "exposure limited to their webhook URLs",
            "the name of our guide for the island, Rafael Miño",
            "eat the cookie :) | love, Mama & Papa",
        ] {
            assert_eq!(read(s), None, "{s}");
        }
    }
}
