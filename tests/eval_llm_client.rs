//! The evaluation harness's OpenAI-compatible client (`examples/eval/openai.rs`, what
//! `eval evolving PATH --llm-url URL --model M` authors through), against a scripted HTTP server on
//! a local port: the body it sends is the package's `openAICompatible` body, a reply (plain or
//! chunked) is authored and stored through `author_with`, and HTTP errors, a dead server and an
//! `https://` URL fail as failures the offline rules then cover.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::rc::Rc;
use std::sync::mpsc;
use std::time::Duration;

use engram::engine::ExtractOptions;
use engram::host::{Llm, ManualClock};
use engram::llm::{LlmFailure, LlmMessage, LlmRequest, Purpose, Role};
use engram::{EngineOptions, Engram, SessionInput, TurnInput};
use serde_json::{json, Value};

type AnyResult<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[path = "../examples/eval/openai.rs"]
#[allow(dead_code)]
mod openai;

use openai::{OpenAiCompatible, Structured};

const T0: i64 = 1_700_000_000_000;

/// One scripted answer: status, whether to send the body chunked, the body.
type Scripted = (u16, bool, String);

/// Serves `script` one connection each on a free local port; every request's body goes to the
/// returned receiver. Returns the base URL.
fn serve(script: Vec<Scripted>) -> (String, mpsc::Receiver<(String, Value)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for (status, chunked, body) in script {
            let Ok((stream, _)) = listener.accept() else { return };
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut sent = vec![0u8; length];
            reader.read_exact(&mut sent).unwrap();
            let _ = tx.send((head, serde_json::from_slice(&sent).unwrap_or(Value::Null)));
            let mut stream = reader.into_inner();
            let answer = if chunked {
                let (a, b) = body.split_at(body.len() / 2);
                format!("HTTP/1.1 {status} X\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n", a.len(), b.len())
            } else {
                format!("HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len())
            };
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    (format!("http://127.0.0.1:{port}/v1"), rx)
}

fn completion(content: &str) -> String {
    json!({ "choices": [{ "message": { "role": "assistant", "content": content } }], "usage": { "prompt_tokens": 321, "completion_tokens": 45 } }).to_string()
}

fn client(url: &str, structured: Structured) -> OpenAiCompatible {
    OpenAiCompatible::new(url, "qwen-test", Some("k-123".into()), structured, Duration::from_secs(10)).unwrap()
}

fn request() -> LlmRequest {
    LlmRequest {
        purpose: Purpose::Author,
        prompt_id: "author@3".into(),
        system: "You author memories.".into(),
        messages: vec![LlmMessage { role: Role::User, content: "<conversation>…</conversation>".into() }],
        schema: json!({ "type": "object", "required": ["memories"] }),
        max_output_tokens: 4000,
        temperature: 0.0,
    }
}

#[test]
fn the_body_is_the_packages_openai_compatible_body() {
    let c = client("http://127.0.0.1:9/v1", Structured::JsonSchema);
    let body = c.body(&request());
    assert_eq!(body["model"], "qwen-test");
    assert_eq!(body["messages"], json!([{ "role": "system", "content": "You author memories." }, { "role": "user", "content": "<conversation>…</conversation>" }]));
    assert_eq!((body["max_tokens"].as_u64(), body["temperature"].as_f64()), (Some(4000), Some(0.0)));
    // The prompt id as a schema name ('@' is not allowed there), the schema strict.
    assert_eq!(body["response_format"], json!({ "type": "json_schema", "json_schema": { "name": "author_3", "schema": request().schema, "strict": true } }));
    // Without structured output the schema goes to the system prompt.
    let plain = client("http://127.0.0.1:9/v1", Structured::None).body(&request());
    assert!(plain.get("response_format").is_none());
    let system = plain["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("You author memories.\n\nReply with only a JSON value that satisfies this JSON Schema:\n{"), "{system}");
    assert_eq!(client("http://127.0.0.1:9/v1", Structured::JsonObject).body(&request())["response_format"], json!({ "type": "json_object" }));
}

#[test]
fn a_reply_plain_or_chunked_is_read_with_its_usage() {
    let (url, sent) = serve(vec![(200, false, completion("{\"memories\":[]}")), (200, true, completion("{\"memories\":[1]}"))]);
    let c = client(&url, Structured::JsonSchema);
    let first = c.complete(&request()).unwrap();
    assert_eq!(first.text, "{\"memories\":[]}");
    let usage = first.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (Some(321), Some(45)));
    assert_eq!(c.complete(&request()).unwrap().text, "{\"memories\":[1]}");
    let (head, body) = sent.recv().unwrap();
    assert!(head.starts_with("POST /v1/chat/completions HTTP/1.1\r\n"), "{head}");
    assert!(head.contains("Authorization: Bearer k-123\r\n"), "{head}");
    assert_eq!(body, c.body(&request()));
}

#[test]
fn errors_are_failures_and_https_is_refused() {
    let (url, _sent) = serve(vec![(500, false, "model not loaded".into()), (200, false, "{\"nothing\":1}".into())]);
    let c = client(&url, Structured::JsonSchema);
    match c.complete(&request()) {
        Err(LlmFailure::Error(m)) => assert!(m.contains("HTTP 500: model not loaded"), "{m}"),
        other => panic!("{other:?}"),
    }
    match c.complete(&request()) {
        Err(LlmFailure::Error(m)) => assert!(m.contains("without choices[0].message.content"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(OpenAiCompatible::new("https://api.example.test/v1", "m", None, Structured::JsonSchema, Duration::from_secs(1)).is_err());
}

fn session() -> SessionInput {
    let turns = [("user", "My pharmacy is Greenleaf Chemists."), ("assistant", "Noted."), ("user", "Forget my gym, I quit.")];
    SessionInput {
        id: "s1".into(),
        namespace: Some("kai".into()),
        date: Some(T0),
        turns: turns.iter().map(|(r, c)| TurnInput { role: (*r).into(), content: (*c).into(), ..TurnInput::default() }).collect(),
        allow_secrets: false,
    }
}

fn engine() -> Engram {
    Engram::new(Box::new(Rc::new(ManualClock::new(T0))), EngineOptions { id_seed: Some(3), ..EngineOptions::default() })
}

#[test]
fn the_llm_author_runs_through_a_server_and_the_rules_cover_a_dead_one() {
    let memory = json!({ "content": "Kai's pharmacy is Greenleaf Chemists.", "shape": "evolving_attribute", "thread": "pharmacy", "value": "Greenleaf Chemists",
        "corrects": null, "dependsOn": null, "consequent": null, "area": ["health"], "signature": null, "confidence": 0.9, "eventAt": null, "derivedFrom": ["s1#0"] });
    // An invalid first reply is retried once, as the package does; the retry is stored.
    let (url, sent) = serve(vec![(200, false, completion("not json")), (200, true, completion(&json!({ "memories": [memory] }).to_string()))]);
    let mut e = engine();
    e.ingest(session()).unwrap();
    let report = e.author_with(&client(&url, Structured::JsonSchema), "s1", &ExtractOptions::default(), true).unwrap();
    assert_eq!((report.author.as_str(), report.added.len(), report.offline_turns.len()), ("author@3", 1, 0), "{report:?}");
    assert_eq!(report.calls[0].outcome.as_str(), "retried");
    assert_eq!(e.get(&report.added[0]).unwrap().value.as_deref(), Some("Greenleaf Chemists"));
    let (_, first) = sent.recv().unwrap();
    assert_eq!(first["response_format"]["json_schema"]["name"], "author_3");
    assert!(first["messages"][1]["content"].as_str().unwrap().contains("Greenleaf Chemists"));

    // Nothing listens on the port any more: the call fails and the offline rules author the turns.
    let dead = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://127.0.0.1:{}/v1", l.local_addr().unwrap().port())
    };
    let mut e = engine();
    e.ingest(session()).unwrap();
    let report = e.author_with(&client(&dead, Structured::JsonSchema), "s1", &ExtractOptions::default(), true).unwrap();
    assert_eq!(report.calls[0].outcome.as_str(), "error", "{report:?}");
    assert!(!report.offline_turns.is_empty() && !report.added.is_empty(), "{report:?}");
}
