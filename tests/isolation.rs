//! Namespaces do not leak: every read in one namespace (search over memories and turns, context
//! blocks, resume, evolving recall, thread, gather, export, consolidation) returns only that
//! namespace's records and the shared `default`'s (unless the store or the call leaves it out),
//! never another's; and `deleteAll({namespace})`
//! leaves none of that namespace's memories or raw turns in any index, export or stored byte.

#[path = "support/persist.rs"]
mod persist_common;

use engram::engine::{ConsolidateOptions, Evolving, Namespaces};
use engram::model::Shape;
use engram::persist::{block_on, Store};
use engram::{NewMemory, Scope, SearchRequest, SessionInput, TurnInput};
use persist_common::*;

/// Each namespace's words: the same topics, with a marker word only that namespace uses.
const SPACES: [(&str, &str); 3] = [("alice", "zanzibar"), ("bob", "quokka"), ("default", "lighthouse")];

fn fill<S: engram::host::Storage>(store: &mut Store<S>) {
    for (ns, marker) in SPACES {
        for (i, topic) in ["tea in the morning", "the pharmacy on 5th", "the weekly report"].iter().enumerate() {
            let content = format!("{ns} says {marker} about {topic} (note {i})");
            let evolving = Evolving {
                shape: Some(Shape::EvolvingAttribute),
                thread: Some(format!("user/topic-{i}")),
                value: Some(format!("{marker} {i}")),
                area: vec!["life".into()],
                ..Default::default()
            };
            block_on(store.add(NewMemory { content, namespace: Some(ns.into()), evolving, ..Default::default() })).unwrap();
        }
        let turns = vec![TurnInput { role: "user".into(), content: format!("I told you {marker} things about tea and the pharmacy"), ..TurnInput::default() }];
        block_on(store.ingest(SessionInput { id: format!("{ns}-chat"), namespace: Some(ns.into()), date: None, turns, allow_secrets: false })).unwrap();
    }
}

fn open_store(storage: Faulty) -> Store<Faulty> {
    open_store_with(storage, false)
}

fn open_store_with(storage: Faulty, exclude_default: bool) -> Store<Faulty> {
    let embedder: Box<dyn engram::host::Embedder> = Box::new(HashEmbedder { id: "hash".into(), dims: 16 });
    let mut o = options(usize::MAX);
    o.engine.embedder = Some(embedder);
    o.engine.exclude_default = exclude_default;
    // Graph segments from a handful of vectors, so a wipe is checked against them too.
    o.engine.vectors = engram::index::VectorOptions {
        graph_min: 2,
        build: engram::index::BuildOptions { ef_construction: 16, ef_search: 64, always_graph: true, ..Default::default() },
        ..Default::default()
    };
    block_on(Store::open(storage, Box::new(clock()), o)).unwrap()
}

/// The markers of the namespaces `ns` must not see.
fn foreign(ns: &str) -> Vec<&'static str> {
    SPACES.iter().filter(|(n, _)| *n != ns && *n != "default").map(|(_, m)| *m).collect()
}

fn assert_clean(what: &str, ns: &str, text: &str) {
    for m in foreign(ns) {
        assert!(!text.contains(m), "{what} in `{ns}` shows another namespace's `{m}`: {text}");
    }
}

#[test]
fn every_read_in_a_namespace_sees_only_it_and_default() {
    let mut store = open_store(Faulty::default());
    fill(&mut store);
    for (ns, marker) in SPACES.iter().take(2) {
        let e_ns = Some(*ns);
        for scope in [Scope::All, Scope::Memories, Scope::Raw] {
            for q in ["tea pharmacy report", "zanzibar quokka lighthouse", *marker] {
                let req = SearchRequest {
                    query: Some(q.into()),
                    namespace: Some(ns.to_string()),
                    scope,
                    limit: Some(50),
                    neighbors: 2,
                    expand_links: true,
                    include_superseded: true,
                    ..Default::default()
                };
                let hits = store.search(&req).unwrap();
                assert!(!hits.is_empty(), "{ns}: {q}");
                let text = serde_json::to_string(&hits.iter().map(engram::api::hit_view).collect::<Vec<_>>()).unwrap();
                assert_clean("search", ns, &text);
            }
        }
        let ctx = store.read(|e| e.recall_context("tea pharmacy report zanzibar quokka", e_ns, 4000)).unwrap();
        assert_clean("recallContext", ns, &ctx.text);
        assert!(ctx.text.contains(marker));
        let resume = store.read(|e| e.resume(e_ns, 4000)).unwrap();
        assert_clean("resume", ns, &resume.text);
        let recall = store.read(|e| e.recall("what about tea, the pharmacy and the report?", e_ns, 4000, None)).unwrap();
        assert_clean("recall", ns, &serde_json::to_string(&recall.answers).unwrap());
        assert_clean("recall", ns, &recall.context.text);
        for i in 0..3 {
            let t = store.read(|e| e.thread(&format!("user/topic-{i}"), e_ns, None)).unwrap();
            assert_clean("thread", ns, &serde_json::to_string(&t).unwrap());
        }
        let g = store.read(|e| e.gather("life", e_ns, None)).unwrap();
        assert_clean("gather", ns, &serde_json::to_string(&g).unwrap());
        let export = String::from_utf8_lossy(&store.export(Some(ns))).to_string();
        assert_clean("export", ns, &export);
        assert!(export.contains(marker));
        let others: Vec<(&str, u64)> = SPACES.iter().filter(|(n, _)| n != ns).map(|(n, _)| (*n, store.engine().epoch(n))).collect();
        let report = block_on(store.mutate(|e| e.consolidate_with(None, &ConsolidateOptions { namespace: Some(ns.to_string()), ..ConsolidateOptions::default() }))).unwrap();
        assert_eq!(report.epochs.keys().collect::<Vec<_>>(), vec![*ns], "an epoch of one namespace");
        assert!(report.actions.iter().all(|a| a.namespace == *ns));
        for (other, epoch) in others {
            assert_eq!(store.engine().epoch(other), epoch, "{other}'s epoch moved");
        }
    }
}

/// Every read in `ns` through `within`: the shared namespace's marker shows up somewhere exactly
/// when `sees_default`, and another tenant's never.
fn reads_in(store: &mut Store<Faulty>, ns: &str, within: Namespaces, sees_default: bool) {
    let default_marker = "lighthouse";
    let mut seen = String::new();
    for scope in [Scope::All, Scope::Memories, Scope::Raw] {
        let req = SearchRequest {
            query: Some("tea pharmacy report lighthouse".into()),
            namespace: Some(ns.into()),
            include_default: within.include_default,
            scope,
            limit: Some(50),
            neighbors: 2,
            expand_links: true,
            include_superseded: true,
            ..Default::default()
        };
        let hits = store.search(&req).unwrap();
        assert!(!hits.is_empty(), "{ns}: search");
        seen += &serde_json::to_string(&hits.iter().map(engram::api::hit_view).collect::<Vec<_>>()).unwrap();
    }
    seen += &store.read(|e| e.recall_context("tea pharmacy report lighthouse", within, 4000)).unwrap().text;
    seen += &store.read(|e| e.resume(within, 4000)).unwrap().text;
    let recall = store.read(|e| e.recall("what about tea, the pharmacy, the report and the lighthouse?", within, 4000, None)).unwrap();
    seen += &serde_json::to_string(&recall.answers).unwrap();
    seen += &recall.context.text;
    for i in 0..3 {
        seen += &serde_json::to_string(&store.read(|e| e.thread(&format!("user/topic-{i}"), within, None)).unwrap()).unwrap();
    }
    seen += &serde_json::to_string(&store.read(|e| e.gather("life", within, None)).unwrap()).unwrap();
    assert_clean("a read", ns, &seen);
    assert_eq!(seen.contains(default_marker), sees_default, "{ns} through {within:?}: the shared namespace seen: {seen}");
}

#[test]
fn the_shared_namespace_is_left_out_per_call_or_per_store() {
    // Per call: a store that shares `default`, read with `includeDefault: false`.
    let mut store = open_store(Faulty::default());
    fill(&mut store);
    reads_in(&mut store, "alice", Namespaces::from("alice"), true);
    reads_in(&mut store, "alice", Namespaces::only("alice"), false);
    // Per store: reads leave it out unless a call asks; new memories link only within their namespace.
    let mut store = open_store_with(Faulty::default(), true);
    fill(&mut store);
    reads_in(&mut store, "bob", Namespaces::from("bob"), false);
    reads_in(&mut store, "bob", Namespaces::from("bob").include_default(Some(true)), true);
    // A memory of bob's written after the shared one it repeats: linked to it only where shared.
    let links_into_default = |store: &mut Store<Faulty>| {
        let twin = NewMemory { content: "default says lighthouse about tea in the morning (note 0)".into(), namespace: Some("bob".into()), ..Default::default() };
        let added = block_on(store.add(twin)).unwrap();
        let default_ids: Vec<String> = store.engine().get_all(Some("default"), 100, 0).unwrap().into_iter().map(|m| m.id).collect();
        added.memory.links.iter().filter(|l| default_ids.contains(l)).count()
    };
    assert_eq!(links_into_default(&mut store), 0);
    let mut shared = open_store(Faulty::default());
    fill(&mut shared);
    assert!(links_into_default(&mut shared) > 0, "where the namespace is shared, a memory links into it");
}

#[test]
fn delete_all_leaves_none_of_a_namespaces_memories_in_any_index_export_or_stored_byte() {
    let storage = Faulty::default();
    let mut store = open_store(storage.clone());
    fill(&mut store);
    while let Some(input) = store.plan_vector_build(true) {
        block_on(store.install_vector_build(input.build())).unwrap();
    }
    let bob_ids: Vec<String> = store.engine().memories_with_vectors().filter(|(m, _)| m.namespace == "bob").map(|(m, _)| m.id.clone()).collect();
    let bob_turns: Vec<String> = store.engine().session("bob-chat").unwrap().into_iter().map(|t| t.id).collect();
    let segment = |key: &[String]| key.get(1).is_some_and(|k| k == "vgraph");
    let segments_holding =
        |ids: &[String]| storage.inner.dump().into_iter().filter(|(k, v)| segment(k) && ids.iter().any(|id| String::from_utf8_lossy(v).contains(id.as_str()))).count();
    assert!(segments_holding(&bob_ids) > 0 && segments_holding(&bob_turns) > 0, "the test needs graph segments holding bob's vectors");
    let before = store.engine().stats();
    let gone = block_on(store.delete_all(Some("bob"))).unwrap();
    assert_eq!(gone, 3);
    // Its memories: not in the table, the keyword index, the vectors, the threads or an export.
    let e = store.engine();
    assert!(e.memories_with_vectors().all(|(m, _)| m.namespace != "bob"));
    assert_eq!(e.stats().vectors, before.vectors - 3);
    for ns in ["bob", "alice", "default"] {
        let req = SearchRequest { query: Some("quokka".into()), namespace: Some(ns.into()), scope: Scope::Memories, include_superseded: true, ..Default::default() };
        let hits = store.search(&req).unwrap();
        assert!(hits.iter().all(|h| !serde_json::to_string(&engram::api::hit_view(h)).unwrap().contains("quokka")), "{ns}: a deleted memory is still found");
    }
    assert!(store.read(|e| e.thread("user/topic-0", Some("bob"), None)).map(|t| serde_json::to_string(&t).unwrap()).unwrap_or_default().matches("quokka").count() == 0);
    let memories_export = String::from_utf8_lossy(&store.export(Some("bob"))).to_string();
    assert!(!memories_export.contains("bob says quokka"), "export after deleteAll");
    // Its raw sessions went too: no turn is found, listed or exported, and after compaction no
    // stored byte holds its text.
    assert!(store.engine().sessions(Some("bob")).unwrap().is_empty(), "bob's sessions survived deleteAll");
    assert_eq!(store.engine().sessions(Some("alice")).unwrap(), vec!["alice-chat".to_string()], "another namespace's session went too");
    for ns in ["bob", "alice", "default"] {
        let req = SearchRequest { query: Some("quokka".into()), namespace: Some(ns.into()), scope: Scope::Raw, ..Default::default() };
        let hits = store.search(&req).unwrap();
        assert!(hits.iter().all(|h| !serde_json::to_string(&engram::api::hit_view(h)).unwrap().contains("quokka")), "{ns}: a deleted namespace's turn is still found");
    }
    block_on(store.compact()).unwrap();
    assert_eq!(segments_holding(&bob_ids) + segments_holding(&bob_turns), 0, "a graph segment still holds the wiped namespace's vectors");
    for (key, bytes) in storage.inner.dump() {
        assert!(!String::from_utf8_lossy(&bytes).contains("quokka"), "stored record {key:?} still holds the deleted namespace's text");
    }
}
