// The package through ESM `import` by name (resolved via package.json exports), end to end.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rejectsWith } from "./helpers.mjs";
import { Engram, EngramError, ERROR_CODES } from "engram-wasm";

test("add, dedup, get, getAll, search, history, stats, close", async () => {
  const db = await Engram.open({ embedder: null });
  const a = await db.add({ content: "Sam prefers green tea in the morning", tags: ["drinks"], importance: 0.8 });
  assert.match(a.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(a.layer, "buffer");
  assert.equal(a.kind, "semantic");
  assert.equal(a.deduplicated, false);
  assert.ok(!Number.isNaN(Date.parse(a.createdAt)) && a.createdAt.endsWith("Z"));
  const again = await db.add({ content: "sam prefers GREEN tea in the morning." });
  assert.equal(again.deduplicated, true);
  assert.equal(again.id, a.id);
  assert.equal(again.repetitionCount, 1);
  await db.add({ content: "Sam's laptop is a ThinkPad", namespace: "work" });
  await db.add({ content: "Deploys happen on Tuesdays", namespace: "work", kind: "procedural" });

  assert.deepEqual((await db.get(a.id)).tags, ["drinks"]);
  assert.equal(await db.get("00000000-0000-4000-8000-000000000000"), null);
  assert.equal((await db.getAll({ namespace: "work" })).length, 2);
  assert.equal((await db.getAll({ namespace: "work", limit: 1, offset: 1 })).length, 1);

  const hits = await db.search("what does Sam drink, tea?", { namespace: "work", explain: true });
  assert.equal(hits[0].memory.id, a.id, "default namespace is visible from work");
  assert.ok(hits[0].score > 0 && hits[0].score <= 1);
  assert.equal(typeof hits[0].explain.keyword, "number");
  assert.deepEqual((await db.search("ThinkPad")).length, 0, "work is not visible from default");

  const updated = await db.update(a.id, { content: "Sam switched to coffee", source: null });
  assert.equal(updated.content, "Sam switched to coffee");
  assert.equal((await db.search("green tea")).length, 0);
  const events = (await db.history(a.id)).map((h) => h.event);
  assert.deepEqual(events, ["ADD", "REINFORCE", "UPDATE"]);

  assert.equal(await db.deleteAll({ namespace: "work" }), 2);
  await db.delete(a.id);
  assert.deepEqual((await db.history(a.id)).at(-1).event, "DELETE");
  const stats = await db.stats();
  assert.equal(stats.memories, 0);
  assert.equal(stats.embedder, null);
  await db.close();
  await rejectsWith(db.stats(), "Closed", EngramError);
  await db.close();
  assert.ok(ERROR_CODES.includes("InvalidInput"));
});

test("host embedder (LangChain shape) and explicit vectors give hybrid recall", async () => {
  // A toy embedder over three fixed topics, only inside this test.
  const topics = { pet: [1, 0, 0], money: [0, 1, 0], weather: [0, 0, 1] };
  const vec = (t) => (/(cat|dog|kitten|pet)/i.test(t) ? topics.pet : /(stock|bank|money|price)/i.test(t) ? topics.money : topics.weather);
  const calls = { docs: 0, query: 0 };
  const embedder = {
    async embedDocuments(texts) {
      calls.docs++;
      return texts.map(vec);
    },
    async embedQuery(text) {
      calls.query++;
      return vec(text);
    },
  };
  const db = await Engram.open({ embedder });
  await db.add({ content: "My kitten is named Miso" });
  await db.add({ content: "The bank raised interest rates" });
  await db.add({ content: "It will rain tomorrow" });
  const hits = await db.search("how is my pet?");
  assert.equal(hits[0].memory.content, "My kitten is named Miso");
  assert.equal(calls.docs, 3);
  assert.equal(calls.query, 1);
  const pure = await db.search(null, { embedding: new Float32Array([0, 1, 0]), limit: 1 });
  assert.equal(pure[0].memory.content, "The bank raised interest rates");
  await rejectsWith(db.search(null, { embedding: [1, 0] }), "InvalidInput", EngramError);

  const failing = await Engram.open({
    embedder: {
      embedDocuments: async () => {
        throw new Error("GPU on fire");
      },
      embedQuery: async () => [1],
    },
  });
  await rejectsWith(failing.add({ content: "x" }), "Embedder", EngramError);
  assert.equal((await failing.stats()).memories, 0);
  const wrongShape = await Engram.open({
    embedder: {
      embedDocuments: async () => [
        [1, 2],
        [3, 4],
      ],
      embedQuery: async () => [1, 2],
    },
  });
  await rejectsWith(wrongShape.add({ content: "x" }), "Embedder", EngramError);
});

test("keyword-only mode is explicit with embedder: null", async () => {
  const db = await Engram.open({ embedder: null });
  await db.add({ content: "alpha beta" });
  assert.equal((await db.search("beta")).length, 1);
  await rejectsWith(db.search(null), "InvalidInput", EngramError);
});

test("search returns memories unless turns are asked for: a turn ranking first cannot break hits[0].memory", async () => {
  const db = await Engram.open({ embedder: null });
  await db.add({ content: "Release builds use cargo" });
  // A turn that matches the query far better than the memory does.
  await db.ingest({ id: "s1", turns: [{ role: "user", content: "how do release builds run? release builds run with cargo build --release, release builds" }] });
  const hits = await db.search("how do release builds run?", { limit: 3 });
  assert.ok(hits.length > 0);
  assert.ok(hits.every((h) => h.type === "memory"));
  assert.equal(hits[0].memory.content, "Release builds use cargo");
  const all = await db.search("how do release builds run?", { limit: 3, scope: "all" });
  assert.equal(all[0].type, "raw", "asked for, the turn ranks first");
  await db.close();
});
