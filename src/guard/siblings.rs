//! Secrets set out alike. A message that lists credentials writes them the same way: one a line as
//! "label: value" or "label -> value", or as a column of codes under a heading. Once one value so
//! written is a found secret, the others written the same way, with a value of the same form, are
//! its siblings ("Signal PIN: 840271" then "WhatsApp two-step: 519384"; "main -> …" then "guest ->
//! welcome2ourhome"), and a list of codes of one shape under a heading is one list of secrets. The
//! labels need not name a credential: the layout and the found sibling say what they are. Read
//! only in a text where a secret was found (called from `companions`), so text without one is
//! never touched.

use super::password::password_shaped;
use super::{Finding, Findings};

/// How a label is joined to its value on a line, in the order they are looked for.
const SEPARATORS: &[&str] = &[" -> ", " → ", " => ", ": ", "：", " = ", " – ", " — ", " - ", "\t"];
/// Lines read: a message states its credentials in a few.
const MAX_LINES: usize = 64;
/// Words a label has at most ("WhatsApp two-step verification").
const LABEL_WORDS: usize = 6;
/// Label words whose values are no secret, however they are set out: dates, addresses, names,
/// numbers of other things.
const NOT_SECRET_LABELS: &[&str] = &[
    "date",
    "time",
    "when",
    "phone",
    "tel",
    "mobile",
    "email",
    "e-mail",
    "mail",
    "address",
    "url",
    "link",
    "host",
    "server",
    "ip",
    "port",
    "user",
    "username",
    "login",
    "name",
    "order",
    "ref",
    "reference",
    "booking",
    "flight",
    "room",
    "expiry",
    "exp",
    "expires",
    "valid",
    "amount",
    "total",
    "price",
    "ssid",
    "network",
    "tracking",
    "invoice",
    "version",
    "model",
    "serial",
    "size",
    "due",
    "from",
    "to",
    "cc",
    "subject",
];

/// The form of a value, which siblings share.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Form {
    /// A code of digits, possibly in groups or ending in a keypad key: how many digits.
    Digits(usize),
    /// One token of letters with digits or symbols: a password, a key, a recovery code.
    Mixed,
}

fn form(v: &str) -> Option<Form> {
    let v = v.strip_suffix(['#', '*']).unwrap_or(v);
    if v.is_empty() || v.contains("[secret:") {
        return None;
    }
    if v.bytes().all(|b| b.is_ascii_digit() || b == b' ' || b == b'-') {
        let n = v.bytes().filter(u8::is_ascii_digit).count();
        let parts: Vec<usize> = v.split('-').map(str::len).collect();
        let date = parts == [4, 2, 2] || parts == [2, 2, 4];
        return ((3..=16).contains(&n) && !date && v.starts_with(|c: char| c.is_ascii_digit())).then_some(Form::Digits(n));
    }
    let n = v.chars().count();
    // An address, a path, an image's `name:tag` are not what a credential list holds.
    let plain = !v.contains(char::is_whitespace) && !v.contains(['@', '/', ':']);
    let letter = v.chars().any(char::is_alphabetic);
    let digit = v.bytes().any(|b| b.is_ascii_digit());
    (plain && (6..=64).contains(&n) && letter && (digit || password_shaped(v))).then_some(Form::Mixed)
}

/// Whether two values' forms make them siblings: codes of about as many digits, or two tokens.
fn alike(a: Form, b: Form) -> bool {
    match (a, b) {
        (Form::Digits(x), Form::Digits(y)) => x.abs_diff(y) <= 2,
        (Form::Mixed, Form::Mixed) => true,
        _ => false,
    }
}

/// One line of the text: its range, and its label and value when it is written "label SEP value".
struct Line {
    start: usize,
    end: usize,
    labelled: Option<Labelled>,
}

struct Labelled {
    sep: &'static str,
    label_blocked: bool,
    value: (usize, usize),
}

/// List markers a line may begin with ("- ", "• ", "1. ", "2) ").
fn unmarked(line: &str) -> &str {
    let t = line.trim_start();
    let t = t.strip_prefix(['-', '•', '*', '·']).map(str::trim_start).unwrap_or(t);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=2).contains(&digits) && t[digits..].starts_with(['.', ')']) && t[digits + 1..].starts_with(' ') {
        return t[digits + 1..].trim_start();
    }
    t
}

fn trim_value(v: &str) -> &str {
    v.trim().trim_end_matches(['.', ',', ';', '!']).trim_matches(['`', '"', '\'', '“', '”'])
}

fn lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in text.split('\n').take(MAX_LINES) {
        let (start, end) = (at, at + line.len());
        at = end + 1;
        let body = unmarked(line);
        let body_at = end - body.len();
        // An indented line is a config file's or code's (`  image: postgres:16`), whose keys the
        // assigned-value scanners read; a list for people starts at the margin or at a marker.
        let indented = line.starts_with([' ', '\t']) && body.len() + 1 < line.len() && line.trim_start().len() == body.len();
        let labelled = (!indented).then_some(()).and(SEPARATORS.iter().find_map(|&sep| {
            let i = body.find(sep)?;
            let label = body[..i].trim();
            let words = label.split_whitespace().count();
            // `POSTGRES_PASSWORD:`, `db.host =`: keys of a config, read by the assigned-value scanners.
            if words == 0 || words > LABEL_WORDS || label.contains(['_', '.']) {
                return None;
            }
            let rest = &body[i + sep.len()..];
            let value = trim_value(rest);
            if value.is_empty() {
                return None;
            }
            let v_start = body_at + i + sep.len() + rest.find(value)?;
            let lower = label.to_lowercase();
            let label_blocked = lower.split(|c: char| !c.is_alphanumeric() && c != '-').any(|w| NOT_SECRET_LABELS.contains(&w));
            Some(Labelled { sep, label_blocked, value: (v_start, v_start + value.len()) })
        }));
        out.push(Line { start, end, labelled });
    }
    out
}

/// Adds the siblings of the secrets found in `text`.
pub fn find(text: &str, out: &mut Findings) {
    if out.is_empty() || !text.contains('\n') {
        return;
    }
    let lines = lines(text);
    parallel_lines(text, &lines, out);
    code_lists(text, &lines, out);
}

/// "label SEP value" lines beside one whose value is a found secret, with the same separator and a
/// value of the same form.
fn parallel_lines(text: &str, lines: &[Line], out: &mut Findings) {
    let found: Vec<(&'static str, Form, &'static str)> = lines
        .iter()
        .filter_map(|l| {
            let v = l.labelled.as_ref()?;
            let f = out.iter().find(|f| f.start < v.value.1 && v.value.0 < f.end)?;
            Some((v.sep, form(&text[v.value.0..v.value.1]).or_else(|| form(&text[f.start..f.end]))?, f.kind))
        })
        .collect();
    if found.is_empty() {
        return;
    }
    for l in lines {
        let Some(v) = &l.labelled else { continue };
        let (s, e) = v.value;
        if v.label_blocked || out.overlaps(s, e) {
            continue;
        }
        let Some(f) = form(&text[s..e]) else { continue };
        if let Some(&(_, _, kind)) = found.iter().find(|(sep, form, _)| *sep == v.sep && alike(*form, f)) {
            out.push(Finding { start: s, end: e, kind });
        }
    }
}

/// Two lines or more that are each one value of the same shape (letters and digits alike, the
/// separators the same: "4827 1950", "a8f3c-91d2e"), under a heading that ends in a colon or with
/// one of them found: a list of codes, all secrets.
fn code_lists(text: &str, lines: &[Line], out: &mut Findings) {
    let shape = |v: &str| v.chars().map(|c| if c.is_alphanumeric() { 'x' } else { c }).collect::<String>();
    let lone = |l: &Line| {
        let line = &text[l.start..l.end];
        let body = trim_value(unmarked(line));
        let s = l.end - line.len() + line.find(body)?;
        (!body.is_empty() && form(body).is_some() && body.bytes().filter(u8::is_ascii_digit).count() >= 2).then(|| (s, s + body.len(), shape(body)))
    };
    let mut i = 0;
    while i < lines.len() {
        let Some((_, _, first)) = lone(&lines[i]) else {
            i += 1;
            continue;
        };
        let run: Vec<(usize, usize)> = lines[i..].iter().map_while(|l| lone(l).filter(|(_, _, sh)| *sh == first)).map(|(s, e, _)| (s, e)).collect();
        let n = run.len();
        let heading = i.checked_sub(1).is_some_and(|h| text[lines[h].start..lines[h].end].trim_end().ends_with([':', '：']));
        let one_found = run.iter().find_map(|&(s, e)| out.iter().find(|f| f.start < e && s < f.end).map(|f| f.kind));
        if n >= 2 && (heading || one_found.is_some()) {
            let kind = one_found.unwrap_or("password");
            for (s, e) in run {
                if !out.overlaps(s, e) {
                    out.push(Finding { start: s, end: e, kind });
                }
            }
        }
        i += n.max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn siblings(text: &str, found: &[&str]) -> Vec<String> {
        crate::guard::added_by(find, text, found)
    }

    #[test]
    fn lines_set_out_like_a_found_secret_are_its_siblings() {
        assert_eq!(siblings("Threema PIN: 730215\nTelegram zweistufig: 662901\nbeide auf Papas Handy", &["730215"]), ["662901"]);
        assert_eq!(siblings("wifi\nhome -> amber-fox-lantern-7\nvisitors -> comein4tea\n", &["amber-fox-lantern-7"]), ["comein4tea"]);
        // A value of another form, or under a label that names something else, stays.
        assert!(siblings("PIN: 730215\nphone: 0171 5550123\nOrder: 88214571\nnote: see you Monday", &["730215"]).is_empty());
        assert!(siblings("pw: Tundra!Owl22\nsize: 4 GB", &["Tundra!Owl22"]).is_empty());
        // Another separator is another layout.
        assert!(siblings("PIN: 730215\nfloor - 662901", &["730215"]).is_empty());
    }

    #[test]
    fn a_list_of_codes_under_its_heading_goes_whole() {
        let text = "Mật khẩu: Bich.Ngoc.42\nDanh sách mã (mỗi mã dùng một lần):\n5512 0937\n8840 1265\n3302 7781";
        assert_eq!(siblings(text, &["Bich.Ngoc.42"]), ["5512 0937", "8840 1265", "3302 7781"]);
        let text = "login ok with Fern!Gate30\nrecovery\nd41c7-08e2b\n93ab0-c71f4\n";
        assert_eq!(siblings(text, &["Fern!Gate30", "d41c7-08e2b"]), ["93ab0-c71f4"]);
        // Lines of different shapes, or one line alone, are no list.
        assert!(siblings("pw Fern!Gate30\ntodo:\nbuy 2 eggs\n12 May", &["Fern!Gate30"]).is_empty());
        assert!(siblings("pw Fern!Gate30\nfloor:\n3B12", &["Fern!Gate30"]).is_empty());
    }

    #[test]
    fn nothing_is_read_without_a_found_secret() {
        assert!(siblings("Threema PIN: 730215\nTelegram zweistufig: 662901", &[]).is_empty());
        assert!(siblings("codes:\n5512 0937\n8840 1265", &[]).is_empty());
    }
}
