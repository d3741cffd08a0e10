//! `add_many` / `ingest_many`: the same results as one call per item (duplicates within the batch
//! included), all items checked before anything is written, one embedder call per batch.

use std::cell::Cell;
use std::rc::Rc;

use engram::engine::{SessionInput, TurnInput};
use engram::host::{Embedder, ManualClock};
use engram::{EngineOptions, Engram, ErrorCode, NewMemory};

const T0: i64 = 1_700_000_000_000;

fn engine_with(embedder: Option<Box<dyn Embedder>>) -> Engram {
    Engram::new(Box::new(Rc::new(ManualClock::new(T0))), EngineOptions { id_seed: Some(7), embedder, ..EngineOptions::default() })
}

fn engine() -> Engram {
    engine_with(None)
}

/// A unit vector near axis `topic % 8` of an 8-d space, so that links form within a topic.
fn vector(topic: usize, i: usize) -> Vec<f32> {
    let mut v = [0.05f32; 8];
    v[topic % 8] = 1.0;
    v[(i + 3) % 8] += 0.3;
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

fn item(content: &str, v: Option<Vec<f32>>) -> NewMemory {
    NewMemory { content: content.into(), embedding: v, tags: vec!["t".into()], ..Default::default() }
}

fn batch() -> Vec<NewMemory> {
    let mut items: Vec<NewMemory> = (0..12).map(|i| item(&format!("note {i} about topic {}", i % 3), Some(vector(i % 3, i)))).collect();
    // A repeat within the batch (normalized: case and spacing) and one of an earlier stored memory.
    items.push(item("NOTE 4  about topic 1", Some(vector(1, 4))));
    items.push(item("stored before the batch", None));
    items
}

fn snapshot(e: &Engram) -> String {
    format!("{:?}", (e.stats(), e.get_all(None, 1000, 0).unwrap()))
}

#[test]
fn results_match_one_add_per_item() {
    let (mut one, mut many) = (engine(), engine());
    for e in [&mut one, &mut many] {
        e.add(item("stored before the batch", None)).unwrap();
    }
    let sequential: Vec<_> = batch().into_iter().map(|i| one.add(i).unwrap()).collect();
    let batched = many.add_many(batch()).unwrap();
    assert_eq!(format!("{batched:?}"), format!("{sequential:?}"));
    assert_eq!(snapshot(&many), snapshot(&one));
    assert!(batched[12].deduplicated && batched[12].memory.id == batched[4].memory.id, "a repeat within the batch reinforces the earlier item");
    assert!(batched[13].deduplicated);
    assert!(batched.iter().skip(1).take(11).any(|a| !a.memory.links.is_empty()), "links are made within the batch");
    for id in batched.iter().map(|a| &a.memory.id) {
        assert_eq!(many.history(id).unwrap().len(), one.history(id).unwrap().len());
    }
}

#[test]
fn a_bad_item_fails_the_batch_naming_it_and_writes_nothing() {
    let mut e = engine();
    e.add(item("already here", Some(vector(0, 0)))).unwrap();
    let before = snapshot(&e);
    let cases: Vec<(Vec<NewMemory>, &str)> = vec![
        (vec![item("fine", None), item("also fine", None), item("", None)], "items[2]"),
        (vec![item("fine", None), NewMemory { importance: Some(7.0), ..item("x", None) }], "items[1]"),
        (vec![item("fine", Some(vector(1, 1))), item("wrong length", Some(vec![1.0; 4]))], "items[1]"),
        (vec![NewMemory { derived_from: vec!["nope#0".into()], ..item("cites nothing", None) }], "items[0]"),
        (vec![NewMemory { tags: vec!["x".repeat(10_000)], ..item("long tag", None) }, item("fine", None)], "items[0]"),
    ];
    for (items, named) in cases {
        let err = e.add_many(items).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput, "{err:?}");
        assert!(err.message.starts_with(named), "{named}: {}", err.message);
        assert_eq!(snapshot(&e), before, "nothing written for {named}");
    }
}

#[test]
fn an_empty_batch_is_no_write_and_an_oversized_one_is_refused() {
    let mut e = engine();
    assert!(e.add_many(Vec::new()).unwrap().is_empty());
    let too_many: Vec<NewMemory> = (0..engram::engine::BATCH_MAX + 1).map(|i| item(&format!("n{i}"), None)).collect();
    assert_eq!(e.add_many(too_many).unwrap_err().code, ErrorCode::InvalidInput);
    assert_eq!(e.stats().memories, 0);
}

struct CountingEmbedder {
    calls: Rc<Cell<usize>>,
    texts: Rc<Cell<usize>>,
}

impl Embedder for CountingEmbedder {
    fn id(&self) -> &str {
        "counting-8"
    }
    fn dims(&self) -> usize {
        8
    }
    fn embed(&self, texts: &[&str]) -> engram::error::Result<Vec<Vec<f32>>> {
        self.calls.set(self.calls.get() + 1);
        self.texts.set(self.texts.get() + texts.len());
        Ok(texts.iter().map(|t| vector(t.len(), t.len())).collect())
    }
}

#[test]
fn the_embedder_is_called_once_per_batch_for_new_texts_only() {
    let (calls, texts) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    let mut e = engine_with(Some(Box::new(CountingEmbedder { calls: calls.clone(), texts: texts.clone() })));
    e.add(item("stored before", None)).unwrap();
    let (calls0, texts0) = (calls.get(), texts.get());
    let items =
        vec![item("first new text", None), item("stored before", None), item("FIRST new  text", None), item("own vector", Some(vector(2, 2))), item("second new text", None)];
    let out = e.add_many(items).unwrap();
    assert_eq!(calls.get() - calls0, 1, "one embedder call for the batch");
    assert_eq!(texts.get() - texts0, 2, "only the texts that become new memories without a vector");
    assert_eq!(e.stats().vectors, 4);
    assert!(out[1].deduplicated && out[2].deduplicated && !out[4].deduplicated);
}

fn session(id: &str, turns: &[&str]) -> SessionInput {
    SessionInput {
        id: id.into(),
        turns: turns.iter().map(|c| TurnInput { role: "user".into(), content: (*c).into(), speaker: None, id: None, embedding: None }).collect(),
        ..Default::default()
    }
}

#[test]
fn ingest_many_is_one_ingest_per_session_all_or_nothing() {
    let (mut one, mut many) = (engine(), engine());
    let sessions = vec![session("s1", &["hello there", "how are you"]), session("s2", &["another talk"])];
    let sequential: Vec<_> = sessions.clone().into_iter().map(|s| one.ingest(s).unwrap()).collect();
    let batched = many.ingest_many(sessions).unwrap();
    assert_eq!(format!("{batched:?}"), format!("{sequential:?}"));
    assert_eq!(many.stats().raw_entries, 3);

    let before = format!("{:?}", many.stats());
    let err = many.ingest_many(vec![session("s3", &["fine"]), session("s4", &[])]).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(err.message.starts_with("sessions[1]"), "{}", err.message);
    assert_eq!(format!("{:?}", many.stats()), before, "the first session was undone with the second");
    assert!(many.session("s3").map_or(true, |t| t.is_empty()));
}
