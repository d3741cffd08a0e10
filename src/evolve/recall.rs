//! One search, read by the shape of its hits: the answers (derived states with evidence) and the
//! `<memory>` block that renders them under a token budget.

use std::cell::OnceCell;
use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::author::sentences;
use super::derive::Derivation;
use super::pick;
use super::render::{label_words, state_line, trail_text, undermined_turn_line};
use super::route::{asks_for_set, asks_for_text, declared, from_shapes, words, Route};
use super::state::{Answer, State};
use crate::engine::{Hit, HitTarget, REDACTED};
use crate::model::{Memory, RawEntry};
use crate::recall::context::{assemble, holds_secret, withhold_unasked_secrets, Context, ContextItem, Section};

/// What `recall` returns.
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "RecallResult"))]
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recall {
    pub route: Route,
    /// Best first; the first is the slot the query is most likely about.
    pub answers: Vec<Answer>,
    #[cfg_attr(test, ts(type = "MemoryContext"))]
    pub context: Context,
}

/// Whether `text` states a withheld value: case-insensitive, on word boundaries (a withheld `5`
/// must not hide every text with a 5 in a longer number or word).
pub(crate) fn contains_withheld(text: &str, withheld: &[String]) -> bool {
    let t = text.to_lowercase();
    withheld.iter().map(|w| w.trim().to_lowercase()).filter(|w| !w.is_empty()).any(|w| {
        t.match_indices(&w).any(|(i, _)| {
            let before = t[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
            let after = t[i + w.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
            before && after
        })
    })
}

pub(crate) fn answer_leaks(a: &Answer, withheld: &[String]) -> bool {
    [&a.value, &a.previous, &a.content, &a.consequent].into_iter().flatten().any(|t| contains_withheld(t, withheld))
        || a.because.as_ref().is_some_and(|b| [&b.was, &b.now].into_iter().flatten().any(|t| contains_withheld(t, withheld)))
        || a.replaced_by.as_ref().is_some_and(|r| contains_withheld(&r.value, withheld))
}

/// Share of a label's words that the query names (light plural folding).
fn label_match(label: &str, query_words: &HashSet<String>) -> f64 {
    let fold = |w: &str| w.strip_suffix('s').filter(|s| s.len() > 2).unwrap_or(w).to_string();
    let lw: Vec<String> = words(&label.replace('/', " ")).iter().map(|w| fold(w)).collect();
    if lw.is_empty() {
        return 0.0;
    }
    let q: HashSet<String> = query_words.iter().map(|w| fold(w)).collect();
    lw.iter().filter(|w| q.contains(*w)).count() as f64 / lw.len() as f64
}

/// Memory hits best first, with the memories citing raw hits credited with those hits' scores.
fn ranked_memories<'m>(hits: &[Hit], d: &Derivation<'m>) -> Vec<(&'m Memory, f64)> {
    let mut best: BTreeMap<&str, f64> = BTreeMap::new();
    for h in hits.iter().filter(|h| h.expanded_from.is_none()) {
        match &h.target {
            HitTarget::Memory(m) => {
                let s = best.entry(m.id.as_str()).or_default();
                *s = s.max(h.score);
            }
            HitTarget::Raw(r) => {
                for m in d.memories().filter(|m| m.derived_from.contains(&r.id)) {
                    // A memory cited by a matching turn is nearly as good as a direct hit.
                    let s = best.entry(m.id.as_str()).or_default();
                    *s = s.max(h.score * 0.9);
                }
            }
        }
    }
    let mut out: Vec<(&'m Memory, f64)> = d.memories().filter_map(|m| best.get(m.id.as_str()).map(|s| (m, *s))).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.id.cmp(&b.0.id)));
    out
}

/// Threads ranked for the query: by their best memory's score plus how much of their label the
/// query names (a slot is often asked for by its name); threads no hit reached come in by name alone.
fn ranked_threads(ranked: &[(&Memory, f64)], d: &Derivation, query: &str) -> Vec<(String, f64)> {
    let qw: HashSet<String> = words(query).into_iter().collect();
    let mut score: BTreeMap<String, f64> = BTreeMap::new();
    for (m, s) in ranked {
        if let Some(t) = &m.thread {
            let e = score.entry(t.clone()).or_default();
            *e = e.max(*s);
        }
    }
    for t in d.thread_labels() {
        let lm = label_match(t, &qw);
        if lm > 0.0 {
            *score.entry(t.to_string()).or_default() += 0.25 * lm;
        }
    }
    let mut out: Vec<(String, f64)> = score.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// A verbatim turn as a context entry: its words, date, speaker (or role) and flags.
fn turn_item(r: &RawEntry, section: Section) -> ContextItem {
    ContextItem { id: r.id.clone(), section, text: r.content.clone(), date: Some(r.event_time()), speaker: r.speaker.clone().or(Some(r.role.clone())), flags: r.flags.clone() }
}

/// A turn as an answer: on no thread, its own words; current as far as anything authored says, or
/// deleted where the question meets a value withdrawn from it (`withdrawn_where_asked`).
pub(super) fn said(r: &RawEntry, terms: &HashSet<String>) -> Answer {
    Answer {
        thread: None,
        state: if withdrawn_where_asked(&r.content, terms) { State::Deleted } else { State::Current },
        value: None,
        previous: None,
        since: Some(r.event_time()),
        replaced_by: None,
        because: None,
        consequent: None,
        evidence: vec![r.id.clone()],
        content: Some(r.content.clone()),
    }
}

/// The line a user turn reads as when it was said under a value that has changed since (see
/// `Derivation::undermined_by_mention`): what every read shows in place of the turn as said.
pub(crate) fn said_under_changed(r: &RawEntry, d: &Derivation) -> Option<String> {
    if !r.role.eq_ignore_ascii_case("user") {
        return None;
    }
    let a = d.undermined_by_mention(said(r, &HashSet::new()), &r.content);
    undermined_turn_line(&a, r.event_time())
}

/// Whether the part of a turn the query is about had its value withdrawn at the user's request: a
/// sentence holding the redaction mark names at least one query term, and no other sentence of the
/// turn names more ("the private mobile of my landlord: [retracted]" for "what is my landlord's
/// private mobile?"; not for a question about another fact the same turn stated).
fn withdrawn_where_asked(text: &str, terms: &HashSet<String>) -> bool {
    if !text.contains(REDACTED) {
        return false;
    }
    let sentences = sentences(text);
    let with_mark = sentences.iter().filter(|s| s.contains(REDACTED)).map(|s| coverage(s, terms)).max().unwrap_or(0);
    let without = sentences.iter().filter(|s| !s.contains(REDACTED)).map(|s| coverage(s, terms)).max().unwrap_or(0);
    // One shared word is the subject more often than the slot ("biscuit's chip" withdrawn, "biscuit's
    // clinic" asked): the marked sentence must meet two of the question's words when it has two.
    with_mark >= terms.len().clamp(1, 2) && with_mark >= without
}

fn item(id: &str, section: Section, text: String, date: Option<i64>) -> ContextItem {
    // A derived line is written by the engine from typed fields; the assembler still strips invisible
    // characters from it like any entry.
    ContextItem { id: id.to_string(), section, text, date, speaker: None, flags: Vec::new() }
}

/// Reads `hits` (one search for `query`, already limited to the cutoff) through the derivation.
/// `nearest` holds the turns nearest the query by meaning alone, however far (a vector search,
/// limited to the cutoff; empty without vectors).
pub fn read(query: &str, hits: &[Hit], nearest: &[Hit], d: &Derivation, max_tokens: usize) -> Recall {
    let withheld = d.withheld();
    let ranked = ranked_memories(hits, d);
    // A kept text is a hit for the words it shares, but it answers only a question for a text.
    let top: Vec<&Memory> = ranked.iter().map(|(m, _)| *m).filter(|m| m.signature.is_none() || asks_for_text(query, m)).take(5).collect();
    // A question for a set is answered by an area, when the best hit belongs to one.
    let set = || asks_for_set(query) && top.first().is_some_and(|m| !m.area.is_empty() && m.depends_on.is_none()) && top.first().is_some_and(|m| m.signature.is_none());
    let route = declared(query).or_else(|| set().then_some(Route::Gather)).unwrap_or_else(|| from_shapes(&top));
    let mut answers: Vec<Answer> = Vec::new();
    let mut items: Vec<ContextItem> = Vec::new();
    let terms = content_terms(query);
    let route = match route {
        Route::Exact => exact(hits, &ranked, d, &terms, &mut answers, &mut items),
        Route::Gather => gather_route(query, &ranked, d, &mut answers, &mut items),
        Route::Trail => trail_route(query, &ranked, d, &mut answers, &mut items),
        Route::Search => Route::Search,
    };
    let sources = Sources::new(d);
    if route == Route::Search {
        search_route(hits, &terms, d, &sources, &mut answers, &mut items);
    } else if route != Route::Exact || declared(query).is_none() {
        // A route read from the hits' shapes may have read them wrong: the best turns no memory
        // was authored from still follow, as dated conversation.
        // A question about the past ("over time", "so far") may read the turns of stale values too.
        uncited_turns(hits, &terms, &sources, declared(query) == Some(Route::Trail), &mut items);
    }
    nearest_turns(nearest, &sources, &mut items);
    if route == Route::Trail {
        later_word_first(hits, &terms, d, &sources, &mut answers);
        unnamed_slot_after_turn(query, hits, &terms, &sources, &mut answers);
    }
    // A question about what holds now: the lead is chosen among the slots and the user's turns.
    if declared(query).is_none() && matches!(route, Route::Trail | Route::Search) && answers.first().is_none_or(|a| a.state == State::Current) {
        let candidates = pick::candidates(query, hits, &terms, &sources, &answers);
        pick::lead(candidates, &mut answers);
    }
    // What a turn said of a kept name holds while that name does: the lead, when it is such a
    // turn, is read against the changes since and, when undermined, says so first in the block.
    if let Some(first) = answers.first_mut().filter(|a| a.thread.is_none() && a.state == State::Current) {
        let stated = first.since;
        if let (Some(text), Some(stated)) = (first.content.clone(), stated) {
            *first = d.undermined_by_mention(first.clone(), &text);
            if let Some(line) = undermined_turn_line(first, stated) {
                items.insert(0, item(first.evidence.first().map(String::as_str).unwrap_or_default(), Section::State, line, first.since));
            }
        }
    }
    // Nothing withdrawn leaves through any door: not an answer, not a quoted turn.
    answers.retain(|a| !answer_leaks(a, &withheld));
    items.retain(|i| !contains_withheld(&i.text, &withheld));
    keep_secrets_to_their_question(query, &mut answers, &mut items, d);
    Recall { route, answers, context: assemble(items, max_tokens) }
}

/// The guards' flags of every thread that has any, gathered in one pass (flags are rare: most
/// threads have none, and a recall reads this for each derived entry).
pub(crate) struct ThreadFlags<'m>(BTreeMap<&'m str, Vec<String>>);

impl<'m> ThreadFlags<'m> {
    pub(crate) fn of(d: &Derivation<'m>) -> Self {
        let mut out: BTreeMap<&'m str, Vec<String>> = BTreeMap::new();
        for m in d.memories().filter(|m| !m.flags.is_empty()) {
            if let Some(t) = &m.thread {
                let f = out.entry(t.as_str()).or_default();
                f.extend(m.flags.iter().cloned());
                f.sort();
                f.dedup();
            }
        }
        ThreadFlags(out)
    }

    /// A derived entry carries the flags of what it shows: a state line shows every value of its
    /// thread, so it carries the flags of every memory on it.
    pub(crate) fn shown(&self, m: &Memory) -> Vec<String> {
        match &m.thread {
            Some(t) => self.0.get(t.as_str()).cloned().unwrap_or_default(),
            None => m.flags.clone(),
        }
    }
}

/// What a query asks for, as ids: the records `first` names and, for those that are a slot's
/// memory or a turn a slot was authored from, every memory of that slot and the turns they were
/// authored from (three passes over the memories, however many records are named), and every
/// slot whose label the query names in full.
pub(crate) fn asked_ids<'m>(first: &[&str], query: &str, d: &Derivation<'m>) -> HashSet<String> {
    let mut asked: HashSet<String> = first.iter().map(|id| id.to_string()).collect();
    let named = |m: &Memory| asked.contains(&m.id) || m.derived_from.iter().any(|t| asked.contains(t));
    let mut threads: HashSet<&str> = d.memories().filter(|m| named(m)).filter_map(|m| m.thread.as_deref()).collect();
    // A slot the query names in full is asked for, whatever answers first: a newer turn that holds
    // only the slot's placeholder may lead, and must not withhold the value it stands for.
    let query_words = words(query);
    let mut looked: HashSet<&str> = HashSet::new();
    for t in d.memories().filter_map(|m| m.thread.as_deref()) {
        if looked.insert(t) {
            let label = words(t.rsplit('/').next().unwrap_or(t));
            if !label.is_empty() && label.iter().all(|w| query_words.contains(w)) {
                threads.insert(t);
            }
        }
    }
    if !threads.is_empty() {
        for m in d.memories().filter(|m| m.thread.as_deref().is_some_and(|t| threads.contains(t))) {
            asked.insert(m.id.clone());
            asked.extend(m.derived_from.iter().cloned());
        }
    }
    asked
}

/// Kept secrets (`secrets: "flag"`, `allowSecrets`) answer only the question that asks for them:
/// the first answer's slot shows its value; any other entry or answer holding one is withheld.
fn keep_secrets_to_their_question(query: &str, answers: &mut Vec<Answer>, items: &mut [ContextItem], d: &Derivation) {
    let flags = ThreadFlags::of(d);
    // Only the memories behind the entries and answers are looked up (one pass, not a map of all).
    let wanted: HashSet<&str> = items.iter().map(|i| i.id.as_str()).chain(answers.iter().flat_map(|a| a.evidence.iter().map(String::as_str))).collect();
    let by_id: BTreeMap<&str, &Memory> = d.memories().filter(|m| wanted.contains(m.id.as_str())).map(|m| (m.id.as_str(), m)).collect();
    for i in items.iter_mut() {
        if let Some(m) = by_id.get(i.id.as_str()) {
            i.flags = flags.shown(m);
        }
    }
    let first: Vec<&str> = answers.first().map(|a| a.evidence.iter().map(String::as_str).collect()).unwrap_or_default();
    let asked = asked_ids(&first, query, d);
    withhold_unasked_secrets(items, &asked);
    let secret = |id: &String| !asked.contains(id) && by_id.get(id.as_str()).is_some_and(|m| holds_secret(&flags.shown(m)));
    let mut first = true;
    answers.retain(|a| std::mem::replace(&mut first, false) || !a.evidence.iter().any(secret));
}

fn exact(hits: &[Hit], ranked: &[(&Memory, f64)], d: &Derivation, terms: &HashSet<String>, answers: &mut Vec<Answer>, items: &mut Vec<ContextItem>) -> Route {
    // An evolving slot asked for "exactly" is still read in its derived state first: the verbatim
    // turns below may state values it has since replaced.
    if let Some((m, _)) = ranked.first().filter(|(m, _)| m.signature.is_none()) {
        if let Some(tr) = m.thread.as_deref().and_then(|t| d.trail(t)) {
            if let Some(head) = tr.head.clone() {
                items.push(item(head.evidence.first().unwrap_or(&m.id), Section::State, trail_text(&tr), head.since));
                answers.push(head);
            }
        }
    }
    for (m, _) in ranked.iter().filter(|(m, _)| m.signature.is_some()).take(3) {
        let Some(mut a) = d.answer_for(m) else { continue };
        if a.state == State::Deleted {
            answers.push(a);
            continue;
        }
        let sig = m.signature.clone().unwrap_or_default();
        a.value = Some(sig.clone());
        items.push(item(&m.id, Section::Verbatim, sig, Some(m.event_time())));
        answers.push(a);
    }
    // The turns themselves, untouched: the phrase as it was said.
    for h in hits.iter().filter(|h| h.expanded_from.is_none()) {
        if let HitTarget::Raw(r) = &h.target {
            if items.iter().filter(|i| i.section == Section::Verbatim).count() >= 3 {
                break;
            }
            items.push(turn_item(r, Section::Verbatim));
            if answers.is_empty() {
                answers.push(said(r, terms));
            }
        }
    }
    if items.is_empty() && answers.is_empty() {
        return Route::Search;
    }
    Route::Exact
}

/// Everything of `area`, one answer per slot (the slot's state now), oldest first.
pub fn gather_area(area: &str, d: &Derivation) -> Vec<(Answer, String)> {
    let mut out: Vec<(Answer, String)> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut members: Vec<&Memory> = d.memories().filter(|m| m.area.iter().any(|a| a == area)).collect();
    members.sort_by(|a, b| a.event_time().cmp(&b.event_time()).then(a.created_at.cmp(&b.created_at)));
    for m in members {
        match &m.thread {
            Some(t) => {
                if !seen.insert(t.clone()) {
                    continue;
                }
                if let Some(tr) = d.trail(t) {
                    if let Some(h) = tr.head.clone() {
                        out.push((h, tr.members.first().cloned().unwrap_or_default()));
                    }
                }
            }
            None => {
                if let Some(a) = d.answer_for(m) {
                    out.push((a, m.id.clone()));
                }
            }
        }
    }
    out
}

fn gather_route(query: &str, ranked: &[(&Memory, f64)], d: &Derivation, answers: &mut Vec<Answer>, items: &mut Vec<ContextItem>) -> Route {
    // The area the best hits share most, weighted by score; an area the query names counts as a
    // strong hit (a topic is often asked for by its name, in words no member uses).
    let mut weight: BTreeMap<&str, f64> = BTreeMap::new();
    for (m, s) in ranked.iter().take(8) {
        for a in &m.area {
            *weight.entry(a.as_str()).or_default() += s;
        }
    }
    let qw: HashSet<String> = words(query).into_iter().collect();
    let areas: std::collections::BTreeSet<&str> = d.memories().flat_map(|m| m.area.iter().map(String::as_str)).collect();
    for a in areas {
        let named = label_match(a, &qw);
        if named > 0.0 {
            *weight.entry(a).or_default() += named;
        }
    }
    let Some((area, _)) = weight.into_iter().max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(a.0))) else { return Route::Search };
    // What the query hit leads (its first answer is the slot asked about); the rest of the area
    // follows in date order.
    let rank = |a: &Answer| ranked.iter().position(|(m, _)| a.evidence.contains(&m.id)).unwrap_or(usize::MAX);
    let mut members = gather_area(area, d);
    members.sort_by_key(|(a, _)| rank(a));
    for (a, id) in members {
        let text = format!("[{}] {}", label_words(area), answer_text(&a));
        items.push(item(a.evidence.first().unwrap_or(&id), Section::Gathered, text, a.since));
        answers.push(a);
    }
    Route::Gather
}

/// An answer as one line: the slot's state, or a memory's own text when it is on no thread.
fn answer_text(a: &Answer) -> String {
    match (&a.thread, a.state, &a.content) {
        (None, State::Current, Some(c)) => c.clone(),
        _ => state_line(a),
    }
}

fn trail_route(query: &str, ranked: &[(&Memory, f64)], d: &Derivation, answers: &mut Vec<Answer>, items: &mut Vec<ContextItem>) -> Route {
    let threads = ranked_threads(ranked, d, query);
    for (t, _) in threads.iter().take(4) {
        let Some(tr) = d.trail(t) else { continue };
        let Some(head) = tr.head.clone() else { continue };
        let id = head.evidence.first().cloned().unwrap_or_else(|| t.clone());
        items.push(item(&id, Section::State, trail_text(&tr), head.since));
        answers.push(head);
    }
    // Memories on no thread that the query hit, after the slots (their own state).
    for (m, _) in ranked.iter().filter(|(m, _)| m.thread.is_none()).take(3) {
        if let Some(a) = d.answer_for(m) {
            items.push(item(&m.id, Section::Knowledge, answer_text(&a), a.since));
            answers.push(a);
        }
    }
    if answers.is_empty() {
        return Route::Search;
    }
    Route::Trail
}

/// The query's own terms, as the keyword index reads them (function words dropped): a turn sharing
/// none of them matched through its neighbours or its session, not by its own words.
fn content_terms(query: &str) -> HashSet<String> {
    crate::index::KeywordQuery::parse(query).terms().map(str::to_string).collect()
}

/// Whether a turn matched by its own words (a vector close enough counts too): the ones that came
/// only by a neighbour's or their session's match ("Noted.") add nothing to a context block.
pub(super) fn matches_itself(h: &Hit, query_terms: &HashSet<String>) -> bool {
    if h.explain.as_ref().and_then(|b| b.vector).is_some_and(|v| v >= OWN_VECTOR_MIN) {
        return true;
    }
    let mut hit = false;
    crate::index::tokenize::for_each_term(h.content(), |t| hit |= query_terms.contains(t));
    hit
}

/// How many of `terms` a text names.
pub(super) fn coverage(text: &str, terms: &HashSet<String>) -> usize {
    let mut seen: HashSet<&str> = HashSet::new();
    crate::index::tokenize::for_each_term(text, |t| {
        if let Some(k) = terms.get(t) {
            seen.insert(k.as_str());
        }
    });
    seen.len()
}

/// A slot's value was authored on a date; a user turn said after it, never authored, that names
/// as much of the question as the slot's memory does, may be a change the author did not read. The
/// later words lead: the newest statement on the topic is the better guess at what holds now.
fn later_word_first(hits: &[Hit], terms: &HashSet<String>, d: &Derivation, sources: &Sources, answers: &mut Vec<Answer>) {
    let Some(first) = answers.first() else { return };
    if first.state != State::Current || first.thread.is_none() {
        return;
    }
    let since = first.since.unwrap_or(i64::MIN);
    let own = coverage(first.content.as_deref().unwrap_or_default(), terms).max(1);
    let cited: HashSet<&str> = d.memories().flat_map(|m| m.derived_from.iter().map(String::as_str)).collect();
    let later = hits
        .iter()
        .filter(|h| h.expanded_from.is_none() && matches_itself(h, terms))
        .filter_map(|h| h.raw())
        .filter(|r| !cited.contains(r.id.as_str()) && r.event_time() > since && sources.may_answer(r))
        .map(|r| (coverage(&r.content, terms), r))
        .filter(|(c, _)| *c >= own)
        .max_by_key(|(c, r)| (*c, r.event_time()));
    if let Some((_, r)) = later {
        answers.insert(0, said(r, terms));
    }
}

/// What the derivation says of the turns memories were authored from, each set read at most once
/// per recall (every one is a pass over the namespace's memories).
pub(super) struct Sources<'d, 'm> {
    d: &'d Derivation<'m>,
    stale: OnceCell<HashSet<&'m str>>,
    verbatim: OnceCell<HashSet<&'m str>>,
}

impl<'d, 'm> Sources<'d, 'm> {
    fn new(d: &'d Derivation<'m>) -> Self {
        Sources { d, stale: OnceCell::new(), verbatim: OnceCell::new() }
    }

    /// The turns a memory no longer current was authored from: quoting them would contradict the
    /// derived state. The sources of current values may be quoted (the author may have read only
    /// part of what they say).
    pub(super) fn stale(&self) -> &HashSet<&'m str> {
        let d = self.d;
        self.stale
            .get_or_init(|| d.memories().filter(|m| d.answer_for(m).is_none_or(|a| a.state != State::Current)).flat_map(|m| m.derived_from.iter().map(String::as_str)).collect())
    }

    /// Whether a turn was kept as a verbatim phrase (a code, a command, a note to copy): an artifact
    /// to hand back when asked for, not a statement that answers what holds now about a slot.
    fn kept_verbatim(&self, r: &RawEntry) -> bool {
        let d = self.d;
        let kept = self.verbatim.get_or_init(|| d.memories().filter(|m| m.signature.is_some()).flat_map(|m| m.derived_from.iter().map(String::as_str)).collect());
        kept.contains(r.id.as_str()) || crate::evolve::author::asks_to_keep_verbatim(&r.content)
    }

    /// Whether a user turn may stand as an answer: it states something (a lone question asks), and
    /// it is not a phrase kept to be handed back verbatim.
    pub(super) fn may_answer(&self, r: &RawEntry) -> bool {
        r.role.eq_ignore_ascii_case("user") && !only_asks(r) && !self.kept_verbatim(r)
    }
}

/// A turn that is one question and nothing else: it asks, it states nothing to remember.
fn only_asks(r: &RawEntry) -> bool {
    let text = r.content.trim();
    text.ends_with('?') && !text[..text.len() - 1].contains(['.', '!', '?', '\n'])
}

/// A slot the query does not name (none of its label's words) was reached through its memory's
/// other words, often an author frame cut from a longer sentence; the best user turn that matched
/// by its own words is the better first answer, the slot follows.
fn unnamed_slot_after_turn(query: &str, hits: &[Hit], terms: &HashSet<String>, sources: &Sources, answers: &mut Vec<Answer>) {
    let Some(first) = answers.first() else { return };
    let Some(thread) = first.thread.as_deref() else { return };
    // A derived state (deleted, cascaded, uncertain) is what the reader must see first.
    if first.state != State::Current {
        return;
    }
    let qw: HashSet<String> = words(query).into_iter().collect();
    if label_match(thread, &qw) > 0.0 {
        return;
    }
    let stale = sources.stale();
    let turn = hits
        .iter()
        .filter(|h| h.expanded_from.is_none() && matches_itself(h, terms))
        .filter_map(|h| h.raw())
        .find(|r| !stale.contains(r.id.as_str()) && !first.evidence.contains(&r.id) && sources.may_answer(r));
    if let Some(r) = turn {
        answers.insert(0, said(r, terms));
    }
}

/// Cosine at which a turn counts as about the query without a shared word.
const OWN_VECTOR_MIN: f64 = 0.45;

/// How many uncited turns follow the derived entries (the budget decides how many fit).
const UNCITED_TURNS: usize = 5;

/// After the derived entries, the best matching turns that no memory was authored from: what was
/// said but never authored still reaches the reader, as dated conversation. Turns a memory cites are
/// left out: their facts are shown in their derived state, and a quoted stale turn could contradict it.
fn uncited_turns(hits: &[Hit], terms: &HashSet<String>, sources: &Sources, history_asked: bool, items: &mut Vec<ContextItem>) {
    let none = HashSet::new();
    let cited = if history_asked { &none } else { sources.stale() };
    let shown: HashSet<String> = items.iter().map(|i| i.id.clone()).collect();
    let turns = hits
        .iter()
        .filter(|h| h.expanded_from.is_none() && matches_itself(h, terms))
        .filter_map(|h| h.raw())
        .filter(|r| !cited.contains(r.id.as_str()) && !shown.contains(&r.id) && !only_asks(r));
    for r in turns.take(UNCITED_TURNS) {
        items.push(turn_item(r, Section::Conversation));
    }
}

/// How many turns nearest the query by meaning may follow the block (the budget decides how many
/// fit).
const NEAREST_TURNS: usize = 30;

/// After everything else, the user turns nearest the query by meaning, whatever their cosine. A
/// small embedder puts most related turns below the cosine that counts as a match on its own
/// (`OWN_VECTOR_MIN`), yet above the rest of the conversation: the members of a set stated one by
/// one ("I'm on bass", "found a melodica" for "what instruments do I play?"), a value said in other
/// words. The budget left after the derived entries and the word matches is theirs; turns of stale
/// values stay out, as everywhere.
fn nearest_turns(nearest: &[Hit], sources: &Sources, items: &mut Vec<ContextItem>) {
    let stale = sources.stale();
    let shown: HashSet<String> = items.iter().map(|i| i.id.clone()).collect();
    let turns = nearest.iter().filter_map(|h| h.raw()).filter(|r| !stale.contains(r.id.as_str()) && !shown.contains(&r.id) && sources.may_answer(r));
    for r in turns.take(NEAREST_TURNS) {
        items.push(turn_item(r, Section::Conversation));
    }
}

fn search_route(hits: &[Hit], terms: &HashSet<String>, d: &Derivation, sources: &Sources, answers: &mut Vec<Answer>, items: &mut Vec<ContextItem>) {
    let mut seen_threads: HashSet<String> = HashSet::new();
    let cited: HashSet<&str> = hits.iter().filter_map(|h| h.memory()).flat_map(|m| m.derived_from.iter().map(String::as_str)).collect();
    for h in hits {
        match &h.target {
            HitTarget::Memory(m) => {
                if let Some(t) = &m.thread {
                    if !seen_threads.insert(t.clone()) {
                        continue;
                    }
                    if let Some(tr) = d.trail(t) {
                        if let Some(head) = tr.head.clone() {
                            items.push(item(&m.id, Section::State, trail_text(&tr), head.since));
                            answers.push(head);
                        }
                    }
                    continue;
                }
                if let Some(a) = d.answer_for(m) {
                    items.push(item(&m.id, Section::Knowledge, answer_text(&a), a.since));
                    answers.push(a);
                }
            }
            HitTarget::Raw(r) => {
                if cited.contains(r.id.as_str()) || !matches_itself(h, terms) {
                    continue;
                }
                // With nothing authored on the topic, the best user turn is the answer: what was
                // said, as said (an assistant's words are never taken as the user's facts).
                if answers.is_empty() && sources.may_answer(r) {
                    answers.push(said(r, terms));
                }
                items.push(turn_item(r, Section::Conversation));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{contains_withheld, content_terms, withdrawn_where_asked};

    #[test]
    fn a_turn_answers_as_withdrawn_only_where_the_question_meets_the_redaction() {
        let turn = "For emergencies the building manager's cell is [retracted]. The laundry room opens at 7.";
        assert!(withdrawn_where_asked(turn, &content_terms("What is the building manager's cell?")));
        assert!(!withdrawn_where_asked(turn, &content_terms("When does the laundry room open?")));
        assert!(!withdrawn_where_asked("The laundry room opens at 7.", &content_terms("When does the laundry room open?")));
        // An abbreviation's dot does not end the sentence that holds the mark.
        let landlord = "Mr. Okafor is the landlord and his number is [retracted]. The rent is due on the 1st.";
        assert!(withdrawn_where_asked(landlord, &content_terms("What is Mr. Okafor the landlord's number?")));
        // The subject alone is shared with the marked sentence: another slot of it is asked.
        let pet = "Biscuit's chip number is [retracted]. We moved him to Elm Street Vets.";
        assert!(!withdrawn_where_asked(pet, &content_terms("Which vet clinic is Biscuit registered at?")));
    }

    #[test]
    fn withheld_values_match_case_insensitively_on_word_boundaries() {
        let w = vec!["Tangerine 88".to_string(), "5".to_string()];
        assert!(contains_withheld("my hint was tangerine 88.", &w));
        assert!(contains_withheld("room 5", &w));
        assert!(!contains_withheld("tangerine 881 and 15 or 5a", &w));
    }
}
