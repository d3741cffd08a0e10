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
//   node benches/vector.mjs [--sizes 10000,50000,100000] [--queries 200] [--vectors FILE --real-sizes 10000,25000]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { percentile } from "./corpus.mjs";

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
    execFileSync("cargo", ["run", "--quiet", "--profile", "bench-native", "--example", "synthetic_export", "--", String(n), file, "--uniform", ...extra], { cwd: repo, stdio: "inherit" });
  }
  return file;
}

function seededUnit(seed) {
  let s = seed >>> 0 || 1;
  const v = new Float32Array(DIMS);
  let norm = 0;
  for (let i = 0; i < DIMS; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    v[i] = (s >>> 0) / 2 ** 31 - 1;
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < DIMS; i++) v[i] /= norm;
  return v;
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

async function measure(label, n, file, vectorsOf, queries) {
  const { Engram } = await import("engram-wasm");
  const db = await Engram.open({ embedder: null });
  await db.import(new Uint8Array(readFileSync(file)));
  const matrix = new Float32Array(n * DIMS);
  for (let i = 0; i < n; i++) matrix.set(vectorsOf(i), i * DIMS);
  const search = (q) => db.search(null, { embedding: q, limit: 10, dryRun: true, scope: "memories" });
  for (const q of queries.slice(0, 10)) {
    await search(q);
    bruteForce(matrix, n, q);
  }
  const te = [];
  const tj = [];
  let recall = 0;
  let worst = 1;
  for (const q of queries) {
    let s = performance.now();
    const hits = await search(q);
    te.push(performance.now() - s);
    s = performance.now();
    const exact = bruteForce(matrix, n, q);
    tj.push(performance.now() - s);
    const want = new Set(exact.map(([i]) => i));
    const got = hits.filter((h) => want.has(parseInt(h.memory.id.slice(0, 8), 16))).length / want.size;
    recall += got;
    worst = Math.min(worst, got);
  }
  te.sort((a, b) => a - b);
  tj.sort((a, b) => a - b);
  const stats = await db.stats();
  await db.close();
  return { label, n, e50: percentile(te, 50), e95: percentile(te, 95), j50: percentile(tj, 50), j95: percentile(tj, 95), recall: recall / queries.length, worst, wasmMB: stats.wasmMemoryBytes / 2 ** 20 };
}

const nq = Number(opt("--queries", "200"));
const rows = [];
for (const n of opt("--sizes", "10000,50000,100000").split(",").map(Number)) {
  const file = exportFile(n, null);
  // The JS peer gets the same vectors, decoded from the export file (the public API returns none).
  const vectors = vectorsFromExport(readFileSync(file), n);
  // Queries near stored points (a stored vector plus as much noise again): an i.i.d. random query
  // has no neighbours worth the name, and search drops matches below its similarity floor.
  const near = (i) => {
    const base = vectors.subarray(((i * 7919) % n) * DIMS, ((i * 7919) % n + 1) * DIMS);
    const noise = seededUnit(0x9e3779b9 ^ (i + 1));
    const q = base.map((x, d) => x + noise[d]);
    const norm = Math.hypot(...q);
    return q.map((x) => x / norm);
  };
  rows.push(await measure("random", n, file, (i) => vectors.subarray(i * DIMS, (i + 1) * DIMS), Array.from({ length: nq }, (_, i) => near(i))));
}
const real = opt("--vectors", null);
if (real) {
  const bytes = readFileSync(real);
  for (const n of opt("--real-sizes", "10000,25000").split(",").map(Number)) {
    if (bytes.length / RECORD < n + nq) {
      console.error(`skip real ${n}: the cache holds ${Math.floor(bytes.length / RECORD)} vectors`);
      continue;
    }
    const file = exportFile(n, real);
    rows.push(await measure("real MiniLM", n, file, (i) => cached(bytes, i), Array.from({ length: nq }, (_, i) => cached(bytes, n + i))));
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
console.log(`\nvector search, Node ${process.version}, ${nq} queries, top 10`);
console.log("| vectors | n | engram p50 ms | p95 ms | JS brute force p50 ms | p95 ms | engram ÷ JS (p50) | recall@10 mean / min | wasm memory MB |");
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  console.log(`| ${r.label} | ${r.n} | ${f(r.e50)} | ${f(r.e95)} | ${f(r.j50)} | ${f(r.j95)} | ${f(r.e50 / r.j50)}× | ${f(r.recall, 3)} / ${f(r.worst, 2)} | ${f(r.wasmMB, 0)} |`);
}
