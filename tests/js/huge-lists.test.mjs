// Every list an input may carry, fed at a million entries: each call is refused with InvalidInput
// and settles promptly, because every limit is checked before work that grows with the input (a
// tag list used to be deduplicated in O(n²) inside wasm before its 20-tag limit was looked at). The
// bound below only tells a hang from an answer; the time each call took is printed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram, EngramError } from "engram-wasm";

const N = 1_000_000;
const HANG_MS = 20_000;
const distinct = (prefix) => Array.from({ length: N }, (_, i) => `${prefix}${i}`);

async function refused(what, call) {
  const start = performance.now();
  let timer;
  const outcome = await Promise.race([
    call().then(
      (v) => ({ v }),
      (e) => ({ e }),
    ),
    new Promise((resolve) => (timer = setTimeout(() => resolve({ hung: true }), HANG_MS))),
  ]).finally(() => clearTimeout(timer));
  const ms = performance.now() - start;
  assert.ok(!outcome.hung, `${what}: no answer within ${HANG_MS} ms`);
  assert.ok(outcome.e, `${what}: accepted`);
  assert.ok(outcome.e instanceof EngramError, `${what}: ${outcome.e}`);
  assert.equal(outcome.e.code, "InvalidInput", `${what}: ${outcome.e.code} ${outcome.e.message}`);
  return { what, ms: Math.round(ms), message: outcome.e.message.slice(0, 100) };
}

test("a million entries in any input list is InvalidInput, answered without a pass per entry", async () => {
  const db = await Engram.open({ embedder: null });
  const kept = await db.add({ content: "a memory to update" });
  await db.ingest({ id: "s1", turns: [{ role: "user", content: "hello there" }] });
  // Built before the clock starts: the time printed is the store's, not the test's.
  const metadata = Object.fromEntries(distinct("k").map((k) => [k, 1]));
  const tags = distinct("t");
  const repeated = [...Array(N).fill("same"), ...distinct("u").slice(0, 25)];
  const ids = distinct("s1#");
  const areas = distinct("a");
  const vector = new Float32Array(N).fill(0.5);
  const kinds = Array(N).fill("semantic");
  const layers = Array(N).fill("core");
  const strings = Array(N).fill("x");
  const turns = Array.from({ length: N }, (_, i) => ({ role: "user", content: `turn ${i}` }));
  const sessions = Array.from({ length: N }, (_, i) => ({ id: `s${i}`, turns: [{ role: "user", content: "hi" }] }));
  const cases = [
    ["add tags (distinct)", () => db.add({ content: "x", tags })],
    ["add tags (one repeated, then one more)", () => db.add({ content: "x", tags: repeated })],
    ["add metadata keys", () => db.add({ content: "x", metadata })],
    ["add embedding dimensions", () => db.add({ content: "x", embedding: vector })],
    ["add derivedFrom", () => db.add({ content: "x", derivedFrom: ids })],
    ["add area", () => db.add({ content: "x", thread: "t", value: "v", area: areas })],
    ["update tags", () => db.update(kept.id, { tags })],
    ["update area", () => db.update(kept.id, { area: areas })],
    ["search tags", () => db.search("memory", { tags })],
    ["search kinds", () => db.search("memory", { kinds })],
    ["search layers", () => db.search("memory", { layers })],
    ["search embedding", () => db.search("memory", { embedding: vector })],
    ["addMany items", () => db.addMany(strings)],
    ["ingest turns", () => db.ingest({ id: "s2", turns })],
    ["ingestMany sessions", () => db.ingestMany(sessions)],
  ];
  const times = [];
  for (const [what, call] of cases) times.push(await refused(what, call));
  console.log(times.map((t) => `  ${t.what}: ${t.ms} ms (${t.message})`).join("\n"));
  // Nothing was written by any of them.
  assert.equal((await db.getAll()).length, 1);
  assert.deepEqual(await db.sessions(), ["s1"]);
  await db.close();
});
