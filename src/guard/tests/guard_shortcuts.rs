//! The secret guards' shortcuts never drop a finding. `find_secrets` and `secrets::find` decide from
//! one cheap pass over the text which scanners can match (a run of key bytes long enough, enough
//! digits); here every scanner runs unconditionally instead, over the guard corpus and its variants
//! (payloads inside ordinary sentences, case changes, inserted invisible characters, other scripts,
//! cuts), and the findings must be the same.

use super::corpus as guard_corpus;
use super::variants as guard_variants;

use crate::guard::{accounts, cards, companions, credentials, find_secrets, iban, ids, password, secrets, Finding, Findings};

fn texts() -> Vec<String> {
    let payloads: Vec<String> = guard_corpus::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/guards")).into_iter().map(|p| p.text).collect();
    guard_variants::variants(&payloads)
}

/// `secrets::find` without its shortcut: each scanner on the whole text, in its order.
fn every_secret_scanner(text: &str, out: &mut Findings) {
    secrets::private_keys(text, out);
    secrets::prefixed(text, out);
    secrets::jwts(text, out);
    secrets::assigned(text, out);
    secrets::account_tokens(text, out);
    secrets::aws_parts(text, out);
    secrets::labelled_hex(text, out);
    secrets::entra_secrets(text, out);
}

/// `find_secrets` without its shortcuts, merged the way it merges.
fn every_scanner(text: &str) -> Vec<Finding> {
    let mut out = Findings::default();
    every_secret_scanner(text, &mut out);
    credentials::url_passwords(text, &mut out);
    credentials::connection_fields(text, &mut out);
    credentials::url_signatures(text, &mut out);
    cards::find(text, &mut out);
    cards::codes(text, &mut out);
    iban::find(text, &mut out);
    ids::find(text, &mut out);
    accounts::find(text, &ids::Labelled::of(text), &mut out);
    password::find(text, &mut out);
    companions::find_always(text, &mut out);
    let mut out = out.into_vec();
    out.sort_by_key(|f| (f.start, std::cmp::Reverse(f.end)));
    let mut merged: Vec<Finding> = Vec::new();
    for f in out {
        match merged.last_mut() {
            Some(last) if f.start < last.end => last.end = last.end.max(f.end),
            _ => merged.push(f),
        }
    }
    merged
}

#[test]
fn shortcuts_find_what_every_scanner_finds() {
    let texts = texts();
    assert!(texts.len() > 3000, "{} texts", texts.len());
    let mut found = 0;
    for t in &texts {
        let mut direct = Findings::default();
        secrets::find(t, &mut direct);
        let mut every = Findings::default();
        every_secret_scanner(t, &mut every);
        assert_eq!(*direct, *every, "secrets::find on {t:?}");
        let reference = every_scanner(t);
        assert_eq!(find_secrets(t), reference, "find_secrets on {t:?}");
        found += usize::from(!reference.is_empty());
    }
    // The comparison means something only if many texts hold secrets, of every scanner's kinds.
    assert!(found > 1000, "{found} texts with a finding");
    let kinds: std::collections::BTreeSet<&str> = texts.iter().flat_map(|t| every_scanner(t)).map(|f| f.kind).collect();
    for k in ["openai-key", "private-key", "jwt", "api-key", "card-number", "iban", "password"] {
        assert!(kinds.contains(k), "no {k} among the texts: {kinds:?}");
    }
}
