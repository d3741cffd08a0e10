// Persistence in Node (NodeFSStorage) and Chromium (IndexedDBStorage), with a hand-written JSON file
// as the peer measured in the same run:
//   - persisted add throughput (memories/s, each add acknowledged), strict and relaxed durability,
//     and storage writes per add; peer: append one JSON line per memory (+ fsync when strict);
//   - open time of a compacted store of 10k / 50k memories (384-dim vectors): a child process per
//     open, so each is a cold start of the store (the wasm module is loaded before the clock starts);
//     peer: readFile + JSON.parse of the same memories in one JSON file;
//   - bytes on disk per memory.
// Stores of N memories are built by importing an export written by `examples/synthetic_export.rs`
// (adding 50k one by one would measure `add`, not `open`).
//
//   node benches/persist.mjs PATH/longmemeval-s-dev.json.gz [--sizes 10000,50000] [--adds 300] [--opens 5] [--no-browser]
//        [--in-flight 32] (the concurrent add rows) [--before PKG_DIR] (add rows of another build too) [--no-open]
import { execFileSync } from "node:child_process";
import { closeSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadCorpus, percentile, seededUnit } from "./corpus.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const repo = resolve(here, "..");
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);

function diskBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    total += entry.isDirectory() ? diskBytes(p) : statSync(p).size;
  }
  return total;
}

/** Counts the writes that reach the adapter (save/remove), passing everything through. */
function counting(adapter) {
  const counts = { save: 0, remove: 0 };
  const wrapped = {
    counts,
    load: (k) => adapter.load(k),
    loadRange: (p) => adapter.loadRange(p),
    save: (k, d) => (counts.save++, adapter.save(k, d)),
    create: (k, d) => (counts.save++, adapter.create(k, d)),
    remove: (k) => (counts.remove++, adapter.remove(k)),
    removeRange: (p) => (counts.remove++, adapter.removeRange(p)),
    flush: () => adapter.flush(),
    lock: (fn) => adapter.lock(fn),
    close: () => adapter.close(),
  };
  return wrapped;
}

// ---- child processes -------------------------------------------------------------------------

async function childOpen(dir) {
  const { Engram } = await import("engram-wasm");
  const { NodeFSStorage } = await import("engram-wasm/node-fs");
  await (await Engram.open({ embedder: null })).close(); // loads and compiles the wasm module
  const t0 = performance.now();
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir) });
  const openMs = performance.now() - t0;
  const stats = await db.stats();
  await db.close();
  return { openMs, memories: stats.memories, rss: process.memoryUsage().rss };
}

function childJsonOpen(file) {
  const t0 = performance.now();
  const data = JSON.parse(readFileSync(file, "utf8"));
  const vectors = data.map((m) => Float32Array.from(m.embedding));
  return { openMs: performance.now() - t0, memories: vectors.length };
}

async function childBuild(dir, exportFile) {
  const { Engram } = await import("engram-wasm");
  const { NodeFSStorage } = await import("engram-wasm/node-fs");
  const db = await Engram.open({ embedder: null, storage: new NodeFSStorage(dir, { durability: "relaxed" }) });
  const t0 = performance.now();
  const imported = await db.import(new Uint8Array(readFileSync(exportFile)));
  await db.compact();
  await db.flush();
  const ms = performance.now() - t0;
  await db.close();
  return { ms, imported: imported.added };
}

async function childJsonWrite(exportFile, out) {
  // The same memories as a JS developer would keep them: the records plus `embedding` as a number
  // array (random unit vectors: the public API does not hand vectors back).
  const { Engram } = await import("engram-wasm");
  const db = await Engram.open({ embedder: null });
  await db.import(new Uint8Array(readFileSync(exportFile)));
  const rows = [];
  for (let page; (page = await db.getAll({ limit: 1000, offset: rows.length })).length;) rows.push(...page);
  const fd = openSync(out, "w");
  writeSync(fd, "[");
  rows.forEach((m, i) => writeSync(fd, (i ? ",\n" : "") + JSON.stringify({ ...m, embedding: Array.from(seededUnit(i + 1)) })));
  writeSync(fd, "]");
  closeSync(fd);
  await db.close();
  return { rows: rows.length };
}

/** The package under test: this repository's, or another build of it (`--before DIR`). */
async function engramPackage(pkg) {
  if (!pkg || pkg === "current") return { ...(await import("engram-wasm")), ...(await import("engram-wasm/node-fs")) };
  const at = (f) => pathToFileURL(join(pkg, "dist", f)).href;
  return { ...(await import(at("engram.node.mjs"))), ...(await import(at("engram.node-fs.mjs"))) };
}

/** `inFlight` 1: each add awaited before the next; more: that many adds issued together, then awaited. */
async function childAdds(dir, durability, docs, inFlight = 1, pkg = "current") {
  const { Engram, NodeFSStorage } = await engramPackage(pkg);
  const storage = counting(new NodeFSStorage(dir, { durability }));
  const db = await Engram.open({ embedder: null, storage });
  const before = { ...storage.counts };
  const times = [];
  const t0 = performance.now();
  for (let i = 0; i < docs.length; i += inFlight) {
    const s = performance.now();
    const burst = [];
    for (let k = i; k < Math.min(i + inFlight, docs.length); k++) burst.push(db.add({ content: docs[k], embedding: seededUnit(k + 7) }));
    await Promise.all(burst);
    // Each add's latency is its burst's: all of them are acknowledged together.
    for (let k = 0; k < burst.length; k++) times.push(performance.now() - s);
  }
  const ms = performance.now() - t0;
  const saves = storage.counts.save - before.save;
  const removes = storage.counts.remove - before.remove;
  await db.close();
  times.sort((a, b) => a - b);
  return { perSec: docs.length / (ms / 1000), p50: percentile(times, 50), p95: percentile(times, 95), savesPerAdd: saves / docs.length, removesPerAdd: removes / docs.length };
}

function childJsonAdds(file, durability, docs) {
  const fd = openSync(file, "a");
  const times = [];
  const t0 = performance.now();
  for (let i = 0; i < docs.length; i++) {
    const s = performance.now();
    const row = { id: crypto.randomUUID(), content: docs[i], createdAt: Date.now(), embedding: Array.from(seededUnit(i + 7)) };
    writeSync(fd, JSON.stringify(row) + "\n");
    if (durability === "strict") fsyncSync(fd);
    times.push(performance.now() - s);
  }
  const ms = performance.now() - t0;
  closeSync(fd);
  times.sort((a, b) => a - b);
  return { perSec: docs.length / (ms / 1000), p50: percentile(times, 50), p95: percentile(times, 95) };
}

if (args[0] === "--child") {
  const [, what, ...rest] = args;
  const jobs = {
    open: () => childOpen(rest[0]),
    "json-open": () => childJsonOpen(rest[0]),
    build: () => childBuild(rest[0], rest[1]),
    "json-write": () => childJsonWrite(rest[0], rest[1]),
    adds: () => childAdds(rest[0], rest[1], JSON.parse(readFileSync(rest[2], "utf8")), Number(rest[3] ?? 1), rest[4]),
    "json-adds": () => childJsonAdds(rest[0], rest[1], JSON.parse(readFileSync(rest[2], "utf8"))),
  };
  process.stdout.write(JSON.stringify(await jobs[what]()));
  process.exit(0);
}

// ---- parent ------------------------------------------------------------------------------------

const corpusPath = args[0];
if (!corpusPath || corpusPath.startsWith("--")) {
  console.error("usage: node benches/persist.mjs PATH/longmemeval-s-dev.json.gz [--sizes 10000,50000] [--adds 300] [--opens 5] [--no-browser]");
  process.exit(2);
}
const sizes = opt("--sizes", "10000,50000").split(",").map(Number);
const addCount = Number(opt("--adds", "300"));
const opens = Number(opt("--opens", "5"));
const child = (...a) =>
  JSON.parse(
    execFileSync(process.execPath, ["--max-old-space-size=8192", fileURLToPath(import.meta.url), "--child", ...a], {
      maxBuffer: 1 << 26,
      stdio: ["ignore", "pipe", "inherit"],
    }).toString(),
  );
const work = mkdtempSync(join(tmpdir(), "engram-persist-bench-"));
const dataDir = join(repo, "target", "bench-data");
mkdirSync(dataDir, { recursive: true });

console.log(`persist bench: node ${process.version}, ${work}`);

// Add throughput on real conversation lines, random unit vectors (no embedder in the loop).
const { docs } = loadCorpus(corpusPath, addCount);
const docsFile = join(work, "docs.json");
writeFileSync(docsFile, JSON.stringify(docs));
const addRows = [];
const inFlight = Number(opt("--in-flight", "32"));
const before = opt("--before", null);
for (const durability of ["strict", "relaxed"]) {
  for (const [label, pkg] of [...(before ? [["before", before]] : []), ["engram", "current"]]) {
    for (const n of [1, inFlight]) {
      const e = child("adds", join(work, `adds-${durability}-${label}-${n}`), durability, docsFile, String(n), pkg);
      // The peer right after each row: fsync times drift with whatever else the disk is doing.
      const j = child("json-adds", join(work, `adds-${durability}-${label}-${n}.jsonl`), durability, docsFile);
      addRows.push({ durability, label, n, e, j });
    }
  }
}

// Open time at each size (`--no-open`: the add rows alone).
const openRows = [];
for (const n of args.includes("--no-open") ? [] : sizes) {
  const exportFile = join(dataDir, `synthetic-${n}.bin`);
  if (!existsSync(exportFile)) {
    execFileSync("cargo", ["run", "--quiet", "--profile", "bench-native", "--example", "synthetic_export", "--", String(n), exportFile], { cwd: repo, stdio: "inherit" });
  }
  const dir = join(work, `open-${n}`);
  const built = child("build", dir, exportFile);
  const jsonFile = join(work, `open-${n}.json`);
  const jw = child("json-write", exportFile, jsonFile);
  const e = [];
  const j = [];
  let rss = 0;
  for (let i = 0; i < opens; i++) {
    const r = child("open", dir);
    if (r.memories !== n) throw new Error(`opened ${r.memories} memories, expected ${n}`);
    e.push(r.openMs);
    rss = Math.max(rss, r.rss);
    j.push(child("json-open", jsonFile).openMs);
  }
  e.sort((a, b) => a - b);
  j.sort((a, b) => a - b);
  openRows.push({ n, buildMs: built.ms, e, j, rss, bytes: diskBytes(dir), jsonBytes: statSync(jsonFile).size, jsonRows: jw.rows });
}

let browserRows = null;
if (!args.includes("--no-browser") && !args.includes("--no-open")) {
  const { browserOpenTimes } = await import("./persist-browser.mjs");
  browserRows = await browserOpenTimes(
    sizes.map((n) => ({ n, file: `/target/bench-data/synthetic-${n}.bin` })),
    opens,
  );
}
rmSync(work, { recursive: true, force: true });

const f = (x, d = 1) => x.toFixed(d);
console.log("\n## Persisted add (NodeFSStorage), one memory per add, acknowledged");
console.log("| durability | build | adds in flight | engram adds/s | p50 ms | p95 ms | storage writes per add | JSON-lines peer adds/s | peer p50 ms | engram ÷ peer (adds/s) |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const { durability, label, n, e, j } of addRows) {
  console.log(
    `| ${durability} | ${label} | ${n} | ${f(e.perSec, 0)} | ${f(e.p50, 2)} | ${f(e.p95, 2)} | ${f(e.savesPerAdd, 2)} saves + ${f(e.removesPerAdd, 2)} removes | ${f(j.perSec, 0)} | ${f(j.p50, 2)} | ${f(e.perSec / j.perSec, 2)}× |`,
  );
}
console.log("\n## Open (NodeFSStorage, compacted, cold process; wasm module already compiled)");
console.log(
  "| memories | engram open p50 ms | p95 ms | JSON.parse peer p50 ms | ratio | bytes on disk per memory | peer JSON bytes per memory | RSS after open MB | import+compact ms |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
for (const r of openRows) {
  const ep = percentile(r.e, 50);
  const jp = percentile(r.j, 50);
  console.log(
    `| ${r.n} | ${f(ep, 0)} | ${f(percentile(r.e, 95), 0)} | ${f(jp, 0)} | ${f(ep / jp, 2)}× | ${f(r.bytes / r.n, 0)} | ${f(r.jsonBytes / r.n, 0)} | ${f(r.rss / 2 ** 20, 0)} | ${f(r.buildMs, 0)} |`,
  );
}
if (browserRows) {
  console.log("\n## Open (IndexedDBStorage, headless Chromium, fresh page per open)");
  console.log("| memories | engram open p50 ms | p95 ms | import+compact ms |");
  console.log("|---|---|---|---|");
  for (const r of browserRows) console.log(`| ${r.n} | ${f(percentile(r.e, 50), 0)} | ${f(percentile(r.e, 95), 0)} | ${f(r.buildMs, 0)} |`);
}
