// The browser chat-app recipe (examples/browser-chat/) in real headless Chromium: each turn's
// recallContext reaches the system prompt of the LLM call made with the page's fetch (to a local
// chat-completions server), the exchange is ingested into IndexedDB and recalled after a reload,
// and text is shown as text, never as HTML.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serveStatic } from "../../scripts/serve-static.mjs";
import { fakeChatServer } from "../js/fake-chat.mjs";
import { startBrowser } from "./harness.mjs";

let server;
let browser;
let llm;
before(async () => {
  server = await serveStatic();
  llm = await fakeChatServer();
  browser = await startBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
  await llm?.close();
});

/** Opens the page and waits until its store is open (window.chatApp). */
async function openPage(db) {
  await browser.goto(`${server.origin}/examples/browser-chat/index.html?baseURL=${encodeURIComponent(llm.baseURL)}&model=test-model&db=${db}`);
  await browser.evalAsync("(function poll() { if (window.chatApp) done(true); else setTimeout(poll, 25); })();");
}

/** Runs `body` (an async function's body using `app` = window.chatApp) in the page; resolves to its value. */
async function inPage(body) {
  const r = await browser.evalAsync(`(async (app) => { ${body} })(window.chatApp).then((value) => done({ value }), (e) => done({ error: String(e && e.stack || e) }));`);
  assert.equal(r.error, undefined, r.error);
  return r.value;
}

const logOf = "return [...document.querySelectorAll('#log li')].map((li) => [li.className, li.textContent]);";

test("browser chat recipe: recall → system prompt → fetch → ingest, kept across a reload", async () => {
  const db = `chat-recipe-${Date.now()}`;
  await openPage(db);
  const first = await inPage(`
    await app.memory.add("The user's favourite colour is teal");
    const { reply, context } = await app.send("What is my favourite colour?");
    return { reply, ids: context.ids.length, status: document.getElementById("status").textContent };`);
  assert.match(first.reply, /^From memory: .*favourite colour is teal/);
  assert.equal(first.ids, 1);
  assert.match(first.status, /memory in the prompt: 1 items/);
  const sent = llm.chats().at(-1).body;
  assert.equal(sent.model, "test-model");
  assert.match(sent.messages[0].content, /<memory>[\s\S]*teal/);
  assert.deepEqual(sent.messages.at(-1), { role: "user", content: "What is my favourite colour?" });

  // Text is shown as text: markup in a message is not parsed.
  const hostile = '<img src=x onerror="window.__owned = 1">';
  await inPage(`await app.send(${JSON.stringify(hostile)}); return true;`);
  const log = await inPage(logOf);
  assert.deepEqual(log[0], ["user", "What is my favourite colour?"]);
  assert.equal(log[2][1], hostile);
  assert.equal(await inPage("return document.querySelectorAll('#log img').length + (window.__owned ?? 0);"), 0);
  const session = await inPage(`return (await app.memory.session(app.sessionId)).map((t) => t.role);`);
  assert.deepEqual(session, ["user", "assistant", "user", "assistant"]);

  // A reload is a new conversation on the same IndexedDB store: the earlier turns are recalled.
  await openPage(db);
  const later = await inPage(`return (await app.send("remind me: what did I ask about my favourite colour?")).reply;`);
  assert.match(later, /What is my favourite colour\?/);
  assert.equal((await inPage(logOf)).length, 2, "the page starts a fresh log");
});

test("browser chat recipe: an unreachable LLM shows an error line and stores nothing", async () => {
  await openPage(`chat-recipe-error-${Date.now()}`);
  const r = await inPage(`
    document.getElementById("baseURL").value = "http://127.0.0.1:9/v1";
    const error = await app.send("hello?").then(() => null, (e) => String(e));
    return { error, sessions: await app.memory.sessions() };`);
  assert.ok(r.error);
  assert.deepEqual(r.sessions, []);
  const log = await inPage(logOf);
  assert.equal(log.at(-1)[0], "error");
});
