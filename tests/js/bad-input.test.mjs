// Hostile and sloppy input through the JS API: every call rejects with a typed error, nothing traps
// the wasm instance, nothing changes state, and the next good call works.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rejectsWith } from "./helpers.mjs";
import { Engram, EngramError } from "engram-wasm";

const cyclic = { content: "loop" };
cyclic.self = cyclic;

const badAdds = [
  undefined,
  null,
  42,
  "",
  "   ",
  [],
  [{ content: "x" }],
  [{ role: "user" }],
  ["a string"],
  new Map(),
  new Date(), // strings and message arrays: add's mem0 forms (add-forms.test.mjs)
  {},
  { content: 5 },
  { content: null },
  { content: "" },
  { content: "   " },
  { content: "x".repeat(8193) },
  { content: "ok", importance: NaN },
  { content: "ok", importance: Infinity },
  { content: "ok", importance: "high" },
  { content: "ok", importance: 1.01 },
  { content: "ok", importance: -1 },
  { content: "ok", importance: 10n },
  { content: "ok", tags: "a,b" },
  { content: "ok", tags: [1, 2] },
  { content: "ok", tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
  { content: "ok", tags: ["x".repeat(33)] },
  { content: "ok", source: "s".repeat(65) },
  { content: "ok", source: 7 },
  { content: "ok", namespace: "" },
  { content: "ok", namespace: " a" },
  { content: "ok", namespace: "n".repeat(257) },
  { content: "ok", namespace: "ns\u0000" },
  { content: "ok", kind: "fact" },
  { content: "ok", layer: "core" },
  { content: "ok", metadata: [] },
  { content: "ok", metadata: "x" },
  { content: "ok", metadata: { big: "y".repeat(17000) } },
  { content: "ok", metadata: { f: () => 1 } },
  { content: "ok", metadata: { s: Symbol("x") } },
  cyclic,
  { content: "ok", embedding: "1,2,3" },
  { content: "ok", embedding: [1, NaN] },
  { content: "ok", embedding: [] },
  { content: "ok", embedding: [0, 0, 0] },
  { content: "ok", embedding: [1, "2"] },
  { content: "ok", eventAt: "yesterday" },
  { content: "ok", eventAt: {} },
  { content: "ok", userId: "mem0-habit" },
];

test("bad add inputs reject with InvalidInput and change nothing", async () => {
  const db = await Engram.open({ embedder: null });
  await db.add({ content: "seed memory", embedding: [1, 0, 0] });
  const before = JSON.stringify(await db.getAll());
  for (const input of badAdds) {
    await rejectsWith(db.add(input), "InvalidInput", EngramError);
  }
  assert.equal(JSON.stringify(await db.getAll()), before);
  // Dimension mismatch with the store's existing vectors.
  await rejectsWith(db.add({ content: "ok", embedding: [1, 0] }), "InvalidInput", EngramError);
  const ok = await db.add({ content: "still works after all that", embedding: [0, 1, 0] });
  assert.equal((await db.search("still works"))[0].memory.id, ok.id);
});

test("bad ids, patches, options and queries reject with typed errors", async () => {
  const db = await Engram.open({ embedder: null });
  const m = await db.add({ content: "target" });
  const unknown = "00000000-0000-4000-8000-000000000000";
  for (const id of [undefined, null, 1, {}, ["x"]]) {
    await rejectsWith(db.get(id), "InvalidInput", EngramError);
    await rejectsWith(db.delete(id), "InvalidInput", EngramError);
    await rejectsWith(db.history(id), "InvalidInput", EngramError);
    await rejectsWith(db.update(id, { content: "x" }), "InvalidInput", EngramError);
  }
  assert.equal(await db.get("no-such-id"), null);
  await rejectsWith(db.delete(unknown), "NotFound", EngramError);
  await rejectsWith(db.history(unknown), "NotFound", EngramError);
  await rejectsWith(db.update(unknown, { content: "x" }), "NotFound", EngramError);
  for (const patch of [undefined, null, {}, { content: "" }, { importance: NaN }, { layer: "core" }, { tags: "x" }, "", 5]) {
    await rejectsWith(db.update(m.id, patch), "InvalidInput", EngramError);
  }
  for (const [q, o] of [
    [42, {}],
    [{}, {}],
    ["", {}],
    ["   ", undefined],
    [null, {}],
    ["ok", { limit: 0 }],
    ["ok", { limit: -1 }],
    ["ok", { limit: 1.5 }],
    ["ok", { limit: 5000 }],
    ["ok", { limit: NaN }],
    ["ok", { namespace: "bad\nns" }],
    ["ok", { kinds: ["nope"] }],
    ["ok", { layers: "core" }],
    ["ok", { explain: "yes" }],
    ["ok", "options"],
    ["ok", { sort: "date" }],
    ["x".repeat(9000), {}],
  ]) {
    await rejectsWith(db.search(q, o), "InvalidInput", EngramError);
  }
  for (const o of [5, "default", { namespace: 1 }, { namespace: "a\u0000b" }, { limit: 0 }, { offset: -1 }, { page: 2 }]) {
    await rejectsWith(db.getAll(o), "InvalidInput", EngramError);
  }
  await rejectsWith(db.deleteAll({ namespace: "" }), "InvalidInput", EngramError);
  for (const o of [1, "x", { embedder: "local" }, { embedder: { embedQuery() {} } }, { storage: {}, nonsense: 1 }]) {
    await rejectsWith(Engram.open(o), "InvalidInput", EngramError);
  }
  // Huge but valid input does not trap either.
  const big = await db.add({ content: "ü".repeat(8192), tags: Array.from({ length: 20 }, (_, i) => `${i}`.padStart(32, "x")) });
  assert.equal(big.content.length, 8192);
  assert.equal((await db.get(m.id)).content, "target");
  assert.equal((await db.stats()).memories, 2);
});

test("a thousand interleaved calls keep their order", async () => {
  const db = await Engram.open({ embedder: null });
  const writes = [];
  for (let i = 0; i < 500; i++) {
    writes.push(db.add({ content: `note number ${i}`, namespace: "bulk" }));
    writes.push(db.search(`number ${i}`, { namespace: "bulk", dryRun: true, limit: 1 }));
  }
  const results = await Promise.all(writes);
  for (let i = 0; i < 500; i++) assert.equal(results[2 * i + 1][0].memory.id, results[2 * i].id);
  assert.equal((await db.stats()).memories, 500);
});

test("inputs over the byte budgets are refused before they reach wasm memory, and the store goes on", async () => {
  const db = await Engram.open({ embedder: null });
  // 513 turns of 65,536 characters: just over the 32 MiB one ingest may carry.
  const long = "a".repeat(65536);
  const turns = Array.from({ length: 513 }, () => ({ role: "user", content: long }));
  await rejectsWith(db.ingest({ id: "huge", turns }), "InvalidInput", EngramError);
  // One byte over the import limit (512 MiB) is refused without being read.
  await rejectsWith(db.import(new Uint8Array(512 * 1024 * 1024 + 1)), "InvalidInput", EngramError);
  const ok = await db.ingest({ id: "small", turns: turns.slice(0, 2) });
  assert.equal(ok.added, 2);
  assert.equal((await db.stats()).rawEntries, 2);
});
