//! The form of a value: a slot holds values of one kind. A pickup time takes "3:15pm" or
//! "Tuesday", never "ParcelJet"; a carrier takes a name, never a clock time. Slot matching by
//! words alone cannot tell "the daily pickup is at 3:15pm" from "the first pickup with Hopwell is
//! tomorrow"; the form of the value can, so a value of another form does not join a thread by
//! its slot words.

use crate::evolve::pick::{MONTHS, WEEKDAYS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A clock time, a day, a date: "7:00", "Tuesday evening", "Aug 22-25".
    Time,
    /// An amount: "$11", "38 euro", "17".
    Quantity,
    /// Capitalized words without a digit: a person, a company, a place.
    Name,
    /// One token of letters and digits: an identifier ("CVH-88213-K", "XK4419203", "4B").
    Code,
    /// Anything else (lower-case phrases, codes, mixed).
    Phrase,
}

/// A value's form is read from its opening ("Glenwood Manor for June" is a name with a time
/// after it; "Tuesday evening" and "14 November" are times).
pub fn form_of(value: &str) -> Form {
    let w: Vec<String> = value.split_whitespace().map(|t| t.trim_matches(|c: char| !c.is_alphanumeric() && c != ':').to_lowercase()).filter(|t| !t.is_empty()).collect();
    let skip = w.iter().take_while(|x| ["every", "each", "on", "at", "the", "from", "by", "around"].contains(&x.as_str())).count();
    // "Jun Park", "Sat Nam": a short month or day form is a time only beside a number ("Jun 5").
    let digit = value.chars().any(|c| c.is_ascii_digit());
    let is_time = |x: &str| is_clock(x) || x == "am" || x == "pm" || ((WEEKDAYS.contains(&x) || (x != "may" && MONTHS.contains(&x))) && (x.len() > 3 || digit));
    let lead = w.get(skip).map(String::as_str).unwrap_or_default();
    let number_then_time = lead.starts_with(|c: char| c.is_ascii_digit()) && w.get(skip + 1).is_some_and(|x| is_time(x));
    if is_time(lead) || number_then_time {
        return Form::Time;
    }
    let token = value.trim().trim_end_matches(['.', ',', ';', '!']);
    let code_char = |c: char| c.is_ascii_alphanumeric() || "-_/#.".contains(c);
    if !token.contains(char::is_whitespace)
        && token.chars().all(code_char)
        && token.chars().any(|c| c.is_ascii_digit())
        && token.chars().any(|c| c.is_ascii_alphabetic())
        && !is_clock(token)
    {
        return Form::Code;
    }
    let first = value.trim().chars().next();
    if first.is_some_and(|c| c.is_ascii_digit() || "$€£¥".contains(c)) && w.len() <= 3 {
        return Form::Quantity;
    }
    if !digit && value.split_whitespace().any(|t| t.chars().next().is_some_and(char::is_uppercase)) {
        return Form::Name;
    }
    Form::Phrase
}

/// A clock time as one token: "7:00", "3:15pm", "11am", "18h", "9.30pm" (a bare "2.4" is no time).
pub fn is_clock(token: &str) -> bool {
    let t = token.trim_end_matches(['.', ',', ';', '!']).to_ascii_lowercase();
    let bare = t.trim_end_matches("am").trim_end_matches("pm").trim_end_matches('h');
    let digits = bare.starts_with(|c: char| c.is_ascii_digit()) && bare.chars().all(|c| c.is_ascii_digit() || c == ':' || c == '.');
    digits && (bare.contains(':') || t.len() > bare.len())
}

/// Whether two values can fill one slot: a time, an amount or an identifier never stands where a
/// name did, nor a name where one of those did. Phrases are never ruled out (too varied to judge).
pub fn compatible(a: &str, b: &str) -> bool {
    let (a, b) = (form_of(a), form_of(b));
    let other = |f: Form| matches!(f, Form::Time | Form::Quantity | Form::Code);
    !((a == Form::Name && other(b)) || (b == Form::Name && other(a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_read_as_time_amount_name_or_phrase() {
        assert_eq!(form_of("3:15pm"), Form::Time);
        assert_eq!(form_of("Tuesday evening"), Form::Time);
        assert_eq!(form_of("Aug 22-25"), Form::Time);
        assert_eq!(form_of("11am"), Form::Time);
        assert_eq!(form_of("Jun 5"), Form::Time);
        assert_eq!(form_of("Jun Park"), Form::Name);
        assert_eq!(form_of("$11 a week"), Form::Quantity);
        assert_eq!(form_of("38 euro"), Form::Quantity);
        assert_eq!(form_of("Hopwell Freight"), Form::Name);
        assert_eq!(form_of("Glenwood Manor for June"), Form::Name, "a name with a time after it");
        assert_eq!(form_of("14 November at 15:00"), Form::Time);
        assert_eq!(form_of("every Saturday"), Form::Time);
        assert_eq!(form_of("Dr. Okafor"), Form::Name);
        assert_eq!(form_of("VBL-7713-Q"), Form::Code);
        assert_eq!(form_of("XK4419203"), Form::Code);
        assert_eq!(form_of("Route 14"), Form::Phrase, "a name with a number is not one identifier");
        assert_eq!(form_of("oat milk"), Form::Phrase);
    }

    #[test]
    fn a_name_does_not_fill_a_time_slot_and_a_time_does_not_fill_a_name_slot() {
        assert!(!compatible("3:15pm", "Hopwell Freight"));
        assert!(!compatible("ParcelJet", "tomorrow"));
        assert!(!compatible("$8 a week", "Dig Deep"));
        assert!(compatible("Tuesday evening", "Wednesday evening"));
        assert!(compatible("ParcelJet", "Hopwell Freight"));
        assert!(compatible("oat milk", "Hopwell Freight"));
        assert!(!compatible("CVH-88213-K", "Clayhaus Studio"), "an identifier does not fill a name's slot");
    }
}
