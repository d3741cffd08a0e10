//! Text → index terms. Unicode-aware: words are runs of letters, digits and combining marks, case is
//! folded, accents are kept (`café` ≠ `cafe`), numbers are kept. Han, kana and Hangul have no spaces
//! between words, so runs of them become overlapping character bigrams (a lone character stays a
//! unigram). Apostrophes inside a word are dropped (`don't` → `dont`) and an English possessive `'s`
//! is removed (`Caroline's` → `caroline`), so both spellings meet in the index. English words are
//! lightly stemmed (`named` → `name`, see `stem`).

/// True for scripts written without spaces between words, indexed as bigrams.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x1100..=0x11FF    // Hangul jamo
        | 0x3130..=0x318F    // Hangul compatibility jamo
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FA1F) // CJK extensions B+
}

/// Combining marks continue a word (decomposed accents must not split it).
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

fn is_word_char(c: char) -> bool {
    (c.is_alphanumeric() || is_mark(c)) && !is_cjk(c)
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '\u{2019}'
}

/// Calls `f` with each term of `text`, in text order (repeats kept: they are term frequencies). The
/// term is lent from one buffer reused for the whole text: indexing interns most terms without
/// allocating (a `String` per token was the largest share of an add's allocations).
pub fn for_each_term(text: &str, f: impl FnMut(&str)) {
    // ASCII text (most of it) is read as bytes: no buffer of decoded characters, no Unicode tables.
    if text.is_ascii() {
        terms_of(text.as_bytes(), f);
    } else {
        terms_of(&text.chars().collect::<Vec<char>>(), f);
    }
}

/// A character of the text being split: a byte of ASCII text, or a decoded `char`.
trait Unit: Copy + Into<char> {
    fn push_lower(self, term: &mut String);
}

impl Unit for u8 {
    fn push_lower(self, term: &mut String) {
        term.push(char::from(self.to_ascii_lowercase()));
    }
}

impl Unit for char {
    fn push_lower(self, term: &mut String) {
        if self.is_ascii() {
            term.push(self.to_ascii_lowercase());
        } else {
            term.extend(self.to_lowercase());
        }
    }
}

fn terms_of<C: Unit>(chars: &[C], mut f: impl FnMut(&str)) {
    let word = |c: C| is_word_char(c.into());
    let mut term = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c: char = chars[i].into();
        term.clear();
        if is_cjk(c) {
            let start = i;
            while i < chars.len() && is_cjk(chars[i].into()) {
                i += 1;
            }
            let run = &chars[start..i];
            if run.len() == 1 {
                run[0].push_lower(&mut term);
                f(&term);
            } else {
                for w in run.windows(2) {
                    term.clear();
                    term.extend(w.iter().map(|&c| -> char { c.into() }));
                    f(&term);
                }
            }
        } else if is_word_char(c) {
            while i < chars.len() {
                let c = chars[i];
                if word(c) {
                    c.push_lower(&mut term);
                    i += 1;
                } else if is_apostrophe(c.into()) && i + 1 < chars.len() && word(chars[i + 1]) && !term.is_empty() {
                    // `'s` at the end of a word is a possessive: drop it; other inner apostrophes vanish.
                    let s_end = i + 2 >= chars.len() || !word(chars[i + 2]);
                    if s_end && matches!(chars[i + 1].into(), 's' | 'S') {
                        i += 2;
                        break;
                    }
                    i += 1;
                } else {
                    break;
                }
            }
            if !term.is_empty() {
                super::stem::stem_in_place(&mut term);
                f(&term);
            }
        } else {
            i += 1;
        }
    }
}

/// Appends the terms of `text` to `out`, in text order (repeats kept: they are term frequencies).
pub fn tokenize_into(text: &str, out: &mut Vec<String>) {
    for_each_term(text, |t| out.push(t.to_string()));
}

/// The terms of `text`, in order.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    tokenize_into(text, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::{terms_of, tokenize};

    #[test]
    fn ascii_read_as_bytes_splits_as_when_decoded() {
        type Splitter<'a> = &'a dyn Fn(&mut dyn FnMut(&str));
        let collect = |run: Splitter| {
            let mut out = Vec::new();
            run(&mut |t| out.push(t.to_string()));
            out
        };
        let alphabet: Vec<char> = "aZs's' 9_-.\t'Ss".chars().collect();
        let mut rng = crate::test_rng::Rng::new(0x2545_F491_4F6C_DD1D);
        for _ in 0..3000 {
            let text = rng.text(&alphabet, 29);
            let bytes = collect(&|f| terms_of(text.as_bytes(), f));
            let chars = collect(&|f| terms_of(&text.chars().collect::<Vec<char>>(), f));
            assert_eq!(bytes, chars, "{text:?}");
        }
    }

    #[test]
    fn folds_case_keeps_accents_and_numbers() {
        assert_eq!(tokenize("Café au LAIT costs 4.50€, in 2024!"), ["café", "au", "lait", "cost", "4", "50", "in", "2024"]);
        assert_eq!(tokenize("Ünïcödé ÉCOLE"), ["ünïcödé", "école"]);
        // decomposed accent (e + U+0301) stays in the word
        assert_eq!(tokenize("cafe\u{301} ok"), ["cafe\u{301}", "ok"]);
    }

    #[test]
    fn apostrophes_and_possessives() {
        assert_eq!(tokenize("Caroline's dog doesn't bark"), ["caroline", "dog", "doesnt", "bark"]);
        assert_eq!(tokenize("rock 'n' roll"), ["rock", "n", "roll"]);
    }

    #[test]
    fn cjk_becomes_bigrams() {
        assert_eq!(tokenize("東京タワー"), ["東京", "京タ", "タワ", "ワー"]);
        assert_eq!(tokenize("我"), ["我"]);
        assert_eq!(tokenize("Rust和Go"), ["rust", "和", "go"]);
        assert_eq!(tokenize("한국어 공부"), ["한국", "국어", "공부"]);
    }

    #[test]
    fn ignores_symbols_and_emoji() {
        assert_eq!(tokenize("🎉 -- *** 🚀"), Vec::<String>::new());
        assert_eq!(tokenize("snake_case and kebab-case"), ["snake", "case", "and", "kebab", "case"]);
    }
}
