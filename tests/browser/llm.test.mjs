// `openAICompatible` in real headless Chromium with the page's own `fetch`, against a local
// chat-completions server (CORS allowed): the request body (model, messages, response_format with the
// schema), the reply and its usage; a 500 and a timeout are errors; an abort mid-call is an abort;
// and consolidation's judge steps run through it end to end.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { once } from "node:events";
import { serveStatic } from "../../scripts/serve-static.mjs";
import { startBrowser } from "./harness.mjs";

let server;
let browser;
let chat;
const bodies = [];

/** `/ok/…` answers, `/fail/…` is a 500, `/hang/…` never answers. */
async function chatServer() {
  const s = createServer((req, res) => {
    const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type, authorization", "access-control-allow-methods": "POST" };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      const body = JSON.parse(data);
      bodies.push({ url: req.url, auth: req.headers.authorization, body });
      if (req.url.startsWith("/fail/")) return res.writeHead(500, cors).end("upstream exploded");
      if (req.url.startsWith("/hang/")) return;
      const schema = body.response_format?.json_schema?.schema;
      const items = schema?.properties?.decisions?.items?.properties ?? {};
      const ids = (items.id ?? items.pair)?.enum ?? [];
      const decision = body.response_format?.json_schema?.name?.startsWith("gate") ? { decision: "approve", category: "identity" } : { decision: "promote" };
      const content = schema?.properties?.decisions ? JSON.stringify({ decisions: ids.map((id) => ({ id, ...decision })) }) : JSON.stringify({ memories: [] });
      res.writeHead(200, { ...cors, "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }], usage: { prompt_tokens: 21, completion_tokens: 4 } }));
    });
  });
  s.listen(0, "127.0.0.1");
  await once(s, "listening");
  return {
    base: `http://127.0.0.1:${s.address().port}`,
    close: () =>
      new Promise((r) => {
        s.closeAllConnections();
        s.close(r);
      }),
  };
}

before(async () => {
  server = await serveStatic();
  chat = await chatServer();
  browser = await startBrowser();
  await browser.goto(`${server.origin}/tests/browser/llm.html`);
  await browser.evalAsync("(function poll() { if (window.engram) done(true); else setTimeout(poll, 25); })();");
});
after(async () => {
  await browser?.close();
  await server?.close();
  await chat?.close();
});

async function inPage(body) {
  const r = await browser.evalAsync(`(async (engram) => { ${body} })(window.engram).then((value) => done({ value }), (e) => done({ error: String(e && e.stack || e) }));`);
  assert.equal(r.error, undefined, r.error);
  return r.value;
}

const request = {
  purpose: "triage",
  promptId: "triage@1",
  system: "sys",
  messages: [{ role: "user", content: "hi" }],
  schema: { type: "object", additionalProperties: false, required: ["decisions"], properties: { decisions: { type: "array" } } },
  maxOutputTokens: 100,
  temperature: 0,
};

test("openAICompatible in Chromium: the page's fetch, chat-completions body, reply and usage", async () => {
  const out = await inPage(`
    const llm = engram.openAICompatible({ fetch: window.fetch.bind(window), baseURL: "${chat.base}/ok/v1", model: "m1", apiKey: "k" });
    return await llm(${JSON.stringify(request)}, { signal: new AbortController().signal });`);
  assert.deepEqual(JSON.parse(out.text), { decisions: [] });
  assert.deepEqual(out.usage, { inputTokens: 21, outputTokens: 4 });
  const sent = bodies.at(-1);
  assert.equal(sent.url, "/ok/v1/chat/completions");
  assert.equal(sent.auth, "Bearer k");
  assert.equal(sent.body.model, "m1");
  assert.deepEqual(sent.body.messages, [
    { role: "system", content: "sys" },
    { role: "user", content: "hi" },
  ]);
  assert.equal(sent.body.response_format.type, "json_schema");
  assert.deepEqual(sent.body.response_format.json_schema.schema, request.schema);
  assert.equal(sent.body.response_format.json_schema.strict, true);
});

test("openAICompatible in Chromium: a 500 rejects, a hung server is cut by the signal, abort mid-call", async () => {
  const out = await inPage(`
    const make = (path) => engram.openAICompatible({ fetch: window.fetch.bind(window), baseURL: "${chat.base}/" + path + "/v1", model: "m" });
    const failed = await make("fail")(${JSON.stringify(request)}, { signal: new AbortController().signal }).then(() => null, (e) => String(e.message));
    const c = new AbortController();
    setTimeout(() => c.abort(), 100);
    const started = performance.now();
    const aborted = await make("hang")(${JSON.stringify(request)}, { signal: c.signal }).then(() => null, (e) => e.name);
    return { failed, aborted, ms: performance.now() - started };`);
  assert.match(out.failed, /500/);
  assert.equal(out.aborted, "AbortError");
  assert.ok(out.ms < 5000, `cut promptly (${out.ms} ms)`);
});

test("consolidate through openAICompatible in Chromium: triage and the gate decide, a timeout fails open", async () => {
  const out = await inPage(`
    const llm = engram.openAICompatible({ fetch: window.fetch.bind(window), baseURL: "${chat.base}/ok/v1", model: "m" });
    const memory = await engram.Engram.open({ embedder: null, llm, llmLevel: "on" });
    const { id } = await memory.add({ content: "Sam is a nurse at the city hospital", importance: 0.9 });
    await memory.consolidate();
    const triaged = await memory.consolidate();
    for (let i = 0; i < 3; i++) await memory.search("nurse hospital");
    const gated = await memory.consolidate();
    const layer = (await memory.get(id)).layer;
    await memory.close();
    const slow = await engram.Engram.open({ embedder: null, llmLevel: "on", llmTimeoutMs: 200,
      llm: engram.openAICompatible({ fetch: window.fetch.bind(window), baseURL: "${chat.base}/hang/v1", model: "m" }) });
    await slow.add({ content: "Sam is a nurse", importance: 0.9 });
    await slow.consolidate();
    const timedOut = await slow.consolidate();
    await slow.close();
    return { triaged: triaged.actions.filter((a) => a.promptId).map((a) => a.promptId), gated: gated.actions.filter((a) => a.promptId).map((a) => a.promptId), layer,
      skipped: timedOut.skipped.map((s) => [s.step, s.outcome]), epoch: timedOut.epochs.default };`);
  assert.deepEqual(out.triaged, ["triage@1"]);
  assert.deepEqual(out.gated, ["gate@1"]);
  assert.equal(out.layer, "core");
  assert.deepEqual(out.skipped, [["triage", "timeout"]]);
  assert.equal(out.epoch, 2, "the epoch ran without the judge");
});
