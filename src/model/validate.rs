//! Input limits. Every check runs before any state changes, so a rejected call leaves the store as it
//! was.

use crate::error::{Error, Result};

pub const CONTENT_MAX_CHARS: usize = 8192;
pub const TAGS_MAX: usize = 20;
pub const TAG_MAX_CHARS: usize = 32;
pub const SOURCE_MAX_CHARS: usize = 64;
/// Room for the ids tenants already have: emails, URLs, `org/team/user`, UUIDs.
pub const NAMESPACE_MAX_CHARS: usize = 256;
pub const METADATA_MAX_BYTES: usize = 16 * 1024;
/// Dimensions of a vector: above every sentence embedder in use (3,072 is the widest common one).
pub const EMBEDDING_DIMS_MAX: usize = 16_384;
pub const DEFAULT_NAMESPACE: &str = "default";
pub const SEARCH_LIMIT_MAX: usize = 1000;
/// `maxTokens` of a context block.
pub const CONTEXT_TOKENS_MAX: usize = 200_000;
/// Verbatim turns may be longer than a memory: assistants write long answers.
pub const RAW_CONTENT_MAX_CHARS: usize = 65_536;
pub const SESSION_ID_MAX_CHARS: usize = 128;
pub const SESSION_TURNS_MAX: usize = 10_000;
pub const ROLE_MAX_CHARS: usize = 32;
pub const SPEAKER_MAX_CHARS: usize = 64;
pub const TURN_ID_MAX_CHARS: usize = 128;
pub const DERIVED_FROM_MAX: usize = 64;
/// Text of one `ingest` call (turn contents, speakers, roles, ids; UTF-8 bytes). A session is
/// re-ingested whole as it grows, so this is also the largest session.
pub const INGEST_BYTES_MAX: usize = 32 << 20;
/// One import file. An import read in slices holds its decoded records and the tables (and, into
/// storage, the chunk it writes: about four times the file at its peak), so this keeps an import
/// inside wasm32's 4 GiB.
pub const IMPORT_BYTES_MAX: usize = 512 << 20;

/// Non-blank text of at most `max_chars` characters.
fn text(text: &str, what: &str, max_chars: usize) -> Result<()> {
    if text.trim().is_empty() {
        return Err(Error::invalid(format!("{what} must contain at least one non-whitespace character")));
    }
    let n = text.chars().count();
    if n > max_chars {
        return Err(Error::invalid(format!("{what} is {n} characters; the limit is {max_chars}")));
    }
    Ok(())
}

pub(crate) fn content(content: &str) -> Result<()> {
    text(content, "content", CONTENT_MAX_CHARS)
}

/// A namespace is the host's own id for a tenant, user or space (`user:42`, `org/team`,
/// `a@b.com`, a UUID), so any text is accepted but what would make two ids look alike or break a
/// line: control characters, and spaces at either end. Namespaces live inside records, never in
/// storage keys, so no character needs escaping.
pub(crate) fn namespace(ns: &str) -> Result<()> {
    let n = ns.chars().count();
    if n == 0 || n > NAMESPACE_MAX_CHARS {
        return Err(Error::invalid(format!("namespace must be 1..{NAMESPACE_MAX_CHARS} characters, got {n}")));
    }
    if let Some(c) = ns.chars().find(|c| c.is_control()) {
        return Err(Error::invalid(format!("namespace must not contain control characters (found {c:?})")));
    }
    if ns.trim() != ns {
        return Err(Error::invalid(format!("namespace must not start or end with whitespace (got {:?})", super::time::truncate(ns, 40))));
    }
    Ok(())
}

/// Trims each tag, drops exact repeats (order kept) and checks the limits. Stops at the first
/// distinct tag past the limit, so a huge list costs one pass, never a pass per tag kept.
pub(crate) fn tags(tags: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::with_capacity(tags.len().min(TAGS_MAX + 1));
    for t in tags {
        let t = t.trim();
        if t.is_empty() {
            return Err(Error::invalid("tags must not be empty strings"));
        }
        let n = t.chars().count();
        if n > TAG_MAX_CHARS {
            return Err(Error::invalid(format!("tag `{}` is {n} characters; the limit is {TAG_MAX_CHARS}", super::time::truncate(t, 40))));
        }
        if !out.iter().any(|o| o == t) {
            if out.len() == TAGS_MAX {
                return Err(Error::invalid(format!("more than {TAGS_MAX} distinct tags given ({} in all); the limit is {TAGS_MAX}", tags.len())));
            }
            out.push(t.to_string());
        }
    }
    Ok(out)
}

pub(crate) fn source(source: &str) -> Result<()> {
    let n = source.chars().count();
    if n > SOURCE_MAX_CHARS {
        return Err(Error::invalid(format!("source is {n} characters; the limit is {SOURCE_MAX_CHARS}")));
    }
    Ok(())
}

pub(crate) fn importance(x: f64) -> Result<()> {
    if !x.is_finite() || !(0.0..=1.0).contains(&x) {
        return Err(Error::invalid(format!("importance must be a number from 0 to 1, got {x}")));
    }
    Ok(())
}

pub(crate) fn metadata(map: &serde_json::Map<String, serde_json::Value>) -> Result<()> {
    let bytes = serde_json::to_vec(map).map(|v| v.len()).unwrap_or(usize::MAX);
    if bytes > METADATA_MAX_BYTES {
        return Err(Error::invalid(format!("metadata is {bytes} bytes as JSON; the limit is {METADATA_MAX_BYTES}")));
    }
    Ok(())
}

/// Checks a vector is non-empty and finite, and returns it scaled to unit length (cosine = dot).
pub(crate) fn embedding(v: &[f32], expected_dims: Option<usize>) -> Result<Vec<f32>> {
    if v.is_empty() {
        return Err(Error::invalid("embedding must not be empty"));
    }
    if v.len() > EMBEDDING_DIMS_MAX {
        return Err(Error::invalid(format!("embedding has {} dimensions; the limit is {EMBEDDING_DIMS_MAX}", v.len())));
    }
    if let Some(d) = expected_dims {
        if v.len() != d {
            return Err(Error::invalid(format!("embedding has {} dimensions; this store's vectors have {d}", v.len())));
        }
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(Error::invalid("embedding must contain only finite numbers"));
    }
    let norm = v.iter().map(|x| f64::from(*x) * f64::from(*x)).sum::<f64>().sqrt();
    if norm == 0.0 {
        return Err(Error::invalid("embedding must not be the zero vector"));
    }
    Ok(v.iter().map(|x| (f64::from(*x) / norm) as f32).collect())
}

pub(crate) fn limit(n: usize, what: &str) -> Result<()> {
    if n == 0 || n > SEARCH_LIMIT_MAX {
        return Err(Error::invalid(format!("{what} must be 1..{SEARCH_LIMIT_MAX}, got {n}")));
    }
    Ok(())
}

/// A bounded, non-empty identifier-like string (session ids, roles, speakers, turn ids).
pub(crate) fn label(value: &str, what: &str, max_chars: usize) -> Result<()> {
    let n = value.chars().count();
    if value.trim().is_empty() || n > max_chars {
        return Err(Error::invalid(format!("{what} must be 1..{max_chars} characters and not only whitespace, got {n}")));
    }
    if value.chars().any(char::is_control) {
        return Err(Error::invalid(format!("{what} must not contain control characters")));
    }
    Ok(())
}

/// An instant ISO 8601 can write (years 0000–9999).
pub(crate) fn timestamp(ms: i64, what: &str) -> Result<()> {
    if !(super::time::MIN_MS..=super::time::MAX_MS).contains(&ms) {
        return Err(Error::invalid(format!("{what} {ms} is outside the years 0000–9999")));
    }
    Ok(())
}

/// The bytes of one `ingest` call's text.
pub(crate) fn ingest_bytes(n: usize) -> Result<()> {
    if n > INGEST_BYTES_MAX {
        return Err(Error::invalid(format!("the session's text is {n} bytes; one ingest takes at most {INGEST_BYTES_MAX}")));
    }
    Ok(())
}

/// The size of one import file.
pub(crate) fn import_bytes(n: usize) -> Result<()> {
    if n > IMPORT_BYTES_MAX {
        return Err(Error::invalid(format!("the import file is {n} bytes; the limit is {IMPORT_BYTES_MAX}")));
    }
    Ok(())
}

/// The fields of one conversation turn, as `ingest` accepts them (and imports must hold to).
pub(crate) fn turn(role: &str, content: &str, speaker: Option<&str>, turn_id: Option<&str>) -> Result<()> {
    label(role, "role", ROLE_MAX_CHARS)?;
    raw_content(content)?;
    if let Some(s) = speaker {
        label(s, "speaker", SPEAKER_MAX_CHARS)?;
    }
    if let Some(id) = turn_id {
        label(id, "turn id", TURN_ID_MAX_CHARS)?;
    }
    Ok(())
}

pub(crate) fn raw_content(content: &str) -> Result<()> {
    text(content, "turn content", RAW_CONTENT_MAX_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_are_the_hosts_own_ids() {
        for ok in ["default", "user:42", "org/team", "a@b.com", "3f2c9e1a-7b4d-4c1e-9f00-2a6b8c0d1e2f", "Acme Corp", "équipe/北京", &"n".repeat(NAMESPACE_MAX_CHARS)] {
            assert!(namespace(ok).is_ok(), "{ok}");
        }
        for bad in ["", " a", "a ", "a\nb", "a\u{0}b", "\t", &"n".repeat(NAMESPACE_MAX_CHARS + 1)] {
            assert_eq!(namespace(bad).unwrap_err().code, crate::error::ErrorCode::InvalidInput, "{bad:?}");
        }
    }

    #[test]
    fn a_million_tags_are_refused_at_the_first_one_past_the_limit() {
        let many: Vec<String> = (0..1_000_000).map(|i| format!("t{i}")).collect();
        let e = tags(&many).unwrap_err();
        assert!(e.to_string().contains("more than 20 distinct tags given (1000000 in all)"), "{e}");
        // Repeats of a few tags are one tag each, however many.
        let mut repeated = vec!["same".to_string(); 1_000_000];
        repeated.push(" other ".into());
        assert_eq!(tags(&repeated).unwrap(), vec!["same".to_string(), "other".to_string()]);
        let twenty: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
        assert_eq!(tags(&twenty).unwrap().len(), 20);
    }

    #[test]
    fn an_embedding_wider_than_the_limit_is_refused_before_it_is_read() {
        assert!(embedding(&vec![0.5; EMBEDDING_DIMS_MAX], None).is_ok());
        let e = embedding(&vec![0.5; EMBEDDING_DIMS_MAX + 1], None).unwrap_err();
        assert!(e.to_string().contains("the limit is 16384"), "{e}");
    }
}
