//! Light English stemming, so "named" meets "name" and "pelicans" meets "pelican": the first steps of
//! Porter's algorithm (plurals, -ed, -ing, terminal y). Applied only to ASCII words; other scripts and
//! accented words are left as they are.

fn is_vowel(w: &[u8], i: usize) -> bool {
    match w[i] {
        b'a' | b'e' | b'i' | b'o' | b'u' => true,
        b'y' => i > 0 && !is_vowel(w, i - 1),
        _ => false,
    }
}

/// Porter's m: the number of vowel-consonant sequences in `w`.
fn measure(w: &[u8]) -> usize {
    let mut m = 0;
    let mut i = 0;
    while i < w.len() && !is_vowel(w, i) {
        i += 1;
    }
    while i < w.len() {
        while i < w.len() && is_vowel(w, i) {
            i += 1;
        }
        if i == w.len() {
            break;
        }
        while i < w.len() && !is_vowel(w, i) {
            i += 1;
        }
        m += 1;
    }
    m
}

fn has_vowel(w: &[u8]) -> bool {
    (0..w.len()).any(|i| is_vowel(w, i))
}

fn ends_double_consonant(w: &[u8]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && !is_vowel(w, n - 1)
}

/// consonant-vowel-consonant ending, last not w, x or y (as in "hop", not "hoop").
fn ends_cvc(w: &[u8]) -> bool {
    let n = w.len();
    n >= 3 && !is_vowel(w, n - 3) && is_vowel(w, n - 2) && !is_vowel(w, n - 1) && !matches!(w[n - 1], b'w' | b'x' | b'y')
}

/// The stem of a lowercase word (unchanged unless it is ASCII letters, longer than 3).
#[cfg(test)]
pub fn stem(word: &str) -> std::borrow::Cow<'_, str> {
    let mut w = word.to_string();
    stem_in_place(&mut w);
    if w == word {
        std::borrow::Cow::Borrowed(word)
    } else {
        std::borrow::Cow::Owned(w)
    }
}

/// [`stem`] in place: the tokenizer stems each word in its one reused buffer.
pub fn stem_in_place(word: &mut String) {
    if word.len() <= 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return;
    }
    // ASCII letters only from here, and only ASCII letters are removed or written: the bytes stay UTF-8.
    let mut w = std::mem::take(word).into_bytes();
    // 1a: plurals.
    if w.ends_with(b"sses") || w.ends_with(b"ies") {
        w.truncate(w.len() - 2);
    } else if w.ends_with(b"s") && !w.ends_with(b"ss") && !w.ends_with(b"us") && !w.ends_with(b"is") {
        w.pop();
    }
    // 1b: -eed, -ed, -ing.
    let mut cleanup = false;
    if w.ends_with(b"eed") {
        if measure(&w[..w.len() - 3]) > 0 {
            w.pop();
        }
    } else if w.ends_with(b"ed") && has_vowel(&w[..w.len() - 2]) {
        w.truncate(w.len() - 2);
        cleanup = true;
    } else if w.ends_with(b"ing") && has_vowel(&w[..w.len() - 3]) && w.len() > 5 {
        w.truncate(w.len() - 3);
        cleanup = true;
    }
    if cleanup {
        if w.ends_with(b"at") || w.ends_with(b"bl") || w.ends_with(b"iz") {
            w.push(b'e');
        } else if ends_double_consonant(&w) && !matches!(w[w.len() - 1], b'l' | b's' | b'z') {
            w.pop();
        } else if measure(&w) == 1 && ends_cvc(&w) {
            w.push(b'e');
        }
    }
    // 1c: terminal y → i when the stem has a vowel ("happy" and "happiness" meet).
    if w.len() > 2 && w.ends_with(b"y") && has_vowel(&w[..w.len() - 1]) {
        let n = w.len();
        w[n - 1] = b'i';
    }
    *word = String::from_utf8(w).unwrap_or_default();
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn conflates_inflections() {
        for (a, b) in [
            ("named", "name"),
            ("pelicans", "pelican"),
            ("running", "run"),
            ("hopped", "hop"),
            ("ponies", "pony"),
            ("caresses", "caress"),
            ("agreed", "agree"),
            ("painting", "paint"),
            ("painted", "paints"),
            ("hiking", "hike"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} vs {b}");
        }
    }

    #[test]
    fn leaves_short_and_non_english_words() {
        for w in ["is", "was", "bus", "café", "东京", "2024", "thesis"] {
            assert_eq!(stem(w), w);
        }
        assert_ne!(stem("sing"), stem("sang"));
    }
}
