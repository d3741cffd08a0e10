//! Passwords stated as such: "my password is hunter2", "pwd: …", "mot de passe : …",
//! "Passwort ist …", "пароль: …", "密码是…". Only the value is found, and only when it looks like a
//! password rather than a word ("the password is required", "my password is the name of my dog").

use super::Finding;

/// Words that introduce a password (lower case).
const TRIGGERS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "passcode",
    "pwd",
    "pw",
    "pin",
    "mot de passe",
    "mdp",
    "contraseña",
    "contrasena",
    "clave",
    "passwort",
    "kennwort",
    "senha",
    "parola d'ordine",
    "wachtwoord",
    "hasło",
    "haslo",
    "пароль",
    "密码",
    "密碼",
    "パスワード",
    "비밀번호",
];

/// What stands between the trigger and the value.
const SEPARATORS: &[&str] = &[":", "=", "：", "->", "is", "was", "es", "est", "ist", "é", "è", "è:", "是", "为", "は", "는", "—", "-", "это"];

/// Values that are words about the password, not the password.
const NOT_VALUES: &[&str] = &[
    "a",
    "an",
    "the",
    "not",
    "too",
    "same",
    "still",
    "now",
    "being",
    "been",
    "required",
    "incorrect",
    "wrong",
    "correct",
    "stored",
    "saved",
    "hashed",
    "encrypted",
    "expired",
    "changed",
    "reset",
    "set",
    "weak",
    "strong",
    "secure",
    "empty",
    "blank",
    "missing",
    "invalid",
    "valid",
    "case",
    "sensitive",
    "in",
    "on",
    "at",
    "my",
    "your",
    "his",
    "her",
    "their",
    "our",
    "different",
    "long",
    "short",
    "easy",
    "hard",
    "simple",
    "complex",
    "new",
    "old",
    "unknown",
    "forgotten",
    "managed",
    "shared",
    "private",
    "secret",
    "protected",
    "needed",
    "necessary",
    "optional",
    "mandatory",
    "generated",
    "random",
    "rotated",
    "updated",
    "visible",
    "hidden",
    "also",
    "only",
    "just",
    "very",
    "for",
    "to",
    "of",
    "and",
    "or",
    "that",
    "this",
    "it",
    "manager",
    "field",
    "policy",
    "length",
    "reset",
    "change",
    "hint",
    "prompt",
    "protected",
    "none",
    "null",
    "undefined",
];

fn is_word_byte(text: &str, at: usize, before: bool) -> bool {
    let c = if before { text[..at].chars().next_back() } else { text[at..].chars().next() };
    c.is_some_and(|c| c.is_alphanumeric())
}

/// The value token starting at `from`: up to whitespace (or the closing quote of a quoted value).
fn value_at(text: &str, from: usize) -> Option<(usize, usize, bool)> {
    let rest = &text[from..];
    let mut chars = rest.char_indices();
    let (_, first) = chars.next()?;
    if matches!(first, '"' | '\'' | '`' | '“' | '«' | '「') {
        let close = match first {
            '“' => '”',
            '«' => '»',
            '「' => '」',
            c => c,
        };
        let inner = from + first.len_utf8();
        // Bounded look-ahead: a quote never closed must not make every trigger scan the rest of the text.
        let mut window = (inner + 132).min(text.len());
        while !text.is_char_boundary(window) {
            window -= 1;
        }
        let end = text[inner..window].find(close).map(|e| inner + e)?;
        return (end > inner && end - inner <= 128 && !text[inner..end].contains('\n')).then_some((inner, end, true));
    }
    let mut end = from;
    // At most 129 characters: longer is not a password, and scanning on would make many triggers quadratic.
    for (i, c) in rest.char_indices().take(129) {
        if c.is_whitespace() || matches!(c, '，' | '。' | '、') {
            break;
        }
        end = from + i + c.len_utf8();
    }
    // Sentence punctuation after the value is not part of it.
    while end > from && text[..end].ends_with(['.', ',', ';', ')']) {
        end -= 1;
    }
    (end > from).then_some((from, end, false))
}

fn looks_like_password(value: &str, quoted: bool, after_colon: bool, pin: bool) -> bool {
    if value.starts_with("[secret:") || value.chars().count() < 4 || value.chars().count() > 128 {
        return false;
    }
    if pin {
        return value.chars().all(|c| c.is_ascii_digit()) && (4..=8).contains(&value.len());
    }
    if quoted {
        return true;
    }
    let lower = value.to_lowercase();
    if NOT_VALUES.contains(&lower.as_str()) {
        return false;
    }
    let classes = super::entropy::classes(value);
    let non_ascii = !value.is_ascii();
    // "pwd: tulip" states the value; "my password is tulip" might not: ask for more there.
    classes >= 2 || non_ascii || (after_colon && value.len() >= 4) || value.len() >= 12
}

/// First bytes of the ASCII triggers, either case (built at compile time): most word starts begin none.
static TRIGGER_STARTS: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < TRIGGERS.len() {
        let b = TRIGGERS[i].as_bytes()[0];
        if b.is_ascii() {
            table[b as usize] = true;
            table[b.to_ascii_uppercase() as usize] = true;
        }
        i += 1;
    }
    table
};

pub fn find(text: &str, out: &mut Vec<Finding>) {
    // Positions in `hay` must be positions in `text`: full lower-casing when it keeps every byte
    // length (Cyrillic "Пароль"), ASCII lower-casing otherwise. ASCII text is compared in place,
    // ignoring case, which is the same as comparing its ASCII lower-casing.
    let hay: std::borrow::Cow<'_, str> = if text.is_ascii() {
        text.into()
    } else {
        let lower = text.to_lowercase();
        if lower.len() == text.len() {
            lower.into()
        } else {
            text.to_ascii_lowercase().into()
        }
    };
    // Candidate positions: word starts for the ASCII triggers (compared in place, no searcher per
    // trigger: this runs on every write), substring search for the others only in non-ASCII text.
    let hb = hay.as_bytes();
    let mut hits: Vec<(usize, &str)> = Vec::new();
    // One pass carrying whether the previous byte continues a word (this runs over every byte).
    let mut after_word = false;
    for (pos, &b) in hb.iter().enumerate() {
        let starts = !after_word && TRIGGER_STARTS[usize::from(b)];
        after_word = b.is_ascii_alphanumeric();
        if !starts {
            continue;
        }
        let first = b.to_ascii_lowercase();
        hits.extend(
            TRIGGERS
                .iter()
                .filter(|t| t.as_bytes()[0] == first && t.is_ascii() && hb.get(pos..pos + t.len()).is_some_and(|w| w.eq_ignore_ascii_case(t.as_bytes())))
                .map(|t| (pos, *t)),
        );
    }
    if !text.is_ascii() {
        for t in TRIGGERS.iter().filter(|t| !t.is_ascii()) {
            hits.extend(hay.match_indices(t).map(|(p, _)| (p, *t)));
        }
    }
    for (pos, trigger) in hits {
        {
            if !text.is_char_boundary(pos) || !text.is_char_boundary(pos + trigger.len()) {
                continue;
            }
            let ascii_trigger = trigger.is_ascii();
            if ascii_trigger && (is_word_byte(text, pos, true) || is_word_byte(text, pos + trigger.len(), false) && !text[pos + trigger.len()..].starts_with('s')) {
                continue;
            }
            // "password for the bank is …": up to three words before the separator.
            let mut i = pos + trigger.len();
            if text[i..].starts_with('s') && ascii_trigger {
                i += 1;
            }
            let mut words = 0;
            let mut found = None;
            while words <= 4 {
                let rest = &text[i..];
                let skipped = rest.len() - rest.trim_start().len();
                i += skipped;
                let rest = &text[i..];
                // Separators are short: lower-case a few characters, not the rest of the text.
                let rest_lower: String = rest.chars().take(8).flat_map(char::to_lowercase).collect();
                if let Some(sep) = SEPARATORS.iter().filter(|s| rest_lower.starts_with(*s)).max_by_key(|s| s.len()) {
                    let after = i + sep.len();
                    // Lower-casing can change lengths: the separator must end on a boundary of the text.
                    let on_boundary = after <= text.len() && text.is_char_boundary(after);
                    if on_boundary && (!sep.chars().all(char::is_alphabetic) || !sep.is_ascii() || !is_word_byte(text, after, false)) {
                        found = Some((after, matches!(*sep, ":" | "=" | "：" | "->" | "—" | "-" | "è:")));
                        break;
                    }
                }
                // Skip one word (a short one: a run without spaces is not a phrase of words).
                let Some(w) = rest.char_indices().take(48).find(|(_, c)| c.is_whitespace()).map(|(i, _)| i).or((rest.len() < 48).then_some(rest.len())) else { break };
                if w == 0 || rest[..w].contains([':', '=', '.', ',']) {
                    break;
                }
                i += w;
                words += 1;
            }
            let Some((after, colon)) = found else { continue };
            let rest = &text[after..];
            let start = after + (rest.len() - rest.trim_start().len());
            let Some((vs, ve, quoted)) = value_at(text, start) else { continue };
            if looks_like_password(&text[vs..ve], quoted, colon, trigger == "pin") && !out.iter().any(|f| vs < f.end && f.start < ve) {
                out.push(Finding { start: vs, end: ve, kind: "password" });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        find(text, &mut out);
        out.iter().map(|f| &text[f.start..f.end]).collect()
    }

    #[test]
    fn stated_passwords_in_several_languages() {
        assert_eq!(values("my password is hunter2"), ["hunter2"]);
        assert_eq!(values("pwd: tulip-77!"), ["tulip-77!"]);
        assert_eq!(values("The wifi password for the cabin is \"blue moon\"."), ["blue moon"]);
        assert_eq!(values("mot de passe : Soleil2024"), ["Soleil2024"]);
        assert_eq!(values("Mein Passwort ist Sommer#19"), ["Sommer#19"]);
        assert_eq!(values("мой пароль: кошка123"), ["кошка123"]);
        assert_eq!(values("密码是 abc12345"), ["abc12345"]);
        assert_eq!(values("PIN: 4821"), ["4821"]);
    }

    #[test]
    fn talk_about_passwords_is_not_a_password() {
        for s in [
            "I forgot my password again",
            "the password is required to log in",
            "my password is the name of my first dog",
            "Password reset link sent to the user",
            "use a password manager",
            "passwords are hashed with argon2",
            "the PIN is four digits long",
            "my password is [secret:password]",
        ] {
            assert_eq!(values(s), Vec::<&str>::new(), "{s}");
        }
    }

    #[test]
    fn never_panics_on_cut_inputs() {
        let s = "пароль: «x» password is 'ab' 密码是 pwd=é password İs x password \u{212A}s y";
        for i in 0..=s.len() {
            if s.is_char_boundary(i) {
                values(&s[..i]);
                values(&s[i..]);
            }
        }
    }
}
