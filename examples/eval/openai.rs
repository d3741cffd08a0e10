//! The harness's LLM: any server speaking OpenAI's chat-completions format over plain HTTP (Ollama,
//! llama.cpp's server, vLLM, LM Studio on a local port), sent the body the package's
//! `openAICompatible` sends for the same request, so a score measured here is the score the
//! package's LLM author gets from that model. `https://` is refused: the harness carries no TLS
//! stack (put a local proxy in front of a hosted API).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use engram::host::Llm;
use engram::llm::{LlmFailure, LlmReply, LlmRequest, ReportedUsage};
use serde_json::{json, Value};

use super::AnyResult;

/// How the reply's JSON is asked for, as `openAICompatible`'s `structured` option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Structured {
    /// `response_format` carries the request's schema, strict.
    JsonSchema,
    /// `response_format: {type: "json_object"}`, the schema in the system prompt.
    JsonObject,
    /// No `response_format`; the schema in the system prompt.
    None,
}

impl Structured {
    pub fn parse(s: &str) -> Option<Structured> {
        match s {
            "json_schema" => Some(Structured::JsonSchema),
            "json_object" => Some(Structured::JsonObject),
            "none" => Some(Structured::None),
            _ => None,
        }
    }
}

pub struct OpenAiCompatible {
    /// `host:port`, as dialled and as sent in `Host`.
    authority: String,
    /// The path of `…/chat/completions`.
    path: String,
    model: String,
    api_key: Option<String>,
    structured: Structured,
    timeout: Duration,
}

impl OpenAiCompatible {
    /// `base_url` as the package takes it: `http://localhost:11434/v1`.
    pub fn new(base_url: &str, model: &str, api_key: Option<String>, structured: Structured, timeout: Duration) -> AnyResult<OpenAiCompatible> {
        let rest =
            base_url.strip_prefix("http://").ok_or_else(|| format!("--llm-url {base_url:?}: only http:// URLs (a local server, or a local proxy in front of an https API)"))?;
        let (authority, base_path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
        if authority.is_empty() || model.is_empty() {
            return Err(format!("--llm-url {base_url:?} needs a host, and --model a name").into());
        }
        let authority = if authority.contains(':') { authority.to_string() } else { format!("{authority}:80") };
        let path = format!("/{}/chat/completions", base_path.trim_matches('/')).replace("//", "/");
        Ok(OpenAiCompatible { authority, path, model: model.to_string(), api_key, structured, timeout })
    }

    /// The request body, field for field what `openAICompatible` (pkg-template/src/llm.js) sends.
    pub fn body(&self, request: &LlmRequest) -> Value {
        let mut system = request.system.clone();
        if self.structured != Structured::JsonSchema {
            system.push_str(&format!("\n\nReply with only a JSON value that satisfies this JSON Schema:\n{}", request.schema));
        }
        let mut messages = vec![json!({ "role": "system", "content": system })];
        messages.extend(request.messages.iter().map(|m| json!({ "role": m.role, "content": m.content })));
        let mut body = json!({ "model": self.model, "messages": messages, "max_tokens": request.max_output_tokens, "temperature": request.temperature });
        match self.structured {
            Structured::JsonSchema => {
                let name: String = request.prompt_id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
                body["response_format"] = json!({ "type": "json_schema", "json_schema": { "name": name, "schema": request.schema, "strict": true } });
            }
            Structured::JsonObject => body["response_format"] = json!({ "type": "json_object" }),
            Structured::None => {}
        }
        body
    }

    fn post(&self, body: &[u8]) -> Result<(u16, Vec<u8>), LlmFailure> {
        let io = |e: std::io::Error| match e.kind() {
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => LlmFailure::Timeout,
            _ => LlmFailure::Error(format!("http://{}{}: {e}", self.authority, self.path)),
        };
        let mut stream = TcpStream::connect(&self.authority).map_err(io)?;
        stream.set_read_timeout(Some(self.timeout)).map_err(io)?;
        stream.set_write_timeout(Some(self.timeout)).map_err(io)?;
        let auth = self.api_key.as_ref().map_or(String::new(), |k| format!("Authorization: Bearer {k}\r\n"));
        let head = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{auth}Connection: close\r\n\r\n",
            self.path,
            self.authority,
            body.len()
        );
        stream.write_all(head.as_bytes()).map_err(io)?;
        stream.write_all(body).map_err(io)?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).map_err(io)?;
        parse_response(&raw).map_err(|e| LlmFailure::Error(format!("http://{}{}: {e}", self.authority, self.path)))
    }
}

/// Status and body of an HTTP/1.1 response read to its end (`Connection: close`), chunked or not.
fn parse_response(raw: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or("no end of headers in the response")?;
    let head = std::str::from_utf8(&raw[..split]).map_err(|_| "response headers are not UTF-8")?;
    let mut lines = head.split("\r\n");
    let status: u16 = lines.next().and_then(|l| l.split_whitespace().nth(1)).and_then(|s| s.parse().ok()).ok_or("no status line")?;
    let header = |name: &str| lines.clone().find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_string()));
    let mut body = raw[split + 4..].to_vec();
    if header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
        body = dechunk(&body)?;
    } else if let Some(n) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        if body.len() < n {
            return Err(format!("body cut short: {} of {n} bytes", body.len()));
        }
        body.truncate(n);
    }
    Ok((status, body))
}

fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let eol = rest.windows(2).position(|w| w == b"\r\n").ok_or("chunk size line without an end")?;
        let size_line = std::str::from_utf8(&rest[..eol]).map_err(|_| "chunk size is not text")?;
        let size = usize::from_str_radix(size_line.split(';').next().unwrap_or("").trim(), 16).map_err(|_| format!("bad chunk size {size_line:?}"))?;
        rest = &rest[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        if rest.len() < size {
            return Err("a chunk cut short".into());
        }
        out.extend_from_slice(&rest[..size]);
        rest = rest.get(size + 2..).unwrap_or(&[]);
    }
}

impl Llm for OpenAiCompatible {
    fn complete(&self, request: &LlmRequest) -> Result<LlmReply, LlmFailure> {
        let body = serde_json::to_vec(&self.body(request)).map_err(|e| LlmFailure::Error(e.to_string()))?;
        let (status, reply) = self.post(&body)?;
        let url = format!("http://{}{}", self.authority, self.path);
        if !(200..300).contains(&status) {
            let detail: String = String::from_utf8_lossy(&reply).chars().take(200).collect();
            return Err(LlmFailure::Error(format!("{url} answered HTTP {status}: {detail}")));
        }
        let json: Value = serde_json::from_slice(&reply).map_err(|e| LlmFailure::Error(format!("{url} answered with no JSON: {e}")))?;
        let text = json["choices"][0]["message"]["content"].as_str().ok_or_else(|| LlmFailure::Error(format!("{url} answered without choices[0].message.content")))?;
        let usage = &json["usage"];
        let usage = ReportedUsage { input_tokens: usage["prompt_tokens"].as_u64(), output_tokens: usage["completion_tokens"].as_u64() };
        Ok(LlmReply { text: text.to_string(), usage: (usage.input_tokens.is_some() || usage.output_tokens.is_some()).then_some(usage) })
    }
}
