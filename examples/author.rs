//! What the offline author makes of some turns: `cargo run --features internals --example author -- "turn one" "turn two" …`
//! (each argument one user turn, in order; later turns see the threads earlier ones authored).
//! Prints every memory with its shape, thread, value, dependency, confidence and doubts, and each
//! sentence's intent scores.

use engram::internals::author::intent::{self, Intent, Scores};
use engram::internals::author::{author_in, remember, sentence_features, KnownThread, PastTurn, Turn};

fn main() {
    let texts: Vec<String> = std::env::args().skip(1).collect();
    if texts.is_empty() {
        eprintln!("usage: author \"turn\" [\"turn\" …]");
        std::process::exit(2);
    }
    let ids: Vec<String> = (0..texts.len()).map(|i| format!("t{i}")).collect();
    let turns: Vec<Turn> = texts.iter().zip(&ids).map(|(t, id)| Turn { id, role: "user", speaker: None, date: None, text: t }).collect();
    let mut known: Vec<KnownThread> = Vec::new();
    for (i, turn) in turns.iter().enumerate() {
        println!("turn {i}: {}", turn.text);
        if let Some(m) = intent::model() {
            for (s, f) in sentence_features(turn.text, &known) {
                let sc = Scores(m.predict(&f));
                let parts: Vec<String> = Intent::ALL.iter().map(|x| format!("{}={:.2}", x.as_str(), sc.get(*x))).collect();
                println!("  intent {} :: {s}", parts.join(" "));
            }
        }
        let history: Vec<PastTurn> = turns[..i].iter().map(|t| PastTurn { id: t.id.to_string(), text: t.text, date: t.date }).collect();
        for a in author_in(std::slice::from_ref(turn), &known, &history) {
            println!(
                "  {:?} thread={:?} value={:?} corrects={:?} dep={:?} cons={:?} conf={} rule={} forget={:?} doubts={:?}\n    {}",
                a.shape,
                a.thread,
                a.value,
                a.corrects,
                a.depends_on.as_ref().map(|d| (&d.thread, &d.value)),
                a.consequent,
                a.confidence,
                a.rule,
                a.forget,
                a.doubts,
                a.content
            );
            remember(&mut known, &a);
        }
    }
}
