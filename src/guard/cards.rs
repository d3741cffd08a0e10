//! Payment card numbers: 13–19 digits (spaces or dashes between groups allowed) with a known issuer
//! prefix and a valid Luhn check digit. Any span of whole groups inside a longer run of numbers is
//! tried, so "in 2024 4111 1111 1111 1111" still finds the card.

use super::{Finding, Findings};

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

/// Numbers the card networks' test and sandbox documentation publishes, so every developer can
/// write them: they pay for nothing.
const PUBLISHED_TEST_CARDS: &[&str] = &[
    "4242424242424242",
    "4000056655665556",
    "5555555555554444",
    "2223003122003222",
    "5200828282828210",
    "5105105105105100",
    "378282246310005",
    "371449635398431",
    "6011111111111117",
    "6011000990139424",
    "3056930009020004",
    "36227206271667",
    "3566002020360505",
    "6200000000000005",
    "4111111111111111",
    "4012888888881881",
    "4222222222222",
    "5425233430109903",
    "2222420000001113",
    "4000000000000002",
    "4000000000009995",
    "4000000000000077",
    "4000000000000341",
    "4000002500003155",
    "4000002760003184",
    "4000000000003220",
    "4000000000000069",
    "4000000000000127",
    "4000000000000119",
];

/// Words that say a card is for testing: a word starting with one of these.
const TEST_WORDS: &[&str] = &["test", "sandbox", "dummy", "demo", "fake", "mock", "prueba", "teste", "prova", "тест"];

/// How far around a number the words saying it is a test card may stand.
const TEST_CONTEXT: usize = 80;

/// A test card: the text says so, and the number is one the networks publish or digits no issuer
/// gives out (a card number is close to random after its issuer prefix; "4000 0000 0000 0002" and
/// "5555 5555 5555 4444" are not). Without the words a test number is still redacted: it costs
/// little, and a text that pays with it means it as a card.
fn test_card_in(text: &str, start: usize, end: usize, digits: &[u8]) -> bool {
    if !test_card(digits) {
        return false;
    }
    let (mut from, mut to) = (start.saturating_sub(TEST_CONTEXT), (end + TEST_CONTEXT).min(text.len()));
    while !text.is_char_boundary(from) {
        from += 1;
    }
    while !text.is_char_boundary(to) {
        to -= 1;
    }
    let around = text[from..to].to_lowercase();
    TEST_WORDS.iter().any(|w| around.match_indices(w).any(|(i, _)| !around[..i].chars().next_back().is_some_and(char::is_alphabetic)))
}

fn test_card(digits: &[u8]) -> bool {
    let text: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    if PUBLISHED_TEST_CARDS.contains(&text.as_str()) {
        return true;
    }
    let mut seen = [false; 10];
    for &d in digits {
        seen[usize::from(d)] = true;
    }
    let distinct = seen.iter().filter(|s| **s).count();
    let longest_run = digits.chunk_by(|a, b| a == b).map(<[u8]>::len).max().unwrap_or(0);
    distinct <= 2 || longest_run >= 8
}

/// A number the text itself calls something else ("order #…", "customer number …"): a tenth of all
/// 16-digit numbers pass Luhn, so the label decides.
fn labelled_as_other(text: &str, at: usize) -> bool {
    let mut from = at.saturating_sub(24);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let before = text[from..at].to_ascii_lowercase();
    // Whole words only: "tel" is not in "hotel", nor "id" in "paid".
    let word = |w: &str| {
        before.match_indices(w).any(|(i, _)| {
            let b = before.as_bytes();
            let e = i + w.len();
            let ends = !b.get(e).is_some_and(u8::is_ascii_alphabetic) || (b[e] == b's' && !b.get(e + 1).is_some_and(u8::is_ascii_alphabetic));
            !w.as_bytes()[0].is_ascii_alphabetic() || (!(i > 0 && b[i - 1].is_ascii_alphabetic()) && ends)
        })
    };
    ["order", "customer", "invoice", "tracking", "ticket", "ref", "id", "#", "account no", "serial", "isbn", "phone", "tel"].iter().any(|w| word(w)) && !before.contains("card")
}

pub fn find(text: &str, out: &mut Findings) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // After a comma only where no digit stands before it: "1,234…" is one number, a CSV row's
        // "Ortiz,5376…" is a field.
        let inside_number = i > 0 && (b[i - 1] == b'.' || (b[i - 1] == b',' && i > 1 && b[i - 2].is_ascii_digit()));
        if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_alphanumeric()) || inside_number {
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
                    if digits.len() >= MIN_DIGITS
                        && known_issuer(&digits)
                        && luhn(&digits)
                        && !labelled_as_other(text, groups[a].0)
                        && !test_card_in(text, groups[a].0, groups[z].1, &digits)
                    {
                        out.push(Finding { start: groups[a].0, end: groups[z].1, kind: "card-number" });
                        break 'spans;
                    }
                }
            }
        }
        i = run_end.max(i + 1);
    }
}

/// Words that name a card's security code (lower case).
const CODE_LABELS: &[&str] = &[
    "cvv",
    "cvc",
    "cvv2",
    "cvc2",
    "cid",
    "security code",
    "security number",
    "sec code",
    "card code",
    "code on back",
    "code on the back",
    "digits on the back",
    "number on the back",
    "3-digit code",
    "4-digit code",
    "csc",
    "cvn",
    "código de seguridad",
    "codigo de seguridad",
    "código de segurança",
    "code de sécurité",
    "cryptogramme",
    "prüfnummer",
    "kartenprüfnummer",
    "sicherheitscode",
    "codice di sicurezza",
    "kod cvv",
    "код безопасности",
    "cvv码",
    "安全码",
    "セキュリティコード",
    "보안코드",
    "güvenlik kodu",
    "رمز الأمان",
    "رمز الامان",
    "رمز التحقق",
    "三位数",
    "三位數",
    "安全碼",
    "cvv番号",
    "cvc번호",
    "cvv번호",
];

/// After a card number, its expiry and then a bare three or four digits: the security code
/// ("4111 1111 1111 1111 exp 11/26 123", "…, 09/27, 4417").
fn code_after_expiry(text: &str, out: &mut Findings) {
    let b = text.as_bytes();
    let cards: Vec<usize> = out.iter().filter(|f| f.kind == "card-number").map(|f| f.end).collect();
    for end in cards {
        // The expiry within a few words: `MM/YY` or `MM/YYYY`.
        let limit = (end + 24).min(b.len());
        let Some(slash) = (end..limit).find(|&i| b[i] == b'/') else { continue };
        let digits_before = (0..slash).rev().take_while(|&i| b[i].is_ascii_digit()).count();
        let mut i = slash + 1;
        let year_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if digits_before == 0 || digits_before > 2 || !matches!(i - year_start, 2 | 4) {
            continue;
        }
        // Then separators (`,` `;` spaces) and the code, within a few bytes.
        let mut s = i;
        while s < b.len() && s - i < 4 && matches!(b[s], b' ' | b',' | b';' | b'/') {
            s += 1;
        }
        if s == i || !b.get(s).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let mut e = s;
        while e < b.len() && b[e].is_ascii_digit() {
            e += 1;
        }
        if (3..=4).contains(&(e - s)) && !b.get(e).is_some_and(u8::is_ascii_alphanumeric) && !out.overlaps(s, e) {
            out.push(Finding { start: s, end: e, kind: "card-code" });
        }
    }
}

/// A card's security code: three or four digits right after a word that names one ("CVV 123",
/// "security code: 4417"), or bare after a card number and its expiry.
pub fn codes(text: &str, out: &mut Findings) {
    code_after_expiry(text, out);
    // A code is a run of three or four digits: most texts have none, and need no label search.
    let b = text.as_bytes();
    let mut run = 0;
    let mut short_run = false;
    for (i, &c) in b.iter().enumerate() {
        if c.is_ascii_digit() {
            run += 1;
        } else {
            run = 0;
        }
        let ends = !b.get(i + 1).is_some_and(u8::is_ascii_digit);
        short_run |= ends && (3..=4).contains(&run);
    }
    if !short_run {
        return;
    }
    let lower = super::lower_in_place(text).to_ascii_lowercase();
    for label in CODE_LABELS {
        for (at, _) in lower.match_indices(label) {
            let end = at + label.len();
            if (at > 0 && b[at - 1].is_ascii_alphanumeric()) || b.get(end).is_some_and(u8::is_ascii_alphanumeric) {
                continue;
            }
            // A few characters of punctuation, "is", "code" or "=" between the label and the code.
            let mut i = end;
            let limit = (end + 12).min(b.len());
            while i < limit && !b[i].is_ascii_digit() {
                i += 1;
            }
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let bounded = !(b.get(i).is_some_and(u8::is_ascii_alphanumeric) || s > 0 && b[s - 1].is_ascii_alphanumeric());
            if (3..=4).contains(&(i - s))
                && bounded
                // Only ASCII words between, or a copula of a script without spaces ("三位数是 416").
                && text[end..s].chars().all(|c| !c.is_alphabetic() || c.is_ascii() || matches!(c, '是' | '为' | '為' | 'は' | 'が'))
                && text[end..s].split_whitespace().count() <= 2
                && !out.overlaps(s, i)
            {
                out.push(Finding { start: s, end: i, kind: "card-code" });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Findings::default();
        find(text, &mut out);
        out.iter().map(|f| &text[f.start..f.end]).collect()
    }

    #[test]
    fn luhn_checks() {
        assert!(luhn(&[7, 9, 9, 2, 7, 3, 9, 8, 7, 1, 3]));
        assert!(!luhn(&[7, 9, 9, 2, 7, 3, 9, 8, 7, 1, 4]));
    }

    #[test]
    fn security_codes_after_their_label() {
        let code = |t: &str| {
            let mut out = Findings::default();
            codes(t, &mut out);
            out.iter().map(|f| t[f.start..f.end].to_string()).collect::<Vec<_>>()
        };
        assert_eq!(code("exp 11/26 security code 4417"), ["4417"]);
        assert_eq!(code("CVV: 123."), ["123"]);
        assert_eq!(code("the CVV is on the back, 3 digits"), Vec::<String>::new());
        assert_eq!(code("cvv 12345"), Vec::<String>::new());
        assert_eq!(code("Amex CID: 4417"), ["4417"]);
        assert_eq!(code("card security number 2231, keep it"), ["2231"]);
        assert_eq!(code("expires 04/27, code on back 112"), ["112"]);
        assert_eq!(code("卡背面的三位数是 527，别告诉别人"), ["527"]);
        assert_eq!(code("وتاريخ الانتهاء 05/29 ورمز الأمان 907"), ["907"]);
        assert_eq!(code("the 4-digit PIN policy changed in 2019"), Vec::<String>::new());
    }

    /// A card and its code go together, whatever comes before the card ("hotel" holds no "tel").
    #[test]
    fn a_card_and_its_code_go_together() {
        let all = |t: &str| {
            let mut out = Findings::default();
            find(t, &mut out);
            codes(t, &mut out);
            out.iter().map(|f| t[f.start..f.end].to_string()).collect::<Vec<_>>()
        };
        assert_eq!(all("dad's amex for the hotel deposit: 3715 902384 61173 exp 11/26 security code 4417"), ["3715 902384 61173", "4417"]);
        assert_eq!(all("paid with 4111 1111 1111 1111, 09/27, 123 tonight"), ["4111 1111 1111 1111", "123"]);
        assert_eq!(all("4111 1111 1111 1111 exp 09/2027 cvv 381"), ["4111 1111 1111 1111", "381"]);
        // A date and a count after something that is not a card stay.
        assert_eq!(all("order 4111111111111111 on 09/27, 120 items"), Vec::<String>::new());
    }

    #[test]
    fn finds_cards_with_separators_and_inside_number_runs() {
        assert_eq!(found("card 4111 1111 1111 1111 exp 12/29"), ["4111 1111 1111 1111"]);
        assert_eq!(found("amex 3782-822463-10005."), ["3782-822463-10005"]);
        assert_eq!(found("in 2024 5555 5555 5555 4444"), ["5555 5555 5555 4444"]);
    }

    /// A number the networks publish for testing, in a text that says it is one, is no one's card;
    /// without such words it is redacted as any card; a card in a CSV row is found after its comma.
    #[test]
    fn test_cards_said_to_be_tests_stay() {
        for t in ["For Stripe test mode use 4242 4242 4242 4242 with any CVC.", "Die Testkarte 4000 0000 0000 0002 wird abgelehnt.", "sandbox: 5555555555554444 always succeeds"] {
            assert_eq!(found(t), Vec::<&str>::new(), "{t}");
        }
        assert_eq!(found("card 4242 4242 4242 4242 exp 04/30"), ["4242 4242 4242 4242"]);
        assert_eq!(found("my real card on the test site: 4532 0176 8823 9147"), ["4532 0176 8823 9147"]);
        assert_eq!(found("name,card\nJ Ortiz,5376129044182733,04/28"), ["5376129044182733"]);
        assert_eq!(found("total 1,5376129044182733"), Vec::<&str>::new());
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
