// addMany / ingestMany through the package: results as sequential adds give, a bad item names its
// index and writes nothing, one host-embedder call and one stored record per batch, and a reopened
// store holds the batch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engram, EngramError, MemoryStorage } from "engram-wasm";
import { rejectsWith } from "./helpers.mjs";

/** A unit vector near axis `topic` of an 8-d space (links form within a topic). */
function vector(topic, i) {
  const v = new Float32Array(8).fill(0.05);
  v[topic % 8] = 1;
  v[(i + 3) % 8] += 0.3;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const items = () => [
  ...Array.from({ length: 10 }, (_, i) => ({ content: `note ${i} about topic ${i % 3}`, embedding: vector(i % 3, i), tags: ["t"] })),
  "a plain string is a memory too",
  { content: "NOTE 4  about topic 1", embedding: vector(1, 4) },
];

/** A result without its timestamps (two stores run at different times). */
const timeless = ({ createdAt, modifiedAt, lastAccessed, ...rest }) => rest;

test("addMany returns what one add per item returns, duplicates within the batch included", async () => {
  const one = await Engram.open({ embedder: null, idSeed: 5 });
  const many = await Engram.open({ embedder: null, idSeed: 5 });
  const sequential = [];
  for (const item of items()) sequential.push(await one.add(item));
  const batched = await many.addMany(items());
  assert.deepEqual(batched.map(timeless), sequential.map(timeless));
  assert.equal(batched[11].deduplicated, true);
  assert.equal(batched[11].id, batched[4].id);
  assert.ok(
    batched.some((r) => (r.links ?? []).length > 0),
    "links are made within the batch",
  );
  assert.equal((await many.stats()).memories, 11);
  assert.deepEqual(await many.addMany([]), []);
});

test("a bad item fails the batch with InvalidInput naming it; nothing is written", async () => {
  const db = await Engram.open({ embedder: null });
  await db.add({ content: "already here", embedding: vector(0, 0) });
  const cases = [
    [[{ content: "fine" }, { content: "" }], "items[1]"],
    [[{ content: "fine" }, { content: "x", importance: 7 }], "items[1]"],
    [[{ content: "fine" }, 42], "items[1]"],
    [[{ content: "x", nope: true }], "items[0]"],
    [
      [
        { content: "fine", embedding: vector(1, 1) },
        { content: "short", embedding: [1, 0, 0] },
      ],
      "items[1]",
    ],
    [[{ content: "bad vector", embedding: [NaN, 1, 0, 0, 0, 0, 0, 0] }], "items[0]"],
  ];
  for (const [batch, named] of cases) {
    await rejectsWith(db.addMany(batch), "InvalidInput", EngramError);
    await db.addMany(batch).catch((e) => assert.ok(e.message.includes(named), `${named}: ${e.message}`));
    assert.equal((await db.stats()).memories, 1, `nothing written for ${named}`);
  }
  await rejectsWith(db.addMany("not an array"), "InvalidInput", EngramError);
});

test("the host embedder is asked once per batch, for the texts that need a vector", async () => {
  const calls = [];
  const embedder = {
    embedDocuments: async (texts) => {
      calls.push(texts.length);
      return texts.map((t) => vector(t.length, t.length));
    },
    embedQuery: async (t) => vector(t.length, 0),
  };
  const db = await Engram.open({ embedder });
  const out = await db.addMany([{ content: "first text" }, { content: "own vector", embedding: vector(2, 2) }, "second text", { content: "third text" }]);
  assert.deepEqual(calls, [3]);
  assert.equal(out.length, 4);
  assert.equal((await db.stats()).vectors, 4);
  await db.ingestMany([
    {
      id: "s1",
      turns: [
        { role: "user", content: "hello" },
        { role: "user", content: "again" },
      ],
    },
    { id: "s2", turns: [{ role: "user", content: "more" }] },
  ]);
  assert.deepEqual(calls, [3, 3], "one call for every turn of every session");
});

/** MemoryStorage counting the records created (one per write). */
class CountingStorage extends MemoryStorage {
  created = 0;
  async create(key, data) {
    this.created++;
    return super.create(key, data);
  }
}

test("with storage, a batch is one record and a reopened store holds it", async () => {
  const storage = new CountingStorage();
  const db = await Engram.open({ embedder: null, storage });
  const before = storage.created;
  const out = await db.addMany(items());
  assert.equal(storage.created - before, 1, "one stored record for the batch");
  const mid = storage.created;
  const ingested = await db.ingestMany([
    { id: "s1", turns: [{ role: "user", content: "we met on monday" }] },
    { id: "s2", turns: [{ role: "assistant", content: "noted" }] },
  ]);
  assert.deepEqual(
    ingested.map((r) => r.sessionId),
    ["s1", "s2"],
  );
  assert.equal(storage.created - mid, 1);
  await rejectsWith(
    db.ingestMany([
      { id: "s3", turns: [{ role: "user", content: "fine" }] },
      { id: "s4", turns: [] },
    ]),
    "InvalidInput",
    EngramError,
  );
  assert.equal(storage.created - mid, 1, "a failed batch writes nothing");
  await db.close();

  const again = await Engram.open({ embedder: null, storage });
  assert.equal((await again.stats()).memories, 11);
  assert.equal((await again.stats()).sessions, 2);
  const first = await again.get(out[0].id);
  assert.equal(first.content, "note 0 about topic 0");
  assert.equal((await again.history(out[4].id)).length, 2, "add, then the repeat's reinforcement");
  await again.close();
});
