//! IBANs: a country code, two check digits and the country's length of letters and digits (groups
//! of four may be spaced), valid under ISO 7064 mod 97.

use super::{Finding, Findings};

/// IBAN lengths of the countries that use one (SWIFT registry).
const LENGTHS: &[(&str, usize)] = &[
    ("AD", 24),
    ("AE", 23),
    ("AL", 28),
    ("AT", 20),
    ("AZ", 28),
    ("BA", 20),
    ("BE", 16),
    ("BG", 22),
    ("BH", 22),
    ("BR", 29),
    ("CH", 21),
    ("CR", 22),
    ("CY", 28),
    ("CZ", 24),
    ("DE", 22),
    ("DK", 18),
    ("DO", 28),
    ("EE", 20),
    ("EG", 29),
    ("ES", 24),
    ("FI", 18),
    ("FO", 18),
    ("FR", 27),
    ("GB", 22),
    ("GE", 22),
    ("GI", 23),
    ("GL", 18),
    ("GR", 27),
    ("GT", 28),
    ("HR", 21),
    ("HU", 28),
    ("IE", 22),
    ("IL", 23),
    ("IS", 26),
    ("IT", 27),
    ("JO", 30),
    ("KW", 30),
    ("KZ", 20),
    ("LB", 28),
    ("LI", 21),
    ("LT", 20),
    ("LU", 20),
    ("LV", 21),
    ("MC", 27),
    ("MD", 24),
    ("ME", 22),
    ("MK", 19),
    ("MR", 27),
    ("MT", 31),
    ("MU", 30),
    ("NL", 18),
    ("NO", 15),
    ("PK", 24),
    ("PL", 28),
    ("PS", 29),
    ("PT", 25),
    ("QA", 29),
    ("RO", 24),
    ("RS", 22),
    ("SA", 24),
    ("SE", 24),
    ("SI", 19),
    ("SK", 24),
    ("SM", 27),
    ("TN", 24),
    ("TR", 26),
    ("UA", 29),
    ("VG", 24),
    ("XK", 20),
];

/// ISO 7064 mod 97-10 over the rearranged IBAN (`chars` upper-case letters and digits).
pub fn mod97_ok(chars: &[u8]) -> bool {
    if chars.len() < 5 {
        return false;
    }
    let mut rem = 0u32;
    for &c in chars[4..].iter().chain(&chars[..4]) {
        let v = match c {
            b'0'..=b'9' => u32::from(c - b'0'),
            b'A'..=b'Z' => u32::from(c - b'A') + 10,
            _ => return false,
        };
        rem = if v >= 10 { (rem * 100 + v) % 97 } else { (rem * 10 + v) % 97 };
    }
    rem == 1
}

pub fn find(text: &str, out: &mut Findings) {
    let b = text.as_bytes();
    for i in 0..b.len().saturating_sub(3) {
        if !(b[i].is_ascii_uppercase() && b[i + 1].is_ascii_uppercase() && b[i + 2].is_ascii_digit() && b[i + 3].is_ascii_digit()) {
            continue;
        }
        if i > 0 && b[i - 1].is_ascii_alphanumeric() {
            continue;
        }
        let Some(&(_, len)) = LENGTHS.iter().find(|(cc, _)| cc.as_bytes() == &b[i..i + 2]) else { continue };
        let mut chars = Vec::with_capacity(len);
        let mut j = i;
        while j < b.len() && chars.len() < len {
            if b[j].is_ascii_alphanumeric() {
                chars.push(b[j].to_ascii_uppercase());
                j += 1;
            } else if b[j] == b' ' && j + 1 < b.len() && b[j + 1].is_ascii_alphanumeric() && !chars.is_empty() {
                j += 1;
            } else {
                break;
            }
        }
        if chars.len() == len && (j == b.len() || !b[j].is_ascii_alphanumeric()) && mod97_ok(&chars) {
            out.push(Finding { start: i, end: j, kind: "iban" });
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
    fn finds_spaced_and_compact_ibans() {
        assert_eq!(found("pay to GB82 WEST 1234 5698 7654 32 today"), ["GB82 WEST 1234 5698 7654 32"]);
        assert_eq!(found("IBAN: DE89370400440532013000."), ["DE89370400440532013000"]);
    }

    #[test]
    fn rejects_bad_checksums_and_lookalikes() {
        for s in ["GB82 WEST 1234 5698 7654 33", "DE89370400440532013001", "US12 3456 7890", "model XX12 3456", "AB12CD34"] {
            assert_eq!(found(s), Vec::<&str>::new(), "{s}");
        }
    }
}
