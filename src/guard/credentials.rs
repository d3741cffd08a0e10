//! Credentials inside connection addresses, found by the address's own syntax rather than by the
//! words around it: the password of a URL's user information (`postgres://app:…@db`, any scheme),
//! the secret fields of a `key=value;` connection string (`Password=…`, `AccountKey=…`,
//! `SharedAccessKey=…`), and the signature of a shared-access URL (`…&sig=…`). Placeholders such as
//! `:password@`, `:<pass>@` or `:${DB_PASSWORD}@` are documentation, not secrets.

use super::entropy::is_placeholder;
use super::{Finding, Findings};

/// Longest user information or field value looked at: longer is not a credential, and a bound
/// keeps a text full of `://` or `=` linear.
const VALUE_MAX: usize = 256;

/// A value that stands for a password in documentation: a template variable, an angle-bracketed
/// name, a run of one character, or the word itself.
fn is_stand_in(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let one_char = value.chars().next().is_some_and(|c| value.chars().all(|x| x == c));
    one_char
        || value.starts_with(['$', '<', '{', '[', '%'])
        || value.ends_with(['>', '}'])
        || matches!(lower.as_str(), "password" | "pass" | "passwd" | "pwd" | "pw" | "secret" | "token" | "key" | "apikey" | "api_key" | "user" | "username")
        || is_placeholder(value)
}

/// Ends of a URL's authority: a user information never runs past these. `?` and `#` end it only
/// when no `@` follows: people write passwords with them unencoded (`:Lun4Llena#88@db`).
fn ends_authority(b: u8) -> bool {
    matches!(b, b'/' | b'"' | b'\'' | b'`' | b'<' | b'>' | b'\\' | b')' | b']') || b.is_ascii_whitespace()
}

/// `scheme://user:password@host`: the password (between the first `:` of the user information and
/// its last `@`), for any scheme: databases, brokers, caches, HTTP basic auth, FTP.
pub fn url_passwords(text: &str, out: &mut Findings) {
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices("://") {
        // A scheme: a letter, then letters, digits, `+ . -`.
        let mut s = at;
        while s > 0 && (bytes[s - 1].is_ascii_alphanumeric() || matches!(bytes[s - 1], b'+' | b'.' | b'-')) {
            s -= 1;
        }
        if s == at || !bytes[s].is_ascii_alphabetic() {
            continue;
        }
        let from = at + 3;
        let mut end = from;
        while end < bytes.len() && end - from < VALUE_MAX && !ends_authority(bytes[end]) {
            end += 1;
        }
        let authority = &bytes[from..end];
        let Some(last_at) = authority.iter().rposition(|&b| b == b'@') else { continue };
        let Some(colon) = authority[..last_at].iter().position(|&b| b == b':') else {
            // A user information without a password that is itself a key (`https://<key>@o1.ingest…`,
            // a DSN; `https://<token>@host/repo.git`): random, twenty characters or more.
            let (start, stop) = (from, from + last_at);
            let value = &text[start..stop];
            if bytes.get(stop + 1).is_some_and(u8::is_ascii_alphanumeric) && super::entropy::looks_random(value, 20, 3.3) && !out.overlaps(start, stop) {
                out.push(Finding { start, end: stop, kind: "url-token" });
            }
            continue;
        };
        let (start, stop) = (from + colon + 1, from + last_at);
        // A host must follow the `@`.
        if stop == start || !bytes.get(stop + 1).is_some_and(u8::is_ascii_alphanumeric) {
            continue;
        }
        let value = &text[start..stop];
        if !is_stand_in(value) && !out.overlaps(start, stop) {
            out.push(Finding { start, end: stop, kind: "url-password" });
        }
    }
}

/// Fields of a connection string whose value is a secret (lower case), and the kind each is.
const SECRET_FIELDS: &[(&str, &str)] = &[
    ("password", "password"),
    ("pwd", "password"),
    ("accountkey", "azure-key"),
    ("sharedaccesskey", "azure-key"),
    ("sharedaccesssignature", "azure-sas"),
    ("primarykey", "azure-key"),
    ("secondarykey", "azure-key"),
];

/// `Field=value` in `;`-separated connection strings (ADO.NET, Azure, ODBC): the values of the
/// secret fields. The field must start the string or follow a `;`, so prose with `=` is left alone.
pub fn connection_fields(text: &str, out: &mut Findings) {
    let bytes = text.as_bytes();
    // Where the last `;` is, found once: asking at every `=` whether one follows would be quadratic.
    let last_semicolon = text.rfind(';');
    for (eq, _) in text.match_indices('=') {
        let mut s = eq;
        while s > 0 && bytes[s - 1].is_ascii_alphanumeric() {
            s -= 1;
        }
        let name = &text[s..eq];
        let Some(&(_, kind)) = SECRET_FIELDS.iter().find(|(f, _)| f.eq_ignore_ascii_case(name)) else { continue };
        // A connection string's field follows a `;` (or begins the string, or the line): a lone
        // `password=` in prose is the password detector's.
        let before = text[..s].trim_end_matches(' ');
        if !(before.is_empty() || before.ends_with([';', '\n', '"', '\'', ':', '=']) || last_semicolon.is_some_and(|at| at > eq)) {
            continue;
        }
        let start = eq + 1;
        let mut end = start;
        // Up to the next `;` (a signature field's value is itself a query string, `sv=…&sig=…`).
        while end < bytes.len() && end - start < VALUE_MAX * 4 && !matches!(bytes[end], b';' | b'"' | b'\'' | b'`') && !bytes[end].is_ascii_whitespace() {
            end += 1;
        }
        let value = &text[start..end];
        if value.is_empty() || is_stand_in(value) || out.overlaps(start, end) {
            continue;
        }
        out.push(Finding { start, end, kind });
    }
}

/// Names of a setting whose value is a secret, inside an attribute (lower case).
const SECRET_NAMES: &[&str] = &["password", "passwd", "pwd", "secret", "token", "apikey", "api_key", "api-key", "accesskey", "privatekey"];

/// `key="SmtpPassword" value="…"` (and `name=`): a setting given as a pair of attributes in one
/// tag (.NET `appSettings`, Java properties in XML), its value a secret by the setting's name.
pub fn attribute_pairs(text: &str, out: &mut Findings) {
    for (at, _) in text.match_indices("value=\"") {
        // The tag's start, within a few hundred bytes back.
        let mut from = at.saturating_sub(200);
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let Some(open) = text[from..at].rfind('<') else { continue };
        let tag = text[from + open..at].to_ascii_lowercase();
        let name = ["key=\"", "name=\""].iter().find_map(|a| tag.find(a).map(|i| &tag[i + a.len()..])).and_then(|rest| rest.split('"').next());
        if !name.is_some_and(|n| SECRET_NAMES.iter().any(|w| n.contains(w))) {
            continue;
        }
        let start = at + 7;
        let Some(len) = text[start..].bytes().take(VALUE_MAX).position(|b| b == b'"') else { continue };
        let value = &text[start..start + len];
        if !value.is_empty() && !is_stand_in(value) && !out.overlaps(start, start + len) {
            out.push(Finding { start, end: start + len, kind: "password" });
        }
    }
}

/// `sig=` in a URL's query: a shared-access signature (base64, often percent-encoded).
pub fn url_signatures(text: &str, out: &mut Findings) {
    let bytes = text.as_bytes();
    for (at, _) in text.match_indices("sig=") {
        if !(at > 0 && matches!(bytes[at - 1], b'?' | b'&' | b';')) {
            continue;
        }
        let start = at + 4;
        let mut end = start;
        while end < bytes.len() && end - start < VALUE_MAX && (bytes[end].is_ascii_alphanumeric() || matches!(bytes[end], b'%' | b'+' | b'/' | b'=' | b'_' | b'-')) {
            end += 1;
        }
        let value = &text[start..end];
        if value.len() >= 16 && !is_stand_in(value) && !out.overlaps(start, end) {
            out.push(Finding { start, end, kind: "azure-sas" });
        }
    }
}

/// Where a login travels base64-encoded: a registry's `"auth": "…"` (Docker's `config.json`) and
/// an HTTP `Basic` header.
const ENCODED_LOGIN_LEADS: &[&str] = &["\"auth\": \"", "\"auth\":\"", "basic "];

/// A login `user:password` written in base64 after one of `ENCODED_LOGIN_LEADS`: the value is
/// withheld whole when it decodes to printable text with a user and a password of four or more.
pub fn encoded_logins(text: &str, out: &mut Findings) {
    let lower = text.to_ascii_lowercase();
    for lead in ENCODED_LOGIN_LEADS {
        for (at, _) in lower.match_indices(lead).take(64) {
            let start = at + lead.len();
            let end = start + text[start..].bytes().take(VALUE_MAX).take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')).count();
            if end - start < 12 || out.overlaps(start, end) {
                continue;
            }
            let Some(decoded) = super::deobfuscate::decode_base64(&text[start..end]) else { continue };
            let Ok(login) = std::str::from_utf8(&decoded) else { continue };
            let printable = login.chars().all(|c| !c.is_control());
            if printable && login.split_once(':').is_some_and(|(user, password)| !user.is_empty() && password.chars().count() >= 4 && !is_stand_in(password)) {
                out.push(Finding { start, end, kind: "password" });
            }
        }
    }
}

pub fn find(text: &str, out: &mut Findings) {
    if text.contains("://") {
        url_passwords(text, out);
    }
    if text.contains("auth\"") || text.contains("asic ") {
        encoded_logins(text, out);
    }
    if text.contains('=') {
        if text.contains("value=\"") {
            attribute_pairs(text, out);
        }
        connection_fields(text, out);
        if text.contains("sig=") {
            url_signatures(text, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<(&str, &'static str)> {
        let mut out = Findings::default();
        find(text, &mut out);
        out.iter().map(|f| (&text[f.start..f.end], f.kind)).collect()
    }

    /// A registry's `auth` and a `Basic` header carry `user:password` in base64; a value that
    /// decodes to no login is left alone.
    #[test]
    fn base64_logins_in_configs_and_headers() {
        let cfg = r#"{"auths": {"ghcr.io": {"auth": "Ym90OlM0ZmUtUGFzcy05OQ=="}}}"#;
        assert_eq!(values(cfg), [("Ym90OlM0ZmUtUGFzcy05OQ==", "password")]);
        assert_eq!(values("Authorization: Basic YWRtaW46aHVudGVyMjI="), [("YWRtaW46aHVudGVyMjI=", "password")]);
        assert_eq!(values(r#"{"auth": "aGVsbG8gd29ybGQgdGhlcmU="}"#), []);
        assert_eq!(values("basic usage is documented in the manual"), []);
    }

    #[test]
    fn url_user_information_passwords_of_any_scheme() {
        assert_eq!(values("postgres://app:Tr0ub4dor&3@db.internal:5432/main"), [("Tr0ub4dor&3", "url-password")]);
        assert_eq!(values("REDIS_URL=rediss://default:Zk82mQp@cache:6380"), [("Zk82mQp", "url-password")]);
        assert_eq!(values("mongodb+srv://ops:p@ss:word@cluster0.abcd.mongodb.net/?retryWrites=true"), [("p@ss:word", "url-password")]);
        assert_eq!(values("hook: https://deployer:x9Lm2Qp7@ci.example.com/invoke"), [("x9Lm2Qp7", "url-password")]);
        for doc in [
            "postgres://user:password@localhost/db",
            "mysql://root:<pass>@host/x",
            "amqp://guest:${RABBIT_PASS}@mq",
            "https://example.com/a:b@c",
            "see http://host:8080/path",
            "redis://:****@cache",
        ] {
            assert_eq!(values(doc), [], "{doc}");
        }
    }

    #[test]
    fn connection_string_secret_fields_and_sas_signatures() {
        let azure = "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=q8Zx9LmQ2wR7vN4pK1sD+/==;EndpointSuffix=core.windows.net";
        assert_eq!(values(azure), [("q8Zx9LmQ2wR7vN4pK1sD+/==", "azure-key")]);
        assert_eq!(values("Server=db;Database=shop;User Id=sa;Password=Kr4ken!Sea;"), [("Kr4ken!Sea", "password")]);
        let sas = "https://acct.blob.core.windows.net/c/f.csv?sv=2022-11-02&sp=r&sig=AbC9xYz%2B12pQrStUvWx%3D";
        assert_eq!(values(sas), [("AbC9xYz%2B12pQrStUvWx%3D", "azure-sas")]);
        for prose in ["if x=1 then y=2", "Password=<your password>;", "set password=... in the file"] {
            assert_eq!(values(prose), [], "{prose}");
        }
    }

    #[test]
    fn url_keys_and_attribute_pairs() {
        assert_eq!(values("SENTRY_DSN=https://4b4ae9b816da75c9e7cc6b298a7291b9@o450123.ingest.sentry.io/5512345"), [("4b4ae9b816da75c9e7cc6b298a7291b9", "url-token")]);
        assert_eq!(values("<add key=\"SmtpPassword\" value=\"M4il!Relay22\" />"), [("M4il!Relay22", "password")]);
        assert_eq!(values("<property name=\"db.password\" value=\"Ledger-42x\"/>"), [("Ledger-42x", "password")]);
        for benign in [
            "git clone https://git@github.com/org/repo",
            "mailto://anna.smith@example.org",
            "<add key=\"SmtpHost\" value=\"mail.example.com\" />",
            "<add key=\"ApiKey\" value=\"${API_KEY}\" />",
        ] {
            assert_eq!(values(benign), [], "{benign}");
        }
    }

    #[test]
    fn never_panics_on_cut_inputs() {
        let s = "a://b:c@d ;Password=é;x://:@ sig=%%é AccountKey= é://x:y@z";
        for i in 0..=s.len() {
            if s.is_char_boundary(i) {
                values(&s[..i]);
                values(&s[i..]);
            }
        }
    }
}
