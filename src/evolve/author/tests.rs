//! The rules on sentences written for these tests (none from the benchmark's episodes).

use super::*;

fn user<'a>(id: &'a str, text: &'a str) -> Turn<'a> {
    Turn { id, role: "user", speaker: None, date: Some(1_700_000_000_000), text }
}

fn run(texts: &[&str]) -> Vec<Authored> {
    let ids: Vec<String> = (0..texts.len()).map(|i| format!("s#{i}")).collect();
    let turns: Vec<Turn> = texts.iter().zip(&ids).map(|(t, id)| user(id, t)).collect();
    author(&turns, &[])
}

#[test]
#[ignore]
fn dump() {
    let path = std::env::var("AUTHOR_DUMP").unwrap_or_default();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    for a in run(&lines) {
        println!(
            "{:?} {:?} v={:?} dep={:?} cons={:?} sig={:?} c={} {:?} | {} | forget={:?}",
            a.shape, a.thread, a.value, a.depends_on, a.consequent, a.signature, a.confidence, a.doubts, a.content, a.forget
        );
    }
}
