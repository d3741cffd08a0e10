// addMany / ingestMany through openInWorker in headless Chromium (the worker forwards both).
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
