//! Secrets known by their shape rather than by a prefix: chat-bot tokens (three base64url parts
//! joined by dots, a numeric bot id, `:` and a 35-character secret), password hashes in the crypt
//! formats (`$2y$10$…`, `$apr1$…`, `$6$…`, `$argon2id$…`), and, after a word that names them,
//! wallet seed phrases (twelve or more plain words), one-time-password seeds (base32) and recovery
//! codes. Linear scans, every slice at an ASCII position found in the text.

use super::entropy::{bits_per_char, looks_random};
use super::{Finding, Findings};

fn url_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn push(out: &mut Findings, start: usize, end: usize, kind: &'static str) {
    if end > start && !out.overlaps(start, end) {
        out.push(Finding { start, end, kind });
    }
}

/// `A.B.C` of base64url parts of 23 to 28, 6 and 27 to 40 characters, the first one a bot's id in
/// base64 (it starts `M`, `N` or `O`): a Discord bot token.
fn dotted_bot_tokens(text: &str, out: &mut Findings) {
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        if !url_byte(b[at]) || (at > 0 && (url_byte(b[at - 1]) || b[at - 1] == b'.')) {
            at += 1;
            continue;
        }
        let mut ends = [at; 3];
        let mut from = at;
        let mut parts = 0;
        while parts < 3 {
            let mut e = from;
            while e < b.len() && url_byte(b[e]) && e - from <= 40 {
                e += 1;
            }
            ends[parts] = e;
            parts += 1;
            if parts < 3 && b.get(e) == Some(&b'.') {
                from = e + 1;
            } else {
                break;
            }
        }
        let next = ends[parts - 1].max(at + 1);
        if parts == 3 && !b.get(ends[2]).is_some_and(|&c| url_byte(c) || c == b'.') {
            let (l1, l2, l3) = (ends[0] - at, ends[1] - ends[0] - 1, ends[2] - ends[1] - 1);
            let first = &text[at..ends[0]];
            if (23..=28).contains(&l1)
                && l2 == 6
                && (27..=40).contains(&l3)
                && matches!(b[at], b'M' | b'N' | b'O')
                && looks_random(first, 20, 3.5)
                && looks_random(&text[ends[1] + 1..ends[2]], 20, 3.5)
            {
                push(out, at, ends[2], "discord-token");
            }
        }
        at = next;
    }
}

/// `123456789:AA…`: a bot's numeric id, a colon and 35 characters of base64url starting `AA`: a
/// Telegram bot token. The whole token goes.
fn numeric_bot_tokens(text: &str, out: &mut Findings) {
    let b = text.as_bytes();
    for (colon, _) in text.match_indices(":AA") {
        let mut s = colon;
        while s > 0 && b[s - 1].is_ascii_digit() && colon - s <= 10 {
            s -= 1;
        }
        let mut e = colon + 1;
        while e < b.len() && url_byte(b[e]) && e - colon <= 36 {
            e += 1;
        }
        let bounded = !((s > 0 && url_byte(b[s - 1])) || b.get(e).is_some_and(|&c| url_byte(c)));
        if (8..=10).contains(&(colon - s)) && e - colon - 1 == 35 && bounded && looks_random(&text[colon + 1..e], 30, 3.5) {
            push(out, s, e, "telegram-token");
        }
    }
}

/// Crypt formats: `$2a$`/`$2b$`/`$2y$` bcrypt with its cost, `$1$` MD5, `$apr1$`, `$5$`/`$6$` SHA
/// crypt, `$argon2i$`/`$argon2id$`, `$scrypt$`: the hash with its salt, to the end of the token.
fn password_hashes(text: &str, out: &mut Findings) {
    const IDS: &[&str] = &["$2a$", "$2b$", "$2y$", "$1$", "$apr1$", "$5$", "$6$", "$argon2i$", "$argon2id$", "$argon2d$", "$scrypt$", "$y$"];
    let b = text.as_bytes();
    let hash_byte = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'/' | b'$' | b'=' | b',' | b'+' | b'-');
    for (at, _) in text.match_indices('$') {
        if (at > 0 && b[at - 1] == b'$') || !IDS.iter().any(|id| b[at..].starts_with(id.as_bytes())) {
            continue;
        }
        let mut e = at;
        while e < b.len() && hash_byte(b[e]) && e - at <= 200 {
            e += 1;
        }
        // The hash itself: the part after the last `$`, at least 20 characters.
        let last = text[at..e].rfind('$').map_or(at, |i| at + i + 1);
        if e - last >= 20 && bits_per_char(&text[last..e]) >= 3.5 {
            push(out, at, e, "password-hash");
        }
    }
}

/// How far after its label a phrase or code may start.
const LABEL_GAP: usize = 24;

/// Words that name a wallet's seed phrase (lower case).
const SEED_LABELS: &[&str] = &[
    // a wallet named before its words ("MetaMask backup: …", "Trust Wallet: …")
    "wallet",
    "metamask",
    "seed phrase",
    "recovery phrase",
    "mnemonic",
    "seed words",
    "secret phrase",
    "backup phrase",
    "frase semilla",
    "phrase de récupération",
    "seed-phrase",
    "wiederherstellungsphrase",
    "backup words",
    "recovery words",
    "secret words",
    "12 words",
    "24 words",
    "twelve words",
    "twenty-four words",
    "wallet words",
];

/// Words that name one-time-password seeds and recovery codes (lower case).
const CODE_LABELS: &[&str] = &[
    "2fa",
    "totp",
    "otp",
    "mfa",
    "authenticator",
    "recovery code",
    "backup code",
    "recovery key",
    "wiederherstellungscode",
    "backup-code",
    "codes de secours",
    "code de secours",
    "codes de récupération",
    "códigos de recuperación",
    "códigos de respaldo",
    "codici di backup",
    "codici di recupero",
    "códigos de backup",
    "резервные коды",
    "коды восстановления",
];

/// How far after a code label its codes may run: over the lines of a list when the label's line
/// ends in a colon.
const CODES_SPAN: usize = 480;

/// The ends of each label of `labels` in `lower` (ASCII lower-cased text, same positions).
fn label_ends<'a>(lower: &'a str, labels: &'a [&'a str]) -> impl Iterator<Item = usize> + 'a {
    labels.iter().flat_map(move |l| lower.match_indices(l).filter(move |(i, _)| !(*i > 0 && lower.as_bytes()[i - 1].is_ascii_alphanumeric())).map(move |(i, _)| i + l.len()))
}

/// After a seed-phrase label and a few characters: twelve to twenty-four plain lower-case words.
fn seed_phrases(text: &str, lower: &str, out: &mut Findings) {
    let b = text.as_bytes();
    for end in label_ends(lower, SEED_LABELS) {
        // Up to the first word: past the rest of the label's words and punctuation.
        let mut i = end;
        // "backup words for the ledger (keep offline!): …": a colon or arrow soon after the label,
        // on its line, is where the phrase starts.
        let mut stop = (end + 64).min(lower.len());
        while !lower.is_char_boundary(stop) {
            stop -= 1;
        }
        let window = &lower[end..stop];
        let line = window.find('\n').map_or(window, |n| &window[..n]);
        if let Some(p) = line.find(": ").or_else(|| line.find("→ ")).or_else(|| line.find("-> ")) {
            i = end + p;
        }
        while i < b.len() && i - end < LABEL_GAP + 64 && !b[i].is_ascii_lowercase() {
            i += 1;
        }
        if i - end > 0 && b.get(i - 1).is_some_and(u8::is_ascii_alphanumeric) {
            continue;
        }
        let start = i;
        let (mut words, mut last_end) = (0, i);
        while words < 24 {
            let s = i;
            while i < b.len() && b[i].is_ascii_lowercase() {
                i += 1;
            }
            if !(3..=8).contains(&(i - s)) {
                break;
            }
            words += 1;
            last_end = i;
            if b.get(i) == Some(&b' ') && b.get(i + 1).is_some_and(u8::is_ascii_lowercase) {
                i += 1;
            } else {
                break;
            }
        }
        if words >= 12 {
            push(out, start, last_end, "seed-phrase");
        }
    }
}

/// After a one-time-password or recovery-code label on the same line: a run of capitals and digits
/// of 16 to 64 (a base32 seed), or codes of letters and digits in groups (`de7a1-f3974`), each.
fn labelled_codes(text: &str, lower: &str, out: &mut Findings) {
    let b = text.as_bytes();
    for end in label_ends(lower, CODE_LABELS) {
        let mut line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
        // "backup codes:\n1. 4821 7730\n2. …": a label whose line ends in a colon heads a list,
        // and so does one whose next line opens with a grouped code ("GitHub recovery codes
        // (keep safe)\n98ddd-f53e4\n…").
        let next_line = text.get(line_end + 1..).unwrap_or("");
        let first = next_line.trim_start();
        let first = first[list_marker(first.as_bytes())..].trim_start_matches(['-', '*', ' ']);
        let first = first.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).next().unwrap_or("");
        let heads_list = text[end..line_end].trim_end().ends_with(':') || grouped_code(first);
        let list_end = if heads_list { text[end..].find("\n\n").map_or(text.len(), |i| end + i).min(end + CODES_SPAN) } else { line_end };
        let mut i = end;
        let mut codes = 0;
        while i < list_end && i - end < CODES_SPAN {
            if b[i] == b'\n' && heads_list {
                line_end = text[i + 1..].find('\n').map_or(text.len(), |n| i + 1 + n);
            }
            if i >= line_end {
                break;
            }
            if !b[i].is_ascii_alphanumeric() || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
                i += 1;
                continue;
            }
            // A list's marker ("1.", "2)") at a line's start is not a code.
            let line_start = text[..i].trim_end_matches([' ', '\t']).ends_with('\n');
            let marker = list_marker(&b[i..]);
            if line_start && marker > 0 {
                i += marker;
                continue;
            }
            let s = i;
            while i < line_end && (b[i].is_ascii_alphanumeric() || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric))) {
                i += 1;
            }
            // A seed shown in groups of four ("IHFI B6DB GHNS XPQ5"): the groups read as one.
            let upper_or_digit = |t: &[u8]| t.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
            let mut grouped_end = i;
            if i - s == 4 && upper_or_digit(&b[s..i]) {
                while grouped_end + 1 < line_end && b[grouped_end] == b' ' {
                    let group = b[grouped_end + 1..line_end].iter().take_while(|c| c.is_ascii_alphanumeric()).count();
                    if !(1..=4).contains(&group) || !upper_or_digit(&b[grouped_end + 1..grouped_end + 1 + group]) {
                        break;
                    }
                    grouped_end += 1 + group;
                }
            }
            let joined: String = text[s..grouped_end].split(' ').collect();
            let spaced_seed = grouped_end > i
                && (16..=64).contains(&joined.len())
                && joined.bytes().any(|c| c.is_ascii_uppercase())
                && joined.bytes().filter(u8::is_ascii_digit).count() >= 2
                && bits_per_char(&joined) >= 3.5;
            if spaced_seed {
                push(out, s, grouped_end, "otp-secret");
                codes += 1;
                i = grouped_end;
                continue;
            }
            let token = &text[s..i];
            let digits = token.bytes().filter(u8::is_ascii_digit).count();
            let seed = (16..=64).contains(&token.len()) && upper_or_digit(token.as_bytes()) && digits >= 2 && bits_per_char(token) >= 3.5;
            let grouped = grouped_code(token);
            // Digits in two groups of four to six (`8412 5530`): one code, written with a space.
            // Numbers in prose ("printed 2024 0612") are read as codes only after a colon.
            let digit_pair = digits == token.len()
                && text[end..s].contains(':')
                && (4..=6).contains(&token.len())
                && b.get(i) == Some(&b' ')
                && text[i + 1..line_end].bytes().take_while(u8::is_ascii_digit).count() == token.len()
                && !b.get(i + 1 + token.len()).is_some_and(u8::is_ascii_alphanumeric);
            if digit_pair {
                i += 1 + token.len();
            }
            if seed || grouped || digit_pair {
                push(out, s, i, "otp-secret");
                codes += 1;
            } else if codes > 0 {
                break;
            }
        }
    }
}

/// The length of a list's marker ("1.", "12)") that `bytes` open with, or 0.
fn list_marker(bytes: &[u8]) -> usize {
    let digits = bytes.iter().take_while(|c| c.is_ascii_digit()).count();
    if (1..=2).contains(&digits) && matches!(bytes.get(digits), Some(b'.' | b')')) {
        digits + 1
    } else {
        0
    }
}

/// A code in groups of one case, each of four to six, with two digits or more: `de7a1-f3974`,
/// `QX7P-22LM`.
fn grouped_code(token: &str) -> bool {
    let digits = token.bytes().filter(u8::is_ascii_digit).count();
    let one_case = token.bytes().all(|c| !c.is_ascii_uppercase()) || token.bytes().all(|c| !c.is_ascii_lowercase());
    token.contains('-') && (8..=64).contains(&token.len()) && digits >= 2 && one_case && token.split('-').all(|g| (4..=6).contains(&g.len()))
}

pub fn find(text: &str, out: &mut Findings) {
    if text.contains('.') {
        dotted_bot_tokens(text, out);
    }
    if text.contains(":AA") {
        numeric_bot_tokens(text, out);
    }
    if text.contains('$') {
        password_hashes(text, out);
    }
    // The labelled kinds: a seed phrase's label ("seed", "phrase", "frase", "mnemonic"), or codes,
    // which hold digits. Most texts have neither, and are not lower-cased for them.
    let seeds = text.contains("eed") || text.contains("rase") || text.contains("nemonic") || text.contains("words") || text.contains("allet") || text.contains("Mask");
    let codes = text.bytes().filter(u8::is_ascii_digit).take(2).count() == 2;
    if seeds || codes {
        let lower = text.to_ascii_lowercase();
        if seeds {
            seed_phrases(text, &lower, out);
        }
        if codes {
            labelled_codes(text, &lower, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(&str, &'static str)> {
        let mut out = Findings::default();
        find(text, &mut out);
        out.iter().map(|f| (&text[f.start..f.end], f.kind)).collect()
    }

    #[test]
    fn bot_tokens_by_shape() {
        let discord = "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs";
        assert_eq!(found(&format!("bot token {discord} for the server")), [(discord, "discord-token")]);
        let telegram = "6123456789:AAHk3mQ9xLp4Rw8ZbN3cHs6YdF1gJe5A7vT";
        assert_eq!(found(&format!("Telegram bot: {telegram}")), [(telegram, "telegram-token")]);
        for benign in ["see www.example.com.au for details", "version 1.2.3 of lib.rs.io", "at 12:AA the meeting", "M.O.D. rules"] {
            assert_eq!(found(benign), [], "{benign}");
        }
    }

    #[test]
    fn password_hashes_in_crypt_formats() {
        let h = "$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy";
        assert_eq!(found(&format!("admin:{h}")), [(h, "password-hash")]);
        assert_eq!(found("htpasswd: admin:$apr1$FJQDEL1a$JS4AljNPAeE3jZDiuMdQmb"), [("$apr1$FJQDEL1a$JS4AljNPAeE3jZDiuMdQmb", "password-hash")]);
        for benign in ["costs $5 or $6 each", "echo $1$2", "price $2a$ nothing"] {
            assert_eq!(found(benign), [], "{benign}");
        }
    }

    #[test]
    fn seed_phrases_and_codes_after_their_label() {
        let seed = "orbit velvet canyon ladder mango frost pilot ember quiet saddle thunder wisdom";
        assert_eq!(found(&format!("wallet seed phrase: {seed}")), [(seed, "seed-phrase")]);
        assert_eq!(found("2FA seed for the admin account: JBSWY3DPEHPK3PXPJBSWY3DP4ZQ7LM2K"), [("JBSWY3DPEHPK3PXPJBSWY3DP4ZQ7LM2K", "otp-secret")]);
        assert_eq!(found("GitHub recovery codes: de7a1-f3974 45ba9-4731c"), [("de7a1-f3974", "otp-secret"), ("45ba9-4731c", "otp-secret")]);
        // A label line that ends without a colon heads the codes on the lines under it.
        assert_eq!(found("Recovery codes (keep offline)\n41c7e-0d93a\n2. 77f0b-e18c2"), [("41c7e-0d93a", "otp-secret"), ("77f0b-e18c2", "otp-secret")]);
        // A seed shown in groups of four.
        assert_eq!(found("authenticator setup key: K7QF 2MZX 9RTA LW4B"), [("K7QF 2MZX 9RTA LW4B", "otp-secret")]);
        // The phrase after a colon further on; codes in capitals, or digits written in two groups.
        assert_eq!(found(&format!("backup words for the ledger (keep offline!): {seed}")), [(seed, "seed-phrase")]);
        assert_eq!(found(&format!("my 12 words: {seed}")), [(seed, "seed-phrase")]);
        assert_eq!(found("2FA backup: QX7P-22LM, HT4K-91ZD"), [("QX7P-22LM", "otp-secret"), ("HT4K-91ZD", "otp-secret")]);
        assert_eq!(found("Google backup codes: 8412 5530, 1179 0264"), [("8412 5530", "otp-secret"), ("1179 0264", "otp-secret")]);
        // A list under a label whose line ends in a colon, its markers skipped; a label in German.
        assert_eq!(found("my backup codes:\n1. 4821 7730\n2. 9017 3348\n\nthe rest is 2024 0612"), [("4821 7730", "otp-secret"), ("9017 3348", "otp-secret")]);
        assert_eq!(found("Wiederherstellungscodes für Proton: k7f2-9xq4 m3p8-2wz6"), [("k7f2-9xq4", "otp-secret"), ("m3p8-2wz6", "otp-secret")]);
        for benign in [
            "the seed phrase is twelve words you write down on paper",
            "2FA is on for everyone since 2023-10-01",
            "recovery codes are in the safe",
            "my 12 words: I will not write them here, they are on paper",
            "backup codes were printed 2024 0612 in the office",
        ] {
            assert_eq!(found(benign), [], "{benign}");
        }
    }

    #[test]
    fn never_panics_on_cut_inputs() {
        // The look past a label for its colon ends inside a two-byte letter for one of these.
        for pad in ["", " "] {
            found(&format!("seed phrase{pad} {}", "é".repeat(40)));
        }
        let s = "é MTk4.Cl2FMQ.Zn 61234:AAé $2y$10$é seed phrase: é a b 2fa é-x";
        for i in 0..=s.len() {
            if s.is_char_boundary(i) {
                found(&s[..i]);
                found(&s[i..]);
            }
        }
    }
}
