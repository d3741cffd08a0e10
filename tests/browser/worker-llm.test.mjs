// openInWorker({llm}): the function stays in the page, the worker's calls are relayed to it, and
// the worker's timeout or abort reaches the page's call as an aborted signal.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serveStatic } from "../../scripts/serve-static.mjs";
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

test("a worker store authors through the page's LLM function; a timeout aborts the page's call and the rules take over", async () => {
  await browser.goto(`${server.origin}/tests/browser/worker-llm.html`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.deepEqual(r.first, { author: "author@1", outcome: ["ok"], thread: "pharmacy", value: "Greenleaf Chemists", offline: [], usage: 120 });
  assert.deepEqual(r.seen, [{ purpose: "author", promptId: "author@1", hasSignal: true, mentions: true }]);
  assert.deepEqual(r.timeout, { outcome: ["timeout"], offline: ["s2#0"], abortedInPage: true, dentist: "Dr. Ortega" });
  assert.equal(r.badLlm, "InvalidInput");
});
