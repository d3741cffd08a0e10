//! When something recurring happens: "we open at 7:00", "I pick up Matteo at 13:15 on school
//! days", "ParcelJet swings by for the daily pickup at 3:15pm", "we play Tuesday evening", "the
//! ferry is leaving at 9:30". The value is a time by its form (a clock time, a weekday, a part of
//! the day after one); the slot is the activity it times: the verb and its object after a pronoun
//! subject, the subject itself when it is a thing ("the ferry"), or the noun phrase the time is
//! for ("the daily pickup"). No verb list: the frame is the time's position after the activity.

use super::form::is_clock;
use super::text::IRREGULAR_PAST;
use crate::evolve::pick::WEEKDAYS;

/// An activity and the time it recurs at.
#[derive(Debug, PartialEq)]
pub struct Scheduled {
    /// The owner words ("i", "we") when the subject is a pronoun.
    pub subject: Option<String>,
    pub slot: String,
    pub value: String,
}

/// Parts of a day that may follow a day or a time ("Tuesday evening", "9:30 in the morning").
const DAY_PARTS: &[&str] = &["morning", "mornings", "afternoon", "afternoons", "evening", "evenings", "night", "nights"];
/// Words that join a time to the activity before it.
const JOINERS: &[&str] = &["at", "on", "every", "around", "by", "from", "until", "till", "each"];
/// Words that only frame an activity ("usually", "then"), not part of its name.
const FRAMING: &[&str] = &[
    "then",
    "usually",
    "always",
    "normally",
    "only",
    "also",
    "now",
    "still",
    "just",
    "already",
    "typically",
    "generally",
    "mostly",
    "is",
    "are",
    "am",
    "was",
    "were",
    "will",
    "be",
    "being",
    "do",
    "does",
    "get",
    "gets",
    "have",
    "has",
];
const PRONOUNS: &[&str] = &["i", "we", "they", "he", "she", "you"];
const DETERMINERS: &[&str] = &["the", "my", "our", "his", "her", "their", "your"];

fn is_day(token: &str) -> bool {
    let w = token.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase();
    w.len() >= 3 && WEEKDAYS.contains(&w.as_str()) && !["tomorrow", "tonight", "noon", "midnight", "weekend", "weekends"].contains(&w.as_str())
}

fn bare(token: &str) -> String {
    token.trim_matches(|c: char| !c.is_alphanumeric() && c != '&').to_ascii_lowercase()
}

/// The time an activity recurs at, with the activity as the slot.
pub fn scheduled(clause: &str) -> Option<Scheduled> {
    let lower = format!(" {} ", clause.to_ascii_lowercase());
    // What would happen under a condition, or is asked, is not the schedule now.
    if [" if ", " unless ", " would ", "'d ", " could ", " might ", "?"].iter().any(|c| lower.contains(c)) {
        return None;
    }
    let tokens: Vec<&str> = clause.split_whitespace().collect();
    let start = tokens.iter().position(|t| is_clock(t) || is_day(t))?;
    // The value: the time and what stays within it ("Tuesdays at 8pm", "Tue & Thu", "Tuesday evening").
    let mut end = start + 1;
    while end < tokens.len() && !tokens[end - 1].ends_with([',', ';', '.']) {
        let w = bare(tokens[end]);
        let next_is_time = tokens.get(end + 1).is_some_and(|n| is_clock(n) || is_day(n));
        if is_clock(tokens[end]) || is_day(tokens[end]) || DAY_PARTS.contains(&w.as_str()) || ((w == "at" || w == "and" || w == "&") && next_is_time) {
            end += 1;
        } else {
            break;
        }
    }
    let value = tokens[start..end].join(" ").trim_end_matches([',', ';', '.', '!']).to_string();
    // The activity: the words after the last clause mark before the time.
    let mut before: Vec<&str> = tokens[..start].to_vec();
    if let Some(cut) = before.iter().rposition(|t| t.ends_with([',', ';', ':']) || *t == "—" || *t == "-") {
        before.drain(..=cut);
    }
    while before.last().is_some_and(|t| JOINERS.contains(&bare(t).as_str())) {
        before.pop();
    }
    if before.is_empty() || before.len() > 10 {
        return None;
    }
    let first = bare(before[0]);
    let (subject, slot_words): (Option<String>, Vec<String>) = if PRONOUNS.contains(&first.as_str()) {
        // "we open", "I pick up Matteo": the verb and its object.
        let rest: Vec<String> = before[1..].iter().map(|t| bare(t)).filter(|w| !w.is_empty() && !FRAMING.contains(&w.as_str())).collect();
        (Some(first), rest)
    } else if DETERMINERS.contains(&first.as_str()) {
        // "the ferry from Puerto Lindo … is leaving": the thing itself, up to its verb or preposition.
        let np: Vec<String> =
            before[1..].iter().map(|t| bare(t)).take_while(|w| !FRAMING.contains(&w.as_str()) && !["from", "to", "of", "in", "for", "with"].contains(&w.as_str())).collect();
        (None, np)
    } else {
        // "ParcelJet swings by for the daily pickup": the noun phrase the time is for.
        let the = before.iter().rposition(|t| DETERMINERS.contains(&bare(t).as_str()))?;
        (None, before[the + 1..].iter().map(|t| bare(t)).collect())
    };
    let slot_words: Vec<String> = slot_words.into_iter().filter(|w| !w.is_empty()).collect();
    let content = slot_words.iter().any(|w| w.len() > 2 && w.chars().all(char::is_alphabetic));
    // "we're going on Tuesday": a verb of motion or doing alone names no activity.
    let empty_verb = matches!(slot_words.as_slice(), [w] if ["going", "doing", "being", "getting", "coming", "leaving"].contains(&w.as_str()));
    if !content || slot_words.len() > 4 || empty_verb {
        return None;
    }
    // A verb in the past tense tells what happened once ("we met on Tuesday"), not a schedule.
    if subject.is_some() && slot_words.first().is_some_and(|v| v.ends_with("ed") || IRREGULAR_PAST.contains(&v.as_str()) || v == "had" || v == "did") {
        return None;
    }
    Some(Scheduled { subject, slot: slot_words.join(" "), value })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(c: &str) -> Option<(String, String)> {
        scheduled(c).map(|s| (s.slot, s.value))
    }

    #[test]
    fn a_recurring_time_is_read_as_the_value_of_the_activity_it_times() {
        assert_eq!(read("We open at 7:00 every day except Sunday"), Some(("open".into(), "7:00".into())));
        assert_eq!(read("I pick up Matteo at 13:15 on school days"), Some(("pick up matteo".into(), "13:15".into())));
        assert_eq!(read("ParcelJet swings by for the daily pickup at 3:15pm, which works"), Some(("daily pickup".into(), "3:15pm".into())));
        assert_eq!(read("my team is Net Gains, we play Tuesday evening and I am libero"), Some(("play".into(), "Tuesday evening".into())));
        assert_eq!(read("The ferry from Puerto Lindo is leaving at 9:30 in the morning."), Some(("ferry".into(), "9:30".into())));
        assert_eq!(read("we rehearse Tuesdays at 8pm"), Some(("rehearse".into(), "Tuesdays at 8pm".into())));
    }

    #[test]
    fn conditions_questions_and_past_events_are_no_schedule() {
        assert_eq!(read("if we ever went with Hopwell it'd be 11:40am"), None);
        assert_eq!(read("can we meet at 3pm?"), None);
        assert_eq!(read("we met on Tuesday"), None);
        assert_eq!(read("I saw her at 9:30"), None);
        assert_eq!(read("version 2.4 is out"), None);
    }
}
