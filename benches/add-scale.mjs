// Whether `add` with a vector stays flat as a store grows: N adds of 384-d clustered vectors (a
// mixture of seeded clusters on the sphere, the shape real embeddings have) through the public
// async API in Node (wasm), automatic vector builds on as a host would have them. Prints the mean
// cost per add of each block of adds, the last block against the first, and link quality: for a
// sample of the last block, the links `add` returned against the exact ones (the ≤ 3 nearest
// earlier memories with cosine ≥ 0.5, brute force in JS over the same vectors).
//
//   node benches/add-scale.mjs [--n 100000] [--block 5000] [--batch 0|SIZE] [--no-auto] [--sample 100] [--warmup 3000] [--vectors FILE] [--reindex-every N] [--pkg DIR]
//
// `--warmup W` first adds W memories to a throwaway store and closes it: V8 compiles wasm in tiers
// (a quick baseline first, optimized code for hot functions later, on other threads), and without a
// warm-up that one-time compiling lands in the first block and makes it look dearer than a small
// store is. `--warmup 0` measures a cold process.
//
// `--vectors FILE` adds real vectors instead, in the file's order: records of an 8-byte text key and
// 384 little-endian f32 (`examples/embed_corpus.rs` writes MiniLM vectors of the dev benchmarks'
// conversation sentences in that format). The warm-up still uses clustered vectors.
//
// `--reindex-every N` awaits `reindex()` after every N adds, untimed: the builds a host's background
// worker would finish while its writes are spread over time (an awaited add loop outruns them), so
// that links are searched with graph segments installed.
//
// `--pkg DIR` runs another build of the package (e.g. an older checkout's pkg/) for a before-number.
//
// `--batch SIZE` adds through `addMany` in batches of SIZE instead of one `add` per memory.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { seededUnit } from "./corpus.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const VECTORS = opt("--vectors", null);
let N = Number(opt("--n", "100000"));
const BLOCK = Number(opt("--block", "5000"));
const BATCH = Number(opt("--batch", "0"));
const SAMPLE = Number(opt("--sample", "100"));
const REINDEX_EVERY = Number(opt("--reindex-every", "0"));
const DIMS = 384;
const CLUSTERS = 500;
const LINK_MIN = 0.5;

/** Point i: its cluster's centre plus seeded noise, normalized (cosine ≈ 0.7 to the centre). */
function clustered(i, centres) {
  const c = centres[(i * 7919) % CLUSTERS];
  const noise = seededUnit(1_000_003 + i, DIMS);
  const v = new Float32Array(DIMS);
  let norm = 0;
  for (let k = 0; k < DIMS; k++) {
    v[k] = c[k] + 1.0 * noise[k];
    norm += v[k] * v[k];
  }
  norm = Math.sqrt(norm);
  for (let k = 0; k < DIMS; k++) v[k] /= norm;
  return v;
}

const centres = Array.from({ length: CLUSTERS }, (_, c) => seededUnit(17 + c, DIMS));
// One buffer for all vectors, viewed per add: 100k separate Float32Arrays (each its own ArrayBuffer)
// made V8's garbage collector, not the store, the growing cost of a late add.
let flat;
if (VECTORS) {
  const bytes = readFileSync(VECTORS);
  const record = 8 + 4 * DIMS;
  N = Math.min(N, Math.floor(bytes.length / record));
  flat = new Float32Array(N * DIMS);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < N; i++) for (let k = 0; k < DIMS; k++) flat[i * DIMS + k] = view.getFloat32(i * record + 8 + 4 * k, true);
} else {
  flat = new Float32Array(N * DIMS);
  for (let i = 0; i < N; i++) flat.set(clustered(i, centres), i * DIMS);
}
const vectors = { at: (i) => flat.subarray(i * DIMS, (i + 1) * DIMS) };
const content = (i) => `memory ${i}: note about topic ${(i * 7919) % CLUSTERS} written on day ${i % 365}`;

const pkg = opt("--pkg", null);
const { Engram } = await import(pkg ? pathToFileURL(resolve(pkg, "dist/engram.node.mjs")).href : "engram-wasm");
const WARMUP = Number(opt("--warmup", "3000"));
if (WARMUP > 0) {
  const warm = await Engram.open({ embedder: null, autoReindex: false });
  for (let i = 0; i < WARMUP; i++) await warm.add({ content: `warm-up ${i}`, embedding: clustered(N + i, centres) });
  await warm.close();
}
const db = await Engram.open({ embedder: null, autoReindex: !args.includes("--no-auto") });
const ids = new Array(N);
const links = new Array(N);
const blocks = [];
// Each block's median over sub-blocks of 100 adds: other processes on a shared machine come in bursts.
const SUB = 100;
const subs = [];
let subStart = 0;
const t0 = performance.now();
for (let start = 0; start < N; start += BLOCK) {
  const end = Math.min(N, start + BLOCK);
  const s = performance.now();
  const cpu0 = process.cpuUsage();
  let paused = 0;
  let pausedCpu = 0;
  if (BATCH > 0) {
    for (let b = start; b < end; b += BATCH) {
      const items = [];
      for (let i = b; i < Math.min(end, b + BATCH); i++) items.push({ content: content(i), embedding: vectors.at(i) });
      const out = await db.addMany(items);
      out.forEach((r, k) => {
        ids[b + k] = r.id;
        links[b + k] = r.links ?? [];
      });
    }
  } else {
    for (let i = start; i < end; i++) {
      if ((i - start) % SUB === 0) subStart = performance.now();
      const r = await db.add({ content: content(i), embedding: vectors.at(i) });
      ids[i] = r.id;
      links[i] = r.links ?? [];
      if (REINDEX_EVERY > 0 && (i + 1) % REINDEX_EVERY === 0) {
        const p = performance.now();
        const c = process.cpuUsage();
        await db.reindex();
        const took = performance.now() - p;
        paused += took;
        subStart += took;
        const cu = process.cpuUsage(c);
        pausedCpu += (cu.user + cu.system) / 1000;
      }
      if ((i - start) % SUB === SUB - 1) subs.push((performance.now() - subStart) / SUB);
    }
  }
  const ms = (performance.now() - s - paused) / (end - start);
  // CPU time of this process (all its threads: with automatic builds on, the build worker's too);
  // unlike wall time it does not count time other processes held the cores.
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = ((cpu.user + cpu.system) / 1000 - pausedCpu) / (end - start);
  subs.sort((a, b) => a - b);
  const median = subs.length ? subs[Math.floor(subs.length / 2)] : ms;
  subs.length = 0;
  const st = await db.vectorIndexStats();
  blocks.push({ end, ms, median, cpuMs, delta: st.memories.exact, segments: st.memories.segments });
  console.error(`${end}: ${ms.toFixed(3)} ms/add (median of sub-blocks ${median.toFixed(3)}), index ${JSON.stringify(st.memories)}`);
}
const totalS = (performance.now() - t0) / 1000;

// Link quality on a sample of the last block: exact links by brute force over the earlier vectors.
const index = new Map(ids.map((id, i) => [id, i]));
let found = 0;
let exact = 0;
// Exact top-3 recall is strict where many candidates are near-equal: the cosine the links reach,
// summed, against the exact links' sum says how much nearness the misses cost.
let foundCos = 0;
let exactCos = 0;
const dotOf = (a, b) => {
  let d = 0;
  for (let k = 0; k < DIMS; k++) d += a[k] * b[k];
  return d;
};
const first = Math.max(0, N - BLOCK);
for (let k = 0; k < SAMPLE; k++) {
  const i = first + Math.floor((k * (N - first)) / SAMPLE);
  const best = [];
  for (let j = 0; j < i; j++) {
    const dot = dotOf(vectors.at(i), vectors.at(j));
    if (dot >= LINK_MIN) best.push([j, dot]);
  }
  best.sort((a, b) => b[1] - a[1]);
  const truth = new Set(best.slice(0, 3).map(([j]) => j));
  exact += truth.size;
  for (const [, c] of best.slice(0, 3)) exactCos += c;
  for (const id of links[i] ?? []) {
    if (truth.has(index.get(id))) found++;
    foundCos += dotOf(vectors.at(i), vectors.at(index.get(id)));
  }
}
await db.close();

const firstBlock = blocks[0].ms;
const lastBlock = blocks.at(-1).ms;
console.log(
  `node ${process.version}, ${N} adds of ${DIMS}-d ${VECTORS ? `vectors from ${VECTORS}` : "clustered vectors"}, ${BATCH > 0 ? `addMany × ${BATCH}` : "add one by one"}, auto builds ${args.includes("--no-auto") ? "off" : "on"}${REINDEX_EVERY ? `, reindex() every ${REINDEX_EVERY} adds (untimed)` : ""}, warm-up ${WARMUP} adds, total ${totalS.toFixed(1)} s`,
);
console.log("| adds so far | ms per add (mean) | median of 100-add sub-blocks | CPU ms per add | exact tier | segments |");
console.log("| ---: | ---: | ---: | ---: | ---: | ---: |");
for (const b of blocks) console.log(`| ${b.end} | ${b.ms.toFixed(3)} | ${b.median.toFixed(3)} | ${b.cpuMs.toFixed(3)} | ${b.delta} | ${b.segments} |`);
console.log(
  `last block / first block: mean ${(lastBlock / firstBlock).toFixed(2)}× (${lastBlock.toFixed(3)} vs ${firstBlock.toFixed(3)} ms per add), median ${(blocks.at(-1).median / blocks[0].median).toFixed(2)}×, CPU ${(blocks.at(-1).cpuMs / blocks[0].cpuMs).toFixed(2)}×`,
);
console.log(
  `links vs exact on ${SAMPLE} of the last block: ${found} of ${exact} exact links found (${exact ? (found / exact).toFixed(3) : "n/a"}); summed cosine ${exactCos ? (foundCos / exactCos).toFixed(3) : "n/a"} of the exact links'`,
);
