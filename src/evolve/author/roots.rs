//! What another fact depends on is a fact of its own. "3DS runs on Tollgate's hosted page; were we
//! to leave Tollgate, we'd build it ourselves" names its upstream by a name, often shortened, and
//! seldom says which slot that name fills. Left as a bare label, the upstream has no value, so no
//! later turn can change it and nothing that depends on it ever cascades. Here such an upstream
//! becomes a root: the fullest name the conversation gave it (this turn first, then earlier user
//! turns, newest first) is its value, on its own thread, and the dependent points at that thread
//! with that value. A later "the last Tollgate batch settled; new auths go through Quayside" is
//! then a change by mention (`frames::change_by_mention`) like any other.

use super::frames::{is_known_value, replacement_in, same_form};
use super::slot::{areas, label, names_value, slot_words, thread_by_value};
use super::spans::{value_spans, without_possessive, SpanKind, ValueSpan};
use super::text::{sentences, starts_in_lower_case, words};
use super::{Authored, KnownThread, PastTurn, Turn};
use crate::model::{DependsOn, Shape};

/// How sure a root read this way is: the name is certain, the slot it fills is not stated.
const ROOT_CONFIDENCE: f64 = 0.6;
/// How sure a replacement read back this way is: the old name and the ending are said, the new
/// name is chosen by where it stands.
const REPLACED_CONFIDENCE: f64 = 0.55;

/// Words that end a party's part ("the contract with X is finished", "we stopped with X", "closed
/// out X", "X shut its doors", "off X"): a closed class of verbs and particles of ending, not
/// phrasings.
const ENDING: &[&str] = &[
    "finished",
    "ended",
    "ends",
    "cancelled",
    "canceled",
    "cancels",
    "stopped",
    "closed",
    "closing",
    "closes",
    "dropped",
    "quit",
    "left",
    "leaving",
    "leaves",
    "shut",
    "sold",
    "ditched",
    "dumped",
    "fired",
    "terminated",
    "expired",
    "lost",
    "off",
    "notice",
    "replaced",
    "switched",
    "moved",
    "migrated",
    "retired",
    "anymore",
    "longer",
    "revoked",
    "uninstalled",
    "deleted",
    "wiped",
    "removed",
    "redeemed",
    "decommissioned",
    "teardown",
    "lapsed",
    "died",
    "dead",
    "gone",
    "ripped",
    "killed",
    "stop",
    "stops",
    "discontinued",
    "folded",
    "archived",
    "frozen",
    "sunset",
    "deprecated",
    "done",
    "away",
];
/// How many words from the old name an ending word may stand.
const ENDING_REACH: usize = 6;

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
                best = Some((without_possessive(&span.text).to_string(), s));
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

/// A name said in an earlier turn and never kept, whose part this turn ends while it brings in a
/// new name ("the contract with Tarnow is finished … first sacks from Halvik Coffee"): nothing was
/// authored for the old name when it was said (its slot was never stated), so the change has no
/// thread to land on and whatever was said of it never cascades. Read back, the old name (in its
/// fullest form, dated by the turn that said it) becomes a root and the new name its next value.
/// One old name with an ending word near it, and one new name where a slot's value goes; anything
/// less certain authors nothing.
pub(super) fn replaced_unkept(turn: &Turn, known: &[KnownThread], history: &[PastTurn]) -> Vec<Authored> {
    // Most turns end nothing: they are passed over before the history is read.
    let tw = words(turn.text);
    if !ends_any(&tw) {
        return Vec::new();
    }
    let sentences_now = sentences(turn.text);
    if sentences_now.iter().any(|s| s.trim_end().ends_with('?')) {
        return Vec::new();
    }
    // Names said before, fullest form per first word, with where they were said (newest first).
    // Only sentences with a capitalized word this turn also says can hold the old name: the rest
    // are skipped before their spans are read.
    let here: std::collections::HashSet<&str> = tw.iter().map(|w| w.trim_end_matches("'s")).filter(|w| w.chars().count() >= 4).collect();
    let may_name =
        |s: &str| s.split(|c: char| !c.is_alphanumeric() && c != '\'').any(|w| w.chars().next().is_some_and(char::is_uppercase) && here.contains(w.to_lowercase().as_str()));
    let mut said: Vec<(String, &str, &PastTurn)> = Vec::new();
    for p in history.iter().rev() {
        for s in sentences(p.text).into_iter().filter(|s| may_name(s)) {
            for span in value_spans(s).into_iter().filter(|v| v.kind == SpanKind::Name && !v.opens_sentence_alone()) {
                let name = without_possessive(&span.text).to_string();
                let key = name.split_whitespace().next().unwrap_or_default().to_lowercase();
                match said.iter_mut().find(|(n, _, _)| n.split_whitespace().next().unwrap_or_default().eq_ignore_ascii_case(&key)) {
                    Some(e) if name.split_whitespace().count() > e.0.split_whitespace().count() => *e = (name, s, p),
                    Some(_) => {}
                    None => said.push((name, s, p)),
                }
            }
        }
    }
    // Kept: a thread holds this very name (a value that merely shares its first word is another; a
    // value of a few letters is inside too many names to count).
    let kept = |v: &str| {
        let v = v.to_lowercase();
        known.iter().flat_map(|k| &k.values).map(|kv| kv.to_lowercase()).any(|kv| kv.contains(&v) || (kv.chars().count() >= 4 && v.contains(&kv)))
    };
    // The names this turn says, each with its sentence.
    let names_now: Vec<(&str, ValueSpan)> =
        sentences_now.iter().flat_map(|s| value_spans(s).into_iter().filter(|v| v.kind == SpanKind::Name && !v.opens_sentence_alone()).map(move |v| (*s, v))).collect();
    // A writer who capitalizes names names them capitalized: "café" is then a word, not "Café Kormoran".
    let cased = !names_now.is_empty();
    let named = |s: &str, name: &str| {
        names_value(s, name)
            && (!cased || name.split_whitespace().any(|w| w.chars().count() >= 4 && super::text::find_word(s, w.trim_matches(|c: char| !c.is_alphanumeric()), 0).is_some()))
    };
    // Old: said before, named here, not kept, with an ending word near where it is named.
    let ended: Vec<&(String, &str, &PastTurn)> = said
        .iter()
        .filter(|(name, _, _)| name.chars().count() >= 4 && !kept(name))
        .filter(|(name, _, _)| sentences_now.iter().any(|s| named(s, name) && ending_near(s, name)))
        .filter(|(name, _, _)| !only_possessive(turn.text, name))
        .collect();
    let [(old, old_sentence, old_turn)] = ended.as_slice() else { return Vec::new() };
    // New: not kept (it may have been said before, of someone else: it becomes true now), standing
    // where a slot's value goes.
    let fresh: Vec<(&str, &ValueSpan)> =
        names_now.iter().filter(|(_, v)| !names_value(old, &v.text) && !names_value(&v.text, old) && !kept(&v.text)).map(|(s, v)| (*s, v)).collect();
    let Some(i) = replacement_in(&fresh, old) else { return Vec::new() };
    let (new_sentence, new) = fresh[i];
    let Some(thread) = label(old) else { return Vec::new() };
    let area = areas(old, None);
    let area = if area.is_empty() { vec![thread.clone()] } else { area };
    let doubt = "read back from an earlier turn when this one replaced it; the slot it fills was not stated".to_string();
    vec![
        Authored {
            content: format!("The user said: \"{}\"", old_sentence.trim()),
            shape: Shape::EvolvingAttribute,
            thread: Some(thread.clone()),
            value: Some(old.clone()),
            corrects: None,
            depends_on: None,
            consequent: None,
            area: area.clone(),
            signature: None,
            confidence: ROOT_CONFIDENCE,
            doubts: vec![doubt],
            event_at: old_turn.date.or(turn.date),
            derived_from: vec![old_turn.id.clone()],
            rule: "root",
            forget: Vec::new(),
        },
        replaced_by(turn, new_sentence, thread, old, &new.text, area),
    ]
}

/// The change to `new` on `thread`, read when this turn ended `old` (said with that doubt).
fn replaced_by(turn: &Turn, sentence: &str, thread: String, old: &str, new: &str, area: Vec<String>) -> Authored {
    let doubt = format!("{old} was said to end here; {new} was taken as what replaced it");
    change_on(turn, sentence, thread, without_possessive(new), area, REPLACED_CONFIDENCE, doubt)
}

/// A change read from `sentence` of this turn: `value` on `thread`, as sure as `confidence`, with
/// the doubt in words.
pub(super) fn change_on(turn: &Turn, sentence: &str, thread: String, value: &str, area: Vec<String>, confidence: f64, doubt: String) -> Authored {
    Authored {
        content: format!("The user said: \"{}\"", sentence.trim()),
        shape: Shape::EvolvingAttribute,
        thread: Some(thread),
        value: Some(value.to_string()),
        corrects: None,
        depends_on: None,
        consequent: None,
        area,
        signature: None,
        confidence,
        doubts: vec![doubt],
        event_at: turn.date,
        derived_from: vec![turn.id.to_string()],
        rule: "change",
        forget: Vec::new(),
    }
}

/// A kept value this turn ends while it brings in a new name, the two in any of its sentences
/// ("Migrated pipelines to Tidewell Runners over the weekend. Quarrystone account closed."): the
/// change by mention (`frames::change_by_mention`) reads one sentence, and a writer often ends the
/// old in one and starts the new in another. One kept value named with an ending word near it, and
/// one new name where a slot's value goes (`replacement_in`); anything less certain authors nothing.
/// Not when this turn's rules already said something of that thread.
pub(super) fn replaced_kept(turn: &Turn, known: &[KnownThread], authored: &[Authored]) -> Option<Authored> {
    if !ends_any(&words(turn.text)) {
        return None;
    }
    let sentences_now = sentences(turn.text);
    // The one kept value ended here (several: which one the new name replaces is not said).
    let mut ended: Vec<(&KnownThread, String)> = Vec::new();
    for k in known.iter().filter(|k| !k.dependent) {
        let Some(current) = k.values.last().filter(|v| v.chars().count() >= 3) else { continue };
        // A value kept as a phrase ("out through Sendwick's API") is named by the name in it, or
        // by that name's first word ("Sendwick keys are revoked").
        let mut names: Vec<String> = vec![current.clone()];
        for v in value_spans(current).into_iter().filter(|v| v.kind == SpanKind::Name) {
            let first = without_possessive(v.text.split_whitespace().next().unwrap_or_default()).to_string();
            names.extend([v.text.trim_end_matches("'s").to_string(), first].into_iter().filter(|n| n.chars().count() >= 4));
        }
        // "if we ever left Maplewood …" supposes the ending; it does not say it.
        if let Some(named) = names.into_iter().find(|n| sentences_now.iter().any(|s| !super::rules::supposes(s) && names_value(s, n) && ending_near(s, n))) {
            ended.push((k, named));
        }
    }
    let [(thread, old)] = ended.as_slice() else { return None };
    let old = old.as_str();
    if authored.iter().any(|a| a.thread.as_deref() == Some(thread.thread.as_str())) {
        return None;
    }
    // New: a name of the old one's form, said as a statement, that no thread holds. A word opening
    // its sentence is capitalized by grammar, except from a writer who starts the turn in lower
    // case: there it is a name ("review done. Beaconly and Relaymint both demoed").
    let lower_case_writer = starts_in_lower_case(turn.text);
    let fresh: Vec<(&str, ValueSpan)> = sentences_now
        .iter()
        .filter(|s| !s.trim_end().ends_with('?'))
        .flat_map(|s| value_spans(s).into_iter().filter(|v| v.kind == SpanKind::Name && (lower_case_writer || !v.opens_sentence_alone())).map(move |v| (*s, v)))
        .filter(|(_, v)| same_form(old, v) && !names_value(old, &v.text) && !names_value(&v.text, old) && !is_known_value(&v.text, known))
        .collect();
    let placed: Vec<(&str, &ValueSpan)> = fresh.iter().map(|(s, v)| (*s, v)).collect();
    let i = replacement_in(&placed, old)?;
    let (sentence, new) = &fresh[i];
    let area = areas(&thread.thread.replace('-', " "), None);
    let area = if area.is_empty() { vec![thread.thread.clone()] } else { area };
    Some(replaced_by(turn, sentence, thread.thread.clone(), old, &new.text, area))
}

/// Whether every mention of `name`'s first word in `text` carries "'s" ("Priyanka's no longer on
/// the assays"): a person or what belongs to them, the subject of the ending rather than what ended.
fn only_possessive(text: &str, name: &str) -> bool {
    let Some(first) = name.split_whitespace().next().map(|w| w.to_lowercase()) else { return false };
    let lower = text.to_lowercase();
    let mut any = false;
    let mut from = 0;
    while let Some(at) = super::text::find_word(&lower, &first, from) {
        any = true;
        let rest = &lower[at + first.len()..];
        if !(rest.starts_with("'s") || rest.starts_with("’s")) {
            return false;
        }
        from = at + first.len();
    }
    any
}

/// Whether an ending word stands within `ENDING_REACH` words of where `sentence` names `name`
/// ("no longer" counts by its second word).
pub(super) fn ending_near(sentence: &str, name: &str) -> bool {
    let ws = words(sentence);
    let keys: Vec<String> = name.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).filter(|w| w.chars().count() >= 4).collect();
    let at: Vec<usize> = ws.iter().enumerate().filter(|(_, w)| keys.iter().any(|k| w.trim_end_matches("'s") == k)).map(|(i, _)| i).collect();
    (0..ws.len()).any(|i| ending_at(&ws, i) && at.iter().any(|&a| a.abs_diff(i) <= ENDING_REACH))
}

/// Whether any of `ws` (lower-case words) is an ending word: most turns end nothing, and are
/// passed over before anything else is read.
pub(super) fn ends_any(ws: &[String]) -> bool {
    (0..ws.len()).any(|i| ending_at(ws, i))
}

/// Whether the `i`-th of `ws` (lower-case words) is an ending word ("longer" only after "no",
/// "done" only before "with", "away" only before "from").
fn ending_at(ws: &[String], i: usize) -> bool {
    let next = ws.get(i + 1).map(String::as_str);
    ENDING.contains(&ws[i].as_str())
        && match ws[i].as_str() {
            "longer" => i > 0 && ws[i - 1] == "no",
            "done" => next == Some("with"),
            "away" => next == Some("from"),
            _ => true,
        }
}

/// Gives every upstream of `authored` that no thread holds a root: a kept value it names points the
/// dependent at that value's thread; otherwise the name is authored as a value on its own thread.
/// Whether a condition's phrase (a thread label, words joined by "-") names `name` after a
/// preposition ("went-with-hopwell-freight"): joining an alternative, not leaving what holds.
fn joined_alternative(phrase: &str, name: &str) -> bool {
    let ws: Vec<&str> = phrase.split('-').collect();
    let first = name.split_whitespace().next().unwrap_or_default().to_lowercase();
    ws.iter().position(|w| *w == first).is_some_and(|i| i > 0 && ["with", "to", "at", "on", "for", "by", "into"].contains(&ws[i - 1]))
}

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
        // "if we ever went with Hopwell Freight it'd be …": a name the condition joins through a
        // preposition is the alternative, not what holds now; it is no root of anything.
        if a.shape == Shape::ConditionalValue && joined_alternative(&dep.thread, &name) {
            continue;
        }
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
            corrects: None,
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
