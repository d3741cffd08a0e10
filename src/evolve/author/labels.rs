//! A value written right after its label, with no verb between: "guest wifi pw otter-lamp-92",
//! "member id CVH-88213-K", "flight QX 2217", "booking ref: BK-ZT9914". Notes and chat state
//! identifiers this way more often than in full sentences. The value is found by its form (an
//! identifier: a code with a digit, or an address, from `spans`); the label is the run of words
//! just before it, cut at the first word that cannot belong to a noun phrase (a verb, a pronoun, a
//! preposition, a determiner) or at punctuation other than the colon that may join them.

use super::spans::{value_spans, SpanKind};

/// A label and the identifier written after it.
#[derive(Debug, PartialEq)]
pub struct Labelled {
    pub label: String,
    pub value: String,
}

/// Words that end a label going backwards: function words, auxiliaries and common verbs.
const NOT_LABEL: &[&str] = &[
    "a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "this", "that", "these", "those", "i", "we", "you", "he", "she", "they", "it", "me", "us", "him", "them",
    "is", "are", "am", "was", "were", "be", "been", "has", "have", "had", "do", "does", "did", "got", "get", "gets", "gave", "give", "put", "on", "in", "at", "to", "for", "from",
    "with", "by", "of", "as", "into", "onto", "about", "and", "or", "but", "so", "if", "then", "than", "now", "rn", "still", "also", "just", "only", "again", "every", "each",
    "around", "about", "approx", "like", "until", "till", "since", "after", "before", "not", "no", "all", "per", "via", "it's", "i'm", "we're", "he's", "she's", "they're",
    "that's", "there's", "here's", "what's", "lives", "sold", "pinned", "use", "uses", "used", "call", "called", "wait", "sorry", "oops", "ugh", "hmm", "lol", "actually", "okay",
    "ok", "yes", "yeah",
];

/// The first identifier of `clause` written after a label, with that label.
pub fn labelled_code(clause: &str) -> Option<Labelled> {
    // What would be under a condition is no label's value now ("if X ever goes → plain Y").
    let lower = clause.to_ascii_lowercase();
    if ["if ", "unless ", "would", "'d ", "otherwise"].iter().any(|c| lower.starts_with(c) || lower.contains(&format!(" {c}"))) {
        return None;
    }
    let span = value_spans(clause).into_iter().filter(|s| matches!(s.kind, SpanKind::Code | SpanKind::Address)).min_by_key(|s| s.at)?;
    if is_quantity_or_time(&span.text) {
        return None;
    }
    let before = clause.get(..span.at)?;
    let mut label: Vec<&str> = Vec::new();
    for (i, raw) in before.split_whitespace().rev().enumerate() {
        // Only the word right before the value may end in the colon that joins them.
        let w = if i == 0 { raw.strip_suffix(':').unwrap_or(raw) } else { raw };
        let lower = w.to_ascii_lowercase();
        let wordlike = !w.is_empty() && w.chars().all(|c| c.is_alphabetic() || c == '\'' || c == '-' || c == '.') && w.chars().any(char::is_alphabetic);
        if !wordlike || NOT_LABEL.contains(&lower.as_str()) || label.len() == 4 {
            break;
        }
        label.push(w.trim_end_matches('.'));
    }
    label.reverse();
    let head = label.last()?.to_ascii_lowercase();
    // A verb form in the head is no label ("cutting 7.3.0-rc1", "booked 2 rooms").
    if head.ends_with("ing") || head.ends_with("ed") || head.ends_with("'s") {
        return None;
    }
    let value = numbered(label.last()?, &span.text).unwrap_or(span.text);
    Some(Labelled { label: label.join(" "), value })
}

/// A number too short to name anything alone ("6", "14B") is said with the noun it numbers:
/// "cabin 6", "Route 14B", "shelf 17" is how the thing is called, and how it is asked for.
pub fn numbered(noun: &str, code: &str) -> Option<String> {
    let short = code.len() <= 4 && code.chars().all(|c| c.is_ascii_alphanumeric()) && code.starts_with(|c: char| c.is_ascii_digit());
    let noun_like = noun.len() >= 3 && noun.chars().all(char::is_alphabetic) && !NOT_LABEL.contains(&noun.to_ascii_lowercase().as_str());
    (short && noun_like).then(|| format!("{noun} {code}"))
}

/// Amounts, durations and clock times: what a count or a schedule says, read by other rules.
fn is_quantity_or_time(value: &str) -> bool {
    let v = value.to_ascii_lowercase();
    let clock = v.trim_end_matches("am").trim_end_matches("pm").trim();
    let clock_like = !clock.is_empty() && clock.chars().all(|c| c.is_ascii_digit() || c == ':' || c == '.') && clock.contains(':');
    clock_like || v.starts_with('$') || v.ends_with('%') || v.chars().next().is_some_and(|c| "€£¥".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(c: &str) -> Option<(String, String)> {
        labelled_code(c).map(|l| (l.label, l.value))
    }

    #[test]
    fn an_identifier_after_its_label() {
        assert_eq!(read("guest wifi pw otter-lamp-92"), Some(("guest wifi pw".into(), "otter-lamp-92".into())));
        assert_eq!(read("on Corvane Health silver ppo, member id CVH-88213-K"), Some(("member id".into(), "CVH-88213-K".into())));
        assert_eq!(read("booking ref: BK-ZT9914"), Some(("booking ref".into(), "BK-ZT9914".into())));
        assert_eq!(read("Pinecrest gave us cabin 6"), Some(("cabin".into(), "cabin 6".into())), "a short number is said with its noun");
        assert_eq!(read("locker code 27-14-09"), Some(("locker code".into(), "27-14-09".into())), "a long code stands alone");
    }

    #[test]
    fn no_label_no_value() {
        assert_eq!(read("we leave at 9:30"), None);
        assert_eq!(read("cutting 7.3.0-rc1 today"), None);
        assert_eq!(read("it costs $35 a month"), None);
        assert_eq!(read("I have 2 kids"), None);
        assert_eq!(read("if tunnelkit ever goes → plain jumpbox-02"), None);
    }
}
