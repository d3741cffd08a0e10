//! Personal identity numbers. Two ways, both independent of the sentence around the number:
//! - by format and check digit, where a national number has both (Spanish DNI/NIE, Brazilian CPF,
//!   Indian Aadhaar, Italian codice fiscale, Chinese resident id, Korean resident number, US SSN in
//!   its dashed form): a wrong check digit is not that number;
//! - by label, for every other document number: a run of at least six digits (letters, spaces,
//!   dashes and dots allowed between) right after a word that names an identity document in one of
//!   the languages below ("passport no.", "PESEL:", "Steuer-ID", "СНИЛС", "TC Kimlik No", …).

use super::{Finding, Findings};

/// Whether `bytes[at]` is a letter or digit (an id never starts or ends inside a longer token).
pub(super) fn alnum_at(bytes: &[u8], at: Option<usize>) -> bool {
    at.and_then(|i| bytes.get(i)).is_some_and(u8::is_ascii_alphanumeric)
}

/// The digits of `s` (ASCII), or `None` where another character than a digit or `sep` occurs.
fn digits_of(s: &[u8], seps: &[u8]) -> Option<Vec<u32>> {
    let mut out = Vec::with_capacity(s.len());
    for &b in s {
        if b.is_ascii_digit() {
            out.push(u32::from(b - b'0'));
        } else if !seps.contains(&b) {
            return None;
        }
    }
    Some(out)
}

const DNI_LETTERS: &[u8; 23] = b"TRWAGMYFPDXBNJZSQVHLCKE";

/// `12345678Z` or `X1234567L` (a dash or space may precede the letter).
fn spanish(t: &[u8]) -> bool {
    let (prefix, rest) = match t.first() {
        Some(b'X') => (0, &t[1..]),
        Some(b'Y') => (1, &t[1..]),
        Some(b'Z') => (2, &t[1..]),
        _ => (-1, t),
    };
    let Some((&letter, body)) = rest.split_last() else { return false };
    let body = body.strip_suffix(b"-").or_else(|| body.strip_suffix(b" ")).unwrap_or(body);
    let want = if prefix >= 0 { 7 } else { 8 };
    if body.len() != want || !body.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let mut n: u64 = if prefix >= 0 { prefix as u64 } else { 0 };
    for &b in body {
        n = n * 10 + u64::from(b - b'0');
    }
    DNI_LETTERS[(n % 23) as usize] == letter
}

/// `123.456.789-09` with its two mod-11 check digits.
fn cpf(d: &[u32]) -> bool {
    if d.len() != 11 || d.iter().all(|&x| x == d[0]) {
        return false;
    }
    let check = |n: usize| {
        let s: u32 = (0..n).map(|i| d[i] * (n as u32 + 1 - i as u32)).sum();
        let r = (s * 10) % 11;
        if r == 10 {
            0
        } else {
            r
        }
    };
    check(9) == d[9] && check(10) == d[10]
}

/// Verhoeff's check (Aadhaar's last digit).
fn verhoeff(d: &[u32]) -> bool {
    const M: [[u8; 10]; 10] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
        [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
        [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
        [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
        [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
        [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
        [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    ];
    const P: [[u8; 10]; 8] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
        [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
        [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
        [9, 4, 5, 3, 1, 2, 7, 6, 8, 0],
        [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
        [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ];
    let mut c = 0u8;
    for (i, &x) in d.iter().rev().enumerate() {
        c = M[usize::from(c)][usize::from(P[i % 8][x as usize])];
    }
    c == 0
}

/// `2345 6789 0123`: twelve digits in groups of four, not starting with 0 or 1, Verhoeff-valid.
fn aadhaar(d: &[u32]) -> bool {
    d.len() == 12 && d[0] >= 2 && verhoeff(d)
}

/// Italian codice fiscale: 16 characters `AAAAAA00A00A000A`, the last a check letter.
fn codice_fiscale(t: &[u8]) -> bool {
    const ODD: [u32; 36] = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];
    if t.len() != 16 {
        return false;
    }
    let letter = |i: usize| t[i].is_ascii_uppercase();
    let digit = |i: usize| t[i].is_ascii_digit();
    // Letters and digits where the format has them (digits of homonyms may be letters: not here).
    if !((0..6).all(letter) && digit(6) && digit(7) && letter(8) && digit(9) && digit(10) && letter(11) && (12..15).all(digit) && letter(15)) {
        return false;
    }
    let value = |b: u8| -> usize {
        if b.is_ascii_digit() {
            usize::from(b - b'0')
        } else {
            10 + usize::from(b - b'A')
        }
    };
    let even_value = |b: u8| -> u32 {
        if b.is_ascii_digit() {
            u32::from(b - b'0')
        } else {
            u32::from(b - b'A')
        }
    };
    // 1-based odd positions use the table; even ones count a digit as itself, a letter as its index.
    let sum: u32 = t[..15].iter().enumerate().map(|(i, &b)| if i % 2 == 0 { ODD[value(b)] } else { even_value(b) }).sum();
    t[15] == b'A' + (sum % 26) as u8
}

/// Chinese resident identity number: 17 digits and an ISO 7064 MOD 11-2 check (`0-9` or `X`).
fn chinese_id(t: &[u8]) -> bool {
    if t.len() != 18 || !t[..17].iter().all(u8::is_ascii_digit) {
        return false;
    }
    const W: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    let s: u32 = t[..17].iter().zip(W).map(|(&b, w)| u32::from(b - b'0') * w).sum();
    let check = b"10X98765432"[(s % 11) as usize];
    t[17] == check || (check == b'X' && t[17] == b'x')
}

/// Korean resident registration number `YYMMDD-GNNNNNN`: a real date and a sex/century digit.
fn korean_rrn(d: &[u32]) -> bool {
    d.len() == 13 && (1..=12).contains(&(d[2] * 10 + d[3])) && (1..=31).contains(&(d[4] * 10 + d[5])) && (1..=8).contains(&d[6])
}

/// US SSN `AAA-GG-SSSS` (dashes or spaces): an area other than 000, 666, 9xx; no zero group or serial.
fn ssn(d: &[u32]) -> bool {
    if d.len() != 9 {
        return false;
    }
    let area = d[0] * 100 + d[1] * 10 + d[2];
    let group = d[3] * 10 + d[4];
    let serial = d[5] * 1000 + d[6] * 100 + d[7] * 10 + d[8];
    area != 0 && area != 666 && area < 900 && group != 0 && serial != 0
}

/// Luhn's check (Canadian SIN, South African id, Greek AMKA, Swedish personnummer, Israeli id).
fn luhn(d: &[u32]) -> bool {
    let s: u32 = d
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &x)| {
            if i % 2 == 1 {
                if x * 2 > 9 {
                    x * 2 - 9
                } else {
                    x * 2
                }
            } else {
                x
            }
        })
        .sum();
    s % 10 == 0
}

/// Polish PESEL: eleven digits, weights 1 3 7 9 repeated, and a month (century-coded) that exists.
fn pesel(d: &[u32]) -> bool {
    if d.len() != 11 || !(1..=12).contains(&((d[2] * 10 + d[3]) % 20)) {
        return false;
    }
    let s: u32 = d[..10].iter().zip([1, 3, 7, 9, 1, 3, 7, 9, 1, 3]).map(|(&x, w)| x * w).sum();
    (10 - s % 10) % 10 == d[10]
}

/// Dutch BSN: nine digits passing the eleven test (weights 9 … 2, and -1 for the last).
fn bsn(d: &[u32]) -> bool {
    d.len() == 9 && {
        let s: i64 = d[..8].iter().zip((2..=9).rev()).map(|(&x, w)| i64::from(x) * w).sum::<i64>() - i64::from(d[8]);
        s % 11 == 0 && s != 0
    }
}

/// French NIR: thirteen digits and a key of 97 minus their remainder by 97.
fn nir(d: &[u32]) -> bool {
    d.len() == 15 && matches!(d[0], 1 | 2) && {
        let n = d[..13].iter().fold(0u64, |n, &x| n * 10 + u64::from(x));
        97 - n % 97 == u64::from(d[13] * 10 + d[14])
    }
}

/// Finnish henkilötunnus `DDMMYY-NNNC` (`+`, `-` or `A` for the century), its check character the
/// nine digits' remainder by 31.
fn hetu(t: &[u8]) -> bool {
    t.len() == 11 && t[..6].iter().chain(&t[7..10]).all(u8::is_ascii_digit) && matches!(t[6], b'-' | b'+' | b'A') && {
        let n = t[..6].iter().chain(&t[7..10]).fold(0u32, |n, &b| n * 10 + u32::from(b - b'0'));
        b"0123456789ABCDEFHJKLMNPRSTUVWXY"[(n % 31) as usize] == t[10]
    }
}

/// A number some national scheme's check digits accept, whatever its format: only ever asked of
/// a number a label stands near.
fn checksummed(token: &[u8]) -> bool {
    if self_evident(token).is_some() || hetu(token) {
        return true;
    }
    let Some(d) = digits_of(token, b"-. /") else { return false };
    (d.len() >= 9 && luhn(&d)) || pesel(&d) || bsn(&d) || nir(&d) || cpf(&d) || aadhaar(&d) || korean_rrn(&d) || nik(&d)
}

/// An Indonesian NIK has no check digit but a structure: sixteen digits, a province code (11 to
/// 94), the birth day (plus 40 for a woman) and month, and a serial that is not 0000. Read only after
/// a label, like the check digits above.
fn nik(d: &[u32]) -> bool {
    let n = |a: usize| d[a] * 10 + d[a + 1];
    d.len() == 16 && (11..=94).contains(&n(0)) && ((1..=31).contains(&n(6)) || (41..=71).contains(&n(6))) && (1..=12).contains(&n(8)) && d[12..].iter().any(|&x| x != 0)
}

/// How far after a label a number whose check digits hold may stand ("PESEL córki: …", "mijn
/// BSN voor de belasting: …"), in the same sentence.
const CHECKED_GAP: usize = 48;

/// Tokens of the text that may be an id: runs of letters, digits and single inner separators
/// (`-`, `.`, `/`, one space between digit groups), with their byte ranges.
pub(super) fn candidates(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_alphanumeric() || alnum_at(b, i.checked_sub(1)) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i;
        let mut j = i;
        while j < b.len() && j - start < 32 {
            if b[j].is_ascii_alphanumeric() {
                j += 1;
                end = j;
            } else if matches!(b[j], b'-' | b'.' | b'/' | b' ') && b.get(j + 1).is_some_and(u8::is_ascii_alphanumeric) && b[j - 1].is_ascii_alphanumeric() {
                // A space joins digit groups only ("2345 6789 0123"), never words.
                if b[j] == b' ' && !(b[j - 1].is_ascii_digit() && b[j + 1].is_ascii_digit()) {
                    break;
                }
                j += 1;
            } else {
                break;
            }
        }
        out.push((start, end));
        i = end.max(i + 1);
    }
    out
}

/// A number that is a national id by its own format and check digit.
fn self_evident(token: &[u8]) -> Option<&'static str> {
    let compact: Vec<u8> = token.iter().copied().filter(|b| !matches!(b, b'-' | b'.' | b' ' | b'/')).collect();
    if spanish(token) || (compact.len() == 9 && spanish(&compact)) {
        return Some("national-id");
    }
    if codice_fiscale(&compact) || chinese_id(&compact) {
        return Some("national-id");
    }
    let grouped = |sizes: &[usize], sep: &[u8]| {
        let mut at = 0;
        for (k, &n) in sizes.iter().enumerate() {
            if at + n > token.len() || !token[at..at + n].iter().all(u8::is_ascii_digit) {
                return false;
            }
            at += n;
            if k + 1 < sizes.len() {
                if !token.get(at).is_some_and(|b| sep.contains(b)) {
                    return false;
                }
                at += 1;
            }
        }
        at == token.len()
    };
    let d = digits_of(token, b"-. /")?;
    if grouped(&[3, 3, 3, 2], b".-") && token[3] == b'.' && cpf(&d) {
        return Some("national-id");
    }
    if grouped(&[4, 4, 4], b" -") && aadhaar(&d) {
        return Some("national-id");
    }
    if grouped(&[6, 7], b"-") && korean_rrn(&d) {
        return Some("national-id");
    }
    if (grouped(&[3, 2, 4], b"-") || grouped(&[3, 2, 4], b" ")) && token[3] == token[6] && ssn(&d) {
        return Some("us-ssn");
    }
    None
}

/// Words that name a number as something other than a person's ("order 123-45-6789", "ticket
/// no. …"): an SSN has no check digit, so a number the text itself calls an order is an order.
const OTHER_NUMBERS: &[&str] = &[
    "order",
    "invoice",
    "ticket",
    "tracking",
    "ref",
    "reference",
    "confirmation",
    "case",
    "claim",
    "booking",
    "reservation",
    "shipment",
    "parcel",
    "package",
    "sku",
    "item",
    "serial",
    "part",
    "model",
    "po",
    "transaction",
    "receipt",
    "policy",
    "pedido",
    "factura",
    "commande",
    "facture",
    "bestellung",
    "bestellnummer",
    "rechnung",
    "auftrag",
    "ordine",
    "заказ",
    "takip",
    "kargo",
    "sipariş",
    "sendung",
    "sendungsnummer",
    "seguimiento",
    "envío",
    "suivi",
    "colis",
    "spedizione",
    "rastreamento",
    "encomenda",
    "посылки",
    "отслеживания",
    "трек",
    "송장번호",
    "운송장번호",
    "주문번호",
    "追跡番号",
    "注文番号",
    "快递单号",
    "订单号",
    "单号",
];

/// Whether the words just before `at` (same line, a few words back) call the number there
/// something else than an identity number: a word of `OTHER_NUMBERS`, as a whole word.
pub(crate) fn called_other(text: &str, at: usize, others: &[&str]) -> bool {
    let mut from = at.saturating_sub(28);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let before = text[from..at].to_lowercase();
    let before = &before[before.rfind(['\n', ';']).map_or(0, |i| i + 1)..];
    before.split(|c: char| !c.is_alphanumeric()).any(|w| others.contains(&w) || w.strip_suffix('s').is_some_and(|w| others.contains(&w)))
}

/// Words that name an identity document or number (lower case), in the languages the guards read.
const LABELS: &[&str] = &[
    "ssn",
    "social security",
    "social",
    "pan",
    "social insurance",
    "sin",
    "national insurance",
    "ni number",
    "nino",
    "passport",
    "pasaporte",
    "passeport",
    "passaporto",
    "passaporte",
    "reisepass",
    "paszport",
    "paspoort",
    "pasaport",
    "паспорт",
    "id card",
    "identity card",
    "identity number",
    "id number",
    "national id",
    "personal id",
    "personalausweis",
    "ausweisnummer",
    "steuer-id",
    "steuerid",
    "steuer id",
    "steueridentifikationsnummer",
    "sozialversicherungsnummer",
    "versichertennummer",
    "krankenversicherungsnummer",
    "insurance number",
    "dni",
    "nie",
    "nif",
    "nss",
    "cpf",
    "rg",
    "codice fiscale",
    "tessera sanitaria",
    "numéro de sécurité sociale",
    "numero de securite sociale",
    "sécurité sociale",
    "sécu",
    "secu",
    "securite sociale",
    "insee",
    "nir",
    "carte vitale",
    "pesel",
    "bsn",
    "burgerservicenummer",
    "rodné číslo",
    "rodne cislo",
    "tc kimlik",
    // the Turkish identity number's own short name ("TC 384…"): a whole word, the number right after
    "tc",
    "kimlik no",
    "kimlik numarası",
    "aadhaar",
    "aadhar",
    "आधार",
    "pan card",
    "curp",
    "rut",
    "cuit",
    "cnpj",
    "medicare",
    "tax file number",
    "tfn",
    "driver's license",
    "drivers license",
    "driver license",
    "driving licence",
    "licence number",
    "license number",
    "führerschein",
    "licencia de conducir",
    "permis de conduire",
    "снилс",
    "инн",
    "паспортные данные",
    "серия",
    "personnummer",
    "henkilötunnus",
    // inflected ("henkilötunnukseni", "my personal identity code")
    "henkilötunnu",
    "fødselsnummer",
    "cpr-nummer",
    "cpr-nr",
    "cpr nr",
    "taj-szám",
    "taj szám",
    "adóazonosító jel",
    "adóazonosító",
    "αφμ",
    "α.φ.μ",
    "αριθμός ταυτότητας",
    "nr dowodu",
    "numer dowodu",
    "dowód osobisty",
    "občanky",
    "občanského průkazu",
    "पैन",
    "דרכון",
    "جواز السفر",
    "جواز سفر",
    "เลขบัตรประจำตัวประชาชน",
    "หนังสือเดินทาง",
    "cnp",
    "amka",
    "α.μ.κ.α",
    "teudat zehut",
    "תעודת זהות",
    "身份证",
    "身分證",
    "マイナンバー",
    "個人番号",
    "旅券番号",
    "주민등록번호",
    "여권번호",
    "nik",
    "nomor induk kependudukan",
    "ktp",
    "versichertennummer",
    "versicherungsnummer",
    "krankenversichertennummer",
    "cccd",
    "căn cước",
    "số cmnd",
    "เลขบัตรประชาชน",
    "رقم الهوية",
    "الرقم القومي",
    "کد ملی",
    "شماره ملی",
];

/// After a label: what may stand before the number ("no.", "number", "#", ":", "is", …).
pub(super) fn skip_to_value(lower: &str, mut at: usize) -> usize {
    const FILLERS: &[&str] = &[
        "number",
        "numbers",
        "num",
        "nr",
        "no",
        "nº",
        "n°",
        "núm",
        "numero",
        "número",
        "nummer",
        "numer",
        "numarası",
        "numaram",
        "numaran",
        "är",
        "er",
        "jest",
        "नंबर",
        "संख्या",
        "номер",
        "№",
        "card",
        "is",
        "es",
        "est",
        "ist",
        "é",
        "è",
        "—",
        "-",
        ":",
        "：",
        "#",
        "=",
        "(",
        ")",
        "'s",
        "s",
        "of",
        "my",
        "mine",
        // "my" in the other languages read ("NIK saya …", "mon numéro …")
        "saya",
        "mon",
        "ma",
        "mi",
        "mein",
        "meine",
        "meu",
        "minha",
        "mio",
        "mia",
        "мой",
        "du",
        "de",
        "der",
        "von",
        "van",
        "di",
        "do",
        "da",
        "il",
        "la",
        "le",
        "el",
        "の",
        "は",
        "번호",
        "는",
        "是",
        "号码",
        "號碼",
        "it's",
        "its",
        "lautet",
        "it",
        "id",
    ];
    for _ in 0..6 {
        let rest = &lower[at..];
        let trimmed = rest.trim_start_matches([' ', '.', ',', '\t']);
        at += rest.len() - trimmed.len();
        let Some(f) = FILLERS
            .iter()
            // An ASCII filler is a whole word; "は" or "의" runs into the number in scripts without spaces.
            .filter(|f| trimmed.starts_with(*f) && !(f.is_ascii() && trimmed[f.len()..].starts_with(|c: char| c.is_alphanumeric() && f.chars().all(char::is_alphanumeric))))
            .max_by_key(|f| f.len())
        else {
            break;
        };
        at += f.len();
    }
    at
}

/// Words that introduce a document's series, which its number follows ("серия 4510 номер
/// 987654", "серії КВ № 123456", "series 45 06 no. 123456").
const SERIES: &[&str] = &["серия", "серии", "серія", "серії", "series", "serie", "série", "seria"];

/// Words between a series and its number.
const NUMBER_WORDS: &[&str] = &["номер", "№", "number", "no.", "no", "nr.", "nr", "número", "numéro", "numer", "numero", "n°", "nº"];

/// A document given as series and number: the series (one to four letters of any script or digits,
/// two groups of two digits allowed), a number word, then six to ten digits. Neither part names
/// the person alone, but together they are the document.
fn series_and_number(text: &str, lower: &str, out: &mut Findings) {
    let skip = |at: usize| at + lower[at..].len() - lower[at..].trim_start_matches([' ', ':', '.', ',', '\t']).len();
    for word in SERIES {
        for (at, _) in lower.match_indices(word) {
            if lower[..at].chars().next_back().is_some_and(char::is_alphanumeric) {
                continue;
            }
            let series_start = skip(at + word.len());
            let mut i = series_start;
            let mut chars = 0;
            for c in lower[series_start..].chars() {
                let joins_digits = c == ' ' && lower[..i].ends_with(|p: char| p.is_ascii_digit()) && lower[i + 1..].starts_with(|n: char| n.is_ascii_digit()) && chars == 2;
                if !(c.is_alphanumeric() || joins_digits) || chars > 4 {
                    break;
                }
                chars += usize::from(c != ' ');
                i += c.len_utf8();
            }
            if !(1..=4).contains(&chars) {
                continue;
            }
            let series_end = i;
            let after = skip(series_end);
            let Some(number_word) = NUMBER_WORDS.iter().filter(|w| lower[after..].starts_with(*w)).max_by_key(|w| w.len()) else { continue };
            let number_start = skip(after + number_word.len());
            let digits = lower[number_start..].bytes().take_while(u8::is_ascii_digit).count();
            let number_end = number_start + digits;
            let bounded = !lower[number_end..].starts_with(char::is_alphanumeric);
            if (6..=10).contains(&digits) && bounded && !out.overlaps(series_start, number_end) && text.is_char_boundary(series_start) {
                out.push(Finding { start: series_start, end: number_end, kind: "national-id" });
            }
        }
    }
}

/// Labels of a health insurer's member number, which name it only beside a word about insurance
/// ("insurance card says member ID …"): a gym's member id is no one's secret.
const MEMBER_LABELS: &[&str] = &["member id", "member number", "member no", "member #", "subscriber id", "policyholder id"];
const INSURANCE_WORDS: &[&str] = &[
    "insurance",
    "insurer",
    "health plan",
    "medical",
    "dental",
    "medicaid",
    "medicare",
    "aetna",
    "cigna",
    "humana",
    "blue cross",
    "blue shield",
    "blueshield",
    "bcbs",
    "anthem",
    "unitedhealth",
    "kaiser",
];

/// How far before a member label an insurance word may stand.
const INSURANCE_GAP: usize = 80;

fn insurance_members(text: &str, lower: &str, tokens: &[(usize, usize)], out: &mut Findings) {
    let bytes = text.as_bytes();
    for label in MEMBER_LABELS {
        for (at, _) in lower.match_indices(label) {
            let end = at + label.len();
            if alnum_at(bytes, at.checked_sub(1)) || alnum_at(bytes, Some(end)) {
                continue;
            }
            let mut from = at.saturating_sub(INSURANCE_GAP);
            while !lower.is_char_boundary(from) {
                from += 1;
            }
            if !INSURANCE_WORDS.iter().any(|w| lower[from..at].contains(w)) {
                continue;
            }
            let value = skip_to_value(lower, end);
            let Some(&(s, e)) = tokens.get(tokens.partition_point(|&(s, _)| s < value)) else { continue };
            let digits = bytes[s..e].iter().filter(|b| b.is_ascii_digit()).count();
            if s <= value + 2 && digits >= 6 && (6..=24).contains(&(e - s)) && !out.overlaps(s, e) {
                out.push(Finding { start: s, end: e, kind: "national-id" });
            }
        }
    }
}

/// What the labelled scanners (`find` here, `accounts::find`) read of a text, made once: its
/// lower case at the same positions and its candidate tokens.
pub(super) struct Labelled {
    pub lower: String,
    pub tokens: Vec<(usize, usize)>,
}

impl Labelled {
    pub fn of(text: &str) -> Self {
        Labelled { lower: super::lower_in_place(text).to_ascii_lowercase(), tokens: candidates(text) }
    }
}

/// `find_in` on a text of its own (the scanners' tests).
#[cfg(test)]
pub(super) fn find(text: &str, out: &mut Findings) {
    find_in(text, &Labelled::of(text), out);
}

pub(super) fn find_in(text: &str, labelled: &Labelled, out: &mut Findings) {
    let bytes = text.as_bytes();
    let tokens = &labelled.tokens;
    for &(s, e) in tokens {
        if e - s < 9 || out.overlaps(s, e) {
            continue;
        }
        if let Some(kind) = self_evident(&bytes[s..e]) {
            // A checksum alone passes one number in ten or a hundred: a number the text calls a
            // tracking or order number is that.
            if called_other(text, s, OTHER_NUMBERS) {
                continue;
            }
            out.push(Finding { start: s, end: e, kind });
        }
    }
    // Labelled numbers (positions in `lower` are positions in `text`).
    let lower = &labelled.lower;
    series_and_number(text, lower, out);
    if lower.contains("member") || lower.contains("subscriber") || lower.contains("policyholder") {
        insurance_members(text, lower, tokens, out);
    }
    for label in LABELS {
        for (at, _) in lower.match_indices(label) {
            let end = at + label.len();
            let ascii = label.is_ascii();
            // ASCII labels are whole words.
            if ascii && (alnum_at(bytes, at.checked_sub(1)) || (alnum_at(bytes, Some(end)) && !lower[end..].starts_with("s "))) {
                continue;
            }
            // "social" names the number only as someone's ("my social", "my son's social"), never
            // "social media"; an SSN has no check digit, so after its labels one that can be an
            // SSN is enough, a few words on.
            if *label == "social" && !someones_social(lower, at, end) {
                continue;
            }
            let ssn_ok = matches!(*label, "ssn" | "social security" | "social");
            let from = skip_to_value(lower, end);
            // A UK National Insurance number written in its groups ("QQ 12 34 56 C").
            if matches!(*label, "national insurance" | "ni number" | "nino") {
                // At once, or at a word start a few words on in the same sentence.
                let mut gap_end = (end + CHECKED_GAP).min(bytes.len());
                while !text.is_char_boundary(gap_end) {
                    gap_end -= 1;
                }
                let gap = &text[end..gap_end];
                let gap = &gap[..gap.find(['\n', '?', '!']).or_else(|| gap.find(". ")).unwrap_or(gap.len())];
                let found = std::iter::once(from)
                    .chain((end..end + gap.len()).filter(|&i| bytes[i].is_ascii_uppercase() && !alnum_at(bytes, i.checked_sub(1))))
                    .find_map(|s| nino_at(bytes, s).map(|e| (s, e)));
                if let Some((s, e)) = found {
                    if !out.overlaps(s, e) {
                        out.push(Finding { start: s, end: e, kind: "national-id" });
                    }
                    continue;
                }
            }
            let Some(&(s, e)) = tokens.get(tokens.partition_point(|&(s, _)| s < from)) else { continue };
            // The number follows at once (a few characters of punctuation at most).
            if s > from + 2 || !text.is_char_boundary(s) {
                far_checked(text, tokens, end, ssn_ok, out);
                continue;
            }
            let token = &bytes[s..e];
            let digits = token.iter().filter(|b| b.is_ascii_digit()).count();
            // Document numbers of letters and digits ("ABCPE1234F", a PAN): capitals and at
            // least four digits, right after the label.
            let lettered = digits >= 4 && token.len() >= 8 && token.iter().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()) && token.iter().any(u8::is_ascii_uppercase);
            if !lettered && (digits < 6 || *label == "pan") {
                far_checked(text, tokens, end, ssn_ok, out);
            } else if (6..=24).contains(&token.len()) && !out.overlaps(s, e) {
                out.push(Finding { start: s, end: e, kind: "national-id" });
            }
        }
    }
}

/// `QQ 12 34 56 C` or `QQ123456C` at `at`: two letters, six digits (in pairs, a space allowed
/// between), a letter A to D; the end of it.
fn nino_at(b: &[u8], at: usize) -> Option<usize> {
    let mut i = at;
    let letter = |i: usize| b.get(i).is_some_and(u8::is_ascii_uppercase);
    if !(letter(i) && letter(i + 1)) || alnum_at(b, i.checked_sub(1)) {
        return None;
    }
    i += 2;
    for _ in 0..3 {
        if b.get(i) == Some(&b' ') {
            i += 1;
        }
        if !(b.get(i).is_some_and(u8::is_ascii_digit) && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            return None;
        }
        i += 2;
    }
    if b.get(i) == Some(&b' ') && b.get(i + 1).is_some_and(|c| (b'A'..=b'D').contains(c)) {
        i += 1;
    }
    if b.get(i).is_some_and(|c| (b'A'..=b'D').contains(c)) {
        i += 1;
    }
    (!alnum_at(b, Some(i))).then_some(i)
}

/// "social" as the name of someone's number: after a possessive ("my social", "my son's social")
/// and not before a word that makes it something else ("my social media").
fn someones_social(lower: &str, at: usize, end: usize) -> bool {
    let before = lower[..at].trim_end();
    let prev = before.rsplit(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    let next = lower[end..].trim_start().split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    matches!(prev, "my" | "your" | "his" | "her" | "their" | "our" | "s")
        && !matches!(next, "media" | "network" | "networks" | "worker" | "workers" | "club" | "life" | "skills" | "event" | "events" | "circle" | "studies" | "anxiety")
}

/// After a label the number does not follow at once: the first number of at least six digits
/// within `CHECKED_GAP` bytes, in the same sentence, if its check digits hold.
fn far_checked(text: &str, tokens: &[(usize, usize)], label_end: usize, ssn_ok: bool, out: &mut Findings) {
    let bytes = text.as_bytes();
    let first = tokens.partition_point(|&(s, _)| s < label_end);
    for &(s, e) in tokens[first..].iter().take_while(|&&(s, _)| s <= label_end + CHECKED_GAP) {
        let between = &text[label_end..s];
        if between.contains('\n') || between.contains(". ") || between.contains('?') || between.contains('!') {
            return;
        }
        let token = &bytes[s..e];
        if token.iter().filter(|b| b.is_ascii_digit()).count() >= 6 {
            let as_ssn = ssn_ok && digits_of(token, b"- ").is_some_and(|d| ssn(&d)) && !called_other(text, s, OTHER_NUMBERS);
            // Given after a colon, as a form gives a value ("Passport number for the visa form: …",
            // "PESEL córki: …"): the label says what it is, as when the number follows it at once
            // (a made-up or mistyped check digit is still someone's number).
            let given = text[label_end..s].trim_end().ends_with([':', '：']);
            if (checksummed(token) || as_ssn || given) && !out.overlaps(s, e) {
                out.push(Finding { start: s, end: e, kind: "national-id" });
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(&str, &'static str)> {
        let mut out = Findings::default();
        find(text, &mut out);
        let mut out = out.into_vec();
        out.sort_by_key(|f| f.start);
        out.iter().map(|f| (&text[f.start..f.end], f.kind)).collect()
    }

    /// A document given as series and number is found whole; an insurer's member id beside a word
    /// about insurance, a gym's not.
    #[test]
    fn a_nik_a_few_words_after_its_label() {
        assert_eq!(found("nik ku 3578..., eh salah, yang bener 3578015203880002"), [("3578015203880002", "national-id")]);
        // Sixteen digits without a NIK's structure (month 13) and no other check digit are not one.
        assert!(found("nik ku yang bener 3578015213880003").is_empty());
    }

    #[test]
    fn series_with_number_and_insurance_members() {
        assert_eq!(found("Паспорт серия 4510 номер 987654"), [("4510 номер 987654", "national-id")]);
        assert_eq!(found("паспорт серії КВ № 123456"), [("КВ № 123456", "national-id")]);
        assert_eq!(found("passport series 45 06 no. 123456"), [("45 06 no. 123456", "national-id")]);
        assert_eq!(found("Series 3 number 4 was the best episode"), []);
        assert_eq!(found("insurance card says member ID XJH493027781, group 0087214"), [("XJH493027781", "national-id")]);
        assert_eq!(found("gym member ID 4930277 for the sauna"), []);
        assert_eq!(found("nomor induk kependudukan saya 3273014506920001"), [("3273014506920001", "national-id")]);
        assert_eq!(found("e-Devlet girişi: TC 38492017510"), [("38492017510", "national-id")]);
        assert_eq!(found("BlueShield member #: XEH902447113"), [("XEH902447113", "national-id")]);
        assert_eq!(found("the TC 2024 conference had 1200000 visitors"), []);
    }

    #[test]
    fn check_digits_make_a_number_an_id_without_a_label() {
        assert_eq!(found("DNI 12345678Z para el contrato"), [("12345678Z", "national-id")]);
        assert_eq!(found("X1234567L"), [("X1234567L", "national-id")]);
        assert_eq!(found("12345678A"), [], "wrong DNI letter");
        assert_eq!(found("CPF 529.982.247-25"), [("529.982.247-25", "national-id")]);
        assert_eq!(found("529.982.247-26"), []);
        assert_eq!(found("RSSMRA85T10A562S"), [("RSSMRA85T10A562S", "national-id")]);
        assert_eq!(found("11010519491231002X"), [("11010519491231002X", "national-id")]);
        assert_eq!(found("my SSN: 529-38-1746"), [("529-38-1746", "us-ssn")]);
        assert_eq!(found("call 555-12-3456 or 666-12-3456"), [("555-12-3456", "us-ssn")]);
    }

    #[test]
    fn labelled_document_numbers() {
        assert_eq!(found("Passport No. C01X00T47"), [("C01X00T47", "national-id")]);
        assert_eq!(found("Passport No. 533380006"), [("533380006", "national-id")]);
        assert_eq!(found("PESEL: 44051401458"), [("44051401458", "national-id")]);
        assert_eq!(found("мой СНИЛС 112-233-445 95"), [("112-233-445 95", "national-id")]);
        assert_eq!(found("Steuer-ID 12 345 678 901"), [("12 345 678 901", "national-id")]);
        for benign in ["order number 12345678", "passport photos: 2", "the NIE office opens at 9", "invoice 2024-000123"] {
            assert_eq!(found(benign), [], "{benign}");
        }
    }

    /// A label a few words before a number whose check digits hold: PESEL, BSN, SIN (Luhn), NIR,
    /// henkilötunnus; or given after a colon. An SSN has no check digit: a "social" a few words
    /// before nine digits is not enough.
    #[test]
    fn checked_numbers_a_few_words_after_their_label() {
        assert_eq!(found("Numer PESEL córki: 92031508734"), [("92031508734", "national-id")]);
        assert_eq!(found("Numer PESEL córki to 92031508735"), [], "wrong PESEL check digit, not given after a colon");
        assert_eq!(found("Numer PESEL córki: 92031508735"), [("92031508735", "national-id")], "given after a colon");
        assert_eq!(found("Mijn BSN voor de belasting: 382910473"), [("382910473", "national-id")]);
        assert_eq!(found("Canadian SIN for payroll: 046 382 719"), [("046 382 719", "national-id")]);
        assert_eq!(found("Mon numéro de sécurité sociale : 1 85 05 78 006 084 91"), [("1 85 05 78 006 084 91", "national-id")]);
        assert_eq!(found("Henkilötunnus: 131052-308T"), [("131052-308T", "national-id")]);
        for benign in ["PESEL córki to 92031508735", "social media posts this week: 602143879 views", "passport photos. Order 382910473 shipped"] {
            assert_eq!(found(benign), [], "{benign}");
        }
    }

    /// An SSN has no check digit: what the text calls a number decides. An order number in the SSN
    /// format is an order; nine digits a few words after "SSN" or someone's "social" are an SSN.
    #[test]
    fn ssn_by_what_the_text_calls_it() {
        assert_eq!(found("Order 123-45-6789 shipped; tracking in the email."), []);
        assert_eq!(found("Ticket no. 529-38-1746 was closed"), []);
        assert_eq!(found("SSN 529-38-1746, order 123-45-6789"), [("529-38-1746", "us-ssn")]);
        assert_eq!(found("remember my son's social for the daycare tax form, it's 602143879"), [("602143879", "national-id")]);
        assert_eq!(found("her SSN for the W-2 is on file: 529 38 1746"), [("529 38 1746", "us-ssn")]);
        assert_eq!(found("my ssn for the lease application, 529381746"), [("529381746", "national-id")]);
        for benign in ["my social media posts this week: 602143879 views", "social club dues: 602143879", "SSN office hours 9 to 5, call 800 555 0100"] {
            assert_eq!(found(benign), [], "{benign}");
        }
    }

    /// Document numbers of letters and digits after their label: a UK NINO in its groups, an
    /// Indian PAN.
    #[test]
    fn lettered_document_numbers_after_their_label() {
        assert_eq!(found("National Insurance number: QQ 12 34 56 C"), [("QQ 12 34 56 C", "national-id")]);
        assert_eq!(found("NI number AB123456D for the payslip"), [("AB123456D", "national-id")]);
        assert_eq!(found("NI number for payroll: JT 48 22 91 B"), [("JT 48 22 91 B", "national-id")]);
        assert_eq!(found("PAN card: ABCPE1234F"), [("ABCPE1234F", "national-id")]);
        assert_eq!(found("my PAN is BNZPK4821M"), [("BNZPK4821M", "national-id")]);
        assert_eq!(found("Passport number for the visa form: K4821937"), [("K4821937", "national-id")]);
        assert_eq!(found("マイナンバーは1234 5678 9018です。"), [("1234 5678 9018", "national-id")]);
        assert_eq!(found("CNPJ da loja: 11.222.333/0001-81"), [("11.222.333/0001-81", "national-id")]);
        assert_eq!(found("Driver's license no. D1234-56789-01234 (California)"), [("D1234-56789-01234", "national-id")]);
        for benign in ["pan: 24 cm, non-stick", "National Insurance rates rise in April", "PAN card renewal form 49A", "passport photos for the trip. Booking: 48213977"] {
            assert_eq!(found(benign), [], "{benign}");
        }
    }

    #[test]
    fn never_panics_on_cut_inputs() {
        let s = "СНИЛС 112-233-445 95 DNI X1234567L passport no. é 529-38-1746 身份证 11010519491231002X";
        for i in 0..=s.len() {
            if s.is_char_boundary(i) {
                found(&s[..i]);
                found(&s[i..]);
            }
        }
    }
}
