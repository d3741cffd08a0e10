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

/// The normalized form two duplicates share.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    let ascii = ascii_classes();
    for c in text.chars() {
        let class = if c.is_ascii() { ascii[c as usize] } else { class_of(c) };
        match class {
            Class::Space => pending_space = !out.is_empty(),
            Class::Dropped => {}
            Class::Kept => {
                if pending_space {
                    out.push(' ');
                    pending_space = false;
                }
                if c.is_ascii() {
                    out.push(c.to_ascii_lowercase());
                } else {
                    out.extend(c.to_lowercase());
                }
            }
        }
    }
    if out.is_empty() {
        // Text made only of punctuation: compare it as written rather than letting it all collide.
        return text.trim().to_string();
    }
    out
}

/// The dedup key of normalized text.
pub fn content_hash(normalized: &str) -> u64 {
    crate::digest::fnv1a(normalized.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

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
