//! The derivation: a namespace's typed memories (those dated at or before the cutoff) grouped by
//! thread, each thread's trail ordered by event time (ties by creation), and every slot's state
//! read off the trail and its upstream threads.
//!
//! Rules, per thread, oldest first:
//! - a memory with a `value` (or, lacking one, with neither `consequent` nor `dependsOn`: its text
//!   is the value) is a value entry; the next value entry supersedes it;
//! - a `retraction` withdraws every value before it: they are `deleted` and withheld;
//! - a memory with only `consequent` / `dependsOn` qualifies the value stated before it (at the
//!   same instant: after it);
//! - the latest value depends on `dependsOn.thread`: if that thread's value changed after this value
//!   was stated (and differs from `dependsOn.value`, when given), the value is `cascaded` to its
//!   consequent, or `uncertain` without one. A cascaded or uncertain upstream counts as changed, so
//!   cascades run hop by hop; a cycle reads as unchanged, and so does an upstream more than
//!   `MAX_HOPS` away (the derivation recurses, and stored input must not exhaust the stack).

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use super::author::{conditional_consequent, names_value, names_value_in, sentences};
use super::state::{Answer, Replacement, State, UpstreamChange};
use crate::model::time::Millis;
use crate::model::{DependsOn, Memory, Shape};
use crate::store::dedup::normalize;

/// One thread's derived trail.
#[derive(Clone, Debug)]
pub struct Trail {
    pub thread: String,
    /// Oldest first: every value with its state; each retraction that withdrew values appears once,
    /// as a `deleted` answer with the values withheld.
    pub values: Vec<Answer>,
    /// The slot now: the state of its latest value, or `deleted` when a retraction came last.
    pub head: Option<Answer>,
    /// Every memory on the thread (ids), for evidence.
    pub members: Vec<String>,
    /// Values stated by mistake and corrected: superseded by their correction, in no history.
    pub corrected: Vec<Answer>,
    /// Values withdrawn and not stated again since: never to appear in any output.
    pub withheld: Vec<String>,
    /// The value the slot has now (`None`: withheld or uncertain), since when, and the memory that
    /// made it so: what a dependent compares against.
    effective: Option<String>,
    changed_at: Millis,
    cause: String,
    /// Value entries (value, when), not withdrawn, oldest first: what the thread held at a past time.
    held: Vec<(String, Millis)>,
}

fn is_modifier(m: &Memory) -> bool {
    m.shape != Some(Shape::Retraction) && m.value.is_none() && (m.consequent.is_some() || m.depends_on.is_some())
}

/// A memory that states a value on its thread (neither a retraction nor a qualifier).
fn is_value_entry(m: &Memory) -> bool {
    m.shape != Some(Shape::Retraction) && !is_modifier(m)
}

/// Whether a thread's latest value depends on nothing (its own or a qualifier's `dependsOn`).
fn independent(entries: &[&Memory]) -> bool {
    let last_value = entries.iter().rposition(|m| is_value_entry(m));
    last_value.is_some_and(|i| entries[i..].iter().all(|m| m.depends_on.is_none()))
}

fn value_of(m: &Memory) -> String {
    m.value.clone().unwrap_or_else(|| m.content.clone())
}

/// The same value however it was cased or spaced.
pub(crate) fn same_value(a: &str, b: &str) -> bool {
    normalize(a) == normalize(b)
}

/// Upstream hops followed from one thread; deeper dependencies read as unchanged.
pub const MAX_HOPS: usize = 32;

pub struct Derivation<'a> {
    threads: BTreeMap<String, Vec<&'a Memory>>,
    loose: Vec<&'a Memory>,
    memo: RefCell<HashMap<String, Rc<Trail>>>,
    in_progress: RefCell<HashSet<String>>,
    /// Set when a derivation stopped at a cycle or at `MAX_HOPS`: what it produced depends on where
    /// the walk started, so it is not memoized.
    cut: std::cell::Cell<bool>,
    /// The independent threads that have held more than one value: the only ones a mention can
    /// be undermined by (`change_named`), listed once per derivation.
    changed_roots: std::cell::OnceCell<Vec<String>>,
}

impl<'a> Derivation<'a> {
    /// Over `memories` (one namespace's), counting only those dated at or before `at`.
    pub fn new(memories: impl IntoIterator<Item = &'a Memory>, at: Option<Millis>) -> Self {
        let mut threads: BTreeMap<String, Vec<&'a Memory>> = BTreeMap::new();
        let mut loose = Vec::new();
        for m in memories.into_iter().filter(|m| at.is_none_or(|at| m.event_time() <= at)) {
            match &m.thread {
                Some(t) => threads.entry(t.clone()).or_default().push(m),
                None => loose.push(m),
            }
        }
        // At one instant a qualifier follows the value it qualifies; otherwise ties keep the order
        // of writing (stable sort over slot order), which is the order things were said in.
        let rank = |m: &Memory| u8::from(is_modifier(m));
        for trail in threads.values_mut() {
            trail.sort_by(|a, b| a.event_time().cmp(&b.event_time()).then(a.created_at.cmp(&b.created_at)).then(rank(a).cmp(&rank(b))));
        }
        Derivation {
            threads,
            loose,
            memo: RefCell::new(HashMap::new()),
            in_progress: RefCell::new(HashSet::new()),
            cut: std::cell::Cell::new(false),
            changed_roots: std::cell::OnceCell::new(),
        }
    }

    pub fn thread_labels(&self) -> impl Iterator<Item = &str> {
        self.threads.keys().map(String::as_str)
    }

    /// Memories on no thread, in the order given.
    pub fn loose(&self) -> &[&'a Memory] {
        &self.loose
    }

    /// Every counted memory.
    pub fn memories(&self) -> impl Iterator<Item = &'a Memory> + '_ {
        self.threads.values().flatten().copied().chain(self.loose.iter().copied())
    }

    /// The derived trail of `thread`; `None` when no counted memory is on it.
    pub fn trail(&self, thread: &str) -> Option<Rc<Trail>> {
        if let Some(t) = self.memo.borrow().get(thread) {
            return Some(t.clone());
        }
        let entries = self.threads.get(thread)?;
        let outermost = self.in_progress.borrow().is_empty();
        if outermost {
            self.cut.set(false);
        }
        self.in_progress.borrow_mut().insert(thread.to_string());
        let trail = Rc::new(self.derive(thread, entries));
        self.in_progress.borrow_mut().remove(thread);
        if !self.cut.get() {
            self.memo.borrow_mut().insert(thread.to_string(), trail.clone());
        }
        if outermost {
            self.cut.set(false);
        }
        Some(trail)
    }

    /// Every value withdrawn anywhere and not stated again: what output must never contain.
    pub fn withheld(&self) -> Vec<String> {
        let labels: Vec<String> = self.threads.keys().cloned().collect();
        let mut out: Vec<String> = labels.iter().filter_map(|t| self.trail(t)).flat_map(|t| t.withheld.clone()).collect();
        out.sort();
        out.dedup();
        out
    }

    /// The state of one memory: its entry on its thread's trail, or (on no thread) its own slot.
    pub fn answer_for(&self, m: &Memory) -> Option<Answer> {
        let Some(thread) = &m.thread else {
            return Some(self.loose_answer(m));
        };
        let trail = self.trail(thread)?;
        if m.shape == Some(Shape::Retraction) || is_modifier(m) {
            return trail.head.clone();
        }
        trail.values.iter().chain(&trail.corrected).find(|a| a.evidence.first() == Some(&m.id) || (a.state == State::Deleted && a.evidence.contains(&m.id))).cloned()
    }

    fn loose_answer(&self, m: &Memory) -> Answer {
        let base = Answer {
            thread: None,
            state: State::Current,
            value: Some(value_of(m)),
            previous: None,
            since: Some(m.event_time()),
            replaced_by: None,
            because: None,
            consequent: m.consequent.clone(),
            evidence: vec![m.id.clone()],
            content: Some(m.content.clone()),
        };
        match m.depends_on.as_ref().and_then(|d| self.upstream_change(d, m.event_time())) {
            Some(change) => self.undermined(base, change, m.consequent.clone()),
            None => base,
        }
    }

    /// The change on `d.thread` after `stated`, if any.
    fn upstream_change(&self, d: &DependsOn, stated: Millis) -> Option<UpstreamChange> {
        if self.in_progress.borrow().contains(&d.thread) {
            self.cut.set(true);
            return None;
        }
        if self.in_progress.borrow().len() > MAX_HOPS {
            self.cut.set(true);
            return None;
        }
        let up = self.trail(&d.thread)?;
        let head = up.head.as_ref()?;
        // A withdrawn upstream was forgotten, not changed: it says nothing about the world.
        if head.state == State::Deleted || up.changed_at <= stated {
            return None;
        }
        if let (Some(given), Some(now)) = (&d.value, &up.effective) {
            if same_value(given, now) {
                return None;
            }
        }
        let was = d.value.clone().or_else(|| up.held.iter().rev().find(|(_, t)| *t <= stated).map(|(v, _)| v.clone())).filter(|v| !up.withheld.iter().any(|w| same_value(w, v)));
        Some(UpstreamChange { thread: d.thread.clone(), was, now: up.effective.clone(), upstream_state: head.state, changed_at: up.changed_at, evidence: up.cause.clone() })
    }

    /// What was said at `stated` of a kept name holds while that name does ("Clayhaus gave me shelf
    /// 17" once the user left Clayhaus): a turn never authored, or a loose answer with no
    /// dependency, that names the value some independent thread held then is undermined when that
    /// thread changed afterwards. The dependency is read from the mention rather than stored, so
    /// every turn gets it, authored or not. A text that also names the new value only in a
    /// condition ("if we ever took beans from Halvik, their technician would be Dana") states what
    /// follows: cascaded to it; naming the new value otherwise, it speaks of the change itself.
    pub fn undermined_by_mention(&self, a: Answer, text: &str) -> Answer {
        let Some(stated) = a.since.filter(|_| a.state == State::Current && a.thread.is_none() && a.because.is_none()) else { return a };
        match self.change_named(text, stated) {
            Some((change, consequent)) => self.undermined(a, change, consequent),
            None => a,
        }
    }

    /// The newest change, after `stated`, of an independent thread whose value then `text` names,
    /// with the consequent `text` states for it (see `undermined_by_mention`).
    fn change_named(&self, text: &str, stated: Millis) -> Option<(UpstreamChange, Option<String>)> {
        let mut best: Option<(UpstreamChange, Option<String>)> = None;
        // Only a slot that depends on nothing (its trail reads no other, so this never recurses)
        // and that has changed at all.
        let roots = self
            .changed_roots
            .get_or_init(|| self.threads.iter().filter(|(_, e)| independent(e) && e.iter().filter(|m| is_value_entry(m)).count() > 1).map(|(t, _)| t.clone()).collect());
        let lower = text.to_lowercase();
        for thread in roots {
            if self.in_progress.borrow().contains(thread) {
                continue;
            }
            let Some(trail) = self.trail(thread) else { continue };
            if trail.head.as_ref().is_none_or(|h| h.state == State::Deleted) || trail.changed_at <= stated {
                continue;
            }
            let Some((was, _)) = trail.held.iter().rev().find(|(_, t)| *t <= stated) else { continue };
            let Some(now) = trail.effective.as_deref() else { continue };
            if same_value(was, now) || !names_value_in(text, &lower, was) {
                continue;
            }
            let naming_now: Vec<&str> = sentences(text).into_iter().filter(|s| names_value(s, now)).collect();
            let consequent = naming_now.iter().find_map(|s| conditional_consequent(s));
            if !naming_now.is_empty() && consequent.is_none() {
                continue;
            }
            let d = DependsOn { thread: thread.clone(), value: Some(was.clone()) };
            if let Some(change) = self.upstream_change(&d, stated).filter(|c| best.as_ref().is_none_or(|b| c.changed_at > b.0.changed_at)) {
                best = Some((change, consequent));
            }
        }
        best
    }

    fn undermined(&self, mut a: Answer, change: UpstreamChange, consequent: Option<String>) -> Answer {
        a.previous = a.value.take();
        match consequent {
            Some(c) => {
                a.state = State::Cascaded;
                a.value = Some(c.clone());
                a.consequent = Some(c);
            }
            None => a.state = State::Uncertain,
        }
        a.evidence.push(change.evidence.clone());
        a.since = Some(change.changed_at);
        a.because = Some(change);
        a
    }

    fn derive(&self, thread: &str, entries: &[&'a Memory]) -> Trail {
        let mut values: Vec<Answer> = Vec::new();
        // Indexes into `values` of the value entries since the last retraction, with their memory.
        let mut live: Vec<(usize, &Memory)> = Vec::new();
        let mut withheld: Vec<String> = Vec::new();
        let mut last_retraction: Option<&Memory> = None;
        let mut held: Vec<(String, Millis)> = Vec::new();
        let mut corrected: Vec<Answer> = Vec::new();
        // Modifiers (consequent / dependsOn stated on their own) after the latest value.
        let mut qualifiers: Vec<&Memory> = Vec::new();
        for &m in entries {
            if m.shape == Some(Shape::Retraction) {
                let mut withdrawn: Vec<String> = live.iter().map(|(_, v)| v.id.clone()).collect();
                // A value said by mistake was said of this slot: forgetting the slot forgets it too.
                for a in corrected.drain(..) {
                    withheld.extend(a.value);
                    withdrawn.extend(a.evidence.first().cloned());
                }
                for (_, v) in live.drain(..) {
                    withheld.push(value_of(v));
                    if let Some(s) = &v.signature {
                        withheld.push(s.clone());
                    }
                    held.retain(|(val, _)| !same_value(val, &value_of(v)));
                }
                if let Some(v) = &m.value {
                    withheld.push(v.clone());
                }
                // The withdrawn entries leave the trail: one `deleted` line stands for them.
                values.retain(|a| !a.evidence.iter().any(|id| withdrawn.contains(id)));
                let mut evidence = vec![m.id.clone()];
                evidence.extend(withdrawn);
                values.push(Answer {
                    thread: Some(thread.to_string()),
                    state: State::Deleted,
                    value: None,
                    previous: None,
                    since: Some(m.event_time()),
                    replaced_by: None,
                    because: None,
                    consequent: None,
                    evidence,
                    content: None,
                });
                last_retraction = Some(m);
                qualifiers.clear();
                continue;
            }
            if is_modifier(m) {
                qualifiers.push(m);
                continue;
            }
            qualifiers.clear();
            let value = value_of(m);
            // A correction of the latest value: that value was never the slot's.
            let corrects = m.corrects.as_deref();
            let corrects_latest = live.last().is_some_and(|(i, v)| *i + 1 == values.len() && corrects.is_some_and(|c| same_value(c, &value_of(v))));
            if corrects_latest {
                live.pop();
                if held.last().is_some_and(|(v, _)| corrects.is_some_and(|c| same_value(v, c))) {
                    held.pop();
                }
                if let Some(mut a) = values.pop() {
                    a.state = State::Superseded;
                    a.replaced_by = Some(Replacement { id: m.id.clone(), value: value.clone(), at: m.event_time() });
                    corrected.push(a);
                }
            }
            if let Some((i, _)) = live.last() {
                let prev = &mut values[*i];
                prev.state = State::Superseded;
                prev.replaced_by = Some(Replacement { id: m.id.clone(), value: value.clone(), at: m.event_time() });
            }
            held.push((value.clone(), m.event_time()));
            values.push(Answer {
                thread: Some(thread.to_string()),
                state: State::Current,
                value: Some(value),
                previous: None,
                since: Some(m.event_time()),
                replaced_by: None,
                because: None,
                consequent: None,
                evidence: vec![m.id.clone()],
                content: Some(m.content.clone()),
            });
            live.push((values.len() - 1, m));
        }
        // A value stated again after its retraction is live again.
        withheld.retain(|w| !live.iter().any(|(_, m)| same_value(&value_of(m), w)));

        let members = entries.iter().map(|m| m.id.clone()).collect();
        let Some(&(i, head_memory)) = live.last() else {
            let head = values.last().filter(|a| a.state == State::Deleted).cloned();
            let (changed_at, cause) = last_retraction.map(|r| (r.event_time(), r.id.clone())).unwrap_or_default();
            return Trail { thread: thread.to_string(), values, head, members, corrected, withheld, effective: None, changed_at, cause, held };
        };
        // The latest value's dependency and consequent: its own, else the latest stated after it.
        let depends_on = head_memory.depends_on.clone().or_else(|| qualifiers.iter().rev().find_map(|q| q.depends_on.clone()));
        let consequent = head_memory.consequent.clone().or_else(|| qualifiers.iter().rev().find_map(|q| q.consequent.clone()));
        let mut head = values[i].clone();
        head.consequent = consequent.clone();
        head.evidence.extend(qualifiers.iter().map(|q| q.id.clone()));
        let (change, consequent) = match depends_on.as_ref() {
            // A dependency on a slot never stated (the author named it but nothing holds it): what
            // the value's own words name stands in for it, as for a turn (`change_named`).
            Some(d) if !self.threads.contains_key(&d.thread) => match self.change_named(&head_memory.content, head_memory.event_time()) {
                Some((change, read)) => (Some(change), consequent.or(read)),
                None => (None, consequent),
            },
            Some(d) => (self.upstream_change(d, head_memory.event_time()), consequent),
            None => (None, consequent),
        };
        let (effective, changed_at, cause) = match change {
            Some(change) => {
                let (at, cause) = (change.changed_at, change.evidence.clone());
                head = self.undermined(head, change, consequent);
                (head.value.clone(), at, cause)
            }
            None => (head.value.clone(), head_memory.event_time(), head_memory.id.clone()),
        };
        values[i] = head.clone();
        Trail { thread: thread.to_string(), values, head: Some(head), members, corrected, withheld, effective, changed_at, cause, held }
    }
}
