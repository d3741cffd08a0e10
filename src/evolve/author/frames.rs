//! Statements read against what is already kept, where the sentence frame alone says too little.
//! Each reads a sentence by the values in it (`spans`) and the known threads, so it holds in any
//! phrasing:
//! - **a change by mention**: a sentence that names a slot already kept (all its label words) or
//!   repeats the slot's current value, and states one new value of the same form (a name for a
//!   name, a code for a code) → the slot's new value ("the renewal fell apart, so we ported every
//!   pipeline to Tessellate CI"; "off Halden, Corvo covers it now"); among several new names, the
//!   one where a slot's value goes (the object of "with", "to", "at" …) and not a titled person;
//! - **a value set by another**: a kept value as the one acting ("BuildNest assigned us a TAM,
//!   Delphine Okafor"; "Larchmont put Noor in Mr. Adebayo's class") → the new value depends on
//!   the thread of the value that set it;
//! - **a correction**: "— actually no, I misspoke, …": what was said before the cue is withdrawn
//!   and what follows takes its slot.

use super::slot::{self, mentions_value};
use super::spans::{value_spans, SpanKind, ValueSpan};
use super::text::{find_word, words};
use super::KnownThread;

/// Verbs by which one party sets a value for the user ("X assigned us Y").
const SETTING: &[&str] = &[
    "assigned",
    "gave",
    "put",
    "placed",
    "set",
    "picked",
    "chose",
    "appointed",
    "named",
    "matched",
    "paired",
    "recommended",
    "referred",
    "sent",
    "allocated",
    "provided",
    "handed",
    "issued",
    "introduced",
    "arranged",
    "booked",
    "hooked",
    "provisioned",
    "sold",
    "gives",
    "hands",
    "puts",
    "assigns",
    "sends",
    "pinned",
];
/// Words that withdraw what was just said.
const CORRECTIONS: &[&str] = &[
    "i misspoke",
    "misspoke",
    "i meant",
    "i mean",
    "no wait",
    "wait no",
    "actually no",
    "no, actually",
    "correction",
    "scratch that",
    "my bad",
    "typo",
    "i wrote that wrong",
    "i got that wrong",
    "misread",
    "mistyped",
    "not quite",
    "rather,",
    "sorry, it's",
    "sorry, its",
];

pub(super) fn same_form(a: &str, b: &ValueSpan) -> bool {
    let a_code = a.chars().any(|c| c.is_ascii_digit());
    let b_code = b.text.chars().any(|c| c.is_ascii_digit());
    a_code == b_code && super::form::compatible(a, &b.text)
}

pub(super) fn is_known_value(v: &str, known: &[KnownThread]) -> bool {
    known.iter().any(|k| k.values.iter().any(|kv| kv.eq_ignore_ascii_case(v) || mentions_value(&v.to_lowercase(), kv).is_some_and(|s| s >= 1.0)))
}

/// A new value for a kept slot, read by mention.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub thread: String,
    pub value: String,
    /// Whether the old value was named (surer than the slot's words alone).
    pub by_old_value: bool,
}

/// The change a sentence makes to a kept slot it names or whose value it repeats, if it states
/// exactly one new value of the slot's form.
pub fn change_by_mention(sentence: &str, known: &[KnownThread]) -> Option<Change> {
    let lower = sentence.to_lowercase();
    let spans: Vec<ValueSpan> = value_spans(sentence).into_iter().filter(|s| s.kind != SpanKind::Quoted && !(s.kind == SpanKind::Name && s.opens_sentence_alone())).collect();
    if spans.is_empty() {
        return None;
    }
    let sw = slot::slot_words(sentence);
    let mut best: Option<(f64, Change)> = None;
    for k in known.iter().filter(|k| !k.dependent) {
        let Some(current) = k.values.last() else { continue };
        let old_named = slot::names_value_in(sentence, &lower, current);
        let label: Vec<&str> = k.thread.rsplit('/').next().unwrap_or(&k.thread).split('-').collect();
        // A one-word slot ("learning", "service") is named in passing too often to move by it.
        let slot_named = label.len() >= 2 && label.iter().all(|w| sw.iter().any(|s| s == w || s.trim_end_matches('s') == w.trim_end_matches('s')));
        if !old_named && !slot_named {
            continue;
        }
        let fresh: Vec<&ValueSpan> = spans
            .iter()
            .filter(|s| same_form(current, s))
            .filter(|s| !is_known_value(&s.text, known))
            .filter(|s| mentions_value(&s.text.to_lowercase(), current).is_none() && mentions_value(&current.to_lowercase(), &s.text).is_none())
            .filter(|s| !current.to_lowercase().contains(&s.text.to_lowercase()))
            .filter(|s| !label.iter().any(|w| s.text.to_lowercase() == *w))
            .collect();
        let Some(new) = replacement(sentence, &fresh, current) else { continue };
        let score = if old_named { 2.0 } else { 1.0 } + k.order as f64 * 1e-6;
        if best.as_ref().is_none_or(|b| score > b.0) {
            best = Some((score, Change { thread: k.thread.clone(), value: new.text.clone(), by_old_value: old_named }));
        }
    }
    best.map(|b| b.1)
}

/// Prepositions whose object is where a slot's value now lies ("signed with X", "moved to X",
/// "started at X"): a party the user goes to, joins or uses.
const TOWARD: &[&str] = &["to", "with", "at", "into", "onto", "in", "for", "via", "through", "from"];
/// Words that may stand between such a preposition and the name ("to a used X", "with the new X").
const BETWEEN: &[&str] = &["a", "an", "the", "our", "my", "new", "used", "brand"];
/// Titles that make a name a person's.
const TITLES: &[&str] = &["mr", "mrs", "ms", "dr", "prof", "mx"];

/// The one new value among several fresh spans of the old value's form. One fresh span is it. With
/// more (people who acted beside the change: "Carmen found another one; we paid Ruta Clara"), the
/// replacement is the one in the place a slot's value takes: the object of a preposition of
/// joining or going, a name of more than one word, not a titled person unless the old value was
/// one. A tie is no answer (a wrong change is worse than none).
fn replacement<'s>(sentence: &str, fresh: &[&'s ValueSpan], old: &str) -> Option<&'s ValueSpan> {
    let placed: Vec<(&str, &ValueSpan)> = fresh.iter().map(|s| (sentence, *s)).collect();
    replacement_in(&placed, old).map(|i| fresh[i])
}

fn titled(name: &str) -> bool {
    name.split(['.', ' ']).next().is_some_and(|w| TITLES.contains(&w.to_lowercase().as_str()))
}

/// How much a span stands where a slot's value goes in its sentence (see `replacement`).
fn slot_position(sentence: &str, s: &ValueSpan, old: &str) -> i32 {
    let before: Vec<String> = words(sentence.get(..s.at).unwrap_or("")).into_iter().rev().skip_while(|w| BETWEEN.contains(&w.as_str())).take(1).collect();
    let object = before.first().is_some_and(|w| TOWARD.contains(&w.as_str()));
    let multi = s.text.split_whitespace().count() > 1;
    let person = titled(&s.text) && !titled(old);
    2 * i32::from(object) + i32::from(multi) - 3 * i32::from(person)
}

/// `replacement` over spans of several sentences (each with its own): the index of the one.
pub fn replacement_in(fresh: &[(&str, &ValueSpan)], old: &str) -> Option<usize> {
    match fresh {
        [] => return None,
        [_] => return Some(0),
        _ => {}
    }
    let scores: Vec<i32> = fresh.iter().map(|(sentence, s)| slot_position(sentence, s, old)).collect();
    let top = *scores.iter().max()?;
    let mut best = scores.iter().enumerate().filter(|(_, s)| **s == top).map(|(i, _)| i);
    let first = best.next()?;
    (top >= 2 && best.next().is_none()).then_some(first)
}

/// A value set by the holder of a kept value.
#[derive(Clone, Debug, PartialEq)]
pub struct SetBy {
    /// The thread of the value that set it.
    pub upstream: String,
    pub upstream_value: String,
    /// The words naming the slot ("named TAM", "class").
    pub slot: String,
    pub value: String,
}

/// "BuildNest assigned us a named TAM, Delphine Okafor": a kept value acting on a new one.
pub fn set_by(sentence: &str, known: &[KnownThread]) -> Option<SetBy> {
    // ASCII lowering keeps byte offsets found in `lower` valid in `sentence`.
    let lower = sentence.to_ascii_lowercase();
    let (verb_at, verb) = SETTING.iter().filter_map(|v| find_word(&lower, v, 0).map(|at| (at, *v))).min()?;
    // The one acting: a kept value named before the verb.
    let before = &lower[..verb_at];
    let kept = known.iter().filter(|k| !k.dependent).find_map(|k| {
        let v = k.values.last()?;
        mentions_value(before, v).filter(|s| *s >= 0.7).map(|_| (k.thread.clone(), v.clone()))
    });
    // Or a name that is the verb's subject ("Brightpath gave us …"): a party the conversation has
    // not kept yet, placed as a root by the caller.
    let named = || {
        let subject = value_spans(sentence.get(..verb_at)?)
            .into_iter()
            .rfind(|s| s.kind == SpanKind::Name && sentence.get(s.at + s.text.len()..verb_at).is_some_and(|gap| gap.trim().is_empty()))?;
        Some((slot::label(&subject.text)?, subject.text))
    };
    let (upstream, kept_value) = kept.or_else(named)?;
    let after = sentence.get(verb_at + verb.len()..)?;
    let clause_end = super::text::sentences(after).first().map_or(after.len(), |first| after.find(first).map_or(after.len(), |i| i + first.len()));
    // A dash or a semicolon opens another statement ("gave us cabin 6 — they only hand it to groups of 4+").
    let clause_end = [" — ", " – ", " - ", "; "].iter().filter_map(|d| after.find(d)).min().map_or(clause_end, |d| d.min(clause_end));
    let after = after.get(..clause_end).unwrap_or(after);
    // The value set is the last name or code of the clause: one before it is who it was set for
    // ("put Noor in Mr. Adebayo's class").
    let candidates: Vec<ValueSpan> = value_spans(after)
        .into_iter()
        .filter(|s| {
            matches!(s.kind, SpanKind::Name | SpanKind::Code | SpanKind::Quoted) && !is_known_value(&s.text, known) && mentions_value(&s.text.to_lowercase(), &kept_value).is_none()
        })
        .collect();
    let new = candidates.last()?.clone();
    // The slot: the noun the value owns ("Mr. Adebayo's class"), else the words between the verb
    // and the value up to a preposition ("us a named TAM back in November").
    let tail = after.get(new.at + new.text.len()..).unwrap_or("");
    let owned = tail.strip_prefix("'s ").or_else(|| tail.strip_prefix("’s ")).and_then(|t| words(t).into_iter().next());
    let between = after.get(..new.at).unwrap_or("");
    let mut slot_words: Vec<String> = Vec::new();
    for w in words(between) {
        if candidates.iter().any(|c| words(&c.text).contains(&w)) {
            continue;
        }
        if !slot_words.is_empty() && ["in", "on", "at", "back", "last", "this", "for", "since", "from", "to", "and", "but", "who", "which", "that"].contains(&w.as_str()) {
            break;
        }
        if !["us", "me", "him", "her", "them", "a", "an", "the", "our", "my", "in", "into", "on", "with", "to", "as"].contains(&w.as_str()) {
            slot_words.push(w);
        }
    }
    let by_owner = owned.is_some();
    let mut slot = match owned {
        Some(noun) => noun,
        None => slot_words.join(" "),
    };
    // "gave us cabin 6": the number is said with the noun it numbers, which is also the slot.
    let mut value = new.text;
    if let Some(noun) = between.split_whitespace().next_back().filter(|_| !by_owner) {
        if let Some(v) = super::labels::numbered(noun, &value) {
            slot = noun.to_ascii_lowercase();
            value = v;
        }
    }
    if slot::slot_words(&slot).is_empty() {
        return None;
    }
    Some(SetBy { upstream, upstream_value: kept_value, slot, value })
}

/// The byte offset just after a correction cue in `text`, if there is one.
pub fn correction_at(text: &str) -> Option<usize> {
    let lower = text.to_ascii_lowercase();
    let listed = CORRECTIONS.iter().filter_map(|c| find_word(&lower, c, 0).map(|at| at + c.len()));
    listed.chain(said_wrong(&lower)).min().filter(|&at| text.is_char_boundary(at))
}

/// Verbs of telling whose object, said "wrong", is withdrawn.
const TOLD: &[&str] = &["typed", "said", "wrote", "gave", "told", "put", "entered", "got", "listed", "quoted"];
/// Words that may follow such a "wrong" and still close it ("I typed the dates wrong earlier").
const WRONG_CLOSERS: &[&str] = &["earlier", "before", "above", "yesterday", "last", "sorry", "oops"];

/// The end of "wrong" in `lower` when a verb of telling stands within the five words before it and
/// "wrong" closes the phrase: "I typed the dates wrong, it's …", "said his name wrong earlier".
/// "You gave me the wrong number" names what was wrong instead; it withdraws nothing the user said.
fn said_wrong(lower: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = find_word(lower, "wrong", from) {
        let end = at + "wrong".len();
        let told = lower[..at].split_whitespace().rev().take(5).any(|w| TOLD.contains(&w));
        let next = lower[end..].trim_start();
        let closes = !next.starts_with(char::is_alphanumeric)
            || WRONG_CLOSERS.iter().any(|c| next.split_whitespace().next().is_some_and(|w| w.trim_end_matches(|c: char| !c.is_alphanumeric()) == *c));
        if told && closes {
            return Some(end);
        }
        from = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(thread: &str, values: &[&str]) -> KnownThread {
        KnownThread { thread: thread.into(), values: values.iter().map(|v| v.to_string()).collect(), order: 0, dependent: false }
    }

    #[test]
    fn a_new_value_for_a_slot_named_or_whose_value_is_repeated() {
        let known = vec![k("every-pipeline", &["BuildNest"]), k("car-insurer", &["Halden Mutual"])];
        let c = change_by_mention("The BuildNest renewal fell apart, so we spent the weekend porting every pipeline to Tessellate CI.", &known).unwrap();
        assert_eq!((c.thread.as_str(), c.value.as_str(), c.by_old_value), ("every-pipeline", "Tessellate CI", true));
        let c = change_by_mention("Off Halden as of Monday, Corvo Insurance has the car.", &known).unwrap();
        assert_eq!((c.thread.as_str(), c.value.as_str()), ("car-insurer", "Corvo Insurance"));
        // Someone else's value of the same shape, with no kept slot or value named: nothing.
        assert_eq!(change_by_mention("The mobile squad runs their builds on Tessellate CI.", &known), None);
        // Two new values: which one is meant is not said.
        assert_eq!(change_by_mention("Halden is out, we're comparing Corvo and Brightline.", &known), None);
        // Several new names: the people who acted beside the change are not its value; the party
        // the user went with is. A name of several words may be repeated by a later word.
        let known = vec![k("courier", &["Northgate Couriers"]), k("climbing-gym", &["The Boulder Loft"])];
        let c = change_by_mention("Northgate lost two parcels and Priya just shrugged; on Monday we signed with Alder Logistics.", &known).unwrap();
        assert_eq!((c.thread.as_str(), c.value.as_str()), ("courier", "Alder Logistics"));
        let c = change_by_mention("Since Boulder doubled its fee, Jonas and I train at Granite Works.", &known).unwrap();
        assert_eq!((c.thread.as_str(), c.value.as_str()), ("climbing-gym", "Granite Works"));
        // A titled person is not where a slot went; two places alike are a tie, and a tie is nothing.
        let c = change_by_mention("Northgate is gone, Mr. Okafor set us up with Brightline.", &known).unwrap();
        assert_eq!(c.value, "Brightline");
        assert_eq!(change_by_mention("Northgate is gone; we ship with Brightline and with Corvo.", &known), None);
        // A generic later word in lower case names nothing.
        assert_eq!(change_by_mention("The boulder upstairs fell, so we met at Granite Works.", &known), None);
    }

    #[test]
    fn a_value_set_by_a_kept_one() {
        let known = vec![k("ci", &["BuildNest"]), k("noor-school", &["Larchmont Elementary"])];
        let s = set_by("BuildNest assigned us a named TAM back in November, Delphine Okafor.", &known).unwrap();
        assert_eq!((s.upstream.as_str(), s.value.as_str()), ("ci", "Delphine Okafor"));
        assert!(s.slot.contains("tam"), "{s:?}");
        let s = set_by("Larchmont put Noor in Mr. Adebayo's class this year.", &known).unwrap();
        assert_eq!((s.upstream.as_str(), s.value.as_str(), s.slot.as_str()), ("noor-school", "Mr. Adebayo", "class"));
        assert_eq!(set_by("My sister assigned me a chore, Alex.", &known), None);
        // A party never kept, named as the verb's subject: the caller places it as a root.
        let s = set_by("Quarrystone Builders gave us a site foreman, Ingrid Holm.", &[]).unwrap();
        assert_eq!((s.upstream.as_str(), s.upstream_value.as_str(), s.value.as_str()), ("quarrystone-builders", "Quarrystone Builders", "Ingrid Holm"));
        assert!(s.slot.contains("foreman"), "{s:?}");
        assert_eq!(set_by("Yesterday my landlord gave us a spare key.", &[]), None);
    }

    #[test]
    fn any_text_in_any_script_reads_without_a_panic() {
        let alphabet: Vec<char> = "aZ09 .,:;—-'’\"`()İıßẞΣσςİ̇éÉ日本ігор€$#@/\n?!".chars().collect();
        let known = vec![k("ci", &["BuildNest"]), k("gym", &["İstanbul Spor"]), k("x", &["ß"])];
        let mut rng = crate::test_rng::Rng::new(41);
        for _ in 0..3000 {
            let mut t = rng.text(&alphabet, 60);
            if rng.below(2) == 0 {
                t = format!("{t} BuildNest assigned us {t} Delphine {t}, actually no, I misspoke {t}");
            }
            let _ = change_by_mention(&t, &known);
            let _ = set_by(&t, &known);
            if let Some(at) = correction_at(&t) {
                let _ = &t[at..];
            }
            let _ = value_spans(&t);
        }
    }

    #[test]
    fn corrections_are_found_after_their_cue() {
        let t = "Our pager goes through Beepwise — actually no, I misspoke, paging is on Sirenhub.";
        let at = correction_at(t).unwrap();
        assert!(t[at..].contains("Sirenhub") && !t[at..].contains("Beepwise"));
        assert_eq!(correction_at("Paging is on Sirenhub."), None);
    }
}
