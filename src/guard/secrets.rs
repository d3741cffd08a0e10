//! Provider keys and tokens found by prefix plus shape and entropy, private-key blocks, JWTs, and
//! high-entropy values assigned to key-like names. Hand-written scanners: linear, no regex, and
//! nothing here can panic on any input (all slicing is at ASCII positions found in the text).

use super::entropy::{is_placeholder, looks_random};
use super::lookup::by_first_byte;
use super::{Finding, Findings};

#[derive(Clone, Copy)]
enum Charset {
    /// `A-Z a-z 0-9`
    Alnum,
    /// `A-Z a-z 0-9 _ -`
    Url,
    /// `A-Z 0-9`
    Upper,
    /// `a-z A-Z`
    Alpha,
    /// `0-9 a-f`
    Hex,
    /// `A-Z a-z 0-9 _ - .`
    Dotted,
    /// `A-Z a-z 0-9 _ /`
    Path,
    /// `A-Z a-z 0-9 _ - /`
    UrlPath,
}

impl Charset {
    fn has(self, b: u8) -> bool {
        match self {
            Charset::Alnum => b.is_ascii_alphanumeric(),
            Charset::Url => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Charset::Upper => b.is_ascii_uppercase() || b.is_ascii_digit(),
            Charset::Alpha => b.is_ascii_alphabetic(),
            Charset::Hex => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
            Charset::Dotted => b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.',
            Charset::Path => b.is_ascii_alphanumeric() || b == b'_' || b == b'/',
            Charset::UrlPath => b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'/',
        }
    }
}

/// A key format: prefix, then a body of `min..=max` characters of `charset` that looks random.
struct Rule {
    prefix: &'static str,
    kind: &'static str,
    charset: Charset,
    min: usize,
    max: usize,
    /// Minimum entropy of the body, bits per character.
    bits: f64,
}

const fn rule(prefix: &'static str, kind: &'static str, charset: Charset, min: usize, max: usize, bits: f64) -> Rule {
    Rule { prefix, kind, charset, min, max, bits }
}

/// Longer prefixes first: the first rule that claims a span wins.
const RULES: &[Rule] = &[
    rule("sk-ant-", "anthropic-key", Charset::Url, 32, 200, 3.5),
    rule("sk-proj-", "openai-key", Charset::Url, 20, 200, 3.5),
    rule("sk-svcacct-", "openai-key", Charset::Url, 20, 200, 3.5),
    rule("sk-admin-", "openai-key", Charset::Url, 20, 200, 3.5),
    rule("sk-", "openai-key", Charset::Url, 20, 200, 3.5),
    rule("github_pat_", "github-token", Charset::Url, 50, 120, 3.5),
    rule("ghp_", "github-token", Charset::Alnum, 30, 60, 3.5),
    rule("gho_", "github-token", Charset::Alnum, 30, 60, 3.5),
    rule("ghu_", "github-token", Charset::Alnum, 30, 60, 3.5),
    rule("ghs_", "github-token", Charset::Alnum, 30, 60, 3.5),
    rule("ghr_", "github-token", Charset::Alnum, 30, 60, 3.5),
    rule("glpat-", "gitlab-token", Charset::Url, 20, 60, 3.3),
    rule("xoxb-", "slack-token", Charset::Url, 20, 200, 3.0),
    rule("xoxp-", "slack-token", Charset::Url, 20, 200, 3.0),
    rule("xoxa-", "slack-token", Charset::Url, 20, 200, 3.0),
    rule("xoxr-", "slack-token", Charset::Url, 20, 200, 3.0),
    rule("xoxs-", "slack-token", Charset::Url, 20, 200, 3.0),
    rule("xoxe-", "slack-token", Charset::Url, 20, 200, 3.0),
    rule("xapp-", "slack-token", Charset::Url, 20, 200, 3.0),
    rule("https://hooks.slack.com/services/", "slack-webhook", Charset::Path, 20, 120, 3.0),
    // The webhook's id, then its token: whoever has the URL can post to the channel.
    rule("https://discord.com/api/webhooks/", "discord-webhook", Charset::UrlPath, 40, 120, 3.0),
    rule("https://discordapp.com/api/webhooks/", "discord-webhook", Charset::UrlPath, 40, 120, 3.0),
    rule("sk_live_", "stripe-key", Charset::Alnum, 20, 120, 3.3),
    rule("rk_live_", "stripe-key", Charset::Alnum, 20, 120, 3.3),
    rule("sk_test_", "stripe-key", Charset::Alnum, 20, 120, 3.3),
    rule("rk_test_", "stripe-key", Charset::Alnum, 20, 120, 3.3),
    rule("whsec_", "stripe-key", Charset::Alnum, 24, 120, 3.3),
    rule("AIza", "google-api-key", Charset::Url, 30, 40, 3.5),
    rule("npm_", "npm-token", Charset::Alnum, 30, 40, 3.5),
    // Older tokens are letters only; newer ones mix in digits.
    rule("hf_", "huggingface-token", Charset::Alpha, 30, 40, 3.5),
    rule("hf_", "huggingface-token", Charset::Alnum, 30, 40, 3.5),
    rule("SG.", "sendgrid-key", Charset::Dotted, 60, 80, 3.5),
    rule("dop_v1_", "digitalocean-token", Charset::Hex, 64, 64, 3.0),
    rule("doo_v1_", "digitalocean-token", Charset::Hex, 64, 64, 3.0),
    rule("shpat_", "shopify-token", Charset::Hex, 32, 32, 3.0),
    rule("shpss_", "shopify-token", Charset::Hex, 32, 32, 3.0),
    rule("pypi-AgE", "pypi-token", Charset::Url, 50, 400, 3.5),
    rule("gsk_", "groq-key", Charset::Alnum, 40, 60, 3.5),
    rule("xai-", "xai-key", Charset::Alnum, 40, 100, 3.5),
    rule("r8_", "replicate-token", Charset::Alnum, 30, 40, 3.5),
    rule("lin_api_", "linear-key", Charset::Alnum, 30, 60, 3.5),
    rule("dapi", "databricks-token", Charset::Hex, 32, 40, 3.0),
    rule("NRAK-", "newrelic-key", Charset::Upper, 27, 27, 3.0),
    // An age encryption identity: Bech32 in capitals, 58 characters after its prefix, which alone
    // names it, so a copy cut short or mistyped is still one.
    rule("AGE-SECRET-KEY-1", "private-key", Charset::Upper, 40, 70, 3.0),
    rule("ATATT", "atlassian-token", Charset::Url, 150, 260, 3.5),
    // A Twilio account SID and API key SID: the account's name beside its auth token, which
    // `labelled_hex` finds; together they sign requests.
    rule("AC", "twilio-sid", Charset::Hex, 32, 32, 3.0),
    rule("SK", "twilio-key", Charset::Hex, 32, 32, 3.0),
    rule("AKIA", "aws-access-key", Charset::Upper, 16, 16, 2.5),
    rule("ASIA", "aws-access-key", Charset::Upper, 16, 16, 2.5),
];

fn rules_by_first_byte() -> &'static [Vec<(&'static str, &'static Rule)>] {
    static BUCKETS: std::sync::OnceLock<Vec<Vec<(&'static str, &'static Rule)>>> = std::sync::OnceLock::new();
    BUCKETS.get_or_init(|| by_first_byte(RULES.iter().map(|r| (r.prefix, r))))
}

/// Token characters: a key never starts in the middle of one of these.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn starts_token(bytes: &[u8], at: usize) -> bool {
    at == 0 || !is_token_byte(bytes[at - 1])
}

/// End of the run of `charset` bytes from `from`.
fn run_end(bytes: &[u8], from: usize, charset: Charset) -> usize {
    run_end_within(bytes, from, charset, usize::MAX)
}

/// `run_end`, stopping after `max` bytes: a candidate longer than any key is rejected anyway, and
/// an unbounded run from every candidate would make a long run of them quadratic.
fn run_end_within(bytes: &[u8], from: usize, charset: Charset, max: usize) -> usize {
    let mut end = from;
    while end < bytes.len() && end - from < max && charset.has(bytes[end]) {
        end += 1;
    }
    end
}

pub fn prefixed(text: &str, out: &mut Findings) {
    let bytes = text.as_bytes();
    // One pass over token starts, comparing prefixes there (no substring searcher per rule: this
    // runs on every write).
    let buckets = rules_by_first_byte();
    let mut at = 0;
    while at < bytes.len() {
        let rules = &buckets[usize::from(bytes[at])];
        if rules.is_empty() || !bytes[at].is_ascii_alphanumeric() || !starts_token(bytes, at) {
            at += 1;
            continue;
        }
        let mut next = at + 1;
        for &(_, r) in rules.iter().filter(|(prefix, _)| bytes[at..].starts_with(prefix.as_bytes())) {
            let body_start = at + r.prefix.len();
            let end = run_end_within(bytes, body_start, r.charset, r.max + 1);
            let body = &text[body_start..end];
            let len = end - body_start;
            // A key runs to a boundary: more token characters after it means something else.
            let bounded = end == bytes.len() || !is_token_byte(bytes[end]) || matches!(r.charset, Charset::Path | Charset::UrlPath);
            if len < r.min || len > r.max || !bounded || out.overlaps(at, end) {
                continue;
            }
            let random = match r.charset {
                // Fixed-alphabet bodies (AWS ids, hex) need not mix letters and digits.
                Charset::Upper | Charset::Hex | Charset::Alpha => super::entropy::bits_per_char(body) >= r.bits && !is_placeholder(body),
                _ => looks_random(body, r.min, r.bits),
            };
            if random {
                out.push(Finding { start: at, end, kind: r.kind });
                next = end;
                break;
            }
        }
        at = next;
    }
}

/// `-----BEGIN … PRIVATE KEY-----` through its END line (or the end of the text).
pub fn private_keys(text: &str, out: &mut Findings) {
    for (at, _) in text.match_indices("-----BEGIN ") {
        // Inside a block already found (one without an END runs to the end of the text).
        if out.last().is_some_and(|f| f.kind == "private-key" && at < f.end) {
            continue;
        }
        let rest = &text[at + 11..];
        let Some(close) = rest.find("-----") else { continue };
        let label = &rest[..close];
        if !label.contains("PRIVATE KEY") || label.contains('\n') {
            continue;
        }
        let after = at + 11 + close + 5;
        let end = match text[after..].find("-----END ") {
            Some(e) => {
                let from = after + e + 9;
                text[from..].find("-----").map_or(text.len(), |c| from + c + 5)
            }
            None => text.len(),
        };
        if !out.overlaps(at, end) {
            out.push(Finding { start: at, end, kind: "private-key" });
        }
    }
}

/// `eyJ….eyJ….sig`: a JSON header and payload, base64url-encoded.
pub fn jwts(text: &str, out: &mut Findings) {
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices("eyJ") {
        if !starts_token(bytes, at) {
            continue;
        }
        let h_end = run_end(bytes, at, Charset::Url);
        // The header is JSON (`eyJ` is `{"`); the payload usually is too, but may be encrypted.
        if h_end - at < 10 || bytes.get(h_end) != Some(&b'.') {
            continue;
        }
        let p_end = run_end(bytes, h_end + 1, Charset::Url);
        if p_end - h_end < 10 {
            continue;
        }
        let end = if bytes.get(p_end) == Some(&b'.') { run_end(bytes, p_end + 1, Charset::Url) } else { continue };
        if end - p_end < 10 && !text[h_end + 1..].starts_with("eyJ") {
            continue;
        }
        if !out.overlaps(at, end) {
            out.push(Finding { start: at, end, kind: "jwt" });
        }
    }
}

/// Names whose assigned value is a credential.
const KEY_NAMES: &[&str] = &[
    "api_key",
    "apikey",
    "api-key",
    "api key",
    "access_token",
    "access token",
    "auth_token",
    "auth token",
    "secret_key",
    "secret key",
    "client_secret",
    "client secret",
    "aws_secret_access_key",
    "aws secret access key",
    "private_token",
    "refresh_token",
    "refresh token",
    "session_token",
    "sessiontoken",
    "session token",
    "bearer",
    "token",
    "secret",
    "access key",
    "authorization",
    "accountkey",
    "account_key",
    "account key",
    "sharedaccesskey",
    "primary key",
    "app key",
    "application key",
    "private key",
    // only as `key:` / `key1=` (`assigned`)
    "key",
];

/// `KEY_NAMES` by first byte, in either case (a name is matched ignoring ASCII case).
fn names_by_first_byte() -> &'static [Vec<(&'static str, ())>] {
    static BUCKETS: std::sync::OnceLock<Vec<Vec<(&'static str, ())>>> = std::sync::OnceLock::new();
    BUCKETS.get_or_init(|| {
        let mut buckets = by_first_byte(KEY_NAMES.iter().map(|n| (*n, ())));
        for b in b'a'..=b'z' {
            buckets[usize::from(b.to_ascii_uppercase())] = buckets[usize::from(b)].clone();
        }
        buckets
    })
}

/// Whether `bytes` at `at` starts with `word` (lower case), ASCII case ignored.
fn starts_folded(bytes: &[u8], at: usize, word: &[u8]) -> bool {
    bytes.get(at..at + word.len()).is_some_and(|s| s.eq_ignore_ascii_case(word))
}

/// Longest assigned value: temporary cloud credentials carry session tokens of several hundred
/// characters.
const ASSIGNED_MAX: usize = 2048;

/// A high-entropy value assigned to a key-like name: `api_key = "…"`, `token: …`, `Bearer …`.
pub fn assigned(text: &str, out: &mut Findings) {
    let bytes = text.as_bytes();
    let buckets = names_by_first_byte();
    let starts = (0..bytes.len()).filter(|&at| !buckets[usize::from(bytes[at])].is_empty() && (at == 0 || !bytes[at - 1].is_ascii_alphanumeric()));
    for at in starts {
        for name in buckets[usize::from(bytes[at])].iter().map(|(n, _)| n).filter(|n| starts_folded(bytes, at, n.as_bytes())) {
            // Name suffixes (`_ID`, quotes) then the separator, then an optional quote.
            let mut i = at + name.len();
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') && i - at < name.len() + 12 {
                i += 1;
            }
            let sep_start = i;
            // A bare `key` names a value only with a number at most after it (`key1:`, Azure's
            // two keys) and an explicit `:` or `=`: "key findings" and "keyboard" name none.
            let bare_key = *name == "key";
            if bare_key && !bytes[at + name.len()..sep_start].iter().all(u8::is_ascii_digit) {
                continue;
            }
            while i < bytes.len() && matches!(bytes[i], b' ' | b'"' | b'\'' | b':' | b'=' | b'\t' | b'>') {
                i += 1;
            }
            let sep = &text[sep_start..i];
            if bare_key && !(sep.contains(':') || sep.contains('=')) {
                continue;
            }
            let spaced_is = starts_folded(bytes, i, b"is ") && sep.trim().is_empty();
            if spaced_is {
                i += 3;
                while i < bytes.len() && matches!(bytes[i], b' ' | b'"' | b'\'' | b'`') {
                    i += 1;
                }
            } else if !(sep.contains(':') || sep.contains('=') || !sep.is_empty()) {
                continue;
            }
            // A name and its value with only a space between ("Secret Key wJalr…", "client secret
            // Xy4…") ask more of the value: longer, and random by its own letters.
            let bare = !(spaced_is || sep.contains(':') || sep.contains('=') || *name == "bearer");
            while i < bytes.len() && bytes[i] == b'`' {
                i += 1;
            }
            let start = i;
            let end = run_end_within(bytes, start, Charset::Dotted, ASSIGNED_MAX + 1);
            let end = {
                // base64 secrets carry `/ + =` too
                let mut e = end;
                while e < bytes.len() && e - start <= ASSIGNED_MAX && (Charset::Dotted.has(bytes[e]) || matches!(bytes[e], b'/' | b'+' | b'=')) {
                    // `=` is base64's padding, only at the end: one followed by more of the value
                    // starts another assignment (`token=token=…` would run on to the bound).
                    if bytes[e] == b'=' && bytes.get(e + 1).is_some_and(|&n| n != b'=' && (Charset::Dotted.has(n) || matches!(n, b'/' | b'+'))) {
                        break;
                    }
                    e += 1;
                }
                e
            };
            let value = &text[start..end];
            if value.len() < 16 || value.len() > ASSIGNED_MAX || value.starts_with("http") || out.overlaps(start, end) || value.contains("..") {
                continue;
            }
            if if bare { value.len() >= 24 && looks_random(value, 24, 3.5) } else { looks_random(value, 16, 3.3) } {
                let kind = if name.starts_with("aws") {
                    "aws-secret-key"
                } else if *name == "bearer" || *name == "authorization" {
                    "bearer-token"
                } else {
                    "api-key"
                };
                out.push(Finding { start, end, kind });
            }
        }
    }
}

/// A Twilio account SID (`AC` and 32 hex digits) is an account's name; the auth token that goes
/// with it is 32 hex digits too. In a text that names an account, every other run of exactly 32
/// hex digits is taken for its token.
pub fn account_tokens(text: &str, out: &mut Findings) {
    let bytes = text.as_bytes();
    let hex_run = |at: usize| run_end_within(bytes, at, Charset::Hex, 33) - at;
    let sid = text.match_indices("AC").any(|(at, _)| starts_token(bytes, at) && hex_run(at + 2) == 32 && !bytes.get(at + 34).is_some_and(|&b| is_token_byte(b)));
    if !sid {
        return;
    }
    let mut at = 0;
    while at < bytes.len() {
        if !starts_token(bytes, at) || !Charset::Hex.has(bytes[at]) {
            at += 1;
            continue;
        }
        let end = run_end_within(bytes, at, Charset::Hex, 33);
        let bounded = end == bytes.len() || !is_token_byte(bytes[end]);
        if end - at == 32 && bounded && !out.overlaps(at, end) && super::entropy::bits_per_char(&text[at..end]) >= 3.0 {
            out.push(Finding { start: at, end, kind: "twilio-token" });
        }
        at = end.max(at + 1);
    }
}

/// Gap in bytes between an AWS access key id and a part of the same credential.
const AWS_PART_GAP: usize = 600;

/// Base64 tokens of `text`: runs of `A-Z a-z 0-9 + /` with their `=` padding, as byte ranges. A
/// `=` followed by more of the run is an assignment, not padding, and splits it.
fn base64_tokens(bytes: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let body = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() && !body(bytes[at]) {
            at += 1;
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        while at < bytes.len() && body(bytes[at]) {
            at += 1;
        }
        let mut end = at;
        while end < bytes.len() && bytes[end] == b'=' && end - at < 2 {
            end += 1;
        }
        if !bytes.get(end).is_some_and(|&b| body(b)) {
            at = end;
        } else {
            end = at;
        }
        Some((start, end))
    })
}

/// The other parts of an AWS credential: a text that holds an access key id (`AKIA`/`ASIA` and 16)
/// holds its secret key (40 base64 characters of mixed case and digits) and, for temporary
/// credentials, a session token (a base64 run of a hundred or more) nearby, however they are
/// labelled. Each is taken within `AWS_PART_GAP` bytes of a key id, so the whole credential goes.
pub fn aws_parts(text: &str, out: &mut Findings) {
    let bytes = text.as_bytes();
    let key_id =
        |(s, e): (usize, usize)| e - s == 20 && (bytes[s..].starts_with(b"AKIA") || bytes[s..].starts_with(b"ASIA")) && bytes[s + 4..e].iter().all(|&b| Charset::Upper.has(b));
    let tokens: Vec<(usize, usize)> = base64_tokens(bytes).collect();
    let anchors: Vec<(usize, usize)> = tokens.iter().copied().filter(|&t| key_id(t)).collect();
    if anchors.is_empty() {
        return;
    }
    for (s, e) in tokens {
        let value = &text[s..e];
        let body = value.trim_end_matches('=');
        let mixed = body.bytes().any(|b| b.is_ascii_uppercase()) && body.bytes().any(|b| b.is_ascii_lowercase());
        let kind = match body.len() {
            40 if mixed && looks_random(body, 40, 3.5) => "aws-secret-key",
            100..=ASSIGNED_MAX if mixed && looks_random(body, 100, 4.0) => "aws-session-token",
            _ => continue,
        };
        // The nearest key id at or after the token, and the one before it.
        let next = anchors.partition_point(|&(a, _)| a < s);
        let near = |&(a, b): &(usize, usize)| if a >= e { a - e } else { s.saturating_sub(b) } <= AWS_PART_GAP;
        let close = anchors.get(next).is_some_and(near) || next.checked_sub(1).and_then(|i| anchors.get(i)).is_some_and(near);
        if close && !out.overlaps(s, e) {
            out.push(Finding { start: s, end: e, kind });
        }
    }
}

/// An Entra ID (Azure AD) client secret: 40 characters of `A-Z a-z 0-9 _ . ~ -`, the fourth a
/// digit and the fifth and sixth `Q~` (the format's version mark), random by its own letters.
pub fn entra_secrets(text: &str, out: &mut Findings) {
    let bytes = text.as_bytes();
    let secret_byte = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'~' | b'-');
    for (at, _) in text.match_indices("Q~") {
        let Some(start) = at.checked_sub(4) else { continue };
        let end = start + 40;
        if end > bytes.len() || !bytes[start + 3].is_ascii_digit() || (start > 0 && secret_byte(bytes[start - 1])) || bytes.get(end).is_some_and(|&b| secret_byte(b)) {
            continue;
        }
        let value = &bytes[start..end];
        if value.iter().all(|&b| secret_byte(b)) && looks_random(&text[start..end], 40, 4.0) && !out.overlaps(start, end) {
            out.push(Finding { start, end, kind: "azure-client-secret" });
        }
    }
}

/// How far before a hex run its naming word may stand ("El token de acceso de la API es …").
const HEX_LABEL_GAP: usize = 40;

/// Words that name a credential, in the languages the guards read (lower case).
const HEX_LABELS: &[&str] = &["key", "token", "secret", "clave", "chave", "chiave", "clé", "schlüssel", "ключ", "токен", "jeton", "密钥", "キー", "トークン", "키", "토큰"];

/// A run of 32 to 128 hex digits (groups joined by `-` allowed: `key-…`, Mailgun's `…-…-…`)
/// with a word naming a credential shortly before it in the same line: an auth token or API key
/// written in hex. Unnamed hex runs (commit ids, digests, build ids) are left alone.
pub fn labelled_hex(text: &str, out: &mut Findings) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if !Charset::Hex.has(bytes[at]) || !starts_token(bytes, at) {
            at += 1;
            continue;
        }
        let mut end = run_end_within(bytes, at, Charset::Hex, 129);
        while end - at <= 128 && bytes.get(end) == Some(&b'-') && bytes.get(end + 1).is_some_and(|&b| Charset::Hex.has(b)) {
            end = run_end_within(bytes, end + 1, Charset::Hex, 129);
        }
        let (start, next) = (at, end.max(at + 1));
        at = next;
        let digits = bytes[start..end].iter().filter(|&&b| b != b'-').count();
        if !(32..=128).contains(&digits) || bytes.get(end).is_some_and(|&b| is_token_byte(b)) || out.overlaps(start, end) {
            continue;
        }
        let value = &text[start..end];
        if !value.bytes().any(|b| b.is_ascii_digit()) || !value.bytes().any(|b| b.is_ascii_lowercase()) || super::entropy::bits_per_char(value) < 3.0 {
            continue;
        }
        let mut from = start.saturating_sub(HEX_LABEL_GAP);
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let before = &text[from..start];
        let before = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
        let lower = before.to_lowercase();
        let named = HEX_LABELS.iter().any(|w| {
            lower.match_indices(w).any(|(i, _)| {
                !w.is_ascii() || (!lower[..i].ends_with(|c: char| c.is_alphanumeric()) && !lower[i + w.len()..].starts_with(|c: char| c.is_alphanumeric() && c != 's'))
            })
        });
        if named {
            out.push(Finding { start, end, kind: "api-key" });
        }
    }
}

/// Bytes every secret of this module is made of: each charset above, and the `/ + =` of base64.
const fn is_value_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'+' | b'=')
}

/// The longest run of value bytes in `bytes` (one pass, no branch per byte).
fn longest_value_run(bytes: &[u8]) -> usize {
    let (mut run, mut longest) = (0usize, 0usize);
    for &b in bytes {
        run = if is_value_byte(b) { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// The shortest run of value bytes a rule's key can sit in: its body, after the part of the prefix
/// made of value bytes (`//hooks.slack.com/services/` of the webhook's prefix).
const fn shortest_key_run(rules: &[Rule]) -> usize {
    let mut shortest = usize::MAX;
    let mut i = 0;
    while i < rules.len() {
        let p = rules[i].prefix.as_bytes();
        let mut tail = 0;
        while tail < p.len() {
            if !is_value_byte(p[p.len() - 1 - tail]) {
                break;
            }
            tail += 1;
        }
        // Every charset is made of value bytes.
        if tail + rules[i].min < shortest {
            shortest = tail + rules[i].min;
        }
        i += 1;
    }
    shortest
}

/// Runs of value bytes each scanner needs: `-----BEGIN`; a JWT header (`eyJ` and 7 more); an
/// assigned value of 16; a provider key.
const PEM_RUN: usize = "-----BEGIN".len();
const JWT_RUN: usize = 10;
const ASSIGNED_RUN: usize = 16;
const KEY_RUN: usize = shortest_key_run(RULES);

/// Every secret of these kinds in `text`. A scanner runs only when the text has a run of value
/// bytes as long as its shortest find: ordinary prose has no run that long and skips them all.
pub fn find(text: &str, out: &mut Findings) {
    let run = longest_value_run(text.as_bytes());
    if run >= PEM_RUN {
        private_keys(text, out);
    }
    if run >= KEY_RUN {
        prefixed(text, out);
    }
    if run >= JWT_RUN {
        jwts(text, out);
    }
    if run >= ASSIGNED_RUN {
        assigned(text, out);
    }
    if run >= 32 && text.contains("AC") {
        account_tokens(text, out);
    }
    if run >= 32 {
        labelled_hex(text, out);
    }
    if text.contains("Q~") {
        entra_secrets(text, out);
    }
    if run >= 40 && (text.contains("AKIA") || text.contains("ASIA")) {
        aws_parts(text, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<&'static str> {
        let mut out = Findings::default();
        find(text, &mut out);
        out.iter().map(|f| f.kind).collect()
    }

    /// A Twilio account or API key SID goes with the token it names.
    #[test]
    fn twilio_sids_with_their_token() {
        assert_eq!(kinds("twilio sid AC3f9e2b7c1d4a5e6f708192a3b4c5d6e7 token 9b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"), ["twilio-sid", "api-key"]);
        assert_eq!(kinds("key SK0a1b2c3d4e5f60718293a4b5c6d7e8f9"), ["twilio-key"]);
        assert_eq!(kinds("ACCOUNT 00000000000000000000000000000000"), Vec::<&str>::new());
    }

    /// Every part of an AWS credential goes with its key id, however the parts are labelled.
    #[test]
    fn aws_credentials_go_whole() {
        let secret = "Vj7Qw2Lx9Rb4Np8Tz3Kc6Hm1Yd5Fg0Je8Ka2Mu+Q";
        let session = "IQoJb3JpZ2luX2VjE".to_string() + &"Zq8Wm2Rk7Tp4Lx9Vb3Nc6Hs1Yd5Fg0Je8Ka2Mu/".repeat(8);
        for text in [
            format!("Access Key ASIAQ4TZ7XK2M9PLW3RB, Secret Key {secret}, Session Token {session}"),
            format!("accessKeyId: ASIAQ4TZ7XK2M9PLW3RB\nsecretAccessKey: {secret}\nsessionToken: {session}"),
            format!("$env:AWS_SESSION_TOKEN=\"{session}\"; $env:AWS_ACCESS_KEY_ID=\"ASIAQ4TZ7XK2M9PLW3RB\"; key {secret}"),
        ] {
            let mut out = Findings::default();
            find(&text, &mut out);
            let parts: Vec<&str> = out.iter().map(|f| &text[f.start..f.end]).collect();
            assert!(parts.len() == 3 && parts.contains(&secret) && parts.contains(&session.as_str()), "{text}: {parts:?}");
        }
        assert_eq!(kinds(&format!("key id AKIAQ4TZ7XK2M9PLW3RB secret {secret}")).len(), 2);
        // Without a key id, or far from one, a base64 run is not taken; nor is a hex digest beside one.
        assert!(kinds(&format!("checksum {secret}")).is_empty());
        assert_eq!(kinds(&format!("AKIAQ4TZ7XK2M9PLW3RB{}{secret}", " lorem ipsum".repeat(60))), ["aws-access-key"]);
        assert_eq!(kinds("AKIAQ4TZ7XK2M9PLW3RB commit a9993e364706816aba3e25717850c26c9cd0d89d"), ["aws-access-key"]);
    }

    /// A hex token with a word naming a credential shortly before it; a name and a random value
    /// with only a space between. Unnamed hex (commits, digests) stays.
    #[test]
    fn entra_client_secrets_by_their_version_mark() {
        assert_eq!(kinds("client secret Xy48Q~abcDEFghi12JKLmnoPQRstu3VWXyz4567_ for the bot"), ["azure-client-secret"]);
        assert_eq!(kinds("AZURE_CLIENT_SECRET=Xy48Q~abcDEFghi12JKLmnoPQRstu3VWXyz4567_"), ["azure-client-secret"]);
        assert!(kinds("Q~ at the start, abcQ~ too short, Xy48Q~aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").is_empty());
    }

    #[test]
    fn named_hex_tokens_and_bare_names() {
        assert_eq!(kinds("El token de acceso de la API es 424bec8edd8c139e0d34a63f7a67bcf35a85c1d2"), ["api-key"]);
        assert_eq!(kinds("datadog api key f97d3d662410a8cabde4008eec74ac18 and app key c8f6090521b7e4d3a9f0c2b1d8e7a6f5c4b3a291"), ["api-key", "api-key"]);
        assert_eq!(kinds("Mailgun private key: 792ae1ba41809f498dda05552feec941-e4697a6c-ce450521"), ["api-key"]);
        assert_eq!(kinds("Secret Key Vj7Qw2Lx9Rb4Np8Tz3Kc6Hm1Yd5Fg0Je8Ka2Mu+Q"), ["api-key"]);
        assert_eq!(kinds("{\"accountKey\": \"7f/iEiHfvGfj+RJgKjn0jsjZq8Wm2Rk7Tp4Lx9Vb3Nc6Hs1Yd5Fg0Je8Ka2Mu==\"}"), ["api-key"]);
        // Azure lists an account's two keys as `key1` and `key2`.
        assert_eq!(kinds("key1: Zq8Wm2Rk7Tp4Lx9Vb3Nc6Hs1Yd5Fg0Je8Ka2Mu+Q/7f==\nkey2: Vj7Qw2Lx9Rb4Np8Tz3Kc6Hm1Yd5Fg0Je8Ka2Mu+Q=="), ["api-key", "api-key"]);
        for benign in [
            "commit a9993e364706816aba3e25717850c26c9cd0d89d fixed the key lookup",
            "The build id is 3f2a9c1e7b5d4e6f8a0b1c2d3e4f5a6b and it passed.",
            "sha1 a9993e364706816aba3e25717850c26c9cd0d89d",
            "the secret sauce is patience",
            "token bucket refill rate",
            "key findings Zq8Wm2Rk7Tp4Lx9Vb3Nc6Hs1Yd5Fg0Je8Ka2Mu in the report",
            "keyboard: Keychron Q1 v2",
            "primary key: customer_id",
        ] {
            assert!(kinds(benign).is_empty(), "{benign}");
        }
    }

    #[test]
    fn provider_keys_by_prefix_and_entropy() {
        assert_eq!(kinds("key: sk-proj-Q7vT2mK9xLp4Rw8ZbN3cHs6YdF1gJe5A"), ["openai-key"]);
        assert_eq!(kinds("sk-ant-api03-Zq8Wm2Rk7Tp4Lx9Vb3Nc6Hs1Yd5Fg0Je8Ka2Mu"), ["anthropic-key"]);
        assert_eq!(kinds("AKIAQ4TZ7XK2M9PLW3RB"), ["aws-access-key"]);
        assert_eq!(kinds("ghp_8fK2mQ9xLp4Rw7ZbN3cHs6YdT1gJe5AvW0uX"), ["github-token"]);
        assert_eq!(kinds("identity: AGE-SECRET-KEY-1GZ8MC6E9W5PQH3T7XRJ2AV4KN0FYD8LS6UMB5CE9HQ2W7TRP3ZX4NJVK"), ["private-key"]);
        assert_eq!(kinds("xoxb-20481632640-40961632640-Zq8Wm2Rk7Tp4Lx9Vb3Nc6Hs1"), ["slack-token"]);
        assert_eq!(kinds("sk_live_4eC39HqLyjWDarjtT1zdp7dc9Lm2"), ["stripe-key"]);
        assert_eq!(kinds("AIzaSyB3x9Qk2Lm7Rt4Wv8Zn1Pc6Hd5Fg0Js2Ka"), ["google-api-key"]);
        assert_eq!(kinds("Databricks PAT: dapie92d5e718f18c0012c64c35c9d4bd75c"), ["databricks-token"]);
        assert_eq!(kinds("New Relic user key NRAK-GTN1WWQHTI1THYW2HS2EI0FG0YQ"), ["newrelic-key"]);
        assert!(kinds("the dapifoo package and NRAK-1 ticket").is_empty());
    }

    #[test]
    fn stand_ins_and_words_are_not_keys() {
        for s in [
            "sk-learn is a library",
            "sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "set OPENAI_API_KEY=sk-your-key-here-please-1",
            "AKIAIOSFODNN7EXAMPLE",
            "the ghp_ prefix marks classic GitHub tokens",
            "hf_hub_download(repo_id)",
            "api_key = os.environ['OPENAI_API_KEY']",
        ] {
            assert_eq!(kinds(s), Vec::<&str>::new(), "{s}");
        }
    }

    #[test]
    fn pem_blocks_jwts_and_assigned_values() {
        let pem = "here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\nthanks";
        let mut out = Findings::default();
        find(pem, &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(&pem[out[0].start..out[0].end], "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----");
        assert_eq!(kinds("-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----"), Vec::<&str>::new());
        assert_eq!(kinds("token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"), ["jwt"]);
        assert_eq!(kinds("aws_secret_access_key = wJa7rXUtnF3MI9K7MDENG2bPxRfiCY4xq8Lz1b0T"), ["aws-secret-key"]);
        assert_eq!(kinds("Authorization: Bearer 9fQ2xL7mK4pR8wZ3bN6cHs1YdT5gJe0A"), ["bearer-token"]);
        assert_eq!(kinds("the api key is Zq8Wm2Rk7Tp4Lx9Vb3Nc6Hs1"), ["api-key"]);
    }

    #[test]
    fn never_panics_on_cut_inputs() {
        let s = "-----BEGIN PRIVATE KEY-----\nsk-proj-abc eyJhbGciOi.eyJ token: é AKIA ghp_ Bearer ";
        for i in 0..=s.len() {
            if s.is_char_boundary(i) {
                let mut out = Findings::default();
                find(&s[..i], &mut out);
                find(&s[i..], &mut out);
            }
        }
    }
}
