//! Consolidation against its invariants over long random runs through persistence: 10^4 operations
//! (adds that repeat, updates, searches that reinforce, pins, consolidations judged by a random —
//! sometimes hostile — double, reopen from storage). After every epoch: nothing skipped a layer,
//! core was reached only through the gate or a pin, no working or core memory left except into a
//! merge survivor, every action is in history; a reopen gives back the same state. And a storage
//! failure at any call of a consolidation's write leaves the last acknowledged state.

#[path = "support/persist.rs"]
mod persist_common;

use std::cell::RefCell;
use std::collections::HashMap;

use engram::engine::ConsolidateOptions;
use engram::host::{Llm, ScriptedLlm};
use engram::lifecycle::report::{ActionKind, ConsolidateReport, LlmLevel};
use engram::llm::{LlmFailure, LlmRequest, Purpose};
use engram::model::{Layer, Pin};
use engram::persist::{block_on, Store};
use engram::store::EventKind;
use engram::{MemoryPatch, NewMemory, SearchRequest};
use persist_common::*;
use serde_json::{json, Value};

fn offered(r: &LlmRequest) -> Vec<String> {
    let items = &r.schema["properties"]["decisions"]["items"]["properties"];
    let e = if items["id"].is_object() { &items["id"]["enum"] } else { &items["pair"]["enum"] };
    e.as_array().map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect()).unwrap_or_default()
}

/// Decides at random: valid decisions mostly, sometimes garbage, failures or ids never offered.
fn random_judge(seed: u64) -> ScriptedLlm {
    let rng = RefCell::new(Rng(seed));
    ScriptedLlm::answering(move |r: &LlmRequest| {
        let mut rng = rng.borrow_mut();
        let pick = |rng: &mut Rng, options: &[&str]| options[rng.below(options.len())].to_string();
        match rng.below(10) {
            0 => return Err(LlmFailure::Error("boom".into())),
            1 => return Ok("{not json".to_string()),
            2 => return Ok(json!({"decisions": [{"id": "not-offered", "pair": "pair-99", "decision": "promote"}]}).to_string()),
            _ => {}
        }
        let ids = offered(r);
        let reply = match r.purpose {
            Purpose::Triage => json!({"decisions": ids.iter().map(|i| json!({"id": i, "decision": pick(&mut rng, &["promote", "keep"])})).collect::<Vec<_>>()}),
            Purpose::Gate => {
                json!({"decisions": ids.iter().map(|i| json!({"id": i, "decision": pick(&mut rng, &["approve", "reject"]), "category": pick(&mut rng, &["identity", "none"])})).collect::<Vec<_>>()})
            }
            Purpose::Merge => {
                json!({"decisions": ids.iter().map(|i| json!({"pair": i, "decision": pick(&mut rng, &["merge", "distinct"]), "content": "merged note"})).collect::<Vec<_>>()})
            }
            Purpose::Reconcile => {
                json!({"decisions": ids.iter().map(|i| json!({"pair": i, "decision": pick(&mut rng, &["update", "absorb", "keep_both"]), "content": "combined note"})).collect::<Vec<_>>()})
            }
            _ => json!({"content": "a summary", "importance": 0.5}),
        };
        Ok(reply.to_string())
    })
}

const WORDS: [&str; 10] = ["coffee", "tea", "mountain", "river", "garden", "violin", "paris", "tokyo", "cat", "dog"];

fn layers<S: engram::host::Storage>(store: &Store<S>) -> HashMap<String, (Layer, Pin)> {
    store.engine().memories_with_vectors().map(|(m, _)| (m.id.clone(), (m.layer, m.pin))).collect()
}

/// Checks one epoch's report against the states before and after it.
fn check_epoch<S: engram::host::Storage>(store: &Store<S>, before: &HashMap<String, (Layer, Pin)>, report: &ConsolidateReport, epochs_before: &HashMap<String, u64>) {
    let after = layers(store);
    let e = store.engine();
    let merged_into: HashMap<&str, &str> = report.actions.iter().filter(|a| a.action == ActionKind::Merge).map(|a| (a.ids[1].as_str(), a.ids[0].as_str())).collect();
    for (id, (was, _)) in before {
        match after.get(id) {
            Some((now, pin)) => {
                assert!(*now >= *was && (*now as u8) <= (*was as u8) + 1, "{id}: {was:?} → {now:?} skipped or went back");
                if *now == Layer::Core && *was != Layer::Core {
                    let gated = report.actions.iter().any(|a| a.action == ActionKind::Promote && a.ids[0] == *id && a.prompt_id.as_deref() == Some("gate@1"));
                    assert!(gated || *pin == Pin::Pinned, "{id} reached core without the gate or a pin");
                }
                if now != was {
                    assert_eq!(e.history(id).unwrap().last().unwrap().event, EventKind::Promote, "{id}: a layer change without its event");
                }
            }
            None if *was != Layer::Buffer => {
                // Merges may chain within an epoch (a survivor absorbed in turn): follow them.
                let mut survivor = *merged_into.get(id.as_str()).unwrap_or_else(|| panic!("{id} ({was:?}) was deleted by the lifecycle"));
                for _ in 0..merged_into.len() {
                    match merged_into.get(survivor) {
                        Some(next) if !after.contains_key(survivor) => survivor = next,
                        _ => break,
                    }
                }
                assert!(after.contains_key(survivor), "{id} merged into a memory that is gone");
            }
            None => {
                let last = e.history(id).unwrap().last().unwrap().event;
                assert!(matches!(last, EventKind::Evict | EventKind::Merge), "{id} left the buffer without its event ({last:?})");
            }
        }
    }
    for a in &report.actions {
        let has = |id: &str, kind: EventKind| e.history(id).unwrap().iter().any(|h| h.event == kind);
        match a.action {
            ActionKind::Promote => assert!(has(&a.ids[0], EventKind::Promote)),
            ActionKind::Merge => assert!(has(&a.ids[0], EventKind::Merge) && has(&a.ids[1], EventKind::Merge)),
            ActionKind::Supersede => assert!(has(&a.ids[0], EventKind::Supersede)),
            ActionKind::Evict => assert!(has(&a.ids[0], EventKind::Evict)),
            ActionKind::Decay => assert_eq!(e.epoch(&a.namespace), epochs_before.get(&a.namespace).copied().unwrap_or(0) + 1),
            _ => {}
        }
    }
}

#[test]
fn ten_thousand_random_operations_keep_the_lifecycle_invariants_through_reopen() {
    let storage = Faulty::default();
    let mut store = block_on(Store::open(storage.clone(), Box::new(clock()), options(400))).unwrap();
    let judge = random_judge(99);
    let mut rng = Rng(2024);
    let mut epochs = 0;
    for step in 0..10_000usize {
        let ids: Vec<String> = store.engine().memories_with_vectors().map(|(m, _)| m.id.clone()).collect();
        let pick = |rng: &mut Rng| ids.get(rng.below(ids.len().max(1))).cloned();
        let ns = ["default", "work"][rng.below(2)];
        match rng.below(100) {
            0..=49 => {
                let content = format!("{} and {} note {}", WORDS[rng.below(10)], WORDS[rng.below(10)], rng.below(40));
                let pin = (rng.below(50) == 0).then_some(Pin::Pinned);
                let evolving = engram::engine::Evolving { pin, ..Default::default() };
                block_on(store.add(NewMemory { content, namespace: Some(ns.into()), importance: Some(rng.below(100) as f64 / 100.0), evolving, ..Default::default() })).unwrap();
            }
            50..=59 => {
                if let Some(id) = pick(&mut rng) {
                    block_on(store.update(&id, MemoryPatch { importance: Some(0.9), ..Default::default() })).unwrap();
                }
            }
            60..=64 => {
                if let Some(id) = pick(&mut rng) {
                    block_on(store.delete(&id)).unwrap();
                }
            }
            65..=79 => {
                store.search(&SearchRequest { query: Some(WORDS[rng.below(10)].into()), limit: Some(5), ..Default::default() }).unwrap();
            }
            80..=96 => {
                let before = layers(&store);
                let epochs_before: HashMap<String, u64> = ["default", "work"].iter().map(|n| (n.to_string(), store.engine().epoch(n))).collect();
                let level = [LlmLevel::Off, LlmLevel::Auto, LlmLevel::On][rng.below(3)];
                let options = ConsolidateOptions { level, buffer_cap: 30, max_llm_calls: Some(rng.below(6)), ..ConsolidateOptions::default() };
                let llm: Option<&dyn Llm> = (level != LlmLevel::Off).then_some(&judge);
                let report = block_on(store.mutate(|e| e.consolidate_with(llm, &options))).unwrap();
                check_epoch(&store, &before, &report, &epochs_before);
                epochs += 1;
            }
            _ => {
                // Reopen from storage: the same state comes back.
                flush(&mut store);
                let want = store.engine().state();
                store = block_on(Store::open(storage.clone(), Box::new(clock()), options(400))).unwrap();
                assert_same(store.engine().state(), want, &format!("reopen at step {step}"));
            }
        }
    }
    assert!(epochs > 1000 && judge.seen.borrow().len() > 100, "{epochs} epochs, {} calls", judge.seen.borrow().len());
    let s = store.engine().stats();
    assert!(s.by_layer.get("working").copied().unwrap_or(0) > 0, "{s:?}");
}

#[test]
fn a_storage_failure_at_any_call_of_a_consolidation_leaves_the_last_acknowledged_state() {
    for fail_at in 0..8 {
        let storage = Faulty::default();
        let mut store = open(storage.clone(), 3).unwrap();
        for i in 0..12 {
            block_on(store.add(NewMemory { content: format!("{} note {}", WORDS[i % 10], i / 2), importance: Some(0.05), ..Default::default() })).unwrap();
        }
        for i in 0..6 {
            block_on(store.add(NewMemory { content: format!("{} note {}", WORDS[i % 10], i / 2), ..Default::default() })).unwrap();
        }
        flush(&mut store);
        let acknowledged = store.engine().state();
        storage.fail_at.set(Some((storage.calls.get() + fail_at, Fault::TornThenIo)));
        let options = ConsolidateOptions { buffer_cap: 4, ..ConsolidateOptions::default() };
        let result = block_on(store.mutate(|e| e.consolidate_with(None, &options)));
        storage.clear_fault();
        let after = store.engine().state();
        match result {
            Ok(_) => assert_ne!(after, acknowledged, "fail at {fail_at}: a consolidation that resolved changed the state"),
            Err(_) => assert_same(after.clone(), acknowledged.clone(), &format!("fail at {fail_at}: undone in memory")),
        }
        let reopened = open_state(storage.inner.dump()).unwrap();
        assert_same(reopened, after, &format!("fail at {fail_at}: storage holds what memory holds"));
    }
}
