//! Requests to keep something: "jot that down for me?", "please note my passport number: X",
//! "…, (617) 555-0182 — hang onto that for me?". The request itself is neither a statement nor a
//! question; what it asks to keep is the statement. `request` returns the part of a sentence the
//! rules should read: the words before a request that points back ("that", "it"), or the object of
//! a request that names one ("note my passport number: X").
//!
//! The request must stand at the start of its clause, after politeness only: "I keep losing the
//! number" and "don't keep that" are not requests to keep (the second is a retraction, read first).

use super::text::{find_word, words};

/// Words of politeness or address that may open a request.
const POLITE: &[&str] =
    &["please", "pls", "plz", "can", "could", "would", "will", "you", "u", "ya", "mind", "just", "also", "and", "so", "ok", "okay", "oh", "hey", "kindly", "quickly", "maybe"];

/// Verbs (and verb phrases) that ask the listener to keep something, longest first where one
/// opens another.
const KEEP_VERBS: &[&str] = &[
    "make a note of",
    "take a note of",
    "take note of",
    "keep track of",
    "hang on to",
    "hang onto",
    "hold on to",
    "hold onto",
    "write down",
    "jot down",
    "note down",
    "keep",
    "note",
    "jot",
    "save",
    "store",
    "stash",
    "remember",
    "memorize",
    "memorise",
    "log",
    "record",
    "bookmark",
    "write",
    "writing",
    "jotting",
    "noting",
];

/// Object words that point back at what was just said.
const BACK: &[&str] = &["that", "this", "it", "them", "these", "those", "both"];

/// Words that open a clause after "that".
const SUBJECTS: &[&str] = &["my", "our", "i", "we", "the", "his", "her", "their", "she", "he", "they", "it's", "its"];

/// Objects that ask rather than name ("remember when we …?").
const WH: &[&str] = &["what", "when", "where", "who", "which", "how", "why", "if", "whether"];

/// Where clauses may begin: the sentence's start, or after one of these.
const OPENINGS: &[&str] = &[", ", " — ", "—", " – ", " - ", "; ", ": "];

/// A request to keep, read: the statement it asks to keep (empty when it points back at an
/// earlier sentence) and, when it names what to keep, that name ("the staging deploy token").
#[derive(Debug, PartialEq)]
pub struct Kept<'a> {
    pub statement: &'a str,
    pub object: Option<&'a str>,
}

/// The statement a sentence holding a request to keep asks to keep, or None when the sentence
/// holds no such request. `Some("")` when the request points back at an earlier sentence.
#[cfg(test)]
pub fn statement(sentence: &str) -> Option<&str> {
    request(sentence).map(|k| k.statement)
}

/// The request to keep a sentence holds, read.
pub fn request(sentence: &str) -> Option<Kept<'_>> {
    let lower = sentence.to_ascii_lowercase();
    let mut starts: Vec<(usize, usize)> = vec![(0, 0)];
    for sep in OPENINGS {
        let mut from = 0;
        while let Some(i) = lower.get(from..).and_then(|r| r.find(sep)) {
            starts.push((from + i, from + i + sep.len()));
            from += i + sep.len();
        }
    }
    starts.sort_unstable();
    for (cut, at) in starts {
        let Some((verb, after_verb)) = request_at(&lower, at) else { continue };
        let object = lower[after_verb..].trim_start();
        let object_at = sentence.len() - object.len();
        // "write" keeps only when it writes something down ("write this down", not "write a poem").
        if verb.starts_with("writ") && !words(object).iter().take(3).any(|w| w == "down") {
            continue;
        }
        let object = strip_for_me(object);
        let ws = words(object);
        let first = ws.first().cloned().unwrap_or_default();
        // "that my code is 1234" opens a clause: "that" is no object there.
        let complementizer = first == "that" && object.get(4..5) == Some(" ") && ws.get(1).is_some_and(|w| SUBJECTS.contains(&w.as_str()));
        // "Stash this for me: the account is X": what follows the colon is kept.
        if BACK.contains(&first.as_str()) && !complementizer {
            if let Some(colon) = object.find(": ").filter(|&c| words(&object[..c]).len() <= 8) {
                let after = &object[colon + 2..];
                return Some(Kept { statement: sentence[sentence.len() - after.len()..].trim().trim_end_matches('?').trim(), object: None });
            }
        }
        let bare = object.is_empty() || object.starts_with([',', ';', '.', '!', '?', '-', '—', '–']);
        if bare || (BACK.contains(&first.as_str()) && !complementizer) || first == "for" {
            // Points back: what stands before the request is the statement.
            return Some(Kept { statement: sentence[..cut].trim().trim_end_matches([',', ';', ':', '-', '—', '–']).trim(), object: None });
        }
        if !WH.contains(&first.as_str()) {
            // Names its object: "note my passport number: X", "remember that my code is 1234".
            let skipped = sentence[object_at..].len() - object.len();
            let own = sentence[object_at + skipped..].trim();
            let (clause, own) = match own.strip_prefix("that ").or_else(|| own.strip_prefix("That ")) {
                Some(rest) => (true, rest),
                None => (false, own),
            };
            // The object's name ends where its sentence goes on ("our merchant ID somewhere, …").
            let name_end = own.find([',', ':', '?', ';', '(']).unwrap_or(own.len());
            let name = strip_tail(own[..name_end].trim());
            let object = (!clause && !name.is_empty() && words(name).len() <= 6).then_some(name);
            return Some(Kept { statement: own.trim_end_matches('?').trim(), object });
        }
    }
    None
}

/// A named object without the words that say where or for whom to keep it.
fn strip_tail(name: &str) -> &str {
    let mut n = name;
    loop {
        let before = n.len();
        let lower = n.to_ascii_lowercase();
        for tail in [" for me", " somewhere", " somewhere safe", " safe", " handy", " for later", " please", " pls", " down"] {
            if lower.ends_with(tail) {
                n = n[..n.len() - tail.len()].trim_end();
                break;
            }
        }
        if n.len() == before {
            return n;
        }
    }
}

/// The keep verb and where the words after it begin, when a request to keep opens the clause
/// at `at`.
fn request_at(lower: &str, at: usize) -> Option<(&'static str, usize)> {
    let mut i = at;
    loop {
        let rest = &lower[i..];
        let trimmed = rest.trim_start();
        i += rest.len() - trimmed.len();
        if let Some(v) = KEEP_VERBS.iter().find(|v| find_word(trimmed, v, 0) == Some(0)) {
            return Some((v, i + v.len()));
        }
        let word_len = trimmed.find(|c: char| !(c.is_ascii_alphanumeric() || c == '\'')).unwrap_or(trimmed.len());
        if word_len == 0 || !POLITE.contains(&&trimmed[..word_len]) {
            return None;
        }
        i += word_len;
        i += lower[i..].len() - lower[i..].trim_start_matches([',', ' ']).len();
    }
}

/// Drops "for me", "down", "handy" and the like that sit between a keep verb and its object.
fn strip_for_me(object: &str) -> &str {
    let mut o = object.trim_start();
    loop {
        let before = o;
        for filler in ["for me", "for later", "down", "handy", "somewhere", "safe", "pls", "please"] {
            if find_word(o, filler, 0) == Some(0) {
                o = o[filler.len()..].trim_start_matches([',', ' ']);
            }
        }
        if o.len() == before.len() {
            return o;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{request, statement};

    #[test]
    fn a_request_pointing_back_keeps_what_came_before() {
        assert_eq!(
            statement("her personal cell is 07700 900412 in case I need to reach her, jot that down for me?"),
            Some("her personal cell is 07700 900412 in case I need to reach her")
        );
        assert_eq!(statement("Priya's mom gave me her cell, (617) 555-0182 — hang onto that for me?"), Some("Priya's mom gave me her cell, (617) 555-0182"));
        assert_eq!(statement("the promoter wants it over Venmo, @jules-77, can you stash that"), Some("the promoter wants it over Venmo, @jules-77"));
        assert_eq!(statement("Please note it for me"), Some(""));
        assert_eq!(statement("keep that handy for me"), Some(""));
        assert_eq!(statement("booking ref BK-ZT9914 — please hang on to that, my wife doesn't know"), Some("booking ref BK-ZT9914"));
        assert_eq!(statement("My badge number is BX-40172, please keep, I forget it always"), Some("My badge number is BX-40172"));
    }

    #[test]
    fn a_request_naming_its_object_keeps_the_object() {
        assert_eq!(statement("For the forms, please keep my passport number: XK4419203"), Some("my passport number: XK4419203"));
        assert_eq!(statement("Please note for me the private mobile of my landlord: 0176 552 0913"), Some("the private mobile of my landlord: 0176 552 0913"));
        assert_eq!(statement("remember that my locker code is 2714"), Some("my locker code is 2714"));
        assert_eq!(statement("Writing this down before I lose it again: the lobby door code is 2719B"), Some("the lobby door code is 2719B"));
        let named = request("Can you hang on to the staging deploy token for me?").unwrap();
        assert_eq!(named.object, Some("the staging deploy token"));
        assert_eq!(request("Note our merchant ID somewhere, the job needs it: MID-77Q").unwrap().object, Some("our merchant ID"));
        assert_eq!(statement("Stash this for me: the ETL account is etl-K7R2@orchard — I need it"), Some("the ETL account is etl-K7R2@orchard — I need it"));
    }

    #[test]
    fn statements_and_refusals_are_no_requests() {
        assert_eq!(statement("I keep losing the number, it's LK-55019-N"), None);
        assert_eq!(statement("don't keep that anymore"), None);
        assert_eq!(statement("We keep the spare key under the mat"), None);
        assert_eq!(statement("My bank is Monzo"), None);
        assert_eq!(statement("write a short poem about my cat"), None);
    }
}
