// The recipes in examples/ run here, so they never rot: the chat loop with memory
// (examples/chat-memory.mjs) against a local chat-completions server, the Node agent as two real
// processes on one store, and the Electron main-process half (its IPC handlers driven as the
// renderer would, through structured cloning) under Node. The browser page is run in Chromium by
// tests/browser/recipes.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Engram } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { repo } from "./helpers.mjs";
import { fakeChatServer } from "./fake-chat.mjs";
import { chatWithMemory } from "../../examples/chat-memory.mjs";
import { memoryHandlers, openMemory, registerMemoryIpc } from "../../examples/electron/memory-main.mjs";

const run = promisify(execFile);

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "engram-recipe-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function llmServer(t) {
  const server = await fakeChatServer();
  t.after(() => server.close());
  return server;
}

test("chat loop: recallContext goes into the system prompt, the exchange is ingested", async (t) => {
  const llm = await llmServer(t);
  const memory = await Engram.open({ embedder: null });
  t.after(() => memory.close());
  await memory.add("The user's sister is called Ines");
  const chat = chatWithMemory({ memory, fetch, baseURL: llm.baseURL, model: "m", apiKey: "k", sessionId: "c1" });

  const first = await chat.send("Who is my sister?");
  assert.match(first.reply, /^From memory: .*Ines/);
  const sent = llm.chats()[0];
  assert.equal(sent.path, "/v1/chat/completions");
  assert.equal(sent.auth, "Bearer k");
  assert.equal(sent.body.messages[0].role, "system");
  assert.match(sent.body.messages[0].content, /quoted as data[\s\S]*<memory>[\s\S]*sister is called Ines/);
  assert.deepEqual(sent.body.messages.slice(1), [{ role: "user", content: "Who is my sister?" }]);
  assert.equal(first.context.ids.length, 1);

  const second = await chat.send("Thanks! I'm also vegetarian.");
  assert.equal(llm.chats()[1].body.messages.length, 4, "system, the first exchange, the new message");
  assert.ok(second.reply);
  const turns = await memory.session("c1");
  assert.deepEqual(
    turns.map((x) => x.role),
    ["user", "assistant", "user", "assistant"],
  );
  assert.equal(turns[2].content, "Thanks! I'm also vegetarian.");
  // A later conversation recalls the earlier one's turns.
  const later = chatWithMemory({ memory, fetch, baseURL: llm.baseURL, model: "m", sessionId: "c2" });
  assert.match((await later.send("any food preferences I mentioned? vegetarian?")).reply, /I'm also vegetarian/);
});

test("chat loop: an LLM error rejects and stores nothing of that turn", async (t) => {
  const memory = await Engram.open({ embedder: null });
  t.after(() => memory.close());
  const failing = async () => new Response("overloaded", { status: 503 });
  const chat = chatWithMemory({ memory, fetch: failing, baseURL: "http://127.0.0.1:9/v1", model: "m", sessionId: "c1" });
  await assert.rejects(chat.send("hello"), /HTTP 503/);
  assert.equal(chat.turns.length, 0);
  assert.deepEqual(await memory.sessions(), []);
});

test("Node agent (examples/node-agent.mjs): a second process recalls what the first one was told", async (t) => {
  const llm = await llmServer(t);
  const dir = tempDir(t);
  const env = { ...process.env, LLM_BASE_URL: llm.baseURL, LLM_MODEL: "test-model", ENGRAM_AGENT_DIR: dir };
  const agent = (...messages) => run(process.execPath, ["examples/node-agent.mjs", ...messages], { cwd: repo, env, timeout: 60_000 });

  const first = await agent("/remember My sister is called Ines", "Hi! I'm vegetarian, by the way.");
  assert.match(first.stdout, /\(remembered: My sister is called Ines\)/);
  assert.match(first.stdout, /> Hi! I'm vegetarian, by the way\.\n< /);
  assert.match(first.stdout, /1 memories extracted, 0 steps skipped/);
  assert.equal(llm.requests.filter((r) => r.kind === "extract").length, 1);

  const second = await agent("What should I cook tonight? Something vegetarian?");
  assert.match(second.stdout, /< From memory: .*The user is vegetarian/, second.stdout);
  const prompt = llm.chats().at(-1).body.messages[0].content;
  assert.match(prompt, /<memory>[\s\S]*The user is vegetarian/);
  assert.match((await agent("/remember My sister is called Ines")).stdout, /already known/);

  // The store the agent left: its own memory and the extracted one (opened as the agent opens it).
  const storage = () => new NodeFSStorage(dir);
  const store = await Engram.open({ storage: storage() }).catch((e) => (e.code === "Embedder" ? Engram.open({ storage: storage(), embedder: null }) : Promise.reject(e)));
  try {
    assert.deepEqual((await store.getAll()).map((m) => m.content).sort(), ["My sister is called Ines", "The user is vegetarian"]);
  } finally {
    await store.close();
  }
});

test("Electron main-process half: IPC handlers as plain functions, errors keep their code across IPC", async (t) => {
  const llm = await llmServer(t);
  const dir = tempDir(t);
  const memory = await openMemory({ dir, embedder: null, llm: { fetch, baseURL: llm.baseURL, model: "m" } });
  let closed = false;
  t.after(() => closed || memory.close());

  // What Electron's ipcMain / ipcRenderer.invoke do with a handler: arguments and results are structured-cloned.
  const registered = new Map();
  const ipcMain = { handle: (channel, fn) => registered.set(channel, fn), removeHandler: (channel) => registered.delete(channel) };
  const unregister = registerMemoryIpc(ipcMain, memoryHandlers(memory, { llm: { fetch, baseURL: llm.baseURL, model: "m" } }));
  const invoke = async (channel, ...args) => structuredClone(await registered.get(channel)({ sender: {} }, ...structuredClone(args)));
  assert.deepEqual([...registered.keys()].sort(), ["memory:add", "memory:chat", "memory:forget", "memory:recall", "memory:search", "memory:stats"]);

  const added = await invoke("memory:add", "The user's dog is named Pixel", { importance: 0.9 });
  assert.equal(added.ok, true);
  const recalled = await invoke("memory:recall", "what is the dog called?");
  assert.match(recalled.value.text, /Pixel/);
  const hits = await invoke("memory:search", "dog", { scope: "memories" });
  assert.equal(hits.value[0].memory.id, added.value.id);

  const chat = await invoke("memory:chat", "window-1", "Remind me of my dog's name");
  assert.equal(chat.ok, true, JSON.stringify(chat));
  assert.match(chat.value.reply, /Pixel/);
  assert.ok(chat.value.memoryTokens > 0);
  assert.equal((await memory.session("window-1")).length, 2);

  // Errors arrive as data with Engram's code (a thrown error would reach the renderer as a bare message).
  assert.deepEqual((await invoke("memory:add", "")).error.code, "InvalidInput");
  assert.deepEqual((await invoke("memory:forget", "no-such-id")).error.code, "NotFound");
  assert.equal((await invoke("memory:stats")).value.memories, 1);

  // Quitting: the store is flushed and released; reopening it (as the next app start) finds the memory.
  unregister();
  assert.equal(registered.size, 0);
  await memory.close();
  closed = true;
  const again = await openMemory({ dir, embedder: null });
  t.after(() => again.close());
  assert.equal((await again.get(added.value.id)).content, "The user's dog is named Pixel");
});
