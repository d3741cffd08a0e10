//! Checks and normalization of the typed evolving-fact fields, shared by `add`, `update` and
//! imports: labels become one canonical spelling (so `Team/Package Manager` and
//! `team/package-manager` are the same slot), texts are bounded, confidence is 0–1.

use crate::error::{Error, Result};
use crate::model::time::truncate;
use crate::model::{DependsOn, Evolving, EvolvingPatch, Memory, Shape, TextField};

pub use crate::model::evolve::{AREA_MAX, LABEL_MAX_CHARS, LABEL_MAX_SEGMENTS, SIGNATURE_MAX_CHARS, VALUE_MAX_CHARS};

/// `thread`, `area` entries and `dependsOn.thread`: lowercase ASCII words joined by `-`, segments
/// separated by `/`. Any other ASCII punctuation or whitespace separates words; non-ASCII letters
/// are refused rather than silently dropped.
pub fn label(raw: &str, what: &str) -> Result<String> {
    let mut segments: Vec<String> = Vec::new();
    for seg in raw.split('/') {
        let mut words: Vec<String> = Vec::new();
        let mut word = String::new();
        for c in seg.chars() {
            if c.is_ascii_alphanumeric() {
                word.push(c.to_ascii_lowercase());
            } else if c.is_ascii() {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            } else {
                return Err(Error::invalid(format!("{what}: labels are ASCII letters, digits, `-` and `/`; found {c:?} in `{}`", truncate(raw, 40))));
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
        if !words.is_empty() {
            segments.push(words.join("-"));
        }
    }
    if segments.is_empty() {
        return Err(Error::invalid(format!("{what} must contain at least one letter or digit")));
    }
    if segments.len() > LABEL_MAX_SEGMENTS {
        return Err(Error::invalid(format!("{what} has {} `/` segments; the limit is {LABEL_MAX_SEGMENTS}", segments.len())));
    }
    let out = segments.join("/");
    if out.len() > LABEL_MAX_CHARS {
        return Err(Error::invalid(format!("{what} is {} characters; the limit is {LABEL_MAX_CHARS}", out.len())));
    }
    Ok(out)
}

/// Non-blank, bounded, no control characters other than line breaks and tabs (a verbatim phrase
/// may span lines). Stored as given: a value is quoted, never rewritten.
pub fn text(value: &str, what: &str, max_chars: usize) -> Result<()> {
    if value.trim().is_empty() {
        return Err(Error::invalid(format!("{what} must contain at least one non-whitespace character")));
    }
    let n = value.chars().count();
    if n > max_chars {
        return Err(Error::invalid(format!("{what} is {n} characters; the limit is {max_chars}")));
    }
    if value.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) {
        return Err(Error::invalid(format!("{what} must not contain control characters")));
    }
    Ok(())
}

pub fn confidence(x: f64) -> Result<()> {
    if !x.is_finite() || !(0.0..=1.0).contains(&x) {
        return Err(Error::invalid(format!("confidence must be a number from 0 to 1, got {x}")));
    }
    Ok(())
}

/// Normalized, distinct area labels (at most three). Stops at the first distinct label past the
/// limit, so a huge list costs one pass.
pub fn area(labels: &[String]) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for l in labels {
        let l = label(l, "area")?;
        if !out.contains(&l) {
            if out.len() == AREA_MAX {
                return Err(Error::invalid(format!("area has more than {AREA_MAX} distinct labels ({} given); the limit is {AREA_MAX}", labels.len())));
            }
            out.push(l);
        }
    }
    Ok(out)
}

pub fn depends_on(d: &DependsOn, own_thread: Option<&str>) -> Result<DependsOn> {
    let thread = label(&d.thread, "dependsOn.thread")?;
    if let Some(v) = &d.value {
        text(v, "dependsOn.value", VALUE_MAX_CHARS)?;
    }
    if own_thread == Some(thread.as_str()) {
        return Err(Error::invalid("dependsOn.thread must name another thread than the memory's own"));
    }
    Ok(DependsOn { thread, value: d.value.clone() })
}

/// The combinations a derivation cannot read: a retraction withdraws a thread's values, so it needs
/// the thread; a correction replaces a value of its thread, so it needs both.
pub fn fits_together(shape: Option<Shape>, thread: Option<&str>, value: Option<&str>, corrects: Option<&str>) -> Result<()> {
    if shape == Some(Shape::Retraction) && thread.is_none() {
        return Err(Error::invalid("shape `retraction` needs a `thread` (the slot whose values are withdrawn)"));
    }
    if corrects.is_some() && (thread.is_none() || value.is_none()) {
        return Err(Error::invalid("`corrects` needs a `thread` and a `value` (the slot, and the value that replaces the mistaken one)"));
    }
    Ok(())
}

/// The evolving fields of a stored or imported memory hold to the rules `add` applies, already
/// normalized (an import may not smuggle in spellings `add` would have rewritten).
pub fn check_memory(m: &Memory) -> Result<()> {
    let thread = m.thread.as_deref().map(|t| label(t, "thread")).transpose()?;
    if thread.as_deref() != m.thread.as_deref() {
        return Err(Error::invalid("thread must be a normalized label, as `add` stores it"));
    }
    if area(&m.area)? != m.area {
        return Err(Error::invalid("area must hold normalized, distinct labels, as `add` stores them"));
    }
    if let Some(d) = &m.depends_on {
        if depends_on(d, thread.as_deref())? != *d {
            return Err(Error::invalid("dependsOn.thread must be a normalized label, as `add` stores it"));
        }
    }
    for f in TextField::ALL {
        if let Some(t) = m.evolving_text(f) {
            text(t, f.name(), f.max_chars())?;
        }
    }
    if let Some(c) = m.confidence {
        confidence(c)?;
    }
    fits_together(m.shape, thread.as_deref(), m.value.as_deref(), m.corrects.as_deref())
}

/// The fields `add` takes, checked and normalized before anything changes.
pub fn check_new(mut e: Evolving) -> Result<Evolving> {
    let thread = e.thread.as_deref().map(|t| label(t, "thread")).transpose()?;
    let depends_on = e.depends_on.as_ref().map(|d| depends_on(d, thread.as_deref())).transpose()?;
    for f in TextField::ALL {
        if let Some(v) = e.text_mut(f) {
            text(v, f.name(), f.max_chars())?;
        }
    }
    if let Some(c) = e.confidence {
        confidence(c)?;
    }
    fits_together(e.shape, thread.as_deref(), e.value.as_deref(), e.corrects.as_deref())?;
    Ok(Evolving { thread, depends_on, area: area(&e.area)?, ..e })
}

/// Applies a patch's evolving fields to a memory, checking each; the memory is a copy, so an error
/// leaves the stored one as it was.
pub fn apply_patch(m: &mut Memory, p: &EvolvingPatch) -> Result<()> {
    if let Some(s) = p.shape {
        m.shape = s;
    }
    if let Some(t) = &p.thread {
        m.thread = t.as_deref().map(|t| label(t, "thread")).transpose()?;
    }
    if let Some(v) = &p.value {
        m.value = v.clone();
    }
    if let Some(v) = &p.corrects {
        m.corrects = v.clone();
    }
    if let Some(d) = &p.depends_on {
        m.depends_on = d.clone();
    }
    if let Some(v) = &p.consequent {
        m.consequent = v.clone();
    }
    if let Some(a) = &p.area {
        m.area = a.clone();
    }
    if let Some(v) = &p.signature {
        m.signature = v.clone();
    }
    if let Some(pin) = p.pin {
        m.pin = pin;
    }
    if let Some(c) = p.confidence {
        m.confidence = c;
    }
    if let Some(d) = &m.depends_on {
        m.depends_on = Some(depends_on(d, m.thread.as_deref())?);
    }
    m.area = area(&m.area)?;
    check_memory(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_normalize_to_one_spelling() {
        assert_eq!(label("Team/Package Manager", "thread").unwrap(), "team/package-manager");
        assert_eq!(label("  team // weekly_report.recipient ", "thread").unwrap(), "team/weekly-report-recipient");
        assert_eq!(label("X", "thread").unwrap(), "x");
        for bad in ["", "  / - /", "a/b/c/d/e", "café"] {
            let e = label(bad, "thread").unwrap_err();
            assert!(e.message.contains("thread"), "{bad}: {}", e.message);
        }
        assert!(label(&"a".repeat(LABEL_MAX_CHARS + 1), "thread").is_err());
    }

    #[test]
    fn areas_dedupe_and_are_bounded() {
        assert_eq!(area(&["Home".into(), "home".into(), "plants".into()]).unwrap(), ["home", "plants"]);
        assert!(area(&["a".into(), "b".into(), "c".into(), "d".into()]).is_err());
        // A million labels: refused at the fourth distinct one, not after a pass per label kept.
        let many: Vec<String> = (0..1_000_000).map(|i| format!("area {i}")).collect();
        assert!(area(&many).unwrap_err().message.contains("more than 3 distinct labels (1000000 given)"));
    }

    #[test]
    fn depends_on_is_normalized_and_not_self() {
        let d = depends_on(&DependsOn { thread: "Team Lead".into(), value: Some("Seokjin Kang".into()) }, Some("team/review")).unwrap();
        assert_eq!(d.thread, "team-lead");
        assert!(depends_on(&DependsOn { thread: "team lead".into(), value: None }, Some("team-lead")).is_err());
        assert!(depends_on(&DependsOn { thread: "x".into(), value: Some(" ".into()) }, None).is_err());
    }

    #[test]
    fn a_retraction_needs_its_thread_and_a_correction_its_thread_and_value() {
        assert!(fits_together(Some(Shape::Retraction), None, None, None).is_err());
        assert!(fits_together(Some(Shape::Retraction), Some("home"), None, None).is_ok());
        assert!(fits_together(None, Some("home"), Some("Porto"), Some("Lisbon")).is_ok());
        assert!(fits_together(None, None, Some("Porto"), Some("Lisbon")).is_err());
        assert!(fits_together(None, Some("home"), None, Some("Lisbon")).is_err());
    }
}
