//! Exact-duplicate detection on normalized content: lowercase, sentence punctuation stripped,
//! whitespace collapsed, then hashed. Symbols that change meaning (`C++` vs `C#`, `$5` vs `5%`) are
//! kept, so only texts a reader would call identical collide.

/// Sentence punctuation that never changes what a memory says.
fn is_sentence_punctuation(c: char) -> bool {
    matches!(
        c,
        '.' | ','
            | ';'
            | ':'
            | '!'
            | '?'
            | '\''
            | '"'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '`'
            | '¡'
            | '¿'
            | '\u{2018}'
            | '\u{2019}'
            | '\u{201C}'
            | '\u{201D}'
            | '\u{2026}'
            | '\u{2013}'
            | '\u{2014}'
            | '\u{3001}'
            | '\u{3002}'
            | '\u{FF0C}'
            | '\u{FF01}'
            | '\u{FF1F}'
            | '«'
            | '»'
    )
}

/// What `normalize` does with a character.
#[derive(Clone, Copy)]
enum Class {
    Space,
    Dropped,
    Kept,
}

fn class_of(c: char) -> Class {
    if c.is_whitespace() {
        Class::Space
    } else if is_sentence_punctuation(c) {
        Class::Dropped
    } else {
        Class::Kept
    }
}

/// `class_of` each ASCII character, looked up rather than matched: most text is ASCII.
fn ascii_classes() -> &'static [Class; 128] {
    static CLASSES: std::sync::OnceLock<[Class; 128]> = std::sync::OnceLock::new();
    CLASSES.get_or_init(|| std::array::from_fn(|b| class_of(char::from(b as u8))))
}

/// Calls `emit` with each character of the normalized form; false if there is none.
fn each_normalized(text: &str, mut emit: impl FnMut(char)) -> bool {
    let mut emitted = false;
    let mut pending_space = false;
    let ascii = ascii_classes();
    for c in text.chars() {
        let class = if c.is_ascii() { ascii[c as usize] } else { class_of(c) };
        match class {
            Class::Space => pending_space = emitted,
            Class::Dropped => {}
            Class::Kept => {
                if pending_space {
                    emit(' ');
                    pending_space = false;
                }
                emitted = true;
                if c.is_ascii() {
                    emit(c.to_ascii_lowercase());
                } else {
                    c.to_lowercase().for_each(&mut emit);
                }
            }
        }
    }
    emitted
}

/// The normalized form two duplicates share.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    if !each_normalized(text, |c| out.push(c)) {
        // Text made only of punctuation: compare it as written rather than letting it all collide.
        return text.trim().to_string();
    }
    out
}

/// `content_hash(&normalize(text))` without building the normalized text: every write looks its
/// content up in the duplicate map.
pub fn normalized_hash(text: &str) -> u64 {
    let mut h = crate::digest::Fnv1a::default();
    let mut buf = [0u8; 4];
    if !each_normalized(text, |c| h.eat(c.encode_utf8(&mut buf).as_bytes())) {
        return content_hash(text.trim());
    }
    h.finish()
}

/// The dedup key of normalized text.
pub fn content_hash(normalized: &str) -> u64 {
    crate::digest::fnv1a(normalized.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streamed_hash_is_the_hash_of_the_normalized_text() {
        let texts = ["", "   ", "...", " !? ", "Hello,  World!", "I use C++", "Straße “quoted” — ÉTÉ", "İstanbul ǅ", "a\tb\n c", "日本語。テスト"];
        for t in texts {
            assert_eq!(normalized_hash(t), content_hash(&normalize(t)), "{t:?}");
        }
        // And on generated text mixing every class of character.
        let alphabet: Vec<char> = "aZ .,'\u{2019}\u{3002}É ß\u{0130}\t!x7\u{1F600}".chars().collect();
        let mut rng = crate::test_rng::Rng::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..2000 {
            let text = rng.text(&alphabet, 23);
            assert_eq!(normalized_hash(&text), content_hash(&normalize(&text)), "{text:?}");
        }
    }

    #[test]
    fn duplicates_meet_and_different_texts_do_not() {
        assert_eq!(normalize("  The user PREFERS   dark mode. "), normalize("the user prefers dark mode"));
        assert_eq!(normalize("“Hello”, world!"), normalize("hello world"));
        assert_ne!(normalize("I use C++"), normalize("I use C#"));
        assert_ne!(normalize("..."), normalize("!!!"));
        assert_eq!(content_hash("abc"), content_hash("abc"));
        assert_ne!(content_hash("abc"), content_hash("abd"));
    }
}
