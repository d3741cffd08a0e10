// Every call that can run long takes `{signal, onProgress}`: an aborted signal rejects with
// EngramError `Aborted` and writes nothing (already aborted, or aborted from the first progress
// event), progress is `{phase, done, total}` with done non-decreasing, never above total, ending at
// done === total on success, and options of the wrong type are InvalidInput.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Embedder, Engram, EngramError, MemoryStorage } from "engram-wasm";
import { rejectsWith, repo } from "./helpers.mjs";

// Re-embedding needs an embedder inside the core: the local model.
const modelDir = process.env.ENGRAM_MODEL_DIR ?? join(repo, "models");
const haveModel = existsSync(join(modelDir, "model.onnx")) && existsSync(join(modelDir, "tokenizer.json"));
let local;
const localEmbedder = () => (local ??= Embedder.load({ model: join(modelDir, "model.onnx"), tokenizer: join(modelDir, "tokenizer.json") }));

const DIMS = 16;

function hash(text) {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

/** A deterministic vector per number: enough spread for a graph build and for search. */
const vector = (n) => {
  const v = Float32Array.from({ length: DIMS }, (_, d) => Math.sin(n * 0.37 + d * 1.3 + (n % 7) * d));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

/** A host embedder that names itself (so a store knows whose vectors it holds). */
const hostEmbedder = (id) => ({
  id,
  dims: DIMS,
  embedDocuments: async (texts) => texts.map((t) => Array.from(vector(hash(id + t)))),
  embedQuery: async (t) => Array.from(vector(hash(id + t))),
});

/** MemoryStorage that counts what is written to it. */
class CountingStorage extends MemoryStorage {
  writes = 0;
  save(key, data) {
    this.writes++;
    return super.save(key, data);
  }
  create(key, data) {
    this.writes++;
    return super.create(key, data);
  }
  remove(key) {
    this.writes++;
    return super.remove(key);
  }
  removeRange(prefix) {
    this.writes++;
    return super.removeRange(prefix);
  }
}

const turns = (n, prefix) => Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `${prefix} turn ${i}: my gym is FitHub number ${i}` }));
const session = (id, n = 4) => ({ id, namespace: "kim", date: "2024-03-01", turns: turns(n, id) });

/** Answers every job's request with nothing to do: valid, and no store change of its own. */
const llm = async (request) =>
  ["triage", "gate", "merge", "distill", "reconcile"].includes(request.purpose) ? JSON.stringify({ decisions: [] }) : JSON.stringify({ memories: [] });

/** A store on counting storage, `fill`ed, then its write count reset. */
async function store(options, fill = async () => {}) {
  const storage = new CountingStorage();
  const db = await Engram.open({ embedder: hostEmbedder("host-a"), storage, autoReindex: false, ...options });
  await fill(db);
  await db.flush();
  storage.writes = 0;
  return { db, storage };
}

let exportFile;
async function anExport() {
  if (!exportFile) {
    const { db } = await store({}, (db) => db.addMany(Array.from({ length: 50 }, (_, i) => `exported memory ${i}`)));
    exportFile = await db.export();
    await db.close();
  }
  return exportFile;
}

/**
 * Each call: `setup()` → `{db, storage}` (db null for open), and `run(db, watch)` making the call
 * with `watch` (`{signal, onProgress}`) as its options.
 */
const CALLS = {
  addMany: {
    setup: () => store({}),
    run: (db, watch) =>
      db.addMany(
        Array.from({ length: 150 }, (_, i) => `memory ${i} about the gym`),
        watch,
      ),
  },
  ingest: { setup: () => store({}), run: (db, watch) => db.ingest(session("s1", 70), watch) },
  "ingest with extract and author": {
    setup: () => store({ llm, llmLevel: "on" }),
    run: (db, watch) => db.ingest(session("s1", 6), { extract: true, author: true, ...watch }),
  },
  ingestMany: {
    setup: () => store({}),
    run: (db, watch) =>
      db.ingestMany(
        Array.from({ length: 30 }, (_, i) => session(`s${i}`, 3)),
        watch,
      ),
  },
  import: { setup: () => store({}), run: async (db, watch) => db.import(await anExport(), watch) },
  "import of a stream": {
    setup: () => store({}),
    run: async (db, watch) => {
      const file = await anExport();
      const chunks = async function* () {
        for (let at = 0; at < file.byteLength; at += 1000) yield file.subarray(at, at + 1000);
      };
      return db.import(chunks(), watch);
    },
  },
  "open with reembed": {
    skip: !haveModel && !process.env.ENGRAM_REQUIRE_MODEL && "model files absent (bash scripts/fetch-models.sh)",
    setup: async () => {
      const storage = new CountingStorage();
      const first = await Engram.open({ embedder: hostEmbedder("host-a"), storage });
      await first.addMany(["kept across the reembed", "and another one"]);
      await first.close();
      storage.writes = 0;
      return { db: null, storage };
    },
    run: async (_, watch, storage) => Engram.open({ embedder: await localEmbedder(), storage, reembed: true, autoReindex: false, ...watch }),
  },
  compact: {
    setup: () => store({}, (db) => db.addMany(["to compact", "twice"])),
    run: (db, watch) => db.compact(watch),
  },
  reindex: {
    setup: () =>
      store({ embedder: null, vectorIndex: { graphMin: 200, alwaysGraph: true } }, (db) =>
        db.addMany(Array.from({ length: 400 }, (_, i) => ({ content: `point ${i}`, embedding: vector(i) }))),
      ),
    run: (db, watch) => db.reindex(watch),
  },
  author: {
    setup: () => store({ llm, llmLevel: "on" }, (db) => db.ingest(session("s1", 6))),
    run: (db, watch) => db.author("s1", watch),
  },
  "author offline": {
    setup: () => store({}, (db) => db.ingest(session("s1", 6))),
    run: (db, watch) => db.author("s1", watch),
  },
  extract: {
    setup: () => store({ llm }, (db) => db.ingest(session("s1", 6))),
    run: (db, watch) => db.extract("s1", watch),
  },
  consolidate: {
    setup: () =>
      store({ llm, llmLevel: "on" }, (db) =>
        db.addMany(Array.from({ length: 20 }, (_, i) => ({ content: `Sam is a nurse at the city hospital, note ${i % 3}`, importance: 0.9 }))),
      ),
    run: (db, watch) => db.consolidate(watch),
  },
};

/** The store's state as an export file (null when the call opens the store itself). */
const state = (db) => db?.export() ?? null;

for (const [name, call] of Object.entries(CALLS)) {
  test(`${name}: an already-aborted signal rejects with Aborted and stores nothing`, { skip: call.skip }, async () => {
    const { db, storage } = await call.setup();
    const before = await state(db);
    const events = [];
    const controller = new AbortController();
    controller.abort();
    await rejectsWith(call.run(db, { signal: controller.signal, onProgress: (e) => events.push(e) }, storage), "Aborted", EngramError);
    assert.deepEqual(events, [], "no progress before the abort is seen");
    assert.equal(storage.writes, 0, "nothing written to storage");
    assert.deepEqual(await state(db), before);
    await db?.close();
  });

  test(`${name}: an abort from the first progress event rejects with Aborted and stores nothing`, { skip: call.skip }, async () => {
    const { db, storage } = await call.setup();
    const before = await state(db);
    const controller = new AbortController();
    let events = 0;
    const onProgress = () => {
      events++;
      controller.abort();
    };
    await rejectsWith(call.run(db, { signal: controller.signal, onProgress }, storage), "Aborted", EngramError);
    assert.ok(events >= 1, "progress was reported");
    assert.equal(storage.writes, 0, "nothing written to storage");
    assert.deepEqual(await state(db), before);
    await db?.close();
  });

  test(`${name}: progress counts up to done === total`, { skip: call.skip }, async () => {
    const { db, storage } = await call.setup();
    const events = [];
    const opened = await call.run(db, { signal: new AbortController().signal, onProgress: (e) => events.push(e) }, storage);
    assert.ok(events.length >= 2, JSON.stringify(events));
    let last = { done: 0, total: 0 };
    for (const e of events) {
      assert.equal(typeof e.phase, "string");
      assert.ok(Number.isInteger(e.done) && Number.isInteger(e.total), JSON.stringify(e));
      assert.ok(e.done >= last.done && e.total >= last.total && e.done <= e.total, `${JSON.stringify(last)} then ${JSON.stringify(e)}`);
      last = e;
    }
    assert.equal(last.done, last.total);
    assert.ok(last.total > 0);
    await (db ?? opened).close();
  });

  test(`${name}: a signal that is not an AbortSignal, or an onProgress that is not a function, is InvalidInput`, { skip: call.skip }, async () => {
    const { db, storage } = await call.setup();
    await rejectsWith(call.run(db, { signal: { aborted: false } }, storage), "InvalidInput", EngramError);
    await rejectsWith(call.run(db, { onProgress: "50%" }, storage), "InvalidInput", EngramError);
    assert.equal(storage.writes, 0);
    await db?.close();
  });
}

test("a host embedder watched is asked in slices, so an abort between two stops the call", async () => {
  const calls = [];
  const embedder = hostEmbedder("host-a");
  const storage = new CountingStorage();
  const db = await Engram.open({
    embedder: { ...embedder, embedDocuments: (texts) => (calls.push(texts.length), embedder.embedDocuments(texts)) },
    storage,
    autoReindex: false,
  });
  const controller = new AbortController();
  const items = Array.from({ length: 200 }, (_, i) => `memory ${i}`);
  const phases = [];
  const onProgress = (e) => {
    phases.push(e.phase);
    if (e.phase === "embed") controller.abort();
  };
  await rejectsWith(db.addMany(items, { signal: controller.signal, onProgress }), "Aborted", EngramError);
  assert.equal(calls.length, 1, "the embedder was not asked again after the abort");
  assert.ok(calls[0] < items.length);
  assert.deepEqual(phases, ["prepare", "embed"]);
  assert.equal((await db.stats()).memories, 0);
  // Unwatched, one call for the batch as before.
  calls.length = 0;
  await db.addMany(items);
  assert.deepEqual(calls, [items.length]);
  await db.close();
});

test(
  "open with reembed reports each batch of records, and an abort between two batches leaves the store as it was",
  { skip: !haveModel && !process.env.ENGRAM_REQUIRE_MODEL && "model files absent (bash scripts/fetch-models.sh)" },
  async () => {
    const storage = new CountingStorage();
    const first = await Engram.open({ embedder: hostEmbedder("host-a"), storage });
    await first.addMany(Array.from({ length: 100 }, (_, i) => `memory ${i} kept across the reembed`));
    await first.close();
    storage.writes = 0;
    const reopen = async (watch) => Engram.open({ embedder: await localEmbedder(), storage, reembed: true, autoReindex: false, ...watch });

    const controller = new AbortController();
    const batches = [];
    const onProgress = (e) => {
      if (e.phase !== "reembed") return;
      batches.push(e.done);
      if (batches.length === 2) controller.abort();
    };
    await rejectsWith(reopen({ signal: controller.signal, onProgress }), "Aborted", EngramError);
    assert.deepEqual(batches, [32, 64], "stopped after the batch during which the abort came");
    assert.equal(storage.writes, 0, "nothing written");
    const old = await Engram.open({ embedder: hostEmbedder("host-a"), storage });
    assert.equal((await old.stats()).memories, 100, "the old embedder still opens it, whole");
    await old.close();

    const events = [];
    const db = await reopen({ onProgress: (e) => events.push(e) });
    const done = events.filter((e) => e.phase === "reembed").map((e) => e.done);
    assert.deepEqual(done, [32, 64, 96], "one event per batch (the last batch is the write that follows)");
    assert.equal(events.at(-1).done, events.at(-1).total);
    assert.equal((await db.stats()).memories, 100);
    await db.close();
  },
);

test(
  "the local model watched embeds in slices, so an abort between two stops addMany, and the vectors are the core's own",
  { skip: !haveModel && !process.env.ENGRAM_REQUIRE_MODEL && "model files absent (bash scripts/fetch-models.sh)" },
  async () => {
    const embedder = await localEmbedder();
    const items = Array.from({ length: 150 }, (_, i) => `note ${i}: the ${["red", "green", "blue"][i % 3]} kettle is on shelf ${i % 11}`);
    const watched = await Engram.open({ embedder, autoReindex: false });
    const controller = new AbortController();
    const phases = [];
    const onProgress = (e) => {
      phases.push(e.phase);
      if (e.phase === "embed") controller.abort();
    };
    await rejectsWith(watched.addMany(items, { signal: controller.signal, onProgress }), "Aborted", EngramError);
    assert.deepEqual(phases, ["prepare", "embed"], "stopped after the first slice");
    assert.equal((await watched.stats()).memories, 0);

    const embeds = [];
    await watched.addMany(items, { onProgress: (e) => e.phase === "embed" && embeds.push(e.done) });
    assert.ok(embeds.length >= 3, `one event per slice: ${embeds}`);
    const unwatched = await Engram.open({ embedder, autoReindex: false });
    await unwatched.addMany(items);
    // Nearest by cosine alone: the same texts, in order, and the same scores only if every vector
    // is the same (up to the last float bits of the round trip through JS).
    for (const q of ["where is the blue kettle", "shelf 7", "green"]) {
      const [embedding] = await embedder.embed([q]);
      const a = await watched.search(null, { embedding, limit: 8 });
      const b = await unwatched.search(null, { embedding, limit: 8 });
      assert.deepEqual(
        a.map((h) => h.memory.content),
        b.map((h) => h.memory.content),
        q,
      );
      a.forEach((h, i) => assert.ok(Math.abs(h.score - b[i].score) < 1e-5, `${q}: ${h.score} vs ${b[i].score}`));
    }
    await watched.close();
    await unwatched.close();
  },
);
