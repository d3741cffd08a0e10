//! The package files generated from the Rust types, so the package cannot drift from the core:
//! - `pkg-template/reports.d.ts`: the TypeScript form of the reports and views the boundary
//!   returns (their serde shape and doc comments);
//! - `pkg-template/src/limits.js`: the values of `limits()`, the bounds the core enforces.
//!
//! The derive (`ts-rs`) is a dev-dependency, active under `cfg(test)` only: the product carries no
//! code for it. These tests write nothing unless asked; they fail when a checked-in file differs
//! from what the types generate, naming the one command that rewrites both
//! (`ENGRAM_WRITE_GENERATED=1 cargo test --lib generated`).

use ts_rs::{Config, TS};

use serde_json::Value;

use super::limits::{Limits, LIMITS};
use super::view::{self, Shape};

use crate::engine::{AuthorReport, DeletedSession, ExtractReport, GatherView, Ingested, Released, Retracted, SkippedStep, ThreadView};
use crate::error::ErrorCode;
use crate::evolve::state::{Answer, Replacement, State, UpstreamChange};
use crate::evolve::{Recall, Route};
use crate::lifecycle::report::{Action, ActionKind, ConsolidateReport, Found, LlmLevel, PlannedCallSummary, Skipped};
use crate::llm::{CallRecord, LlmUsage, Outcome, Purpose};
use crate::model::{DependsOn, Kind, Layer, Lifecycle, Memory, Pin, RawEntry, Shape as MemoryShape};
use crate::recall::score::ScoreBreakdown;
use crate::store::{EventKind, HistoryEvent};

const TYPES_PATH: &str = "pkg-template/reports.d.ts";
const LIMITS_PATH: &str = "pkg-template/src/limits.js";

const WRITE: &str = "ENGRAM_WRITE_GENERATED=1 cargo test --lib generated";

const HEADER: &str = "// Generated from the Rust types by `ENGRAM_WRITE_GENERATED=1 cargo test --lib generated` (src/api/generated.rs);\n\
// do not edit. `cargo test` fails when this file and the types disagree. index.d.ts re-exports these.\n\
import type { JsonObject, MemoryContext } from \"./index.js\";\n\
";

/// One declaration as a module export, its doc comment first. A record shown through a view
/// (`view::Shape`) is declared as the view writes it: its times as ISO strings, its `nullable`
/// fields always present (`null` when unset), from the same constants the view serializer reads.
fn declare<T: TS + 'static + ?Sized>(cfg: &Config, out: &mut String, shape: Option<&Shape>) {
    out.push('\n');
    if let Some(docs) = T::docs() {
        out.push_str(&docs);
    }
    out.push_str("export ");
    out.push_str(&layout(&T::decl(cfg), shape));
    out.push('\n');
    // The Rust docs say `None` where JS sees `null`.
    *out = out.replace("`None`", "`null`");
}

/// An object type one member per line, each after its doc comment, indented as a person would
/// write it (ts-rs writes a declaration on one line with its members' doc comments inline). Only
/// the outermost braces are laid out; union and literal types pass through unchanged.
///
/// A member that may be absent is never also `null`: ts-rs writes `name?: T | null` for an
/// `Option` with a default that serde skips when `None`, and a skipped `None` is absent, never null.
fn layout(decl: &str, shape: Option<&Shape>) -> String {
    let (Some(open), Some(close)) = (decl.find("= {"), decl.rfind('}')) else { return decl.to_string() };
    let body = &decl[open + 3..close];
    let mut members = Vec::new();
    let (mut depth, mut in_string, mut in_comment, mut start) = (0i32, false, false, 0);
    for (i, c) in body.char_indices() {
        if in_comment {
            in_comment = !body[..i + c.len_utf8()].ends_with("*/");
            continue;
        }
        match c {
            '/' if body[i..].starts_with("/*") => in_comment = true,
            '"' => in_string = !in_string,
            '{' | '[' | '(' | '<' if !in_string => depth += 1,
            '}' | ']' | ')' | '>' if !in_string => depth -= 1,
            ',' if !in_string && depth == 0 => {
                members.push(body[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    members.push(body[start..].trim());
    let mut out = format!("{}= {{\n", &decl[..open]);
    for member in members.into_iter().filter(|m| !m.is_empty()) {
        for line in member.lines() {
            let line = line.trim();
            if line.starts_with("/**") || line.starts_with('*') {
                out.push_str(if line.starts_with('*') { "   " } else { "  " });
                out.push_str(line);
            } else {
                out.push_str("  ");
                out.push_str(&member_as_shown(line, shape));
                out.push(';');
            }
            out.push('\n');
        }
    }
    out.push_str(&decl[close..]);
    out
}

/// `name: type` or `name?: type`, as the boundary shows it.
fn member_as_shown(member: &str, shape: Option<&Shape>) -> String {
    let Some((name, ty)) = member.split_once(": ") else { return member.to_string() };
    let (key, optional) = match name.strip_suffix('?') {
        Some(key) => (key, true),
        None => (name, false),
    };
    let nullable = shape.is_some_and(|s| s.nullable.contains(&key));
    let ty = if shape.is_some_and(|s| s.times.contains(&key)) { "string" } else { ty.trim_end_matches(" | null") };
    match (nullable, optional) {
        (true, _) => format!("{key}: {ty} | null"),
        (false, true) => format!("{key}?: {ty}"),
        (false, false) if member.ends_with(" | null") => format!("{key}: {ty} | null"),
        (false, false) => format!("{key}: {ty}"),
    }
}

fn generate() -> String {
    // Counts and durations cross as JS numbers (they stay far below 2^53), never as bigint.
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(HEADER);
    declare::<ErrorCode>(&cfg, &mut out, None);
    declare::<Limits>(&cfg, &mut out, None);
    declare::<Kind>(&cfg, &mut out, None);
    declare::<Layer>(&cfg, &mut out, None);
    declare::<MemoryShape>(&cfg, &mut out, None);
    declare::<Pin>(&cfg, &mut out, None);
    declare::<DependsOn>(&cfg, &mut out, None);
    declare::<Lifecycle>(&cfg, &mut out, None);
    declare::<Memory>(&cfg, &mut out, Some(&view::MEMORY));
    declare::<RawEntry>(&cfg, &mut out, Some(&view::RAW));
    declare::<EventKind>(&cfg, &mut out, None);
    declare::<HistoryEvent>(&cfg, &mut out, Some(&view::HISTORY));
    declare::<Outcome>(&cfg, &mut out, None);
    declare::<Purpose>(&cfg, &mut out, None);
    declare::<CallRecord>(&cfg, &mut out, None);
    declare::<LlmUsage>(&cfg, &mut out, None);
    declare::<SkippedStep>(&cfg, &mut out, None);
    declare::<ExtractReport>(&cfg, &mut out, None);
    declare::<Retracted>(&cfg, &mut out, None);
    declare::<AuthorReport>(&cfg, &mut out, None);
    declare::<LlmLevel>(&cfg, &mut out, None);
    declare::<ActionKind>(&cfg, &mut out, None);
    declare::<Action>(&cfg, &mut out, None);
    declare::<Skipped>(&cfg, &mut out, None);
    declare::<Found>(&cfg, &mut out, None);
    declare::<PlannedCallSummary>(&cfg, &mut out, None);
    declare::<ConsolidateReport>(&cfg, &mut out, None);
    declare::<Ingested>(&cfg, &mut out, None);
    declare::<DeletedSession>(&cfg, &mut out, None);
    declare::<Released>(&cfg, &mut out, None);
    declare::<ScoreBreakdown>(&cfg, &mut out, None);
    declare::<State>(&cfg, &mut out, None);
    declare::<UpstreamChange>(&cfg, &mut out, None);
    declare::<Replacement>(&cfg, &mut out, None);
    declare::<Answer>(&cfg, &mut out, None);
    declare::<Route>(&cfg, &mut out, None);
    declare::<Recall>(&cfg, &mut out, None);
    declare::<ThreadView>(&cfg, &mut out, None);
    declare::<GatherView>(&cfg, &mut out, None);
    out
}

/// `generated` at `path` under the crate root: written when asked, else compared.
fn check_or_write(path: &str, generated: &str) {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if std::env::var_os("ENGRAM_WRITE_GENERATED").is_some() {
        std::fs::write(&full, generated).unwrap_or_else(|e| panic!("write {path}: {e}"));
        return;
    }
    let on_disk = std::fs::read_to_string(&full).unwrap_or_default();
    assert!(on_disk == generated, "{path} is not what the Rust types generate; rewrite it with `{WRITE}`");
}

#[test]
fn reports_d_ts() {
    check_or_write(TYPES_PATH, &generate());
}

#[test]
fn limits_js() {
    let values = serde_json::to_string_pretty(&LIMITS).expect("limits serialize");
    let scope_keys = serde_json::to_string(super::fields::SCOPE_KEYS).expect("keys serialize");
    let text = format!(
        "// Generated from the Rust limits by `{WRITE}` (src/api/generated.rs); do not edit.\n\
         /** @type {{Readonly<import(\"../index.js\").Limits>}} */\n\
         export const LIMITS = Object.freeze({values});\n\
         \n\
         /** Option keys other memory libraries scope by, answered with Engram's form (`{{ namespace }}`). */\n\
         export const SCOPE_KEYS = Object.freeze({scope_keys});\n"
    );
    check_or_write(LIMITS_PATH, &text);
}

/// The members type `name` declares in `generated`, each with whether it may be absent.
fn members(generated: &str, name: &str) -> Vec<(String, bool)> {
    let start = generated.find(&format!("export type {name} = {{\n")).unwrap_or_else(|| panic!("{name} is declared"));
    let body = &generated[start..];
    let body = &body[..body.find("\n};").expect("the declaration ends")];
    body.lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.starts_with("/**") && !l.starts_with('*'))
        .map(|l| {
            let (key, _) = l.split_once(": ").expect("a member");
            match key.strip_suffix('?') {
                Some(key) => (key.to_string(), true),
                None => (key.to_string(), false),
            }
        })
        .collect()
}

/// A view's keys against its declaration: a record with every field set shows every member, and
/// a bare one shows every member that is not optional and nothing undeclared.
#[test]
fn views_show_exactly_the_declared_members() {
    use serde_json::json;
    let generated = generate();
    let memory = |v| -> Memory { serde_json::from_value(v).expect("a memory") };
    let raw = |v| -> RawEntry { serde_json::from_value(v).expect("a raw entry") };
    let event = |v| -> HistoryEvent { serde_json::from_value(v).expect("an event") };
    let base = json!({"id": "m1", "namespace": "default", "content": "c", "importance": 0.5, "createdAt": 1, "modifiedAt": 2, "lastAccessed": 3});
    let mut full = base.clone();
    for (k, v) in json!({
        "source": "s", "eventAt": 4, "derivedFrom": ["r"], "links": ["m0"], "shape": "evolving_attribute", "thread": "t", "value": "v", "corrects": "w",
        "dependsOn": {"thread": "u"}, "consequent": "c2", "area": ["a"], "signature": "sig", "pin": "pinned", "confidence": 0.9,
        "cites": ["m2"], "lifecycle": {"layerEpoch": 1}, "flags": ["secret:key"], "quarantined": true,
    })
    .as_object()
    .expect("an object")
    {
        full[k] = v.clone();
    }
    let raw_base = json!({"id": "s#0", "namespace": "default", "sessionId": "s", "turnIndex": 0, "role": "user", "content": "hi", "createdAt": 1});
    let mut raw_full = raw_base.clone();
    for (k, v) in json!({"speaker": "Ann", "turnId": "x", "date": 5, "extractedBy": "extract@1", "authoredBy": "author@3", "flags": ["f"], "quarantined": true})
        .as_object()
        .expect("an object")
    {
        raw_full[k] = v.clone();
    }
    let event_base = json!({"memoryId": "m1", "event": "ADD", "at": 1});
    let event_full = json!({"memoryId": "m1", "event": "MERGE", "at": 1, "content": "a", "previousContent": "b", "promptId": "p", "related": "m2", "reason": "r"});
    let cases: [(&str, Value, Value); 3] = [
        ("MemoryItem", record_view(&memory(base), &view::MEMORY), record_view(&memory(full), &view::MEMORY)),
        ("RawEntry", record_view(&raw(raw_base), &view::RAW), record_view(&raw(raw_full), &view::RAW)),
        ("HistoryEvent", record_view(&event(event_base), &view::HISTORY), record_view(&event(event_full), &view::HISTORY)),
    ];
    for (name, bare, full) in cases {
        let declared = members(&generated, name);
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
            k.sort();
            k
        };
        let mut all: Vec<String> = declared.iter().map(|(k, _)| k.clone()).collect();
        all.sort();
        assert_eq!(keys(&full), all, "{name}: a record with every field set shows every declared member");
        let mut required: Vec<String> = declared.iter().filter(|(_, optional)| !optional).map(|(k, _)| k.clone()).collect();
        required.sort();
        assert_eq!(keys(&bare), required, "{name}: a bare record shows exactly the members that are not optional");
    }
}

fn record_view<T: serde::Serialize>(record: &T, shape: &Shape) -> Value {
    serde_json::to_value(view::View { record, shape, extra: &[] }).expect("a view")
}

/// The hand-written `EvolvingFields` of index.d.ts (what `add` and `update` accept) names exactly
/// the evolving record's fields: a field added to the record fails here until the types have it.
#[test]
fn index_d_ts_declares_the_evolving_fields() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("pkg-template/index.d.ts");
    let text = std::fs::read_to_string(&path).expect("index.d.ts reads");
    let start = text.find("export interface EvolvingFields {\n").expect("EvolvingFields is declared");
    let body = &text[start..];
    let body = &body[..body.find("\n}").expect("the declaration ends")];
    let declared: Vec<&str> =
        body.lines().skip(1).map(str::trim).filter(|l| !l.starts_with("/**") && !l.starts_with('*')).map(|l| l.split_once("?:").expect("an optional member").0).collect();
    assert_eq!(declared, crate::model::evolve::FIELDS, "index.d.ts EvolvingFields, in the record's order");
}
