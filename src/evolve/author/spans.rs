//! Value-like spans of a sentence, found by their form rather than by the words around them:
//! identifiers and numbers (anything with a digit, with the punctuation codes are written with:
//! `7HXL-204`, `(617) 555-0182`, `+31 6 4410 2297`, `7:52`, `$35`), addresses (`a@b.io`,
//! `@handle`, `host.tld/path`), quoted or backticked text, and names (a run of capitalized words,
//! with a title such as `Dr.` before it). Values stated this way can be recognised in any sentence
//! frame, which is what lets the author find what a request to forget points at, or a new value
//! that replaces an old one, without a phrase list for each.

/// What kind of span it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// Has a digit: an id, a number, a time, a phone, a code.
    Code,
    /// An email, a handle, a host or path.
    Address,
    /// Quoted or backticked.
    Quoted,
    /// Capitalized words (a person, a company, a product, a place).
    Name,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueSpan {
    pub text: String,
    pub kind: SpanKind,
    /// Byte offset in the sentence.
    pub at: usize,
}

impl ValueSpan {
    /// A single capitalized word opening the sentence: capitalized by grammar, so no sure name.
    pub fn opens_sentence_alone(&self) -> bool {
        self.at == 0 && !self.text.contains(' ')
    }
}

/// Capitalized words that open sentences or address people without naming a value.
const NOT_NAMES: &[&str] = &[
    "I",
    "I'm",
    "I've",
    "I'd",
    "I'll",
    "The",
    "A",
    "An",
    "My",
    "Our",
    "Your",
    "His",
    "Her",
    "Their",
    "It",
    "It's",
    "This",
    "That",
    "These",
    "Those",
    "We",
    "We're",
    "We've",
    "You",
    "He",
    "She",
    "They",
    "Also",
    "And",
    "But",
    "Or",
    "So",
    "Oh",
    "Ok",
    "OK",
    "Okay",
    "Hey",
    "Hi",
    "Hmm",
    "Well",
    "Yes",
    "No",
    "Not",
    "Just",
    "Please",
    "Pls",
    "Thanks",
    "Thank",
    "Sorry",
    "Btw",
    "BTW",
    "FYI",
    "Fyi",
    "Anyway",
    "Actually",
    "Update",
    "Quick",
    "One",
    "Two",
    "Also,",
    "Then",
    "Now",
    "Today",
    "Tomorrow",
    "Yesterday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Mondays",
    "Tuesdays",
    "Wednesdays",
    "Thursdays",
    "Fridays",
    "Saturdays",
    "Sundays",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "If",
    "When",
    "Since",
    "Because",
    "After",
    "Before",
    "Is",
    "Are",
    "Was",
    "Were",
    "Do",
    "Does",
    "Did",
    "Can",
    "Could",
    "Would",
    "Should",
    "Will",
    "What",
    "Who",
    "Where",
    "Which",
    "How",
    "Why",
    "Let",
    "Let's",
    "Keep",
    "Save",
    "Store",
    "Remember",
    "Note",
    "Forget",
    "Delete",
    "Remove",
    "Here",
    "Here's",
    "There",
    "There's",
    "Lol",
    "Ugh",
    "Wow",
    "Sadly",
    "Finally",
    "Good",
    "Great",
    "Nvm",
    "Re",
    "Ps",
    "PS",
    "Ah",
    "Aha",
    "Yeah",
    "Yep",
    "Nope",
    "Heads",
    "Small",
    "Big",
    "New",
    "Old",
    "Last",
    "Next",
    "Every",
    "All",
    "Both",
    "Some",
    "Any",
    "Most",
];
const TITLES: &[&str] = &["Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "Mr", "Mrs", "Ms", "Dr", "Prof", "Sir", "Dame", "Coach", "Aunt", "Uncle", "St.", "Mt.", "Ft."];
/// Lowercase words a name may hold between capitalized ones ("Bank of Ireland", "Harbor & Pine").
const NAME_JOINERS: &[&str] = &["of", "de", "da", "del", "van", "von", "la", "le", "&", "the", "du", "der"];

fn is_code_char(c: char) -> bool {
    c.is_alphanumeric() || "#@+().:/_-$€£%".contains(c)
}

/// A month's name, whole or shortened ("Sept", "Nov.").
fn is_month(w: &str) -> bool {
    crate::evolve::pick::MONTHS.contains(&w.trim_end_matches('.').to_ascii_lowercase().as_str())
}

/// A day of the month: 1 to 31, with an ordinal ending or not ("5", "21st").
fn is_day(w: &str) -> bool {
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &w[digits.len()..].to_ascii_lowercase();
    (1..=2).contains(&digits.len()) && digits.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d)) && (suffix.is_empty() || ["st", "nd", "rd", "th"].contains(&suffix.as_str()))
}

fn trim_code(s: &str) -> &str {
    let mut s = s.trim_end_matches(['.', ',', ':', ';', '!', '?']);
    // A closing parenthesis stays only with its opening one ("(617)"), and the other way round.
    while s.ends_with(')') && s.matches('(').count() < s.matches(')').count() {
        s = s[..s.len() - 1].trim_end_matches(['.', ',', ':', ';', '!', '?']);
    }
    if s.starts_with('(') && s.matches('(').count() > s.matches(')').count() {
        s = &s[1..];
    }
    s.trim_start_matches([':', ',', ';'])
}

/// The value-like spans of `sentence`, in order.
/// A name without the "'s" it was said with ("Tollgate's" → "Tollgate").
pub fn without_possessive(name: &str) -> &str {
    name.trim_end_matches("'s").trim_end_matches("’s")
}

pub fn value_spans(sentence: &str) -> Vec<ValueSpan> {
    let mut out: Vec<ValueSpan> = Vec::new();
    // Quoted and backticked text.
    for (open, close) in [('"', '"'), ('“', '”'), ('`', '`')] {
        let mut from = 0;
        while let Some(a) = sentence[from..].find(open).map(|i| from + i) {
            let start = a + open.len_utf8();
            let Some(b) = sentence[start..].find(close).map(|i| start + i) else { break };
            let inner = sentence[start..b].trim();
            if !inner.is_empty() && inner.chars().count() <= 200 {
                out.push(ValueSpan { text: inner.to_string(), kind: SpanKind::Quoted, at: start });
            }
            from = b + close.len_utf8();
        }
    }
    // Tokens with their byte offsets.
    let mut toks: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, c) in sentence.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                toks.push((s, &sentence[s..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        toks.push((s, &sentence[s..]));
    }
    let mut i = 0;
    while i < toks.len() {
        let (at, raw) = toks[i];
        // "September 5", "12 November": a month and its day are one value.
        if let Some(&(_, next)) = toks.get(i + 1) {
            let (a, b) = (raw.trim_end_matches([',', '.', ';', ':', '!', '?']), next.trim_end_matches([',', '.', ';', ':', '!', '?']));
            if !raw.ends_with([',', ';', ':']) && ((is_month(a) && is_day(b)) || (is_day(a) && is_month(b))) {
                out.push(ValueSpan { text: format!("{a} {b}"), kind: SpanKind::Code, at });
                i += 2;
                continue;
            }
        }
        let t = trim_code(raw.trim_start_matches(['"', '`', '\'', '“']).trim_end_matches(['"', '`', '\'', '”']));
        let has_digit = t.chars().any(|c| c.is_ascii_digit());
        let address = (t.contains('@') && t.len() > 2) || (t.contains('.') && t.contains('/') && !t.starts_with('/'));
        if (has_digit || address) && t.chars().all(is_code_char) {
            // A phone or a spaced id runs over several digit-bearing tokens ("+31 6 4410 2297").
            let mut end = i;
            let mut text = t.to_string();
            while end + 1 < toks.len() {
                let next = trim_code(toks[end + 1].1);
                let glued = next.chars().all(|c| c.is_ascii_digit() || "()-+".contains(c)) && next.chars().any(|c| c.is_ascii_digit());
                if has_digit && glued && text.chars().filter(|c| c.is_ascii_digit()).count() < 16 && !toks[end].1.ends_with([',', ';', '.']) {
                    text.push(' ');
                    text.push_str(next);
                    end += 1;
                } else {
                    break;
                }
            }
            let kind = if address { SpanKind::Address } else { SpanKind::Code };
            let offset = at + raw.find(t.chars().next().unwrap_or(' ')).unwrap_or(0);
            if !out.iter().any(|o| o.kind == SpanKind::Quoted && o.at <= offset && offset < o.at + o.text.len()) {
                out.push(ValueSpan { text, kind, at: offset });
            }
            i = end + 1;
            continue;
        }
        // A name: capitalized words, a title before them, joiners between them.
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '\'' && c != '&');
        let word = word.trim_end_matches(['.', '\'']);
        let first_of_sentence = i == 0 || toks[..i].last().is_some_and(|(_, p)| p.ends_with(['.', '!', '?', ':']));
        let cap = word.chars().next().is_some_and(char::is_uppercase) && word.chars().any(char::is_lowercase);
        let title = TITLES.contains(&raw.trim_end_matches(',')) && i + 1 < toks.len();
        if (cap || title) && !(first_of_sentence && !title && NOT_NAMES.contains(&word)) && !NOT_NAMES.contains(&word.trim_end_matches("'s")) {
            let mut parts = vec![if title { raw.trim_end_matches(',').to_string() } else { word.trim_end_matches("'s").to_string() }];
            let mut end = i;
            let mut closed = !title && (raw.ends_with([',', '.', ';', ':', '!', '?', ')']) || raw.ends_with("'s") || raw.ends_with("’s"));
            while !closed && end + 1 < toks.len() {
                let nraw = toks[end + 1].1;
                let nw = nraw.trim_matches(|c: char| !c.is_alphanumeric() && c != '&' && c != '\'');
                let ncap = nw.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit()) && !NOT_NAMES.contains(&nw);
                let joiner = NAME_JOINERS.contains(&nw) && toks.get(end + 2).is_some_and(|(_, r)| r.chars().next().is_some_and(char::is_uppercase));
                if ncap || joiner {
                    parts.push(nw.trim_end_matches("'s").to_string());
                    end += 1;
                    closed = nraw.ends_with([',', '.', ';', ':', '!', '?', ')']) || nraw.ends_with("'s");
                } else {
                    break;
                }
            }
            if !(title && parts.len() == 1) {
                let text = parts.join(" ");
                let offset = at + raw.find(|c: char| c.is_alphanumeric()).unwrap_or(0);
                if !out.iter().any(|o| o.kind == SpanKind::Quoted && o.at <= offset && offset < o.at + o.text.len()) {
                    out.push(ValueSpan { text, kind: SpanKind::Name, at: offset });
                }
            }
            i = end + 1;
            continue;
        }
        i += 1;
    }
    out.sort_by_key(|s| s.at);
    // "14 Quillon Row", "221B Baker Street": a house number and the street's name are one value.
    let mut merged: Vec<ValueSpan> = Vec::new();
    for sp in out {
        if let Some(prev) = merged.last_mut() {
            let gap = sentence.get(prev.at + prev.text.len()..sp.at).unwrap_or("x");
            let house = prev.kind == SpanKind::Code && prev.text.chars().count() <= 5 && !prev.text.contains([':', '/', '$', '%']);
            if house && sp.kind == SpanKind::Name && gap.trim().is_empty() {
                prev.text = format!("{} {}", prev.text, sp.text);
                prev.kind = SpanKind::Address;
                continue;
            }
        }
        merged.push(sp);
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        value_spans(s).into_iter().map(|v| v.text).collect()
    }

    #[test]
    fn codes_numbers_and_addresses_by_their_form() {
        assert_eq!(texts("Priya's mom gave me her cell, (617) 555-0182 — keep it?"), ["Priya", "(617) 555-0182"]);
        assert_eq!(texts("reach me on +31 6 4410 2297 after hours"), ["+31 6 4410 2297"]);
        assert_eq!(texts("scrap 7HXL-204, car's gone"), ["7HXL-204"]);
        assert_eq!(texts("pickup 7:52 at the corner"), ["7:52"]);
        assert_eq!(texts("mail dmendez88@postlark.net or ping @jules-promo-77"), ["dmendez88@postlark.net", "@jules-promo-77"]);
        assert_eq!(texts("logs go to stream.velturis.io/aurora now"), ["stream.velturis.io/aurora"]);
        assert_eq!(texts("drop them at her place, 14 Quillon Row, since"), ["14 Quillon Row"]);
        assert_eq!(texts("it got extended to September 5, and we leave on 21 July"), ["September 5", "21 July"]);
        assert_eq!(texts("may 5th or Sept 12th"), ["may 5th", "Sept 12th"]);
    }

    #[test]
    fn names_with_titles_and_joiners() {
        assert_eq!(texts("Larchmont put Noor in Mr. Adebayo's class"), ["Larchmont", "Noor", "Mr. Adebayo"]);
        assert_eq!(texts("We bank with Bank of Ireland these days"), ["Bank of Ireland"]);
        assert_eq!(texts("I go to church at St. Mary's."), ["St. Mary"]);
        assert_eq!(texts("The agency is Harbor & Pine now"), ["Harbor & Pine"]);
        assert_eq!(texts("Oh and Sunday works"), Vec::<String>::new());
        assert_eq!(texts("keep `a | b` exactly"), ["a | b"]);
    }
}
