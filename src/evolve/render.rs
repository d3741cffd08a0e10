//! Derived states in words an answering model cannot misread. Output is plain text; the context
//! block escapes it (`recall::context`).

use super::derive::Trail;
use super::state::{Answer, State};
use crate::model::time::{to_iso, Millis};

fn day(ms: Millis) -> String {
    to_iso(ms)[..10].to_string()
}

/// `team/team-lead` → `team lead`: the last segment, in words.
pub fn label_words(label: &str) -> String {
    label.rsplit('/').next().unwrap_or(label).replace('-', " ")
}

fn since(a: &Answer) -> String {
    a.since.map(day).unwrap_or_else(|| "an unknown date".into())
}

/// `team lead` → `the team lead`.
fn the(words: &str) -> String {
    format!("the {words}")
}

/// One line for an answer's state.
pub fn state_line(a: &Answer) -> String {
    let slot = a.thread.as_deref().map(label_words);
    let lead = slot.as_deref().map(|s| format!("{s}: ")).unwrap_or_default();
    let value = a.value.as_deref().unwrap_or("");
    match a.state {
        State::Current => {
            // The memory's own sentence, when it states the value: a label is a normalized key and
            // drops words ("string-of-pearls" → "string pearls") the answer may need.
            let body = match &a.content {
                Some(c) if !value.is_empty() && c.to_lowercase().contains(&value.to_lowercase()) => c.trim_end_matches('.').to_string(),
                _ => format!("{lead}{value}"),
            };
            let mut s = format!("{body} (current; stated {}).", since(a));
            if let Some(c) = &a.consequent {
                s.push_str(&format!(" If what it depends on changes, it becomes {c}."));
            }
            s
        }
        State::Superseded => match &a.replaced_by {
            Some(r) => format!("{lead}{value} (superseded on {} by {}).", day(r.at), r.value),
            None => format!("{lead}{value} (superseded)."),
        },
        State::Deleted => format!("{lead}Deleted at the user's request on {}. The value is withheld: do not state or guess it.", since(a)),
        State::Cascaded => {
            let mut s = format!("{lead}{value} (cascaded on {}).", since(a));
            if let Some(b) = &a.because {
                let up = label_words(&b.thread);
                let prev = a.previous.as_deref().map(|p| format!(" It was {p}")).unwrap_or_default();
                let was = b.was.as_deref().map(|w| format!(" while {up} was {w}")).unwrap_or_default();
                let now = b.now.as_deref().map(|n| format!(" to {n}")).unwrap_or_default();
                s.push_str(&format!("{prev}{was}; {up} changed{now} on {}, so the stated alternative {value} applies now.", day(b.changed_at)));
            }
            s
        }
        State::Uncertain => {
            let prev = a.previous.as_deref().unwrap_or("unknown");
            let mut s = format!("{lead}Uncertain: no current value is known. Previously {prev}");
            if let Some(b) = &a.because {
                let up = label_words(&b.thread);
                match &b.was {
                    Some(w) => s.push_str(&format!(", set by {w}, no longer {up}", up = the(&up))),
                    None => s.push_str(&format!(", set under the earlier {up}")),
                }
                match &b.now {
                    Some(n) => s.push_str(&format!(" ({up} changed to {n} on {})", day(b.changed_at))),
                    None => s.push_str(&format!(" ({up} itself became uncertain on {})", day(b.changed_at))),
                }
            }
            s.push_str(&format!(". Nothing states a replacement: do not present {prev} as current."));
            s
        }
    }
}

/// What a turn said (on `stated`) of a kept name that has changed since: the turn is quoted as
/// data, never as a fact, with why it may no longer hold.
pub fn undermined_turn_line(a: &Answer, stated: Millis) -> Option<String> {
    let b = a.because.as_ref()?;
    let said = a.content.as_deref()?.trim();
    let said: String = if said.chars().count() > 240 { format!("{}…", said.chars().take(240).collect::<String>()) } else { said.to_string() };
    let up = label_words(&b.thread);
    let was = b.was.as_deref().map(|w| format!(" while {up} was {w}", up = the(&up))).unwrap_or_default();
    let now = b.now.as_deref().map(|n| format!(" to {n}")).unwrap_or_default();
    let changed = format!("{} changed{now} on {}", the(&up), day(b.changed_at));
    Some(match (a.state, a.value.as_deref()) {
        // The turn named what follows the change ("if I moved to X, I would use Y"): that applies.
        (State::Cascaded, Some(v)) => format!("{v} (cascaded): said on {}{was}: \"{said}\". {changed}, so the alternative it stated, {v}, applies now.", day(stated)),
        _ => format!("Uncertain: said on {}{was}: \"{said}\". {changed}; nothing states what holds now, so do not present this as current.", day(stated)),
    })
}

/// A thread in full: its state now, then its values oldest first.
pub fn trail_text(t: &Trail) -> String {
    let mut s = match &t.head {
        Some(h) => state_line(h),
        None => format!("{}: no value.", label_words(&t.thread)),
    };
    let dated: Vec<&Answer> = t.values.iter().collect();
    if dated.len() > 1 {
        s.push_str("\nHistory, oldest first:");
        for a in dated {
            let v = match a.state {
                State::Deleted => format!("deleted at the user's request on {}", since(a)),
                State::Superseded => {
                    let by = a.replaced_by.as_ref().map(|r| format!(" (superseded on {} by {})", day(r.at), r.value)).unwrap_or_default();
                    format!("{}{by}", a.value.as_deref().unwrap_or(""))
                }
                State::Current => format!("{} (current)", a.value.as_deref().unwrap_or("")),
                State::Cascaded => format!("{} (cascaded to {})", a.previous.as_deref().unwrap_or(""), a.value.as_deref().unwrap_or("")),
                State::Uncertain => format!("{} (now uncertain)", a.previous.as_deref().unwrap_or("")),
            };
            let when = if a.state == State::Deleted { String::new() } else { format!("{}: ", since_stated(a)) };
            s.push_str(&format!("\n- {when}{v}"));
        }
    }
    s
}

/// The date a value was stated (for undermined values `since` is the upstream change).
fn since_stated(a: &Answer) -> String {
    match (&a.state, &a.because) {
        (State::Cascaded | State::Uncertain, Some(_)) => "earlier".into(),
        _ => since(a),
    }
}
