//! The one pipeline of the LLM jobs as the wasm boundary drives it: a plan serialized by
//! `plan_job`, handed back by the host with its results and read by `JobPlan::from_json`, applied
//! by `apply_job`; and the host-embedder helpers (`embedding_texts`, `vectorless`, `set_vectors`).

use std::rc::Rc;

use engram::engine::{ExtractOptions, Job, JobPlan, JobReport, JobRequest, ToEmbed, Vectorless};
use engram::host::ManualClock;
use engram::llm::CallResult;
use engram::{EngineOptions, Engram, ErrorCode, NewMemory, SessionInput, TurnInput};

const T0: i64 = 1_700_000_000_000;

fn engine() -> Engram {
    Engram::new(Box::new(Rc::new(ManualClock::new(T0))), EngineOptions { id_seed: Some(5), ..EngineOptions::default() })
}

fn chat() -> SessionInput {
    let turn = |role: &str, content: &str| TurnInput { role: role.into(), content: content.into(), ..TurnInput::default() };
    SessionInput { id: "s1".into(), date: Some(T0), turns: vec![turn("user", "I just adopted a cat named Miso."), turn("assistant", "Congratulations!")], ..Default::default() }
}

/// The host's result of one call that answered `reply` on the first attempt.
fn answered(reply: &str) -> CallResult {
    serde_json::from_value(serde_json::json!({ "outcome": "ok", "attempts": 1, "replies": [reply], "durationMs": 3 })).unwrap()
}

#[test]
fn a_plan_crosses_as_json_and_applies_as_its_job() {
    let mut e = engine();
    e.ingest(chat()).unwrap();
    let request = JobRequest::Extract { session_id: "s1".into(), options: ExtractOptions::default() };
    let text = serde_json::to_string(&e.plan_job(&request).unwrap()).unwrap();
    let plan = JobPlan::from_json(Job::Extract, &text).unwrap();
    assert_eq!((plan.job(), plan.requests().len()), (Job::Extract, 1));
    let reply = r#"{"memories":[{"content":"The user adopted a cat named Miso","kind":"semantic","importance":0.7,"tags":["pets"],"eventAt":null,"derivedFrom":["s1#0"]}]}"#;
    let JobReport::Extract(report) = e.apply_job(&plan, vec![answered(reply)]).unwrap() else { panic!("an extract plan applies as an extract report") };
    assert_eq!((report.added.len(), report.extracted_turns.len(), report.pending_turns.len()), (1, 2, 0));
    // The plan covered turns now extracted: applying it again changes nothing and says why.
    let JobReport::Extract(again) = e.apply_job(&plan, vec![answered(reply)]).unwrap() else { panic!() };
    assert_eq!((again.added.len(), again.skipped.len()), (0, 1));
    assert!(again.skipped[0].reason.contains("extracted meanwhile"), "{}", again.skipped[0].reason);
}

#[test]
fn a_plan_of_one_job_is_not_another_jobs_plan() {
    let mut e = engine();
    e.ingest(chat()).unwrap();
    let text = serde_json::to_string(&e.plan_job(&JobRequest::Extract { session_id: "s1".into(), options: ExtractOptions::default() }).unwrap()).unwrap();
    assert_eq!(JobPlan::from_json(Job::Consolidate, &text).unwrap_err().code, ErrorCode::InvalidInput);
    assert_eq!(Job::parse("reflect").unwrap_err().code, ErrorCode::InvalidInput);
    assert_eq!(Job::parse("author").unwrap(), Job::Author);
    // An author plan of the same turns applies as authoring: its results count must match.
    let author = e.plan_job(&JobRequest::Author { session_id: "s1".into(), options: ExtractOptions::default() }).unwrap();
    assert_eq!(e.apply_job(&author, vec![]).unwrap_err().code, ErrorCode::InvalidInput);
}

#[test]
fn a_host_embedder_is_shown_the_guarded_text_with_the_speaker() {
    let e = engine();
    let key = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c";
    let texts = e.embedding_texts(&[
        ToEmbed { content: format!("my api key is {key}"), ..ToEmbed::default() },
        ToEmbed { content: "hello".into(), speaker: Some("Kim".into()), ..ToEmbed::default() },
        ToEmbed { content: format!("keep {key}"), allow_secrets: true, ..ToEmbed::default() },
    ]);
    let first = texts[0].as_ref().unwrap();
    assert!(!first.contains(key), "{first}");
    assert_eq!(texts[1].as_ref().unwrap(), "Kim: hello");
    assert!(texts[2].as_ref().unwrap().contains(key));
}

#[test]
fn vectors_reach_memories_stored_without_one_and_only_those() {
    let mut e = engine();
    let plain = e.add(NewMemory { content: "The user likes green tea".into(), ..NewMemory::default() }).unwrap().memory;
    let with = e.add(NewMemory { content: "The user owns a cat".into(), embedding: Some(vec![0.0, 1.0, 0.0]), ..NewMemory::default() }).unwrap().memory;
    let missing = e.vectorless(10);
    assert_eq!(missing, vec![Vectorless { id: plain.id.clone(), text: plain.content.clone() }]);
    // A vector of the wrong length is refused before anything is installed.
    assert_eq!(e.set_vectors(vec![(missing[0].clone(), vec![1.0, 0.0])]).unwrap_err().code, ErrorCode::InvalidInput);
    assert_eq!(e.vectorless(10).len(), 1);
    // A memory whose text changed since it was listed keeps none; one listed right gets its vector.
    let stale = Vectorless { id: plain.id.clone(), text: "an older text".into() };
    assert_eq!(e.set_vectors(vec![(stale, vec![1.0, 0.0, 0.0])]).unwrap(), 0);
    assert_eq!(e.set_vectors(vec![(missing[0].clone(), vec![1.0, 0.0, 0.0]), (Vectorless { id: with.id.clone(), text: with.content.clone() }, vec![1.0, 0.0, 0.0])]).unwrap(), 1);
    assert!(e.vectorless(10).is_empty());
    let hits = e.search(&engram::SearchRequest { embedding: Some(vec![1.0, 0.0, 0.0]), limit: Some(1), ..Default::default() }).unwrap();
    assert_eq!(hits[0].id(), plain.id);
}

#[test]
fn vectors_of_mixed_lengths_are_refused_in_a_store_without_any_yet() {
    let mut e = engine();
    e.add(NewMemory { content: "The user likes green tea".into(), ..NewMemory::default() }).unwrap();
    e.add(NewMemory { content: "The user owns a cat".into(), ..NewMemory::default() }).unwrap();
    let missing = e.vectorless(10);
    assert_eq!(missing.len(), 2);
    // No dims are known yet: the first vector's length binds the rest, and nothing is installed.
    let mixed = vec![(missing[0].clone(), vec![1.0, 0.0, 0.0]), (missing[1].clone(), vec![1.0, 0.0])];
    assert_eq!(e.set_vectors(mixed).unwrap_err().code, ErrorCode::InvalidInput);
    assert_eq!(e.vectorless(10).len(), 2);
    let same = vec![(missing[0].clone(), vec![1.0, 0.0]), (missing[1].clone(), vec![0.0, 1.0])];
    assert_eq!(e.set_vectors(same).unwrap(), 2);
}
