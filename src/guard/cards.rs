//! Payment card numbers: 13–19 digits (spaces or dashes between groups allowed) with a known issuer
//! prefix and a valid Luhn check digit. Any span of whole groups inside a longer run of numbers is
//! tried, so "in 2024 4111 1111 1111 1111" still finds the card.

use super::Finding;

/// The fewest digits of a card number this scanner finds.
pub const MIN_DIGITS: usize = 13;

pub fn luhn(digits: &[u8]) -> bool {
    let mut sum = 0u32;
    for (i, d) in digits.iter().rev().enumerate() {
        let mut v = u32::from(*d);
        if i % 2 == 1 {
            v *= 2;
            if v > 9 {
                v -= 9;
            }
        }
        sum += v;
    }
    !digits.is_empty() && sum % 10 == 0
}

/// Issuer prefixes and lengths of the common networks.
fn known_issuer(d: &[u8]) -> bool {
    let n = |k: usize| d.iter().take(k).fold(0u32, |a, x| a * 10 + u32::from(*x));
    let len = d.len();
    match d.first() {
        Some(4) => matches!(len, 13 | 16 | 19),                                                                                            // Visa
        Some(5) => (51..=55).contains(&n(2)) && len == 16 || (n(2) == 50 || (56..=59).contains(&n(2))) && len >= 12,                       // Mastercard, Maestro
        Some(2) => (2221..=2720).contains(&n(4)) && len == 16,                                                                             // Mastercard 2-series
        Some(3) => (n(2) == 34 || n(2) == 37) && len == 15 || (n(2) == 35) && len >= 16 || matches!(n(2), 30 | 36 | 38 | 39) && len >= 14, // Amex, JCB, Diners
        Some(6) => n(4) == 6011 || n(2) == 65 || (644..=649).contains(&n(3)) || n(2) == 62 || n(2) == 67,                                  // Discover, UnionPay, Maestro
        _ => false,
    }
}

/// A number the text itself calls something else ("order #…", "customer number …"): a tenth of all
/// 16-digit numbers pass Luhn, so the label decides.
fn labelled_as_other(text: &str, at: usize) -> bool {
    let mut from = at.saturating_sub(24);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let before = text[from..at].to_ascii_lowercase();
    ["order", "customer", "invoice", "tracking", "ticket", "ref", "id", "#", "account no", "serial", "isbn", "phone", "tel"].iter().any(|w| before.contains(w))
        && !before.contains("card")
}

pub fn find(text: &str, out: &mut Vec<Finding>) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || matches!(b[i - 1], b'.' | b','))) {
            i += 1;
            continue;
        }
        // Groups of digits separated by one space or dash: (start, end) byte ranges.
        let mut groups: Vec<(usize, usize)> = Vec::new();
        let mut j = i;
        loop {
            let s = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            groups.push((s, j));
            if j + 1 < b.len() && matches!(b[j], b' ' | b'-') && b[j + 1].is_ascii_digit() && groups.len() < 64 {
                j += 1;
            } else {
                break;
            }
        }
        let run_end = j;
        let bounded_after = run_end == b.len() || !(b[run_end].is_ascii_alphanumeric() || (b[run_end] == b'.' && b.get(run_end + 1).is_some_and(u8::is_ascii_digit)));
        if bounded_after {
            'spans: for a in 0..groups.len() {
                for z in a..groups.len() {
                    let digits: Vec<u8> = groups[a..=z].iter().flat_map(|&(s, e)| b[s..e].iter().map(|c| c - b'0')).collect();
                    if digits.len() > 19 {
                        break;
                    }
                    if digits.len() >= MIN_DIGITS && known_issuer(&digits) && luhn(&digits) && !labelled_as_other(text, groups[a].0) {
                        out.push(Finding { start: groups[a].0, end: groups[z].1, kind: "card-number" });
                        break 'spans;
                    }
                }
            }
        }
        i = run_end.max(i + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        find(text, &mut out);
        out.iter().map(|f| &text[f.start..f.end]).collect()
    }

    #[test]
    fn luhn_checks() {
        assert!(luhn(&[7, 9, 9, 2, 7, 3, 9, 8, 7, 1, 3]));
        assert!(!luhn(&[7, 9, 9, 2, 7, 3, 9, 8, 7, 1, 4]));
    }

    #[test]
    fn finds_cards_with_separators_and_inside_number_runs() {
        assert_eq!(found("card 4111 1111 1111 1111 exp 12/29"), ["4111 1111 1111 1111"]);
        assert_eq!(found("amex 3782-822463-10005."), ["3782-822463-10005"]);
        assert_eq!(found("in 2024 5555 5555 5555 4444"), ["5555 5555 5555 4444"]);
    }

    #[test]
    fn ignores_numbers_that_are_not_cards() {
        for s in [
            "order 4111111111111112",
            "ts 1700000000000",
            "phone +1 555 123 4567",
            "pi 3.14159265358979323",
            "v4111111111111111",
            "id 9111111111111111",
            "customer number 4000123412341234",
        ] {
            assert_eq!(found(s), Vec::<&str>::new(), "{s}");
        }
    }
}
