// The host LLM contract on the JS side (see docs: "Host LLM"): `openAICompatible` builds an `Llm`
// that POSTs chat completions through the fetch the host passes, and `runCalls` runs a plan's
// requests through the host's `Llm`: at most `concurrency` in flight, each under a timeout and the
// caller's signal, one retry on an invalid reply (the core judges validity), every failure turned
// into a reported outcome instead of an exception (fail open).

import { EngramError, abortError, invalid } from "./errors.js";
import { isPlainObject } from "./wire.js";

const STRUCTURED = new Set(["json_schema", "json_object", "none"]);
const HELPER_OPTIONS = new Set(["fetch", "baseURL", "model", "apiKey", "headers", "structured"]);
export const LLM_LEVELS = new Set(["off", "auto", "on"]);
export const DEFAULT_LLM_CONCURRENCY = 2;
export const DEFAULT_LLM_TIMEOUT_MS = 60_000;

/**
 * An `Llm` for any server speaking OpenAI's chat-completions format (OpenAI, Ollama, LM Studio,
 * llama.cpp's server, vLLM, …), calling through the host's `fetch`. `structured`: "json_schema"
 * (default; `response_format` carries the request's schema, strict), "json_object", or "none" (the
 * schema is described in the system prompt).
 */
export function openAICompatible(options) {
  if (!isPlainObject(options)) throw invalid("openAICompatible: expected an options object {fetch, baseURL, model}");
  for (const key of Object.keys(options)) {
    if (!HELPER_OPTIONS.has(key)) throw invalid(`openAICompatible: unknown option \`${key}\` (allowed: ${[...HELPER_OPTIONS].join(", ")})`);
  }
  const { fetch, baseURL, model, apiKey, headers, structured = "json_schema" } = options;
  if (typeof fetch !== "function") throw invalid("openAICompatible: `fetch` must be a function (window.fetch, Node's fetch, Electron's net.fetch, …)");
  if (typeof baseURL !== "string" || baseURL === "") throw invalid("openAICompatible: `baseURL` must be a URL string like http://localhost:11434/v1");
  if (typeof model !== "string" || model === "") throw invalid("openAICompatible: `model` must be a non-empty string");
  if (apiKey !== undefined && typeof apiKey !== "string") throw invalid("openAICompatible: `apiKey` must be a string");
  if (headers !== undefined && !isPlainObject(headers)) throw invalid("openAICompatible: `headers` must be an object of strings");
  if (!STRUCTURED.has(structured)) throw invalid(`openAICompatible: \`structured\` must be one of ${[...STRUCTURED].join(", ")}`);
  const url = `${baseURL.replace(/\/+$/, "")}/chat/completions`;

  /** @param {any} request @param {{signal?: AbortSignal}} [init] */
  return async function llm(request, { signal } = {}) {
    let system = request.system;
    if (structured !== "json_schema") {
      system += `\n\nReply with only a JSON value that satisfies this JSON Schema:\n${JSON.stringify(request.schema)}`;
    }
    const body = {
      model,
      messages: [{ role: "system", content: system }, ...request.messages],
      max_tokens: request.maxOutputTokens,
      temperature: request.temperature,
    };
    if (structured === "json_schema") {
      body.response_format = { type: "json_schema", json_schema: { name: request.promptId.replace(/[^A-Za-z0-9_-]/g, "_"), schema: request.schema, strict: true } };
    } else if (structured === "json_object") {
      body.response_format = { type: "json_object" };
    }
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers },
      body: JSON.stringify(body),
      signal,
    });
    if (!response.ok) {
      const detail = await response.text().catch(() => "");
      throw new EngramError("Llm", `${url} answered HTTP ${response.status}${detail ? `: ${detail.slice(0, 200)}` : ""}`);
    }
    const json = await response.json().catch(() => null);
    const text = json?.choices?.[0]?.message?.content;
    if (typeof text !== "string") throw new EngramError("Llm", `${url} answered without choices[0].message.content`);
    const usage = {};
    if (Number.isFinite(json.usage?.prompt_tokens)) usage.inputTokens = json.usage.prompt_tokens;
    if (Number.isFinite(json.usage?.completion_tokens)) usage.outputTokens = json.usage.completion_tokens;
    return { text, usage };
  };
}

/** `{text, usage?}` from an `LlmReply` (a string or `{text, usage?}`); null when it is neither. */
function normalizeReply(reply) {
  if (typeof reply === "string") return { text: reply, usage: undefined };
  if (isPlainObject(reply) && typeof reply.text === "string") {
    const u = isPlainObject(reply.usage) ? reply.usage : {};
    const usage = {};
    if (Number.isInteger(u.inputTokens) && u.inputTokens >= 0) usage.inputTokens = u.inputTokens;
    if (Number.isInteger(u.outputTokens) && u.outputTokens >= 0) usage.outputTokens = u.outputTokens;
    return { text: reply.text, usage };
  }
  return null;
}

/** Sums two attempts' reported counts; a count missing from either attempt is left out (estimated). */
function addUsage(total, more) {
  if (total === undefined) return more;
  const out = {};
  for (const k of ["inputTokens", "outputTokens"]) {
    if (total?.[k] !== undefined && more?.[k] !== undefined) out[k] = total[k] + more[k];
  }
  return out;
}

/** One call with its one retry; resolves to a `CallResult` for the core, never rejects. */
async function runOne(llm, request, { check, timeoutMs, signal }) {
  const started = Date.now();
  const result = { outcome: "invalid", attempts: 0, replies: [], durationMs: 0 };
  let usage;
  let current = request;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (signal?.aborted) {
      Object.assign(result, { outcome: "aborted", error: "the operation was aborted" });
      break;
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(abortError("the LLM call timed out"));
    }, timeoutMs);
    const onAbort = () => controller.abort(abortError("the operation was aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    result.attempts += 1;
    let reply;
    try {
      // The race makes a callback that ignores its signal still end at the timeout or the abort.
      const aborted = new Promise((_, reject) => controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true }));
      reply = normalizeReply(await Promise.race([Promise.resolve().then(() => llm(current, { signal: controller.signal })), aborted]));
      if (reply === null) throw new EngramError("Llm", "the llm function must resolve to a string or {text, usage?}");
    } catch (e) {
      const outcome = signal?.aborted ? "aborted" : timedOut ? "timeout" : "error";
      Object.assign(result, { outcome, error: String(e?.message ?? e).slice(0, 500) });
      break;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    usage = addUsage(attempt === 0 ? undefined : usage, reply.usage);
    result.replies.push(reply.text);
    const verdict = check(request, reply.text);
    if (verdict.valid) {
      result.outcome = attempt === 0 ? "ok" : "retried";
      delete result.error;
      break;
    }
    result.error = verdict.error;
    current = verdict.retry;
  }
  if (usage !== undefined && Object.keys(usage).length > 0) result.usage = usage;
  result.durationMs = Date.now() - started;
  return result;
}

/**
 * Runs every request of a plan through `llm`, at most `concurrency` at once; resolves to one
 * `CallResult` per request, in order. `check(request, text)` is the core's verdict on a reply;
 * `called()` after each request's result.
 */
export async function runCalls(llm, requests, { check, concurrency, timeoutMs, signal, called = () => {} }) {
  const results = new Array(requests.length);
  let next = 0;
  async function lane() {
    while (next < requests.length) {
      const i = next++;
      results[i] = await runOne(llm, requests[i], { check, timeoutMs, signal });
      called();
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, requests.length) }, lane));
  if (signal?.aborted) throw new EngramError("Aborted", "the run was aborted before its results were applied; nothing was applied");
  return results;
}
