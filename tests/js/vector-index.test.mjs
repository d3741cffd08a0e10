// The vector index through the package: reindex builds graph segments in a worker_threads Worker
// with progress, pure vector search keeps matching a brute-force answer, deleted memories never come
// back, segments persist through NodeFSStorage and are reused on open, abort leaves the store as it
// was, and enough adds start a background build by themselves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engram, MemoryStorage } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";

const DIMS = 64;

/** Seeded clustered unit vectors (topics with noise), like sentence embeddings. */
function clustered(n, seed) {
  let s = seed >>> 0 || 1;
  const rand = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const unit = (v) => {
    const norm = Math.hypot(...v);
    return Float32Array.from(v, (x) => x / norm);
  };
  const centres = Array.from({ length: 20 }, () => unit(Array.from({ length: DIMS }, gauss)));
  return Array.from({ length: n }, () => {
    const c = centres[Math.floor(rand() * centres.length)];
    return unit(Array.from(c, (x) => x + (0.6 / Math.sqrt(DIMS)) * gauss()));
  });
}

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "engram-vectors-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Small test stores: a graph is kept even where the calibration finds the exact scan as cheap.
const options = (storage) => ({ embedder: null, storage, vectorIndex: { graphMin: 200, alwaysGraph: true }, autoReindex: false });

async function fill(db, vectors) {
  const ids = [];
  for (const [i, embedding] of vectors.entries()) ids.push((await db.add({ content: `memory number ${i}`, embedding })).id);
  return ids;
}

function bruteTop(live, q, k) {
  return [...live.entries()]
    .map(([id, v]) => [id, v.reduce((s, x, d) => s + x * q[d], 0)])
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([id]) => id);
}

test("reindex builds a segment in a worker, reports progress, and searches stay exact", async (t) => {
  const dir = tempDir(t);
  const db = await Engram.open(options(new NodeFSStorage(dir)));
  const vectors = clustered(600, 7);
  const ids = await fill(db, vectors);
  const before = await db.vectorIndexStats();
  assert.equal(before.memories.segments, 0);
  assert.equal(before.memories.exact, 600);
  assert.equal(before.needsBuild, true);

  const events = [];
  const { steps, stats } = await db.reindex({ onProgress: (e) => events.push(e) });
  assert.deepEqual(events.map((e) => e.status), ["build", "installed", "done"]);
  assert.equal(events[0].target, "memories");
  assert.equal(events[0].points, 600);
  assert.equal(events[1].result, "segment", JSON.stringify(events[1]));
  assert.ok(events[1].calibration.recallMean >= 0.97);
  assert.deepEqual({ loaded: events[2].loaded, total: events[2].total }, { loaded: 600, total: 600 });
  assert.equal(steps.length, 1);
  assert.equal(stats.memories.segments, 1);
  assert.equal(stats.memories.indexed, 600);

  // Delete some, then compare pure vector search against a brute force over what is left.
  const live = new Map(ids.map((id, i) => [id, vectors[i]]));
  for (const id of ids.slice(0, 50)) {
    await db.delete(id);
    live.delete(id);
  }
  let overlap = 0;
  const queries = clustered(30, 99);
  for (const q of queries) {
    const hits = await db.search(null, { embedding: q, limit: 10, dryRun: true });
    const got = hits.map((h) => h.memory.id);
    assert.ok(got.every((id) => live.has(id)), "a deleted memory was returned");
    const want = new Set(bruteTop(live, q, 10));
    overlap += got.filter((id) => want.has(id)).length / 10;
  }
  assert.ok(overlap / queries.length >= 0.95, `recall@10 ${overlap / queries.length}`);
  await db.close();

  // Reopened from disk: the segment is reused, no build needed.
  const again = await Engram.open(options(new NodeFSStorage(dir)));
  const reopened = await again.vectorIndexStats();
  assert.equal(reopened.memories.segments, 1);
  assert.equal(reopened.memories.indexed, 550);
  assert.equal(reopened.memories.exact, 0);
  await again.close();
});

test("an aborted reindex rejects with AbortError and installs nothing", async () => {
  const db = await Engram.open(options(new MemoryStorage()));
  await fill(db, clustered(400, 3));
  const before = await db.vectorIndexStats();
  const controller = new AbortController();
  const pending = db.reindex({ signal: controller.signal, onProgress: (e) => e.status === "build" && controller.abort() });
  await assert.rejects(pending, (e) => e.name === "AbortError");
  assert.deepEqual(await db.vectorIndexStats(), before);
  const already = new AbortController();
  already.abort();
  await assert.rejects(db.reindex({ signal: already.signal }), (e) => e.name === "AbortError");
  await assert.rejects(db.reindex({ bogus: 1 }), (e) => e.code === "InvalidInput");
  await db.close();
});

test("enough adds start a background build by themselves", async () => {
  const db = await Engram.open({ embedder: null, vectorIndex: { graphMin: 200, alwaysGraph: true } });
  await fill(db, clustered(260, 11));
  let stats;
  for (let i = 0; i < 300; i++) {
    stats = await db.vectorIndexStats();
    if (stats.memories.segments > 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // One build, or two when adds kept arriving while the first one ran.
  assert.ok(stats.memories.segments >= 1, JSON.stringify(stats));
  assert.ok(stats.memories.indexed >= 200, JSON.stringify(stats));
  await db.close();
});

test("a small store's build keeps the exact scan when a graph would not pay off", async () => {
  const db = await Engram.open({ embedder: null, vectorIndex: { graphMin: 200 }, autoReindex: false });
  await fill(db, clustered(300, 5));
  const { steps, stats } = await db.reindex();
  assert.equal(steps[0].result, "scan");
  assert.equal(steps[0].calibration.useGraph, false);
  assert.ok(steps[0].calibration.distanceEvaluations * 6 >= 300);
  assert.deepEqual([stats.memories.segments, stats.memories.exact, stats.needsBuild], [0, 300, false]);
  // It waits for the exact tier to double before trying again.
  assert.deepEqual((await db.reindex()).steps, []);
  await db.close();
});
