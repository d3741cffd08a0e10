//! Randomness of a candidate token: generated keys look random, placeholders and words do not.

/// Shannon entropy in bits per character.
pub fn bits_per_char(s: &str) -> f64 {
    let mut counts: Vec<(char, u32)> = Vec::new();
    let mut n = 0u32;
    for c in s.chars() {
        n += 1;
        match counts.iter_mut().find(|(x, _)| *x == c) {
            Some((_, k)) => *k += 1,
            None => counts.push((c, 1)),
        }
    }
    if n == 0 {
        return 0.0;
    }
    let n = f64::from(n);
    counts.iter().map(|&(_, k)| f64::from(k) / n).map(|p| -p * p.log2()).sum()
}

/// How many of lower case, upper case, digits and other characters occur.
pub fn classes(s: &str) -> usize {
    let mut seen = [false; 4];
    for c in s.chars() {
        let i = if c.is_ascii_lowercase() {
            0
        } else if c.is_ascii_uppercase() {
            1
        } else if c.is_ascii_digit() {
            2
        } else {
            3
        };
        seen[i] = true;
    }
    seen.iter().filter(|x| **x).count()
}

/// Looks generated: long enough, varied, with letters and digits mixed, not a documentation stand-in.
pub fn looks_random(s: &str, min_len: usize, min_bits: f64) -> bool {
    let len = s.chars().count();
    let has_digit = s.bytes().any(|b| b.is_ascii_digit());
    let has_alpha = s.bytes().any(|b| b.is_ascii_alphabetic());
    len >= min_len && has_digit && has_alpha && bits_per_char(s) >= min_bits && !is_placeholder(s)
}

/// Stand-ins that documentation uses in place of a key.
pub fn is_placeholder(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    ["example", "xxxxxx", "your", "placeholder", "redacted", "dummy", "sample", "changeme", "0000000000", "123456789"].iter().any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_keys_and_stand_ins() {
        assert!(bits_per_char("aaaa") < 0.01);
        assert!((bits_per_char("abcd") - 2.0).abs() < 1e-9);
        assert!(looks_random("T3BlbkFJq8Zx9LmQ2wR7vN4pK1sD", 20, 3.5));
        assert!(!looks_random("xxxxxxxxxxxxxxxxxxxxxxxx1234", 20, 3.0));
        assert!(!looks_random("your-api-key-goes-here-12345", 20, 3.0));
        assert!(!looks_random("abcdefghijklmnopqrstuvwxyz", 20, 3.0), "no digits");
        assert_eq!(classes("aB3-"), 4);
    }
}
