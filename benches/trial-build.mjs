// What a vector build costs on data a graph cannot serve: N uniform random 384-d vectors, then one
// `reindex()` (the build in its worker), timed, with the calibration it reports. Run against this
// package and against another build of it (`--pkg DIR`, e.g. an older checkout's pkg/) for a
// before/after in the same run.
//
//   node benches/trial-build.mjs [--n 20000] [--pkg DIR] [--clustered]
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { seededUnit } from "./corpus.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const N = Number(opt("--n", "20000"));
const pkg = opt("--pkg", null);
const { Engram } = await import(pkg ? pathToFileURL(resolve(pkg, "dist/engram.node.mjs")).href : "engram-wasm");
const centres = Array.from({ length: 500 }, (_, c) => seededUnit(17 + c));

/** Uniform random, or (`--clustered`) a seeded cluster centre plus equal-length noise. */
function vector(i) {
  const noise = seededUnit(1_000_003 + i);
  if (!args.includes("--clustered")) return noise;
  const c = centres[(i * 7919) % centres.length];
  const v = noise.map((x, k) => x + c[k]);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const db = await Engram.open({ embedder: null, autoReindex: false });
for (let i = 0; i < N; i += 5000) {
  const items = [];
  for (let k = i; k < Math.min(N, i + 5000); k++) items.push({ content: `memory ${k}`, embedding: vector(k) });
  if (db.addMany) await db.addMany(items);
  else for (const item of items) await db.add(item);
}
const t0 = performance.now();
const steps = await db.reindex();
const s = (performance.now() - t0) / 1000;
const st = steps.steps ?? steps;
console.log(JSON.stringify({ n: N, data: args.includes("--clustered") ? "clustered" : "uniform", pkg: pkg ?? "this", reindexSeconds: Number(s.toFixed(2)), result: st }));
await db.close();
