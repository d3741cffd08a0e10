//! The evolving-memory harness: episodes in the layout of `evolving-dev.json` (sessions with
//! timestamps; `before_questions` / `after_questions` blocks asked after a given session), through
//! the public API only: each session is ingested at its time and authored as it arrives, then every
//! question of a block goes through `recall` at the block's timestamp. The checks are deterministic
//! checks on what `recall` returned (not an LLM judge):
//! - `must_contain`: every string in the context block;
//! - `must_contain_in_order`: the strings in the context, each found after the previous one;
//! - `must_not_contain`: no string anywhere in the result (route, answers, context);
//! - `expected_state`: the state of the first answer;
//! - `answer_contains`: the first answer's value (or its memory's text) holds the string.
//!
//! Prints one line per failed question (for the project's held-out split, a file named `test.json`,
//! only with `--misses`: its failures are not for reading, only its counts), then, when the
//! episodes carry `gold_facts`, how many of them the author holds as a memory's value (`authored facts first=a/b change=c/d`: a slot's
//! first statement, its later ones) and, for the questions that ask for a cascade, which links of
//! it the author wrote (`authored chains`: the root, the dependent, the dependency, the root's
//! change, all four), then
//! `evolving pass=P/N ER=a/b Agg=a/b Tr=a/b Del=a/b Cas=a/b Abs=a/b [Cur=a/b]` and, when the
//! questions carry `classes` (the project's own corpus, `tests/fixtures/evolving/`), a line per class.

use std::collections::BTreeMap;
use std::rc::Rc;

use std::time::Duration;

use engram::engine::ExtractOptions;
use engram::{Engram, SessionInput, TurnInput};
use serde_json::Value;

use super::openai::{OpenAiCompatible, Structured};
use super::{load_json, longmemeval_date, AnyResult};

/// MEME's six task types, then the corpus's own `Cur` (the value that holds now).
const TASKS: [&str; 7] = ["ER", "Agg", "Tr", "Del", "Cas", "Abs", "Cur"];

struct Args {
    path: String,
    author: String,
    max_tokens: usize,
    limit: Option<usize>,
    /// Print a failed question's route and context block to stderr.
    show: bool,
    /// Print what each session authored to stderr.
    dump: bool,
    /// List the failed questions of a held-out split (`test.json`) too.
    misses: bool,
    /// List the stated facts (`gold_facts`) no authored memory holds, with the turn that states them.
    facts: bool,
    /// Only the episode with this id.
    episode: Option<String>,
    /// Before each episode, every distinct filler chat of the file (a larger store, same facts).
    pad: bool,
    /// `keyword` (no embedder) or `hybrid` (the local embedder: `--features embedder`).
    mode: String,
    /// `--author llm`: the server's base URL (`http://localhost:11434/v1`), model and options.
    llm_url: Option<String>,
    model: Option<String>,
    api_key_env: Option<String>,
    structured: Structured,
    timeout_s: u64,
    /// With `--features internals`: the lead candidates and their features of each question whose
    /// first answer is checked, one JSON line each, for `examples/train_pick.rs`.
    picks: Option<String>,
}

fn parse_args(mut it: impl Iterator<Item = String>) -> AnyResult<Args> {
    let usage = "usage: eval evolving PATH [--mode keyword|hybrid] [--author offline|llm] [--llm-url http://HOST:PORT/v1 --model M [--api-key-env VAR] \
                 [--structured json_schema|json_object|none] [--timeout-s S]] [--max-tokens N] [--picks FILE] [--limit EPISODES] [--episode ID] [--pad] [--show] [--dump] [--misses] [--facts]";
    let path = it.next().ok_or(usage)?;
    let mut args = Args {
        path,
        author: "offline".into(),
        max_tokens: 600,
        limit: None,
        show: false,
        dump: false,
        misses: false,
        facts: false,
        episode: None,
        pad: false,
        mode: "keyword".into(),
        llm_url: None,
        model: None,
        api_key_env: None,
        structured: Structured::JsonSchema,
        timeout_s: 120,
        picks: None,
    };
    while let Some(flag) = it.next() {
        if flag == "--show" || flag == "--dump" || flag == "--pad" || flag == "--misses" || flag == "--facts" {
            args.facts |= flag == "--facts";
            args.show |= flag == "--show";
            args.dump |= flag == "--dump";
            args.pad |= flag == "--pad";
            args.misses |= flag == "--misses";
            continue;
        }
        let value = it.next().ok_or(usage)?;
        match flag.as_str() {
            "--author" => args.author = value,
            "--max-tokens" => args.max_tokens = value.parse()?,
            "--limit" => args.limit = Some(value.parse()?),
            "--episode" => args.episode = Some(value),
            "--mode" if value == "keyword" || value == "hybrid" => args.mode = value,
            "--llm-url" => args.llm_url = Some(value),
            "--model" => args.model = Some(value),
            "--api-key-env" => args.api_key_env = Some(value),
            "--structured" => args.structured = Structured::parse(&value).ok_or(usage)?,
            "--timeout-s" => args.timeout_s = value.parse()?,
            "--picks" => args.picks = Some(value),
            _ => return Err(usage.into()),
        }
    }
    if args.llm_url.is_some() {
        args.author = "llm".into();
    }
    match args.author.as_str() {
        "offline" => Ok(args),
        "llm" if args.llm_url.is_some() && args.model.is_some() => Ok(args),
        "llm" => Err("--author llm needs --llm-url http://HOST:PORT/v1 and --model NAME (any OpenAI-compatible server)".into()),
        _ => Err(usage.into()),
    }
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key).and_then(Value::as_array).map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

/// Why a question failed, or `None` when every expectation holds.
fn check(expect: &Value, result: &engram::evolve::Recall) -> Option<String> {
    let context = &result.context.text;
    let whole = serde_json::to_string(result).unwrap_or_default();
    for s in strings(expect, "must_contain") {
        if !context.contains(&s) {
            return Some(format!("context lacks {s:?}"));
        }
    }
    let mut from = 0;
    for s in strings(expect, "must_contain_in_order") {
        match context[from..].find(&s) {
            Some(i) => from += i + s.len(),
            None => return Some(format!("context lacks {s:?} in order")),
        }
    }
    for s in strings(expect, "must_not_contain") {
        // The serialized result escapes quotes and line breaks; check both forms.
        if whole.contains(&s) || whole.contains(&serde_json::to_string(&s).unwrap_or_default().trim_matches('"').to_string()) || context.contains(&s) {
            return Some(format!("result contains {s:?}"));
        }
    }
    if let Some(want) = expect.get("answer_contains").and_then(Value::as_str) {
        let first = result.answers.first();
        let holds = first.is_some_and(|a| a.value.as_deref().is_some_and(|v| v.contains(want)) || a.content.as_deref().is_some_and(|c| c.contains(want)));
        if !holds {
            let got = first.map(|a| a.value.clone().or(a.content.clone()).unwrap_or_default()).unwrap_or_default();
            return Some(format!("first answer {got:?} lacks {want:?}"));
        }
    }
    if let Some(want) = expect.get("expected_state").and_then(Value::as_str) {
        let got = result.answers.first().map(|a| a.state.as_str()).unwrap_or("none");
        if got != want {
            return Some(format!("first answer is {got}, expected {want} (route {})", result.route.as_str()));
        }
    }
    None
}

/// Every distinct filler chat of a file (by its first turn), in file order: `--pad` puts them all
/// before each episode, so its facts are read among about four times the turns.
fn fillers(episodes: &[Value]) -> Vec<&Value> {
    let mut seen = std::collections::HashSet::new();
    episodes
        .iter()
        .filter_map(|ep| ep["sessions"].as_array())
        .flatten()
        .filter(|s| s["kind"] == "filler")
        .filter(|s| seen.insert(s["conversation"][0]["content"].as_str().unwrap_or_default().to_string()))
        .collect()
}

fn session_input(ep: &str, ns: &str, s: &Value) -> AnyResult<SessionInput> {
    let idx = s["idx"].as_u64().ok_or("session without idx")?;
    let date = s["timestamp"].as_str().and_then(longmemeval_date).ok_or("session without a readable timestamp")?;
    let turns = s["conversation"]
        .as_array()
        .ok_or("session without conversation")?
        .iter()
        .filter_map(|t| Some(TurnInput { role: t["role"].as_str()?.to_string(), content: t["content"].as_str()?.to_string(), speaker: None, id: None, embedding: None }))
        .filter(|t| !t.content.trim().is_empty())
        .collect();
    Ok(SessionInput { id: format!("{ep}-s{idx}"), namespace: Some(ns.to_string()), date: Some(date), turns, allow_secrets: false })
}

/// The LLM author's calls over a run: what a score with `--author llm` rests on.
#[derive(Default)]
struct LlmTally {
    calls: usize,
    by_outcome: BTreeMap<&'static str, usize>,
    input_tokens: u64,
    output_tokens: u64,
    /// Turns the rules authored because their call failed or was invalid (as the package does).
    offline_turns: usize,
    authored_turns: usize,
}

fn llm_of(args: &Args) -> AnyResult<Option<OpenAiCompatible>> {
    let (Some(url), Some(model)) = (&args.llm_url, &args.model) else { return Ok(None) };
    let key = match &args.api_key_env {
        Some(var) => Some(std::env::var(var).map_err(|_| format!("--api-key-env {var}: not set"))?),
        None => None,
    };
    Ok(Some(OpenAiCompatible::new(url, model, key, args.structured, Duration::from_secs(args.timeout_s))?))
}

/// A memory the author wrote on a thread, as the chain measure reads it.
struct AuthoredSlot {
    thread: String,
    /// Lower case.
    value: String,
    depends_on: Option<String>,
}

/// What a cascade needs the author to have written, per question that asks for one (`Cas`, `Abs`):
/// the episode's root (`root`) with its first value on some thread, the asked slot's first value,
/// that value depending on a thread holding the root's, and that thread later holding the root's
/// second value. Which link is missing says where the author loses a cascade, apart from the read.
#[derive(Default)]
struct Chains {
    n: usize,
    root: usize,
    dependent: usize,
    linked: usize,
    root_changed: usize,
    whole: usize,
}

impl Chains {
    /// With `list`, prints each asked dependent the author did not link to its root.
    fn add(&mut self, ep: &Value, sessions: &[Value], slots: &[AuthoredSlot], list: bool) {
        let facts: Vec<(&str, String)> = sessions
            .iter()
            .flat_map(|s| s["gold_facts"].as_array().into_iter().flatten())
            .filter_map(|f| Some((f["entity"].as_str()?, f["value"].as_str()?.trim().to_lowercase())))
            .filter(|(_, v)| !v.is_empty())
            .collect();
        let Some(root) = ep["root"].as_str() else { return };
        let root_values: Vec<&String> = facts.iter().filter(|(e, _)| *e == root).map(|(_, v)| v).collect();
        let [first_root, later_root, ..] = root_values.as_slice() else { return };
        let holding = |value: &str| -> Vec<&AuthoredSlot> { slots.iter().filter(|s| s.value.contains(value)).collect() };
        let root_threads: Vec<&str> = holding(first_root).iter().map(|s| s.thread.as_str()).collect();
        let changed: Vec<&str> = holding(later_root).iter().map(|s| s.thread.as_str()).filter(|t| root_threads.contains(t)).collect();
        if list && changed.is_empty() {
            let said = sessions
                .iter()
                .flat_map(|s| s["gold_facts"].as_array().into_iter().flatten())
                .filter(|f| f["entity"].as_str() == Some(root))
                .nth(1)
                .and_then(|f| f["fact_text"].as_str())
                .unwrap_or_default();
            let on: Vec<&str> = holding(later_root).iter().map(|s| s.thread.as_str()).collect();
            println!("UNCHANGED {} {root}:{root_threads:?} later {later_root:?} on {on:?} in {said:?}", ep["episode_id"].as_str().unwrap_or("?"));
        }
        let asked = ["before_questions", "after_questions"]
            .iter()
            .filter_map(|k| ep[*k]["questions"].as_array())
            .flatten()
            .filter(|q| matches!(q["task_type"].as_str(), Some("Cas" | "Abs")))
            .filter_map(|q| q["entity"].as_str());
        for entity in asked {
            let Some((_, value)) = facts.iter().find(|(e, _)| *e == entity) else { continue };
            let dependents = holding(value);
            let linked: Vec<&str> = dependents.iter().filter_map(|d| d.depends_on.as_deref()).filter(|t| root_threads.contains(t)).collect();
            if list && linked.is_empty() {
                let said = sessions
                    .iter()
                    .flat_map(|s| s["gold_facts"].as_array().into_iter().flatten())
                    .find(|f| f["entity"].as_str() == Some(entity))
                    .and_then(|f| f["fact_text"].as_str())
                    .unwrap_or_default();
                let on: Vec<String> = dependents.iter().map(|d| format!("{}<-{}", d.thread, d.depends_on.as_deref().unwrap_or("-"))).collect();
                println!("UNLINKED {} {entity} root={root}:{root_threads:?} authored={on:?} in {said:?}", ep["episode_id"].as_str().unwrap_or("?"));
            }
            self.n += 1;
            self.root += usize::from(!root_threads.is_empty());
            self.dependent += usize::from(!dependents.is_empty());
            self.linked += usize::from(!linked.is_empty());
            self.root_changed += usize::from(!changed.is_empty());
            self.whole += usize::from(linked.iter().any(|t| changed.contains(t)));
        }
    }
}

/// A stated value's form, coarsely: a time, an amount or code (digits), a name (capitalized), a
/// phrase in lower case.
fn value_form(lower: &str, said: &str) -> &'static str {
    let time_words = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "am", "pm", "morning", "evening", "afternoon", "night"];
    if lower.split(|c: char| !c.is_alphanumeric()).any(|w| time_words.contains(&w.trim_end_matches('s'))) || lower.contains(':') {
        "time"
    } else if lower.chars().any(|c| c.is_ascii_digit()) {
        "digits"
    } else if said.split_whitespace().any(|w| w.chars().next().is_some_and(char::is_uppercase)) {
        "name"
    } else {
        "phrase"
    }
}

/// Authors a session's new turns: the offline rules, or the LLM author with the rules over the
/// turns whose call failed (the package's `llmLevel: "on"`).
fn author_session(e: &mut Engram, sid: &str, llm: Option<&OpenAiCompatible>, tally: &mut LlmTally) -> AnyResult<engram::engine::AuthorReport> {
    let Some(llm) = llm else { return Ok(e.author_offline(sid)?) };
    let report = e.author_with(llm, sid, &ExtractOptions::default(), true)?;
    for c in &report.calls {
        tally.calls += 1;
        *tally.by_outcome.entry(c.outcome.as_str()).or_default() += 1;
        tally.input_tokens += c.input_tokens;
        tally.output_tokens += c.output_tokens;
    }
    tally.offline_turns += report.offline_turns.len();
    tally.authored_turns += report.authored_turns.len();
    Ok(report)
}

pub fn run(args: impl Iterator<Item = String>) -> AnyResult<()> {
    let args = parse_args(args)?;
    let llm = llm_of(&args)?;
    let mut llm_tally = LlmTally::default();
    let data = load_json(&args.path)?;
    let episodes = data.as_array().ok_or("expected an array of episodes")?;
    // The held-out split is only counted: its failed questions are listed only when asked for.
    let held_out = std::path::Path::new(&args.path).file_name().is_some_and(|n| n == "test.json");
    let list_misses = args.misses || !held_out;
    let embedder = if args.mode == "hybrid" { Some(Rc::new(super::CachedEmbedder::new(super::local_embedder()?)?)) } else { None };
    let mut tally: BTreeMap<&str, (usize, usize)> = TASKS.iter().map(|t| (*t, (0, 0))).collect();
    let mut by_class: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut pass, mut total) = (0, 0);
    // Facts the episodes state, held as an authored memory's value / stated: (first statements of
    // a slot, later ones).
    let mut facts: ((usize, usize), (usize, usize)) = ((0, 0), (0, 0));
    // The same counts by the stated value's form: which kinds of value the author misses.
    let mut by_form: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut chains = Chains::default();
    let padding = if args.pad { fillers(episodes) } else { Vec::new() };
    #[cfg(feature = "internals")]
    let mut picks = args.picks.as_deref().map(std::fs::File::create).transpose()?;
    #[cfg(not(feature = "internals"))]
    if args.picks.is_some() {
        return Err("--picks needs --features internals".into());
    }
    for ep in episodes.iter().take(args.limit.unwrap_or(usize::MAX)) {
        let id = ep["episode_id"].as_str().ok_or("episode without episode_id")?;
        if args.episode.as_deref().is_some_and(|want| want != id) {
            continue;
        }
        let ns: String = id.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
        let (mut e, clock) = super::new_engine(0, &embedder);
        let mut blocks: Vec<&Value> = ["before_questions", "after_questions"].iter().filter_map(|k| ep.get(*k).filter(|b| !b.is_null())).collect();
        blocks.sort_by_key(|b| b["position_after_session"].as_u64().unwrap_or(0));
        let sessions = ep["sessions"].as_array().ok_or("episode without sessions")?;
        if !padding.is_empty() {
            // Dated a day apart, ending the day before the episode's first session.
            let first = sessions.first().and_then(|s| s["timestamp"].as_str()).and_then(longmemeval_date).ok_or("episode without a dated first session")?;
            for (i, filler) in padding.iter().enumerate() {
                let mut input = session_input(id, &ns, filler)?;
                input.id = format!("{id}-pad{i}");
                input.date = Some(first - (padding.len() - i) as i64 * 86_400_000);
                clock.set(input.date.unwrap_or(0));
                let sid = input.id.clone();
                e.ingest(input)?;
                author_session(&mut e, &sid, llm.as_ref(), &mut llm_tally)?;
            }
        }
        let mut next = 0;
        let mut authored_values: Vec<String> = Vec::new();
        let mut authored_slots: Vec<AuthoredSlot> = Vec::new();
        for block in blocks {
            let until = block["position_after_session"].as_u64().ok_or("block without position_after_session")?;
            while next < sessions.len() && sessions[next]["idx"].as_u64().unwrap_or(0) <= until {
                let input = session_input(id, &ns, &sessions[next])?;
                clock.set(input.date.unwrap_or(0));
                let sid = input.id.clone();
                e.ingest(input)?;
                let report = author_session(&mut e, &sid, llm.as_ref(), &mut llm_tally)?;
                authored_values.extend(report.added.iter().filter_map(|mid| e.get(mid)).filter_map(|m| m.value.as_deref().map(str::to_lowercase)));
                authored_slots.extend(report.added.iter().filter_map(|mid| e.get(mid)).filter_map(|m| {
                    Some(AuthoredSlot { thread: m.thread.clone()?, value: m.value.as_deref()?.to_lowercase(), depends_on: m.depends_on.as_ref().map(|d| d.thread.clone()) })
                }));
                if args.dump {
                    for mid in &report.added {
                        if let Some(m) = e.get(mid) {
                            eprintln!(
                                "  + {sid} [{:?}] thread={:?} value={:?} dep={:?} cons={:?} area={:?} :: {}",
                                m.shape,
                                m.thread,
                                m.value,
                                m.depends_on.as_ref().map(|d| (&d.thread, &d.value)),
                                m.consequent,
                                m.area,
                                m.content
                            );
                        }
                    }
                    for r in &report.retracted {
                        eprintln!("  - {sid} retracted thread={} deleted={} turns={}", r.thread, r.deleted.len(), r.redacted_turns.len());
                    }
                }
                next += 1;
            }
            let at = block["timestamp"].as_str().and_then(longmemeval_date).ok_or("block without a readable timestamp")?;
            clock.set(at);
            for q in block["questions"].as_array().ok_or("block without questions")? {
                let task = q["task_type"].as_str().unwrap_or("?");
                let question = q["question"].as_str().ok_or("question without text")?;
                let result = e.recall(question, Some(ns.as_str()), args.max_tokens, Some(at))?;
                let why = check(&q["expect"], &result);
                #[cfg(feature = "internals")]
                if let Some(out) = picks.as_mut() {
                    let candidates = engram::internals::pick::dump::take();
                    let leads = q["expect"].get("answer_contains").is_some() || q["expect"].get("expected_state").is_some();
                    if leads && !candidates.is_empty() {
                        use std::io::Write;
                        let line = serde_json::json!({ "episode": id, "task": task, "question": question, "expect": q["expect"], "candidates": candidates });
                        writeln!(out, "{line}")?;
                    }
                }
                let t = tally.entry(TASKS.iter().find(|x| **x == task).copied().unwrap_or("?")).or_default();
                t.1 += 1;
                total += 1;
                for class in strings(q, "classes") {
                    let c = by_class.entry(class).or_default();
                    c.0 += usize::from(why.is_none());
                    c.1 += 1;
                }
                match why {
                    None => {
                        t.0 += 1;
                        pass += 1;
                    }
                    Some(why) if list_misses => {
                        println!("FAIL {id} {task} {question:?}: {why}");
                        if args.show {
                            eprintln!("route {}\n{}\n", result.route.as_str(), result.context.text);
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        chains.add(ep, &sessions[..next], &authored_slots, args.facts && list_misses);
        // How many of the facts the episode states (its `gold_facts`) some authored memory holds
        // as its value: the author's own recall, apart from what the reader finds in raw turns.
        let mut stated: std::collections::HashSet<String> = std::collections::HashSet::new();
        for s in &sessions[..next] {
            for f in s["gold_facts"].as_array().into_iter().flatten() {
                let (Some(entity), Some(value)) = (f["entity"].as_str(), f["value"].as_str()) else { continue };
                let value = value.trim().to_lowercase();
                let held = !value.is_empty() && authored_values.iter().any(|v| v.contains(&value));
                let first = stated.insert(entity.to_string());
                if !held && args.facts && list_misses {
                    let said = f["fact_text"].as_str().unwrap_or_default();
                    println!("UNHELD {id} {entity} {} {value:?} in {said:?}", if first { "first" } else { "change" });
                }
                let t = if first { &mut facts.0 } else { &mut facts.1 };
                t.0 += usize::from(held);
                t.1 += 1;
                let by = by_form.entry(value_form(&value, f["value"].as_str().unwrap_or_default())).or_insert((0, 0));
                by.0 += usize::from(held);
                by.1 += 1;
            }
        }
    }
    if facts.0 .1 + facts.1 .1 > 0 {
        println!("authored facts first={}/{} change={}/{}", facts.0 .0, facts.0 .1, facts.1 .0, facts.1 .1);
    }
    if !by_form.is_empty() {
        let parts: Vec<String> = by_form.iter().map(|(k, (h, n))| format!("{k}={h}/{n}")).collect();
        println!("authored facts by value form {}", parts.join(" "));
    }
    if chains.n > 0 {
        let c = &chains;
        println!("authored chains (Cas/Abs questions)={} root={} dependent={} linked={} root-changed={} whole={}", c.n, c.root, c.dependent, c.linked, c.root_changed, c.whole);
    }
    if llm.is_some() {
        let outcomes: Vec<String> = llm_tally.by_outcome.iter().map(|(o, n)| format!("{o}={n}")).collect();
        println!(
            "llm calls={} {} tokens_in={} tokens_out={} turns={} by_rules={}",
            llm_tally.calls,
            outcomes.join(" "),
            llm_tally.input_tokens,
            llm_tally.output_tokens,
            llm_tally.authored_turns,
            llm_tally.offline_turns
        );
    }
    // `Cur` is shown only where the data has it, so MEME-layout files print MEME's six.
    let per: Vec<String> = TASKS.iter().filter(|t| **t != "Cur" || tally[*t].1 > 0).map(|t| format!("{t}={}/{}", tally[t].0, tally[t].1)).collect();
    println!("evolving pass={pass}/{total} {}", per.join(" "));
    if !by_class.is_empty() {
        let per: Vec<String> = by_class.iter().map(|(c, (p, n))| format!("{c}={p}/{n}")).collect();
        println!("classes {}", per.join(" "));
    }
    Ok(())
}
