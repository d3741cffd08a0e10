// engram-wasm in a real headless Chromium: imported as an ES module without a bundler.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { serveStatic, startBrowser } from "./harness.mjs";

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
