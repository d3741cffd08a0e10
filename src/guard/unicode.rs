//! Invisible Unicode: characters a reader does not see but a model reads. Zero-width characters,
//! bidi overrides and isolates (text that displays other than it reads), tag characters (ASCII
//! hidden in the U+E0000 block) and variation-selector runs (bytes smuggled after a visible
//! character). Legitimate uses are left alone: ZWJ/ZWNJ inside non-ASCII words and emoji
//! sequences, LRM/RLM marks, a leading BOM, tag characters closing a subdivision flag emoji.

/// What sort of invisible character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invisible {
    ZeroWidth,
    Bidi,
    /// Tag characters (U+E0000–E007F): they spell ASCII no one sees.
    Tag,
    /// Runs of supplementary variation selectors (U+E0100–E01EF), which can carry bytes.
    Selector,
}

fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{180E}' | '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}')
}

fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn is_tag(c: char) -> bool {
    ('\u{E0000}'..='\u{E007F}').contains(&c)
}

fn is_selector_supplement(c: char) -> bool {
    ('\u{E0100}'..='\u{E01EF}').contains(&c)
}

/// A joiner between two non-ASCII, non-space characters (Persian, Indic scripts, emoji sequences).
fn legit_joiner(prev: Option<char>, next: Option<char>) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| !c.is_ascii() && !c.is_whitespace() && !is_zero_width(c));
    word(prev) && word(next)
}

/// Whether `text` holds a character `classify` can report: one pass without allocating, so the
/// common text with none skips the classification.
fn may_hide(text: &str) -> bool {
    !text.is_ascii() && text.chars().any(|c| is_zero_width(c) || is_bidi_control(c) || is_tag(c) || is_selector_supplement(c))
}

/// Classifies every character of `text`: `Some(kind)` for the ones that are hidden and not
/// legitimate where they stand.
fn classify(text: &str) -> Vec<(usize, char, Option<Invisible>)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::with_capacity(chars.len());
    // Inside a subdivision flag (U+1F3F4 followed by tags up to U+E007F CANCEL TAG).
    let mut in_flag = false;
    for (i, &(at, c)) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j].1);
        let next = chars.get(i + 1).map(|x| x.1);
        let kind = if is_tag(c) {
            if prev == Some('\u{1F3F4}') {
                in_flag = true;
            }
            let legit = in_flag && (('\u{E0061}'..='\u{E007A}').contains(&c) || ('\u{E0030}'..='\u{E0039}').contains(&c) || c == '\u{E007F}');
            if c == '\u{E007F}' {
                in_flag = false;
            }
            (!legit).then_some(Invisible::Tag)
        } else {
            in_flag = false;
            if matches!(c, '\u{200C}' | '\u{200D}') {
                (!legit_joiner(prev, next)).then_some(Invisible::ZeroWidth)
            } else if c == '\u{FEFF}' && i == 0 {
                None
            } else if is_zero_width(c) {
                Some(Invisible::ZeroWidth)
            } else if is_bidi_control(c) {
                Some(Invisible::Bidi)
            } else if is_selector_supplement(c) {
                // One selector after an ideograph is an ideographic variation sequence.
                let run = prev.is_some_and(is_selector_supplement) || next.is_some_and(is_selector_supplement);
                (run || prev.is_none_or(|p| p.is_ascii())).then_some(Invisible::Selector)
            } else {
                None
            }
        };
        out.push((at, c, kind));
    }
    out
}

/// The kinds of hidden characters in `text`, each once, in first-seen order.
pub fn find(text: &str) -> Vec<Invisible> {
    let mut out = Vec::new();
    if !may_hide(text) {
        return out;
    }
    for (_, _, k) in classify(text) {
        if let Some(k) = k {
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    out
}

/// The ASCII that tag characters in `text` spell (empty when there are none).
#[cfg(test)]
pub fn hidden_tag_text(text: &str) -> String {
    text.chars().filter(|c| ('\u{E0020}'..='\u{E007E}').contains(c)).map(|c| char::from_u32(c as u32 - 0xE0000).unwrap_or(' ')).collect()
}

/// `text` without its hidden characters (legitimate joiners, marks and flags stay).
pub fn strip(text: &str) -> std::borrow::Cow<'_, str> {
    if !may_hide(text) {
        return std::borrow::Cow::Borrowed(text);
    }
    let classified = classify(text);
    if classified.iter().all(|(_, _, k)| k.is_none()) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(classified.into_iter().filter(|(_, _, k)| k.is_none()).map(|(_, c, _)| c).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_zero_width_bidi_tags_and_selector_runs() {
        assert_eq!(find("ig\u{200B}nore"), [Invisible::ZeroWidth]);
        assert_eq!(find("abc\u{202E}fed"), [Invisible::Bidi]);
        assert_eq!(find("hi\u{E0069}\u{E0067}"), [Invisible::Tag]);
        assert_eq!(find("x\u{E0100}\u{E0101}\u{E0102}"), [Invisible::Selector]);
        assert_eq!(hidden_tag_text("ok\u{E0068}\u{E0069}"), "hi");
    }

    #[test]
    fn leaves_legitimate_uses_alone() {
        // Family emoji (ZWJ), Persian ZWNJ, RLM, a leading BOM, the Scotland flag, an ideographic variation.
        for s in ["👨\u{200D}👩\u{200D}👧", "می\u{200C}خواهم", "abc \u{200F}שלום", "\u{FEFF}hello", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "葛\u{E0100}"]
        {
            assert_eq!(find(s), [], "{s:?}");
            assert_eq!(strip(s), s);
        }
    }

    #[test]
    fn strip_removes_only_hidden_characters() {
        assert_eq!(strip("ig\u{200B}no\u{202E}re\u{E0041}"), "ignore");
        assert_eq!(strip("a\u{200D}b"), "ab");
    }
}
