// The vector index through the package: reindex builds graph segments in a worker_threads Worker
// with progress while queries keep being answered, pure vector search keeps matching a brute force,
// deleted memories never come back, segments persist through NodeFSStorage and are reused on open,
// abort and close stop a build at once and leave the store as it was, enough adds start a background
// build by themselves (whose failures go to onBackgroundError), and a background build never keeps a
// Node process alive.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Engram, EngramError, MemoryStorage } from "engram-wasm";
import { NodeFSStorage } from "engram-wasm/node-fs";
import { pkgDir, rejectsWith } from "./helpers.mjs";

const DIMS = 64;

/**
 * Seeded clustered unit vectors, like sentence embeddings: `k` random unit centres in 64 dimensions,
 * each vector a centre plus gaussian noise (`noise` is the noise vector's expected length), normalized.
 */
function clustered(n, seed, { k = 40, noise = 0.5 } = {}) {
  let s = seed >>> 0 || 1;
  const rand = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
  const unit = (v) => {
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm);
    return Float32Array.from(v, (x) => x / norm);
  };
  const centres = Array.from({ length: k }, () => unit(Array.from({ length: DIMS }, gauss)));
  return Array.from({ length: n }, () => {
    const c = centres[Math.floor(rand() * k)];
    return unit(Array.from(c, (x) => x + (noise / Math.sqrt(DIMS)) * gauss()));
  });
}

function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "engram-vectors-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function fill(db, vectors) {
  const ids = [];
  for (const [i, embedding] of vectors.entries()) ids.push((await db.add({ content: `memory number ${i}`, embedding })).id);
  return ids;
}

function dot(a, b) {
  let s = 0;
  for (let d = 0; d < a.length; d++) s += a[d] * b[d];
  return s;
}

/** Mean overlap of pure vector search top-10 with a brute-force cosine top-10 over `live`. */
async function overlapWithBruteForce(db, live, queries) {
  const overlaps = [];
  for (const q of queries) {
    const hits = await db.search(null, { embedding: q, limit: 10, dryRun: true });
    const got = hits.map((h) => h.memory.id);
    assert.equal(got.length, 10);
    assert.ok(
      got.every((id) => live.has(id)),
      "a deleted memory was returned",
    );
    const want = new Set(
      [...live.entries()]
        .map(([id, v]) => [id, dot(v, q)])
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([id]) => id),
    );
    overlaps.push(got.filter((id) => want.has(id)).length / 10);
  }
  return { mean: overlaps.reduce((a, b) => a + b, 0) / overlaps.length, min: Math.min(...overlaps) };
}

test("reindex: a calibrated segment built in a worker while queries are answered; search stays exact", async () => {
  // 4,000 clustered vectors: enough that the calibration itself finds the graph pays off (at 600 it
  // keeps the exact scan however clustered the data is: a graph query evaluates ~500 of them).
  const db = await Engram.open({ embedder: null, storage: new MemoryStorage(), vectorIndex: { graphMin: 200 }, autoReindex: false });
  // The last 50 are queries from the same clusters; they are not stored.
  const drawn = clustered(4050, 7);
  const vectors = drawn.slice(0, 4000);
  const ids = await fill(db, vectors);
  const before = await db.vectorIndexStats();
  assert.deepEqual([before.memories.vectors, before.memories.exact, before.memories.segments, before.needsBuild], [4000, 4000, 0, true]);

  const events = [];
  const during = [];
  let installedSeen = false;
  const started = performance.now();
  const { steps, stats } = await db.reindex({
    onProgress: (e) => {
      events.push({ ...e, at: performance.now() - started });
      if (e.phase === "install") installedSeen = true;
      if (e.phase === "build") {
        // The build runs off the call queue: a query made now is answered before it is installed.
        during.push(db.search(null, { embedding: vectors[0], limit: 3, dryRun: true }).then((hits) => ({ hits, beforeInstall: !installedSeen })));
      }
    },
  });
  const [build, installed, done] = events;
  assert.deepEqual(
    events.map((e) => e.phase),
    ["build", "install", "done"],
  );
  assert.deepEqual({ target: build.target, points: build.points, done: build.done, total: build.total }, { target: "memories", points: 4000, done: 0, total: 4000 });
  assert.equal(installed.result, "segment", JSON.stringify(installed));
  assert.equal(installed.target, "memories");
  assert.equal(installed.points, 4000);
  assert.equal(installed.calibration.useGraph, true);
  assert.ok(installed.calibration.recallMean >= 0.97, JSON.stringify(installed.calibration));
  assert.ok(installed.calibration.distanceEvaluations * 6 < 4000, JSON.stringify(installed.calibration));
  assert.deepEqual([installed.done, installed.total, done.done, done.total], [4000, 4000, 4000, 4000]);
  assert.deepEqual(
    events.map((e) => [e.phase, e.done, e.total]),
    [
      ["build", 0, 4000],
      ["install", 4000, 4000],
      ["done", 4000, 4000],
    ],
  );
  assert.equal(steps.length, 1);
  assert.deepEqual(steps[0], Object.fromEntries(Object.entries(installed).filter(([k]) => !["phase", "done", "total", "at"].includes(k))));
  assert.ok(stats.memories.segments >= 1 && stats.memories.indexed > 0, JSON.stringify(stats));
  assert.deepEqual([stats.memories.indexed, stats.memories.exact, stats.needsBuild], [4000, 0, false]);
  const [query] = await Promise.all(during);
  assert.equal(query.beforeInstall, true, "a query waited for the build");
  assert.equal(query.hits[0].memory.id, ids[0]);
  console.log(`# worker build of 4000 × ${DIMS}-d vectors: ${Math.round(installed.at - build.at)} ms (calibration ${JSON.stringify(installed.calibration)})`);

  // Deleted memories never come back; the rest is found as a brute force finds it.
  const live = new Map(ids.map((id, i) => [id, vectors[i]]));
  for (const id of ids.filter((_, i) => i % 20 === 0)) {
    await db.delete(id);
    live.delete(id);
  }
  assert.equal((await db.vectorIndexStats()).memories.tombstones, 200);
  const { mean, min } = await overlapWithBruteForce(db, live, drawn.slice(4000));
  // Queries far from every cluster (other centres) are harder for a graph: measured, not asserted.
  const far = await overlapWithBruteForce(db, live, clustered(50, 99));
  console.log(`# graph search vs brute force top-10 overlap: mean ${mean.toFixed(3)} (worst query ${min}); off-distribution queries ${far.mean.toFixed(3)} (worst ${far.min})`);
  assert.ok(mean >= 0.95, `mean top-10 overlap ${mean}`);
  await db.close();
});

// Below a few thousand vectors the calibration keeps the exact scan; `alwaysGraph` keeps the graph
// anyway, so the segment machinery is exercised on a small, fast store.
const small = (storage, extra = {}) => ({ embedder: null, storage, vectorIndex: { graphMin: 200, alwaysGraph: true }, autoReindex: false, ...extra });

test("reindex with NodeFSStorage: the segment is persisted and reused when the store is opened again", async (t) => {
  const dir = tempDir(t);
  const db = await Engram.open(small(new NodeFSStorage(dir)));
  const drawn = clustered(630, 3);
  const vectors = drawn.slice(0, 600);
  const ids = await fill(db, vectors);
  const { steps, stats } = await db.reindex();
  assert.deepEqual(
    steps.map((s) => [s.result, s.points]),
    [["segment", 600]],
  );
  assert.deepEqual([stats.memories.segments, stats.memories.indexed, stats.memories.exact], [1, 600, 0]);
  const live = new Map(ids.map((id, i) => [id, vectors[i]]));
  for (const id of ids.slice(0, 50)) {
    await db.delete(id);
    live.delete(id);
  }
  const queries = drawn.slice(600);
  const first = await overlapWithBruteForce(db, live, queries);
  assert.ok(first.mean >= 0.95, `mean top-10 overlap ${first.mean}`);
  await db.close();

  // Reopened from disk: the segment is there without a reindex (its deleted points dropped).
  const again = await Engram.open(small(new NodeFSStorage(dir)));
  const reopened = await again.vectorIndexStats();
  assert.deepEqual([reopened.memories.segments, reopened.memories.indexed, reopened.memories.exact, reopened.needsBuild], [1, 550, 0, false]);
  const second = await overlapWithBruteForce(again, live, queries);
  assert.ok(second.mean >= 0.95, `mean top-10 overlap after reopening ${second.mean}`);
  await again.close();
});

test("an in-process build (inWorker: false) installs the same segment as the worker's", async () => {
  const vectors = clustered(600, 5);
  const results = [];
  for (const inWorker of [true, false]) {
    const db = await Engram.open(small(new MemoryStorage(), { idSeed: 1 }));
    await fill(db, vectors);
    const { steps, stats } = await db.reindex({ inWorker });
    results.push({ steps, stats });
    await db.close();
  }
  assert.equal(results[0].steps[0].result, "segment");
  assert.deepEqual(results[1], results[0]); // builds are deterministic (fixed seed, one thread)
});

test("abort mid-build terminates the worker, rejects with Aborted at once and installs nothing", async () => {
  const db = await Engram.open(small(new MemoryStorage()));
  await fill(db, clustered(3000, 11));
  const before = await db.vectorIndexStats();
  const controller = new AbortController();
  let abortedAt = 0;
  const pending = db.reindex({
    signal: controller.signal,
    onProgress: (e) => {
      if (e.phase === "build") {
        setTimeout(() => {
          abortedAt = performance.now();
          controller.abort();
        }, 150);
      }
    },
  });
  await rejectsWith(pending, "Aborted", EngramError);
  const latency = performance.now() - abortedAt;
  assert.ok(latency < 500, `rejected ${latency} ms after the abort`);
  assert.deepEqual(await db.vectorIndexStats(), before);
  assert.equal((await db.search(null, { embedding: clustered(1, 1)[0], limit: 5 })).length, 5);

  const already = new AbortController();
  already.abort();
  await rejectsWith(db.reindex({ signal: already.signal }), "Aborted", EngramError);
  await rejectsWith(db.reindex({ bogus: 1 }), "InvalidInput", EngramError);
  await rejectsWith(db.reindex({ inWorker: "yes" }), "InvalidInput", EngramError);
  await rejectsWith(db.reindex({ signal: {} }), "InvalidInput", EngramError);
  assert.deepEqual(await db.vectorIndexStats(), before);

  // The store is unharmed: a later reindex builds it.
  const { steps } = await db.reindex();
  assert.deepEqual(
    steps.map((s) => s.result),
    ["segment"],
  );
  await db.close();
});

test("close() during a build terminates the worker at once; the reindex rejects with Closed", async () => {
  const db = await Engram.open(small(new MemoryStorage()));
  await fill(db, clustered(3000, 13));
  let building;
  const started = new Promise((resolve) => (building = resolve));
  const pending = db.reindex({ onProgress: (e) => e.phase === "build" && building() });
  await started;
  const t0 = performance.now();
  await db.close();
  assert.ok(performance.now() - t0 < 1000, "close waited for the build");
  await rejectsWith(pending, "Closed", EngramError);
});

test("enough adds start a background build by themselves; writes and queries go on meanwhile", async () => {
  const db = await Engram.open({ embedder: null, vectorIndex: { graphMin: 200, alwaysGraph: true } });
  const vectors = clustered(260, 17);
  await fill(db, vectors);
  let stats;
  for (let i = 0; i < 300 && !(stats?.memories.segments > 0); i++) {
    await new Promise((r) => setTimeout(r, 50));
    stats = await db.vectorIndexStats();
  }
  assert.ok(stats.memories.segments >= 1, JSON.stringify(stats));
  assert.ok(stats.memories.indexed >= 200, JSON.stringify(stats));
  assert.equal((await db.search(null, { embedding: vectors[3], limit: 1, dryRun: true }))[0].memory.content, "memory number 3");
  await db.close();

  // Off by option: no build however many vectors.
  const off = await Engram.open({ embedder: null, vectorIndex: { graphMin: 200, alwaysGraph: true }, autoReindex: false });
  await fill(off, vectors);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await off.vectorIndexStats()).memories.segments, 0);
  await off.close();
});

test("a background build's failure goes to onBackgroundError once; automatic builds pause until reindex() succeeds", async () => {
  const errors = [];
  const db = await Engram.open({
    embedder: null,
    vectorIndex: { graphMin: 200, alwaysGraph: true, workerUrl: pathToFileURL(join(tmpdir(), "no-such-engram-worker.cjs")) },
    onBackgroundError: (e) => errors.push(e),
  });
  await fill(db, clustered(260, 19));
  for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof EngramError && errors[0].code === "Internal", String(errors[0]));
  await fill(db, clustered(100, 20));
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(errors.length, 1, "reported once, not after every write");
  // An explicit reindex with the same worker rejects; in-process it succeeds.
  await rejectsWith(db.reindex(), "Internal", EngramError);
  assert.deepEqual(
    (await db.reindex({ inWorker: false })).steps.map((s) => s.result),
    ["segment"],
  );
  await db.close();

  await rejectsWith(Engram.open({ embedder: null, vectorIndex: { workerUrl: 3 } }), "InvalidInput", EngramError);
  await rejectsWith(Engram.open({ embedder: null, vectorIndex: { graphMin: 0 } }), "InvalidInput", EngramError);
  await rejectsWith(Engram.open({ embedder: null, vectorIndex: { bogus: 1 } }), "InvalidInput", EngramError);
  await rejectsWith(Engram.open({ embedder: null, autoReindex: "yes" }), "InvalidInput", EngramError);
});

test("a small store's build keeps the exact scan when a graph would not pay off", async () => {
  const db = await Engram.open({ embedder: null, vectorIndex: { graphMin: 200 }, autoReindex: false });
  await fill(db, clustered(600, 5, { noise: 0.1 }));
  const { steps, stats } = await db.reindex();
  assert.equal(steps[0].result, "scan");
  assert.equal(steps[0].calibration.useGraph, false);
  assert.ok(steps[0].calibration.distanceEvaluations * 6 >= 600);
  assert.deepEqual([stats.memories.segments, stats.memories.exact, stats.needsBuild], [0, 600, false]);
  // It waits for the exact tier to double before trying again.
  assert.deepEqual((await db.reindex()).steps, []);
  await db.close();
});

test("a background build never keeps a Node process alive", async (t) => {
  const dir = tempDir(t);
  const script = join(dir, "child.mjs");
  // 4,000 vectors of 256 dimensions: the build due after the last add takes seconds in the worker.
  writeFileSync(
    script,
    `
    import { Engram } from ${JSON.stringify(pathToFileURL(join(pkgDir, "dist", "engram.node.mjs")).href)};
    const db = await Engram.open({ embedder: null, vectorIndex: { graphMin: 4000, alwaysGraph: true } });
    let s = 1;
    const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5;
    for (let i = 0; i < 4000; i++) await db.add({ content: "m" + i, embedding: Float32Array.from({ length: 256 }, rand) });
    const stats = await db.vectorIndexStats();
    const last = performance.now();
    process.on("exit", () => console.log(JSON.stringify({ needsBuild: stats.needsBuild, exitAfterMs: performance.now() - last })));
  `,
  );
  const out = await new Promise((resolve, reject) => {
    execFile(process.execPath, [script], { timeout: 60_000 }, (e, stdout, stderr) => (e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout)));
  });
  const { needsBuild, exitAfterMs } = JSON.parse(out.trim().split("\n").pop());
  assert.equal(needsBuild, true);
  assert.ok(exitAfterMs < 1000, `the process lived ${exitAfterMs} ms after its last call`);
});
