// Encryption at rest in headless Chromium: persist.html's phases over encrypted(IndexedDBStorage)
// (WebCrypto in a page): a reload with the same passphrase reads everything back, another
// passphrase is a Corrupt error, two frames writing at once lose nothing, a deleted database reopens.
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

const page = (query) => `${server.origin}/tests/browser/persist.html?${query}`;

test("encrypted IndexedDB: memories survive a reload with the same passphrase; another one is Corrupt", async () => {
  await browser.goto(page("phase=write&db=enc-reload&enc=blue%20flowerpot"));
  const wrote = await browser.result();
  assert.equal(wrote.ok, true, wrote.failure);
  await browser.goto(page("phase=verify&db=enc-reload&enc=blue%20flowerpot"));
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.memories, 1);
  assert.equal(r.rawEntries, 1);
  assert.equal(r.top, "The spare house key is in the blue flowerpot");
  assert.equal(r.raw, "My sister Lena moved to Porto");
  await browser.goto(page("phase=verify&db=enc-reload&enc=red%20flowerpot"));
  const wrong = await browser.result();
  assert.equal(wrong.ok, false);
  assert.equal(wrong.code, "Corrupt", wrong.failure);
  assert.match(wrong.failure, /another key/);
  await browser.goto(page("phase=verify&db=enc-reload"));
  const plain = await browser.result();
  assert.equal(plain.memories, 0, "without the key the records are not Engram's to read");
});

test("encrypted IndexedDB: two frames writing one store at once lose nothing, with and without Web Locks", async () => {
  for (const locks of ["on", "off"]) {
    const n = 40;
    await browser.goto(page(`phase=concurrent&n=${n}&db=enc-concurrent-${locks}&locks=${locks}&enc=shared%20secret`));
    const r = await browser.result();
    assert.equal(r.ok, true, r.failure);
    assert.deepEqual(r.missing, [], `locks ${locks}`);
    assert.equal(r.count, 2 * n);
  }
});

test("encrypted IndexedDB: a database deleted under a live store fails the next write with Storage; it reopens", async () => {
  await browser.goto(page("phase=deleted&db=enc-deleted&enc=gone"));
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.next, "Storage");
  assert.equal(r.memories, 0);
});

test("openInWorker({indexedDB, encryptionKey}): the worker's store is encrypted with the page's key", async () => {
  await browser.goto(`${server.origin}/tests/browser/encrypted-worker.html`);
  const r = await browser.result();
  assert.equal(r.ok, true, r.failure);
  assert.equal(r.top, "The boiler service is booked for the 14th");
  assert.equal(r.wrong, "Corrupt");
  assert.equal(r.withoutDatabase, "InvalidInput");
});
