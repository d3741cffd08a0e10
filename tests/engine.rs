//! Engine behaviour through the public Rust API: limits, dedup, ranking, no ghosts, namespaces, history.

use std::rc::Rc;

use engram::host::ManualClock;
use engram::model::validate;
use engram::store::EventKind;
use engram::{EngineOptions, Engram, ErrorCode, Kind, Layer, MemoryPatch, NewMemory, SearchRequest};

const T0: i64 = 1_700_000_000_000;

fn engine() -> (Engram, Rc<ManualClock>) {
    let clock = Rc::new(ManualClock::new(T0));
    (Engram::new(Box::new(clock.clone()), EngineOptions { id_seed: Some(1), embedder: None, ..EngineOptions::default() }), clock)
}

fn add(e: &mut Engram, content: &str) -> String {
    e.add(NewMemory { content: content.into(), ..Default::default() }).unwrap().memory.id
}

fn add_in(e: &mut Engram, ns: &str, content: &str) -> String {
    e.add(NewMemory { content: content.into(), namespace: Some(ns.into()), ..Default::default() }).unwrap().memory.id
}

fn search(e: &mut Engram, q: &str, ns: Option<&str>) -> Vec<String> {
    let req = SearchRequest { query: Some(q.into()), namespace: ns.map(Into::into), limit: Some(20), dry_run: true, ..Default::default() };
    e.search(&req).unwrap().into_iter().map(|h| h.content().to_string()).collect()
}

fn snapshot(e: &Engram) -> String {
    format!("{:?}", (e.stats(), e.get_all(None, 1000, 0).unwrap()))
}

#[test]
fn every_limit_is_a_typed_error_that_changes_nothing() {
    let (mut e, _) = engine();
    add(&mut e, "existing memory");
    let before = snapshot(&e);
    let long = "x".repeat(validate::CONTENT_MAX_CHARS + 1);
    let bad_inputs = vec![
        NewMemory { content: "".into(), ..Default::default() },
        NewMemory { content: " \n\t ".into(), ..Default::default() },
        NewMemory { content: long, ..Default::default() },
        NewMemory { content: "ok".into(), tags: (0..21).map(|i| format!("t{i}")).collect(), ..Default::default() },
        NewMemory { content: "ok".into(), tags: vec!["x".repeat(33)], ..Default::default() },
        NewMemory { content: "ok".into(), tags: vec!["  ".into()], ..Default::default() },
        NewMemory { content: "ok".into(), source: Some("s".repeat(65)), ..Default::default() },
        NewMemory { content: "ok".into(), namespace: Some("".into()), ..Default::default() },
        NewMemory { content: "ok".into(), namespace: Some("n".repeat(validate::NAMESPACE_MAX_CHARS + 1)), ..Default::default() },
        NewMemory { content: "ok".into(), namespace: Some(" padded".into()), ..Default::default() },
        NewMemory { content: "ok".into(), namespace: Some("tab\there".into()), ..Default::default() },
        NewMemory { content: "ok".into(), importance: Some(1.5), ..Default::default() },
        NewMemory { content: "ok".into(), importance: Some(f64::NAN), ..Default::default() },
        NewMemory { content: "ok".into(), importance: Some(-0.1), ..Default::default() },
        NewMemory { content: "ok".into(), metadata: Some(serde_json::from_value(serde_json::json!({ "big": "y".repeat(16 * 1024) })).unwrap()), ..Default::default() },
        NewMemory { content: "ok".into(), embedding: Some(vec![]), ..Default::default() },
        NewMemory { content: "ok".into(), embedding: Some(vec![0.0, 0.0]), ..Default::default() },
        NewMemory { content: "ok".into(), embedding: Some(vec![1.0, f32::INFINITY]), ..Default::default() },
    ];
    for input in bad_inputs {
        let shown = format!("{:?}", input).chars().take(80).collect::<String>();
        let err = e.add(input).expect_err(&shown);
        assert_eq!(err.code, ErrorCode::InvalidInput, "{shown}: {err}");
        assert_eq!(snapshot(&e), before, "{shown} changed state");
    }
    // The limits themselves are accepted.
    let edge = NewMemory {
        content: "é".repeat(validate::CONTENT_MAX_CHARS),
        tags: (0..20).map(|i| format!("{i:0>32}")).collect(),
        source: Some("s".repeat(64)),
        namespace: Some("A-z_0.9/x".into()),
        importance: Some(1.0),
        ..Default::default()
    };
    e.add(edge).unwrap();
}

#[test]
fn duplicates_reinforce_instead_of_storing_twice() {
    let (mut e, clock) = engine();
    let first = e.add(NewMemory { content: "The user prefers dark mode.".into(), ..Default::default() }).unwrap();
    assert!(!first.deduplicated);
    clock.advance(60_000);
    let again = e.add(NewMemory { content: "  the USER prefers   dark mode ".into(), ..Default::default() }).unwrap();
    assert!(again.deduplicated);
    assert_eq!(again.memory.id, first.memory.id);
    assert_eq!(again.memory.repetition_count, 1);
    assert_eq!(again.memory.last_accessed, T0 + 60_000);
    assert_eq!(e.stats().memories, 1);
    // Another namespace is another store of facts.
    let other = e.add(NewMemory { content: "The user prefers dark mode.".into(), namespace: Some("proj".into()), ..Default::default() }).unwrap();
    assert!(!other.deduplicated);
    // Meaningful symbols are not punctuation.
    assert!(!e.add(NewMemory { content: "The user prefers dark mode?!".into(), ..Default::default() }).unwrap().memory.id.is_empty());
    assert_eq!(e.stats().memories, 2);
    let kinds: Vec<EventKind> = e.history(&first.memory.id).unwrap().iter().map(|h| h.event).collect();
    assert_eq!(kinds, [EventKind::Add, EventKind::Reinforce, EventKind::Reinforce]);
}

#[test]
fn the_same_words_about_another_fact_are_a_new_memory() {
    use engram::engine::Evolving;
    let (mut e, _) = engine();
    let on = |thread: &str, value: &str| NewMemory {
        content: "We use it for everything.".into(),
        evolving: Evolving { thread: Some(thread.into()), value: Some(value.into()), ..Default::default() },
        ..Default::default()
    };
    let a = e.add(on("team/editor", "vim")).unwrap();
    assert!(!e.add(on("team/editor", "emacs")).unwrap().deduplicated, "another value on the thread");
    assert!(!e.add(on("team/shell", "vim")).unwrap().deduplicated, "another thread");
    let again = e.add(on("team/editor", "vim")).unwrap();
    assert!(again.deduplicated && again.memory.id == a.memory.id, "the same fact is reinforced");
    // Another date is another event; no date says nothing new.
    let dated = |at: Option<i64>| NewMemory { content: "Went to the dentist.".into(), event_at: at, ..Default::default() };
    let first = e.add(dated(Some(T0 - 86_400_000))).unwrap();
    assert!(!e.add(dated(Some(T0))).unwrap().deduplicated);
    assert_eq!(e.add(dated(None)).unwrap().memory.id, first.memory.id);
    assert_eq!(e.stats().memories, 5);
    // A batch applies the same rule, within itself too.
    let many = e.add_many(vec![on("team/editor", "nano"), on("team/editor", "nano"), on("team/editor", "vim")]).unwrap();
    assert_eq!(many.iter().map(|a| a.deduplicated).collect::<Vec<_>>(), [false, true, true]);
    assert_eq!(many[2].memory.id, a.memory.id);
    assert_eq!(e.stats().memories, 6);
}

#[test]
fn keyword_ranking_follows_bm25() {
    let (mut e, _) = engine();
    for c in [
        "Alice adopted a golden retriever named Max",
        "Bob's cat knocks everything off the table",
        "Alice and Bob went hiking; Alice brought the dog Max along and Max loved it",
        "The quarterly report is due Friday",
        "Golden hour photography tips",
    ] {
        add(&mut e, c);
    }
    assert_eq!(
        search(&mut e, "Max the dog", None),
        ["Alice and Bob went hiking; Alice brought the dog Max along and Max loved it", "Alice adopted a golden retriever named Max",],
        "documents sharing only a function word (`the`) with the query are not matches"
    );
    // A query made only of function words still searches with them.
    assert_eq!(search(&mut e, "the", None).len(), 3);
    assert_eq!(search(&mut e, "golden", None), ["Golden hour photography tips", "Alice adopted a golden retriever named Max"]);
    assert_eq!(search(&mut e, "Bob", None)[0], "Bob's cat knocks everything off the table");
    assert!(search(&mut e, "zeppelin", None).is_empty());
}

#[test]
fn update_and_delete_leave_no_ghosts() {
    let (mut e, _) = engine();
    let a = add(&mut e, "the launch code is pelican");
    let b = add(&mut e, "a pelican migrates in winter");
    add(&mut e, "ordinary note");
    e.update(&a, MemoryPatch { content: Some("the launch code is albatross".into()), ..Default::default() }).unwrap();
    assert_eq!(search(&mut e, "pelican", None), ["a pelican migrates in winter"]);
    assert_eq!(search(&mut e, "albatross", None), ["the launch code is albatross"]);
    e.delete(&b).unwrap();
    assert!(search(&mut e, "pelican migrates", None).is_empty());
    assert!(e.get(&b).is_none());
    assert_eq!(e.delete(&b).unwrap_err().code, ErrorCode::NotFound);
    assert_eq!(e.update(&b, MemoryPatch { importance: Some(0.2), ..Default::default() }).unwrap_err().code, ErrorCode::NotFound);
    // Scores equal those of a store that never held the deleted memory.
    let (mut fresh, _) = engine();
    add(&mut fresh, "the launch code is albatross");
    add(&mut fresh, "ordinary note");
    let q = SearchRequest { query: Some("launch note".into()), dry_run: true, explain: true, ..Default::default() };
    let s1: Vec<f64> = e.search(&q).unwrap().iter().map(|h| h.explain.as_ref().unwrap().keyword.unwrap()).collect();
    let s2: Vec<f64> = fresh.search(&q).unwrap().iter().map(|h| h.explain.as_ref().unwrap().keyword.unwrap()).collect();
    assert_eq!(s1.len(), 2);
    for (x, y) in s1.iter().zip(&s2) {
        assert!((x - y).abs() < 1e-6, "{s1:?} vs {s2:?}");
    }
    // Tags are searchable and updates of tags re-index.
    e.update(&a, MemoryPatch { tags: Some(vec!["secret".into()]), ..Default::default() }).unwrap();
    assert_eq!(search(&mut e, "secret", None), ["the launch code is albatross"]);
    e.update(&a, MemoryPatch { tags: Some(vec![]), ..Default::default() }).unwrap();
    assert!(search(&mut e, "secret", None).is_empty());
}

#[test]
fn namespaces_are_isolated_except_default() {
    let (mut e, _) = engine();
    add_in(&mut e, "default", "shared: the user is called Sam");
    add_in(&mut e, "alpha", "alpha project uses postgres");
    add_in(&mut e, "beta", "beta project uses sqlite");
    assert_eq!(search(&mut e, "project uses", Some("alpha")), ["alpha project uses postgres"]);
    assert_eq!(search(&mut e, "project uses", Some("beta")), ["beta project uses sqlite"]);
    assert_eq!(search(&mut e, "Sam", Some("alpha")), ["shared: the user is called Sam"]);
    assert!(search(&mut e, "postgres", None).is_empty(), "default does not see alpha");
    assert_eq!(e.get_all(Some("alpha"), 10, 0).unwrap().len(), 1);
    assert_eq!(e.delete_all(Some("alpha")).unwrap(), 1);
    assert!(search(&mut e, "postgres", Some("alpha")).is_empty());
    assert_eq!(e.stats().memories, 2);
    assert_eq!(e.get_all(Some("bad\nns"), 10, 0).unwrap_err().code, ErrorCode::InvalidInput);
}

#[test]
fn history_records_every_change_and_survives_delete() {
    let (mut e, clock) = engine();
    let id = add(&mut e, "version one");
    clock.advance(1000);
    e.update(&id, MemoryPatch { content: Some("version two".into()), ..Default::default() }).unwrap();
    clock.advance(1000);
    e.update(&id, MemoryPatch { importance: Some(0.9), ..Default::default() }).unwrap();
    let h = e.history(&id).unwrap();
    assert_eq!(h[1].previous_content.as_deref(), Some("version one"));
    assert_eq!(h[1].content.as_deref(), Some("version two"));
    assert_eq!(h[2].previous_content, None, "importance-only update keeps the text");
    clock.advance(1000);
    e.delete(&id).unwrap();
    let h = e.history(&id).unwrap();
    let kinds: Vec<EventKind> = h.iter().map(|x| x.event).collect();
    assert_eq!(kinds, [EventKind::Add, EventKind::Update, EventKind::Update, EventKind::Delete]);
    assert_eq!(h.iter().map(|x| x.at).collect::<Vec<_>>(), [T0, T0 + 1000, T0 + 2000, T0 + 3000]);
    // Deleting takes the text out of every event of the memory: the events stay, the text goes.
    assert!(h.iter().all(|x| x.content.is_none() && x.previous_content.is_none()), "{h:?}");
    assert_eq!(e.history("00000000-0000-4000-8000-000000000000").unwrap_err().code, ErrorCode::NotFound);
    e.reset();
    assert_eq!(e.history(&id).unwrap_err().code, ErrorCode::NotFound);
    assert_eq!(e.stats().memories, 0);
}

#[test]
fn writes_land_in_buffer_with_defaults_and_search_touches() {
    let (mut e, clock) = engine();
    let m = e.add(NewMemory { content: "always run tests before pushing".into(), kind: Some(Kind::Procedural), ..Default::default() }).unwrap().memory;
    assert_eq!((m.layer, m.kind, m.importance, m.access_count), (Layer::Buffer, Kind::Procedural, 0.5, 0));
    clock.advance(5000);
    let q = SearchRequest { query: Some("run tests before pushing".into()), ..Default::default() };
    let hits = e.search(&q).unwrap();
    assert_eq!(hits.len(), 1);
    let id = m.id;
    let m = e.get(&id).unwrap();
    assert_eq!((m.access_count, m.last_accessed), (1, T0 + 5000));
    // dry run and weak matches do not touch.
    e.search(&SearchRequest { dry_run: true, ..q.clone() }).unwrap();
    e.search(&SearchRequest { query: Some("pushing cats dogs birds fish".into()), ..Default::default() }).unwrap();
    assert_eq!(e.get(&id).unwrap().access_count, 1);
}

#[test]
fn hybrid_search_fuses_vectors_and_keywords() {
    let (mut e, _) = engine();
    let mk = |c: &str, v: [f32; 3]| NewMemory { content: c.into(), embedding: Some(v.to_vec()), ..Default::default() };
    e.add(mk("cats are small felines", [1.0, 0.0, 0.0])).unwrap();
    e.add(mk("kittens purr when happy", [0.9, 0.1, 0.0])).unwrap();
    e.add(mk("stock markets fell today", [0.0, 0.0, 1.0])).unwrap();
    // Pure vector search.
    let v = SearchRequest { embedding: Some(vec![1.0, 0.05, 0.0]), dry_run: true, ..Default::default() };
    let got: Vec<String> = e.search(&v).unwrap().into_iter().map(|h| h.content().to_string()).collect();
    assert_eq!(got[..2], ["cats are small felines", "kittens purr when happy"]);
    // Hybrid: the keyword "purr" lifts the kitten memory above the closer vector.
    let h = SearchRequest { query: Some("purr".into()), ..v.clone() };
    assert_eq!(e.search(&h).unwrap()[0].content(), "kittens purr when happy");
    // Wrong dimension is a typed error.
    let bad = SearchRequest { embedding: Some(vec![1.0, 0.0]), ..Default::default() };
    assert_eq!(e.search(&bad).unwrap_err().code, ErrorCode::InvalidInput);
    assert_eq!(e.add(NewMemory { content: "x".into(), embedding: Some(vec![1.0; 4]), ..Default::default() }).unwrap_err().code, ErrorCode::InvalidInput);
    assert_eq!(e.search(&SearchRequest::default()).unwrap_err().code, ErrorCode::InvalidInput);
}

#[test]
fn one_ingest_carries_at_most_its_byte_budget() {
    let (mut e, _) = engine();
    // Turns of one long word index cheaply; the budget counts role and content bytes.
    let turn = |n: usize| engram::TurnInput { role: "user".into(), content: "a".repeat(n), ..Default::default() };
    let per_turn = validate::RAW_CONTENT_MAX_CHARS;
    let full = validate::INGEST_BYTES_MAX / (per_turn + 4);
    let rest = validate::INGEST_BYTES_MAX - full * (per_turn + 4) - 4;
    let mut turns: Vec<_> = (0..full).map(|_| turn(per_turn)).collect();
    turns.push(turn(rest));
    let session = |turns: Vec<engram::TurnInput>| engram::SessionInput { id: "big".into(), turns, ..Default::default() };
    let mut over = turns.clone();
    over.last_mut().unwrap().content.push('a');
    let err = e.ingest(session(over)).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput, "{err}");
    assert_eq!(e.stats().raw_entries, 0, "nothing of a refused session is kept");
    let done = e.ingest(session(turns)).unwrap();
    assert_eq!(done.added, full + 1, "exactly at the budget is accepted");
}
