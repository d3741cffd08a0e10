//! Relative time in a query ("five days ago", "last month", "in the past two weeks") resolved
//! against the clock into windows of event time, and how well an event date falls inside them.
//!
//! Keywords and vectors cannot read "four weeks ago": the words name no topic, and the answer is
//! whatever happened around that date. So the query's time phrase becomes a window, and candidates
//! whose event falls in it are lifted (see `score`). Only relative phrases are read; a query with
//! none gets no window and scores exactly as before.

use crate::model::time::Millis;

const DAY: Millis = 86_400_000;
const WEEK: Millis = 7 * DAY;
const MONTH: Millis = 30 * DAY;
const YEAR: Millis = 365 * DAY;

/// Event times in `start..=end` match fully; the match falls linearly to 0 over `margin` outside,
/// because people round when they say "a month ago".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: Millis,
    pub end: Millis,
    pub margin: Millis,
}

impl Window {
    fn around(center: Millis, half: Millis, margin: Millis) -> Window {
        Window { start: center - half, end: center + half, margin }
    }

    /// 1 inside the window, falling linearly to 0 at `margin` outside it.
    pub fn closeness(&self, at: Millis) -> f64 {
        let outside = if at < self.start {
            self.start - at
        } else if at > self.end {
            at - self.end
        } else {
            return 1.0;
        };
        (1.0 - outside as f64 / self.margin.max(1) as f64).max(0.0)
    }
}

/// The time windows a query names, relative to `now`. Empty when it names none.
pub fn windows(query: &str, now: Millis) -> Vec<Window> {
    let lower = query.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let mut found = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let before = |back: usize| i.checked_sub(back).and_then(|j| words.get(j)).copied();
        if *w == "yesterday" {
            // "the day before yesterday"
            let back = if before(1) == Some("before") && before(2) == Some("day") { 2 } else { 1 };
            found.push(Window::around(now - back * DAY, DAY / 2, DAY));
        }
        let Some(unit) = unit(w) else { continue };
        // "How many days ago…" asks for the time; it names none.
        if matches!(before(1), Some("many" | "much")) {
            continue;
        }
        let after = words.get(i + 1).copied();
        let count = count_before(&words, i);
        if after == Some("ago") {
            // "N units ago": around that point, as precise as the unit.
            let n = count.unwrap_or(1);
            let half = if unit == DAY { DAY } else { unit / 2 };
            found.push(Window::around(now - n * unit, half, unit.max(2 * DAY)));
        } else if matches!(before(1), Some("last" | "past" | "previous" | "this")) || (count.is_some() && span_before_count(&words, i)) {
            // "the past two weeks", "last month", "this year": everything from then until now.
            let n = count.unwrap_or(1);
            let span = if before(1) == Some("last") && count.is_none() { 2 * unit } else { n * unit };
            found.push(Window { start: now - span, end: now, margin: unit });
        }
    }
    found
}

/// The best match of an event time against any of the windows, or `None` without windows.
pub fn closeness(windows: &[Window], at: Millis) -> Option<f64> {
    windows.iter().map(|w| w.closeness(at)).reduce(f64::max)
}

fn unit(word: &str) -> Option<Millis> {
    match word {
        "day" | "days" => Some(DAY),
        "week" | "weeks" => Some(WEEK),
        "month" | "months" => Some(MONTH),
        "year" | "years" => Some(YEAR),
        _ => None,
    }
}

fn number(word: &str) -> Option<i64> {
    let n = match word {
        "a" | "an" | "one" => 1,
        "two" | "couple" => 2,
        "three" | "few" | "several" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        "eleven" => 11,
        "twelve" => 12,
        digits => digits.parse::<i64>().ok().filter(|n| (1..=1000).contains(n))?,
    };
    Some(n)
}

/// The count in front of the unit at `i`: "5 days", "a few weeks", "a couple of months".
fn count_before(words: &[&str], i: usize) -> Option<i64> {
    let prev = words.get(i.checked_sub(1)?)?;
    if *prev == "of" {
        return (words.get(i.checked_sub(2)?) == Some(&"couple")).then_some(2);
    }
    number(prev)
}

/// Whether "last", "past" or "previous" stands in front of the count in front of the unit at `i`
/// ("past two weeks", "last couple of days").
fn span_before_count(words: &[&str], i: usize) -> bool {
    let Some(prev) = i.checked_sub(1).and_then(|j| words.get(j)) else { return false };
    let back = if *prev == "of" { 3 } else { 2 };
    i.checked_sub(back).and_then(|j| words.get(j)).is_some_and(|w| matches!(*w, "last" | "past" | "previous"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Millis = 1_700_000_000_000;

    fn one(q: &str) -> Window {
        let w = windows(q, NOW);
        assert_eq!(w.len(), 1, "{q}: {w:?}");
        w[0]
    }

    #[test]
    fn ago_is_a_window_around_that_point() {
        let w = one("What did I buy 5 days ago?");
        assert_eq!(w.closeness(NOW - 5 * DAY), 1.0);
        assert_eq!(w.closeness(NOW - 5 * DAY + DAY), 1.0);
        assert!(w.closeness(NOW - 8 * DAY) < 0.01);
        assert_eq!(w.closeness(NOW), 0.0);
        let w = one("the milestone I mentioned four weeks ago");
        assert_eq!(w.closeness(NOW - 27 * DAY), 1.0);
        assert!(w.closeness(NOW - 35 * DAY) > 0.0);
        assert_eq!(w.closeness(NOW - 10 * DAY), 0.0);
        assert_eq!(one("a month ago").closeness(NOW - 31 * DAY), 1.0);
        assert_eq!(one("a couple of weeks ago").closeness(NOW - 14 * DAY), 1.0);
        assert_eq!(one("a few days ago").closeness(NOW - 3 * DAY), 1.0);
    }

    #[test]
    fn spans_run_until_now() {
        let w = one("How many times did I bake in the past two weeks?");
        assert_eq!((w.start, w.end), (NOW - 2 * WEEK, NOW));
        let w = one("over the last few months");
        assert_eq!(w.start, NOW - 3 * MONTH);
        let w = one("the last couple of days");
        assert_eq!(w.start, NOW - 2 * DAY);
        assert_eq!(one("this year").start, NOW - YEAR);
        // "last week" reaches back over the whole previous week.
        assert_eq!(one("what did I cook last week").start, NOW - 2 * WEEK);
    }

    #[test]
    fn days_by_name() {
        assert_eq!(one("yesterday").closeness(NOW - DAY), 1.0);
        assert_eq!(one("the day before yesterday").closeness(NOW - 2 * DAY), 1.0);
    }

    #[test]
    fn queries_without_relative_time_have_no_window() {
        // "today"/"tonight" usually speak of the asker's present ("free tonight, any films?"), not
        // of when something remembered happened.
        for q in [
            "How many days ago did I buy a smoker?",
            "How many weeks ago was the sale?",
            "any plans tonight?",
            "How many days did the trip take?",
            "a year of piano",
            "weeks",
            "my birthday",
            "day 5 of the plan",
            "",
            "ago",
        ] {
            assert!(windows(q, NOW).is_empty(), "{q}");
        }
        assert_eq!(closeness(&[], NOW), None);
    }

    #[test]
    fn absurd_counts_are_ignored() {
        // A count that does not parse as a small number falls back to one unit, never overflows.
        let w = one("99999999999999999999 years ago");
        assert_eq!(w.closeness(NOW - YEAR), 1.0);
    }
}
