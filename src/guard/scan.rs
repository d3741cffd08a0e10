//! The write-path scan: every secret scanner over a text, redaction, and the options applied
//! ([`GuardOptions::apply`]).

use super::*;
use crate::error::{Error, Result};

/// A secret's byte range in the scanned text and its kind (the placeholder's name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finding {
    pub start: usize,
    pub end: usize,
    pub kind: &'static str,
}

/// The findings of one scan, in the order the scanners made them, and the bytes they cover as
/// disjoint spans, so asking whether a span is already claimed costs a lookup rather than a walk
/// over every finding (text dense with candidates makes one finding every few bytes).
#[derive(Debug, Default)]
pub struct Findings {
    list: Vec<Finding>,
    /// Start → end of each maximal run of overlapping findings.
    covered: std::collections::BTreeMap<usize, usize>,
}

impl Findings {
    pub fn push(&mut self, f: Finding) {
        self.list.push(f);
        if f.start >= f.end {
            return;
        }
        // Absorb every covered span that overlaps this one (the last one starting before its end,
        // and so on back while they still reach into it).
        let (mut start, mut end) = (f.start, f.end);
        while let Some((&s, &e)) = self.covered.range(..end).next_back() {
            if e <= start {
                break;
            }
            start = start.min(s);
            end = end.max(e);
            self.covered.remove(&s);
        }
        self.covered.insert(start, end);
    }

    /// Whether `start..end` overlaps a finding already made (the first scanner to claim a span keeps
    /// it). The covered spans are disjoint, so only the last one starting before `end` can reach it.
    pub fn overlaps(&self, start: usize, end: usize) -> bool {
        start < end && self.covered.range(..end).next_back().is_some_and(|(_, &e)| start < e)
    }

    pub fn into_vec(self) -> Vec<Finding> {
        self.list
    }
}

impl std::ops::Deref for Findings {
    type Target = [Finding];
    fn deref(&self) -> &[Finding] {
        &self.list
    }
}

/// `text` lower-cased with every byte where it was, so positions found in it are positions in
/// `text`: fully where that keeps every length (Cyrillic "Пароль"), else ASCII only (Turkish "İ"
/// grows when lower-cased). ASCII text is returned as it is, for callers that compare ignoring
/// ASCII case.
pub(crate) fn lower_in_place(text: &str) -> std::borrow::Cow<'_, str> {
    if text.is_ascii() {
        return text.into();
    }
    let lower = text.to_lowercase();
    if lower.len() == text.len() {
        lower.into()
    } else {
        text.to_ascii_lowercase().into()
    }
}

/// Every secret in `text`, sorted by position, overlaps merged (the earlier finding names them).
pub fn find_secrets(text: &str) -> Vec<Finding> {
    let mut out = Findings::default();
    secrets::find(text, &mut out);
    shapes::find(text, &mut out);
    credentials::find(text, &mut out);
    // A card number has at least 13 digits and an IBAN 2 (its check digits): most text has fewer,
    // and counting them is cheaper than either scan.
    let digits = text.bytes().filter(u8::is_ascii_digit).count();
    if digits >= cards::MIN_DIGITS {
        cards::find(text, &mut out);
    }
    if digits >= 3 {
        cards::codes(text, &mut out);
    }
    if digits >= 2 {
        iban::find(text, &mut out);
    }
    // Every identity number has at least six digits, but a PAN (four, found after its label only).
    if digits >= 6 || (digits >= 4 && text.as_bytes().windows(3).any(|w| w.eq_ignore_ascii_case(b"pan"))) {
        let labelled = ids::Labelled::of(text);
        ids::find_in(text, &labelled, &mut out);
        accounts::find(text, &labelled, &mut out);
    }
    cli::find(text, &mut out);
    password::find(text, &mut out);
    // Last: it reads only texts in which the scanners above found something.
    companions::find(text, &mut out);
    let mut out = out.into_vec();
    out.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut merged: Vec<Finding> = Vec::with_capacity(out.len());
    for f in out {
        match merged.last_mut() {
            Some(last) if f.start < last.end => last.end = last.end.max(f.end),
            _ => merged.push(f),
        }
    }
    merged
}

/// `text` with each finding replaced by `[secret:<kind>]`.
pub fn redact(text: &str, findings: &[Finding]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in findings {
        out.push_str(&text[at..f.start]);
        out.push_str("[secret:");
        out.push_str(f.kind);
        out.push(']');
        at = f.end;
    }
    out.push_str(&text[at..]);
    out
}

/// What the guards made of one text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Guarded {
    /// The text to store: redacted under `redact`, as given otherwise.
    pub text: String,
    /// `secret:<kind>` (secrets kept: `flag`, or `allowSecrets`) and `injection:<kind>` findings.
    pub flags: Vec<String>,
    /// Kinds of the secrets replaced by placeholders.
    pub redacted: Vec<&'static str>,
    /// The store quarantines injection and this text has an instruction-like finding.
    pub quarantine: bool,
}

fn kinds(findings: &[Finding]) -> Vec<&'static str> {
    let mut k: Vec<&'static str> = findings.iter().map(|f| f.kind).collect();
    k.sort_unstable();
    k.dedup();
    k
}

/// Invisible characters alone are stripped from context blocks; they do not quarantine.
fn quarantines(flag: &str) -> bool {
    flag.starts_with("injection:") && !matches!(flag, "injection:invisible" | "injection:bidi")
}

impl GuardOptions {
    /// Applies the secret policy to `text` (a field other than the main content: tags, metadata
    /// values). `what` names it in a rejection. Returns the text to keep and the kinds kept in it.
    pub fn secrets_in(&self, text: &str, allow_secrets: bool, what: &str) -> Result<(String, Vec<&'static str>)> {
        let findings = if self.secrets == SecretPolicy::Off { Vec::new() } else { find_secrets(text) };
        self.secrets_found(text, &findings, allow_secrets, what)
    }

    fn secrets_found(&self, text: &str, findings: &[Finding], allow_secrets: bool, what: &str) -> Result<(String, Vec<&'static str>)> {
        if findings.is_empty() {
            return Ok((text.to_string(), Vec::new()));
        }
        let k = kinds(findings);
        if allow_secrets || self.secrets == SecretPolicy::Flag {
            return Ok((text.to_string(), k));
        }
        if self.secrets == SecretPolicy::Reject {
            return Err(Error::invalid(format!(
                "{what} holds what looks like a secret ({}); this store's guards reject secrets (pass allowSecrets: true to keep it, or remove it)",
                k.join(", ")
            )));
        }
        Ok((redact(text, findings), Vec::new()))
    }

    /// Applies both policies to a record's main text.
    pub fn apply(&self, text: &str, allow_secrets: bool, what: &str) -> Result<Guarded> {
        let findings = if self.secrets == SecretPolicy::Off { Vec::new() } else { find_secrets(text) };
        let (text, kept) = self.secrets_found(text, &findings, allow_secrets, what)?;
        let redacted = if kept.is_empty() { kinds(&findings) } else { Vec::new() };
        let mut flags: Vec<String> = kept.iter().map(|k| format!("secret:{k}")).collect();
        let mut quarantine = false;
        if self.injection != InjectionPolicy::Off {
            for f in injection::find(&text) {
                quarantine |= self.injection == InjectionPolicy::Quarantine && quarantines(f);
                flags.push(f.to_string());
            }
        }
        Ok(Guarded { text, flags, redacted, quarantine })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The covered spans answer exactly what a walk over every finding would, for non-empty findings that
    /// overlap, nest, touch or stand apart, made in any order.
    #[test]
    fn overlap_lookup_matches_a_walk_over_every_finding() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((seed >> 33) % n) as usize
        };
        for _ in 0..200 {
            let mut found = Findings::default();
            for _ in 0..40 {
                // Empty findings claim nothing (no scanner makes one).
                let (s, len) = (next(200), 1 + next(12));
                let (qs, qlen) = (next(200), next(12));
                let walk = found.iter().any(|f| qs < f.end && f.start < qs + qlen);
                assert_eq!(found.overlaps(qs, qs + qlen), walk && qlen > 0, "{qs}..{} against {:?}", qs + qlen, &*found);
                found.push(Finding { start: s, end: s + len, kind: "x" });
            }
            assert_eq!(found.len(), 40);
        }
    }
}
