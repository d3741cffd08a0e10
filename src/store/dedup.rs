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

/// The normalized form two duplicates share.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
        } else if !is_sentence_punctuation(c) {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.extend(c.to_lowercase());
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
