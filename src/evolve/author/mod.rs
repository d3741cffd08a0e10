//! The offline author: explicit English statements in user turns → typed, dated memories, without
//! a language model. Pure functions over text; the engine (`engine/author.rs`) feeds it a session's
//! new turns with the namespace's known threads and stores what it returns.
//!
//! The rule set, over sentences and their clauses (`text`), never over one benchmark's phrasings:
//! - **verbatim keep**: a keep-exactly marker ("exactly", "verbatim", "word for word", "as is", …)
//!   with the phrase after a colon or in quotes → a `stable_fact` whose `signature` is the phrase;
//! - **retraction**: an imperative forget / scratch / erase (or delete / remove / drop aimed at what
//!   Engram keeps: "from memory", "it", "that") → a `retraction` on the thread it names, found by a
//!   value it repeats or by its slot words; the values to scrub are returned beside it;
//! - **change**: "X is now Y", "switched/moved/changed … (from A) to B", "dropped/replaced A for/with
//!   B", "B replaced A", "B took over (as X)", "my new X is B" → the same thread, the new value;
//! - **value**: "my X is Y", "X is on/with/in Y", "X goes to / lives in / comes through Y", "we use Y
//!   for X", "I go to Y for X", "Name is the X" → an `evolving_attribute`;
//! - **dependency**: "A assigned / picked / set B", "since A asked", "set by A", "a new A would …"
//!   → a `contingent_value` with `dependsOn` the thread A lives on and A's value;
//! - **conditional**: "if A changes / with a different A / if we leave A, … would be C" → a
//!   `conditional_value` with `consequent` C (attached to the statement it qualifies, in the same
//!   sentence or the one before; "…, the X will be C" names its own slot);
//! - **apposition and notation**: "My dentist, Dr. Ferreira, …", "the shop we order from, Inkwell
//!   Press, …", "standup room = Larch" → the noun's / the left side's value; a role right before
//!   its name ("their technician Piotr Wasik", "the agency Viajes Albatros") wherever it stands,
//!   depending on the party named before it when the role is theirs (`role_name`);
//! - **a person's slot**: a person is whose slot it is, never the slot ("Noor goes to Larchmont
//!   Elementary" → Noor's school; "… and she's on the Payments squad" → the person the talk is
//!   about, their team) (`person_slot`; which nouns name a person: `people`);
//! - **relation** (last tried): any verb between an owner and a name ("I swim at X", "our team
//!   uses X for chat", "Dad does his physio at X", "Car insurance: X") → an `evolving_attribute`,
//!   the slot from `for` / `as`, a bare noun put before the subject ("Beans we take from X"), the
//!   predicate's other words, or, when nothing else says it, the name's closing noun ("we're at
//!   Calloway Court" → court) (`relation`);
//! - **activity and quantity**: "I've been running 5k loops", "we split the bills 50/50" → a value
//!   on the activity's / object's thread;
//! - **event**: "I bought a fern", "Started a pottery class", "The orchid bloomed" → an `event`
//!   without thread, gathered by its area;
//! - **identifier after its label**: "member id CVH-88213-K", "booking ref: BK-ZT9914" (`labels`),
//!   tried after every frame with a verb.
//!
//! Before the rules read a sentence: a request to keep ("…, jot that down for me?", "note my
//! passport number: X") gives way to what it asks to keep (`keep`); "his / her / their" opening a
//! statement becomes the person the talk is about (`antecedent`); a question ending the sentence is
//! cut off its statement; arrows are spelled out (`text`). A value given with a reason that names a
//! kept value ("… only because we're on Pingfire") depends on that value's thread.
//!
//! After the rules, `roots` reads the whole turn: an upstream nobody holds becomes a root, and a
//! value (kept or only said before) that the turn ends in one sentence while it names a successor
//! in another moves to that successor.
//!
//! A light verb ("drain", "report") counts only before a preposition, so noun phrases such as "the
//! weekly report recipient" stay whole; a retraction never carries the value it retracts (a value
//! named beside it is handed to the engine in `forget`, to be scrubbed).
//!
//! Only user turns are read (an assistant's words are never authored); questions are skipped, and
//! every memory carries a confidence with what it was not sure of (`confidence`).

mod antecedent;
mod confidence;
mod employment;
mod forget;
mod form;
mod frames;
pub mod intent;
mod keep;
mod labels;
mod people;
mod person_slot;
mod realized;
mod relation;
mod role_name;
mod roots;
mod rules;
mod schedule;
mod slot;
pub mod spans;
mod text;

#[cfg(test)]
mod tests;

use crate::model::time::Millis;
use crate::model::{DependsOn, Shape};

pub use rules::asks_to_keep_verbatim;
pub(crate) use rules::conditional_consequent;
pub use slot::is_normalized;
pub(crate) use slot::{names_value, names_value_in};
pub(crate) use text::sentences;

/// One conversation turn as the author reads it.
#[derive(Clone, Debug)]
pub struct Turn<'a> {
    pub id: &'a str,
    pub role: &'a str,
    pub speaker: Option<&'a str>,
    pub date: Option<Millis>,
    pub text: &'a str,
}

/// An earlier user turn of the conversation (what a request to forget may point at).
#[derive(Clone, Debug, PartialEq)]
pub struct PastTurn<'a> {
    pub id: String,
    pub text: &'a str,
    /// When it was said, when known (a root read back from it is dated by it).
    pub date: Option<Millis>,
}

/// A thread the namespace already has, with its values oldest → newest.
#[derive(Clone, Debug, PartialEq)]
pub struct KnownThread {
    pub thread: String,
    /// Whether the thread's latest value depends on another thread (contingent or conditional):
    /// a repeated value is placed on an independent thread first.
    pub dependent: bool,
    pub values: Vec<String>,
    /// Larger is more recent (ties between equally good matches go to the most recent thread).
    pub order: usize,
}

impl KnownThread {
    /// The thread after a memory on it: a retraction empties it, a value said by mistake leaves it
    /// (it was never the thread's, as the derivation reads it), and a value joins it.
    pub fn record(&mut self, retraction: bool, corrects: Option<&str>, value: Option<&str>) {
        if retraction {
            self.values.clear();
        }
        if corrects.is_some_and(|c| self.values.last().is_some_and(|v| crate::evolve::derive::same_value(v, c))) {
            self.values.pop();
        }
        self.values.extend(value.map(str::to_string));
    }
}

/// A memory the rules authored.
#[derive(Clone, Debug, PartialEq)]
pub struct Authored {
    pub content: String,
    pub shape: Shape,
    pub thread: Option<String>,
    pub value: Option<String>,
    /// The thread's value this one corrects: said by mistake, never held.
    pub corrects: Option<String>,
    pub depends_on: Option<DependsOn>,
    pub consequent: Option<String>,
    pub area: Vec<String>,
    pub signature: Option<String>,
    pub confidence: f64,
    /// What the rules were not sure of (empty when sure).
    pub doubts: Vec<String>,
    pub event_at: Option<Millis>,
    pub derived_from: Vec<String>,
    /// Which rule authored it (`value`, `change`, `retraction`, …).
    pub rule: &'static str,
    /// For a retraction: the values to scrub beyond the thread's own (named in the same sentence).
    pub forget: Vec<String>,
}

/// Authors the memories stated in `turns` (in order), given the namespace's known threads. Threads
/// and values authored from earlier turns are known to later ones.
#[cfg(test)]
pub fn author(turns: &[Turn], known: &[KnownThread]) -> Vec<Authored> {
    author_in(turns, known, &[])
}

/// `author` with the conversation's earlier user turns (oldest first), which requests to forget
/// are resolved against when they point at something never authored as a thread.
pub fn author_in<'a>(turns: &[Turn<'a>], known: &[KnownThread], history: &[PastTurn<'a>]) -> Vec<Authored> {
    let mut known: Vec<KnownThread> = known.to_vec();
    let mut history: Vec<PastTurn<'a>> = history.to_vec();
    let mut out: Vec<Authored> = Vec::new();
    for turn in turns {
        if !turn.role.eq_ignore_ascii_case("user") {
            continue;
        }
        let mut authored = rules::turn(turn, &known, &history);
        roots::materialize(&mut authored, turn, &known, &history);
        // A change the rules did not read may end a name no thread holds yet.
        if !authored.iter().any(|a| a.rule == "change" || a.shape == Shape::Retraction) {
            let replaced = roots::replaced_unkept(turn, &known, &history);
            authored.splice(0..0, replaced);
        }
        // A kept value ended in one sentence and its successor named in another.
        if let Some(change) = roots::replaced_kept(turn, &known, &authored) {
            // The same name put on a thread of its own by this turn's rules is this change read
            // from the sentence's other words ("pipelines", "agreement"): it stays only here.
            let new = change.value.clone().unwrap_or_default();
            authored.retain(|a| {
                let fresh_thread = a.thread.as_ref().is_some_and(|t| !known.iter().any(|k| &k.thread == t));
                !(fresh_thread && a.depends_on.is_none() && a.shape == Shape::EvolvingAttribute && a.value.as_deref().is_some_and(|v| names_value(v, &new)))
            });
            authored.push(change);
        } else if !authored.iter().any(|a| a.rule == "change" || a.shape == Shape::Retraction) {
            // An alternative an earlier condition named, now come true.
            authored.extend(realized::realized_alternative(turn, &known, &history, &authored));
        }
        for a in authored.iter_mut().filter(|a| a.rule == "change") {
            if let Some(v) = a.value.as_deref().and_then(|v| fullest_in(turn.text, v)) {
                a.value = Some(v);
            }
        }
        history.push(PastTurn { id: turn.id.to_string(), text: turn.text, date: turn.date });
        for a in authored {
            remember(&mut known, &a);
            out.push(a);
        }
    }
    out
}

/// The fullest form `text` gives a name ("Quayside Pay" for a change read as "… gone through
/// Quayside" when the turn also said "signed with Quayside Pay"): a longer name of the turn that
/// opens with the same words. None when there is none, or several that differ.
fn fullest_in(text: &str, value: &str) -> Option<String> {
    let vw: Vec<&str> = value.split_whitespace().collect();
    if vw.is_empty() || !value.chars().next().is_some_and(char::is_uppercase) {
        return None;
    }
    let mut longer: Vec<String> = text::sentences(text)
        .into_iter()
        .flat_map(spans::value_spans)
        .filter(|s| s.kind == spans::SpanKind::Name)
        .map(|s| spans::without_possessive(&s.text).to_string())
        .filter(|n| {
            let nw: Vec<&str> = n.split_whitespace().collect();
            nw.len() > vw.len() && nw[..vw.len()] == vw[..]
        })
        .collect();
    longer.dedup();
    match longer.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// What an authored memory tells later turns: its value joins its thread's (a retraction empties
/// it), and the thread becomes the most recent.
pub fn remember(known: &mut Vec<KnownThread>, a: &Authored) {
    let Some(t) = &a.thread else { return };
    let next = known.iter().map(|k| k.order + 1).max().unwrap_or(0);
    match known.iter_mut().find(|k| k.thread == *t) {
        Some(k) => {
            k.record(a.shape == Shape::Retraction, a.corrects.as_deref(), a.value.as_deref());
            k.order = next;
            k.dependent = a.depends_on.is_some();
        }
        None => known.push(KnownThread { thread: t.clone(), values: a.value.iter().cloned().collect(), order: next, dependent: a.depends_on.is_some() }),
    }
}

/// The sentences of a user turn with the intent model's features for each, given the known threads
/// (what the model scores; the trainer labels these).
#[cfg(any(test, feature = "internals"))]
pub fn sentence_features(text: &str, known: &[KnownThread]) -> Vec<(String, Vec<u32>)> {
    text::sentences(text).into_iter().map(|s| (s.to_string(), intent::features(s, &rules::hits(s), known))).collect()
}
