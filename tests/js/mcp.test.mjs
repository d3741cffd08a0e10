// engram-mcp as its users run it: the MCP SDK's own Client over StdioClientTransport spawning the
// real server (mcp/bin/engram-mcp.js) on a store directory. Tools are listed with schemas, remember →
// recall finds it, two server processes on one directory see each other's writes, bad arguments and
// Engram's errors come back as tool errors with Engram's codes, SIGTERM flushes and exits 0, the LLM
// comes from an OpenAI-compatible endpoint or from the client itself through sampling, and (where
// the model files exist) the local embedder finds a memory by meaning.
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Engram, limits } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { readmeSnippet, repo } from "./helpers.mjs";
import { defaultStoreDir, parseArgs } from "../../mcp/src/options.js";

const bin = join(repo, "mcp", "bin", "engram-mcp.js");
const modelDir = join(repo, "models");

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "engram-mcp-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A client connected to a fresh server process on `dir`; closed when the test ends. */
async function connect(t, dir, { args = [], env = {}, capabilities = {}, onSampling } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "--dir", dir, ...args],
    env: { ...getDefaultEnvironment(), ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "engram-mcp-test", version: "0.0.0" }, { capabilities });
  if (onSampling) client.setRequestHandler(CreateMessageRequestSchema, onSampling);
  await client.connect(transport);
  t.after(() => client.close());
  return { client, transport, stderr: () => stderr };
}

/** The text of a tool result. */
const textOf = (r) => r.content.map((c) => c.text).join("");

async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.ok(!r.isError, `${name} failed: ${textOf(r)}`);
  return r;
}

async function callError(client, name, args, code) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, true, `${name}(${JSON.stringify(args)}) should fail, got ${textOf(r)}`);
  assert.equal(r.structuredContent?.error?.code, code, textOf(r));
  assert.ok(textOf(r).startsWith(`${code}: `), textOf(r));
  return r;
}

test("engram-mcp lists its tools with JSON Schemas and descriptions", async (t) => {
  const { client } = await connect(t, tempDir(t));
  const info = client.getServerVersion();
  assert.equal(info.name, "engram-mcp");
  assert.match(client.getInstructions() ?? "", /recall/);
  const { tools } = await client.listTools();
  const names = tools.map((x) => x.name);
  const expected = ["remember", "recall", "search", "forget", "ingest_conversation", "resume", "stats"];
  for (const optional of ["consolidate", "thread", "gather"]) if (typeof Engram.prototype[optional] === "function") expected.push(optional);
  assert.deepEqual(names.sort(), expected.sort());
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, "object", tool.name);
    assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
    assert.ok(tool.description.length > 60, `${tool.name} has a description an agent can act on`);
  }
  const remember = tools.find((x) => x.name === "remember");
  assert.deepEqual(remember.inputSchema.required, ["content"]);
  assert.deepEqual(remember.inputSchema.properties.kind.enum, ["semantic", "episodic", "procedural"]);
  assert.equal(tools.find((x) => x.name === "recall").annotations.readOnlyHint, true);
  assert.equal(tools.find((x) => x.name === "forget").annotations.destructiveHint, true);
  // Every bound is the package's own.
  const bounds = limits();
  assert.equal(remember.inputSchema.properties.content.maxLength, bounds.contentChars);
  assert.equal(remember.inputSchema.properties.tags.maxItems, bounds.tags);
  assert.equal(remember.inputSchema.properties.namespace.maxLength, bounds.namespaceChars);
  assert.equal(remember.inputSchema.properties.value.maxLength, bounds.valueChars);
  const search = tools.find((x) => x.name === "search");
  assert.match(search.inputSchema.properties.tags.description, /every one/);
  const ingest = tools.find((x) => x.name === "ingest_conversation");
  assert.equal(ingest.inputSchema.properties.turns.maxItems, bounds.sessionTurns);
  assert.equal(tools.find((x) => x.name === "recall").inputSchema.properties.maxTokens.maximum, bounds.contextTokens);
});

test("remember takes the evolving fields; thread, gather and recall answer from what holds now, in the server's --namespace", async (t) => {
  const dir = tempDir(t);
  const { client, transport } = await connect(t, dir, { args: ["--namespace", "user:42"] });
  const home = { shape: "evolving_attribute", thread: "user/home-city", area: ["home"] };
  await call(client, "remember", { content: "Ana lives in Lisbon", value: "Lisbon", eventAt: "2024-01-05", ...home });
  await call(client, "remember", { content: "Ana moved to Porto", value: "Porto", eventAt: "2025-03-01", ...home });
  const trail = (await call(client, "thread", { label: "user/home-city" })).structuredContent;
  assert.equal(trail.state.value, "Porto");
  assert.deepEqual(
    trail.values.map((v) => [v.value, v.state]),
    [
      ["Lisbon", "superseded"],
      ["Porto", "current"],
    ],
  );
  const asOf = (await call(client, "thread", { label: "user/home-city", at: "2024-06-01" })).structuredContent;
  assert.equal(asOf.state.value, "Lisbon", "as it stood then");
  const area = (await call(client, "gather", { area: "home" })).structuredContent;
  assert.deepEqual(
    area.answers.filter((a) => a.state === "current").map((a) => a.value),
    ["Porto"],
  );
  const recalled = textOf(await call(client, "recall", { query: "where does Ana live?" }));
  assert.match(recalled, /Porto/);
  // The thread lives in the server's namespace: another namespace does not see it.
  assert.equal((await call(client, "thread", { label: "user/home-city", namespace: "user:7" })).structuredContent.state, null);
  const stored = (await call(client, "search", { query: "Porto", scope: "memories" })).structuredContent.hits[0];
  assert.equal(stored.namespace, "user:42");

  // Every evolving field the package declares (index.d.ts EvolvingFields) is in remember's schema.
  const declared = /export interface EvolvingFields \{([\s\S]*?)\n\}/.exec(readFileSync(join(repo, "pkg-template", "index.d.ts"), "utf8"))[1];
  const fields = [...declared.matchAll(/^ {2}(\w+)\?:/gm)].map((m) => m[1]);
  assert.ok(fields.length >= 9, fields.join());
  const { tools } = await client.listTools();
  const remember = tools.find((tool) => tool.name === "remember").inputSchema.properties;
  assert.deepEqual(
    fields.filter((f) => !(f in remember)),
    [],
  );
  const unsure = await call(client, "remember", { content: "Ana might switch to a standing desk", thread: "user/desk", value: "standing desk", confidence: 0.4 });
  await callError(client, "remember", { content: "Ana is sure", confidence: 2 }, "InvalidInput");
  // What the server stored, read back once it has flushed and exited.
  const exited = once(transport._process, "close");
  await client.close();
  await exited;
  const store = await Engram.open({ storage: new NodeFSStorage(dir), embedder: null });
  t.after(() => store.close());
  assert.equal((await store.get(unsure.structuredContent.id)).confidence, 0.4);
});

test("ingest_conversation authors typed memories with the offline rules when there is no LLM", async (t) => {
  const { client } = await connect(t, tempDir(t));
  const out = await call(client, "ingest_conversation", { sessionId: "bank-1", date: "2024-03-01", turns: [{ role: "user", content: "My bank is Northfield Credit Union." }] });
  assert.equal(out.structuredContent.authored.author, "author-rules@1", textOf(out));
  assert.match(textOf(out), /authored 1 new memories \(offline rules\)/);
  assert.equal(out.structuredContent.extracted, undefined);
  const trail = (await call(client, "thread", { label: "bank" })).structuredContent;
  assert.equal(trail.state.value, "Northfield Credit Union");
  const skipped = await call(client, "ingest_conversation", { sessionId: "bank-2", author: false, turns: [{ role: "user", content: "My gym is FitHub." }] });
  assert.equal(skipped.structuredContent.authored, undefined);
});

test("remember → recall, search and resume find it; dedup reinforces; forget removes it", async (t) => {
  const { client } = await connect(t, tempDir(t));
  const first = await call(client, "remember", { content: "Ana prefers answers under 100 words", kind: "semantic", importance: 0.9, tags: ["style"] });
  const id = first.structuredContent.id;
  assert.match(textOf(first), /^Remembered: /);
  const again = await call(client, "remember", { content: "ana prefers answers under 100 words." });
  assert.equal(again.structuredContent.id, id);
  assert.equal(again.structuredContent.deduplicated, true);
  await call(client, "remember", { content: "The deploy script lives in ops/deploy.sh", kind: "procedural", namespace: "repo" });

  const recalled = await call(client, "recall", { query: "how long should answers to Ana be?" });
  assert.match(textOf(recalled), /<memory>/);
  assert.match(textOf(recalled), /Ana prefers answers under 100 words/);
  assert.deepEqual(recalled.structuredContent.ids, [id]);
  assert.ok(recalled.structuredContent.tokens > 0);

  const found = await call(client, "search", { query: "deploy script", namespace: "repo", limit: 3 });
  const hit = found.structuredContent.hits[0];
  assert.equal(hit.type, "memory");
  assert.equal(hit.content, "The deploy script lives in ops/deploy.sh");
  assert.equal(hit.kind, "procedural");
  assert.ok(hit.score > 0 && hit.createdAt);

  const resumed = await call(client, "resume", {});
  assert.match(textOf(resumed), /Ana prefers answers under 100 words/);

  const nothing = await call(client, "recall", { query: "favourite mountain range" });
  assert.equal(textOf(nothing), "(nothing relevant in memory)");

  await call(client, "forget", { id });
  const after = await call(client, "search", { query: "Ana answers words", scope: "memories" });
  assert.equal(after.structuredContent.hits.length, 0);
  await callError(client, "forget", { id }, "NotFound");
  const stats = await call(client, "stats", {});
  assert.equal(stats.structuredContent.memories, 1);
  assert.equal(stats.structuredContent.llm, "none");
});

test(
  "consolidate (where engram-wasm has it): a report of the epoch; dry runs change nothing; bad options are tool errors",
  { skip: typeof Engram.prototype.consolidate !== "function" && "this engram-wasm has no consolidate()" },
  async (t) => {
    const { client } = await connect(t, tempDir(t));
    await call(client, "remember", { content: "The user drinks green tea every morning", kind: "semantic" });
    await call(client, "remember", { content: "Standup moved to 9:30", kind: "episodic" });
    const dry = await call(client, "consolidate", { dryRun: true });
    assert.equal(dry.structuredContent.dryRun, true);
    assert.match(textOf(dry), /^Would do: /);
    const done = await call(client, "consolidate", {});
    assert.equal(done.structuredContent.dryRun, false);
    assert.ok(Array.isArray(done.structuredContent.actions));
    assert.match(textOf(done), /^Done: /);
    assert.equal((await call(client, "stats", {})).structuredContent.memories, 2);
    await callError(client, "consolidate", { maxLlmCalls: -1 }, "InvalidInput");
    await callError(client, "consolidate", { bufferCap: 3 }, "InvalidInput");
  },
);

test("ingest_conversation keeps turns for recall; forget by sessionId removes them", async (t) => {
  const { client } = await connect(t, tempDir(t));
  const turns = [
    { role: "user", content: "We decided to ship the beta on March 3rd." },
    { role: "assistant", content: "Noted, the beta ships March 3rd." },
  ];
  const out = await call(client, "ingest_conversation", { sessionId: "planning-1", turns, date: "2025-02-10" });
  assert.equal(out.structuredContent.added, 2);
  assert.equal(out.structuredContent.extracted, undefined, "no LLM: nothing to extract");
  const grown = await call(client, "ingest_conversation", {
    sessionId: "planning-1",
    turns: [...turns, { role: "user", content: "And the launch party is on the 10th." }],
    date: "2025-02-10",
  });
  assert.deepEqual([grown.structuredContent.added, grown.structuredContent.unchanged], [1, 2]);
  const asked = await call(client, "ingest_conversation", { sessionId: "planning-1", turns, date: "2025-02-10", extract: true });
  assert.match(textOf(asked), /no language model is configured/);
  const recalled = await call(client, "recall", { query: "when does the beta ship?" });
  assert.match(textOf(recalled), /March 3rd/);
  const removed = await call(client, "forget", { sessionId: "planning-1" });
  assert.equal(removed.structuredContent.deleted.entries, 3);
  assert.equal(textOf(await call(client, "recall", { query: "when does the beta ship?" })), "(nothing relevant in memory)");
});

test("bad arguments and Engram's errors are tool errors with Engram's codes; the server keeps serving", async (t) => {
  const { client } = await connect(t, tempDir(t));
  await callError(client, "remember", {}, "InvalidInput");
  await callError(client, "remember", { content: "x", importance: 5 }, "InvalidInput");
  await callError(client, "remember", { content: "x", color: "blue" }, "InvalidInput");
  await callError(client, "remember", { content: 42 }, "InvalidInput");
  await callError(client, "remember", { content: "x", namespace: " padded " }, "InvalidInput");
  // Past the schema, Engram's own checks answer.
  await callError(client, "remember", { content: "   " }, "InvalidInput");
  await callError(client, "remember", { content: "x", eventAt: "not a date" }, "InvalidInput");
  await callError(client, "recall", { query: "" }, "InvalidInput");
  await callError(client, "search", { query: "x", limit: 0 }, "InvalidInput");
  await callError(client, "forget", {}, "InvalidInput");
  await callError(client, "forget", { id: "a", sessionId: "b" }, "InvalidInput");
  await callError(client, "forget", { sessionId: "no-such-session" }, "NotFound");
  await callError(client, "ingest_conversation", { sessionId: "s", turns: [] }, "InvalidInput");
  await callError(client, "ingest_conversation", { sessionId: "s", turns: [{ role: "user" }] }, "InvalidInput");
  // An unknown tool is a tool result the agent's model reads, naming the tools there are.
  const unknown = await callError(client, "no_such_tool", {}, "NotFound");
  assert.match(textOf(unknown), /tools: remember, recall/);
  const stats = await call(client, "stats", {});
  assert.equal(stats.structuredContent.memories, 0, "nothing was written by the failed calls");
});

test("two server processes on one directory see each other's writes", async (t) => {
  const dir = tempDir(t);
  const a = await connect(t, dir);
  const b = await connect(t, dir);
  await call(a.client, "remember", { content: "The staging database is on port 5433" });
  const seen = await call(b.client, "recall", { query: "staging database port" });
  assert.match(textOf(seen), /port 5433/);
  await call(b.client, "remember", { content: "Staging deploys need the VPN" });
  const both = await call(a.client, "search", { query: "staging", scope: "memories" });
  assert.deepEqual(both.structuredContent.hits.map((h) => h.content).sort(), ["Staging deploys need the VPN", "The staging database is on port 5433"]);
  // Concurrent writes from both processes: none is lost.
  await Promise.all([
    ...Array.from({ length: 8 }, (_, i) => call(a.client, "remember", { content: `fact from a number ${i}` })),
    ...Array.from({ length: 8 }, (_, i) => call(b.client, "remember", { content: `fact from b number ${i}` })),
  ]);
  assert.equal((await call(a.client, "stats", {})).structuredContent.memories, 18);
  assert.equal((await call(b.client, "stats", {})).structuredContent.memories, 18);
});

test("SIGTERM flushes the store (search touches too) and exits 0", async (t) => {
  const dir = tempDir(t);
  const { client, transport, stderr } = await connect(t, dir, { args: ["--durability", "relaxed"] });
  const {
    structuredContent: { id },
  } = await call(client, "remember", { content: "The office plant is watered on Fridays" });
  // A search touches the memory (access count): kept in memory until the next write or a flush.
  await call(client, "search", { query: "office plant watered" });
  // The transport keeps the spawned process as `_process`; its exit code is what this test checks.
  const child = transport._process;
  assert.ok(child, "the transport's child process");
  // "close", not "exit": it fires once stderr is drained, so the last log line is there to read.
  const exited = once(child, "close");
  child.kill("SIGTERM");
  const [code, signal] = await exited;
  assert.deepEqual([code, signal], [0, null], stderr());
  assert.match(stderr(), /SIGTERM: flushing and exiting/);

  const store = await Engram.open({ storage: new NodeFSStorage(dir, { lockTimeoutMs: 500 }), embedder: null });
  try {
    const m = await store.get(id);
    assert.equal(m.content, "The office plant is watered on Fridays");
    assert.equal(m.accessCount, 1, "the search's touch was flushed before the exit");
  } finally {
    await store.close();
  }
});

test("SIGINT (Ctrl-C in a terminal) exits 0 the same way", async (t) => {
  const { client, transport, stderr } = await connect(t, tempDir(t));
  await call(client, "remember", { content: "Ctrl-C is SIGINT" });
  const exited = once(transport._process, "close");
  transport._process.kill("SIGINT");
  assert.deepEqual(await exited, [0, null], stderr());
  assert.match(stderr(), /SIGINT: flushing and exiting/);
});

test("the client closing the connection (stdin) flushes and exits 0", async (t) => {
  const dir = tempDir(t);
  const { client, transport, stderr } = await connect(t, dir);
  await call(client, "remember", { content: "Closing stdin ends the server cleanly" });
  const exited = once(transport._process, "close");
  await client.close();
  assert.deepEqual(await exited, [0, null], stderr());
  assert.match(stderr(), /stdin closed: flushing and exiting/);
});

test("a store that cannot open answers every call with a tool error, and the server stays up", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "not-a-directory");
  await import("node:fs/promises").then((fs) => fs.writeFile(file, "x"));
  const { client } = await connect(t, file);
  const r = await callError(client, "stats", {}, "Storage");
  assert.match(textOf(r), /not-a-directory/);
  await callError(client, "remember", { content: "x" }, "Storage");
});

/** A chat-completions server answering every request with `content`; records the requests. */
async function chatServer(t, content) {
  const requests = [];
  const server = createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      requests.push({ auth: req.headers.authorization, body: JSON.parse(data) });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }], usage: { prompt_tokens: 50, completion_tokens: 20 } }));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(
    () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  );
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests };
}

const chat = [
  { role: "user", content: "I just adopted a cat named Miso." },
  { role: "assistant", content: "Congratulations on Miso!" },
];
const extracted = JSON.stringify({
  memories: [{ content: "The user adopted a cat named Miso", kind: "episodic", importance: 0.8, tags: ["pets"], eventAt: "2025-05-01", derivedFrom: ["pets-1#0"] }],
});

test("--llm-url: ingest_conversation extracts typed memories through the endpoint, key from ENGRAM_LLM_API_KEY", async (t) => {
  const llm = await chatServer(t, extracted);
  const { client } = await connect(t, tempDir(t), { args: ["--llm-url", llm.url, "--llm-model", "test-model"], env: { ENGRAM_LLM_API_KEY: "sk-test" } });
  const out = await call(client, "ingest_conversation", { sessionId: "pets-1", turns: chat, date: "2025-05-02" });
  assert.equal(out.structuredContent.extracted.added.length, 1, textOf(out));
  assert.match(textOf(out), /extracted 1 new memories/);
  assert.equal(llm.requests.length, 1);
  assert.equal(llm.requests[0].auth, "Bearer sk-test");
  assert.equal(llm.requests[0].body.model, "test-model");
  const found = await call(client, "search", { query: "cat Miso", scope: "memories" });
  assert.equal(found.structuredContent.hits[0].content, "The user adopted a cat named Miso");
  assert.deepEqual(found.structuredContent.hits[0].derivedFrom, ["pets-1#0"]);
  assert.match((await call(client, "stats", {})).structuredContent.llm, /^openai-compatible /);
});

test("--llm-level on: ingest_conversation authors through the endpoint (author@3) and extracts nothing", async (t) => {
  const authored = JSON.stringify({
    memories: [
      {
        content: "The user's cat is named Miso",
        shape: "evolving_attribute",
        thread: "user/cat-name",
        value: "Miso",
        corrects: null,
        dependsOn: null,
        consequent: null,
        area: ["pets"],
        signature: null,
        confidence: 0.9,
        eventAt: "2025-05-01",
        derivedFrom: ["pets-1#0"],
      },
    ],
  });
  const llm = await chatServer(t, authored);
  const { client } = await connect(t, tempDir(t), { args: ["--llm-url", llm.url, "--llm-model", "test-model", "--llm-level", "on"] });
  const out = await call(client, "ingest_conversation", { sessionId: "pets-1", turns: chat, date: "2025-05-02" });
  assert.equal(out.structuredContent.authored.author, "author@3", textOf(out));
  assert.equal(out.structuredContent.extracted, undefined);
  assert.match(textOf(out), /authored 1 new memories \(the language model\)/);
  assert.equal(llm.requests.length, 1);
  assert.equal((await call(client, "thread", { label: "user/cat-name" })).structuredContent.state.value, "Miso");
});

test("MCP sampling: the client's own model is the LLM when the client offers sampling", async (t) => {
  const asked = [];
  const { client } = await connect(t, tempDir(t), {
    capabilities: { sampling: {} },
    onSampling: async (request) => {
      asked.push(request.params);
      return { model: "client-model", role: "assistant", content: { type: "text", text: extracted } };
    },
  });
  const out = await call(client, "ingest_conversation", { sessionId: "pets-1", turns: chat });
  assert.equal(out.structuredContent.extracted.added.length, 1, textOf(out));
  assert.equal(asked.length, 1);
  assert.match(asked[0].systemPrompt, /JSON Schema/);
  assert.equal(asked[0].messages[0].role, "user");
  assert.match(asked[0].messages[0].content.text, /Miso/);
  assert.equal(asked[0].includeContext, "none");
  assert.equal((await call(client, "stats", {})).structuredContent.llm, "client sampling");
  // The client's model failing is reported, never applied in part, and the turns stay searchable.
  const failing = await connect(t, tempDir(t), {
    capabilities: { sampling: {} },
    onSampling: async () => ({ model: "client-model", role: "assistant", content: { type: "text", text: "not json" } }),
  });
  const skipped = await call(failing.client, "ingest_conversation", { sessionId: "pets-1", turns: chat });
  assert.equal(skipped.structuredContent.extracted.added.length, 0);
  assert.equal(skipped.structuredContent.extracted.skipped.length, 1);
  assert.match(textOf(await call(failing.client, "recall", { query: "cat named Miso" })), /Miso/);
});

test("a sampling request the client never answers times out (--llm-timeout-ms); the turns are kept, the server goes on", async (t) => {
  const { client } = await connect(t, tempDir(t), { args: ["--llm-timeout-ms", "300"], capabilities: { sampling: {} }, onSampling: () => new Promise(() => {}) });
  const out = await call(client, "ingest_conversation", { sessionId: "pets-1", turns: chat });
  assert.equal(out.structuredContent.added, 2);
  assert.deepEqual(
    out.structuredContent.extracted.skipped.map((s) => s.outcome),
    ["timeout"],
  );
  assert.equal((await call(client, "stats", {})).structuredContent.rawEntries, 2);
});

test("--no-sampling keeps the client's model out even when it offers sampling", async (t) => {
  let asked = 0;
  const { client } = await connect(t, tempDir(t), {
    args: ["--no-sampling"],
    capabilities: { sampling: {} },
    onSampling: async () => {
      asked++;
      return { model: "m", role: "assistant", content: { type: "text", text: extracted } };
    },
  });
  const out = await call(client, "ingest_conversation", { sessionId: "pets-1", turns: chat });
  assert.equal(out.structuredContent.extracted, undefined);
  assert.equal(asked, 0);
});

test("with ENGRAM_MODEL_DIR the local embedder finds a memory by meaning", { skip: !existsSync(join(modelDir, "model.onnx")) && "no model files in models/" }, async (t) => {
  const { client } = await connect(t, tempDir(t), { env: { ENGRAM_MODEL_DIR: modelDir } });
  await call(client, "remember", { content: "Ana's cat is called Miso" });
  await call(client, "remember", { content: "The quarterly report is due in April" });
  const found = await call(client, "search", { query: "what pet does Ana have?", scope: "memories", limit: 1 });
  assert.equal(found.structuredContent.hits[0].content, "Ana's cat is called Miso");
  const stats = await call(client, "stats", {});
  assert.match(stats.structuredContent.embedder, /MiniLM/);
});

test("options: the default store directory follows the platform's data directory; bad options are refused", () => {
  assert.equal(defaultStoreDir({ XDG_DATA_HOME: "/data" }, "linux", "/home/u"), "/data/engram-mcp");
  assert.equal(defaultStoreDir({}, "linux", "/home/u"), "/home/u/.local/share/engram-mcp");
  assert.equal(defaultStoreDir({}, "darwin", "/Users/u"), "/Users/u/Library/Application Support/engram-mcp");
  assert.match(defaultStoreDir({ APPDATA: "C:\\Users\\u\\AppData\\Roaming" }, "win32", "C:\\Users\\u"), /Roaming.engram-mcp$/);
  const o = parseArgs(["--dir=/tmp/x", "--namespace", "proj", "--llm-url", "http://h/v1", "--llm-model", "m"]);
  assert.deepEqual([o.dir, o.namespace, o.llmUrl, o.llmModel, o.sampling], ["/tmp/x", "proj", "http://h/v1", "m", true]);
  assert.throws(() => parseArgs(["--llm-url", "http://h/v1"]), /go together/);
  assert.throws(() => parseArgs(["--dir"]), /needs a value/);
  assert.throws(() => parseArgs(["--frobnicate"]), /unknown option/);
  assert.throws(() => parseArgs(["--durability", "sometimes"]), /strict or relaxed/);
  assert.throws(() => parseArgs(["--namespace", " padded"]), /--namespace must be/);
  assert.throws(() => parseArgs(["--namespace", "a\nb"]), /--namespace must be/);
  assert.equal(parseArgs(["--namespace", "org/team:a@b.com"]).namespace, "org/team:a@b.com");
  assert.equal(parseArgs([]).llmLevel, "auto");
  assert.equal(parseArgs(["--llm-level", "on"]).llmLevel, "on");
  assert.throws(() => parseArgs(["--llm-level", "always"]), /off, auto or on/);
  assert.equal(parseArgs(["--llm-timeout-ms", "300000"]).llmTimeoutMs, 300000);
  assert.throws(() => parseArgs(["--llm-timeout-ms", "-5"]), /positive whole number/);
});

test("--namespace is the default namespace of tool calls", async (t) => {
  const dir = tempDir(t);
  const { client } = await connect(t, dir, { args: ["--namespace", "project-x"] });
  const r = await call(client, "remember", { content: "Project X uses pnpm" });
  assert.equal(r.structuredContent.namespace, "project-x");
  const other = await call(client, "remember", { content: "Shared fact", namespace: "default" });
  assert.equal(other.structuredContent.namespace, "default");
  assert.equal((await call(client, "stats", {})).structuredContent.namespaces["project-x"], 1);
});

test("the README's client configuration starts this package's bin; versions go in step with engram-wasm", async () => {
  const { readFile } = await import("node:fs/promises");
  const config = JSON.parse(readmeSnippet("## MCP server", "json"));
  const { command, args } = config.mcpServers.engram;
  const pkg = JSON.parse(await readFile(join(repo, "mcp", "package.json"), "utf8"));
  const engramWasm = JSON.parse(await readFile(join(repo, "pkg", "package.json"), "utf8"));
  assert.equal(command, "npx");
  assert.equal(args.at(-1), pkg.name);
  assert.deepEqual(Object.keys(pkg.bin), [pkg.name], "npx runs the bin named like the package");
  assert.equal(pkg.bin[pkg.name], "./bin/engram-mcp.js");
  assert.equal(pkg.version, engramWasm.version);
  // Exactly: a release of engram-mcp runs the engram-wasm it was tested with.
  assert.equal(pkg.dependencies["engram-wasm"], engramWasm.version);
  // npx installs the model package beside engram-mcp, where the server finds it.
  assert.ok(args.includes("engram-model-minilm-l6-int8"));
  assert.ok(pkg.dependencies["@modelcontextprotocol/sdk"]);
});
