//! What another fact depends on is a fact of its own. "3DS runs on Tollgate's hosted page; were we
//! to leave Tollgate, we'd build it ourselves" names its upstream by a name, often shortened, and
//! seldom says which slot that name fills. Left as a bare label, the upstream has no value, so no
//! later turn can change it and nothing that depends on it ever cascades. Here such an upstream
//! becomes a root: the fullest name the conversation gave it (this turn first, then earlier user
//! turns, newest first) is its value, on its own thread, and the dependent points at that thread
//! with that value. A later "the last Tollgate batch settled; new auths go through Quayside" is
//! then a change by mention (`frames::change_by_mention`) like any other.

use super::slot::{areas, label, slot_words, thread_by_value};
use super::spans::{value_spans, SpanKind};
use super::text::{sentences, words};
use super::{Authored, KnownThread, PastTurn, Turn};
use crate::model::{DependsOn, Shape};

/// How sure a root read this way is: the name is certain, the slot it fills is not stated.
const ROOT_CONFIDENCE: f64 = 0.6;

/// A name in `text` that holds `token` as one of its words, with the sentence it was said in:
/// the longest such name (the full "Tollgate Payments" over a repeated "Tollgate").
fn named_in<'t>(text: &'t str, token: &str, own: &str) -> Option<(String, &'t str)> {
    let mut best: Option<(String, &str)> = None;
    for s in sentences(text) {
        // A word capitalized only because it opens the sentence names nothing; the dependent's
        // own value is not its upstream.
        for span in value_spans(s).into_iter().filter(|v| v.kind == SpanKind::Name && !v.opens_sentence_alone() && !own.contains(&v.text.to_lowercase())) {
            let holds = words(&span.text).iter().any(|w| w.trim_end_matches("'s") == token);
            if holds && best.as_ref().is_none_or(|(b, _)| span.text.split_whitespace().count() > b.split_whitespace().count()) {
                best = Some((span.text.trim_end_matches("'s").trim_end_matches("’s").to_string(), s));
            }
        }
    }
    best
}

/// The name an upstream label stands for: a label word of at least three letters that the
/// conversation wrote capitalized, in its fullest form.
fn upstream_name<'t>(thread: &str, own: &str, turn: &Turn<'t>, history: &[PastTurn<'t>]) -> Option<(String, &'t str, String)> {
    let tokens: Vec<String> = slot_words(&thread.replace(['-', '/'], " ")).into_iter().filter(|w| w.chars().count() >= 3).collect();
    for token in &tokens {
        // The turn itself, then earlier user turns newest first; the source is the turn it was said in.
        let found = std::iter::once((turn.id, turn.text))
            .chain(history.iter().rev().map(|p| (p.id.as_str(), p.text)))
            .find_map(|(id, text)| named_in(text, token, own).map(|(n, s)| (n, s, id)));
        if let Some((name, sentence, id)) = found {
            return Some((name, sentence, id.to_string()));
        }
    }
    None
}

/// Gives every upstream of `authored` that no thread holds a root: a kept value it names points the
/// dependent at that value's thread; otherwise the name is authored as a value on its own thread.
pub(super) fn materialize(authored: &mut Vec<Authored>, turn: &Turn, known: &[KnownThread], history: &[PastTurn]) {
    let mut roots: Vec<Authored> = Vec::new();
    // Values this same turn put on independent threads ("every pipeline runs on BuildNest"): a name
    // kept there is that thread's value, not a second root beside it.
    let this_turn: Vec<KnownThread> = authored
        .iter()
        .filter(|b| b.depends_on.is_none() && b.shape == Shape::EvolvingAttribute)
        .filter_map(|b| Some(KnownThread { thread: b.thread.clone()?, dependent: false, values: vec![b.value.clone()?], order: usize::MAX }))
        .collect();
    for a in authored.iter_mut() {
        let Some(dep) = a.depends_on.as_ref() else { continue };
        if known.iter().any(|k| k.thread == dep.thread) || roots.iter().any(|r| r.thread.as_deref() == Some(dep.thread.as_str())) {
            continue;
        }
        let own = a.value.as_deref().unwrap_or_default().to_lowercase();
        // The holder's name when one was read ("bundled with Stratus Harbor"), else the label's words.
        let words_of = dep.value.as_deref().map(|v| v.to_lowercase()).unwrap_or_else(|| dep.thread.clone());
        let Some((name, sentence, source)) = upstream_name(&words_of, &own, turn, history) else { continue };
        // The name may be a value already kept under another slot.
        let kept = thread_by_value(&name.to_lowercase(), &this_turn).or_else(|| thread_by_value(&name.to_lowercase(), known));
        if let Some((k, _, v)) = kept.filter(|(k, s, _)| *s >= 0.7 && !k.dependent && a.thread.as_deref() != Some(k.thread.as_str())) {
            a.depends_on = Some(DependsOn { thread: k.thread.clone(), value: Some(v.to_string()) });
            continue;
        }
        let Some(thread) = label(&name) else { continue };
        if a.thread.as_deref() == Some(thread.as_str()) {
            continue;
        }
        a.depends_on = Some(DependsOn { thread: thread.clone(), value: Some(name.clone()) });
        if roots.iter().any(|r| r.thread.as_deref() == Some(thread.as_str())) {
            continue;
        }
        // Its area: what the dependent is about (the root is asked for beside it).
        let area = if a.area.is_empty() { areas(&name, None) } else { a.area.clone() };
        roots.push(Authored {
            content: format!("The user said: \"{}\"", sentence.trim()),
            shape: Shape::EvolvingAttribute,
            thread: Some(thread),
            value: Some(name),
            depends_on: None,
            consequent: None,
            area,
            signature: None,
            confidence: ROOT_CONFIDENCE,
            doubts: vec!["named as what another fact depends on; the slot it fills was not stated".into()],
            event_at: turn.date,
            derived_from: vec![source],
            rule: "root",
            forget: Vec::new(),
        });
    }
    // Roots come first: what depends on them is read after them.
    authored.splice(0..0, roots);
}
