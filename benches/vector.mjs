// Pure vector search in Node: engram-wasm's `search(null, {embedding})` (exact int8 tier, f32
// rescoring, full scoring and JSON results) against the plain JS a developer writes by hand — a
// brute-force dot product over one contiguous Float32Array with a top-10 selection — in the same
// process, same vectors, same queries. Also recall@10 of engram against that exact answer.
//
// Stores come from `examples/synthetic_export.rs --uniform` (one kind, one time: ranking is by
// similarity alone, comparable with the exact answer): random unit vectors, or real MiniLM embeddings of
// conversation turns from the eval harness's cache (`--vectors .cache/embeddings/<model>.bin`, filled
// by `cargo run --release --features embedder --example eval -- longmemeval PATH --mode hybrid`);
// real queries are held-out vectors from the same file.
//
//   node benches/vector.mjs [--sizes 10000,50000,100000] [--queries 200] [--vectors FILE --real-sizes 10000,25000] [--no-reindex]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { percentile, seededUnit } from "./corpus.mjs";

const repo = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const DIMS = 384;
const RECORD = 8 + 4 * DIMS;

function exportFile(n, vectors) {
  const dir = join(repo, "target", "bench-data");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, vectors ? `uniform-real-${n}.bin` : `uniform-${n}.bin`);
  if (!existsSync(file)) {
    const extra = vectors ? ["--vectors", vectors] : [];
    execFileSync("cargo", ["run", "--quiet", "--profile", "bench-native", "--example", "synthetic_export", "--", String(n), file, "--uniform", ...extra], {
      cwd: repo,
      stdio: "inherit",
    });
  }
  return file;
}

/** The i-th vector of an embedding cache file. */
function cached(bytes, i) {
  const v = new Float32Array(DIMS);
  const view = new DataView(bytes.buffer, bytes.byteOffset + i * RECORD + 8, 4 * DIMS);
  for (let k = 0; k < DIMS; k++) v[k] = view.getFloat32(4 * k, true);
  return v;
}

/** Top 10 by dot product over a flat matrix: what a JS developer would write. */
function bruteForce(matrix, n, q, k = 10) {
  const best = [];
  for (let i = 0; i < n; i++) {
    let dot = 0;
    const o = i * DIMS;
    for (let d = 0; d < DIMS; d++) dot += matrix[o + d] * q[d];
    if (best.length < k || dot > best[best.length - 1][1]) {
      let at = best.length < k ? best.length : k - 1;
      if (best.length < k) best.push(null);
      while (at > 0 && best[at - 1][1] < dot) {
        best[at] = best[at - 1];
        at--;
      }
      best[at] = [i, dot];
    }
  }
  return best;
}

async function timeQueries(search, queries, exactOf) {
  for (const q of queries.slice(0, 10)) await search(q);
  const t = [];
  let recall = 0;
  let worst = 1;
  for (const [i, q] of queries.entries()) {
    const s = performance.now();
    const hits = await search(q);
    t.push(performance.now() - s);
    const want = exactOf[i];
    const got = hits.filter((h) => want.has(parseInt(h.memory.id.slice(0, 8), 16))).length / want.size;
    recall += got;
    worst = Math.min(worst, got);
  }
  t.sort((a, b) => a - b);
  return { p50: percentile(t, 50), p95: percentile(t, 95), recall: recall / queries.length, worst };
}

async function measure(label, n, file, vectorsOf, queries) {
  const { Engram } = await import("engram-wasm");
  const { NodeFSStorage } = await import("engram-wasm/node-fs");
  const dir = mkdtempSync(join(tmpdir(), "engram-vector-bench-"));
  // Graphs from 1,000 vectors, so every size here gets one if its calibration says it pays off.
  const options = { embedder: null, vectorIndex: { graphMin: 1000 }, autoReindex: false };
  const db = await Engram.open({ ...options, storage: new NodeFSStorage(dir) });
  await db.import(new Uint8Array(readFileSync(file)));
  await db.compact();
  const matrix = new Float32Array(n * DIMS);
  for (let i = 0; i < n; i++) matrix.set(vectorsOf(i), i * DIMS);
  const search = (q) => db.search(null, { embedding: q, limit: 10, dryRun: true, scope: "memories" });
  for (const q of queries.slice(0, 10)) bruteForce(matrix, n, q);
  const tj = [];
  const exactOf = [];
  for (const q of queries) {
    const s = performance.now();
    const exact = bruteForce(matrix, n, q);
    tj.push(performance.now() - s);
    exactOf.push(new Set(exact.map(([i]) => i)));
  }
  tj.sort((a, b) => a - b);
  const scan = await timeQueries(search, queries, exactOf);
  const before = await db.stats();
  if (noReindex) {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    return { label, n, j50: percentile(tj, 50), j95: percentile(tj, 95), scan, wasmMB: before.wasmMemoryBytes / 2 ** 20 };
  }
  let s = performance.now();
  const reindex = await db.reindex({ inWorker: false });
  const buildMs = performance.now() - s;
  const graph = await timeQueries(search, queries, exactOf);
  const after = await db.stats();
  const vstats = await db.vectorIndexStats();
  await db.close();
  // Open time of the persisted store with its graph segments, in this process (module compiled).
  s = performance.now();
  const reopened = await Engram.open({ ...options, storage: new NodeFSStorage(dir) });
  const openMs = performance.now() - s;
  const reopenedStats = await reopened.vectorIndexStats();
  const reopenedQ = await timeQueries((q) => reopened.search(null, { embedding: q, limit: 10, dryRun: true, scope: "memories" }), queries, exactOf);
  await reopened.close();
  rmSync(dir, { recursive: true, force: true });
  const steps = reindex.steps
    .map(
      (st) =>
        `${st.result} ${st.points} (ef ${st.calibration.efSearch}, sample recall ${st.calibration.recallMean.toFixed(3)}, ${Math.round(st.calibration.distanceEvaluations)} evals)`,
    )
    .join("; ");
  return {
    label,
    n,
    j50: percentile(tj, 50),
    j95: percentile(tj, 95),
    scan,
    graph,
    reopenedQ,
    buildMs,
    openMs,
    steps,
    segments: reopenedStats.memories.segments,
    indexed: vstats.memories.indexed,
    wasmMB: before.wasmMemoryBytes / 2 ** 20,
    wasmMBGraph: after.wasmMemoryBytes / 2 ** 20,
  };
}

const nq = Number(opt("--queries", "200"));
// Only the exact scan and the JS peer (no graph build, no reopen): a quick run of the scan path.
const noReindex = args.includes("--no-reindex");
const rows = [];
for (const n of opt("--sizes", "10000,50000,100000").split(",").filter(Boolean).map(Number)) {
  const file = exportFile(n, null);
  // The JS peer gets the same vectors, decoded from the export file (the public API returns none).
  const vectors = vectorsFromExport(readFileSync(file), n);
  // Queries near stored points (a stored vector plus as much noise again): an i.i.d. random query
  // has no neighbours worth the name, and search drops matches below its similarity floor.
  const near = (i) => {
    const base = vectors.subarray(((i * 7919) % n) * DIMS, (((i * 7919) % n) + 1) * DIMS);
    const noise = seededUnit(0x9e3779b9 ^ (i + 1));
    const q = base.map((x, d) => x + noise[d]);
    const norm = Math.hypot(...q);
    return q.map((x) => x / norm);
  };
  rows.push(
    await measure(
      "random",
      n,
      file,
      (i) => vectors.subarray(i * DIMS, (i + 1) * DIMS),
      Array.from({ length: nq }, (_, i) => near(i)),
    ),
  );
}
const real = opt("--vectors", null);
if (real) {
  const bytes = readFileSync(real);
  for (const n of opt("--real-sizes", "10000,25000").split(",").filter(Boolean).map(Number)) {
    if (bytes.length / RECORD < n + nq) {
      console.error(`skip real ${n}: the cache holds ${Math.floor(bytes.length / RECORD)} vectors`);
      continue;
    }
    const file = exportFile(n, real);
    rows.push(
      await measure(
        "real MiniLM",
        n,
        file,
        (i) => cached(bytes, i),
        Array.from({ length: nq }, (_, i) => cached(bytes, n + i)),
      ),
    );
  }
}

/** The vectors of a synthetic export, in memory order: each PUT_MEMORY op is tag 2, a JSON length
 *  and body, a vector flag, count and f32s (see src/persist/ops.rs). */
function vectorsFromExport(buf, n) {
  const out = new Float32Array(n * DIMS);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let at = 20; // record header
  for (let i = 0; i < n; i++) {
    if (buf[at] !== 2) throw new Error(`unexpected op ${buf[at]} at ${at}`);
    const jsonLen = view.getUint32(at + 1, true);
    at += 5 + jsonLen;
    if (buf[at] !== 1 || view.getUint32(at + 1, true) !== DIMS) throw new Error("expected a 384-d vector");
    at += 5;
    for (let d = 0; d < DIMS; d++) out[i * DIMS + d] = view.getFloat32(at + 4 * d, true);
    at += 4 * DIMS;
  }
  return out;
}

const f = (x, d = 2) => x.toFixed(d);
console.log(`\nvector search, Node ${process.version}, ${nq} queries, top 10 (p50 / p95 ms; recall@10 mean / worst against the exact answer)`);
const cell = (x) => `${f(x.p50)} / ${f(x.p95)} (${f(x.recall, 3)} / ${f(x.worst, 1)})`;
if (noReindex) {
  console.log("| vectors | n | JS brute force | engram exact int8 scan | ÷ JS (p50) | wasm MB |");
  console.log("|---|---|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.label} | ${r.n} | ${f(r.j50)} / ${f(r.j95)} | ${cell(r.scan)} | ${f(r.scan.p50 / r.j50)}× | ${f(r.wasmMB, 0)} |`);
} else {
  console.log(
    "| vectors | n | JS brute force | engram exact int8 scan | engram after reindex | ÷ JS (p50) | reopened (graph from storage) | build (1 thread, in-process) | open with graph | wasm MB before / after build |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.label} | ${r.n} | ${f(r.j50)} / ${f(r.j95)} | ${cell(r.scan)} | ${cell(r.graph)} | ${f(r.graph.p50 / r.j50)}× | ${cell(r.reopenedQ)} | ${f(r.buildMs / 1000, 1)} s | ${f(r.openMs, 0)} ms | ${f(r.wasmMB, 0)} / ${f(r.wasmMBGraph, 0)} |`,
    );
  }
  for (const r of rows) console.log(`${r.label} ${r.n}: ${r.steps}; ${r.indexed} indexed, ${r.segments} segment(s) after reopen`);
}
