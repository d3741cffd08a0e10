//! Bank account numbers stated after a word that names one ("checking acct 000123456789",
//! "Kontonummer 1234567890", "número de cuenta 0049 1500 05 1234567890"): an account number has no
//! check digit a scanner could rely on everywhere (an IBAN has, and `iban` finds it without a
//! label), so the label decides, and the number must follow it at once.

use super::ids::{alnum_at, skip_to_value, Labelled};
use super::{Finding, Findings};

/// Words naming a bank account's number, lower case. "account" alone counts: a number of six
/// digits or more right after it is an account's, whichever kind.
const LABELS: &[&str] = &[
    "account",
    "acct",
    "a/c",
    "kontonummer",
    "konto-nr",
    "kontonr",
    "konto",
    "numéro de compte",
    "n° de compte",
    "número de cuenta",
    "nº de cuenta",
    "cuenta",
    "número da conta",
    "conta corrente",
    "numero di conto",
    "numero conto",
    "conto corrente",
    "rekeningnummer",
    "nomor rekening",
    "no rek",
    "no. rek",
    "rekening",
    "hesap no",
    "hesap numarası",
    "номер счёта",
    "номер счета",
    "счёт",
    "счет",
    "口座番号",
    "账号",
    "帳號",
    "계좌번호",
];

/// The fewest and most digits of an account number.
const DIGITS: std::ops::RangeInclusive<usize> = 6..=20;

/// `labelled` is `Labelled::of(text)`, shared with `ids::find_in`.
pub(super) fn find(text: &str, labelled: &Labelled, out: &mut Findings) {
    let bytes = text.as_bytes();
    let (lower, tokens) = (&labelled.lower, &labelled.tokens);
    for label in LABELS {
        for (at, _) in lower.match_indices(label) {
            let end = at + label.len();
            // ASCII labels are whole words ("accounts" too: "accounts 1234567 and …" is rare and harmless).
            if label.is_ascii() && (alnum_at(bytes, at.checked_sub(1)) || (alnum_at(bytes, Some(end)) && !lower[end..].starts_with("s "))) {
                continue;
            }
            let from = skip_to_value(lower, end);
            let Some(&(s, e)) = tokens.get(tokens.partition_point(|&(s, _)| s < from)) else { continue };
            if s > from + 2 {
                continue;
            }
            let token = &bytes[s..e];
            let digits = token.iter().filter(|b| b.is_ascii_digit()).count();
            // Digits in groups only: a date ("2024-11-03"), an amount ("1.250,00") or a path is not one.
            let grouped = token.iter().all(|b| b.is_ascii_digit() || matches!(b, b' ' | b'-'));
            let date = token.len() == 10 && token[4] == b'-' && token[7] == b'-';
            if DIGITS.contains(&digits) && grouped && !date && !out.overlaps(s, e) {
                out.push(Finding { start: s, end: e, kind: "bank-account" });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Findings::default();
        find(text, &Labelled::of(text), &mut out);
        out.iter().map(|f| &text[f.start..f.end]).collect()
    }

    #[test]
    fn account_numbers_after_their_label() {
        assert_eq!(found("checking acct 000123456789, routing is on the site"), ["000123456789"]);
        assert_eq!(found("direct deposit: account 4829103375"), ["4829103375"]);
        assert_eq!(found("Kontonummer: 1234 5678 90"), ["1234 5678 90"]);
        assert_eq!(found("número de cuenta 0049-1500-0512"), ["0049-1500-0512"]);
        assert_eq!(found("номер счёта 40817810099910004312"), ["40817810099910004312"]);
    }

    #[test]
    fn other_numbers_near_the_word_are_not_accounts() {
        for benign in [
            "my account has 1500000 followers",
            "account created 2024-11-03",
            "the account balance is 1.250,00",
            "account 12345 is the demo one",
            "I opened the account in 2019 with 50000 saved",
            "accountant fee 123456",
        ] {
            assert_eq!(found(benign), Vec::<&str>::new(), "{benign}");
        }
    }
}
