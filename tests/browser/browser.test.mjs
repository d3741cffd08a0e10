// engram-wasm in a real headless Chromium: imported as an ES module without a bundler.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repo, serveStatic } from "../../scripts/serve-static.mjs";
import { startBrowser } from "./harness.mjs";

let server;
let browser;
before(async () => {
  server = await serveStatic();
  browser = await startBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test("add / dedup / search / typed errors in Chromium", async () => {
  await browser.goto(`${server.origin}/tests/browser/flow.html`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.dedup, true);
  assert.equal(r.top, "The user's favourite editor is Helix");
  assert.equal(r.cjkTop, "東京で寿司を食べた");
  assert.deepEqual(r.error, { isEngramError: true, code: "InvalidInput", name: "InvalidInput" });
  assert.equal(r.afterError, true);
  assert.equal(r.stats.memories, 4);
  assert.equal(r.simd, true);
});

const haveModel = existsSync(join(repo, "models", "model.onnx")) && existsSync(join(repo, "models", "tokenizer.json"));
const skipModel = !haveModel && !process.env.ENGRAM_REQUIRE_MODEL && "model files absent (bash scripts/fetch-models.sh)";

test("Engram + local embedder in a Web Worker; model cached for offline reuse", { skip: skipModel }, async () => {
  await browser.goto(`${server.origin}/tests/browser/worker.html`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.top, "My daughter plays the violin in the school orchestra");
  assert.equal(r.byMeaning, true);
  assert.match(r.embedder, /^all-MiniLM-L6-v2-int8@/);
  assert.deepEqual(r.error, { code: "InvalidInput", name: "InvalidInput" });
  assert.deepEqual(r.firstStatuses, ["initiate", "progress", "done", "ready"]);
  assert.equal(r.sawByteProgress, true);
  assert.equal(r.secondFromCache, true, "second load is served by the Cache API");
  console.log(`worker: first load + open ${Math.round(r.firstLoadMs)} ms`);
});

test("openInWorker: a signal aborts the opening (Aborted), the store opens again, a later abort leaves it open", async () => {
  await browser.goto(`${server.origin}/tests/browser/worker-abort.html`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.alreadyAborted, "Aborted");
  assert.equal(r.duringOpen, "Aborted");
  assert.equal(r.afterAbort, "The boiler is serviced every October");
  assert.equal(r.reopened, 1);
  assert.equal(r.badSignal, "InvalidInput");
});

test("vector index builds run in a module Worker: the page keeps running; abort; automatic builds; through openInWorker", async () => {
  await browser.goto(`${server.origin}/tests/browser/vectors.html`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.deepEqual(r.phases, ["build", "install", "done"]);
  assert.deepEqual(r.result, ["segment"]);
  assert.equal(r.segments, 1);
  assert.deepEqual(r.during, { id: "memory 5", before: true }, "a query was answered during the build");
  assert.ok(r.ticksDuringBuild >= r.buildMs / 50, `the page's timer fired ${r.ticksDuringBuild} times in ${r.buildMs} ms`);
  assert.equal(r.abort, "Aborted");
  assert.equal(r.abortUnchanged, true);
  assert.equal(r.autoSegments, 1);
  assert.deepEqual(r.remote, { phases: ["build", "install", "done"], result: ["segment"], segments: 1 });
  assert.equal(r.remoteAbort, "Aborted");
  assert.deepEqual(r.remoteWatched, ["prepare 0/2", "write 2/2"]);
  assert.equal(r.remoteAfterAbort, 1200);
  console.log(`# browser: worker build of 3000 vectors ${Math.round(r.buildMs)} ms; page timer fired ${r.ticksDuringBuild} times, longest gap ${Math.round(r.maxGapMs)} ms`);
});

test("IndexedDB: memories survive a page reload", async () => {
  const url = (phase) => `${server.origin}/tests/browser/persist.html?phase=${phase}&db=reload-test`;
  await browser.goto(url("write"));
  const wrote = await browser.result();
  assert.equal(wrote.ok, true, wrote.failure);
  await browser.goto(url("verify"));
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.memories, 1);
  assert.equal(r.rawEntries, 1);
  assert.equal(r.top, "The spare house key is in the blue flowerpot");
  assert.equal(r.raw, "My sister Lena moved to Porto");
});

test("IndexedDB: two frames writing one store at once lose nothing; a third page sees it all", async () => {
  const n = 60;
  await browser.goto(`${server.origin}/tests/browser/persist.html?phase=concurrent&n=${n}&db=concurrent-test`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.before, 0);
  assert.deepEqual(r.missing, []);
  assert.equal(r.count, 2 * n);
});

test("IndexedDB without Web Locks: two frames writing one store at once still lose nothing", async () => {
  const n = 60;
  await browser.goto(`${server.origin}/tests/browser/persist.html?phase=concurrent&n=${n}&db=no-locks-test&locks=off`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.deepEqual(r.missing, []);
  assert.equal(r.count, 2 * n);
});

test("IndexedDB: a flipped byte in the newest chunk refuses to open (Corrupt), or opens with onCorruption naming it", async () => {
  await browser.goto(`${server.origin}/tests/browser/persist.html?phase=damaged&db=damaged-test`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.refused, "Corrupt");
  assert.equal(r.memories, 5);
  assert.deepEqual(r.skipped, [[r.newest]]);
});

test("IndexedDB: a database deleted under a live store fails the next write with Storage; it reopens, not Corrupt", async () => {
  await browser.goto(`${server.origin}/tests/browser/persist.html?phase=deleted&db=deleted-test`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.next, "Storage");
  assert.equal(r.memories, 0);
});

test("a trap in the middle of a write: the next calls run on a new instance, reopened from IndexedDB", async () => {
  await browser.goto(`${server.origin}/tests/browser/fault.html`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.deepEqual(r.faults, ["Internal", "resolved", "Internal", "resolved"]);
  const acknowledged = ["after fault /pkg/dist/wasm-web/engram.js", "after fault /pkg/dist/wasm-web/engram.js?instance=1", "before the first fault"];
  // A write the fault interrupted may have landed; every acknowledged one is there.
  for (const list of [r.contents, r.reopened]) for (const c of acknowledged) assert.ok(list.includes(c), `${c} in ${list}`);
  assert.deepEqual(r.contents, r.reopened);
  assert.deepEqual(r.other, ["the other store"]);
  assert.equal(r.inMemory, "Internal");
  assert.deepEqual(r.workerFaults, ["Internal", "resolved", "resolved", "Internal", "resolved", "resolved"], "in openInWorker's worker too");
  for (const c of ["in the worker before the faults", "queued behind fault 0", "queued behind fault 1"]) assert.ok(r.workerContents.includes(c), `${c} in ${r.workerContents}`);
});

// openInWorker({llm}): the function stays in the page, the worker's calls are relayed to it, and
// the worker's timeout or abort reaches the page's call as an aborted signal.
test("a worker store authors through the page's LLM function; a timeout aborts the page's call and the rules take over", async () => {
  await browser.goto(`${server.origin}/tests/browser/worker-llm.html`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.deepEqual(r.first, { author: "author@3", outcome: ["ok"], thread: "pharmacy", value: "Greenleaf Chemists", offline: [], usage: 120 });
  assert.deepEqual(r.seen, [{ purpose: "author", promptId: "author@3", hasSignal: true, mentions: true }]);
  assert.deepEqual(r.timeout, { outcome: ["timeout"], offline: ["s2#0"], abortedInPage: true, dentist: "Dr. Ortega" });
  assert.equal(r.badLlm, "InvalidInput");
});

// addMany / ingestMany through openInWorker (the worker forwards both).
test("addMany and ingestMany through openInWorker", async () => {
  await browser.goto(`${server.origin}/tests/browser/add-many.html`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.count, 3);
  assert.equal(r.dedup, true, "a repeat within the batch reinforces the earlier item");
  assert.deepEqual(r.error, { code: "InvalidInput", namesItem: true });
  assert.deepEqual(r.sessions, ["s1", "s2"]);
  assert.equal(r.memories, 2, "the failed batch wrote nothing");
  assert.equal(r.rawEntries, 2);
});
