//! Secrets keep company. A message that states one credential usually states the others that go
//! with it: a card's number with its PIN and the online banking password, a login's password with
//! its backup codes, the door code with the alarm's, a passport number with the national id. The
//! scanners before this one each need strong evidence, because most text holds no secret; once one
//! of them has found a secret in a text, the other credential words of that text are read with a
//! lower bar: a value right after one of them (a run of digits, an id with letters and digits, a
//! password-shaped token) is taken as a secret too. A text in which nothing was found is never
//! read here, so this adds no false alarm to text without a secret; within a text that has one, a
//! value next to a credential word is withheld rather than risked.

use super::password::{named_before, password_shaped, CODE_NOT_BEFORE, YEAR_BEFORE};
use super::{Finding, Findings};

/// What a credential word names, and so the kind of the value after it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Names {
    /// A password, PIN or code: a digit code or a password-shaped token.
    Code,
    /// A place locked by a code (a door, an alarm, a safe): only a digit code, before or after it.
    Lock,
    /// An identity document or number.
    Identity,
    /// A bank account.
    Account,
    /// A payment card: its number (whether or not its check digit holds) or its PIN, digits only.
    Card,
    /// A card's security code: three or four digits.
    Cvv,
    /// A word or phrase a bank asks for ("memorable word", "mother's maiden name"): the one word
    /// after the label's nouns, whatever its shape.
    Phrase,
    /// A network: its name comes first, then after a colon or a verb its key ("guest network
    /// Cafe_Guest is welcome-guests", "Rede de convidados MEO-GUEST: bemvindos2024").
    Network,
}

impl Names {
    fn kind(self) -> &'static str {
        match self {
            Names::Code | Names::Lock | Names::Phrase | Names::Network => "password",
            Names::Identity => "national-id",
            Names::Account => "bank-account",
            Names::Card => "card-number",
            Names::Cvv => "card-code",
        }
    }
}

/// Credential words, lower case. ASCII words match a whole token or one part of a hyphenated one
/// (`pin-code`), with a plural `s`; the others match a token's start, so inflected forms count
/// (`şifresi`, `пароля`), and scripts written without spaces match anywhere in a token.
const WORDS: &[(&str, Names)] = &[
    // passwords, PINs, codes
    ("password", Names::Code),
    ("passwort", Names::Code),
    ("passcode", Names::Code),
    ("pass", Names::Code),
    ("pw", Names::Code),
    ("pwd", Names::Code),
    ("kennwort", Names::Code),
    ("senha", Names::Code),
    ("contraseña", Names::Code),
    ("clave", Names::Code),
    ("clé", Names::Code),
    ("wachtwoord", Names::Code),
    ("lösenord", Names::Code),
    ("hasło", Names::Code),
    ("haslo", Names::Code),
    ("пароль", Names::Code),
    ("пароля", Names::Code),
    ("şifre", Names::Code),
    ("sifre", Names::Code),
    ("sandi", Names::Code),
    ("mật khẩu", Names::Code),
    ("パスワード", Names::Code),
    ("暗証番号", Names::Code),
    ("비밀번호", Names::Code),
    ("المرور", Names::Code),
    ("سر", Names::Code),
    ("السري", Names::Code),
    ("code", Names::Code),
    ("codes", Names::Code),
    ("código", Names::Code),
    ("codigo", Names::Code),
    ("codice", Names::Code),
    ("kod", Names::Code),
    ("kody", Names::Code),
    ("kode", Names::Code),
    ("код", Names::Code),
    ("コード", Names::Code),
    ("코드", Names::Code),
    ("pin", Names::Code),
    ("пин", Names::Code),
    ("passphrase", Names::Code),
    ("secret", Names::Code),
    ("koodi", Names::Code),
    ("kód", Names::Code),
    ("heslo", Names::Code),
    ("hesla", Names::Code),
    ("parola", Names::Code),
    ("parolă", Names::Code),
    ("passord", Names::Code),
    ("jelszó", Names::Code),
    ("jelszav", Names::Code),
    ("salasana", Names::Code),
    ("laluan", Names::Code),
    ("κωδικ", Names::Code),
    ("συνθηματικ", Names::Code),
    ("קוד", Names::Code),
    ("סיסמ", Names::Code),
    ("密码", Names::Code),
    ("口令", Names::Code),
    ("รหัส", Names::Code),
    ("पिन", Names::Code),
    ("पासवर्ड", Names::Code),
    ("puk", Names::Code),
    ("palavra-passe", Names::Code),
    ("passnumber", Names::Code),
    ("lösen", Names::Code),
    // networks, whose key follows their name
    ("network", Names::Network),
    ("rede", Names::Network),
    ("réseau", Names::Network),
    ("rete", Names::Network),
    ("netzwerk", Names::Network),
    ("netwerk", Names::Network),
    ("netværk", Names::Network),
    ("nätverk", Names::Network),
    ("сеть", Names::Network),
    ("sieć", Names::Network),
    ("网络", Names::Network),
    // keys: a network's, a wallet's, a licence's ("Κλειδί Wi-Fi: portokali2021")
    ("暗号化キー", Names::Code),
    ("セキュリティキー", Names::Code),
    ("key", Names::Code),
    ("keys", Names::Code),
    ("schlüssel", Names::Code),
    ("chiave", Names::Code),
    ("llave", Names::Code),
    ("chave", Names::Code),
    ("sleutel", Names::Code),
    ("nøgle", Names::Code),
    ("nyckel", Names::Code),
    ("klucz", Names::Code),
    ("anahtar", Names::Code),
    ("ключ", Names::Code),
    ("κλειδ", Names::Code),
    // answers a bank or a service asks for
    ("memorable", Names::Phrase),
    ("maiden", Names::Phrase),
    ("otp", Names::Code),
    ("totp", Names::Code),
    ("tan", Names::Code),
    // places a code opens
    ("door", Names::Lock),
    ("gate", Names::Lock),
    ("garage", Names::Lock),
    ("alarm", Names::Lock),
    ("alarme", Names::Lock),
    ("allarme", Names::Lock),
    ("alarma", Names::Lock),
    ("alarmanlage", Names::Lock),
    ("сигнализац", Names::Lock),
    ("panel", Names::Lock),
    ("keypad", Names::Lock),
    ("safe", Names::Lock),
    ("cassaforte", Names::Lock),
    ("tresor", Names::Lock),
    ("coffre", Names::Lock),
    ("portone", Names::Lock),
    ("portail", Names::Lock),
    ("porte", Names::Lock),
    ("puerta", Names::Lock),
    ("portão", Names::Lock),
    ("haustür", Names::Lock),
    ("kapı", Names::Lock),
    ("двер", Names::Lock),
    ("larm", Names::Lock),
    ("hälytys", Names::Lock),
    ("hälytyksen", Names::Lock),
    ("riasztó", Names::Lock),
    ("kapu", Names::Lock),
    ("dør", Names::Lock),
    ("dörr", Names::Lock),
    ("deur", Names::Lock),
    ("drzwi", Names::Lock),
    ("cancello", Names::Lock),
    ("συναγερμ", Names::Lock),
    ("אזעק", Names::Lock),
    ("保险柜", Names::Lock),
    ("门锁", Names::Lock),
    ("ประตู", Names::Lock),
    ("lock", Names::Lock),
    ("padlock", Names::Lock),
    ("két", Names::Lock),
    ("경비", Names::Lock),
    ("경보", Names::Lock),
    // a cash machine's code is the card's PIN ("cash machine" is read as two words below)
    ("atm", Names::Lock),
    ("cashpoint", Names::Lock),
    ("geldautomat", Names::Lock),
    ("cajero", Names::Lock),
    ("bancomat", Names::Lock),
    ("distributeur", Names::Lock),
    // identity documents and numbers
    ("passport", Names::Identity),
    ("διαβατήρ", Names::Identity),
    ("διαβατηρ", Names::Identity),
    ("visa", Names::Identity),
    ("passports", Names::Identity),
    ("passeport", Names::Identity),
    ("pasaporte", Names::Identity),
    ("passaporte", Names::Identity),
    ("passaporto", Names::Identity),
    ("paszport", Names::Identity),
    ("паспорт", Names::Identity),
    ("パスポート", Names::Identity),
    ("id", Names::Identity),
    ("identité", Names::Identity),
    ("ausweis", Names::Identity),
    ("personalausweis", Names::Identity),
    ("snils", Names::Identity),
    ("снилс", Names::Identity),
    ("nik", Names::Identity),
    ("ktp", Names::Identity),
    ("utr", Names::Identity),
    ("рнокпп", Names::Identity),
    ("инн", Names::Identity),
    ("cpf", Names::Identity),
    ("dni", Names::Identity),
    ("nie", Names::Identity),
    ("tc", Names::Identity),
    ("ssn", Names::Identity),
    ("carteirinha", Names::Identity),
    ("member", Names::Identity),
    ("年金番号", Names::Identity),
    ("dowód", Names::Identity),
    ("dowodu", Names::Identity),
    ("občank", Names::Identity),
    ("personnummer", Names::Identity),
    ("fødselsnummer", Names::Identity),
    ("henkilötunnu", Names::Identity),
    ("cpr", Names::Identity),
    ("pesel", Names::Identity),
    ("bsn", Names::Identity),
    ("taj", Names::Identity),
    ("adóazonosító", Names::Identity),
    ("αφμ", Names::Identity),
    ("ταυτότητ", Names::Identity),
    ("דרכון", Names::Identity),
    ("זהות", Names::Identity),
    ("جواز", Names::Identity),
    ("الهوية", Names::Identity),
    ("पैन", Names::Identity),
    ("आधार", Names::Identity),
    ("护照", Names::Identity),
    ("身份证", Names::Identity),
    ("여권", Names::Identity),
    ("หนังสือเดินทาง", Names::Identity),
    ("บัตรประจำตัว", Names::Identity),
    ("マイナンバー", Names::Identity),
    // payment cards
    ("card", Names::Card),
    ("karte", Names::Card),
    ("carte", Names::Card),
    ("tarjeta", Names::Card),
    ("cartão", Names::Card),
    ("carta", Names::Card),
    ("karta", Names::Card),
    ("карт", Names::Card),
    ("kart", Names::Card),
    ("kartu", Names::Card),
    ("بطاقة", Names::Card),
    ("カード", Names::Card),
    ("信用卡", Names::Card),
    ("银行卡", Names::Card),
    ("卡号", Names::Card),
    ("카드", Names::Card),
    ("cvv", Names::Cvv),
    ("安全码", Names::Cvv),
    ("安全碼", Names::Cvv),
    ("セキュリティコード", Names::Cvv),
    ("cvv2", Names::Cvv),
    ("cvc", Names::Cvv),
    ("cvc2", Names::Cvv),
    ("csc", Names::Cvv),
    // bank accounts
    ("iban", Names::Account),
    ("conto", Names::Account),
    ("account", Names::Account),
    ("acct", Names::Account),
    ("konto", Names::Account),
    ("konta", Names::Account),
    ("cuenta", Names::Account),
    ("conta", Names::Account),
    ("compte", Names::Account),
    ("rekening", Names::Account),
    ("счет", Names::Account),
    ("счёт", Names::Account),
    ("рахунок", Names::Account),
    ("hesap", Names::Account),
    ("tilinumero", Names::Account),
    ("účet", Names::Account),
    ("účtu", Names::Account),
    ("rachunek", Names::Account),
    ("rachunku", Names::Account),
    ("számla", Names::Account),
    ("حساب", Names::Account),
    ("khoản", Names::Account),
    ("お客さま番号", Names::Account),
    ("お客様番号", Names::Account),
    ("口座番号", Names::Account),
];

/// Articles French and Italian elide into the next word.
const ELIDED: &[&str] = &["l", "d", "qu", "j", "n", "s", "m", "t", "c", "dell", "nell", "all", "sull", "dall", "un"];

/// Tokens after a credential word read for its value ("the SIM PIN, if it asks, is 4091").
const AFTER: usize = 10;
/// In a text that already holds a secret, a value may come later in its sentence ("the tablet
/// passcode is the same as before except the last digit is a 7 now, so 55917").
const AFTER_ANCHORED: usize = 24;
/// Words between a network's name and its key ("… is welcome-guests", "… har valkommen123").
const NETWORK_SEPARATORS: &[&str] = &[
    "is",
    "are",
    "ist",
    "är",
    "er",
    "é",
    "es",
    "est",
    "è",
    "har",
    "has",
    "uses",
    "usa",
    "nutzt",
    "använder",
    "bruger",
    "=",
    "->",
    "—",
    "–",
    "pw",
    "pass",
    "key",
    "は",
    "是",
    "هي",
];
/// Nouns a `Phrase` label is written with, which are not its value ("memorable word", "maiden name").
const PHRASE_NOUNS: &[&str] = &["word", "data", "info", "information", "answer", "name", "phrase", "is", "was", "=", "-", "–", ":"];
/// Tokens before a lock word read for its code ("punch in 47193 at the main door").
const BEFORE: usize = 4;
/// Lines under a label that ends its line read as a list of values (backup codes).
const LIST_LINES: usize = 12;
/// Findings whose repeats `everywhere` looks for.
const SPREAD_MAX: usize = 32;
/// Texts longer than this are not read here: a message states its credentials in a few lines,
/// and this pass must stay linear in what it is given.
const MAX_TEXT: usize = 16 * 1024;

/// A token: its byte range in the text, and whether a line break follows it before the next one.
#[derive(Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    line_ends: bool,
}

/// Splits at white space and the separators written without one (`、`, `：`, `«`, `»`, quotes,
/// brackets): Japanese "基礎年金番号は4107-382956、マイナンバー" gives the label and its value in one token,
/// read by `glued_value`.
fn tokens(text: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    let mut at: Option<usize> = None;
    for (i, c) in text.char_indices().chain([(text.len(), '\n')]) {
        let split = c.is_whitespace() || matches!(c, '、' | '：' | '«' | '»' | '“' | '”' | '"' | '(' | ')' | '（' | '）' | '「' | '」' | '|' | ';' | '，' | '。' | '،');
        if split {
            if let Some(a) = at.take() {
                out.push(Token { start: a, end: i, line_ends: false });
            }
            if c == '\n' || c == '。' {
                if let Some(last) = out.last_mut() {
                    last.line_ends = true;
                }
            }
        } else if at.is_none() {
            at = Some(i);
        }
    }
    out
}

/// A token without the punctuation around it (byte offsets into the token).
fn trimmed(t: &str) -> (usize, usize) {
    let start = t.len() - t.trim_start_matches(['\'', '`', '*', '[', '{', '#', '-', '•', '①', '②', '③', '④', '⑤', '⑥', '⑦', '⑧', '⑨', '⑩']).len();
    let inner = &t[start..];
    let end = start + inner.trim_end_matches(['.', ',', ':', '!', '?', '\'', '`', '*', ']', '}', '=', '-', '»']).len();
    (start, end.max(start))
}

/// How compounds naming a code or a password end, in the languages that write compounds as one word
/// (the Nordic ones with their article: "koden", "kodu"; Finnish "koodi"; Hungarian "kód").
const CODE_ENDINGS: &[&str] = &[
    "code",
    "codes",
    "wort",
    "woord",
    "kode",
    "koden",
    "kod",
    "koder",
    "koodi",
    "kód",
    "kódja",
    "passord",
    "passordet",
    "lösenord",
    "lösenordet",
    "salasana",
    "jelszó",
    "jelszava",
    "schlüssel",
];

/// Compounds of "code" that name no secret: a value after them is an address, a product or data.
const NOT_CODES: &[&str] = &["postcode", "zipcode", "barcode", "qrcode", "decode", "encode", "unicode", "opcode", "geocode", "timecode", "shortcode", "sourcecode", "bytecode"];

/// The credential word a token is, if any. `token` comes from the text lower-cased once
/// (`lower_in_place`); a letter that kept its capital there (one whose lower case is longer, "İ")
/// is lower-cased here, for that token only.
fn credential(token: &str) -> Option<Names> {
    let owned;
    let token = if token.chars().any(char::is_uppercase) {
        owned = token.to_lowercase();
        owned.as_str()
    } else {
        token
    };
    let lower = token.trim_matches(|c: char| !c.is_alphanumeric());
    if lower.is_empty() {
        return None;
    }
    // French and Italian elide an article into the word ("d'identité", "l'allarme"); Turkish
    // writes a suffix after an apostrophe ("TC'n", "IBAN'ım").
    let lower = match lower.split_once(['\'', '’']) {
        Some((a, b)) if ELIDED.contains(&a) && b.chars().count() >= 3 => b,
        Some((a, b)) if b.chars().count() <= 3 => a,
        _ => lower,
    };
    // Compounds that end in a code or a password word ("pincode", "Zugangscode", "Kennwort",
    // "portkoden", "ovikoodi", "kapukód"): the first part says what the code opens.
    if CODE_ENDINGS.iter().any(|e| lower.ends_with(e) && lower.len() >= e.len() + 2) {
        return (!NOT_CODES.iter().any(|w| lower.trim_end_matches('s').ends_with(w))).then_some(Names::Code);
    }
    // Compounds that end in a network word ("Gästnätet", "Gastnetz", "gæstenetværk").
    if ["nätet", "nätverket", "netz", "netzwerk", "netværk", "netværket", "nettet", "netwerk"].iter().any(|e| lower.ends_with(e) && lower.len() >= e.len() + 3) {
        return Some(Names::Network);
    }
    let ascii = lower.is_ascii();
    let joined = lower.contains(['-', '/']);
    // Most tokens are ordinary words: an ASCII one none of whose parts begins as a credential word
    // does is no credential word, known without going through the list.
    if ascii && !lower.split(['-', '/']).any(|p| may_begin_a_word(p.as_bytes())) {
        return None;
    }
    // A token may hold two words glued ("信用卡背面的安全码是426"): the card's code is what it gives.
    let mut hits = WORDS.iter().filter_map(|&(w, names)| {
        let hit = if w.is_ascii() {
            // Words of four letters or more also begin their inflections and compounds ("karty",
            // "Kontonummer", "rekeningnummer"), but "pass" and "secret" begin too many other words.
            let part = |p: &str| p == w || p.strip_suffix('s') == Some(w) || (w.len() >= 4 && w != "pass" && w != "secret" && p.starts_with(w));
            part(lower) || (joined && lower.split(['-', '/']).any(part))
        } else if ascii {
            // A word with a letter outside ASCII is in no ASCII token.
            false
        } else if w.chars().any(|c| {
            ('\u{3040}'..='\u{9fff}').contains(&c) || ('\u{ac00}'..='\u{d7af}').contains(&c) || ('\u{0590}'..='\u{06ff}').contains(&c) || ('\u{0e00}'..='\u{0e7f}').contains(&c)
        }) {
            // Written without spaces (CJK, Thai), or (Hebrew, Arabic) with the article and
            // prepositions joined on; a word of two letters in those two scripts is in too many
            // others ("سر" in "سريع"), so it matches a whole token.
            let short_rtl = w.chars().count() <= 2 && w.chars().all(|c| ('\u{0590}'..='\u{06ff}').contains(&c));
            if short_rtl {
                lower == w
            } else {
                lower.contains(w)
            }
        } else {
            lower.starts_with(w)
        };
        hit.then_some(names)
    });
    let first = hits.next()?;
    // Only a card word can have its code glued after it: any other first hit is the answer,
    // without reading the rest of the list.
    if ascii || first != Names::Card {
        return Some(first);
    }
    Some(if hits.any(|n| n == Names::Cvv) { Names::Cvv } else { first })
}

/// Whether an ASCII token part may be a credential word or begin one, by its first three bytes
/// (the two-letter words, "pw", "id", by themselves or with a plural `s`). Three bytes, not two:
/// "an", "ma", "me" begin the most common words of a chat and a credential word or two each.
fn may_begin_a_word(p: &[u8]) -> bool {
    /// The three-byte beginnings of the longer words, sorted; the two-letter words.
    type Starts = (Vec<[u8; 3]>, Vec<&'static [u8]>);
    static STARTS: std::sync::OnceLock<Starts> = std::sync::OnceLock::new();
    let (three, two) = STARTS.get_or_init(|| {
        let ascii = || WORDS.iter().map(|(w, _)| w.as_bytes()).filter(|w| w.is_ascii());
        let mut three: Vec<[u8; 3]> = ascii().filter(|w| w.len() >= 3).map(|w| [w[0], w[1], w[2]]).collect();
        three.sort_unstable();
        three.dedup();
        (three, ascii().filter(|w| w.len() == 2).collect())
    });
    match p.len() {
        0 | 1 => false,
        2 => two.contains(&p),
        n => three.binary_search(&[p[0], p[1], p[2]]).is_ok() || (n == 3 && p[2] == b's' && two.contains(&&p[..2])),
    }
}

/// Whether a token is a run of digits (a code, a group of a longer number).
fn digits(t: &str) -> bool {
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())
}

/// An identifier of letters and digits in capitals, possibly in hyphenated groups (`X4RT7KP29`,
/// `3F7K-92QD-XW4M`): an id or a recovery code, never a word.
fn id_shaped(t: &str) -> bool {
    let n = t.len();
    let d = t.bytes().filter(u8::is_ascii_digit).count();
    let upper = t.bytes().filter(u8::is_ascii_uppercase).count();
    (6..=32).contains(&n) && t.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-') && d >= 2 && upper >= 1 && !t.starts_with('-') && !t.ends_with('-')
}

/// The value starting at token `k` for a word naming `names`: its byte range and how many tokens
/// it spans. A digit value may be written in groups ("2202 2036 1847 5521", "46 09 718253").
fn value_at(text: &str, toks: &[Token], k: usize, names: Names) -> Option<(usize, usize, usize)> {
    let t = toks[k];
    let raw = &text[t.start..t.end];
    let (a, b) = trimmed(raw);
    let core = &raw[a..b];
    if core.is_empty() || raw.starts_with('+') || core.contains("[secret:") {
        return None;
    }
    let prev = k.checked_sub(1).map(|p| text[toks[p].start..toks[p].end].to_lowercase());
    let prev = prev.as_deref().map(|w| w.trim_end_matches([':', ',']));
    // A name's word before a token makes it a name (a network's), unless a name is what is asked.
    if prev.is_some_and(|w| CODE_NOT_BEFORE.contains(&w)) || (names != Names::Phrase && named_before(text, t.start + a)) {
        return None;
    }
    let (s, mut e) = (t.start + a, t.start + b);
    if names == Names::Network {
        // The key comes after a colon or a verb, past the network's name.
        // "the network name is BT-7XK2": a name, not a key.
        let named = k >= 1 && named_before(text, toks[k - 1].start);
        let after_sep = !named && (prev.is_some_and(|w| w.ends_with(':') || NETWORK_SEPARATORS.contains(&w)) || text[..toks[k].start].trim_end().ends_with([':', '：', '=']));
        let n = core.chars().count();
        let shaped = (6..=64).contains(&n)
            && !core.contains(['@', '/', ':'])
            && core.chars().any(char::is_alphabetic)
            && (core.bytes().any(|b| b.is_ascii_digit()) || core.contains(['-', '_']) || (core.chars().any(char::is_uppercase) && core.chars().skip(1).any(char::is_lowercase)));
        return (after_sep && shaped).then_some((s, e, 1));
    }
    if names == Names::Phrase {
        // One word, past the label's nouns: "memorable word peppermint", "maiden name: Kowalski".
        let lower = core.to_lowercase();
        let word = core.chars().count() >= 4 && core.chars().all(|c| c.is_alphanumeric() || c == '-') && core.chars().any(char::is_alphabetic);
        return (word && !PHRASE_NOUNS.contains(&lower.as_str())).then_some((s, e, 1));
    }
    // A keypad code keeps the key that ends it ("2580#", "8172*").
    if let Some(code) = core.strip_suffix(['#', '*']).filter(|c| (4..=12).contains(&c.len()) && digits(c)) {
        return (names != Names::Cvv).then_some((s, s + code.len() + 1, 1));
    }
    let groups = |c: &str| !c.is_empty() && c.split('-').all(digits);
    if groups(core) {
        // Further groups on the same line, while each is digits only and nothing ended the token.
        let mut n = 1;
        let mut last_clean = b == raw.len();
        let mut j = k;
        while last_clean && !toks[j].line_ends && j + 1 < toks.len() && n < 6 {
            let next = &text[toks[j + 1].start..toks[j + 1].end];
            let (na, nb) = trimmed(next);
            if na != 0 || !groups(&next[..nb]) || toks[j + 1].start > toks[j].end + 1 {
                break;
            }
            j += 1;
            n += 1;
            e = toks[j].start + nb;
            last_clean = nb == next.len();
        }
        let count = text[s..e].bytes().filter(u8::is_ascii_digit).count();
        let year = count == 4 && n == 1 && (core.starts_with("19") || core.starts_with("20")) && prev.is_some_and(|w| YEAR_BEFORE.contains(&w));
        // A date written with hyphens ("2024-02-11", "11-02-2024").
        let parts: Vec<usize> = core.split('-').map(str::len).collect();
        let date = n == 1 && (parts == [4, 2, 2] || parts == [2, 2, 4]);
        let wanted = if names == Names::Cvv { 3..=4 } else { 4..=24 };
        return (wanted.contains(&count) && !year && !date).then_some((s, e, n));
    }
    if names == Names::Account {
        if let Some((end, n)) = iban_shaped(text, toks, k) {
            return Some((s, end, n));
        }
        // An account with its bank's code after a slash ("2801594736/2010", "19-2000145399/0800").
        if let Some((number, bank)) = core.split_once('/') {
            let count = number.bytes().filter(u8::is_ascii_digit).count();
            if number.split('-').all(digits) && (6..=16).contains(&count) && bank.len() == 4 && digits(bank) {
                return Some((s, e, 1));
            }
        }
    }
    // Recovery codes joined by hyphens ("7f3a9-c2e81"): groups of four to six letters and digits,
    // each with a digit.
    if names == Names::Code {
        let parts: Vec<&str> = core.split('-').collect();
        let group = |g: &&str| (4..=6).contains(&g.len()) && g.bytes().all(|b| b.is_ascii_alphanumeric()) && g.bytes().any(|b| b.is_ascii_digit());
        if parts.len() >= 2 && parts.iter().all(group) && core.bytes().any(|b| b.is_ascii_alphabetic()) {
            return Some((s, e, 1));
        }
    }
    // Recovery codes written in short groups of letters and digits ("k2m7 xq9p"): the groups on the
    // line, each of four or five characters with both.
    if names == Names::Code {
        let group = |g: &str| {
            (4..=5).contains(&g.len()) && g.bytes().all(|b| b.is_ascii_alphanumeric()) && g.bytes().any(|b| b.is_ascii_digit()) && g.bytes().any(|b| b.is_ascii_alphabetic())
        };
        if group(core) && b == raw.len() && !t.line_ends && k + 1 < toks.len() && toks[k + 1].start == t.end + 1 {
            let next = &text[toks[k + 1].start..toks[k + 1].end];
            let (na, nb) = trimmed(next);
            if na == 0 && group(&next[..nb]) {
                return Some((s, toks[k + 1].start + nb, 2));
            }
        }
    }
    if matches!(names, Names::Lock | Names::Card | Names::Cvv) {
        return None;
    }
    // A digest named as one is no key.
    if raw_key_shaped(core) && prev.is_some_and(|w| HASH_WORDS.contains(&w)) {
        return None;
    }
    // A password may end in `!` or `?` ("sayangku77!"): kept when that makes it one.
    let spoken = raw.trim_end_matches(['.', ',', ':', ';']);
    if names == Names::Code && spoken.len() > b && spoken[b..].bytes().all(|c| c == b'!' || c == b'?') && password_shaped(&spoken[a..]) {
        return Some((s, t.start + spoken.len(), 1));
    }
    // After a password word in a text that holds a secret, letters with two digits or more are
    // enough ("kiesel92"): the word already says what it is.
    if names == Names::Code
        && core.len() >= 6
        && core.bytes().all(|b| b.is_ascii_alphanumeric())
        && core.bytes().filter(u8::is_ascii_digit).count() >= 2
        && core.bytes().any(|b| b.is_ascii_alphabetic())
    {
        return Some((s, e, 1));
    }
    (id_shaped(core) || (names == Names::Code && (password_shaped(core) || passphrase_shaped(core) || raw_key_shaped(core)))).then_some((s, e, 1))
}

/// A raw private key written out: 64 hexadecimal digits, with or without `0x` (a wallet's or a
/// curve key's). A hash has the same shape, so this is read only beside a found secret, and not
/// after a word that names a hash.
fn raw_key_shaped(t: &str) -> bool {
    let hex = t.strip_prefix("0x").unwrap_or(t);
    hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) && hex.bytes().any(|b| b.is_ascii_alphabetic()) && hex.bytes().any(|b| b.is_ascii_digit())
}

/// Words after which 64 hexadecimal digits are a digest or an address, not a key.
const HASH_WORDS: &[&str] = &["sha256", "sha-256", "hash", "digest", "checksum", "tx", "txid", "transaction", "commit", "block", "sha"];

/// A value in quotes starting at token `k` and closing on its line: its range and tokens, when it
/// has a digit or three words and more (a passphrase); one word in quotes is read by `value_at`.
fn quoted_value(text: &str, toks: &[Token], k: usize) -> Option<(usize, usize, usize)> {
    let start = toks[k].start;
    let open = text[..start].chars().next_back()?;
    let close = match open {
        '"' => '"',
        '“' => '”',
        '«' => '»',
        '「' => '」',
        _ => return None,
    };
    let rest = &text[start..];
    let len = rest.find(close)?;
    let value = &rest[..len];
    if value.contains('\n') || !(6..=64).contains(&value.chars().count()) || value.contains("[secret:") {
        return None;
    }
    let words = value.split_whitespace().count();
    if words < 2 || !(value.bytes().any(|b| b.is_ascii_digit()) || words >= 3) {
        return None;
    }
    let end = start + len;
    let n = toks[k..].iter().take_while(|t| t.start < end).count();
    Some((start, end, n))
}

/// Three words or more joined by `-`, `_` or `.` ("Blue-Harbor-Window", "correct-horse-porch-91"):
/// a passphrase after a password word, or beside a found secret when it also has a digit.
fn passphrase_shaped(t: &str) -> bool {
    let parts: Vec<&str> = t.split(['-', '_', '.']).collect();
    let words = parts.iter().filter(|p| p.chars().count() >= 3 && p.chars().all(char::is_alphabetic)).count();
    (10..=64).contains(&t.chars().count()) && parts.len() >= 3 && words >= 2 && parts.iter().all(|p| !p.is_empty() && p.chars().all(char::is_alphanumeric))
}

/// A token that is a password by its own shape, whatever stands before it: mixed case with a
/// digit ("lemonadeStand55", "Fjellbekk-Tur-19"), or a passphrase with a digit
/// ("ochre-falcon-swim-11"). Read only in a text where a secret was found ("… and the shared
/// gmail is now lemonadeStand55").
fn strongly_password_shaped(t: &str) -> bool {
    let n = t.chars().count();
    if !(8..=40).contains(&n) || t.contains(['@', '/', ':', '\\']) || !password_shaped(t) {
        return false;
    }
    let digit = t.bytes().any(|b| b.is_ascii_digit());
    let mixed = t.chars().any(char::is_uppercase) && t.chars().any(char::is_lowercase);
    digit && (mixed || passphrase_shaped(t))
}

/// An IBAN's shape at token `k`, whether or not its check digits hold (a mistyped account is still
/// someone's): two capitals, two digits, then capitals and digits, in groups on one line, 15 to 34
/// characters in all. The end of it and how many tokens it spans.
fn iban_shaped(text: &str, toks: &[Token], k: usize) -> Option<(usize, usize)> {
    let part = |j: usize| {
        let raw = &text[toks[j].start..toks[j].end];
        let (a, b) = trimmed(raw);
        (a, b, raw)
    };
    let (a, b, raw) = part(k);
    let first = &raw.as_bytes()[a..b];
    if !iban_start(first) {
        return None;
    }
    let alnum = |t: &[u8]| !t.is_empty() && t.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    if !alnum(first) {
        return None;
    }
    let (mut len, mut end, mut j, mut clean) = (first.len(), toks[k].start + b, k, b == raw.len());
    while clean && !toks[j].line_ends && j + 1 < toks.len() && toks[j + 1].start == toks[j].end + 1 {
        let (na, nb, next) = part(j + 1);
        let g = &next.as_bytes()[na..nb];
        if na != 0 || g.len() > 7 || !alnum(g) || len + g.len() > 34 {
            break;
        }
        j += 1;
        len += g.len();
        end = toks[j].start + nb;
        clean = nb == next.len();
    }
    (15..=34).contains(&len).then_some((end, j + 1 - k))
}

/// How an IBAN begins: a country's two capitals, then two check digits.
fn iban_start(b: &[u8]) -> bool {
    b.len() >= 4 && b[..2].iter().all(u8::is_ascii_uppercase) && b[2..4].iter().all(u8::is_ascii_digit)
}

/// In a script written without spaces the value may be glued to its label in one token
/// ("基礎年金番号は4107-382956"): the digits after the word, past a particle or a colon.
fn glued_value(text: &str, t: Token, names: Names) -> Option<(usize, usize)> {
    let raw = &text[t.start..t.end];
    let first_digit = raw.find(|c: char| c.is_ascii_digit())?;
    if first_digit == 0 {
        return None;
    }
    let rest = &raw[first_digit..];
    let len = rest.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap_or(rest.len());
    let value = rest[..len].trim_end_matches('-');
    let count = value.bytes().filter(u8::is_ascii_digit).count();
    let wanted = if names == Names::Cvv { 3..=4 } else { 4..=24 };
    wanted.contains(&count).then_some((t.start + first_digit, t.start + first_digit + value.len()))
}

/// Adds the values next to the credential words of a text in which a secret was already found.
pub fn find(text: &str, out: &mut Findings) {
    // Unanchored, two values are needed, and most text has too few digits for two codes.
    if out.is_empty() && text.bytes().filter(u8::is_ascii_digit).count() < 4 {
        return;
    }
    find_always(text, out);
}

/// `find` without its shortcut (the shortcut test compares the two).
pub(crate) fn find_always(text: &str, out: &mut Findings) {
    let anchored = !out.is_empty();
    if text.len() > MAX_TEXT {
        return;
    }
    // (credential word's token, value's range, kind)
    let mut pairs: Vec<(usize, usize, usize, &'static str)> = Vec::new();
    let mut push = |k: usize, s: usize, e: usize, kind: &'static str| {
        // After a card word, a short run of digits is the card's PIN, a long one its number.
        let kind = if kind == "card-number" && text[s..e].bytes().filter(u8::is_ascii_digit).count() < 12 {
            "password"
        } else if raw_key_shaped(&text[s..e]) {
            "private-key"
        } else {
            kind
        };
        if s < e {
            pairs.push((k, s, e, kind));
        }
    };
    let toks = tokens(text);
    // Beside a card's number, a code word's three digits are the card's security code ("kod z tyłu 418").
    let card_found = out.iter().any(|f| f.kind == "card-number");
    // Lower-cased once for every token (positions kept), not token by token.
    let lower = super::lower_in_place(text).to_ascii_lowercase();
    let mut words: Vec<Option<Names>> = toks.iter().map(|t| credential(&lower[t.start..t.end])).collect();
    // "cash machine": the machine whose code is the card's PIN; "kod pocztowy", "código postal":
    // a postcode.
    for k in 1..toks.len() {
        let word = |j: usize| lower[toks[j].start..toks[j].end].trim_end_matches([',', '.', ':', '?', '!']);
        if words[k].is_none() && matches!(word(k), "machine" | "machines") && word(k - 1) == "cash" {
            words[k] = Some(Names::Lock);
        }
        // "secret word", "security answer": a word a bank asks for.
        if matches!(word(k), "word" | "answer") && matches!(word(k - 1), "secret" | "security" | "memorable") {
            words[k - 1] = None;
            words[k] = Some(Names::Phrase);
        }
        if words[k - 1] == Some(Names::Code) && ["poczt", "postal", "postale", "postali", "pocztow"].iter().any(|p| word(k).starts_with(p)) {
            words[k - 1] = None;
        }
    }
    for (k, names) in words.iter().enumerate() {
        let Some(names) = *names else { continue };
        let t = toks[k];
        // A label that is the last word of its line, or on a line that ends in a colon ("backup
        // codes (each works once):"): its values are the lines under it.
        let line_last = (k..toks.len()).find(|&x| toks[x].line_ends);
        let colon_line = line_last.is_some_and(|x| text[toks[x].start..toks[x].end].ends_with([':', '：']) && words[k + 1..=x].iter().all(Option::is_none));
        if t.line_ends || colon_line {
            let k_end = line_last.unwrap_or(k);
            let mut j = k_end + 1;
            let mut lines = 0;
            while j < toks.len() && lines < LIST_LINES {
                // One line: all its tokens must be values or list markers.
                let line_end = (j..toks.len()).find(|&x| toks[x].line_ends).unwrap_or(toks.len() - 1);
                let mut found: Vec<(usize, usize)> = Vec::new();
                let mut x = j;
                let mut all_values = true;
                while x <= line_end {
                    let tok = &text[toks[x].start..toks[x].end];
                    let marker = tok.trim_end_matches(['.', ')']).chars().all(|c| c.is_ascii_digit()) && tok.ends_with(['.', ')']) || trimmed(tok).0 == trimmed(tok).1;
                    if marker {
                        x += 1;
                        continue;
                    }
                    match value_at(text, &toks, x, names) {
                        Some((s, e, n)) => {
                            found.push((s, e));
                            x += n;
                        }
                        None => {
                            all_values = false;
                            break;
                        }
                    }
                }
                if !all_values || found.is_empty() {
                    break;
                }
                for (s, e) in found {
                    push(k, s, e, names.kind());
                }
                lines += 1;
                j = line_end + 1;
            }
            if lines > 0 {
                continue;
            }
        }
        if let Some((s, e)) = glued_value(text, t, names) {
            push(k, s, e, names.kind());
            continue;
        }
        // After the word, in its sentence: every value before the next credential word.
        let mut taken = false;
        let mut j = k + 1;
        let mut seen = 0;
        let mut ended = t.line_ends || text[t.start..t.end].ends_with(['.', '!', '?']);
        let after = if anchored { AFTER_ANCHORED } else { AFTER };
        // A credential word that qualifies this one, right after it or past a few short words
        // ("CVV карты", "PIN de la carte", "el CVV de la tarjeta"), is read past; a later one
        // starts its own value.
        let qualifies = |j: usize| {
            j <= k + 4
                && toks[k + 1..j].iter().all(|t| {
                    let w = &text[t.start..t.end];
                    w.chars().count() <= 4 && w.chars().all(char::is_alphabetic)
                })
        };
        while !ended && j < toks.len() && seen < after && (words[j].is_none() || (!taken && qualifies(j))) {
            // A semicolon ends the clause the value belongs to ("pass Oyster!Bay19; release sha256 …").
            if j > k + 1 && text[toks[j - 1].end..toks[j].start].contains(';') {
                break;
            }
            // A quoted value may hold spaces ("passphrase \"granite falcon orbit 93\"").
            if names == Names::Code {
                if let Some((s, e, n)) = quoted_value(text, &toks, j) {
                    push(k, s, e, names.kind());
                    taken = true;
                    j += n;
                    seen += n;
                    ended = toks[j - 1].line_ends;
                    continue;
                }
            }
            // Past the usual reach, a second value must be a code like the first ("… er 2580# – til
            // kælderen er det en anden, 0417"); a name said later ("la red se llama MOVISTAR_7A21")
            // is another matter.
            let far = seen >= AFTER && taken;
            if let Some((s, e, n)) = value_at(text, &toks, j, names).filter(|&(s, e, _)| !far || text[s..e].bytes().all(|b| b.is_ascii_digit() || b == b'#' || b == b'*')) {
                push(k, s, e, names.kind());
                taken = true;
                if names == Names::Phrase {
                    break;
                }
                j += n;
                // The value's own token may end the sentence ("Fiets2023! El número …").
                ended = toks[j - 1].line_ends || text[toks[j - 1].start..toks[j - 1].end].ends_with(['.', '!', '?']);
                seen += n;
                continue;
            }
            let tok = &text[toks[j].start..toks[j].end];
            let (a, b) = trimmed(tok);
            // A card named just before the code word ("della carta serve il codice dietro … 284").
            let card_named = words[k.saturating_sub(6)..(k + 8).min(words.len())].contains(&Some(Names::Card));
            // After a card word, three digits a code word named just before ("security code on the
            // back of the card is 591").
            let code_named = words[k.saturating_sub(8)..k].contains(&Some(Names::Code));
            if (((card_found || card_named) && names == Names::Code) || (names == Names::Card && code_named)) && b - a == 3 && digits(&tok[a..b]) {
                push(k, toks[j].start + a, toks[j].start + b, "card-code");
                taken = true;
            }
            // A line that ends in a colon gives its value on the next ("паспорт серия и номер:"); an
            // ellipsis is a pause, not a sentence's end ("te lo scrivo a parte... anzi no, eccolo: 8172*").
            let pause = tok.ends_with("...") || tok.ends_with('…');
            // A sentence may end inside its closing quote or bracket ("… expires March 2029.'").
            let closed = tok.trim_end_matches(['\'', '"', '’', '”', ')', '»']);
            ended = (toks[j].line_ends && !tok.ends_with([':', '：'])) || (closed.ends_with(['.', '!', '?']) && !pause);
            j += 1;
            seen += 1;
        }
        // A lock's code may come first ("punch in 47193 at the main door").
        if !taken && names == Names::Lock {
            for b in (k.saturating_sub(BEFORE)..k).rev() {
                if toks[b].line_ends || words[b].is_some() {
                    break;
                }
                if let Some((s, e, _)) = value_at(text, &toks, b, names) {
                    push(k, s, e, names.kind());
                    break;
                }
            }
        }
    }
    let table = table_values(text, &lower);
    // Without a secret found by the scanners before, credentials stated together vouch for each
    // other: two credential words with a value each ("SNILS 203-518-667 04 and her passport
    // 40 15 882104", "gate 8153, alarm 60927"). One alone is left to those scanners, unless it has
    // the whole shape of what its word names: a card's number or an IBAN whose check digits fail
    // (mistyped or made up, it is still given as someone's card or account).
    let distinct = |mut v: Vec<(usize, usize)>| {
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    let words = distinct(pairs.iter().map(|p| (p.0, 0)).collect());
    let values = distinct(pairs.iter().map(|p| (p.1, p.2)).collect());
    // A card number whose check digit holds is the card scanner's to judge (it leaves a published
    // test card alone in a text about testing): alone, this pass takes only the ones it cannot read.
    let luhn = |s: usize, e: usize| super::cards::luhn(&text[s..e].bytes().filter(u8::is_ascii_digit).map(|d| d - b'0').collect::<Vec<u8>>());
    // An account's value in an IBAN's shape came from `iban_shaped` (15 characters or more).
    let iban_like = |v: &str| iban_start(v.as_bytes()) && v.bytes().filter(u8::is_ascii_alphanumeric).count() >= 15;
    let whole_shape = |&(_, s, e, kind): &(usize, usize, usize, &str)| (kind == "card-number" && !luhn(s, e)) || (kind == "bank-account" && iban_like(&text[s..e]));
    // One credential word with three digit codes of about one length after it is a list of them
    // ("Portkod 2790, tvättstugan 1471# och förrådet 0306"); a postcode, a locker and a parcel
    // number after "kod" are not.
    let code_len = |&(_, s, e, _): &(usize, usize, usize, &str)| {
        let v = text[s..e].trim_end_matches(['#', '*']);
        digits(v).then_some(v.len())
    };
    let lens: Option<Vec<usize>> = pairs.iter().map(code_len).collect();
    let code_list = values >= 3 && lens.is_some_and(|l| l.iter().max().unwrap_or(&0) - l.iter().min().unwrap_or(&0) <= 1);
    if anchored || (words >= 2 && values >= 2) || code_list || pairs.iter().any(whole_shape) {
        for (_, s, e, kind) in pairs {
            if !out.overlaps(s, e) {
                out.push(Finding { start: s, end: e, kind });
            }
        }
        // Credentials that vouched for each other anchor the text as a found secret would: read it
        // again with the longer reach ("Koden … er 2580# – til kælderen er det en anden, 0417").
        if !anchored && !out.is_empty() {
            return find_always(text, out);
        }
    }
    // A table's credential column: taken in a text with a secret, or when its header names a
    // password (not only a code) and two rows or more fill it.
    for column in table {
        if anchored || !out.is_empty() || (column.password && column.values.len() >= 2) {
            for (s, e) in column.values {
                if !out.overlaps(s, e) {
                    out.push(Finding { start: s, end: e, kind: column.names.kind() });
                }
            }
        }
    }
    if !out.is_empty() {
        // Beside a found secret, a token that is a password by its own shape is one, however it
        // was introduced ("I went with Kettle7Harbor", "the real thing is Tahoe_lake_88").
        for t in &toks {
            let raw = &text[t.start..t.end];
            let (a, b) = trimmed(raw);
            let (s, e) = (t.start + a, t.start + b);
            if strongly_password_shaped(&text[s..e]) && !out.overlaps(s, e) && !named_before(text, s) {
                out.push(Finding { start: s, end: e, kind: "password" });
            }
        }
        // Beside a found secret, a raw key written out is one ("exported the wallet key: 0x4c08…"),
        // unless a word just before it names a hash.
        for (i, t) in toks.iter().enumerate() {
            let raw = &text[t.start..t.end];
            let (a, b) = trimmed(raw);
            let (s, e) = (t.start + a, t.start + b);
            let hash = toks[i.saturating_sub(3)..i].iter().any(|p| HASH_WORDS.contains(&lower[p.start..p.end].trim_matches(|c: char| !c.is_alphanumeric() && c != '-')));
            if raw_key_shaped(&text[s..e]) && !hash && !out.overlaps(s, e) {
                out.push(Finding { start: s, end: e, kind: "private-key" });
            }
        }
        super::siblings::find(text, out);
        corrections(text, &toks, out);
        everywhere(text, out);
    }
}

/// Tokens after a found code read for its correction.
const CORRECTION_SPAN: usize = 12;

/// A code corrected in the same sentence ("PIN 4410, no wait, that was the old one, it's 4401
/// now", "c'est A4127... pardon, c'est B4127"): after a found code of four to eight digits, or
/// digits with a letter, another of the same shape before the sentence ends is the same kind of
/// value, the right one or the wrong one, and both are withheld. An ellipsis is a pause, not an
/// end; a particle glued on ("482931이") is not part of the code. A year or an amount is no
/// correction.
fn corrections(text: &str, toks: &[Token], out: &mut Findings) {
    let shape = |v: &str| {
        v.chars()
            .map(|c| {
                if c.is_ascii_digit() {
                    '9'
                } else if c.is_ascii_alphabetic() {
                    'A'
                } else {
                    c
                }
            })
            .collect::<String>()
    };
    let ends = |t: &str| !(t.ends_with("...") || t.ends_with('…')) && t.ends_with(['.', '!', '?']);
    // The code at the start of a token, without a particle glued to it.
    let code_of = |core: &str| -> usize { core.find(|c: char| !c.is_ascii() && c.is_alphabetic()).filter(|&i| i >= 4).unwrap_or(core.len()) };
    let found: Vec<Finding> = out.iter().take(SPREAD_MAX).copied().collect();
    for f in found {
        let value = &text[f.start..f.end];
        let value = &value[..code_of(value)];
        let n = value.len();
        let digit_count = value.bytes().filter(u8::is_ascii_digit).count();
        if !(4..=8).contains(&n) || !value.bytes().all(|b| b.is_ascii_alphanumeric()) || digit_count + 1 < n {
            continue;
        }
        let want = shape(value);
        let Some(k) = toks.iter().position(|t| t.start <= f.start && f.start < t.end) else { continue };
        if toks[k].line_ends || ends(&text[toks[k].start..toks[k].end]) {
            continue;
        }
        for j in k + 1..toks.len().min(k + 1 + CORRECTION_SPAN) {
            let raw = &text[toks[j].start..toks[j].end];
            let (a, b) = trimmed(raw);
            let core = &raw[a..b];
            let core = &core[..code_of(core)];
            let before = &text[..toks[j].start];
            let money = before.trim_end().ends_with(['$', '€', '£', '¥']) || raw.starts_with(['$', '€', '£', '¥']);
            let year = n == 4 && (core.starts_with("19") || core.starts_with("20"));
            if shape(core) == want && !money && !year {
                let (s, e) = (toks[j].start + a, toks[j].start + a + core.len());
                if !out.overlaps(s, e) {
                    out.push(Finding { start: s, end: e, kind: f.kind });
                }
            }
            if toks[j].line_ends || ends(raw) {
                break;
            }
        }
    }
}

/// Rows of a table read under its header: at most this many.
const TABLE_ROWS: usize = 64;

/// The cells under one credential column of a table.
struct Column {
    names: Names,
    /// The header names a password, passphrase or secret, not only a code (error codes, postcodes
    /// and product codes fill tables too).
    password: bool,
    values: Vec<(usize, usize)>,
}

/// Tables written as text (Markdown pipes, CSV, tab- or semicolon-separated): a header line whose
/// cell names a credential ("password", "secret", "backup_code_1", "PIN") makes the cells under it
/// on the following rows its values, whatever their shape ("granite_owl_63", "77140266"). A row
/// ends the table when it has another number of cells.
fn table_values(text: &str, lower: &str) -> Vec<Column> {
    let mut out = Vec::new();
    if !text.contains('\n') {
        return out;
    }
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut at = 0;
    for line in text.split('\n') {
        lines.push((at, line));
        at += line.len() + 1;
    }
    let mut i = 0;
    while i < lines.len() {
        let (start, line) = lines[i];
        i += 1;
        let Some(sep) = ['|', '\t', ',', ';'].into_iter().find(|&c| line.contains(c)) else { continue };
        let header = cells(line, sep);
        // A header is labels: a few words each, none empty (a sentence with commas is no header).
        let label = |&(a, b): &(usize, usize)| b > a && b - a <= 40 && line[a..b].split_whitespace().count() <= 3;
        if header.len() < 2 || !header.iter().all(label) {
            continue;
        }
        let named: Vec<(usize, Names, bool)> = header
            .iter()
            .enumerate()
            .filter_map(|(c, &(a, b))| {
                let cell = &lower[start + a..start + b];
                // Every word of the cell, split where identifiers join them ("backup_code_1").
                let mut parts = cell.split(|ch: char| !ch.is_alphanumeric()).filter(|p| !p.is_empty() && !p.bytes().all(|d| d.is_ascii_digit()));
                let names = parts.clone().find_map(credential)?;
                let password = names == Names::Code && !parts.all(|p| ["code", "codes", "código", "codice", "kod", "kode", "код"].contains(&p));
                Some((c, names, password))
            })
            .collect();
        if named.is_empty() || named.len() == header.len() {
            continue;
        }
        let mut columns: Vec<Column> = named.iter().map(|&(_, names, password)| Column { names, password, values: Vec::new() }).collect();
        let mut rows = 0;
        while i < lines.len() && rows < TABLE_ROWS {
            let (row_start, row) = lines[i];
            // A Markdown rule under the header (`|---|:--|`).
            if row.contains('-') && row.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ' | '+')) {
                i += 1;
                continue;
            }
            let row_cells = cells(row, sep);
            if row_cells.len() != header.len() {
                break;
            }
            for (col, &(c, names, _)) in columns.iter_mut().zip(&named) {
                let (a, b) = row_cells[c];
                let value = &text[row_start + a..row_start + b];
                let digits = value.bytes().filter(u8::is_ascii_digit).count();
                let wanted = value.chars().count() <= 64
                    && match names {
                        Names::Code => {
                            value.chars().count() >= 4 && !value.contains("[secret:") && !["n/a", "none", "same", "---", "tbd", "—", "-"].contains(&value.to_lowercase().as_str())
                        }
                        Names::Cvv => (3..=4).contains(&digits),
                        _ => digits >= 4,
                    };
                if wanted {
                    col.values.push((row_start + a, row_start + b));
                }
            }
            rows += 1;
            i += 1;
        }
        out.extend(columns.into_iter().filter(|c| !c.values.is_empty()));
    }
    out
}

/// The cells of a table row split at `sep`, as trimmed byte ranges within the line (a Markdown row's
/// outer pipes make no cells).
fn cells(line: &str, sep: char) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for part in line.split(sep) {
        let lead = part.len() - part.trim_start().len();
        let trimmed = part.trim();
        out.push((at + lead, at + lead + trimmed.len()));
        at += part.len() + sep.len_utf8();
    }
    if sep == '|' {
        if out.first().is_some_and(|&(a, b)| a == b) {
            out.remove(0);
        }
        if out.last().is_some_and(|&(a, b)| a == b) {
            out.pop();
        }
    }
    out
}

/// A secret found once is withheld wherever the text repeats it ("changed the PIN to 2968 … just
/// type 2968"), and a code's digits found in part take the digit groups that follow them on the
/// same line ("Netzwerkschlüssel: 4819 2273 5560 1934 8721").
fn everywhere(text: &str, out: &mut Findings) {
    // Each finding is one pass over the text: a text of many findings has its first few spread.
    let found: Vec<Finding> = out.iter().take(SPREAD_MAX).copied().collect();
    let b = text.as_bytes();
    for f in found {
        let value = &text[f.start..f.end];
        if value.chars().count() >= 4 && value.bytes().all(|c| c.is_ascii_digit()) {
            let mut e = f.end;
            while b.get(e) == Some(&b' ') && b.get(e + 1).is_some_and(u8::is_ascii_digit) {
                let group = b[e + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                if b.get(e + 1 + group).is_some_and(|c| c.is_ascii_alphanumeric()) || group < 2 {
                    break;
                }
                e += 1 + group;
            }
            if e > f.end {
                // The longer span merges with the finding it extends.
                out.push(Finding { start: f.start, end: e, kind: f.kind });
            }
        }
        if value.chars().count() < 4 || value.starts_with("[secret:") {
            continue;
        }
        let word = |i: Option<char>| i.is_some_and(char::is_alphanumeric);
        for (at, _) in text.match_indices(value) {
            let end = at + value.len();
            if at != f.start && !word(text[..at].chars().next_back()) && !word(text[end..].chars().next()) && !out.overlaps(at, end) {
                out.push(Finding { start: at, end, kind: f.kind });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn companions(text: &str, found: &[&str]) -> Vec<String> {
        crate::guard::added_by(find, text, found)
    }

    #[test]
    fn values_beside_a_found_secret_are_taken() {
        assert_eq!(companions("pin nieuwe pas = 4096\nrekening (IBAN): NL63 RABO 0318 4472 05", &["NL63 RABO 0318 4472 05"]), ["4096"]);
        assert_eq!(companions("login pw Kx!93lamp, and if it asks for the PUK it's 40917728.", &["Kx!93lamp"]), ["40917728"]);
        assert_eq!(companions("card 2202 2036 1847 5521, PIN 7720", &["7720"]), ["2202 2036 1847 5521"]);
        assert_eq!(companions("password: Tulip#88\nbackup codes\n1. 6182 4470\n2. 9035 2718\nthanks", &["Tulip#88"]), ["6182 4470", "9035 2718"]);
        assert_eq!(companions("punch in 47193 at the main door, the alarm code is 5520", &["5520"]), ["47193"]);
        assert_eq!(companions("password Quokka&Tea55, recovery code: 3F7K-92QD-XW4M", &["Quokka&Tea55"]), ["3F7K-92QD-XW4M"]);
        assert_eq!(companions("基礎年金番号は4107-382956、マイナンバーは482910367751です", &["482910367751"]), ["4107-382956"]);
        assert_eq!(companions("СНИЛС: 157-382-904 61\nпаспорт серия и номер:\n46 09 718253\nвыдан 2009", &["157-382-904 61"]), ["46 09 718253"]);
        assert_eq!(companions("passeport 19AB34567, carte d'identité X4RT7KP29", &["19AB34567"]), ["X4RT7KP29"]);
        assert_eq!(companions("pincode nieuwe pas = 4096\nIBAN NL63 RABO 0318 4472 05", &["NL63 RABO 0318 4472 05"]), ["4096"]);
    }

    #[test]
    fn two_credentials_vouch_for_each_other() {
        assert_eq!(companions("codice portone 8153, allarme 60927", &[]), ["8153", "60927"]);
        assert_eq!(companions("SNILS 203-518-667 04 and her passport series/number 40 15 882104", &[]), ["203-518-667 04", "40 15 882104"]);
        // One credential word alone is left to the other scanners.
        assert!(companions("gate 8153 opens at 7", &[]).is_empty());
        assert_eq!(companions("NIK istri 3273016504950002 terus password m-banking nya sayangku77! jangan", &[]), ["3273016504950002", "sayangku77!"]);
        // A value ends its sentence: the order number after it is another matter.
        assert!(companions("wachtwoord: Fiets2023! El número de mi pedido es 12345.", &["Fiets2023!"]).is_empty());
    }

    #[test]
    fn whole_shapes_repeats_and_groups() {
        // A card's number or an IBAN after its word, whatever its check digits.
        assert_eq!(companions("Dane karty: numer 4111 8294 3350 6617, ważna do 02/27", &[]), ["4111 8294 3350 6617"]);
        assert_eq!(companions("conto IT60 X054 2811 1010 0000 0487 291, importo 1.250,00 EUR", &[]), ["IT60 X054 2811 1010 0000 0487 291"]);
        // A secret said twice goes twice; a code's digits take their groups.
        assert_eq!(companions("changed the PIN to 2968. At the machine just type 2968 and hit enter.", &["2968"]), ["2968"]);
        let mut out = Findings::default();
        let text = "Netzwerkschlüssel: 4819 2273 5560 1934 8721\nok";
        out.push(Finding { start: text.find("4819").unwrap(), end: text.find("4819").unwrap() + 4, kind: "password" });
        find(text, &mut out);
        assert!(out.iter().any(|f| &text[f.start..f.end] == "4819 2273 5560 1934 8721"));
        // CVV after its word, Turkish suffixes, a password word's lower-case value.
        assert_eq!(companions("пароль Береза_2718, CVV карты 194", &["Береза_2718"]), ["194"]);
        assert_eq!(companions("TC'n 52836401964, şifren de Mavi*Deniz", &["Mavi*Deniz"]), ["52836401964"]);
        assert_eq!(companions("WLAN key 4819\nKennwort für fritz.box: kiesel92", &["4819"]), ["kiesel92"]);
        // Dates are no codes.
        assert!(companions("PIN 7720, code changed 2024-02-11", &["7720"]).is_empty());
        // A test card the card scanner left alone stays.
        assert!(companions("for the sandbox use the test card 4242 4242 4242 4242 with any CVC", &[]).is_empty());
        // An account's reference alone is no IBAN ("top up her lunch account … it's LK-55019-N").
        assert!(companions("I need to top up her lunch account, the number is LK-55019-N", &[]).is_empty());
    }

    #[test]
    fn tables_give_their_credential_columns() {
        // A header naming a secret, two rows under it: taken with no other secret found.
        let md = "| box | login | secret |\n|---|---|---|\n| backup NAS | admin | willow_crane_40 |\n| old router | root | Zq7-pl22-Hh |";
        assert_eq!(companions(md, &[]), ["willow_crane_40", "Zq7-pl22-Hh"]);
        // CSV beside a found secret: every credential column, a backup code's too.
        let csv = "site,user,pass,recovery_code_1\nforum,mkay,PlumTree!4,55120938\nshop,mkay,Orchid#22,77301945";
        assert_eq!(companions(csv, &["PlumTree!4"]), ["Orchid#22", "55120938", "77301945"]);
        // Error codes, and a sentence with commas, are no credential table.
        assert!(companions("| code | meaning |\n|---|---|\n| E1042 | overheat |\n| E2201 | fan stalled |", &[]).is_empty());
        let prose = "Hi, the code word is in the letter, thanks\nsee you, at the gate, tomorrow 0900";
        assert!(companions(prose, &["letter"]).iter().all(|v| v != "tomorrow 0900" && v != "at the gate"), "{:?}", companions(prose, &["letter"]));
    }

    #[test]
    fn values_said_other_ways_beside_a_found_secret() {
        // Compounds written as one word, with their article (Swedish, Danish, Finnish, Hungarian).
        assert_eq!(companions("portkoden är 6613 och larmet slår du av med 2290", &[]), ["6613", "2290"]);
        assert_eq!(companions("kapukód 5182, a riasztó kódja 7730", &[]), ["5182", "7730"]);
        // A keypad code keeps its key.
        assert_eq!(companions("koden til porten er 4471#, alarmkoden 9002", &[]), ["4471#", "9002"]);
        // A quoted passphrase, and a list under a line that ends in a colon.
        assert_eq!(companions("key file is guarded by the passphrase \"lantern moss river 58\", sudo: Ox!d4tion", &["Ox!d4tion"]), ["lantern moss river 58"]);
        assert_eq!(companions("pw Saffron#71\nbackup codes for the account (one use each):\n3390 1174\n8025 6613", &["Saffron#71"]), ["3390 1174", "8025 6613"]);
        // A code corrected in its sentence: both values go.
        assert_eq!(companions("alarm code 5521, sorry no, the old one was that, it's 5512 since May", &["5521"]), ["5512"]);
        // A token that is a password by its shape, however it was introduced.
        assert_eq!(companions("I set the tv password to Quill#505 and the family mail is now orangeKite83", &["Quill#505"]), ["orangeKite83"]);
        // A three-word passphrase after a password word, digits or not.
        assert_eq!(companions("PIN 8890, wifi password Copper-Meadow-Lantern", &["8890"]), ["Copper-Meadow-Lantern"]);
        // Beside a card's number, a code word's three digits are its security code.
        let text = "use the card 4539 1488 0343 6467, kod z tyłu 291";
        let mut out = Findings::default();
        let s = text.find("4539").unwrap();
        out.push(Finding { start: s, end: s + 19, kind: "card-number" });
        find(text, &mut out);
        assert!(out.iter().any(|f| &text[f.start..f.end] == "291" && f.kind == "card-code"));
    }

    #[test]
    fn further_reach_beside_a_found_secret() {
        // Later in its sentence, past a clause about it.
        let text = "bike lock is 3318. The locker passcode is what it was last term apart from the final digit, which is now 2, so 60912. ok?";
        assert_eq!(companions(text, &["3318"]), ["60912"]);
        // A second code later in the sentence, but not a name said after the first value.
        assert_eq!(companions("alarm 7101. Kodeordet til loftet er 4471 – til garagen er det noget andet igen, nemlig 9920.", &["7101"]), ["4471", "9920"]);
        assert_eq!(companions("PIN 7101. The wifi key for the cabin is Birch7Lodge, and the network there is called telia-4g-88", &["7101"]), ["Birch7Lodge"]);
        // A credential word past a few short words qualifies the first ("el PIN de la tarjeta").
        assert_eq!(companions("clave del banco: Olmo!Rojo31 — el PIN de la tarjeta, si hace falta, 8824", &["Olmo!Rojo31"]), ["8824"]);
        // The words a bank asks for, one word after the label's nouns.
        assert_eq!(companions("online banking pin 55019, memorable word lighthouse, maiden name: Pettersen. thanks", &["55019"]), ["lighthouse", "Pettersen"]);
        // A raw key written out beside a secret; a digest is not one.
        let key = "9b1c3e7a2f6d4058a1c2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e";
        let text = format!("vault pass Oyster!Bay19, and the signing key 0x{key}");
        assert_eq!(companions(&text, &["Oyster!Bay19"]), [format!("0x{key}")]);
        let text = format!("vault pass Oyster!Bay19; release sha256 {key}");
        assert!(companions(&text, &["Oyster!Bay19"]).is_empty(), "{:?}", companions(&text, &["Oyster!Bay19"]));
        // A sentence ends inside its closing quote; a month's year is no code.
        let text = "'passport 551902817, issued May 2020.' Which page of form AB-210 takes it?";
        assert!(companions(text, &["551902817"]).is_empty(), "{:?}", companions(text, &["551902817"]));
        // A config's `=` is not part of a password.
        assert!(companions("<entry key=\"MailPass\" value=\"Qz!8port\" />", &["Qz!8port"]).iter().all(|v| !v.contains('=')));
    }

    #[test]
    fn codes_said_without_a_password_word() {
        // The cash machine's code, a padlock's, a lock's: three codes under one word vouch.
        assert_eq!(companions("login pw Heron!Moss8 and at the cash machine you punch 5512", &["Heron!Moss8"]), ["5512"]);
        assert_eq!(companions("garage padlock 7731, loft lock 0922", &[]), ["7731", "0922"]);
        assert_eq!(companions("Dørkode 2790, vaskekælderen 1471# og pulterrummet 0306.", &[]), ["2790", "1471#", "0306"]);
        // A postcode, a locker and a parcel number after "kod" are no list of codes.
        assert!(companions("Kod pocztowy 30-415, skrytka WAW55K, numer paczki 77001122", &[]).is_empty());
        // A card named before the code word: its three digits.
        assert_eq!(companions("pass Gelso!Blu4; per la carta chiedono il codice sul retro: 513", &["Gelso!Blu4"]), ["513"]);
        // Chinese card words; an account with its bank's code; recovery codes in short groups.
        assert_eq!(companions("银行卡号 6217 0012 3456 7781，取款密码 640213", &[]), ["6217 0012 3456 7781", "640213"]);
        assert_eq!(companions("heslo Morava_Brno5, číslo účtu 1928374650/0300", &["Morava_Brno5"]), ["1928374650/0300"]);
        assert_eq!(companions("pw Tavle!Sol3\nbackup-koder: h4k9 w2p7, z8r1 m5t3", &["Tavle!Sol3"]), ["h4k9 w2p7", "z8r1 m5t3"]);
    }

    #[test]
    fn a_corrected_code_keeps_its_shape() {
        // Letters with digits, after an ellipsis; a particle glued to the corrected code.
        assert_eq!(companions("le code du portail est C3390... non attends, c'est C3309.", &["C3390"]), ["C3309"]);
        assert_eq!(companions("대문 비밀번호 730184... 아니다, 730148이 맞아.", &["730184"]), ["730148"]);
    }

    #[test]
    fn a_network_s_name_is_no_password() {
        assert!(companions("PIN 4471. The wifi network is called Birchwood_5G and it's open", &["4471"]).is_empty());
        assert!(companions("the router is an Archer AX10 and the network name is HX-44QZ", &[]).is_empty());
    }

    #[test]
    fn a_second_network_s_key_after_its_name() {
        let text = "wifi pw Maple!Dusk4. Visitors network Cabin_Visitors is hello-visitors";
        assert_eq!(companions(text, &["Maple!Dusk4"]), ["hello-visitors"]);
        assert_eq!(companions("senha da casa Laranja!77. Rede das visitas CASA-VIS: entrem2025", &["Laranja!77"]), ["entrem2025"]);
        assert_eq!(companions("lösen Kanel!Bulle5. Gästnätet Stuga-Gast har stugvanner99", &["Kanel!Bulle5"]), ["stugvanner99"]);
    }

    #[test]
    fn bank_words_said_other_ways() {
        // A card's code named before the card, a secret word, an inline list of recovery codes.
        let text = "shop pw Plum!Tree8, security code on the back of that card is 402";
        assert_eq!(companions(text, &["Plum!Tree8"]), ["402"]);
        assert_eq!(companions("- Password: Vx8!kq2W\n- Secret word: Mordor", &["Vx8!kq2W"]), ["Mordor"]);
        assert_eq!(companions("Kody zapasowe: 4e2b7-91c0d, a83f1-0c6e2. Hasło: Bigos!22", &["Bigos!22"]), ["4e2b7-91c0d", "a83f1-0c6e2"]);
        // A card word and a CVV word glued in one token: its three digits are the card's code.
        assert_eq!(companions("京东密码：maomi@2020，信用卡背面的安全码是318", &["maomi@2020"]), ["318"]);
    }

    #[test]
    fn other_numbers_stay() {
        // No secret found: nothing is read.
        assert!(companions("the door code policy needs 6 digits, mine is 4417", &[]).is_empty());
        // Compounds of "code" that are no secret: a postcode, a barcode.
        let c = companions("PIN 7720. Postcode 10115. Barcodes 4006381333931.", &["7720"]);
        assert!(c.is_empty(), "{c:?}");
        assert!(companions("Zugangscode 7720 und Postcode 10115", &[]).is_empty(), "one credential word with a value is not two");
        // Years, amounts, flat numbers, times, phone numbers, e-mail addresses.
        let text = "PIN 7720. The account was opened in 2019, costs $1200 a year; door Nr. 14 at 10:30, call +49 151 2345678, login anna@example.org";
        assert!(companions(text, &["7720"]).is_empty(), "{:?}", companions(text, &["7720"]));
    }
}
