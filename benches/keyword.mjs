// Keyword search in Node: engram-wasm (BM25 in wasm) against MiniSearch on the same documents and
// queries, in the same run. Each library runs in its own child process so memory numbers are clean.
//
//   node benches/keyword.mjs PATH/longmemeval-s-dev.json.gz [--sizes 10000,100000] [--rounds 5] [--libs engram,engram-many,minisearch] [--pkg DIR]
//
// `--pkg DIR` runs another build of the package (e.g. an older checkout's pkg/) for a before-number.
//
// `engram` adds one by one; `engram-many` through `addMany` in batches of 10,000 (MiniSearch: `addAll`);
// `engram-many-unguarded` the same with the secret and injection guards off.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadCorpus, percentile } from "./corpus.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);

async function worker(lib, path, n, rounds) {
  const { docs, queries } = loadCorpus(path, n);
  global.gc?.();
  const mem0 = process.memoryUsage();
  let search;
  let wasmBytes = 0;
  const t0 = performance.now();
  if (lib.startsWith("engram")) {
    const pkg = process.env.ENGRAM_BENCH_PKG;
    const { Engram } = await import(pkg ? pathToFileURL(resolve(pkg, "dist/engram.node.mjs")).href : "engram-wasm");
    // `-unguarded`: secret and injection scanning off, to show what the guards cost (MiniSearch has none).
    const guards = lib.endsWith("-unguarded") ? { secrets: "off", injection: "off" } : undefined;
    const db = await Engram.open({ embedder: null, guards });
    if (lib.startsWith("engram-many")) {
      // addMany takes at most 10,000 items per call (one stored record each).
      for (let i = 0; i < docs.length; i += 10_000) await db.addMany(docs.slice(i, i + 10_000));
    } else {
      for (const content of docs) await db.add({ content });
    }
    search = async (q) => (await db.search(q, { limit: 10, dryRun: true })).length;
    wasmBytes = (await db.stats()).wasmMemoryBytes;
  } else {
    const { default: MiniSearch } = await import("minisearch");
    const ms = new MiniSearch({ fields: ["text"], idField: "id" });
    ms.addAll(docs.map((text, id) => ({ id, text })));
    search = async (q) => ms.search(q).slice(0, 10).length;
  }
  const buildMs = performance.now() - t0;
  global.gc?.();
  const mem1 = process.memoryUsage();
  for (const q of queries.slice(0, 20)) await search(q); // warm-up
  const times = [];
  let found = 0;
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const s = performance.now();
      found += await search(q);
      times.push(performance.now() - s);
    }
  }
  times.sort((a, b) => a - b);
  const mb = (x) => x / 1048576;
  return {
    lib,
    n,
    buildMs,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    queries: times.length,
    hitsPerQuery: found / times.length,
    // JS heap growth, plus the wasm linear memory for Engram (its index lives there, not in the heap).
    heapMb: mb(mem1.heapUsed - mem0.heapUsed),
    wasmMb: mb(wasmBytes),
    memMb: mb(mem1.heapUsed - mem0.heapUsed + wasmBytes),
  };
}

if (args[0] === "--worker") {
  const [, lib, path, n, rounds] = args;
  console.log(JSON.stringify(await worker(lib, path, Number(n), Number(rounds))));
} else {
  const path = args[0];
  if (!path) throw new Error("usage: node benches/keyword.mjs DATA.json[.gz] [--sizes 10000,100000] [--rounds 5]");
  const sizes = opt("--sizes", "10000,100000").split(",").map(Number);
  const rounds = opt("--rounds", "5");
  const self = fileURLToPath(import.meta.url);
  const rows = [];
  for (const n of sizes) {
    for (const lib of opt("--libs", "engram,engram-many,minisearch").split(",")) {
      const env = { ...process.env, ENGRAM_BENCH_PKG: opt("--pkg", "") };
      const out = execFileSync(process.execPath, ["--expose-gc", self, "--worker", lib, path, String(n), rounds], { encoding: "utf8", maxBuffer: 1 << 24, env });
      rows.push(JSON.parse(out.trim().split("\n").at(-1)));
    }
  }
  const f = (x, d = 2) => x.toFixed(d);
  console.log(`node ${process.version}, ${rounds} rounds of ${rows[0].queries / Number(rounds)} queries, limit 10, engram-wasm from ${opt("--pkg", "pkg/")}`);
  console.log("| docs | library | build (s) | query p50 (ms) | query p95 (ms) | memory (MiB) | of which wasm (MiB) | hits/query |");
  console.log("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of rows) {
    console.log(`| ${r.n} | ${r.lib} | ${f(r.buildMs / 1000)} | ${f(r.p50, 3)} | ${f(r.p95, 3)} | ${f(r.memMb, 1)} | ${f(r.wasmMb, 1)} | ${f(r.hitsPerQuery, 1)} |`);
  }
  for (const n of sizes) {
    const m = rows.find((r) => r.n === n && r.lib === "minisearch");
    for (const e of rows.filter((r) => r.n === n && r.lib !== "minisearch" && m)) {
      console.log(`ratio ${e.lib}/minisearch at ${n}: build ${f(e.buildMs / m.buildMs)}×, p50 ${f(e.p50 / m.p50)}×, p95 ${f(e.p95 / m.p95)}×, memory ${f(e.memMb / m.memMb)}×`);
    }
  }
}
