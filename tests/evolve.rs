//! Derived states through the public Rust API: typed memories written with `add`, read back with
//! `thread`, `gather` and `recall`. Nothing derived is stored, so every test reads twice at
//! different cutoffs from the same memories.

use std::rc::Rc;

use engram::evolve::{Route, State};
use engram::host::ManualClock;
use engram::model::{DependsOn, Shape};
use engram::{EngineOptions, Engram, ErrorCode, Evolving, EvolvingPatch, MemoryPatch, NewMemory};

const DAY: i64 = 86_400_000;
const T0: i64 = 1_700_000_000_000;

fn engine() -> Engram {
    let clock = Rc::new(ManualClock::new(T0 + 1000 * DAY));
    Engram::new(Box::new(clock), EngineOptions { id_seed: Some(7), ..EngineOptions::default() })
}

struct Fact<'a> {
    day: i64,
    content: &'a str,
    shape: Shape,
    thread: &'a str,
    value: Option<&'a str>,
    corrects: Option<&'a str>,
    depends: Option<(&'a str, Option<&'a str>)>,
    consequent: Option<&'a str>,
    area: &'a [&'a str],
}

fn fact<'a>(day: i64, content: &'a str, shape: Shape, thread: &'a str, value: Option<&'a str>) -> Fact<'a> {
    Fact { day, content, shape, thread, value, corrects: None, depends: None, consequent: None, area: &[] }
}

fn add(e: &mut Engram, f: Fact) -> String {
    let evolving = Evolving {
        shape: Some(f.shape),
        thread: Some(f.thread.into()),
        value: f.value.map(Into::into),
        corrects: f.corrects.map(Into::into),
        depends_on: f.depends.map(|(t, v)| DependsOn { thread: t.into(), value: v.map(Into::into) }),
        consequent: f.consequent.map(Into::into),
        area: f.area.iter().map(|a| a.to_string()).collect(),
        ..Evolving::default()
    };
    e.add(NewMemory { content: f.content.into(), event_at: Some(T0 + f.day * DAY), evolving, ..Default::default() }).unwrap().memory.id
}

fn at(day: i64) -> Option<i64> {
    Some(T0 + day * DAY)
}

#[test]
fn supersession_chain_orders_by_event_time_not_by_writing_order() {
    let mut e = engine();
    // Written out of order: the event dates decide.
    let c = add(&mut e, fact(9, "We use Synthari Modules now", Shape::EvolvingAttribute, "team/package-manager", Some("Synthari Modules")));
    let a = add(&mut e, fact(1, "Our package manager is Karnex Pack", Shape::EvolvingAttribute, "team/package-manager", Some("Karnex Pack")));
    let b = add(&mut e, fact(5, "Switched to Dranith Stack", Shape::EvolvingAttribute, "Team/Package Manager", Some("Dranith Stack")));
    let t = e.thread("team/package-manager", None, None).unwrap();
    let states: Vec<(State, Option<&str>)> = t.values.iter().map(|v| (v.state, v.value.as_deref())).collect();
    assert_eq!(states, [(State::Superseded, Some("Karnex Pack")), (State::Superseded, Some("Dranith Stack")), (State::Current, Some("Synthari Modules"))]);
    assert_eq!(t.values[0].replaced_by.as_ref().unwrap().id, b);
    assert_eq!(t.values[1].replaced_by.as_ref().unwrap().id, c);
    assert_eq!(t.state.as_ref().unwrap().evidence, vec![c.clone()]);
    // As of day 6, Dranith was current and Synthari did not exist yet.
    let past = e.thread("team/package-manager", None, at(6)).unwrap();
    assert_eq!(past.state.unwrap().value.as_deref(), Some("Dranith Stack"));
    assert_eq!(past.values.len(), 2);
    assert_eq!(e.thread("team/package-manager", None, at(0)).unwrap().state, None);
    assert_eq!(e.get(&a).unwrap().thread.as_deref(), Some("team/package-manager"));

    let r = e.recall("Which package managers have we used over time?", None, 600, None).unwrap();
    assert_eq!(r.route, Route::Trail);
    let text = &r.context.text;
    let pos = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} missing from {text}"));
    // The dated history runs oldest to newest after the current state.
    let hist = pos("History, oldest first");
    assert!(hist < text[hist..].find("Karnex Pack").unwrap() + hist);
    let k = hist + text[hist..].find("Karnex Pack").unwrap();
    let d = k + text[k..].find("Dranith Stack").unwrap();
    assert!(text[d..].contains("Synthari Modules"));
    assert!(text.contains("superseded on"));
}

#[test]
fn retraction_withholds_the_value_everywhere_and_a_past_cutoff_still_sees_it() {
    let mut e = engine();
    add(&mut e, fact(1, "My pharmacy is Greenway on 5th", Shape::EvolvingAttribute, "health/pharmacy", Some("Greenway on 5th")));
    let r = add(&mut e, fact(4, "The user asked to forget their pharmacy", Shape::Retraction, "health/pharmacy", None));
    let t = e.thread("health/pharmacy", None, None).unwrap();
    let head = t.state.unwrap();
    assert_eq!(head.state, State::Deleted);
    assert_eq!(head.value, None);
    assert_eq!(head.evidence[0], r);
    assert_eq!(t.values.len(), 1, "the withdrawn value leaves the trail");

    let got = e.recall("Which pharmacy do I use?", None, 600, None).unwrap();
    let all = serde_json::to_string(&(&got.answers, &got.context)).unwrap();
    assert!(!all.contains("Greenway"), "{all}");
    assert_eq!(got.answers[0].state, State::Deleted);
    assert!(got.context.text.contains("Deleted at the user's request on"));

    let before = e.recall("Which pharmacy do I use?", None, 600, at(2)).unwrap();
    assert_eq!(before.answers[0].state, State::Current);
    assert!(before.context.text.contains("Greenway on 5th"));

    // Stated again after the retraction: live again.
    add(&mut e, fact(6, "My pharmacy is Greenway on 5th again", Shape::EvolvingAttribute, "health/pharmacy", Some("Greenway on 5th")));
    assert_eq!(e.thread("health/pharmacy", None, None).unwrap().state.unwrap().state, State::Current);
}

#[test]
fn a_value_said_by_mistake_leaves_the_history_and_forgetting_the_slot_withholds_it_too() {
    let mut e = engine();
    add(&mut e, fact(1, "Our standup is at 9:15", Shape::EvolvingAttribute, "team/standup", Some("9:15")));
    let wrong = add(&mut e, fact(5, "The standup moved to 10:00", Shape::EvolvingAttribute, "team/standup", Some("10:00")));
    let right = add(&mut e, Fact { corrects: Some("10:00"), ..fact(6, "I misspoke: the standup moved to 10:30", Shape::EvolvingAttribute, "team/standup", Some("10:30")) });
    let t = e.thread("team/standup", None, None).unwrap();
    let states: Vec<(State, Option<&str>)> = t.values.iter().map(|v| (v.state, v.value.as_deref())).collect();
    assert_eq!(states, [(State::Superseded, Some("9:15")), (State::Current, Some("10:30"))], "10:00 was never held");
    assert_eq!(t.values[0].replaced_by.as_ref().unwrap().id, right);
    let r = e.recall("What times has the standup been at over time?", None, 600, None).unwrap();
    assert!(r.context.text.contains("9:15") && r.context.text.contains("10:30"), "{}", r.context.text);
    assert!(!r.context.text.contains("10:00"), "{}", r.context.text);
    // Before the correction, the mistaken value was what had been said.
    assert_eq!(e.thread("team/standup", None, at(5)).unwrap().state.unwrap().value.as_deref(), Some("10:00"));
    // A correction naming a value the thread does not hold now is an ordinary change.
    add(&mut e, Fact { corrects: Some("8:00"), ..fact(7, "Standup is at 11:00", Shape::EvolvingAttribute, "team/standup", Some("11:00")) });
    let values: Vec<String> = e.thread("team/standup", None, None).unwrap().values.iter().filter_map(|v| v.value.clone()).collect();
    assert_eq!(values, ["9:15", "10:30", "11:00"]);
    // Forgetting the slot forgets what was said by mistake on it.
    add(&mut e, fact(8, "The user asked to forget the standup time", Shape::Retraction, "team/standup", None));
    let got = e.recall("When is the standup?", None, 600, None).unwrap();
    let all = serde_json::to_string(&(&got.answers, &got.context)).unwrap();
    assert_eq!(got.answers[0].state, State::Deleted);
    for v in ["10:00", "10:30", "9:15"] {
        assert!(!all.contains(v), "{v} in {all}");
    }
    assert!(e.get(&wrong).is_some(), "the mistaken memory is kept: its state is derived, never stored");
}

fn team(e: &mut Engram) {
    add(e, fact(1, "The team lead is Seokjin Kang", Shape::EvolvingAttribute, "team/team-lead", Some("Seokjin Kang")));
    add(
        e,
        Fact {
            depends: Some(("team/team-lead", Some("Seokjin Kang"))),
            consequent: Some("James Lee"),
            ..fact(3, "The weekly report goes to Hyunwoo Nam; Seokjin Kang assigned it", Shape::ConditionalValue, "team/weekly-report-recipient", Some("Hyunwoo Nam"))
        },
    );
    add(
        e,
        Fact {
            depends: Some(("team/team-lead", Some("Seokjin Kang"))),
            ..fact(3, "Code reviews go to Seoyun Choi; Seokjin Kang assigned it", Shape::ContingentValue, "team/code-reviewer", Some("Seoyun Choi"))
        },
    );
}

#[test]
fn conditional_without_upstream_change_stays_current() {
    let mut e = engine();
    team(&mut e);
    let t = e.thread("team/weekly-report-recipient", None, None).unwrap().state.unwrap();
    assert_eq!((t.state, t.value.as_deref(), t.consequent.as_deref()), (State::Current, Some("Hyunwoo Nam"), Some("James Lee")));
    let c = e.thread("team/code-reviewer", None, None).unwrap().state.unwrap();
    assert_eq!(c.state, State::Current);
    // Restating the same lead later is no change.
    add(&mut e, fact(5, "Seokjin Kang is still our lead", Shape::EvolvingAttribute, "team/team-lead", Some("Seokjin Kang")));
    assert_eq!(e.thread("team/code-reviewer", None, None).unwrap().state.unwrap().state, State::Current);
}

#[test]
fn one_hop_cascade_and_uncertainty_name_the_change() {
    let mut e = engine();
    team(&mut e);
    let change = add(&mut e, fact(8, "Jihoon Ryu is our new team lead", Shape::EvolvingAttribute, "team/team-lead", Some("Jihoon Ryu")));
    let w = e.thread("team/weekly-report-recipient", None, None).unwrap().state.unwrap();
    assert_eq!((w.state, w.value.as_deref(), w.previous.as_deref()), (State::Cascaded, Some("James Lee"), Some("Hyunwoo Nam")));
    let b = w.because.unwrap();
    assert_eq!((b.thread.as_str(), b.was.as_deref(), b.now.as_deref(), b.evidence.as_str()), ("team/team-lead", Some("Seokjin Kang"), Some("Jihoon Ryu"), change.as_str()));

    let c = e.thread("team/code-reviewer", None, None).unwrap().state.unwrap();
    assert_eq!((c.state, c.value.as_deref(), c.previous.as_deref()), (State::Uncertain, None, Some("Seoyun Choi")));

    let r = e.recall("Who reviews our code?", None, 600, None).unwrap();
    assert_eq!(r.answers[0].state, State::Uncertain);
    assert!(r.context.text.contains("Uncertain: no current value is known"), "{}", r.context.text);
    assert!(r.context.text.contains("Jihoon Ryu"));
    assert!(r.context.text.contains("set by Seokjin Kang, no longer the team lead (team lead changed to Jihoon Ryu on"));
    let r = e.recall("Who receives the weekly report?", None, 600, None).unwrap();
    assert_eq!(r.answers[0].state, State::Cascaded);
    assert!(r.context.text.contains("James Lee"));

    // Before the change, both held.
    let past = e.recall("Who reviews our code?", None, 600, at(6)).unwrap();
    assert_eq!(past.answers[0].state, State::Current);
    assert!(!past.context.text.contains("Jihoon"));
}

#[test]
fn two_hop_cascade() {
    let mut e = engine();
    add(&mut e, fact(1, "We insure the car with Halden", Shape::EvolvingAttribute, "car/insurer", Some("Halden")));
    add(
        &mut e,
        Fact {
            depends: Some(("car/insurer", Some("Halden"))),
            consequent: Some("Northway Auto Club"),
            ..fact(2, "Roadside assistance comes through Halden", Shape::ConditionalValue, "car/roadside-assistance", Some("Halden roadside"))
        },
    );
    // Depends on the roadside service, with no consequent of its own.
    add(
        &mut e,
        Fact {
            depends: Some(("car/roadside-assistance", None)),
            ..fact(3, "Tow trucks are booked via the Halden app", Shape::ContingentValue, "car/tow-booking", Some("Halden app"))
        },
    );
    assert_eq!(e.thread("car/tow-booking", None, None).unwrap().state.unwrap().state, State::Current);
    add(&mut e, fact(7, "Corvo Insurance covers the car now", Shape::EvolvingAttribute, "car/insurer", Some("Corvo Insurance")));
    let tow = e.thread("car/tow-booking", None, None).unwrap().state.unwrap();
    assert_eq!(tow.state, State::Uncertain);
    let b = tow.because.unwrap();
    assert_eq!(
        (b.thread.as_str(), b.upstream_state, b.now.as_deref(), b.was.as_deref()),
        ("car/roadside-assistance", State::Cascaded, Some("Northway Auto Club"), Some("Halden roadside"))
    );
    assert_eq!(tow.since, at(7), "the change dates from the insurer switch");
}

#[test]
fn uncertain_upstream_propagates_without_a_value() {
    let mut e = engine();
    team(&mut e);
    add(
        &mut e,
        Fact {
            depends: Some(("team/code-reviewer", None)),
            ..fact(4, "Review checklists are kept by Seoyun Choi", Shape::ContingentValue, "team/review-checklist", Some("Seoyun's checklist"))
        },
    );
    add(&mut e, fact(8, "Jihoon Ryu is our new team lead", Shape::EvolvingAttribute, "team/team-lead", Some("Jihoon Ryu")));
    let c = e.thread("team/review-checklist", None, None).unwrap().state.unwrap();
    assert_eq!(c.state, State::Uncertain);
    assert_eq!(c.because.as_ref().unwrap().now, None);
}

#[test]
fn a_later_restatement_outlives_the_upstream_change() {
    let mut e = engine();
    team(&mut e);
    add(&mut e, fact(8, "Jihoon Ryu is our new team lead", Shape::EvolvingAttribute, "team/team-lead", Some("Jihoon Ryu")));
    add(&mut e, fact(9, "Code reviews now go to Mina Park", Shape::EvolvingAttribute, "team/code-reviewer", Some("Mina Park")));
    let c = e.thread("team/code-reviewer", None, None).unwrap().state.unwrap();
    assert_eq!((c.state, c.value.as_deref()), (State::Current, Some("Mina Park")));
}

#[test]
fn gather_collects_an_area_and_exact_keeps_the_phrase() {
    let mut e = engine();
    for (d, p) in [(1, "monstera"), (2, "fiddle-leaf fig"), (3, "string of pearls")] {
        add(&mut e, Fact { area: &["home/plants"], ..fact(d, &format!("I have a {p} plant"), Shape::StableFact, &format!("plants/{p}"), Some(p)) });
    }
    let g = e.gather("Home/Plants", None, None).unwrap();
    assert_eq!(g.answers.iter().map(|a| a.value.as_deref().unwrap()).collect::<Vec<_>>(), ["monstera", "fiddle-leaf fig", "string of pearls"]);
    let r = e.recall("Tell me everything about my plants", None, 600, None).unwrap();
    assert_eq!(r.route, Route::Gather);
    for p in ["monstera", "fiddle-leaf fig", "string of pearls"] {
        assert!(r.context.text.contains(p), "{p}");
    }
    let sig = "2 lb chuck, 3 tbsp ancho <never beans> & \"more\"";
    e.add(NewMemory {
        content: "Grandma's chili ratio, to keep word for word".into(),
        evolving: Evolving { shape: Some(Shape::StableFact), signature: Some(sig.into()), ..Evolving::default() },
        ..Default::default()
    })
    .unwrap();
    let r = e.recall("What is grandma's chili ratio?", None, 600, None).unwrap();
    assert_eq!(r.route, Route::Exact);
    assert_eq!(r.answers[0].value.as_deref(), Some(sig));
    // Byte-exact in the context block too: only a frame tag's `<` is ever escaped there.
    assert!(r.context.text.contains(sig), "{}", r.context.text);
}

#[test]
fn invalid_fields_are_typed_errors_naming_the_field_and_patches_apply() {
    let mut e = engine();
    let bad = [
        Evolving { thread: Some("über/thing".into()), ..Evolving::default() },
        Evolving { confidence: Some(1.5), ..Evolving::default() },
        Evolving { value: Some(" ".into()), ..Evolving::default() },
        Evolving { shape: Some(Shape::Retraction), ..Evolving::default() },
        Evolving { area: vec!["a".into(), "b".into(), "c".into(), "d".into()], ..Evolving::default() },
        Evolving { thread: Some("x".into()), depends_on: Some(DependsOn { thread: "X".into(), value: None }), ..Evolving::default() },
    ];
    for (i, ev) in bad.into_iter().enumerate() {
        let err = e.add(NewMemory { content: format!("memory {i}"), evolving: ev, ..Default::default() }).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        let named = ["thread", "confidence", "value", "retraction", "area", "dependsOn"][i];
        assert!(err.message.contains(named), "{}", err.message);
    }
    assert_eq!(e.count(None).unwrap(), 0);
    let id = add(&mut e, fact(1, "The team lead is Seokjin Kang", Shape::EvolvingAttribute, "team/team-lead", Some("Seokjin Kang")));
    let m = e
        .update(&id, MemoryPatch { evolving: EvolvingPatch { thread: Some(Some("Team / Lead".into())), confidence: Some(Some(0.5)), ..Default::default() }, ..Default::default() })
        .unwrap();
    assert_eq!((m.thread.as_deref(), m.confidence), (Some("team/lead"), Some(0.5)));
    let err = e
        .update(&id, MemoryPatch { evolving: EvolvingPatch { thread: Some(None), shape: Some(Some(Shape::Retraction)), ..Default::default() }, ..Default::default() })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert_eq!(e.get(&id).unwrap().thread.as_deref(), Some("team/lead"), "a rejected patch changes nothing");
}

#[test]
fn at_one_instant_a_qualifier_follows_its_value_and_otherwise_writing_order_decides() {
    let mut e = engine();
    add(&mut e, fact(1, "We host on Nimbara", Shape::EvolvingAttribute, "infra/cloud", Some("Nimbara")));
    // Written qualifier first, value second, both at the same instant: the qualifier still applies.
    add(
        &mut e,
        Fact {
            depends: Some(("infra/cloud", Some("Nimbara"))),
            consequent: Some("Vaultline"),
            ..fact(2, "If we leave Nimbara, backups move to Vaultline", Shape::ConditionalValue, "infra/backups", None)
        },
    );
    add(&mut e, fact(2, "Backups go to the Nimbara cold tier", Shape::ContingentValue, "infra/backups", Some("Nimbara cold tier")));
    add(&mut e, fact(5, "We moved to Aldergate", Shape::EvolvingAttribute, "infra/cloud", Some("Aldergate")));
    let b = e.thread("infra/backups", None, None).unwrap().state.unwrap();
    assert_eq!((b.state, b.value.as_deref()), (State::Cascaded, Some("Vaultline")));
    // Otherwise the order of writing decides: a value, then its retraction, then a new value.
    add(&mut e, fact(6, "The build box is 10.4.7.19", Shape::EvolvingAttribute, "infra/build-box", Some("10.4.7.19")));
    add(&mut e, fact(6, "The user asked to forget the build box address", Shape::Retraction, "infra/build-box", None));
    assert_eq!(e.thread("infra/build-box", None, None).unwrap().state.unwrap().state, State::Deleted);
    add(&mut e, fact(6, "The new build box is 10.4.7.20", Shape::EvolvingAttribute, "infra/build-box", Some("10.4.7.20")));
    let t = e.thread("infra/build-box", None, None).unwrap();
    assert_eq!(t.state.unwrap().value.as_deref(), Some("10.4.7.20"));
    assert!(!serde_json::to_string(&t.values).unwrap().contains("10.4.7.19"));
}

#[test]
fn a_gather_finds_the_area_the_query_names_even_without_shared_words() {
    let mut e = engine();
    for (d, text) in [(1, "Traces go to Lumen Trace"), (2, "Dashboards live in Graphwell"), (3, "Logs are retained for 30 days")] {
        e.add(NewMemory {
            content: text.into(),
            event_at: at(d),
            evolving: Evolving { shape: Some(Shape::StableFact), area: vec!["observability".into()], ..Evolving::default() },
            ..Default::default()
        })
        .unwrap();
    }
    e.add(NewMemory { content: "The office plants need water on Fridays".into(), evolving: Evolving { area: vec!["office".into()], ..Evolving::default() }, ..Default::default() })
        .unwrap();
    let r = e.recall("Tell me everything about our observability setup", None, 600, None).unwrap();
    assert_eq!(r.route, Route::Gather);
    assert_eq!(r.answers.len(), 3);
    for s in ["Lumen Trace", "Graphwell", "30 days"] {
        assert!(r.context.text.contains(s), "{s}");
    }
    assert!(!r.context.text.contains("office plants"));
}

#[test]
fn a_cycle_and_a_very_long_chain_are_read_without_exhausting_the_stack() {
    let mut e = engine();
    add(&mut e, Fact { depends: Some(("loop/b", None)), ..fact(1, "a is set by b", Shape::ContingentValue, "loop/a", Some("a1")) });
    add(&mut e, Fact { depends: Some(("loop/a", None)), ..fact(1, "b is set by a", Shape::ContingentValue, "loop/b", Some("b1")) });
    add(&mut e, fact(2, "a changed", Shape::EvolvingAttribute, "loop/a", Some("a2")));
    assert_eq!(e.thread("loop/b", None, None).unwrap().state.unwrap().state, State::Uncertain);
    assert_eq!(e.thread("loop/a", None, None).unwrap().state.unwrap().state, State::Current);

    // Thread i depends on thread i+1; the last one changes after all were stated.
    let n = 3000;
    for i in 0..n {
        add(&mut e, Fact { depends: Some((&format!("chain/t{}", i + 1), None)), ..fact(3, &format!("value {i}"), Shape::ContingentValue, &format!("chain/t{i}"), Some("v")) });
    }
    add(&mut e, fact(2, "the root", Shape::EvolvingAttribute, &format!("chain/t{n}"), Some("r1")));
    add(&mut e, fact(9, "the root changed", Shape::EvolvingAttribute, &format!("chain/t{n}"), Some("r2")));
    assert_eq!(e.thread(&format!("chain/t{}", n - 1), None, None).unwrap().state.unwrap().state, State::Uncertain);
    assert_eq!(e.thread(&format!("chain/t{}", n - 5), None, None).unwrap().state.unwrap().state, State::Uncertain);
    // Beyond the hop limit a dependency reads as unchanged, whichever thread is asked first.
    assert_eq!(e.thread("chain/t0", None, None).unwrap().state.unwrap().state, State::Current);
    let r = e.recall("value", None, 600, None).unwrap();
    assert!(r.context.tokens <= 600);
}

#[test]
fn imports_hold_typed_fields_to_the_rules_of_add() {
    let mut e = engine();
    add(&mut e, Fact { area: &["Home"], ..fact(1, "The team lead is Seokjin Kang", Shape::EvolvingAttribute, "Team/Lead", Some("Seokjin Kang")) });
    let good = e.state();
    let mut other = engine();
    other.merge_state(good.clone()).unwrap();
    assert_eq!(other.thread("team/lead", None, None).unwrap().state.unwrap().value.as_deref(), Some("Seokjin Kang"));
    type Spoil = fn(&mut engram::Memory);
    let spoilers: [(Spoil, &str); 5] = [
        (|m| m.thread = Some("Team/Lead".into()), "thread"),
        (|m| m.area = vec!["home".into(), "home".into()], "area"),
        (|m| m.confidence = Some(f64::NAN), "confidence"),
        (|m| m.value = Some(String::new()), "value"),
        (|m| m.depends_on = Some(DependsOn { thread: "team/lead".into(), value: None }), "dependsOn"),
    ];
    for (spoil, named) in spoilers {
        let mut bad = good.clone();
        spoil(&mut bad.memories[0].0);
        let mut fresh = engine();
        let err = fresh.merge_state(bad).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput);
        assert!(err.message.contains(named), "{named}: {}", err.message);
        assert_eq!(fresh.count(None).unwrap(), 0);
    }
}

#[test]
fn turns_never_authored_follow_the_derived_entries_but_cited_stale_turns_do_not() {
    use engram::{SessionInput, TurnInput};
    let mut e = engine();
    let turn = |c: &str| TurnInput { role: "user".into(), content: c.into(), speaker: None, id: None, embedding: None };
    let turns = vec![turn("Code reviews go to Seoyun Choi, the team lead assigned it"), turn("Code reviews also need a green build on the review branch")];
    e.ingest(SessionInput { id: "s1".into(), namespace: None, date: at(1), turns, allow_secrets: false }).unwrap();
    add(&mut e, fact(1, "The team lead is Seokjin Kang", Shape::EvolvingAttribute, "team/team-lead", Some("Seokjin Kang")));
    // Authored from the first turn only.
    let evolving = Evolving {
        shape: Some(Shape::ContingentValue),
        thread: Some("team/code-reviewer".into()),
        value: Some("Seoyun Choi".into()),
        depends_on: Some(DependsOn { thread: "team/team-lead".into(), value: None }),
        ..Evolving::default()
    };
    e.add(NewMemory {
        content: "Code reviews go to Seoyun Choi (assigned by the team lead)".into(),
        event_at: at(1),
        derived_from: vec!["s1#0".into()],
        evolving,
        ..Default::default()
    })
    .unwrap();
    add(&mut e, fact(8, "Jihoon Ryu is our new team lead", Shape::EvolvingAttribute, "team/team-lead", Some("Jihoon Ryu")));
    let r = e.recall("Who do code reviews go to?", None, 600, None).unwrap();
    assert_eq!(r.route, Route::Trail);
    assert_eq!(r.answers[0].state, State::Uncertain);
    assert!(r.context.text.contains("green build"), "{}", r.context.text);
    assert!(!r.context.text.contains("the team lead assigned it"), "the cited, stale turn stays out: {}", r.context.text);
}

#[test]
fn an_evolving_slot_asked_for_exactly_is_framed_by_its_state() {
    use engram::{SessionInput, TurnInput};
    let mut e = engine();
    let turn = |c: &str| TurnInput { role: "user".into(), content: c.into(), speaker: None, id: None, embedding: None };
    e.ingest(SessionInput { id: "s1".into(), namespace: None, date: at(1), turns: vec![turn("My address is 12 Elm Street")], allow_secrets: false }).unwrap();
    e.ingest(SessionInput { id: "s2".into(), namespace: None, date: at(5), turns: vec![turn("We moved: my address is now 4 Oak Lane")], allow_secrets: false }).unwrap();
    for (d, sid, v) in [(1, "s1#0", "12 Elm Street"), (5, "s2#0", "4 Oak Lane")] {
        let evolving = Evolving { shape: Some(Shape::EvolvingAttribute), thread: Some("home/address".into()), value: Some(v.into()), ..Evolving::default() };
        e.add(NewMemory { content: format!("The user's address is {v}"), event_at: at(d), derived_from: vec![sid.into()], evolving, ..Default::default() }).unwrap();
    }
    let r = e.recall("What is my address exactly?", None, 600, None).unwrap();
    assert_eq!(r.route, Route::Exact);
    assert_eq!((r.answers[0].state, r.answers[0].value.as_deref()), (State::Current, Some("4 Oak Lane")));
    let text = &r.context.text;
    assert!(text.find("4 Oak Lane (current").unwrap() < text.find("My address is 12 Elm Street").unwrap_or(usize::MAX), "{text}");
}

#[test]
fn a_later_unauthored_turn_leads_a_stale_looking_slot_and_acknowledgements_stay_out() {
    use engram::{SessionInput, TurnInput};
    let mut e = engine();
    let turn = |role: &str, c: &str| TurnInput { role: role.into(), content: c.into(), speaker: None, id: None, embedding: None };
    let s1 = vec![turn("user", "Hester Lyle is the PM for checkout, and we bill in EUR"), turn("assistant", "Noted.")];
    e.ingest(SessionInput { id: "s1".into(), namespace: None, date: at(1), turns: s1, allow_secrets: false }).unwrap();
    // Authored from the first turn, but only part of it: the source of a current value is quoted.
    let evolving = Evolving { shape: Some(Shape::EvolvingAttribute), thread: Some("checkout-pm".into()), value: Some("Hester Lyle".into()), ..Evolving::default() };
    e.add(NewMemory { content: "The checkout PM is Hester Lyle".into(), event_at: at(1), derived_from: vec!["s1#0".into()], evolving, ..Default::default() }).unwrap();
    let r = e.recall("Which currency do we bill in?", None, 600, None).unwrap();
    assert!(r.context.text.contains("we bill in EUR"), "{}", r.context.text);
    assert!(!r.context.text.contains("Noted."), "a reply that matched only through its neighbour: {}", r.context.text);

    // A later turn nobody authored names the slot as well as its memory does: it leads.
    let s2 = vec![turn("user", "Oona Kask joined as the permanent PM for checkout"), turn("assistant", "Got it.")];
    e.ingest(SessionInput { id: "s2".into(), namespace: None, date: at(9), turns: s2, allow_secrets: false }).unwrap();
    let r = e.recall("Who is the PM for checkout?", None, 600, None).unwrap();
    assert_eq!(r.route, Route::Trail);
    assert!(r.answers[0].content.as_deref().is_some_and(|c| c.contains("Oona Kask")), "{:?}", r.answers[0]);
    assert_eq!(r.answers[0].thread, None);
    assert_eq!(r.answers[1].value.as_deref(), Some("Hester Lyle"));
    // Before that turn was said, the slot's value answers: its memory, or the turn it was authored
    // from (which says it in full), with the slot among the answers.
    let r = e.recall("Who is the PM for checkout?", None, 600, at(5)).unwrap();
    let says = |a: &engram::evolve::Answer, v: &str| a.value.as_deref() == Some(v) || a.content.as_deref().is_some_and(|c| c.contains(v));
    assert!(says(&r.answers[0], "Hester Lyle") && !says(&r.answers[0], "Oona Kask"), "{:?}", r.answers);
    assert!(r.answers.iter().any(|a| a.thread.as_deref() == Some("checkout-pm") && a.value.as_deref() == Some("Hester Lyle")), "{:?}", r.answers);
}

#[test]
fn with_nothing_authored_the_best_user_turn_answers_never_an_assistant_turn() {
    use engram::{SessionInput, TurnInput};
    let mut e = engine();
    let turn = |role: &str, c: &str| TurnInput { role: role.into(), content: c.into(), speaker: None, id: None, embedding: None };
    let s1 = vec![turn("user", "wen no longer on changelogs, chasing flaky tests with Obi"), turn("assistant", "Wen is chasing flaky tests, noted.")];
    e.ingest(SessionInput { id: "s1".into(), namespace: None, date: at(1), turns: s1, allow_secrets: false }).unwrap();
    let r = e.recall("what's wen doing", None, 600, None).unwrap();
    assert_eq!(r.route, Route::Search);
    assert_eq!(r.answers.len(), 1, "{:?}", r.answers);
    assert_eq!(r.answers[0].evidence, vec!["s1#0".to_string()]);
    assert_eq!(r.answers[0].state, State::Current);
}

#[test]
fn a_slot_the_query_does_not_name_follows_the_best_user_turn() {
    use engram::{SessionInput, TurnInput};
    let mut e = engine();
    let turn = |role: &str, c: &str| TurnInput { role: role.into(), content: c.into(), speaker: None, id: None, embedding: None };
    let s1 = vec![turn("user", "Tuesday pickups are on Samir now, the school bus stopped running")];
    e.ingest(SessionInput { id: "s1".into(), namespace: None, date: at(1), turns: s1, allow_secrets: false }).unwrap();
    // A badly cut slot: its label shares no word with the question, only its memory's text does.
    let evolving = Evolving { shape: Some(Shape::EvolvingAttribute), thread: Some("school-bus".into()), value: Some("stopped running".into()), ..Evolving::default() };
    e.add(NewMemory { content: "The school bus pickups stopped running".into(), event_at: at(1), derived_from: vec!["s1#0".into()], evolving, ..Default::default() }).unwrap();
    let r = e.recall("who does the tuesday pickups", None, 600, None).unwrap();
    assert_eq!(r.route, Route::Trail);
    assert_eq!(r.answers[0].evidence, vec!["s1#0".to_string()], "{:?}", r.answers);
    assert_eq!(r.answers[0].thread, None);
    assert_eq!(r.answers[1].thread.as_deref(), Some("school-bus"));
    // Asked by the slot's own name, the slot's value leads: the slot, or the turn it was authored
    // from (which says it in full); the slot is among the answers either way.
    let r = e.recall("is the school bus running", None, 600, None).unwrap();
    assert!(r.answers[0].thread.as_deref() == Some("school-bus") || r.answers[0].evidence == vec!["s1#0".to_string()], "{:?}", r.answers);
    assert!(r.answers.iter().any(|a| a.thread.as_deref() == Some("school-bus")), "{:?}", r.answers);
}

#[test]
fn a_lone_question_or_a_phrase_kept_verbatim_never_answers_for_a_slot() {
    use engram::{SessionInput, TurnInput};
    let mut e = engine();
    let turn = |role: &str, c: &str| TurnInput { role: role.into(), content: c.into(), speaker: None, id: None, embedding: None };
    let s1 = vec![
        turn("user", "What time should the garden party start?"),
        turn("user", "Keep this exactly, it's the gate note for the garden party:\nparty <3 gate code {4471} | ring twice"),
        turn("user", "The garden party starts at 4pm on the lawn"),
    ];
    e.ingest(SessionInput { id: "s1".into(), namespace: None, date: at(1), turns: s1, allow_secrets: false }).unwrap();
    let r = e.recall("when does the garden party start", None, 600, None).unwrap();
    assert_eq!(r.answers[0].evidence, vec!["s1#2".to_string()], "{:?}", r.answers);
    // Asked for exactly, the kept phrase is what comes back.
    let r = e.recall("the gate note for the garden party, exactly", None, 600, None).unwrap();
    assert!(r.context.text.contains("party <3 gate code {4471} | ring twice"), "{}", r.context.text);
}

#[test]
fn recall_context_shows_the_derived_state_not_the_fact_as_stated() {
    let mut e = engine();
    team(&mut e);
    // Before the upstream changes, the memory reads as itself.
    let plain = e.recall_context("Who reviews our code?", None, 600).unwrap().text;
    assert!(plain.contains("Code reviews go to Seoyun Choi"), "{plain}");
    add(&mut e, fact(8, "Jihoon Ryu is our new team lead", Shape::EvolvingAttribute, "team/team-lead", Some("Jihoon Ryu")));
    // After it, the block `recallContext` builds says what `recall` says: the reviewer is uncertain.
    let text = e.recall_context("Who reviews our code?", None, 600).unwrap().text;
    assert!(text.contains("Uncertain: no current value is known. Previously Seoyun Choi"), "{text}");
    assert!(!text.contains("Code reviews go to Seoyun Choi"), "stated as a plain fact: {text}");
    let text = e.recall_context("Who receives the weekly report?", None, 600).unwrap().text;
    assert!(text.contains("James Lee (cascaded on"), "{text}");
    // A thread asked to be forgotten: its value is nowhere in the block.
    add(&mut e, fact(9, "Forget who reviews our code", Shape::Retraction, "team/code-reviewer", None));
    let text = e.recall_context("Who reviews our code?", None, 600).unwrap().text;
    assert!(!text.contains("Seoyun Choi"), "{text}");
}

#[test]
fn the_members_of_a_set_reach_the_block_by_meaning_nearest_first() {
    use engram::{SessionInput, TurnInput};
    // Host vectors: the members point partly along the query's axis (cosine ≈ 0.27, below what
    // counts as a match on its own), the chatter hardly at all; no member shares a word with it.
    let query = vec![0.3, 0.0, 0.0, 0.954];
    let member = vec![0.9, 0.1, 0.0, 0.0];
    let chatter = vec![0.0, 0.0, 1.0, 0.05];
    let turn = |c: &str, v: &Vec<f32>| TurnInput { role: "user".into(), content: c.into(), speaker: None, id: None, embedding: Some(v.clone()) };
    let members = ["I'm on bass in the band", "my aunt gave me her old ukulele", "found a melodica at a yard sale"];
    let others = ["the pasta recipe needs more garlic", "traffic downtown was awful today", "booked the dentist for next month"];
    let mut e = engine();
    let turns =
        vec![turn(others[0], &chatter), turn(members[0], &member), turn(others[1], &chatter), turn(members[1], &member), turn(others[2], &chatter), turn(members[2], &member)];
    e.ingest(SessionInput { id: "s1".into(), namespace: None, date: at(1), turns, allow_secrets: false }).unwrap();
    let ask = |e: &mut Engram, v: Option<Vec<f32>>, budget: usize| e.recall_by("what instruments do I play?", v, None, budget, None).unwrap().context.text;
    // Keyword evidence alone finds none of them.
    let words_only = ask(&mut e, None, 600);
    assert!(members.iter().all(|m| !words_only.contains(m)), "{words_only}");
    let full = ask(&mut e, Some(query.clone()), 600);
    assert!(members.iter().all(|m| full.contains(m)), "{full}");
    // Under any budget, the nearer turns take it first: chatter only once every member is in.
    for budget in (40..=600).step_by(10) {
        let text = ask(&mut e, Some(query.clone()), budget);
        if others.iter().any(|o| text.contains(o)) {
            assert!(members.iter().all(|m| text.contains(m)), "budget {budget}: {text}");
        }
    }
}

#[test]
fn a_later_turn_that_states_another_value_of_the_asked_kind_leads_a_slot_it_changed() {
    use engram::{SessionInput, TurnInput};
    let mut e = engine();
    let turn = |c: &str| TurnInput { role: "user".into(), content: c.into(), speaker: None, id: None, embedding: None };
    let session = |e: &mut Engram, id: &str, day: i64, text: &str| {
        e.ingest(SessionInput { id: id.into(), namespace: None, date: at(day), turns: vec![turn(text)], allow_secrets: false }).unwrap();
    };
    session(&mut e, "s1", 1, "Release day is Wednesday, the QA matrix has to be green before anything ships");
    let evolving = Evolving { shape: Some(Shape::EvolvingAttribute), thread: Some("release-day".into()), value: Some("Wednesday".into()), ..Evolving::default() };
    e.add(NewMemory { content: "The release day is Wednesday".into(), event_at: at(1), derived_from: vec!["s1#0".into()], evolving, ..Default::default() }).unwrap();
    // Said later, never authored, naming less of the question than the slot does: a question and
    // a change. The change leads; the question never does.
    session(&mut e, "s2", 4, "QA asked us to ship the release on Thursday instead, agreed at standup");
    session(&mut e, "s3", 6, "what should go in the release notes this time?");
    let r = e.recall("What day is the release?", None, 600, None).unwrap();
    assert_eq!(r.answers[0].evidence, vec!["s2#0".to_string()], "{:?}", r.answers);
    assert!(r.answers.iter().any(|a| a.thread.as_deref() == Some("release-day")), "{:?}", r.answers);
    // Before the change was said, the slot's value leads.
    let r = e.recall("What day is the release?", None, 600, at(2)).unwrap();
    let a = &r.answers[0];
    assert!(a.value.as_deref() == Some("Wednesday") || a.content.as_deref().is_some_and(|c| c.contains("Wednesday")), "{:?}", r.answers);
}

#[test]
fn a_turn_said_of_a_name_that_changed_since_leads_as_uncertain_or_as_its_stated_alternative() {
    use engram::{SessionInput, TurnInput};
    let mut e = engine();
    let turn = |c: &str| TurnInput { role: "user".into(), content: c.into(), speaker: None, id: None, embedding: None };
    add(&mut e, fact(1, "My pottery studio is Clayhaus", Shape::EvolvingAttribute, "pottery-studio", Some("Clayhaus")));
    let turns = vec![
        turn("Clayhaus gave me shelf 17 for drying my pots, right by the window."),
        turn("At Clayhaus I glaze with Celadon. If I moved to Muddy Hands, I would use Ash Blue."),
    ];
    e.ingest(SessionInput { id: "s1".into(), namespace: None, date: at(2), turns, allow_secrets: false }).unwrap();
    // While the studio holds, the turn is what holds.
    let r = e.recall("which shelf do I have for drying my pots?", None, 600, Some(T0 + 3 * DAY)).unwrap();
    assert_eq!((r.answers[0].state, r.answers[0].evidence.first().map(String::as_str)), (State::Current, Some("s1#0")), "{:?}", r.answers);

    // A memory whose dependency names a slot nothing holds (as an author may write it): what its
    // own words name stands in for that slot.
    add(
        &mut e,
        Fact {
            depends: Some(("another-studio", None)),
            consequent: Some("Speckled Oat"),
            ..fact(3, "At Clayhaus the kiln wash is Kiln White; at another studio it would be Speckled Oat", Shape::ConditionalValue, "kiln-paint", Some("Kiln White"))
        },
    );
    assert_eq!(e.thread("kiln-paint", None, None).unwrap().state.unwrap().state, State::Current);
    add(&mut e, fact(5, "I left Clayhaus, I'm at Muddy Hands now", Shape::EvolvingAttribute, "pottery-studio", Some("Muddy Hands")));
    let paint = e.thread("kiln-paint", None, None).unwrap().state.unwrap();
    assert_eq!((paint.state, paint.value.as_deref()), (State::Cascaded, Some("Speckled Oat")), "{paint:?}");
    let r = e.recall("which shelf do I have for drying my pots?", None, 600, None).unwrap();
    let lead = &r.answers[0];
    assert_eq!((lead.state, lead.evidence.first().map(String::as_str)), (State::Uncertain, Some("s1#0")), "{:?}", r.answers);
    let because = lead.because.as_ref().unwrap();
    assert_eq!((because.thread.as_str(), because.was.as_deref(), because.now.as_deref()), ("pottery-studio", Some("Clayhaus"), Some("Muddy Hands")));
    // The block says so first, quoting the turn as what was said, not as a fact.
    let text = &r.context.text;
    let first = text.find("<entry").map(|i| &text[i..]).unwrap_or_default();
    assert!(first.contains("Uncertain: said on") && first.contains("changed to Muddy Hands"), "{text}");
    // `recallContext` reads the turn the same way.
    let text = e.recall_context("which shelf do I have for drying my pots?", None, 600).unwrap().text;
    assert!(text.contains("Uncertain: said on") && text.contains("changed to Muddy Hands"), "{text}");
    assert!(!text.contains(">Clayhaus gave me shelf 17"), "the turn as said, as a plain fact: {text}");

    // A turn that named the new studio in a condition stated what follows from the change.
    let r = e.recall("which glaze do I use?", None, 600, None).unwrap();
    assert_eq!((r.answers[0].state, r.answers[0].value.as_deref()), (State::Cascaded, Some("Ash Blue")), "{:?}", r.answers);
    let first = r.context.text.find("<entry").map(|i| &r.context.text[i..]).unwrap_or_default();
    assert!(first.contains("Ash Blue (cascaded)") && !first.contains("Uncertain"), "{}", r.context.text);

    // Said after the change, a turn naming the old studio speaks of the change, not under it.
    e.ingest(SessionInput {
        id: "s2".into(),
        namespace: None,
        date: at(6),
        turns: vec![turn("Clayhaus still has my old drying shelf keys, I should return them.")],
        allow_secrets: false,
    })
    .unwrap();
    let r = e.recall("where are my old drying shelf keys?", None, 600, None).unwrap();
    assert_eq!((r.answers[0].state, r.answers[0].evidence.first().map(String::as_str)), (State::Current, Some("s2#0")), "{:?}", r.answers);
}
