//! Splitting a turn into sentences and clauses, and finding words in them. Everything works on an
//! ASCII-lowercased copy of the text, which has the same byte offsets as the original: a match
//! found in the lowercase copy slices the original (keeping the user's casing in values).

/// Words after which a period does not end a sentence.
const ABBREVIATIONS: &[&str] = &["dr", "mr", "mrs", "ms", "st", "jr", "sr", "prof", "vs", "etc", "e.g", "i.e", "approx", "no", "inc", "ltd", "co"];

/// A piece of text with its lowercase twin.
#[derive(Clone, Debug, PartialEq)]
pub struct Span<'a> {
    pub text: &'a str,
    pub lower: String,
}

impl<'a> Span<'a> {
    pub fn new(text: &'a str) -> Span<'a> {
        let text = text.trim();
        Span { text, lower: text.to_ascii_lowercase() }
    }

    /// Byte offset of the first whole-word occurrence of `phrase` (lowercase) at or after `from`.
    pub fn find(&self, phrase: &str, from: usize) -> Option<usize> {
        find_word(&self.lower, phrase, from)
    }

    /// The first of `phrases` found (earliest position; the longer phrase on a tie).
    pub fn find_any(&self, phrases: &[&str], from: usize) -> Option<(usize, usize)> {
        phrases.iter().filter_map(|p| self.find(p, from).map(|at| (at, p.len()))).min_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
    }

    /// The original text of `start..end`, trimmed.
    pub fn slice(&self, start: usize, end: usize) -> &'a str {
        self.text.get(start.min(self.text.len())..end.min(self.text.len())).unwrap_or("").trim()
    }
}

/// Letters, digits and the joiners inside words (`go-to`, `on_call`): `go` is not found in `go-to`.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80 || b == b'-' || b == b'_'
}

/// Whole-word search: `phrase` must not be glued to letters or digits on either side.
pub fn find_word(haystack: &str, phrase: &str, from: usize) -> Option<usize> {
    if phrase.is_empty() {
        return None;
    }
    let bytes = haystack.as_bytes();
    let mut start = from;
    while start <= haystack.len() {
        let at = start + haystack.get(start..)?.find(phrase)?;
        let end = at + phrase.len();
        let before_ok = at == 0 || !is_word_byte(bytes[at - 1]) || !is_word_byte(phrase.as_bytes()[0]);
        let after_ok = end >= bytes.len() || !is_word_byte(bytes[end]) || !is_word_byte(phrase.as_bytes()[phrase.len() - 1]);
        if before_ok && after_ok {
            return Some(at);
        }
        start = at + 1;
        while start < haystack.len() && !haystack.is_char_boundary(start) {
            start += 1;
        }
    }
    None
}

/// Whether the writer starts `text` in lower case (and so, most often, every sentence of it).
pub fn starts_in_lower_case(text: &str) -> bool {
    text.chars().find(|c| c.is_alphabetic()).is_some_and(char::is_lowercase)
}

/// Sentences of a turn: split after `.`, `!`, `?` or a line break, except after abbreviations,
/// inside numbers (`10.4.7.19`) and, from a writer who capitalizes, before a lowercase
/// continuation. A writer who starts the turn in lower case starts every sentence so ("my bank is
/// Monzo. how much per week…"): there a lowercase word after a period is a new sentence.
pub fn sentences(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let capitalizes = !starts_in_lower_case(text);
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let ends = match b {
            b'\n' => true,
            b'!' | b'?' => bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()),
            b'.' => {
                let next_ws = bytes.get(i + 1).is_none_or(|n| n.is_ascii_whitespace());
                // The word before the period (after any whitespace, wide spaces included).
                let word = text[..i].rsplit(char::is_whitespace).next().unwrap_or("").to_ascii_lowercase();
                let abbreviation = ABBREVIATIONS.contains(&word.trim_start_matches(|c: char| !c.is_ascii_alphanumeric()));
                let initial = word.len() == 1 && word.bytes().all(|c| c.is_ascii_alphabetic());
                let next_lower = capitalizes && text[i + 1..].trim_start().chars().next().is_some_and(|c| c.is_lowercase());
                // "a.m." and "e.g." hold periods of their own: abbreviations in any writer's hand.
                let dotted = word.contains('.') && word.split('.').all(|part| (1..=2).contains(&part.len()) && part.bytes().all(|c| c.is_ascii_alphabetic()));
                next_ws && !abbreviation && !initial && !next_lower && !dotted
            }
            // "they are too many 😅 Since spring I am …": an emoji closes what it follows when a new
            // sentence opens after it (a capital, or any word from a writer who never capitalizes).
            _ if b >= 0xE2 && text.is_char_boundary(i) => {
                let run: usize = text[i..].chars().take_while(|&c| is_pictograph(c) || c == '\u{FE0F}' || c == '\u{200D}').map(char::len_utf8).sum();
                let next = text[i + run..].chars().next();
                let opens = text[i + run..].trim_start().chars().next().is_some_and(|c| c.is_uppercase() || (!capitalizes && c.is_alphabetic()));
                if run > 0 && next.is_some_and(char::is_whitespace) && opens {
                    i += run - 1;
                    true
                } else {
                    false
                }
            }
            _ => false,
        };
        if ends {
            push_piece(&mut out, &text[start..=i]);
            start = i + 1;
        }
        i += 1;
    }
    push_piece(&mut out, &text[start..]);
    out
}

/// An emoji or a pictographic symbol (not a letter, a digit or punctuation).
fn is_pictograph(c: char) -> bool {
    matches!(c as u32, 0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B00..=0x2BFF)
}

fn push_piece<'a>(out: &mut Vec<&'a str>, piece: &'a str) {
    let piece = piece.trim().trim_end_matches(['.', '!', '\n']).trim();
    if piece.chars().any(char::is_alphanumeric) {
        out.push(piece);
    }
}

/// Clauses of a sentence: split at `;`, at a spaced dash (`—`, `–`, ` - `) and at ", but".
pub fn clauses(sentence: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = sentence;
    loop {
        let cut = [";", " — ", "—", " – ", " - ", ", but ", ", so ", ", and "]
            .iter()
            .filter_map(|sep| rest.find(sep).map(|at| (at, sep.len())))
            .chain(and_then_subject(rest))
            .min_by_key(|c| c.0);
        match cut {
            Some((at, len)) => {
                push_piece(&mut out, &rest[..at]);
                rest = &rest[at + len..];
            }
            None => {
                push_piece(&mut out, rest);
                return out;
            }
        }
    }
}

/// Subjects that open a clause of their own after a bare "and" ("Noor is 8 and she's in third
/// grade at …"): without the split, the second clause is read as the first one's value.
const CLAUSE_SUBJECTS: &[&str] = &["i", "i'm", "we", "we're", "he", "he's", "she", "she's", "they", "they're"];

/// The first " and " of `text` that a subject pronoun follows, as (offset, length).
fn and_then_subject(text: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(i) = text.get(from..)?.find(" and ") {
        let at = from + i;
        let next = text[at + 5..].split_whitespace().next().unwrap_or("").to_lowercase().replace('’', "'");
        if CLAUSE_SUBJECTS.contains(&next.trim_end_matches([',', '.'])) {
            return Some((at, 5));
        }
        from = at + 5;
    }
    None
}

/// Arrows written for "is" or "then" ("bounce webhook → /hooks/pw", "if X ever goes → Y"),
/// spelled out so the frames read them: after a condition ("if", "ever", "diff", "another", …) an
/// arrow is ", then", one made a condition when it had no "if"; elsewhere it is " = ".
pub fn spell_out_arrows(text: &str) -> String {
    const ARROWS: [&str; 3] = [" → ", " -> ", " => "];
    const CONDITION: &[&str] = &["if", "ever", "diff", "different", "another", "other", "new", "swap", "switch", "unless", "otherwise"];
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((at, arrow)) = ARROWS.iter().filter_map(|a| rest.find(a).map(|i| (i, *a))).min_by_key(|x| x.0) {
        let before = &rest[..at];
        // The arrow's left side: back to the sentence's start or a comma.
        let start = before.rfind(['.', '!', '?', '\n', ',', ';']).map_or(0, |i| i + 1);
        let left = words(&before[start..]);
        out.push_str(&before[..start]);
        if left.iter().any(|w| CONDITION.contains(&w.as_str())) {
            if left.first().is_none_or(|w| w != "if") {
                out.push_str(" if");
            }
            out.push_str(&before[start..]);
            out.push_str(", then ");
        } else {
            out.push_str(&before[start..]);
            out.push_str(" = ");
        }
        rest = &rest[at + arrow.len()..];
    }
    out.push_str(rest);
    out
}

/// Simple past forms that do not end in -ed: what happened once, not what holds.
pub const IRREGULAR_PAST: &[&str] = &[
    "put", "got", "grew", "took", "made", "broke", "came", "went", "fell", "died", "began", "won", "lost", "sold", "gave", "found", "became", "ran", "sprouted", "met", "saw",
    "left", "spent", "flew", "drove",
];

/// Lowercase words (letters and digits) of a text, non-ASCII letters kept.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'').map(|w| w.trim_matches('\'').to_lowercase()).filter(|w| !w.is_empty()).collect()
}

/// `sentence` without an aside in parentheses between a short subject and its verb: "dad
/// (Anselm, 81) is at Birchwood Manor" → "dad is at Birchwood Manor". The aside describes the
/// subject (a name with an age, a breed); read in place it parts the subject from what is said of
/// it. Kept when the aside is a name alone ("our PM (Hester Lyle) owns …"): that says who fills the
/// role, which the rules for roles read. None when there is no such aside.
pub fn without_subject_aside(sentence: &str) -> Option<String> {
    let open = sentence.find('(')?;
    let close = open + sentence[open..].find(')')?;
    let subject = sentence[..open].trim();
    let n = subject.split_whitespace().count();
    if n == 0 || n > 3 || subject.contains([',', ';', ':', '—']) {
        return None;
    }
    let aside = &sentence[open + 1..close];
    let name_alone = !aside.contains(',') && !aside.chars().any(|c| c.is_ascii_digit()) && aside.split_whitespace().all(|w| w.starts_with(char::is_uppercase));
    // The verb follows the aside: what comes next opens in lower case.
    let after = sentence[close + 1..].trim_start();
    if name_alone || !after.starts_with(char::is_lowercase) {
        return None;
    }
    Some(format!("{subject} {after}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_aside_between_a_subject_and_its_verb_is_set_aside() {
        let cut = |s: &str| without_subject_aside(s);
        assert_eq!(cut("grandpa (Osric, 88) is at Linden Court now").as_deref(), Some("grandpa is at Linden Court now"));
        assert_eq!(cut("Our dog (a lurcher, 6) stays with Pawsome Kennels").as_deref(), Some("Our dog stays with Pawsome Kennels"));
        // A name alone says who fills the role; a subject too long to be one; no verb after.
        assert_eq!(cut("our PM (Hester Lyle) owns the roadmap"), None);
        assert_eq!(cut("we moved the whole team last spring (finally) to Brightwater"), None);
        assert_eq!(cut("Lunch (12:30) Tuesday"), None);
    }

    #[test]
    fn sentences_respect_abbreviations_numbers_and_initials() {
        assert_eq!(sentences("I saw Dr. Osei today. The router is at 192.168.0.4. Fine!"), vec!["I saw Dr. Osei today", "The router is at 192.168.0.4", "Fine"]);
        assert_eq!(sentences("My mentor is J. Okafor. Ok"), vec!["My mentor is J. Okafor", "Ok"]);
        assert_eq!(sentences("Is it? yes it is\nNew line"), vec!["Is it?", "yes it is", "New line"]);
        assert!(sentences("  ... ").is_empty());
        // Whitespace of several bytes before a period (U+3000, U+00A0) is stepped over whole.
        assert_eq!(sentences("見て\u{3000}Dr. Osei. Ok"), vec!["見て\u{3000}Dr. Osei", "Ok"]);
        assert_eq!(sentences("a\u{a0}bcd. Ok"), vec!["a\u{a0}bcd", "Ok"]);
        // A writer who starts in lower case starts every sentence so; a capitalizing writer's
        // lowercase word after a period continues the sentence; "a.m." ends nothing.
        assert_eq!(sentences("my bank is Monzo. how much per week?"), vec!["my bank is Monzo", "how much per week?"]);
        assert_eq!(sentences("We meet at approx. ten. Fine"), vec!["We meet at approx. ten", "Fine"]);
        assert_eq!(sentences("standup at 9 a.m. sharp. ok"), vec!["standup at 9 a.m. sharp", "ok"]);
    }

    #[test]
    fn an_emoji_before_a_new_sentence_ends_the_one_before() {
        assert_eq!(sentences("they are too many 😅 Since spring I am a member"), vec!["they are too many 😅", "Since spring I am a member"]);
        assert_eq!(sentences("we bought it 🙈🏡 We got out of the lease"), vec!["we bought it 🙈🏡", "We got out of the lease"]);
        assert_eq!(sentences("Morning ☕️ House stuff"), vec!["Morning ☕️", "House stuff"]);
        // Inside a sentence (a lower-case word after it from a capitalizing writer) it ends nothing.
        assert_eq!(sentences("I love it 😂 and so does Jonas"), vec!["I love it 😂 and so does Jonas"]);
        // A writer who never capitalizes opens sentences in lower case.
        assert_eq!(sentences("knee still bad 😩 physio twice a week"), vec!["knee still bad 😩", "physio twice a week"]);
        assert_eq!(sentences("😅"), Vec::<&str>::new());
    }

    #[test]
    fn clauses_split_at_semicolons_and_dashes() {
        assert_eq!(clauses("A is B; C is D — E, F"), vec!["A is B", "C is D", "E, F"]);
        assert_eq!(clauses("a-b stays"), vec!["a-b stays"]);
        // A bare "and" opens a clause when a subject follows it, not between two objects.
        assert_eq!(clauses("Noor is 8 and she's in third grade"), vec!["Noor is 8", "she's in third grade"]);
        assert_eq!(clauses("I drink tea and coffee and I run"), vec!["I drink tea and coffee", "I run"]);
    }

    #[test]
    fn arrows_are_spelled_out_as_notation_or_condition() {
        assert_eq!(spell_out_arrows("bounce webhook → /hooks/pw, exists bc Pw"), "bounce webhook = /hooks/pw, exists bc Pw");
        assert_eq!(spell_out_arrows("ok. if tunnelkit ever goes → plain jumpbox-02"), "ok. if tunnelkit ever goes, then plain jumpbox-02");
        assert_eq!(spell_out_arrows("done. diff vendor ever → /hooks/generic"), "done. if diff vendor ever, then /hooks/generic");
        assert_eq!(spell_out_arrows("no arrows here"), "no arrows here");
    }

    #[test]
    fn word_search_needs_boundaries() {
        assert_eq!(find_word("the forgetful one forgets", "forget", 0), None);
        assert_eq!(find_word("please forget it", "forget", 0), Some(7));
        assert_eq!(find_word("x is now y", "is now", 0), Some(2));
        assert_eq!(find_word("ünïcode is now", "is now", 0), Some("ünïcode ".len()));
    }
}
